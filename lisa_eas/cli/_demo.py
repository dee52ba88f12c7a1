"""``lisa-eas demo``: the main job of ``make demo``.

It runs every step the package can do, in order, and writes what each produced
under ``--out``. Steps that need something this machine lacks say so and carry on.
"""
from __future__ import annotations

import json
from pathlib import Path

from .._atomic import write_atomic


def register(sub) -> None:
    p = sub.add_parser("demo", help="the main job of `make demo`: every step this package can run",
                       description="Run the main job: list the boards and their energy models, "
                                   "and every other step available, writing results under --out.")
    p.add_argument("--out", default="results", help="directory for results (default: results)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from ..energy_model import EnergyModel
    from ..errors import PlatformError
    from ..platform import list_platforms, load_platform
    from . import main

    out = Path(args.out)
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
    return 0
