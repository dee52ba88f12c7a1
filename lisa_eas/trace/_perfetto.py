"""Perfetto protobuf traces -> per-event DataFrames in the trace.dat schema.

The packet walk (:mod:`._pb_packets`) and the ftrace bundles (typed events,
:mod:`._pb_ftrace`; ``compact_sched``, :mod:`._pb_compact`) are decoded by numba kernels
over the wire primitives of :mod:`._pb_wire`, in two passes: exact counts, then every
column written once at its final dtype (the DataFrames are views of those blocks). The
rare packets are decoded in Python: clock snapshots (:mod:`._perfetto_clock`), power
rails and battery counters (:mod:`._perfetto_rails`), track events and their interned
names (:mod:`._perfetto_tracks`), system and CPU info, process trees, ftrace stats;
generic ftrace events in :mod:`._perfetto_generic`. Tables that are not ftrace events
become frames of the same shape: ``power_rails``, ``battery``, ``process_tree``,
``track_counter``, ``track_slice``.

``__comm`` is, as trace-cmd's saved command lines, one name per pid: the thread name of the
process tree when there is one, else the last name the events gave the pid.

All timestamps are put on the trace's primary clock (``metadata["clock"]``, normally
``boot``, CLOCK_BOOTTIME) with every clock snapshot (``metadata["clock_method"]``).
"""
from __future__ import annotations

import mmap
import struct
import zlib
from collections import defaultdict

import numpy as np
import pandas as pd

from ..errors import TraceError
from . import _decode
from . import _pb_compact as C
from . import _pb_ftrace as F
from ._columns import _categorical, comm_column, empty_small_pages
from ._pb_packets import PK_CLOCK, PK_COLS, PK_DLEN, PK_DROPPED, PK_DSTART, PK_ERR, PK_ERRPOS, \
    PK_FIELD, PK_FLAGS, PK_HAS_TS, PK_LEN, PK_SEQ, PK_START, PK_TS, count_packets, scan_packets
from ._pb_wire import E_TRUNC, ERR_NAMES
from ._perfetto_clock import BOOT as _BOOT, MONO_RAW as _MONO_RAW, Clocks
from ._perfetto_generic import concat, generic_frames, strings
from ._perfetto_rails import Rails
from ._perfetto_tracks import TRACK_TABLES, Tracks
from ._pbsmall import PbError, _read_varint, fields, key, signed32, varint
from ._perfetto_schema import FTRACE_EVENTS, PACKET, PACKET_NAMES, kind_tables
from ._skips import SkipReport
from ._stream import first_appearance

__all__ = ["read_perfetto", "is_perfetto"]

_UNKNOWN_COMM = "<...>"


