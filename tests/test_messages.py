"""Messages that must not mislead (issue 15, item 4), on the real 2-CPU run directory
(`tests/data/runs/local_2cpu_smoke`: no cpufreq on that machine)."""
from __future__ import annotations

import lzma
import shutil
from pathlib import Path

import pytest

from lisa_eas import read_trace
from lisa_eas.cli import main
from lisa_eas.errors import MissingTraceEventError

RUN = Path(__file__).resolve().parent / "data" / "runs" / "local_2cpu_smoke"


@pytest.fixture()
def run_dir(tmp_path) -> Path:
    d = tmp_path / "smoke"
    shutil.copytree(RUN, d, ignore=shutil.ignore_patterns("trace.txt.xz", "SOURCES.md"))
    (d / "trace.txt").write_bytes(lzma.decompress((RUN / "trace.txt.xz").read_bytes()))
    return d


def test_filtered_out_event_says_filtered(run_dir):
    tr = read_trace(run_dir / "trace.txt", events=["sched_switch"])
    with pytest.raises(MissingTraceEventError) as e:
        tr.df("cpu_idle")
    msg = str(e.value)
    assert "filtered out" in msg and "events=" in msg and "record them" not in msg


def test_event_the_machine_cannot_produce_says_so(run_dir):
    tr = read_trace(run_dir / "trace.txt")
    with pytest.raises(MissingTraceEventError) as e:
        tr.df("cpu_frequency")
    msg = str(e.value)
    assert "cannot be produced on this machine" in msg and "no cpufreq" in msg
    assert "add power:cpu_frequency" not in msg and "set_event" not in msg
    from lisa_eas import analysis as A
    with pytest.raises(MissingTraceEventError, match="no cpufreq"):
        A.df_frequency_residency(tr)


def test_event_never_recorded_keeps_the_recording_hint(run_dir):
    tr = read_trace(run_dir / "trace.txt")
    with pytest.raises(MissingTraceEventError, match="record them"):
        tr.df("sched_load_se")


def test_trace_info_unknown_event_exits_2(run_dir, capsys):
    rc = main(["trace", "info", str(run_dir / "trace.txt"), "--events", "sched_swich"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "--events sched_swich: no such event" in err and "sched_switch" in err and "cpu_idle" in err


def test_trace_repr_counts_held_records(run_dir):
    full = read_trace(run_dir / "trace.txt")
    part = read_trace(run_dir / "trace.txt", events=["sched_switch"])
    n = len(part.df("sched_switch"))
    assert f"records={n} " in repr(part) and n < sum(len(full.df(e)) for e in full.events)
    w = full.window(full.time_range[0], full.time_range[0] + 0.5)
    assert f"records={sum(len(w.df(e)) for e in w.events)} " in repr(w)


def test_plot_rtapp_slack_accepts_a_trace(run_dir):
    from lisa_eas.analysis import df_rtapp_activations
    from lisa_eas.plot import plot_rtapp_slack

    tr = read_trace(run_dir / "trace.txt")
    a = plot_rtapp_slack(tr)
    b = plot_rtapp_slack(df_rtapp_activations(tr))
    assert set(a.keys()) == set(b.keys()) and len(a.keys()) >= 1
