"""One hand-built state per era-ledger row where the kernel just before and just after the
change decide differently. Every expected value below is worked out by hand from the kernel
sources of the two versions (file and version cited per test), not from the models.

Conventions: y = 2^(-1/32); ``yN_inv[n]`` / ``runnable_avg_yN_sum`` are the kernel tables;
EM figures are the bundled boards' tables as ``EnergyModel.from_platform`` prints them
(the inputs, not the answer).
"""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from lisa_eas._era import ERA_LEDGER, eras_of, ledger_row
from lisa_eas.models import (find_energy_efficient_cpu, pelt_config, pelt_timeline, schedutil_next_freq,
                             schedutil_run, schedutil_tables, select_idle_sibling)
from lisa_eas.models.governors import ondemand

# ------------------------------------------------------------------------------------- PELT


def test_pelt_v4_11_old_update_vs_v4_12_accumulate_sum():
    """kernel/sched/fair.c v4.11 __update_load_avg vs v4.12 accumulate_sum (a481db34b9be).

    A task runs from 0 to 2,168,379 ns (freq and capacity 1024), then sleeps.
    delta = 2168379 >> 10 = 2117 periods of 1024 ns, period_contrib 0.
    v4.11: finish the period: util_sum = 1024*1024 = 1048576; delta = 1093 -> periods 1,
      remainder 69; decay over periods+1 = 2: 1048576 * yN_inv[2] >> 32 = 1004119;
      + runnable_avg_yN_sum[1] (1002) * 1024 = 2030167; + 69 * 1024 = 2100823;
      util_avg = 2100823 / LOAD_AVG_MAX (47742) = 44.
    v4.12: periods 2, remainder 69; c1 = decay(1024, 2) = 980, c2 = 47742 - decay(47742, 2)
      (45717) - 1024 = 1001; contrib 2050; util_sum 2099200 / 47742 = 43.
    """
    t = [0, 2_168_379]
    assert pelt_timeline(t, [2, 0], era="v4.11").util_avg.iloc[-1] == 44
    assert pelt_timeline(t, [2, 0], era="v4.12").util_avg.iloc[-1] == 43


def test_pelt_v4_12_vs_v4_13_divider():
    """kernel/sched/fair.c v4.12 ___update_load_avg (divider LOAD_AVG_MAX) vs v4.13 (625ed2bf049d,
    LOAD_AVG_MAX - 1024 + period_contrib).

    A task runs 0 to 1,500,000 ns: delta 1464 -> periods 1, remainder 440; c1 = decay(1024, 1)
    = 1002, c2 = 47742 - 46718 - 1024 = 0; contrib 1442; util_sum = 1442 * 1024 = 1476608.
    v4.12: 1476608 / 47742 = 30. v4.13: 1476608 / (47742 - 1024 + 440) = 31.
    """
    t = [0, 1_500_000]
    assert pelt_timeline(t, [2, 0], era="v4.12").util_avg.iloc[-1] == 30
    assert pelt_timeline(t, [2, 0], era="v4.13").util_avg.iloc[-1] == 31


def test_pelt_v4_11_tables_are_the_kernels():
    """v4.11 kernel/sched/fair.c: runnable_avg_yN_sum[] = {0, 1002, 1982, 2941, ..., 23371} and
    __accumulated_sum_N32[] = {0, 23371, 35056, ..., 46719}, LOAD_AVG_MAX_N 345."""
    from lisa_eas._kernels import pelt as kp

    cfg = pelt_config("v4.11")
    assert cfg[kp.CFG_OLD_UPDATE] == 1 and cfg[kp.CFG_MAX_N] == 345
    tab = cfg[kp.CFG_SIZE:]
    assert tab[:5].tolist() == [0, 1002, 1982, 2941, 3880] and tab[32] == 23371
    assert tab[33:].tolist() == [0, 23371, 35056, 40899, 43820, 45281, 46011, 46376, 46559, 46650, 46696, 46719]
    assert pelt_config("v4.12")[kp.CFG_OLD_UPDATE] == 0


def test_pelt_v5_7_runnable_avg_without_weight():
    """kernel/sched/pelt.c v5.6 ___update_load_avg: runnable_load_avg = runnable_weight *
    runnable_load_sum / divider; v5.7 (9f68395333ad): runnable_sum accrues runnable << 10 and
    runnable_avg = runnable_sum / divider. A weight-335 task runs 0 to 1.5 ms: contrib 1442
    (test above), divider 47742 - 1024 + 440 = 47158. v5.6: 335 * 1442 / 47158 = 10;
    v5.7: (1442 << 10) / 47158 = 31."""
    t = [0, 1_500_000]
    assert pelt_timeline(t, [2, 0], era="v5.6", weight=335).runnable_avg.iloc[-1] == 10
    assert pelt_timeline(t, [2, 0], era="v5.7", weight=335).runnable_avg.iloc[-1] == 31


def test_pelt_v4_15_weight_applied_in_the_average():
    """kernel/sched/fair.c v4.14 ___update_load_avg/accumulate_sum: ``sa->load_sum += weight *
    contrib`` and ``load_avg = load_sum / divider``; v4.15 (1ea6c46a23f1): ___update_load_sum
    accrues ``load`` = !!on_rq (0/1) and ___update_load_avg computes ``load_avg = weight *
    load_sum / divider``. The rounding of decay_load() then falls on different numbers.
    A nice-0 task (weight 1024) runs 0 to 1.5 ms: contrib 1442 (v4.13 test), divider 47158,
    last_update_time 1464 * 1024 = 1499136, period_contrib 440.
      v4.14 load_sum = 1024 * 1442 = 1476608 -> load_avg 31; v4.15 load_sum 1442 -> 1024 * 1442
      / 47158 = 31 (util_avg 31 in both).
    It sleeps until 10.5 ms: delta (10500000 - 1499136) >> 10 = 8789; 8789 + 440 = 9229 ->
    9 periods, period_contrib 13, divider 47742 - 1024 + 13 = 46731; nothing accrues (sleeping);
    y^9 = yN_inv[9] = 0xd2a81d91 = 3534232977.
      v4.14: 1476608 * 3534232977 >> 32 = 1215067; 1215067 / 46731 = 26.
      v4.15: 1442 * 3534232977 >> 32 = 1186; 1024 * 1186 = 1214464; 1214464 / 46731 = 25."""
    t = [0, 1_500_000, 10_500_000]
    a = pelt_timeline(t, [2, 0, 0], era="v4.14", weight=1024)
    b = pelt_timeline(t, [2, 0, 0], era="v4.15", weight=1024)
    assert a.load_avg.tolist() == [0, 31, 26]
    assert b.load_avg.tolist() == [0, 31, 25]
    assert a.util_avg.tolist() == b.util_avg.tolist() == [0, 31, 26]


def _cfs_rq_after_removal(era, util_avg, util_sum, period_contrib, r, r_sum):
    """A cfs_rq signal after a task's util ``r`` (sum ``r_sum``) left it, in ``era``'s form."""
    import numpy as np

    from lisa_eas._kernels import pelt as kp

    sa = np.zeros(kp.SA_SIZE, np.int64)
    sa[kp.SA_UTIL_AVG], sa[kp.SA_UTIL_SUM], sa[kp.SA_PERIOD_CONTRIB] = util_avg, util_sum, period_contrib
    kp.cfs_rq_sub_util(sa, r, r_sum, pelt_config(era))
    return int(sa[kp.SA_UTIL_AVG]), int(sa[kp.SA_UTIL_SUM])


