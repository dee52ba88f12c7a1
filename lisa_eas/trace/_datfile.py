"""The trace-cmd ``trace.dat`` container, file versions 6 and 7.

This module reads everything around the ring-buffer pages: the initial header, the
header_page/header_event descriptions, event formats, printk formats, saved command
lines, options (clock, uname, CPU stats, offsets) and where each CPU's pages are. In
version 7 these live in (possibly zlib/zstd-compressed) sections reached from option
sections, and the per-CPU page data may be compressed in chunks. Written from the
``trace-cmd.dat.v6(5)``/``trace-cmd.dat.v7(5)`` descriptions.
"""
from __future__ import annotations

import mmap
import os
import re
import struct
import zlib
from dataclasses import dataclass, field

from ..errors import TraceError
from ._format import EventFormat, parse_format, parse_header_page

__all__ = ["DatFile", "open_dat", "MAGIC"]

MAGIC = b"\x17\x08\x44tracing"

# option ids (shared by v6 options and v7 option sections)
OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME = 0, 1, 2, 3, 4, 5
OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION = 7, 8, 9
OPT_HEADER_INFO, OPT_FTRACE_EVENTS, OPT_EVENT_FORMATS = 16, 17, 18
OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES, OPT_BUFFER_TEXT = 19, 20, 21, 22
SEC_OPTIONS = 0
_MAX_ITEMS = 1 << 20   # sanity bound on counts read from the file
_MAX_CPUS = 1 << 16
_ID_RE = re.compile(rb"^ID:\s*(\d+)", re.M)


@dataclass
class DatFile:
    """Everything a ``trace.dat`` says about its trace, plus where its pages are."""

    path: str
    version: int
    big_endian: bool
    long_size: int
    page_size: int
    compression: str
    header_page: dict
    format_texts: dict = field(default_factory=dict)   # id -> (system, (buf, pos, size), offset)
    formats: dict = field(default_factory=dict)        # id -> EventFormat (parsed on demand)
    printk: dict = field(default_factory=dict)          # address -> format string
    cmdlines: dict = field(default_factory=dict)        # pid -> comm
    options: dict = field(default_factory=dict)         # name -> value
    cpu_stats: dict = field(default_factory=dict)       # cpu -> stats text
    # per-CPU page data: (cpu, start, size) ranges into ``raw`` (and ``data``)
    cpu_ranges: list = field(default_factory=list)
    raw: object = None      # the page data as a buffer: the mapped file or the decompressed block
    nr_cpus: int = 0
    clock: str = ""
    warnings: list = field(default_factory=list)
    page_size_offset: int = -1      # byte offset of the file header's page size (-1: a v7 option)
    _array: object = field(default=None, repr=False)

    @property
    def data(self):
        """The page data as a ``uint8`` numpy array over :attr:`raw` (None when there is none;
        numpy is imported here, not by reading the file's metadata)."""
        if self._array is None and self.raw is not None:
            import numpy as np

            self._array = self.raw if isinstance(self.raw, np.ndarray) else np.frombuffer(self.raw, np.uint8)
        return self._array

    def get_format(self, event_id: int) -> EventFormat | None:
        """The parsed format of ``event_id`` (None if the file has none or it is unreadable)."""
        fmt = self.formats.get(event_id)
        if fmt is None and event_id in self.format_texts:
            system, (buf, pos, size), where = self.format_texts.pop(event_id)
            text = bytes(buf[pos:pos + size]).decode("utf-8", "replace")
            try:
                fmt = parse_format(text, system, int(self.header_page["commit"][1]))
            except TraceError as exc:
                self.warnings.append(("bad_format", where, str(exc)))
                return None
            self.formats[event_id] = fmt
        return fmt

    def any_format(self) -> EventFormat | None:
        """Some parsed format (to read the layout of the common header fields)."""
        for eid in list(self.formats) + list(self.format_texts):
            fmt = self.get_format(eid)
            if fmt is not None:
                return fmt
        return None


