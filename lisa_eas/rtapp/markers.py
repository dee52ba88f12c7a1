"""rt-app activations from its ftrace markers (``print`` / ``tracing_mark_write`` events).

Two marker dialects are read:

* **rt-app 1.0** (Debian, ``"ftrace": true``): text markers
  ``[i] begins loop L phase P step S`` ... ``[i] end loop L phase P step S`` around every
  phase iteration (``i`` = thread index, ``L`` = task loop, ``P`` = phase, ``S`` = phase
  loop), plus ``[i] starts``, ``[i] executing E``, ``[i] exiting``, ``main ...``.
* **LISA / newer rt-app** (``"ftrace": "loop,stats"``...):
  ``rtapp_loop: event=start|end thread_loop=L phase=P phase_loop=S`` and, after each
  iteration, ``rtapp_stats: period= run= wu_lat= slack= c_period= c_run=`` (µs).

Usage::

    from lisa_eas.rtapp.markers import df_activations_from_markers
    acts = df_activations_from_markers(trace.df("print"))
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import TraceError

__all__ = ["ACTIVATION_COLUMNS", "df_activations_from_markers"]

_RTAPP1 = (r"\[(?P<thread_idx>\d+)\] (?P<kind>begins|end) loop (?P<thread_loop>\d+) "
           r"phase (?P<phase>\d+) (?:step|loop) (?P<phase_loop>\d+)")
_LISA = (r"rtapp_loop: event=(?P<kind>start|end) thread_loop=(?P<thread_loop>\d+) "
         r"phase=(?P<phase>\d+) phase_loop=(?P<phase_loop>\d+)")
_STATS = (r"rtapp_stats: period=(?P<period_us>-?\d+) run=(?P<run_us>-?\d+) "
          r"wu_lat=(?P<wu_lat_us>-?\d+) slack=(?P<slack_us>-?\d+) c_period=(?P<c_period_us>-?\d+) "
          r"c_run=(?P<c_run_us>-?\d+)")
_STATS_COLS = ["period_us", "run_us", "wu_lat_us", "slack_us", "c_period_us", "c_run_us"]

#: columns of the activation DataFrame, in order (index: ``Time``, the start in seconds)
ACTIVATION_COLUMNS = ["__pid", "__comm", "__cpu", "thread_idx", "thread_loop", "phase", "phase_loop",
                      "end", "duration"] + _STATS_COLS + ["format"]


def _empty() -> pd.DataFrame:
    df = pd.DataFrame({c: pd.Series(dtype="float64") for c in ACTIVATION_COLUMNS})
    for c in ("__pid", "__cpu", "thread_idx", "thread_loop", "phase", "phase_loop"):
        df[c] = df[c].astype("int64")
    df["__comm"] = df["__comm"].astype(object)
    df["format"] = df["format"].astype(object)
    df.index = pd.Index([], dtype="float64", name="Time")
    return df


def df_activations_from_markers(df_print: pd.DataFrame) -> pd.DataFrame:
    """One row per rt-app phase iteration found in the trace's ``print`` events.

    Parameters
    ----------
    df_print : pandas.DataFrame
        The ``print`` (``tracing_mark_write``) events of a trace: index = time in seconds,
        columns at least ``__pid``, ``__cpu``, ``__comm`` and ``buf`` (the marker text).

    Returns
    -------
    pandas.DataFrame
        Index ``Time``: start of the iteration (s). Columns: ``__pid``, ``__comm``, ``__cpu``
        (CPU that wrote the start marker), ``thread_idx`` (rt-app 1.0 thread index, -1 in
        the LISA form), ``thread_loop``, ``phase``, ``phase_loop``, ``end`` (s; NaN when the
        iteration did not finish inside the trace), ``duration`` (s), the ``rtapp_stats``
        values ``period_us``, ``run_us``, ``wu_lat_us``, ``slack_us``, ``c_period_us``,
        ``c_run_us`` (µs; NaN in the rt-app 1.0 form, which has none), and ``format``
        (``"rtapp1"`` or ``"lisa"``). Sorted by time. Empty (same columns) when the trace
        has no rt-app markers.

    Raises
    ------
    TraceError
        If a needed column is missing from ``df_print``.
    """
    missing = [c for c in ("__pid", "__cpu", "__comm", "buf") if c not in df_print.columns]
    if missing:
        raise TraceError(f"df_activations_from_markers: the print DataFrame lacks columns {missing}; "
                         "pass trace.df('print') (columns __pid, __cpu, __comm, buf)")
    if df_print.empty:
        return _empty()
    buf = df_print["buf"].astype(str)
    time = np.asarray(df_print.index, dtype="float64")
    parts = []
    for fmt, rx in (("rtapp1", _RTAPP1), ("lisa", _LISA)):
        mask = buf.str.contains("loop", regex=False)
        if not mask.any():
            break
        ex = buf[mask].str.extract(rx)
        ok = ex["kind"].notna().to_numpy()
        if not ok.any():
            continue
        sel = np.flatnonzero(mask.to_numpy())[ok]
        ex = ex[ok]
        part = pd.DataFrame({
            "t": time[sel], "__pid": df_print["__pid"].to_numpy()[sel].astype("int64"),
            "__cpu": df_print["__cpu"].to_numpy()[sel].astype("int64"),
            "__comm": df_print["__comm"].to_numpy()[sel],
            "begin": ex["kind"].isin(["begins", "start"]).to_numpy(),
            "thread_idx": (ex["thread_idx"].astype("int64").to_numpy() if "thread_idx" in ex
                           else np.full(len(ex), -1, dtype="int64")),
            "thread_loop": ex["thread_loop"].astype("int64").to_numpy(),
            "phase": ex["phase"].astype("int64").to_numpy(),
            "phase_loop": ex["phase_loop"].astype("int64").to_numpy(),
            "format": fmt,
            "order": sel,
        })
        parts.append(part)
    if not parts:
        return _empty()
    ev = pd.concat(parts, ignore_index=True).sort_values(["__pid", "t", "order"], kind="stable")
    # pair each begin with the next marker of the same thread if that is the matching end
    nxt = ev.groupby("__pid", sort=False).shift(-1)
    is_pair = (ev["begin"].to_numpy() & (nxt["begin"] == False).to_numpy()  # noqa: E712
               & (nxt["thread_loop"] == ev["thread_loop"]).to_numpy()
               & (nxt["phase"] == ev["phase"]).to_numpy()
               & (nxt["phase_loop"] == ev["phase_loop"]).to_numpy())
    begins = ev[ev["begin"].to_numpy()].copy()
    end = np.where(is_pair, nxt["t"].to_numpy(dtype="float64", na_value=np.nan), np.nan)
    begins["end"] = end[ev["begin"].to_numpy()]
    begins["duration"] = begins["end"] - begins["t"]
    for c in _STATS_COLS:
        begins[c] = np.nan
    if (begins["format"] == "lisa").any():
        st = buf.str.extract(_STATS)
        okst = st["period_us"].notna().to_numpy()
        if okst.any():
            stats = st[okst].astype("float64")
            stats["t"] = time[okst]
            stats["__pid"] = df_print["__pid"].to_numpy()[okst].astype("int64")
            stats = stats.sort_values("t", kind="stable")
            lb = begins[begins["end"].notna()].sort_values("end", kind="stable")
            # stats follow the end marker of the iteration they describe
            merged = pd.merge_asof(stats, lb[["end", "__pid", "t"]].rename(columns={"t": "start"}),
                                   left_on="t", right_on="end", by="__pid", direction="backward")
            merged = merged.dropna(subset=["start"]).drop_duplicates(["__pid", "start"], keep="first")
            key = pd.MultiIndex.from_arrays([merged["__pid"], merged["start"]])
            bkey = pd.MultiIndex.from_arrays([begins["__pid"], begins["t"]])
            pos = key.get_indexer(bkey)
            have = pos >= 0
            for c in _STATS_COLS:
                vals = begins[c].to_numpy(dtype="float64", copy=True)
                vals[have] = merged[c].to_numpy()[pos[have]]
                begins[c] = vals
    begins = begins.sort_values(["t", "__pid"], kind="stable")
    out = begins.set_index(pd.Index(begins["t"].to_numpy(), name="Time"))
    return out[ACTIVATION_COLUMNS]
