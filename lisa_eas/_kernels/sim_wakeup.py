"""The simulator's wake-up placement outside EAS (numba): ``wake_cap()`` and its slow path
``find_idlest_cpu`` (before v5.7), ``wake_affine``'s target, and ``select_idle_sibling`` with
``recent_used_cpu``, the SIS_UTIL / SIS_PROP scan depth and the asymmetric idle search, each
per era (the era codes are ``sim_models.M_*``). EAS itself is ``sim_eas.place_eas``."""
from __future__ import annotations

from ._jit import sim_helper, sim_kernel, sim_nrt
from .fork import FORM_V4_14, FORM_V5_5, STATE_BUSY, STATE_NONE, find_idlest_cpu
from .pelt import SA_LOAD_AVG, SA_UTIL_AVG
from .sim_capacity import capacity_of, cpu_util, task_uclamp, thermal_avg, thermal_pressure, weighted_cpuload
from .sim_layout import (P_CORE_ID, P_CORE_ID_N, P_CPU_CAP, P_CPU_PD, P_CPU_PD_N, P_LLC_ID, P_LLC_ID_N, P_MASKS,
                         P_MASKS_W, P_MODEL_PARAMS, S_CFS_PELT, S_CFS_PELT_W, S_CONFIG_AT, S_CPUS, S_GLOBALS_AT, S_IDLE_STATS,
                         S_IDLE_STATS_W, S_SCRATCH, S_SCRATCH_W, S_TASKS, S_TASK_PELT, S_TASK_PELT_W)
from .sim_models import (AI_AVG_IDLE, AI_NR_SCAN, AI_SCAN_COST, AI_WAKE_AVG_IDLE, AI_WAKE_STAMP, M_ASYM_MODE,
                         M_DIE_PCT, M_IMBALANCE_PCT, M_MAX_CAP, M_RECENT_ERA, M_SIS_MODE, M_SIS_PROP_ERA, M_SIS_SCAN_COST,
                         M_THERMAL_AVG, M_UCLAMP, M_WAKE_CAP, M_WAKE_CAP_UTIL_AVG, M_WA_ERA, M_WA_LOAD, SC_CAP_OF,
                         SC_ENERGY, SC_IDLE, SC_PD_UE, SC_PD_UTIL, SC_RESULT, SC_UE, SC_UTIL, SC_WORK, WAKE_CAP_FAST,
                         WAKE_SLOW_V5_5)
from .sim_sched import sync_entity_load_avg, task_util_for_placement
from .sim_state import (C_CURR, C_IDLE_STATE, C_NFIELDS, C_NR_CFS, C_NR_RT, C_UE_SUM, G_NOW, G_WAKE_CAP, K_SIS,
                        K_TICK_NS, POLICY_FIFO, SIS_UTIL, T_MASK, T_NFIELDS, T_POLICY, T_RECENT)
from .sis import (ASYM_V5_7, PATH_PREV, PATH_RECENT, PATH_TARGET, select_idle_sibling, select_idle_sibling_asym,
                  sis_prop_nr, sis_util_nr_idle_scan, update_avg, wake_avg_idle_age)
from .wake_affine import WA_THIS, wake_affine


@sim_kernel
def allowed_row(p, S, P):
    """Offset of task ``p``'s row of the affinity masks (static slot 12; P[P_MASKS_W] CPUs wide)."""
    return P[P_MASKS] + S[S[S_TASKS] + (p) * T_NFIELDS + T_MASK] * P[P_MASKS_W]


@sim_kernel
def update_idle_cpu_scan(S, P):
    """SIS_UTIL producer, run at each load-balance pass: ``nr_idle_scan`` per LLC from its sum of util."""
    n = P[P_CPU_PD_N]
    ollc = P[P_LLC_ID]
    osum = S[S_SCRATCH] + SC_UTIL * S[S_SCRATCH_W]       # scratch rows (state slot 13): sum of cpu_util and weight per LLC id
    ow = S[S_SCRATCH] + SC_UE * S[S_SCRATCH_W]
    for c in range(n):
        S[osum + P[ollc + c]] = 0
        S[ow + P[ollc + c]] = 0
    for j in range(n):
        S[osum + P[ollc + j]] += cpu_util(j, S, P)
        S[ow + P[ollc + j]] += 1
    for c in range(n):
        S[S[S_IDLE_STATS] + c * S[S_IDLE_STATS_W] + AI_NR_SCAN] = sis_util_nr_idle_scan(S[osum + P[ollc + c]], S[ow + P[ollc + c]],
                                                                  P[P[P_MODEL_PARAMS] + M_IMBALANCE_PCT])


