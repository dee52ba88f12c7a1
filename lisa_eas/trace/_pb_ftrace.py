"""numba decoding of Perfetto ``FtraceEventBundle`` packets: typed ftrace events into
per-kind columns, ``compact_sched`` (via :mod:`lisa_eas.trace._pb_compact`) and the spans
of generic events (decoded by :func:`decode_generic`).

Field numbers from Perfetto's ``protos/perfetto/trace/ftrace/ftrace_event_bundle.proto``
(bundle: cpu 1, event 2, lost_events 3, compact_sched 4, ftrace_clock 5,
ftrace_timestamp 6, boot_timestamp 7) and ``ftrace_event.proto`` (timestamp 1, pid 2,
common_flags 5, the event oneof; generic 327 with event_name 1 and field 2: name 1,
str_value 3, int_value 4, uint_value 5). The typed events' own field numbers come as tables
from :mod:`lisa_eas.trace._perfetto_schema`.

Two passes: :func:`bundle_counts` gives exact upper bounds of every output (so the
columns are allocated once, at their size), :func:`decode_bundles` fills them. A bundle
that does not decode is rolled back whole and reported with an error code and the byte
offset where decoding failed.
"""
from __future__ import annotations

import numba
import numpy as np

from ._pb_compact import CUR_COMM, CUR_PID, CUR_PRIO, NCOLS, SW_CPU, SW_NEXT_COMM, SW_NEXT_PID, \
    SW_NEXT_PRIO, SW_PID, SW_PREV_COMM, SW_PREV_PID, SW_PREV_PRIO, SW_STATE, SW_TS, \
    compact_columns, decode_switches, decode_wakings
from ._pb_wire import E_CPU, E_OK, E_TAG, E_TRUNC, E_WIRE, count_packed, field, value, varint
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

__all__ = ["MAX_CPUS", "MAX_COLS", "MAX_FNO", "SPAN_BITS", "SPAN_LEN", "bundle_counts", "decode_bundles",
           "decode_generic", "generic_field_bound", "same_layout", "GENERIC", "SWITCHES", "WAKINGS", "ENTRIES"]

MAX_CPUS = 4096
MAX_COLS = 8            # columns per typed event kind
MAX_FNO = 16            # field numbers of typed events' own fields are < MAX_FNO
# counters after the typed kinds (offsets from the number of kinds)
GENERIC, SWITCHES, WAKINGS, ENTRIES = 0, 1, 2, 3
# typed sched_switch columns (Perfetto's SchedSwitchFtraceEvent in trace.dat order)
_SW_PREV_COMM, _SW_PREV_PID, _SW_PREV_PRIO, _SW_PREV_STATE, _SW_NEXT_COMM, _SW_NEXT_PID, \
    _SW_NEXT_PRIO = range(7)
SPAN_BITS = 24          # a string column cell: start << SPAN_BITS | length
SPAN_LEN = (1 << SPAN_BITS) - 1


@numba.njit(cache=True)
def bundle_head(buf, pos, end):
    """The scalar fields of a bundle (the cpu may follow the events) and the span of its
    compact_sched: ``(error, error position, cpu, lost, clock offset kind, ftrace_clock,
    ftrace_timestamp - boot_timestamp known, boot - ftrace timestamp, cs start, cs end)``."""
    cpu = np.int64(0)
    lost = 0
    fclock = np.int64(0)
    f_ts = np.int64(0)
    b_ts = np.int64(0)
    has_fb = 0
    cs_s = np.int64(-1)
    cs_e = np.int64(-1)
    q = pos
    while q < end:
        err, f, w, s, e = field(buf, q, end)
        if err != E_OK:
            return err, q, cpu, lost, fclock, has_fb == 3, b_ts - f_ts, cs_s, cs_e
        if f == 1 or f == 3 or f == 5 or f == 6 or f == 7:
            if w != 0:
                return E_WIRE, q, cpu, lost, fclock, has_fb == 3, b_ts - f_ts, cs_s, cs_e
            v = value(buf, s, e)
            if f == 1:
                cpu = v
            elif f == 3:
                lost = 1 if v != 0 else 0
            elif f == 5:
                fclock = v
            elif f == 6:
                f_ts = v
                has_fb |= 1
            else:
                b_ts = v
                has_fb |= 2
        elif f == 2 or f == 4:
            if w != 2:
                return E_WIRE, q, cpu, lost, fclock, has_fb == 3, b_ts - f_ts, cs_s, cs_e
            if f == 4:
                cs_s = s
                cs_e = e
        q = e
    return E_OK, pos, cpu, lost, fclock, has_fb == 3, b_ts - f_ts, cs_s, cs_e


