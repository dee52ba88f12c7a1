"""uclamp in the EAS wake-up and overutilized checks per era (issue 17): ledger rows uclamp-v5.6,
uclamp-v6.2, uclamp-v6.3 and uclamp-v6.7.

Every expected value below is worked by hand from kernel/sched/fair.c of the versions named
(``find_energy_efficient_cpu``, ``util_fits_cpu``, ``cpu_overutilized``), read in a v6.2.1 and a
v6.3 tree, and from the commit messages of 1d42509e475c, 48d5e9daa8b7 and its series,
e5ed0550c04c, 6b00a4014765 and 23c9519def98. HiKey960: CPUs 0-3 capacity 462 (one perf
domain), CPUs 4-7 capacity 1024 (one perf domain); ``fits_capacity(u, c)`` is
``u * 1280 < c * 1024``.
"""
from __future__ import annotations

import pytest

from lisa_eas.models import find_energy_efficient_cpu

IDLE = [0] * 8


def _feec(era, util=IDLE, task_util=0, prev=0, **kw):
    d = find_energy_efficient_cpu("hikey960", util, task_util, prev, era=era, **kw)
    return int(d.cpu[0]), int(d.pd_evaluations[0])


def test_util_fits_cpu_forms_by_hand():
    """``util_fits_cpu(util, uclamp_min, uclamp_max, cpu)`` of v6.2 and v6.3 (uclamp in use).

    * util 400 on a 462 CPU, uclamp_max 300: fits_capacity(400, 462) is false (512000 >= 473088),
      but uclamp_max 300 <= capacity_orig 462 forces the fit: 1 in both.
    * util 400 on a 1024 CPU with uclamp_max 1024: no forced fit on the biggest CPU, the plain
      fit decides: 512000 < 1048576, 1.
    * util 100, uclamp_min 500 on a 462 CPU: fits_capacity(100, 462) holds; the boost 500 > 462:
      v6.2 ``fits && 500 <= 462`` = 0; v6.3 returns -1 (fits, but not the boost).
    * util 100, uclamp_min 900 on a 1024 CPU with thermal pressure 200: v6.2 skips the boost
      check on a 1024 CPU (1); v6.3 checks 900 > 1024 - 200 = 824: -1.
    * uclamp_min 600 above uclamp_max 300 on a 462 CPU, util 100: min is first lowered to 300;
      forced fit by uclamp_max; 100 < 300 <= 462: 1 in both.
    """
    from lisa_eas._kernels.eas import UC_V6_2, UC_V6_3, util_fits_cpu

    cases = [((400, 0, 300, 462, 462, 0), 1, 1), ((400, 0, 1024, 1024, 1024, 0), 1, 1),
             ((100, 500, 1024, 462, 462, 0), 0, -1), ((100, 900, 1024, 1024, 1024, 200), 1, -1),
             ((100, 600, 300, 462, 462, 0), 1, 1)]
    for args, v62, v63 in cases:
        util, umin, umax, cap, cap_orig, thermal = args
        assert util_fits_cpu(util, umin, umax, cap, cap_orig, thermal, UC_V6_2) == v62, args
        assert util_fits_cpu(util, umin, umax, cap, cap_orig, thermal, UC_V6_3) == v63, args


def test_uclamp_fit_starts_in_v5_6():
    """1d42509e475c was merged into tip sched/core on 25 Dec 2019, so v5.6 (the ledger said v5.7).
    Every CPU idle, a task of util 100 waking on little CPU 0 with uclamp_min 800.

    v5.5 (v5.4 form, no clamp): fits_capacity(100, 462) holds on the cheaper littles: it stays
    on CPU 0. v5.6: util = uclamp_rq_util_with(rq, 100, p) = 800, 1024000 >= 473088 on a little,
    < 1048576 on a big: only the bigs are candidates, prev does not fit, CPU 4 (the first of
    equal spare capacity 924)."""
    assert _feec("v5.5", task_util=100, task_uclamp_min=800)[0] == 0
    assert _feec("v5.6", task_util=100, task_uclamp_min=800)[0] == 4


