"""Bad Perfetto input: hand-made packets (truncated, wrong wire types, absurd lengths,
unknown fields) and a fuzz test over the real systing trace, where only TraceError escapes
and strict mode names the byte offset."""
from __future__ import annotations

import random
import time

import pytest

from lisa_eas import TraceError, read_trace
from lisa_eas.trace._pbsmall import Msg
from lisa_eas.trace._trace import _sniff
from perfetto_oracle import SYSTING, unpack


def _idle_event(ts, state, cpu, extra=b""):
    ev = Msg().int(1, ts).int(2, 0)
    ev.bytes(13, Msg().int(1, state).int(2, cpu))
    ev.buf += extra
    return ev


def _bundle(cpu, events, extra=b""):
    b = Msg().int(1, cpu)
    for e in events:
        b.bytes(2, e)
    b.buf += extra
    return b


def _trace(bundles, packet_extra=b"") -> bytes:
    t = Msg()
    t.bytes(1, Msg().bytes(6, Msg().bytes(1, Msg().int(1, 6).int(2, 1000)).int(2, 6)))
    for b in bundles:
        p = Msg().int(8, 1000).int(10, 7).bytes(1, b)
        p.buf += packet_extra
        t.bytes(1, p)
    return bytes(t.buf)


def _write(tmp_path, data: bytes, name="t.pftrace"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_handmade_trace_reads(tmp_path):
    data = _trace([_bundle(1, [_idle_event(2000, 1, 1), _idle_event(3000, 4294967295, 1)])])
    trace = read_trace(_write(tmp_path, data), cache=False)
    idle = trace.df("cpu_idle")
    assert idle["state"].tolist() == [1, 4294967295] and idle["__cpu"].tolist() == [1, 1]
    assert idle["__ts"].tolist() == [2000, 3000]


def test_unknown_fields_are_ignored(tmp_path):
    unknown = Msg().int(900, 5).bytes(901, b"xyz").buf + b"\x9d\x38\x01\x02\x03\x04"  # fixed32
    plain = _trace([_bundle(0, [_idle_event(2000, 1, 0)])])
    noisy = _trace([_bundle(0, [_idle_event(2000, 1, 0, extra=unknown)], extra=unknown)],
                   packet_extra=unknown)
    a = read_trace(_write(tmp_path, plain, "a.pb"), cache=False)
    b = read_trace(_write(tmp_path, noisy, "b.pb"), cache=False)
    assert a.df("cpu_idle").equals(b.df("cpu_idle"))
    assert not b.skipped


def test_wrong_wire_type_drops_the_bundle(tmp_path):
    bad = _bundle(0, [_idle_event(2000, 1, 0)])
    bad.bytes(1, b"\x01")                         # cpu (varint) sent as bytes
    good = _bundle(1, [_idle_event(2500, 0, 1)])
    p = _write(tmp_path, _trace([bad, good]))
    trace = read_trace(p, cache=False)
    assert trace.df("cpu_idle")["__cpu"].tolist() == [1]
    assert trace.skipped.count("corrupt_ftrace_bundle") == 1
    assert "wrong_wire_type" in trace.skipped.entries["corrupt_ftrace_bundle"]["detail"]
    with pytest.raises(TraceError, match=r"byte offset \d+: corrupt_ftrace_bundle"):
        read_trace(p, cache=False, strict=True)


def test_wrong_wire_type_in_a_small_packet(tmp_path):
    """A process tree whose process (a message) is a varint: the packet is dropped and
    reported, never a reader error (found by the fuzz test on a faster run)."""
    good = _trace([_bundle(0, [_idle_event(2000, 1, 0)])])
    tree = Msg().int(1, 7)                              # ProcessTree { processes: 7 }
    p = _write(tmp_path, good + bytes(Msg().bytes(1, Msg().int(8, 1500).int(10, 7).bytes(2, tree)).buf))
    trace = read_trace(p, cache=False)
    assert trace.df("cpu_idle")["__ts"].tolist() == [2000]
    assert trace.skipped.count("corrupt_packet") == 1
    assert "wrong wire type" in trace.skipped.entries["corrupt_packet"]["detail"]
    with pytest.raises(TraceError, match=r"byte offset \d+: corrupt_packet"):
        read_trace(p, cache=False, strict=True)


def test_absurd_length_and_truncation(tmp_path):
    data = _trace([_bundle(0, [_idle_event(2000, 1, 0)]), _bundle(1, [_idle_event(2100, 1, 1)])])
    # absurd length in the last packet's header: the walk stops there
    cut = data[:-1]
    trace = read_trace(_write(tmp_path, cut, "cut.pb"), cache=False)
    assert trace.skipped.count("truncated_packet") == 1
    assert trace.df("cpu_idle")["__cpu"].tolist() == [0]
    with pytest.raises(TraceError, match=r"byte offset \d+: truncated_packet"):
        read_trace(_write(tmp_path, cut, "cut.pb"), cache=False, strict=True)
    absurd = b"\x0a\xff\xff\xff\xff\x0f" + b"\x00" * 10
    with pytest.raises(TraceError):
        read_trace(_write(tmp_path, absurd, "absurd.pb"), cache=False)


def test_compact_sched_inconsistent_columns(tmp_path):
    cs = Msg().bytes(5, "a").packed(1, b"\x05\x05").packed(2, b"\x01").packed(3, b"\x07\x08")
    cs.packed(4, b"\x78\x78").packed(6, b"\x00\x00")
    b = Msg().int(1, 0).bytes(4, cs)
    p = _write(tmp_path, _trace([b, _bundle(1, [_idle_event(2500, 0, 1)])]))
    trace = read_trace(p, cache=False)
    assert "sched_switch" not in trace.events
    assert "inconsistent_compact_sched" in trace.skipped.entries["corrupt_ftrace_bundle"]["detail"]


def test_compressed_packets(tmp_path):
    import zlib
    inner = _trace([_bundle(0, [_idle_event(2000, 1, 0)])])
    t = Msg().bytes(1, Msg().int(10, 1).bytes(50, zlib.compress(inner)))
    trace = read_trace(_write(tmp_path, bytes(t.buf)), cache=False)
    assert trace.df("cpu_idle")["state"].tolist() == [1]
    assert trace.metadata["compressed_packets"] == 1
    zstandard = pytest.importorskip("zstandard")
    z = Msg().bytes(1, Msg().int(10, 1).bytes(133, zstandard.ZstdCompressor().compress(inner)))
    trace = read_trace(_write(tmp_path, bytes(z.buf), "z.pb"), cache=False)
    assert trace.df("cpu_idle")["state"].tolist() == [1]
    bad = Msg().bytes(1, Msg().int(10, 1).bytes(50, b"\x78\x9cnot zlib"))
    bad.buf += t.buf
    trace = read_trace(_write(tmp_path, bytes(bad.buf), "bad.pb"), cache=False)
    assert trace.skipped.count("corrupt_compressed_packets") == 1
    assert len(trace.df("cpu_idle")) == 1


def test_fuzz_only_trace_errors(tmp_path):
    base = unpack(SYSTING, tmp_path).read_bytes()
    rng = random.Random(19)
    deadline = time.monotonic() + 8
    n = checked = 0
    while time.monotonic() < deadline:
        data = bytearray(base)
        kind = n % 4
        if kind == 0:       # bit flips
            for _ in range(rng.randint(1, 40)):
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
        elif kind == 1:     # truncation
            data = data[:rng.randrange(1, len(data))]
        elif kind == 2:     # spliced bytes
            i, j = sorted(rng.randrange(len(data)) for _ in range(2))
            data[i:i] = data[j:j + rng.randint(1, 4000)]
        else:               # absurd varints
            i = rng.randrange(len(data))
            data[i:i + 5] = b"\xff\xff\xff\xff\x7f"
        p = _write(tmp_path, bytes(data), f"f{n % 3}.pb")
        is_pf = _sniff(p) == "perfetto"
        for strict in (False, True):
            try:
                trace = read_trace(p, cache=False, strict=strict)
                for ev in trace.events:
                    trace.df(ev)
            except TraceError as exc:
                msg = str(exc)
                assert "please report" not in msg, msg      # a reader bug wrapped
                if strict and is_pf:
                    assert "byte offset" in msg or "no Perfetto packet" in msg, msg
            checked += is_pf
        n += 1
    assert n > 20 and checked > 10


def _print_event(ts, pid, text):
    return Msg().int(1, ts).int(2, pid).bytes(3, Msg().int(1, 0xFFFF).bytes(2, text))


def _generic_event(ts, pid, name, fields):
    g = Msg().bytes(1, name)
    for fname, kind, v in fields:
        f = Msg().bytes(1, fname)
        if kind == "s":
            f.bytes(3, v)
        else:
            f.int(4 if kind == "i" else 5, v)
        g.bytes(2, f)
    return Msg().int(1, ts).int(2, pid).bytes(327, g)


def test_atrace_markers_and_generic_events(tmp_path):
    """atrace markers stay in print; generic events (GKI vendor events) are decoded by field
    name, both when every event of a name has one layout and when layouts differ."""
    evs = [_print_event(2000, 42, "B|42|frame\n"), _print_event(2100, 42, "E|42\n"),
           _print_event(2200, 42, "C|42|queue|3\n"),
           _generic_event(2050, 7, "sched_pelt_se", [("cpu", "i", 1), ("util", "u", 300),
                                                     ("comm", "s", "rt-app")]),
           _generic_event(2150, 7, "sched_pelt_se", [("cpu", "i", -1), ("util", "u", 310),
                                                     ("comm", "s", "rt-app")]),
           _generic_event(2060, 8, "vendor_evt", [("a", "i", 5)]),
           _generic_event(2070, 8, "vendor_evt", [("a", "i", 6), ("b", "s", "x")])]
    trace = read_trace(_write(tmp_path, _trace([_bundle(2, evs)])), cache=False)
    pr = trace.df("print")
    assert pr["buf"].astype(str).tolist() == ["B|42|frame", "E|42", "C|42|queue|3"]
    assert pr["ip"].tolist() == [0xFFFF] * 3 and pr["__pid"].tolist() == [42] * 3
    pelt = trace.df("sched_pelt_se")
    assert pelt["cpu"].tolist() == [1, -1] and pelt["util"].tolist() == [300, 310]
    assert str(pelt["util"].dtype) == "uint64" and pelt["comm"].astype(str).tolist() == ["rt-app"] * 2
    assert pelt["__cpu"].tolist() == [2, 2] and pelt["__ts"].tolist() == [2050, 2150]
    v = trace.df("vendor_evt")
    assert v["a"].tolist() == [5, 6] and v["b"].astype(str).tolist() == ["", "x"]


def test_every_clock_snapshot_converts(tmp_path):
    """Two snapshots whose BOOTTIME -> MONOTONIC offsets differ (a suspend between them):
    each event is moved by the latest snapshot at or before it (the first one for earlier
    events), as trace_processor does. Worked by hand: snapshot 1 boot 1000 = mono 500
    (-500), snapshot 2 boot 10000 = mono 9000 (-1000)."""
    def snap(boot, mono):
        return Msg().bytes(6, Msg().bytes(1, Msg().int(1, 6).int(2, boot))
                           .bytes(1, Msg().int(1, 3).int(2, mono)).int(2, 3))
    t = Msg()
    t.bytes(1, snap(1000, 500))
    t.bytes(1, snap(10000, 9000))
    events = [_idle_event(ts, 1, 0) for ts in (400, 1000, 9999, 10000, 12000)]
    t.bytes(1, Msg().int(10, 7).bytes(1, _bundle(0, events)))
    trace = read_trace(_write(tmp_path, bytes(t.buf)), cache=False)
    # 9999 -> 9499 and 10000 -> 9000: the step between the snapshots reorders them
    assert trace.df("cpu_idle")["__ts"].tolist() == [-100, 500, 9000, 9499, 11000]
    meta = trace.metadata
    assert meta["clock"] == "mono" and meta["clock_snapshots"] == 2
    assert "latest clock snapshot at or before" in meta["clock_method"]


def test_a_damaged_generic_event_is_dropped_alone(tmp_path):
    """Generic events are decoded in one walk: a damaged one (its second field holds a field
    number 0, after a good first field) is dropped and reported, and the field rows it began
    to write do not leak into the next event's columns."""
    bad = Msg().bytes(1, "vendor_evt").bytes(2, Msg().bytes(1, "a").int(4, 99)) \
        .bytes(2, bytes(Msg().bytes(1, "b").buf) + b"\x00")
    evs = [_generic_event(2050, 7, "vendor_evt", [("a", "i", 1), ("b", "i", 2)]),
           Msg().int(1, 2060).int(2, 7).bytes(327, bad),
           _generic_event(2070, 7, "vendor_evt", [("a", "i", 3), ("b", "i", 4)])]
    p = _write(tmp_path, _trace([_bundle(1, evs)]))
    trace = read_trace(p, cache=False)
    v = trace.df("vendor_evt")
    assert v["a"].tolist() == [1, 3] and v["b"].tolist() == [2, 4]
    assert v["__ts"].tolist() == [2050, 2070]
    assert trace.skipped.count("corrupt_generic_event") == 1
    with pytest.raises(TraceError, match=r"byte offset \d+: corrupt_generic_event"):
        read_trace(p, cache=False, strict=True)


def test_a_typed_event_written_generic_keeps_the_kernel_widths(tmp_path):
    """A kernel whose sched_process_exit has a field the proto lacks (``group_dead``, 6.x) is
    written as a generic event; its integers carry no width there, and come back at the
    trace.dat types (pid/prio int32 as the typed proto's columns, group_dead uint8: bool in
    the kernel's format). A value that does not fit the width keeps the decoded type."""
    evs = [_generic_event(3000, 5, "sched_process_exit", [("comm", "s", "sh"), ("pid", "i", 77),
                                                          ("prio", "i", 120), ("group_dead", "u", 1)]),
           _generic_event(3100, 5, "sched_process_exit", [("comm", "s", "sh"), ("pid", "i", 78),
                                                          ("prio", "i", 120), ("group_dead", "u", 0)]),
           _generic_event(3200, 5, "sched_pi_setprio", [("comm", "s", "x"), ("pid", "i", 1 << 40),
                                                        ("oldprio", "i", 1), ("newprio", "i", 2)])]
    trace = read_trace(_write(tmp_path, _trace([_bundle(0, evs)])), cache=False)
    ex = trace.df("sched_process_exit")
    assert {c: str(ex[c].dtype) for c in ("pid", "prio", "group_dead")} == \
        {"pid": "int32", "prio": "int32", "group_dead": "uint8"}
    assert ex["pid"].tolist() == [77, 78] and ex["group_dead"].tolist() == [1, 0]
    pi = trace.df("sched_pi_setprio")
    assert str(pi["pid"].dtype) == "int64" and pi["pid"].tolist() == [1 << 40]
    assert str(pi["oldprio"].dtype) == "int32"
