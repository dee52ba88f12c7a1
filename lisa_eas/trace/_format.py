"""Parsing of ftrace event ``format`` descriptions (tracefs ``events/<sys>/<event>/format``).

A format file lists every field of an event record with its C type, byte offset, byte
size and signedness, and ends with the ``print fmt`` line. :func:`parse_format` turns one
such text into an :class:`EventFormat`, classifying each field by how it is decoded.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import TraceError

__all__ = ["EventFormat", "FieldFormat", "parse_format", "parse_header_page"]

# How a field's bytes become a column value.
INT = "int"               # integer of 1, 2, 4 or 8 bytes
STR_FIXED = "str_fixed"   # char name[N]: NUL-terminated text in a fixed slot
STR_LOC = "str_loc"       # __data_loc char[] name: offset/length word pointing into the record
STR_TAIL = "str_tail"     # char name[] of size 0 at the end (print's buf): text to the record end
ARR_FIXED = "arr_fixed"   # type name[N] with a non-char element
ARR_LOC = "arr_loc"       # __data_loc type[] name with a non-char element
BIN_TAIL = "bin_tail"     # type name[] of size 0 at the end (bprint's buf): raw bytes

_FIELD_RE = re.compile(
    r"field:(?P<decl>[^;]*);\s*offset:(?P<offset>\d+);\s*size:(?P<size>\d+);"
    r"(?:\s*signed:(?P<signed>-?\d+);)?")
_CHAR_TYPES = {"char", "const char", "signed char", "unsigned char", "u8", "__u8", "s8", "__s8"}
_TEXT_TYPES = {"char", "const char", "signed char"}


@dataclass(frozen=True)
class FieldFormat:
    """One field of an event record."""

    name: str
    ctype: str
    offset: int
    size: int
    signed: bool
    kind: str
    elem_size: int = 0       # element size of array fields
    relative: bool = False   # __rel_loc: offset counted from the end of the field

    @property
    def is_common(self) -> bool:
        return self.name.startswith("common_")


@dataclass(frozen=True)
class EventFormat:
    """The layout of one event type, as the kernel describes it."""

    id: int
    name: str
    system: str
    fields: tuple[FieldFormat, ...]
    print_fmt: str

    @property
    def payload_fields(self) -> tuple[FieldFormat, ...]:
        """The event's own fields (without the ``common_*`` header fields)."""
        return tuple(f for f in self.fields if not f.is_common)

    def field(self, name: str) -> FieldFormat | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def min_size(self) -> int:
        """Smallest record payload that holds every fixed-position field."""
        return max((f.offset + f.size for f in self.fields), default=0)


def _elem_size(ctype: str, default: int) -> int:
    base = ctype.replace("const ", "").replace("unsigned ", "").replace("signed ", "").strip()
    sizes = {"char": 1, "u8": 1, "s8": 1, "__u8": 1, "__s8": 1, "bool": 1, "short": 2,
             "u16": 2, "s16": 2, "__u16": 2, "__s16": 2, "int": 4, "u32": 4, "s32": 4,
             "__u32": 4, "__s32": 4, "pid_t": 4, "u64": 8, "s64": 8, "__u64": 8, "__s64": 8,
             "long long": 8}
    return sizes.get(base, default)


