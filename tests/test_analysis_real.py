"""Analyses on real traces (Juno r0, Pixel-2-class systrace), figures checked against an
independent line-by-line reading of the trace text and against hand-checked values."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from analysis_helpers import (JUNO_WAKEUP_TXT, LIVE_CAPTURE, PIXEL2_SYSTRACE, oracle_running_time,
                              oracle_switches, unpack)

from lisa_eas import analysis as A
from lisa_eas.errors import ConfigError, MissingTraceEventError
from lisa_eas.analysis._common import running_intervals
from lisa_eas.trace import Trace, read_trace


@pytest.fixture(scope="module")
def juno_wakeup():
    return read_trace(JUNO_WAKEUP_TXT, cache=False)


@pytest.fixture(scope="module")
def juno_load(tmp_path_factory):
    return read_trace(unpack("lisa_juno-r0_sched_load.dat", tmp_path_factory.mktemp("juno")), cache=False)


@pytest.fixture(scope="module")
def pixel2():
    return read_trace(PIXEL2_SYSTRACE, cache=False)


def test_cpu_residency_matches_the_text_oracle(juno_wakeup):
    res = A.df_cpu_residency(juno_wakeup)
    oracle = oracle_running_time(JUNO_WAKEUP_TXT)
    for pid in (1706, 1639, 1710, 0):          # "ramp" (rt-app), sshd, scp, idle
        for cpu in range(6):
            assert res.loc[pid, cpu] == pytest.approx(oracle[pid].get(cpu, 0.0), abs=2e-6), (pid, cpu)
    # hand-checked in the text: the rt-app task "ramp" (pid 1706) runs from 76.7059 s on CPU 4
    # (LITTLE) for 3.687 s, is moved once to CPU 2 (big) for its last 0.158 s, exits at 81.2065 s
    ramp = res.loc[1706]
    assert ramp["comm"] == "ramp"
    assert ramp[4] == pytest.approx(3.687170, abs=2e-6) and ramp[2] == pytest.approx(0.158358, abs=2e-6)
    assert ramp["total"] == pytest.approx(3.845528, abs=5e-6)
    mig = A.df_migrations(juno_wakeup, tasks=["ramp"])
    assert len(mig) == 1 and (mig["src_cpu"].iat[0], mig["dst_cpu"].iat[0]) == (4, 2)


def test_lost_switches_are_counted(juno_wakeup):
    """A real trace is consistent; drop one switch and the analyses say so."""
    assert A.df_cpu_residency(juno_wakeup).attrs["unmatched_switches"] == 0
    sw = juno_wakeup.df("sched_switch")
    # a switch whose CPU has switches before and after it: dropping it breaks the chain
    cpu = sw["__cpu"].to_numpy()
    k = next(i for i in range(len(sw) // 2, len(sw))
             if (cpu[:i] == cpu[i]).any() and (cpu[i + 1:] == cpu[i]).any()
             and sw["prev_pid"].iat[i] != sw["next_pid"].iat[i])
    frames = {e: juno_wakeup.df(e) for e in juno_wakeup.events}
    frames["sched_switch"] = sw.drop(sw.index[k])
    lossy = Trace.from_dataframes(frames, dict(juno_wakeup.metadata))
    iv = running_intervals(lossy)
    assert iv.attrs["unmatched_switches"] == 1 and (~iv["matched"]).sum() == 1
    assert A.df_cpu_residency(lossy).attrs["unmatched_switches"] == 1


def test_state_residency_adds_up(juno_wakeup):
    st = A.df_task_state_residency(juno_wakeup)
    lo, hi = juno_wakeup.time_range
    parts = st[["sleeping", "runnable", "running", "dead"]].sum(axis=1)
    assert np.allclose(parts, st["observed"])
    assert (st["observed"] <= hi - lo + 1e-9).all()
    res = A.df_cpu_residency(juno_wakeup)
    common = st.index.intersection(res.index.drop(0))
    # running time of the state machine = time on CPUs from the switch intervals
    assert np.allclose(st.loc[common, "running"], res.loc[common, "total"], atol=1e-6)
    assert st.loc[1706, "running"] == pytest.approx(3.845528, abs=5e-6)
    assert st.loc[1706, "dead"] > 0                 # prev_state=64 (TASK_DEAD in 4.11) at 81.2065 s


def test_migrations_match_consecutive_cpus(juno_wakeup):
    mig = A.df_migrations(juno_wakeup, tasks=[1706])
    sw = [e for e in oracle_switches(JUNO_WAKEUP_TXT) if e[4] == 1706]
    cpus = [e[1] for e in sw]
    expected = sum(1 for a, b in zip(cpus, cpus[1:]) if a != b)
    assert len(mig) == expected
    assert (mig["src_cpu"] != mig["dst_cpu"]).all()


def test_wakeup_latency_is_positive_and_small(juno_wakeup):
    lat = A.df_wakeup_latency(juno_wakeup)
    assert len(lat) > 1000
    assert (lat["latency_us"] >= 0).all()
    assert lat["latency_us"].median() < 50


def test_frequency_and_energy_on_juno(juno_load):
    plat = "juno_r0"
    fr = A.df_frequency_residency(juno_load, A_platform := __import__("lisa_eas").load_platform(plat),
                                  per="domain")
    assert set(fr.index.get_level_values(0)) == {"little", "big"}
    assert np.allclose(fr.groupby(level=0)["share_pct"].sum(), 100.0)
    tr = A.df_frequency_transitions(juno_load, A_platform)
    assert (tr["transitions"] >= 0).all()
    en = A.df_energy(juno_load, plat)
    lo, hi = juno_load.time_range
    assert np.allclose(en["busy_s"] + en["idle_s"], hi - lo)
    summ = A.energy_summary(juno_load, plat)
    assert summ["total"] == pytest.approx(sum(summ["per_domain"].values()))
    assert summ["total"] > 0


def test_task_util_from_kernel_events_and_model(juno_load, juno_wakeup):
    ku = A.df_task_util(juno_load)
    assert ku.attrs["source"] == "sched_load_se"
    assert ku["util"].between(0, 1024).all()
    mu = A.df_task_util(juno_wakeup, tasks=["ramp"], platform="juno_r0")
    assert mu.attrs["source"] == "model"
    # the rt-app "ramp" task ramps up: its util reaches well above 300 on the big CPUs
    assert mu["util"].max() > 300
    cu = A.df_cpu_util(juno_load)
    assert cu.attrs["source"] == "sched_load_cfs_rq" and cu["cpu"].nunique() == 6


def test_pixel2_systrace_analyses(pixel2):
    from lisa_eas import load_platform

    res = A.df_cpu_residency(pixel2)
    sw = pixel2.df("sched_switch")
    t_end = pixel2.time_range[1]
    for cpu in range(8):    # each CPU is accounted from its first switch to the end of the trace
        first = sw.index[sw["__cpu"] == cpu][0]
        assert res[cpu].sum() == pytest.approx(t_end - first, abs=1e-9)
    sf = A.df_task_state_residency(pixel2, tasks=["surfaceflinger"])
    assert len(sf) == 1 and sf["running"].iat[0] > 0
    fr = A.df_frequency_residency(pixel2)
    assert fr.index.get_level_values(0).nunique() == 8
    assert A.df_frequency_transitions(pixel2)["transitions"].sum() > 0
    with pytest.raises(ConfigError, match="8-CPU"):
        A.df_energy(pixel2, load_platform("juno_r0"))


def test_missing_events_name_the_run_option(juno_load):
    with pytest.raises(MissingTraceEventError) as ei:
        A.df_wakeup_latency(juno_load)
    assert "sched_wakeup" in str(ei.value) and "lisa-eas run" in str(ei.value) and "sched:sched_wakeup" in str(ei.value)
    assert A.df_wakeup_latency.required_events == ("sched_switch", "sched_wakeup")
    only_print = read_trace(LIVE_CAPTURE / "trace_markers.txt", cache=False)
    with pytest.raises(MissingTraceEventError, match="power:cpu_frequency"):
        A.df_frequency_residency(only_print)


def test_rtapp_markers_against_logs_live_capture():
    tr = read_trace(LIVE_CAPTURE / "trace_markers.txt", cache=False)
    logs = sorted(LIVE_CAPTURE.glob("cap-capt-*.log"))
    acts = A.df_rtapp_activations(tr)
    log_acts = A.df_rtapp_activations(logs=logs)
    assert len(acts) == len(log_acts) == 40
    cc = A.df_rtapp_crosscheck(tr, logs, tolerance_us=400)
    assert (cc["log_activations"] == cc["trace_activations"]).all() and (cc["matched"] == 20).all()
    # markers only (no sched_wakeup): the deadline is read at the "end" marker, so the slack
    # carries rt-app's wake-up latency (< 400 us here); run times agree within 30 us
    assert cc["agree"].all() and (cc["run_abs_err_us_mean"] < 30).all()
    st, lst = A.df_rtapp_stats(acts), A.df_rtapp_stats(log_acts)
    assert st.loc["capt", "activations"] == lst.loc["capt", "activations"] == 40
    assert st.loc["capt", "overruns"] == lst.loc["capt", "overruns"] == 0


def test_governor_overhead_definition():
    assert A.governor_overhead(10.0, 10.0, 20.0) == 0.0
    assert A.governor_overhead(20.0, 10.0, 20.0) == 1.0
    assert A.governor_overhead(12.5, 10.0, 20.0) == pytest.approx(0.25)
    acts = {g: pd.DataFrame({"task": ["t"] * 3, "run_us": [r] * 3, "slack_us": [s, s, -1.0 if g == "ondemand"
                                                                                else s],
                             "overrun": [False, False, g == "ondemand"]})
            for g, r, s in (("performance", 1000.0, 5.0), ("powersave", 3000.0, 1.0), ("ondemand", 1500.0, 3.0))}
    cmp = A.df_governor_comparison(acts)
    assert cmp.loc[("t", "ondemand"), "overhead_pct"] == pytest.approx(25.0)
    assert cmp.loc[("t", "ondemand"), "overruns"] == 1
    from lisa_eas.errors import ModelError
    with pytest.raises(ModelError):
        A.governor_overhead(1, 2, 2)
