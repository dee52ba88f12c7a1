"""Text readers: trace-cmd report text, tracefs text, Android systrace/atrace."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from lisa_eas import TraceError, read_trace
from test_trace_dat import compare_with_trappy
from trace_oracles import TRACES, expected_counts, unpack_dat

# the copied files (the injected_overutilized variant of the Juno text is left out)
TEXT_FILES = sorted(f for f in expected_counts("traces/text/")
                    if (TRACES / f.split("traces/", 1)[1]).exists())
SYSTRACE_FILES = sorted(expected_counts("traces/systrace/"))


def _counts(trace):
    return {e: len(trace.df(e)) for e in trace.events}


@pytest.mark.parametrize("rel", TEXT_FILES + SYSTRACE_FILES)
def test_counts_equal_expected_csv(rel):
    path = TRACES / rel.split("traces/", 1)[1]
    want = expected_counts("traces/")[rel]
    # systrace's tracing_mark_write is the ftrace print event
    want = {("print" if e == "tracing_mark_write" else e): n for e, n in want.items()}
    assert _counts(read_trace(path, cache=False)) == want


def test_report_text_equals_binary_twin(tmp_path):
    """The same trace as default `trace-cmd report` text and as trace.dat."""
    dat = read_trace(unpack_dat("trappy_juno_sched_switch", tmp_path), cache=False)
    txt = read_trace(TRACES / "text/trappy_juno_sched_switch_report.txt", cache=False)
    assert txt.events == dat.events
    a, b = dat.df("sched_switch"), txt.df("sched_switch")
    # the text has timestamps rounded to the microsecond
    assert ((a["__ts"].to_numpy() + 500) // 1000 * 1000 == b["__ts"].to_numpy()).all()
    for col in ("__cpu", "__pid", "prev_pid", "prev_prio", "next_pid", "next_prio"):
        assert (a[col].to_numpy().astype(np.int64) == b[col].to_numpy()).all(), col
    for col in ("__comm", "prev_comm", "next_comm"):
        assert list(a[col].astype(str)) == list(b[col].astype(str)), col
    # compact form renders prev_state as letters: 1 -> S, 0 -> R, 1024 -> R+ (4.x N flag)
    assert set(b["prev_state"].astype(str)) <= {"S", "D", "R", "R+", "x", "S|D", "D|K", "T", "t"}
    assert list(txt.df("bprint")["buf"].astype(str)) == list(dat.df("bprint")["buf"].astype(str))


def test_raw_excerpt_equals_dat(tmp_path):
    dat = read_trace(unpack_dat("trappy_juno_sched_switch", tmp_path),
                     cache=False).df("sched_switch")
    txt = read_trace(TRACES / "text/trappy_juno_sched_switch_report_raw_excerpt.txt",
                     cache=False).df("sched_switch")
    # the excerpt is three (not consecutive) events of the binary trace: match them by time
    rounded = (dat["__ts"].to_numpy() + 500) // 1000 * 1000
    head = dat.iloc[[int(np.flatnonzero(rounded == ts)[0]) for ts in txt["__ts"]]]
    for col in txt.columns:
        if col == "__ts":
            assert ((head[col].to_numpy() + 500) // 1000 * 1000 == txt[col].to_numpy()).all()
        else:
            assert list(head[col].astype(str)) == list(txt[col].astype(str)), col


def test_text_equals_trappy(tmp_path):
    trappy = pytest.importorskip("trappy")
    del trappy
    path = tmp_path / "trace.txt"
    shutil.copy(TRACES / "text/lisa_juno-r0_sched_wakeup.txt", path)
    trace = read_trace(path, cache=False)
    assert compare_with_trappy(trace, path, ("sched_switch", "sched_wakeup")) >= 10


def test_print_and_bputs_text_fields():
    t = read_trace(TRACES / "text/lisa_juno-r0_sched_wakeup.txt", cache=False)
    buf = list(t.df("print")["buf"].astype(str))
    assert buf[0] == "TRACE_MARKER_START" and buf[-1] == "TRACE_MARKER_STOP"
    assert sum(b.startswith("cpu_frequency_devlib:") for b in buf) == 12
    eq = read_trace(TRACES / "text/edge_cases/trappy_trace_equals.txt", cache=False).df("bputs")
    assert list(eq["str"].astype(str))[2] == "equals_event: my_field=foo=bar=baz"


def test_unsorted_text_is_sorted_and_reported():
    path = TRACES / "text/edge_cases/trappy_trace_idle_unsorted.txt"
    t = read_trace(path, cache=False)
    for e in t.events:
        assert t.df(e).index.is_monotonic_increasing
    assert t.skipped.entries["unsorted_lines"]["first"] == 10
    with pytest.raises(TraceError, match="line 10: unsorted_lines"):
        read_trace(path, cache=False, strict=True)


def test_failed_to_parse_and_non_key_value():
    t = read_trace(TRACES / "text/edge_cases/trappy_trace_failed_to_parse.txt", cache=False)
    assert t.skipped.entries["failed_to_parse"]["count"] == 3
    df = t.df("thermal_power_cpu_get_power")
    assert list(df["freq"]) == [0x82208, 0x240a90]           # hex values decoded
    with pytest.raises(TraceError, match="line 2: failed_to_parse"):
        read_trace(TRACES / "text/edge_cases/trappy_trace_failed_to_parse.txt", cache=False,
                   strict=True)
    fs = read_trace(TRACES / "text/edge_cases/trappy_trace_filesystem.txt", cache=False)
    assert fs.skipped.entries["payload_not_key_value"]["count"] == 69
    assert str(fs.df("ext4_da_write_end")["__payload"].iloc[0]).startswith("dev 8,13 ino 5898483")
    assert str(fs.df("ext4_da_write_end")["__comm"].iloc[0]) == "<...>"


def test_unknown_event_and_no_trailing_newline():
    t = read_trace(TRACES / "text/edge_cases/trappy_trace_sched.txt", cache=False)
    assert len(t.df("dynamic_test_key")) == 1
    assert t.metadata["cpus"] == 6
    t = read_trace(TRACES / "text/edge_cases/trappy_trace_no_trailing_line.txt", cache=False)
    assert len(t.df("cpu_idle")) == 9
    assert t.df("sched_switch")["prev_state"].iloc[0] == "S"


def test_not_a_trace(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello\nworld\n")
    with pytest.raises(TraceError, match="line 1"):
        read_trace(p, cache=False)
    p.write_text("")
    with pytest.raises(TraceError):
        read_trace(p, cache=False)


def test_atrace_compressed_equals_decompressed():
    a = read_trace(TRACES / "systrace/catapult_atrace_compressed.bin", cache=False)
    b = read_trace(TRACES / "systrace/catapult_atrace_decompressed.txt", cache=False)
    assert a.metadata["format"] == "atrace (zlib)"
    pd.testing.assert_frame_equal(a.df("print"), b.df("print"))
    assert str(a.df("print")["buf"].iloc[2]) == "S|13580|deliverInputEvent|263"


def test_atrace_corrupt_zlib(tmp_path):
    raw = (TRACES / "systrace/catapult_atrace_compressed.bin").read_bytes()
    p = tmp_path / "bad.bin"
    p.write_bytes(raw[:200])
    with pytest.raises(TraceError, match="zlib"):
        read_trace(p, cache=False)


def test_systrace_html_variants():
    t = read_trace(TRACES / "systrace/trappy_pixel2_surfaceflinger_systrace.html", cache=False)
    assert t.metadata["cpus"] == 8
    ss = t.df("sched_switch")
    assert set(ss["__cpu"].unique()) <= set(range(8))
    assert ss.index.is_monotonic_increasing
    legacy = read_trace(TRACES / "systrace/trappy_legacy_systrace_excerpt.html", cache=False)
    assert legacy.metadata["format"] == "systrace html (legacy)"
    js = read_trace(TRACES / "systrace/catapult_android_systrace_jsescaped.txt", cache=False)
    assert not str(js.df("sched_switch")["next_prio"].iloc[0]).endswith("\\")
    assert js.df("sched_switch")["next_prio"].dtype == np.int32      # numeric, in the kernel width
