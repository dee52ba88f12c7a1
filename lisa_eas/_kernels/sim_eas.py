"""Energy-aware wake-up placement of the simulator (numba), on the flat state arrays.

``find_energy_efficient_cpu`` as the ``eas`` kernels compute it (``eas.feec`` and its
v5.0 / v5.4 / v6.0 forms, ``eas.cpu_util_next``, ``eas._pd_energy_v5``,
``eas.compute_energy_v50``, ``eas._compute_energy_v60``, ``eas.em_cpu_energy``; all from
``kernel/sched/fair.c`` and ``include/linux/energy_model.h``), with the same arithmetic, but
reading its inputs in place instead of through array views (a view costs ~30 ns and a
wake-up needs a dozen), and computing each CPU's ``cpu_util_next`` once per wake-up for
the task elsewhere and once for the task on it (``util_next``): the CPUs' cfs util_avg (state slot 6), util_est.enqueued (CPU
table), original capacity (static slot 1) and ``capacity_of`` (rt util_avg, slot 7), the
task's affinity row (static slot 12) and the EM arrays (static slots 13, 14, 15). The work
counters (per decision: the perf-domain evaluations and CPU-util computations of that one
``find_energy_efficient_cpu`` call, the kernels' ``work`` row) and the compared energies go to the scratch rows
``SC_WORK`` / ``SC_ENERGY`` (state slot 13). ``tests/test_sim_reference.py`` and the golden runs check the
decisions and the logged inputs against the kernel form.
"""
from __future__ import annotations

from numba import njit

from .eas import (EAS_V5_0, EAS_V5_4, NO_ENERGY, PD_CPU_END, PD_CPU_START, PD_SCALE_CPU, PD_SKIP_INEFF,
                  PD_STATE_END, PD_STATE_START, ST_COST, ST_FREQ, ST_INEFF, ST_PERF)
from .pelt import SA_UTIL_AVG
from .sim_models import (M_EAS_ERA, M_EM_MODE, SC_ENERGY, SC_UE, SC_UTIL, SC_WORK, capacity_of)
from .sim_sched import task_util_est
from .sim_state import (C_NFIELDS, C_UE_SUM, D_CHOSEN, D_HEAD, D_IN_CPUS, D_IN_OVERUTIL, D_IN_TASK_UTIL,
                        D_IN_TASK_UTIL_EST, D_PREV, D_TASK, D_TASK_UTIL, D_TIME, G_OVERUTIL, N_EAS,
                        T_MASK, T_NFIELDS)


@njit(cache=True, _nrt=False, forceinline=True)
def pd_info(pd, col, P):
    return P[P[52] + pd * P[54] + col]


@njit(cache=True, _nrt=False, forceinline=True)
def em_state(i, col, P):
    return P[P[60] + i * P[62] + col]


@njit(cache=True, _nrt=False, forceinline=True)
def util_cap(util, est, cap):
    """The tail of ``cpu_util_next``: ``min(max(util, est), capacity)``."""
    if est > util:
        util = est
    return util if util < cap else cap


@njit(cache=True, _nrt=False, forceinline=True)
def util_next(cpu, dst_cpu, S):
    """``cpu_util_next(cpu, p, dst_cpu)`` of the waking task from the per-wake-up table that
    ``place_eas`` fills: it depends on ``dst_cpu`` only through ``dst_cpu == cpu`` (scratch row
    ``SC_UTIL``: ``p`` elsewhere, ``SC_UE``: ``p`` on ``cpu``)."""
    if dst_cpu == cpu:
        return S[S[52] + SC_UE * S[54] + cpu]
    return S[S[52] + SC_UTIL * S[54] + cpu]


@njit(cache=True, _nrt=False, inline='always')
def em_cpu_energy(pd, max_util, sum_util, allowed_cap, em_mode, P):
    """``eas.em_cpu_energy`` (``em_cpu_energy(pd, max_util, sum_util, allowed_cpu_cap)``)."""
    if sum_util == 0:
        return 0
    scale_cpu = pd_info(pd, PD_SCALE_CPU, P)
    s0 = pd_info(pd, PD_STATE_START, P)
    s1 = pd_info(pd, PD_STATE_END, P)
    fmax = em_state(s1 - 1, ST_FREQ, P)
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
    skip = pd_info(pd, PD_SKIP_INEFF, P)
    lo = s0
    hi = s1
    while lo < hi:
        mid = (lo + hi) >> 1
        if em_state(mid, key, P) >= target:
            hi = mid
        else:
            lo = mid + 1
    idx = s1 - 1
    for i in range(lo, s1):
        if skip and em_state(i, ST_INEFF, P):
            continue
        idx = i
        break
    if em_mode == 3:
        return em_state(idx, ST_COST, P) * sum_util
    return em_state(idx, ST_COST, P) * sum_util // scale_cpu