@numba.njit(cache=True)
def _event_kind(buf, pos, end, kind_of):
    """(kind, oneof field number) of the FtraceEvent ``buf[pos:end]``: kind >= 0 typed,
    -1 generic, -2 other/unknown event, -3 undecodable."""
    q = pos
    # the usual head, timestamp (1) then pid (2) varints, stepped over byte by byte
    for tag in (0x08, 0x10):
        if q < end and buf[q] == tag:
            q += 1
            while q < end and buf[q] >= 0x80:
                q += 1
            q += 1
    if q > end:
        return -3, 0
    while q < end:
        err, f, w, s, e = field(buf, q, end)
        if err != E_OK:
            return -3, 0
        if w == 2 and f != 1 and f != 2 and f != 5:
            if f < kind_of.shape[0]:
                return kind_of[f], f
            return -2, f
        q = e
    return -2, 0


@numba.njit(cache=True)
def bundle_counts(buf, bstart, blen, kind_of, nkinds, unknown_fno):
    """Upper bounds of the rows a decode of the bundles can produce: per typed kind
    (``[:nkinds]``), then (from ``nkinds``) generic events, compact switches, compact
    wakings and comm entries (intern table strings and typed switches' next_comm).
    Events without a decoder are counted in ``unknown_fno`` by field number."""
    counts = np.zeros(nkinds + 4, np.int64)
    sw_kind = kind_of[4]
    for b in range(bstart.shape[0]):
        pos = bstart[b]
        end = pos + blen[b]
        while pos < end:
            err, f, w, s, e = field(buf, pos, end)
            if err != E_OK:
                break
            if f == 2 and w == 2:
                k, fno = _event_kind(buf, s, e, kind_of)
                if k >= 0:
                    counts[k] += 1
                    if k == sw_kind:      # decoded into the switch columns (two comms)
                        counts[nkinds + SWITCHES] += 1
                        counts[nkinds + ENTRIES] += 2
                elif k == -1:
                    counts[nkinds + GENERIC] += 1
                elif k == -2 and 5 < fno < unknown_fno.shape[0]:
                    unknown_fno[fno] += 1
            elif f == 4 and w == 2:
                q = s
                while q < e:
                    err2, f2, w2, s2, e2 = field(buf, q, e)
                    if err2 != E_OK:
                        break
                    if f2 == 1 or f2 == 7:
                        c = count_packed(buf, s2, e2) if w2 == 2 else 1
                        counts[nkinds + (SWITCHES if f2 == 1 else WAKINGS)] += c
                    elif f2 == 5:
                        counts[nkinds + ENTRIES] += 1
                    q = e2
            pos = e
    return counts


# per-kind rows of the packed table ``tab`` (after kind_of): a kind's decode needs one
# array, not seven (array arguments cost a per-event call most of its time)
_KS = 40
_T_NCOLS, _T_VALBASE, _T_CAP, _T_COLOF, _T_STR, _T_SEEN = 0, 1, 2, 4, 20, 28


