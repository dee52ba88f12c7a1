"""The trace cache's parquet files: a writer with a fixed layout and a reader that copies
that layout's numeric columns straight out of the file.

Layout written by :func:`write_frame` (a standard parquet file any reader opens):
uncompressed, one row group, version-1 data pages of up to ``_PAGE_BYTES``, no statistics;
numeric columns ``REQUIRED`` and ``PLAIN``-encoded (their data pages hold the values as
little-endian arrays), categorical columns ``REQUIRED`` (when they have no missing value)
dictionary-encoded strings.

:func:`read_frame` parses the footer with pyarrow, then walks each column chunk's page
headers (Thrift compact protocol, parsed here). Numeric values are copied from the mapped
file into one block of memory mapped in a single call (``MADV_POPULATE_WRITE``), the
``Time`` index computed into the same block; dictionary indices (RLE / bit-packing hybrid)
are decoded by the numba kernel of :mod:`._parquet_rle` into categorical codes. Anything
else is read by pyarrow. Fresh memory costs a page fault per 4 KiB page when pyarrow
decodes into it (~2.7 us each on the VMs measured), which dominated the cached read; the
copy path touches each destination page once, already mapped. Any chunk that does not
have the expected layout (another writer, an older cache, a damaged header) is read by
pyarrow instead, so the result never depends on which path ran.
"""
from __future__ import annotations

import inspect
import mmap
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ._columns import empty_small_pages
from ._parquet_rle import rle_hybrid_decode

__all__ = ["write_frame", "read_frame", "PageLayoutError"]

_PAGE_BYTES = 256 << 20          # well below the format's 2 GiB page limit

# parquet physical types (parquet.thrift: Type) and the numpy dtype of their PLAIN values
_PHYSICAL = {"INT32": np.dtype("<i4"), "INT64": np.dtype("<i8"), "FLOAT": np.dtype("<f4"),
             "DOUBLE": np.dtype("<f8")}
# arrow type name -> (numpy dtype of the column, parquet physical type written for it)
_NUMERIC = {"int8": ("i1", "INT32"), "int16": ("i2", "INT32"), "int32": ("i4", "INT32"),
            "int64": ("i8", "INT64"), "uint8": ("u1", "INT32"), "uint16": ("u2", "INT32"),
            "uint32": ("u4", "INT32"), "uint64": ("u8", "INT64"), "float": ("f4", "FLOAT"),
            "double": ("f8", "DOUBLE")}

# parquet.thrift enums
_PAGE_DATA, _PAGE_DICTIONARY, _PAGE_DATA_V2 = 0, 2, 3
_ENCODING_PLAIN, _ENCODING_PLAIN_DICTIONARY, _ENCODING_RLE_DICTIONARY = 0, 2, 8


class PageLayoutError(ValueError):
    """A column chunk is not in the layout the copy path reads (internal: the caller falls
    back to pyarrow)."""


# ---------------------------------------------------------------------------------------
# Thrift compact protocol: just enough to read a PageHeader and skip what it does not need
# ---------------------------------------------------------------------------------------

