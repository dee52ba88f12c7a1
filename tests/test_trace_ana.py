"""A home for LISA users: Trace.df_event, trace.ana.<area>.df_*/plot_* (TAB-discoverable),
LISA's names as aliases, and the idle-state residency analysis."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lisa_eas import SimConfig, simulate
from lisa_eas.analysis import AREAS, LISA_NAMES, df_cpu_idle_state_residency, df_cpu_residency, df_cpus_idle
from lisa_eas.errors import MissingTraceEventError
from lisa_eas.trace import Trace

EXIT = 4294967295


def _idle_trace():
    # CPU0: enters state 1 at 1 s, leaves at 3 s, enters state 0 at 4 s; CPU1: state 2 from 2 s.
    # A print event at 0 s and 10 s sets the trace span.
    t = [1.0, 2.0, 3.0, 4.0]
    idle = pd.DataFrame({"state": np.array([1, 2, EXIT, 0], np.uint32), "cpu_id": np.array([0, 1, 0, 0], np.uint32),
                         "__cpu": [0, 1, 0, 0], "__pid": 0, "__comm": "<idle>"}, index=t)
    prt = pd.DataFrame({"buf": ["a", "b"], "__cpu": 0, "__pid": 1, "__comm": "x"}, index=[0.0, 10.0])
    return Trace.from_dataframes({"cpu_idle": idle, "print": prt})


@pytest.fixture(scope="module")
def sim():
    from lisa_eas.repro.workloads import smoke_local

    return simulate("juno_r0", smoke_local(), config=SimConfig())


def test_df_event_is_df():
    tr = _idle_trace()
    assert tr.df_event("cpu_idle") is tr.df("cpu_idle")
    with pytest.raises(MissingTraceEventError, match="sched_switch"):
        tr.df_event("sched_switch")


def test_idle_residency_by_hand():
    res = df_cpu_idle_state_residency(_idle_trace())
    # CPU0: state1 1->3 (2 s), active 3->4 (1 s), state0 4->10 (6 s); CPU1: state2 2->10 (8 s)
    assert res.loc[0, "state1"] == 2.0 and res.loc[0, "active"] == 1.0 and res.loc[0, "state0"] == 6.0
    assert res.loc[1, "state2"] == 8.0 and res.loc[1, "active"] == 0.0
    assert res.loc[0, "total"] == 9.0 and res.loc[1, "total"] == 8.0
    assert res.attrs["unknown_s"] == {0: 1.0, 1: 2.0}
    ev = df_cpus_idle(_idle_trace(), cpus=[0])
    assert ev["state"].tolist() == [1, -1, 0] and set(ev["cpu"]) == {0}


def test_idle_active_time_matches_the_running_time(sim):
    # two signals of the simulator: cpu_idle exits/entries and sched_switch; a CPU is out of idle
    # exactly while a task runs on it
    res = df_cpu_idle_state_residency(sim)
    run = df_cpu_residency(sim)
    busy = run.drop(index=0, errors="ignore").drop(columns=["comm", "total"]).sum()
    for cpu in res.index:
        assert res.loc[cpu, "active"] == pytest.approx(float(busy.get(cpu, 0.0)), abs=1e-3)
    lo, hi = sim.time_range
    assert np.allclose(res["total"] + pd.Series(res.attrs["unknown_s"]), hi - lo)


def test_ana_is_discoverable_and_bound(sim):
    assert set(dir(sim.ana)) == set(AREAS)
    assert "df_cpu_idle_state_residency" in dir(sim.ana.idle)
    pd.testing.assert_frame_equal(sim.ana.idle.df_cpu_idle_state_residency(), df_cpu_idle_state_residency(sim))
    assert sim.ana.idle.df_cpu_idle_state_residency.__doc__ == df_cpu_idle_state_residency.__doc__
    for area, names in AREAS.items():
        for name in names:
            assert callable(getattr(getattr(sim.ana, area), name)), (area, name)
    with pytest.raises(AttributeError, match="areas: tasks"):
        sim.ana.nope
    with pytest.raises(AttributeError, match="df_cpus_idle"):
        sim.ana.idle.df_nope


def test_lisa_names_are_aliases(sim):
    for (area, lisa), ours in LISA_NAMES.items():
        a = getattr(sim.ana, area)
        assert lisa in dir(a)
        assert getattr(a, lisa).func is next(getattr(getattr(sim.ana, ar), ours).func
                                             for ar, names in AREAS.items() if ours in names)
    pd.testing.assert_frame_equal(sim.ana.frequency.df_cpus_frequency(), sim.ana.frequency.df_cpu_frequency())


def test_idle_plot_renders(sim):
    import holoviews as hv

    hv.renderer("bokeh").get_plot(sim.ana.idle.plot_cpu_idle_state_residency())
