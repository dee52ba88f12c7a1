"""numba kernels: streaming decode of ring-buffer pages straight into the final columns.

Two passes over the pages of each CPU, in file order (sequential reads of the mapped
file, a bounded window of it resident at a time):

1. :func:`index_pages` records the time stamp and event id of every record (12 bytes a
   record, nothing else);
2. :func:`event_ranks` turns the time order of the records into each record's row in
   its event's DataFrame (its rank among the records of the same event in time order);
3. :func:`decode_pages` walks the same pages again and writes each record's time stamp,
   CPU, pid and fields directly at that row of preallocated columns (slices of one byte
   arena), interning strings (``char comm[16]``, ``__data_loc char[]``) on the way. No
   per-record intermediate arrays, no gathers.

The page layout follows the kernel's ``header_page`` (a u64 page timestamp, a ``local_t``
commit word whose top bits flag lost events, then the data) and ``header_event``
(a 32-bit word with a 5-bit ``type_len`` and a 27-bit time delta; type_len 29 is
padding, 30 a time extend, 31 an absolute time stamp, 0 a record whose length is in the
next word, 1..28 a record of type_len*4 bytes). Both walks are the same loop (kept as two
small kernels: one kernel serving both is several times slower, its hot loop carrying
the decoder's state). They share :func:`_page_start` (once a page); the record walk is
written out in each, because as a shared per-record function, inlined or not, it made the
cold read of the 8.2 M-event benchmark trace 2x slower (0.75 s -> 1.45-1.55 s). Problems are counted in ``diag`` (rows of
:data:`lisa_eas.trace._decode.DIAG_NAMES`, then unknown event ids), never raised.
:func:`first_appearance` renumbers interned codes of one column in order of first
appearance. Nothing compiles at import time (cache=True).
"""
from __future__ import annotations

import sys

import numba
import numpy as np

from ._decode import _ABS_TS_MASK, _RB_MISSED_EVENTS, _RB_MISSED_STORED, _hash_table, _note, _rd
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

__all__ = ["index_pages", "decode_pages", "event_ranks", "first_appearance", "new_interner",
           "grow_interner", "K_INT", "K_STR", "K_OFF", "K_LEN", "K_LOC", "UNKNOWN_ROW",
           "UNWANTED_ROW", "NDIAG"]

# field kinds of the decode table
K_INT = 0       # integer of 1, 2, 4 or 8 bytes, stored at its width
K_STR = 1       # char[N]: NUL-terminated text in a fixed slot, interned to an int32 code
K_OFF = 2       # the record's payload offset in the file (int64), for Python-side fields
K_LEN = 3       # the record's payload length (int32), idem
K_LOC = 4       # __data_loc / __rel_loc (fields[k, 4]) char[]: interned like K_STR
_LITTLE_HOST = sys.byteorder == "little"
# dest values of records that get no row
UNWANTED_ROW = -1
UNKNOWN_ROW = -2
# diag rows: those of _decode.DIAG_NAMES, then records whose event id has no format
NDIAG = 7
_DIAG_UNKNOWN = 6


@numba.njit(cache=True)
def _rd_slow(buf, pos, size, big):
    """The byte-by-byte read, out of line: unaligned or big-endian values only.

    The walks read aligned little-endian words with one load written out in place, as
    one expression. Measured on a 4.5 M-record trace: reading through an inlined helper
    with several return paths (such as ``_decode._rdx``), or calling out of line from
    the per-record code of :func:`_put`, made these loops 3 to 10 times slower."""
    return _rd(buf, pos, size, big)


def new_interner(capacity: int = 256):
    """Empty interner state: (table, rep_start, rep_len, rep_hash, rep_words, k) for
    ``capacity`` strings (rounded up to a power of two; the table has 4x the slots)."""
    capacity = 1 << max(0, int(capacity) - 1).bit_length()
    return (-np.ones(4 * capacity, np.int64), np.empty(capacity, np.int64),
            np.empty(capacity, np.int64), np.empty(capacity, np.uint64),
            np.zeros((capacity, 4), np.uint32), np.zeros(1, np.int64))


def grow_interner(state):
    """The same interned strings in a table of four times the capacity."""
    table, rep_start, rep_len, rep_hash, rep_w, k = state
    n = int(k[0])
    new = new_interner(4 * len(rep_start))
    for old, arr in zip((rep_start, rep_len, rep_hash, rep_w), new[1:5]):
        arr[:n] = old[:n]
    table = _hash_table(new[3], n, len(new[0]))
    return (table, *new[1:5], k.copy())


