"""The Trace object, the parquet cache, requires_events, bprint rendering and the CLI."""
from __future__ import annotations

import json
import os
import struct

import numpy as np
import pandas as pd
import pytest

from lisa_eas import MissingTraceEventError, Trace, TraceError, read_trace
from lisa_eas.cli import main
from lisa_eas.trace import SCHEMA_COLUMNS, requires_events
from lisa_eas.trace._printf import render_bprint
from trace_oracles import TRACES, unpack_dat


@pytest.fixture()
def dat(tmp_path):
    return unpack_dat("lisa_juno-r0_sched_load", tmp_path)


def test_schema(dat):
    t = read_trace(dat, cache=False)
    assert t.events == ("cpu_frequency", "cpu_idle", "print", "sched_load_cfs_rq",
                        "sched_load_se", "sched_migrate_task", "sched_switch")
    df = t.df("sched_switch")
    assert df.index.name == "Time" and df.index.dtype == np.float64
    assert list(df.columns[:4]) == list(SCHEMA_COLUMNS)
    assert df["__ts"].dtype == np.int64
    assert (df.index.to_numpy() == df["__ts"].to_numpy() / 1e9).all()
    assert df["prev_state"].dtype == np.int64 and df["prev_pid"].dtype == np.int32
    se = t.df("sched_load_se")
    assert df.index.is_monotonic_increasing and se.index.is_monotonic_increasing
    assert "(null)" in set(se["comm"].astype(str)) and (se["pid"] == -1).any()
    assert set(se["path"].astype(str)) >= {"/autogroup-12", "(null)"}
    assert str(t.df("print")["buf"].iloc[0]).startswith("cpu_frequency_devlib:")
    m = t.metadata
    assert (m["format"], m["cpus"], m["clock"], m["long_size"]) == ("trace.dat v6", 6, "local", 8)
    with pytest.raises(TypeError):
        m["cpus"] = 3


def test_missing_event_and_requires_events(dat):
    t = read_trace(dat, cache=False, events=["sched_switch", "cpu_idle", "nope"])
    assert t.events == ("cpu_idle", "sched_switch")
    with pytest.raises(MissingTraceEventError, match="sched_wakeup.*set_event"):
        t.df("sched_wakeup")

    @requires_events("sched_switch", "sched_wakeup", "sched_waking")
    def latency(trace):
        return 1

    with pytest.raises(MissingTraceEventError) as err:
        latency(t)
    assert err.value.missing == ("sched_wakeup", "sched_waking")
    assert latency.required_events == ("sched_switch", "sched_wakeup", "sched_waking")

    @requires_events("sched_switch")
    def ok(trace):
        return len(trace.df("sched_switch"))

    assert ok(t) == 399


def test_window(dat):
    t = read_trace(dat, cache=False)
    idx = t.df("sched_switch").index
    lo, hi = float(idx[10]), float(idx[20])
    w = t.window(lo, hi)
    assert len(w.df("sched_switch")) == 11
    for e in w.events:
        d = w.df(e)
        assert len(d) == 0 or (d.index.min() >= lo and d.index.max() <= hi)
    assert len(w.window(None, float(idx[15])).df("sched_switch")) == 6
    r = read_trace(dat, cache=False, window=(lo, hi))
    pd.testing.assert_frame_equal(r.df("sched_switch"), w.df("sched_switch"))


def test_cache_roundtrip_and_invalidation(dat, tmp_path):
    cache_dir = tmp_path / "cache"
    cold = read_trace(dat, cache_dir=cache_dir)
    assert "cache" in cold.metadata and os.path.isdir(cold.metadata["cache"])
    warm = read_trace(dat, cache_dir=cache_dir)
    assert warm.events == cold.events
    for e in cold.events:
        pd.testing.assert_frame_equal(cold.df(e), warm.df(e))
    assert warm.metadata["event_counts"] == cold.metadata["event_counts"]
    # change one byte in a record, keep size and mtime: the cache must not be used
    st = os.stat(dat)
    data = bytearray(dat.read_bytes())
    first = cold.df("sched_switch")
    i = data.index(b"kworker/2:1\0", len(data) - 200000)
    data[i] = ord("K")
    dat.write_bytes(bytes(data))
    os.utime(dat, ns=(st.st_atime_ns, st.st_mtime_ns))
    changed = read_trace(dat, cache_dir=cache_dir)
    names = set()
    for e in changed.events:
        for c in changed.df(e).columns:
            if isinstance(changed.df(e)[c].dtype, pd.CategoricalDtype):
                names |= set(changed.df(e)[c].cat.categories)
    assert "Kworker/2:1" in names
    assert len(changed.df("sched_switch")) == len(first)


