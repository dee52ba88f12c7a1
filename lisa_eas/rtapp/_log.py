"""Read rt-app per-thread log files (``<logdir>/<log_basename>-<task>-<idx>.log``).

One row per executed phase iteration ("activation"). Both column layouts are read:

* current: ``#idx perf run period start end rel_st slack c_duration c_period wu_lat``
  (sometimes followed by ``cpu``);
* older (2016 and before): the same with ``c_run`` instead of ``c_duration``.

Units: every time column is an integer number of **microseconds** (suffix ``_us``);
``start_us``/``end_us`` are CLOCK_MONOTONIC, the time base of ftrace with
``trace_clock=mono``. The index ``Time`` is ``start_us / 1e6`` (seconds, float64), as in
a :class:`~lisa_eas.trace.Trace` DataFrame.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

from typing import TYPE_CHECKING

from ..errors import WorkloadError

if TYPE_CHECKING:  # pandas is imported on first use, so reading JSON stays quick
    import pandas as pd

__all__ = ["read_rtapp_log", "read_rtapp_logs"]

_COLS = {"idx": "thread_idx", "perf": "perf", "run": "run_us", "period": "period_us",
         "start": "start_us", "end": "end_us", "rel_st": "rel_start_us", "slack": "slack_us",
         "c_duration": "c_duration_us", "c_run": "c_duration_us", "c_period": "c_period_us",
         "wu_lat": "wu_lat_us", "cpu": "cpu"}
_REQUIRED = ("idx", "perf", "run", "period", "start", "end", "rel_st", "slack", "c_period", "wu_lat")
_POLICY_RE = re.compile(r"#\s*Policy\s*:\s*(\S+)(?:\s+priority\s*:\s*(-?\d+))?")
_NAME_RE = re.compile(r"^(?P<base>.*)-(?P<task>.+)-(?P<idx>\d+)\.log$")


def read_rtapp_log(path, *, task: str | None = None) -> "pd.DataFrame":
    """Per-activation DataFrame of one rt-app log file.

    Parameters
    ----------
    path : str or Path
        The log file.
    task : str, optional
        Task name for the ``task`` column; by default taken from the file name
        ``<basename>-<task>-<idx>.log`` (else the file stem).

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (start, s). Columns: ``task``, ``thread_idx``, ``perf`` (work in
        loops, as rt-app counts it), ``run_us`` (measured busy wall time), ``period_us``
        (measured iteration length), ``start_us``, ``end_us``, ``rel_start_us``,
        ``slack_us`` (timer deadline minus the time it was reached; negative = overrun),
        ``c_duration_us`` (configured run+runtime), ``c_period_us`` (configured timer
        periods), ``wu_lat_us`` (timer wake-up latency), ``cpu`` if logged, and derived
        ``overrun`` (slack < 0), ``duty_cycle`` (run / period, measured),
        ``phase`` (0, 1, ... a new number each time the configured
        ``(c_duration, c_period)`` changes: the log has no phase column, so consecutive
        phases with identical settings merge). ``df.attrs`` holds ``layout``
        (``"c_duration"`` or ``"c_run"``), ``policy``, ``priority`` and ``source``.

    Raises
    ------
    WorkloadError
        Unreadable file, missing header, or a malformed row (file:line and the fix).
    """
    import numpy as np
    import pandas as pd

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise WorkloadError(f"{p}: cannot read rt-app log ({exc.strerror or exc}); check the path") from None
    policy = priority = None
    header: list[str] | None = None
    lines = text.splitlines()
    body = len(lines)  # index of the first data line: '#' lines only head an rt-app log
    for i, line in enumerate(lines):
        s = line.strip()
        if not s:
            continue
        if not s.startswith("#"):
            body = i
            break
        m = _POLICY_RE.match(s)
        if m:
            policy = m.group(1)
            priority = None if m.group(2) is None else int(m.group(2))
        elif "idx" in s:
            header = s.lstrip("#").split()
            missing = [c for c in _REQUIRED if c not in header]
            unknown = [c for c in header if c not in _COLS]
            if missing or unknown or not ({"c_duration", "c_run"} & set(header)):
                raise WorkloadError(
                    f"{p}:{i + 1}: unknown rt-app log header (missing {missing or ['c_duration']}, "
                    f"unknown {unknown}); expected '#idx perf run period start end rel_st slack "
                    "c_duration|c_run c_period wu_lat [cpu]'")
    if header is None:
        if body < len(lines):
            raise WorkloadError(f"{p}:{body + 1}: data before the '#idx perf run ...' header; "
                                "is this an rt-app log file?")
        raise WorkloadError(f"{p}: no '#idx perf run ...' header; is this an rt-app log file? "
                            "(an rt-app 1.0 log with only header lines comes from \"log_size\": "
                            "\"file\": omit log_size)")
    ncol = len(header)
    data = "\n".join(lines[body:])
    arr = None
    if data.strip():
        try:  # pandas' C tokenizer: several times faster than splitting lines in Python
            arr = pd.read_csv(io.StringIO(data), sep=r"\s+", header=None, dtype=np.int64,
                              engine="c").to_numpy()
            if arr.shape[1] != ncol:
                arr = None
        except (ValueError, pd.errors.ParserError):
            arr = None
        if arr is None:  # find the first bad line, for the message
            for i in range(body, len(lines)):
                parts = lines[i].split()
                if not parts:
                    continue
                if len(parts) != ncol:
                    raise WorkloadError(f"{p}:{i + 1}: {len(parts)} fields where the header has "
                                        f"{ncol}; the file is truncated or mixes two logs")
                if not all(x.lstrip("-").isdigit() for x in parts):
                    raise WorkloadError(f"{p}:{i + 1}: non-integer field in {lines[i].strip()!r}; "
                                        "rt-app logs hold integers")
            raise WorkloadError(f"{p}: rows cannot be read as integers; is this an rt-app log file?")
    else:
        arr = np.zeros((0, ncol), dtype=np.int64)
    cols = {_COLS[c]: arr[:, i] for i, c in enumerate(header)}
    if task is None:
        m = _NAME_RE.match(p.name)
        task = m.group("task") if m else p.stem
    slack, run, period = cols["slack_us"], cols["run_us"], cols["period_us"]
    cfg = np.stack([cols["c_duration_us"], cols["c_period_us"]], axis=1)
    change = np.ones(len(arr), dtype=bool)
    if len(arr) > 1:
        change[1:] = (cfg[1:] != cfg[:-1]).any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        duty = np.where(period > 0, run / np.maximum(period, 1), np.nan)
    out = {"task": np.full(len(arr), task, dtype=object), **cols, "overrun": slack < 0,
           "duty_cycle": duty, "phase": np.cumsum(change) - 1}
    df = pd.DataFrame(out, index=pd.Index(cols["start_us"] / 1e6, name="Time"))
    df.attrs.update(layout="c_run" if "c_run" in header else "c_duration", policy=policy,
                    priority=priority, source=str(p))
    return df


def read_rtapp_logs(logdir, log_basename: str = "rt-app") -> "pd.DataFrame":
    """All ``<log_basename>-<task>-<idx>.log`` files of a directory, concatenated in time order.

    Parameters
    ----------
    logdir : str or Path
        The workload's ``logdir``.
    log_basename : str
        The workload's ``log_basename`` (rt-app's default is ``rt-app``).

    Returns
    -------
    pandas.DataFrame
        The rows of every file (columns as :func:`read_rtapp_log`), sorted by start time.

    Raises
    ------
    WorkloadError
        If no log file matches.
    """
    import pandas as pd

    d = Path(logdir)
    files = sorted(d.glob(f"{log_basename}-*.log"))
    if not files:
        raise WorkloadError(f"{d}: no {log_basename}-<task>-<idx>.log files; check logdir and "
                            "log_basename of the workload")
    dfs = [read_rtapp_log(f) for f in files]
    out = pd.concat(dfs).sort_index(kind="stable")
    out.attrs.update(source=str(d), layout=dfs[0].attrs["layout"])
    return out
