"""``sis-efficiency``: idle-CPU search efficiency of SIS_PROP and SIS_UTIL on a 112-CPU LLC.

Published (commit 70fb5ccf2ebb, Chen Yu, 2022): with the SIS_PROP baseline, the search
efficiency se_eff% (idle CPUs found / runqueues scanned), dom_eff% (the same for the
``select_idle_cpu()`` scan only), fast_rate% (wake-ups served by target, prev or recent CPU) and
success_rate% (wake-ups that got an idle CPU) for netperf TCP_RR/UDP_RR, schbench, hackbench and
tbench at growing load on 112 CPUs per LLC; and a histogram of the time spent in
``select_idle_cpu()`` with 224 netperf instances.

Reproduced on the main simulator (:func:`lisa_eas.simulate`) with rt-app workloads whose
threads wake each other with ``suspend``/``resume``: the ``x86_llc112`` board (no energy model:
fixed frequency, no EAS, the era's idle search), era v5.18 (the kernel the table was taken on),
under SIS_PROP and under SIS_UTIL; the simulator counts Mel Gorman's SIS schedstats at each
wake-up (``metadata["sis_stats"]``) from 150 ms of a 200 ms run (the published runs lasted 100 s:
steady state) and derives the four percentages from them with the table's own formulas
(``schedstat_parse.py``). Modeled assumptions (none fitted to the
published table):

* 112 CPUs in one LLC, no SMT (the idle-core search is off), imbalance_pct 117;
* netperf/tbench "N threads" = N request/response pairs (2N threads): a side works
  ``RR_RUN_US + RR_TAIL_US`` (its request or answer and the return to its blocking read), resumes
  its peer and suspends until the peer answers: a pair hands one transaction back and forth and
  never has both sides runnable. The tail runs before the ``resume`` because rt-app's resume
  (``pthread_cond_broadcast``) wakes only a thread already suspended: a resume followed by
  work would lose the peer's answer whenever the waker is delayed past the peer's run, which a
  socket (buffered) never does;
* hackbench "G groups" = G groups of 14 senders and 14 receivers (the commit message: "each group
  has 28 tasks", i.e. ``hackbench -f 14``, not the tool's default of 20 fds), as the program runs
  (rt-tests ``hackbench.c`` / perf's ``bench/sched-messaging.c``; schedtests' ``hackbench.sh``
  runs ``-l 10000 -s 100``): a sender loops over its group's receivers writing one 100-byte message
  (``HB_WRITE_US``) to each and never waits for an answer (10000 loops outlast the simulated
  window); each write resumes its receiver, which reaches it only when it sleeps on its empty pipe
  (v5.18 ``pipe_write()`` wakes the reader when the pipe was empty; rt-app's resume wakes only a
  suspended thread). A receiver sleeps on its own pipe and reads one message per wake-up
  (``HB_RECEIVER_RUN_US + HB_TAIL_US``: the read and the return to the blocking read). Not
  modeled: a sender blocking on a full 64 KiB pipe and a receiver reading a backlog (rt-app's
  suspend/resume carries no byte count), and the reader wake-up's WF_SYNC. The model before
  issue 18 (a sender's burst of one write per receiver, then waiting for its receiver's answer)
  is the ``hackbench-burst`` cause experiment; process/thread and pipe/socket variants share the model;
* service times spread over [0.5, 1.5) x the nominal value across threads (a golden-ratio
  sequence; rt-app has no random jitter) so that the pairs do not run in lock-step;
* a wake-up by ``resume`` is a futex wake-up (no WF_SYNC) from the resumer's CPU; the wake-up
  target is ``wake_affine``'s choice between that CPU and the task's previous CPU (the
  simulator's wake-up path; see :mod:`lisa_eas.sim`);
  SIS_PROP's depth is the simulator's (v5.18: ``wake_avg_idle`` of the waker's CPU and
  ``SimConfig.sis_scan_cost_ns``); the high-load depth claim is also run with each of these
  causes switched off (``SimConfig.ablate`` ``resume-waker``, ``sis-prop-wake-avg-idle``;
  for SIS_UTIL's input ``pelt-attach-reset``; for both ``startup``: counters from 10 ms of a 50 ms run);
* select_idle_cpu() time (the histogram) = ``SCAN_RQ_NS`` per runqueue examined, the cost the
  simulated SIS_PROP charges to ``avg_scan_cost`` (``SimConfig.sis_scan_cost_ns``);
* schbench is not modeled (its worker count per message thread is not in the published text).
"""
from __future__ import annotations