@numba.njit(cache=True)
def _pack_tables(kind_of, col_of, col_str, k_ncols, k_valbase, k_cap):
    """kind_of, then per kind: ncols, value base, capacity, column of each proto field,
    whether each column is a string, whether an event carried it (filled by the decode)."""
    nk = k_ncols.shape[0]
    k0 = kind_of.shape[0]
    tab = np.zeros(k0 + nk * _KS, np.int64)
    tab[:k0] = kind_of
    for k in range(nk):
        b = k0 + k * _KS
        tab[b + _T_NCOLS] = k_ncols[k]
        tab[b + _T_VALBASE] = k_valbase[k]
        tab[b + _T_CAP] = k_cap[k]
        for f in range(MAX_FNO):
            tab[b + _T_COLOF + f] = col_of[k, f]
        for c in range(MAX_COLS):
            tab[b + _T_STR + c] = col_str[k, c]
    return tab


@numba.njit(cache=True)
def _decode_event(buf, pos, end, tab, k0, rows, vals):
    """Decode one FtraceEvent. A typed event's columns go to ``vals`` (integers, or a
    string's start and length as ``start << SPAN_BITS | length``) at its kind's value base
    ``+ column * capacity + rows[kind]`` (``tab``: :func:`_pack_tables`, kinds from
    ``k0``); for other events the walk stops at their oneof field. Returns ``(error,
    error position, timestamp, pid, kind)`` (kind -1 generic, -2 not decoded)."""
    ts = np.int64(0)
    pid = np.int64(0)
    kind = -2
    q = pos
    if q < end and buf[q] == 0x08:      # the usual head: timestamp, then pid
        v, r = varint(buf, q + 1, end)
        if r > 0:
            ts = np.int64(v)
            q = r
            if q < end and buf[q] == 0x10:
                v, r = varint(buf, q + 1, end)
                if r > 0:
                    pid = np.int64(v)
                    q = r
    while q < end:
        err, f, w, s, e = field(buf, q, end)
        if err != E_OK:
            return err, q, ts, pid, kind
        if f == 1 or f == 2:
            if w != 0:
                return E_WIRE, q, ts, pid, kind
            if f == 1:
                ts = value(buf, s, e)
            else:
                pid = value(buf, s, e)
        elif w == 2 and f != 5 and kind == -2:
            k = tab[f] if f < k0 else -2
            if k < 0:
                return E_OK, pos, ts, pid, k
            kind = k
            b = k0 + k * _KS
            stride = tab[b + _T_CAP]
            vb = tab[b + _T_VALBASE] + rows[k]
            for c in range(tab[b + _T_NCOLS]):
                vals[vb + c * stride] = 0
            qq = s
            while qq < e:
                b0 = buf[qq]
                if b0 < 0x80 and (b0 & 7) == 0:
                    # the usual field: a one-byte key and a varint, decoded in one walk
                    f2 = np.int64(b0 >> 3)
                    if f2 == 0:
                        return E_TAG, qq, ts, pid, kind
                    v, r = varint(buf, qq + 1, e)
                    if r < 0:
                        return E_TRUNC, qq, ts, pid, kind
                    c = tab[b + _T_COLOF + f2] if f2 < MAX_FNO else -1
                    if c >= 0:
                        if tab[b + _T_STR + c]:
                            return E_WIRE, qq, ts, pid, kind
                        vals[vb + c * stride] = np.int64(v)
                        tab[b + _T_SEEN + c] = 1
                    qq = r
                    continue
                err, f2, w2, s2, e2 = field(buf, qq, e)
                if err != E_OK:
                    return err, qq, ts, pid, kind
                c = tab[b + _T_COLOF + f2] if f2 < MAX_FNO else -1
                if c >= 0:
                    at = vb + c * stride
                    if tab[b + _T_STR + c]:
                        if w2 != 2:
                            return E_WIRE, qq, ts, pid, kind
                        if e2 - s2 > SPAN_LEN:
                            return E_TRUNC, qq, ts, pid, kind
                        vals[at] = (s2 << SPAN_BITS) | (e2 - s2)
                    else:
                        if w2 != 0:
                            return E_WIRE, qq, ts, pid, kind
                        vals[at] = value(buf, s2, e2)
                    tab[b + _T_SEEN + c] = 1
                qq = e2
        q = e
    return E_OK, pos, ts, pid, kind


