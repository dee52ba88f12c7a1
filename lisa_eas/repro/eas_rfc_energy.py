"""``eas-rfc-energy``: energy of N small periodic tasks with and without EAS (RFC v2, Apr 2018).

Published (Eggemann, EAS RFC v2 cover letter): 10..50 rt-app tasks of 5 % every 16 ms for
30 s, schedutil, without / with the EAS patches, on HiKey960 (energy of the whole board, ACME
cape) and Juno r0 (on-board meters: big and LITTLE CPUs only).

Reproduced: the same workloads simulated for the full 30 s on the bundled HiKey960 and Juno r0
models with schedutil, placement ``no-eas`` (idle-CPU search only, the "without" kernel) and
``eas`` (find_energy_efficient_cpu); energy from the simulator's energy-model integration
(CPUs only: busy power at each OPP plus idle-state power where the platform gives it).
"""
from __future__ import annotations

import numpy as np

from ._claims import ExperimentResult, check_close, check_that, spearman
from ._registry import published_csv, published_provenance
from ..sim._warm import warm_up_simulator
from ._sweep import Sweep

TITLE = "Energy of 10..50 periodic 5 % tasks, without/with EAS, HiKey960 and Juno r0 (EAS RFC v2, 2018)"
FILE = "eas_rfc_energy.csv"
BOARDS = ("hikey960", "juno_r0")
TASKS = (10, 20, 30, 40, 50)
_TO_JOULES = {"mW*s": 1e-3, "mJ": 1e-3, "J": 1.0, "W*s": 1.0}


#: Era of the modelled EAS: v5.4's find_energy_efficient_cpu, the RFC's search with per-domain
#: energy deltas and the same migration margin (move only to save more than 1/16 of the
#: whole-system energy with the task on prev_cpu).
ERA = "v5.4"
#: Era of the sensitivity runs (not checked): the feec without the 1/16 margin.
ERA_NO_MARGIN = "v6.1"


def simulate_energy(job: tuple) -> dict:
    """Simulate ``(board, n_tasks, placement[, era])``; return the CPU energy, its unit and where the
    tasks ran (how many tasks spent most of their last 10 s on each perf domain)."""
    from ..platform import load_platform
    from ..sim import SimConfig, simulate
    from .workloads import eas_rfc_energy

    board, n, placement = job[:3]
    era = job[3] if len(job) > 3 else ERA
    config = SimConfig(governor="schedutil", placement=placement, era=era, model_events=False)
    tr = simulate(board, eas_rfc_energy(board, n), config=config)
    e = tr.metadata["energy"]
    plat = load_platform(board)
    wk = tr.df("sched_wakeup")
    late = wk[wk["__ts"] >= wk["__ts"].max() - 10_000_000_000]
    home = late.groupby("comm")["target_cpu"].agg(lambda s: int(s.mode().iloc[0]))
    tasks_on = {d.name: int(sum(1 for c in home if int(c) in d.cpus)) for d in plat.perf_domains}
    dom = np.empty(plat.nr_cpus, np.int64)
    for i, d in enumerate(plat.perf_domains):
        dom[list(d.cpus)] = i
    cross = 0
    if "sched_migrate_task" in tr.events:
        mig = tr.df("sched_migrate_task")
        mig = mig[mig["__ts"].to_numpy() >= late["__ts"].min()]
        cross = int(np.count_nonzero(dom[mig["orig_cpu"].to_numpy()] != dom[mig["dest_cpu"].to_numpy()]))
    return {"board": board, "tasks": n, "placement": placement, "era": era, "energy": float(e["total"]),
            "unit": e["unit"], "per_domain": {k: float(v) for k, v in dict(e.get("per_domain", {})).items()},
            "tasks_on": tasks_on, "cross_domain_migrations_last_10s": cross, "config": config.to_dict(),
            "approximations": list(tr.metadata.get("approximations", ())),
            "wake_cap_wakeups": int(tr.metadata.get("wake_cap_wakeups", 0))}


def _by_domain(sim: dict, scale: float | None) -> str:
    return ", ".join(f"{k} {v * (scale or 1.0):.2f}" for k, v in sim["per_domain"].items())


def _grew(r: dict) -> str:
    """Which perf domain's energy EAS raised in row ``r`` (for the 'why' of a sign mismatch)."""
    before = dict(x.rsplit(" ", 1) for x in r["model_j_by_domain_without"].split(", "))
    after = dict(x.rsplit(" ", 1) for x in r["model_j_by_domain_with"].split(", "))
    ups = [f"{k} {before[k]} -> {after[k]} J" for k in before if float(after[k]) > float(before[k])]
    return f"{r['board']} N={r['tasks']} ({r['reproduced_delta_pct']:+.1f} %: {', '.join(ups)})"


