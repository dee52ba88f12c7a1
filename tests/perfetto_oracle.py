"""The independent Perfetto oracle: the ``perfetto`` wheel's generated schema module
(``perfetto_trace_pb2``) parsed by ``protobuf``. Nothing here imports lisa_eas."""
from __future__ import annotations

import csv
import lzma
from collections import defaultdict
from pathlib import Path

import pytest

PERFETTO_DIR = Path(__file__).resolve().parent / "data" / "traces" / "perfetto"
PIXEL = "spirals_pixel7pro_cheetah_compact_sched_power_rails.perfetto-trace"
SYSTING = "systing_x86_22cpu_compact_sched.pb"

pb2 = pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2",
                          reason="the perfetto wheel (test extra) is the Perfetto oracle")

# events whose typed protos the comparison walks, with the proto fields compared
TYPED = ("sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "cpu_frequency",
         "cpu_idle", "sched_process_exit", "sched_process_free", "task_newtask", "task_rename",
         "softirq_entry", "softirq_exit", "irq_handler_entry", "irq_handler_exit", "print",
         "sched_migrate_task", "cpu_frequency_limits")


def unpack(name: str, dest: Path) -> Path:
    out = dest / name
    if not out.exists():
        out.write_bytes(lzma.decompress((PERFETTO_DIR / f"{name}.xz").read_bytes()))
    return out


def parse(path: Path):
    t = pb2.Trace()
    t.ParseFromString(Path(path).read_bytes())
    return t


def expected_counts(name: str) -> dict[str, int]:
    out = {}
    with open(PERFETTO_DIR / "expected_event_counts.csv") as fh:
        for row in csv.DictReader(fh):
            if row["file"] == f"perfetto/{name}":
                out[row["event"]] = int(row["count"])
    return out


def _packets(trace):
    import zlib
    for p in trace.packet:
        if p.HasField("compressed_packets"):
            inner = pb2.Trace()
            inner.ParseFromString(zlib.decompress(p.compressed_packets))
            yield from inner.packet
        else:
            yield p


def oracle_events(trace) -> dict[str, list[dict]]:
    """Rows per event from the oracle: typed ftrace events (``__ts``, ``__cpu``, ``__pid``
    and every set proto field), and the compact_sched switch/waking records expanded the
    way the compact format is defined (delta timestamps, interned comms; a switch's prev_*
    is the previous switch's next_* on the same CPU)."""
    out: dict = defaultdict(list)
    cur: dict = {}
    for p in _packets(trace):
        if not p.HasField("ftrace_events"):
            continue
        b = p.ftrace_events
        for ev in b.event:
            name = ev.WhichOneof("event")
            if name not in TYPED:
                continue
            msg = getattr(ev, name)
            row = {"__ts": ev.timestamp, "__cpu": b.cpu, "__pid": ev.pid}
            for fd, val in msg.ListFields():
                row[fd.name] = val
            out[name].append(row)
        cs = b.compact_sched
        t = 0
        for i in range(len(cs.switch_timestamp)):
            t += cs.switch_timestamp[i]
            prev = cur.get(b.cpu, (-1, -1, None))
            comm = cs.intern_table[cs.switch_next_comm_index[i]]
            out["sched_switch"].append({
                "__ts": t, "__cpu": b.cpu, "prev_pid": prev[0], "prev_prio": prev[1],
                "prev_comm": prev[2], "prev_state": cs.switch_prev_state[i],
                "next_pid": cs.switch_next_pid[i], "next_prio": cs.switch_next_prio[i],
                "next_comm": comm})
            cur[b.cpu] = (cs.switch_next_pid[i], cs.switch_next_prio[i], comm)
        t = 0
        for i in range(len(cs.waking_timestamp)):
            t += cs.waking_timestamp[i]
            out["sched_waking"].append({
                "__ts": t, "__cpu": b.cpu, "pid": cs.waking_pid[i],
                "target_cpu": cs.waking_target_cpu[i], "prio": cs.waking_prio[i],
                "comm": cs.intern_table[cs.waking_comm_index[i]]})
    return dict(out)


def oracle_power_rails(trace) -> list[tuple]:
    """(rail name, timestamp_ms, energy) of every energy sample."""
    names = {}
    rows = []
    for p in _packets(trace):
        if p.HasField("power_rails"):
            for d in p.power_rails.rail_descriptor:
                names[d.index] = d.rail_name
            for e in p.power_rails.energy_data:
                rows.append((e.index, e.timestamp_ms, e.energy))
    return [(names.get(i, f"rail_{i}"), ts, en) for i, ts, en in rows]
