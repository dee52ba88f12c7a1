"""EEVDF (kernel v6.6+) in the plain-Python reference engine, worked by hand from the kernel source.

The numbers below come from kernel/sched/fair.c (v6.6 commits 147f3efaa241, 86bfbb7ce4f6,
e8f331bcc270, 5e963f2bd465, 63304558ba5d, 650cad561cce, 561c58efd239; read in a v6.8 fair.c):
``avg_vruntime``, ``vruntime_eligible``, ``update_entity_lag``, ``place_entity``,
``update_deadline``, ``pick_eevdf``, ``set_next_entity`` and ``entity_tick``. Every task is nice 0,
so each weight is ``scale_load_down(NICE_0_LOAD)`` = 1024; a runqueue of n such entities has
``avg_load`` = 1024 n and ``avg_vruntime`` = 1024 * (sum of keys), key = vruntime - min_vruntime.

Scenes (a), (b) and (d) set a runqueue's state by hand and call the twin's methods; scene (c)
runs the twin's real entry point (``run_reference``) on HiKey960 with two tasks pinned to CPU 0,
era v6.5 against v6.6.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from reference import ref_sim_schema as ss
from reference.ref_sim_engine import run_reference
from reference.ref_sim_engine_sched import Scheduler
from reference.ref_sim_engine_state import CFS, NEW_OR_SLEEPING, RUNNABLE, RUNNING, Cpu, Task

from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, RunTime, Sleep, task, workload
from lisa_eas.sim import SimConfig
from lisa_eas.sim._compile import compile_workload

MS = 1_000_000
SLICE = 3 * MS          # sysctl_sched_base_slice on 8 CPUs: 0.75 ms * (1 + ilog2(8)) = 3 ms


class _Rq(Scheduler):
    """One CPU's CFS runqueue set by hand (the twin's Scheduler methods over it)."""

    def __init__(self, min_vruntime=0, tick_ns=4 * MS):
        self.prm = SimpleNamespace(eevdf=True, min_gran_ns=SLICE, tick_ns=tick_ns)
        self.cpus = [Cpu(idx=0, pd=None, capacity=1024, llc=0, nr_idle_scan=0, res_busy=[], res_idle=[],
                         min_vruntime=min_vruntime)]
        self.tasks = []

    @property
    def c(self):
        return self.cpus[0]

    def add(self, vruntime, deadline=0, vlag=0, state=RUNNABLE):
        p = Task(idx=len(self.tasks), cpu=0, pc=0, policy=CFS, prio=0, mask=0, wake_at=0, state=state,
                 vruntime=vruntime, deadline=deadline, vlag=vlag)
        self.tasks.append(p)
        if state == RUNNING:
            self.c.curr = p
        if state in (RUNNING, RUNNABLE):
            self.c.nr_cfs += 1
        return p


# ---------------------------------------------------------------- (a) V, eligibility, pick
def test_avg_vruntime_floors_a_negative_sum():
    # m = 1_000_000; keys: curr +5, queued -4 and -3: sum -2, n = 3.
    # avg_vruntime: avg = 1024 * -2 = -2048, load = 3072; avg < 0 -> avg -= load - 1 = -5119;
    # div_s64(-5119, 3072) = -1 (truncation of -1.67) -> V = m - 1 = 999_999
    # (a plain truncation of -2048 / 3072 would give m + 0 = 1_000_000)
    rq = _Rq(min_vruntime=1_000_000)
    rq.add(1_000_005, state=RUNNING)
    rq.add(999_996)
    rq.add(999_997)
    assert rq.avg_vruntime(rq.c) == 999_999
    # positive sum: keys 0 and 1: avg = 1024, load = 2048, div_s64 -> 0: V = m
    rq2 = _Rq(min_vruntime=500)
    rq2.add(500, state=RUNNING)
    rq2.add(501)
    assert rq2.avg_vruntime(rq2.c) == 500
    # no entity: V = min_vruntime
    assert _Rq(min_vruntime=42).avg_vruntime(_Rq(min_vruntime=42).c) == 42


def test_eligibility_is_the_exact_weighted_test():
    # vruntime_eligible: avg >= key * load, avg = 1024 * -2 = -2048, load = 3072
    #   curr  key +5: 5 * 3072 = 15360   -> -2048 >= 15360 false (not eligible)
    #   q1    key -4: -4 * 3072 = -12288 -> true
    #   q2    key -3: -3 * 3072 = -9216  -> true
    rq = _Rq(min_vruntime=1_000_000)
    cur = rq.add(1_000_005, state=RUNNING)
    q1, q2 = rq.add(999_996), rq.add(999_997)
    assert [rq.eligible(rq.c, p) for p in (cur, q1, q2)] == [False, True, True]
    # ">=": keys 3 and 3 (sum 6, load 2048): 6 * 1024 >= 3 * 2048 -> both eligible (lag exactly 0)
    rq2 = _Rq()
    a, b = rq2.add(3, state=RUNNING), rq2.add(3)
    assert rq2.eligible(rq2.c, a) and rq2.eligible(rq2.c, b)


def test_pick_earliest_eligible_deadline_ties_and_ineligible_curr():
    # the scene above with deadlines: curr (ineligible) has the earliest deadline and its pick
    # stash (vlag == deadline) but pick_eevdf drops an ineligible curr before RUN_TO_PARITY;
    # q1 and q2 are eligible with equal deadlines m + 3 ms: the lower task index, q1
    rq = _Rq(min_vruntime=1_000_000)
    rq.add(1_000_005, deadline=1_000_010, vlag=1_000_010, state=RUNNING)
    q1 = rq.add(999_996, deadline=4_000_000)
    rq.add(999_997, deadline=4_000_000)
    assert rq.pick_eevdf(rq.c) is q1
    # curr eligible (keys 0 and 0: 0 >= 0), no stash (vlag 0 != deadline): a queued task of the
    # same deadline wins (curr only with a strictly earlier one: entity_before is a strict <) ...
    rq2 = _Rq()
    cur = rq2.add(0, deadline=SLICE, state=RUNNING)
    q = rq2.add(0, deadline=SLICE)
    assert rq2.pick_eevdf(rq2.c) is q
    # ... and one ns earlier keeps curr
    cur.deadline = SLICE - 1
    assert rq2.pick_eevdf(rq2.c) is cur


# ---------------------------------------------------------------- (b) place_entity, update_entity_lag
def _two_on_rq():
    # m = 10_000; curr key 0 (v 10_000), a queued task key 7 (v 10_007): V = m + floor(7 / 2) = 10_003
    rq = _Rq(min_vruntime=10_000)
    rq.add(10_000, deadline=10_000 + SLICE, state=RUNNING)
    rq.add(10_007, deadline=10_007 + SLICE)
    p = rq.add(0, state=NEW_OR_SLEEPING)           # the task being placed: not counted yet
    return rq, p


@pytest.mark.parametrize("vlag, vruntime", [
    # lag = vlag * (avg_load + 1024) / avg_load with avg_load = 2048 (curr counted: n = 2):
    # -1000 * 3072 = -3_072_000; div_s64(-3_072_000, 2048) = -1500 -> v = 10_003 + 1500
    (-1000, 11_503),
    # -1001 * 3072 = -3_075_072; / 2048 = -1501.5, div_s64 truncates toward zero: -1501
    # (a floor would give -1502) -> v = 10_003 + 1501
    (-1001, 11_504),
    # +1001 * 3072 / 2048 = 1501.5 -> 1501 -> v = 10_003 - 1501
    (1001, 8_502),
    (0, 10_003),
])
def test_place_entity_inflates_the_lag(vlag, vruntime):
    rq, p = _two_on_rq()
    p.vlag = vlag
    rq.place(p, rq.c)
    assert p.vruntime == vruntime
    assert p.deadline == vruntime + SLICE             # vd_i = ve_i + r_i / w_i, nice 0: + 3 ms


def test_place_entity_keeps_the_lag_once_joined():
    # vlag -1001 placed at 11_504 (above); joined, the keys are 0, 7, 1504: sum 1511, n = 3:
    # V' = 10_000 + floor(1511 / 3) = 10_503 and V' - v = -1001: the stored lag again, as the
    # inflation intends; update_entity_lag gives it back (inside the clamp)
    rq, p = _two_on_rq()
    p.vlag = -1001
    rq.place(p, rq.c)
    p.state = RUNNABLE
    rq.c.nr_cfs += 1
    assert rq.avg_vruntime(rq.c) == 10_503
    p.vlag = 0
    rq.update_entity_lag(p, rq.c)
    assert p.vlag == -1001


def test_place_entity_on_an_empty_runqueue_ignores_the_lag():
    # PLACE_LAG only with cfs_rq->nr_running != 0: V = min_vruntime, lag 0
    rq = _Rq(min_vruntime=10_000)
    p = rq.add(123, vlag=-1000, state=NEW_OR_SLEEPING)
    rq.place(p, rq.c)
    assert (p.vruntime, p.deadline) == (10_000, 10_000 + SLICE)


@pytest.mark.parametrize("tick_ns, limit", [
    (4 * MS, 6 * MS),      # HZ 250: max(2 * 3 ms, TICK_NSEC 4 ms) = 6 ms
    (10 * MS, 10 * MS),    # HZ 100: max(6 ms, 10 ms) = 10 ms
])
def test_update_entity_lag_clamp(tick_ns, limit):
    # curr key 0, queued key 14 ms: V = m + 7 ms; lags +7 ms (curr) and -7 ms (queued), clamped
    rq = _Rq(tick_ns=tick_ns)
    cur = rq.add(0, state=RUNNING)
    q = rq.add(14 * MS)
    rq.update_entity_lag(cur, rq.c)
    rq.update_entity_lag(q, rq.c)
    assert (cur.vlag, q.vlag) == (min(7 * MS, limit), -min(7 * MS, limit))


# ---------------------------------------------------------------- (d) RUN_TO_PARITY, update_deadline
def _parity_scene():
    # keys (m = 0): curr A 1 ms, B 1.5 ms, C 5 ms: sum 7.5 ms, n = 3 (V = 2.5 ms)
    #   A: 1.0 * 3 = 3.0 <= 7.5 eligible; B: 4.5 <= 7.5 eligible; C: 15 > 7.5 not eligible
    # A was picked at vruntime 0 (deadline 3 ms, stashed in vlag); B holds the earlier deadline 2 ms
    rq = _Rq()
    a = rq.add(1 * MS, deadline=3 * MS, vlag=3 * MS, state=RUNNING)
    b = rq.add(3 * MS // 2, deadline=2 * MS)
    rq.add(5 * MS, deadline=8 * MS)
    return rq, a, b


def test_run_to_parity_keeps_curr_until_its_deadline_changes():
    rq, a, b = _parity_scene()
    assert rq.eligible(rq.c, a) and rq.eligible(rq.c, b)
    # curr eligible and curr->vlag == curr->deadline: curr, though B's deadline is earlier
    assert rq.pick_eevdf(rq.c) is a
    assert not rq.wakeup_preempts(rq.c, b)           # check_preempt_wakeup_fair: pick != pse
    rq.c.need_resched = True                         # a resched already pending: preempted anyway
    assert rq.wakeup_preempts(rq.c, b)
    rq.c.need_resched = False
    # without the stash: earliest eligible deadline, B (2 ms < 3 ms)
    a.vlag = 0
    assert rq.pick_eevdf(rq.c) is b and rq.wakeup_preempts(rq.c, b)


def test_run_to_parity_ends_when_curr_is_no_longer_eligible():
    # A at 4 ms, picked at 3 ms (deadline and stash 6 ms): keys 4 + 1.5 + 5 = 10.5 ms;
    # A: 4 * 3 = 12 > 10.5, not eligible -> no parity: B
    rq, a, b = _parity_scene()
    a.vruntime, a.deadline, a.vlag = 4 * MS, 6 * MS, 6 * MS
    assert not rq.eligible(rq.c, a)
    assert rq.pick_eevdf(rq.c) is b


def test_update_deadline_renews_the_slice_and_ends_parity():
    rq, a, b = _parity_scene()
    rq.update_deadline(rq.c)                         # 1 ms < 3 ms: nothing
    assert (a.deadline, rq.c.need_resched) == (3 * MS, False)
    a.vruntime = 3 * MS                              # (s64)(vruntime - deadline) >= 0
    rq.update_deadline(rq.c)
    # deadline = 3 ms + 3 ms; nr_running 3 > 1: resched_curr; vlag (3 ms) != deadline: no parity
    assert (a.deadline, rq.c.need_resched) == (6 * MS, True)
    # keys 3 + 1.5 + 5 = 9.5 ms: A 9 <= 9.5 still eligible, but B's deadline 2 ms < 6 ms
    assert rq.pick_eevdf(rq.c) is b
    # alone on the runqueue: a new deadline, no resched
    solo = _Rq()
    s = solo.add(3 * MS, deadline=3 * MS, vlag=3 * MS, state=RUNNING)
    solo.update_deadline(solo.c)
    assert (s.deadline, solo.c.need_resched) == (6 * MS, False)


# ---------------------------------------------------------------- (c) v6.5 against v6.6, run_reference
def _run(tasks, era, t_end_ms):
    plat = load_platform("hikey960")                 # 8 CPUs: slice 3 ms, wakeup_gran 4 ms, latency 24 ms
    comp = compile_workload(workload(tasks, calibration=20), plat.nr_cpus)
    cfg = SimConfig(era=era, tick_hz=1000, placement="no-eas", governor="performance", model_events=False)
    ev = run_reference(plat, comp, cfg, t_end_ms * MS).events
    # event rows: (time, kind, cpu, a, b, c, ...); EV_SWITCH: a prev task, c next task (-1 idle)
    sw = ev[(ev[:, 1] == ss.EV_SWITCH) & (ev[:, 2] == 0)]
    return [(int(r[0]) // 1000, int(r[3]), int(r[5])) for r in sw]      # (us, prev, next)


def test_waking_task_preempts_under_v65_not_under_v66():
    # A (task 0) runs alone on CPU 0 from t = 0; B (task 1) wakes at 10 ms (tick 1 ms).
    # v6.5: A placed at max(0, min_vruntime 0 - 24 ms / 2) = 0; at the 10 ms tick A's vruntime
    #   is 10 ms and min_vruntime follows it; B placed at max(0, 10 ms - 12 ms) = 0;
    #   wakeup_preempt_entity: 10 ms - 0 > wakeup_gran 4 ms -> B runs at 10 ms.
    # v6.6: A placed at V = 0, deadline 3 ms; alone, update_deadline renews it at the 3, 6, 9 ms
    #   ticks (deadline 12 ms, no resched with nr_running 1; the pick stash 3 ms is gone).
    #   B at 10 ms: n = 1, V = 10 ms, vlag 0 -> vruntime 10 ms, deadline 13 ms. pick_eevdf: A
    #   eligible (10 + 10 >= 2 * 10), no parity (3 ms != 12 ms), B eligible with 13 ms, A's
    #   12 ms < 13 ms -> A. 11 ms tick: 11 < 12, nothing. 12 ms tick: deadline 12 reached ->
    #   15 ms and resched (nr_running 2); pick: A 12 + 10 < 2 * 12 not eligible -> B at 12 ms.
    a = task("A", [Phase(name="a", events=(RunTime(20000),), loop=1)], cpus=[0])
    b = task("B", [Phase(name="b", events=(RunTime(1000), Sleep(50000)), loop=1)], cpus=[0], delay_us=10000)
    v65 = _run([a, b], "v6.5", 30)
    v66 = _run([a, b], "v6.6", 30)
    assert (10000, 0, 1) in v65 and not any(n == 1 and t < 12000 for t, _, n in v66)
    assert v65[:3] == [(0, -1, 0), (10000, 0, 1), (11000, 1, 0)]
    assert v66[:3] == [(0, -1, 0), (12000, 0, 1), (13000, 1, 0)]


def test_two_cpu_hogs_switch_every_slice_under_v66():
    # A and B (always running, pinned to CPU 0) both wake at t = 0, A first.
    # v6.6: A placed at 0 (deadline 3 ms), switched in (vlag = 3 ms, the stash). B: n = 1, V = 0,
    #   vruntime 0, deadline 3 ms. pick_eevdf: A eligible and vlag == deadline (RUN_TO_PARITY) ->
    #   A (without parity the tie 3 ms vs 3 ms would go to B: curr wins only strictly).
    #   3 ms tick: A's vruntime 3 ms reaches its deadline -> 6 ms, resched; A 3 + 0 < 2 * 3 not
    #   eligible -> B (stash 3 ms). 6 ms: B at 3 ms -> deadline 6 ms, resched; B eligible (3 + 3 >=
    #   6) without parity; A eligible with deadline 6 ms, B's 6 ms not strictly earlier -> A.
    #   So a switch every 3 ms until A's 20 ms runtime ends.
    # v6.5: both at vruntime 0 (0 - 0 is no more than wakeup_gran); check_preempt_tick's ideal
    #   slice is max(24 ms, 2 * 3 ms) / 2 = 12 ms: A is switched out at the first tick where it
    #   ran more than 12 ms, 13 ms.
    a = task("A", [Phase(name="a", events=(RunTime(20000),), loop=1)], cpus=[0])
    b = task("B", [Phase(name="b", events=(RunTime(20000),), loop=1)], cpus=[0])
    v66 = _run([a, b], "v6.6", 40)
    assert v66[:7] == [(0, -1, 0), (3000, 0, 1), (6000, 1, 0), (9000, 0, 1), (12000, 1, 0), (15000, 0, 1),
                       (18000, 1, 0)]
    v65 = _run([a, b], "v6.5", 40)
    assert v65[:2] == [(0, -1, 0), (13000, 0, 1)]


def test_eevdf_era_gate():
    from reference.ref_sim_engine_state import run_params
    plat = load_platform("hikey960")
    assert not run_params(plat, SimConfig(era="v6.5")).eevdf
    assert run_params(plat, SimConfig(era="v6.6")).eevdf and run_params(plat, SimConfig(era="v6.18")).eevdf
    assert run_params(plat, SimConfig(era="v6.6")).min_gran_ns == SLICE


@pytest.mark.parametrize("delay_us, switches", [
    # delay 0: A (hog) and B wake at t = 0, A runs (parity), B from 3 ms (A's deadline 3 -> 6 ms,
    #   A 3 + 0 < 2 * 3 not eligible; B stash 3 ms). B's 1 ms run ends at 4 ms, vruntime 1 ms:
    #   dequeue_entity's update_entity_lag: V = floor((3 + 1) / 2) = 2 ms, vlag = +1 ms. A back
    #   at 4 ms (stash = deadline 6 ms). 5 ms: A at 4 ms; B placed with n = 1: V = 4 ms, lag =
    #   1 ms * 2 / 1 = 2 ms -> vruntime 2 ms, deadline 5 ms; A 4 + 2 < 2 * 4 not eligible -> B at 5 ms
    #   (with a lag of 0, B at 4 ms would leave A eligible and at parity: A would keep the CPU).
    (0, [(0, -1, 0), (3000, 0, 1), (4000, 1, 0), (5000, 0, 1), (6000, 1, 0)]),
    # delay 30 ms: A alone renews its deadline at every 3 ms tick: 33 ms at the 30 ms tick (its
    #   pick stash 3 ms is stale). B at 30 ms: V = 30 ms, deadline 33 ms; A eligible without parity,
    #   33 ms not strictly earlier -> B at 30 ms (stash 33 ms). B sleeps at 31 ms, vruntime 31 ms:
    #   V = floor((30 + 31) / 2) = 30.5 ms, vlag = -0.5 ms. A back at 31 ms (stash 33 ms). 32 ms:
    #   A at 31 ms; B: lag = -0.5 ms * 2 = -1 ms -> vruntime 32 ms, deadline 35 ms; A eligible and
    #   at parity -> A. 34 ms tick: A at 33 ms reaches 33 ms -> deadline 36 ms, resched; A 33 + 32 <
    #   66 not eligible -> B at 34 ms (a lag left at the 33 ms stash would put B 66 ms back: at 32 ms).
    (30000, [(0, -1, 0), (30000, 0, 1), (31000, 1, 0), (34000, 0, 1), (35000, 1, 0)]),
])
def test_lag_is_kept_over_a_sleep(delay_us, switches):
    a = task("A", [Phase(name="a", events=(RunTime(60000),), loop=1)], cpus=[0])
    b = task("B", [Phase(name="b", events=(RunTime(1000), Sleep(1000), RunTime(1000), Sleep(50000)), loop=1)],
             cpus=[0], delay_us=delay_us)
    assert _run([a, b], "v6.6", 45)[:5] == switches
