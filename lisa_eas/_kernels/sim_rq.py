"""Runqueue operations of the simulator's event loop (numba): a queued task moved between CPUs
(``move_queued``: detach, renormalise, attach), wake-up preemption (``check_preempt`` /
``preempts_curr``), a CPU leaving its idle state (``exit_idle``) and the bookkeeping of a CPU going
idle (``went_idle``). Called by the loop (``sim_loop``) and the balancer (``sim_balance``)."""
from __future__ import annotations

from ._jit import sim_helper, sim_inline, sim_kernel
from .sim_layout import (P_CPU_PD, P_MODEL_PARAMS, P_PD_CPUS, P_PD_CPUS_W, P_PD_NCPU, S_CONFIG_AT, S_CPUS, S_IDLE_STATS,
                         S_IDLE_STATS_W, S_SU_CPU, S_SU_CPU_W, S_SU_CPU_W2, S_TASKS)
from .sim_state import (C_NFIELDS, T_NFIELDS, C_CURR, C_IDLE_STATE, C_MIN_VRUNTIME, C_NR_CFS, C_NR_RT, C_UE_SUM,
                        EV_IDLE, EV_MIGRATE, K_TICK_NS, K_WAKEUP_GRAN_NS, POLICY_CFS, POLICY_FIFO, PREV_STATE_RUNNING,
                        T_CPU, T_POLICY, T_PRIO, T_UE_CPU, T_VRUNTIME, TS_RUNNABLE)
from .sim_models import AI_AVG_IDLE, AI_IDLE_STAMP, AI_WAKE_AVG_IDLE, AI_WAKE_STAMP, M_SIS_PROP_ERA
from .sis import update_avg
from .schedutil import CS_WENT_IDLE
from .sim_index import rq_add, rq_del, idle_changed, ou_dirty, set_state
from .sim_eevdf import eevdf_pick, eevdf_place, eevdf_update_lag
from .sim_state import C_NEED_RESCHED, K_EEVDF
from .sim_sched import (acct, attach_task_avg, detach_task_avg, emit, schedule, task_util_est, update_min_vruntime,
                        update_task_avg, list_stamp)


#: sysctl_sched_migration_cost: avg_idle is capped at twice it (exit_idle)
MAX_IDLE_BALANCE_COST = 500_000


@sim_kernel
def move_queued(p, src, dst, now, reason, preempt, S, P, O):
    """Move a queued (runnable, or running on ``src``) task to ``dst``: detach, renormalise, attach.

    A task running on ``src`` (moved by the stopper: active balance, affinity change) stays
    ``src``'s current task: the caller then lets ``src`` schedule (``leave_cpu``) and checks
    preemption on ``dst`` (kept out of here so that no njit function calls itself back).
    """
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    running = S[oCP + (src) * C_NFIELDS + C_CURR] == p
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        ue = S[oTK + (p) * T_NFIELDS + T_UE_CPU]
        est = task_util_est(p, S)
        if ue >= 0:
            S[oCP + (ue) * C_NFIELDS + C_UE_SUM] = S[oCP + (ue) * C_NFIELDS + C_UE_SUM] - est if S[oCP + (ue) * C_NFIELDS + C_UE_SUM] > est else 0
            ou_dirty(ue, S)
        update_task_avg(p, now, S, P, O)
        detach_task_avg(p, src, S, P)
        eevdf = S[S_CONFIG_AT + K_EEVDF]
        if eevdf:
            eevdf_update_lag(p, src, S)     # dequeue_entity: update_entity_lag (ledger cfs-v6.6)
        S[oCP + (src) * C_NFIELDS + C_NR_CFS] -= 1
        if not eevdf:
            S[oTK + (p) * T_NFIELDS + T_VRUNTIME] = S[oTK + (p) * T_NFIELDS + T_VRUNTIME] - S[oCP + (src) * C_NFIELDS + C_MIN_VRUNTIME] + S[oCP + (dst) * C_NFIELDS + C_MIN_VRUNTIME]
        S[oTK + (p) * T_NFIELDS + T_CPU] = dst
        rq_del(p, src, S)
        update_min_vruntime(src, S)         # dequeue_entity's update_min_vruntime, the task gone
        rq_add(p, dst, S)
        list_stamp(p, S)
        attach_task_avg(p, dst, S, P)
        if eevdf:
            eevdf_place(p, dst, S)          # enqueue_entity: place_entity with that lag
        S[oCP + (dst) * C_NFIELDS + C_NR_CFS] += 1
        S[oCP + (dst) * C_NFIELDS + C_UE_SUM] += est
        ou_dirty(dst, S)
        S[oTK + (p) * T_NFIELDS + T_UE_CPU] = dst
    else:
        S[oCP + (src) * C_NFIELDS + C_NR_RT] -= 1
        S[oCP + (dst) * C_NFIELDS + C_NR_RT] += 1
        S[oTK + (p) * T_NFIELDS + T_CPU] = dst
        rq_del(p, src, S)
        rq_add(p, dst, S)
    idle_changed(src, S)
    idle_changed(dst, S)
    emit(O, now, EV_MIGRATE, dst, p, src, reason, 0, 0)
    if running:
        return
    set_state(p, TS_RUNNABLE, S)
    if preempt:
        check_preempt(dst, p, now, S, P, O)


