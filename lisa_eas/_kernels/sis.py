"""Idle-CPU search: ``select_idle_sibling`` / ``select_idle_cpu`` with SIS_PROP and SIS_UTIL (numba).

Follows ``kernel/sched/fair.c``: ``update_idle_cpu_scan()`` (SIS_UTIL producer, 70fb5ccf2ebb),
the SIS_PROP depth in ``select_idle_cpu()`` (v4.9-v5.11 and v5.12+ forms; removed in v6.7),
``select_idle_core()``, ``select_idle_smt()`` and the fast paths of ``select_idle_sibling()``
(target, prev, ``recent_used_cpu``); and the asymmetric-capacity path (v5.7+,
``select_idle_sibling_asym``, ``select_idle_capacity``; modes ``ASYM_*``: the v5.10 checks first,
the uclamp-aware fit of v6.2 and its -1 tier and target + 1 start of v6.3). No SCHED_IDLE tasks, no clusters, no per-CPU-kthread shortcut.

Modes (rows ``sis-*`` of the era ledger ``lisa_eas._era.ERA_LEDGER``): ``SIS_V4_0`` (v4.9 -
v5.5: target, prev, recent, whole-LLC idle-core search, ``select_idle_cpu`` over the LLC span
from target with ``if (!--nr)`` counted before the affinity test, ``select_idle_smt(target)``),
``SIS_V4`` (v5.6 - v5.11: the same over LLC & ``p->cpus_ptr``, 60588bfa223f), ``SIS_V5_12``
(v5.12: merged loop starting at target, idle cores searched in the same loop, no
``select_idle_smt`` at all), ``SIS_V5_12_14`` (v5.13 - v5.14: the same with
``select_idle_smt(prev)`` before it when no idle core is flagged, c722f35b513f) and
``SIS_V5_15`` (v5.15+: the merged loop starts at target + 1, 56498cfb045d). ``if (!--nr)``
and ``if (--nr <= 0)`` stop alike for nr >= 1. Return paths (``PATH_*``) say which rule chose the CPU.

SIS_PROP's inputs (``sis_prop_nr``, ``update_avg``, ``wake_avg_idle_age``): the depth comes from
the *waking* CPU's runqueue (``this_rq()``) and its own LLC domain's ``avg_scan_cost``; before
v5.14 from ``rq->avg_idle / 512``, from v5.14 (94aafc3ee31d, ledger sis-v5.14) from
``rq->wake_avg_idle`` (set to ``avg_idle / 2`` when an idle rq is woken, halved per elapsed
jiffy before each scan, reduced by each scan's time). The scan time feeds ``avg_scan_cost``
(signed ``/ 8``) only when the scan ends without running out of depth: ``if (!--nr) return -1``
returns before the accounting in every era. ``core.c``'s ``update_avg`` of ``avg_idle`` was an
arithmetic ``>> 3`` up to v5.6 and C's signed ``/ 8`` from v5.7 (d76343c6b2b7, ledger
wakeup-v5.7).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import model_inline
from .fits import UC_V6_3, capacity_inverted, fits_capacity, uclamp_task_util, util_fits_cpu, util_fits_cpu_v62

SIS_V4 = 0          # ledger sis-v5.6 (v5.6 - v5.11)
SIS_V5_15 = 1       # ledger sis-v5.15 (v5.15+: merged loop from target + 1)
SIS_V5_12_14 = 2    # ledger sis-v5.13 (v5.13 - v5.14: merged loop from target, select_idle_smt(prev) first)
SIS_V4_0 = 3        # ledger sis-v4.9 (v4.9 - v5.5: depth spent on CPUs the task may not use)
SIS_V5_12 = 4       # ledger sis-v5.12 (v5.12: merged loop from target, no select_idle_smt)

PATH_TARGET = 0
PATH_PREV = 1
PATH_RECENT = 2
PATH_IDLE_CORE = 3
PATH_IDLE_CPU = 4
PATH_IDLE_SMT = 5
PATH_FALLBACK = 6
PATH_IDLE_CAPACITY = 7    # select_idle_capacity(): an idle CPU the task fits
PATH_BEST_CAPACITY = 8    # select_idle_capacity(): no idle CPU fits, the idle one of highest capacity

# the asymmetric-capacity path (rows sis-v5.7, sis-v5.10, sis-v6.2, sis-v6.3 of the era ledger)
ASYM_V5_7 = 0             # v5.7-v5.9: the capacity scan first (b7a331615d25); fits_capacity(uclamp_task_util(p))
ASYM_V5_10 = 1            # v5.10-v6.1: target, prev, recent_used_cpu first when idle and the task fits them
ASYM_V6_2 = 2             # v6.2: util_fits_cpu(task_util_est, p uclamp_min, p uclamp_max, cpu) (0/1) in both
ASYM_V6_3 = 3             # v6.3+: util_fits_cpu's -1 ranked first by capacity_orig - thermal_load_avg, asym_fits_cpu
                          # needs 1; the scan starts at target + 1 (8589018acc65)

INT_MAX = 2147483647


@njit(cache=True)
def sis_util_nr_idle_scan(sum_util, llc_weight, imbalance_pct):
    """``update_idle_cpu_scan()``: ``sd_llc_shared->nr_idle_scan`` from the LLC's sum of util."""
    x = sum_util // llc_weight
    tmp = (x * x * imbalance_pct * imbalance_pct) // (10000 * 1024)
    if tmp > 1024:
        tmp = 1024
    y = 1024 - tmp
    return (y * llc_weight) // 1024