import numpy as np

from ._claims import ExperimentResult, check_rank_correlation, check_that, spearman
from ._registry import published_csv, published_provenance
from ._sweep import Sweep

__all__ = ["hackbench_workload", "rr_pairs_workload", "simulate_sis", "run"]

TITLE = "SIS_PROP vs SIS_UTIL search efficiency on a 112-CPU LLC (70fb5ccf2ebb)"
FILES = ("sis_prop_vanilla_efficiency.csv", "sis_prop_select_idle_cpu_latency_hist.csv")
PLATFORM = "x86_llc112"
ERA = "v5.18"
RR_RUN_US = 10              # one side of a loopback TCP_RR transaction (~20 us round trip)
RR_TAIL_US = 3              # return from send to the blocking recv
HB_WRITE_US = 2             # one 100-byte write; a sender's loop writes once to each of its group's receivers
HB_RECEIVER_RUN_US = 2      # one read
HB_TAIL_US = 2              # the return to the blocking call (a receiver's next read; the "burst" sender's wait)
HB_GROUP = 14               # senders (and receivers) per group: "each group has 28 tasks" (70fb5ccf2ebb)
HB_DEFAULT_FDS = 20         # hackbench's own default (-f 20, 40 tasks a group): the group-size cause experiment
# The published counters cover runs of 100 s each (``netperf -l 100``, ``tbench -t 100``; "Each test
# lasts for 100 seconds and repeats 3 times", the v3/v4 postings of 70fb5ccf2ebb): steady state. The
# model counts from 150 ms of a 200 ms run, when the threads' util_avg has replaced its fork-time
# value (post_init_entity_util_avg) by the running share (~4.7 PELT half-lives of 32 ms); the
# "startup" cause switch counts from 10 ms of a 50 ms run instead.
SIM_S = 0.2                 # simulated time per run
WARMUP_S = 0.15             # left out of the counters
STARTUP_SIM_S, STARTUP_WARMUP_S = 0.05, 0.01    # "startup": the window of the counters before issue 18
SCAN_RQ_NS = 500            # modeled select_idle_cpu() time per runqueue examined: SimConfig.sis_scan_cost_ns,
                            # the cost the simulated SIS_PROP charges to avg_scan_cost (one time model)
HIST_BUCKETS = 24           # log2 buckets of that time in us: [0,1), [1,2), [2,4), ...
# The vanilla (SIS_PROP) counters at 224 netperf threads, per CPU (``sched_debug.cpu.*.avg``), as
# the 70fb5ccf2ebb commit message (v4 posting, 20220612163428.849378-1-yu.c.chen@intel.com) prints
# them: "Take the 224 threads as an example, the SIS search metrics changes"
PUB_224_COUNTERS = {"sis_search": 5842896, "sis_domain_search": 4544492, "sis_scanned": 128300000,
                    "sis_failed": 38539}
# Published rows the model covers: benchmark -> workload family.
FAMILY = {"netperf": "rr", "tbench": "rr", "hackbench": "hackbench"}
HALF_LOAD = {"rr": 56, "hackbench": 2}   # 56 threads = 112/2 instances; 2 groups = 56 tasks = 112/2
# causes switched off one at a time for the high-load depth claim (SimConfig.ablate)
ABLATIONS = ("resume-waker", "sis-prop-wake-avg-idle", "startup")    # SIS_PROP's depth
UTIL_ABLATIONS = ("pelt-attach-reset", "startup")          # SIS_UTIL's input (the LLC's sum of cpu_util)


def _spread(i: int, base_us: int) -> int:
    """Thread ``i``'s service time: ``base_us`` x [0.5, 1.5) along a golden-ratio sequence."""
    return max(1, int(round(base_us * (0.5 + (i * 0.6180339887498949) % 1.0))))


def rr_pairs_workload(n_pairs: int):
    """``n_pairs`` request/response pairs: clients ``c<i>`` and servers ``s<i>`` (an rt-app workload).

    The client starts the first transaction (its start is delayed 100 us so that its server is
    suspended by then)."""
    from ..rtapp import Phase, Resume, RunTime, Suspend, task, workload

    tasks = []
    for i in range(n_pairs):
        c, s = f"c{i}", f"s{i}"
        tasks.append(task(c, [Phase(name="rr", loop=-1, events=(
            RunTime(_spread(2 * i, RR_RUN_US + RR_TAIL_US)), Resume(s), Suspend(c)))], loop=-1, delay_us=100))
        tasks.append(task(s, [Phase(name="rr", loop=-1, events=(
            Suspend(s), RunTime(_spread(2 * i + 1, RR_RUN_US + RR_TAIL_US)), Resume(c)))], loop=-1))
    return workload(tasks, calibration=20, duration_s=1)


