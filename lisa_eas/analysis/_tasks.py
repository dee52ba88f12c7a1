"""Task analyses: state residency, CPU residency, migrations, placement over time.

Each works on any :class:`~lisa_eas.trace.Trace` (read or simulated) that has the events
it declares in its ``required_events`` attribute.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import (STATE_NAMES, declare_events as _declare, running_intervals, select_pids, task_names,
                      task_timeline)

__all__ = ["df_cpu_residency", "df_migrations", "df_task_placement", "df_task_state_residency",
           "df_task_states"]


@_declare("sched_switch")
def df_task_states(trace, tasks=None) -> pd.DataFrame:
    """Each task's states over time.

    Parameters
    ----------
    trace : Trace
        Needs ``sched_switch``; ``sched_wakeup``/``sched_wakeup_new`` separate the time a
        task waits for a CPU (runnable) from its sleep.
    tasks : pid, comm or list of them, optional
        Only these tasks (default all).

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (s): one row per state change. Columns ``pid``, ``comm``, ``state``
        (``sleeping``, ``runnable``, ``running``, ``dead``), ``cpu`` and ``duration`` (s).
    """
    tl = task_timeline(trace)
    pids = select_pids(trace, tasks)
    if pids is not None:
        tl = tl[np.isin(tl["pid"].to_numpy(), pids)]
    names = task_names(trace).set_index("pid")["comm"]
    out = pd.DataFrame({"pid": tl["pid"].to_numpy(), "comm": names.reindex(tl["pid"]).to_numpy(),
                        "state": pd.Categorical.from_codes(tl["state"].to_numpy(), STATE_NAMES),
                        "cpu": tl["cpu"].to_numpy(), "duration": tl["duration"].to_numpy()},
                       index=pd.Index(tl["time"].to_numpy(), name="Time"))
    return out.sort_index(kind="stable")


@_declare("sched_switch")
def df_task_state_residency(trace, tasks=None) -> pd.DataFrame:
    """Seconds and share of the observed time each task spent sleeping, runnable, running.

    Returns
    -------
    pandas.DataFrame
        Index ``pid``; columns ``comm``, ``sleeping``, ``runnable``, ``running``, ``dead``
        (s), ``observed`` (s, from the task's first event to the end of the trace) and
        ``running_pct``, ``runnable_pct``, ``sleeping_pct``.
    """
    st = df_task_states(trace, tasks)
    piv = st.pivot_table(index="pid", columns="state", values="duration", aggfunc="sum", observed=False,
                         fill_value=0.0)
    for s in STATE_NAMES:
        if s not in piv.columns:
            piv[s] = 0.0
    piv = piv[list(STATE_NAMES)]
    piv.columns = list(STATE_NAMES)
    piv["observed"] = piv.sum(axis=1)
    for s in ("running", "runnable", "sleeping"):
        piv[f"{s}_pct"] = np.where(piv["observed"] > 0, 100.0 * piv[s] / piv["observed"].where(piv["observed"] > 0, 1),
                                   0.0)
    names = task_names(trace).set_index("pid")["comm"]
    piv.insert(0, "comm", names.reindex(piv.index).to_numpy())
    piv.index.name = "pid"
    return piv


@_declare("sched_switch")
def df_cpu_residency(trace, tasks=None) -> pd.DataFrame:
    """Time each task ran on each CPU (the idle task is pid 0).

    Returns
    -------
    pandas.DataFrame
        Index ``pid``; columns ``comm``, one column per CPU (s) and ``total`` (s).
        ``attrs["unmatched_switches"]``: run intervals whose end switch does not switch out
        the same task (lost switches, see :func:`running_intervals`): when non-zero, some
        residency was attributed to the task last seen switched in.
    """
    iv = running_intervals(trace)
    unmatched = iv.attrs["unmatched_switches"]
    pids = select_pids(trace, tasks)
    if pids is not None:
        iv = iv[np.isin(iv["pid"].to_numpy(), pids)]
    piv = iv.pivot_table(index="pid", columns="cpu", values="duration", aggfunc="sum", fill_value=0.0)
    piv.columns = [int(c) for c in piv.columns]
    piv["total"] = piv.sum(axis=1)
    names = task_names(trace).set_index("pid")["comm"]
    piv.insert(0, "comm", names.reindex(piv.index).fillna("<idle>" if 0 in piv.index else "").to_numpy())
    piv.index.name = "pid"
    piv.attrs["unmatched_switches"] = unmatched
    return piv


@_declare("sched_switch")
def df_migrations(trace, tasks=None) -> pd.DataFrame:
    """Every change of CPU of each task between two consecutive runs.

    Uses the CPUs the task actually ran on (``sched_switch``), so it counts what happened
    whatever the reason (wake-up placement, load balance, affinity change).

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (s, start of the run on the new CPU); columns ``pid``, ``comm``,
        ``src_cpu``, ``dst_cpu``, ``after_sleep`` (the task had slept in between; False: it was
        moved while runnable).
    """
    iv = running_intervals(trace)
    iv = iv[iv["pid"] > 0]
    pids = select_pids(trace, tasks)
    if pids is not None:
        iv = iv[np.isin(iv["pid"].to_numpy(), pids)]
    iv = iv.sort_values(["pid", "start"], kind="stable")
    prev_cpu = iv.groupby("pid")["cpu"].shift(1)
    prev_runnable = iv.groupby("pid")["end_runnable"].shift(1)
    mig = prev_cpu.notna() & (prev_cpu != iv["cpu"])
    sel = iv[mig.to_numpy()]
    out = pd.DataFrame({"pid": sel["pid"].to_numpy(), "comm": sel["comm"].to_numpy(),
                        "src_cpu": prev_cpu[mig].to_numpy(np.int64), "dst_cpu": sel["cpu"].to_numpy(),
                        "after_sleep": ~prev_runnable[mig].astype(bool).to_numpy()},
                       index=pd.Index(sel["start"].to_numpy(), name="Time"))
    return out.sort_index(kind="stable")


@_declare("sched_switch")
def df_task_placement(trace, tasks=None) -> pd.DataFrame:
    """Where each task ran, over time: one row per run interval.

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (s, start); columns ``pid``, ``comm``, ``cpu``, ``end``, ``duration`` (s).
    """
    iv = running_intervals(trace)
    iv = iv[iv["pid"] > 0]
    pids = select_pids(trace, tasks)
    if pids is not None:
        iv = iv[np.isin(iv["pid"].to_numpy(), pids)]
    out = iv[["pid", "comm", "cpu", "end", "duration"]].copy()
    out.index = pd.Index(iv["start"].to_numpy(), name="Time")
    return out
