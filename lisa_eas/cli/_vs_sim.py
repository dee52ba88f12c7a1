"""``lisa-eas vs-sim``: a finished run on a machine against the simulator running the same workload."""
from __future__ import annotations

from ._output import print_json


def register(sub) -> None:
    p = sub.add_parser("vs-sim", help="a `lisa-eas run` directory against the simulator on the same workload",
                       description="Simulate the workload of a finished `lisa-eas run` directory (the rt-app "
                                   "JSON it ran) on the platform the run probed, at the run's kernel version, "
                                   "and print both side by side per rt-app task: activations, run time, slack, "
                                   "wake-up latency, migrations, time on each CPU; then what differs and why.")
    p.add_argument("run_dir", metavar="RUN_DIR", help="`lisa-eas run` output directory")
    p.add_argument("--era", default=None, help="kernel version to model (default: the run's kernel)")
    p.add_argument("--task", action="append", default=None, help="rt-app task to compare (repeatable; "
                                                                   "default: every task of the run)")
    p.add_argument("--as-written", action="store_true", help="simulate each 'run' as written (us at capacity "
                   "1024) instead of the loops the machine executed (the run's fastest activation)")
    p.add_argument("--csv", default=None, help="also write the table to this CSV file (atomically)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from ..repro import simulate_run

    r = simulate_run(args.run_dir, era=args.era, tasks=args.task, calibrate_from_log=not args.as_written)
    if args.csv:
        from pathlib import Path

        from .._atomic import write_atomic

        write_atomic(Path(args.csv), r.table.to_csv())
    if args.format == "json":
        t = r.table.reset_index()
        print_json({"era": r.era, "rows": t.to_dict(orient="records"), "differences": list(r.differences)})
        return 0
    print(r.to_text())
    return 0
