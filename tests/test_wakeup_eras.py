"""The wake-up path's era rows (``wakeup-*``, ``sis-v5.14``): one hand-built state per row where the
kernel just before and just after decide differently. Each expected value is worked out by hand from
``kernel/sched/fair.c`` / ``core.c`` of the two versions (functions named per test), not from the models;
the kernels are also checked against the plain-Python twin ``tests/reference/ref_wake_affine.py``."""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas.errors import ModelError
from lisa_eas.models import (RqLoad, avg_idle_update, recent_used_cpu_after, sis_prop_account, sis_prop_nr,
                             wake_affine)

from reference import ref_sis, ref_wake_affine

BUSY = RqLoad(idle=False, nr_running=1, runnable_load_avg=100, load_avg=100)
IDLE_PREV = RqLoad(idle=True, nr_running=0, runnable_load_avg=0, load_avg=900)


def test_wake_affine_v4_14_weight_and_sync_by_hand():
    """v4.14 fair.c wake_affine_weight() (WA_BIAS on), imbalance_pct 117 -> prev's bias 100 + 17 / 2 = 108.

    this runnable load 300, prev 700, task 200, no sync: this_eff = (300 + 200) * 100 * 1024 =
    51,200,000 < prev_eff = (700 - 200) * 108 * 1024 = 55,296,000 -> this_cpu. prev at 660:
    prev_eff = 460 * 108 * 1024 = 50,872,320 -> no answer -> prev. Sync with the waker's load
    400 > this load 300 -> this_cpu at once. wake_affine_idle(): an idle this_cpu sharing the LLC
    gives prev when prev is idle, else this_cpu."""
    this = RqLoad(idle=False, nr_running=2, runnable_load_avg=300, load_avg=300)
    prev = RqLoad(idle=False, nr_running=1, runnable_load_avg=700, load_avg=700)
    assert wake_affine(this, prev, 200, "v4.14") == "this"
    prev660 = RqLoad(idle=False, nr_running=1, runnable_load_avg=660, load_avg=660)
    assert wake_affine(this, prev660, 200, "v4.14") == "prev"
    assert wake_affine(this, prev660, 200, "v4.14", sync=True, current_load=400) == "this"
    idle_this = RqLoad(idle=True, nr_running=0, runnable_load_avg=0, load_avg=0)
    assert wake_affine(idle_this, prev660, 200, "v4.14") == "this"
    assert wake_affine(idle_this, IDLE_PREV, 200, "v4.14") == "prev"
    with pytest.raises(ModelError, match="wakeup-v4.14"):
        wake_affine(this, prev, 200, "v4.13")


def test_wake_affine_v5_5_compares_load_avg_not_runnable_load():
    """v5.4 wake_affine_weight() reads cpu_runnable_load(), v5.5 (11f10e5420f6) cpu_load().

    this: busy, both loads 100; prev: idle, runnable 0, load_avg 900 (blocked); task 50; no sync.
    WA_IDLE has no answer (this busy, no sync; the idle-prev rule is v5.11). v5.4: this_eff =
    150 * 100 * 1024 = 15,360,000 against prev_eff = (0 - 50) * 108 * 1024 = -5,529,600 -> prev.
    v5.5: prev_eff = 850 * 108 * 1024 = 94,003,200 -> this_cpu."""
    assert wake_affine(BUSY, IDLE_PREV, 50, "v5.4") == "prev"
    assert wake_affine(BUSY, IDLE_PREV, 50, "v5.5") == "this"


def test_wake_affine_v5_11_keeps_an_idle_prev():
    """v5.10 wake_affine_idle() has no answer for a busy this_cpu without sync; v5.11
    (d8fcb81f1acf) returns an idle prev. Same state as above: v5.10 -> WA_WEIGHT -> this_cpu;
    v5.11 -> prev."""
    assert wake_affine(BUSY, IDLE_PREV, 50, "v5.10") == "this"
    assert wake_affine(BUSY, IDLE_PREV, 50, "v5.11") == "prev"


def test_topology_v5_10_die_imbalance_pct_moves_wake_affine_across_llcs():
    """v5.9 sd_init() gives the domain above the LLC imbalance_pct 125, v5.10 (2208cdaa56c9) 117;
    wake_affine_weight() between two CPUs of different LLCs biases prev by 100 + (pct - 100) / 2:
    112, then 108. this busy with load_avg 0, prev busy with 190, task 100, capacities 1024, no
    sync (WA_IDLE: no answer, this busy; prev busy, so no v5.11 idle-prev answer): this_eff =
    (0 + 100) * 100 * 1024 = 10,240,000; v5.9 prev_eff = (190 - 100) * 112 * 1024 = 10,321,920 ->
    this_cpu; v5.10 prev_eff = 90 * 108 * 1024 = 9,953,280 -> no answer -> prev."""
    from lisa_eas.models import die_imbalance_pct

    this = RqLoad(idle=False, nr_running=1, runnable_load_avg=0, load_avg=0)
    prev = RqLoad(idle=False, nr_running=1, runnable_load_avg=190, load_avg=190)
    assert (die_imbalance_pct("v5.9"), die_imbalance_pct("v5.10")) == (125, 117)
    for era, want in (("v5.9", "this"), ("v5.10", "prev")):
        pct = die_imbalance_pct(era)
        assert wake_affine(this, prev, 100, era, share_cache=False, imbalance_pct=pct) == want
        assert ref_wake_affine.affine(False, False, False, False, False, 1, 0, 190, 100, 0, 1024, 1024, pct) == want


