"""Energy as the board's meter reads it, next to the Energy Model's estimate.

The kernel's Energy Model (:mod:`lisa_eas.sim._energy`) is what EAS believes: per-CPU active
power at each OPP. A meter also sees what the EM leaves out: each cluster's shared power
(L2, interconnect) while any CPU of it runs, its idle power, the CPUs' idle-state power, and the
cluster's power-down when every CPU of it is in a cluster state. :func:`meter_energy` integrates
that over a Trace's ``cpu_frequency`` / ``cpu_idle`` timeline (simulated or real: one schema),
per perf domain (one cluster each on the bundled boards):

* **per-CPU dynamic power at each OPP**: the kernel EM's ``power_mw`` (mW, ``drivers/opp/of.c``
  ``_get_power`` from the DT's ``dynamic-power-coefficient``);
* **cluster active power at each OPP, cluster idle power, per-CPU idle-state power**: the
  board's legacy EAS energy model (the ``busy-cost-data`` / ``idle-cost-data`` of the
  out-of-tree EAS DT, sources in the platform file's ``provenance``), converted from its own
  units to mW with the domain's ratio ``power_mw / legacy_cpu_power`` at the top OPP (the same
  CPU at the same operating point in both tables);
* the cluster's idle power is that of the **shallowest** idle state among its CPUs (the legacy
  model's rule), so the cluster is powered down only while all its CPUs are in a cluster state.

The idle-cost arrays of the legacy tables start with "active idle" and WFI; where the platform's
idle states carry no power (HiKey960), the arrays' last entries map onto the DT states in order
(cpu-sleep, then cluster-sleep as the deepest), and the first state a CPU can enter without a
DT state listed (WFI) is the shallowest DT state (the simulator's idle states are the DT's).

Each board declares what its published meter covers (``Platform.meter``): Juno r0's on-board
meters read the two CPU clusters (``scope`` "cpus"); HiKey960's ACME cape reads the whole board
(``scope`` "board", ``non_cpu_baseline_mw`` null: no public figure was found, so only a saving
in joules, where a placement-independent baseline cancels, is comparable).
"""
from __future__ import annotations

import numpy as np

from ..errors import MissingTraceEventError, ModelError
from ..platform import Platform

__all__ = ["meter_energy", "meter_tables"]

CPU_IDLE_EXIT = 4294967295


def _legacy_idle(pd) -> tuple[np.ndarray, np.ndarray]:
    """Per-CPU and cluster idle power (legacy units) for each of the domain's idle states."""
    n = max(len(pd.idle_states), 1)
    if pd.idle_states and all(s.power_mw is not None for s in pd.idle_states):
        cpu = np.array([float(s.power_mw) for s in pd.idle_states])
        clu = np.array([float(s.cluster_power_mw if s.cluster_power_mw is not None else 0.0)
                        for s in pd.idle_states])
        return cpu, clu
    if pd.legacy_cpu_idle_cost and pd.legacy_cluster_idle_cost:
        ci, ki = np.asarray(pd.legacy_cpu_idle_cost, float), np.asarray(pd.legacy_cluster_idle_cost, float)
        if len(ci) < n or len(ki) < n:
            raise ModelError(f"perf domain {pd.name!r}: legacy idle costs have fewer entries than idle states")
        return ci[len(ci) - n:], ki[len(ki) - n:]
    raise ModelError(f"perf domain {pd.name!r} has no idle-state power (legacy EAS idle costs); no meter model")


def meter_tables(platform: Platform) -> list[dict]:
    """The meter's power tables (mW) of each perf domain: ``cpu_busy[k]``, ``cluster_busy[k]`` per OPP,
    ``cpu_idle[s]``, ``cluster_idle[s]`` per idle state, and the legacy-to-mW ``factor``.

    Raises
    ------
    ModelError
        A domain without EM power, legacy cluster power or idle power.
    """
    out = []
    for pd in platform.perf_domains:
        if not pd.has_power or any(o.legacy_cpu_power is None or o.legacy_cluster_power is None for o in pd.opps):
            raise ModelError(f"platform {platform.name!r} perf domain {pd.name!r}: the meter model needs the EM "
                             "power and the legacy EAS cpu/cluster busy costs at every OPP")
        top = pd.opps[-1]
        factor = float(top.power_mw) / float(top.legacy_cpu_power)
        cpu_idle, cluster_idle = _legacy_idle(pd)
        out.append({"domain": pd.name, "cpus": tuple(sorted(pd.cpus)), "freqs": np.array(pd.freqs_khz, np.int64),
                    "cpu_busy": np.array([float(o.power_mw) for o in pd.opps]),
                    "cluster_busy": factor * np.array([float(o.legacy_cluster_power) for o in pd.opps]),
                    "cpu_idle": factor * cpu_idle, "cluster_idle": factor * cluster_idle, "factor": factor,
                    "idle_states": tuple(s.name for s in pd.idle_states)})
    return out


