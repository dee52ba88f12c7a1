"""Hand-worked checks of the v5.18 ``load_balance()`` twin (``tests/reference/ref_lb_v5.py``).

Every expected number below was worked out by hand from kernel/sched/fair.c and
kernel/sched/topology.c of v5.18.12 (update_sg_lb_stats, group_has_capacity, group_is_overloaded,
group_classify, update_sd_pick_busiest, find_busiest_group, calculate_imbalance,
adjust_numa_imbalance, find_busiest_queue, detach_tasks, can_migrate_task / task_hot,
need_active_balance, should_we_balance, load_balance, active_load_balance_cpu_stop; sd_init and
the imb_numa_nr loop of build_sched_domains), not from the twin's code. fits_capacity(c, m) is
c * 1280 < m * 1024; capacity_greater(a, b) is a * 1024 > b * 1078.
"""
from __future__ import annotations

from reference import ref_lb_v5 as lb
from reference.ref_lb_v5 import IDLE, NEWLY_IDLE, NOT_IDLE, LbCpu, LbTask

NOW = 1_000_000_000
COLD = NOW - 2_000_000          # ran 2 ms ago: 2 ms >= 500 us, not cache hot
HOT = NOW - 100_000             # 100 us ago: hot


def _t(idx, load=1000, util=100, running=False, exec_start=COLD, cpus=None):
    return LbTask(idx=idx, load=load, util=util, exec_start=exec_start, running=running,
                  cpus=None if cpus is None else frozenset(cpus))


def _cpu(tasks=(), util=0, runnable=0, cap=1024, llc=0, node=0, misfit=0, active_balance=False):
    tasks = tuple(tasks)
    return LbCpu(load=sum(t.load for t in tasks), util=util, runnable=runnable, nr_running=len(tasks),
                 h_nr_running=len(tasks), capacity=cap, capacity_orig=cap, llc=llc, node=node, tasks=tasks,
                 misfit_task_load=misfit, active_balance=active_balance)


def _crowded(n, util, runnable, **kw):
    """A CPU running task 0 with tasks 1 .. n-1 waiting (list head -> tail: 0, 1, ..)."""
    return _cpu([_t(0, running=True)] + [_t(i) for i in range(1, n)], util=util, runnable=runnable, **kw)


# ---- topology ---------------------------------------------------------------------------------

