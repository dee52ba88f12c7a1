"""df_run_comparison / run_metrics on simulated runs (no machine needed): a run against itself
differs by nothing, and a run whose task does twice the work differs by what was changed."""
from __future__ import annotations

import numpy as np

from lisa_eas.analysis import df_run_comparison, run_metrics
from lisa_eas.sim import SimConfig, simulate
from lisa_eas.rtapp import read_workload


def _wl(tmp_path, run_us, name="w.json"):
    import json

    p = tmp_path / name
    p.write_text(json.dumps({"global": {"duration": -1, "calibration": 100}, "tasks": {
        "cmp_a": {"loop": 1, "cpus": [1], "phases": {"p": {"loop": 20, "run": run_us,
                                                            "timer": {"ref": "a", "period": 10000}}}}}}))
    return read_workload(p)


def test_same_run_differs_by_nothing_and_double_work_by_the_work(tmp_path):
    cfg = SimConfig(governor="performance")
    one = simulate("hikey960", _wl(tmp_path, 1000, "a.json"), config=cfg)
    two = simulate("hikey960", _wl(tmp_path, 2000, "b.json"), config=cfg)
    same = df_run_comparison(one, one)
    assert (same["difference"].abs() < 1e-9).all()
    t = df_run_comparison(one, two)
    assert float(t.loc[("cmp_a", "activations"), "difference"]) == 0
    # hikey960 CPU 1 is a little CPU at its top OPP (performance governor): the work in us at
    # capacity 1024 runs 1024 / capacity times longer there, and doubling the work doubles it
    r1, r2 = (float(t.loc[("cmp_a", "run_us_p50"), c]) for c in ("measured", "simulated"))
    assert abs(r2 - 2 * r1) <= 2.0, (r1, r2)
    assert float(t.loc[("cmp_a", "migrations"), "measured"]) == 0
    m = run_metrics(one)
    assert m.loc["cmp_a", "activations"] == 20
    assert np.isclose(m.loc["cmp_a", "runtime_s"], m.loc["cmp_a", "cpu1_s"])
    assert m.loc["cmp_a", "cpu0_s"] == 0.0


