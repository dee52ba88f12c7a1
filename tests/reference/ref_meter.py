"""Plain-Python twin of the meter model (lisa_eas/_kernels/meter.py behind lisa_eas/sim/_meter.py).

Written from the legacy EAS energy model, not from the package: the out-of-tree EAS
``sched_group_energy()`` (Android common kernel 4.9, kernel/sched/fair.c, and
Documentation/scheduler/sched-energy.txt of the 2015-2018 postings) charges

* each CPU its busy power at the group's capacity state while it runs, else the power of the
  idle state it sits in (``group_idle_state()`` index);
* each cluster its busy power at the capacity state while any CPU of it runs, else the idle
  power of the *shallowest* state among its CPUs (``group_idle_state()`` takes the minimum),
  so the cluster powers down only while every CPU of it is in the cluster state.

The twin reads the platform JSON itself (``lisa_eas/platforms/<board>.json``), with its own
conversion of the legacy "bogo" units to mW: the same CPU at the same operating point is in both
tables (the kernel EM's ``power_mw`` and the legacy ``legacy_cpu_power``), so one ratio per
domain, taken at the top OPP, converts the domain's legacy cluster and idle costs.

Legacy idle-cost arrays (``idle-cost-data``) are indexed as the Android kernel indexes them:
``idle_get_state_idx() + 1`` (entry 0 is "active idle", arch_cpu_idle outside cpuidle); the
deepest cpuidle state is the last entry. A platform whose DT states carry power figures
(Juno r0) gives them per state directly. Where they come as raw arrays (HiKey960), the twin
aligns the DT's states with the arrays' *last* entries, deepest with deepest: the A73 arrays
have five entries for active idle, WFI and the DT's two states (the extra entry is not
documented), and aligning from the deep end keeps cluster-sleep on the only entry whose cluster
cost is 0 (the cluster off) in both clusters' arrays.

Timeline: the ``cpu_idle`` and ``cpu_frequency`` events of a Trace's data frames, merged in time
order; the state held between two distinct timestamps is the state after *all* events at the
first one (so the order of events sharing a timestamp does not matter, except two events of the
same CPU, taken in trace order). A CPU is busy from ``cpu_idle`` state 4294967295 (exit) until
its next entry. Before its first event a CPU counts as running at the domain's lowest OPP (the
simulator emits every CPU's state at t = 0, so this never weighs on a simulated run).
Deliberately strict: an unknown frequency or idle-state index raises instead of being clamped.
"""
from __future__ import annotations

import json
from pathlib import Path

EXIT = 4294967295
PLATFORMS = Path(__file__).resolve().parents[2] / "lisa_eas" / "platforms"


def load_tables(board: str) -> dict:
    """The twin's power tables (mW) per perf domain, read from the platform JSON."""
    raw = json.loads((PLATFORMS / f"{board}.json").read_text())
    domains = []
    for pd in raw["perf_domains"]:
        opps = pd["opps"]
        ratio = opps[-1]["power_mw"] / opps[-1]["legacy_cpu_power"]
        dt_states = [s for s in pd["idle_states"] if "legacy_cpu_idle_cost" not in s]
        raw_arrays = [s for s in pd["idle_states"] if "legacy_cpu_idle_cost" in s]
        if dt_states and all(s.get("power_mw") is not None for s in dt_states):
            cpu_idle = [s["power_mw"] for s in dt_states]
            cluster_idle = [s.get("cluster_power_mw") or 0 for s in dt_states]
        else:
            cpu_arr = raw_arrays[0]["legacy_cpu_idle_cost"]
            clu_arr = raw_arrays[0]["legacy_cluster_idle_cost"]
            n = len(dt_states)
            # deepest DT state = last array entry, then upwards
            cpu_idle = [cpu_arr[len(cpu_arr) - n + i] for i in range(n)]
            cluster_idle = [clu_arr[len(clu_arr) - n + i] for i in range(n)]
        domains.append({
            "name": pd["name"], "cpus": sorted(pd["cpus"]),
            "freq_index": {int(o["freq_khz"]): k for k, o in enumerate(opps)},
            "cpu_busy": [float(o["power_mw"]) for o in opps],
            "cluster_busy": [ratio * o["legacy_cluster_power"] for o in opps],
            "cpu_idle": [ratio * p for p in cpu_idle],
            "cluster_idle": [ratio * p for p in cluster_idle],
            "ratio": ratio,
        })
    return {"domains": domains, "meter": raw.get("meter")}