@sim_helper
def wake_cap(p, this, prev, S, P):
    """``wake_cap(p, cpu, prev_cpu)`` (v4.10 - v5.6 on an asymmetric platform, ``M_WAKE_CAP``): the
    capacities differ by 1/8 or more and the task does not fit ``min(capacity_orig(prev),
    capacity_orig(cpu))`` (20 % margin) with ``task_util_est(p)`` (``task_fits_capacity``, v4.20+;
    the v4.19 tree read: ``task_util(p)``, the util_avg, up to the RFC-era kernels)."""
    if not P[P[P_MODEL_PARAMS] + M_WAKE_CAP]:
        return False
    min_cap = P[P[P_CPU_CAP] + prev]
    if P[P[P_CPU_CAP] + this] < min_cap:
        min_cap = P[P[P_CPU_CAP] + this]
    max_cap = P[P[P_MODEL_PARAMS] + M_MAX_CAP]
    if max_cap - min_cap < (max_cap >> 3):
        return False
    sync_entity_load_avg(p, S, P)       # "bring task utilization in sync with prev_cpu"
    u = task_util_for_placement(p, S)
    if P[P[P_MODEL_PARAMS] + M_WAKE_CAP_UTIL_AVG]:
        u = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_UTIL_AVG]
    return u * 1280 >= min_cap * 1024


@sim_nrt
def wake_slow_path(p, prev, this, S, P):
    """``select_task_rq_fair()``'s slow path at a wake-up (ledger wake_cap-v4.16): with
    SD_BALANCE_WAKE on the SD_ASYM_CPUCAPACITY domain and every domain below it, a wake-up without
    ``want_affine`` (``wake_cap()`` true, or ``this`` outside the task's affinity) walks to the top
    domain of ``this`` and calls ``find_idlest_cpu(sd, p, this, prev, SD_BALANCE_WAKE)``, the one
    ``fork.find_idlest_cpu`` (v4.x or v5.5 form, ``M_WAKE_CAP``). Gathered per CPU: ``capacity_of``,
    ``rq->nr_running`` (CFS + RT), the cfs_rq's runnable_load_avg (``sim_capacity.weighted_cpuload``:
    the queued CFS tasks' load_avg; the v4.x form's ``source_load`` / ``target_load`` at
    ``wake_idx`` 0 and its least-loaded CPU), load_avg, and
    ``cpu_util_wake`` / ``cpu_util_without`` (the task's util_avg off prev, then util_est.enqueued,
    clamped to capacity_orig); an idle CPU's exit latency ranked by its idle state's index (the
    platform lists states shallow to deep); ``rq->idle_stamp`` is not kept: idle CPUs tie, the
    lowest-numbered wins. Counted in ``G_WAKE_CAP``."""
    mp = P[P_MODEL_PARAMS]
    n = P[P_CPU_PD_N]
    sync_entity_load_avg(p, S, P)       # find_idlest_cpu(), not at a fork
    W = S[S_SCRATCH_W]
    ou = S[S_SCRATCH] + SC_UTIL * W        # scratch rows (state slot 13)
    ol = S[S_SCRATCH] + SC_UE * W
    oc = S[S_SCRATCH] + SC_CAP_OF * W
    orl = S[S_SCRATCH] + SC_WORK * W
    onr = S[S_SCRATCH] + SC_ENERGY * W
    ost = S[S_SCRATCH] + SC_PD_UTIL * W
    osp = S[S_SCRATCH] + SC_PD_UE * W
    oCP = S[S_CPUS]
    tu = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_UTIL_AVG]
    tl = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_LOAD_AVG]
    for c in range(n):
        oc_ = S[S_CFS_PELT] + c * S[S_CFS_PELT_W]
        if c == prev:
            u = S[oc_ + SA_UTIL_AVG]
            u -= tu if tu < u else u
            e = S[oCP + c * C_NFIELDS + C_UE_SUM]
            if e > u:
                u = e
            cap = P[P[P_CPU_CAP] + c]
            S[ou + c] = u if u < cap else cap
        else:
            S[ou + c] = cpu_util(c, S, P)
        S[ol + c] = S[oc_ + SA_LOAD_AVG]
        S[orl + c] = weighted_cpuload(c, S)
        S[oc + c] = capacity_of(c, S, P)
        nr = S[oCP + c * C_NFIELDS + C_NR_CFS] + S[oCP + c * C_NFIELDS + C_NR_RT]
        S[onr + c] = nr
        if S[oCP + c * C_NFIELDS + C_CURR] < 0 and nr == 0:
            st = S[oCP + c * C_NFIELDS + C_IDLE_STATE]
            S[ost + c] = st if st >= 0 else STATE_NONE
            S[osp + c] = 1
        else:
            S[ost + c] = STATE_BUSY
            S[osp + c] = 0
    S[S_GLOBALS_AT + G_WAKE_CAP] += 1
    om = allowed_row(p, S, P)
    form = FORM_V5_5 if P[mp + M_WAKE_CAP] == WAKE_SLOW_V5_5 else FORM_V4_14
    return find_idlest_cpu(form, 1, this, prev, S[oc:oc + n], P[P[P_LLC_ID]:P[P_LLC_ID] + n], S[onr:onr + n],
                           S[orl:orl + n], S[ol:ol + n], S[ou:ou + n], S[ost:ost + n], S[osp:osp + n],
                           P[om:om + n], tu, task_util_for_placement(p, S), tl, P[mp + M_IMBALANCE_PCT],
                           P[mp + M_DIE_PCT], 1)


