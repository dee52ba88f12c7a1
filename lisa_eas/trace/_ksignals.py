"""The kernel-signals file (``kernel_signals.bin``) written by the BPF collector
(``lisa_eas/target/bpf``), decoded into trace events.

The file is a 64-byte header (``LEKSIG``, format version, record size, possible CPUs,
CLOCK_MONOTONIC and CLOCK_REALTIME at start) then fixed-size records (``struct
ks_record`` of ``kernel_signals.h``), appended whole as the collector drains its ring
buffer; a torn last record (collector killed mid-write) is reported in the trace's
``skipped`` and left out. Records become events named as LISA's kernel-module events
without the ``lisa__`` prefix, with LISA's field names, plus the rq clocks sampled with
each record (``clock``, ``clock_task``, ``clock_pelt``, ``lost_idle_time``,
``prev_steal_time_rq``) and the PELT sums:

=====================  ==========================================================
event                  fields
=====================  ==========================================================
sched_pelt_se          cpu, path, comm, pid, load, runnable, util, update_time
sched_pelt_cfs         cpu, path, load, runnable, util, update_time
sched_pelt_rt/dl/irq   cpu, util, update_time
sched_util_est_se      cpu, path, comm, pid, enqueued, ewma, util
sched_util_est_cfs     cpu, path, enqueued, ewma, util
sched_overutilized     overutilized, span
sched_cpu_capacity     cpu, capacity
=====================  ==========================================================

Times are the record's ``bpf_ktime_get_ns()``: CLOCK_MONOTONIC, ftrace's ``mono`` clock,
so they line up with a trace recorded with ``trace_clock=mono``.

util_est: since v6.8 one u32 (the EWMA, ``UTIL_AVG_UNCHANGED`` in bit 31); ``ewma`` is it
without the flag, and ``enqueued`` is the same value (the task's ``_task_util_est()``, which
is what the cfs_rq sums). Before v6.8, ``{enqueued, ewma}`` with the flag in ``enqueued``
(bit 0 before v5.13, bit 31 after). ``util_est_raw`` keeps the raw field.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import TraceError
from ._skips import SkipReport

__all__ = ["KS_EVENTS", "KS_RECORD", "read_kernel_signals", "signals_summary"]

MAGIC = b"LEKSIG\0\0"
HEADER_SIZE = 64
FORMAT_VERSION = 1

#: numpy view of ``struct ks_record`` (kernel_signals.h)
KS_RECORD = np.dtype([
    ("ts", "<u8"), ("clock", "<u8"), ("clock_task", "<u8"), ("clock_pelt", "<u8"),
    ("lost_idle_time", "<u8"), ("prev_steal_time_rq", "<u8"), ("last_update_time", "<u8"),
    ("load_sum", "<u8"), ("runnable_sum", "<u8"), ("load_avg", "<u8"), ("runnable_avg", "<u8"),
    ("util_avg", "<u8"), ("util_est", "<u8"), ("weight", "<u8"), ("util_sum", "<u4"),
    ("period_contrib", "<u4"), ("cpu", "<i4"), ("pid", "<i4"), ("kind", "<u2"), ("flags", "<u2"),
    ("value", "<u4"), ("value2", "<u4"), ("pad", "<u4"), ("comm", "S16"), ("path", "S32")])
assert KS_RECORD.itemsize == 192

F_TASK, F_ROOT, F_UE_PAIR, F_NO_STEAL, F_NO_RQ = 0x1, 0x2, 0x4, 0x8, 0x10

#: record kind -> event name
KS_EVENTS = ("sched_pelt_se", "sched_pelt_cfs", "sched_pelt_rt", "sched_pelt_dl", "sched_pelt_irq",
             "sched_util_est_se", "sched_util_est_cfs", "sched_overutilized", "sched_cpu_capacity")
_CLOCKS = ("clock", "clock_task", "clock_pelt", "lost_idle_time", "prev_steal_time_rq")
_SUMS = ("load_sum", "runnable_sum", "util_sum", "period_contrib")


def _header(path: Path, head: bytes) -> dict:
    if len(head) < HEADER_SIZE or head[:8] != MAGIC:
        raise TraceError(f"{path}: not a kernel-signals file (no LEKSIG header); it is written by "
                         f"`lisa-eas signals record` or `lisa-eas run --kernel-signals`")
    version, rsize, ncpu, _ = np.frombuffer(head, "<u4", 4, 8)
    mono, real = np.frombuffer(head, "<u8", 2, 24)
    if version != FORMAT_VERSION or rsize != KS_RECORD.itemsize:
        raise TraceError(f"{path}: kernel-signals format {version} with {rsize}-byte records; this "
                         f"lisa_eas reads format {FORMAT_VERSION} ({KS_RECORD.itemsize} bytes). Fix: "
                         f"read it with the lisa_eas version that recorded it")
    return {"format": int(version), "possible_cpus": int(ncpu), "mono_start_ns": int(mono),
            "realtime_start_ns": int(real)}


def _strings(col: np.ndarray) -> pd.Categorical:
    return pd.Categorical(np.char.decode(col, "utf-8", "replace"))


def _frame(rec: np.ndarray, cols: dict) -> pd.DataFrame:
    ts = rec["ts"].astype(np.int64)
    df = pd.DataFrame({"__ts": ts, "__cpu": rec["cpu"].astype(np.int32),
                       "__pid": rec["pid"].astype(np.int32),
                       "__comm": _strings(rec["comm"]) if "comm" in cols else
                       pd.Categorical(np.full(len(rec), "", dtype=object)), **cols},
                      index=pd.Index(ts / 1e9, name="Time"))
    return df


def _util_est(rec: np.ndarray, cfs: bool) -> tuple[np.ndarray, np.ndarray]:
    raw = rec["util_est"].astype(np.uint64)
    pair = (rec["flags"] & F_UE_PAIR) != 0
    lo = (raw & 0xFFFFFFFF).astype(np.int64)
    hi = (raw >> 32).astype(np.int64)
    # v6.8+: one field; before: enqueued (low word, flag in bit 0 or 31) and ewma (high word)
    single = lo & 0x7FFFFFFF
    enq = np.where(pair, lo if cfs else lo & 0x7FFFFFFF, single)
    ewma = np.where(pair, hi, single)
    return enq.astype(np.uint32), ewma.astype(np.uint32)


def _decode(rec: np.ndarray) -> dict[str, pd.DataFrame]:
    out = {}
    kinds = rec["kind"]
    for k, name in enumerate(KS_EVENTS):
        r = rec[kinds == k]
        if not len(r):
            continue
        cols: dict = {}
        if name in ("sched_pelt_se", "sched_util_est_se", "sched_pelt_cfs", "sched_util_est_cfs",
                    "sched_pelt_rt", "sched_pelt_dl", "sched_pelt_irq", "sched_cpu_capacity"):
            cols["cpu"] = r["cpu"].astype(np.int32)
        if name in ("sched_pelt_se", "sched_util_est_se", "sched_pelt_cfs", "sched_util_est_cfs"):
            cols["path"] = _strings(r["path"])
        if name in ("sched_pelt_se", "sched_util_est_se"):
            cols["comm"] = _strings(r["comm"])
            cols["pid"] = r["pid"].astype(np.int32)
        if name in ("sched_pelt_se", "sched_pelt_cfs"):
            cols["load"] = r["load_avg"].astype(np.uint64)
            cols["runnable"] = r["runnable_avg"].astype(np.uint64)
        if name.startswith("sched_pelt"):
            cols["util"] = r["util_avg"].astype(np.uint64)
            cols["update_time"] = r["last_update_time"].astype(np.uint64)
            for c in _SUMS:
                cols[c] = r[c]
        if name.startswith("sched_util_est"):
            enq, ewma = _util_est(r, cfs=name.endswith("cfs"))
            cols["enqueued"] = enq
            cols["ewma"] = ewma
            cols["util"] = r["util_avg"].astype(np.uint64)
            cols["util_est_raw"] = r["util_est"]
            cols["update_time"] = r["last_update_time"].astype(np.uint64)
        if name in ("sched_pelt_se", "sched_util_est_se"):
            cols["weight"] = r["weight"]
        if name == "sched_overutilized":
            cols["overutilized"] = r["value"].astype(np.int32)
            cols["span"] = pd.Categorical([_cpulist(int(v)) for v in r["value2"]])
        if name == "sched_cpu_capacity":
            cols["capacity"] = r["value"].astype(np.uint64)
        if name != "sched_overutilized":
            for c in _CLOCKS:
                cols[c] = r[c]
            cols["is_root"] = ((r["flags"] & F_ROOT) != 0)
        df = _frame(r, cols)
        if name not in ("sched_pelt_se", "sched_util_est_se"):
            df["__comm"] = pd.Categorical(np.full(len(df), "", dtype=object))
        out[name] = df.sort_index(kind="stable")
    return out


def _cpulist(mask: int) -> str:
    cpus = [i for i in range(32) if mask >> i & 1]
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)


def signals_summary(path: str | Path) -> dict | None:
    """The collector's JSON summary next to a kernel-signals file (``<file>.json``), or None."""
    p = Path(str(path) + ".json") if not str(path).endswith(".json") else Path(path)
    if not p.is_file():
        p = Path(path).with_suffix(".json")
    try:
        return json.loads(p.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def read_kernel_signals(path: str | Path, events=None, skipped: SkipReport | None = None
                        ) -> tuple[dict[str, pd.DataFrame], dict]:
    """Decode a kernel-signals file into ``{event: DataFrame}`` and its metadata.

    Parameters
    ----------
    path : path
        ``kernel_signals.bin``.
    events : iterable of str, optional
        Only these events.
    skipped : SkipReport, optional
        Where a torn last record and the collector's ring-buffer drops are reported
        (``kernel_signals_torn_record``, ``kernel_signals_dropped``).

    Returns
    -------
    (dict, dict)
        The frames and ``{"format", "possible_cpus", "mono_start_ns", "records", "summary"}``.

    Raises
    ------
    TraceError
        Not a kernel-signals file, or another format version.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceError(f"{path}: cannot read the kernel-signals file ({exc.strerror})") from exc
    meta = _header(path, data[:HEADER_SIZE])
    body = memoryview(data)[HEADER_SIZE:]
    n, torn = divmod(len(body), KS_RECORD.itemsize)
    if torn and skipped is not None:
        skipped.add("kernel_signals_torn_record", 1, HEADER_SIZE + n * KS_RECORD.itemsize,
                    f"{path.name}: the collector stopped mid-record; {torn} trailing bytes ignored")
    rec = np.frombuffer(body[:n * KS_RECORD.itemsize], KS_RECORD) if n else np.zeros(0, KS_RECORD)
    wanted = None if events is None else set(events)
    if wanted is not None:
        keep = [k for k, e in enumerate(KS_EVENTS) if e in wanted]
        rec = rec[np.isin(rec["kind"], keep)]
    frames = _decode(rec)
    summary = signals_summary(path)
    if summary and skipped is not None and summary.get("dropped"):
        per = summary.get("dropped_per_cpu") or []
        skipped.add("kernel_signals_dropped", int(summary["dropped"]), -1,
                    f"the BPF ring buffer was full: records dropped per CPU {per}; raise "
                    f"kernel_signals ringbuf_kb")
    meta.update(records=int(n), summary=summary)
    return frames, meta
