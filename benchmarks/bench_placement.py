"""Energy-optimal placement benchmark: exact search time vs number of tasks, and brute force.

For N periodic tasks on HiKey960 (8 CPUs, 2 perf domains) — LISA's EAS test setting — times
:func:`lisa_eas.analysis.optimal_placement` for identical tasks (the EAS RFC "N tasks of
5%" workload, and 20% tasks) and for random utilizations (seeded), N = 1..50; and the brute
force over all ``8**N`` placements where it is still feasible: the numba brute force for
N <= 8 and the plain-Python one (as LISA's ``get_optimal_placements`` enumerates) for N <= 5.
Both must give the same energy (asserted). Random sizes fill ~40% of the platform's
capacity (seeded); a case that exceeds ``--max-nodes`` is reported as such (the exact search
is exponential in the worst case). Prints ONE JSON line.

Usage: ``python benchmarks/bench_placement.py [--platform hikey960] [--max-n 50]``
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", default="hikey960")
    ap.add_argument("--max-n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-nodes", type=int, default=20_000_000,
                    help="search budget per case; a case over it is reported, not hidden")
    args = ap.parse_args()

    from lisa_eas.analysis import brute_force_placement, optimal_placement
    from lisa_eas.errors import ModelError
    from lisa_eas.models.placement import placement_tables
    from reference.ref_placement import brute_force as py_brute_force

    rng = np.random.default_rng(args.seed)
    optimal_placement(args.platform, [100, 200])       # JIT compile (cached on disk) outside the timings
    brute_force_placement(args.platform, [100, 200])
    from lisa_eas import load_platform
    plat = load_platform(args.platform)
    total_cap = sum(plat.cpu_capacity(c) for c in range(plat.nr_cpus))
    sizes = [n for n in (1, 2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 30, 40, 50) if n <= args.max_n]
    rows = []
    worst_50 = 0.0
    for n in sizes:
        mean = 0.4 * total_cap / n     # random sizes filling ~40% of the platform's capacity
        cases = {"identical_5pct": [51] * n, "identical_10pct": [102] * n,
                 "random_40pct_load": np.clip(rng.integers(int(mean * 0.2), int(mean * 1.8) + 2, n), 1,
                                              1024).tolist()}
        for name, utils in cases.items():
            t0 = time.perf_counter()
            try:
                r = optimal_placement(args.platform, utils, max_nodes=args.max_nodes)
                energy, nodes = r.energy, r.nodes
            except ModelError as exc:       # does not fit, or over the node budget: reported
                energy, nodes = None, str(exc)[:60]
            dt = time.perf_counter() - t0
            row = {"case": name, "n": n, "exact_s": round(dt, 5), "nodes": nodes, "energy": energy}
            if n <= 8 and energy is not None:
                t0 = time.perf_counter()
                b = brute_force_placement(args.platform, utils)
                row["brute_numba_s"] = round(time.perf_counter() - t0, 5)
                assert abs(b.energy - energy) < 1e-6, (name, n, b.energy, energy)
                if n <= 5:
                    tab = placement_tables(args.platform)
                    t0 = time.perf_counter()
                    e_py, _ = py_brute_force([int(u) for u in utils], tab["dom"].tolist(), tab["thresholds"].tolist(),
                                             tab["costs"].tolist(), tab["n_states"].tolist(), tab["cap_fit"].tolist())
                    row["brute_python_s"] = round(time.perf_counter() - t0, 5)
                    assert abs(e_py - energy) < 1e-6
                    row["speedup_vs_python_brute"] = round(row["brute_python_s"] / max(dt, 1e-9), 1)
            if n == 50:
                worst_50 = max(worst_50, dt)
            rows.append(row)
    print(json.dumps({"benchmark": "placement", "platform": args.platform, "rows": rows,
                      "worst_50_tasks_s": round(worst_50, 4), "target_50_tasks_s": 1.0,
                      "brute_force_energy_equal": True}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
