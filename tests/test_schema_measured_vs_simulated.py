"""One schema for measured and modeled: a simulated Trace's kernel events have the columns,
column order and dtypes the trace.dat reader gives for the same events of a real trace."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lisa_eas import SimConfig, read_trace, simulate
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.trace import SCHEMA_COLUMNS
from trace_oracles import unpack_dat


def test_simulated_events_match_the_dat_reader_schema(tmp_path):
    real = read_trace(unpack_dat("lisa_juno-r0_sched_load", tmp_path), cache=False)
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=20, period_ms=16, duration_s=0.3))
                   for i in range(3)], calibration=20)
    sim = simulate("juno_r0", wl, config=SimConfig())
    common = [e for e in sim.events if e in real.events]
    assert set(common) >= {"sched_switch", "cpu_frequency", "cpu_idle", "print", "sched_migrate_task"}
    for event in common:
        r, s = real.df(event), sim.df(event)
        assert list(s.columns) == list(r.columns), event
        assert list(s.columns[:4]) == list(SCHEMA_COLUMNS)
        for col in r.columns:
            rd, sd = r[col].dtype, s[col].dtype
            if isinstance(rd, pd.CategoricalDtype):
                assert isinstance(sd, pd.CategoricalDtype), (event, col)
            else:
                assert sd == rd, (event, col, sd, rd)
        assert s.index.name == r.index.name == "Time" and s.index.dtype == np.float64
        assert (s.index.to_numpy() == s["__ts"].to_numpy() / 1e9).all()
    # the rt-app markers parse the same way as a real run's
    acts = sim.activations
    assert len(acts) > 0 and (acts["run_us"] > 0).all()
