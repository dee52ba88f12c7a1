"""Runqueue mechanics of the simulator (numba): clocks, PELT plumbing, enqueue/dequeue, pick, switch.

The loop's data are three flat ``int64`` arrays: ``S`` the mutable state, ``P`` the static
data and ``O`` the output buffers, their slots declared once by name in ``sim_layout.py``
(``S_TASKS``, ``S_TASK_PELT``, ``P_PD_FREQ``, ``O_EVENTS``...; column names of each table in
``sim_state.py``). Every field on the event path is read with flat offsets
(``S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_UTIL_AVG]``), never through views, which cost
~30 ns each; the PELT updates slice the signal in place and call the ``pelt`` kernels
themselves (``pelt_flat``), after a check on the flat state that skips the updates that would
change nothing.

Two indexes (``sim_index``) keep the loop from scanning every task: a binary heap of the
sleeping tasks ordered by (wake-up time, task index) gives the next wake-up, and each
runqueue keeps its queued tasks (runnable or running) in ascending task order, so
``pick_next``, ``update_min_vruntime`` and the balancer look only at those (same order, same
result as a scan of all tasks).

CFS up to v6.5 is the vruntime-based CFS (``kernel/sched/fair.c``, ledger cfs-v4.14):
``update_curr`` (vruntime advances by wall execution time, all tasks nice 0),
``place_entity`` (a waking task's vruntime is raised to ``min_vruntime - sched_latency/2``,
GENTLE_FAIR_SLEEPERS; ``min_vruntime`` follows ``update_curr`` in ``sync_cpu`` and each
dequeue), ``check_preempt_wakeup`` (wake-up preemption when the wakee's vruntime is more
than ``wakeup_granularity`` behind) and ``check_preempt_tick`` (the
running task is preempted at a tick once it used its ``sched_slice``). From v6.6 the pick,
placement, lag and deadline are EEVDF's (``sim_eevdf``, ledger cfs-v6.6), run from here
(``sync_cpu``, ``enqueue``, ``dequeue_sleep``, ``pick_next``, ``schedule``, ``switch_to``). SCHED_FIFO tasks
sit above CFS: the highest rt priority runs, FIFO among equals, no time slice.

PELT is updated with the arithmetic of the issue-3 kernels (``pelt.update_signal`` for tasks,
``update_load_sum``/``update_load_avg`` for the cfs and rt runqueues) at every enqueue,
dequeue, context switch and tick, against the runqueue's PELT clock
(``update_rq_clock_pelt``/``update_idle_rq_clock_pelt`` through ``clock_pelt_advance`` and
``idle_lost_time``). A task migrating at wake-up is detached from its old cfs_rq
(``remove_entity_load_avg``) and attached to the new one (``attach_entity_load_avg``).

Inlining (the flags come from ``_jit.py``): numba compiles each njit function into its own library, and a call from one to
another stays a call (the arrays passed as 7 words each) unless the callee is inlined. The
small helpers on the event path (here, and in ``sim_capacity``, ``sim_wakeup``, ``sim_governor``,
``sim_eas``, ``sim_index``, ``sim_rq``, ``sim_loop``) are compiled with ``forceinline=True`` (LLVM ``alwaysinline``, done on the
linked bitcode: no extra numba typing, the first compile of the loop as before), the larger
ones with numba's ``inline='always'``; measured on the EAS RFC benchmark (``bench_sim``): the
loop with its output 0.155 s CPU against 0.165 s with those helpers as calls, where
``inline='always'`` on the same helpers took the first compile from ~95 s to ~175 s. A
callee that does not set ``forceinline`` inherits it from its caller's compilation, so it is
set only on helpers whose own callees are small.
"""
from __future__ import annotations

from ._jit import sim_helper, sim_inline, sim_kernel

from .sim_layout import (O_ACTIVATIONS, O_COUNTERS, O_EVENTS, P_CPU_CAP, P_CPU_PD, P_FREQ_SCALE,
                         P_FREQ_SCALE_W, P_IDLE_NSTATES, P_IDLE_RESID, P_IDLE_RESID_W, P_PD_CAP, P_PD_CAP_W,
                         P_PELT_CFG, P_PELT_YN, P_PELT_YN_N, P_PROG, P_PROG_W, S_CFS_PELT, S_CFS_PELT_W,
                         S_CONFIG_AT, S_CPUS, S_DOMAINS, S_GLOBALS_AT, S_RES_BUSY, S_RES_BUSY_W, S_RES_IDLE,
                         S_RES_IDLE_W, S_RQ_TASKS, S_RQ_TASKS_W, S_RT_PELT, S_RT_PELT_W, S_TASKS, S_TASK_PELT,
                         S_TASK_PELT_W, S_WAKE_HEAP)

from .pelt import (CFG_LOAD_AVG_MAX, CFG_SIZE, CFG_WEIGHT_IN_SUM, SA_LAST_UPDATE, SA_LOAD_AVG, SA_PERIOD_CONTRIB,
                   SA_SIZE, SA_UTIL_AVG, SA_UTIL_SUM, cfs_rq_sub_util, clock_pelt_advance, idle_lost_time,
                   pelt_divider, update_load_avg, update_load_sum)
