"""A small pure-Python protobuf wire reader and writer for the rare Perfetto packets (clock
snapshots, system info, process trees, power rails...) and for the writer's messages.
The hot paths are numba (:mod:`lisa_eas.trace._pb_ftrace`)."""
from __future__ import annotations

import struct

__all__ = ["PbError", "fields", "Msg", "varint", "key"]


class PbError(ValueError):
    """A message that does not parse; ``offset`` is relative to the message start."""

    def __init__(self, what: str, offset: int):
        super().__init__(f"{what} at offset {offset}")
        self.what = what
        self.offset = offset


def _read_varint(data, pos: int, end: int):
    v = 0
    shift = 0
    while pos < end:
        b = data[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, pos
        shift += 7
        if shift > 63:
            break
    raise PbError("truncated or overlong varint", pos)


def fields(data, start: int = 0, end: int | None = None):
    """Yield ``(field number, wire type, value)`` of a message: ints for varint and fixed
    fields (fixed64/fixed32 as unsigned), ``bytes`` for length-delimited ones."""
    end = len(data) if end is None else end
    pos = start
    while pos < end:
        at = pos
        k, pos = _read_varint(data, pos, end)
        fno, wt = k >> 3, k & 7
        if fno == 0:
            raise PbError("field number 0", at)
        if wt == 0:
            v, pos = _read_varint(data, pos, end)
        elif wt == 1:
            if pos + 8 > end:
                raise PbError("truncated fixed64", at)
            v = int.from_bytes(data[pos:pos + 8], "little")
            pos += 8
        elif wt == 5:
            if pos + 4 > end:
                raise PbError("truncated fixed32", at)
            v = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        elif wt == 2:
            n, pos = _read_varint(data, pos, end)
            if n > end - pos:
                raise PbError("length past the end of the message", at)
            v = bytes(data[pos:pos + n])
            pos += n
        else:
            raise PbError(f"wire type {wt}", at)
        yield fno, wt, v


def signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def signed32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def as_float(v: int) -> float:
    return struct.unpack("<f", v.to_bytes(4, "little"))[0]


def as_double(v: int) -> float:
    return struct.unpack("<d", v.to_bytes(8, "little"))[0]


# -- writing -----------------------------------------------------------------------------
def varint(v: int) -> bytes:
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def key(fno: int, wt: int) -> bytes:
    return varint((fno << 3) | wt)


class Msg:
    """An append-only message builder."""

    __slots__ = ("buf",)

    def __init__(self):
        self.buf = bytearray()

    def int(self, fno: int, v: int) -> "Msg":
        self.buf += key(fno, 0)
        self.buf += varint(int(v))
        return self

    def double(self, fno: int, v: float) -> "Msg":
        self.buf += key(fno, 1)
        self.buf += struct.pack("<d", float(v))
        return self

    def bytes(self, fno: int, v) -> "Msg":
        if isinstance(v, Msg):
            v = v.buf
        elif isinstance(v, str):
            v = v.encode()
        self.buf += key(fno, 2)
        self.buf += varint(len(v))
        self.buf += v
        return self

    def packed(self, fno: int, payload: bytes) -> "Msg":
        return self.bytes(fno, payload)

    def __len__(self) -> int:
        return len(self.buf)