def test_pelt_v5_12_sub_positive_vs_v5_13_util_sum_resynced():
    """kernel/sched/fair.c update_cfs_rq_load_avg, removed path: v5.12 sub_positive(&sa->util_sum,
    r * divider) vs v5.13 (1c35b07e6d39) sa->util_sum = sa->util_avg * divider.

    A cfs_rq with util_avg 300, period_contrib 500 (divider 47742 - 1024 + 500 = 47218) and
    util_sum 300 * 47218 + 5000 = 14170400 (5000 of contribution not yet in util_avg); a task
    with util_avg 100 migrated away at wake-up: r = 100, r * divider = 4721800.
    v5.12: util_avg 200, util_sum 14170400 - 4721800 = 9448600.
    v5.13: util_avg 200, util_sum 200 * 47218 = 9443600 (the 5000 are lost).
    """
    state = (300, 14_170_400, 500, 100, 4_721_800)
    assert _cfs_rq_after_removal("v5.12", *state) == (200, 9_448_600)
    assert _cfs_rq_after_removal("v5.13", *state) == (200, 9_443_600)


def test_pelt_v5_16_resync_vs_v5_17_sub_positive_with_floor():
    """kernel/sched/fair.c update_cfs_rq_load_avg / detach_entity_load_avg: v5.16 util_sum =
    util_avg * divider vs v5.17 (98b0d890220d, 7ceb77103001) sub_positive, then util_sum =
    max(util_sum, util_avg * PELT_MIN_DIVIDER), PELT_MIN_DIVIDER = 47742 - 1024 = 46718.

    1. The removal of test_pelt_v5_12_sub_positive_vs_v5_13_util_sum_resynced: v5.16 gives
       util_sum 200 * 47218 = 9443600; v5.17 14170400 - 4721800 = 9448600 (above the floor
       200 * 46718 = 9343600).
    2. A detached entity whose util_sum (4774200, util_avg 100) exceeds its share of the cfs_rq
       (util_avg 300, util_sum 14016400, period_contrib 0: divider 46718): v5.12 (and before)
       14016400 - 4774200 = 9242200; v5.17 max(9242200, 200 * 46718 = 9343600) = 9343600.
    """
    state = (300, 14_170_400, 500, 100, 4_721_800)
    assert _cfs_rq_after_removal("v5.16", *state) == (200, 9_443_600)
    assert _cfs_rq_after_removal("v5.17", *state) == (200, 9_448_600)
    detach = (300, 14_016_400, 0, 100, 4_774_200)
    assert _cfs_rq_after_removal("v5.12", *detach) == (200, 9_242_200)
    assert _cfs_rq_after_removal("v5.17", *detach) == (200, 9_343_600)


# --------------------------------------------------------------------------------- util_est


def test_util_est_flag_kept_by_task_util_est_before_v5_13():
    """kernel/sched/fair.c v5.12 _task_util_est(): max(ewma, enqueued) | UTIL_AVG_UNCHANGED (0x1);
    v5.13 (68d7a190682a): max(ewma, enqueued & ~UTIL_AVG_UNCHANGED) with the flag at bit 31.
    ewma 100, enqueued 120 (flag clear): v5.12 -> 121; v5.13 -> 120. ewma 0, enqueued 0:
    v5.12 -> 1 (never 0), v5.13 -> 0."""
    from lisa_eas._kernels.util_est import UE_V5_5, UE_V5_13, task_util_est_value

    assert task_util_est_value(100, 120, UE_V5_5) == 121
    assert task_util_est_value(100, 120, UE_V5_13) == 120
    assert task_util_est_value(0, 0, UE_V5_5) == 1
    assert task_util_est_value(0, 0, UE_V5_13) == 0


def test_feec_zero_util_early_exit_only_from_v5_13():
    """kernel/sched/fair.c find_energy_efficient_cpu(): ``if (!task_util_est(p)) goto unlock``.
    In v5.12 task_util_est(p) = max(task_util, _task_util_est) >= 1 (the flag), so a task with
    util 0 and estimate 0 is still placed; v5.13 returns prev at once, without evaluation.
    juno_r0 [0, 568, 0, 472, 584, 0], task 0, prev 1, v5.12 (v5.4 form; the task adds 1 to the
    destination's util_est): big: base, prev 1 (568), CPU 2 (util 1, spare 1023, not prev);
    LITTLE: base, CPU 0 (util 1, spare 445; 3 and 4 do not fit, 5 ties) = 5 evaluations. All
    deltas are 0 (no OPP or rounded energy moves), so prev 1 stays."""
    a = find_energy_efficient_cpu("juno_r0", [0, 568, 0, 472, 584, 0], 0, 1, era="v5.12")
    b = find_energy_efficient_cpu("juno_r0", [0, 568, 0, 472, 584, 0], 0, 1, era="v5.13")
    assert a.cpu[0] == 1 and a.pd_evaluations[0] == 5
    assert b.cpu[0] == 1 and b.pd_evaluations[0] == 0


# -------------------------------------------------------------------------------------- EAS


def test_eas_v5_0_costs_whole_system_energy_and_signed_margin():
    """kernel/sched/fair.c v5.0 (732cd75b8c92) find_energy_efficient_cpu(): for each perf domain the
    max-spare CPU (prev is costed in the loop and ``continue``s) gets compute_energy(p, cpu) =
    the sum of em_pd_energy() over every domain; prev wins unless ``prev_energy - best_energy >
    prev_energy >> 4``. Mainline v4.20 has no feec; v4.16 - v4.20 model the April 2018 RFC v2
    (test_eas_rfc_v2_costs_prev_without_fit_test_and_1_64_margin) and v4.15 is refused. v5.4 (eb92692b2544) costs per-domain deltas
    in unsigned long (test_eas_v5_4_unsigned_delta_never_wins: the same state keeps prev 3).
    pixel3 [0, 224, 416, 256, 352, 352, 480, 224], task 288, prev 3, v5.0 EM (cost = fmax power /
    freq; freq = (fmax + fmax/4) max_util / scale_cpu, first OPP >= freq; E = cost sum_util /
    scale_cpu; cpu_util_next() capped at capacity_orig):
    candidates (capacity_margin 1280): LITTLE (cap 385) CPU 0: 288 fits, spare 97; 1 (512) and 2
      do not fit; prev 3 (256) fits. big: 4, 5: 640 (spare 384), 6: 768, 7: 512 (spare 512) -> 7.
    big without the task: utils 352, 352, 480, 224: max 480 -> 3504000 * 480 / 1024 = 1642500
      -> 1689600 (cost 527): 527 * 1408 / 1024 = 724. With it on 7 (512): max 512 -> 1752000
      -> 1766400 (cost 395): 395 * 1696 / 1024 = 654.
    LITTLE (fmax 1766400, all utils map above fmax: top cost 110): without the task (3: 256 -
      288 -> 0; 2 capped at 385) 0, 224, 385, 0: 110 * 609 / 385 = 174; task on prev 3 (256):
      110 * 865 / 385 = 247; task on 0 (288): 110 * 897 / 385 = 256.
    E(prev 3) = 724 + 247 = 971; E(7) = 654 + 174 = 828; E(0) = 724 + 256 = 980.
    best 828 (CPU 7): 971 - 828 = 143 > 971 >> 4 = 60 -> CPU 7 (v5.4: 3). Evaluations: 3
    candidates x 2 domains = 6."""

    from lisa_eas.errors import ModelError

    u = [0, 224, 416, 256, 352, 352, 480, 224]
    with pytest.raises(ModelError, match="v4.16"):      # before the RFC v2 era (ledger eas-v4.16)
        find_energy_efficient_cpu("pixel3", u, 288, 3, era="v4.15")
    d = find_energy_efficient_cpu("pixel3", u, 288, 3, era="v5.0")
    assert (d.cpu[0], d.pd_evaluations[0]) == (7, 6)
    assert (d.prev_energy[0], d.best_energy[0]) == (971, 828)
    assert find_energy_efficient_cpu("pixel3", u, 288, 3, era="v5.4").cpu[0] == 3


