"""SIS model: published SIS_UTIL rows, kernel vs twin, fast paths, scan bounds, bad input."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lisa_eas import ModelError
from lisa_eas.models import select_idle_sibling, sis_util_nr_scan
from lisa_eas.models.sis import SIS_PATHS, sis_prop_nr
from reference import ref_sis

PUBLISHED = Path(__file__).resolve().parent / "data" / "published"


@pytest.mark.parametrize("name", ["sis_util_scan_nr_112.csv", "sis_util_scan_nr_16.csv"])
def test_sis_util_reproduces_published_rows_exactly(name):
    with open(PUBLISHED / name, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 11
    for r in rows:
        w, pct = int(r["llc_weight"]), int(r["sum_util_pct"])
        sum_util = pct * w * 1024 // 100
        assert sis_util_nr_scan(sum_util, w) == int(r["scan_nr"]), r
        assert ref_sis.nr_idle_scan(sum_util, w, 117) == int(r["scan_nr"])


def test_sis_util_scan_stops_at_85_percent():
    for w in (4, 8, 16, 64, 112, 256):
        assert sis_util_nr_scan(0, w) == w
        assert sis_util_nr_scan(w * 1024, w) == 0
        vals = [sis_util_nr_scan(s, w) for s in range(0, w * 1024 + 1, max(1, w * 1024 // 500))]
        assert all(a >= b for a, b in zip(vals, vals[1:]))          # monotone


@settings(max_examples=400, deadline=None)
@given(w=st.integers(1, 512), frac=st.integers(0, 10000), pct=st.integers(100, 200))
def test_nr_scan_kernel_matches_twin(w, frac, pct):
    s = frac * w * 1024 // 10000
    assert sis_util_nr_scan(s, w, pct) == ref_sis.nr_idle_scan(s, w, pct)


def test_fast_paths_and_scan():
    # target idle -> target, no scan
    r = select_idle_sibling([1, 0, 0, 0], target=0, prev=1, nr_idle_scan=4)
    assert r.cpu[0] == 0 and r.path_names == ["target"] and r.scanned[0] == 0
    # prev idle, same LLC -> prev
    r = select_idle_sibling([0, 1, 0, 0], target=0, prev=1, nr_idle_scan=4)
    assert r.cpu[0] == 1 and r.path_names == ["prev"]
    # recent_used_cpu idle -> recent
    r = select_idle_sibling([0, 0, 1, 1], target=0, prev=1, recent_used_cpu=3, nr_idle_scan=4)
    assert r.cpu[0] == 3 and r.path_names == ["recent_used_cpu"]
    # scan starts at target + 1 and wraps: CPUs 5, 6, 7, 0.. -> CPU 1 after 5 rqs (5,6,7,0,1)
    idle = [0, 1, 0, 0, 0, 0, 0, 0]
    r = select_idle_sibling(idle, target=4, prev=4, nr_idle_scan=8)
    assert r.cpu[0] == 1 and r.scanned[0] == 5
    # nr_idle_scan = 4 examines at most 4 CPUs: 5, 6, 7, 0 -> none idle -> target
    r = select_idle_sibling(idle, target=4, prev=4, nr_idle_scan=4)
    assert r.cpu[0] == 4 and r.path_names == ["fallback_target"] and r.scanned[0] == 4
    # nr_idle_scan 0 (LLC >= 85% busy): no scan at all
    r = select_idle_sibling(idle, target=4, prev=4, nr_idle_scan=0)
    assert r.cpu[0] == 4 and r.scanned[0] == 0
    # v4.x SIS_PROP starts AT target and stops on !--nr: nr = 4 examines 3 CPUs (4, 5, 6)
    r = select_idle_sibling(idle, target=4, prev=4, era="v5.4", feature="prop", avg_idle_ns=0,
                            avg_scan_cost_ns=1000)
    assert r.cpu[0] == 4 and r.scanned[0] == 3


def test_sis_prop_depth():
    # 5.4: avg_idle / 512 = 1953, span 8 * 1953 = 15624 > 4 * 101 -> 15624 // 101 = 154
    assert sis_prop_nr(1_000_000, 100, 8, "v5.4") == 154
    assert sis_prop_nr(1_000, 100, 8, "v5.4") == 4                 # floor of 4
    assert sis_prop_nr(10_000, 1_000, 8, "v5.15") == 79          # wake_avg_idle used as is
    with pytest.raises(ModelError, match="removed in v6.7"):
        sis_prop_nr(1, 1, 8, "v6.8")


def test_idle_core_search_with_smt():
    # 4 cores x 2 threads; only core 2 (CPUs 4, 5) fully idle
    core = [0, 0, 1, 1, 2, 2, 3, 3]
    idle = [0, 0, 1, 0, 1, 1, 0, 1]
    r = select_idle_sibling(idle, target=0, prev=0, core_id=core, has_idle_core=True, nr_idle_scan=8)
    assert r.cpu[0] == 4 and r.path_names == ["idle_core"]
    # v4.x: the separate whole-LLC select_idle_core() finds the same core
    r = select_idle_sibling(idle, target=0, prev=0, core_id=core, has_idle_core=True, era="v5.4",
                            feature="prop", avg_idle_ns=10**9, avg_scan_cost_ns=1)
    assert r.cpu[0] == 4 and r.path_names == ["idle_core"]


def _random_case(rng, n_cpus, smt):
    idle = (rng.random(n_cpus) < rng.random()).astype(np.int64)
    allowed = (rng.random(n_cpus) < 0.9).astype(np.int64)
    return idle, allowed


@pytest.mark.parametrize("era, feature", [("v5.4", "prop"), ("v5.10", "none"), ("v5.12", "prop"), ("v5.14", "none"),
                                          ("v5.15", "prop"), ("v6.1", "util"), ("v6.8", "util")])
@pytest.mark.parametrize("smt", [False, True])
def test_kernel_matches_twin_random(era, feature, smt):
    from lisa_eas._kernels import sis as ks

    rng = np.random.default_rng(11)
    n_cpus = 16
    llc = np.array([0] * 8 + [1] * 8)
    core = np.arange(n_cpus) // 2 if smt else np.arange(n_cpus)
    n = 400
    idle = (rng.random((n, n_cpus)) < rng.random((n, 1))).astype(np.int64)
    allowed = (rng.random((n, n_cpus)) < 0.9).astype(np.int64)
    target = rng.integers(0, n_cpus, n)
    prev = rng.integers(0, n_cpus, n)
    recent = rng.integers(-1, n_cpus, n)
    hic = rng.integers(0, 2, n)
    kw = {}
    if feature == "util":
        kw = dict(nr_idle_scan=rng.integers(0, 9, n))
    elif feature == "prop":
        kw = dict(avg_idle_ns=rng.integers(0, 200_000, n), avg_scan_cost_ns=rng.integers(0, 20_000, n))
    r = select_idle_sibling(idle, target, prev, recent_used_cpu=recent, allowed=allowed, era=era, feature=feature,
                            llc_id=llc, core_id=core, has_idle_core=hic, **kw)
    mode = tuple(int(x) for x in era[1:].split("."))          # the twin's own era handling
    for i in range(n):
        if feature == "util":
            nr, util_mode = int(kw["nr_idle_scan"][i]), True
        elif feature == "prop":
            nr = ref_sis.prop_nr(int(kw["avg_idle_ns"][i]), int(kw["avg_scan_cost_ns"][i]), 8,
                                 1 if mode >= (5, 14) else 0)
            util_mode = False
        else:
            nr, util_mode = ks.INT_MAX, False
        cpu, path, scanned = ref_sis.select_idle_sibling(mode, util_mode, idle[i], allowed[i], int(target[i]),
                                                         int(prev[i]), int(recent[i]), int(hic[i]), nr, llc, core,
                                                         smt)
        assert (r.cpu[i], r.path[i], r.scanned[i]) == (cpu, path, scanned), i
        if feature == "util" and not (smt and hic[i]):
            assert r.scanned[i] <= kw["nr_idle_scan"][i] + (2 if smt else 0)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_kernel_matches_twin_hypothesis(data):
    n_cpus = data.draw(st.integers(2, 12))
    smt = data.draw(st.booleans()) and n_cpus % 2 == 0
    core = np.arange(n_cpus) // 2 if smt else np.arange(n_cpus)
    llc = np.zeros(n_cpus, dtype=np.int64)
    idle = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n_cpus, max_size=n_cpus)))
    allowed = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n_cpus, max_size=n_cpus)))
    target = data.draw(st.integers(0, n_cpus - 1))
    prev = data.draw(st.integers(0, n_cpus - 1))
    recent = data.draw(st.integers(-1, n_cpus - 1))
    hic = data.draw(st.booleans())
    nr = data.draw(st.integers(0, n_cpus))
    r = select_idle_sibling(idle, target, prev, recent_used_cpu=recent, allowed=allowed, era="v6.6",
                            nr_idle_scan=nr, core_id=core, llc_id=llc, has_idle_core=hic)
    cpu, path, scanned = ref_sis.select_idle_sibling(1, True, idle, allowed, target, prev, recent, int(hic), nr,
                                                     llc, core, smt)
    assert (r.cpu[0], r.path[0], r.scanned[0]) == (cpu, path, scanned)
    assert SIS_PATHS[r.path[0]]


@pytest.mark.parametrize("call, match", [
    (lambda: sis_util_nr_scan(-1, 16), "sum_util"),
    (lambda: sis_util_nr_scan(16 * 1024 + 1, 16), "sum_util"),
    (lambda: sis_util_nr_scan(10, 0), "llc_weight"),
    (lambda: sis_util_nr_scan(10, 16, 99), "imbalance_pct"),
    (lambda: sis_util_nr_scan(1.5, 16), "sum_util"),
    (lambda: select_idle_sibling([0, 1], target=2, prev=0, nr_idle_scan=1), "target"),
    (lambda: select_idle_sibling([0, 1], target=0, prev=-1, nr_idle_scan=1), "prev"),
    (lambda: select_idle_sibling([0, 2], target=0, prev=0, nr_idle_scan=1), "idle"),
    (lambda: select_idle_sibling([0, 1], target=0, prev=0, era="v5.10", nr_idle_scan=1), "SIS_UTIL"),
    (lambda: select_idle_sibling([0, 1], target=0, prev=0, era="v6.8", feature="prop", avg_idle_ns=1,
                                 avg_scan_cost_ns=1), "SIS_PROP"),
    (lambda: select_idle_sibling([0, 1], target=0, prev=0, feature="fast"), "feature"),
    (lambda: select_idle_sibling([0, 1], target=0, prev=0, era="v9"), "kernel version"),
])
def test_bad_input(call, match):
    with pytest.raises(ModelError, match=match):
        call()


def test_sis_efficiency_states_by_hand():
    """The depths sis-efficiency's high-load rows meet on its 112-CPU LLC (imbalance_pct 117).

    SIS_UTIL (v6.0 update_idle_cpu_scan): 75 % util, sum_util = 112 * 768: x = 768,
    tmp = 768^2 * 117^2 // (10000 * 1024) = 8074100736 // 10240000 = 788, y = 1024 - 788 = 236,
    nr_idle_scan = 236 * 112 // 1024 = 25; at x = 876 (85.5 %) tmp = 10504610064 // 10240000
    = 1025, capped at 1024: y = 0, no scan. SIS_PROP (v5.18 select_idle_cpu, wake_avg_idle of the
    waking CPU as is): 250 us (avg_idle 500 us / 2), avg_scan_cost 1500 ns: 112 * 250000 //
    1501 = 18654 (the whole LLC); aged 12 jiffies (>> 12): 61, 112 * 61 = 6832 > 4 * 1501 ->
    6832 // 1501 = 4; aged 13: 30, 3360 <= 6004 -> the floor, 4 (3 runqueues examined)."""
    assert sis_util_nr_scan(112 * 768, 112) == 25
    assert sis_util_nr_scan(112 * 876, 112) == 0
    assert sis_prop_nr(250_000, 1500, 112, "v5.18") == 18654
    assert sis_prop_nr(250_000 >> 12, 1500, 112, "v5.18") == 4
    assert sis_prop_nr(250_000 >> 13, 1500, 112, "v5.18") == 4
    # the v5.13 form reads avg_idle / 512 of the same runqueue: 500000 // 512 = 976,
    # 112 * 976 = 109312 // 1501 = 72
    assert sis_prop_nr(500_000, 1500, 112, "v5.13") == 72
