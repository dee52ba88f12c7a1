"""Hand-worked checks of the reference engine's v4.16 - v4.19 ``load_balance()`` twin
(``tests/reference/ref_lb.py``, issue 18).

Every expected number below was worked out by hand from kernel/sched/fair.c of v4.19
(update_sg_lb_stats, update_sd_lb_stats, find_busiest_group, calculate_imbalance,
fix_small_imbalance, find_busiest_queue, detach_tasks, can_migrate_task / task_hot,
need_active_balance, should_we_balance, load_balance) and sd_init (MC imbalance_pct 117, DIE 125,
SD_PREFER_SIBLING, cache_nice_tries 1), not from the twin's code.

Board: Juno r0. CPUs 0, 3, 4, 5 LITTLE (capacity 446), 1, 2 big (1024); LLCs {0, 3, 4, 5} (id 0)
and {1, 2} (id 1). So MC exists for every CPU and DIE has the two clusters as groups.
"""
from __future__ import annotations

import pytest

from reference import ref_lb
from reference.ref_lb import IDLE, NEWLY_IDLE, LbCpu, LbTask

LLC = [0, 1, 1, 0, 0, 0]
CAP = [446, 1024, 1024, 446, 446, 446]
NOW = 1_000_000_000


def _cpu(i, tasks=(), util=0):
    """CPU ``i`` with ``tasks`` (head first); the running task (if any) is at the head."""
    load = sum(t.load for t in tasks)
    run = next((t for t in tasks if t.running), None)
    return LbCpu(load=load, util=util, nr_running=len(tasks), h_nr_running=len(tasks), capacity=CAP[i],
                 capacity_orig=CAP[i], llc=LLC[i], idle=not tasks, tasks=tuple(tasks),
                 curr_allowed=run is not None and run.allowed)


def _t(idx, running=False, exec_start=0, ran=None, load=1000, allowed=True):
    return LbTask(idx=idx, load=load, exec_start=exec_start, ran=running if ran is None else ran,
                  allowed=allowed, running=running)


def _juno_little_crowded(hot_w2=False):
    """All big idle; CPU0: running task 0 + waiting 1, 2 (list head -> tail: 0, 1, 2; each load
    1000, cold); CPU3/4/5: a running and a waiting task each (load 1000). LITTLE utils 300 each
    (below the overload line, so only prefer_sibling makes the LITTLE group overloaded)."""
    w2 = _t(2, exec_start=NOW - 100_000, ran=True) if hot_w2 else _t(2)
    c0 = _cpu(0, [_t(0, running=True, exec_start=NOW - 2_000_000), _t(1), w2], util=300)
    others = {i: _cpu(i, [_t(10 + 2 * i, running=True, exec_start=NOW - 2_000_000), _t(11 + 2 * i)], util=300)
              for i in (3, 4, 5)}
    return [c0, _cpu(1), _cpu(2), others[3], others[4], others[5]]


def test_levels_of_juno():
    assert ref_lb.levels(LLC, 1) == ["MC", "DIE"]
    assert ref_lb.levels(LLC, 0) == ["MC", "DIE"]
    assert ref_lb.levels([0, 0], 1) == ["MC"]
    assert ref_lb.levels([0, 1], 1) == ["DIE"]


