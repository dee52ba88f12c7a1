"""EAS wake-up model: hand-worked cases, kernel vs plain-Python twin, era properties, work scaling."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lisa_eas import EnergyModel, ModelError, load_platform
from lisa_eas.models import find_energy_efficient_cpu
from lisa_eas.models.eas import cpu_overutilized
from lisa_eas.platform import platform_from_dict
from reference import ref_eas

#: Eras checked against the twin, each as the twin's own version tuple (its own era rules and EM).
ERAS = {"v4.17": (4, 17), "v5.0": (5, 0), "v5.4": (5, 4), "v5.12": (5, 12), "v5.14": (5, 14), "v5.16": (5, 16), "v5.19": (5, 19),
        "v6.0": (6, 0), "v6.1": (6, 1), "v6.2": (6, 2), "v6.6": (6, 6), "v6.8": (6, 8), "v6.9": (6, 9)}


def test_juno_small_task_leaves_big_prev_for_little():
    # Juno r0, all CPUs idle, task (util 300) last ran on big CPU 1.
    # little pd with the task on CPU 0: freq = 1.25*850000*300/446 = 714686 -> 775 MHz, cost 106,
    #   E = 106*300//446 = 71;  big pd with the task on CPU 1: 1.25*1100000*300/1024 = 402832
    #   -> 450 MHz, cost 391, E = 391*300//1024 = 114. v5.0: 114 - 71 = 43 > 114 >> 4 = 7.
    util = [0, 300, 0, 0, 0, 0]
    r = find_energy_efficient_cpu("juno_r0", util, task_util=300, prev_cpu=1, era="v5.0")
    assert r.cpu[0] == 0 and r.prev_energy[0] == 114 and r.best_energy[0] == 71
    # v5.4: the same numbers as per-domain deltas (base energy 0: everything else idle)
    r = find_energy_efficient_cpu("juno_r0", util, task_util=300, prev_cpu=1, era="v5.4")
    assert r.cpu[0] == 0 and r.prev_energy[0] == 114 and r.best_energy[0] == 71 and r.base_energy[0] == 0


def test_hikey960_big_task_does_not_fit_little():
    # util 400 on a LITTLE (capacity 462): 400*1280 = 512000 >= 462*1024 -> must go big;
    # big CPUs 4..7 all idle -> the first max-spare CPU of the big domain, CPU 4.
    util = [400, 0, 0, 0, 0, 0, 0, 0]
    for era in ("v5.0", "v5.4", "v6.6"):
        r = find_energy_efficient_cpu("hikey960", util, task_util=400, prev_cpu=0, era=era)
        assert r.cpu[0] == 4, era
        assert np.isnan(r.prev_energy[0])          # prev did not fit: never costed


def test_hikey960_small_task_goes_little():
    # util 50 on big CPU 4: little pd 1.25*1844000*50/462 = 249458 -> 533 MHz (cost 96),
    # E = 96*50//462 = 10; big: 1.25*2362000*50/1024 = 144165 -> 903 MHz (cost 635), E = 31.
    util = [0, 0, 0, 0, 50, 0, 0, 0]
    r = find_energy_efficient_cpu("hikey960", util, task_util=50, prev_cpu=4, era="v5.4")
    assert r.cpu[0] == 0 and r.prev_energy[0] == 31 and r.best_energy[0] == 10


def test_margin_keeps_prev_in_v5_but_not_in_v6():
    # search a case where the saving is real but below 1/16: v5.x stays, v6.0 (no margin) moves
    rng = np.random.default_rng(1)
    em5 = EnergyModel.from_platform("juno_r0", "v5.4")
    found = False
    for _ in range(4000):
        util = rng.integers(0, 300, 6)
        tu = int(rng.integers(1, 200))
        prev = int(rng.integers(0, 6))
        util[prev] = max(util[prev], tu)
        r5 = find_energy_efficient_cpu("juno_r0", util, tu, prev, era="v5.4", energy_model=em5)
        if r5.cpu[0] == prev and r5.best_energy[0] < r5.prev_energy[0]:
            r6 = find_energy_efficient_cpu("juno_r0", util, tu, prev, era="v6.6")
            if r6.cpu[0] != prev:
                found = True
                break
    assert found


def test_overutilized_and_zero_task_util():
    util = [0, 0, 0, 0, 0, 0]
    assert find_energy_efficient_cpu("juno_r0", util, 100, 2, overutilized=True).cpu[0] == -1
    assert find_energy_efficient_cpu("juno_r0", util, 0, 2).cpu[0] == 2
    busy = [400, 0, 0, 0, 0, 0]          # 400 on a 446 LITTLE is overutilized
    assert find_energy_efficient_cpu("juno_r0", busy, 100, 2, overutilized="auto").cpu[0] == -1
    assert cpu_overutilized(800, 1000, "v5.0") is False     # 800*1280 == 1000*1024: v5.0 not over
    assert cpu_overutilized(800, 1000, "v5.4") is True      # fits_capacity is strict


def _twin_batch(version, platform, ua, ue, tu, tue, prev, allowed, cap):
    out = []
    for i in range(len(tu)):
        out.append(ref_eas.feec(version, platform, ua[i], ue[i], int(tu[i]), int(tue[i]), int(prev[i]),
                                allowed[i], cap))
    return out


def _compare(board, era, ua, ue, tu, tue, prev, allowed):
    platform = load_platform(board)
    r = find_energy_efficient_cpu(board, ua, tu, prev, util_est=ue, task_util_est=tue, allowed=allowed, era=era)
    cap = [0] * platform.nr_cpus
    for pd in platform.perf_domains:
        for c in pd.cpus:
            cap[c] = pd.cpu_capacity_max
    twin = _twin_batch(ERAS[era], platform, ua, ue, tu, tue, prev, allowed, cap)
    for i, (cpu, energies, evals, calls) in enumerate(twin):
        assert r.cpu[i] == cpu
        got = (r.prev_energy[i], r.best_energy[i])
        for g, e in zip(got, energies[:2]):
            assert (np.isnan(g) and e is None) or g == e
        assert r.base_energy[i] == energies[2]
        assert r.pd_evaluations[i] == evals and r.cpu_util_computations[i] == calls


@pytest.mark.parametrize("board", ["hikey960", "juno_r0", "pixel3"])
@pytest.mark.parametrize("era", list(ERAS))
def test_kernel_matches_twin_random_batch(board, era):
    n_cpus = load_platform(board).nr_cpus
    # a seed stable across processes (hash() of a str tuple is salted per process)
    rng = np.random.default_rng(zlib.crc32(f"{board}/{era}".encode()))
    n = 300
    ua = rng.integers(0, 700, (n, n_cpus))
    ue = rng.integers(0, 700, (n, n_cpus)) * rng.integers(0, 2, (n, n_cpus))
    tu = rng.integers(0, 500, n)
    tue = rng.integers(0, 500, n) * rng.integers(0, 2, n)
    prev = rng.integers(0, n_cpus, n)
    allowed = rng.random((n, n_cpus)) < 0.85
    _compare(board, era, ua, ue, tu, tue, prev, allowed)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_kernel_matches_twin_hypothesis(data):
    board = data.draw(st.sampled_from(["hikey960", "juno_r0"]))
    era = data.draw(st.sampled_from(list(ERAS)))
    n_cpus = 8 if board == "hikey960" else 6
    u = st.integers(0, 1024)
    ua = np.array([data.draw(st.lists(u, min_size=n_cpus, max_size=n_cpus))])
    ue = np.array([data.draw(st.lists(u, min_size=n_cpus, max_size=n_cpus))])
    tu = np.array([data.draw(st.integers(0, 1024))])
    tue = np.array([data.draw(st.integers(0, 1024))])
    prev = np.array([data.draw(st.integers(0, n_cpus - 1))])
    allowed = np.array([data.draw(st.lists(st.booleans(), min_size=n_cpus, max_size=n_cpus))])
    _compare(board, era, ua, ue, tu, tue, prev, allowed)


def test_v50_and_v54_decide_alike():
    """eb92692b says "no functional change": the per-domain deltas and the new margin base
    (prev_delta + base energy = v5.0's prev energy) give v5.0's decision. One change remains:
    v5.4 lets prev_cpu compete for its domain's max spare capacity, so a sibling of prev is no
    longer costed. With prev alone (allowed) in its domain, and outside the fits-capacity
    equality edge (util*1280 == cap*1024, allowed by v5.0, not by v5.4), decisions are equal;
    and whenever both eras migrate out of prev's domain they pick the same CPU. (Boards whose
    EM cost rises with frequency: on pixel3's table a v5.4 delta can be negative, and the
    kernel's unsigned long delta then never wins, see test_era_rows.)"""
    rng = np.random.default_rng(7)
    for board in ("hikey960", "juno_r0"):
        plat = load_platform(board)
        n_cpus = plat.nr_cpus
        dom = np.zeros(n_cpus, dtype=int)
        cap = np.zeros(n_cpus, dtype=int)
        for k, d in enumerate(plat.perf_domains):
            dom[list(d.cpus)] = k
            cap[list(d.cpus)] = d.cpu_capacity_max
        n = 3000
        ua = rng.integers(0, 600, (n, n_cpus))
        ue = rng.integers(0, 600, (n, n_cpus)) * rng.integers(0, 2, (n, n_cpus))
        tu = rng.integers(1, 400, n)
        prev = rng.integers(0, n_cpus, n)
        a = find_energy_efficient_cpu(board, ua, tu, prev, util_est=ue, era="v5.0")
        b = find_energy_efficient_cpu(board, ua, tu, prev, util_est=ue, era="v5.4")
        out = (dom[a.cpu] != dom[prev]) & (dom[b.cpu] != dom[prev])
        assert out.sum() > 100
        assert (a.cpu[out] == b.cpu[out]).all()
        # prev alone in its domain: identical candidates
        allowed = dom[None, :] != dom[prev][:, None]
        allowed[np.arange(n), prev] = True
        a = find_energy_efficient_cpu(board, ua, tu, prev, util_est=ue, allowed=allowed, era="v5.0")
        b = find_energy_efficient_cpu(board, ua, tu, prev, util_est=ue, allowed=allowed, era="v5.4")
        with_task = ua + np.where(np.arange(n_cpus)[None, :] == prev[:, None], 0, tu[:, None])
        util_next = np.minimum(np.maximum(with_task, ue), cap[None, :])
        edge = (util_next * 1280 == cap[None, :] * 1024).any(axis=1)
        assert (a.cpu[~edge] == b.cpu[~edge]).all()
        both = ~np.isnan(a.prev_energy) & ~edge
        # v5.0 energies are v5.4's deltas plus the same base
        assert np.array_equal(a.prev_energy[both], b.prev_energy[both] + b.base_energy[both])
        assert np.array_equal(a.best_energy[both], b.best_energy[both] + b.base_energy[both])


def _synthetic(n_pd):
    pds = []
    for i in range(n_pd):
        cap = 300 + (724 * i) // max(1, n_pd - 1)
        opps = [{"freq_khz": f, "capacity": cap * f // 2000000, "power_mw": p * (1 + i)}
                for f, p in ((500000, 20), (1000000, 60), (2000000, 200))]
        pds.append({"name": f"pd{i}", "cpus": [i], "cpu_capacity_max": cap, "power_mw_source": "kernel_em",
                    "opps": opps})
    return platform_from_dict({"name": f"synthetic{n_pd}", "perf_domains": pds})


def test_work_v50_quadratic_v54_linear_in_perf_domains():
    sizes = [2, 4, 8, 16, 32, 64]
    evals = {"v5.0": [], "v5.4": []}
    rng = np.random.default_rng(3)
    for n_pd in sizes:
        plat = _synthetic(n_pd)
        ua = rng.integers(0, 150, (20, n_pd))
        tu = np.full(20, 50)
        prev = rng.integers(0, n_pd, 20)
        for era in evals:
            r = find_energy_efficient_cpu(plat, ua, tu, prev, era=era)
            evals[era].append(r.pd_evaluations.mean())
    e50, e54 = np.array(evals["v5.0"]), np.array(evals["v5.4"])
    n = np.array(sizes, dtype=float)
    # one CPU per domain, every CPU fits: v5.0 costs each of the n candidates (prev, and the
    # max-spare CPU of every other domain) over all n domains -> n^2; v5.4 costs each domain
    # once without the task and once with it on its only CPU; prev's domain's only CPU is prev,
    # which is costed once as prev and not again as the max-spare CPU (4892f51ad54d) -> 2n
    assert np.array_equal(e50, n * n)
    assert np.array_equal(e54, 2 * n)
    slope50 = np.polyfit(np.log(n), np.log(e50), 1)[0]
    slope54 = np.polyfit(np.log(n), np.log(e54), 1)[0]
    print(f"\nperf-domain evaluations per wake-up, n = {sizes}: v5.0 {e50.round(1).tolist()} "
          f"(log-log slope {slope50:.2f}); v5.4 {e54.round(1).tolist()} (slope {slope54:.2f})")
    assert 1.9 < slope50 < 2.1 and 0.9 < slope54 < 1.1


def test_em_kernel_agrees_with_energy_model_exactly():
    from lisa_eas._kernels import eas as ke

    for board in ("hikey960", "juno_r0", "pixel3"):
        for era in ("v5.0", "v5.14", "v5.16", "v6.8", "v6.9"):
            em = EnergyModel.from_platform(board, era)
            a = em.arrays()
            order = sorted(em.domains, key=lambda d: min(d.cpus), reverse=True)
            for k, d in enumerate(order):
                for mu in range(0, 1025, 7):
                    for su in (0, 1, mu, 3 * mu + 5):
                        for cap in (None, d.scale_cpu // 2 + 1):
                            c = d.scale_cpu if cap is None else cap
                            got = ke.em_cpu_energy(a["pd_info"], a["em_states"], a["em_mode"], k, mu, su, c)
                            assert got == d.cpu_energy(mu, su, cap), (board, era, d.name, mu, su, cap)


@pytest.mark.parametrize("kwargs, match", [
    (dict(util_avg=[0, 0, 0, 0, 0, 2000], task_util=1, prev_cpu=0), "util_avg"),
    (dict(util_avg=[0, 0, 0, 0, 0, -1], task_util=1, prev_cpu=0), "util_avg"),
    (dict(util_avg=[0] * 6, task_util=1025, prev_cpu=0), "task_util"),
    (dict(util_avg=[0] * 6, task_util=1, prev_cpu=6), "prev_cpu"),
    (dict(util_avg=[0] * 5, task_util=1, prev_cpu=0), "util_avg"),
    (dict(util_avg=[0] * 6, task_util=1, prev_cpu=0, era="v4.15"), "v4.16"),
    (dict(util_avg=[0] * 6, task_util=1, prev_cpu=0, era="linux"), "kernel version"),
    (dict(util_avg=[0.5] * 6, task_util=1, prev_cpu=0), "util_avg"),
    (dict(util_avg=[0] * 6, task_util=[1, 2], prev_cpu=0), "task_util"),
    (dict(util_avg=[0] * 6, task_util=1, prev_cpu=0, capacity=[0] * 5), "capacity"),
])
def test_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(ModelError, match=match):
        find_energy_efficient_cpu("juno_r0", **kwargs)


def test_work_reduction_matches_published_speedup_shape():
    """eb92692b's measurements (Pixel 3): with one perf domain per CPU the wake-up got about
    half as expensive, with the normal 2 domains only slightly cheaper. The model's count of
    CPU-util computations (the O(n) inner work) falls by similar fractions."""
    import csv
    from pathlib import Path

    with open(Path(__file__).resolve().parent / "data" / "published" / "eas_wakeup_speedup.csv") as fh:
        rows = list(csv.DictReader(fh))
    published = {t: np.mean([float(r["delta_pct"]) for r in rows if r["test"] == t]) for t in ("1", "2")}
    base = load_platform("pixel3")
    per_cpu = platform_from_dict({"name": "pixel3_per_cpu", "perf_domains": [
        {"name": f"{d.name}{c}", "cpus": [c], "cpu_capacity_max": d.cpu_capacity_max, "power_mw_source": "legacy",
         "opps": [{"freq_khz": o.freq_khz, "capacity": o.capacity, "power_mw": o.power_mw} for o in d.opps]}
        for d in base.perf_domains for c in d.cpus]})
    rng = np.random.default_rng(0)
    n = 4000
    ua = rng.integers(0, 400, (n, 8))
    tu = rng.integers(1, 300, n)
    prev = rng.integers(0, 8, n)
    model = {}
    for test, plat in (("1", per_cpu), ("2", base)):
        before = find_energy_efficient_cpu(plat, ua, tu, prev, era="v5.0").cpu_util_computations.mean()
        after = find_energy_efficient_cpu(plat, ua, tu, prev, era="v5.4").cpu_util_computations.mean()
        model[test] = 100.0 * (after - before) / before
    print(f"\nselect_task_rq_fair cost change v5.0 -> v5.4: published {published['1']:+.1f}% (8 domains), "
          f"{published['2']:+.1f}% (2 domains); model CPU-util computations {model['1']:+.1f}%, {model['2']:+.1f}%")
    assert model["1"] < model["2"] < 0
    assert abs(model["1"] - published["1"]) <= 15 and abs(model["2"] - published["2"]) <= 15
