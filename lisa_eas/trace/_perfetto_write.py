"""Writing a :class:`~lisa_eas.trace.Trace` (real, converted or simulated) as a Perfetto
protobuf trace that :func:`~lisa_eas.trace.read_trace` reads back to the same DataFrames
and the Perfetto UI opens.

* ``sched_switch`` and ``sched_waking`` go into ``compact_sched`` bundles (one bundle per
  CPU and time chunk). A switch whose ``prev_*`` is not the previous switch's ``next_*``
  on its CPU (the first one of a CPU, or after lost events), and a waking whose ``__pid``
  is not the task then running on its CPU, is written as a typed event instead, so
  nothing is lost.
* Events with a typed Perfetto proto (``cpu_frequency``, ``cpu_idle``, ``print``...) are
  typed events; every other event (model signals ``lisa_sim_*``, PELT events...) is a
  generic ftrace event with its fields by name (float fields as decimal text, which the
  reader turns back into float64 columns).
* ``power_rails``, ``battery`` and ``process_tree`` tables go back into their packets.
* For the UI: the model signals of a simulated run also become counter tracks and its
  EAS decisions instant slices carrying their energies (interned names, as Perfetto's SDK
  writes them); the reader reads them back as ``track_counter`` and ``track_slice``.
"""
from __future__ import annotations

import os
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from ..errors import TraceError
from .._atomic import write_bytes_atomic
from ._pbsmall import Msg, key, varint
from ._perfetto_schema import EVENT_FIELD, FTRACE_EVENTS
from .._numba_cache import install as _install_cache_stamp

_install_cache_stamp()      # before the @njit(cache=True) below: cached by the whole package's sources

__all__ = ["write_perfetto"]

_CHUNK = 4096            # events of one kind per CPU per bundle (at most)
_SEQ_FTRACE, _SEQ_TRACK = 1, 2


@numba.njit(cache=True)
def _varint_len(v):
    n = 1
    while v >= np.uint64(0x80):
        v >>= np.uint64(7)
        n += 1
    return n


@numba.njit(cache=True)
def _put_varint(out, pos, v):
    while v >= np.uint64(0x80):
        out[pos] = np.uint8((v & np.uint64(0x7F)) | np.uint64(0x80))
        v >>= np.uint64(7)
        pos += 1
    out[pos] = np.uint8(v)
    return pos + 1


@numba.njit(cache=True)
def pack_varints(values):
    """Packed varint encoding of ``values`` (uint64 view: negatives take 10 bytes)."""
    n = 0
    for i in range(values.shape[0]):
        n += _varint_len(values[i])
    out = np.empty(n, np.uint8)
    pos = 0
    for i in range(values.shape[0]):
        pos = _put_varint(out, pos, values[i])
    return out


@numba.njit(cache=True)
def encode_typed(ts, pid, vals, fnos, is_str, blob, blob_off, col_base, oneof, ev_end):
    """FtraceEvent entries (``event = 2`` of a bundle) of one typed kind, concatenated;
    ``ev_end[i]`` is the end of event ``i`` in the output. ``vals`` holds integers (as
    uint64 bits) or, for string columns, category codes into ``blob``/``blob_off``
    (offset by ``col_base[column]``)."""
    n = ts.shape[0]
    k = fnos.shape[0]
    total = 0
    inner = np.empty(n, np.int64)
    body = np.empty(n, np.int64)
    for i in range(n):
        b = 0
        for c in range(k):
            b += _varint_len(np.uint64(fnos[c] << 3))
            if is_str[c]:
                j = col_base[c] + np.int64(vals[i, c])
                ln = blob_off[j + 1] - blob_off[j]
                b += _varint_len(np.uint64(ln)) + ln
            else:
                b += _varint_len(vals[i, c])
        body[i] = b
        m = 1 + _varint_len(ts[i]) + 1 + _varint_len(pid[i])
        m += _varint_len(np.uint64(oneof << 3 | 2)) + _varint_len(np.uint64(b)) + b
        inner[i] = m
        total += 1 + _varint_len(np.uint64(m)) + m
    out = np.empty(total, np.uint8)
    pos = 0
    for i in range(n):
        out[pos] = 0x12
        pos += 1
        pos = _put_varint(out, pos, np.uint64(inner[i]))
        out[pos] = 0x08
        pos = _put_varint(out, pos + 1, ts[i])
        out[pos] = 0x10
        pos = _put_varint(out, pos + 1, pid[i])
        pos = _put_varint(out, pos, np.uint64(oneof << 3 | 2))
        pos = _put_varint(out, pos, np.uint64(body[i]))
        for c in range(k):
            if is_str[c]:
                pos = _put_varint(out, pos, np.uint64(fnos[c] << 3 | 2))
                j = col_base[c] + np.int64(vals[i, c])
                s = blob_off[j]
                ln = blob_off[j + 1] - s
                pos = _put_varint(out, pos, np.uint64(ln))
                for q in range(ln):
                    out[pos + q] = blob[s + q]
                pos += ln
            else:
                pos = _put_varint(out, pos, np.uint64(fnos[c] << 3))
                pos = _put_varint(out, pos, vals[i, c])
        ev_end[i] = pos
    return out