from .sim_state import *  # noqa: F401,F403  (column indices)
from .sim_state import (A_SIZE, A_CDUR, A_CPERIOD, A_CPU, A_END, A_PERF, A_PHASE, A_PHASE_LOOP, A_RUN,
                        A_SLACK, A_START, A_TASK, A_WULAT, C_BUSY_NS, C_CLOCK_PELT, C_CLOCK_TASK, C_CURR,
                        C_IDLE_STATE, C_LAST_ACCT, C_LOST_IDLE, C_MIN_VRUNTIME, C_NEED_RESCHED, C_NEXT_EVENT,
                        C_NEXT_TICK, C_NR_CFS, C_NR_RT, C_UE_SUM, E_A, E_B, E_C, G_WAKE_DIRTY, E_CPU, E_D,
                        E_E, E_KIND, E_TIME, EV_CPU_UTIL, EV_IDLE, EV_SWITCH, EV_TASK_UTIL, G_ENQ_SEQ,
                        INF_TIME, K_DELTA_SCALING, K_LATENCY_NS, K_MIN_GRAN_NS, K_MODEL_EVENTS, K_TICK_NS,
                        K_UE_ERA, K_UTIL_EST, N_ACT, N_EV, N_SUMMARY, OP_RUN, OP_RUNTIME, P_OPP, POLICY_CFS,
                        POLICY_FIFO, T_ACT_CDUR, T_ACT_CPERIOD, T_ACT_PERF, T_ACT_RUN, T_ACT_SLACK,
                        T_ACT_START, T_ACT_WULAT, T_CPU, T_ENQ_SEQ, T_EXEC_START, T_FRESH, T_NR_ACT, T_PC,
                        T_PHASE, T_PHASE_ACT, T_POLICY, T_PRIO, T_REM, T_RT_END, T_SLICE_START, T_STATE,
                        T_SUM_EXEC, T_TIMER_DUE, T_UE_CPU, T_UE_ENQ, T_UE_EWMA, T_VRUNTIME, T_WAKE_AT,
                        TS_RUNNABLE, TS_RUNNING, TS_SLEEPING, G_ALIVE, G_HEAP_N, TS_EXITED, G_LIST_SEQ, T_LIST_SEQ)
from .sim_index import CT_EVENT, CT_TICK, cpu_time_changed, heap_push, heap_remove, rq_add, rq_del
from .sim_index import idle_changed, ou_dirty, set_state
from .sim_layout import P_PD_CPUS, P_PD_CPUS_W, P_PD_NCPU, S_GOV_CPU, S_GOV_CPU_W, S_GOV_CPU_W2
from .sim_layout import P_MODEL_PARAMS

#: model-params slot (the table is sim_models' M_*): ablation "pelt-attach-reset"
M_ATTACH_KEEPS_SUM = 39
from .governors import rt_avg_accrue
from .util_est import UE_V6_12, task_util_est_clear_flag, task_util_est_value, util_est_update
from .sim_eevdf import eevdf_pick, eevdf_place, eevdf_update_deadline, eevdf_update_lag
from .sim_state import K_EEVDF, T_DEADLINE, T_VLAG

NICE_0_LOAD = 1024


@sim_helper
def emit(O, t, kind, cpu, a, b, c, d, e):
    """Append one event to the output buffer (slot 0, rows of E_SIZE; count in slot 3); nothing
    in the summary output (a flag that does not change during a run: a branch always taken the
    same way, where the row's eight stores and its fresh memory are the cost)."""
    if O[O[O_COUNTERS] + N_SUMMARY]:
        return
    nc = O[O_COUNTERS] + N_EV
    n = O[nc]
    r = O[O_EVENTS] + n * E_SIZE
    O[r + E_TIME] = t
    O[r + E_KIND] = kind
    O[r + E_CPU] = cpu
    O[r + E_A] = a
    O[r + E_B] = b
    O[r + E_C] = c
    O[r + E_D] = d
    O[r + E_E] = e
    O[nc] = n + 1


@sim_helper
def cap_now(c, S, P):
    """Capacity of CPU ``c`` at its perf domain's current OPP."""
    d = P[P[P_CPU_PD] + c]
    return P[P[P_PD_CAP] + (d) * P[P_PD_CAP_W] + S[S[S_DOMAINS] + (d) * P_NFIELDS + P_OPP]]


@sim_helper
def freq_scale(c, S, P):
    """``arch_scale_freq_capacity``: current / max frequency, in 1/1024."""
    d = P[P[P_CPU_PD] + c]
    return P[P[P_FREQ_SCALE] + d * P[P_FREQ_SCALE_W] + S[S[S_DOMAINS] + (d) * P_NFIELDS + P_OPP]]     # (f << 10) // f_max, static slot 20


@sim_helper
def acct(c, now, S, P):
    """Residency accounting of CPU ``c`` up to ``now`` (busy per OPP, idle per state)."""
    oCP = S[S_CPUS]
    dt = now - S[oCP + (c) * C_NFIELDS + C_LAST_ACCT]
    if dt > 0:
        if S[oCP + (c) * C_NFIELDS + C_IDLE_STATE] >= 0:
            S[S[S_RES_IDLE] + (c) * S[S_RES_IDLE_W] + S[oCP + (c) * C_NFIELDS + C_IDLE_STATE]] += dt
        else:
            S[S[S_RES_BUSY] + (c) * S[S_RES_BUSY_W] + S[S[S_DOMAINS] + (P[P[P_CPU_PD] + c]) * P_NFIELDS + P_OPP]] += dt
            S[oCP + (c) * C_NFIELDS + C_BUSY_NS] += dt
    S[oCP + (c) * C_NFIELDS + C_LAST_ACCT] = now


@sim_helper
def pelt_now(c, S):
    """``rq_clock_pelt(rq)`` (``rq_clock_task`` with <= v5.0 invariance)."""
    oCP = S[S_CPUS]
    if S[S_CONFIG_AT + K_DELTA_SCALING]:
        return S[oCP + (c) * C_NFIELDS + C_CLOCK_TASK]
    return S[oCP + (c) * C_NFIELDS + C_CLOCK_PELT] - S[oCP + (c) * C_NFIELDS + C_LOST_IDLE]


@sim_helper
def rq_clock(c, now, S, P):
    """``update_rq_clock``: advance the task clock and the PELT clock of CPU ``c`` to ``now``."""
    oCP = S[S_CPUS]
    delta = now - S[oCP + (c) * C_NFIELDS + C_CLOCK_TASK]
    if delta <= 0:
        return
    if S[oCP + (c) * C_NFIELDS + C_CURR] < 0:
        S[oCP + (c) * C_NFIELDS + C_CLOCK_PELT] = now
    else:
        S[oCP + (c) * C_NFIELDS + C_CLOCK_PELT] = clock_pelt_advance(S[oCP + (c) * C_NFIELDS + C_CLOCK_PELT], delta, P[P[P_CPU_CAP] + c], freq_scale(c, S, P))
    S[oCP + (c) * C_NFIELDS + C_CLOCK_TASK] = now