def test_avg_idle_update_v5_7_signed_division_moves_the_sis_prop_depth():
    """core.c update_avg() before v5.7: avg += diff >> 3; sched.h from v5.7 (d76343c6b2b7): diff / 8.

    avg_idle 1,024,000 (= 2000 * 512), an idle period of 1,023,999: diff = -1; >> 3 gives -1, / 8
    gives 0. Then select_idle_cpu() (< v5.14) on an 8-CPU LLC with avg_scan_cost 3199: avg_idle /
    512 = 1999 vs 2000, span_avg 15,992 vs 16,000, both > 4 * 3200, nr = 15,992 / 3200 = 4 vs
    16,000 / 3200 = 5: the v5.6 scan stops one CPU earlier."""
    a6 = avg_idle_update(1_024_000, 1_023_999, "v5.6")
    a7 = avg_idle_update(1_024_000, 1_023_999, "v5.7")
    assert (a6, a7) == (1_023_999, 1_024_000)
    assert sis_prop_nr(a6, 3199, 8, "v5.6") == 4
    assert sis_prop_nr(a7, 3199, 8, "v5.7") == 5
    # a longer idle period: the same under both (positive difference)
    assert avg_idle_update(800_000, 1_000_000, "v5.6") == avg_idle_update(800_000, 1_000_000, "v5.7") == 825_000


def test_recent_used_cpu_v4_16_candidate_and_v5_15_always_prev():
    """v4.15 has no p->recent_used_cpu; v4.16 (32e839dda3ba): it is replaced by prev only when it
    wins; v5.15 (89aafd67f28c): p->recent_used_cpu = prev before the recent check, so after any
    search past the target and prev checks. Task with prev 2, recent 5."""
    assert recent_used_cpu_after("recent_used_cpu", 2, 5, "v4.15") == -1
    assert recent_used_cpu_after("recent_used_cpu", 2, 5, "v4.16") == 2
    assert recent_used_cpu_after("idle_cpu", 2, 5, "v4.16") == 5
    assert recent_used_cpu_after("idle_cpu", 2, 5, "v5.14") == 5
    assert recent_used_cpu_after("idle_cpu", 2, 5, "v5.15") == 2
    assert recent_used_cpu_after("fallback_target", 2, 5, "v5.15") == 2
    assert recent_used_cpu_after("prev", 2, 5, "v5.15") == 5       # returned before the recent block
    with pytest.raises(ModelError, match="path"):
        recent_used_cpu_after("nowhere", 2, 5, "v5.15")


def test_sis_prop_v5_14_charges_the_scan_to_wake_avg_idle():
    """v5.13 select_idle_cpu(): only update_avg(&avg_scan_cost, time); v5.14 (94aafc3ee31d): also
    wake_avg_idle -= min(wake_avg_idle, time). Scan time 2000, avg_scan_cost 4000: (2000 - 4000)
    / 8 = -250 -> 3750 in both; wake_avg_idle 10,000 -> 8000 from v5.14 (v5.13 does not use it).
    A scan that ran out of depth (``return -1``) accounts nothing in either."""
    assert sis_prop_account(10_000, 4_000, 2_000, False, "v5.13") == (10_000, 3_750)
    assert sis_prop_account(10_000, 4_000, 2_000, False, "v5.14") == (8_000, 3_750)
    assert sis_prop_account(10_000, 4_000, 2_000, True, "v5.14") == (10_000, 4_000)
    assert sis_prop_account(1_000, 4_000, 2_000, False, "v5.14")[0] == 0      # min(): never below 0


def test_wake_avg_idle_ages_per_jiffy_and_stops_at_zero():
    """v5.14 select_idle_cpu(): while (wake_stamp < jiffies && wake_avg_idle) { wake_stamp++;
    wake_avg_idle >>= 1; }: 1000 over 3 jiffies -> 125 at stamp 3; 3 over 5 jiffies -> 0 after
    two halvings, the stamp left at 2."""
    from lisa_eas._kernels.sis import wake_avg_idle_age

    assert tuple(wake_avg_idle_age(1000, 0, 3)) == (125, 3) == ref_sis.age_wake_avg_idle(1000, 0, 3)
    assert tuple(wake_avg_idle_age(3, 0, 5)) == (0, 2) == ref_sis.age_wake_avg_idle(3, 0, 5)


