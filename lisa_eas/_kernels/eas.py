"""Energy-aware wake-up: ``find_energy_efficient_cpu`` and ``compute_energy`` per era (numba).

Follows ``kernel/sched/fair.c``: ``cpu_util_next()`` (``cpu_util(cpu, p, dst, 0)`` in 6.x),
``compute_energy()``, ``find_energy_efficient_cpu()``, ``eenv_task_busy_time()``,
``eenv_pd_busy_time()``, ``eenv_pd_max_util()``, ``cpu_overutilized()`` /
``fits_capacity()``, and ``em_cpu_energy()`` (``em_pd_energy()`` before v5.9) from
``include/linux/energy_model.h``.

Eras (``EAS_*``, rows ``eas-*`` of the era ledger ``lisa_eas._era.ERA_LEDGER``): the April 2018
RFC v2 on 4.16-rc6 (``feec_rfc2``: prev always costed, system energies, 1/64 margin), v5.0 (every
candidate costed over all perf domains, 1/16-of-prev-energy margin), v5.4 (eb92692b2544
"Speed-up energy-aware wake-ups": per-domain base + unsigned deltas, margin 1/16 of prev
delta + base), v5.14 (base only for domains with a candidate, prev out of the max-spare race,
early return, busy time with the task's whole util), v6.0 (no margin, task busy time counted
once, the max-spare CPU always costed), v6.2 (costed only when it has more spare capacity
than prev; the current form without uclamp). CPU utilization is CFS only unless the optional ``extra``
inputs give RT/DL/IRQ utilization, thermal pressure and runnable_avg (runnable boosting,
v6.5+); no uclamp (CONFIG_UCLAMP_TASK=y without clamps); every CPU is in the
``sd_asym_cpucapacity`` span and online.

The capacity fit tests with their uclamp forms (``fits_capacity``, ``util_fits_cpu``, feec's
candidate test and early exit) are in :mod:`lisa_eas._kernels.fits`, the rows of ``extra`` in
:mod:`lisa_eas._kernels.extra_rows`.

Platform arrays (from ``EnergyModel.arrays()``): ``pd_info`` int64[n_pd, 6] with columns
(cpu_start, cpu_end, state_start, state_end, scale_cpu, skip_inefficient) in the kernel's
perf-domain list order; ``pd_cpus`` int64[n_cpus] (CPUs of each domain, ascending);
``em_states`` int64[n_states, 4] with (freq_khz, cost, performance, inefficient);
``em_mode`` 0 (< v5.14), 1 (v5.14 - v6.7), 2 (v6.8), 3 (v6.9+).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import model_inline
# the rows of ``extra`` and the capacity fit tests (uclamp forms) have their own modules; their
# names are re-exported here for the callers that take them from ``eas``
from .extra_rows import (X_BW_DL, X_DL, X_IRQ, X_RT, X_RUNNABLE, X_SIZE, X_THERMAL, X_UC_ON,  # noqa: F401
                         X_UC_P_MAX, X_UC_P_MIN, X_UC_RQ_MAX, X_UC_RQ_MIN)
from .extra_rows import X_THERMAL_AVG, X_UC_IDLE  # noqa: F401
from .fits import (UC_V5_3, UC_V5_6, UC_V6_2, UC_V6_3, UC_V6_7, capacity_inverted_pd, clamp_rq_util,  # noqa: F401
                   cpu_overutilized_uclamp, feec_exits_early, fits_capacity, fits_v62, uclamp_bounds, uclamp_fits,
                   util_fits_cpu, util_fits_cpu_v62)

EAS_V5_0 = 0      # ledger eas-v5.0
EAS_V5_4 = 1      # ledger eas-v5.4 (v5.4 - v5.13)
EAS_V6_0 = 2      # ledger eas-v6.0 (v6.0 - v6.1: the max-spare CPU is always costed)
EAS_V5_14 = 3     # ledger eas-v5.14 (v5.14 - v5.19)
EAS_V6_2 = 4      # ledger eas-v6.2 (v6.2+: max_spare_cap > prev_spare_cap)
EAS_RFC_V2 = 5    # ledger eas-v4.16 (the April 2018 RFC v2 on 4.16-rc6; never merged)

NO_ENERGY = np.iinfo(np.int64).max     # "not computed" in the ``energies`` output
ULONG_MAX = np.int64(-1)               # the kernel's ULONG_MAX in int64 bits (unsigned emulation)
SIGN_BIT = np.int64(-(2 ** 63))

PD_CPU_START = 0
PD_CPU_END = 1
PD_STATE_START = 2
PD_STATE_END = 3
PD_SCALE_CPU = 4
PD_SKIP_INEFF = 5

ST_FREQ = 0
ST_COST = 1
ST_PERF = 2
ST_INEFF = 3


@model_inline
def cpu_overutilized(util, capacity, era):
    """``cpu_overutilized()``: v5.0 ``cap*1024 < util*1280``; v5.4+ ``!fits_capacity``."""
    if era == EAS_V5_0:
        return capacity * 1024 < util * 1280
    return not fits_capacity(util, capacity)


@njit(cache=True)
def rd_overutilized(cpu_util, capacity, era):
    """Root-domain flag as the top-level ``update_sd_lb_stats()`` sets it: any CPU overutilized."""
    for cpu in range(cpu_util.shape[0]):
        if cpu_overutilized(cpu_util[cpu], capacity[cpu], era):
            return True
    return False


@njit(cache=True, inline="always")
def em_cpu_energy(pd_info, em_states, em_mode, pd, max_util, sum_util, allowed_cap):
    """``em_cpu_energy(pd, max_util, sum_util, allowed_cpu_cap)`` of the era's EM."""
    if sum_util == 0:
        return 0
    scale_cpu = pd_info[pd, PD_SCALE_CPU]
    s0 = pd_info[pd, PD_STATE_START]
    s1 = pd_info[pd, PD_STATE_END]
    fmax = em_states[s1 - 1, ST_FREQ]
    key = ST_FREQ
    if em_mode == 3:
        key = ST_PERF
        target = max_util if max_util < allowed_cap else allowed_cap
    elif em_mode == 2:
        mu = max_util if max_util < allowed_cap else allowed_cap
        target = fmax * mu // scale_cpu
    elif em_mode == 1:
        mu = max_util + (max_util >> 2)
        if mu > allowed_cap:
            mu = allowed_cap
        target = fmax * mu // scale_cpu
    else:
        target = (fmax + (fmax >> 2)) * max_util // scale_cpu
    skip = pd_info[pd, PD_SKIP_INEFF]
    # first state whose key (ascending) reaches the target: binary search, then skip the
    # inefficient ones upwards - the same state as the kernel's linear walk
    lo = s0
    hi = s1
    while lo < hi:
        mid = (lo + hi) >> 1
        if em_states[mid, key] >= target:
            hi = mid
        else:
            lo = mid + 1
    idx = s1 - 1
    for i in range(lo, s1):
        if skip and em_states[i, ST_INEFF]:
            continue
        idx = i
        break
    if em_mode == 3:
        return em_states[idx, ST_COST] * sum_util
    return em_states[idx, ST_COST] * sum_util // scale_cpu


