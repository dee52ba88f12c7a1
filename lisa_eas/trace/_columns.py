"""Turning decoded spans and integers into typed pandas columns."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from . import _decode

_LITTLE_HOST = sys.byteorder == "little"

__all__ = ["categorical_from_spans", "comm_column"]


def _categorical(codes: np.ndarray, cats: list[str]) -> pd.Categorical:
    if len(set(cats)) != len(cats):     # distinct bytes that decode to the same text
        uniq: dict[str, int] = {}
        remap = np.array([uniq.setdefault(c, len(uniq)) for c in cats], dtype=np.int32)
        codes = remap[codes] if len(codes) else codes.astype(np.int32)
        cats = list(uniq)
    index = pd.Index(cats) if cats else pd.Index([], dtype=pd.Index(["x"]).dtype)
    return pd.Categorical.from_codes(codes.astype(np.int32, copy=False), categories=index)


def categorical_from_spans(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray, *,
                           stop_at_nul: bool = True, strip_newline: bool = False) -> pd.Categorical:
    """Strings stored as byte spans of ``buf`` -> a pandas Categorical (interned in numba)."""
    codes = np.empty(len(starts), np.int32)
    starts = starts.astype(np.int64, copy=False)
    lens = lens.astype(np.int64, copy=False)
    if (_LITTLE_HOST and stop_at_nul and not strip_newline and len(starts)
            and lens.max() <= 16 and not (starts & 3).any() and starts.max() + 16 <= len(buf)):
        rs, rl = _decode.intern_short(_decode.word_views(buf)[1], starts, lens, codes)
    else:
        rs, rl = _decode.intern_strings(buf, starts, lens, stop_at_nul, strip_newline, codes)
    cats = [bytes(buf[s:s + n]).decode("utf-8", "replace")
            for s, n in zip(rs.tolist(), rl.tolist())]
    return _categorical(codes, cats)


def comm_column(pids: np.ndarray, cmdlines: dict) -> pd.Categorical:
    """``__comm`` from the saved command lines, as trace-cmd shows it (``<idle>``, ``<...>``)."""
    inv, uniq = pd.factorize(pids)
    names = []
    for p in uniq.tolist():
        if p == 0:
            names.append("<idle>")
        else:
            names.append(cmdlines.get(p, "<...>"))
    return _categorical(inv.astype(np.int32), names)