@numba.njit(cache=True, inline="always")
def _put(buf, b16, b32, nbuf, big, payload, plen, d, s, t, cpu, pid_off, slots, fields,
         a8, a16, a32, a64, ai64, af64, bad, itab, irep_start, irep_len, irep_hash, irep_w,
         istate):
    """Write one record at row ``d`` of slot ``s``; False when the interner is full.

    Everything is written out in place, with a single return and no calls: a call to
    another kernel or an early return here (even on a path never taken) made the decode
    loop several times slower (see :func:`_rd_slow`)."""
    ok = True
    ai64[(slots[s, 0] >> 3) + d] = t
    af64[(slots[s, 1] >> 3) + d] = t / 1e9
    a32[(slots[s, 2] >> 2) + d] = np.uint32(cpu)
    pp = payload + pid_off
    if not big and (pp & 3) == 0:
        a32[(slots[s, 3] >> 2) + d] = b32[pp >> 2]
    else:
        v = np.uint64(0)
        for j in range(4):
            v |= np.uint64(buf[pp + j]) << np.uint64(8 * (3 - j if big else j))
        a32[(slots[s, 3] >> 2) + d] = np.uint32(v)
    for k in range(slots[s, 4], slots[s, 5]):
        kind = fields[k, 0]
        fo = fields[k, 1]
        fsz = fields[k, 2]
        base = fields[k, 3]
        if kind == K_INT:
            p = payload + fo
            v = np.uint64(0)
            if fo + fsz > plen:     # record too short for the field: 0, counted
                bad[k] += 1
            elif not big and fsz == 4 and (p & 3) == 0:
                v = np.uint64(b32[p >> 2])
            elif not big and fsz == 8 and (p & 3) == 0:
                v = np.uint64(b32[p >> 2]) | (np.uint64(b32[(p >> 2) + 1]) << np.uint64(32))
            elif not big and fsz == 2 and (p & 1) == 0:
                v = np.uint64(b16[p >> 1])
            else:
                for j in range(fsz):
                    v |= np.uint64(buf[p + j]) << np.uint64(8 * (fsz - 1 - j if big else j))
            if fsz == 4:
                a32[(base >> 2) + d] = np.uint32(v)
            elif fsz == 8:
                a64[(base >> 3) + d] = v
            elif fsz == 2:
                a16[(base >> 1) + d] = np.uint16(v)
            else:
                a8[base + d] = np.uint8(v)
        elif kind == K_STR or kind == K_LOC:
            if kind == K_STR:
                sp = payload + fo
                sl = min(max(plen - fo, np.int64(0)), fsz)
            elif fo + 4 > plen:         # __data_loc word cut off: empty string, counted
                bad[k] += 1
                sp = payload
                sl = np.int64(0)
            else:
                pw = payload + fo
                if not big and (pw & 3) == 0:
                    w = np.int64(b32[pw >> 2])
                else:
                    w = np.int64(0)
                    for j in range(4):
                        w |= np.int64(buf[pw + j]) << (8 * (3 - j if big else j))
                lo = w & 0xFFFF
                sl = w >> 16
                if fields[k, 4]:        # __rel_loc: from the end of the loc word
                    lo += fo + 4
                if lo + sl > plen:      # clipped to the record, counted
                    bad[k] += 1
                    sl = max(np.int64(0), plen - lo)
                    lo = min(lo, plen)
                sp = payload + lo
            # the string's length (cut at its first NUL) and, up to 16 bytes, its bytes
            # as four zero-padded little-endian words; one load a word when aligned
            w0 = np.uint32(0)
            w1 = np.uint32(0)
            w2 = np.uint32(0)
            w3 = np.uint32(0)
            if _LITTLE_HOST and (sp & 3) == 0 and sl <= 16 and sp + 16 <= nbuf:
                wb = sp >> 2
                for j in range(4):
                    if 4 * j >= sl:
                        break
                    word = b32[wb + j]
                    cut = False
                    # a full word without a zero byte is kept whole (the common case)
                    if not (4 * j + 4 <= sl and ((word - np.uint32(0x01010101)) & ~word
                                                 & np.uint32(0x80808080)) == 0):
                        for b in range(4):
                            pos = 4 * j + b
                            if pos >= sl or ((word >> np.uint32(8 * b)) & np.uint32(0xFF)) == 0:
                                sl = pos
                                word &= np.uint32((1 << (8 * b)) - 1)
                                cut = True
                                break
                    if j == 0:
                        w0 = word
                    elif j == 1:
                        w1 = word
                    elif j == 2:
                        w2 = word
                    else:
                        w3 = word
                    if cut:
                        break
            else:
                for j in range(sl):
                    if buf[sp + j] == 0:
                        sl = j
                        break
                if sl <= 16:
                    for j in range(sl):
                        c8 = np.uint32(buf[sp + j]) << np.uint32(8 * (j & 3))
                        if j < 4:
                            w0 |= c8
                        elif j < 8:
                            w1 |= c8
                        elif j < 12:
                            w2 |= c8
                        else:
                            w3 |= c8
            if sl <= 16:
                hh = np.uint64(sl) * np.uint64(0x9E3779B185EBCA87)
                hh = (hh ^ np.uint64(w0)) * np.uint64(0xC2B2AE3D27D4EB4F)
                hh ^= hh >> np.uint64(29)
                hh = (hh ^ np.uint64(w1)) * np.uint64(0xC2B2AE3D27D4EB4F)
                hh ^= hh >> np.uint64(29)
                hh = (hh ^ np.uint64(w2)) * np.uint64(0xC2B2AE3D27D4EB4F)
                hh ^= hh >> np.uint64(29)
                hh = (hh ^ np.uint64(w3)) * np.uint64(0xC2B2AE3D27D4EB4F)
                hh ^= hh >> np.uint64(29)
            else:                       # longer strings: FNV-1a, high half folded in
                hh = np.uint64(14695981039346656037)
                for j in range(sl):
                    hh = (hh ^ np.uint64(buf[sp + j])) * np.uint64(1099511628211)
                hh ^= hh >> np.uint64(32)
            icap = itab.shape[0]
            slot = np.int64(hh & np.uint64(icap - 1))
            code = -1
            while True:
                c = itab[slot]
                if c < 0:
                    break
                if irep_hash[c] == hh and irep_len[c] == sl:
                    if sl <= 16:
                        if (irep_w[c, 0] == w0 and irep_w[c, 1] == w1
                                and irep_w[c, 2] == w2 and irep_w[c, 3] == w3):
                            code = c
                            break
                    else:
                        rs = irep_start[c]
                        same = True
                        for j in range(sl):
                            if buf[rs + j] != buf[sp + j]:
                                same = False
                                break
                        if same:
                            code = c
                            break
                slot = (slot + 1) & (icap - 1)
            if code < 0 and istate[0] >= irep_start.shape[0]:
                ok = False      # a new string and no room: the caller grows the table
                code = 0
            elif code < 0:      # a new string
                code = istate[0]
                irep_start[code] = sp
                irep_len[code] = sl
                irep_hash[code] = hh
                irep_w[code, 0] = w0
                irep_w[code, 1] = w1
                irep_w[code, 2] = w2
                irep_w[code, 3] = w3
                itab[slot] = code
                istate[0] = code + 1
            a32[(base >> 2) + d] = np.uint32(code)
        elif kind == K_OFF:
            ai64[(base >> 3) + d] = payload
        else:
            a32[(base >> 2) + d] = np.uint32(plen)
    return ok


