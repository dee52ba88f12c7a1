"""numba kernels of lisa_eas/trace/_stream.py (index pass, ranks, decode pass, code
renumbering) against their plain-Python twins (tests/reference/ref_trace_stream.py, on top
of the twin page walk of ref_trace_decode.py), exactly: every record of the real traces in
tests/data/traces, synthetic pages with every kind of record, and mutated pages."""
from __future__ import annotations

import random
import struct

import numpy as np
import pytest

from lisa_eas.trace import _decode, _stream
from lisa_eas.trace._datfile import open_dat
from lisa_eas.trace._datread import _Layout
from reference import ref_trace_stream as ref
from trace_oracles import DAT_NAMES, dat_layout, unpack_dat


@pytest.fixture(scope="module")
def dats(tmp_path_factory):
    d = tmp_path_factory.mktemp("stream_twin")
    return {name: open_dat(unpack_dat(name, d)) for name in DAT_NAMES}


def _args(lay):
    return (lay["page_size"], lay["ts_off"], lay["commit_off"], lay["commit_size"],
            lay["data_off"], lay["big"], lay["type_off"], lay["type_size"], lay["pid_off"])


def _kernel_index(buf, start, size, lay, n0, ts, ids):
    diag = np.zeros((_stream.NDIAG, 2), np.int64)
    n = _stream.index_pages(buf, *_decode.word_views(buf), start, size, *_args(lay), n0, ts,
                            ids, diag)
    return int(n), diag.tolist()


def _assert_index_equal(buf, start, size, lay, capacity):
    """index_pages == twin walk: records, stored (ts, id), diag; returns the records."""
    ts = np.zeros(capacity, np.int64)
    ids = np.zeros(capacity, np.int32)
    n, diag = _kernel_index(buf, start, size, lay, 0, ts, ids)
    want_n, want_recs, want_diag = ref.index_pages(bytes(buf), start, size, lay, capacity)
    assert n == want_n, "records"
    assert diag == want_diag, "diag"
    stored = min(n, capacity)
    assert list(zip(ts[:stored].tolist(), ids[:stored].tolist())) == want_recs, "records"
    return want_recs


