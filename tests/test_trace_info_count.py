"""``lisa-eas trace info`` without a decode (lisa_eas/trace/_datcount.py, issue 21): its
answer equals the full reader's, field for field, on every trace of tests/data (a trace.dat
is counted, any other format declines) and on damaged trace.dat files; where it answers,
the command imports neither pandas nor numba."""
from __future__ import annotations

import json
import lzma
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lisa_eas import TraceError, read_trace
from lisa_eas.cli import main
from lisa_eas.cli._trace import _info
from lisa_eas.trace import summarize_trace
from lisa_eas.trace._datfile import open_dat
from test_trace_robust import _mutations
from trace_oracles import DAT_NAMES, HAVE_TRACE_CMD, convert, unpack_dat

DATA = Path(__file__).resolve().parent / "data"
_TRACE_SUFFIXES = (".dat.xz", ".txt", ".txt.xz", ".html", ".bin", ".pb.xz", ".perfetto-trace.xz")


def _all_traces(dest: Path) -> list[Path]:
    """Every trace file of tests/data (xz ones decompressed into ``dest``)."""
    out = []
    for f in sorted(DATA.rglob("*")):
        if not f.is_file() or not f.name.endswith(_TRACE_SUFFIXES) or "formats" in f.parts:
            continue
        if f.name.endswith(".xz"):
            p = dest / "_".join(f.relative_to(DATA).parts)[:-3]
            p.write_bytes(lzma.decompress(f.read_bytes()))
            f = p
        out.append(f)
    return out


def _canon(info: dict) -> str:
    """The info dict as text (NaN spans compare equal; dict order kept, as printed)."""
    return json.dumps(info, default=str)


def _same_answer(path, summary, **kw) -> None:
    full = read_trace(path, cache=False, **kw)
    assert _canon(_info(summary)) == _canon(_info(full))
    assert str(summary.skipped) == str(full.skipped)
    assert summary.events == full.events
    for key in ("event_counts", "time_range", "cpus", "clock", "page_size", "buffers", "lost_events"):
        assert summary.metadata.get(key) == full.metadata.get(key), key


def test_every_trace_in_tests_data(tmp_path):
    traces = _all_traces(tmp_path)
    counted = 0
    for path in traces:
        summary = summarize_trace(path)
        if path.name.endswith(".dat"):
            assert summary is not None, path        # every bundled trace.dat is counted
            _same_answer(path, summary)
            events = sorted(summary.events)[:2]
            _same_answer(path, summarize_trace(path, events=events), events=events)
            _same_answer(path, summarize_trace(path, strict=True), strict=True)
            counted += 1
        else:
            assert summary is None, path            # other formats: the reader answers
    assert counted == len(DAT_NAMES) and len(traces) > 20


@pytest.mark.skipif(not HAVE_TRACE_CMD, reason="trace-cmd is needed to write v7 files")
@pytest.mark.parametrize("compression", ["none", "zstd"])
def test_v7_files(tmp_path, compression):
    src = unpack_dat("trappy_juno_sched_switch", tmp_path)
    v7 = convert(src, tmp_path / f"v7_{compression}.dat", 7, compression)
    summary = summarize_trace(v7)
    assert summary is not None and summary.metadata["format"] == "trace.dat v7"
    _same_answer(v7, summary)


def test_damaged_files(tmp_path):
    """Bit flips, truncations, spliced pages and random page headers: where the walk answers,
    the reader gives the same answer (and does not raise); it declines where fields decide."""
    path = unpack_dat("trappy_juno_cpu_idle", tmp_path)
    dat = open_dat(path)
    base = {"bytes": path.read_bytes(), "ranges": dat.cpu_ranges, "page": dat.page_size}
    gen = _mutations(base, random.Random(21))
    answered = with_skips = 0
    for i in range(150):
        p = tmp_path / "mut.dat"
        p.write_bytes(next(gen))
        strict = i % 3 == 0
        summary = summarize_trace(p, strict=strict)
        if summary is None:
            continue
        answered += 1
        with_skips += bool(summary.skipped)
        try:
            _same_answer(p, summary, strict=strict)
        except TraceError as exc:       # pragma: no cover - the assertion explains
            pytest.fail(f"case {i}: the walk answered, the reader raised {exc}")
    print(f"walk answered {answered} of 150 damaged files, {with_skips} with skips")
    assert answered > 60 and with_skips > 10


def test_unknown_event_and_lost_events(tmp_path):
    """The skip report of an event without a format and of a page after dropped events."""
    import struct

    path = unpack_dat("trappy_juno_cpu_idle", tmp_path)
    data = bytearray(path.read_bytes())
    i = data.index(b"name: sched_switch\nID: ")
    j = data.index(b"\n", i + 23)
    data[i + 23:j] = b"9" * (j - i - 23)
    cpu, off, size = open_dat(path).cpu_ranges[1]
    commit = struct.unpack_from("<Q", data, off + 8)[0]
    struct.pack_into("<Q", data, off + 8, commit | (1 << 31) | (1 << 30))
    struct.pack_into("<Q", data, off + 16 + commit, 42)
    p = tmp_path / "odd.dat"
    p.write_bytes(bytes(data))
    summary = summarize_trace(p)
    assert summary.skipped.count("unknown_event_id") == 23 and summary.metadata["lost_events"] == 42
    _same_answer(p, summary)


def test_declines_when_fields_decide(tmp_path):
    """A bprint whose format address the file lacks is reported by the decode only: the walk
    declines and the CLI decodes, with the same answer as the reader."""
    path = unpack_dat("trappy_juno_sched_switch", tmp_path)
    data = path.read_bytes()
    fig = next(a for a, text in open_dat(path).printk.items() if text.startswith("fig: cpu="))
    old = b"0x%x :" % fig
    assert data.count(old) == 1
    p = tmp_path / "noformat.dat"
    p.write_bytes(data.replace(old, b"0x%x :" % (fig + 1)))     # the records' address is gone
    full = read_trace(p, cache=False)
    assert full.skipped.count("bprint_format_missing") >= 1
    assert summarize_trace(p) is None
    summary = summarize_trace(path)
    assert summary is not None and summary.rows("bprint") == 2
    assert summarize_trace(path, max_bytes=1000) is None      # too big to walk: the decode answers
    assert main(["trace", "info", str(p), "--no-cache"]) == 0


def test_cli_info_imports_no_pandas_or_numba(tmp_path, capsys):
    path = unpack_dat("lisa_juno-r0_sched_load", tmp_path)
    assert main(["trace", "info", str(path), "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["total_events"] == 3724 and got["events"]["sched_switch"] == 399
    code = ("import sys; from lisa_eas.cli import main; rc = main(['trace', 'info', sys.argv[1]]); "
            "bad = [m for m in ('pandas', 'numba', 'pyarrow') if m in sys.modules]; "
            "print('IMPORTED', bad); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         check=True).stdout
    assert "IMPORTED []" in out and "3724 events" in out


def test_cli_info_unknown_event_names_the_known_ones(tmp_path, capsys):
    path = unpack_dat("trappy_juno_cpu_idle", tmp_path)
    assert main(["trace", "info", str(path), "--events", "sched_switch", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--events nope: no such event in this trace" in err
    assert "cpu_idle, sched_migrate_task, sched_switch" in err
    assert main(["trace", "info", str(path), "--events", "cpu_idle", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    full = read_trace(path, cache=False, events=["cpu_idle"])
    assert got == json.loads(json.dumps(_info(full)))
