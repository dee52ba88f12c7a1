"""The mono-to-PELT clock map of a trace with kernel-signals records (shared by the per-task
comparison, :mod:`._kernel_signals`, and the cfs_rq comparison, :mod:`._cfs_rq`).

Each record carries its runqueue's ``clock``, ``clock_pelt`` and ``lost_idle_time``: the offset
of ``clock`` from the record's mono timestamp is fitted as a line through its lower envelope
(minima per 100 ms), and each CPU's PELT-clock lag (``clock - (clock_pelt - lost_idle_time)``)
is taken from its latest record at or before the instant mapped.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["clocked_records", "mono_minus_clock", "pelt_clock_map"]

_CLOCKED = ("sched_pelt_se", "sched_pelt_cfs", "sched_util_est_se", "sched_util_est_cfs", "sched_pelt_rt",
            "sched_cpu_capacity")


def clocked_records(trace) -> pd.DataFrame:
    """Every collector record with its rq clocks (``__ts``, ``cpu``, ``clock``, ``clock_pelt``,
    ``lost_idle_time``), in time order."""
    parts = [trace.df(e)[["__ts", "cpu", "clock", "clock_pelt", "lost_idle_time"]] for e in _CLOCKED
             if e in trace.events and "clock_pelt" in trace.df(e).columns]
    rec = pd.concat(parts).sort_values("__ts", kind="stable")
    return rec[rec["clock"].to_numpy(np.int64) > 0]


def mono_minus_clock(ts: np.ndarray, clk: np.ndarray):
    """``(t0, icpt, slope)``: mono ns - ``rq->clock`` ns at ``t`` is ``icpt + slope * (t - t0)``,
    the lower envelope of the records' offsets (minima per 100 ms, a line through them): a
    record whose update reused an older rq clock lies above it."""
    d = ts - clk
    b = (ts - ts[0]) // 100_000_000
    mins = pd.Series(d).groupby(b).min()
    tb = pd.Series(ts).groupby(b).median().to_numpy(np.float64)
    if len(mins) >= 2:
        slope, icpt = np.polyfit(tb - ts[0], mins.to_numpy(np.float64), 1)
    else:
        slope, icpt = 0.0, float(mins.iloc[0])
    return int(ts[0]), float(icpt), float(slope)


def pelt_clock_map(trace):
    """A function ``(t_mono_s array, cpu array) -> PELT-clock ns`` from the records' rq clocks."""
    rec = clocked_records(trace)
    ts = rec["__ts"].to_numpy(np.int64)
    clk = rec["clock"].to_numpy(np.int64)
    _, icpt, slope = mono_minus_clock(ts, clk)
    cpu = rec["cpu"].to_numpy(np.int64)
    gap = clk - (rec["clock_pelt"].to_numpy(np.int64) - rec["lost_idle_time"].to_numpy(np.int64))
    per_cpu = {int(c): (ts[cpu == c], gap[cpu == c]) for c in np.unique(cpu)}
    t0 = ts[0]

    def to_pelt(t_s, cpus):
        t_ns = np.round(np.asarray(t_s, np.float64) * 1e9).astype(np.int64)
        cpus = np.asarray(cpus, np.int64)
        clock = t_ns - np.round(icpt + slope * (t_ns - t0)).astype(np.int64)
        out = np.empty(len(t_ns), np.int64)
        for c in np.unique(cpus):
            sel = cpus == c
            if int(c) not in per_cpu:
                out[sel] = clock[sel]
                continue
            tc, gc = per_cpu[int(c)]
            k = np.clip(np.searchsorted(tc, t_ns[sel], side="right") - 1, 0, len(tc) - 1)
            out[sel] = clock[sel] - gc[k]
        return out
    return to_pelt
