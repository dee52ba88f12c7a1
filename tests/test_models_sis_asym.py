"""The asymmetric-capacity wake-up search (v5.7+): ``select_idle_capacity`` and the
``asym_fits_capacity`` checks of ``select_idle_sibling``, against hand-worked cases and the
plain-Python twin (``tests/reference/ref_sis.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lisa_eas import ModelError
from lisa_eas.models import select_idle_sibling
from reference import ref_sis

HIKEY_CAP = [462] * 4 + [1024] * 4          # capacity_orig of HiKey960: LITTLE 0-3, big 4-7
HIKEY_LLC = [0] * 4 + [1] * 4


def _one(idle, target, prev, util, era="v6.1", **kw):
    d = select_idle_sibling(idle, target, prev, era=era, capacity_orig=HIKEY_CAP, llc_id=HIKEY_LLC,
                            task_util=[util], **kw)
    return int(d.cpu[0]), d.path_names[0], int(d.scanned[0])


def test_hand_worked_cases():
    # fits_capacity(util, 462): util * 1280 < 462 * 1024, i.e. util <= 369
    idle = [0, 0, 1, 0, 1, 1, 0, 0]
    assert _one(idle, 1, 1, 369) == (2, "idle_capacity", 2)       # scan 1, 2: CPU 2 idle and fits
    assert _one(idle, 1, 1, 370) == (4, "idle_capacity", 4)       # 370 no longer fits a LITTLE CPU
    assert _one(idle, 6, 6, 370) == (4, "idle_capacity", 7)       # wraps 6, 7, 0..3, 4
    # nothing fits (util 900 > 1024 / 1.25): the idle CPU of highest capacity, the first of equals
    assert _one(idle, 0, 0, 900) == (4, "best_capacity", 8)
    assert _one([0, 0, 1, 0, 0, 0, 0, 0], 0, 0, 900) == (2, "best_capacity", 8)
    # nothing idle: target
    assert _one([0] * 8, 3, 3, 10) == (3, "fallback_target", 8)
    # capacity_of below capacity_orig (rt / thermal pressure) decides the fit
    cap = np.array([[462] * 4 + [700, 1024, 1024, 1024]])
    d = select_idle_sibling([0, 0, 0, 0, 1, 1, 0, 0], 0, 0, era="v6.1", capacity_orig=HIKEY_CAP, capacity=cap,
                            task_util=[600])
    assert int(d.cpu[0]) == 5
    # p->cpus_ptr: CPUs the task may not use are not examined
    d = select_idle_sibling(idle, 1, 1, era="v6.1", capacity_orig=HIKEY_CAP, task_util=[100],
                            allowed=[1, 1, 0, 1, 1, 1, 1, 1])
    assert (int(d.cpu[0]), d.path_names[0], int(d.scanned[0])) == (4, "idle_capacity", 3)


def test_v5_10_checks_target_prev_recent_first():
    idle = [1, 0, 1, 1, 1, 0, 0, 0]
    # v5.10+: an idle prev in target's LLC that fits is taken before the scan from target
    assert _one(idle, 1, 3, 100, era="v5.10") == (3, "prev", 0)
    # v5.7-v5.9: the scan from target finds CPU 2 first
    assert _one(idle, 1, 3, 100, era="v5.7") == (2, "idle_capacity", 2)
    # an idle target that does not fit is skipped by both
    assert _one(idle, 0, 0, 500, era="v5.10") == (4, "idle_capacity", 5)
    assert _one(idle, 0, 0, 500, era="v5.8") == (4, "idle_capacity", 5)
    # recent_used_cpu: same LLC as target, idle, allowed, fits
    assert _one([0, 0, 0, 0, 0, 0, 1, 1], 5, 5, 500, era="v6.6", recent_used_cpu=7) == (7, "recent_used_cpu", 0)
    assert _one([0, 0, 0, 0, 0, 0, 1, 1], 5, 5, 500, era="v5.9", recent_used_cpu=7) == (6, "idle_capacity", 2)


def test_symmetric_capacity_takes_the_llc_search():
    d_sym = select_idle_sibling([0, 0, 1, 1], 0, 0, era="v6.1", capacity_orig=[1024] * 4, task_util=[2000],
                                nr_idle_scan=4)
    d_plain = select_idle_sibling([0, 0, 1, 1], 0, 0, era="v6.1", nr_idle_scan=4)
    assert (d_sym.cpu == d_plain.cpu).all() and (d_sym.path == d_plain.path).all()


@pytest.mark.parametrize("era, mode", [("v5.7", 0), ("v5.10", 1), ("v6.2", 2), ("v6.6", 3)])
def test_kernel_matches_twin_random(era, mode):
    rng = np.random.default_rng(7)
    n, n_cpus = 500, 12
    llc = np.array([0] * 4 + [1] * 4 + [2] * 4)
    corig = np.array([160] * 4 + [512] * 4 + [1024] * 4)
    cap = (corig * rng.uniform(0.6, 1.0, (n, n_cpus))).astype(np.int64)
    idle = (rng.random((n, n_cpus)) < rng.random((n, 1))).astype(np.int64)
    allowed = (rng.random((n, n_cpus)) < 0.85).astype(np.int64)
    util = rng.integers(0, 1100, n)
    target, prev = rng.integers(0, n_cpus, n), rng.integers(0, n_cpus, n)
    recent = rng.integers(-1, n_cpus, n)
    r = select_idle_sibling(idle, target, prev, recent_used_cpu=recent, allowed=allowed, era=era, llc_id=llc,
                            capacity_orig=corig, capacity=cap, task_util=util)
    paths = set()
    for i in range(n):
        want = ref_sis.select_idle_sibling_asym(mode, idle[i], allowed[i], cap[i], int(util[i]), int(target[i]),
                                                int(prev[i]), int(recent[i]), llc)
        assert (r.cpu[i], r.path[i], r.scanned[i]) == want, i
        paths.add(int(r.path[i]))
    assert {6, 7, 8} <= paths                   # every outcome of the scan is exercised


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_kernel_matches_twin_hypothesis(data):
    n_cpus = data.draw(st.integers(2, 10))
    ints = lambda lo, hi: np.array(data.draw(st.lists(st.integers(lo, hi), min_size=n_cpus, max_size=n_cpus)))
    corig = ints(1, 1024)
    if len(set(corig.tolist())) < 2:
        corig[0] = 1 if corig[0] != 1 else 2
    cap = np.minimum(ints(0, 1024), corig)
    idle, allowed, llc = ints(0, 1), ints(0, 1), ints(0, 2)
    target, prev = data.draw(st.integers(0, n_cpus - 1)), data.draw(st.integers(0, n_cpus - 1))
    recent = data.draw(st.integers(-1, n_cpus - 1))
    util = data.draw(st.integers(0, 1500))
    mode = data.draw(st.integers(0, 3))
    umin, umax = data.draw(st.integers(0, 1024)), data.draw(st.integers(0, 1024))
    thermal = np.minimum(ints(0, 400), corig)
    thermal_avg = np.minimum(ints(0, 400), corig)
    r = select_idle_sibling(idle, target, prev, recent_used_cpu=recent, allowed=allowed,
                            era=("v5.7", "v6.1", "v6.2", "v6.8")[mode], llc_id=llc, capacity_orig=corig,
                            capacity=cap, task_util=util, uclamp_min=umin, uclamp_max=umax,
                            thermal_pressure=thermal, thermal_load_avg=thermal_avg)
    want = ref_sis.select_idle_sibling_asym(mode, idle, allowed, cap, util, target, prev, recent, llc,
                                            uclamp=(umin, umax), cap_orig=corig, thermal=thermal,
                                            thermal_avg=thermal_avg)       # perf domains: equal capacity_orig
    assert (r.cpu[0], r.path[0], r.scanned[0]) == want


@pytest.mark.parametrize("kw, match", [
    (dict(era="v5.4", task_util=[10]), "before v5.7"),
    (dict(era="v6.1"), "task_util"),
    (dict(era="v6.1", task_util=[10], capacity=[1] * 3), "capacity"),
    (dict(era="v6.1", task_util=[-1]), "task_util"),
])
def test_bad_input(kw, match):
    with pytest.raises(ModelError, match=match):
        select_idle_sibling([0] * 8, 0, 0, capacity_orig=HIKEY_CAP, nr_idle_scan=1, **kw)


def test_bad_capacity_orig():
    with pytest.raises(ModelError, match="capacity_orig"):
        select_idle_sibling([0] * 8, 0, 0, era="v6.1", capacity_orig=[462] * 4, task_util=[1])
    with pytest.raises(ModelError, match="capacity_orig"):
        select_idle_sibling([0] * 2, 0, 0, era="v6.1", capacity_orig=[0, 1024], task_util=[1])


# --------------------------------------------------------------- uclamp in the asymmetric search
# Hand-worked from kernel/sched/fair.c: v5.10 - v6.1 select_idle_capacity() / asym_fits_capacity()
# with task_util = uclamp_task_util(p) = clamp(task_util_est, uclamp_min, uclamp_max) and
# fits_capacity (the b4c9c9f15649 patch); v6.2 util_fits_cpu(task_util_est, uclamp_min, uclamp_max,
# cpu) in both (a 6.2.1 tree); v6.3 the -1 tier, asym_fits_cpu > 0 and the scan from target + 1
# (a 6.3 tree, 8589018acc65 / e5ed0550c04c).

def test_sis_v6_2_util_fits_cpu_replaces_the_clamped_fit():
    """HiKey960, idle CPUs 2 (LITTLE, 462) and 5 (big); target = prev = 0 (busy), no recent.

    Task util 100, uclamp_min 380. v6.1: uclamp_task_util = max(100, 380) = 380; on CPU 2
    380 * 1280 = 486400 >= 462 * 1024 = 473088: no fit, best so far; CPU 5: 486400 < 1048576:
    fits, returned (CPUs 0..5 examined: 6). v6.2: util_fits_cpu(100, 380, 1024, 2):
    fits_capacity(100, 462) (128000 < 473088), uclamp_max 1024 > 462 does not force it, the
    boost 380 <= 462 - 0 holds: 1, CPU 2 returned (3 examined).

    Task util 500, uclamp_max 400. v6.1: uclamp_task_util = min(500, 400) = 400, 512000 >=
    473088 on CPU 2; CPU 5 fits: 5. v6.2: fits_capacity(500, 462) fails (640000) but
    uclamp_max 400 <= capacity_orig 462 forces the fit: CPU 2."""
    idle = [0, 0, 1, 0, 0, 1, 0, 0]
    assert _one(idle, 0, 0, 100, era="v6.1", uclamp_min=[380]) == (5, "idle_capacity", 6)
    assert _one(idle, 0, 0, 100, era="v6.2", uclamp_min=[380]) == (2, "idle_capacity", 3)
    assert _one(idle, 0, 0, 500, era="v6.1", uclamp_max=[400]) == (5, "idle_capacity", 6)
    assert _one(idle, 0, 0, 500, era="v6.2", uclamp_max=[400]) == (2, "idle_capacity", 3)
    # without clamps the forms agree: 100 fits CPU 2 (v5.10 - v6.2), 500 only a big CPU
    for era in ("v5.10", "v6.1", "v6.2"):
        assert _one(idle, 0, 0, 100, era=era)[0] == 2 and _one(idle, 0, 0, 500, era=era)[0] == 5
    # v5.7 - v6.1 clamp the util: a boost of 380 moves a util-100 task off the LITTLE CPUs
    assert _one(idle, 0, 0, 100, era="v5.8", uclamp_min=[380])[0] == 5


def test_sis_v6_3_scan_from_target_plus_one_and_the_minus_one_tier():
    """(a) No clamps, util 900 (fits no CPU: 1152000 >= 1048576), idle big CPUs 4 and 5,
    target = prev = 4. Target fails the fit in both. v6.2 scans from 4: CPU 4 (capacity 1024)
    becomes the best, CPU 5 is not greater: 4. v6.3 scans from 5: CPU 5 first, CPU 4 not
    greater: 5. Both examine all 8 CPUs.

    (b) Big CPUs under thermal pressure (and thermal_load_avg) 200 (capacity_of 824): idle CPUs 4
    and 5, target = prev = 4, util 100, uclamp_min 900. v6.2: util_fits_cpu(100, 900, 1024, 4):
    fits_capacity(100, 824) holds and the boost test is skipped on a 1024 CPU (no inversion:
    the LITTLE domain's 462 is below 824): 1, target returned. v6.3: 900 > 1024 - 200 = 824: -1,
    which asym_fits_cpu does not take; the scan from 5: CPUs 5 and 4 both -1, ranked by
    1024 - 200 = 824, the first (5) kept: 5, all 8 examined.

    (c) Three capacities, capacity_orig (440, 462, 1024, 1024), idle CPUs 0 and 1, CPU 1 with
    thermal pressure (and thermal_load_avg) 100, capacity_of (370, 362, 1024, 1024), target =
    prev = 2; util 300, uclamp 450 / 450. CPU 0: 384000 >= 370 * 1024 = 378880 and 450 > 440
    (no forced fit): 0. CPU 1: 384000 >= 362 * 1024 = 370688, but 450 <= 462 forces the fit;
    300 < 450 and 450 > 462 - 100 = 362. v6.2: the boost fails on a non-1024 CPU: 0; both 0,
    CPU 0 has the higher capacity_of (370 > 362): 0. v6.3: CPU 1 answers -1, ranked before
    CPU 0's 0 (scan 3, 0, 1, 2): 1."""
    idle = [0, 0, 0, 0, 1, 1, 0, 0]
    assert _one(idle, 4, 4, 900, era="v6.2") == (4, "best_capacity", 8)
    assert _one(idle, 4, 4, 900, era="v6.3") == (5, "best_capacity", 8)
    cap = [[462] * 4 + [824] * 4]
    th = [0] * 4 + [200] * 4
    kw = dict(capacity=cap, thermal_pressure=th, uclamp_min=[900])
    assert _one(idle, 4, 4, 100, era="v6.2", **kw) == (4, "target", 0)
    assert _one(idle, 4, 4, 100, era="v6.3", **kw) == (5, "best_capacity", 8)
    corig = [440, 462, 1024, 1024]
    kw = dict(capacity_orig=corig, capacity=[[370, 362, 1024, 1024]], thermal_pressure=[0, 100, 0, 0],
              task_util=[300], uclamp_min=[450], uclamp_max=[450])
    d62 = select_idle_sibling([1, 1, 0, 0], 2, 2, era="v6.2", **kw)
    d63 = select_idle_sibling([1, 1, 0, 0], 2, 2, era="v6.3", **kw)
    assert (int(d62.cpu[0]), d62.path_names[0]) == (0, "best_capacity")
    assert (int(d63.cpu[0]), d63.path_names[0]) == (1, "best_capacity")
    # the twin, written separately from the kernel sources, decides the same
    for mode, want in ((2, 0), (3, 1)):
        assert ref_sis.select_idle_sibling_asym(mode, [1, 1, 0, 0], [1] * 4, [370, 362, 1024, 1024], 300, 2, 2, -1,
                                                [0] * 4, uclamp=(450, 450), cap_orig=corig,
                                                thermal=[0, 100, 0, 0])[0] == want


def test_asym_uclamp_bad_input():
    for kw, match in ((dict(uclamp_min=[2000]), "uclamp_min"), (dict(uclamp_max=[-1]), "uclamp_max"),
                      (dict(thermal_pressure=[1] * 3), "thermal_pressure"),
                      (dict(thermal_load_avg=[[5000] * 8]), "thermal_load_avg")):
        with pytest.raises(ModelError, match=match):
            select_idle_sibling([0] * 8, 0, 0, era="v6.3", capacity_orig=HIKEY_CAP, task_util=[1], **kw)


def test_v6_2_capacity_inversion_denies_a_uclamp_max_fit_that_v6_3_grants():
    """v6.2 util_fits_cpu with capacity inversion (44c7b80bffc3, aa69c36f31aa; removed in v6.3 by
    a2e90611b9f4, both read in the stable backport and revert of kernel/sched/fair.c): the big
    CPUs under thermal pressure (and thermal_load_avg) 700 keep 1024 - 700 = 324 < 462, the
    LITTLE CPUs' capacity_orig: update_cpu_capacity marks them inverted at 324, and
    util_fits_cpu takes 324 as both capacity_orig and capacity_orig - thermal.

    Task util 900, uclamp_max 350; idle CPUs 0 (LITTLE) and 4 (big, capacity_of 324); target =
    prev = 4. v6.2: on CPU 4 fits_capacity(900, 324) fails and 350 <= 324 does not hold: 0, not
    the target; the scan from 4: CPU 4 best (0, capacity 324), CPU 0: 350 <= 462 forces the fit:
    1, returned. v6.3: no inversion, 350 <= 1024 forces the fit on CPU 4: the target."""
    idle = [1, 0, 0, 0, 1, 0, 0, 0]
    th = [0] * 4 + [700] * 4
    kw = dict(capacity=[[462] * 4 + [324] * 4], thermal_pressure=th, uclamp_max=[350])
    assert _one(idle, 4, 4, 900, era="v6.2", **kw) == (0, "idle_capacity", 5)
    assert _one(idle, 4, 4, 900, era="v6.3", **kw) == (4, "target", 0)
    # without the pressure no CPU is inverted: v6.2 forces the fit on the big target as v6.3 does
    kw = dict(capacity=[[462] * 4 + [324] * 4], uclamp_max=[350])
    assert _one(idle, 4, 4, 900, era="v6.2", **kw) == (4, "target", 0)
