"""``sis-efficiency``: idle-CPU search efficiency of SIS_PROP and SIS_UTIL on a 112-CPU LLC.

Published (commit 70fb5ccf2ebb, Chen Yu, 2022): with the SIS_PROP baseline, the search
efficiency se_eff% (idle CPUs found / runqueues scanned), dom_eff% (the same for the
``select_idle_cpu()`` scan only), fast_rate% (wake-ups served by target, prev or recent CPU) and
success_rate% (wake-ups that got an idle CPU) for netperf TCP_RR/UDP_RR, schbench, hackbench and
tbench at growing load on 112 CPUs per LLC; and a histogram of the time spent in
``select_idle_cpu()`` with 224 netperf instances.

Reproduced with a dedicated wake-up model of one LLC (:mod:`lisa_eas.models.llc_wakeups`):
every wake-up goes through the project's ``select_idle_sibling`` kernel, under SIS_PROP and
under SIS_UTIL. Modeled assumptions (none fitted to the published table):

* 112 CPUs in one LLC, no SMT (the idle-core search is off), imbalance_pct 117
  (``x86_llc112`` platform); the v5.12+ ``select_idle_sibling`` with the v5.14+ SIS_PROP depth
  (``wake_avg_idle``), as in the v5.18-era kernel the table was taken on;
* netperf/tbench "N threads" = N request/response pairs (2N tasks): a side works
  ``RR_RUN_NS``, wakes its peer (sync wake-up), runs ``RR_TAIL_NS`` more and sleeps;
* hackbench "G groups" = G groups of 20 senders and 20 receivers: a sender's burst (20 writes,
  ``HB_SENDER_RUN_NS``) ends by waking its group's 20 receivers; a receiver's read
  (``HB_RECEIVER_RUN_NS``) ends by waking its sender; process/thread and pipe/socket variants
  share the model;
* select_idle_cpu() time = ``SCAN_RQ_NS`` per runqueue examined (a remote cache-line read on a
  large LLC); it feeds ``update_avg(avg_scan_cost)`` (1/8 weight) and ``wake_avg_idle`` under
  SIS_PROP; ``max_idle_balance_cost`` = sysctl_sched_migration_cost = 500 us; HZ = 250;
* SIS_UTIL's sum of util is a PELT-like per-CPU util (busy fraction per 4 ms window, decay
  y^4 with y^32 = 1/2) recomputed every 4 ms: shorter than the LLC's balance interval, which
  only shifts when a stationary load's value is reached;
* schbench is not modeled (its worker count per message thread is not in the published text).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ._claims import ExperimentResult, check_rank_correlation, check_that, spearman
from ._registry import published_csv, published_provenance
from ._sweep import Sweep

__all__ = ["LlcWakeupParams", "hackbench_workload", "rr_pairs_workload", "simulate_llc", "run"]

TITLE = "SIS_PROP vs SIS_UTIL search efficiency on a 112-CPU LLC (70fb5ccf2ebb)"
FILES = ("sis_prop_vanilla_efficiency.csv", "sis_prop_select_idle_cpu_latency_hist.csv")
PLATFORM = "x86_llc112"
RR_RUN_NS = 10_000          # one side of a loopback TCP_RR transaction (~20 us round trip)
RR_TAIL_NS = 3_000          # return from send to the blocking recv
HB_SENDER_RUN_NS = 40_000   # 20 writes of ~2 us
HB_RECEIVER_RUN_NS = 2_000  # one read
HB_TAIL_NS = 2_000
HB_GROUP = 20               # hackbench's default senders (and receivers) per group
# Published rows the model covers: benchmark -> workload family.
FAMILY = {"netperf": "rr", "tbench": "rr", "hackbench": "hackbench"}
HALF_LOAD = {"rr": 56, "hackbench": 2}   # 56 threads = 112/2 instances; 2 groups = 80 tasks (< 112)


@dataclass(frozen=True)
class LlcWakeupParams:
    """Modeled constants of the LLC wake-up model (see the module docstring)."""

    sim_ns: int = 50_000_000
    warmup_ns: int = 10_000_000
    scan_rq_ns: int = 100
    scan_base_ns: int = 0
    lb_interval_ns: int = 4_000_000
    jiffy_ns: int = 4_000_000
    max_idle_balance_cost_ns: int = 500_000
    seed: int = 1

    def to_array(self, imbalance_pct: int):
        from ..models.llc_wakeups import llc_params

        return llc_params(sim_ns=self.sim_ns, warmup_ns=self.warmup_ns, scan_rq_ns=self.scan_rq_ns,
                          scan_base_ns=self.scan_base_ns, lb_interval_ns=self.lb_interval_ns, jiffy_ns=self.jiffy_ns,
                          max_idle_balance_cost_ns=self.max_idle_balance_cost_ns, imbalance_pct=imbalance_pct)


def _csr(lists):
    ptr = np.zeros(len(lists) + 1, np.int64)
    ptr[1:] = np.cumsum([len(x) for x in lists])
    idx = np.array([w for x in lists for w in x], np.int64)
    return ptr, idx


def rr_pairs_workload(n_pairs: int, n_cpus: int, run_ns: int = RR_RUN_NS, tail_ns: int = RR_TAIL_NS) -> dict:
    """``n_pairs`` request/response pairs (tasks 2i, 2i+1); the requesters start runnable."""
    n = 2 * n_pairs
    ptr, idx = _csr([[t ^ 1] for t in range(n)])
    return {"run_ns": np.full(n, run_ns, np.int64), "tail_ns": np.full(n, tail_ns, np.int64),
            "wake_ptr": ptr, "wake_idx": idx, "init_cpu": np.arange(n, dtype=np.int64) % n_cpus,
            "init_runnable": (np.arange(n) % 2 == 0).astype(np.uint8)}


def hackbench_workload(groups: int, n_cpus: int, group_size: int = HB_GROUP) -> dict:
    """``groups`` groups of ``group_size`` senders then ``group_size`` receivers; senders start runnable."""
    n = 2 * group_size * groups
    lists, run = [], np.zeros(n, np.int64)
    for t in range(n):
        g, j = divmod(t, 2 * group_size)
        base = g * 2 * group_size
        if j < group_size:
            lists.append([base + group_size + r for r in range(group_size)])
            run[t] = HB_SENDER_RUN_NS
        else:
            lists.append([base + j - group_size])
            run[t] = HB_RECEIVER_RUN_NS
    ptr, idx = _csr(lists)
    return {"run_ns": run, "tail_ns": np.full(n, HB_TAIL_NS, np.int64), "wake_ptr": ptr, "wake_idx": idx,
            "init_cpu": np.arange(n, dtype=np.int64) % n_cpus,
            "init_runnable": ((np.arange(n) % (2 * group_size)) < group_size).astype(np.uint8)}


def _pct(num: int, den: int) -> float | None:
    return None if den == 0 else round(100.0 * num / den, 3)


def simulate_llc(job: tuple[str, int, int]) -> dict:
    """Run ``(family, load, util_mode)`` ("rr" pairs or "hackbench" groups; 0 SIS_PROP, 1 SIS_UTIL).

    Returns the SIS counters, the derived percentages and the select_idle_cpu() time histogram.
    """
    from ..models.llc_wakeups import run_llc_wakeups
    from ..platform import load_platform

    family, load, util_mode = job
    plat = load_platform(PLATFORM)
    n_cpus = int(plat.llc_weight)
    params = LlcWakeupParams()
    w = rr_pairs_workload(load, n_cpus) if family == "rr" else hackbench_workload(load, n_cpus)
    jitter = np.random.default_rng(params.seed).integers(0, 1024, 4096).astype(np.int64)
    st, hist = run_llc_wakeups(util_mode, n_cpus, w, jitter, params.to_array(int(plat.imbalance_pct)))
    searches, fast, dscan, dfound, found = st["searches"], st["fast"], st["dom_scanned"], st["dom_found"], st["found"]
    return {"job": job, "searches": searches,
            "se_eff_pct": _pct(found, fast + dscan), "dom_eff_pct": _pct(dfound, dscan),
            "fast_rate_pct": _pct(fast, searches), "success_rate_pct": _pct(found, searches),
            "rqs_per_wakeup": round(dscan / searches, 4) if searches else None,
            "busy_pct": round(100.0 * st["busy_ns"] / (st["counted_ns"] * n_cpus), 2),
            "avg_sum_util_pct": round(100.0 * st["sum_util_sum"] / max(1, st["util_ticks"]) / (1024 * n_cpus), 2),
            "hist": hist.tolist(), "params": asdict(params)}


def _load_value(load: str) -> int:
    return int(load.split()[0])


def _hist_spread(counts) -> tuple[int, int]:
    """Log2 buckets holding the 5th and the 95th percentile of a histogram."""
    c = np.cumsum(np.asarray(counts, dtype=float))
    c /= c[-1]
    return int(np.searchsorted(c, 0.05)), int(np.searchsorted(c, 0.95))


def run(sweep: Sweep) -> ExperimentResult:
    pub = published_csv(FILES[0])
    pub_hist = published_csv(FILES[1])
    loads = {"rr": sorted({_load_value(r.load) for r in pub.itertuples() if FAMILY.get(r.benchmark) == "rr"}),
             "hackbench": sorted({_load_value(r.load) for r in pub.itertuples() if r.benchmark == "hackbench"})}
    jobs = [(f, L, m) for f in ("rr", "hackbench") for L in loads[f] for m in (0, 1)]
    sims = {r["job"]: r for r in sweep.map(simulate_llc, jobs)}
    rows = []
    for r in pub.itertuples():
        fam = FAMILY.get(r.benchmark)
        failed_run = r.benchmark == "tbench" and r.se_eff_pct == 0 and r.success_rate_pct == 0
        row = {"benchmark": r.benchmark, "case": r.case, "load": r.load, "modeled": bool(fam) and not failed_run}
        L = _load_value(r.load)
        for metric in ("se_eff_pct", "dom_eff_pct", "fast_rate_pct", "success_rate_pct"):
            row[f"published_{metric}"] = float(getattr(r, metric))
            for m, tag in ((0, "prop"), (1, "util")):
                row[f"{tag}_{metric}"] = sims[(fam, L, m)][metric] if row["modeled"] else None
        for m, tag in ((0, "prop"), (1, "util")):
            row[f"{tag}_rqs_per_wakeup"] = sims[(fam, L, m)]["rqs_per_wakeup"] if row["modeled"] else None
        row["busy_pct"] = sims[(fam, L, 0)]["busy_pct"] if row["modeled"] else None
        rows.append(row)
    modeled = [r for r in rows if r["modeled"]]
    checks = []
    # The claim is where efficiency collapses (the first load with se_eff < 50 %): the model must
    # collapse at the same published load step for pairs, within one step for hackbench (its
    # model shares one sender/receiver shape across four published variants).
    for fam, tol_steps, name in (("rr", 0, "netperf/tbench pairs"), ("hackbench", 1, "hackbench groups")):
        fam_rows = [r for r in modeled if FAMILY[r["benchmark"]] == fam]
        steps = loads[fam]
        pub_first = sorted({min(_load_value(r["load"]) for r in fam_rows
                                if r["benchmark"] == b and r["case"] == c and r["published_se_eff_pct"] < 50)
                            for b, c in {(r["benchmark"], r["case"]) for r in fam_rows}
                            if any(r["benchmark"] == b and r["case"] == c and r["published_se_eff_pct"] < 50
                                   for r in fam_rows)})
        rep = [L for L in steps if (sims[(fam, L, 0)]["se_eff_pct"] or 0) < 50]
        rep_first = rep[0] if rep else None
        ok = rep_first is not None and any(abs(steps.index(rep_first) - steps.index(p)) <= tol_steps
                                           for p in pub_first)
        checks.append(check_that(
            f"SIS_PROP efficiency collapses past half load ({name}): first load with se_eff < 50 %",
            pub_first, rep_first, ok,
            tolerance=f"same load step as a published variant (±{tol_steps} step): the claim is where "
                      "the collapse happens, not its depth",
            why="the model's hackbench senders are CPU-bound bursts of 20 writes with no pipe-full "
                "blocking, so its groups demand more CPU than the real hackbench and saturate the LLC "
                "earlier" if fam == "hackbench" else "the modeled pair demand differs from netperf's"))
    # Rank correlation over every modeled row: the published efficiency falls with load in each
    # benchmark; 0.7 accepts the ties of the model's saturated rows (all 0) while rejecting an
    # ordering unrelated to load.
    for metric in ("se_eff_pct", "fast_rate_pct"):
        checks.append(check_rank_correlation(
            f"SIS_PROP {metric} ranks the modeled rows like the vanilla table (row by row)",
            [r[f"published_{metric}"] for r in modeled], [r[f"prop_{metric}"] for r in modeled], min_rho=0.7,
            justification="the published claim is the ordering by load; saturated model rows tie at 0",
            why="the model saturates the LLC at a lower load than the real benchmarks"))
    high = [r for r in modeled if _load_value(r["load"]) > HALF_LOAD[FAMILY[r["benchmark"]]]]
    low = [r for r in modeled if _load_value(r["load"]) <= HALF_LOAD[FAMILY[r["benchmark"]]]]
    prop_hi = sum(r["prop_rqs_per_wakeup"] for r in high) / len(high)
    util_hi = sum(r["util_rqs_per_wakeup"] for r in high) / len(high)
    checks.append(check_that(
        "SIS_UTIL scans fewer runqueues than SIS_PROP at high load (mean rqs scanned per wake-up, rows past "
        "half load)", "fewer", {"SIS_PROP": round(prop_hi, 3), "SIS_UTIL": round(util_hi, 3)},
        util_hi < prop_hi and all(r["util_rqs_per_wakeup"] <= r["prop_rqs_per_wakeup"] for r in high),
        tolerance="strictly fewer on average and never more in any row: the claim is a direction",
        why="SIS_UTIL's nr_idle_scan did not fall below SIS_PROP's depth at the modeled loads"))
    lost = max((r["prop_success_rate_pct"] - r["util_success_rate_pct"]) for r in low)
    checks.append(check_that(
        "SIS_UTIL keeps the success rate at low load (rows up to half load)", "unchanged",
        f"largest drop {lost:.3f} points", lost <= 1.0,
        tolerance="at most 1 percentage point below SIS_PROP: at low load nr_idle_scan is near the whole LLC",
        why="SIS_UTIL limited the scan while idle CPUs were still available"))
    rr_rows = [r for r in modeled if r["benchmark"] == "netperf"]
    min_succ = min(r["prop_success_rate_pct"] for r in rr_rows)
    checks.append(check_that(
        "netperf under SIS_PROP still finds an idle CPU for >= 99.7 % of wake-ups at every load",
        min(r["published_success_rate_pct"] for r in rr_rows), min_succ, min_succ >= 99.0,
        tolerance="lowest success rate >= 99 % (published lowest 99.767 %)",
        why="in the model every pair keeps its sides busy (run + tail, no network or softirq gaps), so "
            "past ~84 pairs the LLC has no idle CPU left at wake-up time; the real loopback netperf "
            "leaves CPUs idle between transactions"))
    # select_idle_cpu() time: 224 netperf instances, SIS_PROP.
    model_hist = sims[("rr", 224, 0)]["hist"]
    pub_counts = pub_hist["count"].astype(int).tolist()
    ps, ms = _hist_spread(pub_counts), _hist_spread(model_hist) if sum(model_hist) else (0, 0)
    checks.append(check_that(
        "select_idle_cpu() time at 224 netperf: log2 buckets spanned by the 5th-95th percentiles",
        ps[1] - ps[0], ms[1] - ms[0], abs((ps[1] - ps[0]) - (ms[1] - ms[0])) <= 2,
        tolerance="within 2 log2 buckets: the shape (spread), not the absolute time, which depends on the "
                  "modeled per-runqueue cost",
        why="the modeled time is runqueues scanned x 100 ns and SIS_PROP's depth sits at its floor of 4 in the "
            "saturated model (3 runqueues, < 1 us); the measured 8 us - 64 ms spread comes from runqueue "
            "cache-line contention among 224 wakers and interrupts, which the model does not have"))
    rho = {m: round(spearman([r[f"published_{m}"] for r in modeled], [r[f"prop_{m}"] or 0 for r in modeled]), 3)
           for m in ("dom_eff_pct", "success_rate_pct")}
    n_us = len(model_hist)
    series = {
        "se_eff_pct": {"label": [f"{r['benchmark']} {r['case']} {r['load']}" for r in modeled],
                       "published": [r["published_se_eff_pct"] for r in modeled],
                       "reproduced": [r["prop_se_eff_pct"] for r in modeled]},
        "scan_hist": {"bucket_lo_us": [0] + [2 ** (i - 1) for i in range(1, n_us)],
                      "model": model_hist,
                      "published_lo_us": pub_hist["usecs_lo"].astype(int).tolist(), "published": pub_counts},
    }
    cols = ("benchmark", "case", "load", "modeled", "busy_pct")
    cols += tuple(f"{src}_{m}" for m in ("se_eff_pct", "fast_rate_pct", "success_rate_pct", "dom_eff_pct")
                  for src in ("published", "prop", "util"))
    cols += ("prop_rqs_per_wakeup", "util_rqs_per_wakeup")
    return ExperimentResult(
        name="sis-efficiency", title=TITLE, columns=cols, rows=tuple(rows), checks=tuple(checks),
        notes=("prop_* = SIS_PROP (the published baseline), util_* = SIS_UTIL, both through "
               "lisa_eas._kernels.sis.select_idle_sibling; busy_pct = the LLC's busy time under SIS_PROP.",
               "se_eff% = idle CPUs found / runqueues examined, a fast-path hit counting one runqueue; "
               "dom_eff% = the same inside select_idle_cpu(); fast_rate% = target/prev/recent hits per "
               "wake-up; success_rate% = wake-ups given an idle CPU.",
               "schbench rows are not modeled (worker threads per message thread not published); tbench rows "
               "of 140+ threads are all zeros in the table (the run produced no statistics) and are left out.",
               f"Spearman rho (published vs SIS_PROP, modeled rows) also for dom_eff%: {rho['dom_eff_pct']}, "
               f"success_rate%: {rho['success_rate_pct']} (not claimed: published dom_eff% is flat).",
               "Modeled assumptions (service times, 100 ns per runqueue, 4 ms util windows, HZ 250, no SMT, "
               "pairs = 'threads') are in lisa_eas/repro/sis_efficiency.py; none is fitted to the table."),
        provenance={"published": published_provenance(*FILES),
                    "model": "lisa_eas._kernels.llc_wakeups (one LLC, every wake-up through "
                             "lisa_eas._kernels.sis.select_idle_sibling, v5.12+ form)",
                    "platform": f"lisa_eas/platforms/{PLATFORM}.json",
                    "parameters": {"rr_run_ns": RR_RUN_NS, "rr_tail_ns": RR_TAIL_NS,
                                   "hb_sender_run_ns": HB_SENDER_RUN_NS, "hb_receiver_run_ns": HB_RECEIVER_RUN_NS,
                                   "hb_tail_ns": HB_TAIL_NS, "hb_group": HB_GROUP, **asdict(LlcWakeupParams())},
                    "jobs": len(jobs)},
        series=series)
