"""Idle states: when each CPU entered and left them, and the time spent in each.

From the ``power:cpu_idle`` event (``state``, ``cpu_id``): the kernel emits it with the idle
state a CPU enters and with ``state`` = 4294967295 (``PWR_EVENT_EXIT``, (u32)-1) when it
leaves idle. Real traces (``lisa-eas run`` records the event) and simulated runs give the
same columns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import declare_events

__all__ = ["df_cpu_idle_state_residency", "df_cpus_idle"]

#: ``cpu_idle``'s ``state`` when a CPU leaves idle ((u32)-1, PWR_EVENT_EXIT).
IDLE_EXIT = 4294967295


@declare_events("cpu_idle")
def df_cpus_idle(trace, cpus=None) -> pd.DataFrame:
    """Every ``cpu_idle`` event as ``cpu`` and ``state`` (-1: the CPU left idle).

    Parameters
    ----------
    trace : Trace
    cpus : sequence of int, optional
        Keep only these CPUs.

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (s); columns ``cpu`` (int) and ``state`` (int, -1 when leaving idle).
    """
    df = trace.df("cpu_idle")
    cpu = df["cpu_id"].to_numpy().astype(np.int64)
    state = df["state"].to_numpy().astype(np.int64)
    state = np.where(state == IDLE_EXIT, -1, state)
    out = pd.DataFrame({"cpu": cpu, "state": state}, index=df.index)
    if cpus is not None:
        out = out[np.isin(cpu, np.asarray(list(cpus), dtype=np.int64))]
    return out


@declare_events("cpu_idle")
def df_cpu_idle_state_residency(trace, cpus=None) -> pd.DataFrame:
    """Time each CPU spent in each idle state, and running (``active``).

    Between two ``cpu_idle`` events of a CPU, the CPU is in the state the first one entered;
    after its last event, until the end of the trace. Before a CPU's first event its state is
    unknown and that time is not counted (``attrs["unknown_s"]`` gives it per CPU).

    Parameters
    ----------
    trace : Trace
    cpus : sequence of int, optional

    Returns
    -------
    pandas.DataFrame
        Index ``cpu``; column ``active`` (s out of idle), one column ``state<N>`` per idle state
        seen (s), and ``total`` (s, the time accounted).
    """
    ev = df_cpus_idle(trace, cpus)
    t_end = trace.time_range[1]
    t0 = trace.time_range[0]
    t = ev.index.to_numpy(np.float64)
    cpu = ev["cpu"].to_numpy()
    state = ev["state"].to_numpy()
    order = np.lexsort((t, cpu))
    t, cpu, state = t[order], cpu[order], state[order]
    nxt = np.empty_like(t)
    if len(t):
        same = cpu[1:] == cpu[:-1]
        nxt[:-1] = np.where(same, t[1:], t_end)
        nxt[-1] = t_end
    dur = np.maximum(nxt - t, 0.0)
    res = pd.DataFrame({"cpu": cpu, "state": state, "dur": dur}).pivot_table(
        index="cpu", columns="state", values="dur", aggfunc="sum", fill_value=0.0)
    res.columns = ["active" if s == -1 else f"state{int(s)}" for s in res.columns]
    if "active" not in res.columns:
        res.insert(0, "active", 0.0)
    res = res[["active"] + sorted(c for c in res.columns if c != "active")]
    res["total"] = res.sum(axis=1)
    res.index.name = "cpu"
    first = pd.Series(t, index=cpu).groupby(level=0).min() if len(t) else pd.Series(dtype=float)
    res.attrs["unknown_s"] = {int(c): float(v - t0) for c, v in first.items()}
    return res