def test_a_idle_balance_at_die_pulls_two_tasks_from_cpu0():
    # should_we_balance (IDLE): local group {1, 2}, its first idle CPU is 1 = dst -> balance.
    # local {1,2}: load 0, util 0, sum_nr_running 0, idle_cpus 2, capacity 2048, avg_load 0,
    #   group_is_overloaded: 0 <= 2 -> no; group_other.
    # {0,3,4,5}: group_load 3000 + 3 * 2000 = 9000, util 4 * 300 = 1200, sum_nr_running 9,
    #   capacity 4 * 446 = 1784, avg_load 9000 * 1024 // 1784 = 5165, load_per_task 9000 // 9 = 1000;
    #   group_is_overloaded: 9 > 4 but 1784 * 100 = 178400 < 1200 * 125 = 150000 is false -> no;
    #   prefer_sibling (DIE's child MC has SD_PREFER_SIBLING): group_has_capacity(local) (0 < 2) and
    #   9 > 0 + 1 -> group_no_capacity = 1, group_overloaded; update_sd_pick_busiest: overloaded >
    #   other -> busiest.
    # total_load 9000, total_capacity 1784 + 2048 = 3832, sds.avg_load 9216000 // 3832 = 2405.
    # find_busiest_group: idle != NOT_IDLE, group_has_capacity(local), busiest no_capacity -> force_balance.
    # calculate_imbalance: 5165 > 2405, 0 < 2405; local not overloaded -> load_above_capacity ~0;
    #   max_pull = min(5165 - 2405, ~0) = 2760; imbalance = min(2760 * 1784 = 4923840,
    #   (2405 - 0) * 2048 = 4925440) // 1024 = 4808 >= load_per_task 1000 -> 4808.
    # find_busiest_queue (pct 125): CPU0 nr 3: 3000 * 1 > 0 * 446 -> CPU0; CPU3: 2000 * 446 = 892000 >
    #   3000 * 446 = 1338000? no; CPU4, CPU5 likewise -> CPU0.
    # detach_tasks: loop_max = min(32, 3) = 3. tail = task 2: cold, 1000 // 2 = 500 <= 4808 -> detach,
    #   imbalance 3808, nr_running 2. tail = task 1: detach, imbalance 2808, nr_running 1. Next turn:
    #   nr_running 1 <= 1 -> stop. Two tasks: 2 then 1; nr_balance_failed -> 0.
    cpus = _juno_little_crowded()
    res = ref_lb.load_balance(cpus, 1, "DIE", IDLE, NOW, 0)
    sds = res.stats
    local, busiest = sds["local_stat"], sds["busiest_stat"]
    assert sds["local"] == (1, 2) and res.busiest_group == (0, 3, 4, 5)
    assert (local["avg_load"], local["group_capacity"], local["idle_cpus"]) == (0, 2048, 2)
    assert (busiest["group_load"], busiest["group_capacity"], busiest["avg_load"], busiest["load_per_task"]) == \
        (9000, 1784, 5165, 1000)
    assert busiest["group_no_capacity"] and busiest["group_type"] == ref_lb.GROUP_OVERLOADED
    assert sds["avg_load"] == 2405 and sds["force_balance"]
    assert res.imbalance == 4808
    assert res.src == 0 and res.moved == (2, 1) and res.skipped == ()
    assert res.outcome == "moved" and res.nr_balance_failed == 0 and res.active == -1


def test_a_without_prefer_sibling_the_group_is_not_overloaded():
    # Same state balanced at MC of CPU1 ({1, 2}: both idle, no busiest) -> balanced, counter reset.
    res = ref_lb.load_balance(_juno_little_crowded(), 1, "MC", IDLE, NOW, 3)
    assert res.outcome == "balanced" and res.nr_balance_failed == 0 and res.moved == ()
    # should_we_balance at DIE from CPU2: {1, 2}'s first idle CPU is 1, not 2 -> stop.
    res = ref_lb.load_balance(_juno_little_crowded(), 2, "DIE", IDLE, NOW, 3)
    assert res.outcome == "stop" and not res.continue_balancing and res.nr_balance_failed == 0


def test_b_newly_idle_balance_detaches_exactly_one_task():
    # Same numbers as (a) (update_sd_lb_stats does not depend on the idle type here; force_balance
    # holds for NEWLY_IDLE too): imbalance 4808, CPU0; detach task 2, imbalance 3808, then
    # CONFIG_PREEMPT's NEWLY_IDLE break -> one task.
    res = ref_lb.load_balance(_juno_little_crowded(), 1, "DIE", NEWLY_IDLE, NOW, 0)
    assert res.imbalance == 4808 and res.src == 0 and res.moved == (2,)
    assert res.nr_balance_failed == 0