def test_boosted_task_with_no_util_v6_1_v6_2_v6_3():
    """A task with util 0 (task_util and util_est 0) and uclamp_min 500 wakes on little CPU 0.

    v6.1: ``if (!task_util_est(p)) goto unlock``: stays on CPU 0, no energy computed.
    v6.2 (d81304bc6193): the exit tests uclamp_task_util(p) = clamp(0, 500, 1024) = 500: no exit.
    The littles: fits_capacity(0, 462) holds, uclamp_max 1024 > 462 forces nothing, the boost
    500 > 462 - 0 on a non-1024 CPU: 0, no little is a candidate (their domain is skipped). The
    bigs: 1 (the boost check is skipped on a 1024 CPU); the max-spare big is CPU 4 (spare 1024,
    the first); prev has no candidate (prev_delta = ULONG_MAX): base + CPU 4 = 2 evaluations,
    target CPU 4 (best_delta < prev_delta).
    v6.3 (e5ed0550c04c): the littles answer -1 (they fit but not the boost): prev CPU 0 is a
    candidate (prev_spare 462, prev_fits -1), CPU 1 (spare 462) is not above prev's spare so is
    not costed; the little domain costs base + prev (2). The bigs answer 1: CPU 4 costed (2);
    best_fits 1 > prev_fits -1: CPU 4 after 4 evaluations.
    v6.7 (23c9519def98): the exit needs p_util_min == 0: no exit either; as v6.3 (4 evaluations)."""
    got = {era: _feec(era, task_uclamp_min=500) for era in ("v6.1", "v6.2", "v6.3", "v6.7")}
    assert got == {"v6.1": (0, 0), "v6.2": (4, 2), "v6.3": (4, 4), "v6.7": (4, 4)}


def test_uclamp_max_zero_early_exit_v6_6_vs_v6_7():
    """A task of util 50 with uclamp_max 0 wakes on CPU 0 (every CPU idle).

    v6.2 - v6.6: uclamp_task_util(p) = clamp(50, 0, 0) = 0: ``goto unlock``, target prev CPU 0,
    nothing costed. v6.7 (23c9519def98): task_util_est(p) = 50 is not 0: the search runs; CPU 0
    fits (uclamp_max 0 <= 462 forces it) with spare 462 - 50 = 412, so the little domain costs at
    least its base and prev: 2 or more evaluations."""
    assert _feec("v6.6", task_util=50, task_uclamp_max=0) == (0, 0)
    cpu, evals = _feec("v6.7", task_util=50, task_uclamp_max=0)
    assert evals >= 2


def test_spare_capacity_zero_is_a_candidate_from_v6_7():
    """Only CPU 1 allowed; CPU 1 has util_avg 462 (its capacity) from a task capped at 200 (its rq's
    uclamp_max is 200); the waking task (util 100, uclamp_max 200) has prev CPU 0 (not allowed).

    util = cpu_util_next(1, p, 1) = min(462 + 100, 462) = 462; spare = lsub_positive(462, 462) = 0;
    the clamps seen are max(rq, p): (0, 200).
    v6.6: util_fits_cpu(462, 0, 200, 1) = 1 (200 <= 462 forces it); the v6.3 selection
    ``fits > max_fits`` (max_fits starts at -1) takes CPU 1 although its spare is 0, so the domain
    is not skipped: its base energy is costed (1 evaluation), but CPU 1 is not
    (``max_spare_cap > prev_spare_cap`` is 0 > 0): target prev CPU 0.
    v6.7 (6b00a4014765): prev_spare_cap starts at -1, so 0 > -1: CPU 1 costed (2 evaluations),
    best_fits 1 > prev_fits -1: CPU 1."""
    allowed = [False, True] + [False] * 6
    util = [0, 462, 0, 0, 0, 0, 0, 0]
    kw = dict(allowed=allowed, task_uclamp_max=200, uclamp_max=[0, 200, 0, 0, 0, 0, 0, 0])
    assert _feec("v6.6", util, 100, 0, **kw) == (0, 1)
    assert _feec("v6.7", util, 100, 0, **kw) == (1, 2)