@sim_inline
def check_preempt(c, p, now, S, P, O):
    """``check_preempt_curr``: switch CPU ``c`` to the newly queued ``p`` if it should run now."""
    cur = S[S[S_CPUS] + (c) * C_NFIELDS + C_CURR]
    if cur < 0 or preempts_curr(cur, p, S):
        schedule(c, PREV_STATE_RUNNING, now, S, P, O)


@sim_inline
def preempts_curr(cur, p, S):
    """Whether the newly queued ``p`` preempts the running ``cur`` (``check_preempt_curr``'s decision):
    a FIFO task preempts a CFS one or a FIFO one of lower priority; a CFS task a CFS one whose vruntime
    is ahead by more than the wake-up granularity."""
    oTK = S[S_TASKS]
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO:
        return S[oTK + (cur) * T_NFIELDS + T_POLICY] != POLICY_FIFO or S[oTK + (p) * T_NFIELDS + T_PRIO] > S[oTK + (cur) * T_NFIELDS + T_PRIO]
    if S[oTK + (cur) * T_NFIELDS + T_POLICY] != POLICY_CFS:
        return False
    if S[S_CONFIG_AT + K_EEVDF]:
        # check_preempt_wakeup (v6.6+): curr already due for a switch, or the pick is the wakee
        c = S[oTK + (p) * T_NFIELDS + T_CPU]
        return S[S[S_CPUS] + c * C_NFIELDS + C_NEED_RESCHED] == 1 or eevdf_pick(c, S) == p
    return S[oTK + (cur) * T_NFIELDS + T_VRUNTIME] - S[oTK + (p) * T_NFIELDS + T_VRUNTIME] > S[S_CONFIG_AT + K_WAKEUP_GRAN_NS]


@sim_helper
def exit_idle(c, now, S, P, O):
    """The CPU leaves its idle state (``cpu_idle`` exit event) and updates ``avg_idle``."""
    acct(c, now, S, P)
    emit(O, now, EV_IDLE, c, -1, 0, 0, 0, 0)
    S[S[S_CPUS] + (c) * C_NFIELDS + C_IDLE_STATE] = -1
    o = S[S_IDLE_STATS] + c * S[S_IDLE_STATS_W]
    sample = now - S[o + AI_IDLE_STAMP]
    pera = P[P[P_MODEL_PARAMS] + M_SIS_PROP_ERA]
    # update_avg(): >> 3 before v5.7, signed / 8 from v5.7 (ledger wakeup-v5.7)
    S[o + AI_AVG_IDLE] = update_avg(S[o + AI_AVG_IDLE], sample, pera >= 1)
    if S[o + AI_AVG_IDLE] > 2 * MAX_IDLE_BALANCE_COST:
        S[o + AI_AVG_IDLE] = 2 * MAX_IDLE_BALANCE_COST
    if pera >= 2:       # v5.14+ ttwu_do_wakeup(): wake_stamp = jiffies, wake_avg_idle = avg_idle / 2
        S[o + AI_WAKE_STAMP] = now // S[S_CONFIG_AT + K_TICK_NS]
        S[o + AI_WAKE_AVG_IDLE] = S[o + AI_AVG_IDLE] // 2


@sim_helper
def went_idle(c, now, S, P, O):
    """Book-keeping when CPU ``c`` has just switched to idle: idle stamp, schedutil's went-idle flag."""
    S[S[S_IDLE_STATS] + (c) * S[S_IDLE_STATS_W] + AI_IDLE_STAMP] = now
    d = P[P[P_CPU_PD] + c]
    for j in range(P[P[P_PD_NCPU] + d]):
        if P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j] == c:
            S[S[S_SU_CPU] + ((d) * S[S_SU_CPU_W] + j) * S[S_SU_CPU_W2] + CS_WENT_IDLE] = 1
            break