class _Compact:
    """Reader of Thrift compact-protocol values from ``buf`` between ``pos`` and ``end``."""

    __slots__ = ("buf", "pos", "end")

    def __init__(self, buf, pos: int, end: int):
        self.buf, self.pos, self.end = buf, pos, end

    def byte(self) -> int:
        if self.pos >= self.end:
            raise PageLayoutError("page header runs past its column chunk")
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = value = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise PageLayoutError("varint longer than 64 bits in a page header")

    def zigzag(self) -> int:
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def skip(self, ctype: int, depth: int = 0) -> None:
        """Skip one value of compact type ``ctype``."""
        if depth > 16:
            raise PageLayoutError("page header nested too deeply")
        if ctype in (1, 2):                 # booleans live in the field header
            return
        if ctype == 3:                      # byte
            self.byte()
        elif ctype in (4, 5, 6):            # i16, i32, i64
            self.varint()
        elif ctype == 7:                    # double
            self.advance(8)
        elif ctype == 8:                    # binary
            self.advance(self.varint())
        elif ctype in (9, 10):              # list, set
            head = self.byte()
            size = head >> 4
            if size == 15:
                size = self.varint()
            elem = head & 0x0F
            for _ in range(size):           # booleans in containers take a byte
                self.skip(3 if elem in (1, 2) else elem, depth + 1)
        elif ctype == 11:                   # map
            size = self.varint()
            if size:
                kv = self.byte()
                key, value = kv >> 4, kv & 0x0F
                for _ in range(size):       # booleans in containers take a byte
                    self.skip(3 if key in (1, 2) else key, depth + 1)
                    self.skip(3 if value in (1, 2) else value, depth + 1)
        elif ctype == 12:                   # struct
            self.struct(lambda fid, ct: self.skip(ct, depth + 1))
        else:
            raise PageLayoutError(f"unknown Thrift compact type {ctype} in a page header")

    def advance(self, n: int) -> None:
        if n < 0 or self.pos + n > self.end:
            raise PageLayoutError("page header runs past its column chunk")
        self.pos += n

    def struct(self, on_field) -> None:
        """Read a struct's fields, calling ``on_field(field_id, ctype)`` for each; the
        callback consumes the value (or skips it)."""
        fid = 0
        while True:
            head = self.byte()
            if head == 0:
                return
            delta, ctype = head >> 4, head & 0x0F
            fid = fid + delta if delta else self.zigzag()
            on_field(fid, ctype)


def read_page_header(buf, pos: int, end: int) -> tuple[dict, int]:
    """Parse the parquet ``PageHeader`` at ``buf[pos:]``.

    Returns ``(header, data_start)``: the header's ``type``, ``compressed_page_size`` and,
    for data and dictionary pages, ``num_values`` and ``encoding``; ``data_start`` is the
    offset of the page's payload.
    """
    rd = _Compact(buf, pos, end)
    out: dict = {}

    def data_page(fid: int, ctype: int) -> None:
        if fid == 1 and ctype == 5:
            out["num_values"] = rd.zigzag()
        elif fid == 2 and ctype == 5:
            out["encoding"] = rd.zigzag()
        else:
            rd.skip(ctype)

    def page(fid: int, ctype: int) -> None:
        if fid == 1 and ctype == 5:
            out["type"] = rd.zigzag()
        elif fid == 3 and ctype == 5:
            out["compressed_page_size"] = rd.zigzag()
        elif fid in (5, 7) and ctype == 12:     # data page / dictionary page header
            rd.struct(data_page)
        else:
            rd.skip(ctype)

    rd.struct(page)
    if "type" not in out or "compressed_page_size" not in out:
        raise PageLayoutError("page header without type or size")
    return out, rd.pos


# ---------------------------------------------------------------------------------------
# Writer and reader
# ---------------------------------------------------------------------------------------

