"""Perfetto traces read into the trace.dat schema: counts from expected_event_counts.csv,
every decoded field against the protobuf oracle (the perfetto wheel's generated schema),
metadata, power rails, content sniffing and the cache."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from lisa_eas import read_trace
from perfetto_oracle import (PIXEL, SYSTING, expected_counts, oracle_events, oracle_power_rails,
                             parse, unpack)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("perfetto")
    return {n: unpack(n, d) for n in (PIXEL, SYSTING)}


@pytest.fixture(scope="module")
def traces(files):
    return {n: read_trace(p, cache=False) for n, p in files.items()}


@pytest.fixture(scope="module")
def oracles(files):
    return {n: parse(p) for n, p in files.items()}


@pytest.mark.parametrize("name", [PIXEL, SYSTING])
def test_counts_match_expected_csv(traces, name):
    trace = traces[name]
    exp = expected_counts(name)
    counts = trace.metadata["event_counts"]
    for key, n in exp.items():
        kind, _, ev = key.partition("/")
        if kind == "ftrace":
            assert counts.get(ev, 0) == n + (exp.get("compact_sched/switch", 0)
                                               if ev == "sched_switch" else 0), ev
        elif kind == "compact_sched":
            ev = {"switch": "sched_switch", "waking": "sched_waking"}[ev]
            typed = exp.get(f"ftrace/{ev}", 0)
            assert counts.get(ev, 0) == n + typed, ev
        elif kind == "packet_field" and ev in ("ftrace_events", "power_rails", "battery",
                                                  "process_tree", "clock_snapshot",
                                                  "system_info", "cpu_info", "track_descriptor",
                                                  "perf_sample"):
            assert trace.metadata["packet_counts"].get(ev, 0) == n, ev
    assert not trace.skipped.total


def _cmp(ours: pd.DataFrame, rows: list[dict], name: str):
    exp = pd.DataFrame(rows)
    assert len(ours) == len(exp), name
    exp = exp.sort_values("__ts", kind="stable").reset_index(drop=True)
    ours = ours.reset_index()
    assert np.array_equal(ours["__ts"].to_numpy(), exp["__ts"].to_numpy(np.int64)), name
    assert np.array_equal(ours["Time"].to_numpy(), exp["__ts"].to_numpy() / 1e9)
    for col in exp.columns:
        if col in ("__ts",):
            continue
        e = exp[col]
        o = ours[col]
        if isinstance(o.dtype, pd.CategoricalDtype):     # strings (None: compact prev_comm of a CPU's first switch)
            e = e.where(e.notna(), "<...>")
            assert list(o.astype(str)) == list(e.astype(str)), f"{name}.{col}"
        else:
            assert np.array_equal(o.to_numpy().astype(np.int64),
                                  e.to_numpy().astype(np.int64).astype(o.dtype).astype(np.int64)), \
                f"{name}.{col}"


@pytest.mark.parametrize("name", [PIXEL, SYSTING])
def test_every_field_equals_the_oracle(traces, oracles, name):
    trace = traces[name]
    exp = oracle_events(oracles[name])
    assert exp
    for ev, rows in exp.items():
        _cmp(trace.df(ev), rows, ev)
    # sched_switch: __pid / __comm are the task switched out
    sw = trace.df("sched_switch")
    assert np.array_equal(sw["__pid"].to_numpy(), sw["prev_pid"].to_numpy())


def test_schema_matches_trace_dat(traces):
    sw = traces[PIXEL].df("sched_switch")
    assert sw.index.name == "Time" and sw.index.dtype == np.float64
    assert [(c, str(t)) for c, t in sw.dtypes.items()] == [
        ("__ts", "int64"), ("__cpu", "int32"), ("__pid", "int32"), ("__comm", "category"),
        ("prev_comm", "category"), ("prev_pid", "int32"), ("prev_prio", "int32"),
        ("prev_state", "int64"), ("next_comm", "category"), ("next_pid", "int32"),
        ("next_prio", "int32")]
    idle = traces[PIXEL].df("cpu_idle")
    assert [str(t) for t in idle.dtypes] == ["int64", "int32", "int32", "category", "uint32",
                                               "uint32"]
    for name in (PIXEL, SYSTING):
        for ev in traces[name].events:
            df = traces[name].df(ev)
            assert df.index.is_monotonic_increasing, ev


def test_pixel_metadata(traces):
    m = traces[PIXEL].metadata
    assert m["format"] == "perfetto"
    assert m["kernel_version"] == "5.10.107-android13-4-00003-g777901393eee-ab8910922"
    assert m["cpus"] == 8 and m["clock"] == "boot"
    assert [len(f) for f in m["cpu_frequencies"]] == [11] * 4 + [15] * 2 + [18] * 2
    assert m["cpu_frequencies"][0][0] == 300000 and m["cpu_frequencies"][7][-1] == 2850000
    assert m["lost_events"] == 0
    assert "S4M_VDD_CPUCL0" in m["power_rails"] and len(m["power_rails"]) == 24
    # sched_switch per CPU, as SOURCES.md lists them
    per_cpu = traces[PIXEL].df("sched_switch")["__cpu"].value_counts().sort_index().tolist()
    assert per_cpu == [12368, 10375, 11743, 13432, 736, 807, 305, 83]
    states = traces[PIXEL].df("sched_switch")["prev_state"].value_counts().to_dict()
    assert states == {1: 18800, 0: 16471, 128: 7683, 2: 3924, 256: 2949, 16: 22}


def test_systing_raw_prev_state_kept(traces):
    """systing stores the raw task state: values outside the tracepoint's table are kept."""
    sw = traces[SYSTING].df("sched_switch")
    states = sw["prev_state"].value_counts().to_dict()
    assert states == {0: 2389, 1: 1670, 8193: 580, 1026: 323, 512: 55, 2: 33, 258: 2, 128: 1}
    assert traces[SYSTING].metadata["cpus"] == 22
    wk = traces[SYSTING].df("sched_waking")
    assert len(wk) == 3678 and set(wk["target_cpu"].unique()) <= set(range(22))
    # the waker is the task running on the CPU: known for most wakings
    assert (wk["__pid"] >= 0).mean() > 0.9


