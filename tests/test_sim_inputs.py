"""The optional decision inputs in the simulator and the replay (issue 17 §2): uclamp from rt-app's
``util_min`` / ``util_max``, a thermal cap schedule, RT pressure, runnable boosting.

Each simulator test holds a state where the input changes a decision; the expected values are
worked out by hand from the kernel sources cited (HiKey960: little CPUs 0-3, capacity 462, OPPs
533/999/1402/1709/1844 MHz; big CPUs 4-7, capacity 1024, OPPs 903/1421/1805/2112/2362 MHz; no
inefficient OPPs, so RELATION_LE resolves as RELATION_L). The replay test feeds a trace with
``sched_pelt_rt`` / ``sched_cpu_capacity`` records to the EAS replay.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lisa_eas.errors import ModelError
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim import SimConfig, simulate

BIG_OPPS = (903000, 1421000, 1805000, 2112000, 2362000)


def _switch_in_times(tr, comm):
    sw = tr.df("sched_switch")
    return sw.index.to_numpy(np.float64)[sw["next_comm"].to_numpy() == comm]


def _cpu_at(tr, comm, t):
    sw = tr.df("sched_switch")
    sel = sw[sw["next_comm"].to_numpy() == comm]
    k = np.searchsorted(sel.index.to_numpy(np.float64), t, side="left")
    return int(sel["__cpu"].iloc[k]), float(sel.index[k])


def _freq_at(tr, cpu, times):
    fr = tr.df("cpu_frequency")
    g = fr[fr["cpu_id"].to_numpy() == cpu]
    k = np.searchsorted(g.index.to_numpy(np.float64), times, side="right") - 1
    return g["state"].to_numpy(np.int64)[k]


def _pinned(comm, duty, cpus, duration_s=0.6, **kw):
    return task(comm, periodic(duty_cycle_pct=duty, period_ms=16, duration_s=duration_s), cpus=cpus, **kw)


# ------------------------------------------------------------------------------------ uclamp
def test_uclamp_min_raises_the_frequency_v6_7_and_v6_8_differ():
    """A 5 % task pinned to big CPU 4 with util_min = 512: its CPU's util u is ~50 once the
    initial 512 has decayed (after 0.2 s).

    v6.7 (kernel/sched/core.c effective_cpu_util, v6.7: ``util = uclamp_rq_util_with(rq, util,
    NULL)`` then cpufreq_schedutil.c get_next_freq: ``map_util_perf`` +25 %): 512 -> 640 ->
    2362000 * 640 / 1024 = 1476250 kHz -> lowest OPP >= it: 1805000.
    v6.8 (9c0b4bb7f630: ``*min = uclamp_min``; sugov_effective_cpu_perf: max(min, min(1.25 u,
    max)) = max(512, 62) = 512, get_next_freq without headroom): 2362000 * 512 / 1024 = 1181000
    -> 1421000. Without the clamp: 1.25 * ~50 / 1024 of fmax -> the lowest OPP, 903000."""
    got = {}
    for era in ("v6.7", "v6.8"):
        for clamp in (512, None):
            tr = simulate("hikey960", workload([_pinned("x", 5, [4], util_min=clamp)], calibration=20),
                          config=SimConfig(era=era, placement="no-eas"))
            t = _switch_in_times(tr, "x")
            got[era, clamp] = set(_freq_at(tr, 4, t[t > 0.2]).tolist())
    assert got["v6.7", 512] == {1805000}
    assert got["v6.8", 512] == {1421000}
    assert got["v6.7", None] == {903000}
    assert got["v6.8", None] == {903000}


def test_uclamp_needs_v5_3_and_v5_3_clamps():
    """uclamp-v5.3: v5.2 has no uclamp (sched_setattr refuses the clamps: the run is refused);
    v5.3 schedutil_cpu_util clamps: 512, v5.0-form get_next_freq (fmax + fmax/4) * 512 / 1024 =
    1476250 -> 1805000."""
    wl = workload([_pinned("x", 5, [4], util_min=512)], calibration=20)
    with pytest.raises(ModelError, match="v5.3"):
        simulate("hikey960", wl, config=SimConfig(era="v5.2", placement="no-eas"))
    tr = simulate("hikey960", wl, config=SimConfig(era="v5.3", placement="no-eas"))
    t = _switch_in_times(tr, "x")
    assert set(_freq_at(tr, 4, t[t > 0.2]).tolist()) == {1805000}


def test_rt_task_with_util_min_0_no_longer_forces_the_maximum():
    """An RT task (10 % of 16 ms) on CPU 4, v5.4. Without clamps a runnable RT task asks for the
    maximum (schedutil_cpu_util: with CONFIG_UCLAMP_TASK=y its default uclamp_min is 1024,
    1a00d999971c). With ``util_min = 0`` set, the rq's uclamp_min is 0 and the frequency follows
    its RT utilization (~100 of 1024: 1.25 * 100 / 1024 of fmax is well under the top OPP)."""
    freqs = {}
    for clamp in (None, 0):
        tr = simulate("hikey960", workload([_pinned("r", 10, [4], policy="SCHED_FIFO", priority=50, util_min=clamp)],
                                           calibration=20), config=SimConfig(placement="no-eas"))
        t = _switch_in_times(tr, "r")
        freqs[clamp] = _freq_at(tr, 4, t[t > 0.2])
    assert set(freqs[None].tolist()) == {2362000}
    assert freqs[0].max() < 2362000


def test_uclamp_max_of_the_rq_is_the_max_over_its_tasks():
    """Two tasks on CPU 4: one with util_min = 512, one unclamped (0, 1024). The rq clamp is the
    max over queued tasks (uclamp_rq_inc_id / bucket max): while the clamped one is queued the
    v6.7 frequency is 1805000 (as alone); while only the other one runs it is not raised."""
    wl = workload([_pinned("a", 5, [4], util_min=512),
                   task("b", periodic(duty_cycle_pct=5, period_ms=16, duration_s=0.6), cpus=[4], delay_us=8000)],
                  calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(era="v6.7", placement="no-eas"))
    ta = _switch_in_times(tr, "a")
    tb = _switch_in_times(tr, "b")
    assert set(_freq_at(tr, 4, ta[ta > 0.2]).tolist()) == {1805000}
    assert set(_freq_at(tr, 4, tb[tb > 0.2]).tolist()) == {903000}


def test_model_uclamp_min_task_goes_to_a_big_cpu_from_v5_6():
    """find_energy_efficient_cpu, HiKey960, every CPU idle (util 0), a task of util 100 waking on
    little CPU 0 with uclamp_min = 800.

    v5.5 (fair.c find_energy_efficient_cpu, v5.4 form): fits_capacity(100 + 0, 462) holds, the
    littles are cheaper: it stays on CPU 0. v5.6 (1d42509e475c, tip sched/core 25 Dec 2019; the
    ledger row said v5.7 until corrected): util = uclamp_rq_util_with(rq,
    100, p) = 800; 800 * 1280 = 1024000 >= 462 * 1024 = 473088: no little fits; 1024000 <
    1024 * 1024 = 1048576: every big fits with spare 1024 - 100 = 924, the first (CPU 4) is the
    max-spare CPU, prev does not fit (prev_delta = ULONG_MAX), so CPU 4. The same in the v6.x
    form up to v6.1 (prev not a candidate, best CPU 4)."""
    from lisa_eas.models import find_energy_efficient_cpu

    util = [0] * 8
    for era, want in (("v5.5", 0), ("v5.6", 4), ("v6.1", 4)):
        assert find_energy_efficient_cpu("hikey960", util, 100, 0, era=era, task_uclamp_min=800).cpu[0] == want, era
        assert find_energy_efficient_cpu("hikey960", util, 100, 0, era=era).cpu[0] == 0, era
    with pytest.raises(ModelError, match="task_uclamp_min"):
        find_energy_efficient_cpu("hikey960", util, 100, 0, era="v5.6", task_uclamp_min=2000)


def test_sim_uclamp_min_task_is_placed_on_a_big_cpu_from_v5_6():
    """The simulator passes the task's and the runqueues' clamps to feec: a 5 % task with
    util_min = 800 (util ~60 at wake-up) stays on the littles at v5.5 and wakes on a big CPU at
    v5.6 (same arithmetic as the model test above: 800 does not fit 462 with the 1.25 margin)."""
    wl = workload([task("x", periodic(duty_cycle_pct=5, period_ms=16, duration_s=0.5), util_min=800)], calibration=20)
    cpus = {}
    for era in ("v5.5", "v5.6"):
        tr = simulate("hikey960", wl, config=SimConfig(era=era))
        sw = tr.df("sched_switch")
        sw = sw[sw["next_comm"].to_numpy() == "x"]
        cpus[era] = set(sw["__cpu"].to_numpy()[sw.index.to_numpy(np.float64) > 0.2].tolist())
    assert cpus["v5.5"] <= {0, 1, 2, 3}
    assert cpus["v5.6"] and cpus["v5.6"] <= {4, 5, 6, 7}


def test_misfit_takes_the_clamps_from_v5_6():
    """update_misfit_status per era with uclamp: a CPU-bound task (100 % duty) with util_max 300,
    allowed on little CPU 0 and big CPU 4, starts on CPU 0 (threads placed in turn). Its util
    climbs towards 462 (running at the little CPU's top OPP), so CPU 0 is overutilized once it
    passes 369 (u * 1280 >= 462 * 1024 = 473088) and the load balancer looks for a misfit.

    v5.5 (task_fits_capacity = fits_capacity(task_util_est(p), capacity_of)): u >= 370 does not
    fit 462: a misfit, moved to the idle bigger CPU 4 within the first 0.1 s.
    v5.6 (a7008c07a568: fits_capacity(uclamp_task_util(p), capacity_of), the util clamped to
    [0, 300]): 300 * 1280 = 384000 < 473088: it fits, never a misfit, it stays on CPU 0.
    v6.2 (b48e16a69792: task_fits_cpu = util_fits_cpu(util, 0, 300, cpu)): fits_capacity fails but
    uclamp_max 300 <= capacity_orig 462 forces the fit (1); v6.3 (e5ed0550c04c: util_fits_cpu > 0):
    no boost, 1 > 0: both stay on CPU 0."""
    wl = workload([task("x", periodic(duty_cycle_pct=100, period_ms=16, duration_s=0.6), cpus=[0, 4],
                        util_max=300)], calibration=20)
    cpus = {}
    for era in ("v5.5", "v5.6", "v6.2", "v6.3"):
        tr = simulate("hikey960", wl, config=SimConfig(era=era, ablate=("fork-placement",)))
        sw = tr.df("sched_switch")
        sw = sw[sw["next_comm"].to_numpy() == "x"]
        t = sw.index.to_numpy(np.float64)
        assert sw["__cpu"].to_numpy()[0] == 0
        cpus[era] = set(sw["__cpu"].to_numpy()[t > 0.1].tolist()) | {int(sw["__cpu"].to_numpy()[-1])}
        ut = tr.df("lisa_sim_task_util")
        if era != "v5.5":
            assert (ut[ut.index > 0.3]["util_avg"].to_numpy() > 400).all()    # the util worked with above
    assert cpus == {"v5.5": {4}, "v5.6": {0}, "v6.2": {0}, "v6.3": {0}}


# ------------------------------------------------------------------------------------ thermal
def _capped_little_task(era, duration_s):
    """A 19 % / 16 ms task on HiKey960, the little domain capped from 0.5 s (``(0.5, "pd0", 300)``):
    the task's switch-in times and CPUs and the EAS decisions; before the cap it runs on the
    little CPUs."""
    wl = workload([task("x", periodic(duty_cycle_pct=19, period_ms=16, duration_s=duration_s))], calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(era=era, thermal_caps=((0.5, "pd0", 300),)))
    sw = tr.df("sched_switch")
    sw = sw[sw["next_comm"].to_numpy() == "x"]
    t, cpu = sw.index.to_numpy(np.float64), sw["__cpu"].to_numpy()
    assert set(cpu[(t > 0.2) & (t < 0.5)].tolist()) <= {0, 1, 2, 3}
    return t, cpu, tr.df("lisa_sim_eas_decision")


def test_thermal_cap_moves_a_task_from_v5_7():
    """A 19 % task placed by EAS: its util at wake-up (221-231, read from the EAS log) fits a
    little CPU, u * 1280 < 462 * 1024 = 473088 for u < 370. At 0.5 s the little domain is capped
    at capacity 300: its highest OPP under the cap is 999 MHz (capacity 462 * 999 / 1844 = 250,
    integer), the thermal pressure 462 - 250 = 212.

    v5.6: capacity_of ignores thermal pressure (fair.c scale_rt_capacity: RT + DL + IRQ only):
    ~226 * 1280 < 473088, neither misfit nor overutilized, the task stays on its little CPU (at
    999 MHz it is busy 226 / 250 of the time, util unchanged). v5.7 (467b7d01c3e7): capacity_of
    = 462 - thermal_load_avg, the PELT average of the 212 (pelt.c update_thermal_load_avg, at
    each tick and each 4 ms load balance). Overutilized needs 231 * 1280 = 295680 >= capacity_of
    * 1024, capacity_of <= 288, an average >= 174 = 212 (1 - y^n) with y^32 = 1/2: n >= 80
    periods of 1.024 ms, ~82 ms (~100 ms for util 221); at 0.7 s the last update is at most 4 ms
    old, n >= 196 / 1.024 = 191, y^n <= 0.016: the average is at least 208 and capacity_of at most
    254: 221 * 1280 = 282880 >= 254 * 1024 = 260096, no little CPU fits; the task runs on a big
    CPU from 0.7 s on."""
    after = {}
    for era in ("v5.6", "v5.7"):
        t, cpu, dec = _capped_little_task(era, 1.0)
        u = dec[dec.index > 0.3]["task_util"].to_numpy()
        assert len(u) and (u > 200).all() and (u < 370).all()       # the window where the two eras differ
        after[era] = set(cpu[t > 0.7].tolist())
    assert after["v5.6"] <= {0, 1, 2, 3}
    assert after["v5.7"] and after["v5.7"] <= {4, 5, 6, 7}


def test_thermal_load_avg_v6_9_vs_cpufreq_pressure_v6_10():
    """The same 19 % task and cap (pressure 212 on the little CPUs from 0.5 s, see above), the
    50 ms after the cap starts.

    v6.9: capacity_of = 462 - thermal_load_avg (fair.c scale_rt_capacity; cpufreq_cooling sets
    the thermal pressure, whose PELT average update_thermal_load_avg keeps at each tick and each
    4 ms load balance). An update accrues the pressure in force over the time since the previous
    one (at most 4 ms before the cap), so up to 0.55 s the average is at most 212 (1 - y^n), n =
    54 / 1.024 = 52.7 periods, y^n = 0.5^(52.7 / 32) = 0.32: at most 145, capacity_of at least
    317; 231 * 1280 = 295680 < 317 * 1024 = 324608: the task fits, no overutilized, no misfit,
    it stays on the little CPUs.

    v6.10 (f1f8d0a22422, c281afe24fc5): the cooling device no longer sets the hw pressure; the cap
    is the cpufreq pressure (462 - 250 = 212, set with policy->max), which
    get_actual_cpu_capacity subtracts at once: capacity_of = 250 and 221 * 1280 = 282880 >=
    256000: overutilized at the next update, the task is on a big CPU 20 ms after the cap.
    (At v6.9 it moves ~0.1 s after the cap, when the average passes 462 - 273 = 189 for util 219:
    y^n <= 0.108, n >= 103 periods.)"""
    window = {}
    for era in ("v6.9", "v6.10"):
        t, cpu, dec = _capped_little_task(era, 0.8)
        u = dec[(dec.index > 0.3) & (dec.index <= 0.55)]["task_util"].to_numpy()
        assert len(u) and (u > 200).all() and (u < 232).all()     # the utils worked with above
        window[era] = set(cpu[(t > 0.52) & (t <= 0.55)].tolist())
    assert window["v6.9"] and window["v6.9"] <= {0, 1, 2, 3}
    assert window["v6.10"] and window["v6.10"] <= {4, 5, 6, 7}


def test_thermal_cap_caps_the_frequency():
    """policy->max under a cooling device: a 60 % task pinned to CPU 0 asks for the top little
    OPP; capped at capacity 300 (999 MHz, see above) from 0.3 s, no request above 999000 is
    applied after the cap (cpufreq clamps every target to policy->max)."""
    wl = workload([_pinned("x", 60, [0])], calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(placement="no-eas", thermal_caps=((0.3, 0, 300),)))
    fr = tr.df("cpu_frequency")
    g = fr[fr["cpu_id"].to_numpy() == 0]
    assert g[g.index < 0.3]["state"].max() == 1844000
    assert g[g.index > 0.3]["state"].max() <= 999000


def test_thermal_cap_is_in_force_at_the_next_request():
    """The cap takes effect at the governor's next request even when schedutil repeats the
    request in force (the steady 60 % task keeps asking for 1844 MHz): the loop's shortcut for a
    repeated request must not skip the clamp to policy->max, so the frequency of CPU 0 in force
    10 ms after the cap starts (ticks every 4 ms) is at most 999 MHz."""
    wl = workload([_pinned("x", 60, [0])], calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(placement="no-eas", thermal_caps=((0.3, 0, 300),)))
    fr = tr.df("cpu_frequency")
    g = fr[fr["cpu_id"].to_numpy() == 0]
    assert g[g.index < 0.3]["state"].iloc[-1] == 1844000
    assert g[g.index <= 0.31]["state"].iloc[-1] <= 999000


# ------------------------------------------------------------------------------------ runnable boosting
def test_runnable_boosting_from_v6_5():
    """Two 30 % tasks pinned to CPU 4 wake together: while one waits, the cfs_rq's runnable_avg
    exceeds its util_avg, and from v6.5 (7d0583cf9ec7, cpu_util_cfs_boost) schedutil asks for
    max(util_avg, runnable_avg): a higher frequency on average. v6.4 has no runnable boosting:
    the run is the one without the option, event for event."""
    wl = workload([_pinned("a", 30, [4]), _pinned("b", 30, [4])], calibration=20)

    def mean_freq(tr):
        fr = tr.df("cpu_frequency")
        g = fr[fr["cpu_id"].to_numpy() == 4]
        t = g.index.to_numpy(np.float64)
        dt = np.diff(np.r_[t, 0.6])
        return float((g["state"].to_numpy() * dt).sum() / dt.sum())

    base = {era: simulate("hikey960", wl, config=SimConfig(era=era, placement="no-eas")) for era in ("v6.4", "v6.5")}
    boost = {era: simulate("hikey960", wl, config=SimConfig(era=era, placement="no-eas", runnable_boost=True))
             for era in ("v6.4", "v6.5")}
    assert boost["v6.4"].df("cpu_frequency").equals(base["v6.4"].df("cpu_frequency"))
    assert mean_freq(boost["v6.5"]) > mean_freq(base["v6.5"])


# ------------------------------------------------------------------------------------ defaults and bad values
def test_absent_inputs_leave_the_run_unchanged():
    """No clamp, no cap, rt_pressure / runnable_boost off: the same run as before the inputs existed
    (checked against the code before them in the report; here: an empty cap schedule and the
    options off are the defaults, event for event)."""
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=10 + 10 * i, period_ms=16, duration_s=0.3))
                   for i in range(4)], calibration=20)
    a = simulate("hikey960", wl, config=SimConfig(era="v6.6"))
    b = simulate("hikey960", wl, config=SimConfig(era="v6.6", thermal_caps=(), rt_pressure=False,
                                                   runnable_boost=False))
    for ev in a.events:
        assert a.df(ev).equals(b.df(ev)), ev


def test_rt_pressure_runs_eas_with_the_rt_utilization():
    """rt_pressure: feec's energy sees the rt_rq's util_avg (a FIFO task beside CFS tasks); the run
    completes and EAS still decides (the RT term changes the energies, not the candidates' fit,
    which capacity_of already had)."""
    wl = workload([task(f"c{i}", periodic(duty_cycle_pct=15, period_ms=16, duration_s=0.3)) for i in range(3)]
                  + [task("r", periodic(duty_cycle_pct=20, period_ms=8, duration_s=0.3), policy="SCHED_FIFO",
                          priority=50)], calibration=20)
    a = simulate("hikey960", wl, config=SimConfig(era="v6.6"))
    b = simulate("hikey960", wl, config=SimConfig(era="v6.6", rt_pressure=True))
    ea = a.df("lisa_sim_eas_decision")
    eb = b.df("lisa_sim_eas_decision")
    assert len(eb) > 0
    assert not (ea.reset_index(drop=True).equals(eb.reset_index(drop=True)))


@pytest.mark.parametrize("caps, match", [
    (((0.1, 4, 2000),), "capacity"), (((-1, 4, 300),), "time_s"), (((0.1, "big", 300),), "target"),
    (((0.1, 4),), "thermal_caps\\[0\\]"), ("pd0", "thermal_caps")])
def test_bad_thermal_caps_are_named(caps, match):
    with pytest.raises(ModelError, match=match):
        SimConfig(thermal_caps=caps)


def test_bad_uclamp_and_cap_targets_are_named():
    ph = periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.1)
    with pytest.raises(ModelError, match="util_min 600 > util_max 300"):
        simulate("hikey960", workload([task("x", ph, util_min=600, util_max=300)], calibration=20))
    with pytest.raises(ModelError, match="pd7"):
        simulate("hikey960", workload([task("x", ph)], calibration=20), config=SimConfig(thermal_caps=((0, "pd7", 300),)))
    with pytest.raises(ModelError, match="CPU 12"):
        simulate("hikey960", workload([task("x", ph)], calibration=20), config=SimConfig(thermal_caps=((0, 12, 300),)))
    with pytest.raises(ModelError, match="ramp_boost"):
        SimConfig(runnable_boost=True, governor_tunables={"ramp_boost": 1})


# ------------------------------------------------------------------------------------ replay
def test_replay_reads_rt_pressure_and_capacity_from_trace_events():
    """A simulated EAS trace plus synthetic collector records: ``sched_cpu_capacity`` saying the
    little CPUs have capacity_of 250 (thermal) from 0.3 s, ``sched_pelt_rt`` records. The replay
    passes them to find_energy_efficient_cpu: the model's CPU for a task of util ~300 moves from a
    little CPU to a big one (250 * 1024 < 300 * 1280) and the metadata names each input's event,
    uclamp and thermal pressure "absent"."""
    from lisa_eas.analysis.validate import rebuild_wakeups, replay_eas
    from lisa_eas.platform import load_platform
    from lisa_eas.trace import Trace

    plat = load_platform("hikey960")
    wl = workload([task("x", periodic(duty_cycle_pct=30, period_ms=16, duration_s=0.6))], calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig())
    frames = {ev: tr.df(ev) for ev in tr.events}
    t0 = 0.3
    cap = pd.DataFrame({"__cpu": np.arange(8), "__pid": 0, "__comm": "<idle>", "cpu": np.arange(8),
                        "capacity": [250] * 4 + [1024] * 4}, index=pd.Index([t0] * 8, name="Time", dtype=float))
    rt = pd.DataFrame({"__cpu": np.arange(8), "__pid": 0, "__comm": "<idle>", "cpu": np.arange(8),
                       "util": [0] * 8, "update_time": 0}, index=pd.Index([0.01] * 8, name="Time", dtype=float))
    with_inputs = Trace.from_dataframes({**frames, "sched_cpu_capacity": cap, "sched_pelt_rt": rt},
                                        metadata=dict(tr.metadata))
    df0, s0 = replay_eas(rebuild_wakeups(tr, plat, inputs="rebuilt"), plat)
    df1, s1 = replay_eas(rebuild_wakeups(with_inputs, plat, inputs="rebuilt"), plat)
    assert s1["decision_inputs"]["capacity"] == "sched_cpu_capacity.capacity"
    assert s1["decision_inputs"]["util_rt"] == "sched_pelt_rt.util"
    assert s1["decision_inputs"]["uclamp"].startswith("absent")
    assert s1["decision_inputs"]["thermal_pressure"].startswith("absent")
    assert s0["decision_inputs"]["util_rt"].startswith("absent")
    late0 = df0[(df0["time"] > t0) & (df0["task_util"] > 220)]
    late1 = df1[(df1["time"] > t0) & (df1["task_util"] > 220)]
    assert len(late1) and (late0["model_cpu"] < 4).all() and (late1["model_cpu"] >= 4).all()
    bad = rt.assign(util=[2000] + [0] * 7)
    with pytest.raises(ModelError, match="sched_pelt_rt.util"):
        rebuild_wakeups(Trace.from_dataframes({**frames, "sched_pelt_rt": bad}, metadata=dict(tr.metadata)), plat)


# ------------------------------------------------------------------------------------ CLI
def test_cli_takes_the_inputs(tmp_path, capsys):
    """``lisa-eas simulate --thermal-cap 0.1:pd0:300 --rt-pressure --runnable-boost``: the run's
    metadata has them; a malformed ``--thermal-cap`` is one line naming the option (exit 2)."""
    import json
    from pathlib import Path

    from lisa_eas.cli import main

    smoke = Path(__file__).resolve().parent.parent / "workloads" / "smoke_local.json"
    out = tmp_path / "o"
    rc = main(["simulate", "--platform", "hikey960", "--workload", str(smoke), "--duration", "0.2", "--era", "v6.6",
               "--thermal-cap", "0.1:pd0:300", "--rt-pressure", "--runnable-boost", "--out", str(out)])
    assert rc == 0
    cfg = json.loads((out / "metadata.json").read_text())["config"]
    assert cfg["thermal_caps"] == [[0.1, "pd0", 300]] and cfg["rt_pressure"] and cfg["runnable_boost"]
    capsys.readouterr()
    rc = main(["simulate", "--platform", "hikey960", "--workload", str(smoke), "--thermal-cap", "0.1:pd0",
               "--out", str(tmp_path / "p")])
    err = capsys.readouterr().err
    assert rc == 2 and "--thermal-cap" in err and err.count("\n") == 1


def test_schedutil_replay_adds_rt_utilization():
    """The schedutil replay adds ``sched_pelt_rt``'s utilization after max(util_avg, util_est): with
    300 of RT on every big CPU, the model's big-domain frequency for a util ~50 task moves up
    (v5.4 get_next_freq: 1.25 * 2362000 * (50 + 300) / 1024 = 1009 MHz -> 1421000; without it
    1.25 * 2362000 * 50 / 1024 = 144 MHz -> 903000)."""
    from lisa_eas.analysis import df_cpu_util
    from lisa_eas.analysis.validate import replay_schedutil
    from lisa_eas.platform import load_platform
    from lisa_eas.trace import Trace

    plat = load_platform("hikey960")
    tr = simulate("hikey960", workload([_pinned("x", 5, [4])], calibration=20), config=SimConfig(placement="no-eas"))
    rt = pd.DataFrame({"__cpu": np.arange(8), "__pid": 0, "__comm": "<idle>", "cpu": np.arange(8),
                       "util": [0] * 4 + [300] * 4, "update_time": 0}, index=pd.Index([0.0] * 8, name="Time", dtype=float))
    tr_rt = Trace.from_dataframes({**{e: tr.df(e) for e in tr.events}, "sched_pelt_rt": rt}, metadata=dict(tr.metadata))
    d0, s0 = replay_schedutil(tr, plat, df_cpu_util(tr))
    d1, s1 = replay_schedutil(tr_rt, plat, df_cpu_util(tr_rt))
    assert s0["decision_inputs"]["util_rt"].startswith("absent") and s1["decision_inputs"]["util_rt"] == "sched_pelt_rt.util"
    # the trace's big CPUs sit at 903000 once the task's initial util has decayed: the model without RT
    # agrees most of the time, the model with RT asks for 1421000 and finds the trace under it
    b0, b1 = s0["domains"]["big"], s1["domains"]["big"]
    assert b0["time_at_model_freq_pct"] > 80
    assert b1["under_provisioned_pct"] > 80


def test_sim_uclamp_in_the_asymmetric_idle_search_v6_1_v6_2():
    """Without EAS on HiKey960 the wake-ups take select_idle_sibling's asymmetric path. A small
    task (600 us of work every 10 ms, ~1.3 ms on the LITTLE CPU: task_util_est well under 369)
    with util_min = 400 runs pinned on LITTLE CPU 0, then free. At the first free wake-up (a
    timer wake-up: target = prev = 0, idle):

    v6.1 (asym_fits_capacity with uclamp_task_util(p) = max(util, 400) = 400): 400 * 1280 =
    512000 >= 462 * 1024 = 473088, the LITTLE target does not fit; select_idle_capacity from 0
    finds the first idle big CPU, 4 (512000 < 1048576). v6.2 (asym_fits_cpu = util_fits_cpu(util,
    400, 1024, 0)): fits_capacity(util, 462) holds and the boost 400 <= 462 - 0: the target, 0.
    Without the clamp both keep it on CPU 0. (With 1 ms of work the estimate reached 382 and the
    task fit no LITTLE CPU at that wake-up: util_est's flag, set at the last pinned dequeue, is
    still set when the zero-length last activation dequeues, since the wake-up's sync and its
    enqueue cross no period, so the estimate keeps its peak.)"""
    from lisa_eas.rtapp import Phase, Run, Sleep

    pinned = Phase(name="pinned", events=(Run(600), Sleep(9400)), loop=5, cpus=(0,))
    free = Phase(name="free", events=(Sleep(3000), Run(600), Sleep(6400)), loop=2, cpus=tuple(range(8)))
    got = {}
    for clamp in (400, None):
        kw = {} if clamp is None else {"util_min": clamp}
        wl = workload([task("small", [pinned, free], **kw)], calibration=20)
        for era in ("v6.1", "v6.2"):
            tr = simulate("hikey960", wl, config=SimConfig(placement="no-eas", era=era, governor="performance"))
            log = tr.df("lisa_sim_rtapp_log")
            t_free = log.loc[log["phase"] == 1, "start_us"].min() / 1e6
            wakes = tr.df("sched_wakeup")
            woke = wakes[wakes.index > t_free + 0.001].iloc[0]        # the end of the free phase's 3 ms sleep
            assert abs(woke.name - t_free - 0.003) < 2e-4, (woke.name, t_free)
            got[(clamp, era)] = int(woke["target_cpu"])
    assert got == {(400, "v6.1"): 4, (400, "v6.2"): 0, (None, "v6.1"): 0, (None, "v6.2"): 0}, got