@njit(cache=True, inline="always")
def cpu_util_next(cpu, task_cpu, dst_cpu, util_avg, util_est, task_util, task_ue, cap_orig):
    """``cpu_util_next(cpu, p, dst_cpu)``: CPU util if ``p`` (waking, not enqueued) ran on dst."""
    return _util_next_from(util_avg[cpu], cpu, task_cpu, dst_cpu, util_est, task_util, task_ue, cap_orig)


@njit(cache=True, inline="always")
def _util_next_from(util, cpu, task_cpu, dst_cpu, util_est, task_util, task_ue, cap_orig):
    """The body of ``cpu_util_next()`` from the CPU's base util (util_avg, or v6.5+ its
    runnable-boosted value): the task's contribution moved, util_est taken, capped."""
    if task_cpu == cpu and dst_cpu != cpu:
        util = util - task_util if util > task_util else 0
    elif task_cpu != cpu and dst_cpu == cpu:
        util += task_util
    est = util_est[cpu]
    if dst_cpu == cpu:
        est += task_ue
    if est > util:
        util = est
    return util if util < cap_orig[cpu] else cap_orig[cpu]


@njit(cache=True, inline="always")
def _energy_util(extra, cpu, u, scale):
    """``effective_cpu_util(cpu, u, ENERGY_UTIL, NULL)`` (v5.0 ``schedutil_energy_util``; v6.8
    ``effective_cpu_util(cpu, u, NULL, NULL)`` computes the same): CFS + RT + DL, IRQ-scaled."""
    if extra is None:
        return u if u < scale else scale
    irq = extra[X_IRQ, cpu]
    if irq >= scale:
        return scale
    util = u + extra[X_RT, cpu]
    dl = extra[X_DL, cpu]
    if util + dl >= scale:
        return scale
    util += dl
    util = irq + util * (scale - irq) // scale
    return util if util < scale else scale


