"""Fork placement of rt-app's threads (ledger fork-v4.14, fork-v5.5): states worked by hand from
kernel/sched/fair.c (find_idlest_cpu / find_idlest_group / find_idlest_group_cpu /
post_init_entity_util_avg; v4.19 tree and a v5.5/v5.6 tree), the twin (tests/reference/ref_fork.py)
against the kernel module on random scenes, and the simulator's initial task table; the same
find_idlest_cpu at a wake-up (ledger wake_cap-v4.16 / wake_cap-v5.7)."""
from __future__ import annotations

import random

import numpy as np

from lisa_eas._kernels import fork as kf
from lisa_eas.models import die_imbalance_pct
from reference.ref_fork import fork_all, post_init, wake_slow_path

#: two clusters of two CPUs (capacities 512, 512 | 1024, 1024), each its own LLC; rt-app's main
#: thread (runnable, load 1024) on CPU 2
CAPS, LLC, PARENT = [512, 512, 1024, 1024], [0, 0, 1, 1], 2


def test_fork_v4_14_vs_v5_5_by_hand():
    """First clone. v4.14: DIE from CPU 2, local {2,3}: runnable 1024*1024/2048 = 512, idlest
    {0,1}: runnable 0; imbalance = 1024*25/100 = 256; 0 > 512+256 no, 512 < 0+256 no -> {0,1};
    both CPUs idle at idle_stamp 0 -> CPU 0; MC of CPU 0: local {0} and {1} both runnable 0 and
    load_avg 0: 100*0 < 108*0 is false -> {1}: CPU 1. v5.5: DIE: local has_spare with 1 idle CPU
    (the parent runs), {0,1} has_spare with 2 -> {0,1} -> CPU 0; MC: local {0} 1 idle >= {1} 1
    idle -> stay: CPU 0. Both start with util (512 - 0) / 2 = 256.
    Second clone (the first blocked, its CPU just idled: idle_stamp 1, load_avg 1024, util 256).
    v4.14: DIE -> {0,1} again (runnable still 0 vs 512); in the group CPU 1 has the latest
    idle_stamp; MC of CPU 1: local load_avg 1024*1024/512 = 2048 > {0}'s 0 -> CPU 0, util 256.
    v5.5: DIE -> {0,1} (2 idle > 1); the latest idle_stamp is CPU 0's; MC: 1 idle each -> stay:
    CPU 0, util min(256 * 2**20 / 1025, (512 - 256) / 2) = 128."""
    assert kf.fork_threads(CAPS, LLC, PARENT, True, kf.FORK_V4_14, 2) == ([1, 0], [256, 256])
    assert kf.fork_threads(CAPS, LLC, PARENT, True, kf.FORK_V5_5, 2) == ([0, 0], [256, 128])
    assert fork_all(CAPS, LLC, PARENT, True, (5, 4), 2) == [(1, 256), (0, 256)]
    assert fork_all(CAPS, LLC, PARENT, True, (5, 5), 2) == [(0, 256), (0, 128)]


def test_fork_without_cpuidle_keeps_the_parents_cluster():
    """No idle state (idle_get_state NULL): an idle CPU is taken only with an idle_stamp above 0,
    so in {0,1} none is, find_idlest_group_cpu returns this_cpu (2) and the search goes down to
    CPU 2's MC: {3} (idle; v4.14: runnable 0 vs the parent's 1024; v5.5: 1 idle CPU vs 0) -> CPU 3."""
    for form in (kf.FORK_V4_14, kf.FORK_V5_5):
        assert kf.fork_threads(CAPS, LLC, PARENT, False, form, 1)[0] == [3]


