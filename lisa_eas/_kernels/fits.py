"""Capacity fit tests (numba): ``fits_capacity``, ``util_fits_cpu`` and the uclamp forms of the
fit that ``find_energy_efficient_cpu``, ``cpu_overutilized`` and ``select_idle_capacity`` use.

Follows ``kernel/sched/fair.c``: ``fits_capacity()`` (v5.4+), ``uclamp_task_util()`` (v5.6 -
v6.1), the clamp of ``uclamp_rq_util_with()`` (v5.3+), ``util_fits_cpu()`` (v6.2+: 0/1; v6.3+:
-1 when only the boost does not fit), and feec's uclamp-aware candidate test and early exit.
Forms (``UC_*``, rows ``uclamp-*`` of the era ledger ``lisa_eas._era.ERA_LEDGER``) are the
values of ``extra``'s ``X_UC_ON`` row (:mod:`lisa_eas._kernels.extra_rows`).
"""
from __future__ import annotations

from numba import njit

from .extra_rows import X_THERMAL, X_UC_IDLE, X_UC_ON, X_UC_P_MAX, X_UC_P_MIN, X_UC_RQ_MAX, X_UC_RQ_MIN

# the form of the uclamp-aware fit (value of the ``X_UC_ON`` row; 0: uclamp not used)
UC_V5_3 = 1       # ledger uclamp-v5.3: clamps in the energy estimate's OPP only (no clamp in the candidates' fit)
UC_V5_6 = 2       # ledger uclamp-v5.6: fits_capacity(uclamp_rq_util_with(rq, util, p), capacity_of)
UC_V6_2 = 3       # ledger uclamp-v6.2: util_fits_cpu() (0/1); feec's early exit on uclamp_task_util(p)
UC_V6_3 = 4       # ledger uclamp-v6.3: util_fits_cpu() returns -1 (only uclamp_min fails); fits/thermal tiers
UC_V6_7 = 5       # ledger uclamp-v6.7: spare capacity 0 is a candidate; early exit needs p_util_min == 0


@njit(cache=True, inline="always")
def fits_capacity(util, capacity):
    """``fits_capacity(cap, max)``: ``util * 1280 < capacity * 1024`` (v5.4+)."""
    return util * 1280 < capacity * 1024


@njit(cache=True, inline="always")
def uclamp_bounds(extra, cpu):
    """The clamps ``uclamp_rq_util_with(rq, util, p)`` applies on the rq of ``cpu`` with the waking
    task: ``(max(rq uclamp_min, p uclamp_min), max(rq uclamp_max, p uclamp_max))`` (v5.3 9d20ad7dfc9a,
    an idle rq's kept uclamp_max included, e496187da710); from v5.14 (3e1493f46390, ledger
    uclamp-v5.14) the task's own on an idle rq (``X_UC_IDLE``)."""
    if extra[X_UC_IDLE, cpu]:
        return extra[X_UC_P_MIN, cpu], extra[X_UC_P_MAX, cpu]
    lo = extra[X_UC_RQ_MIN, cpu]
    if extra[X_UC_P_MIN, cpu] > lo:
        lo = extra[X_UC_P_MIN, cpu]
    hi = extra[X_UC_RQ_MAX, cpu]
    if extra[X_UC_P_MAX, cpu] > hi:
        hi = extra[X_UC_P_MAX, cpu]
    return lo, hi


@njit(cache=True, inline="always")
def clamp_rq_util(util, lo, hi):
    """The clamp of ``uclamp_rq_util_with()``: ``util`` into [lo, hi], ``lo`` when they cross
    (``if (unlikely(min_util >= max_util)) return min_util``)."""
    if lo >= hi:
        return lo
    if util < lo:
        return lo
    if util > hi:
        return hi
    return util