@njit(cache=True, _nrt=False, inline='always')
def pd_energy_v5(pd, task_cpu, dst_cpu, task_util, task_ue, em_mode, ow, S, P):
    """``eas._pd_energy_v5``: one perf domain's energy (v5.x ``compute_energy`` term)."""
    scale = pd_info(pd, PD_SCALE_CPU, P)
    max_util = 0
    sum_util = 0
    for j in range(pd_info(pd, PD_CPU_START, P), pd_info(pd, PD_CPU_END, P)):
        u = util_next(P[P[56] + j], dst_cpu, S)
        S[ow + 1] += 1
        if u > scale:
            u = scale
        sum_util += u
        if u > max_util:
            max_util = u
    S[ow] += 1
    return em_cpu_energy(pd, max_util, sum_util, scale, em_mode, P)


@njit(cache=True, _nrt=False)
def compute_energy_v50(task_cpu, dst_cpu, task_util, task_ue, em_mode, ow, S, P):
    """``eas.compute_energy_v50``: system energy over every perf domain."""
    energy = 0
    for pd in range(P[53]):
        energy += pd_energy_v5(pd, task_cpu, dst_cpu, task_util, task_ue, em_mode, ow, S, P)
    return energy


@njit(cache=True, _nrt=False, inline='always')
def feec_v50(task_util, task_ue, prev_cpu, om, em_mode, ow, oe, S, P):
    """``eas.feec_v50``; ``om``: offset of the task's affinity row."""
    prev_energy = NO_ENERGY
    best_energy = NO_ENERGY
    best_cpu = prev_cpu
    for pd in range(P[53]):
        max_spare = 0
        msc = -1
        for j in range(pd_info(pd, PD_CPU_START, P), pd_info(pd, PD_CPU_END, P)):
            cpu = P[P[56] + j]
            if not P[om + cpu]:
                continue
            util = util_next(cpu, cpu, S)
            S[ow + 1] += 1
            cap = capacity_of(cpu, S, P)
            if cap * 1024 < util * 1280:
                continue
            if cpu == prev_cpu:
                prev_energy = compute_energy_v50(prev_cpu, prev_cpu, task_util, task_ue, em_mode, ow, S, P)
                if prev_energy < best_energy:
                    best_energy = prev_energy
                continue
            spare = cap - util
            if spare > max_spare:
                max_spare = spare
                msc = cpu
        if msc >= 0:
            e = compute_energy_v50(prev_cpu, msc, task_util, task_ue, em_mode, ow, S, P)
            if e < best_energy:
                best_energy = e
                best_cpu = msc
    S[oe] = prev_energy
    S[oe + 1] = best_energy
    S[oe + 2] = 0
    if prev_energy == NO_ENERGY:
        return best_cpu
    if (prev_energy - best_energy) > (prev_energy >> 4):
        return best_cpu
    return prev_cpu


@njit(cache=True, _nrt=False, inline='always')
def feec_v54(task_util, task_ue, prev_cpu, om, em_mode, ow, oe, S, P):
    """``eas.feec_v54`` (v5.4, eb92692b2544)."""
    prev_delta = NO_ENERGY
    best_delta = NO_ENERGY
    base_energy = 0
    best_cpu = prev_cpu
    for pd in range(P[53]):
        base_pd = pd_energy_v5(pd, prev_cpu, -1, task_util, task_ue, em_mode, ow, S, P)
        base_energy += base_pd
        max_spare = 0
        msc = -1
        for j in range(pd_info(pd, PD_CPU_START, P), pd_info(pd, PD_CPU_END, P)):
            cpu = P[P[56] + j]
            if not P[om + cpu]:
                continue
            util = util_next(cpu, cpu, S)
            S[ow + 1] += 1
            cap = capacity_of(cpu, S, P)
            if not util * 1280 < cap * 1024:          # fits_capacity
                continue
            if cpu == prev_cpu:
                prev_delta = pd_energy_v5(pd, prev_cpu, prev_cpu, task_util, task_ue, em_mode, ow, S, P) - base_pd
                if prev_delta < best_delta:
                    best_delta = prev_delta
            spare = cap - util
            if spare > max_spare:
                max_spare = spare
                msc = cpu
        if msc >= 0:
            cur = pd_energy_v5(pd, prev_cpu, msc, task_util, task_ue, em_mode, ow, S, P) - base_pd
            if cur < best_delta:
                best_delta = cur
                best_cpu = msc
    S[oe] = prev_delta
    S[oe + 1] = best_delta
    S[oe + 2] = base_energy
    if prev_delta == NO_ENERGY:
        return best_cpu
    if (prev_delta - best_delta) > ((prev_delta + base_energy) >> 4):
        return best_cpu
    return prev_cpu