def test_vs_sim_cli_bad_run_dir_is_one_line(tmp_path, capsys):
    from lisa_eas.cli import main

    assert main(["vs-sim", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run.json" in err and "lisa-eas run" in err
    (tmp_path / "run.json").write_text("{}")
    assert main(["vs-sim", str(tmp_path)]) == 2
    assert "workload.target.json: missing" in capsys.readouterr().err


def _with_cpu0_span(trace, start, end, shift=0.01):
    """``trace`` (cmp_a pinned to CPU 1) shifted by ``shift`` s, plus one run of cmp_a on CPU 0
    from ``start`` to ``end`` (s, after the shift) followed by a sleep."""
    import pandas as pd

    from lisa_eas.trace import Trace

    dfs = {}
    for e in trace.events:
        df = trace.df(e).copy()
        df.index = df.index + shift
        df["__ts"] = df["__ts"] + int(round(shift * 1e9))
        dfs[e] = df
    sw = dfs["sched_switch"]
    pid = int(sw.loc[sw["next_comm"] == "cmp_a", "next_pid"].iloc[0])
    rows = pd.DataFrame({"__ts": [int(start * 1e9), int(end * 1e9)], "__cpu": [0, 0], "__pid": [0, pid],
                         "__comm": ["<idle>", "cmp_a"], "prev_comm": ["<idle>", "cmp_a"],
                         "prev_pid": [0, pid], "prev_prio": [120, 120], "prev_state": [0, 1],
                         "next_comm": ["cmp_a", "<idle>"], "next_pid": [pid, 0], "next_prio": [120, 120]},
                        index=pd.Index([start, end], name="Time"))
    dfs["sched_switch"] = pd.concat([sw, rows.astype(sw.dtypes.to_dict())]).sort_index(kind="stable")
    return Trace.from_dataframes(dfs, {k: v for k, v in trace.metadata.items() if k != "event_counts"})


def test_migrations_count_from_the_first_activation(tmp_path):
    # rt-app pins its thread in the thread's own set-up, so on a machine the thread may run on
    # another CPU before its first activation: not the workload's placement, not counted; the
    # same run on CPU 0 between two activations is two migrations (1 -> 0 -> 1)
    one = simulate("hikey960", _wl(tmp_path, 1000), config=SimConfig(governor="performance"))
    before = run_metrics(_with_cpu0_span(one, 0.002, 0.004))
    assert before.loc["cmp_a", "migrations"] == 0
    assert np.isclose(before.loc["cmp_a", "cpu0_s"], 0.002)
    assert before.loc["cmp_a", "activations"] == 20
    # the shifted first activation runs 0.010-0.0122 on CPU 1 and the next starts at 0.020
    during = run_metrics(_with_cpu0_span(one, 0.015, 0.016))
    assert during.loc["cmp_a", "migrations"] == 2
    assert np.isclose(during.loc["cmp_a", "cpu0_s"], 0.001)


def test_untraced_switch_in_runtime_is_bounded_not_lost(tmp_path):
    # A VM agent thread preempts the task (its switch in is traced, as the switch out of the task)
    # and switches back without a record: the task ran from an unknown time until its traced
    # switch-out to sleep. The traced runtime loses that span; runtime_untraced_s is its length.
    import pandas as pd

    from lisa_eas.trace import Trace

    one = simulate("hikey960", _wl(tmp_path, 1000), config=SimConfig(governor="performance"))
    base = run_metrics(one)
    assert base.loc["cmp_a", "runtime_untraced_s"] == 0.0
    sw = one.df("sched_switch")
    pid = int(sw.loc[sw["next_comm"] == "cmp_a", "next_pid"].iloc[0])
    mine = sw[(sw["prev_pid"] == pid) & (sw["__cpu"] == 1)]
    ins = sw[(sw["next_pid"] == pid) & (sw["__cpu"] == 1)]
    t_in = float(ins.index[5])
    t_out = float(mine.index[mine.index > t_in][0])          # the 6th activation's switch to sleep
    t1 = t_in + 0.4 * (t_out - t_in)
    row = pd.DataFrame({"__ts": [int(round(t1 * 1e9))], "__cpu": [1], "__pid": [pid], "__comm": ["cmp_a"],
                        "prev_comm": ["cmp_a"], "prev_pid": [pid], "prev_prio": [120], "prev_state": [0],
                        "next_comm": ["agent"], "next_pid": [99999], "next_prio": [120]},
                       index=pd.Index([t1], name="Time"))
    dfs = {e: one.df(e) for e in one.events}
    cat = [c for c in sw.columns if isinstance(sw[c].dtype, pd.CategoricalDtype)]
    sw = sw.astype(dict.fromkeys(cat, object))
    dfs["sched_switch"] = pd.concat([sw, row.astype(sw.dtypes.to_dict())]).sort_index(kind="stable")
    cut = run_metrics(Trace.from_dataframes(dfs, {k: v for k, v in one.metadata.items() if k != "event_counts"}))
    lost = t_out - t1
    assert np.isclose(cut.loc["cmp_a", "runtime_s"], base.loc["cmp_a", "runtime_s"] - lost, atol=1e-9)
    assert np.isclose(cut.loc["cmp_a", "runtime_untraced_s"], lost, atol=1e-9)
    # the task's CPU time lies between the traced runtime and the sum
    assert cut.loc["cmp_a", "runtime_s"] < base.loc["cmp_a", "runtime_s"] <= \
        cut.loc["cmp_a", "runtime_s"] + cut.loc["cmp_a", "runtime_untraced_s"] + 1e-9


def test_a_simulated_run_has_every_wakeup_traced(tmp_path):
    # The simulator writes every switch. Its last activation of an exiting task is a run of no
    # length (switched in and out at one timestamp, in that order): the timeline keeps the trace's
    # order there, so no wake-up reads as one whose switch-in is missing (it counted one per task)
    one = simulate("hikey960", _wl(tmp_path, 1000), config=SimConfig(governor="performance"))
    m = run_metrics(one)
    assert m.loc["cmp_a", "wakeups_untraced"] == 0 and m.loc["cmp_a", "wakeups"] >= 20
    assert m.loc["cmp_a", "runtime_untraced_s"] == 0.0