@sim_inline
def update_rq_avgs(c, now, S, P):
    """Bring CPU ``c``'s clocks and its cfs_rq / rt_rq PELT signals to ``now``, the cfs_rq's
    removed util taken first (:func:`apply_removed`, whatever the delta).

    Otherwise a no-op when the rq clock is already at ``now``: the signals were then brought to this
    PELT time by the call that set the clock (``update_load_sum`` returns early for a delta
    under 1024 ns), so the call is skipped before any array view is made.
    """
    oCP = S[S_CPUS]
    if S[oCP + (c) * C_NFIELDS + C_REMOVED_NR]:
        apply_removed(c, S, P)      # update_cfs_rq_load_avg takes the removed util first, at any delta
    if now - S[oCP + (c) * C_NFIELDS + C_CLOCK_TASK] <= 0:
        return
    rq_clock(c, now, S, P)
    ou_dirty(c, S)
    oTK = S[S_TASKS]
    t = pelt_now(c, S)
    sf = freq_scale(c, S, P)
    sc = P[P[P_CPU_CAP] + c]
    curr = S[oCP + (c) * C_NFIELDS + C_CURR]
    nr = S[oCP + (c) * C_NFIELDS + C_NR_CFS]
    cfs_running = 1 if curr >= 0 and S[oTK + (curr) * T_NFIELDS + T_POLICY] == POLICY_CFS else 0
    # update_load_sum(cfs_rq, t, nr * NICE_0_LOAD, nr, cfs_running) + update_load_avg(.., 1, 1)
    pelt_flat(S, S[S_CFS_PELT] + c * S[S_CFS_PELT_W], t, nr * NICE_0_LOAD, nr, cfs_running, sf, sc, 1, 1, P)
    rt_running = 1 if curr >= 0 and S[oTK + (curr) * T_NFIELDS + T_POLICY] == POLICY_FIFO else 0
    pelt_flat(S, S[S_RT_PELT] + c * S[S_RT_PELT_W], t, rt_running, rt_running, rt_running, sf, sc, 1, 1, P)


@sim_inline
def pelt_flat(S, o, now, load, runnable, running, scale_freq, scale_cpu, w_load, w_runnable, P):
    """The PELT update of the signal at ``S[o:o + SA_SIZE]`` with the models' own kernels:
    ``pelt.update_load_sum`` (``___update_load_sum`` + ``accumulate_sum``) then, when a period
    was crossed, ``pelt.update_load_avg(sa, w_load, w_runnable)`` (``___update_load_avg``); the
    configuration and the decay table are the static slots 9 and 10. With ``load = runnable =
    weight * on_rq`` (or ``on_rq`` unless the weight is in the sums) and ``w_load = w_runnable
    = weight`` it is ``pelt.update_signal``. Returns the crossed periods.

    An update less than 1024 ns after the last one changes nothing (``update_load_sum``
    returns 0 without writing): it returns before any view is made."""
    delta = now - S[o + SA_LAST_UPDATE]
    if 0 <= delta < 1024:
        return 0
    ocfg = P[P_PELT_CFG]
    cfg = P[ocfg:ocfg + CFG_SIZE]
    sa = S[o:o + SA_SIZE]
    periods = update_load_sum(sa, now, load, runnable, running, scale_freq, scale_cpu, cfg, P[P[P_PELT_YN]:P[P_PELT_YN] + P[P_PELT_YN_N]])
    if periods:
        update_load_avg(sa, w_load, w_runnable, cfg)
    return periods


@sim_helper
def update_task_avg(p, now, S, P, O):
    """``update_load_avg`` of a CFS task on its runqueue (the rq must be up to date)."""
    if update_task_signal(p, S, P):
        emit_task_util(p, now, S, O)


@sim_helper
def emit_task_util(p, now, S, O):
    if S[S_CONFIG_AT + K_MODEL_EVENTS]:
        oTK = S[S_TASKS]
        o = S[S_TASK_PELT] + p * S[S_TASK_PELT_W]
        emit(O, now, EV_TASK_UTIL, S[oTK + (p) * T_NFIELDS + T_CPU], p, S[o + SA_UTIL_AVG], S[oTK + (p) * T_NFIELDS + T_UE_EWMA], S[oTK + (p) * T_NFIELDS + T_UE_ENQ],
             S[o + SA_LOAD_AVG])


@sim_inline
def task_pelt(p, S, P):
    """The PELT part of ``update_load_avg`` for a CFS task on its runqueue's clock: the periods
    crossed (``___update_load_sum``'s answer); -1 for a non-CFS task."""
    oTK = S[S_TASKS]
    if S[oTK + (p) * T_NFIELDS + T_POLICY] != POLICY_CFS:
        return -1
    c = S[oTK + (p) * T_NFIELDS + T_CPU]
    on_rq = 1 if S[oTK + (p) * T_NFIELDS + T_STATE] == TS_RUNNABLE or S[oTK + (p) * T_NFIELDS + T_STATE] == TS_RUNNING else 0
    running = 1 if S[oTK + (p) * T_NFIELDS + T_STATE] == TS_RUNNING else 0
    o = S[S_TASK_PELT] + p * S[S_TASK_PELT_W]
    t = pelt_now(c, S)
    if 0 <= t - S[o + SA_LAST_UPDATE] < 1024:
        return 0            # update_signal would return 0 without touching the signal
    # pelt.update_signal(sa, t, on_rq, running, NICE_0_LOAD, ..)
    load = NICE_0_LOAD * on_rq if P[P[P_PELT_CFG] + CFG_WEIGHT_IN_SUM] else on_rq
    return pelt_flat(S, o, t, load, load, running, freq_scale(c, S, P), P[P[P_CPU_CAP] + c], NICE_0_LOAD, NICE_0_LOAD, P)


