"""Fork placement of rt-app's threads (ledger fork-v4.14, fork-v5.5): states worked by hand from
kernel/sched/fair.c (find_idlest_cpu / find_idlest_group / find_idlest_group_cpu /
post_init_entity_util_avg; v4.19 tree and a v5.5/v5.6 tree), the twin (tests/reference/ref_fork.py)
against the kernel module on random scenes, and the simulator's initial task table."""
from __future__ import annotations

import random

from lisa_eas._kernels import fork as kf
from reference.ref_fork import fork_all, post_init

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
        parent, state, era, m = rng.randrange(n), rng.random() < 0.8, rng.choice([(4, 17), (5, 10)]), rng.randrange(1, 12)
        cpus, utils = kf.fork_threads(caps, llc, parent, state, kf.FORK_V4_14 if era < (5, 5) else kf.FORK_V5_5, m)
        assert list(zip(cpus, utils)) == fork_all(caps, llc, parent, state, era, m)


def test_simulator_starts_threads_where_the_fork_put_them():
    """The simulator's task table at t = 0 (hikey960, 10 tasks, rt-app calibrated on CPU 4): the
    v4.17 form sends every clone to the little cluster; the ablation restores the old turn order."""
    from lisa_eas.platform import load_platform
    from lisa_eas.rtapp import read_workload
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._compile import compile_workload
    from lisa_eas.sim._engine import _fork_placement

    plat = load_platform("hikey960")
    comp = compile_workload(read_workload("workloads/eas_rfc_energy/hikey960_n10.json"), plat.nr_cpus)
    assert comp.parent_cpu == 4
    cpus, utils = _fork_placement(plat, comp, SimConfig(era="v4.17"), __import__("numpy").array(
        [plat.cpu_capacity(c) for c in range(plat.nr_cpus)]))
    assert set(cpus) <= {0, 1, 2, 3} and utils[:4] == [231] * 4
    assert _fork_placement(plat, comp, SimConfig(era="v4.17", ablate=("fork-placement",)), None) is None