@numba.njit(cache=True, inline="always")
def _page_start(buf, b32, big, page, rend, page_size, ts_off, commit_off, commit_size, data_off,
                diag):
    """A ring-buffer page's header: ``(status, time stamp, first record, end of the committed
    data)``. ``status`` -1: the page is cut by the end of the data (stop the walk), 0: its
    commit word is corrupt (skip the page), 1: walk it. Corrupt pages and lost events are
    noted in ``diag``."""
    pend = min(page + page_size, rend)
    if page + data_off > pend:
        _note(diag, 0, page, 1)
        return -1, np.int64(0), np.int64(page), np.int64(page)
    pt = page + ts_off
    ts = np.int64((np.uint64(b32[pt >> 2]) | (np.uint64(b32[(pt >> 2) + 1]) << np.uint64(32)))
                  if not big and (pt & 3) == 0 else _rd_slow(buf, pt, 8, big))
    commit_raw = _rd_slow(buf, page + commit_off, commit_size, big)
    length = np.int64(commit_raw & ~(_RB_MISSED_EVENTS | _RB_MISSED_STORED))
    if commit_raw & _RB_MISSED_EVENTS:
        _note(diag, 4, page, 1)
    pos = np.int64(page + data_off)
    end = pos + length
    if length < 0 or end > pend:
        _note(diag, 0, page, 1)
        return 0, ts, pos, end
    if commit_raw & _RB_MISSED_STORED and end + commit_size <= pend:
        _note(diag, 5, page, np.int64(_rd_slow(buf, end, commit_size, big)))
    return 1, ts, pos, end


