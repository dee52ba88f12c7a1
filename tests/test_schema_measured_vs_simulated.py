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


def test_text_trace_kernel_fields_have_the_kernel_widths():
    """A real trace read from `trace-cmd report` text types the scheduler fields with the kernel's
    widths too (pid_t/int -> int32), as the simulator and the trace.dat reader do; print's ``ip``
    stays text there (the report prints the symbol, not the address)."""
    from pathlib import Path
    txt = read_trace(Path(__file__).parent / "data/traces/text/lisa_juno-r0_sched_wakeup.txt", cache=False)
    wl = workload([task("t0", periodic(duty_cycle_pct=20, period_ms=16, duration_s=0.2))], calibration=20)
    sim = simulate("juno_r0", wl, config=SimConfig())
    for event in ("sched_switch", "sched_wakeup"):
        r, s = txt.df(event), sim.df(event)
        for col in s.columns:
            if col in r.columns and not isinstance(s[col].dtype, pd.CategoricalDtype):
                assert r[col].dtype == s[col].dtype, (event, col, r[col].dtype, s[col].dtype)
    assert txt.df("sched_wakeup")["pid"].dtype == np.int32


def test_text_width_is_kept_when_a_value_does_not_fit():
    from lisa_eas.trace._text import parse_text_lines
    lines = ["  a-1 [000] 1.000000: sched_migrate_task: comm=a pid=1 prio=120 orig_cpu=0 dest_cpu=1",
             "  b-2 [001] 1.000001: sched_migrate_task: comm=b pid=4294967296 prio=120 orig_cpu=1 dest_cpu=0"]
    dfs, _, _ = parse_text_lines(lines, "x.txt")
    df = dfs["sched_migrate_task"]
    assert df["pid"].dtype == np.int64 and df["orig_cpu"].dtype == np.int32
