"""Turning decoded spans and integers into typed pandas columns."""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import _decode
from ._memory import empty_small_pages

__all__ = ["SpanInterner", "comm_column", "empty_small_pages"]


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