def hackbench_workload(groups: int, group_size: int = HB_GROUP, model: str = "pipe"):
    """``groups`` groups of ``group_size`` senders ``g<k>s<j>`` and receivers ``g<k>r<j>``.

    ``model="pipe"`` (the experiment's): hackbench's own loops (rt-tests ``hackbench.c``,
    ``perf bench sched messaging``): a sender writes one ``HB_WRITE_US`` message to each receiver
    of its group in turn, over and over (``-l 10000`` loops of ``-f`` writes: far longer than the
    simulated window), and never waits for an answer; each write resumes its receiver, whose
    pipe read wakes it only when it sleeps on an empty pipe (``pipe_write``: wake-up if the pipe
    was empty) -- rt-app's resume reaches a thread only if it is suspended, i.e. the same rule.
    A receiver waits on its own pipe (its own condition) and reads one message (``read`` +
    the tail that returns to the blocking read). ``model="burst"`` (before issue 18, the
    ``hackbench-burst`` cause experiment): a sender's burst of one write to each receiver ends
    by resuming its whole group and suspending until its own receiver answers."""
    from ..rtapp import Phase, Resume, RunTime, Suspend, task, workload

    if model not in ("pipe", "burst"):
        from ..errors import ModelError

        raise ModelError(f"hackbench model {model!r}: 'pipe' (hackbench's write loops) or 'burst' (before issue 18)")
    tasks = []
    for k in range(groups):
        g = f"g{k}"
        burst_us = group_size * HB_WRITE_US + HB_TAIL_US     # one write to each receiver of the group
        for j in range(group_size):
            i = 2 * group_size * k + j
            if model == "pipe":
                w = _spread(i, HB_WRITE_US)
                evs = tuple(e for m in range(group_size) for e in (RunTime(w), Resume(f"{g}r{m}")))
            else:
                evs = (RunTime(_spread(i, burst_us)), Resume(g), Suspend(f"{g}s{j}"))
            tasks.append(task(f"{g}s{j}", [Phase(name="hb", loop=-1, events=evs)], loop=-1))
        for j in range(group_size):
            i = 2 * group_size * k + group_size + j
            run = RunTime(_spread(i, HB_RECEIVER_RUN_US + HB_TAIL_US))
            evs = ((Suspend(f"{g}r{j}"), run) if model == "pipe" else (Suspend(g), run, Resume(f"{g}s{j}")))
            tasks.append(task(f"{g}r{j}", [Phase(name="hb", loop=-1, events=evs)], loop=-1))
    return workload(tasks, calibration=20, duration_s=1)


def _pct(num: int, den: int) -> float | None:
    return None if den == 0 else round(100.0 * num / den, 3)