def test_eas_rfc_v2_costs_prev_without_fit_test_and_1_64_margin():
    """EAS RFC v2 (LKML, 6 Apr 2018, on 4.16-rc6; ledger eas-v4.16) against v5.0 (732cd75b8c92),
    worked from the two find_energy_efficient_cpu() texts and the v5.0 EM (the RFC's capacity-state
    EM picks the same state). juno_r0, CPUs [L0, B1, B2, L3, L4, L5]; truncated mW powers and
    cost = fmax * power / freq: LITTLE (scale 446, fmax 850000) 450000: 79, 775000: 106, 850000: 119;
    big (scale 1024, fmax 1100000) 450000: 391, 950000: 525, 1100000: 583; OPP = first freq >=
    (fmax + fmax/4) max_util / scale; E = cost * sum_util / scale.

    1. Prev costed without a fit test. utils [400, 0, 0, 345, 0, 0], task 100, prev 0 (LITTLE).
       v5.0: prev 0 (400 * 1280 > 446 * 1024) is skipped, so prev_energy = ULONG_MAX; LITTLE
       candidates: 3 (445) does not fit, 4 and 5 (100) spare 346 -> 4; big -> 1.
       E(4): LITTLE 300, 345, 100, 0 -> max 345: 821889 -> 850000 (119), 119 * 745 / 446 = 198;
       big 0. E(1): LITTLE 300, 345 -> 119 * 645 / 446 = 172; big 100: 134277 -> 450000 (391),
       391 * 100 / 1024 = 38; 210. prev_energy is ULONG_MAX -> CPU 4.
       RFC v2: prev costed: LITTLE 400, 345 -> max 400: 952914 -> top (119), 119 * 745 / 446 = 198;
       E(prev) = 198 = best; E(4) = 198 is not below, E(1) = 210 -> stays on 0.
    2. The margin. utils [0, 100, 700, 300, 300, 0], task 100, prev 1 (big, fits).
       E(prev 1): big 100 + 700 -> max 700: 939941 -> 950000 (525), 525 * 800 / 1024 = 410; LITTLE
       300, 300 -> 714686 -> 775000 (106), 106 * 600 / 446 = 142; 552. Big candidate 2 (800 fits,
       spare 224): big 0 + 800 -> 1074218 -> 1100000 (583), 583 * 800 / 1024 = 455; + 142 = 597.
       LITTLE candidate 0 (spare 346, first of 0 and 5): big 700 -> 525 * 700 / 1024 = 358; LITTLE
       sum 700 -> 106 * 700 / 446 = 166; 524. Best 524 (CPU 0): 552 - 524 = 28.
       v5.0: 28 > 552 >> 4 = 34 is false -> stays on 1. RFC v2: 28 > 552 >> 6 = 8 -> CPU 0."""
    u1 = [400, 0, 0, 345, 0, 0]
    d50 = find_energy_efficient_cpu("juno_r0", u1, 100, 0, era="v5.0")
    rfc = find_energy_efficient_cpu("juno_r0", u1, 100, 0, era="v4.16")
    assert d50.cpu[0] == 4 and np.isnan(d50.prev_energy[0]) and d50.best_energy[0] == 198
    assert rfc.cpu[0] == 0 and (rfc.prev_energy[0], rfc.best_energy[0]) == (198, 198)
    u2 = [0, 100, 700, 300, 300, 0]
    d50 = find_energy_efficient_cpu("juno_r0", u2, 100, 1, era="v5.0")
    rfc = find_energy_efficient_cpu("juno_r0", u2, 100, 1, era="v4.20")
    assert d50.cpu[0] == 1 and (d50.prev_energy[0], d50.best_energy[0]) == (552, 524)
    assert rfc.cpu[0] == 0 and (rfc.prev_energy[0], rfc.best_energy[0]) == (552, 524)


def test_eas_v5_4_prev_as_max_spare_not_recosted():
    """kernel/sched/fair.c v5.4 feec (4892f51ad54d): ``if (max_spare_cap_cpu >= 0 &&
    max_spare_cap_cpu != prev_cpu)``; v5.0-v5.3 have no such test but cost prev in the loop
    and ``continue`` (so prev is never the max-spare CPU there).
    juno_r0 [100, 50, 300, 100, 100, 100], task 50, prev 1 (big CPUs 1, 2; LITTLE 0, 3, 4, 5):
    big: prev 1 util 50 spare 974, CPU 2 util 350 spare 674 -> max spare is prev: base + prev
    = 2 evaluations; LITTLE: base + CPU 0 (max spare) = 2. Total 4 (the model gave 5)."""
    d = find_energy_efficient_cpu("juno_r0", [100, 50, 300, 100, 100, 100], 50, 1, era="v5.4")
    assert d.cpu[0] == 1 and d.pd_evaluations[0] == 4


def test_eas_v5_4_unsigned_delta_never_wins():
    """kernel/sched/fair.c v5.4 feec: cur_delta, prev_delta are unsigned long.
    pixel3 [0, 224, 416, 256, 352, 352, 480, 224], task 288, prev 3; rd->pd order big, LITTLE.
    big (4-7, cap 1024, fmax 2803200): base utils 352,352,480,224 -> max 480: freq 1.25*2803200*
      480/1024 = 1642500 -> 1689600 (cost 527); E = 527*1408/1024 = 724. Max spare CPU 7 (224+288
      = 512): max 512 -> 1752000 -> 1766400 (cost 395); E = 395*1696/1024 = 654; delta 654 - 724
      wraps to 2^64 - 70, which beats only ULONG_MAX: best_delta = 2^64 - 70, best CPU 7.
    LITTLE (0-3, cap 385): base utils 0,224,385,0 -> max 385 -> above fmax: cost 110;
      E = 110*609/385 = 174. prev 3 (256): sum 865 -> 247, prev_delta 73, best_delta = 73.
    (73 - 73) > (73 + 898) >> 4 is false -> prev 3. A signed delta (-70) would give
    73 + 70 = 143 > 60 -> CPU 7."""
    d = find_energy_efficient_cpu("pixel3", [0, 224, 416, 256, 352, 352, 480, 224], 288, 3, era="v5.4")
    assert d.cpu[0] == 3
    assert d.prev_energy[0] == 73 and d.best_energy[0] == 73 and d.base_energy[0] == 898


def test_eas_v5_14_base_only_for_domains_with_a_candidate():
    """kernel/sched/fair.c v5.13 feec (v5.4 form) vs v5.14 (8d4c97c105ca, 619e090c8e40, 0372e1cf70c2).
    juno_r0 [0, 568, 0, 472, 584, 0], task 360, prev 1 (big 1, 2 cap 1024, fmax 1100000;
    LITTLE 0, 3, 4, 5 cap 446).
    big base: utils 208, 0 -> v5.14 EM: min(208 + 52, 1024) = 260 -> 279296 kHz -> 450000
      (cost 391): E = 391*208/1024 = 79. prev 1: freq util 568, busy 208 + 360 = 568 ->
      710 -> 762695 -> 800000 (471): 471*568/1024 = 261, delta 182. CPU 2: freq utils 208, 360
      -> 450 -> 483398 -> 625000 (420); busy 208 + 360: 420*568/1024 = 232, delta 153.
    LITTLE: no CPU fits 360 (360*1280 >= 446*1024). v5.14 computes no LITTLE base:
      29 > (182 + 79) >> 4 = 16 -> CPU 2. v5.13 adds the LITTLE base (utils capped 0, 446,
      446, 0 at fmax, cost 119: 119*892/446 = 238): 29 > (182 + 317) >> 4 = 31 is false -> 1."""
    u = [0, 568, 0, 472, 584, 0]
    assert find_energy_efficient_cpu("juno_r0", u, 360, 1, era="v5.13").cpu[0] == 1
    d = find_energy_efficient_cpu("juno_r0", u, 360, 1, era="v5.14")
    assert d.cpu[0] == 2 and d.base_energy[0] == 79 and d.prev_energy[0] == 182 and d.best_energy[0] == 153