def test_overutilized_with_a_capped_rq_from_v6_2():
    """overutilized="auto": CPU 0 has util 400 and its rq's uclamp_max is 300 (a capped task runs
    there); the other rqs are idle (clamps 0). A task of util 10 wakes with prev CPU 1.

    v6.1: cpu_overutilized(0) = !fits_capacity(400, 462): 512000 >= 473088, overutilized: EAS is
    not used (-1). v6.2 (c56ab1b3506b): !util_fits_cpu(400, 0, 300, 0): uclamp_max 300 <= 462
    forces the fit: not overutilized; no other CPU is (util 0): EAS runs and answers a CPU."""
    util = [400, 0, 0, 0, 0, 0, 0, 0]
    rq_max = [300, 0, 0, 0, 0, 0, 0, 0]
    kw = dict(overutilized="auto", uclamp_max=rq_max, task_util=10, prev=1)
    assert _feec("v6.1", util, **kw)[0] == -1
    assert _feec("v6.2", util, **kw)[0] >= 0


def test_no_clamp_inputs_change_nothing():
    """Without any clamp input every era decides as before (the uclamp forms stay off)."""
    util = [100, 50, 300, 100, 100, 100, 200, 0]
    for era in ("v5.6", "v6.1", "v6.2", "v6.3", "v6.7", "v6.9"):
        a = find_energy_efficient_cpu("hikey960", util, 60, 2, era=era)
        b = find_energy_efficient_cpu("hikey960", util, 60, 2, era=era, thermal_pressure=[0] * 8)
        assert int(a.cpu[0]) == int(b.cpu[0]) and int(a.pd_evaluations[0]) == int(b.pd_evaluations[0])


@pytest.mark.parametrize("era", ["v6.2", "v6.3", "v6.7"])
def test_uclamp_fit_form_follows_the_ledger(era):
    from lisa_eas._kernels import eas as ke
    from lisa_eas.models.eas import uclamp_fit_form

    assert uclamp_fit_form(era) == {"v6.2": ke.UC_V6_2, "v6.3": ke.UC_V6_3, "v6.7": ke.UC_V6_7}[era]
    assert uclamp_fit_form("v5.5") == 0 and uclamp_fit_form("v6.1") == ke.UC_V5_6


def test_replay_reads_the_rq_clamps_from_uclamp_util_cfs():
    """A simulated EAS trace (a 10 % task, util ~100 at its wake-ups, on the littles) plus
    synthetic LISA-module ``uclamp_util_cfs`` records saying every little rq had uclamp_min 500
    at 0.001 s.

    At the wake-ups after 0.2 s the little rqs are idle, and an idle rq's uclamp_min is 0 in every
    era: uclamp_rq_dec_id -> uclamp_idle_value returns uclamp_none(UCLAMP_MIN) = 0 when the last
    task leaves, only uclamp_max is kept (e496187da710, v5.3). So the replay takes the idle rqs'
    clamps as (0, kept uclamp_max 1024) and the task (util ~100: 128000 < 462 * 1024) fits the
    littles at v5.10 and v6.2 as without the records. (This test said "v5.10 aggregates the idle
    rq's 500" before: a state the kernel cannot be in.) The summary names the event and says the
    task's own clamps are absent.

    Given the task's own clamps (0.5 boost: ``task_uclamp={"x": (500, 1024)}``): v5.10, a little
    needs uclamp_rq_util_with(rq, ~100, p) = clamp(100, 500, 1024) = 500 to fit: 640000 >= 473088,
    no little fits, the model wakes it on a big CPU; v6.2, util_fits_cpu(100, 500, 1024, little):
    fits_capacity holds, uclamp_max 1024 > 462 forces nothing, the boost 500 > 462 - 0 on a
    non-1024 CPU answers 0: no little fits, a big CPU again."""
    from lisa_eas.analysis.validate import rebuild_wakeups, replay_eas
    from lisa_eas.platform import load_platform
    from lisa_eas.rtapp import periodic, task, workload
    from lisa_eas.sim import SimConfig, simulate
    from lisa_eas.trace import Trace
    import numpy as np
    import pandas as pd

    plat = load_platform("hikey960")
    wl = workload([task("x", periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.5))], calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(era="v5.10"))
    frames = {ev: tr.df(ev) for ev in tr.events}
    uc = pd.DataFrame({"__cpu": np.arange(8), "__pid": 0, "__comm": "<idle>", "cpu": np.arange(8),
                       "util_avg": 0, "uclamp_avg": 0, "uclamp_min": [500] * 4 + [0] * 4, "uclamp_max": 1024},
                      index=pd.Index([0.001] * 8, name="Time", dtype=float))
    with_uc = Trace.from_dataframes({**frames, "uclamp_util_cfs": uc}, metadata=dict(tr.metadata))
    got = {}
    for name, t_, tuc in (("plain", tr, None), ("uclamp", with_uc, None), ("boosted", with_uc, {"x": (500, 1024)})):
        for era in ("v5.10", "v6.2"):
            df, s = replay_eas(rebuild_wakeups(t_, plat, inputs="rebuilt", era=era), plat, era=era, task_uclamp=tuc)
            late = df[(df["time"] > 0.2) & (df["prev_cpu"] < 4)]
            assert len(late) and (late["task_util"] < 300).all()
            got[name, era] = (set(late["model_cpu"].tolist()), s["decision_inputs"]["uclamp"])
    assert max(got["plain", "v5.10"][0]) < 4 and got["plain", "v5.10"][1].startswith("absent")
    assert max(got["uclamp", "v5.10"][0]) < 4 and max(got["uclamp", "v6.2"][0]) < 4
    assert got["uclamp", "v5.10"][1].startswith("rq clamps from uclamp_util_cfs")
    assert min(got["boosted", "v5.10"][0]) >= 4 and min(got["boosted", "v6.2"][0]) >= 4


