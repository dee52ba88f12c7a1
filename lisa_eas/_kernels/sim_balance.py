"""The balancer of the simulator's event loop (numba): a CPU going idle (``leave_cpu`` ->
``pull_one``: the newidle balance and the rt pull), the periodic pass (``load_balance``: blocked
averages, the overutilized flag, SIS_UTIL's scan depth, the simplified pull of the eras without the
kernel's balancer) and, at eras v4.16 - v4.19, the kernel's ``load_balance()`` (``lb_level``, with the
decisions of ``sim_lb``; ledger lb-v4.16) run by a newly idle CPU and by every idle CPU when a busy
CPU's tick kicks the nohz idle balance (``nohz_kick``). Documented in ``lisa_eas.sim``."""
from __future__ import annotations

from ._jit import sim_helper, sim_kernel
from .sim_layout import (P_CPU_CAP, P_CPU_PD_N, P_MASKS, P_MASKS_W, P_MODEL_PARAMS, S_CONFIG_AT, S_CPUS, S_GLOBALS_AT,
                         S_IDLE_STATS, S_IDLE_STATS_W, S_RQ_TASKS, S_RQ_TASKS_W, S_TASKS, S_CPU_SETS, S_CPU_SETS_W,
                         S_SCRATCH, S_SCRATCH_W, S_TASK_PELT, S_TASK_PELT_W, P_LLC_ID)
from .sim_state import (C_NFIELDS, T_NFIELDS, C_LB_FAILED, C_LB_INTV, C_LB_LAST, C_NEXT_BAL, K_TICK_NS, G_NEXT_ILB,
                        T_EXEC_START, G_NEWIDLE_SKIP_AVG_IDLE, G_NEWIDLE_SKIP_OVERLOAD, G_OVERLOAD, C_CURR,
                        C_IDLE_STATE, C_NR_CFS, C_NR_RT, G_OVERUTIL, K_PLACEMENT, PLACE_NO_EAS, POLICY_CFS, POLICY_FIFO,
                        PREV_STATE_RUNNING, T_CPU, T_MASK, T_POLICY, T_PRIO, T_STATE, T_SUM_EXEC, TS_RUNNABLE)
from .sim_capacity import capacity_of, task_fits_cpu, update_overutilized, update_thermal_avg
from .pelt import SA_LOAD_AVG
from .sim_models import (AI_AVG_IDLE, M_MISFIT_MIGRATE, M_NEWIDLE_GATE, M_OVERLOAD_MISFIT, NEWIDLE_GATE_V4_14, NEWIDLE_UNGATED, LB_SIMPLE,
                         M_LB_FORM, SC_RESULT)
from .sim_lb import (CACHE_NICE_TRIES, LB_IDLE, LB_MC, LB_NEWLY_IDLE, LB_NOT_IDLE, LBO_ACTIVE, LBO_BALANCED, LBO_FAILED,
                     LBO_MOVED, LBO_PINNED, MIGRATION_COST_NS, PCT_DIE, PCT_MC, lb_find_busiest, lb_interval_after,
                     lb_interval_j, lb_levels, lb_tail, lb_weight, nohz_kick_wanted)
from .sim_rq import MAX_IDLE_BALANCE_COST, check_preempt, exit_idle, move_queued, went_idle
from .sim_wakeup import update_idle_cpu_scan
from .sim_index import CS_COUNTS, CSN_WAITING, CSN_WAITING_RT
from .sim_sched import emit_cpu_util, schedule, sync_cpu, list_stamp


#: pull_one's modes
PULL_PERIODIC = 0
PULL_NEWIDLE = 1


@sim_kernel
def leave_cpu(c, prev_state, now, S, P, O):
    """CPU ``c``'s running task has left it (slept, exited or was migrated away; rq synced):
    ``__schedule`` with the newidle balance of ``pick_next_task_fair`` when nothing is queued,
    then the went-idle book-keeping if the CPU is idle."""
    oCP = S[S_CPUS]
    if S[oCP + (c) * C_NFIELDS + C_NR_CFS] + S[oCP + (c) * C_NFIELDS + C_NR_RT] == 0:
        pull_one(c, now, PULL_NEWIDLE, S, P, O)      # newidle balance before going idle
    schedule(c, prev_state, now, S, P, O)
    if S[oCP + (c) * C_NFIELDS + C_CURR] < 0:
        went_idle(c, now, S, P, O)