def test_eas_v5_14_prev_out_of_race_and_early_return():
    """kernel/sched/fair.c v5.14 feec: ``else if (spare_cap > max_spare_cap)`` (prev out of the
    race) and ``if (prev_delta < base_energy_pd) goto unlock`` (target = prev).
    States and kernel answers from the audit's second oracle (written from the v5.14/v5.17
    sources): pixel3 [116, 189, 131, 175, 6, 142, 4, 80], task 121, prev 2 -> CPU 0 (v5.13: 2);
    pixel3 [96, 218, 181, 129, 210, 147, 198, 172], task 96, prev 2 -> CPU 2 after 2
    evaluations (v5.13 costs 4)."""
    a = [116, 189, 131, 175, 6, 142, 4, 80]
    assert find_energy_efficient_cpu("pixel3", a, 121, 2, era="v5.14").cpu[0] == 0
    assert find_energy_efficient_cpu("pixel3", a, 121, 2, era="v5.13").cpu[0] == 2
    b = [96, 218, 181, 129, 210, 147, 198, 172]
    d = find_energy_efficient_cpu("pixel3", b, 96, 2, era="v5.14")
    assert d.cpu[0] == 2 and d.pd_evaluations[0] == 2
    assert find_energy_efficient_cpu("pixel3", b, 96, 2, era="v5.13").pd_evaluations[0] == 4


def test_eas_v6_0_costs_max_spare_v6_2_filters_it():
    """kernel/sched/fair.c v6.1 feec: ``if (max_spare_cap_cpu >= 0)``; v6.2: ``&& max_spare_cap >
    prev_spare_cap``. hikey960 [0, 0, 0, 0, 0, 0, 8, 0], task 8, prev 6: big 4-7 all util 8 (spare
    1016, prev 6 equal to the max spare CPU 4): v6.1 costs base, prev and CPU 4 (3), v6.2 base and
    prev (2); LITTLE: base + CPU 0 (2). Totals 5 and 4; the choice (CPU 0) is the same."""
    u = [0, 0, 0, 0, 0, 0, 8, 0]
    a = find_energy_efficient_cpu("hikey960", u, 8, 6, era="v6.1")
    b = find_energy_efficient_cpu("hikey960", u, 8, 6, era="v6.2")
    assert (a.cpu[0], a.pd_evaluations[0]) == (0, 5)
    assert (b.cpu[0], b.pd_evaluations[0]) == (0, 4)


def test_em_power_x1000_from_v5_15_moves_the_margin():
    """kernel/power/energy_model.c v5.14 em_create_perf_table: ``cost = fmax * power / freq`` (mW);
    v5.15 (7fcc17d0cb12 PM: EM: Increase energy calculation precision): ``power_res =
    em_scale_power(power)`` = power * 1000 first. feec is the v5.14 form in both.
    juno_r0 LITTLE (0, 3, 4, 5; cap 446, fmax 850000; 450000/575000 MHz at 42/58 mW), big (1, 2;
    cap 1024, fmax 1100000; 450000 at 160 mW). Costs: v5.14 850000 * 42 / 450000 = 79, * 58 /
    575000 = 85, 1100000 * 160 / 450000 = 391; v5.15 79333, 85739, 391111.
    State [208, 0, 27, 0, 0, 69] (big CPU 2 at 27), task 183, prev 0 (its 208 includes the task).
    Candidates: LITTLE prev 0 (208 fits 446), max spare CPU 3 (183, spare 263; 4 ties, 5: 252);
    big max spare CPU 1 (183, spare 841; CPU 2: 210).
    LITTLE base: utils 25, 0, 0, 69: max 69 -> 86 (map_util_perf) -> 163901 -> 450000; sum 94.
    prev 0: max 208 -> 260 -> 495515 -> 575000; busy 25 + 183 + 69 = 277.
    CPU 3: max 183 -> 228 -> 434529 -> 450000; busy 25 + 183 + 69 = 277.
    big base: max 27 -> 450000, sum 27; CPU 1: max 183 -> 228 -> 244921 -> 450000, sum 210.
    v5.14: base 79*94/446 = 16 + 391*27/1024 = 10 -> 26; prev 85*277/446 = 52 -> delta 36;
      CPU 3 79*277/446 = 49 -> 33; CPU 1 391*210/1024 = 80 -> 70. 36 - 33 = 3 > (36 + 26) >> 4 = 3
      is false -> prev 0.
    v5.15: base 79333*94/446 = 16720 + 391111*27/1024 = 10312 -> 27032; prev 85739*277/446 =
      53250 -> 36530; CPU 3 79333*277/446 = 49271 -> 32551; CPU 1 391111*210/1024 = 80208 ->
      69896. 36530 - 32551 = 3979 > (36530 + 27032) >> 4 = 3972 -> CPU 3."""
    from lisa_eas.energy_model import EnergyModel

    assert EnergyModel.from_platform("juno_r0", "v5.14").domain_of(0).cost[:2].tolist() == [79, 85]
    assert EnergyModel.from_platform("juno_r0", "v5.15").domain_of(0).cost[:2].tolist() == [79333, 85739]
    u = [208, 0, 27, 0, 0, 69]
    a = find_energy_efficient_cpu("juno_r0", u, 183, 0, era="v5.14")
    b = find_energy_efficient_cpu("juno_r0", u, 183, 0, era="v5.15")
    assert (a.cpu[0], a.prev_energy[0], a.best_energy[0], a.base_energy[0]) == (0, 36, 33, 26)
    assert (b.cpu[0], b.prev_energy[0], b.best_energy[0], b.base_energy[0]) == (3, 36530, 32551, 27032)


def test_em_uw_from_v6_0_not_v5_19():
    """kernel/power/energy_model.c v5.19 _get_power: mW (/1e9) then em_scale_power x1000; v6.0
    (ae6ccaa65038): uW (/1e6). hikey960 LITTLE 533 MHz: the platform file gives 28.728 mW.
    v5.19 cost = 1844000 * 28000 / 533000 = 96870; v6.0 = 1844000 * 28728 / 533000 = 99389.
    The decision moves with it: hikey960 [119, 0, 0, 0, 138, 0, 0, 20], task 27, prev 0 -> the
    v5.19 kernel picks CPU 1 (audit oracle); the same feec on uW costs keeps 0."""
    from lisa_eas.energy_model import EnergyModel

    assert int(EnergyModel.from_platform("hikey960", "v5.19").domain_of(0).cost[0]) == 96870
    assert int(EnergyModel.from_platform("hikey960", "v6.0").domain_of(0).cost[0]) == 99389
    u = [119, 0, 0, 0, 138, 0, 0, 20]
    assert find_energy_efficient_cpu("hikey960", u, 27, 0, era="v5.19").cpu[0] == 1
    em_uw = EnergyModel.from_platform("hikey960", "v6.0")
    assert find_energy_efficient_cpu("hikey960", u, 27, 0, era="v5.19", energy_model=em_uw).cpu[0] == 0


# -------------------------------------------------------------------------------------- SIS

_PROP_MIN = dict(feature="prop", avg_idle_ns=0, avg_scan_cost_ns=0)     # SIS_PROP depth nr = 4


def test_sis_v5_12_scans_from_target_v5_15_from_target_plus_1():
    """kernel/sched/fair.c v5.14 select_idle_cpu: for_each_cpu_wrap(cpu, cpus, target) with
    ``if (!--nr)``; v5.15 (56498cfb045d): from target + 1. One 8-CPU LLC, only CPU 7 idle,
    target = prev = recent = 4, nr 4: v5.14 looks at 4, 5, 6, the 4th decrement stops it ->
    target 4; v5.15 looks at 5, 6, 7 -> 7."""
    idle = [0, 0, 0, 0, 0, 0, 0, 1]
    a = select_idle_sibling(idle, 4, 4, recent_used_cpu=4, era="v5.14", **_PROP_MIN)
    b = select_idle_sibling(idle, 4, 4, recent_used_cpu=4, era="v5.15", **_PROP_MIN)
    assert a.cpu[0] == 4 and a.path_names[0] == "fallback_target"
    assert b.cpu[0] == 7 and b.path_names[0] == "idle_cpu"