def test_post_init_entity_util_avg_by_hand():
    """cap = (cpu_scale - cfs util) / 2; the extrapolation util * 2**20 / (load + 1) (64-bit
    se->load.weight) exceeds it unless the cfs_rq's load is huge; no room -> 0."""
    assert kf.post_init_util(462, 0, 0) == 231
    assert kf.post_init_util(462, 231, 1024) == 115
    assert kf.post_init_util(1024, 1, 10 ** 5) == 10            # 2**20 // (10**5 + 1) = 10 < 511
    assert kf.post_init_util(446, 500, 2048) == 0
    for args in ((462, 0, 0), (462, 231, 1024), (1024, 1, 10 ** 5), (446, 500, 2048), (446, 447, 0)):
        assert kf.post_init_util(*args) == post_init(*args)


def test_twin_agrees_on_random_scenes():
    rng = random.Random(18)
    for _ in range(400):
        n = rng.choice([2, 3, 4, 6, 8])
        k = rng.choice([1, 2, n])
        llc = [c * k // n for c in range(n)]
        caps = [rng.choice([256, 446, 462, 512, 1024]) for _ in range(n)]
        parent, state, era, m = (rng.randrange(n), rng.random() < 0.8, rng.choice([(4, 17), (5, 9), (5, 10)]),
                                 rng.randrange(1, 12))
        pl = rng.choice([1024, 1023, 1016, 700, 200, 0])
        cpus, utils = kf.fork_threads(caps, llc, parent, state, kf.FORK_V4_14 if era < (5, 5) else kf.FORK_V5_5, m,
                                      parent_load=pl, pct_die=die_imbalance_pct(era))
        assert list(zip(cpus, utils)) == fork_all(caps, llc, parent, state, era, m, parent_load=pl)


def test_parent_load_1023_vs_1024_on_hikey960_by_hand():
    """HiKey960 (LITTLE 4 x 462, big 4 x 1024), parent on CPU 4, v4.x form, DIE imbalance =
    1024 * 25 / 100 = 256, imbalance_scale 112; MC 117 (imbalance 174, scale 108).
    First clone, both loads: local (big) runnable P * 1024 / 4096 (1024 -> 256, 1023 -> 255),
    LITTLE runnable 0 and load_avg 0 is the idlest; 0 > 256 + 255 no; the stay test needs
    runnable < 0 + 256 *and* 100 * this_avg < 112 * 0: false either way -> LITTLE, util 462 / 2.
    Second clone: LITTLE now holds the first clone's blocked 1024: load_avg 1024 * 1024 / 1848 =
    567, runnable still 0. P = 1024: 256 < 256 is false -> LITTLE again (and so on: every clone).
    P = 1023: 255 < 256 and 100 * 255 = 25500 < 112 * 567 = 63504 -> stay in the big cluster; MC
    of CPU 4: {5} is the first idlest (runnable 0, load 0), {6} and {7} do not beat it (0 < 0 +
    174 but 100 * 0 > 108 * 0 false); 0 > 1023 + 174 no, 1023 < 0 + 174 no -> CPU 5, util
    1024 / 2 = 512."""
    caps, llc = [462] * 4 + [1024] * 4, [0] * 4 + [1] * 4
    assert kf.fork_threads(caps, llc, 4, True, kf.FORK_V4_14, 2, parent_load=1023) == ([1, 5], [231, 512])
    c1024, u1024 = kf.fork_threads(caps, llc, 4, True, kf.FORK_V4_14, 2, parent_load=1024)
    assert set(c1024) <= {0, 1, 2, 3} and u1024 == [231, 231]
    for pl in (1023, 1024):
        assert fork_all(caps, llc, 4, True, (4, 17), 2, parent_load=pl) == list(zip(*kf.fork_threads(
            caps, llc, 4, True, kf.FORK_V4_14, 2, parent_load=pl)))


def test_parent_load_is_the_eras_pelt():
    """rt-app's main thread, attached with load_avg 1024 and running at the top OPP with a PELT
    update at each 4 ms tick: from v4.15 (attach syncs load_sum to the load, divider
    LOAD_AVG_MAX - 1024 + period_contrib) the sum settles one short of the divider's ratio: 1023;
    the ablation gives exactly 1024. Checked against an independent PELT walk: load_sum starts
    at the divider (attach), each 1024 us period decays it by y (y^32 = 1/2, the kernel's
    runnable_avg_yN_inv table truncation) and adds a full period; at a tick 4 periods have passed
    and period_contrib is back to its phase."""
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._fork import parent_load
    assert parent_load(SimConfig(era="v4.17")) == 1023
    assert parent_load(SimConfig(era="v4.17", ablate=("parent-load-nice0",))) == 1024
    # independent: integer PELT (times in us, as the kernel's delta >> 10) of a task always running
    # since it was attached at a period boundary (period_contrib 0), updated every 4000 us; the
    # yN_inv table as sched-pelt.h generates it ((2^32 - 1) * y^k: 0xfa83b2da, ..., 0x82cd8698)
    inv = [int(((1 << 32) - 1) * 0.5 ** (k / 32)) for k in range(32)]
    assert (inv[1], inv[31]) == (0xfa83b2da, 0x82cd8698)

    def decay(v, n):
        v >>= n // 32
        return (v * inv[n % 32]) >> 32

    LOAD_AVG_MAX = 47742
    pc, lut = 0, 0
    load_sum = LOAD_AVG_MAX - 1024 + pc
    for tick in range(1, 251):
        now = tick * 4000                                  # us
        delta = now - lut + pc
        periods, d3 = delta // 1024, delta % 1024
        d1 = 1024 - pc
        c2 = LOAD_AVG_MAX - decay(LOAD_AVG_MAX, periods) - 1024
        load_sum = decay(load_sum, periods) + decay(d1, periods) + c2 + d3
        pc, lut = d3, now
    assert 1024 * load_sum // (LOAD_AVG_MAX - 1024 + pc) == 1023


def test_simulator_starts_threads_where_the_fork_put_them():
    """The simulator's task table at t = 0 (hikey960, 10 tasks, rt-app calibrated on CPU 4): the
    v4.17 form from the parent's 1023 keeps 7 clones on the big cluster (the first on LITTLE, the
    second on CPU 5: test above); from exactly 1024 (ablation) every clone goes to the little
    cluster; the fork-placement ablation restores the old turn order."""
    from lisa_eas.platform import load_platform
    from lisa_eas.rtapp import read_workload
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._compile import compile_workload
    from lisa_eas.sim._fork import fork_placement

    plat = load_platform("hikey960")
    comp = compile_workload(read_workload("workloads/eas_rfc_energy/hikey960_n10.json"), plat.nr_cpus)
    assert comp.parent_cpu == 4
    caps = np.array([plat.cpu_capacity(c) for c in range(plat.nr_cpus)])
    cpus, utils = fork_placement(plat, comp, SimConfig(era="v4.17"), caps)
    assert cpus[:2] == [1, 5] and utils[:2] == [231, 512] and sum(c >= 4 for c in cpus) == 7
    cpus, utils = fork_placement(plat, comp, SimConfig(era="v4.17", ablate=("parent-load-nice0",)), caps)
    assert set(cpus) <= {0, 1, 2, 3} and utils[:4] == [231] * 4
    assert fork_placement(plat, comp, SimConfig(era="v4.17", ablate=("fork-placement",)), None) is None


def _wake(form, scene, this, prev, task_util, task_load, pct_llc=117):
    a = {k: np.array(v, np.int64) for k, v in scene.items()}
    return int(kf.find_idlest_cpu(form, 1, this, prev, a["cap"], a["llc"], a["nr"], a["rload"], a["load"], a["util"],
                                  a["state"], a["stamp"], a["allowed"], task_util, task_util, task_load, pct_llc,
                                  125, 1))     # the wake-up slow path exists up to v5.6: DIE's 125


def test_wake_slow_path_v5_6_vs_v5_7_by_hand():
    """Two LITTLE CPUs (512) and two big (1024), LLCs {0,1} {2,3}, all idle; CPU 2 in idle state 1,
    the others in state 0. A task of util 500 and load 600 sleeping on CPU 0 is woken by CPU 0's
    timer (this = prev = 0). It does not fit a LITTLE CPU: 500 * 1280 = 640000 >= 512 * 1024.
    v5.6 (wake_cap true, no want_affine, SD_BALANCE_WAKE on DIE and MC: find_idlest_cpu from DIE
    of CPU 0, v5.5 form): local {0,1} is misfit (max_capacity 512 * 1024 > 500 * 1280 false), {2,3}
    has spare (0 running, 2 idle) -> a lower type than local -> {2,3}; in it the smallest exit
    latency: CPU 3 (state 0 < state 1); MC of CPU 3: {3} and {2} both has-spare with 1 idle ->
    stay: CPU 3. v5.4 (v4.x form): spare capacity: local 512 - 0 (CPU 0's util without the task)
    = 512 > 500 / 2 but 112 * 512 <= 100 * 1024; {2,3} 1024 > 250 -> {2,3} -> CPU 3; MC: local
    spare 1024 > 250 and 108 * 1024 > 100 * 1024 -> stay: CPU 3. v5.7 (wake_cap removed,
    000619680c37; select_idle_capacity from target 0): CPUs 0, 1 idle but too small, CPU 2 idle
    and 1024 * 1024 > 500 * 1280 -> CPU 2. The fast path of the ablation (v5.6 kernel without
    SD_BALANCE_WAKE): select_idle_sibling on the LLC of prev, target 0 idle -> CPU 0."""
    from lisa_eas.models import select_idle_sibling
    scene = dict(cap=[512, 512, 1024, 1024], llc=[0, 0, 1, 1], nr=[0] * 4, rload=[0] * 4, load=[600, 0, 0, 0],
                 util=[0] * 4, state=[0, 0, 1, 0], stamp=[1] * 4, allowed=[1] * 4)
    assert _wake(kf.FORM_V5_5, scene, 0, 0, 500, 600) == 3
    assert _wake(kf.FORM_V4_14, scene, 0, 0, 500, 600) == 3
    sc = dict(scene, prev=0, task_util=500, fit_util=500, task_load=600, pct_llc=117)
    assert wake_slow_path(sc, 0, (5, 6)) == 3 and wake_slow_path(sc, 0, (5, 4)) == 3
    idle = np.ones(4, bool)
    caps = np.array([512, 512, 1024, 1024])
    v57 = select_idle_sibling(idle, 0, 0, era="v5.7", capacity_orig=caps, llc_id=np.array([0, 0, 1, 1]),
                              task_util=500)
    assert int(np.asarray(v57.cpu).ravel()[0]) == 2
    fast = select_idle_sibling(idle, 0, 0, era="v5.6", feature="none", llc_id=np.array([0, 0, 1, 1]))
    assert int(np.asarray(fast.cpu).ravel()[0]) == 0


def test_wake_slow_path_v4_vs_v5_5_by_hand():
    """Same platform (DIE imbalance_pct 125: imbalance 256, scale 112; MC 117: 174, 108). CPU 0 runs
    one task (runnable and load 1024, util 400), CPU 1 idle, both big CPUs run one task each
    (runnable and load 1024, util 300); the task (util 480, load 500; 480 * 1280 > 512 * 1024: does
    not fit a LITTLE CPU) sleeps on CPU 1 and is woken by CPU 0 (this 0, prev 1).
    v4.x: DIE: local spare max(512 - 400, 512 - 0) = 512 > 480 / 2 = 240, but 112 * 512 = 57344 <=
    100 * (1024 - 300) = 72400; {2,3}'s spare 724 > 240 -> {2,3}; both busy, runnable loads equal
    -> the first, CPU 2; MC of CPU 2: local spare 724 > 240 and 108 * 724 > 100 * 724 -> stay: CPU 2.
    v5.5: local {0,1} misfit (512 * 1024 > 480 * 1280 false), {2,3} 2 running on 2 CPUs, util 600:
    2048 * 100 > 600 * 125 -> has spare: lower type -> {2,3}; least load_avg: CPU 2; MC: {2} and
    {3} has spare with 0 idle each -> stay: CPU 2.
    Busy bigs (util 1000 each) and CPU 0's load_avg 900, CPU 1's 0: v5.5: {2,3} 2048 * 100 <= 2000
    * 125 -> fully busy, still below misfit -> {2,3} -> CPU 2; MC: {2} and {3} fully busy, avg 1024
    each: 100 * 1024 <= 117 * 1024 -> stay: CPU 2. v4.x: local spare 512 (CPU 1) > 240 and 112 *
    512 > 100 * (1024 - 1000) -> stay at DIE; MC of CPU 0: {1}'s spare 512 > 240 (local 112 is not)
    -> CPU 1: the v4.x form keeps the task on a LITTLE CPU, the v5.5 form moves it up."""
    scene = dict(cap=[512, 512, 1024, 1024], llc=[0, 0, 1, 1], nr=[1, 0, 1, 1], rload=[1024, 0, 1024, 1024],
                 load=[1024, 500, 1024, 1024], util=[400, 0, 300, 300], state=[-1, 0, -1, -1], stamp=[0, 1, 0, 0],
                 allowed=[1] * 4)
    assert _wake(kf.FORM_V4_14, scene, 0, 1, 480, 500) == 2
    assert _wake(kf.FORM_V5_5, scene, 0, 1, 480, 500) == 2
    busy = dict(scene, util=[400, 0, 1000, 1000], load=[900, 0, 1024, 1024])
    assert _wake(kf.FORM_V5_5, busy, 0, 1, 480, 500) == 2
    assert _wake(kf.FORM_V4_14, busy, 0, 1, 480, 500) == 1
    for sc, cpu4, cpu55 in ((scene, 2, 2), (busy, 1, 2)):
        d = dict(sc, prev=1, task_util=480, fit_util=480, task_load=500, pct_llc=117)
        assert (wake_slow_path(d, 0, (5, 4)), wake_slow_path(d, 0, (5, 5))) == (cpu4, cpu55)


def test_twin_agrees_on_random_wake_scenes():
    rng = random.Random(1807)
    for _ in range(500):
        n = rng.choice([4, 6, 8])
        k = rng.choice([2, 2, 3]) if n != 4 else 2
        llc = [c * k // n for c in range(n)]
        caps = [rng.choice([256, 446, 462, 512, 1024]) for _ in range(n)]
        nr = [rng.choice([0, 0, 1, 2]) for _ in range(n)]
        scene = dict(cap=caps, llc=llc, nr=nr, rload=[x * rng.choice([0, 300, 1024]) for x in nr],
                     load=[rng.randrange(0, 3000) for _ in range(n)],
                     util=[min(rng.randrange(0, 1100), c) for c in caps],
                     state=[rng.choice([0, 1, 2, -2]) if x == 0 else -1 for x in nr],
                     stamp=[rng.randrange(0, 4) for _ in range(n)],
                     allowed=[1 if rng.random() < 0.85 else 0 for _ in range(n)])
        if not any(scene["allowed"]):
            scene["allowed"][0] = 1
        this, prev = rng.randrange(n), rng.randrange(n)
        tu, tl, pct = rng.randrange(0, 1024), rng.randrange(0, 1024), rng.choice([117, 125])
        for era, form in (((4, 19), kf.FORM_V4_14), ((5, 6), kf.FORM_V5_5)):
            mine = _wake(form, scene, this, prev, tu, tl, pct)
            d = dict(scene, prev=prev, task_util=tu, fit_util=tu, task_load=tl, pct_llc=pct)
            assert mine == wake_slow_path(d, this, era), (era, scene, this, prev, tu, tl, pct)