@njit(cache=True, inline="always")
def _uc_bounds(extra, cpu, dst):
    """The (min, max) of ``uclamp_rq_util_with(rq, util, dst ? p : NULL)`` in the energy estimate
    (af24bde8df20, v5.3, ledger uclamp-v5.3): the rq's clamps as they are (an idle rq: min 0 and
    the uclamp_max kept from its last task, e496187da710), max-aggregated with the task's on the
    destination CPU (``uclamp_bounds``: the task's own on an idle rq from v5.14)."""
    if dst:
        return uclamp_bounds(extra, cpu)
    return extra[X_UC_RQ_MIN, cpu], extra[X_UC_RQ_MAX, cpu]


@njit(cache=True, inline="always")
def _freq_util(extra, cpu, u, scale, dst=False):
    """``effective_cpu_util(cpu, u, FREQUENCY_UTIL, p)`` (v5.3 - v6.7) with CONFIG_UCLAMP_TASK=y:
    CFS + RT, clamped by ``uclamp_rq_util_with(rq, ., dst ? p : NULL)`` when clamps are given (the
    ``X_UC_ON`` row, ledger uclamp-v5.3), max when + DL reaches the capacity, IRQ-scaled, + DL
    bandwidth."""
    if extra is None:
        return u if u < scale else scale
    irq = extra[X_IRQ, cpu]
    if irq >= scale:
        return scale
    util = u + extra[X_RT, cpu]
    if extra[X_UC_ON, cpu]:
        lo, hi = _uc_bounds(extra, cpu, dst)
        util = clamp_rq_util(util, lo, hi)
    if util + extra[X_DL, cpu] >= scale:
        return scale
    util = irq + util * (scale - irq) // scale
    util += extra[X_BW_DL, cpu]
    return util if util < scale else scale


@njit(cache=True, inline="always")
def _perf_util_v68(extra, cpu, u, scale, dst=False):
    """v6.8+ ``effective_cpu_util(cpu, u, &min, &max)`` then ``sugov_effective_cpu_perf()``:
    ``max(irq + bw_dl, min(1.25 * util, max))``; with clamps (``X_UC_ON``) min also takes the rq's
    ``uclamp_min`` and max is ``min(scale, rq uclamp_max)``, the task's max-aggregated on the
    destination (``eenv_pd_max_util``, 9c0b4bb7f630)."""
    if extra is None:
        if u > scale:
            u = scale
        u = u + (u >> 2)
        return u if u < scale else scale
    irq = extra[X_IRQ, cpu]
    if irq >= scale:
        return scale
    lo = irq + extra[X_BW_DL, cpu]
    hi = scale
    if extra[X_UC_ON, cpu]:
        ulo, uhi = _uc_bounds(extra, cpu, dst)
        if ulo > lo:
            lo = ulo
        if uhi < hi:
            hi = uhi
    util = u + extra[X_RT, cpu] + extra[X_DL, cpu]
    if util >= scale:
        util = scale
    else:
        util = irq + util * (scale - irq) // scale
    util = util + (util >> 2)
    if util > hi:
        util = hi
    return lo if lo > util else util


@njit(cache=True, inline="always")
def _thermal_cap(extra, cpu, scale):
    """``arch_scale_cpu_capacity(cpu) - arch_scale_thermal_pressure(cpu)`` (v5.14+ EM cap)."""
    if extra is None:
        return scale
    return scale - extra[X_THERMAL, cpu]


@njit(cache=True, inline="always")
def cpu_util_boost(extra, cpu, task_cpu, dst_cpu, util_avg, util_est, task_util, task_ue, cap_orig):
    """v6.5+ ``cpu_util(cpu, p, dst_cpu, 1)``: util_avg raised to runnable_avg before the task's
    contribution moves (runnable boosting); without ``extra`` it is ``cpu_util_next``."""
    util = util_avg[cpu]
    if extra is not None:
        r = extra[X_RUNNABLE, cpu]
        if r > util:
            util = r
    return _util_next_from(util, cpu, task_cpu, dst_cpu, util_est, task_util, task_ue, cap_orig)


@njit(cache=True, inline="always")
def _pd_energy_v5(pd_info, pd_cpus, em_states, em_mode, pd, task_cpu, dst_cpu, util_avg, util_est,
                  task_util, task_ue, cap_orig, work, extra=None, freq_max=True):
    """v5.0 / v5.4 ``compute_energy()`` of one domain: busy time ENERGY_UTIL, OPP from the max of
    FREQUENCY_UTIL (v5.4, ``freq_max``) or of ENERGY_UTIL (v5.0 ``schedutil_energy_util``)."""
    scale = pd_info[pd, PD_SCALE_CPU]
    max_util = 0
    sum_util = 0
    for j in range(pd_info[pd, PD_CPU_START], pd_info[pd, PD_CPU_END]):
        cpu = pd_cpus[j]
        u = cpu_util_next(cpu, task_cpu, dst_cpu, util_avg, util_est, task_util, task_ue, cap_orig)
        work[1] += 1
        e = _energy_util(extra, cpu, u, scale)
        sum_util += e
        f = _freq_util(extra, cpu, u, scale, cpu == dst_cpu) if freq_max else e
        if f > max_util:
            max_util = f
    work[0] += 1
    return em_cpu_energy(pd_info, em_states, em_mode, pd, max_util, sum_util, scale)