def test_sis_before_v5_6_spends_depth_on_disallowed_cpus():
    """kernel/sched/fair.c v5.4 select_idle_cpu: for_each_cpu_wrap(cpu, sched_domain_span(sd),
    target) { if (!--nr) return -1; if (!cpumask_test_cpu(cpu, p->cpus_ptr)) continue; ...};
    v5.6 (60588bfa223f) walks span & p->cpus_ptr. Only CPU 3 idle, target 0, CPUs 1, 2 not
    allowed, nr 4: v5.4 decrements on 0, 1, 2 and stops at 3 -> target 0 after one allowed
    CPU; v5.6 examines 0, 3 -> 3."""
    idle = [0, 0, 0, 1, 0, 0, 0, 0]
    allowed = [1, 0, 0, 1, 1, 1, 1, 1]
    a = select_idle_sibling(idle, 0, 0, allowed=allowed, era="v5.4", **_PROP_MIN)
    b = select_idle_sibling(idle, 0, 0, allowed=allowed, era="v5.6", **_PROP_MIN)
    assert (a.cpu[0], a.scanned[0]) == (0, 1)
    assert (b.cpu[0], b.scanned[0]) == (3, 2)


def test_sis_v4_9_select_idle_cpu_depth_and_no_earlier_era():
    """kernel/sched/fair.c v4.9 (10e2f1acd010, 1ad3aaf3fcd2) select_idle_cpu: for_each_cpu_wrap(cpu,
    sched_domain_span(sd), target) { if (!--nr) return -1; ...; if (idle_cpu(cpu)) break; }.
    One 8-CPU LLC, only CPU 3 idle, target = prev 0, nr 4: 0 (nr 3), 1 (2), 2 (1), then 3 makes nr
    0 before it is examined -> -1; no SMT -> target 0 after 3 CPUs.
    v4.0 - v4.8 (recalled, not re-read: the pre-10e2f1acd010 select_idle_sibling walked the
    sd_llc groups for a wholly idle group, without a depth limit) would return 3: not modelled,
    the models refuse the era."""

    from lisa_eas.errors import ModelError

    idle = [0, 0, 0, 1, 0, 0, 0, 0]
    d = select_idle_sibling(idle, 0, 0, era="v4.9", **_PROP_MIN)
    assert (d.cpu[0], d.path_names[0], d.scanned[0]) == (0, "fallback_target", 3)
    with pytest.raises(ModelError, match="v4.9"):
        select_idle_sibling(idle, 0, 0, era="v4.8", **_PROP_MIN)


def test_sis_v5_7_asym_capacity_scans_every_cpu():
    """kernel/sched/fair.c v5.6 select_idle_sibling: no asymmetric path; a task that fits the
    smaller of prev and this CPU (wake_cap() false) reaches the LLC scan. v5.7 (b7a331615d25):
    ``if (static_branch_unlikely(&sched_asym_cpucapacity))`` -> select_idle_capacity() over
    sd_asym_cpucapacity (all CPUs) from target: the first idle CPU whose capacity_of fits.
    HiKey960-like: LITTLE 0-3 (462, one LLC), big 4-7 (1024, another LLC), only CPU 5 idle,
    target = prev 0, task util 100 (100 * 1280 < 462 * 1024: wake_cap false).
    v5.6: target busy, prev = target, LLC 0-3 all busy (nr 4: 0, 1, 2 examined, the 4th
    decrement stops it) -> target 0. v5.7: 0-4 busy, 5 idle and 100 * 1280 < 1024 * 1024 -> 5
    after examining 6 CPUs."""
    cap = [462] * 4 + [1024] * 4
    idle = [0, 0, 0, 0, 0, 1, 0, 0]
    llc = [0, 0, 0, 0, 1, 1, 1, 1]
    a = select_idle_sibling(idle, 0, 0, era="v5.6", llc_id=llc, **_PROP_MIN)
    b = select_idle_sibling(idle, 0, 0, era="v5.7", llc_id=llc, capacity_orig=cap, task_util=[100], **_PROP_MIN)
    assert (a.cpu[0], a.path_names[0]) == (0, "fallback_target")
    assert (b.cpu[0], b.path_names[0], b.scanned[0]) == (5, "idle_capacity", 6)


_SMT2 = [0, 0, 1, 1, 2, 2, 3, 3]       # core ids: SMT2 pairs (0,1) (2,3) (4,5) (6,7), one LLC


def test_sis_v5_12_merged_loop_returns_the_idle_cpu_seen_in_the_core_scan():
    """kernel/sched/fair.c v5.11 select_idle_sibling: select_idle_core() (whole LLC, no depth
    limit, only wholly idle cores) -> select_idle_cpu() (SIS_PROP nr) -> select_idle_smt(target).
    v5.12 (9fe1f127b913): one loop; while has_idle_cores is set there is no nr limit and
    select_idle_core() remembers the first idle allowed CPU it sees (*idle_cpu), returned when no
    core is wholly idle. SMT2 LLC of 8, has_idle_cores set (stale), only CPU 7 idle, target =
    prev 0, nr 4.
    v5.11: no idle core; select_idle_cpu: 0 (nr 3), 1 (2), 2 (1), 3 -> -1; select_idle_smt(0):
      1 busy -> target 0.
    v5.12: cores (0,1), (2,3), (4,5) busy; (6,7): 6 busy, 7 idle -> idle_cpu 7, core not idle;
      loop ends -> 7."""
    idle = [0, 0, 0, 0, 0, 0, 0, 1]
    a = select_idle_sibling(idle, 0, 0, era="v5.11", core_id=_SMT2, has_idle_core=True, **_PROP_MIN)
    b = select_idle_sibling(idle, 0, 0, era="v5.12", core_id=_SMT2, has_idle_core=True, **_PROP_MIN)
    assert (a.cpu[0], a.path_names[0]) == (0, "fallback_target")
    assert (b.cpu[0], b.path_names[0]) == (7, "idle_cpu")


def test_sis_v5_13_prev_smt_sibling_before_the_scan():
    """kernel/sched/fair.c v5.12 select_idle_sibling: no select_idle_smt() at all (9fe1f127b913
    removed it); v5.13 (c722f35b513f; the 5.12 stable queue carries it as "[PATCH 5.12 238/384]
    ... Upstream commit c722f35b513f", so 5.12.0 lacks it): when sched_smt_active() and no idle
    core is flagged and prev shares the LLC, select_idle_smt(p, sd, prev) first.
    SMT2 LLC of 8, has_idle_cores clear, idle CPUs 2 and 7, target 0 (the waker's CPU), prev 6.
    v5.12: target 0 busy, prev 6 busy; SIS_PROP nr 4 from 0: 0 (3), 1 (2), 2 (1) idle -> 2.
    v5.13: select_idle_smt(prev 6): 6 busy, 7 idle -> 7."""
    idle = [0, 0, 1, 0, 0, 0, 0, 1]
    a = select_idle_sibling(idle, 0, 6, era="v5.12", core_id=_SMT2, **_PROP_MIN)
    b = select_idle_sibling(idle, 0, 6, era="v5.13", core_id=_SMT2, **_PROP_MIN)
    assert (a.cpu[0], a.path_names[0]) == (2, "idle_cpu")
    assert (b.cpu[0], b.path_names[0]) == (7, "idle_smt")


# -------------------------------------------------------------------------------- schedutil


def test_schedutil_busy_hold_restores_cached_raw_freq_from_v5_11():
    """kernel/sched/cpufreq_schedutil.c v5.10 sugov_update_single: on a busy hold
    ``sg_policy->cached_raw_freq = 0``; v5.11 (0070ea296239): restored to the value before
    get_next_freq(). tc2 big (500-1200 MHz, cap 1024), rate limit 0:
    1) util 394 after idle: 1.25 * 1200000 * 394 / 1024 = 577148 -> 600000 (cached 577148);
    2) util 0, no idle since: raw 0 -> 500000 < 600000, held at 600000; v5.10 cached 0,
       v5.11 cached 577148;
    3) util 0 after idle: v5.10 raw 0 == cached -> next_freq 600000; v5.11 -> 500000."""
    f, c, cap = schedutil_tables("tc2", "big", era="v5.10")
    kw = dict(capacity=cap, rate_limit_us=0, went_idle=[1, 0, 1])
    assert schedutil_run([0, 1, 2], [394, 0, 0], f, era="v5.10", **kw).tolist() == [600000, 600000, 600000]
    assert schedutil_run([0, 1, 2], [394, 0, 0], f, era="v5.11", **kw).tolist() == [600000, 600000, 500000]