@sim_inline
def sync_entity_load_avg(p, S, P):
    """``sync_entity_load_avg`` of a waking CFS task: ``__update_load_avg_blocked_se`` (decay only,
    no ``cfs_se_util_change``: util_est's flag stays) to ``cfs_rq_last_update_time`` of the cfs_rq
    it slept on, i.e. the PELT time of that runqueue's last update, not now: ``try_to_wake_up``
    does not update prev's rq clock. Called where ``select_task_rq_fair`` and
    ``migrate_task_rq_fair`` call it for a waking task; a second call in one wake-up changes
    nothing (``delta`` 0); a queued task (the affinity path also asks ``select_task_rq``) is not
    synced.
    A task whose own last update is up to 1023 ns past the cfs_rq's (the cfs_rq's update at the
    dequeue returned early) is set back to it (``___update_load_sum``'s negative delta). The time
    is kept in ``G_WAKE_SYNC`` for the wake-up's ``EV_TASK_SYNC``."""
    oTK = S[S_TASKS]
    st = S[oTK + (p) * T_NFIELDS + T_STATE]
    if S[oTK + (p) * T_NFIELDS + T_POLICY] != POLICY_CFS or st == TS_RUNNING or st == TS_RUNNABLE:
        return              # a queued task moved through select_task_rq (affinity change): no sync
    c = S[oTK + (p) * T_NFIELDS + T_CPU]
    t = S[S[S_CFS_PELT] + c * S[S_CFS_PELT_W] + SA_LAST_UPDATE]
    o = S[S_TASK_PELT] + p * S[S_TASK_PELT_W]
    if 0 <= t - S[o + SA_LAST_UPDATE] < 1024:
        return
    pelt_flat(S, o, t, 0, 0, 0, freq_scale(c, S, P), P[P[P_CPU_CAP] + c], NICE_0_LOAD, NICE_0_LOAD, P)
    S[S_GLOBALS_AT + G_WAKE_SYNC] = t


@sim_inline
def clear_ue_flag(p, S):
    """``cfs_se_util_change()``: UTIL_AVG_UNCHANGED off once util_avg was recomputed (only with
    util_est: off, or before v4.17, there is no flag)."""
    if S[S_CONFIG_AT + K_UTIL_EST]:
        oTK = S[S_TASKS]
        ewma, enq = task_util_est_clear_flag(S[oTK + (p) * T_NFIELDS + T_UE_EWMA], S[oTK + (p) * T_NFIELDS + T_UE_ENQ], S[S_CONFIG_AT + K_UE_ERA])
        S[oTK + (p) * T_NFIELDS + T_UE_EWMA] = ewma
        S[oTK + (p) * T_NFIELDS + T_UE_ENQ] = enq


@sim_inline
def update_task_signal(p, S, P):
    """The PELT/util_est-flag part of ``update_load_avg`` (``__update_load_avg_se``: a
    recomputation clears util_est's flag); False for non-CFS tasks."""
    n = task_pelt(p, S, P)
    if n < 0:
        return False
    if n > 0:
        clear_ue_flag(p, S)
    return True


@sim_helper
def emit_cpu_util(c, now, S, P, O):
    if S[S_CONFIG_AT + K_MODEL_EVENTS]:
        oCP = S[S_CPUS]
        emit(O, now, EV_CPU_UTIL, c, S[S[S_CFS_PELT] + (c) * S[S_CFS_PELT_W] + SA_UTIL_AVG], S[oCP + (c) * C_NFIELDS + C_UE_SUM], cap_now(c, S, P),
             S[oCP + (c) * C_NFIELDS + C_NR_CFS] + S[oCP + (c) * C_NFIELDS + C_NR_RT], S[S[S_RT_PELT] + (c) * S[S_RT_PELT_W] + SA_UTIL_AVG])


@sim_helper
def task_util_est(p, S):
    """``_task_util_est(p)`` (0 when util_est is off)."""
    if not S[S_CONFIG_AT + K_UTIL_EST]:
        return 0
    oTK = S[S_TASKS]
    return task_util_est_value(S[oTK + (p) * T_NFIELDS + T_UE_EWMA], S[oTK + (p) * T_NFIELDS + T_UE_ENQ], S[S_CONFIG_AT + K_UE_ERA])


@sim_kernel
def task_util_for_placement(p, S):
    """``task_util_est(p)``: ``max(util_avg, _task_util_est)``."""
    u = S[S[S_TASK_PELT] + (p) * S[S_TASK_PELT_W] + SA_UTIL_AVG]
    e = task_util_est(p, S)
    return u if u > e else e


@sim_kernel
def remove_task_avg(p, c, S, P):
    """``remove_entity_load_avg`` (wake-up migration, exit): the task's util_avg (as last synced)
    goes to CPU ``c``'s ``cfs_rq->removed``; the cfs_rq shows it until its next update
    (:func:`apply_removed`)."""
    oc = S[S_CPUS] + c * C_NFIELDS
    S[oc + C_REMOVED_UTIL] += S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_UTIL_AVG]
    S[oc + C_REMOVED_NR] += 1


@sim_inline
def apply_removed(c, S, P):
    """The removed path of ``update_cfs_rq_load_avg``, before the decay: the removed util ``r``
    and ``r * divider`` (the divider of the cfs_rq as last updated) off the cfs_rq, in the era's
    form (``pelt.cfs_rq_sub_util``, ledger pelt-v5.13 / pelt-v5.17)."""
    oc = S[S_CPUS] + c * C_NFIELDS
    o = S[S_CFS_PELT] + c * S[S_CFS_PELT_W]
    ou_dirty(c, S)
    r = S[oc + C_REMOVED_UTIL]
    cfs_rq_sub_util(S[o:o + SA_SIZE], r, r * pelt_divider_flat(S, o, P),
                    P[P[P_PELT_CFG]:P[P_PELT_CFG] + CFG_SIZE])
    S[oc + C_REMOVED_UTIL] = 0
    S[oc + C_REMOVED_NR] = 0


@sim_kernel
def detach_task_avg(p, c, S, P):
    """``detach_entity_load_avg`` (a queued task moved by the balancer / misfit / affinity path):
    the entity's own util_avg and util_sum off its cfs_rq, in the era's form
    (``pelt.cfs_rq_sub_util``)."""
    o = S[S_CFS_PELT] + c * S[S_CFS_PELT_W]
    ou_dirty(c, S)
    ot = S[S_TASK_PELT] + p * S[S_TASK_PELT_W]
    cfs_rq_sub_util(S[o:o + SA_SIZE], S[ot + SA_UTIL_AVG], S[ot + SA_UTIL_SUM],
                    P[P[P_PELT_CFG]:P[P_PELT_CFG] + CFG_SIZE])


