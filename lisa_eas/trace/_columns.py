"""Turning decoded spans and integers into typed pandas columns."""
from __future__ import annotations

import mmap

import numpy as np
import pandas as pd

from . import _decode

__all__ = ["SpanInterner", "comm_column", "empty_small_pages"]

_SMALL_PAGES_MIN = 4 << 20


_MADV_POPULATE_WRITE = 23   # Linux >= 5.14; older kernels answer EINVAL (then: page faults)


def empty_small_pages(n: int, dtype, populate: bool = False) -> np.ndarray:
    """``np.empty(n, dtype)`` backed by an anonymous mapping that opts out of transparent
    huge pages (when large).

    numpy asks for huge pages on big arrays; on a busy machine each first touch of a 2 MiB
    page can stall in kernel compaction (measured here: ~0.4 s of system time for the
    150 MB of page-walk arrays of a 4.5 M-event trace, vs ~0.05 s with 4 KiB pages). Only
    the pages actually written become resident; the mapping is released with the array.
    ``populate`` maps every page in at once (for arrays that will be written whole: one
    call instead of a page fault per page, ~40% less time for 200 MB here).
    """
    dtype = np.dtype(dtype)
    nbytes = int(n) * dtype.itemsize
    if nbytes < _SMALL_PAGES_MIN or not hasattr(mmap, "MADV_NOHUGEPAGE"):
        return np.empty(n, dtype)
    m = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        m.madvise(mmap.MADV_NOHUGEPAGE)
        if populate:
            m.madvise(_MADV_POPULATE_WRITE)
    except OSError:
        pass
    return np.frombuffer(m, dtype, count=n)


def _categorical(codes: np.ndarray, cats: list[str]) -> pd.Categorical:
    if len(set(cats)) != len(cats):     # distinct bytes that decode to the same text
        uniq: dict[str, int] = {}
        remap = np.array([uniq.setdefault(c, len(uniq)) for c in cats], dtype=np.int32)
        codes = remap[codes] if len(codes) else codes.astype(np.int32)
        cats = list(uniq)
    index = pd.Index(cats) if cats else pd.Index([], dtype=pd.Index(["x"]).dtype)
    return pd.Categorical.from_codes(codes.astype(np.int32, copy=False), categories=index)


class SpanInterner:
    """Strings stored as byte spans of a buffer, interned chunk by chunk (in numba) into
    the codes of one pandas Categorical; categories in order of first appearance."""

    def __init__(self, n: int, *, stop_at_nul: bool = True, strip_newline: bool = False):
        self.codes = empty_small_pages(n, np.int32)
        self._stop_at_nul = stop_at_nul
        self._strip_newline = strip_newline
        self._index: dict[str, int] = {}

    def add(self, buf: np.ndarray, pos: int, starts: np.ndarray, lens: np.ndarray) -> None:
        """Intern the strings of rows ``pos .. pos + len(starts)``."""
        codes = self.codes[pos:pos + len(starts)]
        starts = starts.astype(np.int64, copy=False)
        lens = lens.astype(np.int64, copy=False)
        rs, rl = _decode.intern_strings(buf, starts, lens, self._stop_at_nul,
                                        self._strip_newline, codes)
        index = self._index
        remap = np.array([index.setdefault(bytes(buf[s:s + n]).decode("utf-8", "replace"),
                                           len(index))
                          for s, n in zip(rs.tolist(), rl.tolist())], np.int32)
        if len(codes) and not np.array_equal(remap, np.arange(len(remap))):
            codes[:] = remap[codes]

    def categorical(self) -> pd.Categorical:
        return _categorical(self.codes, list(self._index))


def comm_column(pids: np.ndarray, cmdlines: dict) -> pd.Categorical:
    """``__comm`` from the saved command lines, as trace-cmd shows it (``<idle>``, ``<...>``)."""
    codes = empty_small_pages(len(pids), np.int32)
    uniq = _decode.factorize_ints(pids, codes)
    names = []
    for p in uniq.tolist():
        if p == 0:
            names.append("<idle>")
        else:
            names.append(cmdlines.get(p, "<...>"))
    return _categorical(codes, names)