def test_schedutil_relation_le_skips_inefficient_opps_from_v5_16():
    """drivers/cpufreq/cpufreq.c v5.15 cpufreq_driver_resolve_freq: RELATION_L; v5.16
    (1f39fa0dccff): RELATION_LE. tc2 LITTLE (cap 430, fmax 1 GHz), EM costs (v5.16):
    600000 -> 678333 >= 638571 at 700000, so 600000 is inefficient. util 200: 1.25 * 1000000 *
    200 / 430 = 581395 -> v5.15 600000, v5.16 700000."""
    f, c, cap = schedutil_tables("tc2", "little", era="v5.16")
    assert schedutil_next_freq(200, f, capacity=cap, era="v5.15", costs=c) == 600000
    assert schedutil_next_freq(200, f, capacity=cap, era="v5.16", costs=c) == 700000


def test_schedutil_efficient_opp_above_policy_max_until_v6_9():
    """include/linux/cpufreq.h v6.8 cpufreq_table_find_index_l: the efficient entry may lie above
    policy->max; v6.9 (cpufreq_is_in_limits) redoes the search without efficiencies. tc2 LITTLE,
    policy max 600000, util 200: target clamped to 581395; the first efficient OPP >= it is
    700000: v6.8 returns 700000, v6.9 600000."""
    f, c, cap = schedutil_tables("tc2", "little", era="v6.8")
    assert schedutil_next_freq(200, f, capacity=cap, era="v6.8", costs=c, fmax=600000) == 700000
    assert schedutil_next_freq(200, f, capacity=cap, era="v6.9", costs=c, fmax=600000) == 600000


def test_schedutil_rt_added_after_util_est():
    """kernel/sched/cpufreq_schedutil.c v5.4 sugov_get_util: schedutil_cpu_util(cpu_util_cfs(rq)
    = max(util_avg, util_est), ...) then util += cpu_util_rt(rq): util_avg 100, util_est 300,
    RT 200 -> 500 (not max(100 + 200, 300) = 300). v5.4 map: 1.25 * 1200000 * 500 / 1024 =
    732421 -> tc2 big 800000 (300 -> 439453 -> 500000)."""
    f, c, cap = schedutil_tables("tc2", "big", era="v5.4")
    out = schedutil_run([0], [100], f, util_est=[300], util_rt=[200], capacity=cap, era="v5.4")
    assert out.tolist() == [800000]


def test_ondemand_relation_ce_from_v5_16():
    """drivers/cpufreq/cpufreq_ondemand.c v5.15 od_update: RELATION_C; v5.16: RELATION_CE. tc2
    LITTLE, one CPU busy 4 ms of every 10 ms: load 40, freq_next = 350000 + 40 * 650000 / 100 =
    610000. v5.15: closest 600000; v5.16: the efficient OPPs are 350000, 700000, 800000, 900000,
    1000000 -> 700000."""
    f, c, cap = schedutil_tables("tc2", "little", era="v5.16")
    grid, busy = [], []
    for k in range(4):
        grid += [k * 10_000_000, k * 10_000_000 + 4_000_000]
        busy += [1, 0]
    grid.append(40_000_000)
    busy.append(0)
    assert ondemand(grid, busy, f, era="v5.15", costs=c).freq_khz.tolist()[:3] == [600000] * 3
    assert ondemand(grid, busy, f, era="v5.16", costs=c).freq_khz.tolist()[:3] == [700000] * 3


def test_ondemand_v4_14_od_update_and_no_earlier_era():
    """drivers/cpufreq/cpufreq_ondemand.c v4.14 od_update: load > up_threshold (95 with idle micro
    accounting) -> policy->max; else ``freq_next = min_f + load * (max_f - min_f) / 100`` and
    __cpufreq_driver_target(..., CPUFREQ_RELATION_C) (cpufreq_table_find_index_ac: the closest,
    ties to the lower). The models start at v4.14 (the row is their floor, not a kernel change;
    earlier eras are refused). tc2 LITTLE (350000, 400000, 500000 ... 1000000), samples every
    10 ms. Busy 6 ms of 10: load 100 * (10000 - 4000) / 10000 = 60 -> 350000 + 60 * 650000 / 100
    = 740000: 700000 (40000 away) beats 800000 (60000) -> 700000. Busy 9.6 ms: load 96 > 95 ->
    1000000."""

    from lisa_eas.errors import ModelError

    f, c, cap = schedutil_tables("tc2", "little", era="v5.15")

    def run(busy_ns, era):
        grid, busy = [], []
        for k in range(4):
            grid += [k * 10_000_000, k * 10_000_000 + busy_ns]
            busy += [1, 0]
        return ondemand(grid + [40_000_000], busy + [0], f, era=era).freq_khz.tolist()

    assert run(6_000_000, "v4.14") == [700000] * 4
    assert run(9_600_000, "v4.14") == [1000000] * 4
    with pytest.raises(ModelError, match="v4.14"):
        run(6_000_000, "v4.13")


def test_ondemand_v4_17_reuses_prev_load_after_a_late_busy_sample_v4_18_computes_it():
    """drivers/cpufreq/cpufreq_governor.c dbs_update (v4.17; v4.5 dbs_check_cpu alike) vs v4.18
    (7592019634f8). Per CPU: time_elapsed = now - prev_update_time, idle_time = idle now - idle
    then; if time_elapsed is 0 the previous load; else if the long-idle test holds and prev_load
    is set: load = prev_load, prev_load = 0; else load = 100 * (time_elapsed - idle_time) /
    time_elapsed, prev_load = load. v4.17 tests time_elapsed > 2 * sampling_rate, v4.18
    (int)idle_time > 2 * sampling_rate (sampling_rate = 10000 us x rate_mult 1). od_update: load >
    up_threshold 95 -> policy->max; else min + load * (max - min) / 100, RELATION_C.
    tc2 LITTLE (350000, 400000, 500000 ... 1000000 kHz), one CPU, governor started at 0.
    Sample 1 at 10 ms, idle 9 ms of 10: load 100 * 1000 / 10000 = 10 (both), prev_load 10 ->
    350000 + 10 * 650000 / 100 = 415000 -> 400000 (15000 away; 500000 is 85000).
    Sample 2 late at 40 ms (an RT task held the CPU and starved the sample's kworker), idle 0 in
    30 ms: v4.17: 30000 > 20000 and prev_load 10 -> load 10 once -> 400000, prev_load 0;
    v4.18: idle 0 > 20000 fails -> load 100 * 30000 / 30000 = 100 > 95 -> 1000000.
    Sample 3 at 50 ms, busy all 10 ms: 10000 > 20000 fails in both -> load 100 -> 1000000.
    A long idle (sample 2 at 40 ms with idle 30 ms) reuses 10 in both: 30000 > 20000 either way."""
    from lisa_eas._kernels import governors as kg

    f, c, cap = schedutil_tables("tc2", "little", era="v5.15")
    assert f.tolist() == [350000, 400000, 500000, 600000, 700000, 800000, 900000, 1000000]

    def run(idles, long_idle):
        cst, pst = np.zeros((1, kg.OD_CPU_SIZE), np.int64), np.zeros(kg.OD_POL_SIZE, np.int64)
        kg.ondemand_init(0, np.zeros(1, np.int64), f[0], cst, pst)
        out = []
        for now_ms, idle_us in idles:
            out.append(int(kg.ondemand_step(now_ms * 1_000_000, np.array([idle_us], np.int64), f, 10_000, 95, 1,
                                            cst, pst, None, long_idle)))
        return out

    late_busy = [(10, 9_000), (40, 9_000), (50, 9_000)]
    assert run(late_busy, kg.OD_LONG_IDLE_ELAPSED) == [400000, 400000, 1000000]      # v4.17
    assert run(late_busy, kg.OD_LONG_IDLE_IDLE) == [400000, 1000000, 1000000]        # v4.18
    long_idle = [(10, 9_000), (40, 39_000)]
    assert run(long_idle, kg.OD_LONG_IDLE_ELAPSED) == run(long_idle, kg.OD_LONG_IDLE_IDLE) == [400000, 400000]
    # the simulator's choice per era (and the tunable that overrides it)
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._engine import ondemand_long_idle

    assert ondemand_long_idle(SimConfig(governor="ondemand", era="v4.17")) == kg.OD_LONG_IDLE_ELAPSED
    assert ondemand_long_idle(SimConfig(governor="ondemand", era="v4.18")) == kg.OD_LONG_IDLE_IDLE
    assert ondemand_long_idle(SimConfig(governor="ondemand", era="v5.4",
                                        governor_tunables={"long_idle_test": 1})) == kg.OD_LONG_IDLE_ELAPSED