@njit(cache=True)
def compute_energy_v50(pd_info, pd_cpus, em_states, em_mode, task_cpu, dst_cpu, util_avg, util_est,
                       task_util, task_ue, cap_orig, work, extra=None):
    """v5.0 ``compute_energy(p, dst_cpu, head)``: system energy, every perf domain. v5.0 - v5.2 take
    the OPP from ENERGY_UTIL (``schedutil_energy_util``); v5.3 (af24bde8df20, ledger uclamp-v5.3:
    ``extra``'s ``X_UC_ON`` row set) from FREQUENCY_UTIL with the clamps (``schedutil_cpu_util(...,
    FREQUENCY_UTIL, cpu == dst_cpu ? p : NULL)``), as v5.4's per-domain form does."""
    freq = extra is not None and extra[X_UC_ON, 0] != 0
    energy = 0
    for pd in range(pd_info.shape[0]):
        energy += _pd_energy_v5(pd_info, pd_cpus, em_states, em_mode, pd, task_cpu, dst_cpu, util_avg,
                                util_est, task_util, task_ue, cap_orig, work, extra, freq)
    return energy


@njit(cache=True)
def _feec_system(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                 task_ue, prev_cpu, allowed, work, energies, extra, prev_first, margin_shift):
    """The system-energy ``find_energy_efficient_cpu()`` of the RFC v2 and v5.0 (``energies`` gets
    (prev, best, 0)): in each perf domain the allowed CPU the task fits (1280/1024 margin) with the
    most spare capacity is costed with the energy of every domain, and the best is taken when it
    saves more than ``prev_energy >> margin_shift``.

    ``prev_first``: the RFC v2 costs prev first whenever the task may run there, without a fit test,
    and leaves it out of the max-spare race; v5.0 costs prev only where the fit test passes, in its
    domain's scan."""
    best_cpu = prev_cpu
    prev_energy = NO_ENERGY
    if prev_first and allowed[prev_cpu]:
        prev_energy = compute_energy_v50(pd_info, pd_cpus, em_states, em_mode, prev_cpu, prev_cpu, util_avg,
                                         util_est, task_util, task_ue, cap_orig, work, extra)
    best_energy = prev_energy
    for pd in range(pd_info.shape[0]):
        max_spare = 0
        msc = -1
        for j in range(pd_info[pd, PD_CPU_START], pd_info[pd, PD_CPU_END]):
            cpu = pd_cpus[j]
            if not allowed[cpu] or (prev_first and cpu == prev_cpu):
                continue
            util = cpu_util_next(cpu, prev_cpu, cpu, util_avg, util_est, task_util, task_ue, cap_orig)
            work[1] += 1
            cap = cap_of[cpu]
            if cap * 1024 < util * 1280:
                continue
            if cpu == prev_cpu:
                prev_energy = compute_energy_v50(pd_info, pd_cpus, em_states, em_mode, prev_cpu, prev_cpu,
                                                 util_avg, util_est, task_util, task_ue, cap_orig, work, extra)
                if prev_energy < best_energy:
                    best_energy = prev_energy
                continue
            spare = cap - util
            if spare > max_spare:
                max_spare = spare
                msc = cpu
        if msc >= 0:
            e = compute_energy_v50(pd_info, pd_cpus, em_states, em_mode, prev_cpu, msc, util_avg, util_est,
                                   task_util, task_ue, cap_orig, work, extra)
            if e < best_energy:
                best_energy = e
                best_cpu = msc
    energies[0] = prev_energy
    energies[1] = best_energy
    energies[2] = 0
    if prev_energy == NO_ENERGY:
        return best_cpu
    if (prev_energy - best_energy) > (prev_energy >> margin_shift):
        return best_cpu
    return prev_cpu


@njit(cache=True)
def feec_v50(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
             task_ue, prev_cpu, allowed, work, energies, extra=None):
    """v5.0 ``find_energy_efficient_cpu()``; ``energies`` gets (prev, best, 0): prev costed where the
    task fits it, the best kept when it saves more than 1/16 (``>> 4``, 6 %) of prev's energy."""
    return _feec_system(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                        task_ue, prev_cpu, allowed, work, energies, extra, False, 4)