def test_levels_and_domain_parameters_of_v5_18():
    # sd_init (v5.18): imbalance_pct 117 on every non-SMT level (2208cdaa56c9, v5.10); cache_nice_tries
    # 1 for MC and DIE, 2 for NUMA; SD_PREFER_SIBLING cleared on NUMA itself.
    assert lb.levels([0, 0], 1) == ["MC"]
    assert lb.levels([0, 0, 1, 1], 2) == ["MC", "DIE"]
    assert lb.levels([0] * 4 + [1] * 4, 4, [0] * 4 + [1] * 4) == ["MC", "NUMA"]
    two_llc = [_cpu(llc=0), _cpu(llc=0), _cpu(llc=1), _cpu(llc=1)]
    mc, die = lb.domain(two_llc, 2, "MC"), lb.domain(two_llc, 2, "DIE")
    assert (mc.imbalance_pct, mc.cache_nice_tries, mc.pkg, mc.groups) == (117, 1, True, ((2,), (3,)))
    assert (die.imbalance_pct, die.cache_nice_tries, die.pkg, die.prefer_sibling) == (117, 1, False, True)
    # groups: local first, then in for_each_cpu_wrap order from CPU 2: {2,3}, {0,1}
    assert die.groups == ((2, 3), (0, 1)) and not die.has_parent and mc.has_parent
    # imb_numa_nr: one LLC per node of 4 CPUs: nr_llcs = 4 / 4 = 1 -> 4 >> 2 = 1; 8 CPUs -> 2;
    # 8-CPU nodes of two 4-CPU LLCs: nr_llcs = 2 -> 2; factor max(1, 16 / 16) = 1.
    numa4 = [_cpu(llc=i // 4, node=i // 4) for i in range(8)]
    d = lb.domain(numa4, 4, "NUMA")
    assert (d.imb_numa_nr, d.cache_nice_tries, d.imbalance_pct, d.numa, d.prefer_sibling) == (1, 2, 117, True, True)
    assert d.groups == ((4, 5, 6, 7), (0, 1, 2, 3))
    numa8 = [_cpu(llc=i // 8, node=i // 8) for i in range(16)]
    assert lb.domain(numa8, 0, "NUMA").imb_numa_nr == 2
    numa_2llc = [_cpu(llc=i // 4, node=i // 8) for i in range(16)]
    assert lb.levels([c.llc for c in numa_2llc], 0, [c.node for c in numa_2llc]) == ["MC", "DIE", "NUMA"]
    assert lb.domain(numa_2llc, 0, "NUMA").imb_numa_nr == 2
    # big.LITTLE: DIE spans capacities 512 and 1024 -> SD_ASYM_CPUCAPACITY, which clears MC's
    # SD_PREFER_SIBLING -> the DIE balance has no prefer_sibling
    bl = [_cpu(cap=512, llc=0), _cpu(cap=512, llc=0), _cpu(llc=1), _cpu(llc=1)]
    assert lb.domain(bl, 2, "DIE").asym and not lb.domain(bl, 2, "DIE").prefer_sibling


# ---- (a) MC: one CPU with 3 tasks, an idle sibling -------------------------------------------------

def test_a_mc_overloaded_cpu_gives_one_task_to_its_idle_sibling():
    # MC of CPU1 (groups {1}, {0}), imbalance_pct 117, SD_SHARE_PKG_RESOURCES, no child -> no
    # prefer_sibling. should_we_balance (IDLE): first idle CPU of {1} is 1 = dst.
    # {1}: nothing, sum_nr_running 0 < 1 -> group_has_spare, idle_cpus 1.
    # {0}: load 3000, util 900, runnable 2000, sum 3, capacity 1024, weight 1;
    #   group_is_overloaded: 3 > 1 and 1024 * 100 = 102400 < 900 * 117 = 105300 -> overloaded;
    #   avg_load 3000 * 1024 // 1024 = 3000. overloaded > has_spare -> busiest.
    # find_busiest_group: busiest overloaded, local has_spare (0 > 5 no) -> calculate_imbalance:
    #   local has_spare; busiest > fully_busy but MC has SD_SHARE_PKG_RESOURCES -> not the util branch;
    #   busiest group_weight == 1 -> migrate_task, nr_diff = 3 - 0 = 3, >> 1 = 1.
    # find_busiest_queue (migrate_task): CPU0 h_nr_running 3 > 0 -> CPU0.
    # detach_tasks: loop_max min(32, 3) = 3; tail task 2 (cold) -> imbalance 1 - 1 = 0 -> detached, stop.
    cpus = [_crowded(3, util=900, runnable=2000), _cpu()]
    res = lb.load_balance(cpus, 1, "MC", IDLE, NOW, 0)
    busiest = res.stats["busiest_stat"]
    assert res.stats["local_stat"]["group_type"] == lb.GROUP_HAS_SPARE
    assert busiest["group_type"] == lb.GROUP_OVERLOADED and busiest["avg_load"] == 3000
    assert (res.migration_type, res.imbalance, res.src) == (lb.MIGRATE_TASK, 1, 0)
    assert res.moved == (2,) and res.outcome == "moved" and res.nr_balance_failed == 0


def test_a_mc_has_spare_busiest_gives_the_same_and_four_tasks_give_two():
    # util 600, runnable 700: overloaded? 102400 < 600 * 117 = 70200 no; 1024 * 117 = 119808 <
    #   700 * 100 = 70000 no -> not; has_capacity: 3 < 1 no; 119808 < 70000 no; 102400 > 70200 ->
    #   group_has_spare. pick_busiest: has_spare vs the initial busiest_stat (idle_cpus UINT_MAX):
    #   0 > UINT_MAX no, not equal -> busiest. find_busiest_group: busiest not overloaded, IDLE,
    #   group_weight 1 (no idle_cpus test), sum_h_nr_running 3 != 1 -> migrate_task (3 >> 1) = 1.
    res = lb.load_balance([_crowded(3, util=600, runnable=700), _cpu()], 1, "MC", IDLE, NOW, 0)
    assert res.stats["busiest_stat"]["group_type"] == lb.GROUP_HAS_SPARE
    assert (res.migration_type, res.imbalance, res.moved) == (lb.MIGRATE_TASK, 1, (2,))
    # the same has_spare busiest seen by a busy CPU (CPU_NOT_IDLE): out_balanced
    res = lb.load_balance([_crowded(3, util=600, runnable=700), _cpu()], 1, "MC", NOT_IDLE, NOW, 0)
    assert res.outcome == "balanced" and res.moved == ()
    # 4 tasks (util 900, runnable 2000: overloaded): imbalance (4 - 0) >> 1 = 2: tail 3 -> 1, tail 2
    # -> 0 -> stop: two tasks. NEWLY_IDLE stops after the first (CONFIG_PREEMPTION).
    res = lb.load_balance([_crowded(4, util=900, runnable=2000), _cpu()], 1, "MC", IDLE, NOW, 0)
    assert (res.imbalance, res.moved) == (2, (3, 2))
    res = lb.load_balance([_crowded(4, util=900, runnable=2000), _cpu()], 1, "MC", NEWLY_IDLE, NOW, 0)
    assert (res.imbalance, res.moved) == (2, (3,))


def test_a_cache_hot_tail_is_skipped_until_balance_failed_passes_cache_nice_tries():
    # task 2 ran 100 us ago: task_hot (100000 < 500000) and nr_balance_failed 0 <= cache_nice_tries 1
    # -> can_migrate_task 0 -> list_move to the head; task 1 (cold) detached (imbalance 1 -> 0).
    def state():
        c0 = _cpu([_t(0, running=True), _t(1), _t(2, exec_start=HOT)], util=900, runnable=2000)
        return [c0, _cpu()]
    res = lb.load_balance(state(), 1, "MC", IDLE, NOW, 0)
    assert res.skipped == (2,) and res.moved == (1,)
    # nr_balance_failed 2 > 1: the hot task goes (and resets the counter)
    res = lb.load_balance(state(), 1, "MC", IDLE, NOW, 2)
    assert res.skipped == () and res.moved == (2,) and res.nr_balance_failed == 0


# ---- (b) DIE between two LLCs ---------------------------------------------------------------------

def _two_llc(c0, c1):
    return [c0, c1, _cpu(llc=1), _cpu(llc=1)]


def test_b_die_prefer_sibling_spreads_half_the_task_difference():
    # CPUs {0,1} LLC 0, {2,3} LLC 1, capacity 1024; DIE of CPU2: groups {2,3} (local), {0,1};
    # prefer_sibling (child MC has SD_PREFER_SIBLING). CPU0: 3 tasks util 300 runnable 600; CPU1:
    # 2 tasks util 300 runnable 500. {0,1}: load 5000, util 600, runnable 1100, sum 5, idle 0,
    # capacity 2048: overloaded? 5 > 2; 204800 < 600 * 117 = 70200 no; 2048 * 117 = 239616 <
    # 110000 no -> no; has_capacity: 239616 < 110000 no; 204800 > 70200 -> group_has_spare.
    # local {2,3}: idle 2, has_spare. find_busiest_group: prefer_sibling, local has_spare and 5 >
    # 0 + 1 -> force_balance. calculate_imbalance: busiest has_spare (not > fully_busy);
    # prefer_sibling -> migrate_task, (5 - 0) >> 1 = 2.
    # find_busiest_queue: CPU0 (3 > 0), CPU1 (2 > 3 no) -> CPU0. detach: tail 2 -> 1, tail 1 -> 0 -> stop.
    cpus = _two_llc(_crowded(3, util=300, runnable=600), _crowded(2, util=300, runnable=500, llc=0))
    res = lb.load_balance(cpus, 2, "DIE", IDLE, NOW, 0)
    assert res.stats["busiest_stat"]["group_type"] == lb.GROUP_HAS_SPARE and res.stats["prefer_sibling"]
    assert (res.migration_type, res.imbalance, res.src, res.moved) == (lb.MIGRATE_TASK, 2, 0, (2, 1))


def test_b_die_without_prefer_sibling_evens_the_idle_cpus():
    # Same tasks with CPUs 0, 1 LITTLE (capacity 512): DIE is SD_ASYM_CPUCAPACITY, MC loses
    # SD_PREFER_SIBLING -> no prefer_sibling. {0,1}: capacity 1024, util 600, runnable 1100, sum 5:
    # overloaded? 102400 < 70200 no; 1024 * 117 = 119808 < 110000 no -> no; has_capacity:
    # 119808 < 110000 no; 102400 > 70200 -> has_spare. pick_busiest's asym clause:
    # capacity_greater(min 512, 1024) no -> busiest. find_busiest_group: not overloaded, IDLE,
    # weight 2 > 1 and local idle 2 <= 0 + 1 no; sum_h_nr_running 5 != 1 -> calculate_imbalance:
    # no prefer_sibling, weight 2 -> (local->idle_cpus - busiest->idle_cpus) >> 1 = (2 - 0) >> 1 = 1.
    # find_busiest_queue: asym, capacity_greater(1024, 512) -> no skip; CPU0 (3) -> one task (2).
    cpus = _two_llc(_crowded(3, util=300, runnable=600, cap=512), _crowded(2, util=300, runnable=500, cap=512))
    res = lb.load_balance(cpus, 2, "DIE", IDLE, NOW, 0)
    assert not res.stats["prefer_sibling"]
    assert (res.migration_type, res.imbalance, res.src, res.moved) == (lb.MIGRATE_TASK, 1, 0, (2,))


def test_b_die_overloaded_busiest_fills_local_spare_utilization():
    # capacity 1024 again; CPU0 runnable 1500, CPU1 1000: {0,1} runnable 2500: 239616 < 250000 ->
    # overloaded. calculate_imbalance: local has_spare, busiest overloaded > fully_busy and DIE has
    # no SD_SHARE_PKG_RESOURCES -> migrate_util, imbalance max(2048, 0) - 0 = 2048.
    # find_busiest_queue (util): CPU0 nr 3 util 300 > 0 -> CPU0; CPU1 300 < 300 no.
    # detach: task utils 100: tail 2 -> 1948, tail 1 -> 1848, then nr_running 1 (IDLE) -> stop.
    cpus = _two_llc(_crowded(3, util=300, runnable=1500), _crowded(2, util=300, runnable=1000))
    res = lb.load_balance(cpus, 2, "DIE", IDLE, NOW, 0)
    assert res.stats["busiest_stat"]["group_type"] == lb.GROUP_OVERLOADED
    assert (res.migration_type, res.imbalance, res.moved, res.imbalance_left) == (lb.MIGRATE_UTIL, 2048, (2, 1), 1848)


# ---- (c) NUMA allowance -----------------------------------------------------------------------------

def _numa(node0, node1):
    """2 nodes x 4 CPUs, one LLC per node: CPUs 0-3 node 0, 4-7 node 1 (imb_numa_nr 1)."""
    out = []
    for i in range(8):
        c = (node0 if i < 4 else node1).get(i)
        out.append(c if c is not None else _cpu(llc=i // 4, node=i // 4))
    return out


def _node0_four_tasks():
    return {0: _crowded(3, util=300, runnable=600), 1: _crowded(1, util=200, runnable=200)}


def test_c_numa_allowance_keeps_a_small_imbalance():
    # NUMA of CPU4 (levels MC, NUMA; DIE degenerate), groups {4..7}, {0..3}; prefer_sibling (child
    # MC); imb_numa_nr = 4 >> 2 = 1. Node 0: CPU0 3 tasks (util 300, runnable 600), CPU1 1 task (util
    # 200, runnable 200): sum 4, weight 4 -> not overloaded; has_capacity: 4 < 4 no; 4096 * 117 =
    # 479232 < 800 * 100 no; 409600 > 500 * 117 = 58500 -> has_spare; idle_cpus 2.
    # local {4..7}: empty, has_spare. find_busiest_group: prefer_sibling and 4 > 0 + 1 -> force.
    # calculate_imbalance: prefer_sibling -> (4 - 0) >> 1 = 2; SD_NUMA: adjust_numa_imbalance(2,
    # dst_running = 0 + 1, 1): 1 <= 1 -> allowed; 2 <= NUMA_IMBALANCE_MIN 2 -> 0 -> no busiest group.
    res = lb.load_balance(_numa(_node0_four_tasks(), {}), 4, "NUMA", IDLE, NOW, 3)
    assert res.stats["busiest"] == (0, 1, 2, 3) and res.imbalance == 0
    assert res.outcome == "balanced" and res.moved == () and res.nr_balance_failed == 0


def test_c_numa_allowance_ends_when_the_local_node_is_busy():
    # The same node 0; CPU4 runs one task (util 200): should_we_balance from CPU5 (first idle CPU of
    # {4..7}). local sum 1, idle 3. force: 4 > 1 + 1. (4 - 1) >> 1 = 1; adjust_numa_imbalance(1,
    # 1 + 1 = 2, 1): 2 <= 1 no -> 1 stays. find_busiest_queue: CPU0 (3 tasks) -> task 2 moves.
    node1 = {4: _cpu([_t(10, running=True)], util=200, runnable=200, llc=1, node=1)}
    res = lb.load_balance(_numa(_node0_four_tasks(), node1), 5, "NUMA", IDLE, NOW, 0)
    assert (res.migration_type, res.imbalance, res.src, res.moved) == (lb.MIGRATE_TASK, 1, 0, (2,))
    # and from CPU4 (busy) the periodic balance stops at should_we_balance (5 is the first idle)
    res = lb.load_balance(_numa(_node0_four_tasks(), node1), 4, "NUMA", IDLE, NOW, 0)
    assert res.outcome == "stop" and not res.continue_balancing


def test_c_numa_many_tasks_move():
    # Node 0: CPUs 0-3 with 3, 2, 1, 1 tasks (util 200 each CPU, runnable 400, 400, 200, 200): sum 7,
    # util 800, runnable 1200 -> not overloaded (409600 < 93600 no; 479232 < 120000 no), has_spare
    # (409600 > 93600). (7 - 0) >> 1 = 3; adjust(3, 1, 1): allowed but 3 > 2 -> 3.
    # find_busiest_queue: CPU0 (3). detach: tail 2 -> 2, tail 1 -> 1, nr_running 1 -> stop: 2 tasks.
    node0 = {0: _crowded(3, util=200, runnable=400), 1: _crowded(2, util=200, runnable=400),
             2: _crowded(1, util=200, runnable=200), 3: _crowded(1, util=200, runnable=200)}
    res = lb.load_balance(_numa(node0, {}), 4, "NUMA", IDLE, NOW, 0)
    assert (res.migration_type, res.imbalance, res.src, res.moved) == (lb.MIGRATE_TASK, 3, 0, (2, 1))


# ---- (d) migrate_load between two overloaded groups ---------------------------------------------------

def _two_overloaded():
    # local {2,3}: CPU2 tasks 20 (running), 21; CPU3 task 30; loads 1000; util 1024 each.
    # busiest {0,1}: CPU0 tasks 0 (running), 1, 2 of load 1000; CPU1 tasks of load 800; util 1024 each.
    c0 = _crowded(3, util=1024, runnable=3000)
    c1 = _cpu([_t(10, 800, running=True), _t(11, 800), _t(12, 800)], util=1024, runnable=2400)
    c2 = _cpu([_t(20, running=True), _t(21)], util=1024, runnable=2000, llc=1)
    c3 = _cpu([_t(30, running=True)], util=1024, runnable=1000, llc=1)
    return [c0, c1, c2, c3]


def test_d_migrate_load_between_overloaded_groups():
    # DIE of CPU2, CPU_NOT_IDLE (no idle CPU in {2,3}: group_balance_cpu 2 = dst).
    # local {2,3}: sum 3 > 2, 2048 * 100 = 204800 < 2048 * 117 -> overloaded; load 3000, avg_load
    #   3000 * 1024 // 2048 = 1500.
    # {0,1}: sum 6 > 2, overloaded; load 3000 + 2400 = 5400, avg_load 5400 * 1024 // 2048 = 2700.
    # find_busiest_group: local overloaded: 1500 >= 2700 no; sds.avg_load = 8400 * 1024 // 4096 =
    #   2100; 1500 >= 2100 no; 100 * 2700 = 270000 <= 117 * 1500 = 175500 no -> go on.
    # calculate_imbalance: migrate_load, min((2700 - 2100) * 2048, (2100 - 1500) * 2048) // 1024
    #   = 1228800 // 1024 = 1200.
    # find_busiest_queue (load): CPU0 3000 * 1 > 0 -> CPU0 (3000, 1024); CPU1 2400 * 1024 >
    #   3000 * 1024 no -> CPU0.
    # detach (NOT_IDLE, loop_max 3): tail 2: shr_bound(1000, 0) = 1000 > 1200 no -> 200 left;
    #   tail 1: 1000 > 200 -> to the head; tail 0: running -> to the head; loop 4 > 3 -> stop.
    res = lb.load_balance(_two_overloaded(), 2, "DIE", NOT_IDLE, NOW, 0)
    s = res.stats
    assert (s["local_stat"]["avg_load"], s["busiest_stat"]["avg_load"], s["avg_load"]) == (1500, 2700, 2100)
    assert (res.migration_type, res.imbalance, res.src) == (lb.MIGRATE_LOAD, 1200, 0)
    assert res.moved == (2,) and res.skipped == (1, 0) and res.imbalance_left == 200


def test_d_failed_balances_relax_the_load_check():
    # nr_balance_failed 3: tail 2: 1000 >> 3 = 125 <= 1200 -> 200 left; tail 1: 125 <= 200 ->
    # 200 - 1000 = -800 -> stop: two tasks.
    res = lb.load_balance(_two_overloaded(), 2, "DIE", NOT_IDLE, NOW, 3)
    assert res.moved == (2, 1) and res.imbalance_left == -800 and res.nr_balance_failed == 0


def test_d_imbalance_pct_test_keeps_a_small_avg_load_gap():
    # CPU1's tasks at load 170: busiest load 3000 + 510 = 3510, avg_load 3510 * 1024 // 2048 = 1755;
    # sds.avg_load (3510 + 3000) * 1024 // 4096 = 1627; local 1500 < 1755 and 1500 < 1627, but
    # 100 * 1755 = 175500 <= 117 * 1500 = 175500 (the boundary) -> out_balanced.
    cpus = _two_overloaded()
    cpus[1] = _cpu([_t(10, 170, running=True), _t(11, 170), _t(12, 170)], util=1024, runnable=2400)
    res = lb.load_balance(cpus, 2, "DIE", NOT_IDLE, NOW, 0)
    assert res.stats["busiest_stat"]["avg_load"] == 1755 and res.stats["avg_load"] == 1627
    assert res.outcome == "balanced" and res.moved == ()
    # one more unit of load (171 * 3 = 513: avg 3513 * 1024 // 2048 = 1756; 175600 > 175500):
    # sds.avg_load 6513 * 1024 // 4096 = 1628; imbalance min((1756 - 1628) * 2048,
    # (1628 - 1500) * 2048) // 1024 = 256; CPU0 (3000 * 1 > 0; CPU1 513 * 1024 < 3000 * 1024);
    # detach: tail 2: 1000 > 256 -> head; tail 1: 1000 > 256 -> head; tail 0 running -> head;
    # loop 4 > 3 -> nothing moved; NOT_IDLE: failed 0 -> 1; need_active_balance: migrate_load, not
    # idle -> no.
    cpus[1] = _cpu([_t(10, 171, running=True), _t(11, 171), _t(12, 171)], util=1024, runnable=2400)
    res = lb.load_balance(cpus, 2, "DIE", NOT_IDLE, NOW, 0)
    assert (res.migration_type, res.imbalance, res.src) == (lb.MIGRATE_LOAD, 256, 0)
    assert res.moved == () and res.skipped == (2, 1, 0) and res.outcome == "failed"
    assert res.nr_balance_failed == 1


# ---- (e) misfit on big.LITTLE ---------------------------------------------------------------------------

def _big_little(c0, c1=None):
    """CPUs 0, 1 LITTLE (512, LLC 0), 2, 3 big (1024, LLC 1); DIE is SD_ASYM_CPUCAPACITY."""
    return [c0, c1 if c1 is not None else _cpu(cap=512), _cpu(llc=1), _cpu(llc=1)]


def test_e_misfit_task_on_little_goes_to_the_idle_big_cpu():
    # CPU0 runs task 0 (load 700, util 600): 600 * 1280 = 768000 < 512 * 1024 = 524288 no -> does not
    # fit, rq->misfit_task_load = 700. DIE of big CPU2: {0,1}: sum 1 <= 2 not overloaded, no
    # imbalance flag, group_misfit_task_load 700 (SD_ASYM_CPUCAPACITY, CPU0 busy) -> group_misfit_task;
    # max_capacity 512. pick_busiest: capacity_greater(1024, 512): 1048576 > 551936 and local
    # has_spare -> candidate; misfit > has_spare -> busiest. rd->overutilized (top level): CPU0
    # overutilized -> True, so EAS does not stop it. find_busiest_group: misfit -> force;
    # calculate_imbalance: migrate_misfit, 1. find_busiest_queue: CPU0 misfit 700 > 0 -> CPU0.
    # load_balance: CPU0 nr_running 1 -> nothing detached; IDLE -> nr_balance_failed 0 -> 1;
    # need_active_balance: migrate_misfit -> 1; curr (task 0) may run on CPU2 -> the stopper:
    # detach_one_task from the tail: task 0 (allowed, no longer running) -> moved, counter reset.
    c0 = _cpu([_t(0, load=700, util=600, running=True)], util=600, runnable=600, cap=512, misfit=700)
    res = lb.load_balance(_big_little(c0), 2, "DIE", IDLE, NOW, 0, eas=True, overutilized=False)
    assert res.stats["busiest_stat"]["group_type"] == lb.GROUP_MISFIT_TASK and res.overutilized
    assert (res.migration_type, res.imbalance, res.src) == (lb.MIGRATE_MISFIT, 1, 0)
    assert res.moved == () and res.outcome == "active" and res.active == 0 and res.nr_balance_failed == 0
    # the misfit task pinned to the LITTLE CPUs: out_one_pinned, the failure counter stays 1
    c0p = _cpu([_t(0, load=700, util=600, running=True, cpus={0, 1})], util=600, runnable=600, cap=512, misfit=700)
    res = lb.load_balance(_big_little(c0p), 2, "DIE", IDLE, NOW, 0)
    assert res.outcome == "one-pinned" and res.nr_balance_failed == 1
    # a small task (load 100, util 50) waits behind the misfit one: nr_running 2 -> detach_tasks
    # (migrate_misfit): tail 1 fits 512 (50 * 1280 < 524288) -> head ([1, 0]); tail 0 running -> head
    # ([0, 1]); loop 3 > 2. Failed -> misfit -> stopper: detach_one_task takes the first allowed task
    # from the tail, which is the small task 1 (it does not look for the misfit one).
    c0w = _cpu([_t(0, load=700, util=600, running=True), _t(1, load=100, util=50)], util=650, runnable=800,
               cap=512, misfit=700)
    res = lb.load_balance(_big_little(c0w), 2, "DIE", IDLE, NOW, 0)
    assert res.skipped == (1, 0) and res.outcome == "active" and res.active == 1
    # a task too big even for a big CPU (util 900 on 1024: 1152000 < 1048576 no -> misfit 900 on
    # CPU2), seen from idle LITTLE CPU0: {2,3} is group_misfit_task but capacity_greater(512, 1024)
    # no -> update_sd_pick_busiest drops it -> no busiest group -> balanced.
    c2 = _cpu([_t(7, load=900, util=900, running=True)], util=900, runnable=900, llc=1, misfit=900)
    cpus = [_cpu(cap=512), _cpu(cap=512), c2, _cpu(llc=1)]
    res = lb.load_balance(cpus, 0, "DIE", IDLE, NOW, 0)
    assert res.stats["busiest"] is None and res.outcome == "balanced"


def test_e_eas_not_overutilized_skips_the_balance():
    # CPU0: 3 tasks util 300 runnable 400, CPU1: 1 task util 100 runnable 100 (LITTLE 512).
    # {0,1}: sum 4 > 2; 1024 * 100 = 102400 < 400 * 117 = 46800 no; 1024 * 117 = 119808 < 50000 no
    # -> not overloaded; has_capacity 102400 > 46800 -> has_spare; idle 0. asym clause: min 512 not >
    # 1024 -> busiest. No CPU overutilized (300 * 1280 = 384000 < 524288): with EAS, rd->overutilized
    # (top level, recomputed) is 0 -> out_balanced.
    c0 = _cpu([_t(0, running=True), _t(1), _t(2)], util=300, runnable=400, cap=512)
    c1 = _cpu([_t(5, running=True)], util=100, runnable=100, cap=512)
    res = lb.load_balance(_big_little(c0, c1), 2, "DIE", IDLE, NOW, 0, eas=True, overutilized=True)
    assert res.outcome == "balanced" and not res.overutilized
    # without EAS: no prefer_sibling (asym), local idle 2 <= 0 + 1 no -> (2 - 0) >> 1 = 1 -> task 2
    res = lb.load_balance(_big_little(c0, c1), 2, "DIE", IDLE, NOW, 0, eas=False)
    assert (res.migration_type, res.imbalance, res.moved) == (lb.MIGRATE_TASK, 1, (2,))


# ---- (f) failures, active balance, all pinned -----------------------------------------------------------

def _fully_busy(pin_curr=False, pending=False):
    # {0,1}: one running task each (load 1000, util 1000, runnable 1000): sum 2 = weight -> not
    # overloaded; has_capacity: 2 < 2 no; 2048 * 117 = 239616 < 200000 no; 204800 > 2000 * 117 =
    # 234000 no -> group_fully_busy.
    cpus_ = {0, 1} if pin_curr else None
    c0 = _cpu([_t(0, running=True, cpus=cpus_)], util=1000, runnable=1000, active_balance=pending)
    c1 = _cpu([_t(1, running=True)], util=1000, runnable=1000)
    return _two_llc(c0, c1)


def test_f_balance_failures_count_up_to_an_active_balance():
    # DIE of CPU2: busiest fully_busy > has_spare; prefer_sibling and 2 > 0 + 1 -> force;
    # calculate_imbalance: migrate_task, (2 - 0) >> 1 = 1; find_busiest_queue: CPU0 (1 > 0), CPU1 not
    # > 1. CPU0 nr_running 1 -> no detach. IDLE: nr_balance_failed + 1. imbalanced_active_balance:
    # migrate_task and failed > cache_nice_tries + 2 = 3.
    res = lb.load_balance(_fully_busy(), 2, "DIE", IDLE, NOW, 0)
    assert res.stats["busiest_stat"]["group_type"] == lb.GROUP_FULLY_BUSY
    assert (res.migration_type, res.imbalance, res.src) == (lb.MIGRATE_TASK, 1, 0)
    assert res.outcome == "failed" and res.nr_balance_failed == 1 and res.active == -1
    assert lb.load_balance(_fully_busy(), 2, "DIE", IDLE, NOW, 2).nr_balance_failed == 3      # 3 > 3 no
    # 3 -> 4 > 3: active balance; the stopper moves task 0 and resets the counter
    res = lb.load_balance(_fully_busy(), 2, "DIE", IDLE, NOW, 3)
    assert res.outcome == "active" and res.active == 0 and res.nr_balance_failed == 0
    # NEWLY_IDLE does not count: 3 stays, 3 > 3 no
    res = lb.load_balance(_fully_busy(), 2, "DIE", NEWLY_IDLE, NOW, 3)
    assert res.outcome == "failed" and res.nr_balance_failed == 3
    # curr pinned to {0,1}: out_one_pinned, the counter stays incremented (4)
    res = lb.load_balance(_fully_busy(pin_curr=True), 2, "DIE", IDLE, NOW, 3)
    assert res.outcome == "one-pinned" and res.nr_balance_failed == 4
    # a stopper already pending on CPU0: none started, counter 4
    res = lb.load_balance(_fully_busy(pending=True), 2, "DIE", IDLE, NOW, 3)
    assert res.outcome == "failed" and res.active == -1 and res.nr_balance_failed == 4


def test_f_all_pinned_ends_out_all_pinned_and_resets_the_counter():
    # MC of CPU1 (2-CPU LLC) as in (a) but tasks 0, 1 pinned to CPU0: imbalance (2 >> 1) = 1, CPU0;
    # detach: tail 1 not allowed (LBF_SOME_PINNED; the local group {1} has no other CPU) -> head;
    # tail 0 not allowed -> head; loop 3 > 2. LBF_ALL_PINNED: CPU0 leaves env->cpus, {1} is a subset
    # of the local group -> out_all_pinned: nr_balance_failed = 0.
    c0 = _cpu([_t(0, running=True, cpus={0}), _t(1, cpus={0})], util=900, runnable=2000)
    res = lb.load_balance([c0, _cpu()], 1, "MC", IDLE, NOW, 5)
    assert res.imbalance == 1 and res.skipped == (1, 0) and res.moved == ()
    assert res.outcome == "pinned" and res.nr_balance_failed == 0 and res.excluded == (0,)


def test_f_all_pinned_redo_picks_the_next_busiest_cpu():
    # DIE of CPU2: CPU0 3 tasks pinned to CPU0, CPU1 2 free tasks (util 300, runnable 1500 / 1000 as
    # in the migrate_util case: overloaded, migrate_util 2048, CPU0 first (util 300 > 0; CPU1 300
    # not > 300)). detach from CPU0: every task pinned (loop_max 3) -> all pinned -> CPU0 leaves
    # env->cpus; {1,2,3} is not inside {2,3} -> redo. {0,1} now sums CPU1 only: sum 2 = weight 2,
    # util 300, runnable 1000: has_capacity 239616 < 100000 no, 204800 > 35100 -> has_spare; local
    # idle 2: prefer_sibling and 2 > 1 -> force; migrate_task (2 - 0) >> 1 = 1; CPU1 -> task 1.
    c0 = _cpu([_t(0, running=True, cpus={0}), _t(1, cpus={0}), _t(2, cpus={0})], util=300, runnable=1500)
    c1 = _cpu([_t(10, running=True), _t(11)], util=300, runnable=1000)
    res = lb.load_balance(_two_llc(c0, c1), 2, "DIE", IDLE, NOW, 0)
    assert res.excluded == (0,) and res.src == 1
    assert (res.migration_type, res.imbalance, res.moved) == (lb.MIGRATE_TASK, 1, (11,))
    assert res.outcome == "moved"


# ---- affinity: LBF_SOME_PINNED -> the parent's group_imbalanced ------------------------------------------

def _pinned_pair():
    # CPU0: task 0 running (free), task 1 pinned to CPU0; util 900, runnable 2000; LLCs {0,1}, {2,3}
    c0 = _cpu([_t(0, running=True), _t(1, cpus={0})], util=900, runnable=2000)
    return _two_llc(c0, _cpu())


def test_some_pinned_flags_the_parent_group_and_die_forces_group_imbalanced():
    # MC of CPU1 (groups {1}, {0}; parent DIE): {0}: sum 2 > 1, 102400 < 900 * 117 -> overloaded;
    # weight 1 -> migrate_task (2 - 0) >> 1 = 1; CPU0. detach (loop_max 2): tail 1 not allowed on 1
    # (LBF_SOME_PINNED; the local group {1} has no other CPU for LBF_DST_PINNED) -> head; tail 0
    # allowed (LBF_ALL_PINNED cleared) but running -> head; loop 3 > 2. Nothing moved, imbalance
    # still 1 > 0 with LBF_SOME_PINNED -> sd_parent->groups->sgc->imbalance = 1. IDLE: failed 1;
    # need_active_balance: migrate_task but 1 > 3 no; h_nr_running 2 -> no.
    res = lb.load_balance(_pinned_pair(), 1, "MC", IDLE, NOW, 0)
    assert res.skipped == (1, 0) and res.moved == () and res.outcome == "failed"
    assert res.parent_imbalance is True and res.nr_balance_failed == 1
    # DIE of CPU2 with {0,1}'s sgc->imbalance set: {0,1} sum 2 = weight -> not overloaded ->
    # sg_imbalanced -> group_imbalanced > has_spare -> busiest; find_busiest_group forces;
    # calculate_imbalance: migrate_task, 1; CPU0 (2 tasks). detach: tail 1 pinned (no CPU of {2,3}
    # in its mask), tail 0 running: nothing; failed 3 -> 4 > 3: active balance; the stopper scans the
    # list after the two moves to the head ([0, 1]) from the tail: 1 not allowed, 0 -> moved.
    res = lb.load_balance(_pinned_pair(), 2, "DIE", IDLE, NOW, 3, imbalanced_groups=[(0, 1)])
    assert res.stats["busiest_stat"]["group_type"] == lb.GROUP_IMBALANCED
    assert (res.migration_type, res.imbalance, res.src) == (lb.MIGRATE_TASK, 1, 0)
    assert res.outcome == "active" and res.active == 0 and res.parent_imbalance is None
    # without the flag: {0,1} has_spare (2 < 2 no; 239616 < 200000 no; 204800 > 900 * 117) with
    # prefer_sibling: 2 > 0 + 1 -> force, the same migrate_task 1 from CPU0
    res = lb.load_balance(_pinned_pair(), 2, "DIE", IDLE, NOW, 0)
    assert res.stats["busiest_stat"]["group_type"] == lb.GROUP_HAS_SPARE and res.imbalance == 1
    # a balanced MC pass (CPU3's MC: {3}, {2}, both idle) clears the parent's flag (out_balanced,
    # LBF_ALL_PINNED not set)
    res = lb.load_balance(_pinned_pair(), 3, "MC", IDLE, NOW, 2)
    assert res.outcome == "balanced" and res.parent_imbalance is False and res.nr_balance_failed == 0
