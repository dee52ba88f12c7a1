"""``lisa-eas check eas``: the EAS behaviour suite on a board or on the model."""
from __future__ import annotations

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("check", help="behaviour suites: `check eas` (EAS placement, slack, noise)",
                       description="Run a behaviour suite and give a verdict per scenario and iteration "
                                   "(PASS / FAIL / UNDECIDED). Exit 0 when all pass (or the suite does not "
                                   "apply), 1 when one fails, 3 when none fails but one is undecided.")
    s = p.add_subparsers(dest="suite", metavar="SUITE")
    s.required = True
    e = s.add_parser("eas", help="LISA's EAS behaviour scenarios against the energy-optimal placement",
                     description="OneSmallTask, ThreeSmallTasks, TwoBigTasks, TwoBigThreeSmall, RampUp, RampDown "
                                 "and EnergyModelWakeMigration, built for the board's CPUs, run on the target "
                                 "(--target) or on the model (--simulate --platform); writes suite.json and a "
                                 "standalone suite.html to --out.")
    e.add_argument("--target", help="target config YAML: run on this board")
    e.add_argument("--simulate", action="store_true", help="run on the model of --platform instead")
    e.add_argument("--platform", help="bundled board name or platform JSON (with --simulate)")
    e.add_argument("--era", default=None, help="kernel era (model default v5.4; board default: its kernel)")
    e.add_argument("--placement", default="eas", help="model placement: eas (default), eas-v5.0, no-eas")
    e.add_argument("--iterations", type=int, default=1, help="runs of each scenario (default 1)")
    e.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    e.add_argument("--start-jitter-us", type=int, default=2000,
                   help="model: threads start within [0, N] us, seeded per iteration (default 2000)")
    e.add_argument("--seed", type=int, default=0, help="model: seed of iteration 0 (default 0)")
    e.add_argument("--out", required=True, help="output directory (suite.json, suite.html, runs/)")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")
    e.add_argument("--format", choices=["table", "json"], default="table")
    e.set_defaults(func=_run)


def _run(args) -> int:
    from ..errors import ConfigError
    from ..suite import SuiteInterrupted, check_eas

    if args.simulate == bool(args.target):
        raise ConfigError("lisa-eas check eas: give --target FILE (a board) or --simulate --platform P (the model)")
    if args.simulate and not args.platform:
        raise ConfigError("lisa-eas check eas --simulate: give --platform (`lisa-eas platforms` lists them)")
    progress = False if args.no_progress else None
    try:
        res = _suite(args, progress, check_eas)
    except SuiteInterrupted as exc:
        paths = exc.partial.write(args.out)
        print(f"interrupted: the {len(exc.partial.results)} verdict(s) collected so far are in {paths['json']} "
              "(marked interrupted)")
        return 130
    return _report(args, res)


def _suite(args, progress, check_eas):
    if args.simulate:
        res = check_eas(platform=args.platform, era=args.era, placement=args.placement, scenarios=args.scenario,
                        iterations=args.iterations, progress=progress, start_jitter_us=args.start_jitter_us,
                        seed=args.seed)
    else:
        res = check_eas(target=args.target, era=args.era, scenarios=args.scenario, iterations=args.iterations,
                        out_dir=args.out, progress=progress)
    return res


def _report(args, res) -> int:
    paths = res.write(args.out)
    if args.format == "json":
        print_json({"out": {k: str(v) for k, v in paths.items()}, "exit_code": res.exit_code,
                    "not_applicable": res.not_applicable, "summary": res.summary()})
        return res.exit_code
    if res.not_applicable:
        print(f"not applicable: {res.not_applicable}")
    else:
        rows = []
        for r in res.results:
            f = r.figures
            ex = f.get("energy_excess_pct")
            rows.append([r.scenario, r.iteration, r.verdict,
                         "-" if ex is None else f"{ex:+.1f}% (<{f.get('energy_threshold_pct'):g}%)",
                         "-" if f.get("negative_slack_worst_pct") is None else f"{f['negative_slack_worst_pct']:.1f}%",
                         r.reason if r.verdict != "PASS" else ""])
        print(format_table(["scenario", "#", "verdict", "energy vs optimum", "neg. slack", "reason"], rows))
    print(f"wrote {paths['json']} and {paths['html']} (exit code {res.exit_code})")
    return res.exit_code
