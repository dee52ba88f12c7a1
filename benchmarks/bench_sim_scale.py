"""Scale benchmark of the simulator: server-sized LLCs and many tasks.

Two series, each case in its own fresh process (so the peak RSS is that case's):

* **CPUs**: 8, 32 and 112 CPUs sharing one LLC with no cpufreq and no Energy Model (the
  bundled ``x86_llc112`` and the same board cut to 8 and 32 CPUs: fixed frequency, EAS off,
  SIS_UTIL idle search, see ``docs/guide/simulate.md``) at a constant load per CPU: 6.25
  tasks per CPU (50 / 200 / 700 tasks), each 8 % of a 16 ms period, i.e. ~50 % per CPU,
  start times spread over a period (``start_jitter_us``).
* **tasks**: HiKey960 (EAS, schedutil, the default ``SimConfig``) with 10 to 1000 tasks of
  5 % of 16 ms each (the ``bench_sim.py`` task; from 200 tasks on the board is overloaded).

For each case, ``--seconds`` simulated (default 10): the event loop (``build_run`` +
``run_loop``, its output tables written) and the full call (``simulate()`` returning the Trace
with every DataFrame built), each timed in CPU seconds (steady on a shared machine), giving
the real-time factor (simulated s per CPU s), the ns per simulated event of the loop, and
the peak RSS of the process after the loop and after the full call. Then the fitted
exponent ``b`` of loop cost per simulated second ~ CPUs^b over the CPU series (least squares
in log-log), and the same for ns per event.

Targets (issue 21): 112 CPUs / 700 tasks >= 100x real time (loop) and >= 30x (full call),
<= 1 GB; exponent <= 1.1; the 8-CPU workload no slower than before.

Prints a table and ONE JSON line. Usage:
``python benchmarks/bench_sim_scale.py [--seconds S] [--cpus 8,32,112] [--tasks 10,100,1000]``
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, resource, sys, time
from dataclasses import replace
from lisa_eas import SimConfig, simulate
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim._compile import compile_workload
from lisa_eas.sim._engine import build_run, run_loop
from lisa_eas.sim._fixed import plan_platform

kind, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
if kind == "cpus":
    x86 = load_platform("x86_llc112")
    board = x86 if n == x86.nr_cpus else replace(x86, name=f"x86_llc{n}", nr_cpus=n, llc_weight=n)
    nt = n * 25 // 4
    duty = 8
else:
    board = load_platform("hikey960")
    nt = n
    duty = 5
wl = workload([task(f"t{i}", periodic(16, duty, duration_s=seconds)) for i in range(nt)], calibration=100)
config = SimConfig(duration_s=seconds, start_jitter_us=16000, seed=1)
plat, cfg, _ = plan_platform(board, config)
compiled = compile_workload(wl, plat.nr_cpus)
S, P, O, m = build_run(plat, compiled, cfg, int(0.01 * 1e9))
run_loop(S, P, O, m)                                   # compiled loop loaded (cached on disk)
S, P, O, m = build_run(plat, compiled, cfg, int(seconds * 1e9))
c0 = time.process_time()
raw = run_loop(S, P, O, m, known_end=True)            # as simulate() runs it (a duration is set)
loop_cpu = time.process_time() - c0
events = int(len(raw.events))
del raw, S, P, O
rss_loop = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
c0 = time.process_time()
tr = simulate(board, wl, config=config)
rows = sum(len(tr.df(e)) for e in tr.events)
full_cpu = time.process_time() - c0
rss_full = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"kind": kind, "cpus": plat.nr_cpus, "tasks": nt, "seconds": seconds, "events": events,
                  "loop_cpu_s": loop_cpu, "full_cpu_s": full_cpu, "rows": rows,
                  "rss_after_loop_mb": rss_loop / 2**20, "rss_peak_mb": rss_full / 2**20,
                  "placement": cfg.placement, "governor": cfg.governor}))
"""


def _case(kind: str, n: int, seconds: float) -> dict:
    p = subprocess.run([sys.executable, "-c", _CHILD, kind, str(n), str(seconds)], cwd=ROOT,
                       capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"case {kind}={n} failed:\n{p.stderr[-3000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["rt_loop"] = round(seconds / r["loop_cpu_s"], 2)
    r["rt_full"] = round(seconds / r["full_cpu_s"], 2)
    r["ns_per_event"] = round(r["loop_cpu_s"] * 1e9 / max(r["events"], 1), 1)
    for k in ("loop_cpu_s", "full_cpu_s", "rss_after_loop_mb", "rss_peak_mb"):
        r[k] = round(r[k], 3 if k.endswith("_s") else 1)
    return r


def _slope(xs, ys) -> float:
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--cpus", default="8,32,112")
    ap.add_argument("--tasks", default="10,100,1000")
    args = ap.parse_args()
    cpus = [int(x) for x in args.cpus.split(",") if x]
    tasks = [int(x) for x in args.tasks.split(",") if x]
    rows = [_case("cpus", n, args.seconds) for n in cpus] + [_case("tasks", n, args.seconds) for n in tasks]
    print(f"{'series':6s} {'CPUs':>5s} {'tasks':>6s} {'events':>10s} {'RT loop':>8s} {'RT full':>8s} "
          f"{'ns/event':>9s} {'RSS loop MB':>12s} {'RSS peak MB':>12s}")
    for r in rows:
        print(f"{r['kind']:6s} {r['cpus']:5d} {r['tasks']:6d} {r['events']:10d} {r['rt_loop']:7.1f}x "
              f"{r['rt_full']:7.1f}x {r['ns_per_event']:9.1f} {r['rss_after_loop_mb']:12.0f} {r['rss_peak_mb']:12.0f}")
    out = {"benchmark": "sim_scale", "seconds": args.seconds, "cases": rows}
    series = [r for r in rows if r["kind"] == "cpus"]
    if len(series) >= 2:
        xs = [r["cpus"] for r in series]
        out["exponent_loop_cost_vs_cpus"] = round(_slope(xs, [r["loop_cpu_s"] for r in series]), 3)
        out["exponent_ns_per_event_vs_cpus"] = round(_slope(xs, [r["ns_per_event"] for r in series]), 3)
        out["exponent_full_cost_vs_cpus"] = round(_slope(xs, [r["full_cpu_s"] for r in series]), 3)
        print(f"loop cost per simulated second ~ CPUs^{out['exponent_loop_cost_vs_cpus']}, "
              f"ns per event ~ CPUs^{out['exponent_ns_per_event_vs_cpus']}, "
              f"full call ~ CPUs^{out['exponent_full_cost_vs_cpus']}")
    big = next((r for r in series if r["cpus"] == 112), None)
    if big:
        out["targets"] = {"rt_loop_112": 100, "rt_full_112": 30, "rss_mb_112": 1024, "exponent": 1.1}
        out["targets_met"] = {"rt_loop_112": big["rt_loop"] >= 100, "rt_full_112": big["rt_full"] >= 30,
                              "rss_mb_112": big["rss_peak_mb"] <= 1024,
                              "exponent": out.get("exponent_loop_cost_vs_cpus", 99) <= 1.1}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
