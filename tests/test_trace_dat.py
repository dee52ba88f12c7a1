"""trace.dat v6/v7 reader against trace-cmd (report -R, event by event) and trappy."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lisa_eas import read_trace
from trace_oracles import (DAT_NAMES, HAVE_TRACE_CMD, convert, expected_counts, payload_regex,
                           report_lines, unpack_dat, value_matches)

needs_trace_cmd = pytest.mark.skipif(not HAVE_TRACE_CMD, reason="trace-cmd is not installed")


@pytest.fixture(scope="module")
def dat_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("dat")
    for name in DAT_NAMES:
        unpack_dat(name, d)
    return d


def _variants():
    out = [(n, "v6") for n in DAT_NAMES]
    out += [(n, "v7zstd") for n in ("lisa_juno-r0_sched_load", "trappy_arm32_thermal")]
    out += [(n, "v7none") for n in ("trappy_juno_sched_switch",)]
    return out


def _variant_path(dat_dir, name, variant):
    src = dat_dir / f"{name}.dat"
    if variant == "v6":
        return src
    if not HAVE_TRACE_CMD:
        pytest.skip("trace-cmd is needed to write the v7 variant")
    dest = dat_dir / f"{name}.{variant}.dat"
    if not dest.exists():
        convert(src, dest, 7, "zstd" if variant == "v7zstd" else "none")
    return dest


def compare_with_report(trace, path, buffer=None):
    """Assert every event of ``trace`` equals trace-cmd report -R, field by field."""
    lines = report_lines(path, raw=True, buffer=buffer)
    assert sorted(lines) == sorted(trace.events)
    compared = 0
    for event in trace.events:
        df = trace.df(event)
        ref = lines[event]
        assert len(df) == len(ref), event
        order = np.lexsort((df["__cpu"].to_numpy(), df["__ts"].to_numpy()))
        ref = sorted(ref, key=lambda r: (r[0], r[1]))
        fields = [c for c in df.columns if not c.startswith("__")]
        rx = payload_regex(fields)
        cols = {c: df[c].to_numpy() if not isinstance(df[c].dtype, pd.CategoricalDtype)
                else np.asarray(df[c].astype(object)) for c in df.columns}
        for k, (ts, cpu, pid, comm, payload) in zip(order.tolist(), ref):
            assert (int(cols["__ts"][k]), int(cols["__cpu"][k]), int(cols["__pid"][k]),
                    str(cols["__comm"][k])) == (ts, cpu, pid, comm), (event, payload)
            m = rx.match(payload)
            assert m is not None, (event, payload)
            for f, text in zip(fields, m.groups()):
                if event == "bprint" and f == "buf":
                    continue   # -R prints the raw word; the text is checked separately
                ours = cols[f][k]
                ok = value_matches(ours.item() if hasattr(ours, "item") else ours, text)
                assert ok is not False, (event, f, ours, text)
                compared += ok is True
    return compared


@needs_trace_cmd
@pytest.mark.parametrize("name,variant", _variants())
def test_events_equal_trace_cmd_report_raw(dat_dir, name, variant):
    path = _variant_path(dat_dir, name, variant)
    trace = read_trace(path, cache=False)
    assert trace.metadata["format"] == ("trace.dat v6" if variant == "v6" else "trace.dat v7")
    assert compare_with_report(trace, path) > 0
    assert trace.skipped.total == 0


@needs_trace_cmd
@pytest.mark.parametrize("name", ["trappy_arm32_thermal", "trappy_juno_sched_switch"])
def test_bprint_text_equals_trace_cmd(dat_dir, name):
    path = dat_dir / f"{name}.dat"
    ours = read_trace(path, cache=False).df("bprint")
    ref = report_lines(path, raw=False)["bprint"]
    # the default rendering is "<ip>: <message>"; a message with a newline spans two lines
    texts = [r[4].split(": ", 1)[1] for r in sorted(ref, key=lambda r: (r[0], r[1]))]
    order = np.lexsort((ours["__cpu"].to_numpy(), ours["__ts"].to_numpy()))
    got = [str(v) for v in np.asarray(ours["buf"].astype(object))[order]]
    for a, b in zip(got, texts):
        assert a.split("\n")[0].rstrip() == b.rstrip()
    assert len(got) == len(texts)


@pytest.mark.parametrize("name", DAT_NAMES)
def test_counts_equal_expected_csv(dat_dir, name):
    want = expected_counts("traces/dat/")[f"traces/dat/{name}.dat"]
    trace = read_trace(dat_dir / f"{name}.dat", cache=False)
    assert {e: len(trace.df(e)) for e in trace.events} == want
    assert trace.metadata["event_counts"] == want


def _trappy_frames(path, events):  # trappy runs trace-cmd itself on a .dat, or reads text
    trappy = pytest.importorskip("trappy")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ft = trappy.FTrace(str(path), normalize_time=False, events=list(events))
    out = {}
    for e in events:
        attr = {"sched_switch": "sched_switch", "sched_wakeup": "sched_wakeup",
                "cpu_frequency": "cpu_frequency", "cpu_idle": "cpu_idle"}[e]
        out[e] = getattr(ft, attr).data_frame
    return out


# trappy renames a few fields
TRAPPY_RENAMES = {"cpu_frequency": {"cpu_id": "cpu", "state": "frequency"},
                  "cpu_idle": {}}


def compare_with_trappy(trace, path, events):
    theirs = _trappy_frames(path, events)
    checked = 0
    for e in events:
        ours = trace.df(e)
        ref = theirs[e]
        assert len(ours) == len(ref), e
        np.testing.assert_allclose(ours.index.to_numpy(), ref.index.to_numpy(), rtol=0, atol=2e-9)
        renames = TRAPPY_RENAMES.get(e, {})
        for col in ours.columns:
            if col == "__ts":
                continue
            rcol = renames.get(col, col)
            if rcol not in ref.columns:
                continue
            a = ours[col]
            b = ref[rcol]
            if isinstance(a.dtype, pd.CategoricalDtype) or a.dtype == object:
                assert list(a.astype(str)) == list(b.astype(str)), (e, col)
            else:
                va = a.to_numpy().astype(np.int64)
                if (e, col) == ("cpu_idle", "state"):
                    va = va.astype(np.int32)   # trappy turns the u32 exit value into -1
                assert (va == b.to_numpy().astype(np.int64)).all(), (e, col)
            checked += 1
    return checked


@needs_trace_cmd
@pytest.mark.parametrize("name,events", [
    ("lisa_juno-r0_sched_load", ("sched_switch", "cpu_frequency", "cpu_idle")),
    ("trappy_juno_cpu_idle", ("sched_switch", "cpu_idle")),
    ("trappy_juno_sched_switch", ("sched_switch",)),
])
def test_dataframes_equal_trappy(dat_dir, tmp_path, name, events):
    import shutil
    path = tmp_path / f"{name}.dat"     # trappy writes its own cache beside the trace
    shutil.copy(dat_dir / f"{name}.dat", path)
    trace = read_trace(path, cache=False)
    assert compare_with_trappy(trace, path, events) >= 4


@pytest.mark.parametrize("name", ["lisa_juno-r0_sched_load", "trappy_juno_sched_switch"])
def test_chunked_decode_equals_one_pass(dat_dir, monkeypatch, name):
    """Fields decoded in many small row chunks (file pages dropped between chunks, string
    codes merged across chunks) give exactly the DataFrames of a single pass."""
    from lisa_eas.trace import _datread
    path = dat_dir / f"{name}.dat"
    monkeypatch.setattr(_datread, "_CHUNK_ROWS", 1 << 40)
    one = read_trace(path, cache=False)
    monkeypatch.setattr(_datread, "_CHUNK_ROWS", 97)
    chunked = read_trace(path, cache=False)
    assert one.events == chunked.events
    assert max(len(one.df(e)) for e in one.events) > 3 * 97
    for e in one.events:
        pd.testing.assert_frame_equal(chunked.df(e), one.df(e), check_exact=True)
    assert one.skipped.as_dict() == chunked.skipped.as_dict()