def test_cache_next_to_trace_and_partial_events(dat):
    t1 = read_trace(dat, events=["cpu_idle"])
    cdir = dat.parent / f".{dat.name}.lisa_eas"
    assert sorted(p.name for p in cdir.glob("*.parquet")) == ["cpu_idle.parquet"]
    t2 = read_trace(dat, events=["cpu_idle", "sched_switch"])
    assert len(t2.df("sched_switch")) == 399 and len(t2.df("cpu_idle")) == len(t1.df("cpu_idle"))
    assert sorted(p.name for p in cdir.glob("*.parquet")) == ["cpu_idle.parquet",
                                                              "sched_switch.parquet"]
    t3 = read_trace(dat)
    assert len(t3.events) == 7


def test_strict_with_cached_skips(tmp_path):
    path = unpack_dat("trappy_juno_cpu_idle", tmp_path)
    data = bytearray(path.read_bytes())
    from lisa_eas.trace._datfile import open_dat
    off = open_dat(path).cpu_ranges[0][1]
    data[off + 8:off + 16] = struct.pack("<Q", 99999)
    path.write_bytes(bytes(data))
    t = read_trace(path)
    assert t.skipped.count("corrupt_page") == 1
    t = read_trace(path)       # from the cache, with its skipped report
    assert t.skipped.count("corrupt_page") == 1
    with pytest.raises(TraceError, match=f"byte offset {off}"):
        read_trace(path, strict=True)


def test_from_dataframes():
    df = pd.DataFrame({"__cpu": [0, 1], "__pid": [5, 6], "__comm": ["a", "b"], "util": [3, 4]},
                      index=[0.5, 0.25])
    t = Trace.from_dataframes({"sched_pelt_se": df}, {"clock": "mono", "cpus": 2})
    out = t.df("sched_pelt_se")
    assert list(out["__ts"]) == [250_000_000, 500_000_000]
    assert out.index.name == "Time" and t.metadata["cpus"] == 2
    assert t.metadata["event_counts"] == {"sched_pelt_se": 2}
    with pytest.raises(TraceError, match="__comm"):
        Trace.from_dataframes({"x": df.drop(columns="__comm")})
    assert len(t.window(0.3, None).df("sched_pelt_se")) == 1
    assert t.activations.empty


def test_render_bprint_packing():
    # "%d %s %llu %c %lx": int at 0, string "ab\0" at 4, u64 aligned to 4 -> 8, char at 16,
    # long (4 bytes on a 32-bit kernel) aligned to 4 -> 20
    args = (struct.pack("<i", -7) + b"ab\0" + b"\0" + struct.pack("<Q", 1 << 40) + b"Z"
            + b"\0\0\0" + struct.pack("<I", 0xbeef))
    assert render_bprint("%d %s %llu %c %lx\n", args, 4) == f"-7 ab {1 << 40} Z beef"
    assert render_bprint("%5d|%-3u|%%|%08x", struct.pack("<iII", 42, 7, 255), 8) == \
        "   42|7  |%|000000ff"
    assert render_bprint("%*d", struct.pack("<ii", 4, 3), 8) == "   3"
    assert render_bprint("%d %d", struct.pack("<i", 1), 8) == "1 0"   # short args: no crash


def test_cli_info_and_convert(dat, tmp_path, capsys):
    assert main(["trace", "info", str(dat), "--format", "json", "--no-cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["total_events"] == 3724 and info["cpus"] == 6
    assert info["events"]["sched_switch"] == 399 and info["skipped"] == {}
    assert info["duration_s"] == pytest.approx(2084.449525 - 2084.021443, abs=2e-6)
    out = tmp_path / "pq"
    assert main(["trace", "convert", str(dat), "--out", str(out), "--no-cache",
                 "--events", "sched_switch", "cpu_idle"]) == 0
    df = pd.read_parquet(out / "sched_switch.parquet")
    assert len(df) == 399 and df.index.name == "Time"
    assert main(["trace", "info", str(tmp_path / "missing.dat")]) == 2
    assert "no such trace file" in capsys.readouterr().err
    assert main(["trace", "info", str(TRACES / "text/edge_cases/trappy_trace_sched.txt"),
                 "--no-cache"]) == 0
    assert "dynamic_test_key" in capsys.readouterr().out
