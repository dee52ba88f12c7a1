"""numba kernels: ring-buffer page walk and vectorised field decoding.

The page layout follows the kernel's ``header_page`` (a u64 page timestamp, a ``local_t``
commit word whose top bits flag lost events, then the data) and ``header_event``
(a 32-bit word with a 5-bit ``type_len`` and a 27-bit time delta; type_len 29 is
padding, 30 a time extend, 31 an absolute time stamp, 0 a record whose length is in the
next word, 1..28 a record of type_len*4 bytes). Every kernel works on the mapped file as
a flat ``uint8`` array and never raises: problems are counted in a ``diag`` array that
the Python layer turns into the skipped report (or a TraceError in strict mode).
Nothing compiles at import time; each kernel compiles on first call (cache=True).
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["word_views", "walk_pages", "time_order", "group_by_id", "take_rows", "factorize_ints",
           "gather_col", "gather_int", "loc_spans", "intern_strings", "intern_short",
           "content_hash", "DIAG_NAMES"]

# diag rows: [count, first byte offset]
DIAG_NAMES = (
    "corrupt_page",         # commit larger than the page, or page cut by the end of data
    "truncated_record",     # a record runs past the committed data of its page
    "bad_record_length",    # a length word smaller than its own header
    "short_record",         # a record too small to hold the common header
    "lost_event_pages",     # pages flagged by the kernel as following lost events
    "lost_events",          # number of events the kernel says it dropped (when stored)
)
NDIAG = len(DIAG_NAMES)
_RB_MISSED_EVENTS = np.uint64(1 << 31)
_RB_MISSED_STORED = np.uint64(1 << 30)
_ABS_TS_MASK = (1 << 59) - 1


@numba.njit(cache=True, inline="always")
def _rd(buf, pos, size, big):
    v = np.uint64(0)
    if big:
        for k in range(size):
            v = (v << np.uint64(8)) | np.uint64(buf[pos + k])
    else:
        for k in range(size - 1, -1, -1):
            v = (v << np.uint64(8)) | np.uint64(buf[pos + k])
    return v


@numba.njit(cache=True, inline="always")
def _rdx(buf, b16, b32, b64, pos, size, big):
    """Like :func:`_rd`, with one load for naturally aligned little-endian values
    (``b16``/``b32``/``b64`` are views of ``buf`` as 16/32/64-bit words)."""
    if not big:
        if size == 4:
            if (pos & 3) == 0:
                return np.uint64(b32[pos >> 2])
        elif size == 8:
            if (pos & 7) == 0:
                return np.uint64(b64[pos >> 3])
        elif size == 2:
            if (pos & 1) == 0:
                return np.uint64(b16[pos >> 1])
        elif size == 1:
            return np.uint64(buf[pos])
    return _rd(buf, pos, size, big)


def word_views(buf: np.ndarray):
    """The 16/32/64-bit word views of a byte buffer that the ``_rdx`` fast path reads."""
    n = buf.shape[0]
    return (buf[:n - n % 2].view(np.uint16), buf[:n - n % 4].view(np.uint32),
            buf[:n - n % 8].view(np.uint64))


@numba.njit(cache=True)
def _note(diag, kind, pos, amount):
    if diag[kind, 0] == 0:
        diag[kind, 1] = pos
    diag[kind, 0] += amount


@numba.njit(cache=True)
def walk_pages(buf, b16, b32, b64, starts, sizes, page_size, ts_off, commit_off, commit_size,
               data_off, big, type_off, type_size, pid_off, fill, out_ts, out_off, out_len,
               out_id, out_pid, out_run, diag):
    """Walk the pages of every CPU range; count (``fill`` False) or fill the outputs.

    Records past the capacity of the outputs are counted, not stored. Returns the number
    of records per range (int64 array, one entry per range).
    """
    nranges = starts.shape[0]
    counts = np.zeros(nranges, np.int64)
    nbuf = buf.shape[0]
    n = 0
    missed_mask = _RB_MISSED_EVENTS | _RB_MISSED_STORED
    for r in range(nranges):
        rstart = starts[r]
        rend = min(rstart + sizes[r], nbuf)
        page = rstart
        ts = np.int64(0)
        while page < rend:
            pend = min(page + page_size, rend)
            if page + data_off > pend:
                _note(diag, 0, page, 1)
                break
            ts = np.int64(_rdx(buf, b16, b32, b64, page + ts_off, 8, big))
            commit_raw = _rdx(buf, b16, b32, b64, page + commit_off, commit_size, big)
            length = np.int64(commit_raw & ~missed_mask)
            if commit_raw & _RB_MISSED_EVENTS:
                _note(diag, 4, page, 1)
            pos = page + data_off
            end = pos + length
            if length < 0 or end > pend:
                _note(diag, 0, page, 1)
                page += page_size
                continue
            if commit_raw & _RB_MISSED_STORED and end + commit_size <= pend:
                _note(diag, 5, page, np.int64(_rdx(buf, b16, b32, b64, end, commit_size, big)))
            while pos < end:
                if pos + 4 > end:
                    _note(diag, 1, pos, 1)
                    break
                h = _rdx(buf, b16, b32, b64, pos, 4, big)
                if big:
                    type_len = np.int64(h >> np.uint64(27))
                    delta = np.int64(h & np.uint64(0x7FFFFFF))
                else:
                    type_len = np.int64(h & np.uint64(31))
                    delta = np.int64(h >> np.uint64(5))
                if type_len == 29:          # padding / discarded record
                    if delta == 0:
                        break
                    if pos + 8 > end:
                        _note(diag, 1, pos, 1)
                        break
                    skip = np.int64(_rdx(buf, b16, b32, b64, pos + 4, 4, big))
                    ts += delta
                    pos += 4 + skip
                    continue
                if type_len == 30 or type_len == 31:
                    if pos + 8 > end:
                        _note(diag, 1, pos, 1)
                        break
                    ext = np.int64(_rdx(buf, b16, b32, b64, pos + 4, 4, big))
                    val = (ext << 27) + delta
                    if type_len == 30:
                        ts += val
                    else:
                        ts = (ts & ~np.int64(_ABS_TS_MASK)) | (val & np.int64(_ABS_TS_MASK))
                    pos += 8
                    continue
                if type_len == 0:
                    if pos + 8 > end:
                        _note(diag, 1, pos, 1)
                        break
                    l = np.int64(_rdx(buf, b16, b32, b64, pos + 4, 4, big))
                    if l < 4:
                        _note(diag, 2, pos, 1)
                        break
                    plen = l - 4
                    payload = pos + 8
                    nxt = payload + ((plen + 3) & ~3)
                else:
                    plen = type_len * 4
                    payload = pos + 4
                    nxt = payload + plen
                if payload + plen > end:
                    _note(diag, 1, pos, 1)
                    break
                ts += delta
                pos = nxt
                if plen < pid_off + 4 or plen < type_off + type_size:
                    _note(diag, 3, payload, 1)
                    continue
                if fill and n < out_ts.shape[0]:
                    out_ts[n] = ts
                    out_off[n] = payload
                    out_len[n] = plen
                    out_id[n] = np.int32(_rdx(buf, b16, b32, b64, payload + type_off, type_size,
                                              big))
                    # common_pid is a signed 32-bit int: sign-extend it
                    raw_pid = _rdx(buf, b16, b32, b64, payload + pid_off, 4, big)
                    out_pid[n] = np.int32(np.int64(raw_pid ^ np.uint64(0x80000000)) - 0x80000000)
                    out_run[n] = r
                n += 1
                counts[r] += 1
            page += page_size
    return counts


@numba.njit(cache=True)
def time_order(ts, bounds):
    """Permutation putting records in time order, from per-CPU runs ``ts[bounds[k]:bounds[k+1]]``.

    Each run is already time-sorted in a sane file, so this is a stable k-way merge (ties
    go to the lower run, i.e. the lower CPU). Returns ``(perm, ok)``; ``ok`` is False when
    a run is not sorted (corrupt timestamps), and the caller then sorts instead.
    """
    nruns = bounds.shape[0] - 1
    n = ts.shape[0]
    for r in range(nruns):
        for i in range(bounds[r] + 1, bounds[r + 1]):
            if ts[i] < ts[i - 1]:
                return np.empty(0, np.int32), False
    out = np.empty(n, np.int32)
    pos = bounds[:-1].copy()
    for i in range(n):
        best = -1
        bts = np.int64(0)
        for r in range(nruns):
            p = pos[r]
            if p < bounds[r + 1]:
                if best < 0 or ts[p] < bts:
                    best = r
                    bts = ts[p]
        out[i] = pos[best]
        pos[best] += 1
    return out, True


@numba.njit(cache=True)
def group_by_id(ids, perm):
    """Stable counting sort of ``perm`` by ``ids[perm]`` (ids in 0..65535).

    Returns ``(rows, counts)``: ``rows`` lists record positions grouped by id, time order kept
    inside a group; ``counts[id]`` is the group size.
    """
    counts = np.zeros(65536, np.int64)
    n = perm.shape[0]
    for i in range(n):
        counts[ids[perm[i]]] += 1
    start = np.empty(65536, np.int64)
    acc = 0
    for k in range(65536):
        start[k] = acc
        acc += counts[k]
    rows = np.empty(n, np.int32)
    for i in range(n):
        k = ids[perm[i]]
        rows[start[k]] = perm[i]
        start[k] += 1
    return rows, counts


@numba.njit(cache=True)
def take_rows(rows, ts, off, ln, pid, cpu, o_ts, o_off, o_len, o_pid, o_cpu, o_time):
    """Gather the per-record arrays of one event in a single pass; ``o_time`` gets the
    time stamp in seconds (``ts / 1e9``, the DataFrame index)."""
    for i in range(rows.shape[0]):
        r = rows[i]
        t = ts[r]
        o_ts[i] = t
        o_time[i] = t / 1e9
        o_off[i] = off[r]
        o_len[i] = ln[r]
        o_pid[i] = pid[r]
        o_cpu[i] = cpu[r]


@numba.njit(cache=True)
def factorize_ints(values, codes):
    """Codes of integer ``values`` (distinct values numbered in order of first appearance)
    into ``codes``; returns the distinct values. Open-addressing hash table."""
    n = values.shape[0]
    cap = 1024
    table = -np.ones(cap, np.int64)
    uniq = np.empty(64, np.int64)
    k = 0
    for i in range(n):
        v = np.int64(values[i])
        h = np.uint64(v) * np.uint64(0x9E3779B185EBCA87)
        slot = np.int64((h >> np.uint64(20)) & np.uint64(cap - 1))
        found = -1
        while True:
            c = table[slot]
            if c < 0:
                break
            if uniq[c] == v:
                found = c
                break
            slot = (slot + 1) & (cap - 1)
        if found >= 0:
            codes[i] = found
            continue
        if k == uniq.shape[0]:
            uniq = np.concatenate((uniq, np.empty(k, np.int64)))
        uniq[k] = v
        table[slot] = k
        codes[i] = k
        k += 1
        if 2 * k > cap:
            cap *= 4
            table = -np.ones(cap, np.int64)
            for c in range(k):
                hh = np.uint64(uniq[c]) * np.uint64(0x9E3779B185EBCA87)
                sl = np.int64((hh >> np.uint64(20)) & np.uint64(cap - 1))
                while table[sl] >= 0:
                    sl = (sl + 1) & (cap - 1)
                table[sl] = c
    return uniq[:k].copy()


@numba.njit(cache=True)
def gather_col(buf, b16, b32, b64, offs, lens, fo, size, signed, big, out):
    """Decode one integer field (offset ``fo``, ``size`` bytes) of every record into ``out``
    (an array of the field's C type); rows too short get 0 and are counted (returned).

    One pass per field: with the size known outside the loop, aligned little-endian values
    are single loads, which beats decoding all fields of a record in one generic pass.
    """
    n = offs.shape[0]
    bad = 0
    if not big and size == 4:
        for i in range(n):
            p = offs[i] + fo
            if fo + 4 > lens[i]:
                out[i] = 0
                bad += 1
            elif (p & 3) == 0:
                if signed:
                    out[i] = np.int32(b32[p >> 2])
                else:
                    out[i] = b32[p >> 2]
            else:
                v = _rd(buf, p, 4, False)
                out[i] = np.int32(np.int64(v)) if signed else v
        return bad
    if not big and size == 8:
        for i in range(n):
            p = offs[i] + fo
            if fo + 8 > lens[i]:
                out[i] = 0
                bad += 1
            elif (p & 7) == 0:
                out[i] = b64[p >> 3]
            elif (p & 3) == 0:
                out[i] = np.uint64(b32[p >> 2]) | (np.uint64(b32[(p >> 2) + 1]) << np.uint64(32))
            else:
                out[i] = _rd(buf, p, 8, False)
        return bad
    for i in range(n):
        p = offs[i] + fo
        if fo + size > lens[i]:
            out[i] = 0
            bad += 1
            continue
        v = _rd(buf, p, size, big)
        if signed and size < 8:
            sign = np.uint64(1) << np.uint64(size * 8 - 1)
            if v & sign:
                v = v | ~((sign << np.uint64(1)) - np.uint64(1))
        out[i] = v
    return bad


@numba.njit(cache=True)
def gather_int(buf, offs, lens, field_off, size, signed, big, out):
    """Decode one integer field of every record; rows too short get 0 and are counted."""
    bad = 0
    for i in range(offs.shape[0]):
        if field_off + size > lens[i]:
            out[i] = 0
            bad += 1
            continue
        v = _rd(buf, offs[i] + field_off, size, big)
        if signed and size < 8:
            sign = np.uint64(1) << np.uint64(size * 8 - 1)
            if v & sign:
                v = v | ~((sign << np.uint64(1)) - np.uint64(1))
        out[i] = v
    return bad


@numba.njit(cache=True)
def loc_spans(buf, b16, b32, b64, offs, lens, field_off, relative, big, out_start, out_len):
    """Resolve ``__data_loc``/``__rel_loc`` words into (start, length) spans; returns bad rows."""
    bad = 0
    for i in range(offs.shape[0]):
        if field_off + 4 > lens[i]:
            out_start[i] = offs[i]
            out_len[i] = 0
            bad += 1
            continue
        w = np.int64(_rdx(buf, b16, b32, b64, offs[i] + field_off, 4, big))
        o = w & 0xFFFF
        l = w >> 16
        if relative:
            o += field_off + 4
        if o + l > lens[i]:
            bad += 1
            l = max(np.int64(0), lens[i] - o)
            o = min(o, lens[i])
        out_start[i] = offs[i] + o
        out_len[i] = l
    return bad


@numba.njit(cache=True)
def _hash_table(rep_hash, k, cap):
    """Open-addressing table (linear probing, ``cap`` a power of two) of the first ``k``
    representatives, by their hashes: slot -> representative index, -1 where empty."""
    table = -np.ones(cap, np.int64)
    for c in range(k):
        sl = np.int64(rep_hash[c] & np.uint64(cap - 1))
        while table[sl] >= 0:
            sl = (sl + 1) & (cap - 1)
        table[sl] = c
    return table


@numba.njit(cache=True)
def intern_strings(buf, starts, maxlens, stop_at_nul, strip_newline, codes):
    """Intern byte strings: fill ``codes`` and return (rep_start, rep_len) of each distinct one.

    A string is ``buf[start:start+maxlen]`` cut at the first NUL (``stop_at_nul``) and,
    with ``strip_newline``, without trailing newlines. Open-addressing hash table over
    FNV-1a hashes; distinct strings get codes in order of first appearance.
    """
    n = starts.shape[0]
    cap = 1024
    while cap < 4 * 64:
        cap *= 2
    table = -np.ones(cap, np.int64)
    rep_start = np.empty(64, np.int64)
    rep_len = np.empty(64, np.int64)
    rep_hash = np.empty(64, np.uint64)
    k = 0
    for i in range(n):
        s = starts[i]
        m = maxlens[i]
        l = m
        if stop_at_nul:
            for j in range(m):
                if buf[s + j] == 0:
                    l = j
                    break
        if strip_newline:
            while l > 0 and buf[s + l - 1] == 10:
                l -= 1
        h = np.uint64(14695981039346656037)
        for j in range(l):
            h = (h ^ np.uint64(buf[s + j])) * np.uint64(1099511628211)
        h ^= h >> np.uint64(32)
        slot = np.int64(h & np.uint64(cap - 1))
        found = -1
        while True:
            c = table[slot]
            if c < 0:
                break
            if rep_hash[c] == h and rep_len[c] == l:
                rs = rep_start[c]
                same = True
                for j in range(l):
                    if buf[rs + j] != buf[s + j]:
                        same = False
                        break
                if same:
                    found = c
                    break
            slot = (slot + 1) & (cap - 1)
        if found >= 0:
            codes[i] = found
            continue
        if k == rep_start.shape[0]:
            rep_start = np.concatenate((rep_start, np.empty(k, np.int64)))
            rep_len = np.concatenate((rep_len, np.empty(k, np.int64)))
            rep_hash = np.concatenate((rep_hash, np.empty(k, np.uint64)))
        rep_start[k] = s
        rep_len[k] = l
        rep_hash[k] = h
        table[slot] = k
        codes[i] = k
        k += 1
        if 2 * k > cap:
            cap *= 4
            table = _hash_table(rep_hash, k, cap)
    return rep_start[:k].copy(), rep_len[:k].copy()


@numba.njit(cache=True)
def intern_short(b32, starts, maxlens, codes):
    """:func:`intern_strings` for NUL-terminated strings of at most 16 bytes starting at
    4-byte aligned offsets (task comms): each string is compared as four 32-bit words.

    ``b32`` is the little-endian host's 32-bit view of the buffer; the caller guarantees
    ``start % 4 == 0`` and ``start + 16 <= 4 * len(b32)``.
    """
    n = starts.shape[0]
    cap = 1024
    table = -np.ones(cap, np.int64)
    rep_w = np.empty((64, 4), np.uint32)
    rep_start = np.empty(64, np.int64)
    rep_len = np.empty(64, np.int64)
    rep_hash = np.empty(64, np.uint64)
    k = 0
    w = np.zeros(4, np.uint32)
    for i in range(n):
        s = starts[i]
        m = maxlens[i]
        base = s >> 2
        l = m
        for j in range(4):
            if 4 * j >= l:
                w[j] = np.uint32(0)
                continue
            word = b32[base + j]
            # no zero byte in a full word: keep it whole (the common case)
            if 4 * j + 4 <= l and ((word - np.uint32(0x01010101)) & ~word
                                   & np.uint32(0x80808080)) == 0:
                w[j] = word
                continue
            for b in range(4):
                pos = 4 * j + b
                if pos >= l or ((word >> np.uint32(8 * b)) & np.uint32(0xFF)) == 0:
                    if pos < l:
                        l = pos
                    word &= np.uint32((1 << (8 * b)) - 1)
                    break
            w[j] = word
        h = np.uint64(l) * np.uint64(0x9E3779B185EBCA87)
        for j in range(4):
            h = (h ^ np.uint64(w[j])) * np.uint64(0xC2B2AE3D27D4EB4F)
            h ^= h >> np.uint64(29)
        slot = np.int64(h & np.uint64(cap - 1))
        found = -1
        while True:
            c = table[slot]
            if c < 0:
                break
            if (rep_hash[c] == h and rep_len[c] == l and rep_w[c, 0] == w[0]
                    and rep_w[c, 1] == w[1] and rep_w[c, 2] == w[2] and rep_w[c, 3] == w[3]):
                found = c
                break
            slot = (slot + 1) & (cap - 1)
        if found >= 0:
            codes[i] = found
            continue
        if k == rep_start.shape[0]:
            rep_w = np.concatenate((rep_w, np.empty((k, 4), np.uint32)))
            rep_start = np.concatenate((rep_start, np.empty(k, np.int64)))
            rep_len = np.concatenate((rep_len, np.empty(k, np.int64)))
            rep_hash = np.concatenate((rep_hash, np.empty(k, np.uint64)))
        for j in range(4):
            rep_w[k, j] = w[j]
        rep_start[k] = s
        rep_len[k] = l
        rep_hash[k] = h
        table[slot] = k
        codes[i] = k
        k += 1
        if 2 * k > cap:
            cap *= 4
            table = _hash_table(rep_hash, k, cap)
    return rep_start[:k].copy(), rep_len[:k].copy()


@numba.njit(cache=True)
def content_hash(words, tail):
    """A fast 64-bit hash of a whole file (4 independent multiply-rotate lanes)."""
    p1 = np.uint64(0x9E3779B185EBCA87)
    p2 = np.uint64(0xC2B2AE3D27D4EB4F)
    a = np.uint64(1)
    b = np.uint64(2)
    c = np.uint64(3)
    d = np.uint64(4)
    n = words.shape[0]
    i = 0
    while i + 4 <= n:
        a = ((a ^ words[i]) * p1)
        a = (a << np.uint64(31)) | (a >> np.uint64(33))
        b = ((b ^ words[i + 1]) * p1)
        b = (b << np.uint64(31)) | (b >> np.uint64(33))
        c = ((c ^ words[i + 2]) * p1)
        c = (c << np.uint64(31)) | (c >> np.uint64(33))
        d = ((d ^ words[i + 3]) * p1)
        d = (d << np.uint64(31)) | (d >> np.uint64(33))
        i += 4
    h = (a * p2 ^ ((b << np.uint64(7)) | (b >> np.uint64(57))) ^ c * p1
         ^ ((d << np.uint64(17)) | (d >> np.uint64(47))))
    while i < n:
        h = (h ^ words[i]) * p2
        i += 1
    for j in range(tail.shape[0]):
        h = (h ^ np.uint64(tail[j])) * p1
    h ^= h >> np.uint64(29)
    return h
