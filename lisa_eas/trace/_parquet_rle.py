"""numba kernel: parquet's RLE / bit-packing hybrid encoding (dictionary indices).

The stream is a sequence of runs, each introduced by a ULEB128 varint header: an even header
``n << 1`` is an RLE run of ``n`` copies of one value stored in ``ceil(bit_width / 8)``
little-endian bytes; an odd header ``g << 1 | 1`` is a bit-packed run of ``g`` groups of 8
values, ``bit_width`` bits each, packed from the least significant bit of each byte
(parquet-format, Encodings.md). The Python layer (``_parquet_io``) validates the decoded
indices against the dictionary. Compiles on first call (cache=True).
"""
from __future__ import annotations

import numba
import numpy as np
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

__all__ = ["rle_hybrid_decode"]


@numba.njit(cache=True)
def rle_hybrid_decode(buf, pos, end, bit_width, out, start, count):
    """Decode ``count`` values of ``bit_width`` bits (0..32) from ``buf[pos:end]`` into
    ``out[start:start + count]``.

    Returns the position after the last run read, or -1 when the stream is malformed
    (runs past ``end``, an empty run, a varint longer than 5 bytes)."""
    if bit_width < 0 or bit_width > 32:
        return -1
    mask = (np.int64(1) << bit_width) - 1
    vbytes = (bit_width + 7) // 8
    n = 0
    while n < count:
        header = np.int64(0)
        shift = 0
        while True:
            if pos >= end or shift > 28:
                return -1
            b = np.int64(buf[pos])
            pos += 1
            header |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
        if header & 1:
            groups = header >> 1
            nbytes = groups * bit_width
            if groups == 0 or pos + nbytes > end:
                return -1
            take = min(groups * 8, count - n)
            for i in range(take):
                bit = i * bit_width
                first = pos + (bit >> 3)
                v = np.int64(0)
                for k in range(((bit & 7) + bit_width + 7) >> 3):
                    v |= np.int64(buf[first + k]) << (8 * k)
                out[start + n + i] = (v >> (bit & 7)) & mask
            n += take
            pos += nbytes
        else:
            run = header >> 1
            if run == 0 or pos + vbytes > end:
                return -1
            v = np.int64(0)
            for k in range(vbytes):
                v |= np.int64(buf[pos + k]) << (8 * k)
            pos += vbytes
            take = min(run, count - n)
            for i in range(take):
                out[start + n + i] = v
            n += take
    return pos
