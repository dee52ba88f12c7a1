"""Plain-Python twin of lisa_eas/trace/_stream.py (index pass, ranks, decode pass).

Built on the page walk of ``ref_trace_decode.walk_pages`` (the ring-buffer layout rules
are written there), then, record by record: the row of each record in its event (its rank
among the same event's records in time order), and each field decoded from the record
with ``int.from_bytes``. Returns plain Python values so the tests compare the numba
kernels exactly.
"""
from __future__ import annotations

from reference import ref_trace_decode as walk_ref

K_INT, K_STR, K_OFF, K_LEN, K_LOC = range(5)
UNWANTED_ROW, UNKNOWN_ROW = -1, -2
UNKNOWN_DIAG = 6


def index_pages(data: bytes, start: int, size: int, layout: dict, capacity: int):
    """``(records, [(ts, id), ...] of the first ``capacity``, diag)`` of one CPU range."""
    counts, records, diag = walk_ref.walk_pages(
        data, [start], [size], layout["page_size"], layout["ts_off"], layout["commit_off"],
        layout["commit_size"], layout["data_off"], layout["big"], layout["type_off"],
        layout["type_size"], layout["pid_off"], capacity)
    return counts[0], [(r[0], r[3]) for r in records], diag + [[0, 0]]


def event_ranks(order, ids, slot_of_id):
    """Rows over ``ids`` (a new list), records per id, ids out of range, rows per slot."""
    dest = list(ids)
    counts: dict = {}
    rows: dict = {}
    other = 0
    for i in order:
        e = ids[i]
        if not 0 <= e <= 65535:
            dest[i] = UNKNOWN_ROW
            other += 1
            continue
        counts[e] = counts.get(e, 0) + 1
        s = slot_of_id.get(e, UNWANTED_ROW)
        if s >= 0:
            dest[i] = rows.get(s, 0)
            rows[s] = dest[i] + 1
        else:
            dest[i] = s
    return dest, counts, other, rows


def first_appearance(codes):
    """Codes renumbered in order of first appearance, and the old code of each new one."""
    seen: dict = {}
    out = [seen.setdefault(c, len(seen)) for c in codes]
    return out, list(seen)


def _string_span(data: bytes, payload: int, plen: int, kind: int, fo: int, fsz: int,
                 relative: bool, big: bool):
    """(start, max length, bad) of a char[N] or __data_loc string of one record."""
    if kind == K_STR:
        return payload + fo, min(max(plen - fo, 0), fsz), 0
    if fo + 4 > plen:
        return payload, 0, 1
    word = walk_ref.read_uint(data, payload + fo, 4, big)
    where, length = word & 0xFFFF, word >> 16
    if relative:
        where += fo + 4
    bad = 0
    if where + length > plen:
        bad = 1
        length = max(0, plen - where)
        where = min(where, plen)
    return payload + where, length, bad


def decode_pages(data: bytes, start: int, size: int, layout: dict, n0: int, ts_add: int,
                 cpu: int, dest, slot_of_id: dict, slots, interned: dict):
    """Decode one CPU range like the kernel.

    ``slots[s]`` is a list of ``(kind, offset, size, relative)`` field entries.
    ``interned`` (bytes -> code, insertion order) is the string table, updated in place.
    Returns ``(records, {(slot, row): [ts, time, cpu, pid, value...]}, bad per (slot,
    field), diag)``; integer values are the unsigned bits at the field's width.
    """
    big = layout["big"]
    counts, records, diag = walk_ref.walk_pages(
        data, [start], [size], layout["page_size"], layout["ts_off"], layout["commit_off"],
        layout["commit_size"], layout["data_off"], big, layout["type_off"],
        layout["type_size"], layout["pid_off"], 1 << 62)
    diag = diag + [[0, 0]]
    out: dict = {}
    bad: dict = {}
    for i, (ts, payload, plen, eid, pid, _run) in enumerate(records):
        d = dest[n0 + i]
        if d < 0:
            if d == UNKNOWN_ROW:
                walk_ref.note(diag, UNKNOWN_DIAG, payload, 1)
            continue
        s = slot_of_id[eid]
        t = walk_ref.to_signed(ts + ts_add, 64)
        row = [t, float(t) / 1e9, cpu, pid & 0xFFFFFFFF]
        for k, (kind, fo, fsz, relative) in enumerate(slots[s]):
            if kind == K_INT:
                if fo + fsz > plen:
                    bad[s, k] = bad.get((s, k), 0) + 1
                    row.append(0)
                else:
                    row.append(walk_ref.read_uint(data, payload + fo, fsz, big))
            elif kind in (K_STR, K_LOC):
                sp, sl, b = _string_span(data, payload, plen, kind, fo, fsz, relative, big)
                if b:
                    bad[s, k] = bad.get((s, k), 0) + 1
                text = bytes(data[sp:sp + sl]).split(b"\0", 1)[0]
                row.append(interned.setdefault(text, len(interned)))
            elif kind == K_OFF:
                row.append(payload)
            else:
                row.append(plen)
        out[s, d] = row
    return counts[0], out, bad, diag
