"""Issue 17, uclamp per era where the energy estimate, an idle runqueue and v6.2's capacity
inversion decide; and ``sched_thermal_decay_shift``. Every expected value is worked by hand from
the kernel source of the versions on each side (cited per test), not from the package's code.

HiKey960 Energy Model of v5.0 - v5.14 (em_create_pd / em_pd_energy, power in mW floored from the
platform file, cost = fmax * power / freq): little (CPUs 0-3, capacity 462, fmax 1844000) costs
96, 129, 163, 201, 245 at 533, 999, 1402, 1709, 1844 MHz; big (CPUs 4-7, capacity 1024, fmax
2362000) costs 635, 831, 1052, 1298, 1571 at 903, 1421, 1805, 2112, 2362 MHz.
"""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas.errors import ModelError
from lisa_eas.models import find_energy_efficient_cpu
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim import SimConfig, simulate


def test_energy_estimate_takes_the_clamps_from_v5_3():
    """uclamp-v5.3 (af24bde8df20, tip 24 Jun 2019, v5.3 merge window; read in its [tip] mail and as
    the pre-image of eb92692b2544): compute_energy's OPP comes from schedutil_cpu_util(...,
    FREQUENCY_UTIL, cpu == dst_cpu ? p : NULL), clamped by uclamp_util_with(rq, util, p) on the
    destination; v5.2 has no uclamp (schedutil_energy_util, the same util for OPP and busy time).

    State: util_avg = [100, 200, 200, 200, 0, 0, 0, 0] (the waking task's 100 still in prev CPU 0),
    task util 100, task uclamp_min 400, every rq idle (clamps 0, kept uclamp_max 1024).
    v5.0 form (v5.0 - v5.3): prev is costed, then the max-spare CPU of each domain other than prev
    (CPU 1: spare 462 - 300 = 162; CPU 4: spare 924), each with the system energy.

    v5.2 (no clamps): prev: little max 200, sum 700: 2305000 * 200 / 462 = 997835 -> 999 MHz,
    129 * 700 / 462 = 195. CPU 1: max 300 -> 1496753 -> 1709 MHz, 201 * 700 / 462 = 304. CPU 4:
    little max 200, sum 600: 129 * 600 / 462 = 167; big max 100: 2952500 * 100 / 1024 = 288330 ->
    903 MHz, 635 * 100 / 1024 = 62; 229. Best is prev (195): CPU 0.
    v5.3: on the destination the OPP util is clamp(util, max(0, 400), max(1024, 1024)) = 400.
    prev: little max 400 -> 1995670 > fmax -> 1844 MHz, 245 * 700 / 462 = 371. CPU 1: 300 -> 400,
    the same 371. CPU 4: 167 + (400 -> 1153320 -> 1421 MHz, 831 * 100 / 1024 = 81) = 248.
    371 - 248 = 123 > 371 >> 4 = 23: CPU 4. Without the clamp v5.3 decides as v5.2 (CPU 0)."""
    util = [100, 200, 200, 200, 0, 0, 0, 0]
    assert find_energy_efficient_cpu("hikey960", util, 100, 0, era="v5.2", task_uclamp_min=400).cpu[0] == 0
    d = find_energy_efficient_cpu("hikey960", util, 100, 0, era="v5.3", task_uclamp_min=400)
    assert d.cpu[0] == 4 and d.prev_energy[0] == 371 and d.best_energy[0] == 248
    d = find_energy_efficient_cpu("hikey960", util, 100, 0, era="v5.3")
    assert d.cpu[0] == 0 and d.prev_energy[0] == 195