def _arena(slot_fields, rows):
    """Byte offsets of (ts, time, cpu, pid, first field, end field) per slot and the
    fields table, for the kernel; the total size."""
    at = 0
    slots, fields = [], []
    for fl, n in zip(slot_fields, rows):
        base = []
        for width in (8, 8, 4, 4):
            base.append(at)
            at += -(-width * n // 8) * 8
        first = len(fields)
        for kind, fo, fsz, rel in fl:
            width = fsz if kind == ref.K_INT else 8 if kind == ref.K_OFF else 4
            fields.append((kind, fo, fsz, at, rel))
            at += -(-width * n // 8) * 8
        slots.append(base + [first, len(fields)])
    return (np.array(slots, np.int64).reshape(-1, 6), np.array(fields, np.int64).reshape(-1, 5),
            max(8, at))


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _kernel_decode(buf, ranges, lay, dest, slot_of_id, slot_fields, rows, ts_add, capacity):
    """Decode ``ranges`` [(cpu, start, size)] like the reader (growing the string table
    from ``capacity`` when it fills up); returns (records per range, {(slot, row): values},
    bad {(slot, field): n}, diag rows, interned strings)."""
    slots, fields, total = _arena(slot_fields, rows)
    arena = np.zeros(total, np.uint8)
    a16, a32, a64 = arena.view(np.uint16), arena.view(np.uint32), arena.view(np.uint64)
    lookup = np.full(65536, _stream.UNWANTED_ROW, np.int64)
    for eid, s in slot_of_id.items():
        lookup[eid] = s
    interner = _stream.new_interner(capacity)
    views = _decode.word_views(buf)
    bad = np.zeros(max(1, len(fields)), np.int64)
    diag = np.zeros((_stream.NDIAG, 2), np.int64)
    counts = []
    n0 = 0
    grown = 0
    for cpu, start, size in ranges:
        while True:
            cbad = np.zeros_like(bad)
            cdiag = np.zeros_like(diag)
            got = _stream.decode_pages(buf, *views, start, size, *_args(lay), n0, ts_add, cpu,
                                       dest, lookup, slots, fields, arena, a16, a32, a64,
                                       a64.view(np.int64), a64.view(np.float64), cbad,
                                       *interner, cdiag)
            if got >= 0:
                break
            interner = _stream.grow_interner(interner)
            grown += 1
        bad += cbad
        first = (diag[:, 0] == 0) & (cdiag[:, 0] != 0)
        diag[first, 1] = cdiag[first, 1]
        diag[:, 0] += cdiag[:, 0]
        counts.append(int(got))
        n0 += int(got)
    out = {}
    for s, fl in enumerate(slot_fields):
        n = rows[s]
        o = slots[s]
        cols = [arena[o[0]:o[0] + 8 * n].view(np.int64), arena[o[1]:o[1] + 8 * n].view(np.float64),
                arena[o[2]:o[2] + 4 * n].view(np.uint32), arena[o[3]:o[3] + 4 * n].view(np.uint32)]
        for k in range(o[4], o[5]):
            kind, _, fsz, base, _ = fields[k]
            dt = _UNSIGNED[fsz] if kind == ref.K_INT else np.uint64 if kind == ref.K_OFF \
                else np.uint32
            cols.append(arena[base:base + np.dtype(dt).itemsize * n].view(dt))
        for d in range(n):
            out[s, d] = [c[d].item() for c in cols]
    bad_d = {(s, k - slots[s, 4]): int(bad[k]) for s in range(len(slot_fields))
             for k in range(slots[s, 4], slots[s, 5]) if bad[k]}
    k = int(interner[5][0])
    strings = [bytes(buf[a:a + n]) for a, n in zip(interner[1][:k].tolist(),
                                                    interner[2][:k].tolist())]
    return counts, out, bad_d, diag.tolist(), strings, grown


def _twin_decode(data, ranges, lay, dest, slot_of_id, slot_fields, ts_add):
    interned: dict = {}
    out, bad = {}, {}
    diag = [[0, 0] for _ in range(_stream.NDIAG)]
    counts = []
    n0 = 0
    for cpu, start, size in ranges:
        n, o, b, dg = ref.decode_pages(data, start, size, lay, n0, ts_add, cpu, dest,
                                       slot_of_id, slot_fields, interned)
        out.update(o)
        for key, v in b.items():
            bad[key] = bad.get(key, 0) + v
        for k in range(len(diag)):
            if diag[k][0] == 0 and dg[k][0]:
                diag[k][1] = dg[k][1]
            diag[k][0] += dg[k][0]
        counts.append(n)
        n0 += n
    return counts, out, bad, diag, list(interned)


def _assert_decode_equal(buf, ranges, lay, dest, slot_of_id, slot_fields, rows, ts_add,
                         capacity=256):
    got = _kernel_decode(buf, ranges, lay, np.asarray(dest, np.int32), slot_of_id,
                         slot_fields, rows, ts_add, capacity)
    want = _twin_decode(bytes(buf), ranges, lay, dest, slot_of_id, slot_fields, ts_add)
    assert got[0] == want[0], "records per range"
    assert got[3] == want[3], "diag"
    assert got[4] == want[4], "interned strings"
    assert got[2] == want[2], "short fields"
    assert got[1] == want[1], "columns"
    return got


# -- real traces ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", DAT_NAMES)
def test_index_ranks_decode_real_trace(dats, name):
    """Every record of every CPU, every field of every event, rows from the time order."""
    dat = dats[name]
    lay = dat_layout(dat)
    buf = dat.data
    recs = []
    bounds = [0]
    for cpu, start, size in dat.cpu_ranges:
        recs += _assert_index_equal(buf, start, size, lay, size // 12 + 16)
        bounds.append(len(recs))
    assert len(recs) > 10
    ts = np.array([r[0] for r in recs], np.int64)
    ids = np.array([r[1] for r in recs], np.int32)
    perm, ok = _decode.time_order(ts, np.array(bounds, np.int64))
    assert ok
    present = sorted(set(ids.tolist()))
    fmts = [dat.get_format(e) for e in present]
    slot_of_id = {e: s for s, e in enumerate(present)}
    lookup = np.full(65536, _stream.UNWANTED_ROW, np.int64)
    for e, s in slot_of_id.items():
        lookup[e] = s
    if any(f is None for f in fmts):        # keep the reader's rule: no format -> unknown
        for e, f in zip(present, fmts):
            if f is None:
                lookup[e] = _stream.UNKNOWN_ROW
    dest = ids.copy()
    counts, other, rows = _stream.event_ranks(perm, dest, lookup)
    want_dest, want_counts, want_other, want_rows = ref.event_ranks(
        perm.tolist(), ids.tolist(), {e: int(lookup[e]) for e in present})
    assert dest.tolist() == want_dest
    assert {int(e): int(counts[e]) for e in np.flatnonzero(counts)} == want_counts
    assert (int(other), {s: int(n) for s, n in enumerate(rows) if n}) == (want_other,
                                                                           want_rows)
    # the reader's own layout of the decoded fields (ints, char[N], __data_loc, offsets)
    known = [(e, f) for e, f in zip(present, fmts) if f is not None]
    lay_cols = _Layout([f for _, f in known],
                       np.array([rows[slot_of_id[e]] for e, _ in known]))
    slot_fields = []
    for s in range(len(known)):
        a, b = lay_cols.slots[s, 4], lay_cols.slots[s, 5]
        slot_fields.append([(int(k), int(fo), int(fs), int(rel))
                            for k, fo, fs, _, rel in lay_cols.fields[a:b]])
    slot_of_known = {e: i for i, (e, _) in enumerate(known)}
    ranges = list(dat.cpu_ranges)
    got = _assert_decode_equal(buf, ranges, lay, dest, slot_of_known, slot_fields,
                               [int(rows[slot_of_id[e]]) for e, _ in known], 12345,
                               capacity=2)
    assert got[5] > 0, "the string table was grown and the pages decoded again"
    assert any(k[0] in (ref.K_STR, ref.K_LOC) for f in slot_fields for k in f)


def test_first_appearance_random():
    rng = np.random.default_rng(21)
    for case in range(40):
        k = int(rng.integers(1, 30))
        codes = rng.integers(0, k, int(rng.integers(0, 400))).astype(np.int32)
        want, order = ref.first_appearance(codes.tolist())
        got_order = _stream.first_appearance(codes, k)
        assert (codes.tolist(), got_order.tolist()) == (want, order)


def test_event_ranks_random():
    rng = np.random.default_rng(3)
    for case in range(60):
        n = int(rng.integers(0, 300))
        ids = rng.integers(0, 8, n).astype(np.int32)
        ids[::11] = -5
        ids[::13] = 70000
        order = rng.permutation(n).astype(np.int32)
        slot_of_id = {0: 1, 1: 0, 2: 2, 3: -1, 4: -2, 5: 3, 6: -1, 7: 4}
        lookup = np.full(65536, -1, np.int64)
        for e, s in slot_of_id.items():
            lookup[e] = s
        dest = ids.copy()
        counts, other, rows = _stream.event_ranks(order, dest, lookup)
        want_dest, want_counts, want_other, want_rows = ref.event_ranks(order.tolist(),
                                                                        ids.tolist(), slot_of_id)
        assert dest.tolist() == want_dest
        assert {int(e): int(counts[e]) for e in np.flatnonzero(counts)} == want_counts
        assert int(other) == want_other
        assert {s: int(r) for s, r in enumerate(rows) if r} == want_rows


# -- synthetic and mutated pages -------------------------------------------------------------

def _synthetic_pages(rng: random.Random, big: bool, commit_size: int, npages: int,
                     page_size: int = 256):
    """Pages with data records of both length encodings, time extends, absolute time stamps,
    padding (with and without length), lost-event flags and stored lost counts."""
    e = ">" if big else "<"
    out = bytearray()

    def head(type_len, delta):
        word = (type_len << 27 | delta) if big else (delta << 5 | type_len)
        return struct.pack(e + "I", word)

    data_off = 8 + commit_size
    for _ in range(npages):
        body = bytearray()
        while True:
            kind = rng.choice("dddDxaPp")
            delta = rng.choice((0, 1, rng.randrange(1 << 27)))
            if kind == "d":     # type_len 1..28
                words = rng.randrange(2, 8)
                rec = head(words, delta) + struct.pack(e + "HBBi", rng.randrange(8), 0, 0,
                                                       rng.randrange(-5, 1 << 31))
                rec += bytes(rng.randrange(256) for _ in range(4 * words - 8))
            elif kind == "D":   # type_len 0, length word
                plen = rng.randrange(8, 40)
                rec = head(0, delta) + struct.pack(e + "I", plen + 4)
                rec += struct.pack(e + "HBBi", rng.randrange(8), 0, 0, rng.randrange(1 << 31))
                rec += bytes(rng.randrange(256) for _ in range(plen - 8))
                rec += bytes((-plen) % 4)
            elif kind == "x":
                rec = head(30, delta) + struct.pack(e + "I", rng.randrange(1 << 32))
            elif kind == "a":
                rec = head(31, delta) + struct.pack(e + "I", rng.randrange(1 << 32))
            elif kind == "P":
                pad = 4 * rng.randrange(0, 4)
                rec = head(29, delta or 1) + struct.pack(e + "I", pad + 4) + bytes(pad + 4)
            else:
                rec = head(29, 0)
            if len(body) + len(rec) > page_size - data_off - 8:
                break
            body += rec
            if kind == "p":
                break
        flags = rng.choice((0, 0, 1 << 31, 3 << 30))
        ts = rng.randrange(1 << 63) if rng.random() < 0.2 else rng.randrange(1 << 40)
        page = struct.pack(e + "Q", ts) + struct.pack(e + ("I" if commit_size == 4 else "Q"),
                                                      len(body) | flags)
        page += body
        if flags & (1 << 30):
            page += struct.pack(e + ("I" if commit_size == 4 else "Q"), rng.randrange(1000))
        page += bytes(page_size - len(page))
        out += page
    return np.frombuffer(bytes(out), np.uint8).copy()


def _synthetic_layout(big, commit_size, page_size=256):
    return dict(page_size=page_size, ts_off=0, commit_off=8, commit_size=commit_size,
                data_off=8 + commit_size, big=big, type_off=0, type_size=2, pid_off=4)


def _mutate(rng: random.Random, buf: np.ndarray, page_size: int) -> np.ndarray:
    buf = buf.copy()
    for _ in range(rng.randrange(1, 6)):
        how = rng.random()
        if how < 0.4:               # bit flip anywhere
            i = rng.randrange(len(buf))
            buf[i] ^= np.uint8(1 << rng.randrange(8))
        elif how < 0.7:             # random byte in a page header
            page = rng.randrange(max(1, len(buf) // page_size)) * page_size
            i = min(len(buf) - 1, page + rng.randrange(16))
            buf[i] = rng.randrange(256)
        else:                        # splice one page onto another
            npg = len(buf) // page_size
            if npg >= 2:
                a, b = rng.randrange(npg), rng.randrange(npg)
                buf[a * page_size:(a + 1) * page_size] = buf[b * page_size:(b + 1) * page_size]
    return buf


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("commit_size", [4, 8])
def test_index_pages_synthetic(big, commit_size):
    rng = random.Random(1000 * big + commit_size)
    lay = _synthetic_layout(big, commit_size)
    for case in range(40):
        buf = _synthetic_pages(rng, big, commit_size, rng.randrange(1, 12))
        cut = rng.randrange(len(buf) // 2, len(buf) + 1)
        recs = _assert_index_equal(buf, 0, cut, lay, 1 << 12)
        _assert_index_equal(buf, 0, cut, lay, 3)     # capacity smaller: counted, not stored
        if case == 0:
            assert recs


# Synthetic events (ids 0..7 in the synthetic records): fields of every kind, sizes and
# alignments, strings fixed, __data_loc and __rel_loc; id 6 not wanted, id 7 unknown.
_SLOT_FIELDS = [
    [(ref.K_INT, 4, 4, 0), (ref.K_INT, 8, 8, 0), (ref.K_INT, 6, 2, 0), (ref.K_INT, 9, 1, 0)],
    [(ref.K_STR, 4, 16, 0), (ref.K_INT, 12, 8, 0), (ref.K_INT, 5, 4, 0), (ref.K_LEN, 0, 4, 0)],
    [(ref.K_LOC, 4, 4, 0), (ref.K_STR, 2, 5, 0), (ref.K_OFF, 0, 8, 0), (ref.K_INT, 30, 8, 0)],
    [(ref.K_LOC, 8, 4, 1), (ref.K_STR, 8, 24, 0), (ref.K_INT, 2, 2, 0)],
    [],
    [(ref.K_INT, 0, 2, 0), (ref.K_STR, 0, 3, 0)],
]
_SYNTH_SLOTS = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5}


def _synthetic_decode(buf, lay, ranges, capacity):
    recs = []
    for _, start, size in ranges:
        recs += ref.index_pages(bytes(buf), start, size, lay, 1 << 30)[1]
    order = sorted(range(len(recs)), key=lambda i: recs[i][0])
    lookup = dict(_SYNTH_SLOTS)
    lookup.update({6: ref.UNWANTED_ROW, 7: ref.UNKNOWN_ROW})
    dest, _, _, rows = ref.event_ranks(order, [r[1] for r in recs], lookup)
    _assert_decode_equal(buf, ranges, lay, dest, _SYNTH_SLOTS, _SLOT_FIELDS,
                         [rows.get(s, 0) for s in range(len(_SLOT_FIELDS))],
                         -(1 << 40), capacity)


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("commit_size", [4, 8])
def test_decode_pages_synthetic(big, commit_size):
    rng = random.Random(2000 + 10 * big + commit_size)
    lay = _synthetic_layout(big, commit_size)
    for case in range(25):
        buf = _synthetic_pages(rng, big, commit_size, rng.randrange(1, 10))
        half = (len(buf) // 2) // 256 * 256
        ranges = [(0, 0, half), (3, half, len(buf) - half)] if case % 2 else [(1, 0, len(buf))]
        _synthetic_decode(buf, lay, ranges, 1 + case % 3)


@pytest.mark.parametrize("name", DAT_NAMES)
def test_index_pages_mutated_real_pages(dats, name):
    dat = dats[name]
    lay = dat_layout(dat)
    ps = lay["page_size"]
    rng = random.Random(name)
    cpu, start, size = max(dat.cpu_ranges, key=lambda r: r[2])
    for _ in range(25):
        npg = rng.randrange(1, 4)
        first = start + ps * rng.randrange(max(1, size // ps - npg))
        region = _mutate(rng, dat.data[first:first + npg * ps].copy(), ps)
        cut = len(region) - (rng.randrange(ps) if rng.random() < 0.3 else 0)
        _assert_index_equal(region, 0, cut, lay, 1 << 12)


def test_index_and_decode_mutated_synthetic():
    rng = random.Random(7)
    for case in range(150):
        big = case % 2 == 1
        commit_size = 8 if case % 4 < 2 else 4
        lay = _synthetic_layout(big, commit_size)
        buf = _mutate(rng, _synthetic_pages(rng, big, commit_size, rng.randrange(1, 5)), 256)
        _assert_index_equal(buf, 0, len(buf), lay, 1 << 12)
        _synthetic_decode(buf, lay, [(0, 0, len(buf))], 4)
