"""``lisa-eas trace info`` on a small trace.dat without decoding it: a plain-Python walk of
the ring-buffer pages that counts the records of each event and keeps their first and last
time stamps, on top of the reader's own container parsing (:mod:`._datfile`), record layout,
page-size check, skip bookkeeping and metadata (:mod:`._datpages`).

A fresh process that decodes a trace pays ~0.6-1 CPU-s importing numpy, pandas and numba
and setting numba up before its first byte; this walk imports none of them (the standard
library only), so a small file's summary costs little more than the interpreter's start.

The answer is the full reader's (:func:`lisa_eas.trace.read_trace`) or nothing:
:func:`summarize_trace` returns ``None`` (the caller then decodes) for anything but a
plain trace.dat file of at most :data:`MAX_WALK_BYTES` of page data (beyond that the walk
costs more than a cached trace's answer), and whenever the full reader's answer depends on the
fields it decodes: a record too short for an integer field, a ``__data_loc`` span outside
its record, a ``bprint`` whose format address the file does not hold (the reader reports
those in :attr:`Trace.skipped`), a strict read with anything to report, or any error (the
reader then raises its own). ``tests/test_trace_info_count.py`` holds the two answers equal
on every trace of ``tests/data`` and on damaged variants of them.
"""
from __future__ import annotations

import os
import struct
from array import array
from collections import Counter
from dataclasses import dataclass, field
from operator import gt
from pathlib import Path

from ._datfile import DatFile, open_dat
from ._datpages import (ABS_TS_MASK, NDIAG_WALK, RB_MISSED_EVENTS, RB_MISSED_STORED,
                        add_unknown_skips, add_walk_skips, dat_metadata, record_layout, run_ends,
                        walk_chunks)
from ._format import ARR_LOC, BIN_TAIL, INT, STR_LOC, EventFormat
from ._skips import SkipReport

__all__ = ["TraceSummary", "summarize_trace", "MAX_WALK_BYTES"]

#: page data (bytes, all CPUs) up to which ``trace info`` walks the pages in Python. Measured
#: (2026-11-26, load 8): ~0.6 us a record walked and tallied, 0.18 CPU-s for 16 MiB of pages
#: as full as the bundled 3,724-event trace's (298k records); a fresh decode costs a fixed
#: ~1 CPU-s of imports and numba set-up first, a cached trace ~0.1-0.15 s from its manifest
MAX_WALK_BYTES = 16 << 20
_I64 = 1 << 63
_U64 = 1 << 64


@dataclass
class TraceSummary:
    """What ``trace info`` prints of a trace, without its DataFrames: the metadata, skipped
    report, and per event table the rows and the first and last time (seconds) that the
    DataFrames of :func:`~lisa_eas.trace.read_trace` would have."""

    metadata: dict
    skipped: SkipReport
    tables: dict = field(default_factory=dict)      # event -> (rows, first_s, last_s)

    @property
    def events(self) -> tuple[str, ...]:
        """Names of the events present (sorted), as :attr:`Trace.events`."""
        return tuple(sorted(self.tables))

    def rows(self, event: str) -> int:
        """Rows of ``event``'s DataFrame."""
        return self.tables[event][0]

    @property
    def time_range(self) -> tuple[float, float]:
        """(first, last) event time in seconds; (nan, nan) if empty, as :attr:`Trace.time_range`."""
        spans = [(a, b) for n, a, b in self.tables.values() if n]
        if not spans:
            return float("nan"), float("nan")
        return min(a for a, _ in spans), max(b for _, b in spans)


