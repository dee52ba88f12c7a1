"""Scheduler, rt-app and governor logic of the plain-Python reference simulator.

:class:`Scheduler` is mixed into ``ref_sim_engine.Simulation``, which owns the state: ``cpus``,
``pds``, ``tasks`` (``ref_sim_engine_state`` objects), ``prog`` (the compiled op program as
tuples), ``masks``, ``prm`` (RunParams), ``era``/``yn`` (PELT), ``em`` (the twin's own EM,
``ref_eas.TwinEM``) and the output lists ``events``, ``activations``, ``eas_log``.

Kernel functions each step follows, reviewed against kernel/sched/fair.c of v5.4 (5.4.y tree
1xtAsh/kernel-msm5.4 at 3c86cf72dd29; the CFS core there is mainline's) and, for the removal
forms, the v5.13 / v5.17 patches named below; the v6.6+ (EEVDF) forms against a v6.8 fair.c
and the v6.6 commits named in the rows. "=" the order and arithmetic agree; "~" a stated
simplification of the simulator (both engines), not a kernel reading.

=========================  ===============================================================  ====
step (method)              kernel function(s), in the kernel's order                        rev.
=========================  ===============================================================  ====
update_rq                  update_rq_clock -> update_rq_clock_pelt (delta * cap >> 10,      = / ~
                           * freq >> 10 while busy; synced when idle, v5.1+), then the
                           cfs_rq's update_cfs_rq_load_avg and update_rt_rq_load_avg (~: at
                           every runqueue update, where the kernel updates the rt_rq only in
                           put_prev/pick/tick of the rt class and update_blocked_averages)
sync_cpu                   the runqueue update of a scheduler event: update_curr (v6.6+     =
                           with update_deadline; then update_min_vruntime, as
                           update_curr ends), then update_rq; not at a frequency
                           change (sync_cpu_bookkeeping) nor at an rt-app op boundary
                           (op_done)
enqueue                    enqueue_task_fair -> enqueue_entity: update_curr; vruntime +=    =
                           min_vruntime when migrated; update_load_avg(UPDATE_TG |
                           DO_ATTACH) with se->on_rq = 0 (attach_entity_load_avg when
                           last_update_time == 0); account_entity_enqueue; place_entity
                           (min_vruntime - sysctl_sched_latency / 2, GENTLE_FAIR_SLEEPERS);
                           se->on_rq = 1; util_est_enqueue (a plain add, order immaterial)
                           v6.6+ (86bfbb7ce4f6, e8f331bcc270): place_entity = V
                           (avg_vruntime, floored) less vlag * (n + 1) / n (div_s64,
                           toward zero), deadline = vruntime + base slice; no min_vruntime
                           renormalisation
dequeue_sleep              dequeue_task_fair -> dequeue_entity: update_curr;                =
                           update_load_avg with se == cfs_rq->curr (running); se->on_rq = 0;
                           util_est_dequeue / util_est_update on the fresh util_avg;
                           update_min_vruntime once the task is off the runqueue (also
                           on src at a move_queued)
                           v6.6+: update_entity_lag (vlag = V - vruntime, clamped to
                           +-max(2 * slice, TICK_NSEC)) before se->on_rq = 0
schedule                   __schedule -> pick_next_task_fair: put_prev_entity               = / ~
                           (update_load_avg, prev still curr) then set_next_entity
                           (update_load_avg while queued, then cfs_rq->curr = se);
                           pick_next_entity = leftmost vruntime (~: no next / last / skip
                           buddies; LAST_BUDDY only acts with >= sched_nr_latency tasks)
                           v6.6+: pick_next_task_fair's update_curr -> update_deadline,
                           then pick_eevdf; set_next_entity stashes vlag = deadline
                           (63304558ba5d)
pick_next                  pick_next_task_rt (highest prio, FIFO order) before CFS         = / ~
                           v6.6+ CFS: pick_eevdf (147f3efaa241, 561c58efd239): the
                           eligible entity of the earliest deadline, curr kept while vlag
                           == deadline (RUN_TO_PARITY); ~: equal deadlines by task index
                           (the kernel: its tree's order)
tick                       scheduler_tick -> task_tick_fair -> entity_tick: update_curr,   =
                           update_load_avg(curr), check_preempt_tick (slice from
                           __sched_period, min_granularity, leftmost vruntime delta);
                           update_overutilized_status
                           v6.6+ (5e963f2bd465): entity_tick without check_preempt_tick;
                           update_curr's update_deadline (a new deadline once vruntime
                           reaches it, resched_curr with nr_running > 1) drives the switch
check_preempt              check_preempt_curr -> check_preempt_wakeup /                    =
                           wakeup_preempt_entity (vdiff > wakeup_gran, nice 0);
                           check_preempt_curr_rt (higher prio)
                           v6.6+: check_preempt_wakeup_fair: need_resched already set, or
                           pick_eevdf(cfs_rq) == pse
wake_up                    try_to_wake_up -> select_task_rq_fair (find_energy_efficient_cpu ~
                           then, on the waker's CPU (a resume) or prev (a timer):
                           want_affine with wake_cap(), wake_affine(), the slow path or
                           select_idle_sibling(p, prev, target); ~: wake_wide() = 0, a
                           resume never sync), migrate_task_rq_fair ->
                           remove_entity_load_avg, ttwu_do_activate -> enqueue,
                           check_preempt_curr. No clock of prev is updated;
                           sync_entity_load_avg (in find_energy_efficient_cpu past the
                           overutilized test, wake_cap() when the capacities differ by 1/8,
                           find_idlest_cpu(), the asym select_idle_sibling /
                           select_idle_capacity, remove_entity_load_avg) is a blocked update
                           to prev cfs_rq's last_update_time: util_est's UTIL_AVG_UNCHANGED
                           stays, a migrated task is attached with that util, and only the
                           enqueue's update on prev (from that time to now) clears the flag
                           v6.6+: no vruntime -= / += min_vruntime across CPUs
                           (e8f331bcc270)
remove_avg                 remove_entity_load_avg into cfs_rq->removed, taken by the         =
                           cfs_rq's next update_cfs_rq_load_avg (summed, before its decay):
                           < v5.13 sub_positive(util_sum, r * divider); v5.13-v5.16
                           util_sum = util_avg * divider (1c35b07e6d39); v5.17+ sub_positive
                           then >= util_avg * PELT_MIN_DIVIDER (98b0d890220d,
                           7ceb77103001)
detach_entity_avg          detach_entity_cfs_rq -> detach_entity_load_avg (the entity's    =
                           util_sum off; same three era forms)
attach_avg                 attach_entity_load_avg (last_update_time / period_contrib of the = / ~
                           cfs_rq, util_sum = util_avg * divider; ~: load_sum is not
                           rebuilt from load_avg, only util is compared)
move_queued                detach_task (deactivate_task, set_task_cpu with                 ~
                           TASK_ON_RQ_MIGRATING) / attach_task (activate_task); ~: the
                           periodic balance pulls one task to an idle CPU and moves a misfit
                           task to an idle bigger CPU, no load_balance() group statistics
                           (eras v4.16 - v4.19: lb_level below)
                           v6.6+: dequeue_entity's update_entity_lag on src,
                           enqueue_entity's place_entity on dst (no min_vruntime
                           renormalisation)
pull_one                   newidle_balance / pull_rt_task                                  ~
lb_level                   v4.16 - v4.19 load_balance (ref_lb: should_we_balance,          = / ~
                           find_busiest_group, find_busiest_queue, detach_tasks on the
                           cfs_tasks order, need_active_balance, balance_interval after the
                           outcome; ~: idx-0 loads, no affinity re-targeting, the stopper
                           moves at once; v4.19 fair.c, same LB code as v4.17), run by
idle_balance_v4            idle_balance (newidle, no interval),                            =
rebalance_domains          rebalance_domains (per-domain last_balance + interval, x32      = / ~
                           busy; ~: the walk stops after the stopper moved a running task),
                           called at a busy CPU's tick (CPU_NOT_IDLE) and by nohz_kick
select_rt_cpu              select_task_rq_rt -> find_lowest_rq (simplified order)          ~
set_sched                  __sched_setscheduler: update_rq_clock, class change             ~
                           (~: the task's own PELT is not updated there)
                           v6.6+: update_entity_lag leaving CFS, place_entity (with the
                           lag kept) joining it, then set_next_task_fair's vlag = deadline
                           stash (the task runs on)
op_done                    no kernel event (an rt-app op boundary); a missed
                           clock_nanosleep deadline touches no runqueue
governor_update            cpufreq_update_util -> sugov_update_shared (ref_schedutil) /    =
                           schedfreq
governor_timer             ondemand dbs_update / interactive timer (~: every runqueue of    ~
                           the domain is synced); ondemand's sample waits while RT tasks
                           hold the policy's busy CPUs (its kworker is SCHED_NORMAL)
=========================  ===============================================================  ====

Where the numba simulator computes a step otherwise, the step is a named entry of
``ref_sim_engine.ENGINE_DEVIATIONS`` (held by ``tests/test_sim_reference_engine.py``).
"""
from __future__ import annotations

from . import ref_fork, ref_eas, ref_governors, ref_lb, ref_sis, ref_wake_affine
from . import ref_sim_schema as ss
from .ref_pelt import update_load_avg, update_load_sum
from .ref_util_est import clear_flag, task_util_est, util_est_update
from .ref_sim_engine_state import CFS, EXITED, FIFO, INF_TIME, NEW_OR_SLEEPING, RUNNABLE, RUNNING

NICE_0_LOAD = 1024
MIGRATION_COST_NS = 500_000
PREV_RUNNING, PREV_SLEEP, PREV_DEAD = ss.PREV_STATE_RUNNING, ss.PREV_STATE_SLEEP, ss.PREV_STATE_DEAD
OP_PHASE_BEGIN, OP_RUN, OP_RUNTIME, OP_SLEEP, OP_TIMER = 0, 1, 2, 3, 4
OP_PHASE_END, OP_TASK_END, OP_SET_SCHED, OP_SET_AFFINITY, OP_EXIT, OP_START = 5, 6, 7, 8, 9, 10
OP_SUSPEND, OP_RESUME = 11, 12