@sim_kernel
def pelt_divider_flat(S, o, P):
    """``pelt.pelt_divider`` (``get_pelt_divider``) of the signal at ``S[o:]``."""
    return pelt_divider(S[o:o + SA_SIZE], P[P[P_PELT_CFG]:P[P_PELT_CFG] + CFG_SIZE])


@sim_kernel
def attach_task_avg(p, c, S, P):
    """``attach_entity_load_avg``: align the task to its new cfs_rq's PELT window and add it."""
    oc = S[S_CFS_PELT] + c * S[S_CFS_PELT_W]
    ou_dirty(c, S)
    ot = S[S_TASK_PELT] + p * S[S_TASK_PELT_W]
    S[ot + SA_LAST_UPDATE] = S[oc + SA_LAST_UPDATE]
    if not P[P[P_MODEL_PARAMS] + M_ATTACH_KEEPS_SUM]:
        S[ot + SA_PERIOD_CONTRIB] = S[oc + SA_PERIOD_CONTRIB]
        S[ot + SA_UTIL_SUM] = S[ot + SA_UTIL_AVG] * pelt_divider_flat(S, ot, P)
    S[oc + SA_UTIL_AVG] += S[ot + SA_UTIL_AVG]
    S[oc + SA_UTIL_SUM] += S[ot + SA_UTIL_SUM]


@sim_helper
def update_min_vruntime(c, S):
    """``update_min_vruntime``: monotonic, follows the smallest of curr and the queued tasks."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    lo = INF_TIME
    nr = S[oCP + c * C_NFIELDS + C_NR_CFS]
    if nr == 0:
        return
    cur = S[oCP + c * C_NFIELDS + C_CURR]
    if nr == 1 and cur >= 0 and S[oTK + (cur) * T_NFIELDS + T_CPU] == c \
            and S[oTK + (cur) * T_NFIELDS + T_POLICY] == POLICY_CFS and S[oTK + (cur) * T_NFIELDS + T_STATE] == TS_RUNNING:
        # the running task is the runqueue's only CFS task: no scan needed
        if S[oTK + (cur) * T_NFIELDS + T_VRUNTIME] > S[oCP + (c) * C_NFIELDS + C_MIN_VRUNTIME]:
            S[oCP + (c) * C_NFIELDS + C_MIN_VRUNTIME] = S[oTK + (cur) * T_NFIELDS + T_VRUNTIME]
        return
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    for i in range(1, S[ol] + 1):
        p = S[ol + i]
        if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
            if S[oTK + (p) * T_NFIELDS + T_VRUNTIME] < lo:
                lo = S[oTK + (p) * T_NFIELDS + T_VRUNTIME]
    if lo < INF_TIME and lo > S[oCP + (c) * C_NFIELDS + C_MIN_VRUNTIME]:
        S[oCP + (c) * C_NFIELDS + C_MIN_VRUNTIME] = lo


@sim_inline
def update_curr(c, now, S, P):
    """``update_curr``: charge the running task for the time since ``exec_start``."""
    oCP = S[S_CPUS]
    oTK = S[S_TASKS]
    p = S[oCP + (c) * C_NFIELDS + C_CURR]
    if p < 0:
        return
    dt = now - S[oTK + (p) * T_NFIELDS + T_EXEC_START]
    if dt <= 0:
        return
    S[oTK + (p) * T_NFIELDS + T_EXEC_START] = now
    S[oTK + (p) * T_NFIELDS + T_SUM_EXEC] += dt
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        S[oTK + (p) * T_NFIELDS + T_VRUNTIME] += dt
    elif S[S_CONFIG_AT + K_GOV] == GOV_SCHEDFREQ:
        rt_avg_row_accrue(c, dt, S, P)          # update_curr_rt(): sched_rt_avg_update()
    if S[oTK + (p) * T_NFIELDS + T_FRESH]:
        return
    op = P[P[P_PROG] + (S[oTK + (p) * T_NFIELDS + T_PC]) * P[P_PROG_W] + 0]
    if op == OP_RUN:
        done = dt * cap_now(c, S, P)
        if done > S[oTK + (p) * T_NFIELDS + T_REM]:
            done = S[oTK + (p) * T_NFIELDS + T_REM]
        S[oTK + (p) * T_NFIELDS + T_REM] -= done
        S[oTK + (p) * T_NFIELDS + T_ACT_PERF] += done
    elif op == OP_RUNTIME:
        S[oTK + (p) * T_NFIELDS + T_ACT_PERF] += dt * cap_now(c, S, P)


@sim_helper
def rt_avg_row_accrue(c, dt, S, P):
    """``sched_rt_avg_update(rq, dt)`` of CPU ``c`` into its schedfreq state row (legacy-governor
    per-CPU state, slot 16): ``governors.rt_avg_accrue`` with ``arch_scale_freq_capacity``."""
    d = P[P[P_CPU_PD] + c]
    j = 0
    for k in range(P[P[P_PD_NCPU] + d]):
        if P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + k] == c:
            j = k
    o = S[S_GOV_CPU] + (d * S[S_GOV_CPU_W] + j) * S[S_GOV_CPU_W2]
    rt_avg_accrue(dt, freq_scale(c, S, P), S[o:o + S[S_GOV_CPU_W2]])


@sim_inline
def op_boundary(p, c, now, S, P):
    """When the running task ``p`` reaches the end of its current run/runtime event."""
    oTK = S[S_TASKS]
    if S[oTK + (p) * T_NFIELDS + T_FRESH]:
        return now
    op = P[P[P_PROG] + (S[oTK + (p) * T_NFIELDS + T_PC]) * P[P_PROG_W] + 0]
    if op == OP_RUN:
        cap = cap_now(c, S, P)
        return now + (S[oTK + (p) * T_NFIELDS + T_REM] + cap - 1) // cap
    if op == OP_RUNTIME:
        # rt-app checks the clock between loops: a runtime that expired while the task was
        # preempted ends as soon as it runs again
        return S[oTK + (p) * T_NFIELDS + T_RT_END] if S[oTK + (p) * T_NFIELDS + T_RT_END] > now else now
    return now


@sim_helper
def refresh_next_event(c, now, S, P):
    oCP = S[S_CPUS]
    p = S[oCP + (c) * C_NFIELDS + C_CURR]
    S[oCP + (c) * C_NFIELDS + C_NEXT_EVENT] = INF_TIME if p < 0 else op_boundary(p, c, now, S, P)
    cpu_time_changed(c, CT_EVENT, S)


@sim_kernel
def sync_cpu(c, now, S, P):
    """Bring CPU ``c`` fully to ``now``: residency, running task's progress, clocks and rq signals."""
    acct(c, now, S, P)
    update_curr(c, now, S, P)
    if S[S_CONFIG_AT + K_EEVDF]:
        eevdf_update_deadline(c, S)     # update_curr's update_deadline (v6.6+, ledger cfs-v6.6)
    update_min_vruntime(c, S)           # update_curr's update_min_vruntime
    update_rq_avgs(c, now, S, P)