@njit(cache=True, inline="always")
def uclamp_task_util(util, p_min, p_max):
    """``uclamp_task_util(p)`` (a7008c07a568, v5.6 - v6.1; with explicit clamps in v6.2 - v6.6):
    ``clamp(task_util_est(p), uclamp_min, uclamp_max)``, the kernel's ``clamp()`` (max then min:
    ``uclamp_max`` wins when they cross)."""
    v = util if util > p_min else p_min
    return v if v < p_max else p_max


@njit(cache=True, inline="always")
def uclamp_fits(extra, cpu, util, capacity):
    """The candidate test of ``find_energy_efficient_cpu`` from v5.6 (1d42509e475c, ledger uclamp-v5.6):
    ``util = uclamp_rq_util_with(rq, util, p)`` (clamped into [max(rq min, p min), max(rq max,
    p max)], the lower bound winning when they cross) then ``fits_capacity(util, capacity_of)``;
    without clamps (``extra`` None or its ``X_UC_ON`` row below ``UC_V5_6``) ``fits_capacity`` alone."""
    if extra is not None and extra[X_UC_ON, cpu] >= UC_V5_6:
        lo, hi = uclamp_bounds(extra, cpu)
        util = clamp_rq_util(util, lo, hi)
    return util * 1280 < capacity * 1024


@njit(cache=True, inline="always")
def util_fits_cpu(util, uclamp_min, uclamp_max, capacity, capacity_orig, thermal, form):
    """``util_fits_cpu(util, uclamp_min, uclamp_max, cpu)`` (48d5e9daa8b7, ledger uclamp-v6.2) with
    uclamp in use: ``fits_capacity(util, capacity_of)``, or forced to fit when ``uclamp_max`` is at
    most ``capacity_orig`` (except 1024 on a 1024 CPU); a boost (``util < min(uclamp_min,
    uclamp_max)``) above ``capacity_orig - thermal pressure`` makes v6.2 answer 0 (not on a 1024
    CPU) and v6.3+ answer -1 (e5ed0550c04c, ledger uclamp-v6.3) when the CPU otherwise fits.
    v6.2's capacity inversion is ``util_fits_cpu_v62``."""
    fits = 1 if util * 1280 < capacity * 1024 else 0
    if not (capacity_orig == 1024 and uclamp_max == 1024) and uclamp_max <= capacity_orig:
        fits = 1
    if uclamp_max < uclamp_min:
        uclamp_min = uclamp_max
    if form >= UC_V6_3:
        if fits and util < uclamp_min and uclamp_min > capacity_orig - thermal:
            return -1
        return fits
    if util < uclamp_min and capacity_orig != 1024 and uclamp_min > capacity_orig - thermal:
        return 0
    return fits


@njit(cache=True, inline="always")
def _inverts(co, inv, dco, dth):
    """v6.2 ``update_cpu_capacity``: does a perf domain of ``capacity_orig`` ``dco`` and
    ``thermal_load_avg`` ``dth`` put a CPU of ``capacity_orig`` ``co`` (``inv`` = ``co`` minus
    its own ``thermal_load_avg``) in capacity inversion? Not when it is bigger; when equal, if it
    keeps more capacity after its pressure; when smaller, if its ``capacity_orig`` exceeds ``inv``."""
    if co < dco:
        return False
    if co == dco:
        return dco - dth > inv
    return dco > inv


@njit(cache=True, inline="always")
def capacity_inverted(cpu, capacity_orig, thermal_avg, pd_of):
    """v6.2's ``cpu_in_capacity_inversion(cpu)`` (44c7b80bffc3 / aa69c36f31aa, removed in v6.3 by
    a2e90611b9f4): ``capacity_orig - thermal_load_avg`` of ``cpu`` when another perf domain
    (``pd_of`` per CPU; its first CPU read, as ``cpumask_any``) inverts it (``_inverts``), else 0.
    The kernel sets it in ``update_cpu_capacity`` (load balance); here it is computed at the
    decision."""
    co = capacity_orig[cpu]
    inv = co - thermal_avg[cpu]
    for d in range(capacity_orig.shape[0]):
        if pd_of[d] == pd_of[cpu]:
            continue
        first = True
        for e in range(d):
            if pd_of[e] == pd_of[d]:
                first = False
                break
        if first and _inverts(co, inv, capacity_orig[d], thermal_avg[d]):
            return inv
    return 0