def run(sweep: Sweep) -> ExperimentResult:
    pub = published_csv(FILE)
    jobs = [(b, n, p) for b in BOARDS for n in TASKS for p in ("no-eas", "eas")]
    jobs += [(b, n, p, ERA_NO_MARGIN) for b in BOARDS for n in TASKS for p in ("no-eas", "eas")]
    every = sweep.map(simulate_energy, jobs, warm=warm_up_simulator)
    sims = {(r["board"], r["tasks"], r["placement"]): r for r in every if r["era"] == ERA}
    no_margin = {(r["board"], r["tasks"], r["placement"]): r for r in every if r["era"] == ERA_NO_MARGIN}
    rows = []
    for _, p in pub.iterrows():
        b, n = p["board"], int(p["tasks"])
        off, on = sims[(b, n, "no-eas")], sims[(b, n, "eas")]
        scale = _TO_JOULES.get(off["unit"])
        e_off = off["energy"] * scale if scale else None
        e_on = on["energy"] * scale if scale else None
        delta = 100.0 * (on["energy"] / off["energy"] - 1.0)
        rows.append({"board": b, "tasks": n,
                     "published_j_without": float(p["energy_j_without"]), "published_j_with": float(p["energy_j_with"]),
                     "published_delta_pct": float(p["delta_pct"]),
                     "published_rsd_pct": max(float(p["rsd_pct_without"]), float(p["rsd_pct_with"])),
                     "published_saving_j": round(float(p["energy_j_without"] - p["energy_j_with"]), 2),
                     "model_cpu_j_without": None if e_off is None else round(e_off, 2),
                     "model_cpu_j_with": None if e_on is None else round(e_on, 2),
                     "reproduced_delta_pct": round(delta, 2),
                     "model_saving_j": None if e_off is None else round(e_off - e_on, 2),
                     "model_j_by_domain_without": _by_domain(off, scale),
                     "model_j_by_domain_with": _by_domain(on, scale),
                     "model_tasks_by_domain_with": ", ".join(f"{k} {v}" for k, v in on["tasks_on"].items()),
                     "model_delta_pct_no_margin": round(100.0 * (no_margin[(b, n, "eas")]["energy"]
                                                                 / no_margin[(b, n, "no-eas")]["energy"] - 1.0), 2),
                     "energy_unit": off["unit"]})
    checks = []
    # Sign: only rows whose published saving exceeds its own run-to-run spread (RSD) have a
    # sign to reproduce (Juno r0 with 50 tasks is -0.01 % with 0.5 % RSD: no sign).
    signed = [r for r in rows if abs(r["published_delta_pct"]) > r["published_rsd_pct"]]
    agree = [r for r in signed if (r["reproduced_delta_pct"] < 0) == (r["published_delta_pct"] < 0)]
    checks.append(check_that(
        "EAS saves energy in every row whose saving exceeds its RSD",
        f"{len(signed)} rows, all negative", f"{len(agree)}/{len(signed)} rows with the published sign",
        len(agree) == len(signed), tolerance="sign per row; rows within the published RSD are not signed",
        # The reasoning (start-up util, the v5.x 1/16 margin) is in notebooks/repro_eas_rfc_energy.ipynb.
        why="EAS raised a perf domain's energy more than it saved elsewhere (start-up placement kept by the "
            "v5.x migration margin): " + "; ".join(_grew(r) for r in signed if r not in agree)
            + ". Tasks per domain at the end, cross-domain migrations in the last 10 s: "
            + "; ".join(f"{r['board']} N={r['tasks']}: {r['model_tasks_by_domain_with']}, "
                        f"{sims[(r['board'], r['tasks'], 'eas')]['cross_domain_migrations_last_10s']} migrations"
                        for r in signed if r not in agree)))
    for b in BOARDS:
        br = [r for r in rows if r["board"] == b]
        n = [r["tasks"] for r in br]
        rho_pub = spearman(n, [r["published_delta_pct"] for r in br])
        rho_rep = spearman(n, [r["reproduced_delta_pct"] for r in br])
        # Trend: the saving shrinks as N grows (more tasks leave less room to pack them on the
        # efficient CPUs). Five rows: a Spearman rho above 0.5 is the same monotone trend
        # with at most one pair out of order.
        checks.append(check_that(
            f"{b}: the saving shrinks as the number of tasks grows",
            f"Spearman(N, delta) = {rho_pub:.2f}", f"Spearman(N, delta) = {rho_rep:.2f}",
            rho_rep >= 0.5 if rho_pub >= 0.5 else rho_rep < 0.5,
            tolerance="rho >= 0.5 on 5 rows (at most one pair out of order)",
            why="the model's saving vs N: " + ", ".join(f"{r['reproduced_delta_pct']:+.1f}" for r in br) + " %"))
    juno = [r for r in rows if r["board"] == "juno_r0"]
    mad = sum(abs(r["reproduced_delta_pct"] - r["published_delta_pct"]) for r in juno) / len(juno)
    # Size, Juno r0: the meters cover the CPUs only, like the model, so the relative saving is
    # comparable; published RSD up to 3.1 % per measurement and an energy model built from
    # the board's DT/EM data: mean absolute difference within 10 points.
    checks.append(check_close("juno_r0: size of the saving (CPU energy, as measured)", 0.0, round(mad, 2), abs_=10.0,
                              justification="mean |reproduced - published| delta over the 5 rows; published RSD "
                                            "up to 3.1 %, the model's power table is the board's energy model",
                              why="the model's Juno r0 savings differ from the measured ones by more than 10 points "
                                  "on average: " + ", ".join(f"N={r['tasks']}: {r['reproduced_delta_pct']:+.1f} vs "
                                                             f"{r['published_delta_pct']:+.1f}" for r in juno)))
    hikey = [r for r in rows if r["board"] == "hikey960" and r["model_saving_j"] is not None]
    if hikey:
        # Size, HiKey960: the published energy is the whole board (memory, GPU, regulators...),
        # the model covers the CPUs only. If placement does not change the non-CPU energy, the
        # saving in joules is comparable; board-level RSD up to 5.3 % of ~40-120 J is several
        # joules, so agreement within a factor of 2 is what the data can support.
        ratios = [r["model_saving_j"] / r["published_saving_j"] for r in hikey]
        ok = all(0.5 <= x <= 2.0 for x in ratios)
        checks.append(check_that(
            "hikey960: saving in joules (whole-board published, CPU-only model)",
            ", ".join(f"{r['published_saving_j']:.2f}" for r in hikey) + " J",
            ", ".join(f"{r['model_saving_j']:.2f}" for r in hikey) + " J", ok,
            tolerance="each row within a factor of 2 of the published saving (non-CPU board energy assumed "
                      "unchanged by placement; board RSD up to 5.3 %)",
            why="model/published saving ratios " + ", ".join(f"{x:.2f}" for x in ratios)
                + "; the model covers "
                + f"{100 * hikey[0]['model_cpu_j_without'] / hikey[0]['published_j_without']:.0f} % of the "
                  "published board energy at N=10, and the non-CPU part (memory, GPU) can change with placement"))
    units = sorted({r["energy_unit"] for r in rows})
    notes = (
        "Full published duration (30 s) and task set; one deterministic simulation per row (published: 10 "
        "iterations, mean and RSD).",
        "Scope: HiKey960's published energy is the whole board (the model: CPUs only; sign, trend and joules "
        "compared), Juno r0's the CPU meters (same scope as the model).",
        f"'without EAS': no-eas placement at {ERA} (select_idle_sibling, SIS_UTIL depth, on the waking task's "
        f"cluster); {sum(r['wake_cap_wakeups'] for r in every)} start-up wake-up(s) would have taken the 4.16 "
        "kernel's find_idlest_cpu() slow path (wake_cap(); not modelled).",
        f"Model energy unit(s): {', '.join(units)}.",
        f"Sensitivity (not a check): the same runs with the {ERA_NO_MARGIN} find_energy_efficient_cpu, which "
        "has no migration margin, give EAS savings of "
        + ", ".join(f"{r['board']} N={r['tasks']}: {r['model_delta_pct_no_margin']:+.1f} % ("
                    + ", ".join(f"{k} {v}" for k, v in no_margin[(r['board'], r['tasks'], 'eas')]['tasks_on'].items())
                    + " tasks)" for r in rows)
        + ". A task's domain is where it woke most often in the last 10 s. Cross-domain migrations in the "
          "last 10 s with EAS, with / without the margin: "
        + ", ".join(f"{r['board']} N={r['tasks']}: {sims[(r['board'], r['tasks'], 'eas')]['cross_domain_migrations_last_10s']}"
                    f" / {no_margin[(r['board'], r['tasks'], 'eas')]['cross_domain_migrations_last_10s']}"
                    for r in rows) + ".",
    )
    return ExperimentResult(
        name="eas-rfc-energy", title=TITLE, columns=tuple(rows[0]), rows=tuple(rows), checks=tuple(checks),
        notes=notes,
        provenance={"published": published_provenance(FILE),
                    "platforms": [f"lisa_eas/platforms/{b}.json" for b in BOARDS],
                    "workloads": "eas_rfc_energy(board, N) (workloads/eas_rfc_energy/*.json)",
                    "simulation_config": {p: next(s["config"] for k, s in sims.items() if k[2] == p)
                                          for p in ("no-eas", "eas")},
                    "sensitivity_config": next(s["config"] for k, s in no_margin.items() if k[2] == "eas"),
                    "simulations": len(every)},
        series={"delta_pct": {"label": [f"{r['board']} N={r['tasks']}" for r in rows],
                          "published": [r["published_delta_pct"] for r in rows],
                          "reproduced": [r["reproduced_delta_pct"] for r in rows]}})
