"""Exact energy-optimal placement of periodic tasks (numba kernels).

For a fixed OPP per perf domain the EM energy of a placement is linear in the utilization
each domain carries (``cost[opp] * sum_util / scale_cpu``, ``em_cpu_energy``), and every CPU
of a domain has the same per-CPU utilization limit (the largest max-util that still selects
that OPP) — so the problem splits into: enumerate OPP vectors (pruned by a fractional lower
bound), and for each, a branch and bound assigning tasks (largest first) to CPUs with:

* symmetry breaking: CPUs of one domain with the same current load are interchangeable,
  only the first is tried;
* a fractional lower bound: the remaining utilization poured into the remaining free
  capacity, cheapest domain first;
* the best energy found so far shared across OPP vectors;
* memoisation of visited states: after the same first ``i`` tasks, the same multiset of
  loads per domain is the same sub-problem at the same cost, explored once (states are
  keyed by two independent 64-bit hashes; a full table only stops the memoisation).

The plain-Python twin is ``tests/reference/ref_placement.py``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

EPS = 1e-9


@njit(cache=True)
def fractional_bound(rem_util, cpu_order, loads, cap, w, fill_row):
    """Lower bound on the energy of ``rem_util`` more utilization: fill the CPUs in
    ``cpu_order`` (cheapest first), each up to the largest sum of remaining tasks that fits
    its free capacity (``fill_row[x]``: largest subset sum of the remaining tasks <= x).
    ``inf`` if it cannot all fit."""
    lb = 0.0
    left = rem_util
    for k in range(cpu_order.shape[0]):
        if left <= 0:
            break
        c = cpu_order[k]
        free = cap[c] - loads[c]
        if free <= 0:
            continue
        if free < fill_row.shape[0]:
            free = fill_row[free]
        take = free if free < left else left
        lb += take * w[c]
        left -= take
    if left > 0:
        return np.inf
    return lb


@njit(cache=True)
def subset_fill_table(utils, max_cap):
    """``table[i, x]``: the largest sum of a subset of ``utils[i:]`` that is <= x."""
    n = utils.shape[0]
    table = np.zeros((n + 1, max_cap + 1), np.int64)
    reach = np.zeros(max_cap + 1, np.bool_)
    reach[0] = True
    for i in range(n - 1, -1, -1):
        u = utils[i]
        for x in range(max_cap, u - 1, -1):
            if reach[x - u]:
                reach[x] = True
        best = 0
        for x in range(max_cap + 1):
            if reach[x]:
                best = x
            table[i, x] = best
    return table


MEMO_BITS = 20


@njit(cache=True)
def state_key(i, loads, dom, sorted_buf):
    """Two independent 64-bit hashes of (depth, each domain's multiset of CPU loads)."""
    n = loads.shape[0]
    for c in range(n):
        sorted_buf[c] = loads[c] * 64 + dom[c]
    sorted_buf[:n].sort()
    h1 = np.uint64(1469598103934665603) ^ np.uint64(i)
    h2 = np.uint64(0x9E3779B97F4A7C15) + np.uint64(i)
    for c in range(n):
        v = np.uint64(sorted_buf[c])
        h1 = (h1 ^ v) * np.uint64(1099511628211)
        h2 = (h2 ^ (v + np.uint64(0x632BE59BD9B4E019))) * np.uint64(0xBF58476D1CE4E5B9)
        h2 ^= h2 >> np.uint64(31)
    return np.int64(h1 >> np.uint64(1)), np.int64(h2 >> np.uint64(1))


@njit(cache=True)
def memo_seen(table1, table2, k1, k2):
    """Insert (k1, k2) into the open-addressing table; True if it was already there.
    A full table stops remembering (the search stays exact, only less pruned)."""
    size = table1.shape[0]
    j = k1 & (size - 1)
    for _ in range(64):
        if table1[j] == 0 and table2[j] == 0:
            table1[j] = k1 | 1
            table2[j] = k2 | 1
            return False
        if table1[j] == (k1 | 1) and table2[j] == (k2 | 1):
            return True
        j = (j + 1) & (size - 1)
    return False


@njit(cache=True)
def branch_and_bound(utils, suffix, cpu_order, dom, cap, lo, w, fill, best_in, best_assign, stats, table1, table2,
                     salt, max_nodes):
    """Minimum of ``sum_c load_c * w_c`` with ``load_c <= cap_c`` over the placements whose
    OPP vector is exactly the one given: every non-idle domain's highest CPU load is above
    ``lo`` of its CPUs (the previous OPP's limit; EM costs per unit of work are not monotone
    in the OPP, so a placement is only costed under its own OPPs). Tasks ``utils`` sorted
    descending, ``suffix[i] = sum(utils[i:])``. Improves on ``best_in`` or returns it;
    ``best_assign`` (int64[N]) receives the CPU of each task when improved; ``fill`` is
    :func:`subset_fill_table` of ``utils``. ``stats[0]`` counts the nodes expanded.
    ``table1``/``table2`` (int64[2**k], zeroed once) hold the visited states, keyed with
    ``salt`` (one value per OPP vector). With ``max_nodes > 0`` the search stops after that
    many nodes and sets ``stats[1] = 1`` (the result is then not proven optimal)."""
    n = utils.shape[0]
    nc = cpu_order.shape[0]
    best = best_in
    loads = np.zeros(cap.shape[0], np.int64)
    buf = np.zeros(cap.shape[0], np.int64)
    assign = np.full(n, -1, np.int64)
    nxt = np.zeros(n + 1, np.int64)
    cost = 0.0
    i = 0
    while i >= 0:
        if i == n:
            exact = True
            for d in range(dom.max() + 1):
                mx = -1
                lim = -1
                for c in range(dom.shape[0]):
                    if dom[c] == d:
                        lim = lo[c]
                        if loads[c] > mx:
                            mx = loads[c]
                if mx > 0 and mx <= lim:
                    exact = False
            if exact and cost < best - EPS:
                best = cost
                for j in range(n):
                    best_assign[j] = assign[j]
            i -= 1
            if i >= 0:
                c = assign[i]
                loads[c] -= utils[i]
                cost -= utils[i] * w[c]
                assign[i] = -1
            continue
        found = -1
        k = nxt[i]
        while k < nc:
            c = cpu_order[k]
            k += 1
            if loads[c] + utils[i] > cap[c]:
                continue
            dup = False
            for kk in range(k - 1):
                c2 = cpu_order[kk]
                if dom[c2] == dom[c] and loads[c2] == loads[c] and cap[c2] == cap[c]:
                    dup = True
                    break
            if dup:
                continue
            new_cost = cost + utils[i] * w[c]
            if new_cost >= best - EPS:
                continue
            loads[c] += utils[i]
            lb = fractional_bound(suffix[i + 1], cpu_order, loads, cap, w, fill[i + 1])
            loads[c] -= utils[i]
            if new_cost + lb >= best - EPS:
                continue
            # the same loads after the same tasks were reached before: same sub-problem
            loads[c] += utils[i]
            k1, k2 = state_key(i + 1 + salt * (n + 1), loads, dom, buf)
            loads[c] -= utils[i]
            if memo_seen(table1, table2, k1, k2):
                continue
            found = c
            break
        nxt[i] = k
        if found >= 0:
            stats[0] += 1
            if max_nodes > 0 and stats[0] >= max_nodes:
                stats[1] = 1
                return best
            assign[i] = found
            loads[found] += utils[i]
            cost += utils[i] * w[found]
            i += 1
            nxt[i] = 0
        else:
            i -= 1
            if i >= 0:
                c = assign[i]
                loads[c] -= utils[i]
                cost -= utils[i] * w[c]
                assign[i] = -1
    return best


@njit(cache=True)
def placement_energy(assign, utils, dom, thresholds, costs, n_states, cap_fit):
    """EM energy (float) of a placement; ``inf`` if a CPU exceeds its fit limit.

    ``thresholds[d, s]``: largest max-util that selects state ``s`` of domain ``d``;
    ``costs[d, s]``: energy per unit of utilization at that state."""
    nc = dom.shape[0]
    loads = np.zeros(nc, np.int64)
    for j in range(assign.shape[0]):
        loads[assign[j]] += utils[j]
    n_dom = n_states.shape[0]
    mx = np.zeros(n_dom, np.int64)
    sm = np.zeros(n_dom, np.int64)
    for c in range(nc):
        if loads[c] > cap_fit[c]:
            return np.inf
        d = dom[c]
        sm[d] += loads[c]
        if loads[c] > mx[d]:
            mx[d] = loads[c]
    e = 0.0
    for d in range(n_dom):
        if sm[d] == 0:
            continue
        s = 0
        while s < n_states[d] - 1 and thresholds[d, s] < mx[d]:
            s += 1
        e += costs[d, s] * sm[d]
    return e


@njit(cache=True)
def brute_force(utils, dom, thresholds, costs, n_states, cap_fit, best_assign):
    """Every one of ``C**N`` placements (tests and benchmark only)."""
    n = utils.shape[0]
    nc = dom.shape[0]
    assign = np.zeros(n, np.int64)
    best = np.inf
    while True:
        e = placement_energy(assign, utils, dom, thresholds, costs, n_states, cap_fit)
        if e < best - EPS:
            best = e
            for j in range(n):
                best_assign[j] = assign[j]
        j = 0
        while j < n:
            assign[j] += 1
            if assign[j] < nc:
                break
            assign[j] = 0
            j += 1
        if j == n:
            break
    return best