@numba.njit(cache=True)
def decode_bundles(buf, bstart, blen, boffset, monoraw_off, tables, rows, typed, compact,
                   ent_s, ent_l, gen_span, berr):
    """Decode the FtraceEventBundles ``buf[bstart[b]:bstart[b]+blen[b]]``.

    ``tables`` = (kind_of, col_of, col_str, k_ncols, k_rowbase, k_valbase, k_cap) from
    :func:`~lisa_eas.trace._perfetto_schema.kind_tables` and the counts. Typed events of
    kind ``k`` go to rows ``k_rowbase[k] + i`` of ``typed`` = (ev_ts, ev_cpu, ev_pid, vals),
    cell ``k_valbase[k] + column * k_cap[k] + i`` of ``vals``; ``rows[k]`` counts them.
    Typed sched_switch events go to the compact switch columns (their comms as entries). ``compact`` = (s64, s32, sent, w64, w32, went): the switch and waking
    columns of :mod:`~lisa_eas.trace._pb_compact`. ``rows[nk + GENERIC]`` generic-event
    spans (``gen_span``: start, length, cpu, time offset), ``rows[nk + SWITCHES]``,
    ``rows[nk + WAKINGS]``, ``rows[nk + ENTRIES]`` the compact rows and comm entries
    (``ent_s``/``ent_l``).

    Timestamps get ``boffset[b]`` added (clock conversion), and, for bundles whose
    ``ftrace_clock`` is not the boot clock, ``monoraw_off`` (MONO_RAW) or
    ``boot_timestamp - ftrace_timestamp`` (global/local clocks).

    A bundle that fails to decode is rolled back; ``berr[b]`` = (error, byte offset).
    Returns (bundles flagged ``lost_events``, which optional columns were seen).
    """
    kind_of, col_of, col_str, k_ncols, k_rowbase, k_valbase, k_cap = tables
    ev_ts, ev_cpu, ev_pid, vals = typed
    s64, s32, sent, w64, w32, went = compact
    nk = k_ncols.shape[0]
    sw_kind = kind_of[4]
    tab = _pack_tables(kind_of, col_of, col_str, k_ncols, k_valbase, k_cap)
    k0 = kind_of.shape[0]
    # per-CPU task running, from the switches seen so far: pid, prio, comm entry (-1 unknown)
    cur = np.full((MAX_CPUS, 3), -1, np.int64)
    lost = 0
    saved = np.empty(rows.shape[0], np.int64)
    cur_saved = np.empty(3, np.int64)
    sp = np.empty((NCOLS, 2), np.int64)
    for b in range(bstart.shape[0]):
        pos = bstart[b]
        end = pos + blen[b]
        saved[:] = rows
        err, errpos, cpu, blost, fclock, has_fb, fb_off, cs_s, cs_e = bundle_head(buf, pos, end)
        off = boffset[b]
        if fclock == 4:
            off += monoraw_off
        elif fclock != 0 and has_fb:
            off += fb_off
        if err == E_OK and cpu >= MAX_CPUS:
            err = E_CPU
            errpos = pos
        if err == E_OK:
            cur_saved[:] = cur[cpu, :]
        # typed and generic events
        q = pos
        while err == E_OK and q < end:
            _, f, w, s, e = field(buf, q, end)
            if f == 2:
                e2, ep, ts, pid, k = _decode_event(buf, s, e, tab, k0, rows, vals)
                if e2 != E_OK:
                    err = e2
                    errpos = ep
                    break
                if k == -1:
                    i = rows[nk + GENERIC]
                    if i < gen_span.shape[0]:
                        gen_span[i, 0] = s
                        gen_span[i, 1] = e - s
                        gen_span[i, 2] = cpu
                        gen_span[i, 3] = off
                        rows[nk + GENERIC] = i + 1
                elif k >= 0 and k == sw_kind:
                    # a typed switch goes to the switch columns; it names the running task
                    vb = k_valbase[k] + rows[k]
                    st = k_cap[k]
                    ne = rows[nk + ENTRIES]
                    i = rows[nk + SWITCHES]
                    if i >= s64.shape[1]:
                        err = E_TRUNC
                        errpos = s
                        break
                    for c in range(2):
                        span = vals[vb + (_SW_PREV_COMM if c == 1 else _SW_NEXT_COMM) * st]
                        ent_s[ne + c] = span >> SPAN_BITS
                        ent_l[ne + c] = span & SPAN_LEN
                    rows[nk + ENTRIES] = ne + 2
                    s64[SW_TS, i] = ts + off
                    s64[SW_STATE, i] = vals[vb + _SW_PREV_STATE * st]
                    s32[SW_CPU, i] = np.int32(cpu)
                    s32[SW_PID, i] = np.int32(pid)
                    s32[SW_PREV_PID, i] = np.int32(vals[vb + _SW_PREV_PID * st])
                    s32[SW_PREV_PRIO, i] = np.int32(vals[vb + _SW_PREV_PRIO * st])
                    s32[SW_NEXT_PID, i] = np.int32(vals[vb + _SW_NEXT_PID * st])
                    s32[SW_NEXT_PRIO, i] = np.int32(vals[vb + _SW_NEXT_PRIO * st])
                    sent[SW_PREV_COMM, i] = np.int32(ne + 1)
                    sent[SW_NEXT_COMM, i] = np.int32(ne)
                    rows[nk + SWITCHES] = i + 1
                    cur[cpu, CUR_PID] = s32[SW_NEXT_PID, i]
                    cur[cpu, CUR_PRIO] = s32[SW_NEXT_PRIO, i]
                    cur[cpu, CUR_COMM] = ne
                elif k >= 0:
                    i = rows[k]
                    row = k_rowbase[k] + i
                    ev_ts[row] = ts + off
                    ev_cpu[row] = np.int32(cpu)
                    ev_pid[row] = np.int32(pid)
                    rows[k] = i + 1
            q = e
        # compact_sched
        if err == E_OK and cs_s >= 0:
            ent0 = rows[nk + ENTRIES]
            err, errpos, ne = compact_columns(buf, cs_s, cs_e, sp, ent_s, ent_l, ent0)
            if err == E_OK:
                rows[nk + ENTRIES] = ne
                waker = cur[cpu, CUR_PID]
                lo = rows[nk + SWITCHES]
                err, n = decode_switches(buf, sp, cpu, off, ent0, ne - ent0, lo, cur, s64, s32,
                                         sent)
                if err == E_OK:
                    rows[nk + SWITCHES] = lo + n
                    err, m = decode_wakings(buf, sp, cpu, off, ent0, ne - ent0,
                                            rows[nk + WAKINGS], waker, s64, s32, lo, lo + n,
                                            w64, w32, went)
                    rows[nk + WAKINGS] += m
                if err != E_OK:
                    errpos = cs_s
        if err != E_OK:
            rows[:] = saved
            if cpu < MAX_CPUS:
                cur[cpu, :] = cur_saved
            berr[b, 0] = err
            berr[b, 1] = errpos
        else:
            lost += blost
    seen = np.zeros((nk, MAX_COLS), np.bool_)
    for k in range(nk):
        for c in range(MAX_COLS):
            seen[k, c] = tab[k0 + k * _KS + _T_SEEN + c] != 0
    return lost, seen


