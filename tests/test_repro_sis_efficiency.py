"""sis-efficiency: the rt-app suspend/resume workloads on the main simulator, the idle-search
statistics it counts, and the reproduced experiment (claims, rows, provenance)."""
from __future__ import annotations

import pytest

from lisa_eas.repro.sis_efficiency import (PUB_224_COUNTERS, SCAN_RQ_NS, hackbench_workload, mel_counters,
                                           rr_pairs_workload, scan_time_hist, schedstat_metrics, simulate_sis)
from lisa_eas.errors import ModelError
from lisa_eas.rtapp import Resume, RunTime, Suspend


def test_workload_shapes():
    w = rr_pairs_workload(3)
    assert [t.name for t in w.tasks] == ["c0", "s0", "c1", "s1", "c2", "s2"]
    c0, s0 = w.task("c0").phases[0].events, w.task("s0").phases[0].events
    assert isinstance(c0[0], RunTime) and c0[1:] == (Resume("s0"), Suspend("c0"))
    assert s0[0] == Suspend("s0") and isinstance(s0[1], RunTime) and s0[2] == Resume("c0")
    # service times spread over [0.5, 1.5) x 13 us
    runs = [t.phases[0].events[0 if t.name[0] == "c" else 1].us for t in rr_pairs_workload(50).tasks]
    assert min(runs) >= 6 and max(runs) <= 20 and len(set(runs)) > 5
    # 28 tasks a group as the SIS_UTIL commit ran it ("each group has 28 tasks"): 14 senders, 14 receivers
    h = hackbench_workload(2)
    assert len(h.tasks) == 56 and sum(t.name.startswith("g1s") for t in h.tasks) == 14
    assert len(hackbench_workload(1, 20).tasks) == 40       # hackbench's default -f 20 (the cause experiment)
    # the "burst" model before issue 18 (the cause experiment): one 2 us write to each receiver (+ 2 us
    # tail), spread [0.5, 1.5), then resume the group and wait for the receiver's answer
    b = hackbench_workload(2, model="burst")
    assert 15 <= b.task("g0s0").phases[0].events[0].us <= 45
    assert b.task("g1s0").phases[0].events[1:] == (Resume("g1"), Suspend("g1s0"))
    assert b.task("g1r3").phases[0].events[0] == Suspend("g1") and b.task("g1r3").phases[0].events[2] == Resume("g1s3")


def test_hackbench_senders_are_write_loops():
    # hackbench.c's sender: for each loop, write one message to each of the group's receivers in turn;
    # it never reads, so it never waits for a receiver (it would block only on a full pipe). Each write
    # resumes that receiver (pipe_write wakes a reader sleeping on an empty pipe); a receiver sleeps on
    # its own pipe and reads one message per wake-up.
    h = hackbench_workload(2)
    evs = h.task("g1s5").phases[0].events
    assert len(evs) == 28 and not any(isinstance(e, Suspend) for e in evs)
    assert [e for e in evs[1::2]] == [Resume(f"g1r{m}") for m in range(14)]
    assert all(isinstance(e, RunTime) and e.us == evs[0].us for e in evs[0::2])
    assert 1 <= evs[0].us <= 3                   # one 2 us write, spread [0.5, 1.5)
    r = h.task("g1r3").phases[0].events
    assert r[0] == Suspend("g1r3") and isinstance(r[1], RunTime) and len(r) == 2
    with pytest.raises(ModelError, match="hackbench model 'x'"):
        hackbench_workload(1, model="x")


def test_scan_time_hist_buckets():
    # 0..9 rqs x 100 ns < 1 us -> bucket 0; 10..19 -> [1, 2) us; 112 rqs = 11.2 us -> [8, 16)
    counts = [0] * 113
    counts[0], counts[9], counts[10], counts[19], counts[20], counts[112] = 1, 2, 3, 4, 5, 6
    h = scan_time_hist(counts, 100)
    assert h[0] == 3 and h[1] == 7 and h[2] == 5 and h[4] == 6 and sum(h) == 21
    # the default is the per-runqueue cost the simulated SIS_PROP charges to avg_scan_cost
    from lisa_eas.sim import SimConfig

    assert SCAN_RQ_NS == SimConfig().sis_scan_cost_ns == 500
    counts = [0] * 113                  # 3 rqs = 1.5 us -> [1, 2); 112 rqs = 56 us -> [32, 64)
    counts[3], counts[112] = 1, 1
    h = scan_time_hist(counts)
    assert h[1] == 1 and h[6] == 1 and sum(h) == 2


def test_schedstat_metrics_are_the_tables_formulas():
    # by hand from schedstat_parse.py: 10 calls, 4 went on to the LLC search, which examined 20
    # runqueues (sis_scanned = 10 + 20), 1 found nothing: found 9, fast 6
    st = {"searches": 10, "dom_searches": 4, "dom_scanned": 20, "found": 9, "fast": 6, "dom_found": 3}
    c = mel_counters(st)
    assert c == {"sis_search": 10, "sis_domain_search": 4, "sis_scanned": 30, "sis_failed": 1}
    m = schedstat_metrics(c)
    assert m == {"se_eff_pct": 30.0, "dom_eff_pct": 12.5, "fast_rate_pct": 60.0, "success_rate_pct": 90.0}
    # the commit's own counters at 224 netperf threads: 99.34 % success, 22.2 % fast
    pub = schedstat_metrics(PUB_224_COUNTERS)
    assert pub["success_rate_pct"] == pytest.approx(99.34, abs=0.01)
    assert pub["fast_rate_pct"] == pytest.approx(22.22, abs=0.01)


