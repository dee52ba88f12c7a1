"""Write a trace-cmd ``trace.dat`` (file format version 6) from raw ring-buffer pages.

Used when the target has no ``trace-cmd``: the collector reads
``per_cpu/cpu*/trace_pipe_raw`` (whole ring-buffer pages, exactly what ``trace-cmd``
itself stores) plus the ``format`` files, and this module lays them out in the v6
layout that ``trace-cmd report`` and :func:`lisa_eas.trace.read_trace` read.

Layout written (all integers little-endian, as the target's pages are):
magic ``17 08 44 'tracing'``, version ``"6\\0"``, endianness byte, ``sizeof(long)``,
page size (u32); ``"header_page\\0"`` + u64 size + text; ``"header_event\\0"`` + u64 size +
text; u32 count of ftrace formats, each u64 size + text; u32 count of event systems,
each name NUL-terminated + u32 count + (u64 size + text) per event; u32 size + kallsyms;
u32 size + printk formats; u64 size + saved cmdlines; u32 CPU count; ``"options  \\0"``
then options (u16 id, u32 size, data) ended by id 0; ``"flyrecord\\0"``; per CPU u64 offset +
u64 size; then each CPU's pages, page aligned.
"""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Mapping, Sequence

from .._atomic import write_bytes_atomic

__all__ = ["build_trace_dat_v6", "page_size_from_header"]

_MAGIC = b"\x17\x08\x44tracing"
_OPTION_TRACECLOCK = 4  # trace-cmd option ids: the trace_clock file text,
_OPTION_UNAME = 5       # and "sysname nodename release version machine"


def page_size_from_header(header_page: bytes) -> tuple[int, int]:
    """(page size, size of the commit field = sizeof(long)) from ``events/header_page``."""
    page, long_size = 4096, 8
    for line in header_page.decode(errors="replace").splitlines():
        parts = {k.strip(): v.strip() for k, _, v in
                 (p.partition(":") for p in line.strip().split(";") if ":" in p)}
        field = parts.get("field", "")
        if field.endswith("commit") and "size" in parts:
            long_size = int(parts["size"])
        if field.endswith("data") and "offset" in parts and "size" in parts:
            page = int(parts["offset"]) + int(parts["size"])
    return page, long_size


def build_trace_dat_v6(path: Path, *, header_page: bytes, header_event: bytes,
                       ftrace_formats: Sequence[bytes], systems: Mapping[str, Sequence[bytes]],
                       cpu_pages: Sequence[bytes], printk_formats: bytes = b"",
                       saved_cmdlines: bytes = b"", kallsyms: bytes = b"",
                       trace_clock: bytes = b"", uname: str = "") -> dict:
    """Write ``path`` as a trace.dat v6 file; returns a summary (CPUs, bytes per CPU).

    Parameters
    ----------
    header_page, header_event : bytes
        Contents of ``events/header_page`` and ``events/header_event``.
    ftrace_formats : sequence of bytes
        ``events/ftrace/*/format`` files (print, bprint, ...).
    systems : mapping of str to sequence of bytes
        Event system name -> the ``format`` files of its recorded events.
    cpu_pages : sequence of bytes
        Per CPU (index = CPU id), the bytes read from ``trace_pipe_raw``.
    printk_formats, saved_cmdlines, kallsyms, trace_clock : bytes
        Optional tables (``printk_formats``, ``saved_cmdlines``, ``/proc/kallsyms``,
        the ``trace_clock`` file).
    uname : str
        ``uname -snrvm`` of the target (stored as trace-cmd's UNAME option).
    """
    page, long_size = page_size_from_header(header_page)
    out = bytearray()
    out += _MAGIC + b"6\0" + bytes([0, long_size]) + struct.pack("<I", page)
    out += b"header_page\0" + struct.pack("<Q", len(header_page)) + header_page
    out += b"header_event\0" + struct.pack("<Q", len(header_event)) + header_event
    out += struct.pack("<I", len(ftrace_formats))
    for fmt in ftrace_formats:
        out += struct.pack("<Q", len(fmt)) + fmt
    out += struct.pack("<I", len(systems))
    for name, fmts in systems.items():
        out += name.encode() + b"\0" + struct.pack("<I", len(fmts))
        for fmt in fmts:
            out += struct.pack("<Q", len(fmt)) + fmt
    out += struct.pack("<I", len(kallsyms)) + kallsyms
    out += struct.pack("<I", len(printk_formats)) + printk_formats
    out += struct.pack("<Q", len(saved_cmdlines)) + saved_cmdlines
    out += struct.pack("<I", len(cpu_pages))
    out += b"options  \0"
    if trace_clock:
        clock = trace_clock.rstrip(b"\n") + b"\n\0"
        out += struct.pack("<HI", _OPTION_TRACECLOCK, len(clock)) + clock
    if uname:
        text = uname.strip().encode() + b"\0"
        out += struct.pack("<HI", _OPTION_UNAME, len(text)) + text
    out += struct.pack("<H", 0)
    out += b"flyrecord\0"
    table_at = len(out)
    out += b"\0" * (16 * len(cpu_pages))
    sizes = []
    for cpu, data in enumerate(cpu_pages):
        if len(data) % page:
            data = data + b"\0" * (page - len(data) % page)
        pad = (-len(out)) % page
        out += b"\0" * pad
        struct.pack_into("<QQ", out, table_at + 16 * cpu, len(out), len(data))
        out += data
        sizes.append(len(data))
    write_bytes_atomic(Path(path), bytes(out))
    return {"cpus": len(cpu_pages), "page_size": page, "bytes_per_cpu": sizes}
