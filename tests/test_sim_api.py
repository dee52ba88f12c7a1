"""lisa_eas.simulate / SimConfig / `lisa-eas simulate`: schema, metadata, bad input."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import lisa_eas
from lisa_eas.errors import ModelError
from lisa_eas.rtapp import (Barrier, Lock, Mem, Phase, Run, Sleep, Timer, Unlock, periodic, read_rtapp_log, task,
                            workload, write_workload)
from lisa_eas.sim import SimConfig, simulate
from lisa_eas.trace import SCHEMA_COLUMNS


def _small():
    return workload([task("a", periodic(duty_cycle_pct=20, period_ms=10, duration_s=0.3)),
                     task("b", periodic(duty_cycle_pct=50, period_ms=16, duration_s=0.3), cpus=[4, 5])],
                    calibration=20)


def test_trace_schema_and_kernel_event_fields():
    tr = lisa_eas.simulate("hikey960", _small(), config=lisa_eas.SimConfig())
    fields = {
        "sched_switch": ["prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"],
        "sched_wakeup": ["comm", "pid", "prio", "target_cpu"],
        "sched_migrate_task": ["comm", "pid", "prio", "orig_cpu", "dest_cpu"],
        "cpu_frequency": ["state", "cpu_id"],
        "cpu_idle": ["state", "cpu_id"],
        "print": ["buf"],
        "lisa_sim_task_util": ["util_avg", "util_est_ewma", "util_est_enqueued"],
        "lisa_sim_cpu_util": ["util_avg", "util_est_enqueued", "capacity_curr"],
        "lisa_sim_overutilized": ["overutilized"],
        "lisa_sim_eas_decision": ["prev_cpu", "chosen_cpu", "prev_energy", "best_energy", "base_energy"],
    }
    for ev, cols in fields.items():
        df = tr.df(ev)
        assert df.index.name == "Time" and df.index.dtype == np.float64
        for c in list(SCHEMA_COLUMNS) + cols:
            assert c in df.columns, (ev, c)
        assert df.index.is_monotonic_increasing
    idle = tr.df("cpu_idle")
    assert 4294967295 in set(idle["state"])
    sw = tr.df("sched_switch")
    assert set(sw["next_comm"]) >= {"a", "b", "<idle>"}
    assert (sw.loc[sw["next_comm"] == "a", "next_prio"] == 120).all()
    assert tr.metadata["platform"] == "hikey960" and tr.metadata["config"]["placement"] == "eas"
    assert tr.metadata["energy"]["total"] > 0 and set(tr.metadata["energy"]["per_domain"]) == {"little", "big"}


def test_activation_table_has_the_rtapp_log_columns(tmp_path):
    tr = simulate("juno_r0", _small(), config=SimConfig(governor="performance"))
    log = tr.df("lisa_sim_rtapp_log")
    # the columns of a real rt-app log as lisa_eas.rtapp.read_rtapp_log returns them
    real = tmp_path / "rt-app-a-0.log"
    real.write_text("# Policy : SCHED_OTHER priority : 0\n"
                    "#idx\t    perf\t     run\t  period\t     start\t       end\t   rel_st\t   slack"
                    "\tc_duration\tc_period\twu_lat\n"
                    "0\t2000\t2003\t10000\t1000\t11000\t0\t7990\t2000\t10000\t12\n")
    ref_cols = set(read_rtapp_log(real).columns)
    assert ref_cols <= set(log.columns) | {"__ts"}, ref_cols - set(log.columns)
    a = log[log["task"] == "a"]
    assert len(a) == 30 and (a["c_period_us"] == 10000).all() and (a["c_duration_us"] == 2000).all()
    assert (a["slack_us"] > 0).all() and (a["run_us"] >= 2000).all()
    assert (a["period_us"] == 10000).all()
    # the print markers carry the same statistics in LISA's rtapp_stats form
    stats = tr.df("print")["buf"].astype(str)
    assert stats.str.startswith("rtapp_stats:").sum() == len(log)
    acts = tr.activations          # parsed back by lisa_eas.rtapp.markers, as for a real trace
    assert len(acts) == len(log)
    np.testing.assert_array_equal(np.sort(acts.index.to_numpy()), np.sort(log.index.to_numpy()))
    for pid in (1000, 1001):
        a = acts[(acts["__pid"] == pid) & acts["slack_us"].notna()]
        m = log[log["__pid"] == pid].set_index("start_us")
        assert len(a) > 0
        start_us = np.floor(a.index.to_numpy() * 1e6 + 1e-3).astype(np.int64)
        np.testing.assert_array_equal(a["slack_us"].to_numpy(), m.loc[start_us, "slack_us"].to_numpy())
        np.testing.assert_array_equal(a["run_us"].to_numpy(), m.loc[start_us, "run_us"].to_numpy())


def test_deterministic_and_seeded_jitter():
    cfg = SimConfig(start_jitter_us=3000, seed=7)
    t1 = simulate("hikey960", _small(), config=cfg)
    t2 = simulate("hikey960", _small(), config=cfg)
    t3 = simulate("hikey960", _small(), config=cfg.replace(seed=8))
    pd.testing.assert_frame_equal(t1.df("sched_switch"), t2.df("sched_switch"))
    assert not t1.df("sched_switch").index.equals(t3.df("sched_switch").index)


@pytest.mark.parametrize("event, feature", [(Lock("m"), "lock"), (Mem(1024), "mem"), (Barrier("b"), "barrier")])
def test_unmodelled_events_are_refused_up_front(event, feature):
    wl = workload([task("x", [Phase(name="p", events=(Run(100), event, Sleep(100)), loop=3)])], calibration=20)
    with pytest.raises(ModelError, match=feature):
        simulate("hikey960", wl)


def test_unmodelled_policies_and_uclamp_are_refused():
    ph = periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.1)
    with pytest.raises(ModelError, match="SCHED_DEADLINE"):
        simulate("hikey960", workload([task("x", ph, policy="SCHED_DEADLINE")], calibration=20))
    with pytest.raises(ModelError, match="uclamp .*v5.3"):      # a task's clamps are modelled from v5.3
        simulate("hikey960", workload([task("x", ph, util_min=200)], calibration=20), config=SimConfig(era="v5.2"))
    with pytest.raises(ModelError, match="CPUs \\[9\\]"):
        simulate("hikey960", workload([task("x", ph, cpus=[9])], calibration=20))
    forever = Phase(name="p", events=(Run(100), Timer(1000)), loop=-1)
    with pytest.raises(ModelError, match="duration_s"):
        simulate("hikey960", workload([task("x", [forever])], calibration=20))
    # no power data: no Energy Model, so the kernel runs without EAS (issue 21: stated, not refused)
    tr = simulate(_no_power_platform(), workload([task("x", ph)], calibration=20))
    assert tr.metadata["config"]["placement"] == "no-eas" and tr.metadata["energy"] is None
    assert tr.metadata["platform_model"]["eas"].startswith("off")
    with pytest.raises(ModelError, match="Energy Model"):       # the ramp boost needs one
        simulate(_no_power_platform(), workload([task("x", ph)], calibration=20),
                 config=SimConfig(governor_tunables={"ramp_boost": 1}))


def _no_power_platform():
    from lisa_eas.platform import platform_from_dict
    return platform_from_dict({"name": "nopower", "perf_domains": [
        {"name": "d", "cpus": [0, 1], "cpu_capacity_max": 1024, "power_mw_source": None,
         "opps": [{"freq_khz": 1000000, "capacity": 1024}]}]})


def test_approximations_are_recorded():
    ph = replace_taskgroup(periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.1)[0])
    tr = simulate("hikey960", workload([task("x", [ph], instance=2)], calibration=20))
    assert any("taskgroup" in a for a in tr.metadata["approximations"])


def replace_taskgroup(ph):
    from dataclasses import replace
    return replace(ph, taskgroup="/bg")


@pytest.mark.parametrize("kwargs, match", [({"placement": "best"}, "placement"), ({"sis": "fast"}, "sis"),
                                           ({"governor": "conservative"}, "conservative"),
                                           ({"era": "linux"}, "era"), ({"tick_hz": 0}, "tick_hz"),
                                           ({"duration_s": -1}, "duration_s"),
                                           ({"governor_tunables": {"rate_limit": 5}}, "rate_limit"),
                                           ({"governor": "ondemand",
                                             "governor_tunables": {"sampling_down_factor": 0}}, "sampling_down"),
                                           ({"governor": "interactive",
                                             "governor_tunables": {"target_load": 101}}, "target_load"),
                                           ({"governor": "interactive",
                                             "governor_tunables": {"up_threshold": 80}}, "up_threshold"),
                                           ({"governor": "schedfreq",
                                             "governor_tunables": {"capacity_margin": 1000}}, "capacity_margin")])
def test_config_validation(kwargs, match):
    with pytest.raises(ModelError, match=match):
        SimConfig(**kwargs)


def test_cli_writes_parquet_and_metadata(tmp_path, capsys):
    from lisa_eas.cli import main

    wl = tmp_path / "wl.json"
    write_workload(_small(), wl)
    out = tmp_path / "sim"
    rc = main(["simulate", "--platform", "hikey960", "--workload", str(wl), "--governor", "schedutil",
               "--placement", "eas-v5.0", "--sis", "prop", "--out", str(out), "--format", "json"])
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["config"]["placement"] == "eas-v5.0" and meta["config"]["sis"] == "prop"
    for ev, n in res["events"].items():
        df = pd.read_parquet(out / f"{ev}.parquet")
        assert len(df) == n
    assert res["events"]["sched_switch"] > 50
    rc = main(["simulate", "--platform", "hikey960", "--workload", str(wl), "--placement", "magic",
               "--out", str(tmp_path / "bad")])
    assert rc == 2
    assert "placement" in capsys.readouterr().err


def test_summary_output_is_the_full_run_without_its_event_tables():
    """``SimConfig(outputs="summary")``: the same rt-app log, energy and residencies as the full
    run (the same loop), and no per-event table."""
    from lisa_eas.rtapp import periodic, task, workload

    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.3)) for i in range(4)],
                  calibration=20)
    full = simulate("hikey960", wl, config=SimConfig())
    summ = simulate("hikey960", wl, config=SimConfig(outputs="summary"))
    assert set(summ.events) == {"lisa_sim_rtapp_log"}
    pd.testing.assert_frame_equal(summ.df("lisa_sim_rtapp_log"), full.df("lisa_sim_rtapp_log"))
    # the same EM energy; the meter figure needs the event timeline (full output only)
    assert {k: v for k, v in summ.metadata["energy"].items() if k != "meter"} == \
        {k: v for k, v in full.metadata["energy"].items() if k != "meter"}
    assert summ.metadata["energy"]["meter"] is None and full.metadata["energy"]["meter"]["total"] > 0
    busy = np.array(summ.metadata["residency"]["busy_ns_per_opp"])
    assert busy.sum() > 0 and busy.shape[0] == 8
    with pytest.raises(ModelError, match="outputs"):
        SimConfig(outputs="tables")


def test_summary_sweep_reuses_the_output_memory():
    """A sweep's summary runs: each releases its output memory once its frames are copied out
    (``_engine.release_output``) and the next writes its tables there (pages already faulted
    in); that run's frames and energy equal a cold run's, and the previous run's frames are
    copies the next run does not touch."""
    from lisa_eas.sim import _engine

    # runs long enough for the loop to pause and lay its tables out in a memory map (> 4096 rows)
    wl_a = workload([task(f"a{i}", periodic(duty_cycle_pct=5, period_ms=16, duration_s=1.5)) for i in range(50)],
                    calibration=20)
    wl_b = workload([task(f"b{i}", periodic(duty_cycle_pct=8, period_ms=12, duration_s=1.2)) for i in range(50)],
                    calibration=20)
    cfg = SimConfig(outputs="summary")
    _engine.drop_spare_output()
    cold_b = simulate("hikey960", wl_b, config=cfg)
    _engine.drop_spare_output()
    a = simulate("hikey960", wl_a, config=cfg)
    log_a = a.df("lisa_sim_rtapp_log").copy()
    spare = _engine._SPARE.out[0]
    b = simulate("hikey960", wl_b, config=cfg)
    assert _engine._SPARE.out[0] is spare         # b wrote into a's memory and released it again
    pd.testing.assert_frame_equal(b.df("lisa_sim_rtapp_log"), cold_b.df("lisa_sim_rtapp_log"))
    assert b.metadata["energy"] == cold_b.metadata["energy"]
    pd.testing.assert_frame_equal(a.df("lisa_sim_rtapp_log"), log_a)
    _engine.drop_spare_output()
    assert getattr(_engine._SPARE, "out", None) is None


@pytest.mark.parametrize("cfg", [dict(), dict(placement="no-eas", governor="ondemand", model_events=False)],
                         ids=["eas-schedutil", "no-eas-ondemand"])
def test_summary_loop_equals_the_full_loop(cfg):
    """The summary output's loop (no event or EAS rows written) computes what the full one does:
    the same rt-app log rows, busy/idle residencies per CPU and OPP / idle state, end time and
    wake_cap count, on a run long enough for the loop to return to Python several times (its
    buffers re-laid out, the summary flag carried over), and writes no event row after t = 0."""
    from lisa_eas.platform import load_platform
    from lisa_eas.rtapp import periodic, task, workload
    from lisa_eas.sim._compile import compile_workload
    from lisa_eas.sim._engine import build_run, run_loop

    plat = load_platform("hikey960")
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=5 + i % 7, period_ms=16, duration_s=1.5))
                   for i in range(50)], calibration=20)
    compiled = compile_workload(wl, plat.nr_cpus)
    raws = []
    for outputs in ("full", "summary"):
        S, P, O, margin = build_run(plat, compiled, SimConfig(outputs=outputs, **cfg), int(1.5e9))
        raws.append(run_loop(S, P, O, margin))
    full, summ = raws
    assert summ.iterations >= 1 and len(summ.activations) > 4096      # the loop paused, its tables re-laid out
    for k in ("activations", "res_busy", "res_idle"):
        np.testing.assert_array_equal(getattr(summ, k), getattr(full, k), err_msg=k)
    assert (summ.t_end, summ.wake_cap_wakeups) == (full.t_end, full.wake_cap_wakeups)
    assert len(summ.events) == 2 * plat.nr_cpus and len(summ.eas) == 0
    assert len(full.events) > 10_000 and (len(full.eas) > 0) == ("placement" not in cfg)
