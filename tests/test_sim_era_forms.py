"""The simulator runs each kernel version's own forms (the era ledger's rows, as the models
map them), and decides differently where the kernel before and after an era row does.

Hand-worked from the kernel sources and the tc2 Energy Model (v5.16+, ``em_compute_costs``:
from the top OPP down, an OPP whose cost is not below the last efficient one above it is
INEFFICIENT, and cpufreq skips it: schedutil with CPUFREQ_RELATION_LE, ondemand with
CPUFREQ_RELATION_CE, 1f39fa0dccff):

* A7 cluster (CPUs 2-4, OPPs 350-1000 MHz) costs 534285, 687500, 668000, 678333, 638571,
  686250, 845555, 1024000: 400, 500 and 600 MHz cost more than 700 MHz (638571), so they are
  inefficient; 350 MHz (534285 < 638571) stays.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from lisa_eas._kernels import eas as ke
from lisa_eas._kernels import schedutil as ksu
from lisa_eas._kernels import sim_models as sm
from lisa_eas._kernels import sis as ksis
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, RunTime, Sleep, periodic, task, workload
from lisa_eas.sim import SimConfig, simulate
from lisa_eas.sim._engine import _model_params

TC2 = load_platform("tc2")
A7_INEFFICIENT = {400000, 500000, 600000}
MS = 1_000_000


def _params(era, placement="eas"):
    caps = np.array([TC2.domain_of(c).cpu_capacity_max for c in range(TC2.nr_cpus)], np.int64)
    return _model_params(TC2, SimConfig(era=era, placement=placement), 0, caps)


@pytest.mark.parametrize("era, eas, overutil", [
    ("v4.15", ke.EAS_V5_4, ke.EAS_V5_0),     # before the RFC v2's base: the v5.4 form (stated)
    ("v4.19", ke.EAS_RFC_V2, ke.EAS_V5_0),   # v4.16 - v4.20: the April 2018 RFC v2 (ledger eas-v4.16)
    ("v5.0", ke.EAS_V5_0, ke.EAS_V5_0), ("v5.3", ke.EAS_V5_0, ke.EAS_V5_0),
    ("v5.4", ke.EAS_V5_4, ke.EAS_V5_4), ("v5.13", ke.EAS_V5_4, ke.EAS_V5_4),
    ("v5.14", ke.EAS_V5_14, ke.EAS_V5_14), ("v5.19", ke.EAS_V5_14, ke.EAS_V5_14),
    ("v6.0", ke.EAS_V6_0, ke.EAS_V6_0), ("v6.1", ke.EAS_V6_0, ke.EAS_V6_0),
    ("v6.2", ke.EAS_V6_2, ke.EAS_V6_2), ("v6.9", ke.EAS_V6_2, ke.EAS_V6_2)])
def test_eas_form_of_each_era(era, eas, overutil):
    mp = _params(era)
    assert mp[sm.M_EAS_ERA] == eas and mp[sm.M_EAS_OVERUTIL_ERA] == overutil
    assert _params(era, "eas-v5.0")[sm.M_EAS_ERA] == ke.EAS_V5_0


@pytest.mark.parametrize("era, sis, su, restore, limits", [
    ("v5.4", ksis.SIS_V4_0, ksu.SU_V5_0, 0, 0), ("v5.6", ksis.SIS_V4, ksu.SU_V5_0, 0, 0),
    ("v5.11", ksis.SIS_V4, ksu.SU_V5_0, 1, 0), ("v5.12", ksis.SIS_V5_12, ksu.SU_V5_0, 1, 0),
    ("v5.13", ksis.SIS_V5_12_14, ksu.SU_V5_0, 1, 0),
    ("v5.14", ksis.SIS_V5_12_14, ksu.SU_V5_14, 1, 0), ("v5.15", ksis.SIS_V5_15, ksu.SU_V5_14, 1, 0),
    ("v6.8", ksis.SIS_V5_15, ksu.SU_V6_8, 1, 0), ("v6.9", ksis.SIS_V5_15, ksu.SU_V6_8, 1, 1)])
def test_sis_and_schedutil_forms_of_each_era(era, sis, su, restore, limits):
    mp = _params(era)
    assert (mp[sm.M_SIS_MODE], mp[sm.M_SU_ERA]) == (sis, su)
    assert (mp[sm.M_SU_RESTORE_CACHED], mp[sm.M_SU_LIMITS_CHECK]) == (restore, limits)


def _a7_freqs(tr, cpu=2):
    f = tr.df("cpu_frequency")
    f = f[f["cpu_id"] == cpu]
    return list(zip(f["__ts"].tolist(), f["state"].tolist()))


def test_ondemand_v5_16_skips_inefficient_opps():
    # one task pinned to CPU 2 (A7), busy 2.5 ms of every 10 ms: at the 10 ms sample the load is
    # 25 % (< up_threshold 95), target = 350000 + 25 * (1000000 - 350000) / 100 = 512500 kHz.
    # v5.15 RELATION_C: the closest OPP, 500000 (12500 away). v5.16 RELATION_CE: the closest
    # efficient OPP, 350000 (162500 away; 700000 is 187500 away), the frequency already set.
    wl = workload([task("solo", [Phase(name="p", events=(RunTime(2_500), Sleep(7_500)), loop=10)], cpus=[2])],
                  calibration=20)

    def run(era):
        return simulate(TC2, wl, config=SimConfig(governor="ondemand", placement="no-eas", era=era, duration_s=0.1))
    assert _a7_freqs(run("v5.15"))[:2] == [(0, 350000), (10 * MS, 500000)]
    assert _a7_freqs(run("v5.16")) == [(0, 350000)]


def test_schedutil_v5_16_never_sets_an_inefficient_opp():
    # a 10 % periodic task pinned to CPU 2: its utilization asks for frequencies across
    # 350-700 MHz. v5.15 (RELATION_L) sets the lowest OPP at or above each request, 400, 500 and
    # 600 MHz among them; v5.16 (RELATION_LE) the lowest efficient one, so every request above
    # 350 MHz and up to 700 MHz is 700 MHz, and 400-600 MHz never appear.
    wl = workload([task("solo", periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.5), cpus=[2])],
                  calibration=20)

    def run(era):
        tr = simulate(TC2, wl, config=SimConfig(governor="schedutil", placement="no-eas", era=era, duration_s=0.5))
        return Counter(f for _, f in _a7_freqs(tr))
    old, new = run("v5.15"), run("v5.16")
    assert A7_INEFFICIENT <= set(old)
    assert not A7_INEFFICIENT & set(new) and new[700000] > 0


def test_schedutil_adds_rt_after_the_util_est_max():
    # HiKey960 CPU 4 (big policy of CPUs 4-7, capacity 1024; the other three never run
    # anything, so the policy's utilization is CPU 4's). A FIFO task runs 20 ms at the start and
    # exits; its rt_rq utilization then decays while a CFS periodic task runs. sugov_get_util()
    # (v5.4): util = cpu_util_cfs() = max(util_avg, util_est.enqueued), then
    # schedutil_cpu_util() adds cpu_util_rt(): min(max(ua, ue) + rt, 1024); get_next_freq():
    # (fmax + fmax/4) * util / 1024, then the lowest OPP at or above it. At each tick of CPU 4
    # (the model's cpu_util row follows the tick's cpufreq_update_util with the same inputs)
    # the frequency set must be that one, and on some ticks max(ua + rt, ue) (the order the
    # simulator used before) asks for another OPP.
    plat = load_platform("hikey960")
    big = [o.freq_khz for o in plat.domain_of(4).opps]
    fmax = big[-1]

    def opp(util):
        raw = (fmax + (fmax >> 2)) * min(util, 1024) // 1024
        return next((f for f in big if f >= raw), fmax)

    wl = workload([task("cfs", periodic(duty_cycle_pct=30, period_ms=16, duration_s=0.4), cpus=[4]),
                   task("rt", [Phase(name="r", events=(RunTime(20_000),), loop=1)], cpus=[4],
                        policy="SCHED_FIFO", priority=10)], calibration=20)
    tr = simulate(plat, wl, config=SimConfig(governor="schedutil", placement="no-eas", era="v5.4", duration_s=0.4,
                                             transition_latency_us=0, governor_tunables={"rate_limit_us": 0}))
    u = tr.df("lisa_sim_cpu_util")
    f = tr.df("cpu_frequency")
    f = f[f["cpu_id"] == 4]
    fts, fval = f["__ts"].to_numpy(), f["state"].to_numpy()
    per_t = u.groupby("__ts")["cpu"].transform("size")
    rows = u[(u["cpu"] == 4) & (per_t == 1) & (u["__ts"] > 40 * MS) & (u["nr_running"] <= 1)]
    checked = differ = 0
    for ts, ua, ue, rt in zip(rows["__ts"], rows["util_avg"], rows["util_est_enqueued"], rows["rt_util_avg"]):
        cur = int(fval[np.searchsorted(fts, ts, side="right") - 1])
        assert cur == opp(min(max(ua, ue), 1024) + rt), (ts, ua, ue, rt, cur)
        checked += 1
        differ += opp(max(ua + rt, ue)) != cur
    assert checked > 20 and differ > 0


# --------------------------------------------------------------- EAS placement, era against era

def _eas_decisions(era, tasks, duration_s):
    wl = workload(tasks, calibration=1024)
    # the states below were worked with the threads started on their CPUs in turn (not the fork balance)
    tr = simulate("juno_r0", wl, config=SimConfig(era=era, governor="performance", util_est=False,
                                                  duration_s=duration_s, ablate=("fork-placement",)))
    return tr.df("lisa_sim_eas_decision").reset_index(drop=True)


def test_eas_v5_13_and_v5_14_place_a_waking_task_differently():
    """juno_r0 (LITTLE 0, 3, 4, 5 at 446, fmax 850000, OPPs 450/575/700/775/850 MHz at cost 79/85/95/
    106/119; big 1, 2 at 1024, fmax 1100000, 450 MHz cost 391), performance governor, no util_est.
    "bg" (61 % of 10 ms) is pinned to CPU 5; "w" (2 % of 10 ms) may run on CPUs 1 and 5 only.
    Both runs decide alike until w's wake-up at 94 ms, where the simulator's state (its inputs,
    recorded in lisa_sim_eas_decision) is: w util 33 (util_est 0; synced to idle CPU 1's last
    update), prev 1; CPU 1 util 33 (w's own), CPU 5 util 261 (bg), every other CPU 0. Worked
    from kernel/sched/fair.c and kernel/power/energy_model.c:
    v5.13 (feec v5.4 form; em_cpu_energy freq = (f + f/4) max_util / scale):
      LITTLE base: max 261 -> 1062500 * 261 / 446 = 621776 -> 700000 (95): 95 * 261 / 446 = 55.
      CPU 5 (the only allowed LITTLE, 294 fits, max spare, not prev): 1062500 * 294 / 446 =
      700392 -> 775000 (106): 106 * 294 / 446 = 69 -> delta 14.
      big base 0 (33 - 33 on prev). prev 1: 1375000 * 33 / 1024 = 44311 -> 450000 (391):
      391 * 33 / 1024 = 12 -> delta 12; prev is its domain's max-spare CPU (not re-costed).
      best_delta = min(14, 12) = 12 = prev's: no saving -> CPU 1; 4 evaluations.
    v5.14 (8d4c97c105ca, 619e090c8e40, 0372e1cf70c2 form; em-v5.14 freq = f * (u + u/4) / scale):
      LITTLE base: 261 + 65 = 326 -> 850000 * 326 / 446 = 621300 -> 700000: 55.
      CPU 5: 294 + 73 = 367 -> 699439 -> 700000 (95); busy cpu_util_next(5, p, -1) + task_util_est
      = 261 + 33 = 294: 95 * 294 / 446 = 62 -> delta 7.
      big: base 0; prev 1: 33 + 8 = 41 -> 44043 -> 450000: 391 * 33 / 1024 = 12 -> delta 12.
      12 - 7 = 5 > (12 + 55) >> 4 = 4 -> CPU 5; 4 evaluations.
    (Here the 1.25 rounding of the EM's frequency decides: 700392 vs 699439 around 700000. With
    bg at 60 % the knife-edge sat at 74 ms while the simulator synced w to the wake-up time;
    synced to CPU 1's last update, w's util there is 41, not 39, and both eras pick CPU 1.)"""
    tasks = [task("bg", periodic(10, 61, 0.12, runtime=True), cpus=(5,)),
             task("w", periodic(10, 2, 0.12, runtime=True), cpus=(1, 5))]
    a = _eas_decisions("v5.13", tasks, 0.12)
    b = _eas_decisions("v5.14", tasks, 0.12)
    k = int(np.flatnonzero((a["__ts"] == 94 * MS) & (a["comm"] == "w"))[0])
    assert a["chosen_cpu"].iloc[:k].tolist() == b["chosen_cpu"].iloc[:k].tolist()
    ins = ["prev_cpu", "task_util", "in_task_util_est"] + [f"util_cpu{c}" for c in range(6)]
    assert a.loc[k, ins].tolist() == b.loc[k, ins].tolist() == [1, 33, 0, 0, 33, 0, 0, 0, 261]
    assert a.loc[k, ["chosen_cpu", "pd_evaluations", "prev_energy", "best_energy", "base_energy"]].tolist() == \
        [1, 4, 12, 12, 55]
    assert b.loc[k, ["chosen_cpu", "pd_evaluations", "prev_energy", "best_energy", "base_energy"]].tolist() == \
        [5, 4, 12, 7, 55]


def test_eas_v6_1_costs_the_max_spare_cpu_v6_2_only_when_it_has_more_spare():
    """kernel/sched/fair.c v6.1 find_energy_efficient_cpu: ``if (max_spare_cap_cpu >= 0)``; v6.2:
    ``&& max_spare_cap > prev_spare_cap``. One task "w" (20 % of 10 ms) allowed on juno_r0's big
    CPUs 1 and 2 only (the LITTLE domain has no candidate and is skipped). At each wake-up the
    only utilization is w's own, on prev: cpu_util(prev, p, prev) = u and cpu_util(other, p,
    other) = 0 + u, so both spare capacities are 1024 - u (u = 512 at the first wake-up, from
    post_init_entity_util_avg: (1024 - 0) / 2, then decaying). v6.1 costs base, prev and the
    other big CPU: 3 evaluations; v6.2 base and prev: 2. Both placements cost the same (same
    max util, same busy time), cur_delta < best_delta fails: w stays on prev in both."""
    tasks = [task("w", periodic(10, 20, 0.05, runtime=True), cpus=(1, 2))]
    a = _eas_decisions("v6.1", tasks, 0.05)
    b = _eas_decisions("v6.2", tasks, 0.05)
    assert len(a) == len(b) >= 5
    for d, evals in ((a, 3), (b, 2)):
        assert (d["chosen_cpu"] == d["prev_cpu"]).all() and (d["util_cpu2"] == 0).all()
        assert (d["util_cpu1"] == d["task_util"]).all() and d["task_util"].iloc[0] == 512
        assert (d["pd_evaluations"] == evals).all() and (d["prev_energy"] == d["best_energy"]).all()
