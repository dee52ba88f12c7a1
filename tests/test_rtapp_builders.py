"""Builders, writer and calibration helpers."""
from __future__ import annotations

import json

import pytest

from lisa_eas.errors import WorkloadError
from lisa_eas.rtapp import (Calibration, Phase, Policy, Run, RunTime, Timer, duty_cycle_sweep,
                            identical_tasks, measured_ns_per_loop, parse_pload, periodic, ramp,
                            read_rtapp_log, run_loops, step, task, workload, workload_from_json,
                            write_workload)


def test_periodic():
    (ph,) = periodic(16, 30, duration_s=1.0, name="p")
    assert ph == Phase(name="p", events=(Run(4800), Timer(16000, ref="unique")), loop=62)
    assert ph.duty_cycle == pytest.approx(0.30) and ph.duration_us == 62 * 16000
    (rt,) = periodic(10, 25, loops=7, runtime=True)
    assert rt.events == (RunTime(2500), Timer(10000)) and rt.loop == 7
    assert periodic(16, 0, 0.032)[0].events == (Timer(16000),)
    assert periodic(16, 100, 0.032)[0].events == (Run(16000), Timer(16000))


@pytest.mark.parametrize("kwargs, word", [
    (dict(period_ms=16, duty_cycle_pct=120), "longer than its period"),
    (dict(period_ms=16, duty_cycle_pct=-1), "longer than its period"),
    (dict(duty_cycle_pct=10, period_ms=-16), "> 0 ms"),
    (dict(duty_cycle_pct=10, period_ms=0), "> 0 ms"),
    (dict(duty_cycle_pct=10, period_ms=16, duration_s=0.01), "shorter than one period"),
    (dict(period_ms=16, duty_cycle_pct=10, duration_s=float("nan")), "duration_s"),
    (dict(period_ms=16, duty_cycle_pct=10, loops=0), "loops=0"),
])
def test_periodic_bad_input(kwargs, word):
    with pytest.raises(WorkloadError, match=word):
        periodic(**kwargs)


def test_ramp_and_sweep_and_step():
    r = ramp(70, 10, -5, period_ms=16, step_s=0.5)
    assert [round(p.duty_cycle * 100) for p in r] == list(range(70, 5, -5))
    assert all(p.loop == 31 for p in r) and len({p.name for p in r}) == 13
    assert [p.busy_us for p in ramp(10, 45, 10, 16, 0.1)] == [1600, 3200, 4800, 6400]
    with pytest.raises(WorkloadError, match="does not lead"):
        ramp(10, 50, -10)
    with pytest.raises(WorkloadError, match="does not lead"):
        ramp(10, 50, 0)
    s = step(5, 75, period_ms=16, low_s=0.3)
    assert [(p.busy_us, p.loop) for p in s] == [(800, 18), (12000, 18)]
    assert [p.busy_us for p in step(5, 75, 16, 0.3, 0.6)] == [800, 12000]
    assert step(5, 75, 16, 0.3, 0.6)[1].loop == 37
    sw = duty_cycle_sweep([12.5, 50], 10, 0.1)
    assert [p.name for p in sw] == ["s000_dc12_5", "s001_dc50"] and sw[0].busy_us == 1250
    with pytest.raises(WorkloadError, match="no duty cycles"):
        duty_cycle_sweep([], 10, 1)


def test_task_workload_composition_and_json():
    phases = ramp(10, 30, 10, 16, 0.1) + periodic(16, 50, 0.2, name="tail")
    t = task("comp", phases, loop=2, cpus=[4], policy="SCHED_FIFO", priority=50, util_min=128)
    assert t.policy is Policy.FIFO and t.cpus == (4,)
    wl = workload([t] + list(identical_tasks(3, "small", periodic(16, 5, 0.5))), calibration=128)
    assert wl.task("small").instance == 3
    assert [x.name for x in identical_tasks(2, "n", periodic(16, 5), as_instances=False)] == ["n0", "n1"]
    text = wl.to_json()
    d = json.loads(text)
    assert d["global"] == {"duration": -1, "calibration": 128}  # no log_size (rt-app 1.0 bug)
    assert list(d["tasks"]["comp"]["phases"]) == ["r000_dc10", "r001_dc20", "r002_dc30", "tail"]
    assert d["tasks"]["comp"]["util_min"] == 128
    assert workload_from_json(text) == wl
    assert wl.duration_s == pytest.approx(2 * (3 * 6 * 0.016 + 12 * 0.016))
    assert wl.summary_rows()[0]["policy"] == "SCHED_FIFO"