@sim_kernel
def affine_target(p, prev, this, sync, S, P):
    """``select_task_rq_fair()``'s target for a wake-up done on CPU ``this`` (``!= prev``) with
    ``want_affine``: ``wake_affine.wake_affine`` of the era (ledger rows wakeup-*), for the lowest
    domain spanning both CPUs (the LLC's ``imbalance_pct`` when they share it, else DIE's: 125, 117
    from v5.10, ``M_DIE_PCT``). Loads: the cfs_rq's ``runnable_load_avg`` before
    v5.5 (``target_load`` / ``source_load`` at ``wake_idx`` 0, ``cpu_runnable_load`` in v5.3 and
    v5.4: ``sim_capacity.weighted_cpuload``), its ``load_avg`` from v5.5; ``task_h_load`` without group scheduling (the tasks'
    ``load_avg``); the waker is ``this``'s current task (0 load when idle)."""
    oCP = S[S_CPUS]
    oTK = S[S_TASKS]
    mp = P[P_MODEL_PARAMS]
    share = P[P[P_LLC_ID] + this] == P[P[P_LLC_ID] + prev]
    this_nr = S[oCP + this * C_NFIELDS + C_NR_CFS] + S[oCP + this * C_NFIELDS + C_NR_RT]
    this_idle = S[oCP + this * C_NFIELDS + C_CURR] < 0 and this_nr == 0
    prev_idle = S[oCP + prev * C_NFIELDS + C_CURR] < 0 and \
        S[oCP + prev * C_NFIELDS + C_NR_CFS] + S[oCP + prev * C_NFIELDS + C_NR_RT] == 0
    if P[mp + M_WA_LOAD]:
        this_load = S[S[S_CFS_PELT] + this * S[S_CFS_PELT_W] + SA_LOAD_AVG]
        prev_load = S[S[S_CFS_PELT] + prev * S[S_CFS_PELT_W] + SA_LOAD_AVG]
    else:
        this_load = weighted_cpuload(this, S)
        prev_load = weighted_cpuload(prev, S)
    task_load = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_LOAD_AVG]
    cur = S[oCP + this * C_NFIELDS + C_CURR]
    cur_load = 0
    if cur >= 0 and S[oTK + cur * T_NFIELDS + T_POLICY] != POLICY_FIFO:
        cur_load = S[S[S_TASK_PELT] + cur * S[S_TASK_PELT_W] + SA_LOAD_AVG]
    pct = P[mp + M_IMBALANCE_PCT] if share else P[mp + M_DIE_PCT]     # DIE: ledger topology-v5.10
    r = wake_affine(P[mp + M_WA_ERA], this_idle, prev_idle, share, sync, this_nr, this_load, prev_load, task_load,
                    cur_load, capacity_of(this, S, P), capacity_of(prev, S, P), pct)
    return this if r == WA_THIS else prev


