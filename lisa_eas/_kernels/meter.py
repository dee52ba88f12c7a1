"""Energy as a meter reads it: one cluster's power integrated over its CPUs' state timeline (numba).

The power model is the legacy EAS energy model's (``sched_group_energy()`` of the out-of-tree
EAS, Documentation/scheduler/sched-energy.txt of the 2015-2018 postings): each CPU draws its
busy power at the cluster's OPP while it runs and its idle-state power while idle; the cluster
draws its active power at the OPP while any of its CPUs runs, else the idle power of the
shallowest idle state among its CPUs, so the cluster is powered down only while every CPU is
in a cluster state.

Input: the domain's events merged in time order (``kind`` 0: the domain's OPP index becomes
``val``; 1: CPU ``slot`` enters idle state ``val``, -1 = runs). Output: energy (power x ns) in
four parts and the time the whole cluster spent in its deepest state.
"""
from __future__ import annotations

import numpy as np
from numba import njit

M_CPU_BUSY = 0
M_CPU_IDLE = 1
M_CLUSTER_ACTIVE = 2
M_CLUSTER_IDLE = 3
M_CLUSTER_DOWN_NS = 4
M_SIZE = 5


@njit(cache=True)
def integrate_cluster(t, kind, slot, val, t_start, t_end, n_cpus, cpu_busy, cpu_idle, cluster_busy, cluster_idle,
                      init_state, out):
    """Integrate one cluster's power from ``t_start`` to ``t_end`` (ns); ``out`` (float64[M_SIZE]).

    ``cpu_busy[k]``, ``cluster_busy[k]``: power per OPP; ``cpu_idle[s]``, ``cluster_idle[s]``: power
    per idle state (s ascending in depth). ``init_state``: each CPU's state before its first
    event (-1 busy)."""
    state = init_state.copy()
    opp = 0
    nst = cpu_idle.shape[0]
    now = t_start
    n = t.shape[0]
    i = 0
    while True:
        nxt = t[i] if i < n else t_end
        if nxt > t_end:
            nxt = t_end
        if nxt > now:
            dt = nxt - now
            busy = 0
            shallow = nst - 1
            for c in range(n_cpus):
                s = state[c]
                if s < 0:
                    busy += 1
                    out[M_CPU_BUSY] += cpu_busy[opp] * dt
                else:
                    out[M_CPU_IDLE] += cpu_idle[s] * dt
                    if s < shallow:
                        shallow = s
            if busy > 0:
                out[M_CLUSTER_ACTIVE] += cluster_busy[opp] * dt
            else:
                out[M_CLUSTER_IDLE] += cluster_idle[shallow] * dt
                if shallow == nst - 1:
                    out[M_CLUSTER_DOWN_NS] += dt
            now = nxt
        if i >= n or now >= t_end:
            break
        if kind[i] == 0:
            opp = val[i]
        else:
            v = val[i]
            state[slot[i]] = v if v < nst else nst - 1
        i += 1
    return out
