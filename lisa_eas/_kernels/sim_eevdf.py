"""EEVDF, the fair class's pick, placement and preemption from v6.6 (numba; ledger cfs-v6.6).

Written from ``kernel/sched/fair.c`` of v6.6 - v6.11 (147f3efaa241 "sched/fair: Implement an
EEVDF-like scheduling policy", 86bfbb7ce4f6 lag-based placement, e8f331bcc270 "sched/smp: Use lag
to simplify cross-runqueue placement", 5e963f2bd465 "sched/fair: Commit to EEVDF", 63304558ba5d
"sched/eevdf: Curb wakeup-preemption" (RUN_TO_PARITY), 650cad561cce "sched/eevdf: Fix
avg_vruntime()"). Every task here is nice 0 and there are no task groups, so each weight is
``scale_load_down(NICE_0_LOAD)`` = 1024 and cancels from the kernel's weighted sums exactly:

* ``V`` (``avg_vruntime``): ``min_vruntime`` plus the floor of the mean of ``vruntime -
  min_vruntime`` over the runqueue's CFS tasks, the running one included while it is queued (the
  kernel floors a negative sum: ``avg -= load - 1`` before ``div_s64``); ``min_vruntime`` alone
  when no CFS task is queued.
* eligible (``entity_eligible`` / ``vruntime_eligible``): ``sum(v_i - m) >= (v - m) * n``.
* ``update_entity_lag`` (at every dequeue): ``vlag = clamp(V - v, -L, L)``, ``L = max(2 *
  slice, TICK_NSEC)``, the task still counted in ``V``.
* ``place_entity`` (at every enqueue): ``v = V - lag``, ``lag = vlag * (n + 1) / n`` truncated
  toward zero (``div_s64``) when ``n`` other CFS tasks are queued, else 0; ``deadline = v +
  slice``. ``slice`` is ``sysctl_sched_base_slice`` (0.75 ms x the CPU-count factor, the
  simulator's ``K_MIN_GRAN_NS``). No ``ENQUEUE_INITIAL`` half slice: rt-app's threads are forked
  before the run and start with lag 0.
* ``update_deadline`` (``update_curr`` at a scheduler event): once ``vruntime >= deadline`` the
  deadline becomes ``vruntime + slice`` and, with another CFS task queued, curr is rescheduled.
* ``pick_eevdf``: curr (queued, eligible) is kept while ``vlag == deadline`` (the stash
  ``set_next_entity`` writes at pick: RUN_TO_PARITY); else the eligible task of earliest deadline,
  curr only when its deadline is strictly earlier. The result is the earliest eligible deadline,
  as the heap walk gives it since 561c58efd239 "sched/fair: Fix pick_eevdf()" (v6.6-rc5). Equal
  deadlines: curr loses to a queued task only when strictly later, as from v6.8 (the tree sorted
  by deadline, 2227a957e1d5; in v6.6 - v6.7 a queued task of equal deadline in a left subtree
  won), and between queued tasks the lowest task index runs (the kernel's order follows its
  tree). The kernel configuration is one with ``CONFIG_FAIR_GROUP_SCHED`` (the common one):
  ``pick_next_task_fair`` picks with prev still ``cfs_rq->curr``, so RUN_TO_PARITY can keep it.

Where the simulator runs these (``sim_sched``, ``sim_loop``, ``sim_rq``): ``update_deadline`` in
``sync_cpu`` (every scheduler event's runqueue update) and before the pick in ``schedule``; the
lag at each dequeue (sleep, exit, migration, a switch to FIFO) and the placement at each enqueue
(wake-up, migration, a switch back to CFS), without the pre-v6.6 ``min_vruntime`` renormalisation;
the stash at each switch to a CFS task; at a tick only a pending reschedule acts; a waking task
preempts when the pick is that task.
"""
from __future__ import annotations

from ._jit import sim_helper, sim_inline
from .sim_layout import S_CONFIG_AT, S_CPUS, S_RQ_TASKS, S_RQ_TASKS_W, S_TASKS
from .sim_state import (C_CURR, C_MIN_VRUNTIME, C_NEED_RESCHED, C_NFIELDS, C_NR_CFS, K_MIN_GRAN_NS, K_TICK_NS,
                        POLICY_CFS, T_CPU, T_DEADLINE, T_NFIELDS, T_POLICY, T_STATE, T_VLAG, T_VRUNTIME,
                        TS_RUNNABLE, TS_RUNNING)


@sim_helper
def eevdf_sum(c, skip, S):
    """``(sum of vruntime - min_vruntime, count)`` over CPU ``c``'s queued CFS tasks (the running
    one included while queued), task ``skip`` left out (-1: none)."""
    oTK = S[S_TASKS]
    m = S[S[S_CPUS] + c * C_NFIELDS + C_MIN_VRUNTIME]
    tot = 0
    n = 0
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    for i in range(1, S[ol] + 1):
        q = S[ol + i]
        if q == skip or S[oTK + q * T_NFIELDS + T_POLICY] != POLICY_CFS:
            continue
        st = S[oTK + q * T_NFIELDS + T_STATE]
        if st == TS_RUNNABLE or st == TS_RUNNING:
            tot += S[oTK + q * T_NFIELDS + T_VRUNTIME] - m
            n += 1
    return tot, n


