"""Exact energy-optimal placement of N periodic tasks on a platform (LISA's EAS test setting).

The energy of a placement is what the Energy Model says (``em_cpu_energy``): per perf
domain, the OPP is set by the domain's highest CPU utilization (with the era's headroom
rule, :meth:`~lisa_eas.energy_model.PerfDomainEnergyModel.state_index`) and the energy is
``cost(OPP) * sum_util / scale_cpu`` — energy per unit of time, in the EM's units. Each CPU's
utilization must stay within its capacity (less ``capacity_margin_pct``).

Not ``CPUs**N`` enumeration: :mod:`lisa_eas._kernels.placement` enumerates OPP vectors by
a fractional lower bound and runs a branch and bound per vector that treats a domain's
identical CPUs as interchangeable. :func:`brute_force_placement` enumerates every
placement (for checks, N <= 8).
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError

__all__ = ["PlacementResult", "brute_force_placement", "optimal_placement", "placement_energy", "placement_tables"]


@dataclass(frozen=True)
class PlacementResult:
    """An optimal placement.

    Attributes
    ----------
    cpu_of_task : tuple of int
        CPU of each task (in the order given).
    cpu_util : tuple of int
        Resulting utilization of each CPU.
    domain_freq_khz : dict
        Perf domain -> frequency of the OPP its max utilization selects (absent if idle).
    energy : float
        EM energy per unit of time (``sum cost * sum_util / scale_cpu``).
    nodes : int
        Branch-and-bound nodes expanded (0 for brute force).
    seconds : float
        Wall time of the search.
    """

    cpu_of_task: tuple
    cpu_util: tuple
    domain_freq_khz: dict
    energy: float
    nodes: int
    seconds: float


def placement_tables(platform, era: str = "v5.4", capacity_margin_pct: float = 0.0) -> dict:
    """The arrays the kernels use: per-CPU domain, per-domain state thresholds and costs."""
    from ..energy_model import EnergyModel
    from ..platform import Platform, load_platform

    plat = platform if isinstance(platform, Platform) else load_platform(platform)
    em = EnergyModel.from_platform(plat, era=era)
    if not 0 <= capacity_margin_pct < 100:
        raise ModelError(f"capacity_margin_pct must be within [0, 100), got {capacity_margin_pct}")
    nd = len(em.domains)
    smax = max(d.nr_states for d in em.domains)
    thr = np.full((nd, smax), -1, np.int64)
    costs = np.zeros((nd, smax))
    n_states = np.zeros(nd, np.int64)
    dom = np.zeros(plat.nr_cpus, np.int64)
    cap_fit = np.zeros(plat.nr_cpus, np.int64)
    per_unit_scale = em.era < (6, 9)
    for k, d in enumerate(em.domains):
        n_states[k] = d.nr_states
        for u in range(d.scale_cpu + 1):
            s = d.state_index(u)
            thr[k, s] = max(thr[k, s], u)
        thr[k, :d.nr_states] = np.maximum.accumulate(thr[k, :d.nr_states])
        costs[k, :d.nr_states] = d.cost / (d.scale_cpu if per_unit_scale else 1)
        for c in d.cpus:
            dom[c] = k
            cap_fit[c] = int(d.scale_cpu * (100.0 - capacity_margin_pct) / 100.0)
    return {"platform": plat, "em": em, "dom": dom, "thresholds": thr, "costs": costs, "n_states": n_states,
            "cap_fit": cap_fit}


def _utils(utils) -> np.ndarray:
    u = np.asarray(utils)
    if u.ndim != 1 or u.size == 0:
        raise ModelError("utils must be a non-empty 1-D sequence of task utilizations (0..1024)")
    if not np.issubdtype(u.dtype, np.integer):
        if not np.all(np.isfinite(u)) or np.any(u != np.round(u)):
            raise ModelError("utils must be integers (capacity units, 0..1024)")
    u = u.astype(np.int64)
    if (u < 0).any() or (u > 1024).any():
        raise ModelError(f"utils must be within 0..1024, got {u.min()}..{u.max()}")
    return u


def _result(tab, utils, assign, nodes, seconds) -> PlacementResult:
    from .._kernels.placement import placement_energy

    dom, thr = tab["dom"], tab["thresholds"]
    loads = np.zeros(dom.size, np.int64)
    np.add.at(loads, assign, utils)
    e = placement_energy(assign, utils, dom, thr, tab["costs"], tab["n_states"], tab["cap_fit"])
    freqs = {}
    for k, d in enumerate(tab["em"].domains):
        cpus = list(d.cpus)
        if loads[cpus].sum() > 0:
            freqs[d.name] = int(d.freq_khz[d.state_index(int(min(loads[cpus].max(), 1024)))])
    return PlacementResult(tuple(int(c) for c in assign), tuple(int(x) for x in loads), freqs, float(e), int(nodes),
                           float(seconds))


def optimal_placement(platform, utils, *, era: str = "v5.4", capacity_margin_pct: float = 0.0,
                      max_nodes: int | None = None) -> PlacementResult:
    """The placement (and OPPs) of minimum EM energy for tasks of utilization ``utils``.

    Parameters
    ----------
    platform : Platform or str
    utils : sequence of int
        Each task's utilization (capacity units 0..1024, e.g. ``duty_cycle * 1024`` for
        a task sized for the biggest CPU at its top OPP).
    era : str
        Energy Model era (OPP selection rule and cost formula).
    capacity_margin_pct : float
        Keep each CPU's utilization at most ``capacity * (1 - margin/100)``.
    max_nodes : int, optional
        Give up (``ModelError``) after this many search nodes instead of running until the
        optimum is proven. The search is exact but exponential in the worst case (packing
        many different task sizes into CPUs filled close to an OPP's capacity is bin
        packing); identical tasks and loose packings take milliseconds.

    Returns
    -------
    PlacementResult

    Raises
    ------
    ModelError
        The tasks cannot fit, ``max_nodes`` was reached, or bad arguments.

    Examples
    --------
    >>> r = optimal_placement("juno_r0", [200] * 10)
    >>> r.cpu_util, r.energy
    """
    from .._kernels.placement import MEMO_BITS, branch_and_bound, fractional_bound, subset_fill_table

    t0 = time.perf_counter()
    u = _utils(utils)
    tab = placement_tables(platform, era, capacity_margin_pct)
    dom, thr, costs, cap_fit = tab["dom"], tab["thresholds"], tab["costs"], tab["cap_fit"]
    order = np.argsort(-u, kind="stable")
    us = u[order]
    suffix = np.r_[np.cumsum(us[::-1])[::-1], 0].astype(np.int64)
    fill = subset_fill_table(us, int(max(cap_fit.max(), 1)))
    nd = thr.shape[0]
    # usable states per domain: those some util selects (skip never-selected ones)
    choices = []
    for k in range(nd):
        ns = int(tab["n_states"][k])
        ok = [s for s in range(ns) if thr[k, s] >= 0 and (s == 0 or thr[k, s] > thr[k, s - 1])]
        choices.append(ok)
    n_vec = int(np.prod([len(c) for c in choices], dtype=np.float64))
    if n_vec > 2_000_000:
        raise ModelError(f"{n_vec} OPP combinations: too many perf domains x OPPs for the exact search")
    vecs = []
    zero = np.zeros(dom.size, np.int64)
    for vec in itertools.product(*choices):
        s = np.array(vec)
        cap = np.minimum(thr[dom, s[dom]], cap_fit)
        prev = np.array([max([p for p in choices[k] if p < s[k]], default=-1) for k in range(nd)])
        lo = np.where(prev[dom] >= 0, thr[dom, np.maximum(prev[dom], 0)], -1).astype(np.int64)
        w = costs[dom, s[dom]]
        cpu_order = np.argsort(w, kind="stable").astype(np.int64)
        lb = fractional_bound(int(suffix[0]), cpu_order, zero, cap, w, fill[0])
        if np.isfinite(lb) and us[0] <= cap.max():
            vecs.append((lb, cap.astype(np.int64), lo, w, cpu_order))
    vecs.sort(key=lambda v: v[0])
    best = np.inf
    best_sorted = np.full(u.size, -1, np.int64)
    stats = np.zeros(2, np.int64)
    budget = 0 if max_nodes is None else int(max_nodes)
    table1 = np.zeros(1 << MEMO_BITS, np.int64)
    table2 = np.zeros(1 << MEMO_BITS, np.int64)
    for salt, (lb, cap, lo, w, cpu_order) in enumerate(vecs):
        if lb >= best - 1e-9:
            break
        best = branch_and_bound(us, suffix, cpu_order, dom, cap, lo, w, fill, best, best_sorted, stats, table1,
                                table2, salt, budget)
        if stats[1]:
            raise ModelError(f"optimal_placement: {budget} search nodes explored without proving the optimum "
                             f"(best so far {best:.6g}); raise max_nodes or leave it unset")
    if not np.isfinite(best):
        raise ModelError(f"the tasks (total util {int(u.sum())}) cannot be placed on {tab['platform'].name!r} "
                         f"within the CPUs' capacities (margin {capacity_margin_pct}%)")
    assign = np.empty(u.size, np.int64)
    assign[order] = best_sorted
    return _result(tab, u, assign, stats[0], time.perf_counter() - t0)


def brute_force_placement(platform, utils, *, era: str = "v5.4", capacity_margin_pct: float = 0.0) -> PlacementResult:
    """Every one of ``CPUs**N`` placements, costed the same way (checks; N <= 8)."""
    from .._kernels.placement import brute_force

    t0 = time.perf_counter()
    u = _utils(utils)
    if u.size > 8:
        raise ModelError(f"brute force is limited to 8 tasks (CPUs**N placements), got {u.size}")
    tab = placement_tables(platform, era, capacity_margin_pct)
    assign = np.full(u.size, -1, np.int64)
    best = brute_force(u, tab["dom"], tab["thresholds"], tab["costs"], tab["n_states"], tab["cap_fit"], assign)
    if not np.isfinite(best):
        raise ModelError("the tasks cannot be placed within the CPUs' capacities")
    return _result(tab, u, assign, 0, time.perf_counter() - t0)


def placement_energy(platform, utils, cpus, *, era: str = "v5.4", em=None) -> float:
    """EM energy per unit of time of tasks of utilization ``utils`` placed on ``cpus``.

    Costed as :func:`optimal_placement` costs a placement (each domain at the OPP its
    highest CPU utilization selects, ``cost * sum_util / scale_cpu``; ``cost * sum_util``
    from v6.9), with no capacity limit: a CPU loaded past its capacity is taken at its top
    OPP. Use it to hold an observed placement against the optimum.

    Parameters
    ----------
    platform : Platform or str
    utils : sequence of int
        Each task's utilization (0..1024).
    cpus : sequence of int
        The CPU of each task.
    era : str
        Energy Model era.
    em : EnergyModel, optional
        A prebuilt model of ``platform`` (saves rebuilding it in loops).

    Returns
    -------
    float
    """
    from ..energy_model import EnergyModel
    from ..platform import Platform, load_platform

    plat = platform if isinstance(platform, Platform) else load_platform(platform)
    u = _utils(utils) if len(utils) else np.zeros(0, np.int64)
    c = np.asarray(cpus, dtype=np.int64)
    if c.shape != u.shape or (c.size and (c.min() < 0 or c.max() >= plat.nr_cpus)):
        raise ModelError(f"cpus must give one CPU in 0..{plat.nr_cpus - 1} per task")
    em = em if em is not None else EnergyModel.from_platform(plat, era=era)
    loads = np.zeros(plat.nr_cpus, np.int64)
    np.add.at(loads, c, u)
    per_unit_scale = em.era < (6, 9)
    e = 0.0
    for d in em.domains:
        cl = loads[list(d.cpus)]
        total = int(cl.sum())
        if total == 0:
            continue
        s = d.state_index(int(min(cl.max(), d.scale_cpu)))
        e += float(d.cost[s]) / (d.scale_cpu if per_unit_scale else 1) * total
    return e