def _walk(buf, start: int, size: int, layout: tuple, diag: list, eids: array, tss: array,
          pays: array, lens: array) -> None:
    """Walk the pages of ``buf[start:start+size]`` (one CPU) as the reader's index pass
    (:func:`lisa_eas.trace._stream.index_pages`) does, appending each record's event id,
    time stamp, payload offset and payload length; problems are counted in ``diag``."""
    page_size, ts_off, commit_off, commit_size, data_off, big, type_off, type_size, pid_off = layout
    e = ">" if big else "<"
    u32 = struct.Struct(e + "I").unpack_from
    u64 = struct.Struct(e + "Q").unpack_from
    ucommit = u32 if commit_size == 4 else u64
    utype = struct.Struct(e + {1: "B", 2: "H", 4: "i"}[type_size]).unpack_from
    flags = RB_MISSED_EVENTS | RB_MISSED_STORED
    need = max(pid_off + 4, type_off + type_size)
    add_e, add_t, add_p, add_l = eids.append, tss.append, pays.append, lens.append

    def note(kind, pos, amount=1):
        if diag[kind][0] == 0:
            diag[kind][1] = pos
        diag[kind][0] = (diag[kind][0] + amount + _I64) % _U64 - _I64    # int64, as the kernel

    rend = min(start + size, len(buf))
    page = start
    while page < rend:
        pend = min(page + page_size, rend)
        if page + data_off > pend:
            note(0, page)
            break
        ts = u64(buf, page + ts_off)[0]
        if ts >= _I64:
            ts -= _U64
        commit_raw = ucommit(buf, page + commit_off)[0]
        length = commit_raw & ~flags
        if length >= _I64:
            length -= _U64
        if commit_raw & RB_MISSED_EVENTS:
            note(4, page)
        pos = page + data_off
        end = pos + length
        if length < 0 or end > pend:
            note(0, page)
            page += page_size
            continue
        if commit_raw & RB_MISSED_STORED and end + commit_size <= pend:
            lost = ucommit(buf, end)[0]
            note(5, page, lost - _U64 if lost >= _I64 else lost)
        while pos < end:
            if pos + 4 > end:
                note(1, pos)
                break
            h = u32(buf, pos)[0]
            if big:
                type_len, delta = h >> 27, h & 0x7FFFFFF
            else:
                type_len, delta = h & 31, h >> 5
            if type_len >= 29:
                if pos + 8 > end:
                    if type_len != 29 or delta:
                        note(1, pos)
                    break
                word = u32(buf, pos + 4)[0]
                if type_len == 29:              # padding / discarded record
                    if delta == 0:
                        break
                    ts += delta
                    pos += 4 + word
                elif type_len == 30:            # time extend
                    ts += (word << 27) + delta
                    pos += 8
                else:                           # absolute time stamp
                    ts = (ts & ~ABS_TS_MASK) | (((word << 27) + delta) & ABS_TS_MASK)
                    pos += 8
                if ts >= _I64:
                    ts -= _U64
                continue
            if type_len == 0:
                if pos + 8 > end:
                    note(1, pos)
                    break
                ln = u32(buf, pos + 4)[0]
                if ln < 4:
                    note(2, pos)
                    break
                plen = ln - 4
                payload = pos + 8
                nxt = payload + ((plen + 3) & ~3)
            else:
                plen = type_len * 4
                payload = pos + 4
                nxt = payload + plen
            if payload + plen > end:
                note(1, pos)
                break
            ts += delta
            if ts >= _I64:
                ts -= _U64
            pos = nxt
            if plen < need:
                note(3, payload)
                continue
            add_e(utype(buf, payload + type_off)[0])
            add_t(ts)
            add_p(payload)
            add_l(plen)
        page += page_size


def _uint(buf, pos: int, size: int, big: bool) -> int:
    """The ``size``-byte unsigned integer at ``buf[pos]``."""
    return int.from_bytes(buf[pos:pos + size], "big" if big else "little")


def _fields_decode_clean(dat: DatFile, fmt: EventFormat, buf, pays: list, lens: list) -> bool:
    """Whether decoding ``fmt``'s fields from these records (payload offsets and lengths)
    reports nothing: the checks the reader makes while decoding (integer fields within the
    record, ``__data_loc`` spans within it, a ``bprint`` format address the file holds),
    nothing else decoded."""
    big = dat.big_endian
    shortest = min(lens)
    u32 = struct.Struct((">" if big else "<") + "I").unpack_from
    for f in fmt.payload_fields:
        if f.kind == INT and not (fmt.name == "bputs" and f.name == "str" and fmt.system == "ftrace"):
            if shortest < f.offset + f.size:
                return False
        elif f.kind in (STR_LOC, ARR_LOC):
            if shortest < f.offset + 4:
                return False
            rel = f.offset + 4 if f.relative else 0
            for p, n in zip(pays, lens):
                w = u32(buf, p + f.offset)[0]
                if (w & 0xFFFF) + rel + (w >> 16) > n:
                    return False
        elif f.kind == BIN_TAIL and fmt.name == "bprint" and fmt.system == "ftrace":
            ff = fmt.field("fmt")
            if ff is None or fmt.field("buf") is None:
                continue
            printk = dat.printk
            for p, n in zip(pays, lens):
                if n - ff.offset >= ff.size and _uint(buf, p + ff.offset, ff.size, big) not in printk:
                    return False
    return True


