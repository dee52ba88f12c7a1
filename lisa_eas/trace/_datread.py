"""trace.dat -> per-event DataFrames: page walk, time merge, per-event field decoding."""
from __future__ import annotations

import mmap

import numpy as np
import pandas as pd

from ..errors import TraceError
from . import _decode
from ._columns import SpanInterner, _categorical, comm_column, empty_small_pages
from ._stream import (K_INT, K_LEN, K_LOC, K_OFF, K_STR, NDIAG, UNKNOWN_ROW, UNWANTED_ROW,
                      decode_pages, event_ranks, first_appearance, grow_interner, index_pages,
                      new_interner)
from ._datfile import DatFile, open_dat
from ._datpages import (add_unknown_skips, add_walk_skips, dat_metadata, record_layout, run_ends,
                        walk_chunks)
from ._format import (ARR_FIXED, ARR_LOC, BIN_TAIL, INT, STR_FIXED, STR_LOC, STR_TAIL,
                      EventFormat, FieldFormat)
from ._printf import render_bprint
from ._skips import SkipReport

__all__ = ["read_dat"]

_INT_DTYPES = {(1, True): np.int8, (2, True): np.int16, (4, True): np.int32, (8, True): np.int64,
               (1, False): np.uint8, (2, False): np.uint16, (4, False): np.uint32,
               (8, False): np.uint64}


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


def _python_fields(dat: DatFile, fmt: EventFormat, buf, off, ln, skips: SkipReport,
                   release) -> dict:
    """Columns of the fields the streaming kernel does not decode (``__data_loc`` arrays,
    text and binary tails, fixed arrays, bputs' string address), from the
    records' payload offsets and lengths in time order. Strings are interned in chunks of
    rows, calling ``release`` after each so the mapped file need not be resident at once."""
    big = dat.big_endian
    ev = fmt.name
    n = len(off)
    lens64 = ln.astype(np.int64)
    cols: dict = {}
    strings = {f.name: SpanInterner(n, strip_newline=(f.kind == STR_TAIL))
               for f in fmt.payload_fields if f.kind == STR_TAIL}
    views = _decode.word_views(buf)
    if strings:
        for a in range(0, n, _CHUNK_ROWS):
            b = min(n, a + _CHUNK_ROWS)
            o, ls = off[a:b], lens64[a:b]
            for f in fmt.payload_fields:
                if f.kind == STR_TAIL:
                    strings[f.name].add(buf, a, o + f.offset, np.maximum(ls - f.offset, 0))
            release()
    for f in fmt.payload_fields:
        if f.kind == INT:
            if _is_bputs_str(fmt, f):
                cols[f.name] = _bputs_column(dat, buf, off, lens64, f, skips)
        elif f.kind == STR_TAIL:
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
    return cols


def _is_bputs_str(fmt: EventFormat, f: FieldFormat) -> bool:
    return fmt.name == "bputs" and f.name == "str" and fmt.system == "ftrace"


def _streamed(fmt: EventFormat, f: FieldFormat) -> bool:
    """Whether the streaming kernel decodes field ``f`` (integers and char[N] strings)."""
    return (f.kind == INT and not _is_bputs_str(fmt, f)) or f.kind in (STR_FIXED, STR_LOC)


