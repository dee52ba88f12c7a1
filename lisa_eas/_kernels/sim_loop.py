"""The simulator's event loop (numba): rt-app task programs on simulated runqueues.

Time advances from event to event; the next event is the earliest of: the end of a running
task's current ``run``/``runtime`` event (per CPU), a scheduler tick on a busy CPU, a task
wake-up (sleep or timer expiry, thread start), a frequency change taking effect (transition
latency), a governor timer (ondemand's sample, interactive's timer, the end of schedfreq's
throttle), and the periodic load balance. Ties are taken in that
order, then by CPU / task / domain index, so a run is deterministic.

Each task executes its compiled program (``sim_state.OP_*``) with rt-app's semantics: ``run``
is work whose duration stretches with the CPU's capacity at its current OPP (work in ns at
capacity 1024; progress ``dt * capacity / 1024``), ``runtime`` is wall time, ``sleep`` is
relative, ``timer`` is absolute (``t_next += period`` from the thread's start; ``slack =
t_next - now``; a missed deadline re-anchors in ``relative`` mode), one log row per phase
iteration (``rt-app`` ``log_timing``).

The balancer (``sim_balance``: the periodic pass every ``K_LB_NS``, the newidle balance of a CPU
going idle, the nohz idle balance a busy CPU's tick kicks, the kernel's ``load_balance()`` at eras
v4.16 - v4.19) and the runqueue operations it shares with the loop (``sim_rq``: a queued task moved
between CPUs, wake-up preemption, idle exit) are in their own modules; ``lisa_eas.sim`` documents
what each models.
"""
from __future__ import annotations

from ._jit import sim_helper, sim_inline, sim_kernel
from .sim_layout import (O_ACTIVATIONS_N, O_COUNTERS, O_EAS_LOG_N, O_EVENTS_N, P_CPU_PD_N, P_MASKS, P_MASKS_W,
                         P_MODEL_PARAMS, P_PROG, S_CONFIG_AT, S_CPUS, S_CPUS_N, S_DOMAINS, S_DOMAINS_N, S_GLOBALS_AT,
                         S_RQ_TASKS, S_RQ_TASKS_W, S_TASKS, S_TASKS_N, S_TIMERS, S_WAKE_HEAP, S_COND_NEXT, S_CONDS,
                         S_SCRATCH, S_SCRATCH_W, S_SIS_STATS)
from .sim_state import (C_NFIELDS, OP_SIZE, P_NFIELDS, T_NFIELDS, GOV_SCHEDFREQ, K_GOV, C_CURR, C_IDLE_STATE,
                        C_MIN_VRUNTIME, C_NEED_RESCHED, C_NEXT_EVENT, C_NEXT_TICK, C_NR_CFS, C_NR_RT, C_UE_SUM,
                        EV_MIGRATE, EV_TASK_SYNC, EV_WAKEUP, G_ALIVE, G_DONE, G_HEAP_N, G_NEXT_LB, G_NOW, G_STATUS,
                        G_T_END, G_WAKE_SYNC,
                        G_WAKE_DIRTY, INF_TIME, K_LB_NS, K_MIN_GRAN_NS, K_PLACEMENT, K_TICK_NS, N_ACT, N_EAS, N_EV,
                        OP_PHASE_BEGIN, OP_PHASE_END, OP_RUN, OP_RUNTIME, OP_SET_AFFINITY, OP_SET_SCHED, OP_SLEEP,
                        OP_START, OP_TASK_END, OP_TIMER, P_NEXT_SAMPLE, P_PENDING_AT, P_PENDING_OPP, PLACE_NO_EAS,
                        POLICY_CFS, POLICY_FIFO, PREV_STATE_DEAD, PREV_STATE_RUNNING, PREV_STATE_SLEEP, T_ACT_CDUR,
                        T_ACT_CPERIOD, T_ACT_PERF, T_ACT_RUN, T_ACT_SLACK, T_ACT_START, T_ACT_WULAT, T_CPU, T_FRESH,
                        T_MASK, T_OP_START, T_PC, T_PHASE, T_PHASE_ACT, T_PHASE_ITER, T_POLICY, T_PRIO, T_REM, T_RT_END,
                        T_RECENT, T_SLICE_START, T_START, T_STATE, T_SUM_EXEC, T_TASK_ITER, T_TIMER_DUE, T_UE_CPU,
                        T_VRUNTIME, T_WAKE_AT, TS_EXITED, TS_RUNNABLE, OP_RESUME, OP_SUSPEND, SS_DOM_FOUND,
                        SS_DOM_SCANNED, SS_DOM_SEARCHES, SS_FAST, SS_FOUND, SS_FROM, SS_HIST, SS_SEARCHES)
