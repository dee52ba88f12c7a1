"""``lisa-eas target probe``: what a board says about itself."""
from __future__ import annotations

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("target", help="inspect a target board (probe)",
                       description="Connect to the target a config file describes and print its CPUs, "
                                   "capacities, cpufreq policies, idle states, energy model and kernel.")
    p.add_argument("action", choices=["probe"])
    p.add_argument("--target", required=True, help="target config YAML (e.g. target_configs/local.yml)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from ..target import connect, probe
    from ._platforms import cpulist

    with connect(args.target) as board:
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