def test_idle_rq_kept_uclamp_max_v5_13_vs_v5_14():
    """uclamp-v5.14 (3e1493f46390, the sched-urgent pull after v5.14-rc1, sched.h read): with the
    waking task given, uclamp_rq_util_with ignores an idle rq's clamps; before, it max-aggregates
    the uclamp_max the idle rq kept from its last task (uclamp_idle_value, e496187da710, v5.3).

    State: all CPUs idle, the waking task (util 400, uclamp_max 300) blocked on big CPU 4 (its 400
    in CPU 4's util_avg), the idle rqs' kept uclamp_max 1024 (their last tasks uncapped).
    v5.13 (v5.4 form of feec, v5.6 clamp-then-fit): on a little CPU util = 400, clamped into
    [0, max(1024, 300)] = 400; 400 * 1280 = 512000 >= 462 * 1024 = 473088: no little candidate.
    The bigs fit; prev (CPU 4, spare 624) is also the first max-spare CPU, not re-costed: CPU 4.
    v5.14 (v5.14 form): the littles clamp 400 into [0, 300]: 300 * 1280 = 384000 < 473088 fits,
    spare 462 - 400 = 62 > 0: CPU 0 is the little candidate. Little base 0 (no util without the
    task); CPU 0: OPP util clamp 300, busy 400 (cpu_util_next(0, p, -1) + task_util_est = 400);
    em_cpu_energy v5.14: 300 + 75 = 375, 1844000 * 375 / 462 = 1496753 -> 1709 MHz, 201 * 400 /
    462 = 174. Big base 0; prev CPU 4: 375 -> 2362000 * 375 / 1024 = 864990 -> 903 MHz, 635 * 400
    / 1024 = 248 (CPU 5 the same, not better). (248 + 0) >> 4 = 15 < 248 - 174 = 74: CPU 0.
    With the idle littles' kept uclamp_max 300 (their last task capped at 300), v5.13 clamps into
    [0, max(300, 300)] too and decides as v5.14: CPU 0."""
    util = [0, 0, 0, 0, 400, 0, 0, 0]
    for era, want in (("v5.13", 4), ("v5.14", 0)):
        d = find_energy_efficient_cpu("hikey960", util, 400, 4, era=era, task_uclamp_max=300)
        assert d.cpu[0] == want, era
    d = find_energy_efficient_cpu("hikey960", util, 400, 4, era="v5.14", task_uclamp_max=300)
    assert d.prev_energy[0] == 248 and d.best_energy[0] == 174
    kept = [300, 300, 300, 300, 1024, 1024, 1024, 1024]
    assert find_energy_efficient_cpu("hikey960", util, 400, 4, era="v5.13", task_uclamp_max=300,
                                     uclamp_idle_max=kept).cpu[0] == 0
    with pytest.raises(ModelError, match="uclamp_idle_max"):
        find_energy_efficient_cpu("hikey960", util, 400, 4, era="v5.13", uclamp_idle_max=[2000] * 8)


def test_capacity_inversion_in_cpu_overutilized_v6_2_not_v6_3():
    """cpu_overutilized (c56ab1b3506b) is !util_fits_cpu(cpu_util_cfs, rq uclamp_min, rq uclamp_max,
    cpu). v6.2's util_fits_cpu (read in a 6.2.1 tree) replaces capacity_orig by
    cpu_in_capacity_inversion(cpu) when set (aa69c36f31aa); v6.3 removed the inversion
    (a2e90611b9f4).

    State: big CPU 4 runs a task (cpu util 900) with rq clamps (0, 500); the bigs' thermal
    pressure and thermal_load_avg 700, capacity_of 324; littles idle (util 0, capacity_of 462).
    v6.2: the big's capacity_orig - thermal_load_avg = 324 < the littles' capacity_orig 462:
    inverted, capacity_orig := 324. fits_capacity(900, 324) is false; uclamp_max 500 <= 324 is
    false: CPU 4 does not fit, the root domain is overutilized and EAS is not used (-1). v6.3:
    uclamp_max 500 <= capacity_orig 1024 (and not 1024 on 1024) forces the fit: not
    overutilized, EAS decides. v6.1 (fits_capacity(900, 324) only): overutilized. Without the
    average (thermal_load_avg 0) v6.2 is not inverted and decides as v6.3."""
    util = [0, 0, 0, 0, 900, 0, 0, 0]
    th = [0, 0, 0, 0, 700, 700, 700, 700]
    cap = [462] * 4 + [324] * 4
    rq_max = [0, 0, 0, 0, 500, 0, 0, 0]
    kw = dict(capacity=cap, thermal_pressure=th, uclamp_max=rq_max, overutilized="auto")
    got = {era: int(find_energy_efficient_cpu("hikey960", util, 50, 0, era=era, **kw).cpu[0])
           for era in ("v6.1", "v6.2", "v6.3")}
    assert got["v6.1"] == -1 and got["v6.2"] == -1 and got["v6.3"] >= 0
    assert find_energy_efficient_cpu("hikey960", util, 50, 0, era="v6.2", thermal_load_avg=[0] * 8,
                                     **kw).cpu[0] >= 0


