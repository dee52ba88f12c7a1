"""trace.dat -> per-event DataFrames: page walk, time merge, per-event field decoding."""
from __future__ import annotations

import mmap
import re

import numpy as np
import pandas as pd

from ..errors import TraceError
from . import _decode
from ._columns import SpanInterner, _categorical, comm_column, empty_small_pages
from ._datfile import DatFile, open_dat
from ._format import (ARR_FIXED, ARR_LOC, BIN_TAIL, INT, STR_FIXED, STR_LOC, STR_TAIL,
                      EventFormat, FieldFormat)
from ._printf import render_bprint
from ._skips import SkipReport

__all__ = ["read_dat"]

_INT_DTYPES = {(1, True): np.int8, (2, True): np.int16, (4, True): np.int32, (8, True): np.int64,
               (1, False): np.uint8, (2, False): np.uint16, (4, False): np.uint32,
               (8, False): np.uint64}


def _kernel_version(uname: str) -> str | None:
    m = re.match(r"\S+\s+\S+\s+(\d+\.\d+\S*)", uname or "")
    return m.group(1) if m else None


def _alloc(n: int):
    e = empty_small_pages
    return (e(n, np.int64), e(n, np.int64), e(n, np.int32), e(n, np.int32), e(n, np.int32),
            e(n, np.int32))


def _walk(dat: DatFile, skips: SkipReport):
    hp = dat.header_page
    fmt0 = dat.any_format()
    tf = fmt0.field("common_type") if fmt0 else None
    pf = fmt0.field("common_pid") if fmt0 else None
    type_off, type_size = (tf.offset, tf.size) if tf and tf.size in (1, 2, 4) else (0, 2)
    pid_off = pf.offset if pf and pf.size == 4 else 4
    ranges = dat.cpu_ranges
    starts = np.array([r[1] for r in ranges], np.int64)
    sizes = np.array([r[2] for r in ranges], np.int64)
    buf = dat.data if dat.data is not None else np.zeros(0, np.uint8)
    ts_off = hp["timestamp"][0]
    commit_off, commit_size = hp["commit"]
    data_off = hp["data"][0]
    if commit_size not in (4, 8):
        raise TraceError(f"{dat.path}: header_page commit size {commit_size} is not 4 or 8")
    args = (buf, *_decode.word_views(buf), starts, sizes, dat.page_size, ts_off, commit_off,
            commit_size, data_off,
            dat.big_endian, type_off, type_size, pid_off)
    diag = np.zeros((_decode.NDIAG, 2), np.int64)
    # A record takes at least 12 bytes, so this capacity always suffices: one pass. The
    # arrays are only virtual memory beyond the records actually written.
    cap = int(sizes.sum()) // 12 + 16
    try:
        arrays = _alloc(cap)
    except MemoryError:
        counts = _decode.walk_pages(*args, False, *_alloc(0), diag)
        arrays = _alloc(int(counts.sum()))
        diag[:] = 0
    # One CPU range at a time, each mapped in just before and dropped right after its walk,
    # so at most one CPU's pages of the file are resident with the walk arrays.
    release = _page_releaser(buf)
    counts = np.zeros(len(ranges), np.int64)
    n = 0
    for r in range(len(ranges)):
        release(int(starts[r]), int(sizes[r]), populate=True)
        outs = [a[min(n, len(a)):] for a in arrays]
        counts[r] = _decode.walk_pages(buf, *args[1:4], starts[r:r + 1], sizes[r:r + 1],
                                       *args[6:], True, *outs, diag)[0]
        if n + counts[r] <= len(arrays[0]):
            arrays[5][n:n + counts[r]] = ranges[r][0]     # the CPU of each record
        n += int(counts[r])
        release(int(starts[r]), int(sizes[r]))
    if n > len(arrays[0]):     # cannot happen with the bound above; stay correct anyway
        arrays = _alloc(n)
        diag[:] = 0
        counts = _decode.walk_pages(*args, True, *arrays, diag)
        arrays[5][:] = np.repeat(np.array([r[0] for r in ranges], np.int32), counts)
    ts, off, ln, ids, pid, cpu = (a[:n] for a in arrays)
    for k, name in enumerate(_decode.DIAG_NAMES):
        if diag[k, 0]:
            skips.add(name, int(diag[k, 0]), int(diag[k, 1]))
    bounds = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return buf, ts, off, ln, ids, pid, cpu, bounds


