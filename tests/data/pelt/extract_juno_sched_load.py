"""Extract the events the PELT validation needs from the Juno r0 sched_load trace.

Usage: python extract_juno_sched_load.py TRACE.dat > juno_r0_sched_load_events.csv

Runs ``trace-cmd report -t`` (nanosecond timestamps) and keeps, one CSV row per event:
sched_switch, sched_load_se of tasks (path "(null)", pid > 0), sched_load_cfs_rq (time and
CPU only), sched_migrate_task and cpu_frequency. Columns: ts_ns, event, event_cpu, a, b, c,
d, e (meaning per event, see ``parse_report``). Used by tests/test_models_pelt_trace.py.
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys

LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):\s+"
                  r"(?P<event>\w+):\s+(?P<body>.*)$")
SWITCH = re.compile(r".*:(?P<prev_pid>\d+) \[\d+\] (?P<prev_state>\S+) ==> .*:(?P<next_pid>\d+) \[\d+\]$")
FIELDS = re.compile(r"(\w+)=(\S+)")


def trace_cmd_report(path: str) -> str:
    return subprocess.run(["trace-cmd", "report", "-t", path], capture_output=True, text=True,
                          check=True).stdout


def parse_report(text: str) -> list[tuple]:
    """Rows ``(ts_ns, event, event_cpu, a, b, c, d, e)``:

    sched_switch: a=prev_pid, b=prev_state, c=next_pid; sched_load_se: a=cpu, b=pid, c=load,
    d=util; sched_load_cfs_rq: a=cpu; sched_migrate_task: a=pid, b=orig_cpu, c=dest_cpu;
    cpu_frequency: a=cpu_id, b=state (kHz).
    """
    rows = []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        ts = int(m["ts"].replace(".", ""))
        ev, body, ecpu = m["event"], m["body"], int(m["cpu"])
        if ev == "sched_switch":
            s = SWITCH.match(body)
            rows.append((ts, ev, ecpu, int(s["prev_pid"]), s["prev_state"], int(s["next_pid"]), "", ""))
            continue
        f = dict(FIELDS.findall(body))
        if ev == "sched_load_se":
            if f["path"] == "(null)" and int(f["pid"]) > 0:
                rows.append((ts, ev, ecpu, int(f["cpu"]), int(f["pid"]), int(f["load"]), int(f["util"]), ""))
        elif ev == "sched_load_cfs_rq":
            rows.append((ts, ev, ecpu, int(f["cpu"]), "", "", "", ""))
        elif ev == "sched_migrate_task":
            rows.append((ts, ev, ecpu, int(f["pid"]), int(f["orig_cpu"]), int(f["dest_cpu"]), "", ""))
        elif ev == "cpu_frequency":
            rows.append((ts, ev, ecpu, int(f["cpu_id"]), int(f["state"]), "", "", ""))
    return rows


def main(argv: list[str]) -> int:
    rows = parse_report(trace_cmd_report(argv[1]))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["ts_ns", "event", "event_cpu", "a", "b", "c", "d", "e"])
    w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
