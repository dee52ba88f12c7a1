"""``lisa-eas platform fit``: fit a CPU energy model to a trace's measured power rails and
write a platform file the rest of the package loads."""
from __future__ import annotations

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser(
        "platform", help="fit a board's CPU energy model to measured power rails (fit)",
        description="Fit each CPU domain's active power per OPP, idle-state power and static "
                    "power to the energy its power rail measured (a Perfetto trace with "
                    "power_rails, cpu_idle and cpu_frequency, e.g. a Pixel with ODPM rails); "
                    "the fit uses the first part of the trace and reports the error on the "
                    "rest. Writes a platform JSON usable with --platform everywhere.")
    p.add_argument("action", choices=["fit"])
    p.add_argument("trace", help="trace file with power rails")
    p.add_argument("--out", required=True, help="platform JSON to write")
    p.add_argument("--name", help="board name in the file (default: fitted)")
    p.add_argument("--platform", help="keep this board's domains/OPPs/capacities; fit only power")
    p.add_argument("--rails", help="comma-separated rail per domain, in domain order "
                                   "(default: the CPUCL<n> rails)")
    p.add_argument("--dmips", help="comma-separated capacity-dmips-mhz per domain (capacities; "
                                   "default: equal)")
    p.add_argument("--train-fraction", type=float, default=0.7,
                   help="part of the trace to fit on (default 0.7); the rest is held out")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def _ints(text: str | None, opt: str):
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise SystemExit(f"lisa-eas platform fit: {opt} {text!r}: give comma-separated integers")


def _run(args) -> int:
    from ..analysis import fit_energy_model
    from ..trace import read_trace

    trace = read_trace(args.trace, events=["power_rails", "cpu_idle", "cpu_frequency"])
    fit = fit_energy_model(trace, platform=args.platform,
                           rails=args.rails.split(",") if args.rails else None,
                           train_fraction=args.train_fraction,
                           capacity_dmips_mhz=_ints(args.dmips, "--dmips"), name=args.name)
    fit.to_platform()        # the file must load
    path = fit.write(args.out)
    s = fit.summary
    if args.format == "json":
        print_json({"out": str(path), "summary": s.reset_index().to_dict(orient="records")})
        return 0
    rows = [[r.rail, ",".join(map(str, r.cpus)), f"{r.busy_s:.2f}", f"{r.mean_power_mw:.1f}",
             f"{r.train_error_pct:+.1f}", f"{r.heldout_error_pct:+.1f}", r.observed_opps]
            for r in s.itertuples()]
    print(format_table(["rail", "cpus", "busy CPU-s", "mean mW", "train err %",
                        "held-out err %", "OPPs fitted"], rows))
    print(f"wrote {path}")
    return 0