def test_sim_uclamp_max_zero_task_skips_eas_until_v6_7():
    """The simulator passes the era's uclamp form to feec: a 10 % task with util_max = 0 (alone on
    HiKey960; its util ~100 at wake-ups is never 0).

    v6.6: uclamp_task_util(p) = clamp(~100, 0, 0) = 0: ``goto unlock`` at every wake-up, it stays
    on prev and nothing is costed, so no decision is logged (the simulator logs the wake-ups whose
    energies were computed). v6.7 (23c9519def98): task_util_est(p) != 0: the search runs; prev
    (forced to fit by uclamp_max 0 <= its capacity) is costed: its wake-ups are logged."""
    from lisa_eas.rtapp import periodic, task, workload
    from lisa_eas.sim import SimConfig, simulate

    wl = workload([task("x", periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.4), util_max=0)],
                  calibration=20)
    n = {}
    for era in ("v6.6", "v6.7"):
        dec = simulate("hikey960", wl, config=SimConfig(era=era)).df("lisa_sim_eas_decision")
        n[era] = int((dec.index > 0.1).sum())
    assert n["v6.6"] == 0 and n["v6.7"] > 0


def test_energy_estimate_clamps_the_destination_util():
    """The OPP of the destination's perf domain in the energy estimate takes the clamps
    (af24bde8df20 sched/uclamp: Add uclamp support to energy_compute(): FREQUENCY_UTIL with
    ``uclamp_rq_util_with(rq, util, p)`` on the destination). HiKey960, only CPU 0 allowed,
    prev CPU 0 with util_avg 100 (the waking task's own, util 100), every other CPU idle.

    Little EM (power in uW from v6.0, cost = fmax * power / freq): 533 MHz 28728 uW -> cost
    1844000 * 28728 // 533000 = 99389; 1402 MHz 124918 uW -> 164300; 1709 MHz 187990 uW ->
    202840. The base energy is 0 (no util without the task); prev's delta is cost * busy 100 // 462.

    v6.1 without clamps: max_util 100, (100 + 25) -> 1844000 * 125 // 462 = 498917 kHz: 533 MHz,
    21512. With task uclamp_min 300 (the fit: 300 * 1280 < 462 * 1024): max_util 300, 375 ->
    1496753 kHz: 1709 MHz, 202840 * 100 // 462 = 43904.
    v6.8 (9c0b4bb7f630, sugov_effective_cpu_perf): max(300, min(125, 1024)) = 300, no headroom on
    the floor: 1844000 * 300 // 462 = 1197402 kHz: 1402 MHz, 164300 * 100 // 462 = 35562."""
    allowed = [True] + [False] * 7
    util = [100, 0, 0, 0, 0, 0, 0, 0]
    got = {}
    for era in ("v6.1", "v6.8"):
        for umin in (None, 300):
            d = find_energy_efficient_cpu("hikey960", util, 100, 0, era=era, allowed=allowed, task_uclamp_min=umin)
            assert int(d.cpu[0]) == 0
            got[era, umin] = int(d.prev_energy[0])
    assert got == {("v6.1", None): 21512, ("v6.1", 300): 43904, ("v6.8", None): 21512, ("v6.8", 300): 35562}