def scan_time_hist(rqs_scanned_hist, rq_ns: int = SCAN_RQ_NS) -> list[int]:
    """select_idle_cpu() calls by log2 bucket of modeled time (``rq_ns`` per runqueue), in us."""
    hist = [0] * HIST_BUCKETS
    for rqs, n in enumerate(rqs_scanned_hist):
        if n:
            hist[min(HIST_BUCKETS - 1, int(rqs * rq_ns // 1000).bit_length())] += int(n)
    return hist


def mel_counters(st: dict) -> dict:
    """The four runqueue counters of Mel Gorman's "sched/fair: Track efficiency of
    select_idle_sibling" (20210726102247.21437-2-mgorman@techsingularity.net, the patch the table
    was measured with) from the simulator's ``sis_stats``: ``sis_search`` and one ``sis_scanned``
    at each select_idle_sibling() call (the target/prev/recent checks count as one runqueue),
    ``sis_domain_search`` when it goes on to the LLC search, one ``sis_scanned`` per runqueue
    that search examines (``__select_idle_cpu``), ``sis_failed`` when it returns target without
    an idle CPU."""
    return {"sis_search": st["searches"], "sis_domain_search": st["dom_searches"],
            "sis_scanned": st["searches"] + st["dom_scanned"], "sis_failed": st["searches"] - st["found"]}


def schedstat_metrics(c: dict) -> dict:
    """se_eff%, dom_eff%, fast_rate% and success_rate% as the table's ``schedstat_parse.py``
    (Chen Yu's schedtests) derives them from :func:`mel_counters`: idle found = search - failed;
    se_eff = found / scanned; dom_eff = (domain_search - failed) / (scanned - fast found), fast
    found = search - domain_search; fast_rate = fast found / search; success = found / search."""
    found = c["sis_search"] - c["sis_failed"]
    fast = c["sis_search"] - c["sis_domain_search"]
    return {"se_eff_pct": _pct(found, c["sis_scanned"]),
            "dom_eff_pct": _pct(c["sis_domain_search"] - c["sis_failed"], c["sis_scanned"] - fast),
            "fast_rate_pct": _pct(fast, c["sis_search"]), "success_rate_pct": _pct(found, c["sis_search"])}


def simulate_sis(job: tuple) -> dict:
    """Simulate ``(family, load, sis)`` ("rr" pairs or "hackbench" groups; sis "prop" or "util"),
    optionally ``(family, load, sis, ablate)`` with ``ablate`` a ``SimConfig.ablate`` tuple.

    Returns the SIS counters, the derived percentages and the select_idle_cpu() time histogram.
    """
    from ..sim import SimConfig, simulate

    family, load, sis = job[:3]
    ablate = tuple(job[3]) if len(job) > 3 else ()
    # "startup" (not a SimConfig ablation): the counters include the run's PELT start-up
    dur, warm = (STARTUP_SIM_S, STARTUP_WARMUP_S) if "startup" in ablate else (SIM_S, WARMUP_S)
    ablate = tuple(a for a in ablate if a != "startup")
    if family == "rr":
        wl = rr_pairs_workload(load)
    else:       # "hackbench" (28 tasks a group, as published), "hackbench-f20" (the tool's default size),
                # "hackbench-burst" (the sender model before issue 18)
        wl = hackbench_workload(load, HB_DEFAULT_FDS if family == "hackbench-f20" else HB_GROUP,
                                model="burst" if family == "hackbench-burst" else "pipe")
    cfg = SimConfig(placement="no-eas", era=ERA, sis=sis, governor="performance", duration_s=dur,
                    stats_from_s=warm, outputs="summary", ablate=ablate)
    tr = simulate(PLATFORM, wl, config=cfg)
    st = tr.metadata["sis_stats"]
    searches, dscan = st["searches"], st["dom_scanned"]
    busy = sum(sum(row) for row in tr.metadata["residency"]["busy_ns_per_opp"])
    counters = mel_counters(st)
    return {"job": job, "searches": searches, "counters": counters, **schedstat_metrics(counters),
            "rqs_per_wakeup": round(dscan / searches, 4) if searches else None,
            "busy_pct": round(100.0 * busy / (tr.metadata["t_end_s"] * 1e9 * tr.metadata["cpus"]), 2),
            "hist": scan_time_hist(st["rqs_scanned_hist"]), "rqs_hist": list(st["rqs_scanned_hist"])}


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
    jobs = [(f, L, m) for f in ("rr", "hackbench") for L in loads[f] for m in ("prop", "util")]
    # the cause experiment of the high-load depth claim: SIS_PROP past half load with one cause
    # switched off at a time (SimConfig.ablate)
    jobs += [(f, L, m, (a,)) for m, abls in (("prop", ABLATIONS), ("util", UTIL_ABLATIONS)) for a in abls
             for f in ("rr", "hackbench") for L in loads[f] if L > HALF_LOAD[f]]
    # the cause experiment of the hackbench collapse claim: the group size (28 tasks as published,
    # 40 with hackbench's default 20 fds), SIS_PROP
    jobs += [("hackbench-f20", L, "prop") for L in loads["hackbench"]]
    # the cause experiment of the hackbench workload model (issue 18): the senders as bursts that
    # wait for their receiver (the model before issue 18), SIS_PROP and SIS_UTIL, every load
    jobs += [("hackbench-burst", L, m) for L in loads["hackbench"] for m in ("prop", "util")]
    sims, abl = {}, {}
    for r in sweep.map(simulate_sis, jobs):
        fam, load, sis = r["job"][:3]
        if len(r["job"]) > 3:
            abl[(fam, load, r["job"][3][0], 0 if sis == "prop" else 1)] = r
            continue
        sims[(fam, load, 0 if sis == "prop" else 1)] = r      # 0: SIS_PROP, 1: SIS_UTIL
    burst = {(L, m): sims[("hackbench-burst", L, m)] for L in loads["hackbench"] for m in (0, 1)}
    burst_txt = ("Cause experiment (the hackbench sender model, SIS_PROP): se_eff % by groups 1..8 with "
                 "hackbench's write loops (as modeled) " + ", ".join(f"{sims[('hackbench', L, 0)]['se_eff_pct'] or 0:.1f}"
                                                                      for L in loads["hackbench"])
                 + "; with the senders as bursts that wait for their receiver (before issue 18) "
                 + ", ".join(f"{burst[(L, 0)]['se_eff_pct'] or 0:.1f}" for L in loads["hackbench"]))
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
        if fam == "hackbench":
            f20 = [L for L in steps if (sims[("hackbench-f20", L, 0)]["se_eff_pct"] or 0) < 50]
            group_txt = (f"Cause experiment (group size, SIS_PROP): first collapse at {rep_first} groups with 28 "
                         f"tasks a group (as published), at {f20[0] if f20 else None} groups with hackbench's "
                         "default 40 (-f 20); se_eff % by groups 1..8: 28 tasks "
                         + ", ".join(f"{sims[(fam, L, 0)]['se_eff_pct'] or 0:.1f}" for L in steps)
                         + "; 40 tasks " + ", ".join(f"{sims[('hackbench-f20', L, 0)]['se_eff_pct'] or 0:.1f}"
                                                     for L in steps))
        checks.append(check_that(
            f"SIS_PROP efficiency collapses past half load ({name}): first load with se_eff < 50 %",
            pub_first, rep_first, ok,
            tolerance=f"same load step as a published variant (±{tol_steps} step): the claim is where "
                      "the collapse happens, not its depth",
            why=(f"{group_txt}. {burst_txt}. The modeled senders never wait (a real one waits only on a "
                 "full 64 KiB pipe; rt-app's suspend/resume has no byte count)") if fam == "hackbench"
            else "the modeled pair demand (one runnable side per pair, 13 us per side) differs from netperf's"))
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
    abl_hi = {a + ("-util" if m == 1 and a in ABLATIONS else ""):
              sum(abl[(FAMILY[r["benchmark"]], _load_value(r["load"]), a, m)]["rqs_per_wakeup"] for r in high) / len(high)
              for m, abls in ((0, ABLATIONS), (1, UTIL_ABLATIONS)) for a in abls}
    # the hackbench sender model switched (hackbench rows from the "burst" model, the others unchanged)

    def _hb_burst(r, m):
        fam, L = FAMILY[r["benchmark"]], _load_value(r["load"])
        return (burst[(L, m)] if fam == "hackbench" else sims[(fam, L, m)])["rqs_per_wakeup"]

    abl_hi["hackbench-burst"] = sum(_hb_burst(r, 0) for r in high) / len(high)
    abl_hi["hackbench-burst-util"] = sum(_hb_burst(r, 1) for r in high) / len(high)
    burst_worse = sorted({_load_value(r["load"]) for r in high
                          if FAMILY[r["benchmark"]] == "hackbench" and _hb_burst(r, 1) > _hb_burst(r, 0)})
    # the rows that break the direction: one per simulated (family, load)
    worse = sorted({(FAMILY[r["benchmark"]], _load_value(r["load"])) for r in high
                    if r["util_rqs_per_wakeup"] > r["prop_rqs_per_wakeup"]})
    worse_txt = "; ".join(f"{'pairs' if f == 'rr' else 'hackbench'} {L}: SIS_UTIL "
                          f"{sims[(f, L, 1)]['rqs_per_wakeup']:.2f} vs SIS_PROP {sims[(f, L, 0)]['rqs_per_wakeup']:.2f} "
                          f"(LLC busy {sims[(f, L, 0)]['busy_pct']:.1f} % under SIS_PROP, "
                          f"{sims[(f, L, 1)]['busy_pct']:.1f} % under SIS_UTIL; SIS_UTIL "
                          f"{abl[(f, L, 'pelt-attach-reset', 1)]['rqs_per_wakeup']:.2f} with attach's util reset off)"
                          for f, L in worse)
    abl_txt = (f"SIS_PROP mean past half load {prop_hi:.2f} as modeled (v5.18: the waker's wake_avg_idle, aged "
               f"per jiffy and charged each scan); {abl_hi['resume-waker']:.2f} with the wake-up placed on prev as "
               f"a timer wake-up is (off: the resumer's CPU as waker); {abl_hi['sis-prop-wake-avg-idle']:.2f} "
               f"with the v5.13 depth (off: wake_avg_idle, 94aafc3ee31d); {abl_hi['startup']:.2f} with the "
               f"start-up window below; SIS_UTIL {util_hi:.2f} as modeled, "
               f"{abl_hi['pelt-attach-reset']:.2f} when a migrated task keeps its util_sum (off: "
               f"attach_entity_load_avg's util_sum = util_avg * divider), {abl_hi['startup-util']:.2f} counted from "
               f"{STARTUP_WARMUP_S * 1e3:.0f} ms of a {STARTUP_SIM_S * 1e3:.0f} ms run (off: the steady state, "
               f"counters from {WARMUP_S * 1e3:.0f} ms of {SIM_S * 1e3:.0f} ms, as the 100 s runs measured it); "
               f"with the hackbench senders as bursts that wait for their receiver (off: hackbench's write loops, "
               f"the model before issue 18) SIS_PROP {abl_hi['hackbench-burst']:.2f}, SIS_UTIL "
               f"{abl_hi['hackbench-burst-util']:.2f}, SIS_UTIL scanning more in hackbench rows "
               + (", ".join(f"{L} ({burst[(L, 1)]['rqs_per_wakeup']:.1f} vs {burst[(L, 0)]['rqs_per_wakeup']:.1f})"
                            for L in burst_worse) or "none"))
    fewer_ok = util_hi < prop_hi and not worse
    checks.append(check_that(
        "SIS_UTIL scans fewer runqueues than SIS_PROP at high load (mean rqs scanned per wake-up, rows past "
        "half load)", "fewer", {"SIS_PROP": round(prop_hi, 3), "SIS_UTIL": round(util_hi, 3)},
        fewer_ok,
        tolerance="strictly fewer on average and never more in any row: the claim is a direction",
        why=(f"SIS_UTIL's nr_idle_scan stays above SIS_PROP's depth in {worse_txt or 'no row'}. Cause "
             f"experiment: {abl_txt}. The resumer-as-waker switch moves SIS_PROP by "
             f"{abl_hi['resume-waker'] - prop_hi:+.2f}; the v5.14 aging holds a busy waker's SIS_PROP at nr = 4 "
             f"(3 runqueues): with the v5.13 depth SIS_PROP scans {abl_hi['sis-prop-wake-avg-idle']:.2f} "
             f"({'more' if abl_hi['sis-prop-wake-avg-idle'] > util_hi else 'still fewer'} than SIS_UTIL on "
             "average). On SIS_UTIL's side nr_idle_scan is 0 only once the LLC's sum of cpu_util reaches the 85 % "
             "stop; a row whose LLC stays just below it scans up to nr_idle_scan runqueues per search where "
             "SIS_PROP's depth stops at 3. Tasks that migrate at most wake-ups and run a few us per activation "
             "lose the running time since their last 1024 us PELT boundary at each attach (util_avg below the "
             f"running share); with that reset off SIS_UTIL scans {abl_hi['pelt-attach-reset']:.2f} runqueues "
             f"per wake-up, {'fewer' if abl_hi['pelt-attach-reset'] < prop_hi else 'not fewer'} than SIS_PROP's "
             f"{prop_hi:.2f}; the hackbench senders modeled as bursts that wait for their receiver (before issue "
             f"18: such tasks) give SIS_UTIL {abl_hi['hackbench-burst-util']:.2f} vs SIS_PROP "
             f"{abl_hi['hackbench-burst']:.2f}")))
    lost = max((r["prop_success_rate_pct"] - r["util_success_rate_pct"]) for r in low)
    checks.append(check_that(
        "SIS_UTIL keeps the success rate at low load (rows up to half load)", "unchanged",
        f"largest drop {lost:.3f} points", lost <= 1.0,
        tolerance="at most 1 percentage point below SIS_PROP: at low load nr_idle_scan is near the whole LLC",
        why="SIS_UTIL limited the scan while idle CPUs were still available"))
    rr_rows = [r for r in modeled if r["benchmark"] == "netperf"]
    min_succ = min(r["prop_success_rate_pct"] for r in rr_rows)
    # Cause experiment of the two 224-thread misses (success rate, scan-time spread): the modeled
    # LLC has no idle CPU at a wake-up. Off: the same model at the largest load whose LLC keeps idle
    # CPUs, and the 224 "threads" read as 224 tasks (112 pairs) instead of 224 netperf clients each
    # with its netserver child (schedtests' netperf.sh starts N clients).
    s224 = sims[("rr", 224, 0)]
    pub_c = PUB_224_COUNTERS
    pub_m = schedstat_metrics(pub_c)
    pub_depth = (pub_c["sis_scanned"] - pub_c["sis_search"]) / pub_c["sis_domain_search"]

    def _depth(r):
        c = r["counters"]
        return (c["sis_scanned"] - c["sis_search"]) / c["sis_domain_search"] if c["sis_domain_search"] else 0.0

    def _spread(h):
        lo, hi = _hist_spread(h) if sum(h) else (0, 0)
        return hi - lo

    idle_loads = [L for L in loads["rr"] if (sims[("rr", L, 0)]["success_rate_pct"] or 0) >= 99.0]
    L_idle = max(idle_loads) if idle_loads else None
    s_idle = sims[("rr", L_idle, 0)] if L_idle else None
    s112 = sims[("rr", 112, 0)]
    c224 = s224["counters"]
    sat_txt = (f"Cause experiment (an LLC with no idle CPU at a wake-up, SIS_PROP, netperf pairs): 224 threads as "
               f"modeled (224 pairs): busy {s224['busy_pct']:.1f} %, success {s224['success_rate_pct']:.3f} %, "
               f"{_depth(s224):.2f} runqueues per domain search, scan-time spread {_spread(s224['hist'])} buckets "
               f"(Mel Gorman's counters: sis_search {c224['sis_search']}, sis_domain_search "
               f"{c224['sis_domain_search']}, sis_scanned {c224['sis_scanned']}, sis_failed {c224['sis_failed']}); "
               + (f"off, the largest modeled load whose LLC keeps idle CPUs ({L_idle} pairs): busy "
                  f"{s_idle['busy_pct']:.1f} %, success {s_idle['success_rate_pct']:.3f} %, {_depth(s_idle):.2f} "
                  f"runqueues per domain search, spread {_spread(s_idle['hist'])} buckets; " if s_idle else "")
               + f"off, 224 threads read as 224 tasks (112 pairs): busy {s112['busy_pct']:.1f} %, success "
               f"{s112['success_rate_pct']:.3f} %, spread {_spread(s112['hist'])} buckets. Published at 224 threads "
               f"(the commit's per-CPU counters, same formulas): success {pub_m['success_rate_pct']:.2f} %, "
               f"{pub_depth:.1f} runqueues per domain search")
    checks.append(check_that(
        "netperf under SIS_PROP still finds an idle CPU for >= 99.7 % of wake-ups at every load",
        min(r["published_success_rate_pct"] for r in rr_rows), min_succ, min_succ >= 99.0,
        tolerance="lowest success rate >= 99 % (published lowest 99.767 %)",
        why=("not a counting bug: success = (sis_search - sis_failed) / sis_search as schedstat_parse.py "
             "computes it, sis_failed counted where Mel Gorman's patch counts it (select_idle_sibling() "
             "returning target after the LLC search found no idle CPU); the model's LLC has no idle CPU at "
             "a wake-up: each pair hands one runnable side back and forth, so N pairs keep N tasks runnable "
             "and from 112 pairs on every CPU is busy (an LLC without idle CPUs stays so: a wakee moves only "
             "to an idle CPU). The real LLC at 224 threads kept idle CPUs (99.3 % success, ~27 runqueues per "
             "domain search in the commit's counters), i.e. its pairs were not runnable all the time; what "
             "kept them off the CPU is not in the published text. " + sat_txt)))
    # select_idle_cpu() time: 224 netperf instances, SIS_PROP.
    model_hist = s224["hist"]
    pub_counts = pub_hist["count"].astype(int).tolist()
    ps, ms = _hist_spread(pub_counts), _hist_spread(model_hist) if sum(model_hist) else (0, 0)
    alt_ns = 100 if SCAN_RQ_NS != 100 else 500
    cost_txt = (f"Cause experiment (per-runqueue cost): {SCAN_RQ_NS} ns per runqueue (the cost the simulated "
                f"SIS_PROP charges to avg_scan_cost, SimConfig.sis_scan_cost_ns) spread {ms[1] - ms[0]}, "
                f"{alt_ns} ns spread {_spread(scan_time_hist(s224['rqs_hist'], alt_ns))} buckets: a constant "
                "per-runqueue cost moves the histogram, not its spread")
    checks.append(check_that(
        "select_idle_cpu() time at 224 netperf: log2 buckets spanned by the 5th-95th percentiles",
        ps[1] - ps[0], ms[1] - ms[0], abs((ps[1] - ps[0]) - (ms[1] - ms[0])) <= 2,
        tolerance="within 2 log2 buckets: the shape (spread), not the absolute time, which depends on the "
                  "modeled per-runqueue cost",
        why=("the published histogram is the wall time of select_idle_cpu() calls (bpftrace @usecs): "
             "runqueues examined x the time per runqueue. Its spread is the spread of the scan depth: in "
             "the real run scans stop at the first idle CPU (~27 runqueues per domain search on average, a "
             "geometric-like spread from 1 to the whole LLC), in the model's saturated LLC every scan runs "
             "out of SIS_PROP's depth (nr = 4 floor: 3 runqueues), so all times share one bucket. "
             + cost_txt + ". " + sat_txt)))
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
        notes=("prop_* = SIS_PROP (the published baseline), util_* = SIS_UTIL, both simulated by lisa_eas.simulate "
               "(every wake-up through lisa_eas._kernels.sis.select_idle_sibling); busy_pct = the LLC's busy time "
               "under SIS_PROP (whole run).",
               "se_eff%, dom_eff%, fast_rate% and success_rate% are computed as the table's schedstat_parse.py "
               "computes them from Mel Gorman's four counters (sis_search, sis_domain_search, sis_scanned, "
               "sis_failed; each select_idle_sibling() call counts one runqueue for its target/prev/recent "
               "checks): se_eff = (search - failed) / scanned, dom_eff = (domain_search - failed) / (scanned - "
               "search + domain_search), fast_rate = (search - domain_search) / search, success = (search - "
               "failed) / search.",
               f"Counters from {WARMUP_S * 1e3:.0f} ms of a {SIM_S * 1e3:.0f} ms run in every row: the published "
               "counters cover 100 s runs (netperf -l 100, tbench -t 100, 3 repetitions: the commit's v3/v4 "
               "postings), i.e. steady state; the 'startup' cause switch counts from "
               f"{STARTUP_WARMUP_S * 1e3:.0f} ms of a {STARTUP_SIM_S * 1e3:.0f} ms run.",
               "schbench rows are not modeled (worker threads per message thread not published); tbench rows "
               "of 140+ threads are all zeros in the table (the run produced no statistics) and are left out.",
               f"hackbench groups of 28 tasks (14 senders, 14 receivers: 'each group has 28 tasks' in the "
               f"commit message). {group_txt}.",
               "hackbench senders as the program runs them: a write loop over the group's receivers that never "
               "waits for an answer (rt-tests hackbench.c, -l 10000 -s 100 in schedtests); each write resumes "
               "its receiver only when it sleeps on an empty pipe (pipe_write's wake-up rule). " + burst_txt + ".",
               f"Spearman rho (published vs SIS_PROP, modeled rows) also for dom_eff%: {rho['dom_eff_pct']}, "
               f"success_rate%: {rho['success_rate_pct']} (not claimed: published dom_eff% is flat).",
               f"Cause experiment for the high-load depth claim (SimConfig.ablate, one cause off at a time): "
               f"{abl_txt}.",
               f"{sat_txt}.",
               f"Modeled assumptions (rt-app suspend/resume pairs and groups, service times, {SCAN_RQ_NS} ns per runqueue, "
               "no SMT, pairs = 'threads') are in lisa_eas/repro/sis_efficiency.py; none is fitted to the table."),
        provenance={"published": published_provenance(*FILES),
                    "model": f"lisa_eas.simulate (rt-app suspend/resume workloads; era {ERA}; the idle search "
                             "lisa_eas._kernels.sis.select_idle_sibling)",
                    "platform": f"lisa_eas/platforms/{PLATFORM}.json",
                    "parameters": {"rr_run_us": RR_RUN_US, "rr_tail_us": RR_TAIL_US,
                                   "hb_write_us": HB_WRITE_US, "hb_receiver_run_us": HB_RECEIVER_RUN_US,
                                   "hb_tail_us": HB_TAIL_US, "hb_group": HB_GROUP, "hb_model": "pipe",
                                   "sim_s": SIM_S,
                                   "warmup_s": WARMUP_S, "scan_rq_ns": SCAN_RQ_NS, "era": ERA},
                    "cause_experiment": {"sis_prop_off": list(ABLATIONS), "sis_util_off": list(UTIL_ABLATIONS),
                                         "hackbench_model_off": "burst",
                                         "startup_sim_s": STARTUP_SIM_S, "startup_warmup_s": STARTUP_WARMUP_S,
                                         "rows": "loads past half load"},
                    "jobs": len(jobs)},
        series=series)
