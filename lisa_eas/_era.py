"""Kernel versions ("eras") that select which variant of an algorithm a model follows, and the
era ledger: one row per behaviour change the models follow (:data:`ERA_LEDGER`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ModelError

__all__ = ["ERA_LEDGER", "EraChange", "era_ledger", "eras_of", "ledger_row", "parse_kernel_version", "select_era"]

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:[.\-].*)?$")


def parse_kernel_version(version: str | tuple[int, int]) -> tuple[int, int]:
    """``"v5.4"``, ``"5.4.0-rc1"`` or ``(5, 4)`` -> ``(5, 4)``; ``ModelError`` otherwise."""
    if isinstance(version, tuple) and len(version) == 2 and all(isinstance(v, int) for v in version):
        return version
    m = _VERSION_RE.match(str(version).strip())
    if not m:
        raise ModelError(f"kernel era {version!r} is not a kernel version; write it like 'v5.4' or 'v6.9'")
    return int(m.group(1)), int(m.group(2))


def select_era(version: str | tuple[int, int], eras: tuple[tuple[int, int], ...], what: str) -> tuple[int, int]:
    """The newest era in ``eras`` (sorted ascending) not newer than ``version``.

    Raises ``ModelError`` when ``version`` predates the first era, naming ``what``.
    """
    v = parse_kernel_version(version)
    chosen = None
    for era in eras:
        if era <= v:
            chosen = era
    if chosen is None:
        first = "v%d.%d" % eras[0]
        raise ModelError(f"{what} does not exist before {first}; got era {version!r}")
    return chosen


@dataclass(frozen=True)
class EraChange:
    """One behaviour change a model follows: from kernel ``version`` on, ``function`` does ``change``.

    ``key`` (e.g. ``"pelt-v4.13"``) is what the code cites at each era switch. ``commit`` is
    the mainline commit (abbreviated hash and subject); ``source`` says how the row was
    established: ``"read"`` (the kernel source of the versions around it was read side by
    side), ``"audit"`` (from the fidelity audit's reading of the sources), ``"verified"`` (a
    recalled commit whose hash, subject and release were then found in kernel sources or
    commit messages quoted elsewhere, said in ``evidence``) or ``"recalled"`` (the commit is
    recalled, the behaviour checked by the audit's oracle; ``evidence`` says what was found).
    """

    key: str
    area: str
    version: tuple[int, int]
    commit: str
    function: str
    change: str
    source: str = "audit"
    evidence: str = ""

    @property
    def version_name(self) -> str:
        return "v%d.%d" % self.version


#: Every behaviour change the models follow, oldest first within each area. The models'
#: ``*_ERAS`` tuples are derived from it (:func:`eras_of`); each era switch in the code cites a key.
ERA_LEDGER: tuple[EraChange, ...] = (
    # ------------------------------------------------------------------ PELT
    EraChange("pelt-v4.11", "pelt", (4, 11), "(earliest modelled)", "__update_load_avg",
              "old update: finish the current period, decay over periods + 1, add the "
              "runnable_avg_yN_sum / __accumulated_sum_N32 table sum, each part scaled by its own "
              "cap_scale; divider LOAD_AVG_MAX; last_update_time = now (sub-1024-ns remainder dropped)"),
    EraChange("pelt-v4.12", "pelt", (4, 12), "a481db34b9be sched/fair: Optimize ___update_sched_avg()",
              "accumulate_sum", "three-segment accrual (__accumulate_pelt_segments), last_update_time "
              "advanced by whole 1024-ns units; divider still LOAD_AVG_MAX"),
    EraChange("pelt-v4.13", "pelt", (4, 13), "625ed2bf049d sched/cfs: Make util/load_avg more stable",
              "___update_load_avg", "divider LOAD_AVG_MAX - 1024 + period_contrib"),
    EraChange("pelt-v4.15", "pelt", (4, 15), "1ea6c46a23f1 sched/fair: Propagate an effective runnable_load_avg",
              "___update_load_sum", "load/runnable accrue 0/1 and the weight multiplies in the average; "
              "running and runnable forced to 0 when not loaded", "verified",
              evidence="hash and subject in a commit list of the v4.15 PELT rework (with 2a2f5d4e44ed, "
              "144d8487bc6e, 9a2dd585b2c4); the audit read v4.14.5 / v4.15.18 side by side"),
    EraChange("pelt-v5.1", "pelt", (5, 1), "23127296889f sched/fair: Update scale invariance of PELT",
              "update_rq_clock_pelt", "scale invariance moves from the contribution to the rq's PELT clock, "
              "with lost_idle_time when the rq was saturated"),
    EraChange("pelt-v5.7", "pelt", (5, 7), "9f68395333ad sched/pelt: Add a new runnable average signal",
              "___update_load_sum", "runnable_avg (runnable << 10, no weight) replaces runnable_load_avg",
              "verified",
              evidence="quoted as Fixes: 9f68395333ad (sched/pelt: Add a new runnable average signal) on LKML;"
              " [tip: sched/core] mail of 25 Feb 2020 (v5.7 merge window)"),
    EraChange("pelt-v5.13", "pelt", (5, 13), "1c35b07e6d39 sched/fair: Ensure _sum and _avg values stay "
              "consistent", "update_cfs_rq_load_avg, detach_entity_load_avg",
              "a task's util leaving a cfs_rq (removed at wake-up migration / exit, detached when a queued "
              "task moves): util_avg minus the task's, util_sum re-derived as util_avg * divider (before: "
              "sub_positive of util_sum by r * divider, or by the entity's util_sum on detach)", "verified",
              evidence="named by Fixes: 1c35b07e6d39 (sched/fair: Ensure _sum and _avg values stay consistent) "
              "in the v5.17 fix series (LKML, 22 Dec 2021), whose diff shows the v5.16 lines "
              "util_sum = util_avg * divider in both functions; its release (v5.13) is the audit's reading"),
    EraChange("pelt-v5.17", "pelt", (5, 17), "98b0d890220d sched/pelt: Relax the sync of util_sum with util_avg; "
              "7ceb77103001 sched/pelt: Continue to relax the sync of util_sum with util_avg",
              "update_cfs_rq_load_avg, detach_entity_load_avg",
              "sub_positive(util_sum, r * divider) (removed) / (the entity's util_sum) (detached) again, then "
              "util_sum = max(util_sum, util_avg * PELT_MIN_DIVIDER), PELT_MIN_DIVIDER = LOAD_AVG_MAX - 1024",
              "verified",
              evidence="the v2 patch (sched/pelt: Don't sync hardly util_sum with uti_avg, 22 Dec 2021) read: "
              "both hunks; both full hashes with these subjects in a mainline commit list (next to 95246d1ec80b "
              "and 2d02fa8cc21a, the runnable_sum / load_sum patches of the series); the release (v5.17, "
              "tip sched/urgent of Jan 2022) was not re-read in a tagged tree; [tip] mail for "
              "7ceb77103001544a43e11d7f3a8a69a2c1f422cf: CommitterDate 18 Jan 2022 (v5.17-rc1 was 23 Jan 2022), "
              "and 98b0d890220d is in 5.15.y/5.16.y stable queues as a backport"),
    # ------------------------------------------------------------------ util_est
    EraChange("util_est-v4.17", "util_est", (4, 17), "7f65ea42eb00 sched/fair: Add util_est on top of PELT",
              "util_est_dequeue, _task_util_est", "EWMA w = 1/4 at dequeue, skipped within a 1 % margin; "
              "UTIL_AVG_UNCHANGED is the LSB of enqueued and _task_util_est() returns "
              "max(ewma, enqueued) | UTIL_AVG_UNCHANGED (checked in v5.0, v5.4, v5.12), so sums and "
              "task_util_est(p) carry the flag and task_util_est(p) is never 0"),
    EraChange("util_est-v5.1", "util_est", (5, 1), "10a35e6812aa", "util_est_dequeue",
              "no update when the task's util exceeds the CPU capacity", "verified",
              evidence="subject sched/pelt: Skip updating util_est when utilization is higher than CPU's "
              "capacity, quoted by the 2025 commit sched/fair: Allow decaying util_est when util_avg "
              "> CPU capa; listed with 23127296889f (v5.1)"),
    EraChange("util_est-v5.5", "util_est", (5, 5), "b8c96361402a sched/fair/util_est: Implement faster ramp-up "
              "EWMA on utilization increases", "util_est_dequeue", "ewma = enqueued when it increases"),
    EraChange("util_est-v5.13", "util_est", (5, 13), "68d7a190682a, b89997aa88f0 (last_enqueued_diff)",
              "util_est_update, _task_util_est", "flag moves to the MSB and is masked by _task_util_est(); "
              "enqueued stored inside the margin when it moved by >= UTIL_EST_MARGIN (5.12.y has this as a "
              "stable backport)"),
    EraChange("util_est-v6.8", "util_est", (6, 8), "50181c0cff31", "util_est_update",
              "one field (the EWMA), fast-up always, snap inside the margin, skip when the task waited"),
    EraChange("util_est-v6.12", "util_est", (6, 12), "b55945c500c5 sched: Fix pick_next_task_fair() vs "
              "try_to_wake_up() race (v6.12-rc5)", "dequeue_task_fair, util_est_update",
              "util_est_update() runs before dequeue_entities(): the sample is the util_avg/runnable_avg of the "
              "task's previous PELT update, not the one computed at this dequeue (fab4a808ba9f and 152e11f6df29, "
              "v6.12-rc1, still updated after a completed dequeue; measured on 6.18 with the kernel-signals "
              "collector)", "read"),
    # ------------------------------------------------------------------ EAS
    EraChange("eas-v4.16", "eas", (4, 16), "RFC, never merged: [RFC PATCH v2 5/6] sched/fair: Select an "
              "energy-efficient CPU on task wake-up (Quentin Perret, LKML, 6 Apr 2018; series 'Energy Aware "
              "Scheduling' v2, cover letter by Dietmar Eggemann, base tip/sched/core 4.16-rc6 at b720342849fe)",
              "find_energy_efficient_cpu, compute_energy, em_fd_energy",
              "the out-of-tree EAS the RFC posted (eras v4.16 - v4.20 with placement 'eas': 4.16-rc6 + RFC): "
              "prev_cpu costed whenever allowed (no fit test), then per frequency domain the non-prev CPU with "
              "the most spare capacity among those the task fits (capacity_margin 1280); system-wide energies; "
              "prev is left only when the best saves more than prev_energy >> 6 (1.5 %); per-CPU capacity-state "
              "EM (util + util/4 -> lowest capacity state above; power * sum_util / cap), modelled by the v5.0 EM "
              "form (same state and energy up to integer rounding)", "recalled",
              evidence="cover letter read (seeds/003: v1->v2 changes 'Avoid prev_cpu if not allowed', 'Optimize "
              "selection of CPU candidates'); the RFC's energy.c/energy.h (capacity states, find_cap_state with "
              "util += util >> 2) read in qperret/linux (kernel/sched/energy.c at d2172f15df5e, "
              "include/linux/sched/energy.h at 054029ca459c); a later development fair.c in the same tree "
              "(00b51db2421a: root-domain freq domains, prev costed only when it fits, 6 % margin >> 4) read; "
              "the v2 patch text itself (prev always costed, 1.5 % margin >> 6) is recalled, not found in the "
              "code index"),
    EraChange("eas-v5.0", "eas", (5, 0), "732cd75b8c92 sched/fair: Select an energy-efficient CPU on task "
              "wake-up", "find_energy_efficient_cpu, compute_energy", "each candidate costed over every perf "
              "domain; prev wins unless the best saves more than 1/16 of prev's system energy"),
    EraChange("eas-v5.4", "eas", (5, 4), "eb92692b2544 sched/fair: Speed-up energy-aware wake-ups; "
              "4892f51ad54d (prev not re-costed as max-spare)", "find_energy_efficient_cpu",
              "per-domain base energy and deltas (unsigned long: a negative delta wraps and never wins); "
              "margin 1/16 of prev delta + base; the max-spare CPU is costed only when it is not prev"),
    EraChange("eas-v5.14", "eas", (5, 14), "8d4c97c105ca, 619e090c8e40, 0372e1cf70c2",
              "find_energy_efficient_cpu, compute_energy", "base energy only for domains with a candidate; "
              "prev out of the max-spare race; a delta below the base returns prev at once; the "
              "destination's busy time is cpu_util_next(cpu, p, -1) + task_util_est(p)"),
    EraChange("eas-v6.0", "eas", (6, 0), "b812fc9768e0, 3e8c6c9aac42 (energy env)",
              "find_energy_efficient_cpu, eenv_pd_busy_time, eenv_pd_max_util", "no margin; the task's "
              "busy time counted once per domain; the max-spare CPU always costed"),
    EraChange("eas-v6.2", "eas", (6, 2), "ad841e569f5c sched/fair: Check if prev_cpu has highest spare cap in "
              "feec()", "find_energy_efficient_cpu", "the max-spare CPU is costed only when its spare capacity "
              "exceeds prev's (max_spare_cap > prev_spare_cap); with uclamp see uclamp-v6.2", "verified",
              evidence="full hash ad841e569f5c88e3332b32a000f251f33ff32187 in the tip post-receive log of 29 Oct 2022 "
              "(with the util_fits_cpu series, v6.2 cycle); the audit read the condition in v6.2.1, absent in "
              "v6.1-rc7"),
    EraChange("eas-v6.5", "eas", (6, 5), "7d0583cf9ec7 sched/fair, cpufreq: Introduce 'runnable boosting'",
              "eenv_pd_max_util, cpu_util", "the OPP estimate uses cpu_util(cpu, p, dst, 1): util_avg raised to "
              "runnable_avg", "verified",
              evidence="full hash 7d0583cf9ec7bf8e5897dc7d3a7059e8fae5464a with this subject in a mainline "
              "log; quoted as Fixes: by a July 2023 fix; DepSurf: cpu_util_cfs_boost absent in v6.2, "
              "present in v6.5"),
    # ------------------------------------------------------------------ Energy Model
    EraChange("em-v5.0", "em", (5, 0), "27871f7a8a34 PM: Introduce an Energy Model management framework",
              "em_pd_energy", "cost = fmax * power / freq (mW); freq = 1.25 fmax max_util / scale_cpu"),
    EraChange("em-v5.14", "em", (5, 14), "(map_util_perf)", "em_cpu_energy",
              "max_util = min(map_util_perf(max_util), allowed_cpu_cap)"),
    EraChange("em-v5.15", "em", (5, 15), "7fcc17d0cb12 PM: EM: Increase energy calculation precision",
              "em_create_perf_table", "power x1000 (em_scale_power) before cost (stable trees carry it as a "
              "backport)", "verified", evidence="[ Upstream commit 7fcc17d0cb12938d2b3507973a6f93fc9ed2c7a1 ] in "
              "the stable queue; merged from the pm bleeding-edge branch in Aug 2021 (v5.15 merge window)"),
    EraChange("em-v5.16", "em", (5, 16), "(EM_PERF_DOMAIN_SKIP_INEFFICIENCIES)", "em_compute_costs, "
              "em_cpu_energy", "inefficient states flagged and skipped (on by default as soon as cpufreq "
              "accepts an inefficient frequency)"),
    EraChange("em-v6.0", "em", (6, 0), "ae6ccaa65038 PM: EM: convert power field to micro-Watts precision",
              "_get_power", "power in integer uW, no x1000 scaling (v5.19 is still mW x1000)"),
    EraChange("em-v6.8", "em", (6, 8), "9c0b4bb7f630 sched/cpufreq: Rework schedutil governor performance "
              "estimation", "em_cpu_energy", "no headroom in the EM; max_util = min(max_util, allowed_cpu_cap)"),
    EraChange("em-v6.9", "em", (6, 9), "(EM performance field)", "em_cpu_energy",
              "performance = scale_cpu freq / fmax; cost = 10 power / performance; E = cost * sum_util"),
    # ------------------------------------------------------------------ select_idle_sibling
    EraChange("sis-v4.9", "sis", (4, 9), "10e2f1acd010 sched/core: Rewrite and improve select_idle_siblings(); "
              "1ad3aaf3fcd2 sched/core: Implement new approach to scale select_idle_cpu()", "select_idle_cpu",
              "scan of the LLC span from target with if (!--nr) before the affinity test: depth is spent on "
              "CPUs the task may not use (v4.0 - v4.8 looked for a wholly idle sched group instead: not "
              "modelled, the models refuse those eras); SIS_PROP's depth nr (1ad3aaf3fcd2) is a v4.13 commit: "
              "v4.9 - v4.12 have no depth limit, give nr >= the LLC size for those eras (the models do not "
              "enforce it)", "recalled",
              evidence="10e2f1acd010 quoted as introduced in v4.9-rc1 (a write-up of df3cb4ea1fb6); "
              "1ad3aaf3fcd2444406628a19a9b9e0922b95e2d4 (sched/core: Implement new approach to scale "
              "select_idle_cpu()) is authored 2017-05-17 (git blame quoted in an LKML report) and listed as "
              "merged in 4.13-rc1, so the row's second commit is not v4.9 (corrected in the text above); "
              "the v4.8 code was not re-read"),
    EraChange("sis-v5.6", "sis", (5, 6), "60588bfa223f sched/fair: Optimize select_idle_cpu", "select_idle_cpu",
              "the scan walks LLC & p->cpus_ptr, so depth is spent only on allowed CPUs", "verified",
              evidence="tip commit sched/fair: Optimize select_idle_cpu, CommitterDate 17 Dec 2019 (v5.6 merge"
              " window); stable backports say commit 60588bfa223f upstream"),
    EraChange("sis-v5.7", "sis", (5, 7), "b7a331615d25", "select_idle_capacity",
              "asymmetric-capacity systems scan all CPUs by capacity: the first idle CPU where "
              "task_fits_capacity (fits_capacity(uclamp_task_util(p), capacity_of), uclamp-aware since "
              "a7008c07a568 in v5.6), else the idle CPU of highest capacity_of"),
    EraChange("sis-v5.10", "sis", (5, 10), "b4c9c9f15649", "select_idle_sibling",
              "asym: target, prev, recent_used_cpu first when idle and the task fits them "
              "(asym_fits_capacity: fits_capacity(uclamp_task_util(p), capacity_of))"),
    EraChange("sis-v5.12", "sis", (5, 12), "9fe1f127b913 sched/fair: Merge select_idle_core/cpu()",
              "select_idle_cpu", "idle cores searched in the same loop as idle CPUs (no SIS_PROP limit while "
              "an idle core is flagged; the first idle CPU seen is returned when no core is idle); the loop "
              "starts at target; select_idle_smt() removed"),
    EraChange("sis-v5.13", "sis", (5, 13), "c722f35b513f sched/fair: Bring back select_idle_smt(), but "
              "differently", "select_idle_sibling", "when no idle core is flagged, prev's idle SMT sibling is "
              "taken before the LLC scan (5.12.y carries it as a stable backport)", "verified",
              evidence="the 5.12 stable queue (PATCH 5.12 238/384, 10 May 2021) carries it as Upstream commit "
              "c722f35b513f; an LKML review of 7 Apr 2021 shows the v5.12 base without select_idle_smt()"),
    EraChange("sis-v5.14", "sis", (5, 14), "94aafc3ee31d sched/fair: Age the average idle time", "select_idle_cpu, "
              "ttwu_do_wakeup", "SIS_PROP depth from this_rq()->wake_avg_idle, no /512: set to avg_idle / 2 when an "
              "idle rq is woken (sched_init: = avg_idle), halved per jiffy since wake_stamp before each scan, "
              "reduced by each accounted scan's time", "verified",
              evidence="tip-bot2 mail [tip: sched/core] sched/fair: Age the average idle time, Commit-ID "
              "94aafc3ee31dc199d1078ffac9edd976b7f47b3d, CommitterDate 17 Jun 2021 (v5.14 merge window): the "
              "core.c, fair.c and sched.h hunks read"),
    EraChange("sis-v5.15", "sis", (5, 15), "56498cfb045d; 89aafd67f28c (recent_used_cpu = prev)",
              "select_idle_cpu", "the LLC scan starts at target + 1"),
    EraChange("sis-v6.0", "sis", (6, 0), "70fb5ccf2ebb sched/fair: Introduce SIS_UTIL", "update_idle_cpu_scan",
              "SIS_UTIL depth from the LLC's utilization"),
    EraChange("sis-v6.2", "sis", (6, 2), "a2e7f03ed28f sched/uclamp: Make asym_fits_capacity() use "
              "util_fits_cpu(); b759caa1d9f6 sched/uclamp: Make select_idle_capacity() use util_fits_cpu()",
              "select_idle_capacity, asym_fits_cpu",
              "asym: the task fits a CPU when util_fits_cpu(task_util_est(p), p uclamp_min, p uclamp_max, cpu): "
              "the unclamped util against capacity_of, forced to fit by a uclamp_max <= capacity_orig, a boost "
              "above capacity_orig - thermal pressure does not fit (see uclamp-v6.2)", "read",
              evidence="select_idle_capacity, asym_fits_cpu and select_idle_sibling read in a 6.2.1 tree "
              "(daniellucs2002/linux-6.2.1-customized, kernel/sched/fair.c) and the v5.10 - v6.1 form "
              "(uclamp_task_util + fits_capacity) in the b4c9c9f15649 patch; both hashes in the tip log of "
              "29 Oct 2022 with 48d5e9daa8b7 (v6.2 cycle). 5.10.y - 6.1.y stable later took the series"),
    EraChange("sis-v6.3", "sis", (6, 3), "e5ed0550c04c sched/fair: unlink misfit task from cpu overutilized; "
              "8589018acc65 sched/core: Adjusting the order of scanning CPU",
              "select_idle_capacity, asym_fits_cpu",
              "asym: select_idle_capacity scans from target + 1; an idle CPU where util_fits_cpu is -1 (only the "
              "boost misses) ranks before one where it is 0, the -1 ones by capacity_orig - thermal_load_avg; "
              "asym_fits_cpu (target, prev, recent_used_cpu) needs util_fits_cpu > 0", "read",
              evidence="select_idle_capacity (best_fits starting at 0, for_each_cpu_wrap from target + 1) and "
              "asym_fits_cpu read in a linux-6.3 tree (bqqmf/linux-6.3, kernel/sched/fair.c); the 6.2.1 tree "
              "still scans from target; Hao Jia's sched/core: Adjusting the order of scanning CPU and Vincent "
              "Guittot's unlink misfit task from cpu overutilized are in the [GIT PULL] scheduler changes for "
              "v6.3 (20 Feb 2023); 8589018acc65 with its subject in a tip commit list"),
    EraChange("sis-v6.7", "sis", (6, 7), "984ffb6a4366", "select_idle_cpu", "SIS_PROP removed"),
    # ------------------------------------------------------------------ wake-up path (issue 18)
    EraChange("wakeup-v4.14", "wakeup", (4, 14), "(earliest modelled)", "wake_affine, wake_affine_idle, "
              "wake_affine_weight", "when this_cpu != prev_cpu and want_affine: WA_IDLE (an idle this_cpu sharing "
              "the LLC -> prev if idle else this_cpu; sync and this_cpu runs only the waker -> this_cpu), then "
              "WA_WEIGHT with WA_BIAS: this_cpu when (this_load [- waker's load when sync] + task_load) * 100 * "
              "capacity_of(prev) < (prev_load - task_load) * (100 + (imbalance_pct - 100) / 2) * "
              "capacity_of(this) [+ 1 when sync], loads = the cfs_rq's runnable_load_avg (target_load / "
              "source_load at wake_idx 0, cpu_runnable_load() from v5.3)", "recalled",
              evidence="the two functions quoted in LKML threads on v5.9 / v5.10 (Julia Lawall, Oct 2020) and a "
              "v4.19 write-up; the v4.13 form (effective_load()) was not re-read, the models refuse earlier eras"),
    EraChange("wakeup-v4.16", "wakeup", (4, 16), "32e839dda3ba sched/fair: Use a recently used CPU as an idle "
              "candidate and the basis for SIS", "select_idle_sibling, select_task_rq_fair, wake_up_new_task",
              "p->recent_used_cpu (= the parent's CPU at fork) is a fast-path candidate after target and prev; "
              "it becomes prev when it wins; after the fast path the waker's current->recent_used_cpu = this_cpu "
              "when want_affine", "recalled",
              evidence="the recent_used_cpu block and the per-CPU kthread / 89aafd67f28c discussions quote this "
              "form; the hash is recalled, not found in a commit list"),
    EraChange("wakeup-v5.5", "wakeup", (5, 5), "11f10e5420f6 sched/fair: Use load instead of runnable load in "
              "wakeup path", "wake_affine_weight", "the loads compared are cpu_load() (the cfs_rq's load_avg, "
              "blocked load included) instead of the runnable load", "verified",
              evidence="full hash 11f10e5420f6cecac7d4823638bff040c257aba9 quoted with this subject (Vincent "
              "Guittot, 18 Oct 2019) in d8fcb81f1acf's Fixes tag; part of the load_balance rework series queued "
              "for v5.5 (a write-up of d8fcb81f1acf: buggy since v5.5-rc1)"),
    EraChange("wakeup-v5.7", "wakeup", (5, 7), "d76343c6b2b7 sched/fair: Align rq->avg_idle and rq->avg_scan_cost",
              "update_avg (ttwu_do_wakeup)", "rq->avg_idle's update_avg() adds (sample - avg) / 8 as a signed "
              "division (truncation) instead of an arithmetic >> 3", "verified",
              evidence="tip-bot2 mail [tip: sched/urgent], Commit-ID d76343c6b2b79f5e89c392bc9ce9dabc4c9e90cb, "
              "CommitterDate 8 Apr 2020, listed in the sched/urgent pull of the v5.7 merge window; hunks read"),
    EraChange("wakeup-v5.11", "wakeup", (5, 11), "d8fcb81f1acf sched/fair: Check for idle core in wake_affine",
              "wake_affine_idle", "an idle prev_cpu is returned before WA_WEIGHT is tried", "verified",
              evidence="full hash d8fcb81f1acf651a0e50eacecca43d0524984f87 in tip sched/core (tip-bot2 mail, Oct "
              "2020) and in the v5.11 sched pull's shortlog (Julia Lawall (1)); the hunk read in the posted patch"),
    EraChange("wakeup-v5.15", "wakeup", (5, 15), "89aafd67f28c sched/fair: Use prev instead of new target as "
              "recent_used_cpu", "select_idle_sibling, select_task_rq_fair", "p->recent_used_cpu = prev whenever "
              "the target and prev checks fail (before the recent check); the waker's recent_used_cpu is no longer "
              "set (the affinity test reads the already-overwritten p->recent_used_cpu until ae2ad293d6be, v6.5: "
              "not modelled, the recent CPU's own affinity is tested)", "verified",
              evidence="full hash 89aafd67f28c9e3b725aa30b44b7f61ad3e348ce in the tip sched/core push of 5 Aug "
              "2021 (with 56498cfb045d); quoted by a7ba894821b6 (p->recent_used_cpu is unconditionally set with "
              "prev) and ae2ad293d6be (buggy since v5.15-rc1)"),
    # ------------------------------------------------------------------ fork placement (issue 18)
    EraChange("fork-v4.14", "fork", (4, 14), "(earliest modelled)", "find_idlest_cpu, find_idlest_group, "
              "find_idlest_group_cpu, post_init_entity_util_avg", "a clone is balanced from the top domain with "
              "SD_BALANCE_FORK down: the idlest non-local group is the first whose runnable load (source_load / "
              "target_load at forkexec_idx 0, scaled by the group's capacity) is below the best by more than "
              "imbalance = 1024 * (imbalance_pct - 100) / 100, or within it with a load_avg lower by "
              "100 + (imbalance_pct - 100) / 2; the spare-capacity choice is skipped at fork; the local group is "
              "kept when the idlest's runnable load exceeds it by imbalance, or is within imbalance with a local "
              "load_avg lower by that scale; in the group, the idle CPU of the shallowest state (ties: latest "
              "rq->idle_stamp), else the least runnable load; the new task's util_avg is then (cpu_scale - cfs "
              "util) / 2 capped extrapolation, load_avg its weight", "read",
              evidence="find_idlest_group / find_idlest_group_cpu / find_idlest_cpu and post_init_entity_util_avg "
              "read in a v4.19 tree (0x88888888/Linux-4.19 at 57a18e1bebe8, kernel/sched/fair.c; its Makefile is "
              "not stored); the same function body is quoted in LKML and CVE corpora; the earlier history "
              "(6a0b19c0f39a spare capacity, 6b94780e45c1 load_avg as second factor, both v4.10/v4.11) is not "
              "modelled: the models refuse eras before v4.11"),
    EraChange("fork-v5.5", "fork", (5, 5), "57abff067a08 sched/fair: Rework find_idlest_group()", "find_idlest_group, "
              "update_sg_wakeup_stats, update_pick_idlest", "groups are classified (has_spare / fully_busy / "
              "overloaded, misfit when the task does not fit, at fork its util is 0); the idlest non-local group has "
              "the lowest type, then the most idle CPUs (has_spare) or the lowest avg_load; the local group is kept "
              "when its type is lower, or equal with at least as many idle CPUs (has_spare) or an avg_load within "
              "imbalance / imbalance_pct; a CPU holding only blocked tasks counts as idle", "read",
              evidence="the v5.5 form read in the stored torvalds/linux kernel/sched/fair.c at 000619680c37 (a "
              "v5.5/v5.6 state: rq->wake_list, sd_flag argument), the v4.x form in the v4.19 tree above; the "
              "hash and subject are recalled (Vincent Guittot's load_balance rework, queued for v5.5 with "
              "11f10e5420f6), not found in a commit list"),
    EraChange("wake_cap-v4.10", "wake_cap", (4, 10), "3273163c6775 sched/fair: Let asymmetric CPU configurations "
              "balance at wake-up", "wake_cap, select_task_rq_fair", "on a platform whose capacities differ by "
              "max_cpu_capacity / 8 or more, want_affine is cleared when the task does not fit min(capacity_orig of "
              "prev, of the waking CPU) with the 20 % margin (min_cap * 1024 < task_util(p) * 1280 after "
              "sync_entity_load_avg); without SD_BALANCE_WAKE on any domain (mainline arm64 sets no "
              "SD_ASYM_CPUCAPACITY before v4.20) the domain walk stops at once and select_idle_sibling runs on "
              "prev's LLC with target prev (the simulator's form at v4.14 - v4.15 and under the ablation "
              "'wake-slow-path')", "verified",
              evidence="hash and subject quoted in b7a331615d25's commit message (tip-bot mail, Feb 2020); the "
              "function read in a v4.19 tree (0x88888888/Linux-4.19 at 57a18e1bebe8); the release is reasoned: the "
              "series' last posting (Oct 2016) came after the v4.9 merge window, so v4.10"),
    EraChange("wake_cap-v4.16", "wake_cap", (4, 16), "the EAS RFC v2's base kernel (4.16-rc6 with the "
              "SD_ASYM_CPUCAPACITY flag set at DIE for arm64, cover letter); mainline: 05484e098448 "
              "sched/topology: Add SD_ASYM_CPUCAPACITY flag detection (v4.20)",
              "sd_init, select_task_rq_fair, find_idlest_cpu, find_idlest_group, find_idlest_group_cpu",
              "sd_init sets SD_BALANCE_WAKE on the SD_ASYM_CPUCAPACITY domain (DIE) and every domain below it, so "
              "a wake-up without want_affine walks to DIE and takes the slow path find_idlest_cpu(DIE, p, "
              "this_cpu, prev, SD_BALANCE_WAKE): the fork-v4.14 form with, at a wake-up, the spare-capacity rule "
              "first (capacity_of - cpu_util_wake, the task's util off prev; the local group kept when its spare "
              "exceeds task_util / 2 and beats the most-spare group by 100 + (pct - 100) / 2, else the most-spare "
              "group when its spare exceeds task_util / 2), then runnable load; from v5.5 the fork-v5.5 form "
              "with the DIE groups the task does not fit classified misfit (highest max_capacity preferred), "
              "loads and utils without the task. Eras v4.16 - v4.19 stand for the RFC's base kernel (as eas-v4.16 "
              "does); wake_cap's util is task_util(p) up to v4.19 and task_util_est(p) from v4.20 "
              "(task_fits_capacity, the misfit series; hash not looked up). With EAS (eas-v4.16, eas-v5.0) the "
              "energy-aware wake-up runs first and the slow path only when it does not place the task "
              "(overutilized)", "read",
              evidence="sd_init (for_each_lower_domain(t) t->flags |= SD_BALANCE_WAKE), default_topology without "
              "SD_ASYM_CPUCAPACITY and no flag detection read in the v4.19 tree's kernel/sched/topology.c; "
              "select_task_rq_fair / wake_cap / find_idlest_* in its fair.c; 05484e098448's subject in the Fixes: "
              "tags of two cpuset fixes (LKML, Oct 2019); the base kernel's flag in seeds/003 (cover letter)"),
    EraChange("wake_cap-v5.7", "wake_cap", (5, 7), "000619680c37 sched/fair: Remove wake_cap(); sched/topology: "
              "Remove SD_BALANCE_WAKE on asymmetric capacity systems (hash not looked up)", "select_task_rq_fair",
              "wake_cap() and SD_BALANCE_WAKE on asymmetric domains are gone: want_affine no longer depends on "
              "the task's fit and the wake-up takes select_idle_sibling, whose asymmetric form "
              "select_idle_capacity (sis-v5.7) searches by capacity; the slow path is reached only at fork/exec",
              "verified", evidence="subject in the tip-bot mail of 20 Feb 2020 and the v5.7 sched pull's "
              "shortlog (with b7a331615d25 and the SD_BALANCE_WAKE removal); the hash in a kernel.org commit link "
              "and as the base of a later posting ('tip/sched/core at commit 000619680c37 (\"sched/fair: Remove "
              "wake_cap()\")'); an earlier tip id of the same commit, 25ac227a25ac, was rebased away"),
    EraChange("newidle-v4.14", "newidle", (4, 14), "(earliest modelled)", "idle_balance (newidle_balance "
              "from v5.5), add_nr_running, update_sd_lb_stats",
              "a CPU going idle balances only if this_rq->avg_idle >= sysctl_sched_migration_cost (500 us) and "
              "rd->overload is set; add_nr_running sets rd->overload when a runqueue reaches 2 tasks, the "
              "root-level load balance rewrites it (a CPU with nr_running > 1)", "read",
              evidence="newidle_balance of a v5.15.202 tree (Makefile VERSION 5 PATCHLEVEL 15; "
              "4cko/caf_msm-5.15, kernel/sched/fair.c): 'avg_idle < sysctl_sched_migration_cost || "
              "!READ_ONCE(rd->overload)'; add_nr_running's 'prev_nr < 2 && nr_running >= 2' in kernel/sched/sched.h "
              "excerpts; the same test in idle_balance as quoted from v4.14.14's kernel/sched/fair.c (elixir) "
              "and in v4.19 trees"),
    EraChange("lb-v4.16", "lb", (4, 16), "(earliest modelled)", "load_balance, find_busiest_group, "
              "update_sd_lb_stats, update_sg_lb_stats, calculate_imbalance, fix_small_imbalance, find_busiest_queue, "
              "detach_tasks, can_migrate_task, task_hot, need_active_balance, should_we_balance",
              "the CFS balance of a newly idle CPU, of each busy CPU at its tick (CPU_NOT_IDLE) and of each idle "
              "CPU when a busy CPU's tick kicks the nohz idle balance (nohz_balancer_kick: two tasks on it, or "
              "more than one busy CPU in its LLC), periodic ones per domain once last_balance + balance_interval "
              "(sd_weight ms, reset after a move, doubled up to twice that, x32 on a busy CPU) has passed, is "
              "load_balance() at MC (groups: CPUs, imbalance_pct 117) "
              "then DIE (groups: LLCs, 125, prefer_sibling; SD_ASYM_CPUCAPACITY on an asymmetric board, the RFC "
              "base kernel's flag): group load = runnable_load_avg, a remote group two tasks above the local one "
              "counts as overloaded, an idle CPU with capacity forces the balance, imbalance in unsigned "
              "arithmetic, detach from the tail of cfs_tasks (running, pinned, cache-hot < 500 us and tasks "
              "above twice the imbalance skipped; one task when newly idle, CONFIG_PREEMPT), active balance after "
              "cache_nice_tries + 2 failures. v4.20 changed it (misfit group type, LB_BIAS off, SD_PREFER_SIBLING "
              "dropped under the asymmetric domain): eras from v4.20 keep the simplified pull", "read",
              evidence="kernel/sched/fair.c of a v4.19 tree (0x88888888/Linux-4.19: task_hot .. load_balance, "
              "get_sd_balance_interval, rebalance_domains, nohz_balancer_kick, kick_ilb, _nohz_idle_balance, "
              "idle_balance, trigger_load_balance, "
              "update_sg_lb_stats without misfit) and sd_init of v4.19 kernel/sched/topology.c (SD_PREFER_SIBLING "
              "on MC and DIE, imbalance_pct 117 / 125, cache_nice_tries 1); the tail-first scan and the "
              "move-to-head at pick (93824900a2e2, hash not looked up) not checked for v4.14 / v4.15, which keep "
              "the simplified pull"),
    EraChange("topology-v5.10", "topology", (5, 10), "2208cdaa56c9 sched/fair: Reduce minimal imbalance threshold",
              "sd_init", "the imbalance_pct of every domain but SMT is 117 (it was 125 above the LLC, 117 only for "
              "MC): wake_affine_weight() between CPUs of two LLCs biases prev by 100 + 17 / 2 = 108 instead of 112, "
              "find_idlest_group() at DIE (the fork balance) allows 1024 * 17 / 100 = 174 of runnable load instead "
              "of 256 and compares load_avg with 108 instead of 112", "verified",
              evidence="the tip-bot mail of 29 Sep 2020 ('[tip: sched/core] sched/fair: Reduce minimal imbalance "
              "threshold', Commit-ID 2208cdaa56c9..., merged for v5.10) and the posting (14 Sep 2020: 'The 25% "
              "default imbalance threshold for DIE and NUMA domain ...', kernel/sched/topology.c); sd_init of a "
              "v5.18.12 tree (esuoyanyu/kernel-5.18) sets 117 for every non-SMT level"),
    EraChange("lb-v4.20", "lb", (4, 20), "3b1baa6496e6 sched/fair: Add 'group_misfit_task' load-balance type",
              "update_sg_lb_stats, update_misfit_status, need_active_balance",
              "on an asymmetric-capacity platform a running task that does not fit its CPU (misfit_task_load) "
              "makes its group group_misfit_task and is pulled by a bigger CPU (active balance); before v4.20 no "
              "path moves a lone running task up but the failed-balance active balance and the RT-pressure "
              "clause. The simulator's simplified pull moves such a task to an idle bigger CPU from v4.20 only",
              "verified", evidence="the hash and subject as the 'Fixes:' of 0ae78eec8aa6 (v5.12, Qais Yousef) "
              "and of a 2021 util_est cast fix; listed among the commits v4.19.132 lacks ('Failed to apply! "
              "Possible dependencies: ... 3b1baa6496e6b') in a stable backport report; the v4.19 fair.c read "
              "for lb-v4.16 has no misfit group type"),
    EraChange("newidle-v4.20", "newidle", (4, 20), "757ffdd705ee sched/fair: Set rq->rd->overload when misfit",
              "update_sg_lb_stats, update_sd_lb_stats",
              "on an asymmetric-capacity platform a misfit task (rq->misfit_task_load) also sets rd->overload at "
              "the root-level balance, so a CPU going idle may pull while no runqueue has 2 tasks", "recalled",
              evidence="hash 757ffdd705ee9 and subject listed with cad68e552e777 'sched/fair: Consider misfit "
              "tasks when load-balancing' (the v4.20 misfit series) in a quoted commit list; "
              "'*sg_status |= SG_OVERLOAD' under the SD_ASYM_CPUCAPACITY misfit test read in later fair.c excerpts; "
              "release v4.20 recalled"),
    EraChange("newidle-v5.16", "newidle", (5, 16), "c5b0a7eefc70 sched/fair: Remove sysctl_sched_migration_cost "
              "condition", "newidle_balance (sched_balance_newidle from v6.10)",
              "the early exit is '!rd->overload || (sd && avg_idle < sd->max_newidle_lb_cost)': a CPU whose "
              "avg_idle is under 500 us balances when the root domain is overloaded (the simulator charges no "
              "balancing time: max_newidle_lb_cost = 0); rd->overload renamed overloaded in v6.9 with the same test",
              "verified",
              evidence="full hash c5b0a7eefc70150caf23e37bc9d639c68c87a097 with this subject in quoted shortlogs "
              "(with 8ea9183db4ad 'Cleanup newidle_balance') and in regression reports naming it mainline 5.16; "
              "old form read in a v5.15.202 tree, new form in newidle_balance of a v6.1.113 tree (Makefile VERSION 6 "
              "PATCHLEVEL 1; 0ctobot/neutrino_kernel_google_zumapro)"),
    # ------------------------------------------------------------------ schedutil
    EraChange("schedutil-v5.0", "schedutil", (5, 0), "(earliest modelled)", "get_next_freq",
              "map_util_freq: (fmax + fmax/4) util / max; RELATION_L; on a busy hold cached_raw_freq = 0"),
    EraChange("schedutil-v5.11", "schedutil", (5, 11), "0070ea296239 cpufreq: schedutil: restore cached freq "
              "when next_f is not changed", "sugov_update_single", "on a busy hold cached_raw_freq is "
              "restored to its previous value (5.10.y carries it as a stable backport)", "verified",
              evidence="full hash 0070ea29623904224c0f5fa279a16a4ac9223295 with subject cpufreq: schedutil: "
              "restore cached freq when next_f is not changed in mainline logs; the release (v5.11) "
              "is the audit's reading (5.10.7 has it as a backport)"),
    EraChange("schedutil-v5.14", "schedutil", (5, 14), "(map_util_perf)", "get_next_freq",
              "util += util/4; freq = fmax util / max"),
    EraChange("schedutil-v5.16", "schedutil", (5, 16), "1f39fa0dccff cpufreq: Introducing CPUFREQ_RELATION_E",
              "cpufreq_driver_resolve_freq", "RELATION_LE: inefficient OPPs skipped; the efficient OPP may "
              "lie above policy->max"),
    EraChange("schedutil-v6.5", "schedutil", (6, 5), "7d0583cf9ec7 sched/fair, cpufreq: Introduce 'runnable "
              "boosting'", "sugov_get_util, cpu_util_cfs_boost", "the CPU's CFS util is max(util_avg, runnable_avg, "
              "util_est)", "verified",
              evidence="as eas-v6.5 (same commit)"),
    EraChange("schedutil-v6.8", "schedutil", (6, 8), "9c0b4bb7f630", "sugov_effective_cpu_perf",
              "headroom applied with the uclamp/DL/IRQ floor, clamped to the CPU capacity"),
    EraChange("schedutil-v6.9", "schedutil", (6, 9), "(cpufreq_is_in_limits)", "cpufreq_table_find_index_l",
              "an efficient OPP outside [policy->min, policy->max] is dropped: the search is redone "
              "without efficiencies"),
    # ------------------------------------------------------------------ governor rate limit from the driver
    EraChange("cpufreq_delay-v4.7", "cpufreq_delay", (4, 7), "9bdcb44e391d cpufreq: schedutil: New governor based on "
              "scheduler utilization data", "sugov_init", "rate_limit_us = LATENCY_MULTIPLIER (1000) x the driver's "
              "transition_latency in us, 1000 when the driver sets no latency", "recalled",
              evidence="the v4.5 dbs form of the same rule read (cpufreq_governor_init: sampling_rate = "
              "max(min_sampling_rate, latency * LATENCY_MULTIPLIER)); the schedutil code itself not re-read"),
    EraChange("cpufreq_delay-v4.14", "cpufreq_delay", (4, 14), "e948bc8fbee0 cpufreq: Cap the default transition "
              "delay value to 10 ms", "cpufreq_policy_transition_delay_us",
              "the driver's transition_delay_us if set, else min(1000 x latency_us, 10000), 1000 without a latency",
              "verified",
              evidence="the pre-image 'return min(latency * LATENCY_MULTIPLIER, (unsigned int)10000)' quoted by the "
              "e13aa799c2a6 patch (linux-pm, Dec 2023 / Feb 2024); DepSurf lists the function absent in 4.13, "
              "present in 4.15"),
    EraChange("cpufreq_delay-v6.9", "cpufreq_delay", (6, 9), "e13aa799c2a6 cpufreq: Change default transition "
              "delay to 2ms; a755d0e2d41b cpufreq: Honour transition_latency over transition_delay_us",
              "cpufreq_policy_transition_delay_us", "cap 2000 us; a latency above 2000 us is used as is",
              "recalled",
              evidence="both patches read on linux-pm (Feb 2024, applied for the next merge window); a 2025 "
              "report quotes 10000 us on 6.6; the v6.9 tag not re-read"),
    EraChange("cpufreq_delay-v6.12", "cpufreq_delay", (6, 12), "37c6dccd6837 cpufreq: Remove LATENCY_MULTIPLIER",
              "cpufreq_policy_transition_delay_us", "latency_us + latency_us / 2 (no multiplier, no cap), "
              "1000 without a latency", "recalled",
              evidence="the patch read (linux-pm, Jul 2024); listed in the pm pull with 'x86/sched: Add basic "
              "support for CPU capacity scaling'; a 2025 report says the rule changed 'on 6.12'"),
    # ------------------------------------------------------------------ ondemand
    EraChange("ondemand-v4.14", "ondemand", (4, 14), "(earliest modelled)", "od_update, dbs_update",
              "freq_next = min + load (max - min) / 100, RELATION_C; a CPU's previous load is reused once "
              "(then cleared) when the time elapsed since its last sample exceeds 2 x sampling_rate x rate_mult "
              "(18b46abd0009 cpufreq: governor: Be friendly towards latency-sensitive bursty workloads, v3.17): "
              "a late sample of a CPU kept busy, e.g. by an RT task starving the sample's kworker, takes that "
              "load instead of the window's", "recalled",
              evidence="v4.5 (torvalds/linux stored tree: dbs_check_cpu, gov_add_timers) tests "
              "'wall_time > (2 * sampling_rate) && j_cdbs->prev_load', skipping a CPU whose wall_time is 0 or "
              "below its idle_time; v4.9.227 and v4.14 (models.md: 'v4.14.0 tested the elapsed time') "
              "dbs_update test 'time_elapsed > 2 * sampling_rate' after 9485e4ca0b48 (cpufreq: governor: Fix "
              "handling of special cases in dbs_update(), v4.6/v4.7: time_elapsed 0 -> prev_load, negative "
              "idle_time -> load 100; neither reachable with exact idle accounting, not modelled); the hash and "
              "release of 18b46abd0009 are recalled (not re-read)"),
    EraChange("ondemand-v4.18", "ondemand", (4, 18), "7592019634f8 cpufreq: governors: Fix long idle detection "
              "logic in load calculation", "dbs_update",
              "the long-idle test compares the CPU's idle time in the window ((int)idle_time > 2 x sampling_rate "
              "x rate_mult), not the time elapsed: a late sample of a busy CPU computes its load (100 % when "
              "never idle)", "recalled",
              evidence="the hash, subject and 'introduced a comparison between idle_time and sampling_rate to "
              "detect a long idle interval' read in the Fixes: text of 3698dd6b139d (cpufreq: governor: Fix "
              "negative idle_time handling in dbs_update(), Jie Zhan, linux-pm Feb 2025; 6.14-stable review of "
              "8 Apr 2025, so v6.15), whose pre-image is '(int)idle_time > 2 * sampling_rate'; an Android "
              "msm-4.14 tree carries the idle-time form (a stable backport), v4.9.227 does not; the release "
              "(v4.18, June 2018) is recalled, not read in a tagged tree. 3698dd6b139d (v6.15) clamps a "
              "negative idle_time to 0 and drops the 'load = (int)idle_time < 0 ? 100 : 0' case: no change "
              "with exact idle accounting, not a row"),
    EraChange("ondemand-v5.16", "ondemand", (5, 16), "1f39fa0dccff cpufreq: Introducing CPUFREQ_RELATION_E",
              "od_update", "RELATION_CE: the closest efficient OPP"),
    # ------------------------------------------------------------------ optional decision inputs (issue 17)
    EraChange("uclamp-v5.3", "uclamp", (5, 3), "9d20ad7dfc9a sched/uclamp: Add uclamp_util_with(); 1a00d999971c "
              "sched/uclamp: Set default clamps for RT tasks; af24bde8df20 sched/uclamp: Add uclamp support to "
              "energy_compute()", "schedutil_cpu_util, uclamp_rq_util_with, compute_energy",
              "FREQUENCY_UTIL clamps CFS + RT into the rq's [max of its tasks' uclamp_min, max of their "
              "uclamp_max]; an RT task's uclamp_min defaults to 1024, so a runnable RT task still asks for "
              "the maximum unless clamped; an rq left idle keeps uclamp_min 0 and its last task's uclamp_max "
              "(uclamp_idle_value, e496187da710); EAS's energy estimate (compute_energy, the v5.0 system-wide "
              "form included) takes the OPP from FREQUENCY_UTIL instead of ENERGY_UTIL, clamped by "
              "uclamp_util_with(rq, util, cpu == dst_cpu ? p : NULL): the rq's clamps, the waking task's "
              "max-aggregated on the destination; the candidates' fit stays unclamped until v5.6", "read",
              evidence="af24bde8df20 read in its [tip] mail (Commit-ID af24bde8df2029f067dc46aff0393c8f18ff6e2f, "
              "CommitDate 24 Jun 2019: the v5.3 merge window): schedutil_freq_util -> schedutil_cpu_util(..., p) "
              "with uclamp_util_with(rq, util, p) for FREQUENCY_UTIL, compute_energy's loop from "
              "schedutil_energy_util (max and sum) to ENERGY_UTIL for the sum and FREQUENCY_UTIL with tsk = "
              "cpu == dst_cpu ? p : NULL for the max; the same lines are the pre-image of eb92692b2544 (tip, 13 Sep "
              "2019, on 5.3). Subjects Set default clamps for RT tasks, Add clamps for FAIR and RT tasks, Add "
              "uclamp_util_with() in the same pull (patch set v10, June 2019); write-ups give 1a00d999971c, "
              "9d20ad7dfc9a and e496187da710 (Enforce last task's UCLAMP_MAX: the idle rq's kept max) as "
              "introduced in v5.3-rc1"),
    EraChange("uclamp-v5.14", "uclamp", (5, 14), "3e1493f46390 sched/uclamp: Ignore max aggregation if rq is idle",
              "uclamp_rq_util_with", "with the waking task given, an idle rq (UCLAMP_FLAG_IDLE) contributes "
              "nothing: the task's own [uclamp_min, uclamp_max] (before: max-aggregated with the idle rq's kept "
              "uclamp_max, so a task capped below its CPU's last task's uclamp_max was not capped there, in "
              "feec's v5.6+ fit and the energy estimate of its destination); without a task (schedutil, the "
              "other CPUs of the estimate) the idle rq's kept uclamp_max still clamps", "read",
              evidence="the sched-urgent-2021-07-11 pull (HEAD 3e1493f46390618ea78607cb30c58fc19e2a5035, sent "
              "after v5.14-rc1, so v5.14-rc2) with its sched.h diff read; 5.13.y took it as [PATCH 5.13 "
              "338/351] (stable trees 5.10+ carry it as a backport)"),
    EraChange("uclamp-v5.6", "uclamp", (5, 6), "1d42509e475c sched/fair: Make EAS wakeup placement consider "
              "uclamp restrictions; a7008c07a568 sched/fair: Make task_fits_capacity() consider uclamp "
              "restrictions", "find_energy_efficient_cpu, task_fits_capacity", "a candidate CPU must fit the task's util "
              "clamped by uclamp_rq_util_with(rq, util, p) (max of the rq's and the task's clamps): "
              "fits_capacity(clamped util, capacity_of); a spare capacity of 0 is no candidate (unsigned, "
              "initialised to 0); the misfit test fits uclamp_task_util(p), the task's util clamped into its "
              "range", "verified",
              evidence="[tip: sched/core] mail: Commit-ID 1d42509e475cdc8542aa5b3e03a7e845244f4f57, CommitterDate 25 "
              "Dec 2019 (the v5.6 merge window; v5.5 was released in Jan 2020); quoted as Fixes: by 6b00a4014765 "
              "and its write-ups as buggy since v5.6-rc1. The row said v5.7 before (recalled). a7008c07a568: its "
              "patch (task_fits_capacity from fits_capacity(task_util_est(p)) to fits_capacity(uclamp_task_util(p))) "
              "read, from the same uclamp placement series, and quoted as Fixes: by 48d5e9daa8b7 (v6.2)"),
    EraChange("uclamp-v6.2", "uclamp", (6, 2), "48d5e9daa8b7 sched/uclamp: Fix relationship between uclamp and "
              "migration margin; 244226035a1f (feec), c56ab1b3506b (cpu_overutilized), d81304bc6193 (early exit)",
              "util_fits_cpu, find_energy_efficient_cpu, cpu_overutilized",
              "util_fits_cpu(util, max-aggregated uclamp_min/max, cpu): fits_capacity(util, capacity_of), forced "
              "to fit when uclamp_max <= capacity_orig (unless both 1024), a boost above capacity_orig - thermal "
              "pressure does not fit (not on a 1024 CPU); feec fits the unclamped util with it and stays on prev "
              "when uclamp_task_util(p) = clamp(task_util_est, min, max) is 0; cpu_overutilized = !util_fits_cpu("
              "cpu_util_cfs, rq min, rq max); capacity inversion (44c7b80bffc3 detects it in update_cpu_capacity: "
              "another perf domain of equal capacity_orig keeps more after its thermal_load_avg, or one of lower "
              "capacity_orig exceeds capacity_orig - thermal_load_avg; aa69c36f31aa: util_fits_cpu then takes that "
              "inverted capacity as capacity_orig and capacity_orig - thermal pressure, inside util_fits_cpu "
              "after its !uclamp_is_used() return, so in feec, the asymmetric idle search, task_fits_cpu "
              "(update_misfit_status) and cpu_overutilized alike, all modelled)", "verified",
              evidence="full hashes 48d5e9daa8b7, b48e16a69792, 244226035a1f, b759caa1d9f6, a2e7f03ed28f, "
              "c56ab1b3506b, d81304bc6193, 44c7b80bffc3, aa69c36f31aa, ad841e569f5c in the tip post-receive log "
              "of 29 Oct 2022 (during v6.1-rc3, so v6.2); util_fits_cpu and feec read in a 6.2.1 tree "
              "(daniellucs2002/linux-6.2.1-customized, scheduler functions as upstream); the capacity inversion "
              "code read in the 6.1.y stable backport of aa69c36f31aa and in the backport of its v6.3 removal "
              "(a2e90611b9f4, which shows the v6.2 update_cpu_capacity detection it deletes)"),
    EraChange("uclamp-v6.3", "uclamp", (6, 3), "e5ed0550c04c sched/fair: unlink misfit task from cpu "
              "overutilized; a2e90611b9f4 sched/fair: Remove capacity inversion detection",
              "util_fits_cpu, find_energy_efficient_cpu",
              "util_fits_cpu answers -1 when the CPU fits but not the boost (uclamp_min > capacity_orig - "
              "thermal pressure, also on 1024 CPUs); feec ranks candidates fits 1 > -1, among -1 by thermal "
              "capacity (best_thermal_cap / prev_thermal_cap); -1 is not overutilized", "verified",
              evidence="full hashes e5ed0550c04c / a2e90611b9f4 in a tip log next to 829c1651e9c4 (v6.3 cycle); "
              "5.10/5.15 backport cover letters name them as the follow-ups of the v6.2 series; the -1 form and "
              "the thermal tiers read in a linux-6.3 tree (bqqmf/linux-6.3). No later row: 9264758066061e66 "
              "sched/fair: Update overutilized detection (tip sched/core, in sched_ext's for-7.1 merge of 3 Mar "
              "2026; its patch read as [PATCH 7/7 v3/v5], Feb/Mar 2025) passes 0 instead of the rq's uclamp_min "
              "to util_fits_cpu() in cpu_overutilized(); since this row the boost can only turn 1 into -1, never "
              "into 0, so the flag is the same on every state"),
    EraChange("uclamp-v6.7", "uclamp", (6, 7), "6b00a4014765 sched/uclamp: Set max_spare_cap_cpu even if "
              "max_spare_cap is 0; 23c9519def98 sched/uclamp: Ignore (util == 0) optimization in feec() when "
              "p_util_max = 0", "find_energy_efficient_cpu",
              "spare capacities are signed with -1 as 'none', so a CPU forced to fit by uclamp_max with spare 0 "
              "is a candidate; the early exit needs task_util_est(p) == 0 and p_util_min == 0", "verified",
              evidence="[tip] mail for 6b00a40147653c8ea748e8f4396510f252763364, CommitterDate 29 Sep 2023, "
              "listed with 23c9519def98ee0fa97ea5871535e9b136f522fc; a write-up says fixed in v6.7-rc1; "
              "backported to 6.1.63 / 5.10.199 in Nov 2023"),
    EraChange("thermal-v5.7", "thermal", (5, 7), "467b7d01c3e7 sched/fair: Update cpu_capacity to reflect "
              "thermal pressure", "scale_rt_capacity, update_thermal_load_avg", "capacity_of = capacity_orig minus "
              "RT, DL and thermal_load_avg, the PELT average of the pressure the cooling device sets "
              "(update_thermal_load_avg from scheduler_tick and __update_blocked_others, load = runnable = "
              "running = the pressure, load_avg = load_sum / divider, clock rq_clock_thermal = rq_clock_task >> "
              "sched_thermal_decay_shift, the boot parameter of the same series, 0 by default, clamped to 0..10: "
              "SimConfig.thermal_decay_shift); util_fits_cpu and the EM read the instantaneous pressure",
              "verified",
              evidence="subject sched/fair: Update cpu_capacity to reflect thermal pressure (Thara Gopinath, patch v10 "
              "7/9 of Feb 2020) in the [GIT PULL] scheduler changes for v5.7, with sched/pelt: Add support to track "
              "thermal pressure and sched/fair: Enable periodic update of average thermal pressure (so capacity_of "
              "subtracts the PELT average from v5.7); the abbreviated hash 467b7d01c3e7 was not found quoted; "
              "update_thermal_load_avg (___update_load_sum with the pressure three times, ___update_load_avg(sa, 1)) "
              "read in the v5.7 pelt.c patch and in __update_blocked_others / scheduler_tick of later trees; "
              "setup_sched_thermal_decay_shift (clamp(_shift, 0, 10)) and rq_clock_thermal read in the series' "
              "sched/fair: Enable tuning of decay period patch (v9/v10, listed in the v5.7 series' cover letters; "
              "its hash 76504793832b not found quoted)"),
    EraChange("thermal-v6.10", "thermal", (6, 10), "f1f8d0a22422 sched/cpufreq: Take cpufreq feedback into "
              "account; c281afe24fc5 thermal/cpufreq: Remove arch_update_thermal_pressure(); 75d659317bb1 "
              "cpufreq: Add a cpufreq pressure feedback for the scheduler",
              "get_actual_cpu_capacity, scale_rt_capacity, util_fits_cpu, select_idle_capacity, "
              "find_energy_efficient_cpu",
              "a cpufreq cooling cap is the cpufreq pressure (capacity_orig - capacity at policy->max, set at the "
              "policy update), no longer the thermal (hw) pressure, whose average then stays 0; "
              "get_actual_cpu_capacity = capacity_orig - max(hw_load_avg, cpufreq pressure) is the max of "
              "scale_rt_capacity (capacity_of), util_fits_cpu's boost test, select_idle_capacity's rank and feec's "
              "actual capacity: the cap lowers capacity_of at once, not through the PELT average; 97450eb90965 "
              "(sched/pelt: Remove shift of thermal clock) drops sched_thermal_decay_shift", "verified",
              evidence="[tip: sched/core] mail for f1f8d0a224227e4f19a8a8881dc6355bdfc51230 (CommitterDate 24 Apr "
              "2024, after v6.9-rc5, so the v6.10 merge window) with its diff of fair.c (get_actual_cpu_capacity "
              "replacing thermal_load_avg in scale_rt_capacity and select_idle_capacity and "
              "arch_scale_thermal_pressure in util_fits_cpu and feec); the series' hashes 75d659317bb1, "
              "c281afe24fc5, d4dbc991714e, 97450eb90965 listed together in a tip log; 97450eb90965 is the HEAD of "
              "the sched-core-2024-05-13 pull, 'Scheduler changes for v6.10'"),
    # ------------------------------------------------------------------ CFS pick, placement, preemption
    EraChange("cfs-v4.14", "cfs", (4, 14), "(earliest modelled)", "pick_next_entity, place_entity, "
              "check_preempt_wakeup, check_preempt_tick, migrate_task_rq_fair",
              "vruntime CFS: the leftmost vruntime runs; a waking task is placed at max(its vruntime, "
              "min_vruntime - sysctl_sched_latency / 2) (GENTLE_FAIR_SLEEPERS); it preempts when its vruntime "
              "is more than sysctl_sched_wakeup_granularity behind curr's; the tick preempts curr past its "
              "sched_slice; a migrating task's vruntime is renormalised by the two runqueues' min_vruntime",
              "read", evidence="check_preempt_tick and place_entity in the v5.4 tree the reference engine was "
              "reviewed against (1xtAsh/kernel-msm5.4, kernel/sched/fair.c)"),
    EraChange("cfs-v6.6", "cfs", (6, 6), "147f3efaa241 sched/fair: Implement an EEVDF-like scheduling policy "
              "(with 86bfbb7ce4f6, e8f331bcc270, 5e963f2bd465, 63304558ba5d, 561c58efd239)",
              "pick_eevdf, place_entity, update_entity_lag, update_deadline, check_preempt_wakeup, entity_tick",
              "EEVDF: the eligible task (vruntime at most the load-weighted average V) of earliest virtual "
              "deadline runs, the running one kept while it is eligible and still on the slice it was picked "
              "with (RUN_TO_PARITY); a task is placed at V minus the lag it left with (V - v clamped to "
              "max(2 slices, a tick), inflated by (W + w) / W), deadline vruntime + base slice; the deadline is "
              "renewed (and curr rescheduled when others wait) once vruntime reaches it; a waking task preempts "
              "only when it is that pick; no tick-slice test, no min_vruntime renormalisation at migration",
              "read", evidence="place_entity, dequeue_entity (update_entity_lag), set_next_entity (the vlag "
              "stash), entity_tick (no check_preempt_tick) and pick_eevdf read in a v6.7-era fair.c with "
              "reweight_eevdf (index id 61925288617); avg_vruntime's floor for a negative sum in 6.6-rc patches "
              "quoting it (index ids 45739929063, 45472908874); RUN_TO_PARITY's patch of 16 Aug 2023 on "
              "tip:sched/eevdf (index id 8219140369); the fixed heap walk, tip-bot mail for 561c58efd239 "
              "(sched/urgent, 3 Oct 2023: v6.6-rc5; index id 23850789470)"),
)


def ledger_row(key: str) -> EraChange:
    """The ledger row ``key`` (``KeyError`` naming the known keys otherwise)."""
    for row in ERA_LEDGER:
        if row.key == key:
            return row
    raise KeyError(f"no era ledger row {key!r}; rows: {[r.key for r in ERA_LEDGER]}")


def eras_of(area: str) -> tuple[tuple[int, int], ...]:
    """The kernel versions (ascending) where ``area`` changed, from :data:`ERA_LEDGER`."""
    out = tuple(sorted({r.version for r in ERA_LEDGER if r.area == area}))
    if not out:
        raise ModelError(f"no era ledger area {area!r}; areas: {sorted({r.area for r in ERA_LEDGER})}")
    return out


def era_ledger():
    """The era ledger as a DataFrame (one row per behaviour change)."""
    import pandas as pd

    return pd.DataFrame([{"key": r.key, "area": r.area, "version": r.version_name, "commit": r.commit,
                          "function": r.function, "change": r.change, "source": r.source, "evidence": r.evidence}
                         for r in ERA_LEDGER])