@njit(cache=True)
def feec_rfc2(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
              task_ue, prev_cpu, allowed, work, energies, extra=None):
    """EAS RFC v2 (Perret/Eggemann, LKML 6 Apr 2018, on tip/sched/core 4.16-rc6) ``find_energy_efficient_cpu()``;
    ``energies`` gets (prev, best, 0).

    Candidate rule: prev_cpu is costed first whenever the task may run there (no fit test: v2's
    "Avoid prev_cpu if not allowed" is the only condition), then in each frequency domain the CPU
    other than prev with the most spare capacity among those the task fits with the 1280/1024
    margin. Energies are system-wide (every frequency domain, as v5.0). Migration margin: leave
    prev only when the best saves more than ``prev_energy >> 6`` (the posting's "1.5 %"; v3 and
    the merged v5.0 use ``>> 4``, 6 %)."""
    return _feec_system(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                        task_ue, prev_cpu, allowed, work, energies, extra, True, 6)


@njit(cache=True, inline="always")
def _ult(a, b):
    """``a < b`` of two ``unsigned long`` held in int64 bits."""
    return (a ^ SIGN_BIT) < (b ^ SIGN_BIT)


@njit(cache=True, inline="always")
def _lsr4(a):
    """``a >> 4`` of an ``unsigned long`` held in int64 bits (logical shift)."""
    return (a >> 4) & 0x0FFFFFFFFFFFFFFF


@njit(cache=True, inline="always")
def _store_delta(v):
    """An ``unsigned long`` delta for the ``energies`` output: ULONG_MAX -> NO_ENERGY, else its bits
    as a signed value (a wrapped negative delta shows as negative)."""
    return NO_ENERGY if v == ULONG_MAX else v


@njit(cache=True, inline="always")
def _store_energies(energies, prev_delta, best_delta, base_energy):
    """The ``energies`` output (prev_delta, best_delta, base) of the v5.4 - v5.19 forms."""
    energies[0] = _store_delta(prev_delta)
    energies[1] = _store_delta(best_delta)
    energies[2] = base_energy


@model_inline
def feec_v54(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
             task_ue, prev_cpu, allowed, work, energies, extra=None):
    """v5.4 (eb92692b2544) ``find_energy_efficient_cpu()``; ``energies`` gets (prev_delta, best_delta, base).

    Ledger eas-v5.4: the deltas are ``unsigned long`` (a negative delta wraps to a huge value,
    so it never beats a computed one), and the max-spare CPU is not re-costed when it is
    prev (4892f51ad54d).
    """
    prev_delta = ULONG_MAX
    best_delta = ULONG_MAX
    base_energy = 0
    best_cpu = prev_cpu
    for pd in range(pd_info.shape[0]):
        base_pd = _pd_energy_v5(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, -1, util_avg, util_est,
                                task_util, task_ue, cap_orig, work, extra)
        base_energy += base_pd
        max_spare = 0
        msc = -1
        for j in range(pd_info[pd, PD_CPU_START], pd_info[pd, PD_CPU_END]):
            cpu = pd_cpus[j]
            if not allowed[cpu]:
                continue
            util = cpu_util_next(cpu, prev_cpu, cpu, util_avg, util_est, task_util, task_ue, cap_orig)
            work[1] += 1
            cap = cap_of[cpu]
            if not uclamp_fits(extra, cpu, util, cap):
                continue
            if cpu == prev_cpu:
                prev_delta = _pd_energy_v5(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, prev_cpu,
                                           util_avg, util_est, task_util, task_ue, cap_orig, work, extra) - base_pd
                if _ult(prev_delta, best_delta):
                    best_delta = prev_delta
            spare = cap - util
            if spare > max_spare:
                max_spare = spare
                msc = cpu
        if msc >= 0 and msc != prev_cpu:
            cur = _pd_energy_v5(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, msc, util_avg, util_est,
                                task_util, task_ue, cap_orig, work, extra) - base_pd
            if _ult(cur, best_delta):
                best_delta = cur
                best_cpu = msc
    _store_energies(energies, prev_delta, best_delta, base_energy)
    if prev_delta == ULONG_MAX:
        return best_cpu
    if _ult(_lsr4(prev_delta + base_energy), prev_delta - best_delta):
        return best_cpu
    return prev_cpu


