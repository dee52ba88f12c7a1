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
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

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


@numba.njit(cache=True)
def _same_length(buf, sp, cols, n):
    for f in cols:
        if sp[f, 0] < 0 or count_packed(buf, sp[f, 0], sp[f, 1]) != n:
            return False
    return True


@numba.njit(cache=True)
def _column(buf, sp, f, out, row, i0, n):
    """The ``n`` varints of packed column ``f`` into ``out[row, i0:i0 + n]`` (cast to its
    dtype, as the kernel's int fields are). False when one is cut or overlong."""
    p = sp[f, 0]
    e = sp[f, 1]
    for j in range(n):
        v, p = varint(buf, p, e)
        if p < 0:
            return False
        out[row, i0 + j] = np.int64(v)
    return True


@numba.njit(cache=True)
def _times(buf, sp, f, out, row, i0, n, off):
    """Column ``f`` of time deltas as times (+ ``off``) into ``out[row, i0:i0 + n]``."""
    p = sp[f, 0]
    e = sp[f, 1]
    t = off
    for j in range(n):
        v, p = varint(buf, p, e)
        if p < 0:
            return False
        t += np.int64(v)
        out[row, i0 + j] = t
    return True


@numba.njit(cache=True)
def _comms(buf, sp, f, out, row, i0, n, ent0, nint):
    """Column ``f`` of intern-table indices as entry indices; ``E_INTERN`` for an index
    outside the table, ``E_TRUNC`` for a cut varint."""
    p = sp[f, 0]
    e = sp[f, 1]
    for j in range(n):
        v, p = varint(buf, p, e)
        if p < 0:
            return E_TRUNC
        if v >= np.uint64(nint):
            return E_INTERN
        out[row, i0 + j] = np.int32(ent0 + np.int64(v))
    return E_OK


@numba.njit(cache=True)
def _decode_columns(buf, sp, f_ts, f_a, f_b, f_c, f_comm, f_opt, off, ent0, nint, i0, t64, a_out,
                    a_row, b32, b_row, c_row, ent, ent_row):
    """The set-up both record kinds share: the number of records (varints of the time column
    ``f_ts``), the columns ``f_a``, ``f_b``, ``f_c``, ``f_comm`` (and ``f_opt`` when present,
    -1 for none) of that length, room from row ``i0``; then the times (+ ``off``) into
    ``t64[0, i0:]``, column ``f_a`` into ``a_out[a_row]``, ``f_b``/``f_c`` into
    ``b32[b_row]``/``b32[c_row]`` and the comm indices as entry indices into ``ent[ent_row]``.
    Returns ``(error, records)``; ``(E_OK, 0)`` when the time column is absent."""
    if sp[f_ts, 0] < 0:
        return E_OK, 0
    n = count_packed(buf, sp[f_ts, 0], sp[f_ts, 1])
    if not _same_length(buf, sp, (f_a, f_b, f_c, f_comm), n):
        return E_COMPACT, 0
    if f_opt >= 0 and sp[f_opt, 0] >= 0 and count_packed(buf, sp[f_opt, 0], sp[f_opt, 1]) != n:
        return E_COMPACT, 0
    if i0 + n > t64.shape[1]:
        return E_COMPACT, 0
    if not (_times(buf, sp, f_ts, t64, 0, i0, n, off)
            and _column(buf, sp, f_a, a_out, a_row, i0, n)
            and _column(buf, sp, f_b, b32, b_row, i0, n)
            and _column(buf, sp, f_c, b32, c_row, i0, n)):
        return E_TRUNC, 0
    return _comms(buf, sp, f_comm, ent, ent_row, i0, n, ent0, nint), n


@numba.njit(cache=True)
def decode_switches(buf, sp, cpu, off, ent0, nint, i0, cur, s64, s32, sent):
    """Decode the switch columns (``sp`` from :func:`compact_columns`) into rows ``i0..``
    of ``s64``/``s32``/``sent`` (entry indices: ``ent0 + intern index``), column by
    column, advancing ``cur[cpu]``. Returns ``(error, rows)``."""
    err, n = _decode_columns(buf, sp, 1, 2, 3, 4, 6, -1, off, ent0, nint, i0, s64, s64, SW_STATE,
                             s32, SW_NEXT_PID, SW_NEXT_PRIO, sent, SW_NEXT_COMM)
    if err != E_OK or n == 0:
        return err, 0
    # the task each switch leaves is the one the switch before chose
    end = i0 + n
    s32[SW_CPU, i0:end] = np.int32(cpu)
    s32[SW_PREV_PID, i0] = np.int32(cur[cpu, CUR_PID])
    s32[SW_PREV_PRIO, i0] = np.int32(cur[cpu, CUR_PRIO])
    sent[SW_PREV_COMM, i0] = np.int32(cur[cpu, CUR_COMM])
    s32[SW_PREV_PID, i0 + 1:end] = s32[SW_NEXT_PID, i0:end - 1]
    s32[SW_PREV_PRIO, i0 + 1:end] = s32[SW_NEXT_PRIO, i0:end - 1]
    sent[SW_PREV_COMM, i0 + 1:end] = sent[SW_NEXT_COMM, i0:end - 1]
    s32[SW_PID, i0:end] = s32[SW_PREV_PID, i0:end]
    cur[cpu, CUR_PID] = s32[SW_NEXT_PID, end - 1]
    cur[cpu, CUR_PRIO] = s32[SW_NEXT_PRIO, end - 1]
    cur[cpu, CUR_COMM] = sent[SW_NEXT_COMM, end - 1]
    return E_OK, n


@numba.njit(cache=True)
def decode_wakings(buf, sp, cpu, off, ent0, nint, i0, waker, s64, s32, sw_lo, sw_hi, w64, w32,
                   went):
    """Decode the waking columns into rows ``i0..`` of ``w64``/``w32``/``went``. The waker
    (``__pid``) is the task running on the CPU at the waking: ``waker`` (the pid before the
    bundle's compact switches), then the ``next_pid`` of each of the bundle's switches
    (rows ``sw_lo..sw_hi`` of ``s64``/``s32``) at or before it. Returns ``(error, rows)``."""
    err, n = _decode_columns(buf, sp, 7, 8, 9, 10, 11, 12, off, ent0, nint, i0, w64, w32, WK_PID,
                             w32, WK_TCPU, WK_PRIO, went, 0)
    if err != E_OK or n == 0:
        return err, 0
    w32[WK_CPU, i0:i0 + n] = np.int32(cpu)
    si = sw_lo
    wpid = np.int32(waker)
    for i in range(i0, i0 + n):
        ts = w64[0, i]
        while si < sw_hi and s64[SW_TS, si] <= ts:
            wpid = s32[SW_NEXT_PID, si]
            si += 1
        w32[WK_WAKER, i] = wpid
    return E_OK, n