def _pinned_capped(era, **kw):
    """A 90 % task pinned to big CPU 4 with util_max 500; the big domain capped at capacity 400
    from 0.3 s (903 MHz, capacity 1024 * 903 / 2362 = 391, pressure 633)."""
    wl = workload([task("x", periodic(duty_cycle_pct=90, period_ms=16, duration_s=0.5), cpus=[4], util_max=500)],
                  calibration=20)
    return simulate("hikey960", wl, config=SimConfig(era=era, thermal_caps=((0.3, "pd1", 400),), **kw))


def test_sim_capacity_inversion_makes_cpu_4_overutilized_v6_2_not_v6_3():
    """The simulator's cpu_overutilized with v6.2's capacity inversion (util_fits_cpu as above).
    CPU 4's rq clamps (0, 500): uclamp_max 500 <= 1024 forces the fit before the cap and, at v6.3,
    always. v6.2: once thermal_load_avg > 1024 - 462 = 562 the big CPUs are inverted with
    capacity_orig 1024 - avg < 462 < 500: no forced fit, and the task's util (>= 391, its
    capacity at the capped OPP, decaying from the ~782 of the 1805 MHz its clamp asked for) fails
    fits_capacity against capacity_of = 1024 - avg < 462 (391 * 1280 = 500480 > 462 * 1024):
    overutilized. The average of 633 passes 562 after n periods with 0.5^(n/32) < 71/633,
    n > 101 (103 ms), updated at CPU 4's 4 ms ticks: from 0.403 s to ~0.41 s; at 0.4 s (n <= 98)
    it is at most 633 (1 - 0.5^(97.7/32)) = 557."""
    for era in ("v6.2", "v6.3"):
        ou = _pinned_capped(era).df("lisa_sim_overutilized")
        on = ou[ou["overutilized"].to_numpy() == 1].index.to_numpy(np.float64)
        if era == "v6.3":
            assert not len(on), on[:3]
        else:
            assert len(on) and 0.4 <= on[0] <= 0.42, on[:3]


def _capped_little_task(shift):
    """test_sim_inputs' 19 % task on HiKey960 (util at wake-up 200 - 232), the little domain capped
    at 0.5 s (999 MHz, pressure 212), era v6.9, with sched_thermal_decay_shift ``shift``."""
    wl = workload([task("x", periodic(duty_cycle_pct=19, period_ms=16, duration_s=0.8))], calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(era="v6.9", thermal_caps=((0.5, "pd0", 300),),
                                                   thermal_decay_shift=shift))
    sw = tr.df("sched_switch")
    sw = sw[sw["next_comm"].to_numpy() == "x"]
    return sw.index.to_numpy(np.float64), sw["__cpu"].to_numpy()


def test_thermal_decay_shift_slows_thermal_load_avg():
    """sched_thermal_decay_shift (v5.7 - v6.9; update_thermal_load_avg(rq_clock_thermal(rq), ...),
    rq_clock_thermal = rq_clock_task >> shift). With 0 the average of the 212 pressure passes 189
    (capacity_of 273, where util 219 no longer fits: 219 * 1280 = 280320 >= 273 * 1024) ~0.1 s
    after the cap (test_sim_inputs): the task is on the bigs from 0.7 s. With 2 the thermal
    clock runs at a quarter: by 0.7 s (<= 204 ms after the last pre-cap update) it has advanced
    <= 51 ms, n <= 49.8 periods, the average <= 212 (1 - 0.5^(49.8/32)) = 140, capacity_of >= 322,
    232 * 1280 = 296960 < 322 * 1024 = 329728: the task still fits the littles."""
    t0, c0 = _capped_little_task(0)
    t2, c2 = _capped_little_task(2)
    assert set(c0[(t0 > 0.7) & (t0 <= 0.8)].tolist()) <= {4, 5, 6, 7}
    assert set(c2[(t2 > 0.3) & (t2 <= 0.7)].tolist()) <= {0, 1, 2, 3}


