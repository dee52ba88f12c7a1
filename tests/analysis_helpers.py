"""Shared helpers for the analysis / validation tests: real traces unpacked once, and an
independent line-by-line oracle over ``trace-cmd report`` text (no lisa_eas reader involved)."""
from __future__ import annotations

import lzma
import re
from collections import defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
TRACES = DATA / "traces"
JUNO_WAKEUP_TXT = TRACES / "text" / "lisa_juno-r0_sched_wakeup.txt"
PIXEL2_SYSTRACE = TRACES / "systrace" / "trappy_pixel2_surfaceflinger_systrace.html"
LIVE_CAPTURE = DATA / "rtapp" / "live_capture"


def unpack(name: str, dest: Path) -> Path:
    """``tests/data/traces/dat/<name>.xz`` decompressed into ``dest``."""
    out = dest / name
    if not out.exists():
        out.write_bytes(lzma.decompress((TRACES / "dat" / (name + ".xz")).read_bytes()))
    return out


_LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):\s+"
                   r"(?P<ev>\w+):\s+(?P<rest>.*)$")


def oracle_switches(path: Path):
    """(ts, cpu, prev_pid, prev_state, next_pid) of every sched_switch, parsed naively."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        m = _LINE.match(line)
        if not m or m["ev"] != "sched_switch":
            continue
        kv = dict(re.findall(r"(\w+)=(\S+)", m["rest"]))
        out.append((float(m["ts"]), int(m["cpu"]), int(kv["prev_pid"]), kv["prev_state"], int(kv["next_pid"])))
    return out


def oracle_running_time(path: Path):
    """pid -> {cpu: seconds running}, from consecutive switches per CPU (last run cut at the
    trace's last event)."""
    sw = oracle_switches(path)
    last_ts = max(float(m["ts"]) for m in map(_LINE.match, path.read_text(errors="replace").splitlines()) if m)
    by_cpu = defaultdict(list)
    for ev in sw:
        by_cpu[ev[1]].append(ev)
    run = defaultdict(lambda: defaultdict(float))
    for cpu, evs in by_cpu.items():
        for k, ev in enumerate(evs):
            end = evs[k + 1][0] if k + 1 < len(evs) else last_ts
            run[ev[4]][cpu] += end - ev[0]
    return run


def oracle_wakeups(path: Path):
    out = []
    for line in path.read_text(errors="replace").splitlines():
        m = _LINE.match(line)
        if m and m["ev"] in ("sched_wakeup", "sched_wakeup_new"):
            kv = dict(re.findall(r"(\w+)=(\S+)", m["rest"]))
            out.append((float(m["ts"]), int(kv["pid"]), int(kv["target_cpu"])))
    return out