def write_frame(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` (without its index) in the cache layout described in the module doc."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.Table.from_pandas(df, preserve_index=False)
    fields, columns, dictionary = [], [], []
    for f, col in zip(table.schema, table.columns):
        if str(f.type) in _NUMERIC and isinstance(df[f.name].dtype, np.dtype):
            # from the numpy values: a NaN stays a float value (from_pandas made it a null)
            col = pa.array(df[f.name].to_numpy(), type=f.type)
            f = f.with_nullable(False)
        elif pa.types.is_dictionary(f.type):
            dictionary.append(f.name)
            if col.null_count == 0:
                f = f.with_nullable(False)
        fields.append(f)
        columns.append(col)
    table = pa.Table.from_arrays(columns, schema=pa.schema(fields, metadata=table.schema.metadata))
    options = dict(compression="none", row_group_size=max(len(df), 1),
                   use_dictionary=dictionary or False, write_statistics=False,
                   data_page_size=_PAGE_BYTES, data_page_version="1.0")
    if "max_rows_per_page" in inspect.signature(pq.write_table).parameters:   # pyarrow >= 21
        options["max_rows_per_page"] = _PAGE_BYTES // 8     # else pages of 20 000 rows
    pq.write_table(table, path, **options)


def _copy_chunk(mm, chunk, dst: np.ndarray, physical: np.dtype) -> int:
    """Copy the values of one column chunk into ``dst``; returns how many were copied."""
    if chunk.compression != "UNCOMPRESSED" or chunk.has_dictionary_page:
        raise PageLayoutError("compressed or dictionary-encoded chunk")
    pos = chunk.data_page_offset
    end = pos + chunk.total_compressed_size
    if pos < 0 or end > len(mm):
        raise PageLayoutError("column chunk outside the file")
    n = 0
    while pos < end:
        head, data = read_page_header(mm, pos, end)
        size = head["compressed_page_size"]
        if size < 0 or data + size > end:
            raise PageLayoutError("page runs past its column chunk")
        if head["type"] != _PAGE_DATA or head.get("encoding") != _ENCODING_PLAIN:
            raise PageLayoutError("not a PLAIN version-1 data page")
        count = head.get("num_values", -1)
        if count < 0 or count * physical.itemsize != size or n + count > len(dst):
            raise PageLayoutError("page size does not match its value count")
        src = np.frombuffer(mm, physical, count, data)
        np.copyto(dst[n:n + count], src, casting="unsafe")
        n += count
        pos = data + size
    return n


def _plain_strings(mm, pos: int, end: int, count: int) -> list[str]:
    """``count`` PLAIN ``BYTE_ARRAY`` values (u32 length + bytes) of ``mm[pos:end]``."""
    out = []
    for _ in range(count):
        if pos + 4 > end:
            raise PageLayoutError("dictionary page runs past its end")
        n = int.from_bytes(mm[pos:pos + 4], "little")
        pos += 4
        if pos + n > end:
            raise PageLayoutError("dictionary page runs past its end")
        try:
            out.append(mm[pos:pos + n].decode("utf-8"))
        except UnicodeDecodeError:
            raise PageLayoutError("dictionary value is not UTF-8") from None
        pos += n
    return out


def _dictionary_chunk(mm, buf: np.ndarray, chunk, nrows: int, categories_dtype) -> pd.Categorical:
    """A dictionary-encoded string column chunk (dictionary page, then data pages of
    RLE/bit-packed indices) as a pandas Categorical."""
    if chunk.compression != "UNCOMPRESSED" or not chunk.has_dictionary_page:
        raise PageLayoutError("compressed chunk or no dictionary page")
    pos = chunk.dictionary_page_offset
    end = pos + chunk.total_compressed_size
    if pos is None or pos < 0 or end > len(mm):
        raise PageLayoutError("column chunk outside the file")
    head, data = read_page_header(mm, pos, end)
    size = head["compressed_page_size"]
    if (head["type"] != _PAGE_DICTIONARY or data + size > end or size < 0
            or head.get("encoding") not in (_ENCODING_PLAIN, _ENCODING_PLAIN_DICTIONARY)):
        raise PageLayoutError("not a PLAIN dictionary page")
    categories = _plain_strings(mm, data, data + size, head.get("num_values", -1))
    pos = data + size
    codes = empty_small_pages(nrows, np.int32)
    n = 0
    while pos < end:
        head, data = read_page_header(mm, pos, end)
        size = head["compressed_page_size"]
        count = head.get("num_values", -1)
        if (head["type"] != _PAGE_DATA or size < 1 or data + size > end or count < 0
                or n + count > nrows
                or head.get("encoding") not in (_ENCODING_RLE_DICTIONARY, _ENCODING_PLAIN_DICTIONARY)):
            raise PageLayoutError("not a dictionary-index data page")
        if rle_hybrid_decode(buf, data + 1, data + size, int(buf[data]), codes, n, count) < 0:
            raise PageLayoutError("malformed RLE/bit-packed indices")
        n += count
        pos = data + size
    if n != nrows or (nrows and (codes.min() < 0 or codes.max() >= len(categories))):
        raise PageLayoutError("dictionary indices do not cover the rows or the dictionary")
    try:
        return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=categories_dtype))
    except (ValueError, TypeError):     # e.g. repeated dictionary values
        raise PageLayoutError("dictionary values are not distinct categories") from None


def _pyarrow_frame(pf, columns=None) -> pd.DataFrame:
    import pyarrow as pa
    # Arrow's default allocator (mimalloc in the wheels) was measured 1.5-2x slower than
    # the C library's malloc at filling fresh memory here: the system pool is used, and the
    # caller's default pool restored at once
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        table = pf.read(columns=columns, use_threads=True)
        return table.to_pandas(split_blocks=True, self_destruct=True)
    finally:
        pa.set_memory_pool(previous)


def _string_dtype():
    """The dtype pyarrow gives the categories of a dictionary<string> column."""
    global _STRING_DTYPE
    if _STRING_DTYPE is None:
        import pyarrow as pa
        arr = pa.array(["x"]).dictionary_encode()
        _STRING_DTYPE = arr.to_pandas().cat.categories.dtype
    return _STRING_DTYPE


_STRING_DTYPE = None


def read_frame(path: str | os.PathLike, ts_column: str = "__ts") -> tuple[pd.DataFrame, int]:
    """Read a cache file into a DataFrame indexed by ``Time`` (``ts_column`` / 1e9).

    Returns ``(frame, copied)``: ``copied`` is the number of columns read here (numeric
    columns copied, dictionary-encoded strings decoded by :mod:`._parquet_rle`); the others
    were decoded by pyarrow.
    """
    import pyarrow.parquet as pq
    path = Path(path)
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        pf = pq.ParquetFile(str(path), memory_map=True)
        md = pf.metadata
        schema = pf.schema_arrow
        nrows = md.num_rows
        plan = []           # (name, column index, numpy dtype, physical dtype)
        strings = []        # (name, column index): dictionary-encoded strings
        if md.num_columns == len(schema):
            for i, field in enumerate(schema):
                kind = _NUMERIC.get(str(field.type))
                col = pf.schema.column(i)
                if col.max_definition_level or col.max_repetition_level or col.name != field.name:
                    continue
                if kind is not None and col.physical_type == kind[1]:
                    plan.append((field.name, i, np.dtype(kind[0]), _PHYSICAL[kind[1]]))
                elif (str(field.type).startswith("dictionary<values=string")
                      and col.physical_type == "BYTE_ARRAY" and md.num_row_groups == 1):
                    strings.append((field.name, i))
        # one block: the copied columns and the Time index, 64-byte aligned
        offsets, total = [], 0
        for _, _, dtype, _ in plan + [(None, None, np.dtype("f8"), None)]:
            offsets.append(total)
            total += -(-nrows * dtype.itemsize // 64) * 64
        block = empty_small_pages(max(total, 1), np.uint8, populate=True)
        copied: dict[str, np.ndarray] = {}
        for (name, i, dtype, physical), off in zip(plan, offsets):
            dst = block[off:off + nrows * dtype.itemsize].view(dtype)
            try:
                n = 0
                for rg in range(md.num_row_groups):
                    n += _copy_chunk(mm, md.row_group(rg).column(i), dst[n:], physical)
                if n != nrows:
                    raise PageLayoutError("column chunks do not hold every row")
            except PageLayoutError:
                continue
            copied[name] = dst
        if strings:
            buf = np.frombuffer(mm, np.uint8)
            for name, i in strings:
                try:
                    copied[name] = _dictionary_chunk(mm, buf, md.row_group(0).column(i), nrows,
                                                     _string_dtype())
                except PageLayoutError:
                    continue
            del buf
        rest = [f.name for f in schema if f.name not in copied]
        decoded = _pyarrow_frame(pf, rest) if rest else None
    cols = {name: (copied[name] if name in copied else decoded[name]) for name in schema.names}
    df = pd.DataFrame(cols, copy=False) if cols else pd.DataFrame(index=range(nrows))
    seconds = block[offsets[-1]:offsets[-1] + nrows * 8].view(np.float64)
    if ts_column in df.columns:
        np.divide(df[ts_column].to_numpy(), 1e9, out=seconds)
        df.index = pd.Index(seconds, name="Time", copy=False)
    return df, len(copied)