@sim_kernel
def pull_one(dst, now, mode, S, P, O):
    """Pull to the idle CPU ``dst``: rt first (always), CFS when balancing is on. ``mode``:
    ``PULL_PERIODIC`` (the periodic pass: rt and, in the simplified form, CFS), ``PULL_NEWIDLE``
    (a CPU going idle; v4.16 - v4.19: ``idle_balance_v4``).

    A newidle CFS pull first passes the era's early exit of the kernel's newidle balance
    (``M_NEWIDLE_GATE``): ``idle_balance()`` (v3.16 - v4.x) and ``newidle_balance()`` up to v5.15
    give up when ``this_rq->avg_idle < sysctl_sched_migration_cost || !this_rq->rd->overload``;
    from c5b0a7eefc70 (v5.16; ``sched_balance_newidle()`` from v6.10, ``rd->overloaded`` from
    v6.9, same test) when ``!rd->overload || avg_idle < sd->max_newidle_lb_cost``. The simulator
    charges no time to balancing: ``max_newidle_lb_cost`` is 0, so from v5.16 the ``avg_idle``
    test (and the per-domain ``avg_idle < curr_cost + max_newidle_lb_cost`` stop of every era)
    never stops the pull. The rt pull (``pull_rt_task``, another kernel path) is not gated."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    om = P[P_MASKS]
    mw = P[P_MASKS_W]
    ocn = S[S_CPU_SETS] + CS_COUNTS * S[S_CPU_SETS_W]
    newidle = mode == PULL_NEWIDLE
    lb_v4 = P[P[P_MODEL_PARAMS] + M_LB_FORM] != LB_SIMPLE
    stop = -1       # the global counting the newidle balance's early exit, -1: it goes on
    gate = P[P[P_MODEL_PARAMS] + M_NEWIDLE_GATE]
    if newidle and gate != NEWIDLE_UNGATED:
        if gate == NEWIDLE_GATE_V4_14 and \
                S[S[S_IDLE_STATS] + dst * S[S_IDLE_STATS_W] + AI_AVG_IDLE] < MAX_IDLE_BALANCE_COST:
            stop = G_NEWIDLE_SKIP_AVG_IDLE
        elif S[S_GLOBALS_AT + G_OVERLOAD] == 0:
            stop = G_NEWIDLE_SKIP_OVERLOAD
    if S[ocn + CSN_WAITING] == 0 and not lb_v4:
        if stop >= 0:
            S[S_GLOBALS_AT + stop] += 1
        return -1      # no task waits on any runqueue: nothing either pull below could find
    best = -1
    best_prio = 0
    if S[ocn + CSN_WAITING_RT] > 0:     # (the scan finds only waiting FIFO tasks)
        # the highest-priority waiting FIFO task allowed on dst (lowest index among equals)
        for c in range(P[P_CPU_PD_N]):
            if c == dst:
                continue
            ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
            for i in range(1, S[ol] + 1):
                p = S[ol + i]
                if S[oTK + (p) * T_NFIELDS + T_STATE] == TS_RUNNABLE and S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO \
                        and P[om + S[oTK + (p) * T_NFIELDS + T_MASK] * mw + dst]:
                    pr = S[oTK + (p) * T_NFIELDS + T_PRIO]
                    if pr > best_prio or (pr == best_prio and p < best):
                        best, best_prio = p, pr
    if best >= 0:
        src = S[oTK + (best) * T_NFIELDS + T_CPU]
        sync_cpu(src, now, S, P)
        sync_cpu(dst, now, S, P)          # as the CFS branch: dst synced and out of idle first
        if S[oCP + (dst) * C_NFIELDS + C_IDLE_STATE] >= 0:
            exit_idle(dst, now, S, P, O)
        move_queued(best, src, dst, now, 1, not newidle, S, P, O)
        return -1
    if stop >= 0:
        S[S_GLOBALS_AT + stop] += 1
        if lb_v4:
            idle_balance_v4(dst, now, True, S, P, O)      # rq->next_balance from rq->sd only
        return -1      # the newidle balance's early exit (above), counted when no rt task was pulled
    if lb_v4:
        # v4.16 - v4.19 (ledger lb-v4.16): the periodic pass moves no CFS task (idle CPUs balance when a
        # busy CPU's tick kicks the nohz idle balance, busy CPUs at their own tick); a CPU going idle
        # runs idle_balance() (the EAS out_balanced rule is in sim_lb.lb_find_busiest)
        if newidle:
            idle_balance_v4(dst, now, False, S, P, O)
        return -1
    if S[S_GLOBALS_AT + G_OVERUTIL] == 0 and S[S_CONFIG_AT + K_PLACEMENT] != PLACE_NO_EAS:
        return -1
    if S[ocn + CSN_WAITING] == S[ocn + CSN_WAITING_RT]:
        return -1      # no CFS task waits: the scan below would find no source
    n = P[P_CPU_PD_N]
    src = -1
    most = 0
    for c in range(n):
        if c == dst:
            continue
        w = 0
        ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
        for i in range(1, S[ol] + 1):
            p = S[ol + i]
            if S[oTK + (p) * T_NFIELDS + T_STATE] == TS_RUNNABLE and S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS \
                    and P[om + S[oTK + (p) * T_NFIELDS + T_MASK] * mw + dst]:
                w += 1
        if w > most:
            most, src = w, c
    if src < 0:
        return -1
    ol = S[S_RQ_TASKS] + src * S[S_RQ_TASKS_W]
    for i in range(1, S[ol] + 1):
        p = S[ol + i]
        if S[oTK + (p) * T_NFIELDS + T_STATE] == TS_RUNNABLE and S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS \
                and P[om + S[oTK + (p) * T_NFIELDS + T_MASK] * mw + dst]:
            sync_cpu(src, now, S, P)
            sync_cpu(dst, now, S, P)
            if S[oCP + (dst) * C_NFIELDS + C_IDLE_STATE] >= 0:
                exit_idle(dst, now, S, P, O)
            move_queued(p, src, dst, now, 1, not newidle, S, P, O)
            return -1
    return -1


@sim_kernel
def lb_level(dst, level, itype, now, S, P, O):
    """One ``load_balance(dst, sd, itype)`` of v4.16 - v4.19 at ``level`` (``sim_lb`` decides; this
    moves): ``detach_tasks`` from the tail of the busiest runqueue's ``cfs_tasks`` (a task not
    allowed on ``dst``, running, cache-hot or heavier than twice the imbalance is skipped and goes
    to the head; one task for a newidle balance, CONFIG_PREEMPT; a busy ``dst`` may take the last
    queued one), ``nr_balance_failed`` (periodic balances only), the active balance by the stopper
    after ``cache_nice_tries + 2`` failed periodic balances or for an RT-pressured lone task (idle
    ``dst``), and ``sd->balance_interval`` after the outcome (``sim_lb.lb_interval_after``).

    Returns ``(ret, moved, cont)``: ``ret`` is ``src << 32 | task`` when the stopper moved the
    running task of ``src`` (the caller then lets ``src`` schedule and checks ``dst``'s
    preemption), else -1; ``moved`` whether a task moved; ``cont`` 0 when ``should_we_balance``
    stopped the walk (``continue_balancing``). A newidle balance's stopper work is not modelled (no
    move; the interval as when none is kicked)."""
    oTK = S[S_TASKS]
    oCP = S[S_CPUS]
    om = P[P_MASKS]
    mw = P[P_MASKS_W]
    newidle = itype == LB_NEWLY_IDLE
    imb_out = S[S[S_SCRATCH] + SC_RESULT * S[S_SCRATCH_W]:S[S_SCRATCH] + SC_RESULT * S[S_SCRATCH_W] + 1]
    fo = oCP + dst * C_NFIELDS + C_LB_FAILED + level
    io = oCP + dst * C_NFIELDS + C_LB_INTV + level
    w = lb_weight(level, dst, P)
    bi = S[io] if S[io] > 0 else w
    src = lb_find_busiest(dst, level, itype, S, P, imb_out)
    if src < 0:
        S[fo] = 0                       # out_balanced
        S[io] = lb_interval_after(LBO_BALANCED, bi, w)
        return -1, 0, 0 if src == -2 else 1     # -2: should_we_balance(): continue_balancing = 0
    imb = imb_out[0]
    moved = 0
    all_pinned = True
    if S[oCP + src * C_NFIELDS + C_NR_CFS] + S[oCP + src * C_NFIELDS + C_NR_RT] > 1:
        loop_max = S[oCP + src * C_NFIELDS + C_NR_CFS] + S[oCP + src * C_NFIELDS + C_NR_RT]
        if loop_max > 32:
            loop_max = 32           # sysctl_sched_nr_migrate
        loop = 0
        while True:
            if itype != LB_NOT_IDLE and S[oCP + src * C_NFIELDS + C_NR_CFS] + S[oCP + src * C_NFIELDS + C_NR_RT] <= 1:
                break               # an idle dst leaves its source one task
            p = lb_tail(src, -1, S, P)
            if p < 0:
                break
            loop += 1
            if loop > loop_max:
                break
            skip = False
            if not P[om + S[oTK + p * T_NFIELDS + T_MASK] * mw + dst]:
                skip = True                         # can_migrate_task: LBF_SOME_PINNED
            else:
                all_pinned = False
                if S[oCP + src * C_NFIELDS + C_CURR] == p:
                    skip = True                     # running
                elif S[oTK + p * T_NFIELDS + T_SUM_EXEC] > 0 and S[fo] <= CACHE_NICE_TRIES \
                        and now - S[oTK + p * T_NFIELDS + T_EXEC_START] < MIGRATION_COST_NS:
                    skip = True                     # task_hot()
                elif S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_LOAD_AVG] // 2 > imb:
                    skip = True
            if skip:
                list_stamp(p, S)                    # list_move() to the head
                continue
            if moved == 0:
                sync_cpu(src, now, S, P)
                sync_cpu(dst, now, S, P)
                if S[oCP + dst * C_NFIELDS + C_IDLE_STATE] >= 0:
                    exit_idle(dst, now, S, P, O)
            load = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_LOAD_AVG]
            move_queued(p, src, dst, now, 1, not newidle, S, P, O)
            moved += 1
            imb -= load
            if newidle or imb <= 0:
                break
    if moved > 0:
        S[fo] = 0
        S[io] = lb_interval_after(LBO_MOVED, bi, w)
        return -1, 1, 1
    if all_pinned and S[oCP + src * C_NFIELDS + C_NR_CFS] + S[oCP + src * C_NFIELDS + C_NR_RT] > 1:
        S[fo] = 0                       # out_all_pinned (the retry without src is not modelled)
        S[io] = lb_interval_after(LBO_PINNED, bi, w)
        return -1, 0, 1
    if not newidle:
        S[fo] += 1
    # need_active_balance(): an RT-pressured lone CFS task (idle dst), or too many failed balances
    pct = PCT_MC if level == LB_MC else PCT_DIE
    cs = capacity_of(src, S, P)
    active = S[fo] > CACHE_NICE_TRIES + 2
    if itype != LB_NOT_IDLE and S[oCP + src * C_NFIELDS + C_NR_CFS] == 1 \
            and cs * pct < P[P[P_CPU_CAP] + src] * 100 and cs * pct < capacity_of(dst, S, P) * 100:
        active = True
    if not active or newidle:
        S[io] = lb_interval_after(LBO_FAILED, bi, w)
        return -1, 0, 1
    cur = S[oCP + src * C_NFIELDS + C_CURR]
    if cur < 0 or not P[om + S[oTK + cur * T_NFIELDS + T_MASK] * mw + dst]:
        S[io] = lb_interval_after(LBO_PINNED, bi, w)    # busiest->curr cannot go to dst: out_one_pinned
        return -1, 0, 1
    S[fo] = CACHE_NICE_TRIES + 1
    S[io] = lb_interval_after(LBO_ACTIVE, bi, w)
    # active_load_balance_cpu_stop -> detach_one_task: the first CFS task from the tail allowed on
    # dst (the stopper runs on src, so the task that was running there is movable too)
    p = lb_tail(src, dst, S, P)
    if p < 0:
        return -1, 0, 1
    S[fo] = 0                           # the stopper moved a task: "reset the failure counter"
    sync_cpu(src, now, S, P)
    sync_cpu(dst, now, S, P)
    if S[oCP + dst * C_NFIELDS + C_IDLE_STATE] >= 0:
        exit_idle(dst, now, S, P, O)
    move_queued(p, src, dst, now, 2, True, S, P, O)
    return ((src << 32) | p if p == cur else -1), 1, 1


@sim_helper
def next_balance_of(c, level, busy, S, P):
    """``sd->last_balance + get_sd_balance_interval(sd, busy)`` of CPU ``c``'s domain at ``level``."""
    oc = S[S_CPUS] + c * C_NFIELDS
    bi = S[oc + C_LB_INTV + level]
    if bi <= 0:
        bi = lb_weight(level, c, P)
    return S[oc + C_LB_LAST + level] + lb_interval_j(bi, busy, S[S_CONFIG_AT + K_TICK_NS], P[P_CPU_PD_N])