def test_c_cache_hot_waiting_task_is_skipped_and_moves_to_the_head():
    # Task 2 (tail) ran until 100 us ago: task_hot: 100000 < 500000 -> hot; nr_balance_failed 0 <=
    # cache_nice_tries 1 -> can_migrate_task 0 -> list_move to the head (list 2, 0, 1). Tail = task 1,
    # cold -> detached; NEWLY_IDLE -> stop.
    cpus = _juno_little_crowded(hot_w2=True)
    res = ref_lb.load_balance(cpus, 1, "DIE", NEWLY_IDLE, NOW, 0)
    assert res.skipped == (2,) and res.moved == (1,)
    # IDLE, same state: task 2 skipped (loop 1), task 1 detached (loop 2, imbalance 3808, nr 2),
    # tail = task 0 (running: skipped, loop 3), then tail = task 2 again: loop 4 > loop_max 3 -> stop.
    res = ref_lb.load_balance(cpus, 1, "DIE", IDLE, NOW, 0)
    assert res.skipped == (2, 0) and res.moved == (1,)
    # after two failed balances (nr_balance_failed 2 > cache_nice_tries 1) the hot task goes too:
    # task 2 detached (4808 -> 3808), task 1 detached (-> 2808), nr_running 1 -> stop.
    res = ref_lb.load_balance(cpus, 1, "DIE", IDLE, NOW, 2)
    assert res.skipped == () and res.moved == (2, 1)


def _mc_state():
    """The LITTLE cluster only matters (MC of CPU3): CPU0 running task 0 + waiting 1 (util 300),
    CPU4 one running task 8 (util 300), CPU3 and CPU5 idle; big CPUs idle."""
    c0 = _cpu(0, [_t(0, running=True, exec_start=NOW - 2_000_000), _t(1)], util=300)
    c4 = _cpu(4, [_t(8, running=True, exec_start=NOW - 2_000_000)], util=300)
    return [c0, _cpu(1), _cpu(2), _cpu(3), c4, _cpu(5)]


def test_d_idle_says_balanced_by_idle_cpus_newly_idle_pulls_by_imbalance_pct():
    # MC of CPU3, groups from the local one: {3}, {4}, {5}, {0} (imbalance_pct 117, no prefer_sibling).
    # {3}: load 0, sum_nr 0, idle_cpus 1, capacity 446, avg_load 0.
    # {4}: load 1000, avg 1024000 // 446 = 2295, sum_nr 1 <= 1 -> not overloaded; other > avg 0 -> busiest.
    # {5}: avg 0 <= 2295 -> no.
    # {0}: load 2000, avg 2048000 // 446 = 4591, sum_nr 2 > 1 but 44600 < 300 * 117 = 35100 false ->
    #   not overloaded; 4591 > 2295 -> busiest. load_per_task 1000, idle_cpus 0.
    # total_load 3000, total_capacity 1784, sds.avg_load 3072000 // 1784 = 1721.
    # No force_balance (busiest has capacity); 0 < 4591, 0 < 1721.
    # IDLE: busiest not overloaded and local idle_cpus 1 <= 0 + 1 -> out_balanced.
    res = ref_lb.load_balance(_mc_state(), 3, "MC", IDLE, NOW, 0)
    assert res.outcome == "balanced" and res.moved == () and res.nr_balance_failed == 0
    assert res.stats["busiest"] == (0,) and res.stats["avg_load"] == 1721
    # NEWLY_IDLE: 100 * 4591 <= 117 * 0 is false -> calculate_imbalance: max_pull = min(4591 - 1721 =
    #   2870, ~0); imbalance = min(2870 * 446 = 1280020, 1721 * 446 = 767566) // 1024 = 749 < 1000 ->
    #   fix_small_imbalance: local has no task -> local load_per_task = cpu_avg_load_per_task(3) = 0,
    #   imbn 2; scaled_busy_load_per_task = 1000 * 1024 // 446 = 2295; 4591 + 2295 = 6886 >=
    #   0 + 2 * 2295 = 4590 -> imbalance = 1000.
    # find_busiest_queue {0}: CPU0 (nr 2). detach: tail task 1, 500 <= 1000 -> detached; NEWLY_IDLE stop.
    res = ref_lb.load_balance(_mc_state(), 3, "MC", NEWLY_IDLE, NOW, 0)
    assert res.imbalance == 1000 and res.src == 0 and res.moved == (1,)