_REC_DATA = 0   # _next_record: a data record (its payload and length)
_REC_SKIP = 1   # padding or a time extend / absolute time stamp: time advanced, no payload
_REC_END = 2    # the page's records end here (padding to its end, or a cut / corrupt header)


@numba.njit(cache=True, inline="always")
def _next_record(buf, b32, big, pos, end, ts, diag):
    """The ring-buffer record at ``pos`` (``struct ring_buffer_event``: 5-bit type_len, 27-bit
    time delta): ``(kind, time stamp after it, next record, payload, payload length)``; ``kind``
    is ``_REC_DATA``, ``_REC_SKIP`` or ``_REC_END``. Records cut by ``end`` and bad lengths are
    noted in ``diag``."""
    if pos + 4 > end:
        _note(diag, 1, pos, 1)
        return _REC_END, ts, pos, pos, np.int64(0)
    h = (np.uint64(b32[pos >> 2]) if not big and (pos & 3) == 0
         else _rd_slow(buf, pos, 4, big))
    if big:
        type_len = np.int64(h >> np.uint64(27))
        delta = np.int64(h & np.uint64(0x7FFFFFF))
    else:
        type_len = np.int64(h & np.uint64(31))
        delta = np.int64(h >> np.uint64(5))
    if type_len >= 29 or type_len == 0:     # these carry a second 32-bit word
        if type_len == 29 and delta == 0:   # padding to the end of the page
            return _REC_END, ts, pos, pos, np.int64(0)
        if pos + 8 > end:
            _note(diag, 1, pos, 1)
            return _REC_END, ts, pos, pos, np.int64(0)
        w2 = np.int64((np.uint64(b32[(pos + 4) >> 2]) if not big and ((pos + 4) & 3) == 0
                       else _rd_slow(buf, pos + 4, 4, big)))
        if type_len == 29:                  # padding / discarded record: w2 is its length
            return _REC_SKIP, ts + delta, pos + 4 + w2, pos, np.int64(0)
        if type_len == 30:                  # time extend
            return _REC_SKIP, ts + (w2 << 27) + delta, pos + 8, pos, np.int64(0)
        if type_len == 31:                  # absolute time stamp
            val = (w2 << 27) + delta
            return (_REC_SKIP, (ts & ~np.int64(_ABS_TS_MASK)) | (val & np.int64(_ABS_TS_MASK)),
                    pos + 8, pos, np.int64(0))
        if w2 < 4:                          # type_len 0: w2 is the length, itself included
            _note(diag, 2, pos, 1)
            return _REC_END, ts, pos, pos, np.int64(0)
        plen = w2 - 4
        payload = pos + 8
        nxt = payload + ((plen + 3) & ~3)
    else:
        plen = type_len * 4
        payload = pos + 4
        nxt = payload + plen
    if payload + plen > end:
        _note(diag, 1, pos, 1)
        return _REC_END, ts, pos, pos, np.int64(0)
    return _REC_DATA, ts + delta, nxt, payload, plen


@numba.njit(cache=True)
def index_pages(buf, b16, b32, b64, start, size, page_size, ts_off, commit_off, commit_size,
                data_off, big, type_off, type_size, pid_off, n0, out_ts, out_id, diag):
    """Walk the pages of ``buf[start:start+size]`` (one CPU); store the time stamp and
    event id of record ``n0 + i`` (in walk order) in ``out_ts``/``out_id`` (records past
    their capacity are counted, not stored). Returns the number of records."""
    cap_out = out_ts.shape[0]
    nbuf = buf.shape[0]
    n = 0
    rend = min(start + size, nbuf)
    page = start
    while page < rend:
        status, ts, pos, end = _page_start(buf, b32, big, page, rend, page_size, ts_off, commit_off,
                                           commit_size, data_off, diag)
        if status < 0:
            break
        if status == 0:
            page += page_size
            continue
        while pos < end:
            kind, ts, pos, payload, plen = _next_record(buf, b32, big, pos, end, ts, diag)
            if kind == _REC_END:
                break
            if kind == _REC_SKIP:
                continue
            if plen < pid_off + 4 or plen < type_off + type_size:
                _note(diag, 3, payload, 1)
                continue
            rec = n0 + n
            n += 1
            pe = payload + type_off
            eid = (np.int64(b16[pe >> 1]) if type_size == 2 and not big and (pe & 1) == 0
                   else np.int64(np.int32(_rd_slow(buf, pe, type_size, big))))
            if rec < cap_out:
                out_ts[rec] = ts
                out_id[rec] = eid
        page += page_size
    return n


