"""numba kernels decoding the protobuf wire format of Perfetto traces.

The hot paths only: the walk over the top-level ``Trace.packet`` list and the decoding of
``FtraceEventBundle`` packets (typed ftrace events and the columnar ``compact_sched``
encoding) into flat arrays. Field numbers are those of Perfetto's ``.proto`` files
(``protos/perfetto/trace/trace_packet.proto``, ``ftrace/ftrace_event_bundle.proto``,
``ftrace/ftrace_event.proto``); the typed events' own field numbers come as tables from
:mod:`lisa_eas.trace._perfetto_schema`.

As in :mod:`lisa_eas.trace._decode`, kernels never raise: a packet or bundle that cannot
be decoded is dropped whole (its rows rolled back) and reported with an error code and
the byte offset where decoding failed. Nothing compiles at import time.
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["ERR_NAMES", "scan_packets", "bundle_bounds", "decode_bundles", "PK_COLS",
           "MAX_CPUS", "MAX_COLS"]

# error codes (index into ERR_NAMES)
E_OK = 0
E_TRUNC = 1       # a varint, fixed field or length-delimited field runs past its message
E_WIRE = 2        # a known field with an unexpected wire type
E_TAG = 3         # field number 0 or a wire type protobuf does not have (or groups)
E_COMPACT = 4     # compact_sched columns of different lengths, or split columns
E_INTERN = 5      # a compact_sched comm index outside the bundle's intern table
E_CPU = 6         # a bundle CPU number >= MAX_CPUS
ERR_NAMES = ("ok", "truncated_field", "wrong_wire_type", "bad_tag", "inconsistent_compact_sched",
             "bad_intern_index", "bad_cpu")

MAX_CPUS = 4096
MAX_COLS = 8            # columns per typed event kind
MAX_FNO = 16            # field numbers of typed events' own fields are < MAX_FNO

# per-packet columns of the scan_packets output (int64 matrix)
PK_START, PK_LEN, PK_TS, PK_CLOCK, PK_SEQ, PK_FLAGS, PK_DROPPED, PK_FIELD, PK_DSTART, \
    PK_DLEN, PK_ERR, PK_ERRPOS, PK_HAS_TS = range(13)
PK_COLS = 13

_U7F = np.uint64(0x7F)


@numba.njit(cache=True, inline="always")
def _varint(buf, pos, end):
    """(value, new position); new position -1 when the varint is cut or longer than 10 bytes."""
    v = np.uint64(0)
    shift = np.uint64(0)
    while pos < end:
        b = buf[pos]
        pos += 1
        v |= (np.uint64(b) & _U7F) << shift
        if b < 0x80:
            return v, pos
        shift += np.uint64(7)
        if shift > np.uint64(63):
            return v, -1
    return v, -1


@numba.njit(cache=True, inline="always")
def _skip(buf, pos, end, wt):
    """Position after a field value of wire type ``wt`` starting at ``pos``; -1 cut, -2 bad."""
    if wt == 0:
        _, p = _varint(buf, pos, end)
        return p
    if wt == 1:
        return pos + 8 if pos + 8 <= end else -1
    if wt == 2:
        n, p = _varint(buf, pos, end)
        if p < 0:
            return -1
        if n > np.uint64(end - p):
            return -1
        return p + np.int64(n)
    if wt == 5:
        return pos + 4 if pos + 4 <= end else -1
    return -2


@numba.njit(cache=True, inline="always")
def _decoded(f):
    """Packet data fields the reader decodes (win over unknown length-delimited fields)."""
    return (f == 1 or f == 2 or f == 6 or f == 34 or f == 38 or f == 40 or f == 45 or f == 50
            or f == 67 or f == 133)


@numba.njit(cache=True)
def count_packets(buf, start, end):
    """Number of top-level fields in ``buf[start:end]`` (an upper bound on packets)."""
    pos = start
    n = 0
    while pos < end:
        key, p = _varint(buf, pos, end)
        if p < 0:
            return n + 1
        wt = np.int64(key & np.uint64(7))
        q = _skip(buf, p, end, wt)
        n += 1
        if q < 0:
            return n
        pos = q
    return n


@numba.njit(cache=True)
def scan_packets(buf, start, end, out):
    """Walk ``Trace`` (repeated ``TracePacket packet = 1``) and fill one row of ``out`` per
    packet (columns ``PK_*``). Returns ``(n_packets, stop_error, stop_pos)``: the walk stops
    at a cut top-level field (``stop_error`` != 0); fields other than 1 are skipped.

    Per packet: the span, ``timestamp`` (8), ``timestamp_clock_id`` (58),
    ``trusted_packet_sequence_id`` (10), ``sequence_flags`` (13),
    ``previous_packet_dropped`` (42), and the field number and span of its data
    (the last length-delimited field other than ``interned_data`` (12) and
    ``trace_packet_defaults`` (59)). A packet that does not parse gets ``PK_ERR``."""
    pos = start
    n = 0
    while pos < end:
        key, p = _varint(buf, pos, end)
        if p < 0:
            return n, E_TRUNC, pos
        fno = np.int64(key >> np.uint64(3))
        wt = np.int64(key & np.uint64(7))
        if fno == 0 or wt > 5 or wt == 3 or wt == 4:
            return n, E_TAG, pos
        if fno != 1 or wt != 2:
            q = _skip(buf, p, end, wt)
            if q < 0:
                return n, E_TRUNC, pos
            pos = q
            continue
        ln, p2 = _varint(buf, p, end)
        if p2 < 0 or ln > np.uint64(end - p2):
            return n, E_TRUNC, pos
        ps = p2
        pe = p2 + np.int64(ln)
        row = out[n]
        row[PK_START] = ps
        row[PK_LEN] = pe - ps
        row[PK_TS] = 0
        row[PK_HAS_TS] = 0
        row[PK_CLOCK] = 0
        row[PK_SEQ] = 0
        row[PK_FLAGS] = 0
        row[PK_DROPPED] = 0
        row[PK_FIELD] = 0
        row[PK_DSTART] = 0
        row[PK_DLEN] = 0
        row[PK_ERR] = 0
        row[PK_ERRPOS] = 0
        q = ps
        while q < pe:
            k2, r = _varint(buf, q, pe)
            if r < 0:
                row[PK_ERR] = E_TRUNC
                row[PK_ERRPOS] = q
                break
            f2 = np.int64(k2 >> np.uint64(3))
            w2 = np.int64(k2 & np.uint64(7))
            if f2 == 0 or w2 > 5 or w2 == 3 or w2 == 4:
                row[PK_ERR] = E_TAG
                row[PK_ERRPOS] = q
                break
            if f2 == 8 or f2 == 58 or f2 == 10 or f2 == 13 or f2 == 42:
                if w2 != 0:
                    row[PK_ERR] = E_WIRE
                    row[PK_ERRPOS] = q
                    break
                v, r2 = _varint(buf, r, pe)
                if r2 < 0:
                    row[PK_ERR] = E_TRUNC
                    row[PK_ERRPOS] = q
                    break
                if f2 == 8:
                    row[PK_TS] = np.int64(v)
                    row[PK_HAS_TS] = 1
                elif f2 == 58:
                    row[PK_CLOCK] = np.int64(v)
                elif f2 == 10:
                    row[PK_SEQ] = np.int64(v)
                elif f2 == 13:
                    row[PK_FLAGS] = np.int64(v)
                else:
                    row[PK_DROPPED] = np.int64(v)
                q = r2
                continue
            r2 = _skip(buf, r, pe, w2)
            if r2 < 0:
                row[PK_ERR] = E_TRUNC
                row[PK_ERRPOS] = q
                break
            if w2 == 2 and f2 != 12 and f2 != 59 and (row[PK_FIELD] == 0 or _decoded(f2)):
                lv, r3 = _varint(buf, r, pe)
                row[PK_FIELD] = f2
                row[PK_DSTART] = r3
                row[PK_DLEN] = r2 - r3
            elif f2 == 1 or f2 == 50 or f2 == 133:
                row[PK_ERR] = E_WIRE
                row[PK_ERRPOS] = q
                break
            q = r2
        n += 1
        pos = pe
    return n, E_OK, pos


@numba.njit(cache=True)
def _event_kind(buf, pos, end, kind_of):
    """Kind (row of the typed-event tables) of the FtraceEvent in ``buf[pos:end]``:
    >= 0 typed, -1 generic, -2 other/unknown event, -3 undecodable."""
    q = pos
    while q < end:
        k, r = _varint(buf, q, end)
        if r < 0:
            return -3
        f = np.int64(k >> np.uint64(3))
        w = np.int64(k & np.uint64(7))
        r2 = _skip(buf, r, end, w)
        if r2 < 0 or f == 0:
            return -3
        if w == 2 and f != 1 and f != 2 and f != 5:
            if f < kind_of.shape[0]:
                return kind_of[f]
            return -2
        q = r2
    return -2


@numba.njit(cache=True)
def bundle_bounds(buf, bstart, blen, kind_of, nkinds, unknown_fno):
    """Upper bounds of the rows a decode of the bundles can produce: per typed kind
    (``[:nkinds]``), then generic events, compact switches and compact wakings.
    Unknown event field numbers are counted in ``unknown_fno`` (by field number)."""
    counts = np.zeros(nkinds + 3, np.int64)
    for b in range(bstart.shape[0]):
        pos = bstart[b]
        end = pos + blen[b]
        while pos < end:
            key, p = _varint(buf, pos, end)
            if p < 0:
                break
            f = np.int64(key >> np.uint64(3))
            w = np.int64(key & np.uint64(7))
            q = _skip(buf, p, end, w)
            if q < 0:
                break
            if f == 2 and w == 2:
                ln, s = _varint(buf, p, end)
                k = _event_kind(buf, s, q, kind_of)
                if k >= 0:
                    counts[k] += 1
                elif k == -1:
                    counts[nkinds] += 1
                elif k == -2:
                    # find the oneof field number for the report
                    qq = s
                    while qq < q:
                        k2, r = _varint(buf, qq, q)
                        if r < 0:
                            break
                        f2 = np.int64(k2 >> np.uint64(3))
                        w2 = np.int64(k2 & np.uint64(7))
                        r2 = _skip(buf, r, q, w2)
                        if r2 < 0:
                            break
                        if w2 == 2 and f2 > 5:
                            if f2 < unknown_fno.shape[0]:
                                unknown_fno[f2] += 1
                            break
                        qq = r2
            elif f == 4 and w == 2:
                ln, s = _varint(buf, p, end)
                qq = s
                while qq < q:
                    k2, r = _varint(buf, qq, q)
                    if r < 0:
                        break
                    f2 = np.int64(k2 >> np.uint64(3))
                    w2 = np.int64(k2 & np.uint64(7))
                    r2 = _skip(buf, r, q, w2)
                    if r2 < 0:
                        break
                    if w2 == 2 and (f2 == 1 or f2 == 7):
                        l2, s2 = _varint(buf, r, q)
                        c = 0
                        for i in range(s2, r2):
                            if buf[i] < 0x80:
                                c += 1
                        counts[nkinds + 1 + (1 if f2 == 7 else 0)] += c
                    elif w2 == 0 and (f2 == 1 or f2 == 7):
                        counts[nkinds + 1 + (1 if f2 == 7 else 0)] += 1
                    qq = r2
            pos = q
    return counts


@numba.njit(cache=True)
def _count_packed(buf, s, e):
    c = 0
    for i in range(s, e):
        if buf[i] < 0x80:
            c += 1
    return c


@numba.njit(cache=True)
def _decode_event(buf, pos, end, kind_of, col_of, col_str, k_ncols, vals, slen, vbase, seen):
    """Decode one typed FtraceEvent into ``vals``/``slen`` at ``vbase`` (``k_ncols`` cells).
    Returns (error, error position, timestamp, pid, kind)."""
    ts = np.int64(0)
    pid = np.int64(0)
    kind = -2
    q = pos
    while q < end:
        key, r = _varint(buf, q, end)
        if r < 0:
            return E_TRUNC, q, ts, pid, kind
        f = np.int64(key >> np.uint64(3))
        w = np.int64(key & np.uint64(7))
        if f == 0 or w > 5 or w == 3 or w == 4:
            return E_TAG, q, ts, pid, kind
        if f == 1 or f == 2:
            if w != 0:
                return E_WIRE, q, ts, pid, kind
            v, r2 = _varint(buf, r, end)
            if r2 < 0:
                return E_TRUNC, q, ts, pid, kind
            if f == 1:
                ts = np.int64(v)
            else:
                pid = np.int64(v)
            q = r2
            continue
        r2 = _skip(buf, r, end, w)
        if r2 < 0:
            return E_TRUNC, q, ts, pid, kind
        if w == 2 and f != 5 and f < kind_of.shape[0] and kind_of[f] >= 0:
            kind = kind_of[f]
            nc = k_ncols[kind]
            for c in range(nc):
                vals[vbase + c] = 0
                slen[vbase + c] = 0
            ln, s = _varint(buf, r, end)
            qq = s
            while qq < r2:
                k2, t = _varint(buf, qq, r2)
                if t < 0:
                    return E_TRUNC, qq, ts, pid, kind
                f2 = np.int64(k2 >> np.uint64(3))
                w2 = np.int64(k2 & np.uint64(7))
                if f2 == 0 or w2 > 5 or w2 == 3 or w2 == 4:
                    return E_TAG, qq, ts, pid, kind
                t2 = _skip(buf, t, r2, w2)
                if t2 < 0:
                    return E_TRUNC, qq, ts, pid, kind
                c = col_of[kind, f2] if f2 < MAX_FNO else -1
                if c >= 0:
                    if col_str[kind, c]:
                        if w2 != 2:
                            return E_WIRE, qq, ts, pid, kind
                        l3, s3 = _varint(buf, t, r2)
                        vals[vbase + c] = s3
                        slen[vbase + c] = np.int32(l3)
                    else:
                        if w2 != 0:
                            return E_WIRE, qq, ts, pid, kind
                        v, _ = _varint(buf, t, r2)
                        vals[vbase + c] = np.int64(v)
                    seen[kind, c] = True
                qq = t2
        q = r2
    return E_OK, pos, ts, pid, kind


@numba.njit(cache=True)
def decode_bundles(buf, bstart, blen, boffset, monoraw_off, sw_kind, kind_of, col_of, col_str,
                   k_ncols, k_rowbase, k_valbase, rows, vals, slen, ev_ts, ev_cpu, ev_pid,
                   sw, sw_ts, sw_comm, wk, wk_ts, wk_comm, gen_span, berr):
    """Decode the FtraceEventBundles ``buf[bstart[b]:bstart[b]+blen[b]]``.

    Typed events of kind ``k`` go to rows ``k_rowbase[k] + i`` of ``ev_ts``/``ev_cpu``/
    ``ev_pid`` and cells ``k_valbase[k] + i * k_ncols[k] + c`` of ``vals`` (integers, or the
    start of a string) and ``slen`` (string lengths); ``rows[k]`` counts them.
    Compact switches: ``sw`` (int64 columns: cpu, prev_state, next_pid, next_prio,
    prev_pid, prev_prio), ``sw_ts`` and ``sw_comm`` (start, length of next_comm, then of
    prev_comm); compact wakings: ``wk`` (cpu, pid, target_cpu, prio, common_flags, waker
    pid), ``wk_ts``, ``wk_comm`` (comm, waker comm). ``rows[nkinds]`` generic-event spans
    (into ``gen_span``: start, length, cpu), ``rows[nkinds+1]``, ``rows[nkinds+2]`` the
    compact switch/waking rows. Timestamps get ``boffset[b]`` added (clock conversion),
    and, for bundles whose ``ftrace_clock`` (5) is not the boot clock, ``monoraw_off`` (MONO_RAW)
    or ``boot_timestamp`` (7) - ``ftrace_timestamp`` (6) (global/local clocks).

    A bundle that fails to decode is rolled back; ``berr[b]`` = (error, byte offset).
    Bundle ``lost_events`` flags are returned as a count.
    """
    nk = k_ncols.shape[0]
    seen = np.zeros((nk, MAX_COLS), np.bool_)
    # per-CPU task running, from the switches seen so far: pid, prio, comm start, comm length
    cur = np.full((MAX_CPUS, 4), -1, np.int64)
    intern_s = np.empty(256, np.int64)
    intern_l = np.empty(256, np.int64)
    lost = 0
    saved = np.empty(rows.shape[0], np.int64)
    cur_saved = np.empty((MAX_CPUS, 4), np.int64)
    cur_b = np.empty(4, np.int64)
    for b in range(bstart.shape[0]):
        pos = bstart[b]
        end = pos + blen[b]
        off = boffset[b]
        saved[:] = rows
        err = E_OK
        errpos = pos
        cpu = np.int64(0)
        cs_pos = -1
        cs_end = -1
        bundle_lost = 0
        fclock = 0
        f_ts = np.int64(0)
        b_ts = np.int64(0)
        has_fb = 0
        # pass A: the bundle's scalar fields (cpu may follow the events)
        q = pos
        while q < end:
            key, r = _varint(buf, q, end)
            if r < 0:
                err = E_TRUNC
                errpos = q
                break
            f = np.int64(key >> np.uint64(3))
            w = np.int64(key & np.uint64(7))
            if f == 0 or w > 5 or w == 3 or w == 4:
                err = E_TAG
                errpos = q
                break
            r2 = _skip(buf, r, end, w)
            if r2 < 0:
                err = E_TRUNC
                errpos = q
                break
            if f == 1 or f == 3 or f == 5 or f == 6 or f == 7:
                if w != 0:
                    err = E_WIRE
                    errpos = q
                    break
                v, _ = _varint(buf, r, end)
                if f == 1:
                    cpu = np.int64(v)
                elif f == 3:
                    if v != 0:
                        bundle_lost = 1
                elif f == 5:
                    fclock = np.int64(v)
                elif f == 6:
                    f_ts = np.int64(v)
                    has_fb |= 1
                else:
                    b_ts = np.int64(v)
                    has_fb |= 2
            elif f == 2 or f == 4:
                if w != 2:
                    err = E_WIRE
                    errpos = q
                    break
                if f == 4:
                    ln, s = _varint(buf, r, end)
                    cs_pos = s
                    cs_end = r2
            q = r2
        if fclock == 4:
            off += monoraw_off
        elif fclock != 0 and has_fb == 3:
            off += b_ts - f_ts
        if err == E_OK and cpu >= MAX_CPUS:
            err = E_CPU
            errpos = pos
        if err == E_OK:
            cur_saved[cpu, :] = cur[cpu, :]
        # pass B: typed events
        q = pos
        while err == E_OK and q < end:
            key, r = _varint(buf, q, end)
            f = np.int64(key >> np.uint64(3))
            w = np.int64(key & np.uint64(7))
            r2 = _skip(buf, r, end, w)
            if f == 2:
                ln, s = _varint(buf, r, end)
                k = _event_kind(buf, s, r2, kind_of)
                if k == -3:
                    err = E_TRUNC
                    errpos = s
                    break
                if k == -1:
                    i = rows[nk]
                    if i < gen_span.shape[0]:
                        gen_span[i, 0] = s
                        gen_span[i, 1] = r2 - s
                        gen_span[i, 2] = cpu
                        gen_span[i, 3] = off
                        rows[nk] = i + 1
                elif k >= 0:
                    i = rows[k]
                    row = k_rowbase[k] + i
                    vb = k_valbase[k] + i * k_ncols[k]
                    e, ep, ts, pid, kk = _decode_event(buf, s, r2, kind_of, col_of, col_str,
                                                      k_ncols, vals, slen, vb, seen)
                    if e != E_OK:
                        err = e
                        errpos = ep
                        break
                    ev_ts[row] = ts + off
                    ev_cpu[row] = cpu
                    ev_pid[row] = pid
                    rows[k] = i + 1
                    if k == sw_kind:     # a typed switch also names the running task
                        cur[cpu, 0] = np.int64(np.int32(vals[vb + 5]))
                        cur[cpu, 1] = np.int64(np.int32(vals[vb + 6]))
                        cur[cpu, 2] = vals[vb + 4]
                        cur[cpu, 3] = slen[vb + 4]
            q = r2
        # pass C: compact_sched
        if err == E_OK:
            cur_b[:] = cur[cpu, :]
        if err == E_OK and cs_pos >= 0:
            # spans of the packed columns 1..12 (start, end); intern table
            sp = np.full((13, 2), -1, np.int64)
            nint = 0
            q = cs_pos
            while q < cs_end:
                key, r = _varint(buf, q, cs_end)
                if r < 0:
                    err = E_TRUNC
                    errpos = q
                    break
                f = np.int64(key >> np.uint64(3))
                w = np.int64(key & np.uint64(7))
                if f == 0 or w > 5 or w == 3 or w == 4:
                    err = E_TAG
                    errpos = q
                    break
                r2 = _skip(buf, r, cs_end, w)
                if r2 < 0:
                    err = E_TRUNC
                    errpos = q
                    break
                if 1 <= f <= 12:
                    if w != 2:
                        err = E_WIRE if f == 5 else E_COMPACT
                        errpos = q
                        break
                    ln, s = _varint(buf, r, cs_end)
                    if f == 5:
                        if nint == intern_s.shape[0]:
                            intern_s = np.concatenate((intern_s, np.empty(nint, np.int64)))
                            intern_l = np.concatenate((intern_l, np.empty(nint, np.int64)))
                        intern_s[nint] = s
                        intern_l[nint] = np.int64(ln)
                        nint += 1
                    else:
                        if sp[f, 0] >= 0:
                            err = E_COMPACT
                            errpos = q
                            break
                        sp[f, 0] = s
                        sp[f, 1] = r2
                q = r2
            if err == E_OK and sp[1, 0] >= 0:
                n = _count_packed(buf, sp[1, 0], sp[1, 1])
                for f in (2, 3, 4, 6):
                    if sp[f, 0] < 0 or _count_packed(buf, sp[f, 0], sp[f, 1]) != n:
                        err = E_COMPACT
                        errpos = cs_pos
                # prev_state: varints must all be complete (checked by count above: a
                # cut last varint leaves its bytes uncounted only if >= 0x80)
                if err == E_OK:
                    p1, p2, p3, p4, p6 = sp[1, 0], sp[2, 0], sp[3, 0], sp[4, 0], sp[6, 0]
                    t = np.int64(0)
                    i0 = rows[nk + 1]
                    for j in range(n):
                        d, p1 = _varint(buf, p1, sp[1, 1])
                        st, p2 = _varint(buf, p2, sp[2, 1])
                        npid, p3 = _varint(buf, p3, sp[3, 1])
                        nprio, p4 = _varint(buf, p4, sp[4, 1])
                        ci, p6 = _varint(buf, p6, sp[6, 1])
                        if p1 < 0 or p2 < 0 or p3 < 0 or p4 < 0 or p6 < 0:
                            err = E_TRUNC
                            errpos = cs_pos
                            break
                        if ci >= np.uint64(nint):
                            err = E_INTERN
                            errpos = cs_pos
                            break
                        t += np.int64(d)
                        i = i0 + j
                        sw_ts[i] = t + off
                        sw[i, 0] = cpu
                        sw[i, 1] = np.int64(st)
                        sw[i, 2] = np.int64(np.int32(np.int64(npid)))
                        sw[i, 3] = np.int64(np.int32(np.int64(nprio)))
                        sw[i, 4] = cur[cpu, 0]
                        sw[i, 5] = cur[cpu, 1]
                        ii = np.int64(ci)
                        sw_comm[i, 0] = intern_s[ii]
                        sw_comm[i, 1] = intern_l[ii]
                        sw_comm[i, 2] = cur[cpu, 2]
                        sw_comm[i, 3] = cur[cpu, 3]
                        cur[cpu, 0] = sw[i, 2]
                        cur[cpu, 1] = sw[i, 3]
                        cur[cpu, 2] = intern_s[ii]
                        cur[cpu, 3] = intern_l[ii]
                    if err == E_OK:
                        rows[nk + 1] = i0 + n
            if err == E_OK and sp[7, 0] >= 0:
                n = _count_packed(buf, sp[7, 0], sp[7, 1])
                for f in (8, 9, 10, 11):
                    if sp[f, 0] < 0 or _count_packed(buf, sp[f, 0], sp[f, 1]) != n:
                        err = E_COMPACT
                        errpos = cs_pos
                if sp[12, 0] >= 0 and _count_packed(buf, sp[12, 0], sp[12, 1]) != n:
                    err = E_COMPACT
                    errpos = cs_pos
                if err == E_OK:
                    p7, p8, p9, p10, p11, p12 = (sp[7, 0], sp[8, 0], sp[9, 0], sp[10, 0],
                                                 sp[11, 0], sp[12, 0])
                    t = np.int64(0)
                    i0 = rows[nk + 2]
                    # waker = the task running on this CPU: merge with this bundle's switches
                    s0 = saved[nk + 1]
                    s1 = rows[nk + 1]
                    si = s0
                    wpid = cur_b[0]
                    wcs = cur_b[2]
                    wcl = cur_b[3]
                    for j in range(n):
                        d, p7 = _varint(buf, p7, sp[7, 1])
                        pid, p8 = _varint(buf, p8, sp[8, 1])
                        tcpu, p9 = _varint(buf, p9, sp[9, 1])
                        prio, p10 = _varint(buf, p10, sp[10, 1])
                        ci, p11 = _varint(buf, p11, sp[11, 1])
                        fl = np.uint64(0)
                        if p12 >= 0:
                            fl, p12 = _varint(buf, p12, sp[12, 1])
                        if p7 < 0 or p8 < 0 or p9 < 0 or p10 < 0 or p11 < 0:
                            err = E_TRUNC
                            errpos = cs_pos
                            break
                        if ci >= np.uint64(nint):
                            err = E_INTERN
                            errpos = cs_pos
                            break
                        t += np.int64(d)
                        while si < s1 and sw_ts[si] - off <= t:
                            wpid = sw[si, 2]
                            wcs = sw_comm[si, 0]
                            wcl = sw_comm[si, 1]
                            si += 1
                        i = i0 + j
                        ii = np.int64(ci)
                        wk_ts[i] = t + off
                        wk[i, 0] = cpu
                        wk[i, 1] = np.int64(np.int32(np.int64(pid)))
                        wk[i, 2] = np.int64(np.int32(np.int64(tcpu)))
                        wk[i, 3] = np.int64(np.int32(np.int64(prio)))
                        wk[i, 4] = np.int64(fl)
                        wk[i, 5] = wpid
                        wk_comm[i, 0] = intern_s[ii]
                        wk_comm[i, 1] = intern_l[ii]
                        wk_comm[i, 2] = wcs
                        wk_comm[i, 3] = wcl
                    if err == E_OK:
                        rows[nk + 2] = i0 + n
        if err != E_OK:
            rows[:] = saved
            if cpu < MAX_CPUS:
                cur[cpu, :] = cur_saved[cpu, :]
            berr[b, 0] = err
            berr[b, 1] = errpos
        else:
            lost += bundle_lost
    return lost, seen


@numba.njit(cache=True)
def _generic_one(buf, s, e, out_f, fpos, fill, names, fields):
    """Decode one FtraceEvent holding a GenericFtraceEvent (327): returns (error, ts, pid,
    name start, name length, number of fields). With ``fill``, field rows go to ``fields``
    (name start, name length, kind 3/4/5, int value, string start, string length) from
    ``fpos``."""
    ts = np.int64(0)
    pid = np.int64(0)
    ns = np.int64(-1)
    nl = np.int64(0)
    nf = 0
    q = s
    while q < e:
        key, r = _varint(buf, q, e)
        if r < 0:
            return E_TRUNC, ts, pid, ns, nl, nf
        f = np.int64(key >> np.uint64(3))
        w = np.int64(key & np.uint64(7))
        if f == 0 or w > 5 or w == 3 or w == 4:
            return E_TAG, ts, pid, ns, nl, nf
        r2 = _skip(buf, r, e, w)
        if r2 < 0:
            return E_TRUNC, ts, pid, ns, nl, nf
        if (f == 1 or f == 2) and w == 0:
            v, _ = _varint(buf, r, e)
            if f == 1:
                ts = np.int64(v)
            else:
                pid = np.int64(v)
        elif f == 327 and w == 2:
            ln, gs = _varint(buf, r, e)
            g = gs
            while g < r2:
                k2, t = _varint(buf, g, r2)
                if t < 0:
                    return E_TRUNC, ts, pid, ns, nl, nf
                f2 = np.int64(k2 >> np.uint64(3))
                w2 = np.int64(k2 & np.uint64(7))
                if f2 == 0 or w2 > 5 or w2 == 3 or w2 == 4:
                    return E_TAG, ts, pid, ns, nl, nf
                t2 = _skip(buf, t, r2, w2)
                if t2 < 0:
                    return E_TRUNC, ts, pid, ns, nl, nf
                if f2 == 1 and w2 == 2:
                    l3, s3 = _varint(buf, t, r2)
                    ns = s3
                    nl = np.int64(l3)
                elif f2 == 2 and w2 == 2:
                    l3, s3 = _varint(buf, t, r2)
                    fn_s = np.int64(-1)
                    fn_l = np.int64(0)
                    kind = 0
                    iv = np.int64(0)
                    vs = np.int64(0)
                    vl = np.int64(0)
                    h = s3
                    while h < t2:
                        k3, u = _varint(buf, h, t2)
                        if u < 0:
                            return E_TRUNC, ts, pid, ns, nl, nf
                        f3 = np.int64(k3 >> np.uint64(3))
                        w3 = np.int64(k3 & np.uint64(7))
                        if f3 == 0 or w3 > 5 or w3 == 3 or w3 == 4:
                            return E_TAG, ts, pid, ns, nl, nf
                        u2 = _skip(buf, u, t2, w3)
                        if u2 < 0:
                            return E_TRUNC, ts, pid, ns, nl, nf
                        if w3 == 2 and (f3 == 1 or f3 == 3):
                            l4, s4 = _varint(buf, u, t2)
                            if f3 == 1:
                                fn_s = s4
                                fn_l = np.int64(l4)
                            else:
                                kind = 3
                                vs = s4
                                vl = np.int64(l4)
                        elif w3 == 0 and (f3 == 4 or f3 == 5):
                            v, _ = _varint(buf, u, t2)
                            kind = f3
                            iv = np.int64(v)
                        h = u2
                    if fn_s >= 0 and kind != 0:
                        if fill:
                            row = fpos + nf
                            fields[row, 0] = fn_s
                            fields[row, 1] = fn_l
                            fields[row, 2] = kind
                            fields[row, 3] = iv
                            fields[row, 4] = vs
                            fields[row, 5] = vl
                        nf += 1
                g = t2
        q = r2
    return E_OK, ts, pid, ns, nl, nf


@numba.njit(cache=True)
def decode_generic(buf, gen):
    """Generic ftrace events (spans from :func:`decode_bundles`) into flat arrays:
    ``ev`` (ts, pid, cpu, name start, name length, first field row, field count, error)
    and ``fields`` (name start, name length, kind, int value, string start, length)."""
    n = gen.shape[0]
    ev = np.zeros((n, 8), np.int64)
    dummy = np.zeros((1, 6), np.int64)
    total = 0
    for i in range(n):
        err, ts, pid, ns, nl, nf = _generic_one(buf, gen[i, 0], gen[i, 0] + gen[i, 1], dummy, 0,
                                                False, dummy, dummy)
        ev[i, 6] = nf
        ev[i, 7] = err
        if err == E_OK:
            total += nf
    fields = np.empty((total, 6), np.int64)
    pos = 0
    for i in range(n):
        if ev[i, 7] != E_OK:
            continue
        err, ts, pid, ns, nl, nf = _generic_one(buf, gen[i, 0], gen[i, 0] + gen[i, 1], dummy, pos,
                                                True, dummy, fields)
        ev[i, 0] = ts + gen[i, 3]
        ev[i, 1] = pid
        ev[i, 2] = gen[i, 2]
        ev[i, 3] = ns
        ev[i, 4] = nl
        ev[i, 5] = pos
        pos += nf
    return ev, fields


@numba.njit(cache=True)
def same_layout(buf, ev, fields, idx):
    """Whether the generic events ``idx`` all have the first one's field names and kinds,
    in the same order."""
    i0 = idx[0]
    nf = ev[i0, 6]
    f0 = ev[i0, 5]
    for a in range(1, idx.shape[0]):
        i = idx[a]
        if ev[i, 6] != nf:
            return False
        fi = ev[i, 5]
        for j in range(nf):
            if fields[fi + j, 2] != fields[f0 + j, 2] or fields[fi + j, 1] != fields[f0 + j, 1]:
                return False
            s1 = fields[fi + j, 0]
            s0 = fields[f0 + j, 0]
            for k in range(fields[f0 + j, 1]):
                if buf[s1 + k] != buf[s0 + k]:
                    return False
    return True
