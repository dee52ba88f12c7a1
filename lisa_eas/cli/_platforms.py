"""``lisa-eas platforms``: the bundled boards and their energy-model tables."""
from __future__ import annotations

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("platforms", help="list bundled boards, or show one board's OPP/EM table",
                       description="List the bundled boards (CPUs, perf domains, OPPs, power source), "
                                   "or with 'show NAME' print one board's OPP/capacity/power/cost table.")
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("name", nargs="?", help="board name or platform JSON path (for 'show')")
    p.add_argument("--era", default="v6.9", help="kernel era of the EM cost table (default v6.9)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def cpulist(cpus) -> str:
    """``(0, 1, 2, 3, 5)`` -> ``"0-3,5"`` (the kernel's cpulist format)."""
    cpus = sorted(cpus)
    parts, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            parts.append(str(start) if start == c else f"{start}-{c}")
            start = None
    return ",".join(parts)


def _run(args) -> int:
    from ..platform import list_platforms, load_platform

    if args.action == "list":
        rows = []
        for name in list_platforms():
            p = load_platform(name)
            rows.append({"name": name, "cpus": p.nr_cpus, "llc_weight": p.llc_weight,
                         "perf_domains": [{"name": d.name, "cpus": list(d.cpus), "opps": len(d.opps),
                                           "capacity": d.cpu_capacity_max, "power_source": d.power_source,
                                           "power_unit": d.power_unit} for d in p.perf_domains]})
        if args.format == "json":
            print_json(rows)
        else:
            print(format_table(
                ["board", "CPUs", "perf domains (cpus: OPPs, capacity)", "power source"],
                [[r["name"], r["cpus"],
                  "; ".join(f"{d['name']} {cpulist(d['cpus'])}: {d['opps']} OPPs, cap {d['capacity']}"
                            for d in r["perf_domains"]) or f"one LLC of {r['llc_weight']} CPUs",
                  ", ".join(sorted({d["power_source"] for d in r["perf_domains"]})) or "-"]
                 for r in rows]))
        return 0
    if not args.name:
        raise SystemExit("lisa-eas platforms show: give a board name (see 'lisa-eas platforms')")
    return _show(load_platform(args.name), args)


def _llc_groups(plat) -> list[list[int]]:
    ids = plat.llc_ids()
    return [[int(c) for c in (ids == k).nonzero()[0]] for k in range(int(ids.max()) + 1)]


def _show(plat, args) -> int:
    from ..energy_model import EnergyModel
    from ..errors import PlatformError

    doms = []
    for pd in plat.perf_domains:
        try:
            em = EnergyModel.from_platform(plat, args.era).domains[plat.perf_domains.index(pd)]
        except PlatformError:
            em = None
        states = []
        for i, o in enumerate(pd.opps):
            states.append({"freq_khz": o.freq_khz, "capacity": o.capacity, "voltage_uv": o.voltage_uv,
                           "power_mw": o.power_mw,
                           "em_power": None if em is None else int(em.power[i]),
                           "em_cost": None if em is None else int(em.cost[i]),
                           "em_performance": None if em is None else int(em.performance[i]),
                           "inefficient": None if em is None else bool(em.inefficient[i])})
        doms.append({"name": pd.name, "cpus": list(pd.cpus), "core_type": pd.core_type,
                     "cpu_capacity_max": pd.cpu_capacity_max, "power_source": pd.power_source,
                     "power_unit": pd.power_unit, "em_power_unit": None if em is None else em.power_unit,
                     "opps": states,
                     "idle_states": [{"name": s.name, "exit_latency_us": s.exit_latency_us,
                                      "min_residency_us": s.min_residency_us, "power_mw": s.power_mw,
                                      "cluster_power_mw": s.cluster_power_mw} for s in pd.idle_states]})
    if args.format == "json":
        print_json({"name": plat.name, "description": plat.description, "nr_cpus": plat.nr_cpus,
                    "llc_weight": plat.llc_weight, "llc_groups": _llc_groups(plat),
                    "imbalance_pct": plat.imbalance_pct,
                    "em_era": args.era, "perf_domains": doms, "source": plat.source,
                    "provenance": [dict(p) for p in plat.provenance]})
        return 0
    print(f"{plat.name}: {plat.description}")
    llcs = " + ".join(cpulist(g) for g in _llc_groups(plat))
    print(f"{plat.nr_cpus} CPUs, LLCs (sd_llc) {llcs}, imbalance_pct {plat.imbalance_pct}")
    for d in doms:
        print(f"\nperf domain {d['name']!r}: CPUs {cpulist(d['cpus'])} ({d['core_type']}), "
              f"capacity {d['cpu_capacity_max']}, power source {d['power_source']}"
              + (f" [{d['power_unit']}]" if d["power_unit"] else ""))
        if d["em_power_unit"] is None:
            print("  no energy model: the kernel registers none for this domain (no power data)")
        else:
            print(f"  EM as built by kernel {args.era}: power in {d['em_power_unit']}")
        print("  " + format_table(
            ["freq_khz", "capacity", "voltage_uv", "power_mw", "em_power", "em_cost", "em_perf", "ineff"],
            [[s["freq_khz"], s["capacity"], s["voltage_uv"], s["power_mw"], s["em_power"], s["em_cost"],
              s["em_performance"], {True: "yes", False: "", None: "-"}[s["inefficient"]]]
             for s in d["opps"]]).replace("\n", "\n  "))
        if d["idle_states"]:
            print("  idle states: " + "; ".join(
                f"{s['name']} (exit {s['exit_latency_us']} us"
                + (f", {s['power_mw']} mW" if s["power_mw"] is not None else "") + ")"
                for s in d["idle_states"]))
    if not doms:
        print("no perf domains: symmetric CPUs, no energy model (used for the idle-CPU search)")
    return 0
