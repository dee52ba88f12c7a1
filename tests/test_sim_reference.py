"""The compiled engine and the same source run by the interpreter give identical event streams.

``compiled_clones/clone_sim_loop.py`` runs the engine's own numba source without numba: this checks
compilation (overflow, typing), not the algorithm, which both share line for line; the
independent checks are ``test_sim_reference_engine.py`` and ``test_sim_pelt_timeline.py``.

The EAS decision log compared here includes the exact ``find_energy_efficient_cpu`` inputs
(columns ``D_IN_*`` of ``sim_state``). After editing a ``lisa_eas/_kernels`` module, delete
``lisa_eas/_kernels/__pycache__/*.nb?`` before running: numba's cache is keyed on the edited
file only, so callers in other kernel modules may otherwise run stale compiled code.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from compiled_clones.clone_sim_loop import reference_sim_run

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
    from compiled_clones import clone_sim_eas as ref_sim_eas
    from compiled_clones import clone_sim_index as ref_sim_index
    from compiled_clones import clone_sim_models as ref_sim_models
    from compiled_clones import clone_sim_sched as ref_sim_sched

    from lisa_eas._kernels import sim_capacity, sim_eas, sim_index, sim_sched
    from lisa_eas.rtapp import periodic

    plat = load_platform("juno_r0")
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=20, period_ms=16, duration_s=1.0)) for i in range(4)],
                  calibration=20)
    S, P, O, margin = build_run(plat, compile_workload(wl, plat.nr_cpus), SimConfig(), int(0.1e9))
    run_loop(S, P, O, margin)       # leave the state mid-flight
    for ref, mods in ((ref_sim_sched, (sim_sched,)), (ref_sim_models, ref_sim_models.modules()),
                      (ref_sim_eas, (sim_eas,)), (ref_sim_index, (sim_index,))):
        twins = ref.functions()
        assert twins and all(callable(f) for f in twins.values())
        assert set(twins) == {n for mod in mods for n, o in vars(mod).items()
                              if hasattr(o, "py_func") and o.py_func.__module__ == mod.__name__}
    sched = ref_sim_sched.functions()
    models = ref_sim_models.functions()
    for c in range(plat.nr_cpus):
        assert sched["cap_now"](c, S, P) == sim_sched.cap_now(c, S, P)
        assert sched["freq_scale"](c, S, P) == sim_sched.freq_scale(c, S, P)
        assert sched["sched_slice"](c, S) == sim_sched.sched_slice(c, S)
        assert sched["pick_next"](c, S) == sim_sched.pick_next(c, S)
        assert models["cpu_util"](c, S, P) == sim_capacity.cpu_util(c, S, P)
        assert models["capacity_of"](c, S, P) == sim_capacity.capacity_of(c, S, P)


def test_heap_walks_agree_with_a_scan_of_the_task_table():
    """The wake-up heap keeps its top the earliest (time, index) wake-up, and ``choose_idle_state``'s
    pruned walk of it finds the earliest wake-up of the tasks that last ran on a CPU, as a scan
    of every sleeping task does, on random heaps with many ties."""
    from lisa_eas._kernels import sim_index, sim_sched
    from lisa_eas._kernels import sim_state as ss
    from lisa_eas.rtapp import periodic

    plat = load_platform("hikey960")
    nt = 67
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=5, period_ms=16, duration_s=1.0)) for i in range(nt)],
                  calibration=20)
    S, P, O, margin = build_run(plat, compile_workload(wl, plat.nr_cpus), SimConfig(), int(0.1e9))
    TK = S[S[8]:S[8] + nt * ss.T_NFIELDS].reshape(nt, ss.T_NFIELDS)
    rng = np.random.default_rng(7)
    resid = {d: [int(r) for r in P[P[28] + d * P[30]:P[28] + d * P[30] + P[P[32] + d]]] for d in range(P[9])}
    for trial in range(40):
        sleeping = rng.random(nt) < rng.uniform(0.2, 1.0)
        TK[:, ss.T_STATE] = np.where(sleeping, ss.TS_SLEEPING, ss.TS_RUNNABLE)
        TK[:, ss.T_WAKE_AT] = rng.integers(1, 40, nt) * 250_000
        TK[:, ss.T_CPU] = rng.integers(0, plat.nr_cpus, nt)
        S[S[0] + ss.G_WAKE_DIRTY] = 1
        sim_index.build_indexes(S)
        for step in range(30):          # wake the top, put it back to sleep later: the heap stays a heap
            n = S[S[0] + ss.G_HEAP_N]
            if n == 0:
                break
            top = S[S[68]]
            order = sorted(np.flatnonzero(TK[:, ss.T_STATE] == ss.TS_SLEEPING), key=lambda q: (TK[q, ss.T_WAKE_AT], q))
            assert top == order[0]
            now = int(TK[top, ss.T_WAKE_AT])
            for c in range(plat.nr_cpus):
                waits = [int(TK[q, ss.T_WAKE_AT]) for q in order if TK[q, ss.T_CPU] == c]
                budget = (min(waits) if waits else ss.INF_TIME) - now
                d = int(P[P[0] + c])
                want = max([i for i, r in enumerate(resid[d]) if r <= budget] or [0]) if len(resid[d]) > 1 else 0
                assert sim_sched.choose_idle_state(c, now, S, P) == want
            sim_index.heap_remove(top, S)
            TK[top, ss.T_STATE] = ss.TS_RUNNABLE
            if step % 4 == 1 and n > 2:          # a task leaving from inside the heap (exit)
                q = order[int(rng.integers(1, n))]
                sim_index.heap_remove(q, S)
                TK[q, ss.T_STATE] = ss.TS_EXITED
                assert S[S[72] + q] == -1
            if step % 3 == 0:
                TK[top, ss.T_STATE] = ss.TS_SLEEPING
                TK[top, ss.T_WAKE_AT] = now + int(rng.integers(0, 8)) * 250_000
                sim_index.heap_push(top, S)

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


def test_output_tables_do_not_depend_on_the_output_windows(monkeypatch):
    """The loop writes its output straight into the result tables, window after window, laid out
    again when the first estimate of their size falls short (here: 60 tasks start after 1 s):
    the tables are those of a run with one large window (no re-layout) and of a run whose
    tables are memory maps faulted in window by window."""
    from lisa_eas.rtapp import periodic
    from lisa_eas.sim import _engine

    plat = load_platform("hikey960")
    tasks = [task(f"a{i}", periodic(duty_cycle_pct=5, period_ms=16, duration_s=2.0)) for i in range(3)]
    tasks += [task(f"b{i}", periodic(duty_cycle_pct=5, period_ms=4, duration_s=1.0), delay_us=1_000_000)
              for i in range(60)]
    cw = compile_workload(workload(tasks, calibration=20), plat.nr_cpus)
    runs = []
    layouts = []
    layout = _engine._Output.layout

    def counted(self, expect):
        layouts.append(len(runs))
        return layout(self, expect)

    monkeypatch.setattr(_engine._Output, "layout", counted)
    for window, map_min in ((1 << 30, 1 << 40), (1 << 20, 4 << 20), (1 << 12, 1 << 12)):
        monkeypatch.setattr(_engine, "_WINDOW_BYTES", window)
        monkeypatch.setattr(_engine, "_MAP_MIN_BYTES", map_min)
        S, P, O, margin = build_run(plat, cw, SimConfig(), int(2e9))
        runs.append(run_loop(S, P, O, margin))
    assert layouts.count(2) > 1         # estimates fell short: the tables were laid out again
    for other in runs[1:]:
        for k in ("events", "activations", "eas", "res_busy", "res_idle"):
            assert np.array_equal(getattr(runs[0], k), getattr(other, k)), k
        assert other.t_end == runs[0].t_end
    assert runs[2].iterations > runs[0].iterations
