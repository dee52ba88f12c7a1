"""``lisa-eas validate``: replay a trace against the EAS / SIS / schedutil / PELT models."""
from __future__ import annotations

from pathlib import Path

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("validate", help="hold a trace against the models, decision by decision",
                       description="Replay every wake-up and frequency change of a trace (or of a "
                                   "`lisa-eas run` directory) against the EAS, SIS, schedutil and PELT "
                                   "models; write validation.json (every figure) and validation.html "
                                   "(standalone) to --out.")
    p.add_argument("trace", metavar="RUN_DIR_OR_TRACE", help="trace file, `lisa-eas run` or `lisa-eas simulate` output directory")
    p.add_argument("--platform", help="bundled board name or platform JSON path (default: the platform the "
                                      "run recorded: a `lisa-eas run` directory's probe, a simulation's board)")
    p.add_argument("--era", default=None, help="kernel era of the EAS/schedutil models (default: the "
                                               "simulation's era, else the trace's kernel, else v5.4)")
    p.add_argument("--sis-era", default=None, help="era of the idle-CPU search (default --era)")
    p.add_argument("--pelt-era", default=None, help="era of the PELT model (default: the trace's kernel)")
    p.add_argument("--task-uclamp", action="append", default=[], metavar="TASK=MIN:MAX",
                   help="a waking task's own clamps (no trace event carries them), by comm or pid, e.g. "
                        "game=0:300; repeat for several tasks (default: none, taken as 0:1024)")
    p.add_argument("--out", help="output directory (default: RUN_DIR/validation, or TRACE.validation/)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def _task_uclamp(values) -> dict | None:
    """``--task-uclamp TASK=MIN:MAX`` values -> validate(task_uclamp=) (a numeric TASK is a pid)."""
    from ..errors import ModelError

    out = {}
    for v in values:
        try:
            name, rng = v.rsplit("=", 1)
            lo, hi = (int(x) for x in rng.split(":"))
            if not name:
                raise ValueError
        except ValueError:
            raise ModelError(f"--task-uclamp {v!r}: write TASK=MIN:MAX (a comm or a pid), e.g. game=0:300") from None
        out[int(name) if name.isdigit() else name] = (lo, hi)
    return out or None


def _run(args) -> int:
    from ..analysis.validate import load_trace_arg, validate

    trace = load_trace_arg(args.trace)
    report = validate(trace, args.platform, era=args.era, sis_era=args.sis_era, pelt_era=args.pelt_era,
                      task_uclamp=_task_uclamp(args.task_uclamp))
    src = Path(args.trace)
    out = args.out or (src / "validation" if src.is_dir() else src.with_name(src.name + ".validation"))
    from ..plot import write_validation

    paths = write_validation(report, out)
    s = report.summary
    if args.format == "json":
        print_json({"out": {k: str(v) for k, v in paths.items()}, "summary": report.to_dict()["summary"]})
        return 0
    w = s["wakeups"]
    rows = [["wake-ups", w["total"], ", ".join(f"{k} {w[k]}" for k in ("eas", "sis", "rt", "no_prev_cpu",
                                                                        "new_task"))]]
    e = s["eas"]
    if e["wakeups"]:
        rows.append(["EAS agreement", f"{e['agreement_pct']:.1f}%",
                     f"{e['disagree']} disagreements, regret {e['regret_total']:.0f} ({e['energy_unit']})"])
    if s["sis"]["wakeups"]:
        rows.append(["SIS agreement", f"{s['sis']['agreement_pct']:.1f}%",
                     f"kernel picked an idle CPU {s['sis']['kernel_picked_idle_pct']:.1f}%"])
    if s["schedutil"].get("available"):
        for d, v in s["schedutil"]["domains"].items():
            if v.get("requests"):
                rows.append([f"schedutil {d}", f"{_pct(v['time_at_model_freq_pct'])} of the time at the model's "
                             f"frequency", f"{v['requests_agree']} of {v['requests']} frequency requests "
                             f"({_pct(v['request_agreement_pct'])}) match the model; above it "
                             f"{_pct(v['over_provisioned_pct'])}, below {_pct(v['under_provisioned_pct'])} "
                             f"of the time (time while a CPU of the domain runs a task)"])
    if s["pelt"].get("available") and s["pelt"]["samples"]:
        p = s["pelt"]
        rows.append(["PELT |error|", f"p95 {p['abs_error_p95']:.0f}",
                     f"{p['samples']} samples, p50 {p['abs_error_p50']:.0f}, max {p['abs_error_max']:.0f}"])
    print(f"platform {s['platform']} ({'given' if args.platform else 'recorded by the run'}), era {s['era']}")
    if s.get("run", {}).get("status") == "interrupted":
        print("note: this run was interrupted; its trace stops at the interrupt")
    print(format_table(["check", "result", "detail"], rows))
    for na in s.get("not_applicable", []):
        print(f"does not apply: {na['check']}: {na['reason']}")
    print(f"wrote {paths['json']} and {paths['html']}")
    return 0


def _pct(v) -> str:
    return "n/a" if v is None else f"{v:.1f}%"
