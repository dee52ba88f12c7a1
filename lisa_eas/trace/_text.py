"""Text traces: ``trace-cmd report`` output (raw ``-R`` or default), the tracefs ``trace``
file, and the ftrace text inside Android systrace/atrace captures.

Each event line is ``COMM-PID [(TGID)] [CPU] [FLAGS] SECONDS: EVENT: PAYLOAD``. Payloads
made of ``key=value`` pairs become typed columns; print-like events (print, bprint,
bputs, tracing_mark_write) get ``ip`` and their text (``buf``/``str``); payloads that
are not key=value are kept whole in a ``__payload`` column and reported.
"""
from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pandas as pd

from ..errors import TraceError
from ._skips import SkipReport

__all__ = ["read_text", "parse_text_lines"]

_LINE = re.compile(
    r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*(?P<tgid>[-\d]+)\s*\)\s+)?\[(?P<cpu>\d+)\]\s+"
    r"(?:(?P<flags>[^\s\[\]]{2,8})\s+)?(?P<ts>\d+\.\d+):\s+(?P<event>[\w.-]+):\s?(?P<payload>.*)$")
_KEY = re.compile(r"(?:^|(?<=\s))([A-Za-z_][\w.]*)=")
_HEADER = re.compile(r"^\s*(?:#|version\s*=|cpus=\d+|CPU \d+ is empty|TRACE:|$)")
_LOST = re.compile(r"^\s*CPU:\s*(\d+)\s*\[(?:LOST\s+)?(\d+)?\s*EVENTS? (?:DROPPED|LOST)\]")
_COMPACT_SWITCH = re.compile(
    r"^(?P<prev_comm>.+?):(?P<prev_pid>-?\d+) \[(?P<prev_prio>-?\d+)\] (?P<prev_state>\S+) ==> "
    r"(?P<next_comm>.+?):(?P<next_pid>-?\d+) \[(?P<next_prio>-?\d+)\]\s*$")
_PRINT_LIKE = {"print": "buf", "bprint": "buf", "bputs": "str", "tracing_mark_write": "buf"}

# The kernel's field types (TP_STRUCT__entry) of the scheduler and power events the analyses use,
# stable across kernel versions: the widths a trace.dat reader and the simulator give these
# columns. A text trace's integer column of one of these fields takes that width when every
# value fits it (pid_t / int: int32; unsigned int: uint32; u64: uint64).
_I32, _U32, _U64 = np.dtype(np.int32), np.dtype(np.uint32), np.dtype(np.uint64)
_WAKEUP = {"pid": _I32, "prio": _I32, "success": _I32, "target_cpu": _I32}
_KERNEL_WIDTHS = {
    "sched_switch": {"prev_pid": _I32, "prev_prio": _I32, "next_pid": _I32, "next_prio": _I32},
    "sched_wakeup": _WAKEUP, "sched_wakeup_new": _WAKEUP, "sched_waking": _WAKEUP,
    "sched_migrate_task": {"pid": _I32, "prio": _I32, "orig_cpu": _I32, "dest_cpu": _I32},
    "sched_process_exit": {"pid": _I32, "prio": _I32}, "sched_process_free": {"pid": _I32, "prio": _I32},
    "sched_process_wait": {"pid": _I32, "prio": _I32},
    "sched_process_fork": {"parent_pid": _I32, "child_pid": _I32},
    "sched_stat_runtime": {"pid": _I32, "runtime": _U64, "vruntime": _U64},
    "cpu_frequency": {"state": _U32, "cpu_id": _U32},
    "cpu_idle": {"state": _U32, "cpu_id": _U32},
    "cpu_frequency_limits": {"min_freq": _U32, "max_freq": _U32, "cpu_id": _U32},
}


def _kernel_width(event: str, field: str, col):
    """``col`` in the kernel's width for ``event.field`` when known and every value fits."""
    want = _KERNEL_WIDTHS.get(event, {}).get(field)
    if want is None or not isinstance(col, np.ndarray) or col.dtype.kind not in "iu" or col.dtype == want:
        return col
    info = np.iinfo(want)
    if len(col) and (col.min() < info.min or col.max() > info.max):
        return col
    return col.astype(want)
