"""Rendering of ``trace_printk`` (bprint) records.

A bprint record holds the address of its format string (looked up in the file's
printk-formats table) and the arguments packed by the kernel's ``vbin_printf``: each
integer stored at its C size and aligned to it (8-byte values aligned to 4), strings
copied inline with their NUL. This module unpacks them and renders the text.
"""
from __future__ import annotations

import re
import struct

__all__ = ["render_bprint"]

_SPEC = re.compile(
    r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
    r"(?P<len>hh|h|ll|l|L|z|Z|t|j|q)?(?P<conv>[diouxXcspfeEgGn%])")
_cache: dict = {}


def _parse(fmt: str):
    out = _cache.get(fmt)
    if out is None:
        out = []
        pos = 0
        for m in _SPEC.finditer(fmt):
            out.append((fmt[pos:m.start()], m))
            pos = m.end()
            if m.group("conv") == "p":   # %pS, %pK...: extension letters belong to the spec
                ext = re.match(r"[a-zA-Z]*", fmt[pos:])
                pos += ext.end()
        out.append((fmt[pos:], None))
        _cache[fmt] = out
    return out


class _Args:
    def __init__(self, data: bytes, big: bool):
        self.data, self.pos, self.e = data, 0, ">" if big else "<"

    def integer(self, size: int, signed: bool) -> int:
        align = 4 if size == 8 else size
        self.pos = (self.pos + align - 1) // align * align
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        if len(chunk) < size:
            return 0
        code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
        return struct.unpack(self.e + (code if signed else code.upper()), chunk)[0]

    def string(self) -> str:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            end = len(self.data)
        s = self.data[self.pos:end].decode("utf-8", "replace")
        self.pos = end + 1
        return s


def render_bprint(fmt: str, args: bytes, long_size: int, big: bool = False) -> str:
    """Render one bprint record.

    Parameters
    ----------
    fmt : str
        The printk format string.
    args : bytes
        The record's argument area (the ``buf`` field to the end of the record).
    long_size : int
        Size of ``long`` and pointers on the traced kernel.
    big : bool
        Big-endian kernel.

    Returns
    -------
    str
        The rendered message, without trailing newlines.
    """
    a = _Args(args, big)
    out = []
    for text, m in _parse(fmt):
        out.append(text)
        if m is None:
            break
        conv = m.group("conv")
        if conv == "%":
            out.append("%")
            continue
        flags = m.group("flags") or ""
        width = m.group("width")
        prec = m.group("prec")
        if width == "*":
            width = str(a.integer(4, True))
        if prec == "*":
            prec = str(max(a.integer(4, True), 0))
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        ln = m.group("len") or ""
        if conv == "s":
            out.append((spec + "s") % a.string())
            continue
        if conv == "p":
            v = a.integer(long_size, False)
            out.append(("%" + flags.replace("0", "") + (width or "") + "s") % f"0x{v:x}")
            continue
        if conv == "c":
            v = a.integer(1, False)
            out.append((spec + "s") % chr(v))
            continue
        if conv in "feEgG":   # the kernel has no floating point; keep the bits as an int
            out.append(str(a.integer(8, True)))
            continue
        if conv == "n":
            continue
        size = {"hh": 1, "h": 2, "ll": 8, "L": 8, "q": 8, "j": 8, "l": long_size,
                "z": long_size, "Z": long_size, "t": long_size}.get(ln, 4)
        signed = conv in "di"
        v = a.integer(size, signed)
        pyconv = {"u": "d", "i": "d"}.get(conv, conv)
        try:
            out.append((spec + pyconv) % v)
        except (TypeError, ValueError):
            out.append(str(v))
    return "".join(out).rstrip("\n")
