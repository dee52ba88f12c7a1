"""numba kernel: the simulator's event table split by event kind, column by column.

The event loop writes one row-major table (time, kind, cpu, a..e) for every event; the
trace schema wants one DataFrame per event with contiguous columns. One pass over the rows
scatters them into a column-major array grouped by kind (rows of a kind keep their order),
so every column of every kind is a contiguous slice: no per-kind gather over the whole
table (measured 4x slower on the 4 KiB-page output map, one TLB miss after another).
"""
from __future__ import annotations

from ._jit import kernel

__all__ = ["split_rows_by_kind"]


@kernel
def split_rows_by_kind(ev, kind_col, start, out):
    """Scatter the rows of ``ev`` (n x w) into ``out`` (w x n) grouped by kind: the rows of
    kind ``k``, in their order, fill columns ``start[k]:start[k + 1]`` of ``out``.

    ``start`` is int64[nkinds + 1], the prefix sums of the per-kind counts; the caller
    checks every kind lies in ``0 .. nkinds - 1``."""
    nk = start.shape[0] - 1
    fill = start[:nk].copy()
    n, w = ev.shape
    for i in range(n):
        k = ev[i, kind_col]
        p = fill[k]
        fill[k] = p + 1
        for j in range(w):
            out[j, p] = ev[i, j]