@njit(cache=True, inline="always")
def _pd_energy_v514(pd_info, pd_cpus, em_states, em_mode, pd, task_cpu, dst_cpu, util_avg, util_est,
                    task_util, task_ue, cap_orig, work, extra=None):
    """v5.14 - v5.19 ``compute_energy(p, dst_cpu, pd)`` (0372e1cf70c2): the destination's busy
    time is ``cpu_util_next(cpu, p, -1) + task_util_est(p)``, its frequency util
    ``cpu_util_next(cpu, p, dst_cpu)`` (CFS only, no uclamp)."""
    scale = pd_info[pd, PD_SCALE_CPU]
    max_util = 0
    sum_util = 0
    tue = task_util if task_util > task_ue else task_ue
    for j in range(pd_info[pd, PD_CPU_START], pd_info[pd, PD_CPU_END]):
        cpu = pd_cpus[j]
        u_freq = cpu_util_next(cpu, task_cpu, dst_cpu, util_avg, util_est, task_util, task_ue, cap_orig)
        work[1] += 1
        u_run = u_freq
        if cpu == dst_cpu:
            u_run = cpu_util_next(cpu, task_cpu, -1, util_avg, util_est, task_util, task_ue, cap_orig) + tue
            work[1] += 1
        u_run = _energy_util(extra, cpu, u_run, scale)
        u_freq = _freq_util(extra, cpu, u_freq, scale, cpu == dst_cpu)
        sum_util += u_run
        if u_freq > max_util:
            max_util = u_freq
    work[0] += 1
    # allowed_cpu_cap: capacity minus thermal pressure of the domain's first CPU (ledger em-v5.14)
    cap = _thermal_cap(extra, pd_cpus[pd_info[pd, PD_CPU_START]], scale)
    return em_cpu_energy(pd_info, em_states, em_mode, pd, max_util, sum_util, cap)


@njit(cache=True)
def feec_v514(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
              task_ue, prev_cpu, allowed, work, energies, extra=None):
    """v5.14 - v5.19 ``find_energy_efficient_cpu()`` (ledger eas-v5.14: 8d4c97c105ca, 619e090c8e40).

    The base energy is computed only for perf domains with a candidate; prev is kept out of
    the max-spare race; a delta below the domain's base returns prev at once. Margin 1/16 of
    (prev delta + base) as in v5.4. ``energies`` gets (prev_delta, best_delta, base).
    """
    prev_delta = ULONG_MAX
    best_delta = ULONG_MAX
    base_energy = 0
    best_cpu = prev_cpu
    for pd in range(pd_info.shape[0]):
        max_spare = 0
        msc = -1
        compute_prev = False
        for j in range(pd_info[pd, PD_CPU_START], pd_info[pd, PD_CPU_END]):
            cpu = pd_cpus[j]
            if not allowed[cpu]:
                continue
            util = cpu_util_next(cpu, prev_cpu, cpu, util_avg, util_est, task_util, task_ue, cap_orig)
            work[1] += 1
            cap = cap_of[cpu]
            spare = cap - util if cap > util else 0        # lsub_positive
            if not uclamp_fits(extra, cpu, util, cap):
                continue
            if cpu == prev_cpu:
                compute_prev = True
            elif spare > max_spare:
                max_spare = spare
                msc = cpu
        if msc < 0 and not compute_prev:
            continue
        base_pd = _pd_energy_v514(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, -1, util_avg, util_est,
                                  task_util, task_ue, cap_orig, work, extra)
        base_energy += base_pd
        # prev (k = 0) then the max-spare CPU (k = 1): the same costing, early return and min()
        for k in range(2):
            dst = prev_cpu if k == 0 else msc
            if (k == 0 and not compute_prev) or dst < 0:
                continue
            e = _pd_energy_v514(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, dst, util_avg, util_est,
                                task_util, task_ue, cap_orig, work, extra)
            if e < base_pd:            # "goto unlock": target stays prev
                _store_energies(energies, prev_delta, best_delta, base_energy)
                return prev_cpu
            delta = e - base_pd
            if k == 0:
                prev_delta = delta
            if _ult(delta, best_delta):
                best_delta = delta
                if k == 1:             # best_delta = min(best_delta, prev_delta) keeps best_energy_cpu
                    best_cpu = dst
    _store_energies(energies, prev_delta, best_delta, base_energy)
    if prev_delta == ULONG_MAX or _ult(_lsr4(prev_delta + base_energy), prev_delta - best_delta):
        return best_cpu
    return prev_cpu


