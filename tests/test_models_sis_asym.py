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
                                            thermal_avg=thermal_avg)
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
