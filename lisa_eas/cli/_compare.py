"""``lisa-eas compare A... --vs B...``: A/B verdicts with bootstrap confidence intervals."""
from __future__ import annotations

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("compare", help="A/B: runs of A vs runs of B, with confidence intervals",
                       description="Hold N runs of side A against N runs of side B (directories of `lisa-eas "
                                   "run`, of `lisa-eas simulate --out`, or `lisa-eas check eas` results): per "
                                   "metric the difference B - A with a bootstrap confidence interval, the "
                                   "effect size and a verdict. Writes compare.json and a standalone "
                                   "compare.html to --out. Exit 1 when an --expect does not hold.")
    p.add_argument("a", nargs="+", metavar="A", help="runs of side A")
    p.add_argument("--vs", nargs="+", required=True, metavar="B", help="runs of side B")
    p.add_argument("--platform", help="board for the energy estimate (default: the runs' own bundled board)")
    p.add_argument("--metric", action="append", help="only this metric (repeatable)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--bootstrap", type=int, default=4000, help="bootstrap resamples (default 4000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--expect", action="append", default=[], metavar="'METRIC: B<A'",
                   help="asserted direction, e.g. 'energy: B<A' (repeatable); exit 1 when it does not hold")
    p.add_argument("--eas-agreement", action="store_true", help="also replay each run's EAS decisions")
    p.add_argument("--era", default="v5.4", help="era of the EAS replay (default v5.4)")
    p.add_argument("--label-a", default="A")
    p.add_argument("--label-b", default="B")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from ..suite import compare

    c = compare(args.a, args.vs, platform=args.platform, metrics=args.metric, confidence=args.confidence,
                n_boot=args.bootstrap, seed=args.seed, expect=args.expect, eas_agreement=args.eas_agreement,
                era=args.era, label_a=args.label_a, label_b=args.label_b)
    paths = c.write(args.out)
    if args.format == "json":
        print_json({"out": {k: str(v) for k, v in paths.items()}, **c.to_dict()})
        return c.exit_code
    pct = f"{100 * c.confidence:g}%"
    rows = [[m.name, m.mean_a, m.mean_b, m.diff, f"[{m.ci_low:+.4g}, {m.ci_high:+.4g}]", m.effect_size, m.verdict]
            for m in c.metrics]
    print(f"{c.n_a} run(s) of {c.label_a} vs {c.n_b} of {c.label_b}")
    print(format_table(["metric", "mean A", "mean B", "B - A", f"{pct} CI", "Hedges g", "verdict"], rows))
    for w in c.warnings:
        print(f"warning: {w}")
    for e in c.expectations:
        print(f"expect {e.text}: {'holds' if e.holds else 'DOES NOT HOLD'} ({e.detail})")
    print(f"wrote {paths['json']} and {paths['html']}")
    return c.exit_code
