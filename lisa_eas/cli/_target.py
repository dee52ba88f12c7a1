"""``lisa-eas target probe``: what a board says about itself."""
from __future__ import annotations

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("target", help="inspect a target board (probe) or show its config (config)",
                       description="probe: connect to the target a config file describes and print its CPUs, "
                                   "capacities, cpufreq policies, idle states, energy model and kernel. "
                                   "config: print the config as lisa-eas reads it (a LISA target_conf.yml is "
                                   "translated, with a note of each setting left out).")
    p.add_argument("action", choices=["probe", "config"])
    p.add_argument("--target", required=True, help="target config YAML (e.g. target_configs/local.yml)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def _run(args) -> int:
    import sys

    from ..target import connect, load_target_config, probe
    from ._platforms import cpulist

    config = load_target_config(args.target)
    if args.action == "config":
        d = config.describe()
        if args.format == "json":
            print_json(d)
            return 0
        for k, v in d.items():
            if k not in ("notes", "tracing"):
                print(f"{k}: {v}")
        for k, v in d["tracing"].items():
            print(f"tracing.{k}: {v}")
        for note in config.notes:
            print(f"note: {note}")
        return 0
    for note in config.notes:
        print(f"note: {note}", file=sys.stderr)
    with connect(config) as board:
        info = probe(board)
    d = info.to_dict()
    if args.format == "json":
        print_json(d)
        return 0
    print(f"{d['label']} ({d['kind']}): Linux {d['kernel_release']} {d['machine']}, host {d['hostname']}")
    print(f"online CPUs {cpulist(info.online_cpus)}; capacities "
          + ", ".join(f"cpu{c}={v}" for c, v in sorted(info.cpu_capacity.items())))
    if info.cpufreq_policies:
        print(format_table(["policy", "cpus", "governor", "OPPs (kHz)"],
                           [[p["policy"], cpulist(p["cpus"]), p["governor"],
                             ",".join(map(str, p["frequencies_khz"]))] for p in info.cpufreq_policies]))
    for cpu, states in sorted(info.idle_states.items())[:1]:
        print("idle states (cpu%d): " % cpu + "; ".join(
            f"{s.get('name')} (exit {s.get('latency')} us)" for s in states))
    print(f"platform: {d['platform']['name']} [{d['platform']['source']}], "
          f"{len(d['platform']['perf_domains'])} perf domains, LLC of each CPU {d['platform']['llc_ids']}")
    for note in info.notes:
        print(f"note: {note}")
    return 0
