"""``lisa-eas model``: run one kernel decision model from the command line."""
from __future__ import annotations

from ._output import format_table, print_json


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise SystemExit(f"lisa-eas model: expected comma-separated integers, got {text!r}") from None


def register(sub) -> None:
    p = sub.add_parser("model", help="run a scheduler/cpufreq decision model (EAS, SIS_UTIL, schedutil)",
                       description="Run one of the kernel decision models of lisa_eas.models.")
    msub = p.add_subparsers(dest="model", metavar="MODEL")
    msub.required = True

    s = msub.add_parser("sis-scan", help="SIS_UTIL: how many CPUs select_idle_cpu() scans",
                        description="nr_idle_scan from update_idle_cpu_scan() for an LLC's sum of util_avg; "
                                    "give --sum-util or --sum-util-pct (percent of the LLC capacity).")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--sum-util", type=int, help="sum of cpu_util_cfs over the LLC")
    g.add_argument("--sum-util-pct", type=float, nargs="+", help="one or more percents of llc_weight*1024")
    s.add_argument("--llc-weight", type=int, required=True, help="CPUs in the LLC")
    s.add_argument("--imbalance-pct", type=int, default=117)
    s.add_argument("--format", choices=["table", "json"], default="table")
    s.set_defaults(func=_sis_scan, option_names={"llc_weight": "--llc-weight", "sum_util": "--sum-util",
                                                 "imbalance_pct": "--imbalance-pct"})

    e = msub.add_parser("eas", help="find_energy_efficient_cpu for one wake-up",
                        description="EAS wake-up decision (v5.0, v5.4 or v6.x) on a bundled board.")
    e.add_argument("--platform", required=True, help="board name or platform JSON")
    e.add_argument("--util", required=True, help="per-CPU util_avg, comma-separated (task's prev CPU included)")
    e.add_argument("--util-est", help="per-CPU util_est.enqueued, comma-separated")
    e.add_argument("--task-util", type=int, required=True)
    e.add_argument("--task-util-est", type=int, default=0)
    e.add_argument("--prev-cpu", type=int, required=True)
    e.add_argument("--era", default="v5.4")
    e.add_argument("--format", choices=["table", "json"], default="table")
    e.set_defaults(func=_eas, option_names={"task_util_est": "--task-util-est", "task_util": "--task-util",
                                            "prev_cpu": "--prev-cpu", "util_avg": "--util", "util_est": "--util-est"})

    f = msub.add_parser("next-freq", help="schedutil get_next_freq for a utilization",
                        description="The OPP schedutil picks for a utilization on a board's perf domain.")
    f.add_argument("--platform", required=True)
    f.add_argument("--domain", required=True, help="perf domain name (see 'lisa-eas platforms show')")
    f.add_argument("--util", type=int, nargs="+", required=True)
    f.add_argument("--era", default="v6.9")
    f.add_argument("--ramp-boost", type=int, help="RFC v3 ramp boost (capacity units) used as EM cost margin")
    f.add_argument("--format", choices=["table", "json"], default="table")
    f.set_defaults(func=_next_freq)


def _sis_scan(args) -> int:
    from ..models import sis_util_nr_scan

    if args.sum_util is not None:
        rows = [{"sum_util": args.sum_util, "sum_util_pct": None,
                 "nr_idle_scan": sis_util_nr_scan(args.sum_util, args.llc_weight, args.imbalance_pct)}]
    else:
        rows = []
        for pct in args.sum_util_pct:
            s = int(pct * args.llc_weight * 1024 // 100)
            rows.append({"sum_util": s, "sum_util_pct": pct,
                         "nr_idle_scan": sis_util_nr_scan(s, args.llc_weight, args.imbalance_pct)})
    if args.format == "json":
        print_json(rows)
    else:
        print(format_table(["sum_util %", "sum_util", "CPUs scanned"],
                           [[r["sum_util_pct"], r["sum_util"], r["nr_idle_scan"]] for r in rows]))
    return 0


def _eas(args) -> int:
    from ..models import find_energy_efficient_cpu

    util = _ints(args.util)
    r = find_energy_efficient_cpu(args.platform, util, args.task_util, args.prev_cpu,
                                  util_est=None if args.util_est is None else _ints(args.util_est),
                                  task_util_est=args.task_util_est, era=args.era)
    row = {"era": r.era, "cpu": int(r.cpu[0]), "prev_energy": r.prev_energy[0], "best_energy": r.best_energy[0],
           "base_energy": int(r.base_energy[0]), "pd_evaluations": int(r.pd_evaluations[0]),
           "cpu_util_computations": int(r.cpu_util_computations[0])}
    if args.format == "json":
        print_json(row)
    else:
        print(format_table(list(row), [list(row.values())]))
    return 0


def _next_freq(args) -> int:
    from ..models import schedutil_next_freq, schedutil_tables

    freqs, costs, cap = schedutil_tables(args.platform, args.domain, args.era)
    rows = [{"util": u, "freq_khz": schedutil_next_freq(u, freqs, capacity=cap, era=args.era,
                                                         ramp_boost=args.ramp_boost,
                                                         costs=costs if args.ramp_boost is not None else None)}
            for u in args.util]
    if args.format == "json":
        print_json(rows)
    else:
        print(format_table(["util", "freq_khz"], [[r["util"], r["freq_khz"]] for r in rows]))
    return 0
