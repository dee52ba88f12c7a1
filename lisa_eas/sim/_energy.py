"""Energy of a simulated run: each CPU's power integrated from the platform's energy data.

A busy CPU draws its perf domain's per-CPU power at the current OPP (``Opp.power_mw``); an
idle CPU draws its idle state's ``IdleState.power_mw`` where the platform gives it, else 0.
Cluster-level power (legacy ``cluster_power`` tables) is not included. Energies are in
``power unit x s`` (mJ for mW domains; "bogo-joules" for legacy tables).

Two independent computations are provided: :func:`energy_from_residency` (the event loop's
per-OPP / per-idle-state residency counters) and :func:`energy_from_trace` (integrating
the power step function rebuilt from the ``cpu_frequency`` and ``cpu_idle`` events of any
Trace, simulated or real); a test asserts they agree.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import MissingTraceEventError, ModelError
from ..platform import Platform

__all__ = ["energy_from_residency", "energy_from_trace", "power_tables"]


def power_tables(platform: Platform) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-CPU power tables: ``freq[c, k]`` kHz, ``busy[c, k]`` per OPP, ``idle[c, s]`` per idle state."""
    nc = platform.nr_cpus
    kmax = max(len(d.opps) for d in platform.perf_domains)
    smax = max(max(len(d.idle_states), 1) for d in platform.perf_domains)
    freq = np.zeros((nc, kmax), np.int64)
    busy = np.full((nc, kmax), np.nan)
    idle = np.zeros((nc, smax))
    for d in platform.perf_domains:
        for c in d.cpus:
            for k, o in enumerate(d.opps):
                freq[c, k] = o.freq_khz
                busy[c, k] = np.nan if o.power_mw is None else float(o.power_mw)
            for s, st in enumerate(d.idle_states):
                idle[c, s] = float(st.power_mw or 0.0)
    return freq, busy, idle


def _summary(per_cpu: np.ndarray, platform: Platform) -> dict:
    per_domain = {d.name: float(sum(per_cpu[c] for c in d.cpus)) for d in platform.perf_domains}
    units = sorted({d.power_unit or "abstract" for d in platform.perf_domains})
    return {"unit": "+".join(u + "*s" for u in units), "per_cpu": [float(x) for x in per_cpu],
            "per_domain": per_domain, "total": float(np.sum(per_cpu))}


def energy_from_residency(res_busy: np.ndarray, res_idle: np.ndarray, platform: Platform) -> dict:
    """Energy from residency counters (ns per CPU per OPP / idle state).

    Returns
    -------
    dict
        ``unit``, ``per_cpu`` (list), ``per_domain`` (name -> energy), ``total``.
    """
    _, busy, idle = power_tables(platform)
    if np.isnan(busy).any() and res_busy[np.isnan(busy)].sum() > 0:
        raise ModelError(f"platform {platform.name!r} has OPPs without power data; no energy figure")
    busy = np.nan_to_num(busy)
    per_cpu = (res_busy[:, :busy.shape[1]] * busy).sum(axis=1) / 1e9 \
        + (res_idle[:, :idle.shape[1]] * idle).sum(axis=1) / 1e9
    return _summary(per_cpu, platform)


def energy_from_trace(trace, platform: Platform, *, t_end: float | None = None) -> dict:
    """Integrate each CPU's power over a Trace's ``cpu_frequency`` / ``cpu_idle`` timeline.

    A CPU is busy outside idle states (``cpu_idle`` state 4294967295 ends one) and runs at the
    last ``cpu_frequency`` of its ``cpu_id``. The integral runs from the first event to
    ``t_end`` (default: the trace's last event).

    Raises
    ------
    MissingTraceEventError
        If the trace lacks ``cpu_frequency`` or ``cpu_idle``.
    """
    missing = [e for e in ("cpu_frequency", "cpu_idle") if e not in trace.events]
    if missing:
        raise MissingTraceEventError(missing, "energy_from_trace needs the power:cpu_frequency and "
                                              "power:cpu_idle events")
    freq_tab, busy, idle = power_tables(platform)
    busy = np.nan_to_num(busy)
    df_f = trace.df("cpu_frequency")
    df_i = trace.df("cpu_idle")
    if t_end is None:
        t_end = trace.time_range[1]
    end_ns = int(round(t_end * 1e9))
    per_cpu = np.zeros(platform.nr_cpus)
    for c in range(platform.nr_cpus):
        f = df_f[df_f["cpu_id"] == c]
        i = df_i[df_i["cpu_id"] == c]
        t = np.concatenate([f["__ts"].to_numpy(), i["__ts"].to_numpy()])
        is_f = np.concatenate([np.ones(len(f), bool), np.zeros(len(i), bool)])
        val = np.concatenate([f["state"].to_numpy().astype(np.int64), i["state"].to_numpy().astype(np.int64)])
        o = np.lexsort((~is_f, t))       # frequency first at equal times
        t, is_f, val = t[o], is_f[o], val[o]
        opp = 0
        state = -1
        e = 0.0
        for k in range(len(t)):
            t_next = t[k + 1] if k + 1 < len(t) else end_ns
            if is_f[k]:
                opp = int(np.searchsorted(freq_tab[c], val[k]))
            else:
                state = -1 if val[k] == 4294967295 else int(val[k])
            dt = max(0, min(t_next, end_ns) - t[k])
            e += dt * (busy[c, opp] if state < 0 else idle[c, state])
        per_cpu[c] = e / 1e9
    return _summary(per_cpu, platform)


def energy_frame(summary: dict) -> pd.DataFrame:
    """The per-CPU energies of a summary as a DataFrame."""
    return pd.DataFrame({"cpu": range(len(summary["per_cpu"])), "energy": summary["per_cpu"]})
