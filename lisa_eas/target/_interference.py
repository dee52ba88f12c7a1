"""How much CPU time processes other than the workload took while it ran, from the trace's
``sched_switch`` events: the interference a run's figures should be read with."""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["other_cpu_time"]

#: Share of the CPU time above which run.json's interference list warns.
WARN_SHARE_PCT = 5.0


def other_cpu_time(trace_path: str | Path, task_names, *, top: int = 5) -> dict:
    """CPU time of every task that is neither the workload (its rt-app threads, rt-app itself,
    the run script) nor idle, over the traced span.

    Each ``sched_switch`` starts an interval of ``next_pid`` on its CPU that the next switch on
    that CPU ends; intervals of the idle task (pid 0) and of the workload's threads (``comm``
    = the task name, truncated to the kernel's 15 characters) are left out.

    Returns
    -------
    dict
        ``seconds`` (other tasks' CPU time), ``share_pct`` (of span x CPUs seen), ``span_s``,
        ``cpus``, ``top`` (``[comm, seconds]`` of the biggest consumers); ``available``
        False with a ``reason`` when the trace has no ``sched_switch``.
    """
    from ..trace import read_trace

    tr = read_trace(trace_path, events=["sched_switch"], cache=False)
    if "sched_switch" not in tr.events or not len(tr.df("sched_switch")):
        return {"available": False, "reason": "no sched_switch events in the trace"}
    sw = tr.df("sched_switch")
    t = sw.index.to_numpy(np.float64)
    cpu = sw["__cpu"].to_numpy(np.int64)
    pid = sw["next_pid"].to_numpy(np.int64)
    comm = sw["next_comm"].astype(str).to_numpy()
    lo, hi = float(t[0]), float(t[-1])
    ours = {str(n)[:15] for n in task_names} | {"rt-app", "sh"}
    other = np.zeros(len(t), bool)
    dur = np.zeros(len(t))
    for c in np.unique(cpu):
        idx = np.flatnonzero(cpu == c)
        d = np.diff(np.r_[t[idx], hi])
        dur[idx] = d
        other[idx] = (pid[idx] != 0) & ~np.isin(comm[idx], list(ours))
    cpus = int(len(np.unique(cpu)))
    span = hi - lo
    secs = float(dur[other].sum())
    by: dict[str, float] = {}
    for name, d in zip(comm[other], dur[other]):
        by[name] = by.get(name, 0.0) + float(d)
    biggest = sorted(by.items(), key=lambda kv: -kv[1])[:top]
    return {"available": True, "seconds": round(secs, 6), "span_s": round(span, 6), "cpus": cpus,
            "share_pct": round(100.0 * secs / (span * cpus), 3) if span > 0 else 0.0,
            "top": [[n, round(s, 6)] for n, s in biggest]}