def test_e_failed_balances_count_up_to_an_active_balance():
    # DIE of CPU1: LITTLE CPU0 runs one task (load 1000, util 440) and nothing else anywhere.
    # {0,3,4,5}: load 1000, avg 1024000 // 1784 = 573, sum_nr 1 (no prefer_sibling: 1 > 0 + 1 false),
    #   not overloaded, other; avg 573 > 0 -> busiest (no asym clause: asym off).
    # sds.avg 1024000 // 3832 = 267. No force. 0 < 573, 0 < 267. IDLE: other and local idle_cpus 2 <=
    #   busiest idle_cpus 3 + 1 -> balanced. So use NEWLY_IDLE-free IDLE on a loaded state instead:
    # CPU0 runs task 0 with task 1 pinned to CPU0 (not allowed on CPU1) waiting; CPU3/4/5 one running
    # task each (load 1000, util 300). {0,3,4,5}: load 5000, sum_nr 5 > 0 + 1 -> prefer_sibling
    # overloaded -> force_balance. avg 5120000 // 1784 = 2869; sds.avg 5120000 // 3832 = 1336;
    # max_pull 2869 - 1336 = 1533; imbalance min(1533 * 1784 = 2734872, 1336 * 2048 = 2736128) // 1024
    # = 2670 >= 1000. find_busiest_queue: CPU0 (nr 2, 2000 * 1 > 0); CPU3-5: nr 1 and 1000 > 2670 false
    # -> candidates, 1000 * 446 > 2000 * 446 false -> CPU0.
    # detach (loop_max 2): tail task 1 not allowed -> head; tail task 0 running -> head; loop 3 > 2.
    # Nothing moved: nr_balance_failed 0 -> 1 (IDLE); need_active_balance: h_nr_running 2 != 1,
    # 1 > 3 false -> no.
    c0 = _cpu(0, [_t(0, running=True, exec_start=NOW - 2_000_000), _t(1, allowed=False)], util=300)
    cpus = [c0, _cpu(1), _cpu(2)] + [_cpu(i, [_t(10 + i, running=True, exec_start=NOW - 2_000_000)], util=300)
                                     for i in (3, 4, 5)]
    res = ref_lb.load_balance(cpus, 1, "DIE", IDLE, NOW, 0)
    assert res.imbalance == 2670 and res.src == 0 and res.moved == () and res.skipped == (1, 0)
    assert res.outcome == "failed" and res.nr_balance_failed == 1
    # NEWLY_IDLE does not count failures.
    assert ref_lb.load_balance(cpus, 1, "DIE", NEWLY_IDLE, NOW, 1).nr_balance_failed == 1
    # 3 -> 4 > cache_nice_tries + 2 = 3: active balance (busiest->curr, task 0, may run on CPU1), the
    # counter set to cache_nice_tries + 1; the stopper's detach_one_task scans the list after the
    # skips, [0, 1] head first, from the tail: task 1 not allowed, task 0 allowed -> moved, and a
    # successful stopper resets the counter to 0 (active_load_balance_cpu_stop).
    res = ref_lb.load_balance(cpus, 1, "DIE", IDLE, NOW, 3)
    assert res.outcome == "active" and res.active == 0 and res.nr_balance_failed == 0
    # NEWLY_IDLE never starts it here (not modelled, both engines)
    assert ref_lb.load_balance(cpus, 1, "DIE", NEWLY_IDLE, NOW, 4).active == -1
    # every waiting task pinned and the running one too: LBF_ALL_PINNED, out_all_pinned, counter 0
    pinned = [_cpu(0, [_t(0, running=True, allowed=False), _t(1, allowed=False)], util=300)] + cpus[1:]
    res = ref_lb.load_balance(pinned, 1, "DIE", IDLE, NOW, 3)
    assert res.outcome == "pinned" and res.nr_balance_failed == 0 and res.active == -1