@numba.njit(cache=True)
def _generic_field(buf, s, e):
    """One GenericFtraceEvent.Field: ``(error, name start, name length, kind, int value,
    string start, string length)``; kind 3 string, 4 int, 5 uint, 0 none."""
    fn_s = np.int64(-1)
    fn_l = np.int64(0)
    kind = 0
    iv = np.int64(0)
    vs = np.int64(0)
    vl = np.int64(0)
    h = s
    while h < e:
        err, f, w, s3, e3 = field(buf, h, e)
        if err != E_OK:
            return err, fn_s, fn_l, kind, iv, vs, vl
        if w == 2 and f == 1:
            fn_s = s3
            fn_l = e3 - s3
        elif w == 2 and f == 3:
            kind = 3
            vs = s3
            vl = e3 - s3
        elif w == 0 and (f == 4 or f == 5):
            kind = f
            iv = value(buf, s3, e3)
        h = e3
    return E_OK, fn_s, fn_l, kind, iv, vs, vl


@numba.njit(cache=True)
def _generic_one(buf, s, e, fill, fpos, fields):
    """Decode one FtraceEvent holding a GenericFtraceEvent: ``(error, ts, pid, name start,
    name length, number of fields)``. With ``fill``, field rows go to ``fields`` (name
    start, name length, kind, int value, string start, string length) from ``fpos``."""
    ts = np.int64(0)
    pid = np.int64(0)
    ns = np.int64(-1)
    nl = np.int64(0)
    nf = 0
    q = s
    while q < e:
        err, f, w, s1, e1 = field(buf, q, e)
        if err != E_OK:
            return err, ts, pid, ns, nl, nf
        if (f == 1 or f == 2) and w == 0:
            if f == 1:
                ts = value(buf, s1, e1)
            else:
                pid = value(buf, s1, e1)
        elif f == 327 and w == 2:
            g = s1
            while g < e1:
                err, f2, w2, s2, e2 = field(buf, g, e1)
                if err != E_OK:
                    return err, ts, pid, ns, nl, nf
                if f2 == 1 and w2 == 2:
                    ns = s2
                    nl = e2 - s2
                elif f2 == 2 and w2 == 2:
                    err, fn_s, fn_l, kind, iv, vs, vl = _generic_field(buf, s2, e2)
                    if err != E_OK:
                        return err, ts, pid, ns, nl, nf
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
                g = e2
        q = e1
    return E_OK, ts, pid, ns, nl, nf


