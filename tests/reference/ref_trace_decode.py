"""Plain-Python twin of lisa_eas/trace/_decode.py (ring-buffer page walk and field decoding).

Written loop by loop from the ring-buffer layout the kernel describes in ``header_page`` and
``header_event`` (kernel/trace/ring_buffer.c), not from the numba code: bytes are read with
``int.from_bytes``, every integer is a Python int (no overflow) and wrapped to the C type
only where the kernel module stores it into a fixed-width array. Each function returns
plain Python values (lists, ints) so the tests compare the numba kernels exactly.

Ring-buffer facts used here:

* a page starts with a u64 time stamp and a ``local_t`` commit word (4 or 8 bytes); bit 31
  of the commit word says events were lost before this page, bit 30 that their number is
  stored right after the committed data;
* each record starts with a 32-bit header: ``type_len`` in the low 5 bits (little endian;
  the top 5 bits on big-endian machines) and a 27-bit time delta;
* ``type_len`` 29 = padding (delta 0: the rest of the page is empty, otherwise the next
  word is the padding length), 30 = time extend (next word << 27 + delta is added),
  31 = absolute time stamp (the low 59 bits of the time stamp are replaced),
  0 = data record whose length (including the length word) is in the next word,
  1..28 = data record of ``type_len * 4`` payload bytes.
"""
from __future__ import annotations

MASK64 = (1 << 64) - 1
LOST_EVENTS_FLAG = 1 << 31
LOST_COUNT_STORED_FLAG = 1 << 30
ABS_TS_BITS = 59

# the same diag rows as the kernel module, by meaning
CORRUPT_PAGE, TRUNCATED_RECORD, BAD_RECORD_LENGTH, SHORT_RECORD, LOST_PAGES, LOST_EVENTS = range(6)