def test_power_rails_equal_oracle(traces, oracles):
    pr = traces[PIXEL].df("power_rails")
    exp = sorted(oracle_power_rails(oracles[PIXEL]), key=lambda r: (r[1], r[0]))
    got = sorted(zip(pr["rail"].astype(str), pr["__ts"] // 1_000_000, pr["energy_uws"]),
                 key=lambda r: (r[1], r[0]))
    assert [(a, int(b), int(c)) for a, b, c in got] == [(a, int(b), int(c)) for a, b, c in exp]
    cl0 = pr[pr["rail"] == "S4M_VDD_CPUCL0"]
    assert len(cl0) == 240
    p = cl0["power_mw"].to_numpy()
    e = cl0["energy_uws"].to_numpy().astype(float)
    dt = np.diff(cl0["__ts"].to_numpy()) / 1e9
    # a sample repeated with the same time (the HAL reports some twice) has no power
    assert np.isnan(p[0]) and np.all(np.isnan(p[1:]) == (dt == 0))
    assert np.all(p[1:][dt > 0] >= 0)
    ok = dt > 0
    assert np.allclose(p[1:][ok], np.diff(e)[ok] / dt[ok] / 1000)


def test_recognised_by_content_and_cached(files, tmp_path):
    p = tmp_path / "capture.txt"
    shutil.copy(files[SYSTING], p)
    cold = read_trace(p, cache=True, cache_dir=tmp_path / "c")
    warm = read_trace(p, cache=True, cache_dir=tmp_path / "c")
    assert cold.metadata["format"] == "perfetto"
    for ev in cold.events:
        pd.testing.assert_frame_equal(cold.df(ev), warm.df(ev), check_categorical=False)


def test_analyses_run_unchanged(traces):
    """The analyses take a Perfetto trace as they take a trace.dat (raw systing states too)."""
    from lisa_eas.analysis import df_cpu_residency, df_energy, df_task_states
    for name in (PIXEL, SYSTING):
        t = traces[name]
        res = df_cpu_residency(t)
        assert res["total"].sum() > 0
        assert len(df_task_states(t))
    e = df_energy(traces[PIXEL], "pixel7pro")
    assert list(e.index) == list(range(8)) and (e["energy"] > 0).all()
    # busy + idle covers the trace span on every CPU
    span = traces[PIXEL].time_range[1] - traces[PIXEL].time_range[0]
    assert np.allclose(e["busy_s"] + e["idle_s"], span, rtol=0.01)