def test_low_load_is_all_fast_path_and_util_cuts_scans_when_saturated():
    light = simulate_sis(("rr", 28, "prop"))
    assert light["fast_rate_pct"] > 99 and light["success_rate_pct"] == 100 and light["busy_pct"] < 30
    # SIS_UTIL's cut is a steady-state property: its depth follows the LLC's util_avg, and the
    # threads start with their fork-time util (post_init_entity_util_avg: half the spare capacity,
    # halved again for each clone on a CPU), which PELT takes ~100 ms to replace by the running
    # share. Counted from 10 ms ("startup") UTIL scans deeper than PROP here (81.6 vs 3.3 rqs per
    # wake-up); counted from 150 ms (the experiment's steady state) 0 vs 3.0
    prop, util = simulate_sis(("rr", 168, "prop")), simulate_sis(("rr", 168, "util"))
    # one runnable side per pair: 168 pairs keep the 112 CPUs busy, no idle CPU at a wake-up
    assert prop["busy_pct"] > 99 and prop["success_rate_pct"] < 1
    assert prop["rqs_per_wakeup"] > util["rqs_per_wakeup"]
    assert sum(prop["hist"]) > 0 and sum(prop["rqs_hist"]) == prop["counters"]["sis_domain_search"]


def test_saturated_hackbench_stops_sis_util_scan():
    # 6 groups = 168 tasks on 112 CPUs, 84 of them senders that never sleep: the LLC is busy and its
    # sum of cpu_util reaches SIS_UTIL's 85 % stop (nr_idle_scan ~0) most of the time: SIS_UTIL scans
    # under half of SIS_PROP's 3-runqueue floor (1.17 per wake-up since min_vruntime follows
    # update_curr, 0.63 before). The burst senders before issue 18 (short activations that migrate
    # at most wake-ups and lose util at each attach) kept the sum below the stop: SIS_UTIL scanned
    # ~40 runqueues a wake-up
    prop, util = simulate_sis(("hackbench", 6, "prop")), simulate_sis(("hackbench", 6, "util"))
    assert prop["busy_pct"] > 99 and util["busy_pct"] > 99
    assert prop["rqs_per_wakeup"] >= 3 and util["rqs_per_wakeup"] < prop["rqs_per_wakeup"] / 2
    old = simulate_sis(("hackbench-burst", 6, "util"))
    assert old["rqs_per_wakeup"] > prop["rqs_per_wakeup"]


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
    # With hackbench's write-loop senders SIS_UTIL scans fewer on average past half load (0.66 vs
    # SIS_PROP 2.30; the burst senders before issue 18: 29.1 vs 3.40, rows 5..8 above SIS_PROP);
    # not reproduced as a direction in every row: at 5 groups the modeled LLC sits at SIS_UTIL's
    # 85 % stop (busy 85.6 %) and SIS_UTIL scans 3.0 where SIS_PROP (v5.18: wake_avg_idle of the
    # waking CPU, nr >= 4) scans 1.7; the outcome is pinned in expected_outcomes.json
    fewer = by["SIS_UTIL scans fewer runqueues than SIS_PROP at high load"]
    assert fewer.ok or "nr_idle_scan" in fewer.why
    # the cause experiment is printed with the result (issue 18): each switch and its mean depth
    cause = [n for n in result.notes if n.startswith("Cause experiment for the high-load depth claim")]
    assert len(cause) == 1 and "resume-waker" not in cause[0]
    for words in ("wake-up placed on prev", "v5.13 depth", "keeps its util_sum", "150 ms",
                  "bursts that wait for their receiver"):
        assert words in cause[0] and (fewer.ok or words in fewer.why)
    assert by["SIS_UTIL keeps the success rate at low load"].ok
    assert by["SIS_PROP se_eff_pct ranks the modeled rows like the vanilla table"].ok
    pairs = [c for c in result.checks if "netperf/tbench pairs" in c.claim][0]
    assert pairs.ok and pairs.reproduced == 84
    # hackbench: 28 tasks a group as published; the group-size cause experiment is printed
    hb = [c for c in result.checks if "hackbench groups" in c.claim][0]
    assert hb.ok or "group size" in hb.why
    assert any(n.startswith("hackbench groups of 28 tasks") and "-f 20" in n for n in result.notes)
    # the hackbench sender model (write loops; the bursts before issue 18 as the cause experiment)
    assert any(n.startswith("hackbench senders as the program runs them") and "before issue 18" in n
               for n in result.notes)
    assert result.provenance["parameters"]["hb_model"] == "pipe"
    assert all(c.ok or c.why for c in result.checks)
    assert result.provenance["published"][0]["file"].endswith("sis_prop_vanilla_efficiency.csv")
    assert "lisa_eas.simulate" in result.provenance["model"]
    assert result.series["scan_hist"]["published"][4] == 4041924
    # the two 224-thread misses: not a counting bug (the table's formulas, Mel Gorman's counters),
    # an LLC without idle CPUs; the cause experiment (saturated vs idle CPUs left, per-runqueue
    # cost) is printed beside both claims
    succ = by["netperf under SIS_PROP still finds an idle CPU for >= 99.7 % of wake-ups at every load"]
    spread = by["select_idle_cpu() time at 224 netperf: log2 buckets spanned by the 5th-95th percentiles"]
    for c in (succ, spread):
        assert c.ok or ("Cause experiment (an LLC with no idle CPU" in c.why and "sis_failed" in c.why)
    assert spread.ok or "Cause experiment (per-runqueue cost)" in spread.why
    assert any(n.startswith("Cause experiment (an LLC with no idle CPU") for n in result.notes)


def test_experiment_plots(result):
    from lisa_eas.repro import experiment_plots

    import holoviews as hv

    plots = experiment_plots(result)
    assert len(plots) >= 2      # the scan-time histogram and the se_eff bars
    for p in plots:
        assert type(hv.render(p, backend="bokeh")).__name__ == "figure"