def test_sis_prop_ran_out_flag_matches_the_twin():
    """select_idle_cpu()'s ``if (!--nr) return -1`` (every era) is flagged in result[2]; a scan
    that finds a CPU or walks the whole span is not. Random LLC states, all loop modes."""
    from lisa_eas._kernels import sis as ks

    rng = np.random.default_rng(7)
    modes = {ks.SIS_V4_0: (5, 4), ks.SIS_V4: (5, 10), ks.SIS_V5_12: (5, 12), ks.SIS_V5_12_14: (5, 14),
             ks.SIS_V5_15: (5, 15)}
    n = 8
    llc = np.zeros(n, np.int64)
    core = np.arange(n, dtype=np.int64)
    for _ in range(400):
        idle = (rng.random(n) < 0.2).astype(np.uint8)
        allowed = (rng.random(n) < 0.8).astype(np.uint8)
        target, prev = (int(x) for x in rng.integers(0, n, 2))
        nr = int(rng.integers(1, 10))
        for mode, version in modes.items():
            res = np.zeros(3, np.int64)
            cpu = ks.select_idle_sibling(mode, False, idle, allowed, target, prev, -1, False, nr, llc, core, False, res)
            rc, rpath, srch = ref_sis.search(version, False, idle, allowed, target, prev, -1, False, nr, llc,
                                             core, False)
            assert (cpu, res[0], res[1], bool(res[2])) == (rc, rpath, srch.scanned, srch.ran_out)


def test_wake_affine_kernel_matches_the_twin():
    from lisa_eas._kernels import wake_affine as kw

    rng = np.random.default_rng(3)
    for _ in range(3000):
        v511 = bool(rng.integers(0, 2))
        ti, pi, sc, sy = (bool(x) for x in rng.integers(0, 2, 4))
        nr = int(rng.integers(0, 3))
        tl, pl, tk, cl = (int(x) for x in rng.integers(0, 1500, 4))
        ct, cp = (int(x) for x in rng.choice([160, 462, 512, 1024], 2))
        pct = int(rng.choice([110, 117, 125]))
        got = kw.wake_affine(kw.WA_V5_11 if v511 else kw.WA_V4_14, ti, pi, sc, sy, nr, tl, pl, tk, cl, ct, cp, pct)
        want = ref_wake_affine.affine(v511, ti, pi, sc, sy, nr, tl, pl, tk, cl, ct, cp, pct)
        assert ("this" if got == kw.WA_THIS else "prev") == want