from .sim_eas import place_eas
from .sim_capacity import update_overutilized, update_thermal_avg
from .sim_governor import apply_opp, governor_sample, governor_update, schedfreq_rt_tick
from .sim_models import M_RECENT_ERA, M_WAKE_CAP, M_WAKER_AT_PREV, WAKE_SLOW_V4, LB_SIMPLE, M_LB_FORM, SC_RESULT
from .sim_wakeup import affine_target, place_idle_sibling, wake_cap, wake_slow_path
from .sis import PATH_FALLBACK, PATH_IDLE_CAPACITY, PATH_RECENT
from .sim_index import (CT_EVENT, CT_TICK, build_indexes, cpu_time_changed, earliest_cpu, heap_remove, ou_dirty,
                        set_state)
from .sim_eevdf import eevdf_place, eevdf_update_lag
from .sim_state import K_EEVDF, T_DEADLINE, T_VLAG
from .sim_sched import (acct, dequeue_sleep, emit, emit_cpu_util, enqueue,
                        log_activation, refresh_next_event, remove_task_avg, schedule, sched_slice, sync_cpu,
                        sync_entity_load_avg, task_util_est, update_curr, update_rq_avgs, update_task_avg,
                        list_stamp)
from .sim_rq import check_preempt, exit_idle, move_queued, preempts_curr
from .sim_balance import busy_balance, leave_cpu, load_balance


ADV_RUN = 0
ADV_BLOCK = 1
ADV_EXIT = 2
ADV_MIGRATE = 3


