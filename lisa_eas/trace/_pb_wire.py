"""numba primitives of the protobuf wire format (varints, field heads, packed columns).

Every kernel of the Perfetto reader walks messages with :func:`field`, which reads one
field head and finds where the field's value starts and ends, checking it fits its
message. Kernels never raise: they return one of the error codes below with the byte
offset where decoding failed. Nothing compiles at import time.
"""
from __future__ import annotations

import numba
import numpy as np
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

__all__ = ["ERR_NAMES", "E_OK", "E_TRUNC", "E_WIRE", "E_TAG", "E_COMPACT", "E_INTERN", "E_CPU",
           "varint", "field", "count_packed"]

# error codes (index into ERR_NAMES)
E_OK = 0
E_TRUNC = 1       # a varint, fixed field or length-delimited field runs past its message
E_WIRE = 2        # a known field with an unexpected wire type
E_TAG = 3         # field number 0 or a wire type protobuf does not have (or groups)
E_COMPACT = 4     # compact_sched columns of different lengths, or split columns
E_INTERN = 5      # a compact_sched comm index outside the bundle's intern table
E_CPU = 6         # a bundle CPU number >= MAX_CPUS
ERR_NAMES = ("ok", "truncated_field", "wrong_wire_type", "bad_tag", "inconsistent_compact_sched",
             "bad_intern_index", "bad_cpu")


@numba.njit(cache=True)
def varint(buf, pos, end):
    """(value as uint64, position after it); position -1 when the varint is cut or longer
    than 10 bytes. One-byte varints (most packed columns) take the short path."""
    if pos >= end:
        return np.uint64(0), -1
    b = buf[pos]
    if b < 0x80:
        return np.uint64(b), pos + 1
    v = np.uint64(b & 0x7F)
    shift = 7
    pos += 1
    while pos < end:
        b = buf[pos]
        pos += 1
        v |= np.uint64(b & 0x7F) << np.uint64(shift)
        if b < 0x80:
            return v, pos
        shift += 7
        if shift > 63:
            return v, -1
    return v, -1


@numba.njit(cache=True)
def field(buf, pos, end):
    """Read the field head at ``pos`` of a message ending at ``end``.

    Returns ``(error, field number, wire type, value start, value end)``: for
    length-delimited fields the payload span, for varints the varint's span (decode it
    with :func:`varint` from ``value start``), for fixed fields their 8 or 4 bytes. The next
    field starts at ``value end``. ``error`` is ``E_TAG`` for field number 0 and for wire
    types protobuf does not have (3, 4: groups; 6, 7), ``E_TRUNC`` when the value runs past
    ``end``."""
    if pos < end and buf[pos] < 0x80:       # one-byte key: field numbers below 16
        k = np.int64(buf[pos])
        f = k >> 3
        w = k & 7
        r = pos + 1
    else:
        key, r = varint(buf, pos, end)
        if r < 0:
            return E_TRUNC, 0, 0, pos, pos
        f = np.int64(key >> np.uint64(3))
        w = np.int64(key & np.uint64(7))
    if f == 0 or w > 5 or w == 3 or w == 4:
        return E_TAG, f, w, pos, pos
    if w == 0:      # skipped, not decoded: its end is its first byte below 0x80
        q = r
        last = min(end, r + 10)
        while q < last:
            if buf[q] < 0x80:
                return E_OK, f, w, r, q + 1
            q += 1
        return E_TRUNC, f, w, pos, pos
    if w == 2:
        if r < end and buf[r] < 0x80:       # one-byte length
            s = r + 1
            e = s + np.int64(buf[r])
            if e > end:
                return E_TRUNC, f, w, pos, pos
            return E_OK, f, w, s, e
        n, s = varint(buf, r, end)
        if s < 0 or n > np.uint64(end - s):
            return E_TRUNC, f, w, pos, pos
        return E_OK, f, w, s, s + np.int64(n)
    size = 8 if w == 1 else 4
    if r + size > end:
        return E_TRUNC, f, w, pos, pos
    return E_OK, f, w, r, r + size


@numba.njit(cache=True)
def value(buf, start, end):
    """The varint value of a field whose value span :func:`field` returned (as int64)."""
    v, _ = varint(buf, start, end)
    return np.int64(v)


@numba.njit(cache=True)
def count_packed(buf, start, end):
    """Number of varints in the packed column ``buf[start:end]`` (bytes without the
    continuation bit)."""
    c = 0
    for i in range(start, end):
        if buf[i] < 0x80:
            c += 1
    return c
