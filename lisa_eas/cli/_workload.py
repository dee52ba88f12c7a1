"""``lisa-eas workload``: show, check and create rt-app workloads."""
from __future__ import annotations

import sys

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("workload", help="show, check or create rt-app workload JSON files",
                       description="Show an rt-app workload (tasks, phases, expected duty cycles), "
                                   "check files (exit 0 = valid), or write a new periodic/ramp/step "
                                   "workload.")
    ws = p.add_subparsers(dest="action", metavar="ACTION")
    ws.required = True

    s = ws.add_parser("show", help="tasks, phases and expected duty cycles of a workload")
    s.add_argument("file")
    s.add_argument("--format", choices=["table", "json"], default="table")
    s.set_defaults(func=_show)

    c = ws.add_parser("check", help="validate workload files (errors give file:line:column and key)")
    c.add_argument("files", nargs="+")
    c.add_argument("--strict", action="store_true",
                   help="also fail on unknown keys and on what Debian's rt-app 1.0 would ignore")
    c.set_defaults(func=_check)

    n = ws.add_parser("new", help="write a periodic, ramp or step workload")
    n.add_argument("kind", choices=["periodic", "ramp", "step"])
    n.add_argument("-o", "--output", help="output file (default: stdout)")
    n.add_argument("--name", default=None, help="task name (default: the kind)")
    n.add_argument("--period-ms", type=float, default=16.0)
    n.add_argument("--duty", type=float, default=None,
                   help="periodic: duty cycle %% (default 20)")
    n.add_argument("--duration-s", type=float, default=1.0,
                   help="periodic: length; ramp: per step; step: per level")
    n.add_argument("--start", type=float, default=10.0, help="ramp: first duty cycle %%")
    n.add_argument("--stop", type=float, default=90.0, help="ramp: last duty cycle %%")
    n.add_argument("--step", type=float, default=None, help="ramp: increment %% (default +/-10)")
    n.add_argument("--low", type=float, default=5.0, help="step: low duty cycle %%")
    n.add_argument("--high", type=float, default=75.0, help="step: high duty cycle %%")
    n.add_argument("--cycles", type=int, default=1, help="task loop count (step: low/high cycles)")
    n.add_argument("--tasks", type=int, default=1, help="identical threads (rt-app instance)")
    n.add_argument("--cpus", default=None, help="affinity, e.g. 4 or 0-3 or 0,2")
    n.add_argument("--policy", default=None, help="SCHED_OTHER, SCHED_FIFO, ...")
    n.add_argument("--priority", type=int, default=None)
    n.add_argument("--runtime", action="store_true",
                   help="use runtime (fixed wall time) instead of run (fixed work)")
    n.add_argument("--calibration", default="CPU0",
                   help="ns per loop (integer; skips rt-app's calibration) or CPU<n> (default CPU0)")
    n.add_argument("--logdir", default=None)
    n.set_defaults(func=_new, option_names={"duty_cycle_pct": "--duty", "period_ms": "--period-ms",
                                            "duration_s": "--duration-s"})


def _cpus(text: str | None):
    if text is None:
        return None
    from ..errors import WorkloadError

    out = []
    try:
        for part in text.split(","):
            if "-" in part:
                a, b = part.split("-")
                out += range(int(a), int(b) + 1)
            else:
                out.append(int(part))
    except ValueError:
        raise WorkloadError(f"--cpus {text!r}: write a CPU list such as 4, 0-3 or 0,2") from None
    return tuple(out)


def _calib(c) -> str:
    if isinstance(c, int):
        return f"{c} ns per loop"
    return f"{c or 'CPU0 (default)'} (rt-app measures ns per loop at start: seconds)"


def _show(args) -> int:
    from ..rtapp import read_workload

    wl = read_workload(args.file)
    rows = wl.summary_rows()
    info = {"file": args.file, "tasks": len(wl.tasks), "nominal_duration_s": wl.duration_s,
            "calibration": wl.global_settings.calibration, "phases": rows,
            "unknown_keys": [f"{w}: {k}" for w, k in wl.unknown_keys()],
            "rtapp1_warnings": wl.rtapp1_warnings()}
    if args.format == "json":
        print_json(info)
        return 0
    d = wl.duration_s
    print(f"{args.file}: {len(wl.tasks)} task(s), nominal duration "
          f"{'unknown (loops forever or waits on other threads)' if d is None else f'{d:.3f} s'}, calibration "
          f"{_calib(wl.global_settings.calibration)}")
    print(format_table(
        ["task", "inst", "task loop", "phase", "loop", "run us", "runtime us", "sleep us",
         "period us", "duty %", "phase s", "cpus"],
        [[r["task"], r["instances"], r["task_loop"], r["phase"] or "(inline)", r["loop"], r["run_us"],
          r["runtime_us"], r["sleep_us"], r["period_us"], r["duty_cycle_pct"], r["duration_s"],
          r["cpus"]] for r in rows]))
    for w, k in wl.unknown_keys():
        print(f"note: kept unknown key {k!r} ({w})")
    for w in wl.rtapp1_warnings():
        print(f"rt-app 1.0: {w}")
    return 0


def _check(args) -> int:
    from ..errors import WorkloadError
    from ..rtapp import read_workload

    bad = 0
    for f in args.files:
        try:
            wl = read_workload(f, strict=args.strict)
        except WorkloadError as exc:
            print(f"FAIL {exc}")
            bad += 1
            continue
        warns = wl.rtapp1_warnings()
        notes = [f"kept unknown key {k!r} ({w})" for w, k in wl.unknown_keys()]
        print(f"ok   {f}: {len(wl.tasks)} task(s), "
              f"{sum(len(t.phases) for t in wl.tasks)} phase(s)")
        for n in notes:
            print(f"     note: {n}")
        for w in warns:
            print(f"     rt-app 1.0: {w}")
        if args.strict and warns:
            bad += 1
    return 1 if bad else 0


def _new(args) -> int:
    from ..rtapp import periodic, ramp, step, task, workload

    cal = int(args.calibration) if str(args.calibration).isdigit() else args.calibration
    if args.kind == "periodic":
        duty = 20.0 if args.duty is None else args.duty
        phases = periodic(args.period_ms, duty, args.duration_s, name=f"dc{duty:g}".replace(".", "_"),
                          runtime=args.runtime)
    elif args.kind == "ramp":
        st = args.step if args.step is not None else (10.0 if args.stop >= args.start else -10.0)
        phases = ramp(args.start, args.stop, st, args.period_ms, args.duration_s, runtime=args.runtime)
    else:
        phases = step(args.low, args.high, args.period_ms, args.duration_s, runtime=args.runtime)
    t = task(args.name or args.kind, phases, loop=args.cycles,
             instance=args.tasks if args.tasks != 1 else None, cpus=_cpus(args.cpus),
             policy=args.policy, priority=args.priority)
    wl = workload([t], calibration=cal, logdir=args.logdir)
    if args.output:
        from ..rtapp import write_workload

        write_workload(wl, args.output)
        d = wl.duration_s
        print(f"wrote {args.output}: {sum(p.loops for p in t.phases)} activations per cycle, "
              f"nominal {d:.3f} s" if d is not None else f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(wl.to_json())
    return 0