@sim_kernel
def idle_balance_v4(dst, now, gated, S, P, O):
    """v4.16 - v4.19 ``idle_balance()`` of a CPU going idle: unless the early exit (``gated``)
    stopped it, ``load_balance(CPU_NEWLY_IDLE)`` at MC then DIE until a task is pulled (no balance
    interval is consulted); ``rq->next_balance`` is brought forward to the visited domains' (the
    lowest only after the early exit) ``last_balance`` + idle interval, at most a second ahead."""
    oCP = S[S_CPUS]
    j = now // S[S_CONFIG_AT + K_TICK_NS]
    nxt = j + 1_000_000_000 // S[S_CONFIG_AT + K_TICK_NS]          # jiffies + HZ
    levels = lb_levels(dst, P)
    for level in range(2):
        if not (levels >> level) & 1:
            continue
        moved = 0
        if not gated:
            _r, moved, _c = lb_level(dst, level, LB_NEWLY_IDLE, now, S, P, O)
        nb = next_balance_of(dst, level, False, S, P)
        if nb < nxt:
            nxt = nb
        if gated or moved or S[oCP + dst * C_NFIELDS + C_NR_CFS] + S[oCP + dst * C_NFIELDS + C_NR_RT] > 0:
            break
    if S[oCP + dst * C_NFIELDS + C_NEXT_BAL] > nxt:
        S[oCP + dst * C_NFIELDS + C_NEXT_BAL] = nxt