@sim_helper
def sync_cpu_bookkeeping(c, now, S, P):
    """A perf domain's CPU brought up to date for the simulator's own accounting (a frequency
    change, a sampling governor's read of busy time), which the kernel does not do: its
    residency always; its clocks and PELT signals only while it runs a task (to integrate the
    busy time at the frequency it ran at). An idle CPU's runqueue stays as the kernel last
    updated it, so a placement or governor reading it meanwhile sees its blocked util (and any
    removed util) undecayed, as in the kernel; its later update decays the same span."""
    acct(c, now, S, P)
    if S[S[S_CPUS] + c * C_NFIELDS + C_CURR] >= 0:
        update_curr(c, now, S, P)
        update_rq_avgs(c, now, S, P)


@sim_helper
def list_stamp(p, S):
    """Task ``p`` goes to the head of its runqueue's ``cfs_tasks`` list (``account_entity_enqueue``'s
    ``list_add``, ``pick_next_task_fair``'s ``list_move`` since 93824900a2e2): a new, highest stamp."""
    S[S_GLOBALS_AT + G_LIST_SEQ] += 1
    S[S[S_TASKS] + p * T_NFIELDS + T_LIST_SEQ] = S[S_GLOBALS_AT + G_LIST_SEQ]


@sim_inline
def enqueue(p, c, now, S, P, O):
    """``enqueue_task``: put task ``p`` (waking or new) on CPU ``c``'s runqueue."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    oK = S_CONFIG_AT
    oG = S_GLOBALS_AT
    migrated = S[oTK + (p) * T_NFIELDS + T_CPU] != c
    S[oTK + (p) * T_NFIELDS + T_CPU] = c
    heap_remove(p, S)
    rq_add(p, c, S)
    S[oG + G_ENQ_SEQ] += 1
    S[oTK + (p) * T_NFIELDS + T_ENQ_SEQ] = S[oG + G_ENQ_SEQ]
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO:
        set_state(p, TS_RUNNABLE, S)
        S[oCP + (c) * C_NFIELDS + C_NR_RT] += 1
        idle_changed(c, S)
        return
    # enqueue_entity: update_load_avg(cfs_rq, se, UPDATE_TG | DO_ATTACH) while se->on_rq is
    # still 0 (the sleeping segment only decays; a migrated task is attached, not aged)
    if migrated:
        attach_task_avg(p, c, S, P)
    update_task_avg(p, now, S, P, O)
    list_stamp(p, S)
    if S[oK + K_EEVDF]:
        eevdf_place(p, c, S)            # place_entity(): V minus the lag it left with (ledger cfs-v6.6)
    else:
        # place_entity(): sleeper credit of half a latency period
        floor = S[oCP + (c) * C_NFIELDS + C_MIN_VRUNTIME] - (S[oK + K_LATENCY_NS] >> 1)
        if S[oTK + (p) * T_NFIELDS + T_VRUNTIME] < floor:
            S[oTK + (p) * T_NFIELDS + T_VRUNTIME] = floor
    set_state(p, TS_RUNNABLE, S)     # se->on_rq = 1
    S[oCP + (c) * C_NFIELDS + C_NR_CFS] += 1
    idle_changed(c, S)
    est = task_util_est(p, S)
    S[oCP + (c) * C_NFIELDS + C_UE_SUM] += est
    ou_dirty(c, S)
    S[oTK + (p) * T_NFIELDS + T_UE_CPU] = c


@sim_inline
def dequeue_sleep(p, now, S, P, O):
    """``dequeue_task(.., DEQUEUE_SLEEP)`` of the running task ``p`` (rq already synced)."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    c = S[oTK + (p) * T_NFIELDS + T_CPU]
    if S[S_CONFIG_AT + K_EEVDF] and S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        eevdf_update_lag(p, c, S)       # dequeue_entity: update_entity_lag, p still counted in V
    rq_del(p, c, S)
    heap_push(p, S)             # its wake-up time is set (advance)
    if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO:
        S[oCP + (c) * C_NFIELDS + C_NR_RT] -= 1
        idle_changed(c, S)
        set_state(p, TS_SLEEPING, S)
        return
    ue_cpu = S[oTK + (p) * T_NFIELDS + T_UE_CPU]
    if ue_cpu >= 0:
        est = task_util_est(p, S)
        S[oCP + (ue_cpu) * C_NFIELDS + C_UE_SUM] = S[oCP + (ue_cpu) * C_NFIELDS + C_UE_SUM] - est if S[oCP + (ue_cpu) * C_NFIELDS + C_UE_SUM] > est else 0
        ou_dirty(ue_cpu, S)
        S[oTK + (p) * T_NFIELDS + T_UE_CPU] = -1
    o = S[S_TASK_PELT] + p * S[S_TASK_PELT_W]
    # v6.12+: util_est_update() before dequeue_entities(), i.e. before the last update below
    early = S[S_CONFIG_AT + K_UTIL_EST] and S[S_CONFIG_AT + K_UE_ERA] >= UE_V6_12
    if early:
        ewma, enq = util_est_update(S[oTK + (p) * T_NFIELDS + T_UE_EWMA], S[oTK + (p) * T_NFIELDS + T_UE_ENQ],
                                    S[o + SA_UTIL_AVG], S[o + 6], P[P[P_CPU_CAP] + c], S[S_CONFIG_AT + K_UE_ERA])
        S[oTK + (p) * T_NFIELDS + T_UE_EWMA] = ewma
        S[oTK + (p) * T_NFIELDS + T_UE_ENQ] = enq
    update_task_signal(p, S, P)   # last update while running
    set_state(p, TS_SLEEPING, S)
    S[oCP + (c) * C_NFIELDS + C_NR_CFS] -= 1
    update_min_vruntime(c, S)     # dequeue_entity's update_min_vruntime, the task gone
    idle_changed(c, S)
    if not S[S_CONFIG_AT + K_UTIL_EST] or early:   # util_est off (or before v4.17), or already updated above
        emit_task_util(p, now, S, O)
        return
    ewma, enq = util_est_update(S[oTK + (p) * T_NFIELDS + T_UE_EWMA], S[oTK + (p) * T_NFIELDS + T_UE_ENQ], S[o + SA_UTIL_AVG],
                                S[o + 6], P[P[P_CPU_CAP] + c], S[S_CONFIG_AT + K_UE_ERA])
    S[oTK + (p) * T_NFIELDS + T_UE_EWMA] = ewma
    S[oTK + (p) * T_NFIELDS + T_UE_ENQ] = enq
    emit_task_util(p, now, S, O)


