"""numba kernels of lisa_eas/trace/_decode.py against their plain-Python twins
(tests/reference/ref_trace_decode.py), exactly: pages of the real traces in
tests/data/traces, synthetic pages with every kind of record, and mutated pages."""
from __future__ import annotations

import random
import struct

import numpy as np
import pytest

from lisa_eas.trace import _decode
from lisa_eas.trace._datfile import open_dat
from lisa_eas.trace._format import INT, STR_FIXED, STR_LOC
from reference import ref_trace_decode as ref
from trace_oracles import DAT_NAMES, unpack_dat

_INT_DTYPES = {(1, True): np.int8, (2, True): np.int16, (4, True): np.int32, (8, True): np.int64,
               (1, False): np.uint8, (2, False): np.uint16, (4, False): np.uint32,
               (8, False): np.uint64}


@pytest.fixture(scope="module")
def dats(tmp_path_factory):
    d = tmp_path_factory.mktemp("twin")
    return {name: open_dat(unpack_dat(name, d)) for name in DAT_NAMES}


def _layout(dat):
    hp = dat.header_page
    fmt0 = dat.any_format()
    tf, pf = fmt0.field("common_type"), fmt0.field("common_pid")
    return dict(page_size=dat.page_size, ts_off=hp["timestamp"][0], commit_off=hp["commit"][0],
                commit_size=hp["commit"][1], data_off=hp["data"][0], big=dat.big_endian,
                type_off=tf.offset, type_size=tf.size, pid_off=pf.offset)


def _kernel_walk(buf, starts, sizes, lay, capacity):
    starts = np.asarray(starts, np.int64)
    sizes = np.asarray(sizes, np.int64)
    outs = (np.zeros(capacity, np.int64), np.zeros(capacity, np.int64),
            np.zeros(capacity, np.int32), np.zeros(capacity, np.int32),
            np.zeros(capacity, np.int32), np.zeros(capacity, np.int32))
    diag = np.zeros((_decode.NDIAG, 2), np.int64)
    counts = _decode.walk_pages(buf, *_decode.word_views(buf), starts, sizes, lay["page_size"],
                                lay["ts_off"], lay["commit_off"], lay["commit_size"],
                                lay["data_off"], lay["big"], lay["type_off"], lay["type_size"],
                                lay["pid_off"], capacity > 0, *outs, diag)
    n = min(int(counts.sum()), capacity)
    records = list(zip(*(o[:n].tolist() for o in outs)))
    return counts.tolist(), records, diag.tolist()


def _assert_walk_equal(buf, starts, sizes, lay, capacity):
    got = _kernel_walk(buf, starts, sizes, lay, capacity)
    want = ref.walk_pages(bytes(buf), list(starts), list(sizes), lay["page_size"], lay["ts_off"],
                          lay["commit_off"], lay["commit_size"], lay["data_off"], lay["big"],
                          lay["type_off"], lay["type_size"], lay["pid_off"], capacity)
    assert got[0] == want[0], "records per range"
    assert got[2] == want[2], "diag"
    assert got[1] == want[1], "records"
    return got


# -- real traces --------------------------------------------------------------------------

