"""Exact energy-optimal placement: numba kernels vs the plain-Python twin, vs brute force
over every placement, hand-worked cases, and bad input."""
from __future__ import annotations

import numpy as np
import pytest
from reference import ref_placement as ref

from lisa_eas._kernels import placement as kp
from lisa_eas.analysis import brute_force_placement, optimal_placement
from lisa_eas.models.placement import placement_tables
from lisa_eas.errors import ModelError


@pytest.mark.parametrize("plat", ["juno_r0", "hikey960", "pixel3"])
def test_exact_equals_brute_force_random(plat):
    rng = np.random.default_rng(7)
    tab = placement_tables(plat)
    for _ in range(8):
        n = int(rng.integers(1, 6))
        utils = rng.integers(5, 400, n)
        try:
            b = brute_force_placement(plat, utils)
        except ModelError:
            with pytest.raises(ModelError):
                optimal_placement(plat, utils)
            continue
        a = optimal_placement(plat, utils)
        assert a.energy == pytest.approx(b.energy, abs=1e-9)
        e_py, _ = ref.brute_force(utils.tolist(), tab["dom"].tolist(), tab["thresholds"].tolist(),
                                  tab["costs"].tolist(), tab["n_states"].tolist(), tab["cap_fit"].tolist())
        assert e_py == pytest.approx(b.energy, abs=1e-9)
        assert sum(a.cpu_util) == int(utils.sum())
        assert all(u <= c for u, c in zip(a.cpu_util, tab["cap_fit"]))


def test_brute_force_eight_tasks_hikey960():
    utils = [51, 51, 102, 150, 30, 260, 75, 90]
    a = optimal_placement("hikey960", utils)
    b = brute_force_placement("hikey960", utils)     # 8**8 = 16.8 M placements
    assert a.energy == pytest.approx(b.energy, abs=1e-9)


def test_kernel_and_twin_search_identical():
    rng = np.random.default_rng(3)
    tab = placement_tables("hikey960")
    dom, thr, costs = tab["dom"], tab["thresholds"], tab["costs"]
    for _ in range(20):
        us = np.sort(rng.integers(5, 200, int(rng.integers(2, 12))))[::-1].astype(np.int64)
        suffix = np.r_[np.cumsum(us[::-1])[::-1], 0].astype(np.int64)
        s = np.array([int(rng.integers(0, n)) for n in tab["n_states"]])
        cap = np.minimum(thr[dom, s[dom]], tab["cap_fit"]).astype(np.int64)
        lo = np.where(s[dom] > 0, thr[dom, np.maximum(s[dom] - 1, 0)], -1).astype(np.int64)
        w = costs[dom, s[dom]]
        order = np.argsort(w, kind="stable").astype(np.int64)
        fill = kp.subset_fill_table(us, int(tab["cap_fit"].max()))
        rfill = ref.subset_fill_table(us.tolist(), int(tab["cap_fit"].max()))
        assert fill.tolist() == rfill
        assert kp.fractional_bound(int(suffix[0]), order, np.zeros(8, np.int64), cap, w, fill[0]) == \
            ref.fractional_bound(int(suffix[0]), order.tolist(), [0] * 8, cap.tolist(), w.tolist(), rfill[0])
        assign = np.full(us.size, -1, np.int64)
        stats = np.zeros(2, np.int64)
        t1, t2 = np.zeros(1 << kp.MEMO_BITS, np.int64), np.zeros(1 << kp.MEMO_BITS, np.int64)
        e = kp.branch_and_bound(us, suffix, order, dom, cap, lo, w, fill, np.inf, assign, stats, t1, t2, 0, 0)
        e_ref, a_ref = ref.branch_and_bound(us.tolist(), suffix.tolist(), order.tolist(), dom.tolist(), cap.tolist(),
                                            lo.tolist(), w.tolist(), rfill, np.inf, set(), 0)
        assert e == pytest.approx(e_ref, rel=1e-12, abs=1e-9)   # float sums in another order
        if np.isfinite(e):
            assert assign.tolist() == a_ref


def test_hand_worked_juno():
    # One small task: on a LITTLE CPU (cheapest per unit of work at the lowest OPP).
    r = optimal_placement("juno_r0", [50])
    assert r.cpu_of_task[0] in (0, 3, 4, 5)
    assert r.domain_freq_khz == {"little": 450000}
    # A task larger than a LITTLE CPU's capacity must go big.
    cap_little = placement_tables("juno_r0")["cap_fit"][0]
    r = optimal_placement("juno_r0", [int(cap_little) + 10])
    assert r.cpu_of_task[0] in (1, 2)


def test_fifty_tasks_eight_cpus():
    # the EAS RFC energy workload: 50 tasks of 5% on HiKey960
    r = optimal_placement("hikey960", [51] * 50)
    assert sum(r.cpu_util) == 50 * 51 and r.nodes <= 1000
    rng = np.random.default_rng(11)
    r2 = optimal_placement("hikey960", rng.integers(5, 60, 50))
    assert len(r2.cpu_of_task) == 50


def test_bad_input():
    with pytest.raises(ModelError, match="0..1024"):
        optimal_placement("juno_r0", [2000])
    with pytest.raises(ModelError, match="cannot be placed"):
        optimal_placement("juno_r0", [1000] * 7)
    with pytest.raises(ModelError, match="integers"):
        optimal_placement("juno_r0", [1.5])
    with pytest.raises(ModelError, match="8 tasks"):
        brute_force_placement("juno_r0", [10] * 9)
    with pytest.raises(ModelError, match="search nodes"):
        optimal_placement("hikey960", np.random.default_rng(1).integers(20, 140, 30), max_nodes=50)