@sim_inline
def advance(p, c, now, S, P, O):
    """Execute task ``p``'s ops from its program counter until one takes time; returns ADV_*."""
    oTK = S[S_TASKS]
    oprog = P[P_PROG]
    otm = S[S_TIMERS]
    while True:
        pc = S[oTK + (p) * T_NFIELDS + T_PC]
        k = P[oprog + (pc) * OP_SIZE + 0]
        a = P[oprog + (pc) * OP_SIZE + 1]
        b = P[oprog + (pc) * OP_SIZE + 2]
        if k == OP_PHASE_BEGIN:
            S[oTK + (p) * T_NFIELDS + T_PHASE] = a
            S[oTK + (p) * T_NFIELDS + T_PHASE_ACT] = S[oTK + (p) * T_NFIELDS + T_PHASE_ITER]
            S[oTK + (p) * T_NFIELDS + T_ACT_START] = now
            S[oTK + (p) * T_NFIELDS + T_ACT_RUN] = 0
            S[oTK + (p) * T_NFIELDS + T_ACT_PERF] = 0
            S[oTK + (p) * T_NFIELDS + T_ACT_CDUR] = 0
            S[oTK + (p) * T_NFIELDS + T_ACT_CPERIOD] = 0
            S[oTK + (p) * T_NFIELDS + T_ACT_SLACK] = 0
            S[oTK + (p) * T_NFIELDS + T_ACT_WULAT] = 0
            S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
        elif k == OP_RUN or k == OP_RUNTIME:
            S[oTK + (p) * T_NFIELDS + T_ACT_CDUR] += a
            if a <= 0:
                S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
                continue
            S[oTK + (p) * T_NFIELDS + T_OP_START] = now
            if k == OP_RUN:
                S[oTK + (p) * T_NFIELDS + T_REM] = a << 10
            else:
                S[oTK + (p) * T_NFIELDS + T_RT_END] = now + a
            return ADV_RUN
        elif k == OP_SLEEP:
            S[oTK + (p) * T_NFIELDS + T_WAKE_AT] = now + a
            return ADV_BLOCK
        elif k == OP_TIMER:
            if S[otm + (b) * 2 + 0] == 0:
                S[otm + (b) * 2 + 0] = 1
                S[otm + (b) * 2 + 1] = S[oTK + (p) * T_NFIELDS + T_START]
            S[otm + (b) * 2 + 1] += a
            S[oTK + (p) * T_NFIELDS + T_ACT_CPERIOD] += a
            S[oTK + (p) * T_NFIELDS + T_ACT_SLACK] = S[otm + (b) * 2 + 1] - now
            if now < S[otm + (b) * 2 + 1]:
                S[oTK + (p) * T_NFIELDS + T_WAKE_AT] = S[otm + (b) * 2 + 1]
                S[oTK + (p) * T_NFIELDS + T_TIMER_DUE] = S[otm + (b) * 2 + 1]
                return ADV_BLOCK
            if P[oprog + (pc) * OP_SIZE + 3]:
                S[otm + (b) * 2 + 1] = now
            S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
        elif k == OP_PHASE_END:
            log_activation(p, now, S, O)
            it = S[oTK + (p) * T_NFIELDS + T_PHASE_ITER] + 1
            if b < 0 or it < b:
                S[oTK + (p) * T_NFIELDS + T_PHASE_ITER] = it
                S[oTK + (p) * T_NFIELDS + T_PC] = a
            else:
                S[oTK + (p) * T_NFIELDS + T_PHASE_ITER] = 0
                S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
        elif k == OP_TASK_END:
            it = S[oTK + (p) * T_NFIELDS + T_TASK_ITER] + 1
            if b < 0 or it < b:
                S[oTK + (p) * T_NFIELDS + T_TASK_ITER] = it
                S[oTK + (p) * T_NFIELDS + T_PC] = a
            else:
                S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
        elif k == OP_SET_SCHED:
            S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
            update_rq_avgs(c, now, S, P)     # __sched_setscheduler: update_rq_clock
            set_sched(p, c, a, b, now, S, P, O)
        elif k == OP_SET_AFFINITY:
            S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
            S[oTK + (p) * T_NFIELDS + T_MASK] = a
            if P[P[P_MASKS] + (a) * P[P_MASKS_W] + c] == 0:
                S[oTK + (p) * T_NFIELDS + T_FRESH] = 1
                return ADV_MIGRATE
        elif k == OP_SUSPEND:
            # rt-app: pthread_cond_wait on the condition (its mutex held): the thread joins the
            # condition's waiters and blocks with no wake-up time; op_done steps past the op when it runs again
            oq = S[S_CONDS] + a * 2
            S[oTK + (p) * T_NFIELDS + T_WAKE_AT] = INF_TIME
            S[S[S_COND_NEXT] + p] = -1
            if S[oq] < 0:
                S[oq] = p
            else:
                S[S[S_COND_NEXT] + S[oq + 1]] = p
            S[oq + 1] = p
            return ADV_BLOCK
        elif k == OP_RESUME:
            # rt-app: pthread_cond_broadcast: every thread suspended on the condition wakes (a futex
            # wake-up: no WF_SYNC), the waker's CPU being this one; nobody waiting: the resume is lost
            S[oTK + (p) * T_NFIELDS + T_PC] = pc + 1
            oq = S[S_CONDS] + a * 2
            q = S[oq]
            S[oq] = -1
            S[oq + 1] = -1
            while q >= 0:
                nq = S[S[S_COND_NEXT] + q]
                S[S[S_COND_NEXT] + q] = -1
                wake_up(q, c, 0, now, S, P, O)
                q = nq
        else:  # OP_EXIT
            return ADV_EXIT