class _Cursor:
    """Bounds-checked little/big-endian reads over a bytes-like object."""

    def __init__(self, buf, pos: int, path: str, big: bool = False, base: int = 0, what: str = ""):
        self.buf, self.pos, self.path, self.base, self.what = buf, pos, path, base, what
        self.e = ">" if big else "<"

    def fail(self, msg: str):
        where = f" ({self.what})" if self.what else ""
        raise TraceError(f"{self.path}: byte offset {self.base + self.pos}{where}: {msg}; "
                         "the file is truncated or corrupt (re-extract it with trace-cmd)")

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.buf):
            self.fail(f"needs {n} more bytes, only {len(self.buf) - self.pos} left")
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def u16(self):
        return struct.unpack(self.e + "H", self.take(2))[0]

    def u32(self):
        return struct.unpack(self.e + "I", self.take(4))[0]

    def u64(self):
        return struct.unpack(self.e + "Q", self.take(8))[0]

    def cstr(self) -> str:
        end = self.buf.find(b"\0", self.pos) if isinstance(self.buf, (bytes, mmap.mmap)) \
            else bytes(self.buf[self.pos:]).find(b"\0") + self.pos
        if end < 0 or end < self.pos:
            self.fail("string without terminating NUL")
        s = bytes(self.buf[self.pos:end]).decode("utf-8", "replace")
        self.pos = end + 1
        return s

    def count(self, n: int, what: str) -> int:
        if n > _MAX_ITEMS:
            self.fail(f"implausible {what} count {n}")
        return n


def _decompressor(algo: str, path: str):
    """``decompress(data, usize, where) -> bytes`` for the file's algorithm, one
    decompression context for the whole file (creating one per chunk cost more than the
    decompression itself)."""
    if algo == "zstd":
        import zstandard
        dctx = zstandard.ZstdDecompressor()

        def run(data, usize):
            return dctx.decompress(data, max_output_size=max(usize, 1))
    elif algo == "zlib":
        def run(data, usize):
            return zlib.decompress(data)
    else:
        raise TraceError(f"{path}: unsupported compression {algo!r}; convert the file with "
                         "`trace-cmd convert --compression none`")

    def decompress(data: bytes, usize: int, where: int) -> bytes:
        _check_usize(usize, len(data), path, where)
        try:
            out = run(data, usize)
        except Exception as exc:  # zstd/zlib raise their own types on corrupt input
            raise TraceError(f"{path}: byte offset {where}: cannot decompress ({exc})") from None
        if len(out) != usize:
            raise TraceError(f"{path}: byte offset {where}: decompressed {len(out)} bytes, "
                             f"header says {usize}")
        return out
    return decompress


def _check_usize(usize: int, csize: int, path: str, where: int) -> None:
    if usize > max(1024 * csize, 1 << 20) or usize > 1 << 34:
        raise TraceError(f"{path}: byte offset {where}: implausible uncompressed size {usize} "
                         f"for {csize} compressed bytes")


def _decompress(algo: str, data: bytes, usize: int, path: str, where: int) -> bytes:
    return _decompressor(algo, path)(data, usize, where)


def _parse_printk(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        addr, sep, fmt = line.partition(":")
        if not sep:
            continue
        try:
            a = int(addr.strip(), 16)
        except ValueError:
            continue
        fmt = fmt.strip()
        if len(fmt) >= 2 and fmt[0] == '"' and fmt[-1] == '"':
            fmt = fmt[1:-1]
        out[a] = _unescape_c(fmt)
    return out


def _unescape_c(s: str) -> str:
    if "\\" not in s:
        return s
    table = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "r": "\r", "'": "'"}
    return re.sub(r"\\(.)", lambda m: table.get(m.group(1), "\\" + m.group(1)), s)