def test_schedutil_map_util_perf_rounds_differently_from_v5_14():
    """kernel/sched/cpufreq_schedutil.c v5.13 get_next_freq: map_util_freq = (f + f/4) * util / max;
    v5.14: util = map_util_perf(util) = util + util/4, then f * util / max (f = the table's top,
    1200000; max 1024). util 817: v5.13 1500000 * 817 / 1024 = 1196777; v5.14 (817 + 204) = 1021
    -> 1200000 * 1021 / 1024 = 1196484. An OPP at 1196600 separates them (RELATION_L):
    v5.13 -> 1200000, v5.14 -> 1196600."""
    h = [1000000, 1196600, 1200000]
    assert schedutil_next_freq(817, h, era="v5.13") == 1200000
    assert schedutil_next_freq(817, h, era="v5.14") == 1196600


def test_lb_v4_19_leaves_a_misfit_task_v4_20_moves_it_up():
    """kernel/sched/fair.c v4.19 has no misfit path; v4.20 (3b1baa6496e6) adds group_misfit_task.

    Juno r0, no EAS, one thread that never sleeps, started on LITTLE CPU 0 (threads started in
    turn), everything else idle. v4.19: nohz_balancer_kick() on CPU 0's ticks never kicks
    (rq->nr_running 1, the LITTLE LLC's nr_busy_cpus 1, no RT pressure) and CPU 0's own
    rebalance_domains(CPU_NOT_IDLE) finds nothing busier than itself: the thread stays on CPU 0.
    v4.20: once its util exceeds the LITTLE capacity's fit (util * 1280 >= 446 * 1024, util >= 357)
    the misfit task is moved up to an idle big CPU (the simulator: at the periodic balance)."""
    from lisa_eas.rtapp import Phase, Run, task, workload
    from lisa_eas.sim import SimConfig, simulate

    wl = workload([task("hog", [Phase(name="h", events=(Run(2_000_000),), loop=1)])], calibration=20)
    where = {}
    for era in ("v4.19", "v4.20"):
        tr = simulate("juno_r0", wl, config=SimConfig(era=era, placement="no-eas", duration_s=1.0,
                                                      ablate=("fork-placement",)))
        sw = tr.df("sched_switch")
        ran = sw[sw["next_comm"] == "hog"]
        where[era] = (int(ran["__cpu"].iloc[0]), sorted(set(ran["__cpu"].astype(int))), len(tr.df("sched_migrate_task")))
    assert where["v4.19"] == (0, [0], 0)
    first, cpus, migrations = where["v4.20"]
    assert first == 0 and migrations == 1 and cpus[-1] in (1, 2)


# ------------------------------------------------------------------------------- the ledger

#: Ledger rows and the test above that pins each with a discriminating state.
PINNED = {
    "pelt-v4.12": test_pelt_v4_11_old_update_vs_v4_12_accumulate_sum,
    "pelt-v4.13": test_pelt_v4_12_vs_v4_13_divider,
    "pelt-v5.13": test_pelt_v5_12_sub_positive_vs_v5_13_util_sum_resynced,
    "pelt-v5.17": test_pelt_v5_16_resync_vs_v5_17_sub_positive_with_floor,
    "util_est-v5.13": test_util_est_flag_kept_by_task_util_est_before_v5_13,
    "eas-v5.4": test_eas_v5_4_unsigned_delta_never_wins,
    "eas-v5.14": test_eas_v5_14_base_only_for_domains_with_a_candidate,
    "eas-v6.2": test_eas_v6_0_costs_max_spare_v6_2_filters_it,
    "em-v6.0": test_em_uw_from_v6_0_not_v5_19,
    "sis-v5.6": test_sis_before_v5_6_spends_depth_on_disallowed_cpus,
    "sis-v5.15": test_sis_v5_12_scans_from_target_v5_15_from_target_plus_1,
    "schedutil-v5.11": test_schedutil_busy_hold_restores_cached_raw_freq_from_v5_11,
    "schedutil-v5.16": test_schedutil_relation_le_skips_inefficient_opps_from_v5_16,
    "schedutil-v6.9": test_schedutil_efficient_opp_above_policy_max_until_v6_9,
    "ondemand-v5.16": test_ondemand_relation_ce_from_v5_16,
    "pelt-v4.11": test_pelt_v4_11_tables_are_the_kernels,
    "pelt-v5.7": test_pelt_v5_7_runnable_avg_without_weight,
    "util_est-v4.17": test_feec_zero_util_early_exit_only_from_v5_13,
    "schedutil-v5.14": test_schedutil_map_util_perf_rounds_differently_from_v5_14,
    "pelt-v4.15": test_pelt_v4_15_weight_applied_in_the_average,
    "eas-v5.0": test_eas_v5_0_costs_whole_system_energy_and_signed_margin,
    "eas-v4.16": test_eas_rfc_v2_costs_prev_without_fit_test_and_1_64_margin,
    "em-v5.15": test_em_power_x1000_from_v5_15_moves_the_margin,
    "sis-v4.9": test_sis_v4_9_select_idle_cpu_depth_and_no_earlier_era,
    "sis-v5.7": test_sis_v5_7_asym_capacity_scans_every_cpu,
    "sis-v5.12": test_sis_v5_12_merged_loop_returns_the_idle_cpu_seen_in_the_core_scan,
    "sis-v5.13": test_sis_v5_13_prev_smt_sibling_before_the_scan,
    "ondemand-v4.14": test_ondemand_v4_14_od_update_and_no_earlier_era,
    "ondemand-v4.18": test_ondemand_v4_17_reuses_prev_load_after_a_late_busy_sample_v4_18_computes_it,
    "lb-v4.20": test_lb_v4_19_leaves_a_misfit_task_v4_20_moves_it_up,
}