def test_writer_makes_repeated_event_keys_unique(tmp_path):
    ph = Phase(name="p", events=(Run(10), Timer(100, ref="a"), Run(20), Timer(100, ref="b"), Run(30)))
    wl = workload([task("t", (ph,))], calibration=10)
    text = wl.to_json()
    members = json.loads(text)["tasks"]["t"]["phases"]["p"]
    assert list(members) == ["run", "timer", "run1", "timer1", "run2"]
    p = write_workload(wl, tmp_path / "sub" / "w.json")
    assert p.read_text() == text and workload_from_json(text) == wl


@pytest.mark.parametrize("call, word", [
    (lambda: task("t", ()), "no phases"),
    (lambda: task("t", periodic(16, 5, name="a") + periodic(16, 6, name="a")), "repeat"),
    (lambda: task("t", periodic(16, 5), loop=0), "loop=0"),
    (lambda: task("t", periodic(16, 5), cpus=[]), "cpus"),
    (lambda: task("t", periodic(16, 5), util_max=2048), "uclamp"),
    (lambda: task('a"b', periodic(16, 5)), "task name"),
    (lambda: workload([]), "no tasks"),
    (lambda: workload([task("t", periodic(16, 5))], calibration="fast"), "calibration"),
    (lambda: workload([task("t", periodic(16, 5)), task("t", periodic(16, 6))]), "repeated"),
    (lambda: identical_tasks(0, "n", periodic(16, 5)), "at least one"),
])
def test_builder_errors(call, word):
    with pytest.raises(WorkloadError, match=word):
        call()


def test_calibration_helpers():
    assert parse_pload("[rt-app] <notice> pLoad = 355ns\n") == {None: 355}
    assert parse_pload("pLoad = 120ns : calib_cpu 4\npLoad = 300ns : calib_cpu 0") == {4: 120, 0: 300}
    with pytest.raises(WorkloadError, match="pLoad"):
        parse_pload("nothing")
    assert run_loops(3200, 355) == 9014  # the perf column of the 2016 Juno log
    cal = Calibration(pload_ns=100, capacity=1024, cpu=4)
    assert cal.loops(1000) == 10000
    # same work on a CPU of half the capacity at half its top frequency: 4x the wall time
    assert cal.run_wall_us(1000, capacity=512, freq_khz=1000000, max_freq_khz=2000000) == 4000.0
    assert cal.run_wall_us(1000, capacity=1024) == 1000.0
    assert cal.run_for_wall_us(4000, capacity=512, freq_khz=1000000, max_freq_khz=2000000) == 1000
    assert cal.utilization(4800, 16000) == pytest.approx(307.2)
    little = Calibration(pload_ns=300, capacity=446)  # calibrated on a LITTLE: run scales up
    assert little.ns_per_loop(1024) == pytest.approx(300 * 446 / 1024)
    with pytest.raises(WorkloadError):
        Calibration(pload_ns=0)
    with pytest.raises(WorkloadError, match="max_freq_khz"):
        cal.ns_per_loop(1024, freq_khz=1000)


def test_measured_ns_per_loop_from_real_log(data_dir):
    df = read_rtapp_log(data_dir / "rtapp/logs/lisa_nutshell_juno/rt-app-task_lrh-0.log")
    # the run column includes preemption, so it is >= the loops at 355 ns each
    fastest = measured_ns_per_loop(df, 355)
    median = measured_ns_per_loop(df, 355, quantile=0.5)
    assert 0 < fastest <= median
    assert (df["perf"] == (df["c_duration_us"] * 1000) // 355).all()


def test_with_global():
    wl = workload([task("t", periodic(16, 5))], calibration="CPU4")
    wl2 = wl.with_global(calibration=18, logdir="/tmp/x", ftrace=True)
    assert wl2.global_settings.calibration == 18 and wl2.tasks == wl.tasks
    assert wl.global_settings.calibration == "CPU4"
    with pytest.raises(WorkloadError, match="log_basedir"):
        wl.with_global(log_basedir="/tmp")