@sim_kernel
def rebalance_domains(c, itype, now, S, P, O):
    """v4.16 - v4.19 ``rebalance_domains(rq, idle)``: each level of CPU ``c`` whose ``last_balance``
    + interval (``balance_interval``, times ``busy_factor`` on a busy CPU) has passed is balanced
    (``lb_level``; after a move the CPU's idle type is re-read) and stamped; ``rq->next_balance``
    becomes the earliest next due time. Stops where ``should_we_balance`` says so, and (~) after an
    active balance, which moves at once here (the kernel's stopper runs later and the walk goes on).
    Returns ``lb_level``'s ``src << 32 | task`` for the caller, else -1."""
    oCP = S[S_CPUS]
    tick = S[S_CONFIG_AT + K_TICK_NS]
    j = now // tick
    nxt = j + 60 * (1_000_000_000 // tick)
    upd = False
    ret = -1
    levels = lb_levels(c, P)
    for level in range(2):
        if not (levels >> level) & 1:
            continue
        lo = oCP + c * C_NFIELDS + C_LB_LAST + level
        cont = 1
        if j >= next_balance_of(c, level, itype != LB_IDLE, S, P):
            r, moved, cont = lb_level(c, level, itype, now, S, P, O)
            if moved:
                busy = S[oCP + c * C_NFIELDS + C_CURR] >= 0 or \
                    S[oCP + c * C_NFIELDS + C_NR_CFS] + S[oCP + c * C_NFIELDS + C_NR_RT] > 0
                itype = LB_NOT_IDLE if busy else LB_IDLE
            S[lo] = j
            if r >= 0:
                ret = r
        nb = next_balance_of(c, level, itype != LB_IDLE, S, P)
        if nb < nxt:
            nxt = nb
            upd = True
        if ret >= 0 or not cont:
            break
    if upd:
        S[oCP + c * C_NFIELDS + C_NEXT_BAL] = nxt
        if itype == LB_IDLE and S[S_GLOBALS_AT + G_NEXT_ILB] > nxt:
            S[S_GLOBALS_AT + G_NEXT_ILB] = nxt
    return ret


@sim_kernel
def load_balance(now, S, P, O):
    """The periodic (simplified) load balance; see the module docstring."""
    n = P[P_CPU_PD_N]
    oCP = S[S_CPUS]
    oTK = S[S_TASKS]
    for c in range(n):
        sync_cpu(c, now, S, P)
        update_thermal_avg(c, now, S, P)        # update_blocked_averages: __update_blocked_others
        emit_cpu_util(c, now, S, P, O)
    update_overutilized(now, False, S, P, O)
    update_idle_cpu_scan(S, P)
    # rd->overload rewritten at the root domain (update_sd_lb_stats, before find_busiest_group's
    # EAS out_balanced): a CPU with nr_running > 1, or (v4.20+, asymmetric) a misfit task
    ovl = 0
    for c in range(n):
        if S[oCP + (c) * C_NFIELDS + C_NR_CFS] + S[oCP + (c) * C_NFIELDS + C_NR_RT] > 1:
            ovl = 1
            break
        p = S[oCP + (c) * C_NFIELDS + C_CURR]
        if P[P[P_MODEL_PARAMS] + M_OVERLOAD_MISFIT] and p >= 0 \
                and S[oTK + (p) * T_NFIELDS + T_POLICY] == POLICY_CFS and not task_fits_cpu(p, c, S, P):
            ovl = 1
            break
    S[S_GLOBALS_AT + G_OVERLOAD] = ovl
    if S[S_GLOBALS_AT + G_OVERUTIL] == 0 and S[S_CONFIG_AT + K_PLACEMENT] != PLACE_NO_EAS:
        return
    for dst in range(n):
        if S[oCP + (dst) * C_NFIELDS + C_CURR] < 0 and S[oCP + (dst) * C_NFIELDS + C_NR_CFS] + S[oCP + (dst) * C_NFIELDS + C_NR_RT] == 0:
            moved = pull_one(dst, now, PULL_PERIODIC, S, P, O)
            if moved >= 0:              # an active balance took the running task of its CPU
                leave_cpu(moved >> 32, PREV_STATE_RUNNING, now, S, P, O)     # then src schedules, may go idle
                check_preempt(dst, moved & 0xFFFFFFFF, now, S, P, O)
    # misfit (v4.20+, ledger lb-v4.20): a running CFS task that does not fit its CPU goes to an idle
    # CPU of higher capacity
    if not P[P[P_MODEL_PARAMS] + M_MISFIT_MIGRATE]:
        return
    for c in range(n):
        p = S[oCP + (c) * C_NFIELDS + C_CURR]
        if p < 0 or S[oTK + (p) * T_NFIELDS + T_POLICY] != POLICY_CFS:
            continue
        if task_fits_cpu(p, c, S, P):       # per era with uclamp (sim_capacity.task_fits_cpu)
            continue
        for dst in range(n):
            if P[P[P_CPU_CAP] + dst] > P[P[P_CPU_CAP] + c] and P[P[P_MASKS] + (S[oTK + (p) * T_NFIELDS + T_MASK]) * P[P_MASKS_W] + dst] and S[oCP + (dst) * C_NFIELDS + C_CURR] < 0 \
                    and S[oCP + (dst) * C_NFIELDS + C_NR_CFS] + S[oCP + (dst) * C_NFIELDS + C_NR_RT] == 0:
                sync_cpu(dst, now, S, P)
                if S[oCP + (dst) * C_NFIELDS + C_IDLE_STATE] >= 0:
                    exit_idle(dst, now, S, P, O)
                move_queued(p, c, dst, now, 2, True, S, P, O)
                leave_cpu(c, PREV_STATE_RUNNING, now, S, P, O)     # then src schedules, may go idle
                check_preempt(dst, p, now, S, P, O)
                break


@sim_kernel
def nohz_kick(c, now, S, P, O):
    """v4.16 - v4.19 ``nohz_balancer_kick()`` at the tick of busy CPU ``c`` and, when it kicks, the
    nohz idle balance (``_nohz_idle_balance``): every idle CPU's ``rebalance_domains(CPU_IDLE)``,
    the other idle CPUs in index order, the first idle CPU (the ILB) last. It kicks when some CPU
    is idle, ``nohz.next_balance`` (jiffies: the earliest ``rq->next_balance`` of the idle CPUs the
    last kick visited, plus one jiffy for the kick) has passed and ``c`` runs 2 tasks, or its LLC has more than one busy CPU (``nr_busy_cpus``), or ``c`` runs a
    CFS task with its capacity cut by RT/IRQ pressure (``check_cpu_capacity``): ``sim_lb.nohz_kick_wanted``."""
    n = P[P_CPU_PD_N]
    oCP = S[S_CPUS]
    oG = S_GLOBALS_AT
    if now // S[S_CONFIG_AT + K_TICK_NS] < S[oG + G_NEXT_ILB]:
        return          # time_before(jiffies, nohz.next_balance)
    ilb = -1
    busy_llc = 0
    llc = P[P[P_LLC_ID] + c]
    llc_n = 0
    for q in range(n):
        busy = S[oCP + q * C_NFIELDS + C_CURR] >= 0 or S[oCP + q * C_NFIELDS + C_NR_CFS] + S[oCP + q * C_NFIELDS + C_NR_RT] > 0
        if not busy and ilb < 0:
            ilb = q
        if P[P[P_LLC_ID] + q] == llc:
            llc_n += 1
            if busy:
                busy_llc += 1
    if ilb < 0:
        return          # nohz.nr_cpus == 0: no idle CPU
    if not nohz_kick_wanted(S[oCP + c * C_NFIELDS + C_NR_CFS] + S[oCP + c * C_NFIELDS + C_NR_RT],
                            S[oCP + c * C_NFIELDS + C_NR_CFS], busy_llc, llc_n, capacity_of(c, S, P),
                            P[P[P_CPU_CAP] + c]):
        return
    # kick_ilb(): nohz.next_balance++; _nohz_idle_balance() on the ILB: each other idle CPU whose
    # rq->next_balance is due runs rebalance_domains(CPU_IDLE), nohz.next_balance becomes the
    # earliest of their next_balance; the ILB's own rebalance_domains(CPU_IDLE) last
    S[oG + G_NEXT_ILB] += 1
    j = now // S[S_CONFIG_AT + K_TICK_NS]
    nxt = -1
    for k in range(n + 1):
        dst = ilb if k == n else k
        if k < n and (k == ilb):
            continue
        if S[oCP + dst * C_NFIELDS + C_CURR] >= 0 or S[oCP + dst * C_NFIELDS + C_NR_CFS] + S[oCP + dst * C_NFIELDS + C_NR_RT] > 0:
            continue    # not idle (any more)
        moved = -1
        if k == n or j >= S[oCP + dst * C_NFIELDS + C_NEXT_BAL]:
            moved = rebalance_domains(dst, LB_IDLE, now, S, P, O)
        if k < n and (nxt < 0 or S[oCP + dst * C_NFIELDS + C_NEXT_BAL] < nxt):
            nxt = S[oCP + dst * C_NFIELDS + C_NEXT_BAL]
        if moved >= 0:                  # an active balance took the running task of its CPU
            leave_cpu(moved >> 32, PREV_STATE_RUNNING, now, S, P, O)
            check_preempt(dst, moved & 0xFFFFFFFF, now, S, P, O)
    if nxt >= 0:
        S[oG + G_NEXT_ILB] = nxt


@sim_kernel
def busy_balance(c, now, S, P, O):
    """v4.16 - v4.19 ``trigger_load_balance()`` at the tick of busy CPU ``c``: its own
    ``rebalance_domains(CPU_NOT_IDLE)`` once ``rq->next_balance`` is due (the SCHED_SOFTIRQ, run
    here before the nohz kick the same tick may send), then :func:`nohz_kick`."""
    oCP = S[S_CPUS]
    if now // S[S_CONFIG_AT + K_TICK_NS] >= S[oCP + c * C_NFIELDS + C_NEXT_BAL]:
        moved = rebalance_domains(c, LB_NOT_IDLE, now, S, P, O)
        if moved >= 0:                  # the stopper moved the running task of its CPU to c
            leave_cpu(moved >> 32, PREV_STATE_RUNNING, now, S, P, O)
            check_preempt(c, moved & 0xFFFFFFFF, now, S, P, O)
    nohz_kick(c, now, S, P, O)
