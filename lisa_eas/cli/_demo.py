"""``lisa-eas demo``: the main job of ``make demo``.

It runs every step the package can do, in order, and writes what each produced under
``--out``: the bundled boards and their energy models (``platforms.json``), every published
experiment reproduced (``repro/NAME.json``, ``repro/NAME.csv``, ``repro/summary.json``), a
simulated trace overview, and, when this machine can trace (root, tracefs, rt-app), a short
rt-app workload run on the local target and validated against the models (``local_run/``);
then the standalone page ``report.html`` with the tables and interactive plots.

The demo reports; it does not judge: a published claim that is not reproduced is listed in
the summary, and the exit code stays 0 unless a step crashed (``lisa-eas reproduce`` is the
command whose exit code fails on a check). Steps that need something this machine lacks say
so and carry on.
"""
from __future__ import annotations

import json
from pathlib import Path

from .._atomic import write_atomic


def register(sub) -> None:
    p = sub.add_parser("demo", help="the main job of `make demo`: every step this package can run",
                       description="Run the main job: list the boards and their energy models, reproduce the "
                                   "published experiments, run a workload on this machine when it can trace, "
                                   "and write results/report.html.")
    p.add_argument("--out", default="results", help="directory for results (default: results)")
    p.add_argument("--workers", type=int, help="local worker processes for the simulations (default: all cores)")
    p.add_argument("--scheduler", help="address of a Dask scheduler to run the simulations on")
    p.add_argument("--no-live", action="store_true", help="skip the run on this machine even if it can trace")
    p.set_defaults(func=_run, option_names={"Sweep.workers": "--workers", "Sweep.scheduler": "--scheduler"})


def _platforms(out: Path) -> None:
    from ..energy_model import EnergyModel
    from ..errors import PlatformError
    from ..platform import list_platforms, load_platform
    from . import main

    print("== bundled boards")
    main(["platforms"])
    summary = {}
    for name in list_platforms():
        plat = load_platform(name)
        try:
            em = EnergyModel.from_platform(plat, "v6.9")
        except PlatformError as exc:
            summary[name] = {"energy_model": None, "why": str(exc)}
            continue
        summary[name] = {"energy_model": "v6.9", "domains": {
            d.name: {"cpus": list(d.cpus), "power_unit": d.power_unit,
                     "cost": d.cost.tolist(), "inefficient": d.inefficient.tolist()}
            for d in em.domains}}
    write_atomic(out / "platforms.json", json.dumps(summary, indent=1))
    print(f"\nwrote {out / 'platforms.json'}")


def _run(args) -> int:
    from ..errors import LisaEasError
    from ..repro import EXPERIMENTS, Sweep, reproduce
    from ..repro._live import can_trace, live_section, simulated_section
    from ..repro._report import ReportSection, write_report
    from ._reproduce import results_to_files, summary_text

    out = Path(args.out)
    _platforms(out)

    print("\n== reproducing the published experiments")
    sweep = Sweep(workers=args.workers, scheduler=args.scheduler)
    if not args.scheduler:      # once, here, before any worker process (says so when it compiles)
        from ..sim import warm_up_simulator
        warm_up_simulator()
    results = []
    for name in EXPERIMENTS:
        res = reproduce(name, sweep=sweep)
        print(res.to_text() + "\n")
        results.append(res)
    results_to_files(results, out / "repro")
    print(summary_text(results))

    print("\n== simulated trace overview")
    sections = [simulated_section()]

    ok, why = can_trace()
    if args.no_live:
        ok, why = False, "skipped (--no-live)"
    live_summary: dict = {}
    if ok:
        print("\n== a workload on this machine, traced and validated")
        try:
            section, live_summary = live_section(out)
            sections.append(section)
            for k, v in live_summary.items():
                print(f"  {k}: {v}")
        except LisaEasError as exc:
            # A board step that fails is reported in the page and here; the demo carries on.
            interference = _interference(out / "local_run" / "run.json")
            if interference:
                exc = f"{exc} (the run recorded interference: {'; '.join(interference)})"
            live_summary = {"error": str(exc)}
            print(f"  the live step failed: {exc}")
            sections.append(ReportSection("This machine: live run failed", pre=str(exc)))
    else:
        print(f"\n== no live run on this machine: {why}")
        sections.append(ReportSection("This machine: no live run", why))
    write_atomic(out / "demo.json", json.dumps({
        "experiments": {r.name: {"ok": r.ok, "checks": len(r.checks), "failed": [c.claim for c in r.checks if not c.ok]}
                        for r in results},
        "live": live_summary or {"skipped": why}}, indent=1, default=str) + "\n")
    path = write_report(out / "report.html", results, sections=sections)
    print(f"\nwrote {path} ({path.stat().st_size / 1e6:.1f} MB, standalone: open it in a browser)")
    n_fail = sum(not r.ok for r in results)
    print(f"{len(results) - n_fail}/{len(results)} experiments reproduced with every check ok; "
          "the not-ok claims and their reasons are in the report (demo exit code 0: it reports, "
          "`lisa-eas reproduce` fails on them)")
    return 0


def _interference(run_json: Path) -> list[str]:
    """What the run's tracing recorded as disturbed by another tool, or by other processes' CPU time
    (``run.json``), if anything."""
    try:
        info = json.loads(run_json.read_text())
    except (OSError, ValueError):
        return []
    tracing = (info.get("tracing") if isinstance(info, dict) else None) or {}
    others = (tracing.get("other_processes") or {}).get("warning")
    return [str(x) for x in (tracing.get("interference") or [])] + ([others] if others else [])