@njit(cache=True)
def sis_prop_nr(avg_idle, avg_scan_cost, span_weight, era):
    """SIS_PROP scan depth ``nr``; ``avg_idle`` is ``rq->avg_idle`` (< v5.14, divided by 512 here)
    or ``rq->wake_avg_idle`` (v5.14+, used as is); ``era`` 0: < v5.14, 1: v5.14+."""
    if era == 0:
        avg_idle = avg_idle // 512
    avg_cost = avg_scan_cost + 1
    span_avg = span_weight * avg_idle
    if span_avg > 4 * avg_cost:
        return span_avg // avg_cost
    return 4


@model_inline
def update_avg(avg, sample, trunc):
    """``update_avg(&avg, sample)``: ``avg += (sample - avg) / 8`` with C's truncating signed
    division (``trunc``: ``sched.h`` from v5.7 and ``select_idle_cpu``'s ``avg_scan_cost`` in
    every era) or the arithmetic shift ``>> 3`` (``core.c``'s ``avg_idle`` before v5.7)."""
    diff = sample - avg
    if trunc:
        return avg + (diff // 8 if diff >= 0 else -((-diff) // 8))
    return avg + (diff >> 3)


@model_inline
def wake_avg_idle_age(wake_avg_idle, wake_stamp, jiffies):
    """v5.14+ ``select_idle_cpu``: halve ``wake_avg_idle`` once per jiffy since ``wake_stamp``
    (the stamp stops advancing once the average is 0). Returns ``(wake_avg_idle, wake_stamp)``."""
    while wake_stamp < jiffies and wake_avg_idle > 0:
        wake_stamp += 1
        wake_avg_idle >>= 1
    return wake_avg_idle, wake_stamp


@njit(cache=True)
def select_idle_sibling(mode, util_mode, idle, allowed, target, prev, recent, has_idle_core, nr_param,
                        llc_id, core_id, smt, result):
    """One wake-up's idle-CPU search. Returns the CPU; ``result`` (int64[2]) gets (path, rqs scanned),
    and ``result[2]``, when ``result`` has it, 1 if ``select_idle_cpu`` ran out of depth (its
    ``return -1`` before the SIS_PROP time accounting), else 0.

    ``nr_param``: SIS_UTIL ``nr_idle_scan`` when ``util_mode`` else the SIS_PROP ``nr``.
    ``idle``/``allowed`` are per-CPU 0/1; ``llc_id``/``core_id`` per-CPU topology ids;
    ``smt`` says whether SMT is active.
    """
    n_cpus = idle.shape[0]
    result[0] = PATH_FALLBACK
    result[1] = 0
    has_out = result.shape[0] > 2
    if has_out:
        result[2] = 0
    if idle[target]:
        result[0] = PATH_TARGET
        return target
    if prev != target and llc_id[prev] == llc_id[target] and idle[prev]:
        result[0] = PATH_PREV
        return prev
    if (recent >= 0 and recent != prev and recent != target and llc_id[recent] == llc_id[target]
            and idle[recent] and allowed[recent]):
        result[0] = PATH_RECENT
        return recent
    # the LLC span & p->cpus_ptr; for_each_cpu_wrap() = walk all CPUs from `start` modulo
    # n_cpus and keep those of target's LLC. A mutable mask is only needed when idle cores
    # are searched (select_idle_core() removes whole cores from it).
    llc_t = llc_id[target]
    scanned = 0
    need_mask = smt and has_idle_core
    avail = np.empty(n_cpus if need_mask else 0, np.uint8)
    if need_mask:
        for c in range(n_cpus):
            avail[c] = 1 if (llc_id[c] == llc_t and allowed[c]) else 0
    if mode == SIS_V4 or mode == SIS_V4_0:
        if need_mask:
            for k in range(n_cpus):
                core = (target + k) % n_cpus
                if not avail[core]:
                    continue
                all_idle = True
                for s in range(n_cpus):
                    if core_id[s] == core_id[core] and llc_id[s] == llc_id[core]:
                        avail[s] = 0
                        scanned += 1
                        if not idle[s]:
                            all_idle = False
                if all_idle:
                    result[0] = PATH_IDLE_CORE
                    result[1] = scanned
                    return core
        nr = nr_param if not util_mode else nr_param + 1
        for k in range(n_cpus):
            cpu = (target + k) % n_cpus
            if llc_id[cpu] != llc_t:
                continue
            if mode == SIS_V4 and not allowed[cpu]:
                continue
            nr -= 1
            if nr == 0:
                if has_out:
                    result[2] = 1
                break
            if not allowed[cpu]:          # SIS_V4_0: the depth was spent on a disallowed CPU
                continue
            scanned += 1
            if idle[cpu]:
                result[0] = PATH_IDLE_CPU
                result[1] = scanned
                return cpu
        result[1] = scanned
        if smt:
            for s in range(n_cpus):
                if core_id[s] == core_id[target] and llc_id[s] == llc_t and s != target:
                    if allowed[s]:
                        result[1] += 1
                        if idle[s]:
                            result[0] = PATH_IDLE_SMT
                            return s
        result[0] = PATH_FALLBACK
        return target
    # v5.12+ (SIS_V5_12, SIS_V5_12_14, SIS_V5_15); select_idle_smt(prev) from v5.13 (ledger sis-v5.13)
    if mode != SIS_V5_12 and smt and not has_idle_core and llc_id[prev] == llc_t:
        for s in range(n_cpus):       # select_idle_smt(p, sd, prev)
            if core_id[s] == core_id[prev] and llc_id[s] == llc_id[prev] and s != prev and allowed[s]:
                scanned += 1
                if idle[s]:
                    result[0] = PATH_IDLE_SMT
                    result[1] = scanned
                    return s
    use_core = need_mask
    if util_mode:
        nr = nr_param + 1
        if nr == 1:
            result[1] = scanned
            return target
    else:
        nr = INT_MAX if use_core else nr_param
    idle_cpu = -1
    start = target + 1 if mode == SIS_V5_15 else target
    for k in range(n_cpus):
        cpu = (start + k) % n_cpus
        if use_core:
            if not avail[cpu]:
                continue
            all_idle = True
            for s in range(n_cpus):
                if core_id[s] == core_id[cpu] and llc_id[s] == llc_id[cpu]:
                    scanned += 1
                    if not idle[s]:
                        all_idle = False
                        if idle_cpu == -1:
                            continue
                        break
                    if idle_cpu == -1 and avail[s]:
                        idle_cpu = s
            if all_idle:
                result[0] = PATH_IDLE_CORE
                result[1] = scanned
                return cpu
            for s in range(n_cpus):
                if core_id[s] == core_id[cpu] and llc_id[s] == llc_id[cpu]:
                    avail[s] = 0
        else:
            if llc_id[cpu] != llc_t or not allowed[cpu]:
                continue
            nr -= 1
            if nr <= 0:
                if has_out:
                    result[2] = 1
                break
            scanned += 1
            if idle[cpu]:
                idle_cpu = cpu
                break
    result[1] = scanned
    if idle_cpu >= 0:
        result[0] = PATH_IDLE_CPU
        return idle_cpu
    return target


@njit(cache=True, inline="always")
def asym_fits(mode, task_util, p_min, p_max, cpu, capacity, capacity_orig, thermal, thermal_avg, pd_of):
    """The task-fits-CPU test of the asymmetric path, per era: v5.7 - v6.1
    ``fits_capacity(uclamp_task_util(p), capacity_of)`` (``task_fits_capacity`` in v5.7 - v5.9,
    ``asym_fits_capacity`` and the scan from v5.10); v6.2+ ``util_fits_cpu(task_util_est(p),
    p uclamp_min, p uclamp_max, cpu)`` (a2e7f03ed28f, b759caa1d9f6), 1 / 0 (v6.2 with its
    capacity inversion, ``fits.util_fits_cpu_v62``) and, from v6.3, -1 when only the boost does
    not fit (e5ed0550c04c). Without clamps (0, 1024) every form is
    ``fits_capacity(task_util_est(p), capacity_of)``. ``capacity`` is the CPU's ``capacity_of``;
    ``capacity_orig``, ``thermal``, ``thermal_avg`` and ``pd_of`` (perf domain) are per CPU."""
    if mode >= ASYM_V6_3:
        return util_fits_cpu(task_util, p_min, p_max, capacity, capacity_orig[cpu], thermal[cpu], UC_V6_3)
    if mode == ASYM_V6_2:
        return util_fits_cpu_v62(task_util, p_min, p_max, capacity, capacity_orig[cpu], thermal[cpu],
                                 capacity_inverted(cpu, capacity_orig, thermal_avg, pd_of))
    return 1 if fits_capacity(uclamp_task_util(task_util, p_min, p_max), capacity) else 0


@njit(cache=True)
def select_idle_capacity(mode, idle, allowed, capacity, capacity_orig, thermal, thermal_avg, pd_of, task_util,
                         p_min, p_max, target, result):
    """``select_idle_capacity()`` (v5.7+) over all CPUs (the ``sd_asym_cpucapacity`` span) and
    ``allowed``, in ``for_each_cpu_wrap`` order from ``target`` (from ``target + 1`` in v6.3+,
    8589018acc65): the first idle CPU the task fits (``asym_fits`` of the era), else the idle
    CPU of highest capacity (the first of equals), else -1. v6.2 fits with the CPU's inverted
    capacity (``fits.capacity_inverted`` over the perf domains ``pd_of``). v6.3+ ranks a CPU whose only miss is
    the boost (-1) above one that does not fit, by ``capacity_orig - thermal_load_avg``
    (``thermal_avg``) among them. ``capacity`` is ``capacity_of``, ``thermal`` the
    ``arch_scale_thermal_pressure`` that ``util_fits_cpu`` reads. ``result[1]`` += CPUs examined;
    ``result[0]`` = the path when a CPU is returned."""
    n_cpus = idle.shape[0]
    best_cap = 0
    best_cpu = -1
    best_fits = 0          # v6.3+: -1 ranks before 0
    start = target + 1 if mode >= ASYM_V6_3 else target
    for k in range(n_cpus):
        cpu = (start + k) % n_cpus
        if not allowed[cpu]:
            continue
        result[1] += 1
        if not idle[cpu]:
            continue
        cap = capacity[cpu]
        fits = asym_fits(mode, task_util, p_min, p_max, cpu, cap, capacity_orig, thermal, thermal_avg, pd_of)
        if fits > 0:
            result[0] = PATH_IDLE_CAPACITY
            return cpu
        if fits < 0:
            cap = capacity_orig[cpu] - thermal_avg[cpu]
        if fits < best_fits or (fits == best_fits and cap > best_cap):
            best_cap = cap
            best_cpu = cpu
            best_fits = fits
    if best_cpu >= 0:
        result[0] = PATH_BEST_CAPACITY
    return best_cpu


@njit(cache=True)
def select_idle_sibling_asym(mode, idle, allowed, capacity, capacity_orig, thermal, thermal_avg, pd_of, task_util,
                             p_min, p_max, target, prev, recent, llc_id, result):
    """``select_idle_sibling()`` on an asymmetric-capacity system (``sched_asym_cpucapacity``):
    from ``ASYM_V5_10`` first target, then prev (same LLC), then ``recent_used_cpu`` when idle
    and the task fits them (``asym_fits_capacity``; ``asym_fits_cpu`` from v6.2, which needs 1
    from v6.3); every mode then returns ``select_idle_capacity()``'s CPU, or target when it finds
    none. ``task_util`` is ``task_util_est(p)``, ``p_min``/``p_max`` the task's effective clamps
    (0, 1024 without uclamp). Returns the CPU."""
    result[0] = PATH_FALLBACK
    result[1] = 0
    if mode >= ASYM_V5_10:
        if idle[target] and asym_fits(mode, task_util, p_min, p_max, target, capacity[target], capacity_orig,
                                      thermal, thermal_avg, pd_of) > 0:
            result[0] = PATH_TARGET
            return target
        if (prev != target and llc_id[prev] == llc_id[target] and idle[prev]
                and asym_fits(mode, task_util, p_min, p_max, prev, capacity[prev], capacity_orig, thermal,
                              thermal_avg, pd_of) > 0):
            result[0] = PATH_PREV
            return prev
        if (recent >= 0 and recent != prev and recent != target and llc_id[recent] == llc_id[target]
                and idle[recent] and allowed[recent]
                and asym_fits(mode, task_util, p_min, p_max, recent, capacity[recent], capacity_orig, thermal,
                              thermal_avg, pd_of) > 0):
            result[0] = PATH_RECENT
            return recent
    cpu = select_idle_capacity(mode, idle, allowed, capacity, capacity_orig, thermal, thermal_avg, pd_of, task_util,
                               p_min, p_max, target, result)
    if cpu >= 0:
        return cpu
    result[0] = PATH_FALLBACK
    return target


@njit(cache=True)
def sis_asym_batch(mode, idle, allowed, capacity, capacity_orig, thermal, thermal_avg, pd_of, task_util, p_min,
                   p_max, target, prev, recent, llc_id, out_cpu, out_result):
    """Many asymmetric-capacity wake-ups (row i of the 2-D arrays and element i of the vectors is
    wake-up i; ``capacity_orig``, ``pd_of`` and ``llc_id`` are per CPU)."""
    for i in range(idle.shape[0]):
        out_cpu[i] = select_idle_sibling_asym(mode, idle[i], allowed[i], capacity[i], capacity_orig, thermal[i],
                                              thermal_avg[i], pd_of, task_util[i], p_min[i], p_max[i], target[i],
                                              prev[i], recent[i], llc_id, out_result[i])
    return out_cpu


@njit(cache=True)
def sis_batch(mode, util_mode, idle, allowed, target, prev, recent, has_idle_core, nr_param, llc_id, core_id,
              smt, out_cpu, out_result):
    """Many wake-ups (row i of ``idle``/``allowed`` and element i of the vectors is wake-up i)."""
    for i in range(idle.shape[0]):
        out_cpu[i] = select_idle_sibling(mode, util_mode, idle[i], allowed[i], target[i], prev[i], recent[i],
                                         has_idle_core[i], nr_param[i], llc_id, core_id, smt, out_result[i])
    return out_cpu