def test_sim_overutilized_with_a_boosted_rq_v6_1_v6_2_v6_3():
    """The simulator's overutilized test per era: a 10 % task with util_min = 500 pinned to little
    CPU 0 (util ~100), alone on HiKey960; its rq's clamps while it is queued are (500, 1024).

    v6.1 (fair.c cpu_overutilized = !fits_capacity(cpu_util_cfs, capacity_of)): 100 * 1280 < 462 *
    1024: never overutilized. v6.2 (c56ab1b3506b): !util_fits_cpu(~100, 500, 1024, 0): the util
    fits, uclamp_max 1024 > 462 forces nothing, the boost 500 > 462 - 0 on a non-1024 CPU: 0, so
    the root domain is flagged overutilized when the task is enqueued. v6.3 (e5ed0550c04c):
    util_fits_cpu answers -1 (only the boost fails), which is not 0: never overutilized."""
    from lisa_eas.rtapp import periodic, task, workload
    from lisa_eas.sim import SimConfig, simulate

    wl = workload([task("b", periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.4), cpus=[0], util_min=500)],
                  calibration=20)
    flagged = {}
    for era in ("v6.1", "v6.2", "v6.3"):
        # the task starts on CPU 0 with half CPU 0's capacity (ablation fork-placement: forked to a big CPU
        # it would carry 512 there and flag the root domain at its first enqueue in every era)
        ou = simulate("hikey960", wl, config=SimConfig(era=era, ablate=("fork-placement",))).df("lisa_sim_overutilized")
        flagged[era] = int((ou["overutilized"].to_numpy() == 1).sum()) if len(ou) else 0
    assert flagged["v6.1"] == 0 and flagged["v6.2"] > 0 and flagged["v6.3"] == 0


def test_v6_2_capacity_inversion_by_hand():
    """v6.2 ``update_cpu_capacity`` (44c7b80bffc3) and ``util_fits_cpu`` (aa69c36f31aa), read in
    the 6.1.y backport and in the backport of their v6.3 removal (a2e90611b9f4). HiKey960 perf
    domains: LITTLE 0-3 (462), big 4-7 (1024).

    * bigs with thermal_load_avg 700: 1024 - 700 = 324 < 462, the LITTLE domain's capacity_orig:
      a big CPU is inverted at 324; a LITTLE CPU is not (the bigger domain is skipped).
    * bigs with 500: 524 > 462, no inversion.
    * feec's fit of util 400 with uclamp_max 350 on big CPU 4 (capacity_of 324): v6.2 inverted,
      capacity_orig = 324: fits_capacity(400, 324) fails (512000 >= 331776) and 350 <= 324 does
      not hold: 0. Not inverted (v6.3, or v6.2 without pressure): 350 <= 1024 forces the fit: 1.
    """
    import numpy as np

    from lisa_eas._kernels.extra_rows import X_SIZE, X_THERMAL, X_UC_ON, X_UC_P_MAX
    from lisa_eas._kernels.fits import UC_V6_2, UC_V6_3, capacity_inverted, capacity_inverted_pd, fits_v62

    cap_orig = np.array([462] * 4 + [1024] * 4, np.int64)
    pd_info = np.array([[0, 4, 0, 0, 462, 0], [4, 8, 0, 0, 1024, 0]], np.int64)
    pd_cpus = np.arange(8, dtype=np.int64)
    pd_of = np.array([0] * 4 + [1] * 4, np.int64)
    hot = np.array([0] * 4 + [700] * 4, np.int64)
    warm = np.array([0] * 4 + [500] * 4, np.int64)
    assert capacity_inverted_pd(4, 1, pd_info, pd_cpus, cap_orig, hot) == 324
    assert capacity_inverted(4, cap_orig, hot, pd_of) == 324
    assert capacity_inverted_pd(0, 0, pd_info, pd_cpus, cap_orig, hot) == 0
    assert capacity_inverted_pd(4, 1, pd_info, pd_cpus, cap_orig, warm) == 0
    extra = np.zeros((X_SIZE, 8), np.int64)
    extra[X_THERMAL] = hot
    extra[X_UC_P_MAX] = 350
    for form, inv, want in ((UC_V6_2, 324, 0), (UC_V6_2, 0, 1), (UC_V6_3, 0, 1)):
        extra[X_UC_ON] = form
        assert fits_v62(extra, 4, 400, 324, 1024, inv) == want, (form, inv)


