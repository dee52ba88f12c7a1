"""numba kernels: time merge and vectorised field decoding (the page walks are in
:mod:`lisa_eas.trace._stream`), and the ring-buffer constants they share.

Every kernel works on the mapped file as a flat ``uint8`` array and never raises:
problems are counted (a ``diag`` array for the walks, returned counts here) that the
Python layer turns into the skipped report (or a TraceError in strict mode).
Nothing compiles at import time; each kernel compiles on first call (cache=True).
"""
from __future__ import annotations

import numba
import numpy as np

from ._datpages import ABS_TS_MASK, DIAG_NAMES, RB_MISSED_EVENTS, RB_MISSED_STORED
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

__all__ = ["word_views", "time_order", "factorize_ints", "gather_int", "loc_spans",
           "intern_strings", "DIAG_NAMES"]

# diag rows: [count, first byte offset] (names and ring-buffer constants shared with the
# numba-free counting walk of `trace info`)
NDIAG = len(DIAG_NAMES)
_RB_MISSED_EVENTS = np.uint64(RB_MISSED_EVENTS)
_RB_MISSED_STORED = np.uint64(RB_MISSED_STORED)
_ABS_TS_MASK = ABS_TS_MASK


@numba.njit(cache=True, inline="always")
def _rd(buf, pos, size, big):
    v = np.uint64(0)
    if big:
        for k in range(size):
            v = (v << np.uint64(8)) | np.uint64(buf[pos + k])
    else:
        for k in range(size - 1, -1, -1):
            v = (v << np.uint64(8)) | np.uint64(buf[pos + k])
    return v


@numba.njit(cache=True, inline="always")
def _rdx(buf, b16, b32, b64, pos, size, big):
    """Like :func:`_rd`, with one load for naturally aligned little-endian values
    (``b16``/``b32``/``b64`` are views of ``buf`` as 16/32/64-bit words)."""
    if not big:
        if size == 4:
            if (pos & 3) == 0:
                return np.uint64(b32[pos >> 2])
        elif size == 8:
            if (pos & 7) == 0:
                return np.uint64(b64[pos >> 3])
        elif size == 2:
            if (pos & 1) == 0:
                return np.uint64(b16[pos >> 1])
        elif size == 1:
            return np.uint64(buf[pos])
    return _rd(buf, pos, size, big)


def word_views(buf: np.ndarray):
    """The 16/32/64-bit word views of a byte buffer that the ``_rdx`` fast path reads."""
    n = buf.shape[0]
    return (buf[:n - n % 2].view(np.uint16), buf[:n - n % 4].view(np.uint32),
            buf[:n - n % 8].view(np.uint64))


@numba.njit(cache=True)
def _note(diag, kind, pos, amount):
    if diag[kind, 0] == 0:
        diag[kind, 1] = pos
    diag[kind, 0] += amount


@numba.njit(cache=True)
def time_order(ts, bounds):
    """Permutation putting records in time order, from per-CPU runs ``ts[bounds[k]:bounds[k+1]]``.

    Each run is already time-sorted in a sane file, so this is a stable k-way merge (ties
    go to the lower run, i.e. the lower CPU). Returns ``(perm, ok)``; ``ok`` is False when
    a run is not sorted (corrupt timestamps), and the caller then sorts instead.
    """
    nruns = bounds.shape[0] - 1
    n = ts.shape[0]
    for r in range(nruns):
        for i in range(bounds[r] + 1, bounds[r + 1]):
            if ts[i] < ts[i - 1]:
                return np.empty(0, np.int32), False
    out = np.empty(n, np.int32)
    pos = bounds[:-1].copy()
    for i in range(n):
        best = -1
        bts = np.int64(0)
        for r in range(nruns):
            p = pos[r]
            if p < bounds[r + 1]:
                if best < 0 or ts[p] < bts:
                    best = r
                    bts = ts[p]
        out[i] = pos[best]
        pos[best] += 1
    return out, True


@numba.njit(cache=True)
def factorize_ints(values, codes):
    """Codes of integer ``values`` (distinct values numbered in order of first appearance)
    into ``codes``; returns the distinct values. Open-addressing hash table."""
    n = values.shape[0]
    cap = 1024
    table = -np.ones(cap, np.int64)
    uniq = np.empty(64, np.int64)
    k = 0
    for i in range(n):
        v = np.int64(values[i])
        h = np.uint64(v) * np.uint64(0x9E3779B185EBCA87)
        slot = np.int64((h >> np.uint64(20)) & np.uint64(cap - 1))
        found = -1
        while True:
            c = table[slot]
            if c < 0:
                break
            if uniq[c] == v:
                found = c
                break
            slot = (slot + 1) & (cap - 1)
        if found >= 0:
            codes[i] = found
            continue
        if k == uniq.shape[0]:
            uniq = np.concatenate((uniq, np.empty(k, np.int64)))
        uniq[k] = v
        table[slot] = k
        codes[i] = k
        k += 1
        if 2 * k > cap:
            cap *= 4
            table = -np.ones(cap, np.int64)
            for c in range(k):
                hh = np.uint64(uniq[c]) * np.uint64(0x9E3779B185EBCA87)
                sl = np.int64((hh >> np.uint64(20)) & np.uint64(cap - 1))
                while table[sl] >= 0:
                    sl = (sl + 1) & (cap - 1)
                table[sl] = c
    return uniq[:k].copy()