_MADV_POPULATE_READ = 22    # Linux >= 5.14; older kernels answer EINVAL (then: page faults)


def _page_releaser(buf: np.ndarray):
    """``release(start=0, length=None, populate=False)`` dropping the resident pages of
    ``buf[start:start+length]`` when ``buf`` maps the trace file (read-only and shared, so
    the data stays in the page cache and comes back on the next access), or with
    ``populate`` mapping them in with one call instead of a page fault per page.
    A no-op for in-memory data (decompressed v7 buffers)."""
    mm = buf.base
    if isinstance(mm, memoryview):
        mm = mm.obj
    if not isinstance(mm, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
        return lambda start=0, length=None, populate=False: None

    def release(start: int = 0, length: int | None = None, populate: bool = False):
        size = len(mm)
        if length is None:
            length = size
        lo = start - start % mmap.PAGESIZE
        hi = min(start + length, size)
        if hi <= lo:
            return
        try:
            mm.madvise(_MADV_POPULATE_READ if populate else mmap.MADV_DONTNEED, lo, hi - lo)
        except (OSError, ValueError):
            pass
    return release


def _array_column(buf, starts, lens, esize: int, signed: bool, big: bool):
    dt = np.dtype(_INT_DTYPES[(esize, signed)]).newbyteorder(">" if big else "<")
    out = np.empty(len(starts), dtype=object)
    for i, (s, n) in enumerate(zip(starts.tolist(), lens.tolist())):
        n -= n % esize
        out[i] = np.frombuffer(buf[s:s + n].tobytes(), dtype=dt).astype(dt.newbyteorder("="))
    return out


def _bprint_column(dat: DatFile, buf, offs, lens, fmt: EventFormat, skips: SkipReport):
    ff = fmt.field("fmt")
    bf = fmt.field("buf")
    if ff is None or bf is None:
        return None
    span_start = offs + ff.offset
    span_len = np.maximum(lens.astype(np.int64) - ff.offset, 0)
    codes = np.empty(len(offs), np.int32)
    rs, rl = _decode.intern_strings(buf, span_start, span_len, False, False, codes)
    cats = []
    missing = 0
    for s, n in zip(rs.tolist(), rl.tolist()):
        raw = bytes(buf[s:s + n])
        if n < ff.size:
            cats.append("")
            continue
        addr = int.from_bytes(raw[:ff.size], "big" if dat.big_endian else "little")
        text = dat.printk.get(addr)
        if text is None:
            missing += 1
            cats.append(f"(bprint: no format at 0x{addr:x})")
            continue
        args = raw[bf.offset - ff.offset:]
        try:
            cats.append(render_bprint(text, args, ff.size, dat.big_endian))
        except Exception:   # malformed arguments: keep the row, say so in the text
            cats.append(f"(bprint: undecodable arguments for {text!r})")
    if missing:
        skips.add("bprint_format_missing", missing, -1)
    return _categorical(codes, cats)


def _bputs_column(dat: DatFile, buf, offs, lens, f: FieldFormat, skips: SkipReport):
    addrs = np.empty(len(offs), np.uint64)
    _decode.gather_int(buf, offs, lens, f.offset, f.size, False, dat.big_endian, addrs)
    uniq, inv = np.unique(addrs, return_inverse=True)
    cats = [dat.printk.get(int(a), f"0x{int(a):x}").rstrip("\n") for a in uniq.tolist()]
    return _categorical(inv.astype(np.int32), cats)


_CHUNK_ROWS = 1 << 18


def _decode_event(dat: DatFile, fmt: EventFormat, buf, ts, off, ln, pid, cpu, time_s,
                  skips: SkipReport, release=lambda: None) -> pd.DataFrame:
    """One event's DataFrame. Integer and string fields are decoded in chunks of rows in
    time order, calling ``release`` after each: a chunk only touches a slice of each CPU's
    pages, so the mapped file need not be resident all at once."""
    big = dat.big_endian
    cols: dict = {"__ts": ts, "__cpu": cpu, "__pid": pid,
                  "__comm": comm_column(pid, dat.cmdlines)}
    lens64 = ln.astype(np.int64)
    ev = fmt.name
    n = len(off)
    ints = [f for f in fmt.payload_fields if f.kind == INT
            and not (ev == "bputs" and f.name == "str" and fmt.system == "ftrace")]
    int_cols = {f.name: empty_small_pages(n, _INT_DTYPES[(f.size, f.signed)]) for f in ints}
    strings = {f.name: SpanInterner(n, strip_newline=(f.kind == STR_TAIL))
               for f in fmt.payload_fields if f.kind in (STR_FIXED, STR_LOC, STR_TAIL)}
    bad: dict = {}
    views = _decode.word_views(buf)
    for a in range(0, n, _CHUNK_ROWS):
        b = min(n, a + _CHUNK_ROWS)
        o, ls = off[a:b], lens64[a:b]
        for f in ints:
            k = _decode.gather_col(buf, *views, o, ls, f.offset, f.size, f.signed, big,
                                   int_cols[f.name][a:b])
            if k:
                bad[f"short_field:{ev}.{f.name}"] = bad.get(f"short_field:{ev}.{f.name}", 0) + k
        for f in fmt.payload_fields:
            if f.kind == STR_FIXED:
                strings[f.name].add(buf, a, o + f.offset, np.clip(ls - f.offset, 0, f.size))
            elif f.kind == STR_TAIL:
                strings[f.name].add(buf, a, o + f.offset, np.maximum(ls - f.offset, 0))
            elif f.kind == STR_LOC:
                st = np.empty(b - a, np.int64)
                sl = np.empty(b - a, np.int64)
                k = _decode.loc_spans(buf, *views, o, ls, f.offset, f.relative, big, st, sl)
                if k:
                    bad[f"bad_data_loc:{ev}.{f.name}"] = bad.get(f"bad_data_loc:{ev}.{f.name}",
                                                                 0) + k
                strings[f.name].add(buf, a, st, sl)
        release()
    for kind, count in bad.items():
        skips.add(kind, int(count), -1)
    for f in fmt.payload_fields:
        if f.kind == INT:
            if f.name in int_cols:
                cols[f.name] = int_cols[f.name]
            else:
                cols[f.name] = _bputs_column(dat, buf, off, lens64, f, skips)
        elif f.kind in (STR_FIXED, STR_LOC, STR_TAIL):
            cols[f.name] = strings[f.name].categorical()
        elif f.kind == ARR_LOC:
            st = np.empty(n, np.int64)
            sl = np.empty(n, np.int64)
            k = _decode.loc_spans(buf, *views, off, lens64, f.offset, f.relative, big, st, sl)
            if k:
                skips.add(f"bad_data_loc:{ev}.{f.name}", int(k), -1)
            cols[f.name] = _array_column(buf, st, sl, f.elem_size, f.signed, big)
        elif f.kind == BIN_TAIL:
            if ev == "bprint" and fmt.system == "ftrace":
                col = _bprint_column(dat, buf, off, lens64, fmt, skips)
                if col is not None:
                    cols[f.name] = col
                    continue
            avail = np.maximum(lens64 - f.offset, 0)
            cols[f.name] = _array_column(buf, off + f.offset, avail, f.elem_size, f.signed, big)
        elif f.kind == ARR_FIXED:
            avail = np.clip(lens64 - f.offset, 0, f.size)
            cols[f.name] = _array_column(buf, off + f.offset, avail, f.elem_size, f.signed, big)
    df = pd.DataFrame(cols, copy=False)
    df.index = pd.Index(time_s, name="Time", copy=False)
    return df


def read_dat(path, events=None, strict: bool = False, buffer: str | None = None):
    """Decode a trace.dat file into ``({event: DataFrame}, metadata, SkipReport)``.

    Parameters
    ----------
    path : path-like
    events : iterable of str, optional
        Decode only these events (all by default); the page walk still covers every page.
    strict : bool
        Raise :class:`TraceError` at the first problem instead of skipping.
    buffer : str, optional
        tracefs instance to read (see :func:`open_dat`).
    """
    dat = open_dat(path, buffer)
    skips = SkipReport(str(path))
    buf, ts, off, ln, ids, pid, cpu, bounds = _walk(dat, skips)
    if "offset" in dat.options:
        ts = ts + np.int64(dat.options["offset"])
    if len(bounds) <= 17:      # a linear k-way merge of the per-CPU runs
        perm, in_order = _decode.time_order(ts, bounds)
    else:                      # many CPUs: timsort also exploits the sorted runs
        perm, in_order = np.argsort(ts, kind="stable").astype(np.int32), True
    if not in_order:
        skips.add("unsorted_timestamps", 1, -1, "per-CPU timestamps go backwards; events sorted")
        perm = np.argsort(ts, kind="stable").astype(np.int32)
    wanted = set(events) if events is not None else None
    if len(ids) and (ids.min() < 0 or ids.max() > 65535):
        bad = (ids < 0) | (ids > 65535)
        skips.add("unknown_event_id", int(bad.sum()), int(off[np.flatnonzero(bad)[0]]),
                  "event id out of range")
        perm = perm[~bad[perm]]
    rows_all, id_counts = _decode.group_by_id(ids, perm)
    del perm, ids       # only the grouped rows are needed from here on: free them early
    counts = {}
    todo = []
    start = 0
    for eid in np.flatnonzero(id_counts).tolist():
        n = int(id_counts[eid])
        rows = rows_all[start:start + n]
        start += n
        fmt = dat.get_format(eid)
        if fmt is None:
            skips.add("unknown_event_id", n, int(off[rows[0]]),
                      f"event id {eid} has no format in the file")
            continue
        counts[fmt.name] = counts.get(fmt.name, 0) + n
        if wanted is None or fmt.name in wanted:
            todo.append((eid, fmt, rows))
    # Memory: the walk touched every page of the mapped file. Drop those pages (they stay
    # in the page cache), gather each event's per-record arrays, free the walk arrays,
    # then decode the biggest events first, dropping the file pages again after each one:
    # the page-walk arrays, the mapped file and the bulk of the DataFrames are never all
    # resident at once.
    release = _page_releaser(buf)
    release()
    gathered = []
    for eid, fmt, rows in todo:
        n = len(rows)
        e = [empty_small_pages(n, dt) for dt in (np.int64, np.int64, np.int32, np.int32,
                                                  np.int32, np.float64)]
        _decode.take_rows(rows, ts, off, ln, pid, cpu, *e)
        gathered.append((eid, fmt, e))
    rows = e = None
    del ts, off, ln, pid, cpu, rows_all, todo, rows, e
    decoded = {}
    gathered.sort(key=lambda t: -len(t[2][0]))
    while gathered:
        eid, fmt, (e_ts, e_off, e_len, e_pid, e_cpu, e_time) = gathered.pop(0)
        decoded[eid] = (fmt, _decode_event(dat, fmt, buf, e_ts, e_off, e_len, e_pid, e_cpu,
                                           e_time, skips, release))
        del e_ts, e_off, e_len, e_pid, e_cpu, e_time
        release()
    dfs = {}
    for eid in sorted(decoded):     # id order, as the file lists them
        fmt, df = decoded[eid]
        dfs[fmt.name] = df
    for kind, offset, msg in dat.warnings:
        skips.add(kind, 1, offset, msg)
    if strict:
        skips.raise_if_any()
    meta = {
        "source": str(path),
        "format": f"trace.dat v{dat.version}",
        "clock": dat.clock or "local",
        "cpus": int(dat.options.get("cpucount") or dat.nr_cpus),
        "kernel_version": _kernel_version(dat.options.get("uname", "")),
        "uname": dat.options.get("uname"),
        "compression": dat.compression,
        "long_size": int(dat.header_page["commit"][1]),
        "page_size": int(dat.page_size),
        "event_counts": counts,
        "lost_events": skips.count("lost_events"),
        "buffer": dat.options.get("instance", ""),
        "buffers": dat.options.get("buffers", [""]),
    }
    return dfs, meta, skips