def test_asym_clause_keeps_tasks_on_the_big_cluster():
    # DIE of LITTLE CPU3 with SD_ASYM_CPUCAPACITY: big CPU1 runs task 0, CPU2 runs task 1 (load 1000,
    # util 300 each); LITTLE all idle. Local {0,3,4,5}: nothing; {1,2}: load 2000, avg 2048000 // 2048
    # = 1000, sum_nr 2 <= 2 -> not overloaded and no prefer_sibling (2 > 0 + 1 yes! local has capacity
    # -> group_no_capacity = 1, overloaded). Overloaded > other -> busiest before the asym clause.
    # So with prefer_sibling the asym clause is never reached here; with one task only (CPU1):
    # sum_nr 1 > 1 false -> other; avg 1024000 // 2048 = 500 > 0; asym: 1 <= 2 and local min_capacity
    # 446 * 1280 = 570880 < 1024 * 1024 = 1048576 -> not busiest -> balanced.
    one = [_cpu(0), _cpu(1, [_t(0, running=True)], util=300), _cpu(2), _cpu(3), _cpu(4), _cpu(5)]
    assert ref_lb.load_balance(one, 3, "DIE", NEWLY_IDLE, NOW, 0, asym=True).outcome == "balanced"
    # without the flag {1,2} is busiest: NEWLY_IDLE 100 * 500 > 125 * 0 -> imbalance; CPU1 nr 1 and
    # 1000 > imbalance? sds.avg = 1024000 // 3832 = 267; max_pull 500 - 267 = 233; imbalance =
    # min(233 * 2048 = 477184, 267 * 1784 = 476328) // 1024 = 465 < 1000 -> fix_small: imbn 2, scaled
    # 1000 * 1024 // 2048 = 500; 500 + 500 >= 0 + 1000 -> imbalance 1000. CPU1: nr 1, 1000 > 1000 false
    # -> kept: busiest CPU1, nr_running 1 -> no detach, failed (NEWLY_IDLE: counter unchanged 0).
    res = ref_lb.load_balance(one, 3, "DIE", NEWLY_IDLE, NOW, 0, asym=False)
    assert res.imbalance == 1000 and res.src == 1 and res.moved == () and res.nr_balance_failed == 0


def test_lb_form_is_v4_for_eras_v4_16_to_v4_19_only():
    from lisa_eas.sim import SimConfig
    from reference.ref_sim_engine_state import run_params

    from lisa_eas.platform import load_platform
    plat = load_platform("juno_r0")
    got = {era: run_params(plat, SimConfig(era=era)).lb_form
           for era in ("v4.13", "v4.14", "v4.17", "v4.19", "v4.20", "v5.4")}
    assert got == {"v4.13": None, "v4.14": None, "v4.17": "v4", "v4.19": "v4", "v4.20": None, "v5.4": None}


def test_the_reference_engine_runs_the_twin_only_in_its_eras(monkeypatch):
    """The engine calls ref_lb.load_balance (newidle and periodic, MC and DIE) at v4.17 and never
    at v5.4, where the simplified pull stays."""
    from test_sim_reference_engine import WORKLOADS

    from lisa_eas.platform import load_platform
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._compile import compile_workload
    from reference.ref_sim_engine import run_reference

    calls = []
    real = ref_lb.load_balance

    def spy(cpus, dst, level, idle, now, failed, asym=False, eas_balanced=False):
        calls.append((level, idle))
        return real(cpus, dst, level, idle, now, failed, asym, eas_balanced)

    monkeypatch.setattr(ref_lb, "load_balance", spy)
    plat = load_platform("juno_r0")
    compiled = compile_workload(WORKLOADS["rfc20"](plat.nr_cpus), plat.nr_cpus)
    for era, expect in (("v5.4", False), ("v4.17", True)):
        calls.clear()
        run_reference(plat, compiled, SimConfig(era=era, placement="no-eas", model_events=False), 60_000_000)
        assert bool(calls) == expect, era
    assert {c for c in calls} >= {("MC", IDLE), ("DIE", IDLE), ("MC", NEWLY_IDLE), ("DIE", NEWLY_IDLE)}


# ---------------------------------------------------------------- balance intervals (v4.19 sd_init,
# load_balance's exits, get_sd_balance_interval; HZ = 250 here: a jiffy is 4 ms)

@pytest.mark.parametrize("outcome, interval, weight, want", [
    ("moved", 8, 4, 4),          # ld_moved, no stopper: balance_interval = min_interval = sd_weight
    ("failed", 8, 4, 4),         # a busiest queue, nothing moved, no stopper: also min_interval
    ("balanced", 4, 4, 8),       # out_balanced: doubled while below max_interval = 2 * 4
    ("balanced", 8, 4, 8),       # at max_interval: kept
    ("stop", 6, 6, 12),          # should_we_balance() no -> out_balanced: doubled (DIE of Juno r0, 6 CPUs)
    ("kicked", 6, 6, 12),        # the stopper started: "start to back off", below max_interval 12
    ("active", 12, 6, 12),
    ("pinned", 8, 4, 16),        # LBF_ALL_PINNED: doubled while below MAX_PINNED_INTERVAL (512) ...
    ("one-pinned", 256, 4, 512),
    ("pinned", 512, 4, 512),     # ... or below max_interval: 512 is neither
])
def test_balance_interval_after_load_balance(outcome, interval, weight, want):
    assert ref_lb.interval_after(outcome, interval, weight) == want


