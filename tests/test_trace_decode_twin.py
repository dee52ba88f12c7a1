"""numba kernels of lisa_eas/trace/_decode.py against their plain-Python twins
(tests/reference/ref_trace_decode.py), exactly: the records of the real traces in
tests/data/traces and random cases. (The page walks, in lisa_eas/trace/_stream.py, are
compared in test_trace_stream_twin.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas.trace import _decode
from lisa_eas.trace._datfile import open_dat
from lisa_eas.trace._format import INT, STR_FIXED, STR_LOC
from reference import ref_trace_decode as ref
from trace_oracles import DAT_NAMES, dat_layout, unpack_dat

_INT_DTYPES = {(1, True): np.int8, (2, True): np.int16, (4, True): np.int32, (8, True): np.int64,
               (1, False): np.uint8, (2, False): np.uint16, (4, False): np.uint32,
               (8, False): np.uint64}


@pytest.fixture(scope="module")
def dats(tmp_path_factory):
    d = tmp_path_factory.mktemp("twin")
    return {name: open_dat(unpack_dat(name, d)) for name in DAT_NAMES}


def _records(dat):
    """(ts, payload offset, payload length, id, pid, range) of every record (twin walk)."""
    lay = dat_layout(dat)
    starts = [r[1] for r in dat.cpu_ranges]
    sizes = [r[2] for r in dat.cpu_ranges]
    return ref.walk_pages(bytes(dat.data), starts, sizes, lay["page_size"], lay["ts_off"],
                          lay["commit_off"], lay["commit_size"], lay["data_off"], lay["big"],
                          lay["type_off"], lay["type_size"], lay["pid_off"], 1 << 62)[1]


@pytest.mark.parametrize("name", DAT_NAMES)
def test_field_decoding_real_trace(dats, name):
    """Every integer, __data_loc and char[] field of every event, and the comm interning."""
    dat = dats[name]
    lay = dat_layout(dat)
    buf = dat.data
    data = bytes(buf)
    records = _records(dat)
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
                bad = _decode.gather_int(buf, offs, lens, f.offset, f.size, f.signed,
                                         lay["big"], col)
                want, want_bad = ref.gather_int(data, offs.tolist(), lens.tolist(), f.offset,
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
                checked += 1
    assert checked > 5


def _check_intern(buf, starts, lens, stop_at_nul, strip_newline):
    codes = np.empty(len(starts), np.int32)
    rs, rl = _decode.intern_strings(buf, starts, lens, stop_at_nul, strip_newline, codes)
    want = ref.intern_strings(bytes(buf), starts.tolist(), lens.tolist(), stop_at_nul,
                              strip_newline)
    assert (codes.tolist(), rs.tolist(), rl.tolist()) == want


# -- merge, gathers, spans, interning, hash -----------------------------------------

def test_time_order_random():
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
