"""Event format parsing on real tracefs format files (Pixel 6, 5.10 GKI kernel)."""
from __future__ import annotations

import struct

import pytest

from lisa_eas import TraceError
from lisa_eas.trace._format import (BIN_TAIL, INT, STR_FIXED, STR_LOC, STR_TAIL, parse_format,
                                    parse_header_page)
from trace_oracles import TRACES

FORMATS = TRACES / "formats" / "raven_pixel6_5.10.43"


def _fmt(name):
    return parse_format((FORMATS / f"{name}.format").read_text(), name.split("_")[0])


def test_print_bprint_tails():
    p = _fmt("ftrace_print")
    assert (p.name, p.field("buf").kind, p.field("buf").offset) == ("print", STR_TAIL, 16)
    b = _fmt("ftrace_bprint")
    assert b.field("buf").kind == BIN_TAIL and b.field("fmt").kind == INT
    assert b.field("fmt").size == 8 and not b.field("fmt").signed


def test_macro_array_dimension_and_signedness():
    f = _fmt("sched_sched_overutilized")
    span = f.field("span")
    assert (span.kind, span.offset, span.size) == (STR_FIXED, 12, 8)
    over = f.field("overutilized")
    assert (over.kind, over.size, over.signed) == (INT, 4, True)
    assert f.min_size == 20


def test_data_loc_and_switch_layout():
    c = _fmt("power_clock_enable")
    assert c.field("name").kind == STR_LOC and c.field("name").size == 4
    s = _fmt("sched_sched_switch")
    assert [x.name for x in s.payload_fields] == ["prev_comm", "prev_pid", "prev_prio",
                                                  "prev_state", "next_comm", "next_pid",
                                                  "next_prio"]
    assert s.field("prev_state").size == 8 and s.field("prev_state").signed


def test_header_page():
    hp = parse_header_page((FORMATS / "header_page").read_text())
    assert hp["timestamp"] == (0, 8) and hp["commit"][1] == 8 and hp["data"][0] == 16


def test_bad_format_text():
    with pytest.raises(TraceError, match="name/ID"):
        parse_format("format:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n")
    f = parse_format("name: old\nID: 3\nformat:\n\tfield:unsigned int x;\toffset:8;\tsize:4;\n"
                     "\tfield:int y;\toffset:12;\tsize:4;\n")
    assert not f.field("x").signed and f.field("y").signed     # no "signed:" on old kernels


def _one_page(records, big: bool) -> bytes:
    """A ring-buffer page (u64 time stamp, u64 commit) of records given as payload bytes
    (the length word form, so any payload length)."""
    e = ">" if big else "<"
    body = b""
    for payload in records:
        head = (0 << 27 | 1) if big else (1 << 5 | 0)      # type_len 0, delta 1
        body += struct.pack(e + "II", head, len(payload) + 4) + payload
        body += bytes(-len(payload) % 4)
    return struct.pack(e + "QQ", 1000, len(body)) + body + bytes(4096 - 16 - len(body))


@pytest.mark.parametrize("big", [False, True])
def test_decode_pages_int_sizes_signs_alignments(big):
    """Integer field decoding: every size and sign, aligned and not, both endiannesses;
    a record too short for the field gets 0 and is counted."""
    import numpy as np
    from lisa_eas.trace import _decode, _stream

    e = ">" if big else "<"
    vals = {(1, True): -5, (1, False): 250, (2, True): -300, (2, False): 65000,
            (4, True): -7, (4, False): 4_000_000_000, (8, True): -(1 << 40),
            (8, False): (1 << 64) - 3}
    kinds = {1: "i1", 2: "i2", 4: "i4", 8: "i8"}
    for (size, signed), v in vals.items():
        dt = np.dtype(e + (kinds[size] if signed else kinds[size].replace("i", "u")))
        for fo in (8, 12, 9, 10):          # aligned and misaligned field offsets
            rec = bytearray(32)
            rec[0:2] = struct.pack(e + "H", 1)           # common_type
            rec[fo:fo + size] = np.array([v]).astype(dt).tobytes()
            buf = np.frombuffer(_one_page([bytes(rec), bytes(rec), bytes(rec[:fo + size - 1])],
                                          big), np.uint8).copy()
            n = 3
            arena = np.zeros(8 * 8 * n, np.uint8)
            a16, a32, a64 = arena.view(np.uint16), arena.view(np.uint32), arena.view(np.uint64)
            slots = np.array([[0, 8 * n, 16 * n, 20 * n, 0, 1]], np.int64)
            fields = np.array([[_stream.K_INT, fo, size, 24 * n, 0]], np.int64)
            lookup = np.full(65536, -1, np.int64)
            lookup[1] = 0
            bad = np.zeros(1, np.int64)
            diag = np.zeros((_stream.NDIAG, 2), np.int64)
            got = _stream.decode_pages(buf, *_decode.word_views(buf), 0, len(buf), 4096, 0, 8,
                                       8, 16, big, 0, 2, 4, 0, 0, 0,
                                       np.arange(n, dtype=np.int32), lookup, slots, fields,
                                       arena, a16, a32, a64, a64.view(np.int64),
                                       a64.view(np.float64), bad, *_stream.new_interner(), diag)
            assert got == n and not diag.any()
            out = arena[24 * n:24 * n + size * n].view(dt.newbyteorder("="))
            assert bad[0] == 1 and out[2] == 0
            assert int(out[0]) == v and int(out[1]) == v, (size, signed, fo)


