"""numba decoding of ``FtraceEventBundle.CompactSched``: the columnar sched_switch and
sched_waking records of Perfetto (delta timestamps, comms as indices into the bundle's
intern table).

Field numbers from Perfetto's ``protos/perfetto/trace/ftrace/ftrace_event_bundle.proto``:
switch columns 1 (timestamp delta), 2 (prev_state), 3 (next_pid), 4 (next_prio),
6 (next_comm index); 5 the intern table; waking columns 7 (timestamp delta), 8 (pid),
9 (target_cpu), 10 (prio), 11 (comm index), 12 (common_flags).

Comms are not copied or hashed per record: each record keeps the index of its string in
the trace-wide list of *entries* (every bundle's intern table, appended in file order);
the strings are interned once per entry afterwards. The task that a switch leaves
(``prev_*``, which the encoding does not store) is the one the previous switch on the
CPU chose, from the per-CPU state ``cur`` (pid, prio, comm entry; -1 unknown).
"""
from __future__ import annotations

import numba
import numpy as np

from ._pb_wire import E_COMPACT, E_INTERN, E_OK, E_TRUNC, E_WIRE, count_packed, field, varint

__all__ = ["compact_columns", "decode_switches", "decode_wakings", "CUR_PID", "CUR_PRIO",
           "CUR_COMM"]

NCOLS = 13               # packed columns 1..12
CUR_PID, CUR_PRIO, CUR_COMM = 0, 1, 2

# switch output: int64 rows (ts, prev_state); int32 rows (cpu, __pid, prev_pid, prev_prio,
# next_pid, next_prio); entry rows (next_comm, prev_comm)
SW_TS, SW_STATE = 0, 1
SW_CPU, SW_PID, SW_PREV_PID, SW_PREV_PRIO, SW_NEXT_PID, SW_NEXT_PRIO = range(6)
SW_NEXT_COMM, SW_PREV_COMM = 0, 1
# waking output: int64 row ts; int32 rows (cpu, __pid = the waker, pid, prio, target_cpu);
# entry row comm
WK_CPU, WK_WAKER, WK_PID, WK_PRIO, WK_TCPU = range(5)


@numba.njit(cache=True)
def compact_columns(buf, start, end, sp, ent_s, ent_l, ne):
    """Spans of the packed columns of the CompactSched message ``buf[start:end]`` into
    ``sp`` (``NCOLS`` x 2, -1 when absent) and its intern table appended to the entries
    from ``ne``. Returns ``(error, error position, entries after)``."""
    sp[:, :] = -1
    q = start
    while q < end:
        err, f, w, s, e = field(buf, q, end)
        if err != E_OK:
            return err, q, ne
        if 1 <= f <= 12:
            if w != 2:
                return (E_WIRE if f == 5 else E_COMPACT), q, ne
            if f == 5:
                if ne >= ent_s.shape[0]:
                    return E_COMPACT, q, ne      # more than counted: cannot happen
                ent_s[ne] = s
                ent_l[ne] = e - s
                ne += 1
            else:
                if sp[f, 0] >= 0:
                    return E_COMPACT, q, ne
                sp[f, 0] = s
                sp[f, 1] = e
        q = e
    return E_OK, start, ne


@numba.njit(cache=True, inline="always")
def _same_length(buf, sp, cols, n):
    for f in cols:
        if sp[f, 0] < 0 or count_packed(buf, sp[f, 0], sp[f, 1]) != n:
            return False
    return True


