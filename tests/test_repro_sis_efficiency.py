"""sis-efficiency: the LLC wake-up kernel against its plain-Python twin, the workloads, and the
reproduced experiment (claims, rows, provenance)."""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas._kernels import llc_wakeups as k
from lisa_eas.repro.sis_efficiency import (LlcWakeupParams, hackbench_workload, rr_pairs_workload,
                                           simulate_llc)
from reference import ref_llc_wakeups as ref


def _params(sim_ns, warm_ns, lb_ns=1_000_000, jiffy_ns=1_000_000, scan_rq_ns=100, base_ns=0):
    p = LlcWakeupParams(sim_ns=sim_ns, warmup_ns=warm_ns, lb_interval_ns=lb_ns, jiffy_ns=jiffy_ns,
                        scan_rq_ns=scan_rq_ns, scan_base_ns=base_ns).to_array(117)
    return p


def _both(util_mode, n_cpus, w, jitter, params):
    st = np.zeros(k.N_STATS, np.int64)
    hist = np.zeros(k.N_HIST, np.int64)
    end = k.llc_wakeups(util_mode, n_cpus, w["run_ns"], w["tail_ns"], w["wake_ptr"], w["wake_idx"], w["init_cpu"],
                        w["init_runnable"], jitter, params, st, hist)
    rst, rhist, rend = ref.llc_wakeups(util_mode, n_cpus, w["run_ns"], w["tail_ns"], w["wake_ptr"], w["wake_idx"],
                                       w["init_cpu"], w["init_runnable"], jitter, params)
    assert st.tolist() == rst and hist.tolist() == rhist and end == rend
    return st


@pytest.mark.parametrize("util_mode", [0, 1])
@pytest.mark.parametrize("shape", ["pairs-light", "pairs-overloaded", "hackbench"])
def test_kernel_matches_twin_fixed(util_mode, shape):
    n_cpus = 16
    if shape == "pairs-light":
        w = rr_pairs_workload(4, n_cpus)
    elif shape == "pairs-overloaded":
        w = rr_pairs_workload(14, n_cpus)
    else:
        w = hackbench_workload(1, n_cpus, group_size=6)
    jitter = np.random.default_rng(3).integers(0, 1024, 257).astype(np.int64)
    st = _both(util_mode, n_cpus, w, jitter, _params(3_000_000, 500_000))
    assert st[k.S_SEARCHES] > 100 and st[k.S_FOUND] <= st[k.S_SEARCHES]
    if shape == "pairs-overloaded":
        assert st[k.S_DOM_SEARCHES] > 0 and st[k.S_QUEUED] > 0  # the scan and the queueing paths ran


@pytest.mark.parametrize("seed", range(6))
def test_kernel_matches_twin_random(seed):
    rng = np.random.default_rng(100 + seed)
    n_cpus = int(rng.integers(4, 24))
    n_tasks = int(rng.integers(2, 3 * n_cpus))
    lists = [sorted(set(rng.integers(0, n_tasks, int(rng.integers(0, 4))).tolist()) - {t}) for t in range(n_tasks)]
    ptr = np.zeros(n_tasks + 1, np.int64)
    ptr[1:] = np.cumsum([len(x) for x in lists])
    w = {"run_ns": rng.integers(500, 50_000, n_tasks).astype(np.int64),
         "tail_ns": rng.integers(0, 10_000, n_tasks).astype(np.int64), "wake_ptr": ptr,
         "wake_idx": np.array([x for lst in lists for x in lst], np.int64),
         "init_cpu": rng.integers(0, n_cpus, n_tasks).astype(np.int64),
         "init_runnable": (rng.random(n_tasks) < 0.6).astype(np.uint8)}
    jitter = rng.integers(0, 1024, int(rng.integers(1, 300))).astype(np.int64)
    params = _params(int(rng.integers(500_000, 3_000_000)), int(rng.integers(0, 400_000)),
                     lb_ns=int(rng.integers(100_000, 2_000_000)), jiffy_ns=int(rng.integers(100_000, 4_000_000)),
                     scan_rq_ns=int(rng.integers(10, 2_000)), base_ns=int(rng.integers(0, 3_000)))
    for util_mode in (0, 1):
        _both(util_mode, n_cpus, w, jitter, params)


def test_update_avg_truncates_like_c():
    for avg, sample in [(0, 7), (0, -7), (100, 3), (3, 100), (-5, -100)]:
        want = avg + int((sample - avg) / 8)
        assert k._update_avg(avg, sample) == want == ref.update_avg(avg, sample)


def test_workload_shapes():
    w = rr_pairs_workload(3, 112)
    assert w["wake_idx"].tolist() == [1, 0, 3, 2, 5, 4] and w["init_runnable"].tolist() == [1, 0] * 3
    h = hackbench_workload(2, 112)
    assert len(h["run_ns"]) == 80 and h["init_runnable"].sum() == 40
    senders = h["wake_idx"][h["wake_ptr"][0]:h["wake_ptr"][1]].tolist()
    assert senders == list(range(20, 40))                 # sender 0 wakes its group's receivers
    assert h["wake_idx"][h["wake_ptr"][60]:h["wake_ptr"][61]].tolist() == [40]   # receiver 0 of group 1


def test_low_load_is_all_fast_path_and_util_cuts_scans_when_saturated():
    light = simulate_llc(("rr", 28, 0))
    assert light["fast_rate_pct"] > 99 and light["success_rate_pct"] == 100
    prop, util = simulate_llc(("rr", 168, 0)), simulate_llc(("rr", 168, 1))
    assert prop["avg_sum_util_pct"] > 90 and prop["rqs_per_wakeup"] >= util["rqs_per_wakeup"]
    assert sum(prop["hist"]) > 0


@pytest.fixture(scope="module")
def result():
    from lisa_eas.repro import reproduce

    return reproduce("sis-efficiency", workers=1)


def test_experiment_rows_and_claims(result):
    assert len(result.rows) == 64                       # every published row, side by side
    modeled = [r for r in result.rows if r["modeled"]]
    assert len(modeled) == 52                           # netperf x2, hackbench x4, tbench 28..112 threads
    assert all(r["prop_se_eff_pct"] is None for r in result.rows if r["benchmark"] == "schbench")
    by = {c.claim.split(" (")[0]: c for c in result.checks}
    assert by["SIS_UTIL scans fewer runqueues than SIS_PROP at high load"].ok
    assert by["SIS_UTIL keeps the success rate at low load"].ok
    assert by["SIS_PROP se_eff_pct ranks the modeled rows like the vanilla table"].ok
    pairs = [c for c in result.checks if "netperf/tbench pairs" in c.claim][0]
    assert pairs.ok and pairs.reproduced == 84
    assert all(c.ok or c.why for c in result.checks)
    assert result.provenance["published"][0]["file"].endswith("sis_prop_vanilla_efficiency.csv")
    assert result.series["scan_hist"]["published"][4] == 4041924


def test_experiment_plots(result):
    from lisa_eas.repro import experiment_plots

    import holoviews as hv

    plots = experiment_plots(result)
    assert len(plots) >= 2      # the scan-time histogram and the se_eff bars
    for p in plots:
        assert type(hv.render(p, backend="bokeh")).__name__ == "figure"