_FAILED = "[FAILED TO PARSE]"


def _split_kv(payload: str):
    """``key=value ...`` -> dict, or None when the payload is not key=value."""
    keys = list(_KEY.finditer(payload))
    if not keys:
        return None
    out = {}
    prefix = payload[:keys[0].start()].strip()
    if prefix:
        if " " in prefix:
            return None
        out["__prefix"] = prefix      # "%s key=value..." formats, e.g. clock_set_rate's name
    for i, m in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(payload)
        out[m.group(1)] = payload[m.end():end].strip()
    return out


def _print_fields(event: str, payload: str) -> dict:
    text_field = _PRINT_LIKE[event]
    if event == "tracing_mark_write":
        return {"ip": "tracing_mark_write", "buf": payload.rstrip("\n")}
    if payload.startswith("ip="):
        m = re.match(r"ip=(\S*)\s+(?:fmt=\S*\s+)?(?:buf|str)=(.*)$", payload, re.S)
        if m:
            return {"ip": m.group(1), text_field: m.group(2)}
    ip, sep, text = payload.partition(": ")
    if not sep or " " in ip:
        return {"ip": "", text_field: payload}
    return {"ip": ip, text_field: text}


def _typed(values: list):
    """Convert a column of strings to int64/uint64/float64 when every value allows it."""
    if any(v is None for v in values):
        return pd.Categorical(values)
    try:
        ints = [int(v) for v in values]
    except ValueError:
        if all(v[:2] in ("0x", "0X") for v in values):
            try:
                ints = [int(v, 16) for v in values]
            except ValueError:
                ints = None
        else:
            ints = None
    if ints is not None:
        try:
            return np.array(ints, dtype=np.int64)
        except OverflowError:
            try:
                return np.array(ints, dtype=np.uint64)
            except OverflowError:
                return pd.Categorical(values)
    try:
        return np.array([float(v) for v in values], dtype=np.float64)
    except ValueError:
        return pd.Categorical(values)


class _EventRows:
    __slots__ = ("ts", "cpu", "pid", "comm", "fields", "n")

    def __init__(self):
        self.ts, self.cpu, self.pid, self.comm = [], [], [], []
        self.fields: dict = defaultdict(list)
        self.n = 0

    def add(self, ts, cpu, pid, comm, values: dict):
        for k, v in values.items():
            col = self.fields[k]
            if len(col) < self.n:
                col.extend([None] * (self.n - len(col)))
            col.append(v)
        self.ts.append(ts)
        self.cpu.append(cpu)
        self.pid.append(pid)
        self.comm.append(comm)
        self.n += 1

    def frame(self, event: str = "") -> pd.DataFrame:
        ts = np.array(self.ts, dtype=np.int64)
        cols = {"__ts": ts, "__cpu": np.array(self.cpu, dtype=np.int32),
                "__pid": np.array(self.pid, dtype=np.int32), "__comm": pd.Categorical(self.comm)}
        for k, v in self.fields.items():
            if len(v) < self.n:
                v.extend([None] * (self.n - len(v)))
            if k in ("buf", "str", "ip", "__payload", "__prefix"):
                cols[k] = pd.Categorical(v)
            else:
                cols[k] = _kernel_width(event, k, _typed(v))
        df = pd.DataFrame(cols)
        df.index = pd.Index(ts / 1e9, name="Time")
        if len(df) > 1 and not df.index.is_monotonic_increasing:
            df = df.sort_values("__ts", kind="stable")
        return df


def _ts_ns(text: str) -> int:
    sec, _, frac = text.partition(".")
    return int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])