@numba.njit(cache=True)
def decode_switches(buf, sp, cpu, off, ent0, nint, i0, cur, s64, s32, sent):
    """Decode the switch columns (``sp`` from :func:`compact_columns`) into rows ``i0..``
    of ``s64``/``s32``/``sent`` (entry indices: ``ent0 + intern index``), advancing
    ``cur[cpu]``. Returns ``(error, rows)``; on error ``cur[cpu]`` may have moved (the
    caller restores it)."""
    if sp[1, 0] < 0:
        return E_OK, 0
    n = count_packed(buf, sp[1, 0], sp[1, 1])
    if not _same_length(buf, sp, (2, 3, 4, 6), n):
        return E_COMPACT, 0
    if i0 + n > s64.shape[1]:
        return E_COMPACT, 0
    p1, p2, p3, p4, p6 = sp[1, 0], sp[2, 0], sp[3, 0], sp[4, 0], sp[6, 0]
    e1, e2, e3, e4, e6 = sp[1, 1], sp[2, 1], sp[3, 1], sp[4, 1], sp[6, 1]
    t = np.int64(0)
    pid = np.int32(cur[cpu, CUR_PID])
    prio = np.int32(cur[cpu, CUR_PRIO])
    comm = np.int32(cur[cpu, CUR_COMM])
    c32 = np.int32(cpu)
    for j in range(n):
        d, p1 = varint(buf, p1, e1)
        st, p2 = varint(buf, p2, e2)
        npid, p3 = varint(buf, p3, e3)
        nprio, p4 = varint(buf, p4, e4)
        ci, p6 = varint(buf, p6, e6)
        if p1 < 0 or p2 < 0 or p3 < 0 or p4 < 0 or p6 < 0:
            return E_TRUNC, 0
        if ci >= np.uint64(nint):
            return E_INTERN, 0
        t += np.int64(d)
        i = i0 + j
        s64[SW_TS, i] = t + off
        s64[SW_STATE, i] = np.int64(st)
        s32[SW_CPU, i] = c32
        s32[SW_PID, i] = pid
        s32[SW_PREV_PID, i] = pid
        s32[SW_PREV_PRIO, i] = prio
        sent[SW_PREV_COMM, i] = comm
        pid = np.int32(np.int64(npid))
        prio = np.int32(np.int64(nprio))
        comm = np.int32(ent0 + np.int64(ci))
        s32[SW_NEXT_PID, i] = pid
        s32[SW_NEXT_PRIO, i] = prio
        sent[SW_NEXT_COMM, i] = comm
    cur[cpu, CUR_PID] = pid
    cur[cpu, CUR_PRIO] = prio
    cur[cpu, CUR_COMM] = comm
    return E_OK, n


@numba.njit(cache=True)
def decode_wakings(buf, sp, cpu, off, ent0, nint, i0, waker, s64, s32, sw_lo, sw_hi, w64, w32,
                   went):
    """Decode the waking columns into rows ``i0..`` of ``w64``/``w32``/``went``. The waker
    (``__pid``) is the task running on the CPU at the waking: ``waker`` (the pid before the
    bundle's compact switches), then the ``next_pid`` of each of the bundle's switches
    (rows ``sw_lo..sw_hi`` of ``s64``/``s32``) at or before it. Returns ``(error, rows)``."""
    if sp[7, 0] < 0:
        return E_OK, 0
    n = count_packed(buf, sp[7, 0], sp[7, 1])
    if not _same_length(buf, sp, (8, 9, 10, 11), n):
        return E_COMPACT, 0
    if sp[12, 0] >= 0 and count_packed(buf, sp[12, 0], sp[12, 1]) != n:
        return E_COMPACT, 0
    if i0 + n > w64.shape[1]:
        return E_COMPACT, 0
    p7, p8, p9, p10, p11 = sp[7, 0], sp[8, 0], sp[9, 0], sp[10, 0], sp[11, 0]
    e7, e8, e9, e10, e11 = sp[7, 1], sp[8, 1], sp[9, 1], sp[10, 1], sp[11, 1]
    t = np.int64(0)
    si = sw_lo
    wpid = np.int32(waker)
    c32 = np.int32(cpu)
    for j in range(n):
        d, p7 = varint(buf, p7, e7)
        pid, p8 = varint(buf, p8, e8)
        tcpu, p9 = varint(buf, p9, e9)
        prio, p10 = varint(buf, p10, e10)
        ci, p11 = varint(buf, p11, e11)
        if p7 < 0 or p8 < 0 or p9 < 0 or p10 < 0 or p11 < 0:
            return E_TRUNC, 0
        if ci >= np.uint64(nint):
            return E_INTERN, 0
        t += np.int64(d)
        ts = t + off
        while si < sw_hi and s64[SW_TS, si] <= ts:
            wpid = s32[SW_NEXT_PID, si]
            si += 1
        i = i0 + j
        w64[0, i] = ts
        w32[WK_CPU, i] = c32
        w32[WK_WAKER, i] = wpid
        w32[WK_PID, i] = np.int32(np.int64(pid))
        w32[WK_PRIO, i] = np.int32(np.int64(prio))
        w32[WK_TCPU, i] = np.int32(np.int64(tcpu))
        went[0, i] = np.int32(ent0 + np.int64(ci))
    return E_OK, n