#: Rows whose before/after behaviour is held by earlier tests (era contrasts written before the
#: audit; their expected values were worked by hand there, not re-derived in this session).
COVERED_ELSEWHERE = {
    "pelt-v5.1": "test_models_pelt.py::test_time_scaling_invariance_v5_1",
    "util_est-v5.1": "test_models_pelt.py::test_util_est_eras_at_first_dequeue",
    "util_est-v5.5": "test_models_pelt.py::test_util_est_eras_at_first_dequeue",
    "util_est-v6.8": "test_models_pelt.py::test_util_est_eras_at_first_dequeue",
    "util_est-v6.12": "test_util_est_order_era.py::test_util_est_samples_before_or_after_the_dequeue_update",
    "eas-v6.0": "test_models_eas.py::test_margin_keeps_prev_in_v5_but_not_in_v6",
    "eas-v6.5": "test_models_inputs.py::test_runnable_boosting_from_v6_5",
    "em-v5.0": "test_energy_model.py::test_em_cpu_energy_per_era_by_hand",
    "em-v5.14": "test_energy_model.py::test_em_cpu_energy_per_era_by_hand",
    "em-v5.16": "test_energy_model.py::test_inefficient_states_flagged_and_skipped",
    "em-v6.8": "test_energy_model.py::test_em_cpu_energy_per_era_by_hand",
    "em-v6.9": "test_energy_model.py::test_hikey960_little_v6_9_performance_and_cost_by_hand",
    "sis-v5.10": "test_models_sis_asym.py::test_v5_10_checks_target_prev_recent_first",
    "sis-v6.2": "test_models_sis_asym.py::test_sis_v6_2_util_fits_cpu_replaces_the_clamped_fit",
    "sis-v6.3": "test_models_sis_asym.py::test_sis_v6_3_scan_from_target_plus_one_and_the_minus_one_tier",
    "sis-v6.0": "test_models_sis.py::test_sis_util_reproduces_published_rows_exactly",
    "sis-v5.14": "test_wakeup_eras.py::test_sis_prop_v5_14_charges_the_scan_to_wake_avg_idle",
    "wakeup-v4.14": "test_wakeup_eras.py::test_wake_affine_v4_14_weight_and_sync_by_hand",
    "wakeup-v4.16": "test_wakeup_eras.py::test_recent_used_cpu_v4_16_candidate_and_v5_15_always_prev",
    "wakeup-v5.5": "test_wakeup_eras.py::test_wake_affine_v5_5_compares_load_avg_not_runnable_load",
    "wakeup-v5.7": "test_wakeup_eras.py::test_avg_idle_update_v5_7_signed_division_moves_the_sis_prop_depth",
    "wakeup-v5.11": "test_wakeup_eras.py::test_wake_affine_v5_11_keeps_an_idle_prev",
    "topology-v5.10": "test_wakeup_eras.py::test_topology_v5_10_die_imbalance_pct_moves_wake_affine_across_llcs",
    "wakeup-v5.15": "test_wakeup_eras.py::test_recent_used_cpu_v4_16_candidate_and_v5_15_always_prev",
    "sis-v6.7": "test_models_sis.py::test_sis_prop_depth",
    "schedutil-v5.0": "test_models_schedutil.py::test_next_freq_formula_and_tipping_point",
    "schedutil-v6.5": "test_models_inputs.py::test_schedutil_runnable_boosting_from_v6_5",
    "schedutil-v6.8": "test_models_schedutil.py::test_uclamp_max_caps_a_saturated_cpu_v6_8",
    "uclamp-v5.3": "test_sim_inputs.py::test_uclamp_needs_v5_3_and_v5_3_clamps",
    "thermal-v5.7": "test_sim_inputs.py::test_thermal_cap_moves_a_task_from_v5_7",
    "thermal-v6.10": "test_sim_inputs.py::test_thermal_load_avg_v6_9_vs_cpufreq_pressure_v6_10",
    "uclamp-v5.6": "test_uclamp_fits.py::test_uclamp_fit_starts_in_v5_6",
    "uclamp-v5.14": "test_uclamp_eras.py::test_idle_rq_kept_uclamp_max_v5_13_vs_v5_14",
    "uclamp-v6.2": "test_uclamp_fits.py::test_boosted_task_with_no_util_v6_1_v6_2_v6_3",
    "uclamp-v6.3": "test_uclamp_fits.py::test_util_fits_cpu_forms_by_hand",
    "uclamp-v6.7": "test_uclamp_fits.py::test_spare_capacity_zero_is_a_candidate_from_v6_7",
    "cpufreq_delay-v4.7": "test_cpufreq_delay_era.py::test_rate_limit_v4_7_uncapped_vs_v4_14_capped",
    "cpufreq_delay-v4.14": "test_cpufreq_delay_era.py::test_rate_limit_v4_14_transition_delay_us_wins",
    "cpufreq_delay-v6.9": "test_cpufreq_delay_era.py::test_rate_limit_v6_8_10ms_cap_vs_v6_9_2ms_cap",
    "cpufreq_delay-v6.12": "test_cpufreq_delay_era.py::test_rate_limit_v6_11_vs_v6_12_one_and_a_half_latency",
    "fork-v4.14": "test_fork_eras.py::test_fork_v4_14_vs_v5_5_by_hand",
    "fork-v5.5": "test_fork_eras.py::test_fork_v4_14_vs_v5_5_by_hand",
    "wake_cap-v4.10": "test_sim_scenarios.py::test_capacity_aware_wakeup_from_v5_7",
    "wake_cap-v4.16": "test_fork_eras.py::test_wake_slow_path_v5_6_vs_v5_7_by_hand",
    "wake_cap-v5.7": "test_fork_eras.py::test_wake_slow_path_v5_6_vs_v5_7_by_hand",
    "newidle-v4.14": "test_sim_newidle.py::test_no_overload_no_newidle_pull",
    "lb-v4.16": "test_ref_lb_v4.py::test_a_idle_balance_at_die_pulls_two_tasks_from_cpu0",
    "newidle-v4.20": "test_sim_newidle.py::test_misfit_sets_overload_from_v4_20",
    "newidle-v5.16": "test_sim_newidle.py::test_newidle_v5_15_skips_on_avg_idle_v5_16_pulls",
    "cfs-v4.14": "test_sim_eevdf.py::test_waking_task_preempts_under_v6_5_and_waits_for_the_deadline_under_v6_6",
    "cfs-v6.6": "test_sim_eevdf.py::test_waking_task_preempts_under_v6_5_and_waits_for_the_deadline_under_v6_6",
}

@pytest.mark.parametrize("key", [r.key for r in ERA_LEDGER])
def test_row_is_pinned(key):
    """Every ledger row has its discriminating test: here (PINNED) or an earlier era contrast."""
    assert (key in PINNED) != (key in COVERED_ELSEWHERE), key
    if key in COVERED_ELSEWHERE:
        name, func = COVERED_ELSEWHERE[key].split("::")
        assert f"def {func}(" in (pathlib.Path(__file__).resolve().parent / name).read_text()
    else:
        assert PINNED[key].__name__.startswith("test_") and PINNED[key].__doc__


def test_pinned_rows_exist_in_the_ledger():
    for key in PINNED:
        assert ledger_row(key).key == key


def test_models_era_tuples_come_from_the_ledger():
    from lisa_eas.energy_model import EM_ERAS
    from lisa_eas.models import EAS_ERAS, PELT_ERAS, SCHEDUTIL_ERAS, SIS_ERAS, UTIL_EST_ERAS

    for area, eras in (("pelt", PELT_ERAS), ("util_est", UTIL_EST_ERAS), ("eas", EAS_ERAS), ("em", EM_ERAS),
                       ("sis", SIS_ERAS), ("schedutil", SCHEDUTIL_ERAS)):
        assert eras == eras_of(area)


def test_every_ledger_citation_in_the_code_is_a_row():
    """Each ``ledger <key>`` comment in the package names a row of ERA_LEDGER."""
    keys = {r.key for r in ERA_LEDGER}
    root = pathlib.Path(__file__).resolve().parents[1] / "lisa_eas"
    cited = set()
    for path in root.rglob("*.py"):
        for m in re.finditer(r"ledger (?:rows? )?([a-z_]+-v\d+\.\d+)", path.read_text()):
            cited.add((m.group(1), path.name))
    assert cited, "no ledger citations found"
    unknown = sorted(c for c in cited if c[0] not in keys)
    assert not unknown


def test_ledger_rows_are_unique_and_sorted_per_area():
    keys = [r.key for r in ERA_LEDGER]
    assert len(keys) == len(set(keys))
    for r in ERA_LEDGER:
        assert r.key == f"{r.area}-{r.version_name}"
        assert r.source in ("read", "audit", "verified", "recalled")
        assert (r.source == "verified") <= bool(r.evidence), r.key     # a verified row says how


def test_docs_list_every_ledger_row():
    readme = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "guide" / "models.md").read_text()
    missing = [r.key for r in ERA_LEDGER if f"`{r.key}`" not in readme]
    assert not missing