@sim_inline
def pick_next(c, S):
    """``pick_next_task``: highest rt priority (FIFO order), else the CFS task of least vruntime."""
    oTK = S[S_TASKS]
    best = -1
    nr = S[S[S_CPUS] + c * C_NFIELDS + C_NR_CFS] + S[S[S_CPUS] + c * C_NFIELDS + C_NR_RT]
    if nr == 0:
        return best
    cur = S[S[S_CPUS] + c * C_NFIELDS + C_CURR]
    if nr == 1 and cur >= 0 and S[oTK + (cur) * T_NFIELDS + T_CPU] == c and S[oTK + (cur) * T_NFIELDS + T_STATE] == TS_RUNNING:
        return cur          # the running task is the only one queued here
    best_prio = -1
    best_seq = 0
    best_v = 0
    eevdf = S[S_CONFIG_AT + K_EEVDF]
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    for i in range(1, S[ol] + 1):
        p = S[ol + i]
        st = S[oTK + (p) * T_NFIELDS + T_STATE]
        if S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO:
            pr = S[oTK + (p) * T_NFIELDS + T_PRIO]
            # the running task keeps the CPU against equal priorities (no time slice)
            seq = -1 if st == TS_RUNNING else S[oTK + (p) * T_NFIELDS + T_ENQ_SEQ]
            if pr > best_prio or (pr == best_prio and seq < best_seq):
                best, best_prio, best_seq = p, pr, seq
        elif best_prio <= 0:
            v = S[oTK + (p) * T_NFIELDS + T_VRUNTIME]
            if best < 0 or v < best_v:
                best, best_prio, best_v = p, 0, v
    if eevdf and best_prio == 0:
        return eevdf_pick(c, S)         # v6.6+: pick_eevdf (ledger cfs-v6.6)
    return best


@sim_inline
def choose_idle_state(c, now, S, P):
    """Idle state of a CPU going idle: the deepest one whose target residency fits the time to the
    next timer armed on this CPU (the earliest wake-up of a task that last ran here).

    That wake-up is found by a walk of the wake-up heap that skips every subtree whose root
    wakes no earlier than the best found so far (a node never wakes before its parent), with
    no stack: down to the left child, else on to the next subtree to the right."""
    oTK = S[S_TASKS]
    d = P[P[P_CPU_PD] + c]
    n = P[P[P_IDLE_NSTATES] + d]
    if n <= 1:
        return 0
    # only whether that wake-up comes within the largest target residency matters: the walk
    # starts from that bound (the subtrees waking later are skipped; the same state results)
    nxt = now
    for i in range(n):
        if now + P[P[P_IDLE_RESID] + (d) * P[P_IDLE_RESID_W] + i] > nxt:
            nxt = now + P[P[P_IDLE_RESID] + (d) * P[P_IDLE_RESID_W] + i]
    oh = S[S_WAKE_HEAP]
    nh = S[S_GLOBALS_AT + G_HEAP_N]          # the sleeping tasks
    i = 0
    while True:
        if i < nh:
            p = S[oh + i]
            w = S[oTK + (p) * T_NFIELDS + T_WAKE_AT]
            if w < nxt:
                if S[oTK + (p) * T_NFIELDS + T_CPU] == c:
                    nxt = w                  # its subtree wakes no earlier
                elif 2 * i + 1 < nh:
                    i = 2 * i + 1
                    continue
        while i > 0 and (i & 1) == 0:    # a right child: up to the first ancestor that is a left child
            i = (i - 1) >> 1
        if i == 0:
            break
        i += 1                           # its right sibling
    budget = nxt - now
    st = 0
    for i in range(n):
        if P[P[P_IDLE_RESID] + (d) * P[P_IDLE_RESID_W] + i] <= budget:
            st = i
    return st


