"""The :class:`Trace` object and :func:`read_trace`."""
from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from ..errors import TraceError
from ._events import RECORD_HINT
from ._skips import SkipReport

if TYPE_CHECKING:        # numpy and pandas load when a DataFrame is first built or read (start-up)
    import pandas as pd

__all__ = ["Trace", "read_trace", "SCHEMA_COLUMNS"]

SCHEMA_COLUMNS = ("__ts", "__cpu", "__pid", "__comm")


def _window_df(df: pd.DataFrame, start, end) -> pd.DataFrame:
    import numpy as np

    idx = df.index.values
    lo = 0 if start is None else int(np.searchsorted(idx, start, side="left"))
    hi = len(idx) if end is None else int(np.searchsorted(idx, end, side="right"))
    return df.iloc[lo:hi]


class Trace:
    """Events of one trace, one DataFrame per event, in LISA's schema.

    Every DataFrame has a float64 index ``Time`` (seconds, as in the trace), the event's
    own fields as typed columns (integers at their kernel width and signedness, strings
    as categoricals), and ``__ts`` (int64 nanoseconds), ``__cpu``, ``__pid``, ``__comm``.
    A Trace comes from :func:`read_trace` or, for modelled runs and tests, from
    :meth:`Trace.from_dataframes`.
    """

    def __init__(self, frames: Mapping[str, pd.DataFrame | Callable[[], pd.DataFrame]],
                 metadata: Mapping | None = None, skipped: SkipReport | None = None):
        self._frames = dict(frames)
        meta = dict(metadata or {})
        self._skipped = skipped if skipped is not None else SkipReport(str(meta.get("source", "")))
        meta.setdefault("skipped", self._skipped.as_dict())
        self._metadata = MappingProxyType(meta)
        self._activations = None

    # -- construction ---------------------------------------------------------------
    @classmethod
    def from_dataframes(cls, dfs: Mapping[str, pd.DataFrame],
                        metadata: Mapping | None = None) -> "Trace":
        """Build a Trace from DataFrames already in the trace schema.

        Parameters
        ----------
        dfs : mapping of event name to DataFrame
            Index: time in seconds; columns: the event fields plus ``__cpu``, ``__pid``,
            ``__comm``. ``__ts`` is derived from the index when absent.
        metadata : mapping, optional
            ``clock``, ``cpus``, ``kernel_version``, ``source``...

        Raises
        ------
        TraceError
            If a DataFrame lacks a schema column or its index is not numeric and sorted.
        """
        import numpy as np
        import pandas as pd

        frames = {}
        for name, df in dfs.items():
            if not pd.api.types.is_numeric_dtype(df.index):
                raise TraceError(f"event {name!r}: the index must be the time in seconds (float)")
            df = df.copy(deep=False)
            df.index = pd.Index(np.asarray(df.index, dtype=np.float64), name="Time")
            if "__ts" not in df.columns:
                df.insert(0, "__ts", np.rint(df.index.values * 1e9).astype(np.int64))
            missing = [c for c in SCHEMA_COLUMNS if c not in df.columns]
            if missing:
                raise TraceError(f"event {name!r}: DataFrame lacks the schema column(s) "
                                 f"{', '.join(missing)}; add them (use -1 / '' when unknown)")
            if len(df) > 1 and not df.index.is_monotonic_increasing:
                df = df.sort_index(kind="stable")
            frames[name] = df
        meta = dict(metadata or {})
        meta.setdefault("source", "<dataframes>")
        meta.setdefault("event_counts", {k: len(v) for k, v in frames.items()})
        return cls(frames, meta)

    # -- access ---------------------------------------------------------------------
    @property
    def events(self) -> tuple[str, ...]:
        """Names of the events present (sorted)."""
        return tuple(sorted(self._frames))

    def df(self, event: str) -> pd.DataFrame:
        """The DataFrame of ``event``.

        Raises
        ------
        MissingTraceEventError
            If the trace has no such event.
        """
        try:
            frame = self._frames[event]
        except KeyError:
            from ._events import missing_events_error
            raise missing_events_error(self, [event], RECORD_HINT + f" (this trace has: "
                                       f"{', '.join(self.events) or 'no events'})") from None
        if callable(frame):
            frame = frame()
            self._frames[event] = frame
        return frame

    def df_event(self, event: str) -> pd.DataFrame:
        """LISA's name for :meth:`df`: the DataFrame of ``event`` (same schema, same errors)."""
        return self.df(event)

    @property
    def ana(self):
        """The analyses by area, LISA style: ``trace.ana.<area>.df_*()`` / ``plot_*()`` (TAB lists them).

        See :mod:`lisa_eas.analysis._ana`; e.g. ``trace.ana.idle.df_cpu_idle_state_residency()``.
        """
        # The one place a Trace reaches up to the analyses (lazily, as LISA's trace.ana does).
        from ..analysis import TraceAnalyses

        return TraceAnalyses(self)

    def __contains__(self, event: str) -> bool:
        return event in self._frames

    @property
    def metadata(self) -> Mapping:
        """Read-only dict: ``source``, ``format``, ``clock``, ``cpus``, ``kernel_version``,
        ``event_counts``, ``skipped``... (keys that are unknown for a source are absent or None)."""
        return self._metadata

    @property
    def skipped(self) -> SkipReport:
        """What the reader could not decode: counts and first byte offset / line per reason."""
        return self._skipped

    @property
    def time_range(self) -> tuple[float, float]:
        """(first, last) event time in seconds over all events; (nan, nan) if empty."""
        lo, hi = float("inf"), float("-inf")
        for e in self.events:
            idx = self.df(e).index
            if len(idx):
                lo, hi = min(lo, idx[0]), max(hi, idx[-1])
        return (float(lo), float(hi)) if lo <= hi else (float("nan"), float("nan"))

    def window(self, start: float | None, end: float | None) -> "Trace":
        """A Trace with only the events with ``start <= Time <= end`` (None: unbounded)."""
        frames = {}
        for name, frame in self._frames.items():
            if callable(frame):
                frames[name] = (lambda f=frame: _window_df(f(), start, end))
            else:
                frames[name] = _window_df(frame, start, end)
        meta = dict(self._metadata)
        meta["window"] = (start, end)
        meta.pop("time_range", None)
        return Trace(frames, meta, self._skipped)

    def to_perfetto(self, path: str | os.PathLike, *, tracks: bool = True) -> Path:
        """Write this trace as a Perfetto protobuf trace (openable in ui.perfetto.dev).

        ``sched_switch``/``sched_waking`` become ``compact_sched`` records, events with a
        Perfetto proto typed ftrace events, the others (model signals...) generic ftrace
        events; :func:`read_trace` reads the file back to the same DataFrames. With
        ``tracks``, a simulated run's model signals are also counter tracks and its EAS
        decisions slices carrying their energies.

        Returns
        -------
        Path
            ``path``.

        Raises
        ------
        TraceError
            If the file cannot be written.
        """
        from ._perfetto_write import write_perfetto
        return write_perfetto(self, path, tracks=tracks)

    @property
    def activations(self) -> pd.DataFrame:
        """rt-app activations built from the ``print`` markers (empty if there are none).

        Raises
        ------
        TraceError
            If the rt-app marker parser (``lisa_eas.rtapp.markers``) is not available.
        """
        if self._activations is None:
            try:
                from ..rtapp.markers import df_activations_from_markers
            except ImportError as exc:
                raise TraceError("Trace.activations needs lisa_eas.rtapp.markers."
                                 "df_activations_from_markers, which cannot be imported "
                                 f"({exc})") from None
            if "print" in self._frames:
                df_print = self.df("print")
            else:
                import numpy as np
                import pandas as pd
                df_print = pd.DataFrame({"__ts": pd.Series([], dtype=np.int64),
                                         "__cpu": pd.Series([], dtype=np.int32),
                                         "__pid": pd.Series([], dtype=np.int32),
                                         "__comm": pd.Series([], dtype=object),
                                         "buf": pd.Series([], dtype=object)},
                                        index=pd.Index([], dtype=np.float64, name="Time"))
            self._activations = df_activations_from_markers(df_print)
        return self._activations

    def __repr__(self) -> str:
        # the records this Trace holds (after events= / window filtering), not the file's
        counts = self._metadata.get("event_counts") or {}
        if "window" in self._metadata or any(e not in counts for e in self._frames):
            n = sum(len(self.df(e)) for e in self._frames)
        else:
            n = sum(counts[e] for e in self._frames)
        return (f"<Trace {self._metadata.get('source', '')!s} events={len(self._frames)} "
                f"records={n} skipped={self._skipped.total}>")