@sim_nrt
def place_idle_sibling(p, target, prev, this, S, P):
    """``select_idle_sibling(p, prev, target)`` (SIS_UTIL or SIS_PROP depth) on the LLC of ``target``,
    done by CPU ``this`` (the waker's; ``this_rq()``); on an asymmetric-capacity platform from
    v5.7 its ``sched_asym_cpucapacity`` path instead (``sis.select_idle_sibling_asym``:
    ``select_idle_capacity`` over all CPUs, with ``capacity_of``, ``task_util_est(p)`` and the
    task's clamps in the era's fit, ledger rows sis-v5.7 / sis-v6.2 / sis-v6.3).

    SIS_PROP per era (``M_SIS_PROP_ERA``): the depth from ``this``'s ``avg_idle / 512`` (before
    v5.14) or its ``wake_avg_idle`` aged per jiffy (v5.14+), and ``this``'s ``avg_scan_cost``; a
    scan that did not run out of depth then charges its time (``sis_scan_cost_ns`` per runqueue
    examined) to ``wake_avg_idle`` (v5.14+) and ``avg_scan_cost`` (``update_avg``).
    ``p->recent_used_cpu`` per era (``M_RECENT_ERA``): passed as the recent candidate from
    v4.16, set to prev when it wins (v4.16 - v5.14) or whenever the target and prev checks
    fail (v5.15+). A wake-up that ``wake_cap()`` (v4.10 - v5.6) took off the fast path reaches
    here only without SD_BALANCE_WAKE (``M_WAKE_CAP`` 1: counted in ``G_WAKE_CAP``); with it the
    caller takes ``wake_slow_path``.

    Compiled with reference counting (``select_idle_sibling`` allocates its scratch mask; numba
    would otherwise compile it with the caller's ``_nrt=False``)."""
    oidle = S[S_SCRATCH] + SC_IDLE * S[S_SCRATCH_W]       # scratch rows (state slot 13)
    ores = S[S_SCRATCH] + SC_RESULT * S[S_SCRATCH_W]
    mp = P[P_MODEL_PARAMS]
    n = P[P_CPU_PD_N]
    # the idle mask (scratch row SC_IDLE) is kept up to date by sim_index.idle_changed
    asym = P[mp + M_ASYM_MODE]
    if P[mp + M_WAKE_CAP] == WAKE_CAP_FAST and wake_cap(p, this, prev, S, P):
        # no SD_BALANCE_WAKE (M_WAKE_CAP 1): wake_cap() only cleared want_affine; counted
        S[S_GLOBALS_AT + G_WAKE_CAP] += 1
    rera = P[mp + M_RECENT_ERA]
    ort = S[S_TASKS] + p * T_NFIELDS + T_RECENT
    recent = S[ort] if rera > 0 else -1
    if asym >= 0:
        sync_entity_load_avg(p, S, P)   # select_idle_capacity() (v5.7), select_idle_sibling()'s asym test (v5.10+)
        ocap = S[S_SCRATCH] + SC_CAP_OF * S[S_SCRATCH_W]
        oth = S[S_SCRATCH] + SC_UTIL * S[S_SCRATCH_W]     # scratch row reused: the thermal pressure
        otha = oth
        if P[mp + M_THERMAL_AVG]:
            otha = S[S_SCRATCH] + SC_UE * S[S_SCRATCH_W]  # scratch row reused: thermal_load_avg
        for c in range(n):
            S[ocap + c] = capacity_of(c, S, P)
            S[oth + c] = thermal_pressure(c, S, P)
            if otha != oth:
                S[otha + c] = thermal_avg(c, S, P)
        uc = P[mp + M_UCLAMP] != 0
        om = allowed_row(p, S, P)
        # the task's clamps (0, 1024 without uclamp), the thermal pressure of util_fits_cpu and
        # thermal_load_avg for v6.2's capacity inversion and v6.3's ranking (v6.10+: both the
        # cpufreq pressure of get_actual_cpu_capacity)
        cpu = select_idle_sibling_asym(asym, S[oidle:oidle + n], P[om:om + P[P_MASKS_W]], S[ocap:ocap + n],
                                       P[P[P_CPU_CAP]:P[P_CPU_CAP] + n], S[oth:oth + n], S[otha:otha + n],
                                       P[P[P_CPU_PD]:P[P_CPU_PD] + n], task_util_for_placement(p, S),
                                       task_uclamp(p, 0, S, P) if uc else 0, task_uclamp(p, 1, S, P) if uc else 1024,
                                       target, prev, recent,
                                       P[P[P_LLC_ID]:P[P_LLC_ID] + P[P_LLC_ID_N]], S[ores:ores + 2])
        # the v5.7 - v5.9 asym path returns before the recent_used_cpu block; v5.10+ reaches it
        # after the target and prev checks (ledger wakeup-v5.15 / wakeup-v4.16)
        if rera == 2 and asym != ASYM_V5_7 and S[ores] != PATH_TARGET and S[ores] != PATH_PREV:
            S[ort] = prev
        elif rera == 1 and S[ores] == PATH_RECENT:
            S[ort] = prev
        return cpu
    util_mode = S[S_CONFIG_AT + K_SIS] == SIS_UTIL
    pera = P[mp + M_SIS_PROP_ERA]
    oi = S[S_IDLE_STATS] + this * S[S_IDLE_STATS_W]      # this_rq() and this CPU's sd_llc
    if util_mode:
        nr = S[S[S_IDLE_STATS] + (target) * S[S_IDLE_STATS_W] + AI_NR_SCAN]
    else:
        w = 0
        for j in range(n):
            if P[P[P_LLC_ID] + j] == P[P[P_LLC_ID] + target]:
                w += 1
        if pera >= 2:       # v5.14+: wake_avg_idle aged per jiffy (ledger sis-v5.14)
            jiffies = S[S_GLOBALS_AT + G_NOW] // S[S_CONFIG_AT + K_TICK_NS]
            wai, stamp = wake_avg_idle_age(S[oi + AI_WAKE_AVG_IDLE], S[oi + AI_WAKE_STAMP], jiffies)
            S[oi + AI_WAKE_AVG_IDLE] = wai
            S[oi + AI_WAKE_STAMP] = stamp
            nr = sis_prop_nr(wai, S[oi + AI_SCAN_COST], w, 1)
        else:               # avg_idle / 512
            nr = sis_prop_nr(S[oi + AI_AVG_IDLE], S[oi + AI_SCAN_COST], w, 0)
    om = allowed_row(p, S, P)
    cpu = select_idle_sibling(P[mp + M_SIS_MODE], util_mode, S[oidle:oidle + n], P[om:om + P[P_MASKS_W]], target,
                              prev, recent, False, nr, P[P[P_LLC_ID]:P[P_LLC_ID] + P[P_LLC_ID_N]],
                              P[P[P_CORE_ID]:P[P_CORE_ID] + P[P_CORE_ID_N]], False, S[ores:ores + 3])
    path = S[ores]
    if rera == 2 and path != PATH_TARGET and path != PATH_PREV:
        S[ort] = prev
    elif rera == 1 and path == PATH_RECENT:
        S[ort] = prev
    if not util_mode and path != PATH_TARGET and path != PATH_PREV and path != PATH_RECENT and S[ores + 2] == 0:
        # select_idle_cpu() ran to its end: its time is accounted (not after ``return -1``)
        t = P[mp + M_SIS_SCAN_COST] * S[ores + 1]
        if pera >= 2:
            S[oi + AI_WAKE_AVG_IDLE] -= t if t < S[oi + AI_WAKE_AVG_IDLE] else S[oi + AI_WAKE_AVG_IDLE]
        S[oi + AI_SCAN_COST] = update_avg(S[oi + AI_SCAN_COST], t, True)
    return cpu