def test_thermal_decay_shift_is_validated():
    for bad in (11, -1, 1.5, True):
        with pytest.raises(ModelError, match="thermal_decay_shift"):
            SimConfig(era="v6.9", thermal_decay_shift=bad)
    for era in ("v5.6", "v6.10"):
        with pytest.raises(ModelError, match="thermal_decay_shift"):
            SimConfig(era=era, thermal_decay_shift=1)
    assert SimConfig(era="v6.10").thermal_decay_shift == 0


def test_replay_takes_the_waking_tasks_clamps_only_when_given():
    """No trace event carries a task's clamps: the EAS replay says so and takes (0, 1024); with
    validate(task_uclamp=...) it takes the given ones for that task (by comm, a pid key winning)."""
    from lisa_eas.analysis.validate import validate
    from lisa_eas.analysis.validate._eas import _task_clamps
    import pandas as pd

    wl = workload([task("x", periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.3), util_min=400)],
                  calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(era="v6.6"))
    src = validate(tr).summary["eas"]["decision_inputs"]["task_uclamp"]
    assert src.startswith("absent: no trace event carries")
    src = validate(tr, task_uclamp={"x": (400, 1024)}).summary["eas"]["decision_inputs"]["task_uclamp"]
    assert src.startswith("given by the user") and "'x'" in src
    wk = pd.DataFrame({"pid": [7, 8, 9], "comm": ["x", "x", "y"]})
    lo, hi = _task_clamps(wk, {"x": (100, 900), 8: (0, 300)})
    assert lo.tolist() == [100, 0, 0] and hi.tolist() == [900, 300, 1024]
    with pytest.raises(ModelError, match="task_uclamp"):
        _task_clamps(wk, {"x": (500, 100)})


def test_models_thermal_load_avg_decay_shift():
    """models.thermal_load_avg: pelt.c update_thermal_load_avg on rq_clock_thermal = rq_clock_task
    >> sched_thermal_decay_shift (v5.7 - v6.9). A constant pressure of 1024 from boot, updated every
    1024 * 1024 ns (one PELT period): after 32 periods the average is about 1024 (1 - y^32) = 512
    (y^32 = 1/2); with shift 1 the same wall time is 16 thermal periods, 1024 (1 - 2^-0.5) = 300;
    and shift k at times 2^k T is exactly shift 0 at times T (the clock is only divided)."""
    from lisa_eas.models import thermal_load_avg

    period = 1024 * 1024
    t = np.arange(1, 33) * period
    a0 = thermal_load_avg(t, 1024, era="v6.9")
    a1 = thermal_load_avg(t, 1024, era="v6.9", decay_shift=1)
    assert 500 <= a0.iloc[-1] <= 525 and 290 <= a1.iloc[-1] <= 310
    assert (thermal_load_avg(t * 4, 1024, era="v6.9", decay_shift=2).to_numpy() == a0.to_numpy()).all()
    for kw, what in (({"decay_shift": 11}, "decay_shift"), ({"era": "v6.10", "decay_shift": 1}, "v6.10"),
                     ({"era": "v5.6"}, "v5.7"), ({"pressure": 2000}, "pressure")):
        args = {"era": "v6.9", "pressure": 1024, **kw}
        with pytest.raises(ModelError, match=what):
            thermal_load_avg(t, args.pop("pressure"), **args)


def test_cli_task_uclamp_and_thermal_decay_shift_options():
    """``lisa-eas validate --task-uclamp TASK=MIN:MAX`` (a numeric TASK is a pid) and ``lisa-eas
    simulate --thermal-decay-shift N``: a bad value is one line naming the option, exit 2."""
    import subprocess
    import sys

    from lisa_eas.cli._validate import _task_uclamp

    assert _task_uclamp(["game=0:300", "1234=512:1024"]) == {"game": (0, 300), 1234: (512, 1024)}
    assert _task_uclamp([]) is None
    with pytest.raises(ModelError, match="--task-uclamp"):
        _task_uclamp(["game:0:300"])
    r = subprocess.run([sys.executable, "-m", "lisa_eas.cli", "simulate", "--platform", "hikey960", "--workload",
                        "none.json", "--era", "v6.9", "--thermal-decay-shift", "11", "--out", "/tmp/unused"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--thermal-decay-shift" in r.stderr and "Traceback" not in r.stderr
