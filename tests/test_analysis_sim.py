"""The same analyses on simulated traces: energy integration equals the simulator's own
accounting, rt-app figures equal its rt-app log, overutilized and ramp-boost figures."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import REPO

from lisa_eas import SimConfig, analysis as A, load_platform, simulate
from lisa_eas.rtapp import periodic, task, workload


@pytest.fixture(scope="module")
def juno_sim():
    wl = workload([task(f"t{i}", periodic(8 + 6 * i, 16, duration_s=1)) for i in range(6)], calibration=100)
    return simulate("juno_r0", wl, config=SimConfig(duration_s=1.0))


@pytest.fixture(scope="module")
def ramp_runs():
    plat = load_platform("pixel3")
    return {rb: simulate(plat, REPO / "workloads" / "ramp_boost_step.json",
                         config=SimConfig(governor_tunables={"ramp_boost": rb}, duration_s=2.0)) for rb in (0, 1)}


def test_energy_equals_the_simulators_accounting(juno_sim):
    en = A.energy_summary(juno_sim, "juno_r0")
    meta = juno_sim.metadata["energy"]
    assert en["total"] == pytest.approx(meta["total"], rel=1e-9)
    for name, e in meta["per_domain"].items():
        assert en["per_domain"][name] == pytest.approx(e, rel=1e-9)


def test_rtapp_from_markers_equals_the_log(juno_sim):
    acts = A.df_rtapp_activations(juno_sim)
    log = juno_sim.df("lisa_sim_rtapp_log")
    assert len(acts) == len(log)
    st = A.df_rtapp_stats(acts)
    by_task = log.groupby(log["task"].astype(str))
    assert st["activations"].to_dict() == by_task.size().to_dict()
    assert np.allclose(st.sort_index()["slack_us_mean"], by_task["slack_us"].mean().sort_index())


def test_task_analyses_run_unchanged(juno_sim):
    res = A.df_cpu_residency(juno_sim)
    assert set(res.index) >= {1000, 1001, 1002, 1003, 1004, 1005}
    st = A.df_task_state_residency(juno_sim)
    assert np.allclose(st[["sleeping", "runnable", "running", "dead"]].sum(axis=1), st["observed"])
    lat = A.df_wakeup_latency(juno_sim)
    assert (lat["latency_us"] >= 0).all()
    tu = A.df_task_util(juno_sim)
    assert tu.attrs["source"] == "lisa_sim_task_util"
    model = A.df_task_util(juno_sim, source="model", platform="juno_r0", tasks=[1005])
    assert model.attrs["source"] == "model" and model["util"].max() > 100
    fr = A.df_frequency_residency(juno_sim, "juno_r0", per="domain")
    assert np.allclose(fr.groupby(level=0)["share_pct"].sum(), 100)


def test_overutilized_from_events_and_from_util(juno_sim):
    ev = A.df_overutilized(juno_sim)
    assert ev.attrs["source"] == "lisa_sim_overutilized"
    derived = A.df_overutilized(juno_sim.window(None, None), platform="juno_r0")
    assert 0 <= ev.attrs["share_pct"] <= 100 and 0 <= derived.attrs["share_pct"] <= 100


def test_ramp_boost_energy_overhead(ramp_runs):
    off, on = ramp_runs[0], ramp_runs[1]
    ov_on = A.ramp_boost_energy_overhead(on)
    # the RFC's metric for the boosted run: a few percent (published +3.04% on a Pixel 3)
    busiest = ov_on["overhead_pct"].max()
    assert 0.5 < busiest < 10
    e_on, e_off = A.energy_summary(on, "pixel3")["total"], A.energy_summary(off, "pixel3")["total"]
    assert e_on > e_off
    s_on = A.df_rtapp_stats(A.df_rtapp_activations(on))
    s_off = A.df_rtapp_stats(A.df_rtapp_activations(off))
    assert s_on["overruns"].sum() < s_off["overruns"].sum()
    assert s_on["negative_slack_us_mean"].iat[0] > s_off["negative_slack_us_mean"].iat[0]
