"""Trace.to_perfetto / `lisa-eas trace convert --to perfetto`: the oracle parses every written
file, and reading it back gives the same DataFrames (real Perfetto traces, a converted
trace.dat and a simulated run)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lisa_eas import read_trace
from lisa_eas.cli import main
from lisa_eas.trace._perfetto_schema import EVENT_FIELD
from perfetto_oracle import PIXEL, SYSTING, oracle_events, parse, unpack
from trace_oracles import unpack_dat

TABLES = ("power_rails", "battery", "process_tree")


def _norm(df: pd.DataFrame) -> pd.DataFrame:
    return df.reset_index().sort_values(["__ts", "__cpu"], kind="stable").reset_index(drop=True)


def assert_same(a, b, *, exact_dtypes=True):
    """Every event of ``a`` in ``b`` with equal values (same dtypes for typed events)."""
    extra = set(b.events) - set(a.events)
    # the task names are stored as a process tree; model signals also as track tables
    assert extra <= {"process_tree", "track_counter", "track_slice"}, extra
    for e in a.events:
        if e == "process_tree":
            continue
        x, y = _norm(a.df(e)), _norm(b.df(e))
        typed = e in EVENT_FIELD or e in TABLES
        pd.testing.assert_frame_equal(x, y, check_dtype=exact_dtypes and typed,
                                      check_categorical=False, obj=e)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("pw")
    return {"dir": d, PIXEL: unpack(PIXEL, d), SYSTING: unpack(SYSTING, d),
            "dat": unpack_dat("lisa_juno-r0_sched_load", d)}


@pytest.mark.parametrize("name", [PIXEL, SYSTING, "dat"])
def test_round_trip(files, name):
    src = read_trace(files[name], cache=False)
    out = src.to_perfetto(files["dir"] / f"{name}.rt.pftrace")
    back = read_trace(out, cache=False)
    assert back.metadata["format"] == "perfetto" and not back.skipped
    assert_same(src, back)
    # the oracle parses the file and sees every switch (compact or typed)
    oracle = oracle_events(parse(out))
    assert len(oracle["sched_switch"]) == len(src.df("sched_switch"))
    if "sched_waking" in src.events:
        assert len(oracle["sched_waking"]) == len(src.df("sched_waking"))
    # and the file is smaller than or comparable to the source
    if name != "dat":
        assert out.stat().st_size < 1.5 * files[name].stat().st_size


def test_compact_encoding_used(files):
    src = read_trace(files[PIXEL], cache=False)
    out = src.to_perfetto(files["dir"] / "compact.pftrace")
    trace = parse(out)
    n_compact = sum(len(p.ftrace_events.compact_sched.switch_timestamp) for p in trace.packet
                    if p.HasField("ftrace_events"))
    # all but the first switch of each CPU (whose prev_* the compact form cannot carry)
    assert n_compact == len(src.df("sched_switch")) - 8


def test_cli_convert_to_perfetto(files, capsys):
    out = files["dir"] / "cli.perfetto-trace"
    rc = main(["trace", "convert", str(files["dat"]), "--to", "perfetto", "--out", str(out),
               "--no-cache"])
    assert rc == 0 and out.is_file()
    assert "events" in capsys.readouterr().out
    assert_same(read_trace(files["dat"], cache=False), read_trace(out, cache=False))


def test_simulated_run(tmp_path):
    from lisa_eas import SimConfig, simulate
    run = simulate("hikey960", "workloads/eas_speedup_ramp.json",
                   config=SimConfig(governor="schedutil", placement="eas", duration_s=0.3))
    out = run.to_perfetto(tmp_path / "sim.pftrace")
    back = read_trace(out, cache=False)
    assert_same(run, back, exact_dtypes=True)
    # generic (model) events keep their values; floats come back as float64
    t = parse(out)
    counters = [p for p in t.packet if p.HasField("track_event") and p.track_event.type == 4]
    slices = [p for p in t.packet if p.HasField("track_event") and p.track_event.type == 3]
    names = {p.track_descriptor.name for p in t.packet if p.HasField("track_descriptor")}
    assert counters and any(n.startswith("lisa_sim_cpu_util.util_avg") for n in names)
    if "lisa_sim_eas_decision" in run.events and len(run.df("lisa_sim_eas_decision")):
        assert len(slices) == len(run.df("lisa_sim_eas_decision"))
        interned = {d.iid: d.name for p in t.packet if p.HasField("interned_data")
                    for d in p.interned_data.debug_annotation_names}
        ann = {interned[a.name_iid] for a in slices[0].track_event.debug_annotations}
        assert {"prev_energy", "best_energy"} <= ann


def test_simulated_run_tracks_read_back(tmp_path):
    """The counter tracks and EAS slices of a written simulated run read back (their names
    interned per sequence) with the model's values, and survive a second round trip."""
    from lisa_eas import SimConfig, simulate
    run = simulate("hikey960", "workloads/eas_speedup_ramp.json",
                   config=SimConfig(governor="schedutil", placement="eas", duration_s=0.3))
    back = read_trace(run.to_perfetto(tmp_path / "sim.pftrace"), cache=False)
    t = parse(tmp_path / "sim.pftrace")
    interned = [p for p in t.packet if p.HasField("interned_data")]
    cnt = back.df("track_counter")
    util = run.df("lisa_sim_cpu_util")
    for cpu in sorted(set(util["cpu"].tolist()))[:2]:
        exp = util[util["cpu"] == cpu]
        got = cnt[cnt["track"] == f"lisa_sim_cpu_util.util_avg cpu={cpu}"]
        assert got["__ts"].tolist() == exp["__ts"].tolist()
        assert np.allclose(got["value"].to_numpy(), exp["util_avg"].to_numpy(np.float64))
    dec = run.df("lisa_sim_eas_decision") if "lisa_sim_eas_decision" in run.events else None
    if dec is not None and len(dec):
        assert interned                       # slice and annotation names are interned
        sl = back.df("track_slice")
        assert len(sl) == len(dec) and (sl["dur"] == 0).all()
        order = np.argsort(dec["__ts"].to_numpy(), kind="stable")
        assert sl["__ts"].tolist() == dec["__ts"].to_numpy()[order].tolist()
        assert sl["name"].astype(str).tolist() == [f"EAS {c}" for c in
                                                   dec["comm"].astype(str).to_numpy()[order]]
        assert sl["track"].astype(str).tolist() == [
            f"EAS decisions -> CPU {c}" for c in dec["chosen_cpu"].to_numpy()[order]]
        for c in ("prev_energy", "best_energy"):
            assert np.allclose(sl[c].to_numpy(), dec[c].to_numpy(np.float64)[order])
    again = read_trace(back.to_perfetto(tmp_path / "again.pftrace"), cache=False)
    for e in ("track_counter", "track_slice"):
        if e in back.events:
            pd.testing.assert_frame_equal(_norm(back.df(e)), _norm(again.df(e)),
                                          check_categorical=False, obj=e)
