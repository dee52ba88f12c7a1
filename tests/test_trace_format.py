"""Event format parsing on real tracefs format files (Pixel 6, 5.10 GKI kernel)."""
from __future__ import annotations

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


@pytest.mark.parametrize("big", [False, True])
def test_gather_col_sizes_signs_alignments(big):
    """Integer field decoding: every size and sign, aligned and not, both endiannesses."""
    import numpy as np
    from lisa_eas.trace import _decode

    e = ">" if big else "<"
    vals = {(1, True): -5, (1, False): 250, (2, True): -300, (2, False): 65000,
            (4, True): -7, (4, False): 4_000_000_000, (8, True): -(1 << 40),
            (8, False): (1 << 64) - 3}
    codes = {1: "b", 2: "h", 4: "i", 8: "q"}
    for (size, signed), v in vals.items():
        for fo in (4, 8, 5, 6):          # aligned and misaligned field offsets
            rec = bytearray(32)
            code = codes[size] if signed else codes[size].upper()
            rec[fo:fo + size] = np.array([v]).astype(np.dtype(e + code.lower() if signed else
                                                              e + {"B": "u1", "H": "u2", "I": "u4",
                                                                   "Q": "u8"}[code])).tobytes()
            buf = np.frombuffer(bytes(rec) * 3, np.uint8).copy()
            offs = np.array([0, 32, 64], np.int64)
            lens = np.array([32, 32, fo + size - 1], np.int64)   # last record too short
            dt = {(1, True): np.int8, (1, False): np.uint8, (2, True): np.int16,
                  (2, False): np.uint16, (4, True): np.int32, (4, False): np.uint32,
                  (8, True): np.int64, (8, False): np.uint64}[(size, signed)]
            out = np.empty(3, dt)
            bad = _decode.gather_col(buf, *_decode.word_views(buf), offs, lens, fo, size, signed,
                                     big, out)
            assert bad == 1 and out[2] == 0
            assert int(out[0]) == v and int(out[1]) == v, (size, signed, fo)


def test_intern_short_equals_intern_strings():
    """The word-wise interning of comms gives the same strings and codes as the byte-wise one."""
    import numpy as np
    from lisa_eas.trace import _decode

    rng = np.random.default_rng(3)
    n = 5000
    names = [rng.choice(np.array(list(b"ab\0"), np.uint8), size=rng.integers(0, 17)).tobytes()
             for _ in range(40)]
    buf = np.zeros(n * 20 + 16, np.uint8)
    starts = np.arange(n, dtype=np.int64) * 20
    for i, s in enumerate(starts):
        raw = names[rng.integers(len(names))]
        buf[s:s + len(raw)] = np.frombuffer(raw, np.uint8)
        buf[s + len(raw):s + 16] = rng.integers(0, 256, 16 - len(raw))   # garbage after it
    lens = rng.integers(0, 17, n).astype(np.int64)
    c1 = np.empty(n, np.int32)
    c2 = np.empty(n, np.int32)
    r1 = _decode.intern_strings(buf, starts, lens, True, False, c1)
    r2 = _decode.intern_short(_decode.word_views(buf)[1], starts, lens, c2)
    t1 = [bytes(buf[s:s + l]) for s, l in zip(*r1)]
    t2 = [bytes(buf[s:s + l]) for s, l in zip(*r2)]
    assert [t1[c] for c in c1] == [t2[c] for c in c2]
    assert len(set(t2)) == len(t2)