def to_signed(value: int, bits: int) -> int:
    """Two's-complement interpretation of the low ``bits`` bits of ``value``."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def read_uint(data: bytes, pos: int, size: int, big: bool) -> int:
    """Unsigned ``size``-byte integer at ``pos``."""
    return int.from_bytes(data[pos:pos + size], "big" if big else "little")


def read_uint_aligned(data: bytes, pos: int, size: int, big: bool) -> int:
    """Twin of the aligned fast path: alignment never changes the value."""
    return read_uint(data, pos, size, big)


def note(diag: list, kind: int, offset: int, amount: int) -> None:
    """First offset and (int64-wrapped) running total of one kind of problem."""
    count, first = diag[kind]
    if count == 0:
        first = offset
    diag[kind] = [to_signed(count + amount, 64), first]


def new_diag() -> list:
    return [[0, 0] for _ in range(6)]


def walk_pages(data: bytes, starts, sizes, page_size, ts_off, commit_off, commit_size, data_off,
               big, type_off, type_size, pid_off, capacity):
    """Walk every CPU range page by page.

    Returns ``(counts, records, diag)``: the number of records per range, the first
    ``capacity`` records as ``(ts, payload_offset, payload_len, id, pid, range)`` tuples and
    the diag table ``[[count, first_offset], ...]``.
    """
    diag = new_diag()
    counts = []
    records = []
    total = 0
    for r, (rstart, rsize) in enumerate(zip(starts, sizes)):
        rend = min(rstart + rsize, len(data))
        nrec = 0
        page = rstart
        while page < rend:
            page_end = min(page + page_size, rend)
            if page + data_off > page_end:
                note(diag, CORRUPT_PAGE, page, 1)
                break
            ts = to_signed(read_uint(data, page + ts_off, 8, big), 64)
            commit = read_uint(data, page + commit_off, commit_size, big)
            if commit & LOST_EVENTS_FLAG:
                note(diag, LOST_PAGES, page, 1)
            committed = to_signed(commit & ~(LOST_EVENTS_FLAG | LOST_COUNT_STORED_FLAG)
                                  & MASK64, 64)
            pos = page + data_off
            end = pos + committed
            if committed < 0 or end > page_end:
                note(diag, CORRUPT_PAGE, page, 1)
                page += page_size
                continue
            if commit & LOST_COUNT_STORED_FLAG and end + commit_size <= page_end:
                note(diag, LOST_EVENTS, page,
                     to_signed(read_uint(data, end, commit_size, big), 64))
            while pos < end:
                if end - pos < 4:
                    note(diag, TRUNCATED_RECORD, pos, 1)
                    break
                header = read_uint(data, pos, 4, big)
                if big:
                    type_len, delta = header >> 27, header & ((1 << 27) - 1)
                else:
                    type_len, delta = header & 0x1F, header >> 5
                if type_len == 29:
                    if delta == 0:          # the rest of the page is unused
                        break
                    if end - pos < 8:
                        note(diag, TRUNCATED_RECORD, pos, 1)
                        break
                    ts = to_signed(ts + delta, 64)
                    pos += 4 + read_uint(data, pos + 4, 4, big)
                    continue
                if type_len in (30, 31):
                    if end - pos < 8:
                        note(diag, TRUNCATED_RECORD, pos, 1)
                        break
                    value = (read_uint(data, pos + 4, 4, big) << 27) + delta
                    if type_len == 30:
                        ts = to_signed(ts + value, 64)
                    else:
                        low = (1 << ABS_TS_BITS) - 1
                        ts = to_signed(((ts & MASK64) & ~low) | (value & low), 64)
                    pos += 8
                    continue
                if type_len == 0:
                    if end - pos < 8:
                        note(diag, TRUNCATED_RECORD, pos, 1)
                        break
                    length = read_uint(data, pos + 4, 4, big)
                    if length < 4:
                        note(diag, BAD_RECORD_LENGTH, pos, 1)
                        break
                    payload_len = length - 4
                    payload = pos + 8
                    following = payload + 4 * ((payload_len + 3) // 4)
                else:
                    payload_len = 4 * type_len
                    payload = pos + 4
                    following = payload + payload_len
                if payload + payload_len > end:
                    note(diag, TRUNCATED_RECORD, pos, 1)
                    break
                ts = to_signed(ts + delta, 64)
                pos = following
                if payload_len < pid_off + 4 or payload_len < type_off + type_size:
                    note(diag, SHORT_RECORD, payload, 1)
                    continue
                if total < capacity:
                    event_id = to_signed(read_uint(data, payload + type_off, type_size, big), 32)
                    pid = to_signed(read_uint(data, payload + pid_off, 4, big), 32)
                    records.append((ts, payload, payload_len, event_id, pid, r))
                total += 1
                nrec += 1
            page += page_size
        counts.append(nrec)
    return counts, records, diag


def time_order(ts, bounds):
    """Stable merge of sorted per-CPU runs ``ts[bounds[k]:bounds[k+1]]``.

    Returns ``(order, ok)``; ``ok`` is False (and ``order`` empty) when a run is unsorted.
    Ties go to the lower run.
    """
    runs = [list(range(bounds[k], bounds[k + 1])) for k in range(len(bounds) - 1)]
    for run in runs:
        for a, b in zip(run, run[1:]):
            if ts[b] < ts[a]:
                return [], False
    heads = [0] * len(runs)
    order = []
    for _ in range(len(ts)):
        best = None
        for k, run in enumerate(runs):
            if heads[k] < len(run):
                cand = run[heads[k]]
                if best is None or ts[cand] < ts[runs[best][heads[best]]]:
                    best = k
        order.append(runs[best][heads[best]])
        heads[best] += 1
    return order, True


def factorize_ints(values):
    """Codes numbering distinct values in order of first appearance, and those values."""
    seen: dict = {}
    codes = []
    for v in values:
        codes.append(seen.setdefault(int(v), len(seen)))
    return codes, list(seen)


def decode_int(data: bytes, payload: int, payload_len: int, field_off: int, size: int,
               signed: bool, big: bool):
    """One integer field of one record, or None when the record is too short for it."""
    if field_off + size > payload_len:
        return None
    v = read_uint(data, payload + field_off, size, big)
    return to_signed(v, 8 * size) if signed else v


def gather_int(data: bytes, offs, lens, field_off, size, signed, big):
    """One integer field of every record (0 where too short) and the number of short rows."""
    out, bad = [], 0
    for payload, payload_len in zip(offs, lens):
        v = decode_int(data, payload, payload_len, field_off, size, signed, big)
        if v is None:
            bad += 1
            v = 0
        out.append(v)
    return out, bad



def loc_spans(data: bytes, offs, lens, field_off, relative, big):
    """``__data_loc`` (offset from the payload start) or ``__rel_loc`` (offset from the end of
    the loc word) of each record -> ``(starts, lengths, bad)``, clipped to the payload."""
    starts, lengths, bad = [], [], 0
    for payload, payload_len in zip(offs, lens):
        if field_off + 4 > payload_len:
            starts.append(payload)
            lengths.append(0)
            bad += 1
            continue
        word = read_uint(data, payload + field_off, 4, big)
        where, length = word & 0xFFFF, word >> 16
        if relative:
            where += field_off + 4
        if where + length > payload_len:
            bad += 1
            length = max(0, payload_len - where)
            where = min(where, payload_len)
        starts.append(payload + where)
        lengths.append(length)
    return starts, lengths, bad


def _cut(data: bytes, start: int, maxlen: int, stop_at_nul: bool, strip_newline: bool) -> bytes:
    s = bytes(data[start:start + maxlen])
    if stop_at_nul and b"\0" in s:
        s = s[:s.index(b"\0")]
    if strip_newline:
        s = s.rstrip(b"\n")
    return s


def intern_strings(data: bytes, starts, maxlens, stop_at_nul, strip_newline):
    """Codes in order of first appearance, and (start, length) of each distinct string's
    first occurrence."""
    seen: dict = {}
    codes, rep_start, rep_len = [], [], []
    for start, maxlen in zip(starts, maxlens):
        s = _cut(data, start, maxlen, stop_at_nul, strip_newline)
        if s not in seen:
            seen[s] = len(rep_start)
            rep_start.append(start)
            rep_len.append(len(s))
        codes.append(seen[s])
    return codes, rep_start, rep_len


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & MASK64


def content_hash(words, tail) -> int:
    """Four multiply-rotate lanes over the 64-bit words, folded, then the tail bytes."""
    p1, p2 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F
    lanes = [1, 2, 3, 4]
    words = [int(w) for w in words]
    n4 = len(words) - len(words) % 4
    for i in range(0, n4, 4):
        for k in range(4):
            lanes[k] = _rotl(((lanes[k] ^ words[i + k]) * p1) & MASK64, 31)
    a, b, c, d = lanes
    h = ((a * p2) & MASK64) ^ _rotl(b, 7) ^ ((c * p1) & MASK64) ^ _rotl(d, 17)
    for w in words[n4:]:
        h = ((h ^ w) * p2) & MASK64
    for t in tail:
        h = ((h ^ int(t)) * p1) & MASK64
    return h ^ (h >> 29)