@njit(cache=True)
def _compute_energy_v60(pd_info, pd_cpus, em_states, em_mode, pd, task_cpu, dst_cpu, util_avg, util_est,
                        task_util, task_ue, cap_orig, pd_busy, task_busy, pd_cap, cpu_cap, work, extra=None):
    """6.x ``compute_energy()`` with ``eenv_pd_max_util()`` (no uclamp): ``cpu_util(cpu, p, dst, 1)``
    (runnable boosting from v6.5 when ``extra`` has runnable_avg), FREQUENCY_UTIL (v6.8+: the
    ``sugov_effective_cpu_perf`` headroom), capped at the thermal-capped ``cpu_cap``."""
    scale = pd_info[pd, PD_SCALE_CPU]
    max_util = 0
    for j in range(pd_info[pd, PD_CPU_START], pd_info[pd, PD_CPU_END]):
        cpu = pd_cpus[j]
        u = cpu_util_boost(extra, cpu, task_cpu, dst_cpu, util_avg, util_est, task_util, task_ue, cap_orig)
        work[1] += 1
        if em_mode >= 2:        # v6.8+: sugov_effective_cpu_perf() adds the headroom here
            u = _perf_util_v68(extra, cpu, u, scale, cpu == dst_cpu)
        else:
            u = _freq_util(extra, cpu, u, scale, cpu == dst_cpu)
        if u > max_util:
            max_util = u
    if max_util > cpu_cap:
        max_util = cpu_cap
    busy = pd_busy
    if dst_cpu >= 0:
        busy = pd_busy + task_busy
        if busy > pd_cap:
            busy = pd_cap
    work[0] += 1
    return em_cpu_energy(pd_info, em_states, em_mode, pd, max_util, busy, cpu_cap)


@njit(cache=True)
def feec_v60(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
             task_ue, prev_cpu, allowed, work, energies, spare_filter=True, extra=None):
    """6.x ``find_energy_efficient_cpu()`` (b812fc9768e0, 3e8c6c9aac42; current loop without uclamp).

    ``spare_filter``: v6.2+ costs the max-spare CPU only when its spare capacity exceeds prev's
    (ledger eas-v6.2); v6.0/v6.1 always cost it (ledger eas-v6.0).
    """
    target = prev_cpu
    prev_delta = NO_ENERGY
    best_delta = NO_ENERGY
    prev_fits = -1
    best_fits = -1
    best_cpu = prev_cpu
    base_energy = 0
    uc = 0 if extra is None else extra[X_UC_ON, 0]
    # with clamps, before v6.7 (6b00a4014765, ledger uclamp-v6.7) a spare capacity of 0 means "no
    # candidate" (unsigned, initialised to 0); without clamps a fitting CPU always has spare > 0
    none = 0 if (uc >= UC_V5_6 and uc < UC_V6_7) else -1
    best_thermal = 0          # v6.3+ (ledger uclamp-v6.3): best_thermal_cap / prev_thermal_cap
    prev_thermal = 0
    task_busy = task_util if task_util > task_ue else task_ue     # eenv_task_busy_time()
    if extra is not None:
        pmax = cap_orig[prev_cpu]
        irq = extra[X_IRQ, prev_cpu]
        task_busy = pmax if irq >= pmax else task_busy * (pmax - irq) // pmax    # scale_irq_capacity
    for pd in range(pd_info.shape[0]):
        c0 = pd_info[pd, PD_CPU_START]
        c1 = pd_info[pd, PD_CPU_END]
        scale = pd_info[pd, PD_SCALE_CPU]
        cpu_cap = _thermal_cap(extra, pd_cpus[c0], scale)          # cpu_thermal_cap
        pd_cap = cpu_cap * (c1 - c0)
        prev_spare = none
        max_spare = none
        msc = -1
        max_fits = -1
        for j in range(c0, c1):
            cpu = pd_cpus[j]
            if not allowed[cpu]:
                continue
            util = cpu_util_next(cpu, prev_cpu, cpu, util_avg, util_est, task_util, task_ue, cap_orig)
            work[1] += 1
            cap = cap_of[cpu]
            if uc >= UC_V6_2:
                # v6.2 only: the capacity inversion, from thermal_load_avg
                inv = capacity_inverted_pd(cpu, pd, pd_info, pd_cpus, cap_orig, extra[X_THERMAL_AVG]) \
                    if uc == UC_V6_2 else 0
                fits = fits_v62(extra, cpu, util, cap, cap_orig[cpu], inv)
            else:
                fits = 1 if uclamp_fits(extra, cpu, util, cap) else 0
            if fits == 0:
                continue
            spare = cap - util if cap > util else 0
            if cpu == prev_cpu:
                prev_spare = spare
                prev_fits = fits
            elif uc == UC_V5_6 or uc == UC_V6_2:        # v6.0 - v6.2 with clamps: spare capacity only
                if spare > max_spare:
                    max_spare = spare
                    msc = cpu
                    max_fits = fits
            elif fits > max_fits or (fits == max_fits and spare > max_spare):
                max_spare = spare
                msc = cpu
                max_fits = fits
        if msc < 0 and prev_spare <= none:
            continue
        pd_busy = 0
        for j in range(c0, c1):
            cpu = pd_cpus[j]
            u = cpu_util_next(cpu, prev_cpu, -1, util_avg, util_est, task_util, task_ue, cap_orig)
            work[1] += 1
            pd_busy += _energy_util(extra, cpu, u, scale)
        if pd_busy > pd_cap:
            pd_busy = pd_cap
        base = _compute_energy_v60(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, -1, util_avg, util_est,
                                   task_util, task_ue, cap_orig, pd_busy, task_busy, pd_cap, cpu_cap, work, extra)
        base_energy += base
        if prev_spare > none:
            e = _compute_energy_v60(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, prev_cpu, util_avg,
                                    util_est, task_util, task_ue, cap_orig, pd_busy, task_busy, pd_cap, cpu_cap,
                                    work, extra)
            if e < base:
                energies[0] = prev_delta
                energies[1] = best_delta
                energies[2] = base_energy
                return target
            prev_delta = e - base
            prev_thermal = cpu_cap
            if prev_delta < best_delta:
                best_delta = prev_delta
        if msc >= 0 and (max_spare > prev_spare or not spare_filter):
            if max_fits < best_fits:
                continue
            if uc >= UC_V6_3 and max_fits < 0 and cpu_cap <= best_thermal:
                continue
            e = _compute_energy_v60(pd_info, pd_cpus, em_states, em_mode, pd, prev_cpu, msc, util_avg, util_est,
                                    task_util, task_ue, cap_orig, pd_busy, task_busy, pd_cap, cpu_cap, work, extra)
            if e < base:
                energies[0] = prev_delta
                energies[1] = best_delta
                energies[2] = base_energy
                return target
            cur = e - base
            if max_fits > 0 and best_fits > 0 and cur >= best_delta:
                continue
            best_delta = cur
            best_cpu = msc
            best_fits = max_fits
            best_thermal = cpu_cap
    energies[0] = prev_delta
    energies[1] = best_delta
    energies[2] = base_energy
    if best_fits > prev_fits or (best_fits > 0 and best_delta < prev_delta):
        target = best_cpu
    elif uc >= UC_V6_3 and best_fits < 0 and best_thermal > prev_thermal:
        target = best_cpu
    return target