@njit(cache=True, _nrt=False)
def compute_energy_v60(pd, task_cpu, dst_cpu, task_util, task_ue, pd_busy, task_busy, pd_cap, cpu_cap, em_mode,
                       ow, S, P):
    """``eas._compute_energy_v60`` (6.x ``compute_energy`` with ``eenv_pd_max_util``)."""
    scale = pd_info(pd, PD_SCALE_CPU, P)
    max_util = 0
    for j in range(pd_info(pd, PD_CPU_START, P), pd_info(pd, PD_CPU_END, P)):
        u = util_next(P[P[56] + j], dst_cpu, S)
        S[ow + 1] += 1
        if u > scale:
            u = scale
        if em_mode >= 2:
            u = u + (u >> 2)
            if u > scale:
                u = scale
        if u > max_util:
            max_util = u
    if max_util > cpu_cap:
        max_util = cpu_cap
    busy = pd_busy
    if dst_cpu >= 0:
        busy = pd_busy + task_busy
        if busy > pd_cap:
            busy = pd_cap
    S[ow] += 1
    return em_cpu_energy(pd, max_util, busy, cpu_cap, em_mode, P)


@njit(cache=True, _nrt=False, inline='always')
def feec_v60(task_util, task_ue, prev_cpu, om, em_mode, ow, oe, S, P):
    """``eas.feec_v60`` (6.x, no uclamp)."""
    target = prev_cpu
    prev_delta = NO_ENERGY
    best_delta = NO_ENERGY
    prev_fits = -1
    best_fits = -1
    best_cpu = prev_cpu
    base_energy = 0
    task_busy = task_util if task_util > task_ue else task_ue
    for pd in range(P[53]):
        c0 = pd_info(pd, PD_CPU_START, P)
        c1 = pd_info(pd, PD_CPU_END, P)
        cpu_cap = pd_info(pd, PD_SCALE_CPU, P)
        pd_cap = cpu_cap * (c1 - c0)
        prev_spare = -1
        max_spare = -1
        msc = -1
        max_fits = -1
        for j in range(c0, c1):
            cpu = P[P[56] + j]
            if not P[om + cpu]:
                continue
            util = util_next(cpu, cpu, S)
            S[ow + 1] += 1
            cap = capacity_of(cpu, S, P)
            fits = 1 if util * 1280 < cap * 1024 else 0
            if not fits:
                continue
            spare = cap - util if cap > util else 0
            if cpu == prev_cpu:
                prev_spare = spare
                prev_fits = fits
            elif fits > max_fits or (fits == max_fits and spare > max_spare):
                max_spare = spare
                msc = cpu
                max_fits = fits
        if msc < 0 and prev_spare < 0:
            continue
        pd_busy = 0
        for j in range(c0, c1):
            u = util_next(P[P[56] + j], -1, S)
            S[ow + 1] += 1
            if u > cpu_cap:
                u = cpu_cap
            pd_busy += u
        if pd_busy > pd_cap:
            pd_busy = pd_cap
        base = compute_energy_v60(pd, prev_cpu, -1, task_util, task_ue, pd_busy, task_busy, pd_cap, cpu_cap, em_mode,
                                  ow, S, P)
        base_energy += base
        if prev_spare > -1:
            e = compute_energy_v60(pd, prev_cpu, prev_cpu, task_util, task_ue, pd_busy, task_busy, pd_cap, cpu_cap,
                                   em_mode, ow, S, P)
            if e < base:
                S[oe] = prev_delta
                S[oe + 1] = best_delta
                S[oe + 2] = base_energy
                return target
            prev_delta = e - base
            if prev_delta < best_delta:
                best_delta = prev_delta
        if msc >= 0 and max_spare > prev_spare:
            if max_fits < best_fits:
                continue
            e = compute_energy_v60(pd, prev_cpu, msc, task_util, task_ue, pd_busy, task_busy, pd_cap, cpu_cap,
                                   em_mode, ow, S, P)
            if e < base:
                S[oe] = prev_delta
                S[oe + 1] = best_delta
                S[oe + 2] = base_energy
                return target
            cur = e - base
            if max_fits > 0 and best_fits > 0 and cur >= best_delta:
                continue
            best_delta = cur
            best_cpu = msc
            best_fits = max_fits
    S[oe] = prev_delta
    S[oe + 1] = best_delta
    S[oe + 2] = base_energy
    if best_fits > prev_fits or (best_fits > 0 and best_delta < prev_delta):
        target = best_cpu
    return target


