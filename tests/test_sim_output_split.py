"""The simulator's event table split by kind (numba kernel) against its plain-Python twin,
on fixed and random tables, and through ``_output._rows_by_kind``."""
from __future__ import annotations

import numpy as np
import pytest
from reference.ref_sim_split import split_rows_by_kind as ref_split

from lisa_eas._kernels.sim_split import split_rows_by_kind
from lisa_eas.sim._output import _rows_by_kind


def _kernel_groups(ev, kind_col, nkinds):
    counts = np.bincount(ev[:, kind_col], minlength=nkinds) if len(ev) else np.zeros(nkinds, np.int64)
    start = np.zeros(nkinds + 1, np.int64)
    np.cumsum(counts, out=start[1:])
    out = np.full((ev.shape[1], len(ev)), -7, np.int64)
    if len(ev):
        split_rows_by_kind(ev, kind_col, start, out)
    assert (out != -7).all() or not len(ev)          # every slot written exactly once
    return [out[:, start[k]:start[k + 1]].T.tolist() for k in range(nkinds)]


FIXED = [
    np.array([[10, 1, 0, 5], [11, 0, 1, 6], [12, 1, 2, 7], [13, 1, 0, 8], [14, 0, 3, 9]], np.int64),
    np.array([[5, 2, 0, 0]], np.int64),                       # kinds 0 and 1 empty
    np.zeros((0, 4), np.int64),
]


@pytest.mark.parametrize("case", range(len(FIXED)))
def test_split_fixed(case):
    ev = FIXED[case]
    nkinds = 3
    assert _kernel_groups(ev, 1, nkinds) == ref_split(ev.tolist(), 1, nkinds)


def test_split_random():
    rng = np.random.default_rng(11)
    for _ in range(200):
        n, w = int(rng.integers(0, 300)), int(rng.integers(2, 10))
        nkinds = int(rng.integers(1, 9))
        kind_col = int(rng.integers(0, w))
        ev = rng.integers(-(1 << 40), 1 << 40, (n, w))
        ev[:, kind_col] = rng.integers(0, nkinds, n)
        assert _kernel_groups(ev, kind_col, nkinds) == ref_split(ev.tolist(), kind_col, nkinds)


def test_rows_by_kind_columns_are_contiguous_and_ordered():
    rng = np.random.default_rng(3)
    ev = rng.integers(0, 1000, (5000, 8))
    ev[:, 1] = rng.integers(0, 5, 5000)
    rows_of = _rows_by_kind(ev, 1)
    for k in range(7):
        sel = rows_of(k)
        assert sel.tolist() == ev[ev[:, 1] == k].tolist()
        for j in range(8):
            assert sel[:, j].flags["C_CONTIGUOUS"]
    with pytest.raises(ValueError):
        _rows_by_kind(np.array([[0, -1]]), 1)


def test_distinct_rows_matches_the_sorted_form():
    """``_output._distinct_rows`` (factorized row keys) gives the lexsort form's result exactly,
    including wide columns that take the fallback."""
    from lisa_eas.sim._output import _distinct_rows, _distinct_rows_lexsort
    rng = np.random.default_rng(5)
    for _ in range(200):
        n, k = int(rng.integers(0, 400)), int(rng.integers(1, 10))
        hi = int(rng.choice([2, 10, 1000, 1 << 40]))
        cols = [rng.integers(-hi, hi, n) for _ in range(k)]
        rows, code = _distinct_rows(*cols)
        ref_rows, ref_code = _distinct_rows_lexsort(*cols)
        assert rows == ref_rows and code.dtype == ref_code.dtype and np.array_equal(code, ref_code)
    rows, code = _distinct_rows(np.array([3, 1, 3, 1]), np.array([0, 5, 0, 4]))
    assert rows == [[1, 4], [1, 5], [3, 0]] and code.tolist() == [2, 1, 2, 0]


def test_order_by_matches_lexsort():
    """``_output._order_by`` (one sort key) orders rows as ``np.lexsort`` does, ties kept stable."""
    from lisa_eas.sim._output import _order_by
    rng = np.random.default_rng(9)
    for _ in range(200):
        n = int(rng.integers(0, 300))
        hi = int(rng.choice([3, 100, 1 << 40, 1 << 61]))
        primary = np.sort(rng.integers(0, hi, n)) if rng.random() < 0.5 else rng.integers(0, hi, n)
        secondary = rng.integers(0, int(rng.choice([1, 5, 50])), n)
        if n and rng.random() < 0.1:
            secondary[0] = -1          # a negative value: the lexsort path
        assert np.array_equal(_order_by(primary, secondary), np.lexsort((secondary, primary)))


def test_rows_by_kind_in_chunks_with_drop(monkeypatch):
    """The chunked split (``simulate()`` frees each chunk of the loop's table once split) gives
    the one-pass split's rows, each chunk dropped after it was split, in order."""
    import lisa_eas.sim._output as out
    rng = np.random.default_rng(9)
    ev = rng.integers(0, 1000, (1000, 8))
    ev[:, 1] = rng.integers(0, 6, 1000)
    want = _rows_by_kind(ev.copy(), 1)
    monkeypatch.setattr(out, "_SPLIT_CHUNK_ROWS", 97)
    dropped = []

    def drop(lo, hi):
        dropped.append((lo, hi))
        ev[lo:hi] = -5            # what MADV_DONTNEED leaves (zeros) must never be read again

    got = _rows_by_kind(ev, 1, drop)
    assert dropped == [(lo, min(lo + 97, 1000)) for lo in range(0, 1000, 97)]
    for k in range(8):
        assert got(k).tolist() == want(k).tolist()
