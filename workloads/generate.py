#!/usr/bin/env python3
"""Generate the rt-app workloads of the published experiments (see README.md here).

    python workloads/generate.py           # (re)write every file
    python workloads/generate.py --check   # exit 1 if a committed file differs

The files are built from ``lisa_eas.rtapp`` builders only; tests/test_rtapp_workloads.py
checks that regenerating gives exactly the committed files.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Policy, identical_tasks, periodic, ramp, step, task, workload

HERE = Path(__file__).resolve().parent

# The 16 sched-freq rt-app cases: (busy ms, idle ms, loops), from Steve Muckle,
# "sched-freq: integrating the scheduler and cpufreq", Linaro Connect BKK16-104 (2016).
SCHEDFREQ_CASES = [
    (1, 100, 100), (10, 1000, 10), (1, 10, 1000), (10, 100, 100), (100, 1000, 10),
    (6, 33, 300), (66, 333, 30), (4, 10, 1000), (40, 100, 100), (400, 1000, 10),
    (5, 9, 1000), (50, 90, 100), (500, 900, 10), (9, 12, 1000), (90, 120, 100),
    (900, 1200, 10),
]


def biggest_cpu(board: str) -> int:
    """Lowest-numbered CPU of the highest capacity on ``board`` (where rt-app should calibrate)."""
    plat = load_platform(board)
    return min(range(plat.nr_cpus), key=lambda c: (-plat.cpu_capacity(c), c))


def eas_speedup_ramp():
    # commit eb92692b (v5.4), Pixel 3: one periodic task, 16 ms period, 70% -> 10% in 5%
    # steps of 500 ms; calibrated on a big CPU (frequencies pinned to max in the test).
    cpu = biggest_cpu("pixel3")
    return workload([task("ramp", ramp(70, 10, -5, period_ms=16, step_s=0.5))],
                    calibration=f"CPU{cpu}")


def ramp_boost_step():
    # RFC v3 "sched/cpufreq: Make schedutil energy aware" reply (Oct 2019), Pixel 3: one task
    # pinned on a big CPU, 0.3 s at 5% then 0.3 s at 75%, 20 cycles (16 ms period).
    cpu = biggest_cpu("pixel3")
    return workload([task("step", step(5, 75, period_ms=16, low_s=0.3), loop=20, cpus=(cpu,))],
                    calibration=f"CPU{cpu}")


def eas_rfc_energy(board: str, n: int):
    # EAS RFC v2 cover letter (Apr 2018): N periodic tasks, 16 ms period, 5% duty cycle, 30 s.
    cpu = biggest_cpu(board)
    return workload(identical_tasks(n, "small", periodic(16, 5, duration_s=30)),
                    calibration=f"CPU{cpu}")


def schedfreq_case(busy_ms: int, idle_ms: int, loops: int, rt: bool):
    # BKK16-104: busy then idle, as run + timer so an overrun shows as negative slack.
    period = busy_ms + idle_ms
    phases = periodic(period, 100.0 * busy_ms / period, loops=loops, name="busy_idle")
    t = task("sf", phases, policy=Policy.FIFO if rt else None)
    return workload([t], calibration=f"CPU{biggest_cpu('peach_pi')}")


def smoke_local():
    # ~2 s on this 2-CPU machine; integer calibration (ns per loop measured here: 18-20).
    per = periodic(16, 25, duration_s=2.0, name="dc25")
    rmp = ramp(10, 50, 20, period_ms=16, step_s=0.64)
    return workload([task("smk_per", per), task("smk_rmp", rmp)], calibration=20)


def build_all() -> dict[str, str]:
    """Relative path -> JSON text of every generated workload."""
    out = {"eas_speedup_ramp.json": eas_speedup_ramp().to_json(),
           "ramp_boost_step.json": ramp_boost_step().to_json(),
           "smoke_local.json": smoke_local().to_json()}
    for board in ("hikey960", "juno_r0"):
        for n in (10, 20, 30, 40, 50):
            out[f"eas_rfc_energy/{board}_n{n}.json"] = eas_rfc_energy(board, n).to_json()
    for i, (busy, idle, loops) in enumerate(SCHEDFREQ_CASES, 1):
        for rt in (False, True):
            out[f"schedfreq/case{i:02d}_{'rt' if rt else 'cfs'}.json"] = \
                schedfreq_case(busy, idle, loops, rt).to_json()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args(argv)
    files = build_all()
    differ = []
    for rel, text in files.items():
        p = HERE / rel
        if args.check:
            if not p.is_file() or p.read_text() != text:
                differ.append(rel)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    if args.check:
        for rel in differ:
            print(f"differs: workloads/{rel}", file=sys.stderr)
        return 1 if differ else 0
    print(f"wrote {len(files)} workloads under {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