def _sniff(path: Path) -> str:
    with open(path, "rb") as fh:
        head = fh.read(4096)
        if head[:3] == b"\x17\x08\x44":
            return "dat"
        if head[:1] == b"\x0a":
            from ._perfetto import is_perfetto
            if is_perfetto(head + fh.read(60 * 1024)):
                return "perfetto"
    if head.startswith(b"TRACE:") and b"\n" in head[:8]:
        return "atrace"
    low = head.lower()
    if (b"<html" in low or b"<!doctype" in low or b"<script" in low or b"linuxperfdata" in low
            or b"\\n\\\n" in head):
        return "systrace"
    return "text"


def _read_source(path: Path, kind: str, events, strict: bool, buffer=None):
    try:
        if events is not None:  # LISA module events are read under their names without lisa__
            events = list(events) + [_LISA_PREFIX + e for e in events if not e.startswith(_LISA_PREFIX)]
        dfs, meta, skipped = _dispatch(path, kind, events, strict, buffer)
        return _strip_lisa_prefix(dfs, meta) + (skipped,)
    except (TraceError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:   # a reader bug on odd input must still surface as a TraceError
        raise TraceError(f"{path}: cannot decode this {kind} trace ({type(exc).__name__}: "
                         f"{exc}); please report it with the file") from exc


_LISA_PREFIX = "lisa__"


def _strip_lisa_prefix(dfs: dict, meta: dict) -> tuple[dict, dict]:
    """LISA's kernel-module events (``lisa__sched_pelt_se``, ...) under the names the
    kernel-signals collector uses (``sched_pelt_se``); an event already present under the
    short name keeps it."""
    if not any(k.startswith(_LISA_PREFIX) for k in dfs):
        return dfs, meta
    out = {}
    for k, v in dfs.items():
        short = k[len(_LISA_PREFIX):] if k.startswith(_LISA_PREFIX) else k
        out[short if short not in dfs else k] = v
    meta = dict(meta)
    counts = meta.get("event_counts")
    if isinstance(counts, dict):
        meta["event_counts"] = {(k[len(_LISA_PREFIX):] if k.startswith(_LISA_PREFIX)
                                 and k[len(_LISA_PREFIX):] not in counts else k): n for k, n in counts.items()}
    return out, meta


def _dispatch(path: Path, kind: str, events, strict: bool, buffer=None):
    if kind == "dat":
        from ._datread import read_dat
        return read_dat(path, events=events, strict=strict, buffer=buffer)
    if buffer:
        raise TraceError(f"{path}: buffer={buffer!r} only applies to trace.dat files")
    if kind == "perfetto":
        from ._perfetto import read_perfetto
        return read_perfetto(path, strict=strict)
    if kind in ("systrace", "atrace"):
        from ._systrace import read_systrace
        return read_systrace(path, strict=strict)
    from ._text import read_text
    return read_text(path, strict=strict)


def _load_cached(store, man: dict, event: str, path: Path, kind: str, strict: bool, buffer):
    """``event`` from the cache; a cache file that cannot be read (damaged, deleted since the
    manifest was read) is replaced by decoding the event from the trace again."""
    try:
        return store.load(event)
    except MemoryError:
        raise
    except Exception:   # pyarrow, OS and layout errors alike: the trace itself is the truth
        dfs, _, _ = _read_source(path, kind, [event], strict, buffer)
        store.store(dfs, man["metadata"], man["skipped"], man)
        return dfs[event]


def read_trace(path: str | os.PathLike, *, events: Iterable[str] | None = None,
               window: tuple[float | None, float | None] | None = None, strict: bool = False,
               cache: bool = True, cache_dir: str | os.PathLike | None = None,
               buffer: str | None = None, kernel_signals: bool = True) -> Trace:
    """Read a trace: trace-cmd ``trace.dat`` (v6/v7), a Perfetto protobuf trace,
    ``trace-cmd report``/tracefs text, or Android systrace/atrace (HTML, text,
    zlib-compressed).

    A Perfetto trace gives the same events, columns and dtypes as a trace.dat
    (``compact_sched`` records become ``sched_switch``/``sched_waking`` rows), plus the
    tables ``power_rails``, ``battery`` and ``process_tree`` when it has them.

    Parameters
    ----------
    path : path-like
        The trace file; its format is recognised from its content. Or a run directory of
        ``lisa-eas run`` / ``lisa-eas signals record`` (its ``trace.dat`` and/or
        ``kernel_signals.bin``).
    events : iterable of str, optional
        Only these events (all by default).
    window : (start, end), optional
        Keep only events with ``start <= Time <= end`` (seconds, trace time base).
    strict : bool
        Raise :class:`~lisa_eas.errors.TraceError` (with byte offset or line number) at the
        first thing that cannot be decoded, instead of skipping it and reporting it in
        :attr:`Trace.skipped`.
    cache : bool
        Use and fill the parquet cache (keyed by the file content).
    cache_dir : path-like, optional
        Where to keep the cache (default: ``.<name>.lisa_eas/`` next to the trace).
    buffer : str, optional
        trace.dat only: the tracefs instance to read (``""`` = top buffer). By default the
        top buffer if it holds data, else the first instance that does
        (``metadata["buffers"]`` lists them).
    kernel_signals : bool
        Add the events of the kernel-signals collector (``sched_pelt_se``,
        ``sched_util_est_se``, ...) from the ``kernel_signals.bin`` next to the trace (a run
        recorded with ``--kernel-signals``); LISA kernel-module events (``lisa__*``) are
        always read under the same names without the prefix.

    Returns
    -------
    Trace

    Examples
    --------
    >>> trace = read_trace("trace.dat", events=["sched_switch", "cpu_idle"])
    >>> trace.df("sched_switch").head()
    """
    path = Path(path)
    signals = _signals_file(path) if kernel_signals else None
    if path.is_dir():
        found = [path / n for n in ("trace.dat", "trace.txt") if (path / n).is_file()]
        if not found:
            if signals is not None:
                return _with_signals(Trace({}, {"source": str(path), "clock": "mono"}), signals, wanted_of(events),
                                     window)
            raise TraceError(f"{path}: a directory without trace.dat, trace.txt or kernel_signals.bin; give "
                             f"the trace file or a run directory of `lisa-eas run`")
        path = found[0]
    if not path.is_file():
        raise TraceError(f"{path}: no such trace file")
    if path.stat().st_size == 0:
        raise TraceError(f"{path}: empty file, not a trace")
    wanted = None if events is None else list(dict.fromkeys(events))
    kind = _sniff(path)
    store = None
    man = None
    if cache:
        from ._cache import TraceCache
        store = TraceCache(path, cache_dir, buffer)
        man = store.manifest()
    if man is not None:
        counts = man["metadata"].get("event_counts", {})
        present = [e for e in (wanted if wanted is not None else counts) if e in counts]
        missing = [e for e in present if e not in man["stored"]]
        skipped = SkipReport(str(path), man["skipped"].get("unit", "byte offset"),
                             dict(man["skipped"].get("entries", {})))
        if strict:
            skipped.raise_if_any()
        frames: dict = {}
        if missing:
            dfs, meta, _ = _read_source(path, kind, missing, strict, buffer)
            store.store(dfs, man["metadata"], man["skipped"], man)
            frames.update(dfs)
        for e in present:
            if e not in frames:
                frames[e] = (lambda e=e: _load_cached(store, man, e, path, kind, strict, buffer))
        meta = dict(man["metadata"])
        meta["source"] = str(path)      # as read now (the cache may have been filled from another cwd)
        meta["cache"] = str(store.dir)
        trace = Trace(frames, meta, skipped)
    else:
        dfs, meta, skipped = _read_source(path, kind, wanted, strict, buffer)
        meta = dict(meta)
        meta["time_range"] = _frames_time_range(dfs.values())    # a cache hit needs no frame for it
        if store is not None:
            store.store(dfs, meta, {"unit": skipped.unit, "entries": skipped.as_dict()}, None)
            meta = dict(meta)
            meta["cache"] = str(store.dir)
        if wanted is not None:
            dfs = {k: v for k, v in dfs.items() if k in wanted}
        trace = Trace(dfs, meta, skipped)
    if signals is not None:
        return _with_signals(trace, signals, wanted, window)
    if window is not None:
        trace = trace.window(*window)
    return trace


def _frames_time_range(frames) -> list:
    """[first, last] time in seconds over DataFrames (None, None when all are empty)."""
    lo, hi = float("inf"), float("-inf")
    for df in frames:
        idx = df.index
        if len(idx):
            lo, hi = min(lo, float(idx[0])), max(hi, float(idx[-1]))
    return [lo, hi] if lo <= hi else [None, None]


def wanted_of(events):
    return None if events is None else list(dict.fromkeys(events))


def _signals_file(path: Path) -> Path | None:
    """The kernel-signals file of a run directory (or next to its trace file), if any."""
    d = path if path.is_dir() else path.parent
    f = d / "kernel_signals.bin"
    return f if f.is_file() else None


def _with_signals(trace: "Trace", signals: Path, wanted, window) -> "Trace":
    """``trace`` plus the kernel-signals collector's events (they replace events of the same
    name from the trace file, e.g. LISA module events recorded at the same time)."""
    from ._ksignals import read_kernel_signals

    skipped = trace.skipped
    frames, ks_meta = read_kernel_signals(signals, wanted, skipped)
    merged = {k: (lambda k=k: trace.df(k)) for k in trace.events if k not in frames}
    merged.update(frames)
    meta = dict(trace.metadata)
    counts = dict(meta.get("event_counts") or {})
    counts.update({k: len(v) for k, v in frames.items()})
    meta["event_counts"] = counts
    meta["kernel_signals"] = {"file": str(signals), **{k: v for k, v in ks_meta.items() if k != "summary"},
                              "dropped": (ks_meta.get("summary") or {}).get("dropped"),
                              "status": (ks_meta.get("summary") or {}).get("status")}
    if meta.get("clock") not in (None, "mono"):
        import warnings

        warnings.warn(f"{signals}: kernel signals are timed on the mono clock and the trace on "
                      f"{meta.get('clock')!r}: their times do not line up; record with trace_clock=mono",
                      stacklevel=3)
    meta.pop("skipped", None)
    meta.pop("time_range", None)
    out = Trace(merged, meta, skipped)
    return out.window(*window) if window is not None else out