@sim_kernel
def set_sched(p, c, policy, prio, now, S, P, O):
    """``sched_setattr`` on the running task ``p`` (CFS <-> FIFO, rt priority)."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == policy:
        S[oTK + (p) * T_NFIELDS + T_PRIO] = prio
        S[oCP + (c) * C_NFIELDS + C_NEED_RESCHED] = 1
        return
    if policy == POLICY_FIFO:
        if S[S_CONFIG_AT + K_EEVDF]:
            eevdf_update_lag(p, c, S)       # dequeue_task_fair of __sched_setscheduler (ledger cfs-v6.6)
        ue = S[oTK + (p) * T_NFIELDS + T_UE_CPU]
        if ue >= 0:
            est = task_util_est(p, S)
            S[oCP + (ue) * C_NFIELDS + C_UE_SUM] = S[oCP + (ue) * C_NFIELDS + C_UE_SUM] - est if S[oCP + (ue) * C_NFIELDS + C_UE_SUM] > est else 0
            ou_dirty(ue, S)
            S[oTK + (p) * T_NFIELDS + T_UE_CPU] = -1
        S[oCP + (c) * C_NFIELDS + C_NR_CFS] -= 1
        S[oCP + (c) * C_NFIELDS + C_NR_RT] += 1
    else:
        S[oCP + (c) * C_NFIELDS + C_NR_RT] -= 1
        S[oCP + (c) * C_NFIELDS + C_NR_CFS] += 1
        if S[S_CONFIG_AT + K_EEVDF]:
            # enqueue_entity's place_entity with the lag it left CFS with, then set_next_task's
            # set_next_entity stash (it keeps running; ledger cfs-v6.6)
            eevdf_place(p, c, S)
            S[oTK + (p) * T_NFIELDS + T_VLAG] = S[oTK + (p) * T_NFIELDS + T_DEADLINE]
        else:
            S[oTK + (p) * T_NFIELDS + T_VRUNTIME] = S[oCP + (c) * C_NFIELDS + C_MIN_VRUNTIME]
        list_stamp(p, S)                # enqueue_task_fair of __sched_setscheduler: cfs_tasks head
        S[oCP + (c) * C_NFIELDS + C_UE_SUM] += task_util_est(p, S)
        ou_dirty(c, S)
        S[oTK + (p) * T_NFIELDS + T_UE_CPU] = c
    S[oTK + (p) * T_NFIELDS + T_POLICY] = policy
    S[oTK + (p) * T_NFIELDS + T_PRIO] = prio
    S[oCP + (c) * C_NFIELDS + C_NEED_RESCHED] = 1


@sim_kernel
def select_rt_cpu(p, prev, S, P):
    """Simplified ``select_task_rq_rt``/``find_lowest_rq``: prev unless it runs an rt task of equal or
    higher priority; else the first allowed idle CPU, else one running CFS, else prev."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    om = P[P_MASKS] + S[oTK + (p) * T_NFIELDS + T_MASK] * P[P_MASKS_W]      # the task's row of the masks (slot 12)
    n = P[P_CPU_PD_N]
    cur = S[oCP + (prev) * C_NFIELDS + C_CURR]
    if P[om + prev] and (cur < 0 or S[oTK + (cur) * T_NFIELDS + T_POLICY] != POLICY_FIFO or S[oTK + (cur) * T_NFIELDS + T_PRIO] < S[oTK + (p) * T_NFIELDS + T_PRIO]) \
            and S[oCP + (prev) * C_NFIELDS + C_NR_RT] == 0:
        return prev
    for c in range(n):
        if P[om + c] and S[oCP + (c) * C_NFIELDS + C_CURR] < 0 and S[oCP + (c) * C_NFIELDS + C_NR_CFS] + S[oCP + (c) * C_NFIELDS + C_NR_RT] == 0:
            return c
    for c in range(n):
        if P[om + c] and S[oCP + (c) * C_NFIELDS + C_NR_RT] == 0:
            return c
    return prev if P[om + prev] else fallback_cpu(p, S, P)


@sim_kernel
def fallback_cpu(p, S, P):
    """``select_fallback_rq``: the first allowed idle CPU, else the first allowed CPU."""
    om = P[P_MASKS] + S[S[S_TASKS] + (p) * T_NFIELDS + T_MASK] * P[P_MASKS_W]
    oCP = S[S_CPUS]
    first = -1
    for c in range(P[P_CPU_PD_N]):
        if P[om + c]:
            if first < 0:
                first = c
            if S[oCP + (c) * C_NFIELDS + C_CURR] < 0 and S[oCP + (c) * C_NFIELDS + C_NR_CFS] + S[oCP + (c) * C_NFIELDS + C_NR_RT] == 0:
                return c
    return first


