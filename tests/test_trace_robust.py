"""Bad trace.dat input: clear TraceErrors in strict mode, skip reports otherwise, and a fuzz
test (bit flips, truncations, spliced and corrupted pages) where only TraceError escapes."""
from __future__ import annotations

import random
import struct
import time

import pytest

from lisa_eas import TraceError, read_trace
from lisa_eas.trace._datfile import open_dat
from trace_oracles import HAVE_TRACE_CMD, convert, unpack_dat


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    d = tmp_path_factory.mktemp("robust")
    path = unpack_dat("trappy_juno_cpu_idle", d)
    dat = open_dat(path)
    return {"dir": d, "path": path, "bytes": path.read_bytes(), "ranges": dat.cpu_ranges,
            "page": dat.page_size}


def _write(tmp_path, data: bytes, name="mut.dat"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_wrong_magic(tmp_path, base):
    p = _write(tmp_path, b"\x00" + base["bytes"][1:])
    with pytest.raises(TraceError, match="magic"):
        read_trace(p, cache=False)


def test_unknown_version(tmp_path, base):
    data = bytearray(base["bytes"])
    assert data[10:12] == b"6\0"
    data[10] = ord("9")
    with pytest.raises(TraceError, match="version '9'"):
        read_trace(_write(tmp_path, bytes(data)), cache=False)


def test_empty_and_tiny_files(tmp_path):
    for data in (b"", b"\x17\x08\x44tracing", b"\x17\x08\x44tracing6\0\0\x08"):
        with pytest.raises(TraceError):
            read_trace(_write(tmp_path, data), cache=False)


def test_truncated_in_page_data(tmp_path, base):
    full = read_trace(base["path"], cache=False)
    cpu, off, size = base["ranges"][2]
    cut = off + 2000    # inside CPU 2's only page
    p = _write(tmp_path, base["bytes"][:cut])
    trace = read_trace(p, cache=False)
    n_full = sum(full.metadata["event_counts"].values())
    n_cut = sum(trace.metadata["event_counts"].values())
    assert 0 < n_cut < n_full
    # everything from the CPUs before the cut is kept
    for e in trace.events:
        assert len(trace.df(e)) <= len(full.df(e))
    assert trace.skipped.total >= 1
    with pytest.raises(TraceError, match=r"byte offset \d+"):
        read_trace(p, cache=False, strict=True)


def test_corrupt_page_is_skipped_and_reported(tmp_path, base):
    data = bytearray(base["bytes"])
    cpu, off, size = base["ranges"][0]
    data[off + 8:off + 16] = struct.pack("<Q", 100000)   # commit larger than the page
    p = _write(tmp_path, bytes(data))
    trace = read_trace(p, cache=False)
    assert trace.skipped.entries["corrupt_page"] == {"count": 1, "first": off, "detail": ""}
    assert (trace.df("sched_switch")["__cpu"] != cpu).all()
    with pytest.raises(TraceError, match=f"byte offset {off}: corrupt_page"):
        read_trace(p, cache=False, strict=True)


def test_event_without_format(tmp_path, base):
    data = base["bytes"]
    i = data.index(b"name: sched_switch\nID: ")
    j = data.index(b"\n", i + 19)
    old = data[i + 23:j]
    new = b"9" * len(old)      # an id no record uses
    assert new not in (b"9", b"99")
    p = _write(tmp_path, data[:i + 23] + new + data[j:])
    trace = read_trace(p, cache=False)
    assert "sched_switch" not in trace.events
    assert trace.skipped.entries["unknown_event_id"]["count"] == 23
    with pytest.raises(TraceError, match="unknown_event_id"):
        read_trace(p, cache=False, strict=True)


def _mutations(base, rng):
    data = base["bytes"]
    ranges = base["ranges"]
    page = base["page"]
    lo = min(r[1] for r in ranges)
    hi = max(r[1] + r[2] for r in ranges)
    while True:
        kind = rng.random()
        b = bytearray(data)
        if kind < 0.40:                       # bit flips in the page data
            for _ in range(rng.randint(1, 8)):
                pos = rng.randrange(lo, hi)
                b[pos] ^= 1 << rng.randrange(8)
        elif kind < 0.55:                     # bit flips anywhere (headers, formats)
            for _ in range(rng.randint(1, 4)):
                head = rng.random() < 0.5
                pos = rng.randrange(min(4096, len(b))) if head else rng.randrange(len(b))
                b[pos] ^= 1 << rng.randrange(8)
        elif kind < 0.70:                     # truncation
            cut = rng.randrange(len(b)) if rng.random() < 0.3 else rng.randrange(lo, hi)
            b = b[:cut]
        elif kind < 0.85:                     # a page spliced over another (maybe misaligned)
            src = rng.randrange(lo, hi - 64)
            dst = rng.randrange(lo, hi - 64)
            n = min(page, hi - src, hi - dst)
            b[dst:dst + n] = data[src:src + n]
        else:                                 # random page header (timestamp, commit)
            r = rng.choice(ranges)
            p = r[1] + page * rng.randrange(max(1, r[2] // page))
            b[p + rng.choice((0, 8)):p + rng.choice((0, 8)) + 8] = rng.randbytes(8)
        yield bytes(b)


def _fuzz(path_dir, base, cases: int, seed: int, budget_s: float):
    rng = random.Random(seed)
    gen = _mutations(base, rng)
    t0 = time.monotonic()
    outcomes = {"ok": 0, "trace_error": 0}
    for i in range(cases):
        data = next(gen)
        p = path_dir / "fuzz.dat"
        p.write_bytes(data)
        for strict in ((False, True) if i % 4 == 0 else (False,)):
            try:
                trace = read_trace(p, cache=False, strict=strict)
                for e in trace.events:
                    trace.df(e)
                outcomes["ok"] += 1
            except TraceError:
                outcomes["trace_error"] += 1
        assert time.monotonic() - t0 < budget_s, f"fuzzing too slow after {i} cases"
    return outcomes


def test_fuzz_only_trace_error_escapes(tmp_path, base):
    read_trace(base["path"], cache=False)   # compile outside the time budget
    out = _fuzz(tmp_path, base, cases=1200, seed=5, budget_s=110)
    assert out["ok"] > 100 and out["trace_error"] > 10


@pytest.mark.skipif(not HAVE_TRACE_CMD, reason="trace-cmd is needed to write a v7 file")
def test_fuzz_v7_zstd(tmp_path, base):
    v7 = convert(base["path"], tmp_path / "v7.dat", 7, "zstd")
    dat = open_dat(v7)
    vb = {"bytes": v7.read_bytes(), "page": dat.page_size,
          "ranges": [(0, 4096, len(v7.read_bytes()) - 8192)]}
    out = _fuzz(tmp_path, vb, cases=400, seed=7, budget_s=60)
    assert out["ok"] + out["trace_error"] >= 400


def test_lost_events_flags(tmp_path, base):
    """A page flagged by the kernel as following dropped events (count stored after the data)."""
    from trace_oracles import HAVE_TRACE_CMD as have_tc
    data = bytearray(base["bytes"])
    cpu, off, size = base["ranges"][1]
    commit = struct.unpack_from("<Q", data, off + 8)[0]
    assert commit + 8 <= base["page"] - 16
    struct.pack_into("<Q", data, off + 8, commit | (1 << 31) | (1 << 30))
    struct.pack_into("<Q", data, off + 16 + commit, 42)
    p = _write(tmp_path, bytes(data))
    ref = read_trace(base["path"], cache=False)
    t = read_trace(p, cache=False, strict=True)       # lost events are not decoding errors
    assert t.metadata["lost_events"] == 42
    assert t.skipped.entries["lost_event_pages"] == {"count": 1, "first": off, "detail": ""}
    for e in ref.events:
        assert t.df(e).equals(ref.df(e))
    if have_tc:
        import subprocess
        out = subprocess.run(["trace-cmd", "report", str(p)], capture_output=True, text=True).stdout
        assert "[42 EVENTS DROPPED]" in out
