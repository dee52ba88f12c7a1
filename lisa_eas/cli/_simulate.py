"""``lisa-eas simulate``: run an rt-app workload on a modelled board; parquet per event + metadata."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from ._output import _default, format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("simulate", help="simulate an rt-app workload on a modelled board",
                       description="Run an rt-app workload on a model of a board (EAS / SIS / "
                                   "governor models) and write one parquet file per trace event "
                                   "plus metadata.json (configuration, energy, approximations) "
                                   "to --out. Files are written atomically.")
    p.add_argument("--platform", required=True, help="bundled board name or platform JSON path")
    p.add_argument("--workload", required=True, help="rt-app JSON file")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--governor", default="schedutil",
                   help="schedutil (default), performance, powersave, ondemand, interactive or schedfreq")
    p.add_argument("--placement", default="eas", help="eas (default), eas-v5.0 or no-eas")
    p.add_argument("--sis", default="util", help="idle-CPU search depth rule: util (default) or prop")
    p.add_argument("--era", default="v5.4", help="kernel version of the models (default v5.4)")
    p.add_argument("--ramp-boost", action="store_true", help="schedutil with the RFC ramp boost")
    p.add_argument("--thermal-cap", action="append", default=[], metavar="TIME_S:CPU|pdK:CAPACITY",
                   help="thermal cap schedule row (repeatable): from TIME_S the perf domain of CPU (or pdK) runs "
                        "at most at its highest OPP of capacity <= CAPACITY, e.g. 0.5:pd0:300")
    p.add_argument("--rt-pressure", action="store_true", help="the EAS energy estimate counts RT utilization")
    p.add_argument("--runnable-boost", action="store_true", help="runnable boosting (v6.5+) in schedutil and EAS")
    p.add_argument("--thermal-decay-shift", type=int, default=0, metavar="N",
                   help="sched_thermal_decay_shift (v5.7 - v6.9, 0..10): the thermal pressure average's PELT "
                        "clock shifted right by N (default 0)")
    p.add_argument("--duration", type=float, default=None, help="simulated seconds (default: the "
                   "workload's duration, or until every task exits)")
    p.add_argument("--seed", type=int, default=0, help="seed of the start jitter (default 0)")
    p.add_argument("--start-jitter-us", type=int, default=0,
                   help="each thread starts within [0, N] us of its delay, drawn with --seed (default 0: none)")
    p.add_argument("--no-model-events", action="store_true",
                   help="leave out the model-only util/overutilized events")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


#: SimConfig fields -> the options of this command that set them.
_OPTIONS = {"SimConfig.placement": "--placement", "SimConfig.sis": "--sis", "SimConfig.governor": "--governor",
            "SimConfig.era": "--era", "SimConfig.governor_tunables": "--ramp-boost (governor tunables)",
            "SimConfig.duration_s": "--duration", "SimConfig.seed": "--seed",
            "SimConfig.thermal_caps": "--thermal-cap", "SimConfig.rt_pressure": "--rt-pressure",
            "SimConfig.runnable_boost": "--runnable-boost", "SimConfig.thermal_decay_shift": "--thermal-decay-shift"}


def _thermal_caps(values) -> list:
    """``--thermal-cap TIME_S:CPU|pdK:CAPACITY`` values -> SimConfig rows (ModelError naming the value)."""
    from ..errors import ModelError

    rows = []
    for v in values:
        parts = v.split(":")
        try:
            if len(parts) != 3:
                raise ValueError
            t = float(parts[0])
            target = parts[1] if parts[1].startswith("pd") else int(parts[1])
            cap = int(parts[2])
        except ValueError:
            raise ModelError(f"--thermal-cap {v!r}: write TIME_S:CPU:CAPACITY or TIME_S:pdK:CAPACITY, "
                             f"e.g. 0.5:pd0:300") from None
        rows.append((t, target, cap))
    return rows


def _run(args) -> int:
    from .._atomic import write_atomic, write_bytes_atomic
    from ..sim import SimConfig, simulate

    from ..errors import ModelError
    from ._errors import option_names

    tun = {"ramp_boost": 1} if args.ramp_boost else {}
    try:
        config = SimConfig(placement=args.placement, sis=args.sis, governor=args.governor, era=args.era,
                           governor_tunables=tun, duration_s=args.duration, seed=args.seed,
                           start_jitter_us=args.start_jitter_us,
                           model_events=not args.no_model_events, thermal_caps=_thermal_caps(args.thermal_cap),
                           rt_pressure=args.rt_pressure, runnable_boost=args.runnable_boost,
                           thermal_decay_shift=args.thermal_decay_shift)
    except ModelError as exc:   # name the option the user typed, not the dataclass field
        raise ModelError(option_names(str(exc), _OPTIONS)) from None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)     # a bad --out fails now, not after the simulation

    from ..sim._warm import announce_compile

    announce_compile()      # before reading anything: a cold compile is a minute or two (once per process)
    trace = simulate(args.platform, args.workload, config=config)
    rows = []
    for event in trace.events:
        df = trace.df(event)
        buf = io.BytesIO()
        df.to_parquet(buf, index=True)
        path = out / f"{event}.parquet"
        write_bytes_atomic(path, buf.getvalue())
        rows.append([event, len(df), str(path)])
    meta = dict(trace.metadata)
    meta["files"] = {e: f"{e}.parquet" for e in trace.events}
    # what `lisa-eas validate DIR` loads the board from (a platform file: its absolute path)
    meta["platform_arg"] = str(Path(args.platform).resolve()) if Path(args.platform).is_file() else str(args.platform)
    write_atomic(out / "metadata.json", json.dumps(meta, indent=1, default=_default) + "\n")
    energy = meta.get("energy") or {}
    if args.format == "json":
        print_json({"out": str(out), "events": {r[0]: r[1] for r in rows}, "energy": energy,
                    "t_end_s": meta["t_end_s"], "approximations": meta["approximations"],
                    "platform_model": meta.get("platform_model", {})})
        return 0
    print(format_table(["event", "rows", "file"], rows))
    if energy:
        print(f"energy total {energy['total']:.3f} {energy['unit']}: " +
              ", ".join(f"{k} {v:.3f}" for k, v in energy["per_domain"].items()))
    for k, v in meta.get("platform_model", {}).items():
        print(f"{k}: {v}")
    for a in meta["approximations"]:
        print(f"approximation: {a}")
    return 0
