"""Plain-Python twin of lisa_eas/trace/_parquet_rle.py, written from parquet-format's
Encodings.md ("Run Length Encoding / Bit-Packing Hybrid"), not from the numba code.

The bit-packed runs are read as one Python integer built from the run's bytes (little
endian), from which value ``i`` is the bit field ``[i * width, (i + 1) * width)``.
"""
from __future__ import annotations


def read_uleb128(data: bytes, pos: int, end: int):
    value, shift = 0, 0
    for k in range(5):
        if pos + k >= end:
            return None, pos
        b = data[pos + k]
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos + k + 1
        shift += 7
    return None, pos


def decode(data: bytes, pos: int, end: int, width: int, count: int):
    """``(values, position after the last run)`` or None for a malformed stream."""
    if not 0 <= width <= 32:
        return None
    values: list[int] = []
    while len(values) < count:
        header, pos = read_uleb128(data, pos, end)
        if header is None:
            return None
        if header % 2:                              # bit-packed: header >> 1 groups of 8
            groups = header // 2
            nbytes = groups * width
            if groups == 0 or pos + nbytes > end:
                return None
            bits = int.from_bytes(data[pos:pos + nbytes], "little")
            for i in range(min(groups * 8, count - len(values))):
                values.append((bits >> (i * width)) & ((1 << width) - 1))
            pos += nbytes
        else:                                       # RLE: header >> 1 repeats of one value
            run = header // 2
            nbytes = (width + 7) // 8
            if run == 0 or pos + nbytes > end:
                return None
            value = int.from_bytes(data[pos:pos + nbytes], "little")
            values.extend([value] * min(run, count - len(values)))
            pos += nbytes
    return values, pos