@njit(cache=True, _nrt=False, inline='always')
def place_eas(p, prev, now, S, P, O):
    """``find_energy_efficient_cpu`` (``eas.feec``) for a waking CFS task (-1: fall back to the idle
    search); decisions with costed energies are logged with their inputs (EAS slot of ``O``)."""
    osc = S[52]
    ow = osc + SC_WORK * S[54]
    oe = osc + SC_ENERGY * S[54]
    S[oe] = NO_ENERGY
    S[oe + 1] = NO_ENERGY
    S[oe + 2] = 0
    S[ow] = 0                     # the work counters are per decision (eas.feec's ``work`` row)
    S[ow + 1] = 0
    tu = S[S[20] + (p) * S[22] + SA_UTIL_AVG]
    tue = task_util_est(p, S)
    om = P[48] + S[S[8] + (p) * T_NFIELDS + T_MASK] * P[50]
    ou = S[S[0] + G_OVERUTIL] != 0
    if ou:
        return -1
    if tu == 0 and tue == 0:      # task_util_est(p) == 0: stay on prev
        return prev
    o0 = osc + SC_UTIL * S[54]
    o1 = osc + SC_UE * S[54]
    for c in range(P[1]):
        # cpu_util_next(c, p, -1) and cpu_util_next(c, p, c), each CPU's inputs read once
        util = S[S[24] + c * S[26] + SA_UTIL_AVG]
        est = S[S[12] + c * C_NFIELDS + C_UE_SUM]
        cap = P[P[4] + c]
        if c == prev:
            u = util - tu if util > tu else 0
            S[o1 + c] = util_cap(util, est + tue, cap)
        else:
            u = util
            S[o1 + c] = util_cap(util + tu, est + tue, cap)
        S[o0 + c] = util_cap(u, est, cap)
    era = P[P[76] + M_EAS_ERA]
    em_mode = P[P[76] + M_EM_MODE]
    if era == EAS_V5_0:
        cpu = feec_v50(tu, tue, prev, om, em_mode, ow, oe, S, P)
    elif era == EAS_V5_4:
        cpu = feec_v54(tu, tue, prev, om, em_mode, ow, oe, S, P)
    else:
        cpu = feec_v60(tu, tue, prev, om, em_mode, ow, oe, S, P)
    if S[oe + 1] != NO_ENERGY or S[oe] != NO_ENERGY:
        n = P[1]
        k = O[O[12] + N_EAS]
        r = O[8] + k * O[10]
        O[r + D_TIME] = now
        O[r + D_TASK] = p
        O[r + D_PREV] = prev
        O[r + D_CHOSEN] = cpu
        O[r + D_TASK_UTIL] = tu if tu > tue else tue
        for j in range(3):
            O[r + D_HEAD + j] = S[oe + j] if S[oe + j] != NO_ENERGY else -1
        O[r + D_HEAD + 3] = S[ow]
        O[r + D_HEAD + 4] = S[ow + 1]
        O[r + D_IN_TASK_UTIL] = tu
        O[r + D_IN_TASK_UTIL_EST] = tue
        O[r + D_IN_OVERUTIL] = 0
        for c in range(n):
            O[r + D_IN_CPUS + c] = S[S[24] + c * S[26] + SA_UTIL_AVG]
            O[r + D_IN_CPUS + n + c] = S[S[12] + c * C_NFIELDS + C_UE_SUM]
            O[r + D_IN_CPUS + 2 * n + c] = capacity_of(c, S, P)
            O[r + D_IN_CPUS + 3 * n + c] = 1 if P[om + c] else 0
        O[O[12] + N_EAS] = k + 1
    return cpu