def _parse_field(decl: str, offset: int, size: int, signed: bool, long_size: int) -> FieldFormat:
    decl = decl.strip()
    relative = False
    loc = False
    for prefix in ("__data_loc ", "__rel_loc "):
        if decl.startswith(prefix):
            loc = True
            relative = prefix == "__rel_loc "
            decl = decl[len(prefix):].strip()
    m = re.match(r"^(?P<ctype>.*?)\s*(?P<name>[A-Za-z_]\w*)\s*(?:\[(?P<dim>[^\]]*)\])?\s*$", decl)
    if m is None:
        # "__data_loc char[] name" puts the brackets on the type
        m2 = re.match(r"^(?P<ctype>.*?)\s*\[(?P<dim>[^\]]*)\]\s*(?P<name>[A-Za-z_]\w*)\s*$", decl)
        if m2 is None:
            raise ValueError(f"cannot parse field declaration {decl!r}")
        m = m2
    ctype = m.group("ctype").strip()
    name = m.group("name")
    dim = m.group("dim")
    if ctype.endswith("[]"):
        ctype = ctype[:-2].strip()
        dim = dim if dim is not None else ""
    if loc:
        esize = _elem_size(ctype, long_size if "long" in ctype else 4)
        kind = STR_LOC if ctype in _TEXT_TYPES else ARR_LOC
        return FieldFormat(name, ctype, offset, size, signed, kind, esize, relative)
    if dim is not None:
        if size == 0 or dim == "":
            kind = STR_TAIL if ctype in _TEXT_TYPES else BIN_TAIL
            return FieldFormat(name, ctype, offset, size, signed, kind, _elem_size(ctype, 4))
        if ctype in _TEXT_TYPES:
            return FieldFormat(name, ctype, offset, size, signed, STR_FIXED, 1)
        try:
            n = int(dim, 0)
        except ValueError:
            n = 0
        esize = size // n if n > 0 and size % n == 0 else _elem_size(ctype, 1)
        if esize not in (1, 2, 4, 8):
            esize = 1
        return FieldFormat(name, ctype, offset, size, signed, ARR_FIXED, esize)
    if size == 0:
        kind = STR_TAIL if ctype in _TEXT_TYPES else BIN_TAIL
        return FieldFormat(name, ctype, offset, size, signed, kind, _elem_size(ctype, 4))
    if size in (1, 2, 4, 8):
        return FieldFormat(name, ctype, offset, size, signed, INT)
    # odd-sized scalar (a struct): keep its bytes as an array
    return FieldFormat(name, ctype, offset, size, signed, ARR_FIXED, 1)


def _default_signed(decl: str) -> bool:
    return not any(w in decl for w in ("unsigned", "u8", "u16", "u32", "u64", "*"))


def parse_format(text: str, system: str = "", long_size: int = 8) -> EventFormat:
    """Parse one event ``format`` text.

    Parameters
    ----------
    text : str
        The content of ``events/<system>/<event>/format``.
    system : str
        The event system (directory) the format belongs to.
    long_size : int
        Size of ``long`` on the traced kernel, for array element sizes.

    Returns
    -------
    EventFormat

    Raises
    ------
    TraceError
        If the text has no ``name:``/``ID:`` line or a field line cannot be parsed.
    """
    name_m = re.search(r"^name:\s*(\S+)", text, re.M)
    id_m = re.search(r"^ID:\s*(\d+)", text, re.M)
    if name_m is None or id_m is None:
        raise TraceError(f"event format without name/ID line: {text[:80]!r}")
    fields = []
    for m in _FIELD_RE.finditer(text):
        decl = m.group("decl")
        sgn = m.group("signed")
        signed = bool(int(sgn)) if sgn is not None else _default_signed(decl)
        try:
            fields.append(_parse_field(decl, int(m.group("offset")), int(m.group("size")),
                                       signed, long_size))
        except ValueError as exc:
            raise TraceError(f"event {name_m.group(1)}: {exc}") from None
    pm = re.search(r"^print fmt:\s*(.*)$", text, re.M)
    return EventFormat(int(id_m.group(1)), name_m.group(1), system, tuple(fields),
                       pm.group(1) if pm else "")


def parse_header_page(text: str) -> dict[str, tuple[int, int]]:
    """Parse ``events/header_page`` into ``{field: (offset, size)}``.

    Raises
    ------
    TraceError
        If the ``timestamp``, ``commit`` or ``data`` field is missing.
    """
    out = {}
    for m in _FIELD_RE.finditer(text):
        name = m.group("decl").split()[-1].split("[")[0]
        out[name] = (int(m.group("offset")), int(m.group("size")))
    for need in ("timestamp", "commit", "data"):
        if need not in out:
            raise TraceError(f"header_page lacks the {need!r} field: {text[:120]!r}")
    return out