def test_v6_2_capacity_inversion_reads_thermal_load_avg():
    """v6.2's capacity inversion (44c7b80bffc3, update_cpu_capacity) compares capacity_orig -
    thermal_load_avg(rq), the PELT average, not the instantaneous arch_scale_thermal_pressure.
    The bigs (CPUs 4-7, the only allowed CPUs) have an instantaneous pressure of 700 and
    capacity_of 900; a task of util 100 (util_est 100) with uclamp_min 400 wakes with prev CPU 4
    (idle rqs: rq clamps 0, 0; no early exit, clamp(100, 400, 1024) = 400 is not 0).

    * thermal_load_avg 700 (the default: the pressure): 1024 - 700 = 324 < 462, the littles'
      capacity_orig: inverted, util_fits_cpu takes capacity_orig = 324, not 1024, so the boost
      is checked: fits_capacity(100, 900) holds, 100 < 400 and 400 > 324: 0 on every big, no
      candidate, the domain is skipped: feec keeps prev CPU 4 after 0 evaluations.
    * thermal_load_avg 100 (the average some ms after the pressure rose): 924 > 462, not
      inverted: capacity_orig 1024 skips the boost check (v6.2), every big fits (1) with spare
      900 - 100 = 800; prev CPU 4 is costed with the base energy (2 evaluations), CPU 5's spare
      800 is not above prev's 800 (v6.2's filter): CPU 4 after 2 evaluations.
    * v6.3 (a2e90611b9f4 removes the inversion; e5ed0550c04c checks the boost on 1024 CPUs too):
      400 > 1024 - 700: -1 on every big, still candidates: prev costed, CPU 4 after 2."""
    kw = dict(task_util=100, task_util_est=100, prev=4, capacity=[462] * 4 + [900] * 4,
              allowed=[0] * 4 + [1] * 4, thermal_pressure=[0] * 4 + [700] * 4, task_uclamp_min=400)
    assert _feec("v6.2", **kw) == (4, 0)
    assert _feec("v6.2", thermal_load_avg=[0] * 4 + [700] * 4, **kw) == (4, 0)
    assert _feec("v6.2", thermal_load_avg=[0] * 4 + [100] * 4, **kw) == (4, 2)
    assert _feec("v6.3", **kw) == (4, 2)


def test_v7_1_overutilized_without_rq_uclamp_min_decides_the_same():
    """9264758066061e66 (tip sched/core, for v7.1) makes ``cpu_overutilized()`` pass 0 instead of the
    rq's uclamp_min to ``util_fits_cpu()``. The ledger (row uclamp-v6.3) records it without a row of
    its own: from v6.3 the boost can only turn a 1 into -1, never into 0, so ``== 0`` (overutilized)
    is the same with and without it. Checked here on the kernel's v6.3+ function as written from its
    source (fits_capacity, the forced fit by uclamp_max unless both are 1024, min lowered to max, the
    -1 test against capacity_orig - thermal pressure), over a grid of states, not on our kernel."""
    def util_fits_cpu(util, umin, umax, cap, cap_orig, thermal):
        fits = util * 1280 < cap * 1024
        both_max = cap_orig == 1024 and umax == 1024
        fits = fits or (not both_max and umax <= cap_orig)
        umin = min(umin, umax)
        if fits and util < umin and umin > cap_orig - thermal:
            return -1
        return int(fits)

    n = 0
    for cap_orig in (160, 462, 1024):
        for thermal in (0, 100):
            cap = cap_orig - thermal
            for util in range(0, 1100, 37):
                for umax in (0, 200, 462, 800, 1024):
                    with_min = {util_fits_cpu(util, umin, umax, cap, cap_orig, thermal) == 0
                                for umin in (0, 100, 300, 500, 900, 1024)}
                    assert with_min == {util_fits_cpu(util, 0, umax, cap, cap_orig, thermal) == 0}
                    n += 1
    assert n == 3 * 2 * 30 * 5
