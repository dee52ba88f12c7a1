"""The numba engine and the plain-Python reference engine give identical event streams.

The EAS decision log compared here includes the exact ``find_energy_efficient_cpu`` inputs
(columns ``D_IN_*`` of ``sim_state``). After editing a ``lisa_eas/_kernels`` module, delete
``lisa_eas/_kernels/__pycache__/*.nb?`` before running: numba's cache is keyed on the edited
file only, so callers in other kernel modules may otherwise run stale compiled code.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from reference.ref_sim_loop import reference_sim_run

from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, Run, RunTime, Sleep, Timer, periodic, task, workload
from lisa_eas.sim import SimConfig
from lisa_eas.sim._compile import compile_workload
from lisa_eas.sim._engine import build_run, run_loop


def _both(board, wl, config, t_end_s):
    plat = load_platform(board)
    cw = compile_workload(wl, plat.nr_cpus)
    runs = []
    for loop in (None, reference_sim_run()):
        S, P, O, margin = build_run(plat, cw, config, int(t_end_s * 1e9))
        runs.append(run_loop(S, P, O, margin, loop=loop))
    return runs


CASES = {
    "hikey960-eas-schedutil": ("hikey960", SimConfig(), 0.25),
    "hikey960-eas50-rampboost": ("hikey960", SimConfig(placement="eas-v5.0", era="v5.0",
                                                      governor_tunables={"ramp_boost": 1}), 0.2),
    "juno-noeas-prop-ondemand": ("juno_r0", SimConfig(placement="no-eas", sis="prop", governor="ondemand",
                                                     era="v5.10", transition_latency_us=300), 0.25),
    "pixel3-eas-v6": ("pixel3", SimConfig(era="v6.1", tick_hz=1000), 0.2),
    "hikey960-ondemand-sdf": ("hikey960", SimConfig(governor="ondemand", governor_tunables={
        "sampling_down_factor": 3, "sampling_rate_us": 4000, "up_threshold": 80}), 0.2),
    "juno-interactive": ("juno_r0", SimConfig(governor="interactive", transition_latency_us=200, governor_tunables={
        "timer_rate_us": 10000, "hispeed_freq": 700000, "min_sample_time_us": 30000}), 0.25),
    "hikey960-schedfreq": ("hikey960", SimConfig(governor="schedfreq", governor_tunables={"throttle_us": 20000}),
                           0.2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_numba_and_reference_engines_identical(case):
    board, config, t_end = CASES[case]
    big = Phase(name="big", events=(Run(9000), Timer(16000)), loop=-1)
    mixed = Phase(name="mixed", events=(Run(300), Sleep(1200), RunTime(500), Timer(4000, mode="absolute")), loop=-1)
    fifo = replace(periodic(duty_cycle_pct=10, period_ms=7, duration_s=10.0, name="rt")[0], loop=-1)
    tasks = [task(f"s{i}", periodic(duty_cycle_pct=4 + 3 * i, period_ms=16, duration_s=10.0)) for i in range(6)]
    tasks += [task("big", [big]), task("mix", [mixed], cpus=[0, 1]), task("rt", [fifo], policy="SCHED_FIFO",
                                                                          priority=20)]
    wl = workload(tasks, calibration=20)
    fast, ref = _both(board, wl, config, t_end)
    assert len(fast.events) > 500
    # the governor acts in the closed loop (more frequency events than the initial ones)
    from lisa_eas._kernels.sim_state import EV_FREQ
    assert (fast.events[:, 1] == EV_FREQ).sum() > 2 * load_platform(board).nr_cpus
    assert np.array_equal(fast.events, ref.events)
    assert np.array_equal(fast.activations, ref.activations)
    assert np.array_equal(fast.eas, ref.eas)
    _check_logged_eas_inputs(fast.eas, load_platform(board).nr_cpus, config.placement != "no-eas")
    assert np.array_equal(fast.res_busy, ref.res_busy) and np.array_equal(fast.res_idle, ref.res_idle)
    assert fast.t_end == ref.t_end


def test_twins_cover_every_kernel_function_and_agree_on_a_state():
    from reference import ref_sim_eas, ref_sim_models, ref_sim_sched, ref_sim_views

    from lisa_eas._kernels import sim_eas, sim_models, sim_sched, sim_views
    from lisa_eas.rtapp import periodic

    plat = load_platform("juno_r0")
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=20, period_ms=16, duration_s=1.0)) for i in range(4)],
                  calibration=20)
    S, P, O, margin = build_run(plat, compile_workload(wl, plat.nr_cpus), SimConfig(), int(0.1e9))
    run_loop(S, P, O, margin)       # leave the state mid-flight
    for ref, mod in ((ref_sim_sched, sim_sched), (ref_sim_models, sim_models), (ref_sim_views, sim_views),
                     (ref_sim_eas, sim_eas)):
        twins = ref.functions()
        assert twins and all(callable(f) for f in twins.values())
        assert set(twins) == {n for n, o in vars(mod).items()
                              if hasattr(o, "py_func") and o.py_func.__module__ == mod.__name__}
    sched = ref_sim_sched.functions()
    models = ref_sim_models.functions()
    for c in range(plat.nr_cpus):
        assert sched["cap_now"](c, S, P) == sim_sched.cap_now(c, S, P)
        assert sched["freq_scale"](c, S, P) == sim_sched.freq_scale(c, S, P)
        assert sched["sched_slice"](c, S) == sim_sched.sched_slice(c, S)
        assert sched["pick_next"](c, S) == sim_sched.pick_next(c, S)
        assert models["cpu_util"](c, S, P) == sim_models.cpu_util(c, S, P)
        assert models["capacity_of"](c, S, P) == sim_models.capacity_of(c, S, P)
    views = ref_sim_views.functions()
    assert np.array_equal(views["v2"](S, 2), sim_views.v2(S, 2))


def _check_logged_eas_inputs(eas, n_cpus, eas_on):
    """The decision log carries feec's inputs: task util, per-CPU util / util_est / capacity_of / mask."""
    from lisa_eas._kernels import sim_state as ss

    assert eas.shape[1] == ss.D_IN_CPUS + ss.D_IN_PER_CPU * n_cpus
    if not eas_on:
        assert len(eas) == 0
        return
    assert len(eas) > 10
    util = eas[:, ss.D_IN_CPUS:ss.D_IN_CPUS + n_cpus]
    cap = eas[:, ss.D_IN_CPUS + 2 * n_cpus:ss.D_IN_CPUS + 3 * n_cpus]
    allowed = eas[:, ss.D_IN_CPUS + 3 * n_cpus:]
    assert util.any() and (util >= 0).all() and (util <= 1024).all()
    assert (cap >= 1).all() and (cap <= 1024).all()
    assert np.isin(allowed, (0, 1)).all() and allowed[np.arange(len(eas)), eas[:, ss.D_CHOSEN]].all()
    assert (eas[:, ss.D_TASK_UTIL] == np.maximum(eas[:, ss.D_IN_TASK_UTIL], eas[:, ss.D_IN_TASK_UTIL_EST])).all()
    assert (eas[:, ss.D_IN_OVERUTIL] == 0).all()