def _events(df_freq, df_idle, cpus):
    """[(ts_ns, order, kind, cpu, value)] of one domain, in time then trace order."""
    out = []
    cpus = set(cpus)
    for j, (ts, cpu, st) in enumerate(zip(df_freq["__ts"], df_freq["cpu_id"], df_freq["state"])):
        if int(cpu) in cpus:
            out.append((int(ts), 0, j, "f", int(cpu), int(st)))
    for j, (ts, cpu, st) in enumerate(zip(df_idle["__ts"], df_idle["cpu_id"], df_idle["state"])):
        if int(cpu) in cpus:
            out.append((int(ts), 1, j, "i", int(cpu), int(st)))
    out.sort()
    return out


def twin_meter(df_freq, df_idle, board: str, t_end_ns: int, t0_ns: int = 0) -> dict:
    """Meter energy (mW*s) of each domain and the meter's covered figure, naively integrated.

    ``df_freq`` / ``df_idle``: the Trace's ``cpu_frequency`` / ``cpu_idle`` frames (columns
    ``__ts`` ns, ``cpu_id``, ``state``).
    """
    tabs = load_tables(board)
    per = {}
    for d in tabs["domains"]:
        cpus = d["cpus"]
        freq = {c: None for c in cpus}           # kHz; None = not yet told (lowest OPP)
        idle = {c: None for c in cpus}           # None = running; else DT idle-state index
        acc = {"cpu_busy": 0.0, "cpu_idle": 0.0, "cluster_active": 0.0, "cluster_idle": 0.0, "down_ns": 0}
        deepest = len(d["cpu_idle"]) - 1

        def opp_of(c):
            f = freq[c]
            if f is None:
                return 0
            if f not in d["freq_index"]:
                raise ValueError(f"{board} {d['name']}: frequency {f} kHz is not an OPP")
            return d["freq_index"][f]

        def charge(dt):
            if dt <= 0:
                return
            domain_opp = max(opp_of(c) for c in cpus)
            running = [c for c in cpus if idle[c] is None]
            for c in cpus:
                if idle[c] is None:
                    acc["cpu_busy"] += d["cpu_busy"][opp_of(c)] * dt
                else:
                    acc["cpu_idle"] += d["cpu_idle"][idle[c]] * dt
            if running:
                acc["cluster_active"] += d["cluster_busy"][domain_opp] * dt
            else:
                shallowest = min(idle[c] for c in cpus)
                acc["cluster_idle"] += d["cluster_idle"][shallowest] * dt
                if shallowest == deepest:
                    acc["down_ns"] += dt

        now = t0_ns
        for ts, _, _, kind, cpu, val in _events(df_freq, df_idle, cpus):
            ts = min(ts, t_end_ns)
            charge(ts - now)
            now = max(now, ts)
            if ts >= t_end_ns:
                break
            if kind == "f":
                freq[cpu] = val
            elif val == EXIT:
                idle[cpu] = None
            else:
                if not 0 <= val <= deepest:
                    raise ValueError(f"{board} {d['name']}: CPU {cpu} idle state {val} not in the DT's "
                                     f"{deepest + 1} states")
                idle[cpu] = val
        charge(t_end_ns - now)
        parts = {k: acc[k] / 1e9 for k in ("cpu_busy", "cpu_idle", "cluster_active", "cluster_idle")}
        parts["total"] = sum(parts.values())
        parts["cluster_down_s"] = acc["down_ns"] / 1e9
        per[d["name"]] = parts
    meter = tabs["meter"] or {}
    covered = sum(per[n]["total"] for n in meter.get("domains", list(per)))
    if meter.get("non_cpu_baseline_mw") is not None:
        covered += meter["non_cpu_baseline_mw"] * (t_end_ns - t0_ns) / 1e9
    return {"per_domain": per, "total": sum(p["total"] for p in per.values()), "covered": covered}