def _one_sleeper(era, ablate=()):
    """A no-EAS HiKey960 run at t = 0, indexes built: every CPU idle, every task asleep; task 0's
    previous CPU is CPU 0 (little LLC)."""
    from lisa_eas._kernels import sim_layout as L
    from lisa_eas._kernels import sim_state as ss
    from lisa_eas._kernels.sim_index import build_indexes
    from lisa_eas.platform import load_platform
    from lisa_eas.rtapp import periodic, task, workload
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._compile import compile_workload
    from lisa_eas.sim._engine import build_run, view

    plat = load_platform("hikey960")
    wl = workload([task("t0", periodic(duty_cycle_pct=10, period_ms=16, duration_s=1.0))], calibration=20)
    # the thread starts on CPU 0, its first allowed CPU (ablation fork-placement: the fork balance
    # would put it on a big CPU, the parent running on CPU 0)
    S, P, O, _ = build_run(plat, compile_workload(wl, plat.nr_cpus), SimConfig(placement="no-eas", era=era,
                                                                               ablate=ablate + ("fork-placement",)),
                           int(1e9))
    build_indexes(S)
    TK = view(S, L.S_TASKS // 4)
    assert TK[0, ss.T_CPU] == 0 and TK[0, ss.T_STATE] == ss.TS_SLEEPING
    return S, P, O, TK, ss


@pytest.mark.parametrize("era, sync, cpu", [("v5.4", 0, 0), ("v5.4", 1, 5), ("v5.11", 1, 0)])
def test_simulator_wake_up_by_another_cpu_goes_through_wake_affine(era, sync, cpu):
    """The waker-CPU hook (``sim_loop.wake_up``): task 0 (prev CPU 0, little LLC,
    load_avg 0) woken at 1 ms from the idle big CPU 5, every runqueue empty (loads 0).

    v5.4 wake_affine(): WA_IDLE: this_cpu idle but not sharing prev's LLC, no sync answer
    (this_cpu runs nothing), no idle-prev rule -> WA_WEIGHT: this_eff = (0 + 0) * 100 *
    capacity_of(0) = 0 against prev_eff = (0 - 0) * 112 * capacity_of(5) = 0 (+ 1 when sync):
    0 < 0 is false -> prev (CPU 0, idle: select_idle_sibling returns it as target); with sync
    0 < 1 -> this_cpu = CPU 5, idle -> CPU 5. v5.11 (d8fcb81f1acf): the idle prev is returned by
    WA_IDLE first -> CPU 0 even with sync. (The task fits the little CPU: no wake_cap().)"""
    from lisa_eas._kernels.sim_loop import wake_up

    S, P, O, TK, ss = _one_sleeper(era)
    wake_up(0, 5, sync, 1_000_000, S, P, O)
    assert TK[0, ss.T_CPU] == cpu
    assert TK[0, ss.T_STATE] in (ss.TS_RUNNABLE, ss.TS_RUNNING)


def test_resume_waker_ablation_places_the_wake_up_on_prev():
    """Ablation ``resume-waker`` (sis-efficiency's cause experiment): the v5.4 sync wake-up by CPU 5
    above goes to CPU 5 through wake_affine; placed as a timer wake-up (this = prev = CPU 0) there
    is no want_affine pass and select_idle_sibling returns the idle prev, CPU 0."""
    from lisa_eas._kernels.sim_loop import wake_up

    S, P, O, TK, ss = _one_sleeper("v5.4", ablate=("resume-waker",))
    wake_up(0, 5, 1, 1_000_000, S, P, O)
    assert TK[0, ss.T_CPU] == 0


@pytest.mark.parametrize("era, ablate, pera", [("v5.18", (), 2), ("v5.18", ("sis-prop-wake-avg-idle",), 1),
                                               ("v5.13", ("sis-prop-wake-avg-idle",), 1),
                                               ("v5.4", ("sis-prop-wake-avg-idle",), 0)])
def test_sis_prop_wake_avg_idle_ablation_selects_the_v5_13_depth(era, ablate, pera):
    """Ablation ``sis-prop-wake-avg-idle``: from v5.14 the SIS_PROP depth takes its v5.7 - v5.13
    form (avg_idle / 512, ledger sis-v5.14 off); earlier eras are unchanged."""
    from lisa_eas._kernels import sim_models as sm
    from lisa_eas._kernels.sim_layout import P_MODEL_PARAMS

    S, P, O, TK, ss = _one_sleeper(era, ablate=ablate)
    assert P[P[P_MODEL_PARAMS] + sm.M_SIS_PROP_ERA] == pera
    assert P[P[P_MODEL_PARAMS] + sm.M_WAKER_AT_PREV] == 0


@pytest.mark.parametrize("ablate", [(), ("pelt-attach-reset",)])
def test_attach_rebuilds_util_sum_unless_ablated(ablate):
    """attach_entity_load_avg() (v5.18): the task takes the runqueue's period_contrib and
    util_sum = util_avg * divider, divider = LOAD_AVG_MAX - 1024 + period_contrib = 47742 - 1024
    + 700 = 47418: util_avg 100 -> util_sum 4741800 (the task's 5000 of running since its last
    1024 us boundary are dropped). Ablation ``pelt-attach-reset``: util_sum 100 * 47418 + 5000
    and period_contrib 300 are kept."""
    from lisa_eas._kernels import sim_layout as L
    from lisa_eas._kernels.pelt import SA_PERIOD_CONTRIB, SA_UTIL_AVG, SA_UTIL_SUM
    from lisa_eas._kernels.sim_sched import attach_task_avg

    S, P, O, TK, ss = _one_sleeper("v5.18", ablate=ablate)
    ot = S[L.S_TASK_PELT] + 0 * S[L.S_TASK_PELT_W]
    oc = S[L.S_CFS_PELT] + 3 * S[L.S_CFS_PELT_W]
    S[ot + SA_UTIL_AVG], S[ot + SA_PERIOD_CONTRIB], S[ot + SA_UTIL_SUM] = 100, 300, 100 * 47418 + 5000
    S[oc + SA_PERIOD_CONTRIB], S[oc + SA_UTIL_AVG], S[oc + SA_UTIL_SUM] = 700, 0, 0
    attach_task_avg(0, 3, S, P)
    if ablate:
        assert (S[ot + SA_UTIL_SUM], S[ot + SA_PERIOD_CONTRIB]) == (100 * 47418 + 5000, 300)
    else:
        assert (S[ot + SA_UTIL_SUM], S[ot + SA_PERIOD_CONTRIB]) == (4741800, 700)
    assert S[oc + SA_UTIL_AVG] == 100 and S[oc + SA_UTIL_SUM] == S[ot + SA_UTIL_SUM]