class _Layout:
    """Where every column of every decoded event lives in one byte arena.

    Per slot (event): ``__ts`` (int64), the time in seconds (float64), ``__cpu`` and
    ``__pid`` (int32), then each integer field at its width: the DataFrame columns. After
    them, page-aligned, a scratch part released once the DataFrames exist: the int32
    codes of the string fields (pandas keeps them in the narrowest integer type) and the
    payload offsets and lengths of events with Python-decoded fields. Columns start on
    8-byte boundaries."""

    def __init__(self, slot_fmts: list, rows: np.ndarray):
        self.main = 0
        self.nrows = [int(r) for r in rows]
        self.has_python_fields: list = []
        self.slots = np.zeros((len(slot_fmts), 6), np.int64)
        fields: list = []
        late: list = []              # (field row, bytes) placed in the scratch part
        self.columns: list = []      # per slot: [(name, kind, field row, dtype)]
        for s, fmt in enumerate(slot_fmts):
            n = int(rows[s])
            cols = []
            self.slots[s, :4] = [self._take(8 * n), self._take(8 * n), self._take(4 * n),
                                 self._take(4 * n)]
            self.slots[s, 4] = len(fields)
            for f in fmt.payload_fields:
                if not _streamed(fmt, f):
                    continue
                if f.kind == INT:
                    cols.append((f.name, K_INT, len(fields),
                                 np.dtype(_INT_DTYPES[(f.size, f.signed)])))
                    fields.append([K_INT, f.offset, f.size, self._take(f.size * n), 0])
                else:
                    kind = K_STR if f.kind == STR_FIXED else K_LOC
                    cols.append((f.name, kind, len(fields), np.dtype(np.int32)))
                    late.append((len(fields), 4 * n))
                    fields.append([kind, f.offset, f.size, -1, int(f.relative)])
            if any(not _streamed(fmt, f) for f in fmt.payload_fields):
                late += [(len(fields), 8 * n), (len(fields) + 1, 4 * n)]
                fields += [[K_OFF, 0, 8, -1, 0], [K_LEN, 0, 4, -1, 0]]
                self.has_python_fields.append(s)
            self.slots[s, 5] = len(fields)
            self.columns.append(cols)
        self.main = -(-self.main // mmap.PAGESIZE) * mmap.PAGESIZE
        self.total = self.main
        for k, nbytes in late:
            fields[k][3] = self.total
            self.total += -(-nbytes // 8) * 8
        self.fields = np.array(fields, np.int64).reshape(-1, 5)
        self.total = max(8, self.total)

    def scratch_span(self, s: int) -> tuple[int, int]:
        """Byte range of the scratch columns of slot ``s`` ((0, 0) if none)."""
        rows = [k for k in range(self.slots[s, 4], self.slots[s, 5])
                if self.fields[k, 3] >= self.main]
        if not rows:
            return 0, 0
        ends = {K_INT: 0, K_STR: 4, K_LOC: 4, K_OFF: 8, K_LEN: 4}
        return (int(min(self.fields[k, 3] for k in rows)),
                int(max(self.fields[k, 3] + ends[int(self.fields[k, 0])] * self.nrows[s]
                        for k in rows)))

    def _take(self, nbytes: int) -> int:
        at = self.main
        self.main += -(-nbytes // 8) * 8
        return at


def _merge_diag(into: np.ndarray, more: np.ndarray) -> None:
    """Add the counts of ``more`` to ``into``, keeping the earlier first offsets."""
    first = (into[:, 0] == 0) & (more[:, 0] != 0)
    into[first, 1] = more[first, 1]
    into[:, 0] += more[:, 0]


def _decode_dat(dat: DatFile, wanted, skips: SkipReport):
    """Index pass, time order, ranks, decode pass; returns ({eid: (fmt, DataFrame)}, counts)."""
    layout_args = record_layout(dat, skips)
    buf = dat.data if dat.data is not None else np.zeros(0, np.uint8)
    views = _decode.word_views(buf)
    release = _page_releaser(buf)
    chunks = walk_chunks(dat)
    ts_add = np.int64(dat.options.get("offset", 0))
    # 1. index pass: time stamp and id of every record. A record takes at least 12 bytes,
    # so this capacity always suffices; only the pages written become resident.
    cap = sum(c[2] for c in chunks) // 12 + 16
    ts = empty_small_pages(cap, np.int64)
    ids = empty_small_pages(cap, np.int32)
    diag = np.zeros((NDIAG, 2), np.int64)
    n = 0
    bounds = [0]
    for (cpu, start, size), run_end in zip(chunks, run_ends(chunks)):
        n += int(index_pages(buf, *views, start, size, *layout_args, n, ts, ids, diag))
        release(start, size)
        if run_end:
            bounds.append(n)
    if n > cap:     # cannot happen with the bound above
        raise TraceError(f"{dat.path}: more records than the data can hold; corrupt file")
    add_walk_skips(skips, diag)
    ts, ids = ts[:n], ids[:n]
    # 2. time order (a linear k-way merge of the per-CPU runs, or a sort)
    bounds = np.array(bounds, np.int64)
    if len(bounds) <= 17:
        perm, in_order = _decode.time_order(ts, bounds)
    else:
        perm, in_order = np.argsort(ts, kind="stable").astype(np.int32), True
    if not in_order:
        skips.add("unsorted_timestamps", 1, -1, "per-CPU timestamps go backwards; events sorted")
        perm = np.argsort(ts, kind="stable").astype(np.int32)
    del ts
    # 3. which events get decoded, and each record's row in its event (over ``ids``)
    present = np.zeros(65536, np.int64)
    if n:
        inside = ids[(ids >= 0) & (ids <= 65535)] if (ids.min() < 0 or ids.max() > 65535) \
            else ids
        present = np.bincount(inside, minlength=65536)
    slot_of_id = np.full(65536, UNWANTED_ROW, np.int64)
    slot_fmts = []
    slot_ids = []
    counts = {}
    unknown = []
    for eid in np.flatnonzero(present).tolist():
        fmt = dat.get_format(eid)
        if fmt is None:
            slot_of_id[eid] = UNKNOWN_ROW
            unknown.append(eid)
            continue
        counts[fmt.name] = counts.get(fmt.name, 0) + int(present[eid])
        if wanted is None or fmt.name in wanted:
            slot_of_id[eid] = len(slot_fmts)
            slot_fmts.append(fmt)
            slot_ids.append(eid)
    _, out_of_range, rows = event_ranks(perm, ids, slot_of_id)
    del perm
    dest = ids
    # 4. decode pass straight into the columns
    lay = _Layout(slot_fmts, rows)
    arena = empty_small_pages(lay.total, np.uint8, populate=True)   # all of it gets written
    a16, a32, a64 = arena.view(np.uint16), arena.view(np.uint32), arena.view(np.uint64)
    bad = np.zeros(max(1, len(lay.fields)), np.int64)
    diag2 = np.zeros((NDIAG, 2), np.int64)
    views_out = (arena, a16, a32, a64, a64.view(np.int64), a64.view(np.float64))
    interner = new_interner()
    nb = 0
    for cpu, start, size in chunks:
        while True:     # again with a bigger string table when it fills up
            cbad = np.zeros_like(bad)
            cdiag = np.zeros_like(diag2)
            got = decode_pages(buf, *views, start, size, *layout_args, nb, ts_add, cpu, dest,
                               slot_of_id, lay.slots, lay.fields, *views_out, cbad, *interner,
                               cdiag)
            if got >= 0:
                break
            interner = grow_interner(interner)
        bad += cbad
        _merge_diag(diag2, cdiag)
        nb += int(got)
        release(start, size)
    del dest, ids
    if unknown or out_of_range:
        add_unknown_skips(skips, {eid: int(present[eid]) for eid in unknown}, int(out_of_range),
                          int(diag2[6, 1]) if diag2[6, 0] else -1)
    nstr = int(interner[5][0])
    strings = [bytes(buf[s:s + ln]).decode("utf-8", "replace")
               for s, ln in zip(interner[1][:nstr].tolist(), interner[2][:nstr].tolist())]
    # 5. DataFrames over the arena (no copies); then the Python-decoded fields
    decoded = {}
    release_arena = _page_releaser(arena)
    for s, fmt in enumerate(slot_fmts):
        nrows = int(rows[s])
        if not nrows:
            continue
        o = lay.slots[s]

        def col(base, dtype):
            dtype = np.dtype(dtype)
            return arena[base:base + nrows * dtype.itemsize].view(dtype)

        pid = col(o[3], np.int32)
        cols = {"__ts": col(o[0], np.int64), "__cpu": col(o[2], np.int32), "__pid": pid,
                "__comm": comm_column(pid, dat.cmdlines)}
        streamed = {}
        for name, kind, k, dtype in lay.columns[s]:
            if bad[k]:
                what = "short_field" if kind != K_LOC else "bad_data_loc"
                skips.add(f"{what}:{fmt.name}.{name}", int(bad[k]), -1)
            c = col(lay.fields[k, 3], dtype)
            if kind in (K_STR, K_LOC):      # codes in the scratch part: make them owned
                order = first_appearance(c, max(1, len(strings)))
                c = _categorical(c, [strings[g] for g in order.tolist()])
                if np.shares_memory(c.codes, arena):
                    c = pd.Categorical.from_codes(c.codes.copy(), dtype=c.dtype)
            streamed[name] = c
        if s in lay.has_python_fields:
            k = o[5] - 2
            off = col(lay.fields[k, 3], np.int64)
            ln = col(lay.fields[k + 1, 3], np.int32)
            streamed.update(_python_fields(dat, fmt, buf, off, ln, skips, release))
            release()
        for f in fmt.payload_fields:
            if f.name in streamed:
                cols[f.name] = streamed[f.name]
        df = pd.DataFrame(cols, copy=False)
        df.index = pd.Index(col(o[1], np.float64), name="Time", copy=False)
        decoded[slot_ids[s]] = (fmt, df)
        lo, hi = lay.scratch_span(s)        # this event's scratch columns are done with
        lo = -(-lo // mmap.PAGESIZE) * mmap.PAGESIZE
        hi -= hi % mmap.PAGESIZE
        if hi > lo:
            release_arena(lo, hi - lo)
    release_arena(lay.main, lay.total - lay.main)
    return decoded, counts


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
    wanted = set(events) if events is not None else None
    decoded, counts = _decode_dat(dat, wanted, skips)
    dfs = {}
    for eid in sorted(decoded):     # id order, as the file lists them
        fmt, df = decoded[eid]
        dfs[fmt.name] = df
    for kind, offset, msg in dat.warnings:
        skips.add(kind, 1, offset, msg)
    if strict:
        skips.raise_if_any()
    return dfs, dat_metadata(path, dat, counts, skips), skips