@model_inline
def feec(era, pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
         task_ue, prev_cpu, allowed, overutilized, work, energies, extra=None):
    """One wake-up. Returns the CPU (-1: EAS not used because the root domain is overutilized).

    ``extra`` (optional int64[X_SIZE, n_cpus]): RT/DL/IRQ utilization, thermal pressure and
    runnable_avg per CPU (``X_*`` rows); None is CFS only.

    ``work`` (int64[2]) accumulates (perf-domain energy evaluations, CPU-util computations);
    ``energies`` (int64[3]) receives the compared energies (NO_ENERGY when not computed).
    """
    energies[0] = NO_ENERGY
    energies[1] = NO_ENERGY
    energies[2] = 0
    if overutilized:
        return -1
    if feec_exits_early(extra, task_util, task_ue):
        return prev_cpu
    if era == EAS_V5_0:
        return feec_v50(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                        task_ue, prev_cpu, allowed, work, energies, extra)
    if era == EAS_RFC_V2:
        return feec_rfc2(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                         task_ue, prev_cpu, allowed, work, energies, extra)
    if era == EAS_V5_4:
        return feec_v54(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                        task_ue, prev_cpu, allowed, work, energies, extra)
    if era == EAS_V5_14:
        return feec_v514(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                         task_ue, prev_cpu, allowed, work, energies, extra)
    return feec_v60(pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
                    task_ue, prev_cpu, allowed, work, energies, era != EAS_V6_0, extra)


@njit(cache=True)
def feec_batch(era, pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est, task_util,
               task_ue, prev_cpu, allowed, overutilized, out_cpu, out_energy, out_work, extra=None):
    """Many wake-ups: row ``i`` of the per-CPU arrays is wake-up ``i``. Fills the ``out_*`` arrays.

    ``extra``: optional int64[n, X_SIZE, n_cpus]."""
    for i in range(util_avg.shape[0]):
        out_work[i, 0] = 0
        out_work[i, 1] = 0
        if extra is None:
            out_cpu[i] = feec(era, pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg[i],
                              util_est[i], task_util[i], task_ue[i], prev_cpu[i], allowed[i], overutilized[i],
                              out_work[i], out_energy[i])
        else:
            out_cpu[i] = feec(era, pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg[i],
                              util_est[i], task_util[i], task_ue[i], prev_cpu[i], allowed[i], overutilized[i],
                              out_work[i], out_energy[i], extra[i])
    return out_cpu