@numba.njit(cache=True)
def decode_pages(buf, b16, b32, b64, start, size, page_size, ts_off, commit_off, commit_size,
                 data_off, big, type_off, type_size, pid_off, n0, ts_add, cpu, dest,
                 slot_of_id, slots, fields, a8, a16, a32, a64, ai64, af64, bad, itab,
                 irep_start, irep_len, irep_hash, irep_w, istate, diag):
    """Walk the same pages as :func:`index_pages` and write record ``n0 + i`` at row
    ``d = dest[n0 + i]`` of its event (nothing when ``d < 0``; ``UNKNOWN_ROW`` is counted
    in diag row 6).

    Slot ``s = slot_of_id[id]`` has ``slots[s] = (__ts, time, __cpu, __pid, first field,
    end field)`` (byte offsets into the arena, then rows of ``fields``); ``fields[k] =
    (kind, offset, size, byte offset of the column, __rel_loc)``. Integers are stored at
    their width through the ``a8``..``a64`` views of the arena, ``ai64``/``af64`` hold
    ``__ts`` (plus ``ts_add``) and the time in seconds; fields too short for a record
    count in ``bad[k]``. Strings are interned in the ``(itab, irep_*, istate)`` table
    (``istate[0]`` strings so far; they live in ``buf``).

    Returns the number of records, or -1 when the interner is full (grow it with
    :func:`grow_interner` and decode the same pages again with fresh ``bad``/``diag``:
    every write is idempotent).
    """
    nbuf = buf.shape[0]
    n = 0
    rend = min(start + size, nbuf)
    page = start
    while page < rend:
        status, ts, pos, end = _page_start(buf, b32, big, page, rend, page_size, ts_off, commit_off,
                                           commit_size, data_off, diag)
        if status < 0:
            break
        if status == 0:
            page += page_size
            continue
        while pos < end:
            kind, ts, pos, payload, plen = _next_record(buf, b32, big, pos, end, ts, diag)
            if kind == _REC_END:
                break
            if kind == _REC_SKIP:
                continue
            if plen < pid_off + 4 or plen < type_off + type_size:
                _note(diag, 3, payload, 1)
                continue
            rec = n0 + n
            n += 1
            pe = payload + type_off
            eid = (np.int64(b16[pe >> 1]) if type_size == 2 and not big and (pe & 1) == 0
                   else np.int64(np.int32(_rd_slow(buf, pe, type_size, big))))
            d = np.int64(dest[rec])
            if d < 0:
                if d == UNKNOWN_ROW:
                    _note(diag, _DIAG_UNKNOWN, payload, 1)
                continue
            if not _put(buf, b16, b32, nbuf, big, payload, plen, d, slot_of_id[eid],
                        ts + ts_add, cpu, pid_off, slots, fields, a8, a16, a32, a64, ai64, af64,
                        bad, itab, irep_start, irep_len, irep_hash, irep_w, istate):
                return -1
        page += page_size
    return n


@numba.njit(cache=True)
def event_ranks(perm, ids, slot_of_id):
    """Row of each record in its event's columns, written over ``ids`` (in place).

    ``perm`` lists the records in time order; ``slot_of_id[id]`` is the event's slot
    (>= 0), ``UNWANTED_ROW`` (known event not decoded) or ``UNKNOWN_ROW`` (no format).
    A decoded record's row is its rank among the records of its slot in time order;
    the others get ``UNWANTED_ROW`` or ``UNKNOWN_ROW`` (also ids outside 0..65535).
    Returns ``(records per id (65536), records with an id out of range, rows per slot)``.
    """
    counts = np.zeros(65536, np.int64)
    nslots = 0
    for e in range(slot_of_id.shape[0]):
        nslots = max(nslots, slot_of_id[e] + 1)
    rows = np.zeros(nslots, np.int64)
    other = 0
    for j in range(perm.shape[0]):
        i = perm[j]
        e = ids[i]
        if e < 0 or e > 65535:
            ids[i] = UNKNOWN_ROW
            other += 1
            continue
        counts[e] += 1
        s = slot_of_id[e]
        if s >= 0:
            ids[i] = rows[s]
            rows[s] += 1
        else:
            ids[i] = s
    return counts, other, rows


@numba.njit(cache=True)
def first_appearance(codes, ncodes):
    """Renumber ``codes`` (in 0..ncodes-1) in place in order of first appearance; returns
    the old code of each new one."""
    remap = -np.ones(ncodes, np.int64)
    order = np.empty(ncodes, np.int64)
    k = 0
    for i in range(codes.shape[0]):
        c = codes[i]
        r = remap[c]
        if r < 0:
            r = k
            remap[c] = k
            order[k] = c
            k += 1
        codes[i] = r
    return order[:k].copy()