@pytest.mark.parametrize("interval, busy, nr_cpus, want", [
    (4, False, 6, 1),            # Juno r0 MC idle: msecs_to_jiffies(4) = 1
    (6, False, 6, 2),            # DIE idle: 6 ms rounds up to 2 jiffies
    (4, True, 6, 32),            # busy: 4 * busy_factor 32 = 128 ms = 32 jiffies
    (6, True, 6, 48),            # 192 ms
    (12, True, 6, 96),           # 384 ms
    (8, True, 6, 64),            # 256 ms
    (16, True, 6, 128),          # 512 ms
    (24, True, 6, 150),          # 768 ms = 192 jiffies, clamped to max_load_balance_interval = 250 * 6 / 10
    (8, True, 8, 64),            # HiKey960 DIE busy: 256 ms; the clamp is 200 there
])
def test_balance_interval_in_jiffies(interval, busy, nr_cpus, want):
    assert ref_lb.interval_jiffies(interval, busy, 250, nr_cpus) == want


def test_busy_cpu_balance_has_no_forced_balance_and_keeps_the_imbalance_pct_rule():
    """CPU_NOT_IDLE (a busy CPU's own periodic balance, rebalance_domains at its tick) against IDLE
    on one state. Juno r0: big CPUs 1, 2 each run one task of load 1000 (util 500), the four
    LITTLE CPUs one task of load 500 each (util 150). DIE from CPU1:
    should_we_balance: local {1, 2} has no idle CPU -> its first CPU, 1 = dst -> balance.
    local: load 2000, capacity 2048, avg_load 1000, util 1000, 2 tasks; group_has_capacity (125):
      2 < 2 no, 2048 * 100 = 204800 > 1000 * 125 = 125000 -> yes.
    {0,3,4,5}: load 2000, capacity 1784, avg_load 2048000 // 1784 = 1147, 4 tasks, load_per_task
      500; not overloaded by util (4 <= 4), but prefer_sibling: 4 > 2 + 1 -> group_no_capacity,
      overloaded -> busiest. sds avg_load 4096000 // 3832 = 1068.
    IDLE: force_balance (local has capacity, busiest no capacity); calculate_imbalance: max_pull =
      1147 - 1068 = 79; min(79 * 1784 = 140936, (1068 - 1000) * 2048 = 139264) // 1024 = 136 < 500
      -> fix_small_imbalance: imbn 2, scaled_busy_load_per_task 512000 // 1784 = 286; 1147 + 286 =
      1433 < 1000 + 572; capa_now = (1784 * 500 + 2048 * 1000) // 1024 = 2871, capa_move = (1784 *
      min(500, 861) + 2048 * min(1000, 1000 + 512000 // 2048)) // 1024 = 2871: no gain, imbalance
      stays 136; find_busiest_queue: every LITTLE CPU runs one task heavier than 136 -> none:
      out_balanced ("no-queue"), the interval doubles.
    NOT_IDLE: no force_balance; 1000 < 1147, 1000 < 1068, then the imbalance_pct rule of
      NEWLY_IDLE / NOT_IDLE: 100 * 1147 = 114700 <= 125 * 1000 = 125000 -> out_balanced, no
      imbalance computed."""
    cpus = [_cpu(0, [_t(0, running=True, load=500)], util=150),
            _cpu(1, [_t(1, running=True)], util=500), _cpu(2, [_t(2, running=True)], util=500)] + \
        [_cpu(i, [_t(i, running=True, load=500)], util=150) for i in (3, 4, 5)]
    idle = ref_lb.load_balance(cpus, 1, "DIE", IDLE, NOW, 0)
    assert idle.stats["avg_load"] == 1068 and idle.stats["busiest_stat"]["avg_load"] == 1147
    assert idle.stats["force_balance"] and idle.imbalance == 136 and idle.outcome == "no-queue"
    busy = ref_lb.load_balance(cpus, 1, "DIE", ref_lb.NOT_IDLE, NOW, 0)
    assert busy.outcome == "balanced" and busy.imbalance == 0 and busy.continue_balancing
