"""rt-app log files: the 2016 Juno log (old c_run layout) and a log recorded here (c_duration)."""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas.errors import WorkloadError
from lisa_eas.rtapp import read_rtapp_log, read_rtapp_logs, read_workload

# SOURCES.md: c_run/c_period -> rows, slack min / mean / max (us)
JUNO_PHASES = [
    (3200, 32000, 93, 25015, 25519, 29689),
    (1600, 16000, 31, 12133, 12349, 12673),
    (4800, 16000, 31, 5921, 6061, 6198),
    (8000, 16000, 31, -283, 6187, 8305),
    (9600, 16000, 187, 4806, 5038, 5447),
]


def test_real_juno_log_rows_and_slack(data_dir):
    d = data_dir / "rtapp" / "logs" / "lisa_nutshell_juno"
    df = read_rtapp_log(d / "rt-app-task_lrh-0.log")
    assert len(df) == 373
    assert df.attrs["layout"] == "c_run" and df.attrs["policy"] == "SCHED_OTHER"
    assert df.attrs["priority"] == 0
    assert (df["task"] == "task_lrh").all() and (df["thread_idx"] == 0).all()
    assert df.index.name == "Time" and df.index[0] == pytest.approx(354.605382)
    assert df["start_us"].dtype == np.int64
    g = df.groupby("phase")
    assert g.ngroups == 5
    for ph, (c_run, c_period, n, smin, smean, smax) in enumerate(JUNO_PHASES):
        x = g.get_group(ph)
        assert (x["c_duration_us"] == c_run).all() and (x["c_period_us"] == c_period).all()
        assert len(x) == n
        # SOURCES.md gives the mean truncated to the microsecond
        assert (x["slack_us"].min(), int(x["slack_us"].mean()), x["slack_us"].max()) == (smin, smean, smax)
    assert df["overrun"].sum() == 2 and (df.loc[df["overrun"], "phase"] == 3).all()
    assert df["perf"].nunique() == 5
    # the log matches the workload it came from
    wl = read_workload(d / "rt-app_config.json")
    t = wl.task("task_lrh")
    assert [p.loop for p in t.phases] == [n for *_, n, _a, _b, _c in JUNO_PHASES]
    assert [(p.busy_us, p.timer_period_us) for p in t.phases] == [(a, b) for a, b, *_ in JUNO_PHASES]
    assert wl.global_settings.calibration == 355


def test_log_recorded_here_current_layout(data_dir):
    d = data_dir / "rtapp" / "live_capture"
    df = read_rtapp_logs(d, "cap")
    assert df.attrs["layout"] == "c_duration"
    assert len(df) == 40 and sorted(set(df["thread_idx"])) == [0, 1]
    assert df.index.is_monotonic_increasing
    for idx, x in df.groupby("thread_idx"):
        assert list(x["c_duration_us"]) == [1000] * 10 + [5000] * 10
        assert list(x["phase"]) == [0] * 10 + [1] * 10
        assert (x["c_period_us"] == 10000).all()
    assert (df["wu_lat_us"] >= 0).all()
    busy = df[df["phase"] == 1]
    assert busy["duty_cycle"].median() == pytest.approx(0.5, abs=0.1)


def test_cpu_column_layout(tmp_path):
    p = tmp_path / "x-task-3.log"
    p.write_text("# Policy : SCHED_FIFO priority : 10\n"
                 "#idx     perf      run   period           start             end          rel_st"
                 "      slack c_duration   c_period     wu_lat  cpu\n"
                 "   3    50000     1041     6533      1683171169      1683177702           11728"
                 "       5428       1000      10000         57    1\n"
                 "   3    50000    12041    12033      1683177702      1683189735           18289"
                 "      -2033       1000      10000          0    0\n")
    df = read_rtapp_log(p)
    assert list(df["cpu"]) == [1, 0] and list(df["task"]) == ["task", "task"]
    assert list(df["overrun"]) == [False, True] and df.attrs["priority"] == 10


@pytest.mark.parametrize("text, word", [
    ("", "no '#idx"),
    ("# Policy : SCHED_OTHER priority : 0\n", "log_size"),
    ("   0 1 2\n", "before the"),
    ("#idx perf run period start end rel_st slack c_duration c_period wu_lat\n1 2 3\n", "3 fields"),
    ("#idx perf run period start end rel_st slack c_duration c_period wu_lat\n"
     "1 2 3 4 5 6 7 8 9 10 x\n", "non-integer"),
    ("#idx perf run period start end rel_st slack c_duration c_period wu_lat bogus\n", "unknown"),
])
def test_bad_logs(tmp_path, text, word):
    p = tmp_path / "bad.log"
    p.write_text(text)
    with pytest.raises(WorkloadError, match=word) as ei:
        read_rtapp_log(p)
    assert str(ei.value).startswith(str(p))


def test_missing_logs(tmp_path):
    with pytest.raises(WorkloadError, match="cannot read"):
        read_rtapp_log(tmp_path / "nope.log")
    with pytest.raises(WorkloadError, match="no rt-app-<task>"):
        read_rtapp_logs(tmp_path)
