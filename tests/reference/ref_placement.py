"""Plain-Python twin of lisa_eas/_kernels/placement.py (same search, Python sets and lists).

The branch and bound here keeps visited states in an exact Python set (the numba kernel keys
them by two 64-bit hashes); both must find the same minimum energy and, with the same CPU
order, the same placement.
"""
from __future__ import annotations

import math

EPS = 1e-9


def subset_fill_table(utils, max_cap):
    n = len(utils)
    table = [[0] * (max_cap + 1) for _ in range(n + 1)]
    reach = [False] * (max_cap + 1)
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
            table[i][x] = best
    return table


def fractional_bound(rem_util, cpu_order, loads, cap, w, fill_row):
    lb = 0.0
    left = rem_util
    for c in cpu_order:
        if left <= 0:
            break
        free = cap[c] - loads[c]
        if free <= 0:
            continue
        if free < len(fill_row):
            free = fill_row[free]
        take = min(free, left)
        lb += take * w[c]
        left -= take
    return math.inf if left > 0 else lb


def branch_and_bound(utils, suffix, cpu_order, dom, cap, lo, w, fill, best_in, seen, salt):
    """Recursive form of the kernel's search; returns (best, assignment or None)."""
    n = len(utils)
    loads = [0] * len(cap)
    best = [best_in, None]
    assign = [-1] * n

    def visit(i, cost):
        if i == n:
            exact = True
            for d in set(dom):
                cpus = [c for c in range(len(dom)) if dom[c] == d]
                mx = max(loads[c] for c in cpus)
                if 0 < mx <= lo[cpus[-1]]:
                    exact = False      # this placement's OPPs are another vector's
            if exact and cost < best[0] - EPS:
                best[0] = cost
                best[1] = list(assign)
            return
        for k, c in enumerate(cpu_order):
            if loads[c] + utils[i] > cap[c]:
                continue
            if any(dom[c2] == dom[c] and loads[c2] == loads[c] and cap[c2] == cap[c] for c2 in cpu_order[:k]):
                continue
            new_cost = cost + utils[i] * w[c]
            if new_cost >= best[0] - EPS:
                continue
            loads[c] += utils[i]
            lb = fractional_bound(suffix[i + 1], cpu_order, loads, cap, w, fill[i + 1])
            key = (salt, i + 1, tuple(sorted((loads[x], dom[x]) for x in range(len(cap)))))
            if new_cost + lb >= best[0] - EPS or key in seen:
                loads[c] -= utils[i]
                continue
            seen.add(key)
            assign[i] = c
            visit(i + 1, new_cost)
            assign[i] = -1
            loads[c] -= utils[i]

    visit(0, 0.0)
    return best[0], best[1]


def placement_energy(assign, utils, dom, thresholds, costs, n_states, cap_fit):
    loads = [0] * len(dom)
    for j, c in enumerate(assign):
        loads[c] += utils[j]
    n_dom = len(n_states)
    mx, sm = [0] * n_dom, [0] * n_dom
    for c, load in enumerate(loads):
        if load > cap_fit[c]:
            return math.inf
        sm[dom[c]] += load
        mx[dom[c]] = max(mx[dom[c]], load)
    e = 0.0
    for d in range(n_dom):
        if sm[d] == 0:
            continue
        s = 0
        while s < n_states[d] - 1 and thresholds[d][s] < mx[d]:
            s += 1
        e += costs[d][s] * sm[d]
    return e


def brute_force(utils, dom, thresholds, costs, n_states, cap_fit):
    import itertools

    best, best_assign = math.inf, None
    for assign in itertools.product(range(len(dom)), repeat=len(utils)):
        e = placement_energy(assign, utils, dom, thresholds, costs, n_states, cap_fit)
        if e < best - EPS:
            best, best_assign = e, list(assign)
    return best, best_assign