def is_perfetto(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a Perfetto trace: it starts with a
    ``packet`` field (1, length-delimited) whose payload parses as protobuf fields and
    is followed by another packet field or the end of ``head``."""
    if len(head) < 2 or head[0] != 0x0A:
        return False
    try:
        n, pos = _read_varint(head, 1, len(head))
    except PbError:
        return False
    if n == 0 or pos + n > len(head):
        return False
    try:
        got = list(fields(head, pos, pos + n))
    except PbError:
        return False
    if not got or any(f > 1 << 20 for f, _, _ in got):
        return False
    nxt = pos + n
    return nxt == len(head) or head[nxt] == 0x0A


def _map(path) -> np.ndarray:
    try:
        with open(path, "rb") as fh:
            try:
                mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:     # empty file
                return np.zeros(0, np.uint8)
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror})") from None
    return np.frombuffer(mm, np.uint8)


def _scan(buf: np.ndarray):
    n = count_packets(buf, 0, len(buf))
    out = np.empty((n, PK_COLS), np.int64)
    got, err, pos = scan_packets(buf, 0, len(buf), out)
    return out[:got], int(err), int(pos)


def _decompressed(buf, pk, skips: SkipReport):
    """A new buffer where every compressed_packets payload is replaced by the packets it
    holds (zlib; zstd when the ``zstandard`` module is installed)."""
    parts = []
    for row in pk:
        f = row[PK_FIELD]
        if row[PK_ERR]:
            continue
        if f in (PACKET["compressed_packets"], PACKET["zstd_compressed_packets"]):
            data = bytes(buf[row[PK_DSTART]:row[PK_DSTART] + row[PK_DLEN]])
            try:
                if f == PACKET["compressed_packets"]:
                    parts.append(zlib.decompress(data))
                else:
                    import zstandard  # optional
                    parts.append(zstandard.ZstdDecompressor().decompressobj().decompress(data))
            except ImportError:
                skips.add("zstd_compressed_packets", 1, int(row[PK_START]),
                          "zstd-compressed packets need the zstandard module (pip install zstandard)")
            except Exception as exc:
                skips.add("corrupt_compressed_packets", 1, int(row[PK_START]), str(exc))
        else:
            s, n = int(row[PK_START]), int(row[PK_LEN])
            parts.append(key(1, 2) + varint(n) + bytes(buf[s:s + n]))
    return np.frombuffer(b"".join(parts), np.uint8)


def _frame(ts, cols: dict, cpu, pid, comm) -> pd.DataFrame:
    df = pd.DataFrame({"__ts": ts, "__cpu": np.asarray(cpu, np.int32),
                       "__pid": np.asarray(pid, np.int32), "__comm": comm, **cols},
                      index=pd.Index(ts / 1e9, name="Time"), copy=False)
    return df


def _sorted(ts):
    if len(ts) < 2 or bool(np.all(ts[1:] >= ts[:-1])):
        return None
    return np.argsort(ts, kind="stable")


class _Reader:
    def __init__(self, path, strict: bool):
        self.path = str(path)
        self.strict = strict
        self.skips = SkipReport(self.path)
        self.meta: dict = {"source": self.path, "format": "perfetto"}
        self.clocks = Clocks()
        self.cmdlines: dict[int, str] = {}
        self.thread_names: dict[int, str] = {}     # process_tree threads: win for __comm
        self.frames: dict[str, pd.DataFrame] = {}
        self.packet_counts: dict[str, int] = defaultdict(int)

    def fail(self, reason: str, pos: int, detail: str = ""):
        self.skips.add(reason, 1, pos, detail)
        if self.strict:
            self.skips.raise_if_any()

    # -- packets ----------------------------------------------------------------------
    def read(self):
        buf = _map(self.path)
        if len(buf) == 0:
            raise TraceError(f"{self.path}: empty file, not a trace")
        pk, err, pos = _scan(buf)
        if err:
            self.fail("truncated_packet" if err == E_TRUNC else ERR_NAMES[err], pos,
                      "the packet list is cut or damaged here; later packets are lost")
        if len(pk) == 0:
            raise TraceError(f"{self.path}: no Perfetto packet could be read "
                             "(not a Perfetto protobuf trace?)")
        comp = np.isin(pk[:, PK_FIELD], [PACKET["compressed_packets"],
                                           PACKET["zstd_compressed_packets"]])
        if comp.any():
            self._bad_packets(pk, buf)
            self.meta["compressed_packets"] = int(comp.sum())
            buf = _decompressed(buf, pk, self.skips)
            self.meta["offsets"] = "byte offsets after decompression of compressed_packets"
            pk, err, pos = _scan(buf)
            if err:
                self.fail("truncated_packet", pos, "inside decompressed packets")
        self._bad_packets(pk, buf)
        self.buf = buf
        good = pk[pk[:, PK_ERR] == 0]
        for f, c in zip(*np.unique(good[:, PK_FIELD], return_counts=True)):
            self.packet_counts[PACKET_NAMES.get(int(f), f"field_{int(f)}")] += int(c)
        self._losses(good)
        small = good[~np.isin(good[:, PK_FIELD], [PACKET["ftrace_events"], 0])]
        # clock snapshots first: they convert every other timestamp
        for row in small[small[:, PK_FIELD] == PACKET["clock_snapshot"]]:
            self._small(row, self.clocks.add_snapshot)
        handlers = {PACKET["system_info"]: self._system_info, PACKET["cpu_info"]: self._cpu_info,
                    PACKET["process_tree"]: self._process_tree,
                    PACKET["power_rails"]: self._power_rails, PACKET["battery"]: self._battery,
                    PACKET["ftrace_stats"]: self._ftrace_stats}
        self.rails = Rails()
        self.ptree: list = []
        self.fstats: list = []
        for row in small:
            h = handlers.get(int(row[PK_FIELD]))
            if h is not None:
                ts = self.clocks.to_primary(int(row[PK_TS]), int(row[PK_CLOCK]) or _BOOT)
                self._small(row, lambda d, h=h, ts=ts, has=int(row[PK_HAS_TS]): h(d, ts, has))
        self._tracks(good)
        bundles = good[good[:, PK_FIELD] == PACKET["ftrace_events"]]
        self._ftrace(bundles)
        self._tables()
        self._finish()
        return self.frames, self.meta, self.skips

    def _tracks(self, good):
        """Track descriptors and track events, with the interned data of their sequences
        (also in packets holding nothing else), in file order."""
        kind = good[:, PK_FIELD]
        is_track = np.isin(kind, [PACKET["track_event"], PACKET["track_descriptor"]])
        if not is_track.any():
            return
        seqs = np.unique(good[is_track, PK_SEQ])
        rows = good[(is_track | (kind == 0)) & np.isin(good[:, PK_SEQ], seqs)]
        tracks = Tracks()
        for row in rows:
            s, n = int(row[PK_START]), int(row[PK_LEN])
            ts = self.clocks.to_primary(int(row[PK_TS]), int(row[PK_CLOCK]) or _BOOT)
            try:
                tracks.packet(bytes(self.buf[s:s + n]), int(row[PK_SEQ]), int(row[PK_FLAGS]), ts)
            except PbError as exc:
                self.fail("corrupt_packet", s + exc.offset, f"track packet: {exc.what}")
            except (TypeError, AttributeError, ValueError, OverflowError, struct.error):
                self.fail("corrupt_packet", s, "track packet: a field of the wrong wire type")
        self.frames.update(tracks.frames(_frame))

    def _bad_packets(self, pk, buf):
        bad = pk[pk[:, PK_ERR] != 0]
        if len(bad):
            first = bad[np.argmin(bad[:, PK_ERRPOS])]
            names = sorted({ERR_NAMES[int(e)] for e in bad[:, PK_ERR]})
            self.skips.add("corrupt_packet", len(bad), int(first[PK_ERRPOS]),
                           f"{', '.join(names)}; packet dropped")
            if self.strict:
                self.skips.raise_if_any()
            pk[:, PK_FIELD][pk[:, PK_ERR] != 0] = 0

    def _small(self, row, fn):
        s, n = int(row[PK_DSTART]), int(row[PK_DLEN])
        data = bytes(self.buf[s:s + n])
        try:
            fn(data)
        except PbError as exc:
            self.fail("corrupt_packet", s + exc.offset,
                      f"{PACKET_NAMES.get(int(row[PK_FIELD]), '?')}: {exc.what}")
        except (TypeError, AttributeError, ValueError, OverflowError):
            # a field with another wire type than its .proto gives (an int where a message or
            # string is due, or the reverse): the packet is damaged, not the reader
            self.fail("corrupt_packet", s,
                      f"{PACKET_NAMES.get(int(row[PK_FIELD]), '?')}: a field of the wrong wire type")

    def _losses(self, good):
        dropped = good[good[:, PK_DROPPED] != 0]
        if len(dropped):
            # the tracing service sets the flag on the first packet of each sequence
            seqs = good[:, PK_SEQ]
            _, first_idx = np.unique(seqs, return_index=True)
            first_rows = set(int(good[i, PK_START]) for i in first_idx)
            real = [int(r[PK_START]) for r in dropped if int(r[PK_START]) not in first_rows]
            self.meta["previous_packet_dropped"] = int(len(dropped))
            if real:
                self.skips.add("lost_packets", len(real), real[0],
                               "previous_packet_dropped: the writer lost packets before this one")

    # -- small packets ----------------------------------------------------------------
    def _system_info(self, data, ts, has):
        for f, _, v in fields(data):
            if f == 1:
                u = {g: w.decode("utf-8", "replace") for g, _, w in fields(v)}
                self.meta["kernel_version"] = u.get(3)
                self.meta["uname"] = " ".join(x for x in (u.get(1), u.get(3), u.get(2),
                                                          u.get(4)) if x)
                self.meta["machine"] = u.get(4)
            elif f == 2:
                self.meta["android_build_fingerprint"] = v.decode("utf-8", "replace")

    def _cpu_info(self, data, ts, has):
        freqs, caps = [], []
        for f, _, v in fields(data):
            if f == 1:
                fr, cap = [], None
                for g, w, u in fields(v):
                    if g == 2:
                        if w == 2:     # packed
                            pos = 0
                            while pos < len(u):
                                x, pos = _read_varint(u, pos, len(u))
                                fr.append(x)
                        else:
                            fr.append(u)
                    elif g == 3:
                        cap = u
                freqs.append(fr)
                caps.append(cap)
        self.meta["cpu_frequencies"] = freqs
        if any(c is not None for c in caps):
            self.meta["cpu_capacities"] = caps
        self.meta["cpus"] = max(self.meta.get("cpus") or 0, len(freqs))

    def _process_tree(self, data, ts, has):
        for f, _, v in fields(data):
            if f == 1:
                pid, ppid, cmd, is_comm = 0, 0, [], False
                for g, _, u in fields(v):
                    if g == 1:
                        pid = signed32(u)
                    elif g == 2:
                        ppid = signed32(u)
                    elif g == 3:
                        cmd.append(u.decode("utf-8", "replace"))
                    elif g == 9:
                        is_comm = bool(u)
                name = cmd[0] if cmd else ""
                comm = name if is_comm else name.rsplit("/", 1)[-1][:15]
                self.ptree.append((ts, pid, pid, ppid, comm, " ".join(cmd)))
                if comm and pid not in self.cmdlines:
                    self.cmdlines[pid] = comm
            elif f == 2:
                tid, tgid, name = 0, 0, ""
                for g, _, u in fields(v):
                    if g == 1:
                        tid = signed32(u)
                    elif g == 3:
                        tgid = signed32(u)
                    elif g == 2:
                        name = u.decode("utf-8", "replace")
                self.ptree.append((ts, tid, tgid, -1, name, ""))
                if name:
                    self.thread_names[tid] = name

    def _power_rails(self, data, ts, has):
        self.rails.power_rails(data)

    def _battery(self, data, ts, has):
        self.rails.battery(data, ts)

    def _ftrace_stats(self, data, ts, has):
        phase, over = 0, 0
        for f, _, v in fields(data):
            if f == 1:
                phase = v
            elif f == 2:
                for g, _, u in fields(v):
                    if g == 3:
                        over += u
        self.fstats.append((phase, over))

    # -- ftrace ------------------------------------------------------------------------
    def _ftrace(self, bundles):
        buf = self.buf
        kinds, kind_of, col_of, col_str, k_ncols = kind_tables()
        bstart = np.ascontiguousarray(bundles[:, PK_DSTART])
        blen = np.ascontiguousarray(bundles[:, PK_DLEN])
        nk = len(kinds)
        unknown = np.zeros(len(kind_of), np.int64)
        counts = F.bundle_counts(buf, bstart, blen, kind_of, nk, unknown)
        cap = counts[:nk]
        k_rowbase = np.zeros(nk, np.int64)
        k_valbase = np.zeros(nk, np.int64)
        k_rowbase[1:] = np.cumsum(cap)[:-1]
        cells = cap * k_ncols
        k_valbase[1:] = np.cumsum(cells)[:-1]
        ntyped = int(cap.sum())
        # every array is written whole by the kernel: mapped in at once, without huge pages
        vals = empty_small_pages(int(cells.sum()), np.int64, populate=True)
        typed = (empty_small_pages(ntyped, np.int64, populate=True),
                 empty_small_pages(ntyped, np.int32, populate=True),
                 empty_small_pages(ntyped, np.int32, populate=True), vals)
        nsw, nwk = int(counts[nk + F.SWITCHES]), int(counts[nk + F.WAKINGS])
        compact = (_block(2, nsw, np.int64), _block(6, nsw, np.int32), _block(2, nsw, np.int32),
                   _block(1, nwk, np.int64), _block(5, nwk, np.int32), _block(1, nwk, np.int32))
        nent = int(counts[nk + F.ENTRIES])
        ent_s = np.empty(nent, np.int64)
        ent_l = np.empty(nent, np.int64)
        gen = np.empty((int(counts[nk + F.GENERIC]), 4), np.int64)
        rows = np.zeros(nk + 4, np.int64)
        berr = np.zeros((len(bundles), 2), np.int64)
        # ftrace events are on the boot clock unless the bundle says otherwise
        # (moved onto the primary clock once decoded, see _build)
        boff = np.zeros(len(bundles), np.int64)
        monoraw = self.clocks.offset(_MONO_RAW) - self.clocks.offset(_BOOT)
        tables = (kind_of, col_of, col_str, k_ncols, k_rowbase, k_valbase, cap)
        lost, seen = F.decode_bundles(buf, bstart, blen, boff, monoraw, tables, rows, typed,
                                      compact, ent_s, ent_l, gen, berr)
        self._bundle_errors(berr)
        self._lost(int(lost), unknown)
        entries = _Entries(buf, ent_s[:rows[nk + F.ENTRIES]], ent_l[:rows[nk + F.ENTRIES]])
        del ent_s, ent_l
        frames = {}
        # compact sched first: its comms name the tasks
        n = int(rows[nk + F.SWITCHES])
        s64, s32, sent, w64, w32, went = compact
        del compact
        if n:
            nxt = entries.categorical(sent[C.SW_NEXT_COMM, :n])
            prev = entries.categorical(sent[C.SW_PREV_COMM, :n])
            unknown_prev = int(np.count_nonzero(sent[C.SW_PREV_COMM, :n] < 0))
            if unknown_prev:
                self.meta["compact_sched_unknown_prev"] = unknown_prev
            col = s32[:, :n]
            self._learn(col[C.SW_NEXT_PID], nxt)
            frames["sched_switch"] = (s64[C.SW_TS, :n], {
                "prev_comm": prev, "prev_pid": col[C.SW_PREV_PID],
                "prev_prio": col[C.SW_PREV_PRIO], "prev_state": s64[C.SW_STATE, :n],
                "next_comm": nxt, "next_pid": col[C.SW_NEXT_PID],
                "next_prio": col[C.SW_NEXT_PRIO]}, col[C.SW_CPU], col[C.SW_PID])
        del sent, s64, s32
        m = int(rows[nk + F.WAKINGS])
        if m:
            comm = entries.categorical(went[0, :m])
            col = w32[:, :m]
            self._learn(col[C.WK_PID], comm)
            frames["sched_waking"] = (w64[0, :m], {
                "comm": comm, "pid": col[C.WK_PID], "prio": col[C.WK_PRIO],
                "target_cpu": col[C.WK_TCPU]}, col[C.WK_CPU], col[C.WK_WAKER])
        del went, w64, w32
        ev_ts, ev_cpu, ev_pid = typed[:3]
        del typed
        typed_switch = {}
        for k, fno in enumerate(kinds):
            cnt = int(rows[k])
            if not cnt:
                continue
            name, cols, optional = FTRACE_EVENTS[fno]
            base, stride = int(k_valbase[k]), int(cap[k])
            rb = int(k_rowbase[k])
            out = {}
            for c, (col, _, typ) in enumerate(cols):
                if col in optional and not seen[k, c]:
                    continue
                v = vals[base + c * stride:base + c * stride + cnt]
                if typ == "str":
                    out[col] = strings(buf, v >> F.SPAN_BITS, v & F.SPAN_LEN,
                                        strip_newline=(name == "print"))
                elif typ == "uint64":
                    out[col] = v.view(np.uint64).copy()
                else:
                    out[col] = v.astype(typ)
            item = (ev_ts[rb:rb + cnt], out, ev_cpu[rb:rb + cnt], ev_pid[rb:rb + cnt])
            if name in frames:
                typed_switch[name] = item
            else:
                frames[name] = item
            if name == "sched_switch":
                self._learn(out["next_pid"], out["next_comm"])
            elif name in ("task_newtask",):
                self._learn(out["pid"], out["comm"])
            elif name == "task_rename":
                self._learn(out["pid"], out["newcomm"])
        del vals
        for name, item in typed_switch.items():     # typed and compact events of one name
            frames[name] = concat(frames[name], item)
        gcount = int(rows[nk + F.GENERIC])
        if gcount:
            generic_frames(self.buf, gen[:gcount], frames, self.fail)
        del ev_ts, ev_cpu, ev_pid
        _release(buf)                  # every string is interned: the file's pages can go
        while frames:                  # each frame's pieces freed once it is built
            name, (ts, cols, cpu, pid) = frames.popitem()
            if len(cpu):
                self.meta["cpus"] = max(self.meta.get("cpus") or 0, int(np.max(cpu)) + 1)
            ts = self.clocks.to_primary(ts, _BOOT)
            order = _sorted(ts)
            if order is not None:      # in place, one column at a time
                ts = _permute(ts, order)
                cpu, pid = _permute(cpu, order), _permute(pid, order)
                for c in list(cols):
                    cols[c] = _permute(cols[c], order)
                del order
            self.frames[name] = _frame(ts, cols, cpu, pid, None)

    def _bundle_errors(self, berr):
        bad = np.nonzero(berr[:, 0])[0]
        if len(bad):
            first = bad[np.argmin(berr[bad, 1])]
            names = sorted({ERR_NAMES[int(e)] for e in berr[bad, 0]})
            self.skips.add("corrupt_ftrace_bundle", len(bad), int(berr[first, 1]),
                           f"{', '.join(names)}; every event of the bundle dropped")
            if self.strict:
                self.skips.raise_if_any()

    def _lost(self, lost: int, unknown):
        over = 0
        if self.fstats:
            start = sum(o for p, o in self.fstats if p == 1)
            end = sum(o for p, o in self.fstats if p == 2)
            over = max(end - start, 0)
        if lost or over:
            self.skips.add("lost_events", int(over) + int(lost), -1,
                           f"ftrace ring buffer overruns: {over}; bundles flagged lost_events: {lost}")
        self.meta["lost_events"] = int(over) + int(lost)
        und = np.nonzero(unknown)[0]
        if len(und):
            self.skips.add("undecoded_ftrace_event", int(unknown.sum()), -1,
                           "FtraceEvent field numbers without a decoder: " +
                           ", ".join(f"{f} ({unknown[f]})" for f in und))

    def _learn(self, pids, comms: pd.Categorical):
        """pid -> last comm seen (for __comm)."""
        if not len(pids):
            return
        df = pd.DataFrame({"p": np.asarray(pids), "c": np.asarray(comms.codes)})
        last = df.drop_duplicates("p", keep="last")
        cats = [str(c) for c in comms.categories]
        for p, c in zip(last["p"].tolist(), last["c"].tolist()):
            if c >= 0 and cats[c] and cats[c] != _UNKNOWN_COMM:
                self.cmdlines[int(p)] = cats[c]

    # -- tables ------------------------------------------------------------------------
    def _tables(self):
        self.frames.update(self.rails.frames(_frame, lambda t: self.clocks.to_primary(t, _BOOT)))
        if "power_rails" in self.frames:
            self.meta["power_rails"] = self.rails.names()
        if self.ptree:
            p = sorted(self.ptree, key=lambda x: x[0])
            ts = np.array([x[0] for x in p], np.int64)
            n = len(ts)
            self.frames["process_tree"] = _frame(ts, {
                "pid": np.array([x[1] for x in p], np.int32),
                "tgid": np.array([x[2] for x in p], np.int32),
                "ppid": np.array([x[3] for x in p], np.int32),
                "comm": pd.Categorical([x[4] for x in p]),
                "cmdline": pd.Categorical([x[5] for x in p])},
                np.full(n, -1), np.full(n, -1), None)

    def _finish(self):
        self.cmdlines.update(self.thread_names)
        for name, df in self.frames.items():
            comm = comm_column(df["__pid"].to_numpy(), self.cmdlines)
            if name in ("power_rails", "battery", "process_tree") + TRACK_TABLES:
                comm = _categorical(np.zeros(len(df), np.int32), [""])
            df["__comm"] = comm
        self.meta.update(self.clocks.metadata())
        self.meta.setdefault("kernel_version", None)
        self.meta.setdefault("cpus", 0)
        self.meta["packet_counts"] = dict(self.packet_counts)
        self.meta["event_counts"] = {k: len(v) for k, v in self.frames.items()}
        self.meta.setdefault("lost_events", 0)


def _release(buf: np.ndarray) -> None:
    """Drop the resident pages of a mapped trace file (they come back on access)."""
    mm = buf.base
    if isinstance(mm, memoryview):
        mm = mm.obj
    if isinstance(mm, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        try:
            mm.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError):
            pass


def _permute(v, order):
    """``v`` in the order ``order``: arrays in place (one temporary column), categoricals
    by their codes."""
    if isinstance(v, pd.Categorical):
        return pd.Categorical.from_codes(v.codes[order], dtype=v.dtype)
    v[:] = v[order]
    return v


def _block(nrows: int, n: int, dtype) -> np.ndarray:
    """``nrows`` columns of ``n`` values, each row contiguous (the DataFrame columns are
    views of its rows)."""
    return empty_small_pages(nrows * n, dtype, populate=True).reshape(nrows, n)


class _Entries:
    """The comm strings of the compact_sched intern tables (and typed switches), interned
    once each; records refer to them by entry index."""

    def __init__(self, buf, starts, lens):
        self.codes = np.empty(len(starts), np.int32)
        rs, rl = _decode.intern_strings(buf, np.ascontiguousarray(starts, np.int64),
                                        np.ascontiguousarray(lens, np.int64), False, False,
                                        self.codes)
        self.strings = [bytes(buf[a:a + n]).decode("utf-8", "replace")
                        for a, n in zip(rs.tolist(), rl.tolist())]

    def categorical(self, ent: np.ndarray) -> pd.Categorical:
        """The categorical of the records whose entry indices are ``ent`` (-1: unknown,
        ``<...>``); categories in order of first appearance."""
        n = len(self.strings)
        codes = np.where(ent >= 0, self.codes[np.maximum(ent, 0)], np.int32(n)).astype(np.int32)
        order = first_appearance(codes, n + 1)
        cats = [self.strings[o] if o < n else _UNKNOWN_COMM for o in order.tolist()]
        return _categorical(codes, cats)


def read_perfetto(path, strict: bool = False):
    """Read a Perfetto protobuf trace.

    Returns ``({event: DataFrame}, metadata, SkipReport)``."""
    return _Reader(path, strict).read()