@pytest.mark.parametrize("name", DAT_NAMES)
def test_walk_pages_real_trace(dats, name):
    dat = dats[name]
    lay = _layout(dat)
    buf = dat.data
    starts = [r[1] for r in dat.cpu_ranges]
    sizes = [r[2] for r in dat.cpu_ranges]
    counts, records, _ = _assert_walk_equal(buf, starts, sizes, lay, sum(sizes) // 12 + 16)
    assert sum(counts) == len(records) > 10
    # a capacity smaller than the records: counted, not stored
    _assert_walk_equal(buf, starts, sizes, lay, 100)


@pytest.mark.parametrize("name", DAT_NAMES)
def test_field_decoding_real_trace(dats, name):
    """Every integer, __data_loc and char[] field of every event, and the comm interning."""
    dat = dats[name]
    lay = _layout(dat)
    buf = dat.data
    data = bytes(buf)
    starts = [r[1] for r in dat.cpu_ranges]
    sizes = [r[2] for r in dat.cpu_ranges]
    _, records, _ = _kernel_walk(buf, starts, sizes, lay, sum(sizes) // 12 + 16)
    by_id: dict = {}
    for rec in records:
        by_id.setdefault(rec[3], []).append(rec)
    views = _decode.word_views(buf)
    checked = 0
    for eid, recs in sorted(by_id.items()):
        fmt = dat.get_format(eid)
        if fmt is None:
            continue
        recs = recs[:3000]
        offs = np.array([r[1] for r in recs], np.int64)
        lens = np.array([r[2] for r in recs], np.int64)
        for f in fmt.payload_fields:
            if f.kind == INT:
                col = np.empty(len(offs), _INT_DTYPES[(f.size, f.signed)])
                bad = _decode.gather_col(buf, *views, offs, lens, f.offset, f.size, f.signed,
                                         lay["big"], col)
                want, want_bad = ref.gather_col(data, offs.tolist(), lens.tolist(), f.offset,
                                                f.size, f.signed, lay["big"])
                assert (col.tolist(), bad) == (want, want_bad), (fmt.name, f.name)
                col64 = np.empty(len(offs), np.uint64)
                bad = _decode.gather_int(buf, offs, lens, f.offset, f.size, False, lay["big"],
                                         col64)
                want, want_bad = ref.gather_int(data, offs.tolist(), lens.tolist(), f.offset,
                                                f.size, False, lay["big"])
                assert (col64.tolist(), bad) == (want, want_bad), (fmt.name, f.name)
                checked += 1
            elif f.kind == STR_LOC:
                st = np.empty(len(offs), np.int64)
                sl = np.empty(len(offs), np.int64)
                bad = _decode.loc_spans(buf, *views, offs, lens, f.offset, f.relative,
                                        lay["big"], st, sl)
                want = ref.loc_spans(data, offs.tolist(), lens.tolist(), f.offset, f.relative,
                                     lay["big"])
                assert (st.tolist(), sl.tolist(), bad) == want, (fmt.name, f.name)
                _check_intern(buf, st, sl, True, False)
                checked += 1
            elif f.kind == STR_FIXED:
                st = offs + f.offset
                sl = np.clip(lens - f.offset, 0, f.size)
                _check_intern(buf, st, sl, True, False)
                if f.size <= 16 and not (st & 3).any() and st.max() + 16 <= len(buf):
                    _check_intern_short(buf, st, sl)
                checked += 1
    assert checked > 5


def _check_intern(buf, starts, lens, stop_at_nul, strip_newline):
    codes = np.empty(len(starts), np.int32)
    rs, rl = _decode.intern_strings(buf, starts, lens, stop_at_nul, strip_newline, codes)
    want = ref.intern_strings(bytes(buf), starts.tolist(), lens.tolist(), stop_at_nul,
                              strip_newline)
    assert (codes.tolist(), rs.tolist(), rl.tolist()) == want


def _check_intern_short(buf, starts, lens):
    codes = np.empty(len(starts), np.int32)
    rs, rl = _decode.intern_short(_decode.word_views(buf)[1], starts, lens, codes)
    want = ref.intern_short(bytes(buf), starts.tolist(), lens.tolist())
    assert (codes.tolist(), rs.tolist(), rl.tolist()) == want


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


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("commit_size", [4, 8])
def test_walk_pages_synthetic(big, commit_size):
    rng = random.Random(1000 * big + commit_size)
    lay = _synthetic_layout(big, commit_size)
    for case in range(40):
        buf = _synthetic_pages(rng, big, commit_size, rng.randrange(1, 12))
        n = len(buf)
        cut = rng.randrange(n // 2, n + 1)
        starts = [0, cut // 2 - cut // 2 % 256] if case % 3 == 0 else [0]
        sizes = [starts[1], cut - starts[1]] if len(starts) == 2 else [cut]
        got = _assert_walk_equal(buf, starts, sizes, lay, 1 << 12)
        if case == 0:
            assert sum(got[0]) > 0


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


@pytest.mark.parametrize("name", DAT_NAMES)
def test_walk_pages_mutated_real_pages(dats, name):
    dat = dats[name]
    lay = _layout(dat)
    ps = lay["page_size"]
    rng = random.Random(name)
    cpu, start, size = max(dat.cpu_ranges, key=lambda r: r[2])
    for _ in range(25):
        npg = rng.randrange(1, 4)
        first = start + ps * rng.randrange(max(1, size // ps - npg))
        region = dat.data[first:first + npg * ps].copy()
        region = _mutate(rng, region, ps)
        cut = len(region) - (rng.randrange(ps) if rng.random() < 0.3 else 0)
        _assert_walk_equal(region, [0], [cut], lay, 1 << 12)


def test_walk_pages_mutated_synthetic():
    rng = random.Random(7)
    for case in range(150):
        big = case % 2 == 1
        commit_size = 8 if case % 4 < 2 else 4
        lay = _synthetic_layout(big, commit_size)
        buf = _mutate(rng, _synthetic_pages(rng, big, commit_size, rng.randrange(1, 5)), 256)
        _assert_walk_equal(buf, [0], [len(buf)], lay, 1 << 12)


# -- merge, grouping, gathers, spans, interning, hash -----------------------------------------

def test_time_order_group_take_random():
    rng = np.random.default_rng(3)
    for case in range(60):
        nruns = int(rng.integers(1, 9))
        sizes = rng.integers(0, 60, nruns)
        runs = [np.sort(rng.integers(0, 50, s)) for s in sizes]
        if case % 5 == 4 and sizes.max() > 1:    # one unsorted run
            k = int(np.argmax(sizes))
            runs[k] = runs[k][::-1].copy() if runs[k][0] != runs[k][-1] else runs[k]
        ts = np.concatenate(runs).astype(np.int64)
        bounds = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        perm, ok = _decode.time_order(ts, bounds)
        want, want_ok = ref.time_order(ts.tolist(), bounds.tolist())
        assert (perm.tolist(), bool(ok)) == (want, want_ok)
        if not ok:
            perm = np.argsort(ts, kind="stable").astype(np.int32)
        ids = rng.integers(0, 6, len(ts)).astype(np.int32)
        ids[::7] = 65535
        rows, counts = _decode.group_by_id(ids, perm)
        want_rows, want_counts = ref.group_by_id(ids.tolist(), perm.tolist())
        assert rows.tolist() == want_rows
        assert {int(k): int(counts[k]) for k in np.flatnonzero(counts)} == want_counts
        sel = rows[:len(rows) // 2]
        big_ts = ts * 1_000_003_019 + rng.integers(0, 1 << 40, len(ts))   # ns, many digits
        cols = (big_ts, rng.integers(0, 1 << 40, len(ts)), rng.integers(0, 99, len(ts)),
                rng.integers(-9, 99, len(ts)), rng.integers(0, 8, len(ts)))
        outs = (np.empty(len(sel), np.int64), np.empty(len(sel), np.int64),
                np.empty(len(sel), np.int32), np.empty(len(sel), np.int32),
                np.empty(len(sel), np.int32), np.empty(len(sel), np.float64))
        _decode.take_rows(sel, cols[0], cols[1], cols[2].astype(np.int32),
                          cols[3].astype(np.int32), cols[4].astype(np.int32), *outs)
        assert [o.tolist() for o in outs] == ref.take_rows(sel.tolist(),
                                                           *(c.tolist() for c in cols))


def test_factorize_ints_random():
    rng = np.random.default_rng(17)
    for case in range(40):
        n = int(rng.integers(0, 5000 if case % 8 == 0 else 300))
        hi = int(rng.choice([3, 100, 5000, 1 << 22]))
        vals = rng.integers(-2, hi, n).astype(np.int32 if case % 2 else np.int64)
        codes = np.empty(n, np.int32)
        uniq = _decode.factorize_ints(vals, codes)
        assert (codes.tolist(), uniq.tolist()) == ref.factorize_ints(vals.tolist())


def test_gathers_and_spans_random():
    rng = np.random.default_rng(11)
    buf = rng.integers(0, 256, 4096).astype(np.uint8)
    data = bytes(buf)
    views = _decode.word_views(buf)
    for case in range(120):
        big = bool(case % 2)
        n = int(rng.integers(1, 80))
        offs = rng.integers(0, 3800, n).astype(np.int64)
        lens = rng.integers(0, 64, n).astype(np.int64)
        size = int(rng.choice([1, 2, 4, 8]))
        signed = bool(rng.integers(0, 2))
        fo = int(rng.integers(0, 40))
        col = np.empty(n, _INT_DTYPES[(size, signed)])
        bad = _decode.gather_col(buf, *views, offs, lens, fo, size, signed, big, col)
        assert (col.tolist(), bad) == ref.gather_col(data, offs.tolist(), lens.tolist(), fo,
                                                     size, signed, big)
        col = np.empty(n, _INT_DTYPES[(size, signed)])
        bad = _decode.gather_int(buf, offs, lens, fo, size, signed, big, col)
        assert (col.tolist(), bad) == ref.gather_int(data, offs.tolist(), lens.tolist(), fo,
                                                     size, signed, big)
        st = np.empty(n, np.int64)
        sl = np.empty(n, np.int64)
        rel = bool(case % 3 == 0)
        bad = _decode.loc_spans(buf, *views, offs, lens, fo, rel, big, st, sl)
        assert (st.tolist(), sl.tolist(), bad) == ref.loc_spans(data, offs.tolist(),
                                                                lens.tolist(), fo, rel, big)


def test_intern_random():
    rng = np.random.default_rng(5)
    for case in range(40):
        # few distinct byte values so strings repeat, NULs and newlines included
        alphabet = np.array([0, 10, 65, 66, 67], np.uint8)
        buf = alphabet[rng.integers(0, 5 if case % 2 else 3, 2048)]
        buf[rng.integers(0, 2048, 400)] = 65
        n = int(rng.integers(1, 2000 if case % 10 == 0 else 200))
        starts = (4 * rng.integers(0, 500, n)).astype(np.int64)
        lens = rng.integers(0, 17, n).astype(np.int64)
        _check_intern(buf, starts, lens, bool(case % 2), bool(case % 3 == 0))
        _check_intern_short(buf, starts, lens)


def test_content_hash_random():
    rng = np.random.default_rng(9)
    for n in (0, 1, 3, 4, 5, 17, 257):
        words = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(n % 2)
        tail = rng.integers(0, 256, n % 8).astype(np.uint8)
        assert int(_decode.content_hash(words, tail)) == ref.content_hash(words.tolist(),
                                                                          tail.tolist())


def test_byte_readers_random():
    rng = np.random.default_rng(13)
    buf = rng.integers(0, 256, 256).astype(np.uint8)
    views = _decode.word_views(buf)
    data = bytes(buf)
    for pos in range(0, 240):
        for size in (1, 2, 4, 8):
            for big in (False, True):
                want = ref.read_uint(data, pos, size, big)
                assert int(_decode._rd(buf, pos, size, big)) == want
                assert int(_decode._rdx(buf, *views, pos, size, big)) == \
                    ref.read_uint_aligned(data, pos, size, big)


def test_interning_grows_its_hash_table():
    # thousands of distinct comms force the open-addressing table to be rebuilt several times
    words = [f"task{i:05d}".encode().ljust(16, b"\0") for i in range(3000)] * 2
    buf = np.frombuffer(b"".join(words), np.uint8).copy()
    starts = (np.arange(len(words)) * 16).astype(np.int64)
    lens = np.full(len(words), 16, np.int64)
    _check_intern(buf, starts, lens, True, False)
    _check_intern_short(buf, starts, lens)