@njit(cache=True, inline="always")
def capacity_inverted_pd(cpu, own_pd, pd_info, pd_cpus, capacity_orig, thermal_avg):
    """``capacity_inverted`` over the Energy Model's perf domains (``pd_info`` rows, column 0 the
    first index into ``pd_cpus``; ``own_pd`` the row of ``cpu``)."""
    co = capacity_orig[cpu]
    inv = co - thermal_avg[cpu]
    for j in range(pd_info.shape[0]):
        if j == own_pd:
            continue
        d = pd_cpus[pd_info[j, 0]]
        if _inverts(co, inv, capacity_orig[d], thermal_avg[d]):
            return inv
    return 0


@njit(cache=True, inline="always")
def util_fits_cpu_v62(util, uclamp_min, uclamp_max, capacity, capacity_orig, thermal, inverted):
    """v6.2 ``util_fits_cpu`` with its capacity inversion: a CPU in inversion (``inverted`` > 0,
    from ``capacity_inverted``) takes that capacity as both ``capacity_orig`` and
    ``capacity_orig - thermal pressure``."""
    if inverted:
        return util_fits_cpu(util, uclamp_min, uclamp_max, capacity, inverted, 0, UC_V6_2)
    return util_fits_cpu(util, uclamp_min, uclamp_max, capacity, capacity_orig, thermal, UC_V6_2)


@njit(cache=True, inline="always")
def fits_v62(extra, cpu, util, capacity, capacity_orig, inverted=0):
    """v6.2+ feec's fit of a candidate: ``util_fits_cpu(util, max(rq min, p min), max(rq max, p
    max), cpu)`` (the clamps max-aggregated, util not clamped; an idle rq brings 0); v6.2 with the
    CPU's inverted capacity (``inverted``, 0: none)."""
    lo, hi = uclamp_bounds(extra, cpu)
    if extra[X_UC_ON, cpu] == UC_V6_2:
        return util_fits_cpu_v62(util, lo, hi, capacity, capacity_orig, extra[X_THERMAL, cpu], inverted)
    return util_fits_cpu(util, lo, hi, capacity, capacity_orig, extra[X_THERMAL, cpu], extra[X_UC_ON, cpu])


@njit(cache=True, inline="always")
def cpu_overutilized_uclamp(util, capacity, capacity_orig, thermal, rq_min, rq_max, form):
    """v6.2+ ``cpu_overutilized()`` with uclamp in use (c56ab1b3506b, ledger uclamp-v6.2):
    ``!util_fits_cpu(cpu_util_cfs(cpu), rq uclamp_min, rq uclamp_max, cpu)`` (-1 is not 0: a CPU
    failing only the boost is not overutilized)."""
    return util_fits_cpu(util, rq_min, rq_max, capacity, capacity_orig, thermal, form) == 0


@njit(cache=True, inline="always")
def feec_exits_early(extra, task_util, task_ue):
    """feec's early "stay on prev": ``task_util_est(p) == 0``; with uclamp, v6.2 - v6.6
    ``uclamp_task_util(p) == 0`` (d81304bc6193: clamp(task_util_est, p min, p max), so a task with
    uclamp_max 0 stays), v6.7+ ``task_util_est(p) == 0 && p_util_min == 0`` (23c9519def98)."""
    tue = task_util if task_util > task_ue else task_ue
    uc = 0 if extra is None else extra[X_UC_ON, 0]
    if uc >= UC_V6_7:
        return tue == 0 and extra[X_UC_P_MIN, 0] == 0
    if uc >= UC_V6_2:
        return uclamp_task_util(tue, extra[X_UC_P_MIN, 0], extra[X_UC_P_MAX, 0]) == 0
    return task_util == 0 and task_ue == 0