def meter_energy(trace, platform: Platform, *, t_end: float | None = None) -> dict:
    """Energy (mW*s) the board's meter would read, integrated over a Trace's CPU state timeline.

    Parameters
    ----------
    trace : Trace
        With ``cpu_frequency`` and ``cpu_idle`` events (a simulated run or a real trace).
    platform : Platform
        The board (its power tables and ``meter`` declaration).
    t_end : float, optional
        End of the integral (s); default the trace's last timestamp.

    Returns
    -------
    dict
        ``unit`` ("mW*s"), ``per_domain`` (name -> ``cpu_busy``, ``cpu_idle``, ``cluster_active``,
        ``cluster_idle``, ``total``, ``cluster_down_s``), ``total`` (all domains), ``covered``
        (the domains the board's meter reads, plus its non-CPU baseline when declared),
        ``scope``, ``meter`` (the declaration) and ``factors`` (legacy units -> mW per domain).

    Raises
    ------
    MissingTraceEventError
        Without ``cpu_frequency`` or ``cpu_idle`` events.
    ModelError
        The board has no meter power data.
    """
    from .._kernels.meter import (M_CLUSTER_ACTIVE, M_CLUSTER_DOWN_NS, M_CLUSTER_IDLE, M_CPU_BUSY, M_CPU_IDLE,
                                  M_SIZE, integrate_cluster)

    missing = [e for e in ("cpu_frequency", "cpu_idle") if e not in trace.events]
    if missing:
        raise MissingTraceEventError(missing, "the meter model needs the power:cpu_frequency and power:cpu_idle "
                                              "events")
    tables = meter_tables(platform)
    df_f = trace.df("cpu_frequency")
    df_i = trace.df("cpu_idle")
    t0 = 0 if trace.metadata.get("clock") == "sim" else int(round(trace.time_range[0] * 1e9))
    end_ns = int(round((trace.time_range[1] if t_end is None else t_end) * 1e9))
    per_domain = {}
    for tab in tables:
        cpus = np.array(tab["cpus"], np.int64)
        slot_of = {int(c): k for k, c in enumerate(cpus)}
        f = df_f[df_f["cpu_id"].isin(cpus)]
        i = df_i[df_i["cpu_id"].isin(cpus)]
        tf = f["__ts"].to_numpy().astype(np.int64)
        vf = np.minimum(np.searchsorted(tab["freqs"], f["state"].to_numpy().astype(np.int64)), len(tab["freqs"]) - 1)
        ti = i["__ts"].to_numpy().astype(np.int64)
        st = i["state"].to_numpy().astype(np.int64)
        vi = np.where(st == CPU_IDLE_EXIT, -1, st)
        si = np.array([slot_of[int(c)] for c in i["cpu_id"].to_numpy()], np.int64)
        t = np.concatenate([tf, ti])
        kind = np.concatenate([np.zeros(len(tf), np.int64), np.ones(len(ti), np.int64)])
        slot = np.concatenate([np.zeros(len(tf), np.int64), si])
        val = np.concatenate([vf.astype(np.int64), vi.astype(np.int64)])
        o = np.lexsort((kind, t))           # frequency first at equal times, then idle changes in order
        out = np.zeros(M_SIZE)
        integrate_cluster(t[o], kind[o], slot[o], val[o], t0, end_ns, len(cpus), tab["cpu_busy"], tab["cpu_idle"],
                          tab["cluster_busy"], tab["cluster_idle"], np.full(len(cpus), -1, np.int64), out)
        parts = {"cpu_busy": out[M_CPU_BUSY] / 1e9, "cpu_idle": out[M_CPU_IDLE] / 1e9,
                 "cluster_active": out[M_CLUSTER_ACTIVE] / 1e9, "cluster_idle": out[M_CLUSTER_IDLE] / 1e9}
        parts["total"] = sum(parts.values())
        parts["cluster_down_s"] = out[M_CLUSTER_DOWN_NS] / 1e9
        per_domain[tab["domain"]] = {k: float(v) for k, v in parts.items()}
    decl = dict(platform.meter) if platform.meter is not None else None
    covered_domains = list(decl["domains"]) if decl else [t["domain"] for t in tables]
    covered = sum(per_domain[d]["total"] for d in covered_domains)
    base = decl.get("non_cpu_baseline_mw") if decl else None
    if base is not None:
        covered += float(base) * (end_ns - t0) / 1e9
    return {"unit": "mW*s", "per_domain": per_domain, "total": float(sum(v["total"] for v in per_domain.values())),
            "covered": float(covered), "scope": decl["scope"] if decl else "cpus", "meter": decl,
            "factors": {t["domain"]: t["factor"] for t in tables}}