@sim_inline
def switch_to(c, nxt, prev_state, now, S, P, O):
    """Context switch on CPU ``c`` to ``nxt`` (-1: idle) from the current task, emitting the events."""
    oCP = S[S_CPUS]
    oTK = S[S_TASKS]
    oK = S_CONFIG_AT
    prev = S[oCP + (c) * C_NFIELDS + C_CURR]
    if prev == nxt:
        return
    acct(c, now, S, P)
    if prev >= 0 and S[oTK + (prev) * T_NFIELDS + T_STATE] == TS_RUNNING:
        set_state(prev, TS_RUNNABLE, S)
    if prev < 0 and S[oCP + (c) * C_NFIELDS + C_IDLE_STATE] >= 0:
        emit(O, now, EV_IDLE, c, -1, 0, 0, 0, 0)
        S[oCP + (c) * C_NFIELDS + C_IDLE_STATE] = -1
    emit(O, now, EV_SWITCH, c, prev, prev_state, nxt, 0, 0)
    S[oCP + (c) * C_NFIELDS + C_CURR] = nxt
    idle_changed(c, S)
    if nxt >= 0:
        set_state(nxt, TS_RUNNING, S)
        if S[oK + K_EEVDF] and S[oTK + (nxt) * T_NFIELDS + T_POLICY] == POLICY_CFS:
            # set_next_entity: the deadline at pick stashed in vlag (RUN_TO_PARITY, ledger cfs-v6.6)
            S[oTK + (nxt) * T_NFIELDS + T_VLAG] = S[oTK + (nxt) * T_NFIELDS + T_DEADLINE]
        S[oTK + (nxt) * T_NFIELDS + T_EXEC_START] = now
        S[oTK + (nxt) * T_NFIELDS + T_SLICE_START] = S[oTK + (nxt) * T_NFIELDS + T_SUM_EXEC]
        if S[oTK + (nxt) * T_NFIELDS + T_TIMER_DUE] >= 0:       # rt-app's wake-up latency after a timer
            S[oTK + (nxt) * T_NFIELDS + T_ACT_WULAT] += now - S[oTK + (nxt) * T_NFIELDS + T_TIMER_DUE]
            S[oTK + (nxt) * T_NFIELDS + T_TIMER_DUE] = -1
        if S[oCP + (c) * C_NFIELDS + C_NEXT_TICK] >= INF_TIME:
            tick = S[oK + K_TICK_NS]
            S[oCP + (c) * C_NFIELDS + C_NEXT_TICK] = (now // tick + 1) * tick
            cpu_time_changed(c, CT_TICK, S)
        refresh_next_event(c, now, S, P)
    else:
        if not S[oK + K_DELTA_SCALING]:      # update_idle_rq_clock_pelt (v5.1+; the rq is synced)
            S[oCP + (c) * C_NFIELDS + C_LOST_IDLE] += idle_lost_time(
                S[S[S_CFS_PELT] + c * S[S_CFS_PELT_W] + SA_UTIL_SUM] + S[S[S_RT_PELT] + c * S[S_RT_PELT_W] + SA_UTIL_SUM],
                S[oCP + (c) * C_NFIELDS + C_CLOCK_TASK], S[oCP + (c) * C_NFIELDS + C_CLOCK_PELT], P[P[P_PELT_CFG] + CFG_LOAD_AVG_MAX])
            S[oCP + (c) * C_NFIELDS + C_CLOCK_PELT] = S[oCP + (c) * C_NFIELDS + C_CLOCK_TASK]
        st = choose_idle_state(c, now, S, P)
        S[oCP + (c) * C_NFIELDS + C_IDLE_STATE] = st
        S[oCP + (c) * C_NFIELDS + C_NEXT_TICK] = INF_TIME
        S[oCP + (c) * C_NFIELDS + C_NEXT_EVENT] = INF_TIME
        cpu_time_changed(c, CT_TICK, S)
        cpu_time_changed(c, CT_EVENT, S)
        emit(O, now, EV_IDLE, c, st, 0, 0, 0, 0)
    S[oCP + (c) * C_NFIELDS + C_NEED_RESCHED] = 0


@sim_kernel
def schedule(c, prev_state, now, S, P, O):
    """``__schedule`` on CPU ``c`` (rq synced): pick the next task and switch if it differs."""
    oCP = S[S_CPUS]
    if S[S_CONFIG_AT + K_EEVDF]:
        eevdf_update_deadline(c, S)     # pick_next_task_fair: update_curr of a still queued prev
    nxt = pick_next(c, S)
    prev = S[oCP + (c) * C_NFIELDS + C_CURR]
    if nxt >= 0 and S[S[S_TASKS] + (nxt) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        list_stamp(nxt, S)              # pick_next_task_fair: list_move to the cfs_tasks head
    if nxt == prev:
        S[oCP + (c) * C_NFIELDS + C_NEED_RESCHED] = 0
        return
    # put_prev_entity / set_next_entity: each signal is brought to ``now`` in the state it had
    # up to now (prev running, nxt waiting on the runqueue), before cfs_rq->curr changes
    if prev >= 0 and S[S[S_TASKS] + (prev) * T_NFIELDS + T_STATE] == TS_RUNNING and S[S[S_TASKS] + (prev) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        update_task_avg(prev, now, S, P, O)      # put_prev_entity: update_load_avg while running
    if nxt >= 0 and S[S[S_TASKS] + (nxt) * T_NFIELDS + T_POLICY] == POLICY_CFS:
        update_task_avg(nxt, now, S, P, O)       # set_next_entity: update_load_avg while still queued
    switch_to(c, nxt, prev_state, now, S, P, O)
    update_min_vruntime(c, S)
    update_rq_avgs(c, now, S, P)


@sim_kernel
def sched_slice(c, S):
    """``sched_slice``: the period (latency, stretched past ``sched_nr_latency``) shared equally."""
    oK = S_CONFIG_AT
    nr = S[S[S_CPUS] + (c) * C_NFIELDS + C_NR_CFS]
    if nr <= 0:
        nr = 1
    period = S[oK + K_LATENCY_NS]
    if nr * S[oK + K_MIN_GRAN_NS] > period:
        period = nr * S[oK + K_MIN_GRAN_NS]
    return period // nr


@sim_helper
def log_activation(p, now, S, O):
    """One rt-app log row for the phase iteration of task ``p`` ending at ``now``."""
    ot = S[S_TASKS] + p * T_NFIELDS
    nc = O[O_COUNTERS] + N_ACT
    n = O[nc]
    r = O[O_ACTIVATIONS] + n * A_SIZE
    O[r + A_TASK] = p
    O[r + A_PHASE] = S[ot + T_PHASE]
    O[r + A_PHASE_LOOP] = S[ot + T_PHASE_ACT]
    O[r + A_START] = S[ot + T_ACT_START]
    O[r + A_END] = now
    O[r + A_RUN] = S[ot + T_ACT_RUN]
    O[r + A_PERF] = S[ot + T_ACT_PERF] >> 10
    O[r + A_SLACK] = S[ot + T_ACT_SLACK]
    O[r + A_CDUR] = S[ot + T_ACT_CDUR]
    O[r + A_CPERIOD] = S[ot + T_ACT_CPERIOD]
    O[r + A_WULAT] = S[ot + T_ACT_WULAT]
    O[r + A_CPU] = S[ot + T_CPU]
    O[nc] = n + 1
    S[ot + T_NR_ACT] += 1