def _summarize_dat(path, events, strict: bool, buffer: str | None, max_bytes: int):
    """``({event: (rows, first_s, last_s)}, metadata, SkipReport)`` as :func:`read_dat` would
    give with DataFrames, or ``None`` when that needs the decode (see the module)."""
    dat = open_dat(path, buffer)
    if sum(size for _, _, size in dat.cpu_ranges) > max_bytes:
        return None
    skips = SkipReport(str(path))
    wanted = set(events) if events is not None else None
    layout = record_layout(dat, skips)
    buf = dat.raw if dat.raw is not None else b""
    ts_add = int(dat.options.get("offset", 0))
    if not -_I64 <= ts_add < _I64:
        return None                         # the reader fails on it (an int64)
    chunks = walk_chunks(dat)
    diag = [[0, 0] for _ in range(NDIAG_WALK)]
    eids, tss, pays, lens = array("q"), array("q"), array("q"), array("q")
    bounds = [0]
    for (cpu, start, size), run_end in zip(chunks, run_ends(chunks)):
        _walk(buf, start, size, layout, diag, eids, tss, pays, lens)
        if run_end:
            bounds.append(len(eids))
    add_walk_skips(skips, diag)
    if len(bounds) <= 17 and any(b - a > 1 and any(map(gt, tss[a:b - 1], tss[a + 1:b]))
                                 for a, b in zip(bounds, bounds[1:])):
        # the reader's time merge finds a per-CPU run going backwards and sorts instead
        skips.add("unsorted_timestamps", 1, -1, "per-CPU timestamps go backwards; events sorted")
    present = Counter(eids)
    out_of_range = sum(n for e, n in present.items() if not 0 <= e <= 65535)
    counts: dict = {}
    unknown: dict = {}
    slots = {}
    for eid in sorted(e for e in present if 0 <= e <= 65535):
        fmt = dat.get_format(eid)
        if fmt is None:
            unknown[eid] = present[eid]
            continue
        counts[fmt.name] = counts.get(fmt.name, 0) + present[eid]
        if wanted is None or fmt.name in wanted:
            slots[eid] = fmt
    if unknown or out_of_range:
        first = next(i for i, e in enumerate(eids) if e in unknown or not 0 <= e <= 65535)
        add_unknown_skips(skips, unknown, out_of_range, pays[first])
    # per decoded event: first and last time stamp, and its records for the field checks
    span: dict = {}
    recs: dict = {eid: ([], []) for eid in slots}
    for e, t, p, n in zip(eids, tss, pays, lens):
        r = recs.get(e)
        if r is None:
            continue
        r[0].append(p)
        r[1].append(n)
        s = span.get(e)
        if s is None:
            span[e] = [t, t]
        elif t < s[0]:
            s[0] = t
        elif t > s[1]:
            s[1] = t
    tables = {}
    for eid, fmt in slots.items():     # id order: a later id of the same name replaces an earlier
        if not _fields_decode_clean(dat, fmt, buf, *recs[eid]):
            return None
        # the DataFrame index: (time stamp + the file's offset) / 1e9, int64 arithmetic
        lo, hi = (((t + ts_add + _I64) % _U64 - _I64) / 1e9 for t in span[eid])
        tables[fmt.name] = (present[eid], lo, hi)
    for kind, offset, msg in dat.warnings:
        skips.add(kind, 1, offset, msg)
    if strict and skips.total:
        return None               # the reader raises its own error for the first one
    return tables, dat_metadata(path, dat, counts, skips), skips


def summarize_trace(path: str | os.PathLike, *, events=None, strict: bool = False,
                    buffer: str | None = None, max_bytes: int = MAX_WALK_BYTES) -> TraceSummary | None:
    """What ``read_trace(path, events=..., strict=..., buffer=..., cache=False)`` would hold,
    without decoding: event names, rows, time range, metadata and skipped report of a small
    trace.dat, from a page walk that counts records (no numba, no pandas).

    Returns
    -------
    TraceSummary or None
        ``None`` when only the decode gives the answer: not a trace.dat file (or a run
        directory, or a trace with a ``kernel_signals.bin`` beside it), more than
        ``max_bytes`` of page data, a field the reader would report as undecodable, a strict
        read with something to report, or any error (the reader raises its own).
    """
    from ._trace import _LISA_PREFIX, _signals_file, _sniff, _strip_lisa_prefix

    path = Path(path)
    try:
        if (not path.is_file() or path.stat().st_size == 0 or _signals_file(path) is not None
                or _sniff(path) != "dat"):
            return None
        wanted = None if events is None else list(dict.fromkeys(events))
        decode = None if wanted is None else wanted + [_LISA_PREFIX + e for e in wanted
                                                        if not e.startswith(_LISA_PREFIX)]
        got = _summarize_dat(path, decode, strict, buffer, max_bytes)
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception:       # noqa: BLE001 - the reader gives the error (and its message)
        return None
    if got is None:
        return None
    tables, meta, skips = got
    tables, meta = _strip_lisa_prefix(tables, meta)
    spans = [(a, b) for _, a, b in tables.values()]
    meta = dict(meta)
    meta["time_range"] = ([min(a for a, _ in spans), max(b for _, b in spans)] if spans
                          else [None, None])
    meta.setdefault("skipped", skips.as_dict())
    if wanted is not None:
        tables = {k: v for k, v in tables.items() if k in wanted}
    return TraceSummary(meta, skips, tables)