class Scheduler:
    """The simulator's algorithm as methods over the state objects (mixed into ``Simulation``).

    Method names follow the kernel functions they stand for (``enqueue`` = ``enqueue_task``,
    ``schedule`` = ``__schedule``, ``update_rq`` = ``update_rq_clock`` + the runqueues'
    ``update_load_avg``, ``tick`` = ``scheduler_tick``, ...). A CPU's runqueue is the set of
    tasks whose ``cpu`` is it and whose state is runnable or running (:meth:`queued`);
    ``nr_cfs``/``nr_rt`` count them per class.
    """

    deviations = frozenset()     # ref_sim_engine.ENGINE_DEVIATIONS computed the simulator's way (none today)

    # ================================================================== output
    def emit(self, t, kind, cpu, a=0, b=0, c=0, d=0, e=0):
        self.events.append((t, kind, cpu, a, b, c, d, e))

    def emit_task_util(self, p, now):
        if self.prm.model_events:
            self.emit(now, ss.EV_TASK_UTIL, p.cpu, p.idx, p.sa.util_avg, p.ue_ewma, p.ue_enqueued, p.sa.load_avg)

    def emit_cpu_util(self, c, now):
        if self.prm.model_events:
            self.emit(now, ss.EV_CPU_UTIL, c.idx, c.cfs.util_avg, c.ue_sum, self.cap_now(c), c.nr_running,
                      c.rt.util_avg)

    # ================================================================== capacities and utilization
    def cap_now(self, c):
        return c.pd.caps[c.pd.opp]

    def freq_scale(self, c):
        return (c.pd.freq << 10) // c.pd.freqs[-1]

    def capacity_of(self, c):
        return max(c.capacity - c.rt.util_avg, 1)

    def cpu_util(self, c):
        return min(max(c.cfs.util_avg, c.ue_sum), c.capacity)

    def task_util_est(self, p):
        if not self.prm.util_est:
            return 0
        return task_util_est(p.ue_ewma, p.ue_enqueued, self.prm.ue_era)

    def task_util(self, p):
        return max(p.sa.util_avg, self.task_util_est(p))

    def allowed(self, p, c):
        return bool(self.masks[p.mask][c.idx])

    def queued(self, c):
        """Tasks on CPU ``c``'s runqueue (the running one included), by task index."""
        return [p for p in self.tasks if p.cpu == c.idx and p.state in (RUNNABLE, RUNNING)]

    # ================================================================== clocks, residency, PELT
    def account(self, c, now):
        dt = now - c.last_acct
        if dt > 0:
            if c.idle_state >= 0:
                c.res_idle[c.idle_state] += dt
            else:
                c.res_busy[c.pd.opp] += dt
                c.busy_ns += dt
        c.last_acct = now

    def pelt_now(self, c):
        """rq_clock_pelt: the PELT clock less the idle time lost while saturated (v5.1+)."""
        return c.clock_task if self.era["delta_scaling"] else c.clock_pelt - c.lost_idle

    def update_rq(self, c, now):
        """update_rq_clock + the cfs_rq / rt_rq signals of ``c`` (only the removed util is taken if
        the clock is at ``now``)."""
        self.take_removed(c)
        delta = now - c.clock_task
        if delta <= 0:
            return
        if c.curr is None:
            c.clock_pelt = now                          # idle: the PELT clock syncs to the task clock
        else:
            c.clock_pelt += ((delta * c.capacity) >> 10) * self.freq_scale(c) >> 10
        c.clock_task = now
        t = self.pelt_now(c)
        sf = self.freq_scale(c)
        cur = c.curr
        cfs_running = 1 if cur is not None and cur.policy == CFS else 0
        rt_running = 1 if cur is not None and cur.policy == FIFO else 0
        if update_load_sum(c.cfs, t, c.nr_cfs * NICE_0_LOAD, c.nr_cfs, cfs_running, sf, c.capacity, self.era,
                           self.yn):
            update_load_avg(c.cfs, 1, self.era)
        if update_load_sum(c.rt, t, rt_running, rt_running, rt_running, sf, c.capacity, self.era, self.yn):
            update_load_avg(c.rt, 1, self.era)

    def update_curr(self, c, now):
        p = c.curr
        if p is None:
            return
        dt = now - p.exec_start
        if dt <= 0:
            return
        p.exec_start = now
        p.sum_exec += dt
        if p.policy == CFS:
            p.vruntime += dt
        elif self.prm.governor == "schedfreq":
            # update_curr_rt -> sched_rt_avg_update: the RT time weighted by the frequency's capacity
            c.rt_avg += dt * self.freq_scale(c)
        if p.fresh:
            return
        op = self.prog[p.pc][0]
        if op == OP_RUN:
            done = min(dt * self.cap_now(c), p.rem_work)
            p.rem_work -= done
            p.act_perf += done
        elif op == OP_RUNTIME:
            p.act_perf += dt * self.cap_now(c)

    def sync_cpu(self, c, now):
        """The runqueue update of a scheduler event on ``c``: residency, ``update_curr`` (v6.6+ with its
        ``update_deadline``), then the clocks and signals."""
        self.account(c, now)
        self.update_curr(c, now)
        if self.prm.eevdf:
            self.update_deadline(c)
        self.update_min_vruntime(c)                     # update_curr ends in update_min_vruntime
        self.update_rq(c, now)

    def sync_cpu_bookkeeping(self, c, now):
        """A frequency change or a sampling governor's read of busy time: residency always; the
        runqueue's clock and signals only while a task runs on it (the kernel updates no idle
        runqueue there)."""
        self.account(c, now)
        if c.curr is not None:
            self.update_curr(c, now)
            self.update_rq(c, now)

    def update_task_signal(self, p):
        """The entity's PELT update on its runqueue's clock: ``__update_load_avg_se``, whose
        recomputation clears util_est's UTIL_AVG_UNCHANGED (``cfs_se_util_change``; the wake-up's
        blocked update is :meth:`sync_entity`). None for non-CFS tasks, else whether a period was
        crossed."""
        if p.policy != CFS:
            return None
        c = self.cpus[p.cpu]
        on_rq = 1 if p.state in (RUNNABLE, RUNNING) else 0
        running = 1 if p.state == RUNNING else 0
        load = NICE_0_LOAD * on_rq if self.era["weight_in_sum"] else on_rq
        if update_load_sum(p.sa, self.pelt_now(c), load, load, running, self.freq_scale(c), c.capacity, self.era,
                           self.yn):
            update_load_avg(p.sa, NICE_0_LOAD, self.era)
            self.ue_flag_off(p)
            return True
        return False

    def sync_entity(self, p):
        """``sync_entity_load_avg(&p->se)``: ``__update_load_avg_blocked_se(cfs_rq_last_update_time(
        cfs_rq_of(se)), se)``, the sleeping task's signal decayed (nothing accrues, util_est's flag
        is left alone) to the last update of the cfs_rq it slept on; the wake-up updates no clock
        of prev. Returns nothing; remembers the time in ``self.wake_sync`` when the signal moved."""
        if p.policy != CFS or p.state in (RUNNABLE, RUNNING):      # only a task being woken
            return
        c = self.cpus[p.cpu]
        t = c.cfs.last_update_time
        before = p.sa.last_update_time
        if update_load_sum(p.sa, t, 0, 0, 0, self.freq_scale(c), c.capacity, self.era, self.yn):
            update_load_avg(p.sa, NICE_0_LOAD, self.era)
        if p.sa.last_update_time != before:
            self.wake_sync = t

    def ue_flag_off(self, p):
        if self.prm.util_est:               # util_est_update / its flag only exist with util_est
            p.ue_ewma, p.ue_enqueued = clear_flag(p.ue_ewma, p.ue_enqueued, self.prm.ue_era)

    def update_task_avg(self, p, now):
        if self.update_task_signal(p) is not None:
            self.emit_task_util(p, now)

    def divider(self, sa):
        lam = self.era["load_avg_max"]
        return lam - 1024 + sa.period_contrib if self.era["divider_mode"] else lam

    def _cfs_rq_sub_util(self, rq, r, r_sum):
        """Take util ``r`` (its sum ``r_sum``) out of cfs_rq signal ``rq`` in the era's form."""
        form = self.era["cfs_removal"]
        rq.util_avg = max(rq.util_avg - r, 0)
        if form == 1:
            rq.util_sum = rq.util_avg * self.divider(rq)
            return
        rq.util_sum = max(rq.util_sum - r_sum, 0)
        if form == 2:
            rq.util_sum = max(rq.util_sum, rq.util_avg * (self.era["load_avg_max"] - 1024))

    def remove_avg(self, p, c):
        """``remove_entity_load_avg`` (wake-up migration ``migrate_task_rq_fair``, exit
        ``task_dead_fair``): the task's util_avg, as it was synced, joins ``cfs_rq->removed``;
        the cfs_rq still holds it until :meth:`update_rq`."""
        c.removed.append(p.sa.util_avg)

    def take_removed(self, c):
        """``update_cfs_rq_load_avg``'s first step: the summed removed util ``r`` off util_avg and
        ``r * divider`` off util_sum (the divider of the cfs_rq before this update's decay)."""
        if c.removed:
            r = sum(c.removed)
            c.removed.clear()
            self._cfs_rq_sub_util(c.cfs, r, r * self.divider(c.cfs))

    def detach_entity_avg(self, p, c):
        """``detach_entity_cfs_rq`` -> ``detach_entity_load_avg`` (a queued task moved by the load
        balancer / misfit / affinity path: ``migrate_task_rq_fair`` with TASK_ON_RQ_MIGRATING):
        the entity's own util_avg and util_sum come off the cfs_rq at once."""
        self._cfs_rq_sub_util(c.cfs, p.sa.util_avg, p.sa.util_sum)

    def attach_avg(self, p, c):
        """attach_entity_load_avg: align the task to ``c``'s cfs_rq PELT window and add it."""
        rq, sa = c.cfs, p.sa
        sa.last_update_time = rq.last_update_time
        sa.period_contrib = rq.period_contrib
        sa.util_sum = sa.util_avg * self.divider(sa)
        rq.util_avg += sa.util_avg
        rq.util_sum += sa.util_sum

    def ue_remove(self, p):
        """Take the task's estimate out of the util_est sum it is in."""
        if p.ue_cpu >= 0:
            rq = self.cpus[p.ue_cpu]
            rq.ue_sum = max(rq.ue_sum - self.task_util_est(p), 0)
            p.ue_cpu = -1

    # ================================================================== CFS / FIFO runqueue
    def update_min_vruntime(self, c):
        if c.nr_cfs == 0:
            return
        vrs = [p.vruntime for p in self.queued(c) if p.policy == CFS]
        if vrs:
            c.min_vruntime = max(c.min_vruntime, min(vrs))

    def sched_slice(self, c):
        nr = max(c.nr_cfs, 1)
        period = max(self.prm.latency_ns, nr * self.prm.min_gran_ns)
        return period // nr

    # ------------------------------------------------------------------ EEVDF (v6.6+)
    # One cfs_rq per CPU, nice-0 tasks only: every weight is scale_load_down(NICE_0_LOAD) = 1024,
    # which cancels out of avg_vruntime / vruntime_eligible / place_entity (kept exact below).
    def cfs_curr(self, c):
        """``cfs_rq->curr`` if it is still ``on_rq``: the CFS task running on ``c``, not yet dequeued."""
        p = c.curr
        if p is not None and p.policy == CFS and p.state == RUNNING and p.cpu == c.idx:
            return p
        return None

    def eevdf_set(self, c, without=None):
        """The entities ``avg_vruntime`` sums over: the CFS tasks queued on ``c`` and the running
        one while on_rq (``cfs_rq->avg_vruntime`` plus ``curr``), ``without`` left out."""
        return [p for p in self.queued(c) if p.policy == CFS and p is not without]

    def avg_vruntime(self, c, without=None):
        """``avg_vruntime()`` (650cad561cce): V = min_vruntime + the keys' sum over their count,
        rounded toward minus infinity (the kernel subtracts ``load - 1`` from a negative sum before
        ``div_s64``; 1024 * sum / (1024 * n) floors as sum / n). An empty set gives min_vruntime."""
        ents = self.eevdf_set(c, without)
        m = c.min_vruntime
        if not ents:
            return m
        return m + sum(p.vruntime - m for p in ents) // len(ents)

    def eligible(self, c, p):
        """``entity_eligible()`` / ``vruntime_eligible()``: sum of keys >= key(p) * count, over the
        on_rq set of ``c`` (``p`` in it), exact (no division)."""
        ents = self.eevdf_set(c)
        m = c.min_vruntime
        return sum(q.vruntime - m for q in ents) >= (p.vruntime - m) * len(ents)

    def update_deadline(self, c):
        """``update_deadline()`` of ``update_curr()``: once the running task's vruntime reaches its
        deadline, a new one base-slice ahead, and ``resched_curr`` if ``cfs_rq->nr_running > 1``."""
        p = self.cfs_curr(c)
        if p is None or p.vruntime < p.deadline:
            return
        p.deadline = p.vruntime + self.prm.min_gran_ns
        if c.nr_cfs > 1:
            c.need_resched = True

    def update_entity_lag(self, p, c):
        """``update_entity_lag()`` of ``dequeue_entity()``, ``p`` still counted on ``c``:
        vlag = V - vruntime clamped to +-max(2 * slice, TICK_NSEC) (nice 0: calc_delta_fair is 1:1)."""
        limit = max(2 * self.prm.min_gran_ns, self.prm.tick_ns)
        p.vlag = max(-limit, min(limit, self.avg_vruntime(c) - p.vruntime))

    def place(self, p, c):
        """``place_entity()`` (86bfbb7ce4f6, PLACE_LAG) of ``p`` joining ``c`` (not yet counted):
        with n > 0 entities on_rq the stored lag is inflated to vlag * (n + 1) / n, ``div_s64``
        truncating toward zero (of vlag * 1024(n + 1) by 1024 n); vruntime = V - lag, deadline =
        vruntime + base slice (no ENQUEUE_INITIAL half slice: rt-app's threads are forked before)."""
        n = len(self.eevdf_set(c, p))
        lag = 0
        if n:
            num = p.vlag * (n + 1)
            lag = num // n if num >= 0 else -((-num) // n)
        p.vruntime = self.avg_vruntime(c, p) - lag
        p.deadline = p.vruntime + self.prm.min_gran_ns

    def pick_eevdf(self, c):
        """``pick_eevdf()``: the earliest virtual deadline among the eligible entities. ``curr`` (the
        running task, if on_rq and eligible) is kept outright while its ``vlag`` still holds the
        deadline stashed at its pick (RUN_TO_PARITY, 63304558ba5d), else it wins only with a
        strictly earlier deadline; equal deadlines among the queued: the lowest task index."""
        cur = self.cfs_curr(c)
        if cur is not None and not self.eligible(c, cur):
            cur = None
        if cur is not None and cur.vlag == cur.deadline:
            return cur
        queued = [p for p in self.eevdf_set(c) if p is not c.curr]
        ok = [p for p in queued if self.eligible(c, p)]
        best = min(ok, key=lambda p: (p.deadline, p.idx)) if ok else None
        if cur is not None and (best is None or cur.deadline < best.deadline):
            best = cur
        if best is None and queued:                  # pick_eevdf's leftmost fallback
            best = min(queued, key=lambda p: (p.vruntime, p.idx))
        return best

    def pick_next(self, c):
        """Highest rt priority (the running one first, then FIFO order), else the least vruntime
        (v6.6+: :meth:`pick_eevdf`)."""
        if c.nr_running == 0:
            return None
        q = self.queued(c)
        rt = [p for p in q if p.policy == FIFO]
        if rt:
            return min(rt, key=lambda p: (-p.prio, -1 if p.state == RUNNING else p.enq_seq))
        cfs = [p for p in q if p.policy == CFS]
        if self.prm.eevdf:
            return self.pick_eevdf(c) if cfs else None
        return min(cfs, key=lambda p: p.vruntime) if cfs else None

    def enqueue(self, p, c, now):
        """``enqueue_task`` -> ``enqueue_task_fair`` -> ``enqueue_entity`` (v5.4 fair.c), in the
        kernel's order: ``update_load_avg(cfs_rq, se, UPDATE_TG | DO_ATTACH)`` first, while
        ``se->on_rq`` is still 0 (the time since the last update was spent asleep: decay only;
        a task that changed CPU has ``last_update_time == 0`` and is attached instead of aged),
        then ``place_entity``, ``account_entity_enqueue`` and ``se->on_rq = 1``. rt tasks:
        ``enqueue_task_rt`` (no PELT entity)."""
        migrated = p.cpu != c.idx
        p.cpu = c.idx
        self.enq_seq += 1
        p.enq_seq = self.enq_seq
        if p.policy == FIFO:
            p.state = RUNNABLE
            c.nr_rt += 1
            self.add_nr_running(c)
            return
        if migrated:
            self.attach_avg(p, c)                        # DO_ATTACH
        self.update_task_avg(p, now)                     # update_load_avg, still off the rq
        if self.prm.eevdf:
            self.place(p, c)                             # v6.6+ place_entity: V less the inflated lag
        else:
            p.vruntime = max(p.vruntime, c.min_vruntime - (self.prm.latency_ns >> 1))   # place_entity
        p.state = RUNNABLE                               # se->on_rq = 1
        self.lru_head(p)                                 # account_entity_enqueue: list_add to cfs_tasks
        c.nr_cfs += 1
        self.add_nr_running(c)
        c.ue_sum += self.task_util_est(p)
        p.ue_cpu = c.idx

    def dequeue_sleep(self, p, now):
        """``dequeue_task_fair(.., DEQUEUE_SLEEP)`` of the running task: ``dequeue_entity``
        calls ``update_load_avg`` while ``se->on_rq`` is 1 and the task is ``cfs_rq->curr``
        (its last segment was spent running), then ``se->on_rq = 0``; ``util_est_dequeue``
        removes the estimate from the cfs_rq sum and, for a task going to sleep, runs
        ``util_est_update`` on the freshly updated util_avg."""
        c = self.cpus[p.cpu]
        if p.policy == FIFO:
            c.nr_rt -= 1
            p.state = NEW_OR_SLEEPING
            return
        self.ue_remove(p)
        # v6.12+ (b55945c500c5): dequeue_task_fair() runs util_est_update() before
        # dequeue_entities(), on the averages (and UTIL_AVG_UNCHANGED) of the previous update
        before = self.prm.util_est and self.prm.ue_era >= 5
        if before:
            p.ue_ewma, p.ue_enqueued = util_est_update(p.ue_ewma, p.ue_enqueued, p.sa.util_avg, p.sa.runnable_avg,
                                                       c.capacity, self.prm.ue_era)
        self.update_task_signal(p)
        if self.prm.eevdf:
            self.update_entity_lag(p, c)                 # dequeue_entity, se still on_rq
        p.state = NEW_OR_SLEEPING
        c.nr_cfs -= 1
        self.update_min_vruntime(c)                     # dequeue_entity's last step, the task gone
        if self.prm.util_est and not before:    # util_est_update (v4.17+, when enabled)
            p.ue_ewma, p.ue_enqueued = util_est_update(p.ue_ewma, p.ue_enqueued, p.sa.util_avg, p.sa.runnable_avg,
                                                       c.capacity, self.prm.ue_era)
        self.emit_task_util(p, now)

    def op_boundary(self, p, c, now):
        if p.fresh:
            return now
        op = self.prog[p.pc][0]
        if op == OP_RUN:
            cap = self.cap_now(c)
            return now + (p.rem_work + cap - 1) // cap
        if op == OP_RUNTIME:
            return max(p.runtime_end, now)
        return now

    def refresh_next_event(self, c, now):
        c.next_event = INF_TIME if c.curr is None else self.op_boundary(c.curr, c, now)

    def choose_idle_state(self, c, now):
        res = c.pd.idle_residency
        if len(res) <= 1:
            return 0
        wakes = [p.wake_at for p in self.tasks if p.cpu == c.idx and p.state == NEW_OR_SLEEPING]
        budget = min(wakes, default=INF_TIME) - now
        fitting = [i for i, r in enumerate(res) if r <= budget]
        return fitting[-1] if fitting else 0

    def switch_to(self, c, nxt, prev_state, now):
        prev = c.curr
        if prev is nxt:
            return
        self.account(c, now)
        if prev is not None and prev.state == RUNNING:
            prev.state = RUNNABLE
        if prev is None and c.idle_state >= 0:
            self.emit(now, ss.EV_IDLE, c.idx, -1)
            c.idle_state = -1
        self.emit(now, ss.EV_SWITCH, c.idx, -1 if prev is None else prev.idx, prev_state,
                  -1 if nxt is None else nxt.idx)
        c.curr = nxt
        if nxt is not None:
            nxt.state = RUNNING
            if self.prm.eevdf and nxt.policy == CFS:
                nxt.vlag = nxt.deadline                  # set_next_entity: the deadline at the pick
            nxt.ran = True
            nxt.exec_start = now
            nxt.slice_start = nxt.sum_exec
            if nxt.timer_due >= 0:                       # rt-app's wake-up latency after a timer
                nxt.act_wulat += now - nxt.timer_due
                nxt.timer_due = -1
            if c.next_tick >= INF_TIME:
                c.next_tick = (now // self.prm.tick_ns + 1) * self.prm.tick_ns
            self.refresh_next_event(c, now)
        else:
            if not self.era["delta_scaling"]:
                # update_idle_rq_clock_pelt: a CPU that was saturated (cfs + rt util_sum at the
                # divider) loses the idle time its scaled clock could not see; then the clocks sync
                lam = self.era["load_avg_max"]
                if c.cfs.util_sum + c.rt.util_sum >= ((lam - 1024) << 10) - lam:
                    c.lost_idle += c.clock_task - c.clock_pelt
                c.clock_pelt = c.clock_task
            c.idle_state = self.choose_idle_state(c, now)
            c.next_tick = INF_TIME
            c.next_event = INF_TIME
            self.emit(now, ss.EV_IDLE, c.idx, c.idle_state)
        c.need_resched = False

    def schedule(self, c, prev_state, now):
        """``__schedule`` -> ``pick_next_task_fair`` (v5.4 fair.c). ``put_prev_entity`` calls
        ``update_load_avg`` while ``prev`` is still ``cfs_rq->curr`` (its last segment was spent
        running); ``set_next_entity`` calls it for ``nxt`` while it is still queued, before
        ``cfs_rq->curr = se`` (its last segment was spent waiting: runnable, not running). Only
        then does ``context_switch`` (:meth:`switch_to`) change who runs. v6.6+: the running task's
        ``update_curr`` there runs ``update_deadline`` first, then ``pick_eevdf``."""
        if self.prm.eevdf:
            self.update_deadline(c)
        nxt = self.pick_next(c)
        prev = c.curr
        if nxt is not None and nxt.policy == CFS:
            self.lru_head(nxt)                           # pick_next_task_fair: list_move to the cfs_tasks head
        if nxt is prev:
            c.need_resched = False
            return
        if prev is not None and prev.state == RUNNING and prev.policy == CFS:
            self.update_task_avg(prev, now)              # put_prev_entity: update_load_avg, prev running
        if nxt is not None and nxt.policy == CFS:
            self.update_task_avg(nxt, now)               # set_next_entity: update_load_avg, nxt queued
        self.switch_to(c, nxt, prev_state, now)
        self.update_min_vruntime(c)
        self.update_rq(c, now)

    def log_activation(self, p, now):
        self.activations.append((p.idx, p.phase, p.phase_act, p.act_start, now, p.act_run, p.act_perf >> 10,
                                 p.act_slack, p.act_cdur, p.act_cperiod, p.act_wulat, p.cpu))

    # ================================================================== rt-app program
    def advance(self, p, c, now):
        """Run task ``p``'s ops until one takes time: 'run', 'block', 'exit' or 'migrate'."""
        while True:
            op, a, b, rel = self.prog[p.pc]
            if op == OP_PHASE_BEGIN:
                p.phase, p.phase_act, p.act_start = a, p.phase_iter, now
                p.act_run = p.act_perf = p.act_cdur = p.act_cperiod = p.act_slack = p.act_wulat = 0
                p.pc += 1
            elif op in (OP_RUN, OP_RUNTIME):
                p.act_cdur += a
                if a <= 0:
                    p.pc += 1
                    continue
                p.op_start = now
                if op == OP_RUN:
                    p.rem_work = a << 10
                else:
                    p.runtime_end = now + a
                return "run"
            elif op == OP_SLEEP:
                p.wake_at = now + a
                return "block"
            elif op == OP_TIMER:
                if b not in self.timers:
                    self.timers[b] = p.start            # timers count from the thread's start
                self.timers[b] += a
                p.act_cperiod += a
                p.act_slack = self.timers[b] - now
                if now < self.timers[b]:
                    p.wake_at = p.timer_due = self.timers[b]
                    return "block"
                if rel:
                    self.timers[b] = now                # a missed deadline re-anchors (relative mode)
                p.pc += 1
            elif op == OP_PHASE_END:
                self.log_activation(p, now)
                if b < 0 or p.phase_iter + 1 < b:
                    p.phase_iter += 1
                    p.pc = a
                else:
                    p.phase_iter = 0
                    p.pc += 1
            elif op == OP_TASK_END:
                if b < 0 or p.task_iter + 1 < b:
                    p.task_iter += 1
                    p.pc = a
                else:
                    p.pc += 1
            elif op == OP_SET_SCHED:
                p.pc += 1
                self.update_rq(c, now)                  # __sched_setscheduler: update_rq_clock
                self.set_sched(p, c, a, b)
            elif op == OP_SET_AFFINITY:
                p.pc += 1
                p.mask = a
                if not self.masks[a][c.idx]:
                    p.fresh = True
                    return "migrate"
            elif op == OP_SUSPEND:
                # rt-app suspend = pthread_cond_wait: wait on condition a, no wake-up time
                self.conds.setdefault(a, []).append(p)
                p.wake_at = INF_TIME
                return "block"
            elif op == OP_RESUME:
                # rt-app resume = pthread_cond_broadcast: every waiter, in the order they waited;
                # none waiting: nothing happens (the broadcast is not remembered)
                p.pc += 1
                for q in self.conds.pop(a, []):
                    self.wake_up(q, now, waker=c)
            else:
                return "exit"

    def set_sched(self, p, c, policy, prio):
        if p.policy != policy:
            if policy == FIFO:
                if self.prm.eevdf:
                    self.update_entity_lag(p, c)         # dequeue_entity of the class change
                self.ue_remove(p)
                c.nr_cfs -= 1
                c.nr_rt += 1
            else:
                c.nr_rt -= 1
                c.nr_cfs += 1
                if self.prm.eevdf:
                    self.place(p, c)                     # enqueue_entity: the lag kept since it left CFS
                    p.vlag = p.deadline                  # set_next_task_fair -> set_next_entity (it runs on)
                else:
                    p.vruntime = c.min_vruntime
                self.lru_head(p)                         # enqueue_task_fair of __sched_setscheduler
                c.ue_sum += self.task_util_est(p)
                p.ue_cpu = c.idx
            p.policy = policy
        p.prio = prio
        c.need_resched = True

    # ================================================================== placement
    def fallback_cpu(self, p):
        allowed = [c for c in self.cpus if self.allowed(p, c)]
        idle = [c for c in allowed if c.is_idle]
        return (idle or allowed)[0]

    def select_rt_cpu(self, p, prev):
        cur = prev.curr
        if self.allowed(p, prev) and (cur is None or cur.policy != FIFO or cur.prio < p.prio) and prev.nr_rt == 0:
            return prev
        for c in self.cpus:
            if self.allowed(p, c) and c.is_idle:
                return c
        for c in self.cpus:
            if self.allowed(p, c) and c.nr_rt == 0:
                return c
        return prev if self.allowed(p, prev) else self.fallback_cpu(p)

    def select_task_rq(self, p, prev, now, this=None):
        """``select_task_rq_fair(p, prev_cpu, SD_BALANCE_WAKE)`` run on CPU ``this`` (the waker's:
        the resumer's CPU for an rt-app resume; prev for a timer wake-up, which prev's own timer
        interrupt performs). EAS first (not overutilized); then ``want_affine`` = ``this`` in the
        task's affinity and, v4.9 - v5.6 on asymmetric boards, not ``wake_cap(p, this, prev)``
        (``wake_wide()`` taken as 0). Without it, where SD_BALANCE_WAKE is on every domain (the
        asymmetric domain, v4.16 - v5.6) the slow path ``find_idlest_cpu`` from ``this``; else the
        fast path: ``wake_affine()`` when ``this != prev`` picks the target, ``select_idle_sibling(p,
        prev, target)`` searches, and from v4.16 to v5.14, with ``want_affine``, ``current`` (the
        task running on ``this``) gets ``recent_used_cpu = this``."""
        this = prev if this is None else this
        if p.policy == FIFO:
            return self.select_rt_cpu(p, prev)
        cpu = None
        if self.prm.placement != "no-eas":
            cpu = self.place_eas(p, prev, now)
        if cpu is None:
            want_affine = self.allowed(p, this) and not self.wake_cap(p, prev, this)
            if not want_affine and self.prm.wake_slow:
                cpu = self.wake_slow_path(p, prev, this)
            else:
                target = prev
                if want_affine and this is not prev:
                    target = self.affine_target(p, prev, this)
                cpu = self.place_idle_sibling(p, target, now, prev=prev, this=this)
                if (4, 16) <= self.prm.recent_version < (5, 15) and want_affine and this.curr is not None:
                    this.curr.recent_used_cpu = this.idx
        if cpu is None or not self.allowed(p, cpu):
            cpu = self.fallback_cpu(p)
        return cpu

    def affine_target(self, p, prev, this):
        """``wake_affine(sd, p, this, prev, sync = 0)`` (ref_wake_affine) for the lowest domain
        spanning both CPUs: the LLC (the platform's imbalance_pct) when they share it, else DIE (125,
        117 from v5.10: ref_fork.die_pct).
        Loads: the runnable load (:meth:`runnable_load`) before v5.5 (target_load / source_load at
        wake_idx 0, cpu_runnable_load() in v5.3 - v5.4), the cfs_rq's load_avg from v5.5
        (11f10e5420f6); task_h_load = the tasks' load_avg (no group scheduling); the waker's load
        matters only with sync, which an rt-app resume (a futex wake) does not set."""
        v = self.prm.wa_version
        share = this.llc == prev.llc
        if v >= (5, 5):
            this_load, prev_load = this.cfs.load_avg, prev.cfs.load_avg
        else:
            this_load, prev_load = self.runnable_load(this), self.runnable_load(prev)
        cur = this.curr
        cur_load = cur.sa.load_avg if cur is not None and cur.policy == CFS else 0
        got = ref_wake_affine.affine(v >= (5, 11), this.is_idle, prev.is_idle, share, False, this.nr_running,
                                     this_load, prev_load, p.sa.load_avg, cur_load, self.capacity_of(this),
                                     self.capacity_of(prev), self.prm.imbalance_pct if share else ref_fork.die_pct(v))
        return this if got == "this" else prev

    def wake_cap(self, p, prev, this=None):
        """v4.9 - v5.6 ``wake_cap(p, this, prev)`` on asymmetric boards: the task does not fit the
        smaller of the two CPUs' original capacities."""
        caps = [c.pd.caps[-1] for c in self.cpus]
        top, low = max(caps), min(caps[prev.idx], caps[(prev if this is None else this).idx])
        if not ((4, 9) <= self.prm.sis_version < (5, 7)) or len(set(caps)) < 2 or top - low < top // 8:
            return False
        self.sync_entity(p)
        u = p.sa.util_avg if self.prm.wake_cap_util_avg else self.task_util(p)
        return not u * 1280 < low * 1024

    def runnable_load(self, c):
        """The cfs_rq's runnable_load_avg of v4.15 - v5.6 (before v4.15 the same sum), the sum of
        its runnable entities' load (a task's runnable load is its load_avg): the stored load_avg
        of the CFS tasks queued on ``c``. The cfs_rq's own runnable_avg here is the v5.7 signal of
        h_nr_running, which is not this load."""
        return sum(p.sa.load_avg for p in self.queued(c) if p.policy == CFS)

    def wake_slow_path(self, p, prev, this=None):
        """find_idlest_cpu(DIE of this, p, this, prev, SD_BALANCE_WAKE) on the twin's own scene
        (tests/reference/ref_fork.py): per CPU capacity_of, nr_running, the cfs_rq's runnable load
        (:meth:`runnable_load`) and load average, its util without the task (util off prev, then util_est, capped); idle CPUs
        by idle state, all at the same idle_stamp (the simulator keeps none)."""
        self.sync_entity(p)          # find_idlest_cpu() at a wake-up
        util = []
        for c in self.cpus:
            if c is prev:
                u = c.cfs.util_avg - min(c.cfs.util_avg, p.sa.util_avg)
                util.append(min(max(u, c.ue_sum), c.capacity))
            else:
                util.append(self.cpu_util(c))
        scene = {"cap": [self.capacity_of(c) for c in self.cpus], "llc": [c.llc for c in self.cpus],
                 "nr": [c.nr_running for c in self.cpus], "rload": [self.runnable_load(c) for c in self.cpus],
                 "load": [c.cfs.load_avg for c in self.cpus], "util": util,
                 "state": [(c.idle_state if c.idle_state >= 0 else -2) if c.is_idle else -1 for c in self.cpus],
                 "stamp": [1 if c.is_idle else 0 for c in self.cpus],
                 "allowed": [1 if self.allowed(p, c) else 0 for c in self.cpus],
                 "prev": prev.idx, "task_util": p.sa.util_avg, "fit_util": self.task_util(p),
                 "task_load": p.sa.load_avg, "pct_llc": self.prm.imbalance_pct}
        this = prev if this is None else this
        return self.cpus[ref_fork.wake_slow_path(scene, this.idx, (5, 5) if self.prm.wake_slow == 2 else (4, 19))]

    def place_eas(self, p, prev, now):
        if not self.overutilized:
            self.sync_entity(p)      # find_energy_efficient_cpu(), once past the overutilized test
        util = [c.cfs.util_avg for c in self.cpus]
        ue = [c.ue_sum for c in self.cpus]
        cap_of = [self.capacity_of(c) for c in self.cpus]
        allowed = [1 if self.allowed(p, c) else 0 for c in self.cpus]
        tu, tue = p.sa.util_avg, self.task_util_est(p)
        # "eas": the wake-up of the run's kernel version with the twin's own EM and era rules;
        # "eas-v5.0": the v5.0 form on the run era's EM
        em = self.platform if isinstance(self.prm.eas_era, tuple) else self.em
        cpu, energies, evals, calls = ref_eas.feec(self.prm.eas_era, em, util, ue, tu, tue, prev.idx, allowed,
                                                   cap_of, overutilized=self.overutilized)
        self.feec_work = [evals, calls]           # the work of this one find_energy_efficient_cpu call
        if cpu < 0:
            return None
        if energies[0] is not None or energies[1] is not None:
            self.eas_log.append((now, p.idx, prev.idx, cpu, max(tu, tue),
                                 *[-1 if e is None else e for e in energies], *self.feec_work,
                                 tu, tue, int(self.overutilized), *util, *ue, *cap_of, *allowed))
        return self.cpus[cpu]

    def place_idle_sibling(self, p, target, now, prev=None, this=None):
        """select_idle_sibling(p, prev, target) run by CPU ``this`` (both default to ``target``):
        SIS_PROP's depth from this_rq()'s avg_idle / wake_avg_idle and this LLC's avg_scan_cost,
        over the span of target's LLC; SIS_UTIL's nr_idle_scan of target's LLC."""
        prev = target if prev is None else prev
        this = target if this is None else this
        idle = [1 if c.is_idle else 0 for c in self.cpus]
        allowed = [1 if self.allowed(p, c) else 0 for c in self.cpus]
        rv = self.prm.recent_version
        recent = p.recent_used_cpu if rv >= (4, 16) else -1
        if self.prm.asym >= 0:        # v5.7+ on CPUs of different capacities: select_idle_capacity()
            self.sync_entity(p)
            cpu, path, _ = ref_sis.select_idle_sibling_asym(self.prm.asym, idle, allowed,
                                                            [self.capacity_of(c) for c in self.cpus],
                                                            self.task_util(p), target.idx, prev.idx, recent,
                                                            [c.llc for c in self.cpus])
            self.note_recent(p, prev, path, rv, self.prm.asym == 0)
            return self.cpus[cpu]
        util_mode = self.prm.sis == "util"
        pv = self.prm.sis_prop_version
        if util_mode:
            nr = target.nr_idle_scan
        else:
            span = sum(1 for c in self.cpus if c.llc == target.llc)
            if pv >= (5, 14):
                this.wake_avg_idle, this.wake_stamp = ref_sis.age_wake_avg_idle(
                    this.wake_avg_idle, this.wake_stamp, now // self.prm.tick_ns)
                nr = ref_sis.prop_nr(this.wake_avg_idle, this.avg_scan_cost, span, 1)
            else:
                nr = ref_sis.prop_nr(this.avg_idle, this.avg_scan_cost, span, 0)
        cpu, path, srch = ref_sis.search(self.prm.sis_version, util_mode, idle, allowed, target.idx,
                                         prev.idx, recent, False, nr, [c.llc for c in self.cpus],
                                         [c.idx for c in self.cpus], False)
        self.note_recent(p, prev, path, rv, False)
        if not util_mode and path not in (0, 1, 2) and not srch.ran_out:
            spent = self.prm.sis_scan_cost * srch.scanned      # the modelled select_idle_cpu() time
            if pv >= (5, 14):
                this.wake_avg_idle = max(this.wake_avg_idle - spent, 0)
            this.avg_scan_cost = ref_sis.update_avg(this.avg_scan_cost, spent, True)
        return None if cpu < 0 else self.cpus[cpu]

    @staticmethod
    def note_recent(p, prev, path, rv, asym_first):
        """p->recent_used_cpu after the search: v5.15+ prev once the target and prev checks failed
        (never on the v5.7 - v5.9 asymmetric path, which returns before); v4.16 - v5.14 prev when the
        recent CPU was taken."""
        if rv >= (5, 15):
            if not asym_first and path not in (0, 1):
                p.recent_used_cpu = prev.idx
        elif rv >= (4, 16) and path == 2:
            p.recent_used_cpu = prev.idx

    # ================================================================== wake-up, migration, preemption
    def check_preempt(self, c, p, now):
        cur = c.curr
        if cur is None:
            self.schedule(c, PREV_RUNNING, now)
        elif p.policy == FIFO:
            if cur.policy != FIFO or p.prio > cur.prio:
                self.schedule(c, PREV_RUNNING, now)
        elif cur.policy == CFS and self.wakeup_preempts(c, p):
            self.schedule(c, PREV_RUNNING, now)

    def wakeup_preempts(self, c, p):
        """Whether CFS wakee ``p``, just enqueued on ``c``, preempts c's running CFS task: before
        v6.6 ``wakeup_preempt_entity`` (vruntime more than wakeup_gran ahead of p's); v6.6+
        ``check_preempt_wakeup_fair``: a resched already pending, or ``pick_eevdf`` gives ``p``."""
        if self.prm.eevdf:
            return c.need_resched or self.pick_eevdf(c) is p
        return c.curr.vruntime - p.vruntime > self.prm.wakeup_gran_ns

    def exit_idle(self, c, now):
        self.account(c, now)
        self.emit(now, ss.EV_IDLE, c.idx, -1)
        c.idle_state = -1
        c.avg_idle = ref_sis.update_avg(c.avg_idle, now - c.idle_stamp, self.prm.sis_prop_version >= (5, 7))
        c.avg_idle = min(c.avg_idle, 2 * MIGRATION_COST_NS)
        if self.prm.sis_prop_version >= (5, 14):         # ttwu_do_wakeup(), 94aafc3ee31d
            c.wake_stamp = now // self.prm.tick_ns
            c.wake_avg_idle = c.avg_idle // 2

    def wake_up(self, p, now, waker=None):
        """``try_to_wake_up``: ``select_task_rq_fair`` (the signal synced while the task is still
        asleep, standing for ``sync_entity_load_avg``), ``migrate_task_rq_fair`` ->
        ``remove_entity_load_avg`` when the CPU changes, then ``ttwu_do_activate`` ->
        :meth:`enqueue` and ``check_preempt_curr``. ``waker``: the CPU of the task that woke it
        (rt-app resume; None for a timer): a preemption of the waker itself only marks it
        (``resched_curr``), the switch comes when the waker reaches its next op."""
        prev = self.cpus[p.cpu]
        self.wake_sync = None
        this = waker if (waker is not None and not self.prm.waker_at_prev) else prev
        c = self.select_task_rq(p, prev, now, this)
        if c is not prev:
            self.sync_entity(p)                          # remove_entity_load_avg's sync
        if self.wake_sync is not None:
            self.emit(now, ss.EV_TASK_SYNC, prev.idx, p.idx, self.wake_sync)
        if c is not prev:
            if p.policy == CFS:
                self.remove_avg(p, prev)                 # migrate_task_rq_fair -> remove_entity_load_avg
                if not self.prm.eevdf:                   # v6.6 keeps no relative vruntime (e8f331bcc270)
                    p.vruntime -= prev.min_vruntime
            self.emit(now, ss.EV_MIGRATE, c.idx, p.idx, prev.idx, 0)
        # ttwu_do_activate: the chosen runqueue's clock and signals to now, then the enqueue, whose
        # update_load_avg ages the task (not a migrated one: it is attached) and may clear the flag
        self.sync_cpu(c, now)
        if c is not prev and p.policy == CFS and not self.prm.eevdf:
            p.vruntime += c.min_vruntime
        if c.curr is None and c.idle_state >= 0:
            self.exit_idle(c, now)
        self.enqueue(p, c, now)
        self.emit(now, ss.EV_WAKEUP, c.idx, p.idx, c.idx, -1 if c.curr is None else c.curr.idx)
        if c is waker:
            cur = c.curr
            if (cur.policy != FIFO or p.prio > cur.prio) if p.policy == FIFO else \
                    (cur.policy == CFS and self.wakeup_preempts(c, p)):
                c.need_resched = True
        else:
            self.check_preempt(c, p, now)
        self.governor_update(c, now)
        self.update_overutilized(now, True)
        self.emit_cpu_util(c, now)

    def move_queued(self, p, src, dst, now, reason, preempt):
        """Move a queued (or running on ``src``) task to ``dst``: ``detach_task`` ->
        ``deactivate_task`` (``dequeue_entity``: ``update_load_avg`` in the state the task had,
        runnable or running, then ``detach_entity_load_avg``), ``attach_task`` ->
        ``activate_task`` (``attach_entity_load_avg`` on the new cfs_rq)."""
        running = src.curr is p
        if p.policy == CFS:
            est = self.task_util_est(p)
            self.ue_remove(p)
            self.update_task_avg(p, now)
            if self.prm.eevdf:
                self.update_entity_lag(p, src)           # dequeue_entity on src, p still on_rq
            self.detach_entity_avg(p, src)
            src.nr_cfs -= 1
            if not self.prm.eevdf:
                p.vruntime += dst.min_vruntime - src.min_vruntime
            p.cpu = dst.idx
            self.update_min_vruntime(src)                # dequeue_entity's last step, p gone from src
            self.lru_head(p)                             # activate_task on dst: cfs_tasks head
            self.attach_avg(p, dst)
            if self.prm.eevdf:
                self.place(p, dst)                       # enqueue_entity on dst: place_entity
            dst.nr_cfs += 1
            self.add_nr_running(dst)
            dst.ue_sum += est
            p.ue_cpu = dst.idx
        else:
            src.nr_rt -= 1
            dst.nr_rt += 1
            self.add_nr_running(dst)
            p.cpu = dst.idx
        self.emit(now, ss.EV_MIGRATE, dst.idx, p.idx, src.idx, reason)
        if running:                      # the stopper moved it: src then schedules by itself
            self.leave_cpu(src, PREV_RUNNING, now)
        p.state = RUNNABLE
        if preempt:
            self.check_preempt(dst, p, now)

    def pull_one(self, dst, now, mode):
        """Pull one waiting task to idle ``dst``: FIFO always, CFS when balancing is on. ``mode``:
        "periodic" (the balance pass: FIFO, and CFS in the simplified form), "newidle" (eras v4.16 -
        v4.19: :meth:`idle_balance_v4`)."""
        newidle = mode == "newidle"
        if sum(c.nr_rt for c in self.cpus) > 0:
            rt = [p for p in self.tasks if p.state == RUNNABLE and p.policy == FIFO and self.allowed(p, dst)
                  and p.cpu != dst.idx]
            if rt:
                best = min(rt, key=lambda p: (-p.prio, p.idx))
                src = self.cpus[best.cpu]
                self.sync_cpu(src, now)
                self.sync_cpu(dst, now)             # pull_rt_task: dst's rq is updated, it leaves idle
                if dst.idle_state >= 0:
                    self.exit_idle(dst, now)
                self.move_queued(best, src, dst, now, 1, not newidle)
                return
        if newidle and self.newidle_gives_up(dst):
            if self.prm.lb_form == "v4":
                self.idle_balance_v4(dst, now, True)     # rq->next_balance from rq->sd only
            return
        if self.prm.lb_form == "v4":
            # v4.16 - v4.19: idle CPUs balance at the nohz kick of a busy CPU's tick, busy CPUs at
            # their own tick; a CPU going idle runs idle_balance()
            if newidle:
                self.idle_balance_v4(dst, now, False)
            return
        if not self.overutilized and self.prm.placement != "no-eas":
            return

        def waiting(c):
            return [p for p in self.tasks if p.cpu == c.idx and p.state == RUNNABLE and p.policy == CFS
                    and self.allowed(p, dst)]
        counts = [(len(waiting(c)), -c.idx, c) for c in self.cpus if c is not dst]
        most = max(counts, key=lambda x: x[:2], default=(0, 0, None))
        if most[0] == 0:
            return
        src = most[2]
        p = waiting(src)[0]
        self.sync_cpu(src, now)
        self.sync_cpu(dst, now)
        if dst.idle_state >= 0:
            self.exit_idle(dst, now)
        self.move_queued(p, src, dst, now, 1, not newidle)

    def lru_head(self, p):
        """Put ``p`` at the head of its runqueue's ``cfs_tasks`` list (a stamp: the list of a CPU
        is its queued CFS tasks by decreasing stamp; the load balancer scans it from the tail)."""
        self.lru_seq += 1
        p.lru = self.lru_seq

    def lb_view(self, dst):
        """The per-CPU inputs of ``ref_lb.load_balance`` for destination ``dst``. weighted_cpuload is
        the cfs_rq's runnable_load_avg of v4.15 - v5.6, the sum of its runnable entities' load: here
        the stored load_avg of the CFS tasks queued on the CPU (task_h_load's figure too)."""
        views = []
        for c in self.cpus:
            q = sorted((p for p in self.queued(c) if p.policy == CFS), key=lambda p: -p.lru)
            tasks = tuple(ref_lb.LbTask(idx=p.idx, load=p.sa.load_avg, exec_start=p.exec_start, ran=p.ran,
                                        allowed=self.allowed(p, dst), running=p is c.curr) for p in q)
            cur = c.curr
            views.append(ref_lb.LbCpu(
                load=sum(t.load for t in tasks), util=self.cpu_util(c), nr_running=c.nr_running,
                h_nr_running=c.nr_cfs, capacity=self.capacity_of(c), capacity_orig=c.capacity, llc=c.llc,
                idle=c.is_idle, tasks=tasks, curr_allowed=cur is not None and self.allowed(cur, dst)))
        return views

    def lb_level(self, dst, level, idle, now):
        """One v4.16 - v4.19 ``load_balance(dst, sd, idle)`` at ``level`` (``ref_lb``), applied:
        the failure counter, ``balance_interval`` after the outcome (``ref_lb.interval_after``),
        skipped tasks to the list head, the detached tasks and the stopper's task moved (at once).
        Loads as stored; the source and the destination are synced at a move. Returns (moved,
        continue_balancing, the stopper moved the running task of its CPU)."""
        key = (dst.idx, level)
        w = ref_lb.span_weight([c.llc for c in self.cpus], dst.idx, level)
        eas_balanced = self.prm.placement != "no-eas" and not self.overutilized
        res = ref_lb.load_balance(self.lb_view(dst), dst.idx, level, idle, now, self.lb_failed.get(key, 0),
                                  self.prm.lb_asym, eas_balanced)
        self.lb_failed[key] = res.nr_balance_failed
        self.lb_interval[key] = ref_lb.interval_after(res.outcome, self.lb_interval.get(key, w), w)
        for i in res.skipped:                        # detach_tasks: a skipped task goes to the head
            self.lru_head(self.tasks[i])
        if not res.moved and res.active < 0:
            return False, res.continue_balancing, False
        src = self.cpus[res.src]
        self.sync_cpu(src, now)
        self.sync_cpu(dst, now)
        if dst.idle_state >= 0:
            self.exit_idle(dst, now)
        for i in res.moved:
            self.move_queued(self.tasks[i], src, dst, now, 1, idle != ref_lb.NEWLY_IDLE)
        running = False
        if res.active >= 0:                      # active_load_balance_cpu_stop
            running = src.curr is self.tasks[res.active]
            self.move_queued(self.tasks[res.active], src, dst, now, 2, True)
        return True, res.continue_balancing, running

    def next_balance_of(self, c, level, busy):
        """sd->last_balance + get_sd_balance_interval(sd, busy) of ``c``'s domain at ``level``."""
        key = (c.idx, level)
        w = ref_lb.span_weight([q.llc for q in self.cpus], c.idx, level)
        hz = 1_000_000_000 // self.prm.tick_ns
        return self.lb_last.get(key, 0) + ref_lb.interval_jiffies(self.lb_interval.get(key, w), busy, hz,
                                                                  len(self.cpus))

    def idle_balance_v4(self, dst, now, gated):
        """v4.16 - v4.19 ``idle_balance()``: unless its early exit (``gated``) stopped it,
        load_balance(CPU_NEWLY_IDLE) at MC then DIE until a task is pulled, no interval consulted;
        then rq->next_balance = min(itself, jiffies + HZ, each visited domain's last_balance + idle
        interval; after the early exit the lowest domain only)."""
        hz = 1_000_000_000 // self.prm.tick_ns
        nxt = now // self.prm.tick_ns + hz
        for level in ref_lb.levels([c.llc for c in self.cpus], dst.idx):
            moved = False
            if not gated:
                moved, _, _ = self.lb_level(dst, level, ref_lb.NEWLY_IDLE, now)
            nxt = min(nxt, self.next_balance_of(dst, level, False))
            if gated or moved or dst.nr_running > 0:
                break
        self.rq_next_balance[dst.idx] = min(self.rq_next_balance.get(dst.idx, 0), nxt)

    def rebalance_domains(self, c, idle, now):
        """v4.16 - v4.19 ``rebalance_domains(rq, idle)``: each level whose last_balance + interval
        (balance_interval, times busy_factor 32 unless idle) has passed is balanced and stamped;
        after a move the idle type is re-read; rq->next_balance = the earliest next due time (and,
        idle, nohz.next_balance if that is later). Stops at should_we_balance's no and (~) after the
        stopper moved a running task (done at once here)."""
        hz = 1_000_000_000 // self.prm.tick_ns
        j = now // self.prm.tick_ns
        nxt, upd = j + 60 * hz, False
        for level in ref_lb.levels([q.llc for q in self.cpus], c.idx):
            cont, running = True, False
            if j >= self.next_balance_of(c, level, idle != ref_lb.IDLE):
                moved, cont, running = self.lb_level(c, level, idle, now)
                if moved:
                    idle = ref_lb.NOT_IDLE if (c.curr is not None or c.nr_running > 0) else ref_lb.IDLE
                self.lb_last[(c.idx, level)] = j
            nb = self.next_balance_of(c, level, idle != ref_lb.IDLE)
            if nb < nxt:
                nxt, upd = nb, True
            if running or not cont:
                break
        if upd:
            self.rq_next_balance[c.idx] = nxt
            if idle == ref_lb.IDLE and self.next_ilb > nxt:
                self.next_ilb = nxt

    def add_nr_running(self, c):
        """``add_nr_running()`` (sched.h): a runqueue going from 1 to 2 tasks (one added at a time
        here) marks the root domain overloaded."""
        if c.nr_cfs + c.nr_rt == 2:
            self.rd_overload = True

    def newidle_gives_up(self, dst):
        """The early exit of ``idle_balance()`` / ``newidle_balance()`` for CPU ``dst`` (counted).

        Before c5b0a7eefc70 (v5.16): ``avg_idle < sysctl_sched_migration_cost || !rd->overload``;
        from it: ``!rd->overload || avg_idle < sd->max_newidle_lb_cost``, that cost being 0 here
        (balancing takes no simulated time), so only the overload test remains."""
        v = self.prm.newidle_version
        if v is None:                                  # ablation "newidle-gate"
            return False
        if v < (5, 16) and dst.avg_idle < MIGRATION_COST_NS:
            self.newidle_stopped[0] += 1
            return True
        if not self.rd_overload:
            self.newidle_stopped[1] += 1
            return True
        return False

    def update_overutilized(self, now, set_only):
        ou = False
        for c in self.cpus:
            util, cap = self.cpu_util(c), self.capacity_of(c)
            if (cap * 1024 < util * 1280) if self.prm.overutil_v50 else not (util * 1280 < cap * 1024):
                ou = True
                break
        if set_only and not ou:
            return
        if ou != self.overutilized:
            self.overutilized = ou
            if self.prm.model_events:
                self.emit(now, ss.EV_OVERUTIL, -1, int(ou))

    def load_balance(self, now):
        for c in self.cpus:
            self.sync_cpu(c, now)
            self.emit_cpu_util(c, now)
        self.update_overutilized(now, False)
        for c in self.cpus:                              # update_idle_cpu_scan (SIS_UTIL)
            llc = [j for j in self.cpus if j.llc == c.llc]
            c.nr_idle_scan = ref_sis.nr_idle_scan(sum(self.cpu_util(j) for j in llc), len(llc),
                                                  self.prm.imbalance_pct)
        # update_sd_lb_stats at the root domain rewrites rd->overload (SG_OVERLOAD): a runqueue
        # with more than one task or, v4.20+ on asymmetric capacities, a misfit running task
        self.rd_overload = any(c.nr_cfs + c.nr_rt > 1 for c in self.cpus) or (
            self.prm.misfit_overloads and any(
                c.curr is not None and c.curr.policy == CFS
                and self.task_util(c.curr) * 1280 >= self.capacity_of(c) * 1024 for c in self.cpus))
        if not self.overutilized and self.prm.placement != "no-eas":
            return
        for dst in self.cpus:
            if dst.is_idle:
                self.pull_one(dst, now, "periodic")
        if self.prm.era < (4, 20):                       # misfit migration: 3b1baa6496e6, v4.20
            return
        for c in self.cpus:                              # misfit
            p = c.curr
            if p is None or p.policy != CFS or self.task_util(p) * 1280 < self.capacity_of(c) * 1024:
                continue
            for dst in self.cpus:
                if dst.capacity > c.capacity and self.allowed(p, dst) and dst.is_idle:
                    self.sync_cpu(dst, now)
                    if dst.idle_state >= 0:
                        self.exit_idle(dst, now)
                    self.move_queued(p, c, dst, now, 2, True)
                    break

    # ================================================================== periodic and op events
    def tick(self, c, now):
        """``scheduler_tick`` -> ``task_tick_fair`` -> ``entity_tick``: ``update_curr``,
        ``update_load_avg`` of the running task (running), ``check_preempt_tick`` (v6.6+: none; a
        resched asked by ``update_deadline`` or left pending is taken here)."""
        self.sync_cpu(c, now)
        p = c.curr
        if p is None:
            c.next_tick = INF_TIME
            return
        c.next_tick = now + self.prm.tick_ns
        if p.policy == CFS:
            self.update_task_avg(p, now)
            if self.prm.eevdf:
                # v6.6+ entity_tick has no check_preempt_tick: update_curr's update_deadline (in
                # sync_cpu above) asked for the resched once the slice was used up
                if c.need_resched:
                    self.schedule(c, PREV_RUNNING, now)
            elif c.nr_cfs > 1 and c.nr_rt == 0:          # check_preempt_tick
                ideal = self.sched_slice(c)
                ran = p.sum_exec - p.slice_start
                resched = ran > ideal
                if not resched and ran >= self.prm.min_gran_ns:
                    others = [q.vruntime for q in self.queued(c) if q is not p and q.state == RUNNABLE
                              and q.policy == CFS]
                    resched = bool(others) and p.vruntime - min(others) > ideal
                if resched:
                    self.schedule(c, PREV_RUNNING, now)
        elif self.prm.governor == "schedfreq":
            # task_tick_rt of the schedfreq series: sched_rt_update_capacity_req
            c.rt_was_runnable = True
            self.sched_rt_update_capacity_req(c, now)
        self.update_overutilized(now, True)
        self.governor_update(c, now)
        self.emit_cpu_util(c, now)
        if self.prm.lb_form == "v4":                     # trigger_load_balance(): the SCHED_SOFTIRQ first
            if now // self.prm.tick_ns >= self.rq_next_balance.get(c.idx, 0):
                self.rebalance_domains(c, ref_lb.NOT_IDLE, now)
            self.nohz_kick(c, now)                       # then nohz_balancer_kick

    def nohz_kick(self, c, now):
        """v4.19 ``nohz_balancer_kick()`` on busy CPU ``c``'s tick: with an idle CPU somewhere, once
        ``nohz.next_balance`` (jiffies) has passed, kick if ``c``
        has two tasks, or more than one CPU of its LLC is busy (``nr_busy_cpus``), or ``c`` runs a
        CFS task on a capacity RT pressure has cut below ``capacity_orig * 100 / imbalance_pct``
        of its lowest domain. ``kick_ilb`` adds a jiffy to nohz.next_balance; the kicked
        ``_nohz_idle_balance`` runs ``rebalance_domains(CPU_IDLE)`` for each other idle CPU whose
        rq->next_balance is due, nohz.next_balance becomes the earliest of theirs, and the ILB (the
        first idle CPU) balances last."""
        if now // self.prm.tick_ns < self.next_ilb:       # time_before(jiffies, nohz.next_balance)
            return
        def busy(q):
            return q.curr is not None or q.nr_running > 0
        idle = [q for q in self.cpus if not busy(q)]
        if not idle:
            return
        mates = [q for q in self.cpus if q.llc == c.llc]
        kick = c.nr_running >= 2 or sum(1 for q in mates if busy(q)) > 1
        if not kick and c.nr_cfs >= 1:
            pct = 117 if len(mates) > 1 else 125             # rq->sd: MC, else DIE (sd_init)
            kick = self.capacity_of(c) * pct < c.capacity * 100
        if not kick:
            return
        self.next_ilb += 1                               # kick_ilb()
        j = now // self.prm.tick_ns
        ilb = idle[0]
        nxt = None
        for dst in [q for q in self.cpus if q is not ilb] + [ilb]:
            if busy(dst):
                continue
            if dst is ilb or j >= self.rq_next_balance.get(dst.idx, 0):
                self.rebalance_domains(dst, ref_lb.IDLE, now)
            if dst is not ilb and (nxt is None or self.rq_next_balance.get(dst.idx, 0) < nxt):
                nxt = self.rq_next_balance.get(dst.idx, 0)
        if nxt is not None:                              # _nohz_idle_balance: the earliest next_balance
            self.next_ilb = nxt

    def leave_cpu(self, c, prev_state, now):
        """``__schedule`` of a CPU whose running task left it (sleep, exit, migration by the
        stopper): newidle balance (``pick_next_task_fair``) when nothing is queued, then the
        idle stamp and schedutil's went-idle flag if it goes idle."""
        if c.nr_running == 0:
            self.pull_one(c, now, "newidle")
        self.schedule(c, prev_state, now)
        if c.curr is None:
            c.idle_stamp = now
            if c.pd.sugov is not None:
                c.pd.sugov.cpus[c.pd.cpus.index(c)].went_idle = True

    def op_done(self, c, now):
        """The running task of ``c`` reached an op boundary: finish the op, run its program on."""
        p = c.curr
        # the task's progress and the residency are accounted; the runqueue (rq clock, cfs_rq /
        # rt_rq PELT) is touched only by a scheduler event below: an rt-app op boundary is no
        # kernel event (a clock_nanosleep whose deadline has passed returns without one)
        self.account(c, now)
        self.update_curr(c, now)
        if p.fresh:
            p.fresh = False
        else:
            op = self.prog[p.pc][0]
            if op == OP_RUN or op == OP_RUNTIME:
                if (op == OP_RUN and p.rem_work > 0) or (op == OP_RUNTIME and now < p.runtime_end):
                    self.refresh_next_event(c, now)
                    return
                p.act_run += now - p.op_start
            elif op == OP_START:
                p.start = now
            p.pc += 1
        what = self.advance(p, c, now)
        if what == "run":
            self.refresh_next_event(c, now)
            if c.need_resched:
                self.update_rq(c, now)                  # __schedule: update_rq_clock
                self.schedule(c, PREV_RUNNING, now)
            return
        self.update_rq(c, now)       # dequeue_task (sleep, exit) / the stopper's move: update_rq_clock
        if what == "migrate":
            dst = self.select_task_rq(p, c, now)
            self.sync_cpu(dst, now)
            if dst.curr is None and dst.idle_state >= 0:
                self.exit_idle(dst, now)
            self.move_queued(p, c, dst, now, 0, True)
        else:
            self.dequeue_sleep(p, now)
            state = PREV_SLEEP
            if what == "exit":
                p.state = EXITED
                p.wake_at = INF_TIME
                state = PREV_DEAD
                if p.policy == CFS:
                    self.remove_avg(p, c)               # task_dead_fair -> remove_entity_load_avg
            self.leave_cpu(c, state, now)
        self.governor_update(c, now)
        self.emit_cpu_util(c, now)

    # ================================================================== frequency
    def apply_opp(self, dom, opp, now):
        for c in dom.cpus:
            self.sync_cpu_bookkeeping(c, now)
        if self.prm.governor == "interactive":            # CPUFREQ_PRECHANGE: busy time at the old freq
            for c, row in zip(dom.cpus, dom.gov_cpu):
                ref_governors.interactive_account(c.busy_ns, dom.freq, row)
        dom.opp = opp
        for c in dom.cpus:
            self.emit(now, ss.EV_FREQ, c.idx, dom.freq)
            if c.curr is not None:
                self.refresh_next_event(c, now)

    def request_opp(self, dom, opp, now):
        """The governor's request takes effect after the transition latency."""
        if opp == dom.opp and dom.pending_opp < 0:
            return
        if self.prm.transition_ns <= 0:
            dom.pending_opp, dom.pending_at = -1, INF_TIME
            if opp != dom.opp:
                self.apply_opp(dom, opp, now)
            return
        if dom.pending_opp < 0:
            dom.pending_at = now + self.prm.transition_ns
        dom.pending_opp = opp

    def governor_update(self, c, now):
        """cpufreq_update_util from CPU ``c``: schedutil and schedfreq (the others are timer driven)."""
        dom = c.pd
        if self.prm.governor == "schedfreq":
            self.schedfreq_update(c, now)
            return
        if self.prm.governor == "ondemand":
            held = getattr(dom, "od_held", "")
            if held:
                why = self.od_held_by(dom)
                if held == "timer" and why == "timer":
                    return                      # still no CPU awake to fire the deferrable timer
                if why == "rt":
                    dom.od_held = "rt"          # queued, the kworker waits for its CPU
                    return
                dom.od_held = ""                # the kworker runs now, busy or idle after it
                self.od_dbs_work(dom, now)
            return
        if self.prm.governor != "schedutil":
            return
        # sugov_get_util(): cpu_util_cfs() = max(util_avg, util_est.enqueued), then
        # effective_cpu_util() adds the rt_rq's util_avg (and returns the capacity while an rt
        # task is runnable: the sum saturates); the RFC ramp boost reads the cfs_rq alone
        ua = [cj.cfs.util_avg for cj in dom.cpus]
        ue = [cj.ue_sum for cj in dom.cpus]
        rt = [cj.capacity if cj.nr_rt > 0 else cj.rt.util_avg for cj in dom.cpus]
        f = dom.sugov.update(dom.cpus.index(c), now, False, False, ua, ue, rt)
        self.request_opp(dom, dom.opp_of_freq(f), now)

    def schedfreq_update(self, c, now):
        dom = c.pd
        tun = self.prm.tunables
        throttle = tun["throttle_us"] * 1000
        if ref_governors.schedfreq_pending(now, throttle, dom.gov_pol) >= 0:
            self.request_opp(dom, dom.opp_of_freq(dom.gov_pol[0]), now)
        cfs = self.cpu_util(c) * 1024 // c.capacity
        if c.nr_rt > 0:
            c.rt_was_runnable = True
        elif c.rt_was_runnable:
            # pick_next_task_rt with no RT task left: sched_rt_update_capacity_req
            c.rt_was_runnable = False
            self.sched_rt_update_capacity_req(c, now)
        rt = c.rt_request
        f = ref_governors.schedfreq_request(now, dom.cpus.index(c), cfs, rt, 0, dom.freqs, tun["capacity_margin"],
                                            throttle, dom.gov_cpu, dom.gov_pol)
        if f >= 0:
            self.request_opp(dom, dom.opp_of_freq(f), now)
        # a request latched by the throttle is applied when the throttle ends
        dom.next_sample = dom.gov_pol[2] if dom.gov_pol[1] != dom.gov_pol[0] else INF_TIME

    def sched_rt_update_capacity_req(self, c, now):
        """The schedfreq series' rt.c: sched_avg_update (halve rt_avg per elapsed
        sched_avg_period), then used = rt_avg / (period + time since age_stamp), at most 1024."""
        period = self.prm.tunables["sched_time_avg_ms"] * 1_000_000 // 2
        while now - c.age_stamp > period:
            c.age_stamp += period
            c.rt_avg //= 2
        c.rt_request = min(c.rt_avg // (period + max(now - c.age_stamp, 0)), 1024)

    def od_held_by(self, dom):
        """What keeps ondemand's sample from running: "rt" (its SCHED_NORMAL kworker, on the CPU
        whose deferrable timer fired, waits while RT tasks hold the busy CPUs and none runs a CFS
        task), "timer" (switch ``idle_defers_sample``: no CPU awake to fire the timer), or ""."""
        running = [c.curr.policy for c in dom.cpus if c.curr is not None]
        if any(pol == CFS for pol in running):
            return ""
        if running:
            return "rt" if self.prm.tunables["work_starved_by_rt"] else ""
        return "timer" if self.prm.tunables["idle_defers_sample"] else ""

    def od_dbs_work(self, dom, now):
        """dbs_work_handler -> od_dbs_update: dbs_update's load over the policy, od_update, re-arm."""
        tun = self.prm.tunables
        for c in dom.cpus:
            self.sync_cpu_bookkeeping(c, now)
        idle_us = [(now - c.busy_ns) // 1000 for c in dom.cpus]
        dom.gov_pol[0] = dom.freq
        f = ref_governors.ondemand_step(now, idle_us, dom.freqs, tun["sampling_rate_us"], tun["up_threshold"],
                                        tun["sampling_down_factor"], dom.gov_cpu, dom.gov_pol, dom.ineff,
                                        self.prm.od_version)
        self.request_opp(dom, dom.opp_of_freq(f), now)
        dom.next_sample = now + tun["sampling_rate_us"] * dom.gov_pol[1] * 1000

    def governor_timer(self, dom, now):
        """ondemand's sample / interactive's timer (re-armed), or the end of schedfreq's throttle."""
        tun = self.prm.tunables
        gov = self.prm.governor
        if gov == "ondemand":
            dom.od_held = self.od_held_by(dom)
            if dom.od_held:
                dom.next_sample = INF_TIME
            else:
                self.od_dbs_work(dom, now)
            return
        if gov == "schedfreq":
            dom.next_sample = INF_TIME
            if ref_governors.schedfreq_pending(now, tun["throttle_us"] * 1000, dom.gov_pol) >= 0:
                self.request_opp(dom, dom.opp_of_freq(dom.gov_pol[0]), now)
            return
        for c in dom.cpus:
            self.sync_cpu_bookkeeping(c, now)
        cur = dom.freq
        if gov == "interactive":
            dom.gov_pol[0] = cur
            for c, row in zip(dom.cpus, dom.gov_cpu):
                ref_governors.interactive_account(c.busy_ns, cur, row)
            hispeed = tun["hispeed_freq"] or dom.freqs[-1]
            f = ref_governors.interactive_step(now, dom.freqs, tun["go_hispeed_load"], hispeed, tun["target_load"],
                                               tun["min_sample_time_us"], tun["above_hispeed_delay_us"],
                                               dom.gov_cpu, dom.gov_pol)
            self.request_opp(dom, dom.opp_of_freq(f), now)
            dom.next_sample = now + self.prm.sample_ns
        else:
            dom.next_sample = INF_TIME
