"""rt-app ftrace markers -> activations: a capture recorded here (rt-app 1.0) and LISA's form."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from lisa_eas.errors import TraceError
from lisa_eas.rtapp import read_rtapp_logs
from lisa_eas.rtapp.markers import ACTIVATION_COLUMNS, df_activations_from_markers

# one line of the tracefs ``trace`` file: "comm-pid [cpu] flags ts: tracing_mark_write: text"
TRACE_LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(?P<cpu>\d+)\]"
                        r"\s+(?:\S{4,5}\s+)?(?P<ts>\d+\.\d+):\s+tracing_mark_write:\s(?P<buf>.*)$")


def df_print_from_trace_lines(lines) -> pd.DataFrame:
    """The ``print`` DataFrame (trace schema) of tracefs text lines."""
    rows = []
    for line in lines:
        m = TRACE_LINE.match(line.rstrip("\n"))
        if m:
            rows.append((float(m["ts"]), int(m["pid"]), int(m["cpu"]), m["comm"], m["buf"]))
    df = pd.DataFrame(rows, columns=["Time", "__pid", "__cpu", "__comm", "buf"])
    return df.set_index("Time")


def test_rtapp1_capture_matches_its_logs(data_dir):
    d = data_dir / "rtapp" / "live_capture"
    df_print = df_print_from_trace_lines((d / "trace_markers.txt").read_text().splitlines())
    assert len(df_print) == 167
    acts = df_activations_from_markers(df_print)
    assert list(acts.columns) == ACTIVATION_COLUMNS and acts.index.name == "Time"
    assert len(acts) == 40 and acts.index.is_monotonic_increasing
    assert (acts["format"] == "rtapp1").all() and acts["end"].notna().all()
    assert acts["slack_us"].isna().all()  # rt-app 1.0 markers carry no stats
    logs = read_rtapp_logs(d, "cap")
    for idx in (0, 1):
        a = acts[acts["thread_idx"] == idx]
        lg = logs[logs["thread_idx"] == idx]
        assert a["__pid"].nunique() == 1 and (a["__comm"] == "capt").all()
        assert list(a["phase"]) == [0] * 10 + [1] * 10
        assert list(a["phase_loop"]) == list(range(10)) * 2
        assert (a["thread_loop"] == 0).all()
        # same clock (trace_clock mono): marker start = log start within 50 us, and the
        # begin->end span = the logged iteration length within 100 us
        assert np.abs(a.index.to_numpy() * 1e6 - lg["start_us"].to_numpy()).max() < 50
        assert np.abs(a["duration"].to_numpy() * 1e6 - lg["period_us"].to_numpy()).max() < 100


def _lisa_print():
    rows = []
    t = 10.0

    def add(pid, text, cpu=0, comm=None):
        nonlocal t
        t += 0.001
        rows.append((t, pid, cpu, comm or f"task-{pid}", text))

    add(1, "rtapp_main: event=start", comm="rt-app")
    for it in range(3):
        for pid in (100, 200):
            add(pid, f"rtapp_loop: event=start thread_loop=0 phase={it // 2} phase_loop={it % 2}", cpu=pid // 100)
            add(pid, "rtapp_event: id=0 type=6 desc=run0")
            add(pid, "unrelated marker text")
        for pid in (200, 100):
            add(pid, f"rtapp_loop: event=end thread_loop=0 phase={it // 2} phase_loop={it % 2}")
            add(pid, f"rtapp_stats: period=16000 run={1000 + pid + it} wu_lat=5 slack={-7 if it == 1 else 9000} "
                     "c_period=16000 c_run=1000")
    add(100, "rtapp_loop: event=start thread_loop=0 phase=1 phase_loop=1")  # cut by trace end
    add(1, "rtapp_main: event=end", comm="rt-app")
    return pd.DataFrame(rows, columns=["Time", "__pid", "__cpu", "__comm", "buf"]).set_index("Time")


def test_lisa_markers_with_stats():
    acts = df_activations_from_markers(_lisa_print())
    assert len(acts) == 7
    assert (acts["format"] == "lisa").all() and (acts["thread_idx"] == -1).all()
    done = acts[acts["end"].notna()]
    assert len(done) == 6 and np.isnan(acts["end"].iloc[-1])
    a100 = done[done["__pid"] == 100]
    assert list(a100["run_us"]) == [1100, 1101, 1102]
    assert list(a100["slack_us"]) == [9000, -7, 9000]
    assert list(done[done["__pid"] == 200]["run_us"]) == [1200, 1201, 1202]
    assert (done["c_run_us"] == 1000).all() and (done["duration"] > 0).all()
    assert list(a100["phase"]) == [0, 0, 1] and list(a100["phase_loop"]) == [0, 1, 0]
    assert list(a100["__cpu"]) == [1, 1, 1]


def test_no_markers_and_bad_input():
    empty = df_activations_from_markers(pd.DataFrame(
        {"__pid": [1], "__cpu": [0], "__comm": ["x"], "buf": ["hello"]}, index=[1.0]))
    assert empty.empty and list(empty.columns) == ACTIVATION_COLUMNS
    none = df_activations_from_markers(pd.DataFrame(columns=["__pid", "__cpu", "__comm", "buf"]))
    assert none.empty
    with pytest.raises(TraceError, match="buf"):
        df_activations_from_markers(pd.DataFrame({"__pid": [1]}))


def test_trace_activations_contract(data_dir):
    """Trace.activations (the trace package) goes through df_activations_from_markers."""
    from lisa_eas.trace import read_trace

    tr = read_trace(data_dir / "rtapp" / "live_capture" / "trace_markers.txt")
    acts = tr.activations
    assert len(acts) == 40 and list(acts.columns) == ACTIVATION_COLUMNS
    assert sorted(acts["thread_idx"].unique()) == [0, 1]


def test_threads_starting_at_the_same_instant_keep_their_own_stats():
    # The simulator (and a real board with several CPUs) can start two threads' activations at
    # exactly the same timestamp: each thread's stats must stay with its own activation.
    rows = []
    for pid in (100, 200):
        rows.append((5.0, pid, pid // 100, f"t{pid}", "rtapp_loop: event=start thread_loop=0 phase=0 phase_loop=0"))
    for pid, end in ((100, 5.004), (200, 5.006)):
        rows.append((end, pid, pid // 100, f"t{pid}", "rtapp_loop: event=end thread_loop=0 phase=0 phase_loop=0"))
        rows.append((end + 1e-6, pid, pid // 100, f"t{pid}",
                     f"rtapp_stats: period=16000 run={pid * 10} wu_lat=1 slack=7 c_period=16000 c_run=1000"))
    df = pd.DataFrame(rows, columns=["Time", "__pid", "__cpu", "__comm", "buf"]).set_index("Time").sort_index()
    acts = df_activations_from_markers(df)
    assert len(acts) == 2
    assert dict(zip(acts["__pid"], acts["run_us"])) == {100: 1000, 200: 2000}