def _parse_cmdlines(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        pid, _, comm = line.strip().partition(" ")
        if pid.lstrip("-").isdigit():
            out[int(pid)] = comm
    return out


class _Reader:
    def __init__(self, path: str, mm, buffer: str | None = None):
        self.path, self.mm, self.buffer = path, mm, buffer
        self.c = _Cursor(mm, 0, path, what="initial header")

    def read(self) -> DatFile:
        c = self.c
        if len(self.mm) < 10 or self.mm[:10] != MAGIC:
            raise TraceError(f"{self.path}: not a trace-cmd trace.dat file (wrong magic at byte "
                             "0); "
                             "for text traces use a .txt/.html name or pass format='text'")
        c.pos = 10
        ver = c.cstr()
        if ver not in ("6", "7"):
            raise TraceError(f"{self.path}: byte offset 10: unsupported trace.dat version {ver!r} "
                             "(supported: 6, 7); convert it with "
                             "`trace-cmd convert --file-version 7`")
        endian = c.take(1)[0]
        long_size = c.take(1)[0]
        big = endian == 1
        c.e = ">" if big else "<"
        page_size_offset = c.base + c.pos
        page_size = c.u32()
        if endian not in (0, 1) or long_size not in (4, 8) or not 256 <= page_size <= 1 << 24:
            c.fail(f"bad initial header (endian={endian} long={long_size} page={page_size})")
        self.dat = DatFile(self.path, int(ver), big, long_size, page_size, "none", {})
        self.dat.page_size_offset = page_size_offset
        if ver == "6":
            self._read_v6()
        else:
            self._read_v7()
        return self.dat

    # -- common blocks ------------------------------------------------------------
    def _header_info(self, c: _Cursor):
        if c.take(12) != b"header_page\0":
            c.fail("expected 'header_page'")
        n = c.u64()
        hp = c.take(n).decode("utf-8", "replace")
        if c.take(13) != b"header_event\0":
            c.fail("expected 'header_event'")
        n = c.u64()
        c.take(n)
        layout = parse_header_page(hp)
        ts_off, ts_size = layout["timestamp"]
        commit_off, commit_size = layout["commit"]
        data_off = layout["data"][0]
        if (ts_size != 8 or commit_size not in (4, 8) or ts_off + 8 > data_off
                or commit_off + commit_size > data_off or data_off >= self.dat.page_size):
            c.fail(f"header_page describes an impossible page layout {layout}")
        self.dat.header_page = layout

    def _formats(self, c: _Cursor, system: str, count: int):
        # only the ID is read now; a format is parsed when an event of that id is decoded
        buf, pos, n = c.buf, c.pos, len(c.buf)
        unpack = struct.Struct(c.e + "Q").unpack_from
        for _ in range(count):
            if pos + 8 > n:
                c.pos = pos
                c.fail("event format size cut by the end of the data")
            size = unpack(buf, pos)[0]
            pos += 8
            if pos + size > n:
                c.pos = pos
                c.fail(f"event format of {size} bytes runs past the end of the data")
            m = _ID_RE.search(bytes(buf[pos:pos + min(size, 512)]))
            if m is None:
                self.dat.warnings.append(("bad_format", c.base + pos,
                                          "event format without an ID line"))
            else:
                self.dat.format_texts[int(m.group(1))] = (system, (buf, pos, size), c.base + pos)
            pos += size
        c.pos = pos

    def _ftrace_events(self, c: _Cursor):
        n = c.count(c.u32(), "ftrace format")
        self._formats(c, "ftrace", n)

    def _event_formats(self, c: _Cursor):
        nsys = c.count(c.u32(), "event system")
        for _ in range(nsys):
            system = c.cstr()
            n = c.count(c.u32(), "event format")
            self._formats(c, system, n)

    def _kallsyms(self, c: _Cursor):
        n = c.u32()
        c.take(n)

    def _printk(self, c: _Cursor):
        n = c.u32()
        self.dat.printk = _parse_printk(c.take(n).decode("utf-8", "replace"))

    def _cmdlines(self, c: _Cursor):
        n = c.u64()
        self.dat.cmdlines = _parse_cmdlines(c.take(n).decode("utf-8", "replace"))

    def _option(self, oid: int, data: bytes, c: _Cursor):
        d = self.dat
        txt = data.split(b"\0", 1)[0].decode("utf-8", "replace")
        if oid == OPT_TRACECLOCK:
            m = re.search(r"\[(\S+)\]", txt)
            d.clock = m.group(1) if m else txt.strip()
        elif oid == OPT_UNAME:
            d.options["uname"] = txt
        elif oid == OPT_CPUSTAT:
            m = re.match(r"CPU:\s*(\d+)", txt)
            if m:
                d.cpu_stats[int(m.group(1))] = txt
        elif oid == OPT_OFFSET:
            try:
                d.options["offset"] = int(txt.strip(), 0)
            except ValueError:
                pass
        elif oid == OPT_DATE:
            d.options["date"] = txt
        elif oid == OPT_CPUCOUNT and len(data) >= 4:
            d.options["cpucount"] = struct.unpack(c.e + "I", data[:4])[0]
        elif oid == OPT_VERSION:
            d.options["tracer_version"] = txt

    # -- version 6 ----------------------------------------------------------------
    def _read_v6(self):
        c, d = self.c, self.dat
        c.what = "v6 header"
        self._header_info(c)
        self._ftrace_events(c)
        self._event_formats(c)
        self._kallsyms(c)
        self._printk(c)
        self._cmdlines(c)
        d.nr_cpus = c.count(c.u32(), "CPU")
        tag = c.take(10)
        instances = []
        if tag == b"options  \0":
            while True:
                oid = c.u16()
                if oid == 0:
                    break
                size = c.u32()
                data = c.take(size)
                if oid == OPT_BUFFER and len(data) > 8:
                    off = struct.unpack(c.e + "Q", data[:8])[0]
                    instances.append((off, data[8:].split(b"\0", 1)[0].decode("utf-8", "replace")))
                    continue
                self._option(oid, data, c)
            tag = c.take(10)
        if tag == b"latency  \0":
            raise TraceError(f"{self.path}: latency-format trace.dat (text inside); read it with "
                             "`trace-cmd report` and pass the text file instead")
        if tag != b"flyrecord\0":
            c.pos -= 10
            c.fail(f"expected 'flyrecord', found {tag!r}")
        ranges = self._v6_cpu_table(c)
        d.options["buffers"] = [""] + [name for _, name in instances]
        if self.buffer:
            match = [(o, nm) for o, nm in instances if nm == self.buffer]
            if not match:
                raise TraceError(f"{self.path}: no buffer named {self.buffer!r}; the file has "
                                 f"{d.options['buffers']}")
            instances = match
            ranges = [(cpu, 0, 0) for cpu, _, _ in ranges]
        if not any(size for _, _, size in ranges) and self.buffer != "":
            # nothing in the top buffer: read the first instance (trace-cmd extract -B NAME)
            for off, name in instances:
                ic = _Cursor(self.mm, off, self.path, d.big_endian, what=f"instance {name!r}")
                if ic.take(10) != b"flyrecord\0":
                    ic.fail("expected 'flyrecord' at the start of an instance buffer")
                ranges = self._v6_cpu_table(ic)
                if any(size for _, _, size in ranges):
                    d.options["instance"] = name
                    break
        self._set_uncompressed_ranges(ranges)

    def _v6_cpu_table(self, c: _Cursor) -> list:
        d = self.dat
        ranges = [(cpu, c.u64(), c.u64()) for cpu in range(d.nr_cpus)]
        # newer writers follow the table with the buffer's trace_clock text
        if c.pos + 8 <= len(self.mm):
            n = struct.unpack_from(c.e + "Q", self.mm, c.pos)[0]
            if 0 < n < 4096 and c.pos + 8 + n <= len(self.mm):
                m = re.search(rb"\[(\S+)\]", bytes(self.mm[c.pos + 8:c.pos + 8 + n]))
                if m:
                    d.clock = m.group(1).decode("ascii", "replace")
        return ranges

    def _set_uncompressed_ranges(self, ranges):
        d = self.dat
        n = len(self.mm)
        d.raw = self.mm
        for cpu, off, size in ranges:
            if size == 0:
                continue
            if cpu >= _MAX_CPUS:
                d.warnings.append(("bad_cpu_id", off, f"CPU id {cpu} is implausible"))
                continue
            if off > n:
                d.warnings.append(("cpu_data_outside_file", off,
                                   f"CPU {cpu} data starts past the end"))
                continue
            if off + size > n:
                d.warnings.append(("truncated_cpu_data", n, f"CPU {cpu} data cut at end of file"))
                size = n - off
            d.cpu_ranges.append((cpu, off, size))

    # -- version 7 ----------------------------------------------------------------
    def _section(self, off: int, expect: int | None = None) -> _Cursor:
        """Cursor over the (decompressed) content of the section at file offset ``off``."""
        c = _Cursor(self.mm, off, self.path, self.dat.big_endian, what="section header")
        sid = c.u16()
        flags = c.u16()
        c.u32()  # description string id
        size = c.u64()
        if expect is not None and sid != expect:
            c.fail(f"section id {sid}, expected {expect}")
        start = c.pos
        if flags & 1:
            csize, usize = c.u32(), c.u32()
            raw = c.take(csize)
            data = _decompress(self.dat.compression, raw, usize, self.path, start)
            return _Cursor(data, 0, self.path, self.dat.big_endian, base=start,
                           what=f"compressed section {sid}")
        if start + size > len(self.mm):
            c.fail(f"section of {size} bytes runs past the end of the file")
        return _Cursor(self.mm, start, self.path, self.dat.big_endian, what=f"section {sid}")

    def _read_v7(self):
        c, d = self.c, self.dat
        c.what = "v7 header"
        algo = c.cstr()
        c.cstr()  # compression version
        d.compression = algo if algo else "none"
        opt_off = c.u64()
        sections = {}
        buffers = []
        seen = set()
        while opt_off and opt_off not in seen:
            seen.add(opt_off)
            oc = self._section(opt_off, SEC_OPTIONS)
            opt_off = 0
            while True:
                oid = oc.u16()
                size = oc.u32()
                data = oc.take(size)
                if oid == OPT_DONE:
                    opt_off = struct.unpack(oc.e + "Q", data[:8])[0] if len(data) >= 8 else 0
                    break
                if oid in (OPT_HEADER_INFO, OPT_FTRACE_EVENTS, OPT_EVENT_FORMATS, OPT_KALLSYMS,
                           OPT_PRINTK, OPT_CMDLINES) and len(data) >= 8:
                    sections[oid] = struct.unpack(oc.e + "Q", data[:8])[0]
                elif oid == OPT_BUFFER:
                    buffers.append(self._buffer_option(data, oc))
                elif oid == OPT_BUFFER_TEXT:
                    raise TraceError(f"{self.path}: latency-format trace.dat (text inside); read "
                                     "it with `trace-cmd report` and pass the text file instead")
                else:
                    self._option(oid, data, oc)
        if OPT_HEADER_INFO not in sections:
            raise TraceError(f"{self.path}: v7 file without a HEADER_INFO section; it is truncated "
                             "or was not finished by trace-cmd")
        self._header_info(self._section(sections[OPT_HEADER_INFO], OPT_HEADER_INFO))
        for oid, fn in ((OPT_FTRACE_EVENTS, self._ftrace_events),
                        (OPT_EVENT_FORMATS, self._event_formats),
                        (OPT_PRINTK, self._printk), (OPT_CMDLINES, self._cmdlines)):
            if oid in sections:
                fn(self._section(sections[oid], oid))
        # the top instance if it holds data, else the first instance that does
        d.options["buffers"] = [b["name"] for b in buffers]
        if self.buffer is not None:
            top = [b for b in buffers if b["name"] == self.buffer]
            if not top:
                raise TraceError(f"{self.path}: no buffer named {self.buffer!r}; the file has "
                                 f"{d.options['buffers']}")
        else:
            top = [b for b in buffers if b["name"] == "" and any(sz for _, _, sz in b["cpus"])]
            top = top or [b for b in buffers if any(sz for _, _, sz in b["cpus"])] or buffers[:1]
        if top and top[0]["name"]:
            d.options["instance"] = top[0]["name"]
        if not top:
            d.nr_cpus = d.options.get("cpucount", 0)
            d.raw = b""
            return
        buf = top[0]
        if buf["clock"]:
            d.clock = buf["clock"]
        if buf["page_size"]:
            if not 256 <= buf["page_size"] <= 1 << 24:
                raise TraceError(f"{self.path}: BUFFER option: implausible page size "
                                 f"{buf['page_size']}; the file is corrupt")
            d.page_size = buf["page_size"]
            d.page_size_offset = -1
        d.nr_cpus = max(d.options.get("cpucount", 0), len(buf["cpus"]),
                        max((cpu + 1 for cpu, _, _ in buf["cpus"]), default=0))
        if d.compression == "none":
            self._set_uncompressed_ranges(buf["cpus"])
        else:
            self._set_compressed_ranges(buf["cpus"])

    def _buffer_option(self, data: bytes, oc: _Cursor) -> dict:
        bc = _Cursor(data, 0, self.path, self.dat.big_endian, base=oc.base + oc.pos - len(data),
                     what="BUFFER option")
        bc.u64()
        name = bc.cstr()
        clock = bc.cstr()
        page_size = bc.u32()
        n = bc.count(bc.u32(), "CPU")
        cpus = []
        for _ in range(n):
            cpu = bc.u32()
            off = bc.u64()
            size = bc.u64()
            cpus.append((cpu, off, size))
        return {"name": name, "clock": clock, "page_size": page_size, "cpus": cpus}

    def _set_compressed_ranges(self, cpus):
        """Decompress every CPU's chunks into one block: the chunk headers are read first
        (their sizes give the block's size), then each chunk is decompressed and copied into
        place. A corrupt chunk ends its CPU's data there, with a warning."""
        d = self.dat
        plan, total, ctotal = [], 0, 0
        for cpu, off, size in cpus:
            if size == 0:
                continue
            if cpu >= _MAX_CPUS:
                d.warnings.append(("bad_cpu_id", off, f"CPU id {cpu} is implausible"))
                continue
            c = _Cursor(self.mm, off, self.path, d.big_endian, what=f"CPU {cpu} compressed data")
            chunks, error = [], None
            try:
                nchunks = c.count(c.u32(), "chunk")
                for _ in range(nchunks):
                    csize, usize = c.u32(), c.u32()
                    where = c.pos
                    data = c.take(csize)
                    _check_usize(usize, csize, self.path, where)
                    chunks.append((where, data, usize))
                    total += usize
                    ctotal += csize
            except TraceError as exc:
                error = (c.pos, str(exc))
            plan.append((cpu, chunks, error))
        import numpy as np

        from ._memory import empty_small_pages
        # mapped in one call unless the headers claim an implausible ratio (a damaged file:
        # then only what is actually written becomes resident)
        out = empty_small_pages(total, np.uint8, populate=total <= 64 * ctotal + (64 << 20))
        decompress = _decompressor(d.compression, self.path) if total else None
        pos = 0
        for cpu, chunks, error in plan:
            start = pos
            for where, data, usize in chunks:
                try:
                    chunk = decompress(data, usize, where)
                except TraceError as exc:
                    error = (where + len(data), str(exc))
                    break
                out[pos:pos + usize] = np.frombuffer(chunk, np.uint8)
                pos += usize
            if error is not None:
                d.warnings.append(("corrupt_compressed_data",) + error)
            if pos > start:
                d.cpu_ranges.append((cpu, start, pos - start))
        d.raw = out[:pos]


def open_dat(path: str | os.PathLike, buffer: str | None = None) -> DatFile:
    """Read the metadata of a ``trace.dat`` file (v6 or v7) and map its page data.

    Parameters
    ----------
    path : path-like
        The ``trace.dat`` file.
    buffer : str, optional
        The tracefs instance to read (``""`` for the top buffer). By default the top
        buffer if it holds data, else the first instance that does.

    Returns
    -------
    DatFile

    Raises
    ------
    TraceError
        Wrong magic, unknown version, or a header that is truncated or corrupt; the
        message names the file and the byte offset.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                raise TraceError(f"{path}: empty file, not a trace")
            # not populated here: the reader maps each CPU's pages in (one madvise call,
            # not a fault per page) just before walking them and drops them after
            mm = mmap.mmap(fh.fileno(), 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
    except OSError as exc:
        raise TraceError(f"{path}: cannot open trace ({exc.strerror})") from None
    return _Reader(path, mm, buffer).read()