@sim_kernel
def select_task_rq(p, prev, this, sync, now, S, P, O):
    """Wake-up placement done on CPU ``this`` (the waker's; ``prev`` for a timer wake-up, which
    prev's timer interrupt performs), ``sync`` the WF_SYNC flag: FIFO via the rt path, CFS via EAS
    (not overutilized; before ``want_affine``, as in the kernel) or ``select_idle_sibling`` on the
    target that ``wake_affine`` chooses when ``this != prev`` (``want_affine``: the task may run on
    ``this`` and, before v5.7, ``!wake_cap()``; ``wake_wide()`` is not modelled, taken as 0).
    Without ``want_affine``, where SD_BALANCE_WAKE is set (asymmetric platform, v4.16 - v5.6,
    ``M_WAKE_CAP`` >= 2) the slow path ``sim_wakeup.wake_slow_path`` (``find_idlest_cpu``)."""
    oTK = S[S_TASKS]
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO:
        return select_rt_cpu(p, prev, S, P)
    cpu = -1
    if S[S_CONFIG_AT + K_PLACEMENT] != PLACE_NO_EAS:
        cpu = place_eas(p, prev, now, S, P, O)
    if cpu < 0:
        want_affine = P[P[P_MASKS] + (S[oTK + (p) * T_NFIELDS + T_MASK]) * P[P_MASKS_W] + this] != 0 \
            and not wake_cap(p, this, prev, S, P)
        if not want_affine and P[P[P_MODEL_PARAMS] + M_WAKE_CAP] >= WAKE_SLOW_V4:
            cpu = wake_slow_path(p, prev, this, S, P)
        else:
            target = prev
            if want_affine and this != prev:
                target = affine_target(p, prev, this, sync, S, P)
            cpu = place_idle_sibling(p, target, prev, this, S, P)
            cur = S[S[S_CPUS] + (this) * C_NFIELDS + C_CURR]
            if want_affine and cur >= 0 and P[P[P_MODEL_PARAMS] + M_RECENT_ERA] == 1:
                S[oTK + (cur) * T_NFIELDS + T_RECENT] = this     # current->recent_used_cpu = cpu (v4.16 - v5.14)
    if cpu < 0 or P[P[P_MASKS] + (S[oTK + (p) * T_NFIELDS + T_MASK]) * P[P_MASKS_W] + cpu] == 0:
        cpu = fallback_cpu(p, S, P)
    return cpu


