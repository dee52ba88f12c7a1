"""The top-level packet scan of a Perfetto trace (``Trace.packet``), in numba.

One row per ``TracePacket`` (columns ``PK_*``): its span, the packet-level fields the
reader uses (``timestamp`` 8, ``timestamp_clock_id`` 58, ``trusted_packet_sequence_id``
10, ``sequence_flags`` 13, ``previous_packet_dropped`` 42) and the field number and span
of its data: the last length-delimited field other than ``interned_data`` (12) and
``trace_packet_defaults`` (59), a field the reader decodes winning over unknown ones.
Field numbers from Perfetto's ``protos/perfetto/trace/trace_packet.proto``.
"""
from __future__ import annotations

import numba

from ._pb_wire import E_OK, E_WIRE, field, value
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

__all__ = ["count_packets", "scan_packets", "PK_COLS"]

PK_START, PK_LEN, PK_TS, PK_CLOCK, PK_SEQ, PK_FLAGS, PK_DROPPED, PK_FIELD, PK_DSTART, \
    PK_DLEN, PK_ERR, PK_ERRPOS, PK_HAS_TS = range(13)
PK_COLS = 13


@numba.njit(cache=True)
def _decoded(f):
    """Packet data fields the reader decodes (win over unknown length-delimited fields)."""
    return (f == 1 or f == 2 or f == 6 or f == 11 or f == 34 or f == 38 or f == 40 or f == 45
            or f == 50 or f == 60 or f == 67 or f == 133)


@numba.njit(cache=True)
def count_packets(buf, start, end):
    """Number of top-level fields in ``buf[start:end]`` (an upper bound on packets)."""
    pos = start
    n = 0
    while pos < end:
        err, f, w, s, e = field(buf, pos, end)
        n += 1
        if err != E_OK:
            return n
        pos = e
    return n


@numba.njit(cache=True)
def _packet(buf, ps, pe, row):
    """Fill ``row`` from the packet ``buf[ps:pe]``."""
    row[:] = 0
    row[PK_START] = ps
    row[PK_LEN] = pe - ps
    q = ps
    while q < pe:
        err, f, w, s, e = field(buf, q, pe)
        if err != E_OK:
            row[PK_ERR] = err
            row[PK_ERRPOS] = q
            return
        if f == 8 or f == 58 or f == 10 or f == 13 or f == 42:
            if w != 0:
                row[PK_ERR] = E_WIRE
                row[PK_ERRPOS] = q
                return
            v = value(buf, s, e)
            if f == 8:
                row[PK_TS] = v
                row[PK_HAS_TS] = 1
            elif f == 58:
                row[PK_CLOCK] = v
            elif f == 10:
                row[PK_SEQ] = v
            elif f == 13:
                row[PK_FLAGS] = v
            else:
                row[PK_DROPPED] = v
        elif w == 2 and f != 12 and f != 59 and (row[PK_FIELD] == 0 or _decoded(f)):
            row[PK_FIELD] = f
            row[PK_DSTART] = s
            row[PK_DLEN] = e - s
        elif w != 2 and (f == 1 or f == 50 or f == 133):
            row[PK_ERR] = E_WIRE
            row[PK_ERRPOS] = q
            return
        q = e


@numba.njit(cache=True)
def scan_packets(buf, start, end, out):
    """Walk ``Trace`` (repeated ``TracePacket packet = 1``) and fill one row of ``out`` per
    packet. Returns ``(n_packets, stop_error, stop_pos)``: the walk stops at a cut or
    damaged top-level field (``stop_error`` != 0); fields other than 1 are skipped. A
    packet that does not parse gets ``PK_ERR`` and ``PK_ERRPOS``."""
    pos = start
    n = 0
    while pos < end:
        err, f, w, s, e = field(buf, pos, end)
        if err != E_OK:
            return n, err, pos
        if f == 1 and w == 2:
            _packet(buf, s, e, out[n])
            n += 1
        pos = e
    return n, E_OK, pos