@sim_helper
def eevdf_avg(c, tot, n, S):
    """``avg_vruntime``: ``min_vruntime`` + the floor of ``tot / n`` (``min_vruntime`` when empty)."""
    m = S[S[S_CPUS] + c * C_NFIELDS + C_MIN_VRUNTIME]
    if n == 0:
        return m
    return m + tot // n          # floor division, as the kernel's biased div_s64 of a negative sum


@sim_helper
def eevdf_update_deadline(c, S):
    """``update_deadline`` for CPU ``c``'s running CFS task (its vruntime brought to now)."""
    oTK = S[S_TASKS]
    oc = S[S_CPUS] + c * C_NFIELDS
    p = S[oc + C_CURR]
    if p < 0 or S[oTK + p * T_NFIELDS + T_POLICY] != POLICY_CFS or S[oTK + p * T_NFIELDS + T_STATE] != TS_RUNNING:
        return
    v = S[oTK + p * T_NFIELDS + T_VRUNTIME]
    if v < S[oTK + p * T_NFIELDS + T_DEADLINE]:
        return
    S[oTK + p * T_NFIELDS + T_DEADLINE] = v + S[S_CONFIG_AT + K_MIN_GRAN_NS]
    if S[oc + C_NR_CFS] > 1:
        S[oc + C_NEED_RESCHED] = 1


@sim_helper
def eevdf_update_lag(p, c, S):
    """``update_entity_lag`` of task ``p`` leaving CPU ``c``'s runqueue (still counted in V)."""
    oTK = S[S_TASKS]
    tot, n = eevdf_sum(c, -1, S)
    lag = eevdf_avg(c, tot, n, S) - S[oTK + p * T_NFIELDS + T_VRUNTIME]
    limit = 2 * S[S_CONFIG_AT + K_MIN_GRAN_NS]
    if limit < S[S_CONFIG_AT + K_TICK_NS]:
        limit = S[S_CONFIG_AT + K_TICK_NS]
    if lag > limit:
        lag = limit
    elif lag < -limit:
        lag = -limit
    S[oTK + p * T_NFIELDS + T_VLAG] = lag


@sim_helper
def eevdf_place(p, c, S):
    """``place_entity`` of task ``p`` joining CPU ``c``'s runqueue (not yet counted)."""
    oTK = S[S_TASKS]
    tot, n = eevdf_sum(c, p, S)
    lag = 0
    if n > 0:
        x = S[oTK + p * T_NFIELDS + T_VLAG] * (n + 1)
        lag = x // n if x >= 0 else -((-x) // n)         # div_s64 truncates toward zero
    v = eevdf_avg(c, tot, n, S) - lag
    S[oTK + p * T_NFIELDS + T_VRUNTIME] = v
    S[oTK + p * T_NFIELDS + T_DEADLINE] = v + S[S_CONFIG_AT + K_MIN_GRAN_NS]


@sim_inline
def eevdf_pick(c, S):
    """``pick_eevdf`` on CPU ``c`` (a CFS task is queued): see the module docstring."""
    oTK = S[S_TASKS]
    m = S[S[S_CPUS] + c * C_NFIELDS + C_MIN_VRUNTIME]
    tot, n = eevdf_sum(c, -1, S)
    cur = S[S[S_CPUS] + c * C_NFIELDS + C_CURR]
    curr = -1
    if cur >= 0 and S[oTK + cur * T_NFIELDS + T_CPU] == c and S[oTK + cur * T_NFIELDS + T_POLICY] == POLICY_CFS \
            and S[oTK + cur * T_NFIELDS + T_STATE] == TS_RUNNING \
            and tot >= (S[oTK + cur * T_NFIELDS + T_VRUNTIME] - m) * n:
        curr = cur
        if S[oTK + cur * T_NFIELDS + T_VLAG] == S[oTK + cur * T_NFIELDS + T_DEADLINE]:
            return curr                     # RUN_TO_PARITY
    best = -1
    best_d = 0
    least = -1
    least_v = 0
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    for i in range(1, S[ol] + 1):
        q = S[ol + i]
        if S[oTK + q * T_NFIELDS + T_POLICY] != POLICY_CFS or S[oTK + q * T_NFIELDS + T_STATE] != TS_RUNNABLE:
            continue
        v = S[oTK + q * T_NFIELDS + T_VRUNTIME]
        if least < 0 or v < least_v:
            least, least_v = q, v
        if tot >= (v - m) * n:
            d = S[oTK + q * T_NFIELDS + T_DEADLINE]
            if best < 0 or d < best_d:
                best, best_d = q, d
    if curr >= 0 and (best < 0 or S[oTK + curr * T_NFIELDS + T_DEADLINE] < best_d):
        return curr
    if best < 0:                # no eligible task (cannot happen: the least vruntime is eligible)
        return least if least >= 0 else cur
    return best
