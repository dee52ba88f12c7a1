"""``lisa-eas reproduce NAME|all``: the published tables beside the reproduced ones, claims checked.

Exit code 0 when every check of every experiment holds, 1 when a check fails (the output
says which and why), 2 on bad usage or input.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .._atomic import write_atomic


def register(sub) -> None:
    from ..repro import EXPERIMENTS

    p = sub.add_parser("reproduce", help="reproduce a published table and check its claims",
                       description="Reproduce published experiments with the models and the simulator, print "
                                   "published and reproduced side by side with each claim checked. Exit code 1 "
                                   "when a check fails.")
    p.add_argument("name", choices=[*EXPERIMENTS, "all"], metavar="NAME|all",
                   help=f"experiment: {', '.join(EXPERIMENTS)}, or all")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="table (default), csv, or json (one JSON object per experiment, one per line)")
    p.add_argument("--out", help="also write NAME.json and NAME.csv per experiment into this directory")
    p.add_argument("--scheduler", help="address of a Dask scheduler (tcp://host:8786) to run the simulations on")
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores; 1: in-process)")
    p.add_argument("--write-expectations", action="store_true",
                   help="record each claim's outcome as the expected one (lisa_eas/repro/expected_outcomes.json); "
                        "commit the file to accept a changed outcome")
    p.add_argument("--check-expectations", action="store_true",
                   help="exit code 1 only when a claim's outcome differs from the recorded expectation "
                        "(instead of whenever a claim is not ok)")
    p.set_defaults(func=_run, option_names={"Sweep.workers": "--workers", "Sweep.scheduler": "--scheduler"})


def results_to_files(results, out: Path) -> None:
    """Write NAME.json and NAME.csv for each result, and summary.json, under ``out``."""
    out = Path(out)
    for r in results:
        write_atomic(out / f"{r.name}.json", r.to_json() + "\n")
        write_atomic(out / f"{r.name}.csv", r.to_csv())
    summary = {r.name: {"ok": r.ok, "checks": len(r.checks), "failed": [c.claim for c in r.checks if not c.ok],
                        "wall_time_s": r.provenance.get("wall_time_s")} for r in results}
    write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")


def _run(args) -> int:
    from ..repro import EXPERIMENTS, Sweep, reproduce

    sweep = Sweep(workers=args.workers, scheduler=args.scheduler)
    names = list(EXPERIMENTS) if args.name == "all" else [args.name]
    results = []
    for name in names:
        res = reproduce(name, sweep=sweep)
        results.append(res)
        if args.format == "json":
            sys.stdout.write(json.dumps(res.to_dict(), allow_nan=False) + "\n")
        elif args.format == "csv":
            sys.stdout.write(f"# {res.name}: {res.title}\n{res.to_csv()}\n")
        else:
            sys.stdout.write(res.to_text() + "\n\n")
        sys.stdout.flush()
    if args.out:
        results_to_files(results, Path(args.out))
    if args.format == "table" and len(results) > 1:
        print(summary_text(results))
    if args.write_expectations:
        from ..repro import write_expectations

        path = write_expectations(results)
        print(f"wrote the outcomes of {len(results)} experiment(s) to {path}", file=sys.stderr)
        return 0
    if args.check_expectations:
        from ..repro import outcome_changes

        changes = [c for r in results for c in outcome_changes(r)]
        for c in changes:
            print(f"outcome changed: {c}", file=sys.stderr)
        if changes:
            print("record intended changes with `lisa-eas reproduce all --write-expectations`", file=sys.stderr)
        return 1 if changes else 0
    return 0 if all(r.ok for r in results) else 1


def summary_text(results) -> str:
    """One line per experiment: checks passed / total and the failed claims."""
    lines = ["== summary"]
    for r in results:
        n_ok = sum(c.ok for c in r.checks)
        lines.append(f"  {r.name:22s} {n_ok}/{len(r.checks)} checks ok"
                     f"  ({r.provenance.get('wall_time_s', 0):.1f} s)")
        for c in r.checks:
            if not c.ok:
                lines.append(f"      not ok: {c.claim}")
    return "\n".join(lines)