@numba.njit(cache=True)
def gather_slices(out, starts, ends):
    """``out[starts[i]:ends[i]]`` concatenated, and the boundaries (len n + 1)."""
    n = starts.shape[0]
    bounds = np.empty(n + 1, np.int64)
    bounds[0] = 0
    for i in range(n):
        bounds[i + 1] = bounds[i] + ends[i] - starts[i]
    blob = np.empty(bounds[n], np.uint8)
    for i in range(n):
        blob[bounds[i]:bounds[i + 1]] = out[starts[i]:ends[i]]
    return blob, bounds


def _u64(a) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "u":
        return a.astype(np.uint64)
    return a.astype(np.int64).view(np.uint64)


def _cats(col) -> tuple[np.ndarray, list[str]]:
    cat = col if isinstance(col, pd.Categorical) else pd.Categorical(np.asarray(col, object))
    if isinstance(col, pd.Series):
        cat = col.array if isinstance(col.dtype, pd.CategoricalDtype) else pd.Categorical(col)
    codes = np.asarray(cat.codes, np.int64)
    cats = [str(c) for c in cat.categories]
    if (codes < 0).any():       # NaN -> ""
        cats = cats + [""]
        codes = np.where(codes < 0, len(cats) - 1, codes)
    return codes, cats


def _typed_blocks(df: pd.DataFrame, fno: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Encoded FtraceEvent entries of ``df`` (None if its columns do not fit the proto)."""
    name, cols, optional = FTRACE_EVENTS[fno]
    present = [c for c in cols if c[0] in df.columns]
    need = {c[0] for c in cols} - set(optional)
    extra = set(df.columns) - {c[0] for c in cols} - {"__ts", "__cpu", "__pid", "__comm"}
    if not need <= set(df.columns) or extra:
        return None
    n = len(df)
    k = len(present)
    vals = np.empty((n, k), np.uint64)
    fnos = np.array([c[1] for c in present], np.int64)
    is_str = np.array([c[2] == "str" for c in present], np.bool_)
    blobs, offs, col_base = [], [0], np.zeros(k, np.int64)
    for j, (col, _, typ) in enumerate(present):
        if typ == "str":
            codes, cats = _cats(df[col])
            col_base[j] = len(offs) - 1
            for c in cats:
                b = c.encode("utf-8", "surrogateescape")
                blobs.append(b)
                offs.append(offs[-1] + len(b))
            vals[:, j] = codes.astype(np.uint64)
        else:
            vals[:, j] = _u64(df[col].to_numpy())
    blob = np.frombuffer(b"".join(blobs), np.uint8) if blobs else np.zeros(1, np.uint8)
    ev_end = np.empty(n, np.int64)
    out = encode_typed(df["__ts"].to_numpy(np.int64).view(np.uint64),
                       _u64(df["__pid"].to_numpy().astype(np.int64).astype(np.uint32)),
                       vals, fnos, is_str, blob, np.array(offs, np.int64), col_base, fno, ev_end)
    return out, ev_end


def _generic_blocks(name: str, df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    cols = [c for c in df.columns if c not in ("__ts", "__cpu", "__pid", "__comm")]
    enc = []
    for c in cols:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype == object:
            enc.append((c, "s", [str(v) for v in s.astype(str).tolist()]))
        elif s.dtype.kind == "f":
            enc.append((c, "s", [repr(float(v)) for v in s.tolist()]))
        elif s.dtype.kind == "u":
            enc.append((c, "u", s.tolist()))
        elif s.dtype.kind == "b":
            enc.append((c, "i", s.astype(np.int64).tolist()))
        else:
            enc.append((c, "i", s.astype(np.int64).tolist()))
    ts = df["__ts"].to_numpy(np.int64).tolist()
    pid = (df["__pid"].to_numpy().astype(np.int64) & 0xFFFFFFFF).tolist()
    name_field = key(1, 2) + varint(len(name.encode())) + name.encode()
    heads = [key(1, 2) + varint(len(c.encode())) + c.encode() for c, _, _ in enc]
    parts, ends = [], []
    pos = 0
    for i in range(len(ts)):
        g = bytearray(name_field)
        for (c, kind, vals), h in zip(enc, heads):
            v = vals[i]
            if kind == "s":
                b = v.encode("utf-8", "surrogateescape")
                f = h + key(3, 2) + varint(len(b)) + b
            else:
                f = h + key(4 if kind == "i" else 5, 0) + varint(v)
            g += key(2, 2) + varint(len(f)) + f
        ev = key(1, 0) + varint(ts[i]) + key(2, 0) + varint(pid[i]) + key(327, 2) + \
            varint(len(g)) + g
        item = key(2, 2) + varint(len(ev)) + ev
        parts.append(item)
        pos += len(item)
        ends.append(pos)
    return np.frombuffer(b"".join(parts), np.uint8), np.array(ends, np.int64)


def _common_codes(a: pd.Series, b: pd.Series):
    """Integer codes of two string columns on one shared vocabulary."""
    ca, cb = _cats(a), _cats(b)
    vocab = {s: i for i, s in enumerate(dict.fromkeys(ca[1] + cb[1]))}
    ma = np.array([vocab[s] for s in ca[1]], np.int64)
    mb = np.array([vocab[s] for s in cb[1]], np.int64)
    return ma[ca[0]] if len(ma) else ca[0], mb[cb[0]] if len(mb) else cb[0]


def _compact_switch_ok(sw: pd.DataFrame) -> np.ndarray:
    """Rows a compact encoding reproduces: prev_* equal to the previous switch's next_* on
    the same CPU and __pid equal to prev_pid."""
    ok = np.zeros(len(sw), bool)
    cpu = sw["__cpu"].to_numpy()
    order = np.lexsort((np.arange(len(sw)), cpu))
    c = cpu[order]
    same = np.r_[False, c[1:] == c[:-1]]
    prev_pid = sw["prev_pid"].to_numpy()[order]
    prev_prio = sw["prev_prio"].to_numpy()[order]
    prev_comm, next_comm = _common_codes(sw["prev_comm"], sw["next_comm"])
    prev_comm, next_comm = prev_comm[order], next_comm[order]
    next_pid = sw["next_pid"].to_numpy()[order]
    next_prio = sw["next_prio"].to_numpy()[order]
    good = same.copy()
    good[1:] &= (prev_pid[1:] == next_pid[:-1]) & (prev_prio[1:] == next_prio[:-1]) & \
        (prev_comm[1:] == next_comm[:-1])
    good &= sw["__pid"].to_numpy()[order] == prev_pid
    ok[order] = good
    return ok


def _waker_ok(wk: pd.DataFrame, sw: pd.DataFrame | None) -> np.ndarray:
    """Rows of sched_waking whose __pid is the task running on their CPU (as the reader
    derives it from the switches) and whose columns fit the compact encoding."""
    if set(wk.columns) - {"__ts", "__cpu", "__pid", "__comm", "comm", "pid", "prio",
                          "target_cpu"}:
        return np.zeros(len(wk), bool)
    if sw is None or not len(sw):
        return wk["__pid"].to_numpy() == -1
    a = pd.DataFrame({"t": wk["__ts"].to_numpy(), "cpu": wk["__cpu"].to_numpy(),
                      "i": np.arange(len(wk))}).sort_values(["t"], kind="stable")
    b = pd.DataFrame({"t": sw["__ts"].to_numpy(), "cpu": sw["__cpu"].to_numpy(),
                      "cur": sw["next_pid"].to_numpy()}).sort_values(["t"], kind="stable")
    m = pd.merge_asof(a, b, on="t", by="cpu", direction="backward", allow_exact_matches=True)
    cur = np.full(len(wk), -1, np.int64)
    cur[m["i"].to_numpy()] = m["cur"].fillna(-1).to_numpy(np.int64)
    return cur == wk["__pid"].to_numpy()


def _compact_sched(sw_rows: pd.DataFrame | None, wk_rows: pd.DataFrame | None) -> bytes:
    cs = Msg()
    table: dict[str, int] = {}

    def idx(col: pd.Series):
        codes, cats = _cats(col)
        if not len(codes):
            return np.zeros(0, np.uint64)
        u, inv = np.unique(codes, return_inverse=True)
        ids = np.array([table.setdefault(cats[c], len(table)) for c in u.tolist()], np.uint64)
        return ids[inv]

    # (rows, field of the time deltas, (column, field) of the integers, comm column, field)
    for rows, ts_f, ints, comm, comm_f in (
            (sw_rows, 1, (("prev_state", 2), ("next_pid", 3), ("next_prio", 4)), "next_comm", 6),
            (wk_rows, 7, (("pid", 8), ("target_cpu", 9), ("prio", 10)), "comm", 11)):
        if rows is None or not len(rows):
            continue
        d = np.diff(rows["__ts"].to_numpy(np.int64), prepend=0).astype(np.uint64)
        codes = idx(rows[comm])
        cs.packed(ts_f, pack_varints(d).tobytes())
        for col, f in ints:
            cs.packed(f, pack_varints(_u64(rows[col].to_numpy())).tobytes())
        cs.packed(comm_f, pack_varints(codes).tobytes())
    head = Msg()
    for s in table:
        head.bytes(5, s)
    return bytes(head.buf + cs.buf)


def _ftrace_packets(trace, skip: set) -> list[bytes]:
    """The ftrace bundles of the trace's events, per CPU, in time chunks."""
    events = [e for e in trace.events if e not in skip]
    sw = trace.df("sched_switch") if "sched_switch" in events else None
    wk = trace.df("sched_waking") if "sched_waking" in events else None
    # per CPU: list of (ts array, kind, payload); typed/generic as encoded blocks
    blocks: dict[int, list] = {}

    def add(cpu_arr, ts_arr, kind, data):
        for cpu in np.unique(cpu_arr):
            sel = np.nonzero(cpu_arr == cpu)[0]
            blocks.setdefault(int(cpu), []).append((ts_arr[sel], kind, data, sel))

    sw_compact = wk_compact = None
    if sw is not None:
        ok = _compact_switch_ok(sw)
        sw_compact = sw[ok]
        if (~ok).any():
            out, ends = _typed_blocks(sw[~ok], EVENT_FIELD["sched_switch"])
            bad = sw[~ok]
            add(bad["__cpu"].to_numpy(), bad["__ts"].to_numpy(), "typed_switch", (out, ends))
        add(sw_compact["__cpu"].to_numpy(), sw_compact["__ts"].to_numpy(), "sw", sw_compact)
    if wk is not None:
        ok = _waker_ok(wk, sw)
        wk_compact = wk[ok]
        if (~ok).any():
            res = _typed_blocks(wk[~ok], EVENT_FIELD["sched_waking"])
            bad = wk[~ok]
            if res is None:
                res = _generic_blocks("sched_waking", bad)
            add(bad["__cpu"].to_numpy(), bad["__ts"].to_numpy(), "typed", res)
        add(wk_compact["__cpu"].to_numpy(), wk_compact["__ts"].to_numpy(), "wk", wk_compact)
    for e in events:
        if e in ("sched_switch", "sched_waking"):
            continue
        df = trace.df(e)
        if not len(df):
            continue
        res = None
        if e in EVENT_FIELD:
            res = _typed_blocks(df, EVENT_FIELD[e])
        if res is None:
            res = _generic_blocks(e, df)
        add(df["__cpu"].to_numpy(), df["__ts"].to_numpy(), "typed", res)
    packets = []
    for cpu in sorted(blocks):
        items = blocks[cpu]
        # bundle boundaries: every _CHUNK events of the CPU, and at each typed switch (so
        # that the reader's per-CPU state sees it before the compact switches after it)
        all_ts = np.concatenate([it[0] for it in items])
        cuts = set()
        srt = np.sort(all_ts)
        cuts.update(srt[::_CHUNK][1:].tolist())
        for ts_arr, kind, _, _ in items:
            if kind == "typed_switch":
                cuts.update(ts_arr.tolist())
        edges = np.array(sorted(cuts), np.int64)
        nb = len(edges) + 1
        parts = [[bytearray(), [], []] for _ in range(nb)]    # typed bytes, sw rows, wk rows
        for ts_arr, kind, data, sel in items:
            b = np.searchsorted(edges, ts_arr, side="right")
            order = np.argsort(b, kind="stable")        # time order within each bundle
            b, sel = b[order], sel[order]
            cuts_at = np.searchsorted(b, np.arange(nb + 1), side="left")
            if kind in ("typed", "typed_switch"):
                out, ends = data
                starts = np.r_[0, ends[:-1]]
                blob, bounds = gather_slices(out, starts[sel], ends[sel])
                for bi in range(nb):
                    lo, hi = cuts_at[bi], cuts_at[bi + 1]
                    if hi > lo:
                        parts[bi][0] += blob[bounds[lo]:bounds[hi]].tobytes()
            else:
                slot = 1 if kind == "sw" else 2
                rows = data.iloc[sel]
                for bi in range(nb):
                    lo, hi = cuts_at[bi], cuts_at[bi + 1]
                    if hi > lo:
                        parts[bi][slot].append(rows.iloc[lo:hi])
        for typed, sws, wks in parts:
            if not typed and not sws and not wks:
                continue
            bundle = Msg().int(1, cpu)
            bundle.buf += typed
            if sws or wks:
                bundle.bytes(4, _compact_sched(pd.concat(sws) if sws else None,
                                               pd.concat(wks) if wks else None))
            packets.append(bytes(Msg().int(10, _SEQ_FTRACE).bytes(1, bundle).buf))
    return packets


def _table_packets(trace) -> list[bytes]:
    out = []
    if "power_rails" in trace.events:
        pr = trace.df("power_rails")
        names = list(dict.fromkeys(pr["rail"].astype(str).tolist()))
        subsys = dict(zip(pr["rail"].astype(str), pr["subsys"].astype(str)))
        msg = Msg()
        for i, n in enumerate(names):
            msg.bytes(1, Msg().int(1, i).bytes(2, n).bytes(3, subsys.get(n, "")).int(4, 0))
        out.append(bytes(Msg().int(10, 3).bytes(40, msg).buf))
        index = {n: i for i, n in enumerate(names)}
        ms = (pr["__ts"].to_numpy(np.int64) // 1_000_000).tolist()
        rows = list(zip(pr["rail"].astype(str).tolist(), ms, pr["energy_uws"].tolist()))
        for a in range(0, len(rows), 64):
            m = Msg()
            for n, t, e in rows[a:a + 64]:
                m.bytes(2, Msg().int(1, index[n]).int(2, t).int(3, int(e)))
            out.append(bytes(Msg().int(8, rows[a][1] * 1_000_000).int(10, 3).bytes(40, m).buf))
    if "battery" in trace.events:
        b = trace.df("battery")
        for i in range(len(b)):
            r = b.iloc[i]
            m = Msg()
            for fno, col in ((1, "charge_counter_uah"), (3, "current_ua"), (4, "current_avg_ua"),
                             (6, "energy_counter_uwh"), (7, "voltage_uv")):
                if col in b.columns and not np.isnan(r[col]):
                    m.int(fno, int(r[col]))
            if "capacity_percent" in b.columns and not np.isnan(r["capacity_percent"]):
                import struct
                m.buf += key(2, 5) + struct.pack("<f", float(r["capacity_percent"]))
            if "name" in b.columns and str(r["name"]):
                m.bytes(5, str(r["name"]))
            out.append(bytes(Msg().int(8, int(r["__ts"])).int(10, 4).bytes(38, m).buf))
    # the task names (__comm) as process-tree threads, as trace-cmd's saved command lines
    names: dict = {}
    for e in trace.events:
        if e in ("power_rails", "battery", "process_tree"):
            continue
        df = trace.df(e)
        if not len(df):
            continue
        pc = pd.DataFrame({"p": df["__pid"].to_numpy(), "c": df["__comm"].astype(str).to_numpy()})
        for pid, comm in pc.drop_duplicates("p").itertuples(index=False):
            if pid > 0:
                names.setdefault(int(pid), comm)
    if names and "process_tree" not in trace.events:
        m = Msg()
        for pid, comm in sorted(names.items()):
            m.bytes(2, Msg().int(1, pid).bytes(2, comm).int(3, pid))
        t0 = trace.time_range[0]
        out.append(bytes(Msg().int(8, int(round(t0 * 1e9)) if t0 == t0 else 0).int(10, 5)
                         .bytes(2, m).buf))
    if "process_tree" in trace.events:
        p = trace.df("process_tree")
        for t, grp in p.groupby("__ts", sort=True):
            m = Msg()
            for r in grp.itertuples(index=False):
                if r.ppid != -1:
                    proc = Msg().int(1, r.pid).int(2, r.ppid)
                    for arg in (str(r.cmdline).split(" ") if str(r.cmdline) else []):
                        proc.bytes(3, arg)
                    m.bytes(1, proc)
                else:
                    th = Msg().int(1, r.pid).bytes(2, str(r.comm)).int(3, r.tgid)
                    m.bytes(2, th)
            out.append(bytes(Msg().int(8, int(t)).int(10, 5).bytes(2, m).buf))
    return out


class _TrackWriter:
    """Track packets of one sequence: descriptors, counter values and instant slices whose
    event and annotation names are interned (``interned_data`` sent with the first packet
    that uses a name), as Perfetto's SDK writes them."""

    def __init__(self):
        self.out: list[bytes] = []
        self.uuid = 1000
        self.first = True
        self.names: dict[str, int] = {}
        self.anns: dict[str, int] = {}

    def _pkt(self, ts, body_fno: int, body: Msg, interned: Msg | None = None) -> None:
        m = Msg()
        if ts is not None:
            m.int(8, int(ts))
        m.int(10, _SEQ_TRACK)
        m.int(13, 1 if self.first else 2)    # SEQ_INCREMENTAL_STATE_CLEARED, then NEEDS_...
        self.first = False
        if interned is not None and len(interned):
            m.bytes(12, interned)
        m.bytes(body_fno, body)
        self.out.append(bytes(m.buf))

    def track(self, name: str, counter: bool) -> int:
        self.uuid += 1
        d = Msg().int(1, self.uuid).bytes(2, name)
        if counter:
            d.bytes(8, Msg())
        self._pkt(None, 60, d)
        return self.uuid

    def counter(self, ts: int, uuid: int, value: float) -> None:
        self._pkt(ts, 11, Msg().int(9, 4).int(11, uuid).double(44, value))

    def _iid(self, table: dict, fno: int, name: str, interned: Msg) -> int:
        if name not in table:
            table[name] = len(table) + 1
            interned.bytes(fno, Msg().int(1, table[name]).bytes(2, name))
        return table[name]

    def instant(self, ts: int, uuid: int, name: str, args: dict) -> None:
        interned = Msg()
        ev = Msg().int(9, 3).int(11, uuid).int(10, self._iid(self.names, 2, name, interned))
        for k, x in args.items():
            a = Msg().int(1, self._iid(self.anns, 3, k, interned))
            if isinstance(x, (float, np.floating)):
                a.double(5, float(x))
            elif isinstance(x, str):
                a.bytes(6, x)
            else:
                a.int(4, int(x))
            ev.bytes(4, a)
        self._pkt(ts, 11, ev, interned)


def _track_packets(trace) -> list[bytes]:
    """Counter tracks of the model signals and instant slices of the EAS decisions (or the
    trace's own ``track_counter``/``track_slice`` tables, read from a Perfetto trace)."""
    w = _TrackWriter()
    if "track_counter" in trace.events or "track_slice" in trace.events:
        _own_tracks(trace, w)
        return w.out
    for ev in trace.events:
        if not ev.startswith("lisa_sim_") or ev in ("lisa_sim_eas_decision", "lisa_sim_rtapp_log"):
            continue
        df = trace.df(ev)
        if not len(df):
            continue
        if "cpu" in df.columns:
            keys = ("cpu",)
        elif "pid" in df.columns:
            keys = ("comm", "pid") if "comm" in df.columns else ("pid",)
        else:
            keys = ()
        num = [c for c in df.columns if c not in keys and not c.startswith("__")
               and df[c].dtype.kind in "iufb"]
        groups = df.groupby(list(keys), sort=True, observed=True) if keys else [((), df)]
        for gk, g in groups:
            gk = gk if isinstance(gk, tuple) else (gk,)
            label = " ".join(f"{k}={v}" for k, v in zip(keys, gk))
            ts = g["__ts"].to_numpy(np.int64)
            for c in num:
                u = w.track(f"{ev}.{c}{' ' + label if label else ''}", True)
                for t, x in zip(ts.tolist(), g[c].to_numpy(np.float64).tolist()):
                    w.counter(t, u, x)
    if "lisa_sim_eas_decision" in trace.events:
        df = trace.df("lisa_sim_eas_decision")
        tracks = {}
        num = [c for c in df.columns if not c.startswith("__") and df[c].dtype.kind in "iuf"]
        ts_all = df["__ts"].to_numpy(np.int64).tolist()
        chosen = df["chosen_cpu"].to_numpy(np.int64).tolist()
        comms = df["comm"].astype(str).tolist() if "comm" in df.columns else [""] * len(df)
        cols = {c: df[c].tolist() for c in num}
        for i, t in enumerate(ts_all):
            cpu = chosen[i]
            if cpu not in tracks:
                tracks[cpu] = w.track(f"EAS decisions -> CPU {cpu}", False)
            w.instant(t, tracks[cpu], f"EAS {comms[i]}", {c: cols[c][i] for c in num})
    return w.out


def _own_tracks(trace, w: _TrackWriter) -> None:
    """A read-back trace's track tables, written as they were read (instants only)."""
    uuids: dict = {}
    if "track_counter" in trace.events:
        df = trace.df("track_counter")
        for t, name, x in zip(df["__ts"].tolist(), df["track"].astype(str).tolist(),
                              df["value"].tolist()):
            if name not in uuids:
                uuids[name] = w.track(name, True)
            w.counter(t, uuids[name], x)
    if "track_slice" in trace.events:
        df = trace.df("track_slice")
        extra = [c for c in df.columns if c not in ("__ts", "__cpu", "__pid", "__comm", "track",
                                                   "name", "dur")]
        for i, (t, name, ev) in enumerate(zip(df["__ts"].tolist(), df["track"].astype(str).tolist(),
                                              df["name"].astype(str).tolist())):
            if name not in uuids:
                uuids[name] = w.track(name, False)
            args = {c: df[c].iat[i] for c in extra}
            args = {k: (str(v) if not isinstance(v, (int, float, np.number)) else v)
                    for k, v in args.items() if not (isinstance(v, float) and v != v) and v != ""}
            w.instant(t, uuids[name], ev, args)


def write_perfetto(trace, path: str | os.PathLike, *, tracks: bool = True) -> Path:
    """Write ``trace`` as a Perfetto protobuf trace (atomically).

    Parameters
    ----------
    trace : Trace
    path : path-like
    tracks : bool
        Also write model signals as counter tracks and EAS decisions as instant slices
        carrying their energies (for the Perfetto UI; :func:`~lisa_eas.read_trace` reads
        them back as the ``track_counter`` and ``track_slice`` tables).

    Returns
    -------
    Path
    """
    path = Path(path)
    meta = trace.metadata
    t0 = trace.time_range[0]
    head = []
    snap = Msg().bytes(1, Msg().int(1, 6).int(2, int(round(t0 * 1e9)) if t0 == t0 else 0))
    snap.int(2, 6)
    head.append(bytes(Msg().int(10, 9).bytes(6, snap).buf))
    if meta.get("kernel_version") or meta.get("machine"):
        u = Msg().bytes(1, "Linux")
        if meta.get("kernel_version"):
            u.bytes(3, str(meta["kernel_version"]))
        if meta.get("machine"):
            u.bytes(4, str(meta["machine"]))
        si = Msg().bytes(1, u)
        if meta.get("android_build_fingerprint"):
            si.bytes(2, str(meta["android_build_fingerprint"]))
        head.append(bytes(Msg().int(10, 9).bytes(45, si).buf))
    if meta.get("cpu_frequencies"):
        ci = Msg()
        caps = meta.get("cpu_capacities") or []
        for i, fr in enumerate(meta["cpu_frequencies"]):
            cpu = Msg().bytes(1, "")
            cpu.packed(2, pack_varints(np.asarray(fr, np.uint64)).tobytes())
            if i < len(caps) and caps[i] is not None:
                cpu.int(3, int(caps[i]))
            ci.bytes(1, cpu)
        head.append(bytes(Msg().int(10, 9).bytes(67, ci).buf))
    tables = {"power_rails", "battery", "process_tree", "track_counter", "track_slice"}
    body = _ftrace_packets(trace, tables) + _table_packets(trace)
    if tracks or "track_counter" in trace.events or "track_slice" in trace.events:
        body += _track_packets(trace)
    parts = []
    for p in head + body:
        parts.append(key(1, 2) + varint(len(p)) + p)
    try:
        write_bytes_atomic(path, b"".join(parts))
    except OSError as exc:
        raise TraceError(f"{path}: cannot write ({exc.strerror})") from None
    return path