@numba.njit(cache=True)
def gather_int(buf, offs, lens, field_off, size, signed, big, out):
    """Decode one integer field of every record; rows too short get 0 and are counted."""
    bad = 0
    for i in range(offs.shape[0]):
        if field_off + size > lens[i]:
            out[i] = 0
            bad += 1
            continue
        v = _rd(buf, offs[i] + field_off, size, big)
        if signed and size < 8:
            sign = np.uint64(1) << np.uint64(size * 8 - 1)
            if v & sign:
                v = v | ~((sign << np.uint64(1)) - np.uint64(1))
        out[i] = v
    return bad


@numba.njit(cache=True)
def loc_spans(buf, b16, b32, b64, offs, lens, field_off, relative, big, out_start, out_len):
    """Resolve ``__data_loc``/``__rel_loc`` words into (start, length) spans; returns bad rows."""
    bad = 0
    for i in range(offs.shape[0]):
        if field_off + 4 > lens[i]:
            out_start[i] = offs[i]
            out_len[i] = 0
            bad += 1
            continue
        w = np.int64(_rdx(buf, b16, b32, b64, offs[i] + field_off, 4, big))
        o = w & 0xFFFF
        l = w >> 16
        if relative:
            o += field_off + 4
        if o + l > lens[i]:
            bad += 1
            l = max(np.int64(0), lens[i] - o)
            o = min(o, lens[i])
        out_start[i] = offs[i] + o
        out_len[i] = l
    return bad


@numba.njit(cache=True)
def _hash_table(rep_hash, k, cap):
    """Open-addressing table (linear probing, ``cap`` a power of two) of the first ``k``
    representatives, by their hashes: slot -> representative index, -1 where empty."""
    table = -np.ones(cap, np.int64)
    for c in range(k):
        sl = np.int64(rep_hash[c] & np.uint64(cap - 1))
        while table[sl] >= 0:
            sl = (sl + 1) & (cap - 1)
        table[sl] = c
    return table


@numba.njit(cache=True)
def intern_strings(buf, starts, maxlens, stop_at_nul, strip_newline, codes):
    """Intern byte strings: fill ``codes`` and return (rep_start, rep_len) of each distinct one.

    A string is ``buf[start:start+maxlen]`` cut at the first NUL (``stop_at_nul``) and,
    with ``strip_newline``, without trailing newlines. Open-addressing hash table over
    FNV-1a hashes; distinct strings get codes in order of first appearance.
    """
    n = starts.shape[0]
    cap = 1024
    while cap < 4 * 64:
        cap *= 2
    table = -np.ones(cap, np.int64)
    rep_start = np.empty(64, np.int64)
    rep_len = np.empty(64, np.int64)
    rep_hash = np.empty(64, np.uint64)
    k = 0
    for i in range(n):
        s = starts[i]
        m = maxlens[i]
        l = m
        if stop_at_nul:
            for j in range(m):
                if buf[s + j] == 0:
                    l = j
                    break
        if strip_newline:
            while l > 0 and buf[s + l - 1] == 10:
                l -= 1
        h = np.uint64(14695981039346656037)
        for j in range(l):
            h = (h ^ np.uint64(buf[s + j])) * np.uint64(1099511628211)
        h ^= h >> np.uint64(32)
        slot = np.int64(h & np.uint64(cap - 1))
        found = -1
        while True:
            c = table[slot]
            if c < 0:
                break
            if rep_hash[c] == h and rep_len[c] == l:
                rs = rep_start[c]
                same = True
                for j in range(l):
                    if buf[rs + j] != buf[s + j]:
                        same = False
                        break
                if same:
                    found = c
                    break
            slot = (slot + 1) & (cap - 1)
        if found >= 0:
            codes[i] = found
            continue
        if k == rep_start.shape[0]:
            rep_start = np.concatenate((rep_start, np.empty(k, np.int64)))
            rep_len = np.concatenate((rep_len, np.empty(k, np.int64)))
            rep_hash = np.concatenate((rep_hash, np.empty(k, np.uint64)))
        rep_start[k] = s
        rep_len[k] = l
        rep_hash[k] = h
        table[slot] = k
        codes[i] = k
        k += 1
        if 2 * k > cap:
            cap *= 4
            table = _hash_table(rep_hash, k, cap)
    return rep_start[:k].copy(), rep_len[:k].copy()