@sim_kernel
def wake_up(p, waker, sync, now, S, P, O):
    """``try_to_wake_up`` of a sleeping task: by a timer (sleep / timer expiry / thread start:
    ``waker`` -1, the hrtimer interrupt on the task's previous CPU) or by the task running on CPU
    ``waker`` (rt-app ``resume``); ``sync``: the waker's WF_SYNC (0 for rt-app's futex wake-up). The
    waker's CPU (``this_cpu``) and ``sync`` reach ``wake_affine`` and ``this_rq()``'s SIS_PROP state.

    On the waker's own CPU the waker is mid-op: a preemption only sets need_resched there (the
    switch happens when the waker reaches its next op, as at its return to user space)."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    prev = S[oTK + (p) * T_NFIELDS + T_CPU]
    this = prev if waker < 0 or P[P[P_MODEL_PARAMS] + M_WAKER_AT_PREV] else waker
    # no update of prev's rq clock: select_task_rq_fair reads the runqueues as last updated, and
    # the task's signal is synced (sync_entity_load_avg) only where the kernel's path syncs it
    S[S_GLOBALS_AT + G_WAKE_SYNC] = -1
    ores = S[S_SCRATCH] + SC_RESULT * S[S_SCRATCH_W]
    S[ores] = -1
    cpu = select_task_rq(p, prev, this, sync, now, S, P, O)
    if S[ores] >= 0:
        count_sis(S[ores], S[ores + 1], now, S)
    if cpu != prev and S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        sync_entity_load_avg(p, S, P)           # migrate_task_rq_fair -> remove_entity_load_avg
    if S[S_GLOBALS_AT + G_WAKE_SYNC] >= 0:
        emit(O, now, EV_TASK_SYNC, prev, p, S[S_GLOBALS_AT + G_WAKE_SYNC], 0, 0, 0)
    if cpu != prev:
        if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
            remove_task_avg(p, prev, S, P)      # the removed util, taken at prev's next cfs_rq update
            if not S[S_CONFIG_AT + K_EEVDF]:    # v6.6+ keeps the lag instead (ledger cfs-v6.6)
                S[oTK + (p) * T_NFIELDS + T_VRUNTIME] = S[oTK + (p) * T_NFIELDS + T_VRUNTIME] - S[oCP + (prev) * C_NFIELDS + C_MIN_VRUNTIME]
        emit(O, now, EV_MIGRATE, cpu, p, prev, 0, 0, 0)
    # ttwu_do_activate on the chosen runqueue: update_rq_clock, then enqueue_task, whose
    # update_load_avg ages the task from its last update (the sync's time, else its dequeue) to now
    # and clears util_est's flag when that crosses a period; a migrated task is attached as it is
    sync_cpu(cpu, now, S, P)
    if cpu != prev and S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS and not S[S_CONFIG_AT + K_EEVDF]:
        S[oTK + (p) * T_NFIELDS + T_VRUNTIME] += S[oCP + (cpu) * C_NFIELDS + C_MIN_VRUNTIME]
    if S[oCP + (cpu) * C_NFIELDS + C_CURR] < 0 and S[oCP + (cpu) * C_NFIELDS + C_IDLE_STATE] >= 0:
        exit_idle(cpu, now, S, P, O)
    enqueue(p, cpu, now, S, P, O)
    emit(O, now, EV_WAKEUP, cpu, p, cpu, S[oCP + (cpu) * C_NFIELDS + C_CURR], 0, 0)
    if cpu == waker:
        if preempts_curr(S[oCP + (cpu) * C_NFIELDS + C_CURR], p, S):
            S[oCP + (cpu) * C_NFIELDS + C_NEED_RESCHED] = 1
    else:
        check_preempt(cpu, p, now, S, P, O)
    governor_update(cpu, now, S, P, O)
    update_overutilized(now, True, S, P, O)
    emit_cpu_util(cpu, now, S, P, O)


@sim_helper
def count_sis(path, scanned, now, S):
    """Count one select_idle_sibling() outcome (``path``, runqueues scanned) from ``SS_FROM`` on
    (Mel Gorman's SIS schedstats, as 70fb5ccf2ebb's table reports them)."""
    o = S[S_SIS_STATS]
    if now < S[o + SS_FROM] or path >= PATH_IDLE_CAPACITY:
        return
    S[o + SS_SEARCHES] += 1
    if path <= PATH_RECENT:
        S[o + SS_FAST] += 1
        S[o + SS_FOUND] += 1
        return
    S[o + SS_DOM_SEARCHES] += 1
    S[o + SS_DOM_SCANNED] += scanned
    S[o + SS_HIST + scanned] += 1
    if path != PATH_FALLBACK:
        S[o + SS_DOM_FOUND] += 1
        S[o + SS_FOUND] += 1


@sim_kernel
def task_tick(c, now, S, P, O):
    """``scheduler_tick`` on a busy CPU: PELT, ``check_preempt_tick``, overutilized, cpufreq."""
    oCP = S[S_CPUS]
    oTK = S[S_TASKS]
    oK = S_CONFIG_AT
    sync_cpu(c, now, S, P)
    update_thermal_avg(c, now, S, P)            # scheduler_tick: update_thermal_load_avg (v5.7 - v6.9)
    p = S[oCP + (c) * C_NFIELDS + C_CURR]
    if p < 0:
        S[oCP + (c) * C_NFIELDS + C_NEXT_TICK] = INF_TIME
        cpu_time_changed(c, CT_TICK, S)
        return
    S[oCP + (c) * C_NFIELDS + C_NEXT_TICK] = now + S[oK + K_TICK_NS]
    cpu_time_changed(c, CT_TICK, S)
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        update_task_avg(p, now, S, P, O)
        if S[oK + K_EEVDF]:
            # entity_tick (v6.6+): no slice test; update_deadline (in sync_cpu) asked for the switch
            if S[oCP + (c) * C_NFIELDS + C_NEED_RESCHED]:
                schedule(c, PREV_STATE_RUNNING, now, S, P, O)
        elif S[oCP + (c) * C_NFIELDS + C_NR_CFS] > 1 and S[oCP + (c) * C_NFIELDS + C_NR_RT] == 0:
            ideal = sched_slice(c, S)
            delta_exec = S[oTK + (p) * T_NFIELDS + T_SUM_EXEC] - S[oTK + (p) * T_NFIELDS + T_SLICE_START]
            resched = delta_exec > ideal
            if not resched and delta_exec >= S[oK + K_MIN_GRAN_NS]:
                left = INF_TIME
                ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
                for i in range(1, S[ol] + 1):       # the runqueue's tasks
                    q = S[ol + i]
                    if q != p and S[oTK + (q) * T_NFIELDS + T_STATE] == TS_RUNNABLE \
                            and S[oTK + (q) * T_NFIELDS + T_POLICY] == POLICY_CFS and S[oTK + (q) * T_NFIELDS + T_VRUNTIME] < left:
                        left = S[oTK + (q) * T_NFIELDS + T_VRUNTIME]
                resched = left < INF_TIME and S[oTK + (p) * T_NFIELDS + T_VRUNTIME] - left > ideal
            if resched:
                schedule(c, PREV_STATE_RUNNING, now, S, P, O)
    elif S[oK + K_GOV] == GOV_SCHEDFREQ:
        schedfreq_rt_tick(c, now, S, P)     # task_tick_rt(): the 2016 schedfreq RT request
    update_overutilized(now, True, S, P, O)
    governor_update(c, now, S, P, O)
    emit_cpu_util(c, now, S, P, O)
    if P[P[P_MODEL_PARAMS] + M_LB_FORM] != LB_SIMPLE:
        busy_balance(c, now, S, P, O)   # trigger_load_balance(): rebalance_domains(), nohz_balancer_kick()


@sim_kernel
def op_done(c, now, S, P, O):
    """The running task of CPU ``c`` reached an op boundary: finish the op, run the program on.

    An rt-app op boundary is no kernel event (a ``clock_nanosleep`` whose deadline has passed
    returns without one): the task's progress and the residency are accounted here, and the
    runqueue (rq clock, cfs_rq / rt_rq PELT) is brought to ``now`` only by the scheduler event
    that follows, if any (``__schedule``'s / ``dequeue_task``'s ``update_rq_clock``)."""
    oCP = S[S_CPUS]
    oTK = S[S_TASKS]
    oprog = P[P_PROG]
    p = S[oCP + (c) * C_NFIELDS + C_CURR]
    acct(c, now, S, P)
    update_curr(c, now, S, P)
    if S[oTK + (p) * T_NFIELDS + T_FRESH]:
        S[oTK + (p) * T_NFIELDS + T_FRESH] = 0
    else:
        k = P[oprog + S[oTK + (p) * T_NFIELDS + T_PC] * OP_SIZE]
        if k == OP_RUN:
            if S[oTK + (p) * T_NFIELDS + T_REM] > 0:
                refresh_next_event(c, now, S, P)
                return
            S[oTK + (p) * T_NFIELDS + T_ACT_RUN] += now - S[oTK + (p) * T_NFIELDS + T_OP_START]
        elif k == OP_RUNTIME:
            if now < S[oTK + (p) * T_NFIELDS + T_RT_END]:
                refresh_next_event(c, now, S, P)
                return
            S[oTK + (p) * T_NFIELDS + T_ACT_RUN] += now - S[oTK + (p) * T_NFIELDS + T_OP_START]
        elif k == OP_START:
            S[oTK + (p) * T_NFIELDS + T_START] = now
        S[oTK + (p) * T_NFIELDS + T_PC] += 1
    code = advance(p, c, now, S, P, O)
    if code == ADV_RUN:
        refresh_next_event(c, now, S, P)
        if S[oCP + (c) * C_NFIELDS + C_NEED_RESCHED]:
            update_rq_avgs(c, now, S, P)        # __schedule: update_rq_clock
            schedule(c, PREV_STATE_RUNNING, now, S, P, O)
        return
    update_rq_avgs(c, now, S, P)    # dequeue_task (sleep, exit) / the stopper's move: update_rq_clock
    if code == ADV_MIGRATE:
        dst = select_task_rq(p, c, c, 0, now, S, P, O)
        sync_cpu(dst, now, S, P)
        if S[oCP + (dst) * C_NFIELDS + C_CURR] < 0 and S[oCP + (dst) * C_NFIELDS + C_IDLE_STATE] >= 0:
            exit_idle(dst, now, S, P, O)
        move_queued(p, c, dst, now, 0, True, S, P, O)
        leave_cpu(c, PREV_STATE_RUNNING, now, S, P, O)
        check_preempt(dst, p, now, S, P, O)
    else:
        dequeue_sleep(p, now, S, P, O)
        state = PREV_STATE_SLEEP
        if code == ADV_EXIT:
            set_state(p, TS_EXITED, S)
            heap_remove(p, S)
            S[oTK + (p) * T_NFIELDS + T_WAKE_AT] = INF_TIME
            S[S_GLOBALS_AT + G_ALIVE] -= 1
            state = PREV_STATE_DEAD
            if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
                remove_task_avg(p, c, S, P)     # task_dead_fair -> remove_entity_load_avg
        leave_cpu(c, state, now, S, P, O)
    governor_update(c, now, S, P, O)
    emit_cpu_util(c, now, S, P, O)


@sim_kernel
def sim_run(S, P, O, margin):
    """Run the simulation until ``S[oG + G_T_END]`` or until an output buffer has less than ``margin``
    free rows (``S[oG + G_STATUS]`` = 1: drain the buffers and call again; 2: finished)."""
    oG = S_GLOBALS_AT
    oK = S_CONFIG_AT
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    oPD = S[S_DOMAINS]
    ocnt = O[O_COUNTERS]          # output counters (slot 3); buffer rows: O[O_EVENTS_N] events, O[O_ACTIVATIONS_N] activations, O[O_EAS_LOG_N] EAS
    n_cpu = S[S_CPUS_N]
    n_task = S[S_TASKS_N]
    n_pd = S[S_DOMAINS_N]
    S[oG + G_STATUS] = 0
    while True:
        if O[ocnt + N_EV] + margin > O[O_EVENTS_N] or O[ocnt + N_ACT] + n_task + 1 > O[O_ACTIVATIONS_N] \
                or O[ocnt + N_EAS] + n_task + 1 > O[O_EAS_LOG_N]:
            S[oG + G_STATUS] = 1
            return
        if S[oG + G_WAKE_DIRTY]:
            build_indexes(S)
        # the earliest op boundary and the earliest tick (lowest CPU among equal times): the roots
        # of the CPU time trees (sim_index), not a scan of every CPU
        t = INF_TIME
        kind = -1
        idx = -1
        c = earliest_cpu(CT_EVENT, S)
        if S[oCP + c * C_NFIELDS + C_NEXT_EVENT] < t:
            t, idx, kind = S[oCP + c * C_NFIELDS + C_NEXT_EVENT], c, 0
        c = earliest_cpu(CT_TICK, S)
        if S[oCP + c * C_NFIELDS + C_NEXT_TICK] < t:
            t, kind, idx = S[oCP + c * C_NFIELDS + C_NEXT_TICK], 1, c
        alive = S[oG + G_ALIVE]
        if S[oG + G_HEAP_N] > 0:
            # the earliest wake-up (lowest task index among equal times): the heap's top
            wi = S[S[S_WAKE_HEAP]]
            wt = S[oTK + (wi) * T_NFIELDS + T_WAKE_AT]
            if wt < t:
                t, kind, idx = wt, 2, wi
        for d in range(n_pd):
            if S[oPD + (d) * P_NFIELDS + P_PENDING_AT] < t:
                t, kind, idx = S[oPD + (d) * P_NFIELDS + P_PENDING_AT], 3, d
        for d in range(n_pd):
            if S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] < t:
                t, kind, idx = S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE], 4, d
        if S[oG + G_NEXT_LB] < t and alive > 0:
            t, kind, idx = S[oG + G_NEXT_LB], 5, 0
        if alive == 0 and S[oG + G_DONE] == 0:
            S[oG + G_DONE] = 1
            S[oG + G_T_END] = S[oG + G_NOW]
        if t > S[oG + G_T_END] or kind < 0:
            end = S[oG + G_T_END]
            for c in range(n_cpu):
                sync_cpu(c, end, S, P)
                acct(c, end, S, P)
            S[oG + G_NOW] = end
            S[oG + G_STATUS] = 2
            return
        if t < S[oG + G_NOW]:       # never step back in time (an event due while its CPU was busy)
            t = S[oG + G_NOW]
        S[oG + G_NOW] = t
        if kind == 0:
            op_done(idx, t, S, P, O)
        elif kind == 1:
            task_tick(idx, t, S, P, O)
        elif kind == 2:
            wake_up(idx, -1, 0, t, S, P, O)
        elif kind == 3:
            opp = S[oPD + (idx) * P_NFIELDS + P_PENDING_OPP]
            S[oPD + (idx) * P_NFIELDS + P_PENDING_OPP] = -1
            S[oPD + (idx) * P_NFIELDS + P_PENDING_AT] = INF_TIME
            if opp >= 0 and opp != S[oPD + (idx) * P_NFIELDS + 0]:
                apply_opp(idx, opp, t, S, P, O)
        elif kind == 4:
            governor_sample(idx, t, S, P, O)
        else:
            load_balance(t, S, P, O)
            S[oG + G_NEXT_LB] = t + S[oK + K_LB_NS]