@numba.njit(cache=True)
def decode_generic(buf, gen, fields):
    """Generic ftrace events (spans from :func:`decode_bundles`) into flat arrays, in one
    walk: ``ev`` (ts, pid, cpu, name start, name length, first field row, field count,
    error) and ``fields[:total]`` (name start, name length, kind, int value, string start,
    length). ``fields`` needs :func:`generic_field_bound` rows. Returns ``(ev, total)``."""
    n = gen.shape[0]
    ev = np.zeros((n, 8), np.int64)
    pos = 0
    for i in range(n):
        err, ts, pid, ns, nl, nf = _generic_one(buf, gen[i, 0], gen[i, 0] + gen[i, 1], True, pos,
                                                fields)
        ev[i, 7] = err
        if err != E_OK:         # its rows (if any) are overwritten by the next event's
            continue
        ev[i, 0] = ts + gen[i, 3]
        ev[i, 1] = pid
        ev[i, 2] = gen[i, 2]
        ev[i, 3] = ns
        ev[i, 4] = nl
        ev[i, 5] = pos
        ev[i, 6] = nf
        pos += nf
    return ev, pos


def generic_field_bound(gen) -> int:
    """Rows enough for every field of the generic events ``gen``: a field kept takes at
    least 6 bytes of its event (its key and length, a name key and length, a value key and
    one byte), so an event of ``L`` bytes holds at most ``L // 6`` of them."""
    return int((gen[:, 1] // 6).sum()) + 1


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