def parse_text_lines(lines, source: str, strict: bool = False, first_line: int = 1):
    """Parse ftrace text lines into ``({event: DataFrame}, info, SkipReport)``.

    ``info`` has ``cpus`` (from a ``cpus=N`` header, else the highest CPU seen + 1) and
    ``tgid`` (whether a TGID column was present).
    """
    skips = SkipReport(source, unit="line")
    rows: dict = defaultdict(_EventRows)
    cpus_hdr = None
    max_cpu = -1
    last_ts = None
    prev = None           # (rows, field) of the last print-like event, for continuation lines
    tgid_seen = False
    for lineno, line in enumerate(lines, first_line):
        line = line.rstrip("\r\n")
        m = _LINE.match(line)
        if m is None:
            if _HEADER.match(line):
                hm = re.match(r"^\s*cpus=(\d+)", line)
                if hm:
                    cpus_hdr = int(hm.group(1))
                prev = None
                continue
            lm = _LOST.match(line)
            if lm:
                skips.add("lost_events", int(lm.group(2) or 0), lineno)
                continue
            if prev is not None:      # a print payload with a newline runs over two lines
                rws, fld = prev
                rws.fields[fld][-1] += "\n" + line
                continue
            skips.add("unparsed_line", 1, lineno, line[:80])
            if strict:
                skips.raise_if_any()
            continue
        event = m.group("event")
        payload = m.group("payload").lstrip(" ")
        ts = _ts_ns(m.group("ts"))
        cpu = int(m.group("cpu"))
        max_cpu = max(max_cpu, cpu)
        tgid_seen = tgid_seen or m.group("tgid") is not None
        if last_ts is not None and ts < last_ts:
            skips.add("unsorted_lines", 1, lineno, "timestamps go backwards; events are sorted")
        last_ts = ts
        prev = None
        if event in _PRINT_LIKE:
            values = _print_fields(event, payload)
            if event == "tracing_mark_write":
                event = "print"
            prev_field = _PRINT_LIKE.get(event, "buf")
        else:
            if payload.startswith(_FAILED):
                skips.add("failed_to_parse", 1, lineno, line[:80])
                payload = payload[len(_FAILED):].lstrip()
            values = None
            if event == "sched_switch":
                cm = _COMPACT_SWITCH.match(payload)
                if cm:
                    values = cm.groupdict()
                else:
                    payload = payload.replace(" ==> ", " ")
            if values is None:
                values = _split_kv(payload)
            if values is None:
                skips.add("payload_not_key_value", 1, lineno, f"{event}: {payload[:60]}")
                values = {"__payload": payload}
            prev_field = None
        r = rows[event]
        r.add(ts, cpu, int(m.group("pid")), m.group("comm").strip(), values)
        if prev_field is not None:
            prev = (r, prev_field)
        if strict and skips.total:
            skips.raise_if_any()
    dfs = {e: r.frame(e) for e, r in rows.items()}
    info = {"cpus": cpus_hdr if cpus_hdr is not None else max_cpu + 1, "tgid": tgid_seen}
    return dfs, info, skips


def read_text(path, strict: bool = False):
    """Read a ``trace-cmd report`` / tracefs ``trace`` text file.

    Returns ``({event: DataFrame}, metadata, SkipReport)``.
    """
    try:
        with open(path, "r", encoding="utf-8", errors="replace", newline="") as fh:
            head = fh.read(4096)
            fh.seek(0)
            dfs, info, skips = parse_text_lines(fh, str(path), strict)
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror})") from None
    if not dfs and skips.count("unparsed_line"):
        raise TraceError(f"{path}: line {skips.entries['unparsed_line']['first']}: no ftrace event "
                         "line found; this is not a trace-cmd report / tracefs trace text file")
    fmt = "trace-cmd report text" if re.search(r"^(version = \d+|cpus=\d+)", head, re.M) \
        else "ftrace text"
    meta = {"source": str(path), "format": fmt, "clock": None, "cpus": info["cpus"],
            "kernel_version": None, "event_counts": {e: len(d) for e, d in dfs.items()},
            "lost_events": skips.count("lost_events")}
    return dfs, meta, skips
