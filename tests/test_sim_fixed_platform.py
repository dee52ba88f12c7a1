"""Boards without an energy model or without cpufreq simulate (issue 21).

* ``x86_llc112`` (112 CPUs in one LLC, no perf domains) runs a few hundred tasks: every CPU at
  capacity 1024, so with fewer busy tasks than CPUs and the idle search finding an idle CPU,
  each activation runs exactly its configured duration (rt-app's ``run`` = ``c_duration``: a
  run event of N us is N us of work at capacity 1024); EAS is off (no decision rows), no
  ``cpu_frequency`` events (no cpufreq), no energy figure, and the metadata says all three.
* A probed board without cpufreq (this VM's case) simulates the same way.
* A board with cpufreq but no power data (``peach_pi``) keeps its governor and frequency
  events; EAS is off and the energy absent, stated in the metadata.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lisa_eas import SimConfig, simulate
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.target._probe import build_platform


def _many(n: int, duty: float, period_ms: float, duration_s: float):
    return workload([task(f"t{i}", periodic(period_ms, duty, duration_s=duration_s)) for i in range(n)],
                    calibration=100)


def _check_fixed(tr, nr_cpus: int):
    md = tr.metadata
    pm = md["platform_model"]
    assert pm["frequency"].startswith("fixed") and pm["eas"].startswith("off") and pm["energy"].startswith("absent")
    assert md["energy"] is None
    assert md["config"]["placement"] == "no-eas" and md["config"]["governor"] == "performance"
    assert "cpu_frequency" not in tr.events
    assert "lisa_sim_eas_decision" not in tr.events or len(tr.df("lisa_sim_eas_decision")) == 0
    sw = tr.df("sched_switch")
    assert len(sw) > 0 and set(sw["__cpu"].unique()) <= set(range(nr_cpus))


def test_x86_llc112_simulates_a_few_hundred_tasks():
    plat = load_platform("x86_llc112")
    assert not plat.perf_domains
    # 300 tasks of 5 % each: 15 CPUs' worth of load on 112 CPUs
    tr = simulate(plat, _many(300, 5, 10, 0.2), config=SimConfig(duration_s=0.2))
    _check_fixed(tr, 112)
    log = tr.df("lisa_sim_rtapp_log")
    assert log["task"].nunique() == 300 and len(log) >= 300 * 15
    # capacity 1024, no sharing: each 500 us run takes 500 us (hand: 5 % of 10 ms at 1024/1024)
    assert (log["c_duration_us"] == 500).all()
    assert (log["run_us"] == 500).all(), log.loc[log["run_us"] != 500, ["task", "run_us", "cpu"]].head()
    # the idle search spreads the tasks over the LLC
    assert log["cpu"].nunique() > 56


def test_probed_board_without_cpufreq_simulates():
    notes: list[str] = []
    plat, source = build_platform("vm", online=[0, 1, 2, 3], caps={}, policies=[], em=None,
                                  llc_groups=[[0, 1, 2, 3]], configured=None, notes=notes)
    assert not plat.perf_domains and source == "probed: no cpufreq, no perf domains"
    tr = simulate(plat, _many(6, 20, 10, 0.1), config=SimConfig(duration_s=0.1, outputs="full"))
    _check_fixed(tr, 4)
    log = tr.df("lisa_sim_rtapp_log")
    assert (log["c_duration_us"] == 2000).all()
    # 6 tasks of 20 % on 4 CPUs: some activations share a CPU and run longer, none shorter
    assert (log["run_us"] >= 2000).all()


def test_summary_outputs_on_fixed_board():
    tr = simulate("x86_llc112", _many(50, 10, 10, 0.05), config=SimConfig(duration_s=0.05, outputs="summary"))
    assert tr.metadata["energy"] is None and tr.metadata["platform_model"]["frequency"].startswith("fixed")
    busy = np.asarray(tr.metadata["residency"]["busy_ns_per_opp"])
    assert busy.shape == (112, 1) and busy.sum() > 0


def test_cpufreq_board_without_power_keeps_governor():
    plat = load_platform("peach_pi")
    assert not all(d.has_power for d in plat.perf_domains)
    tr = simulate(plat, _many(4, 20, 16, 0.1), config=SimConfig(duration_s=0.1))
    md = tr.metadata
    assert md["energy"] is None and md["config"]["placement"] == "no-eas"
    assert md["config"]["governor"] == "schedutil"
    assert set(md["platform_model"]) == {"eas", "energy"}
    assert len(tr.df("cpu_frequency")) > 0


def test_board_with_energy_model_unchanged():
    tr = simulate("hikey960", _many(4, 20, 16, 0.05), config=SimConfig(duration_s=0.05))
    assert tr.metadata["platform_model"] == {} and tr.metadata["energy"] is not None


def test_ramp_boost_without_energy_model_is_refused():
    from lisa_eas.errors import ModelError
    with pytest.raises(ModelError, match=r"ramp_boost.*'peach_pi'.*no Energy Model"):
        simulate("peach_pi", _many(2, 20, 16, 0.05), config=SimConfig(duration_s=0.05,
                                                               governor_tunables={"ramp_boost": 1}))


def test_cli_simulates_x86_llc112_and_says_what_it_modelled(tmp_path, capsys):
    import json

    from lisa_eas.cli import main
    rc = main(["simulate", "--platform", "x86_llc112", "--workload", str(Path(__file__).resolve().parents[1] / "workloads" / "smoke_local.json"),
               "--duration", "0.05", "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert rc == 0 and "frequency: fixed" in out and "eas: off" in out and "energy: absent" in out
    meta = json.loads((tmp_path / "o" / "metadata.json").read_text())
    assert meta["energy"] is None and not (tmp_path / "o" / "cpu_frequency.parquet").exists()
