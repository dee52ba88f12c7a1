"""``eas-wakeup-speedup``: the O(n) EAS wake-up of v5.4 (commit eb92692b) vs the v5.0 search.

Published: time in ``select_task_rq_fair()`` per CPU on a Pixel 3 running one periodic task
ramping 70 % -> 10 % (all frequencies at max), before and after the patch, with 8 perf
domains (DT hacked to per-CPU DVFS) and with the normal 2.

Reproduced: the same workload is simulated on the Pixel 3 model (performance governor = all
frequencies at max, EAS placement) with 2 and with 8 perf domains; at every EAS wake-up the
state the model saw (per-CPU util_avg / util_est, the task's util, prev_cpu) is taken from the
simulated trace and replayed through :func:`lisa_eas.models.find_energy_efficient_cpu` in the
v5.0 and the v5.4 era. Reported per era: perf-domain energy evaluations and CPU-util
computations per wake-up (the algorithmic work) and the model's time per decision.
"""
from __future__ import annotations

import json
import time
from importlib import resources

import numpy as np

from ._claims import ExperimentResult, check_that
from ._registry import published_csv, published_provenance
from ._sweep import Sweep

TITLE = "EAS wake-up work and time, v5.0 vs v5.4 era, Pixel 3 with 8 and 2 perf domains (eb92692b)"
FILE = "eas_wakeup_speedup.csv"
ERAS = ("v5.0", "v5.4")
_TIMING_REPEATS = 7
# The wake-up states are tiled this many times for timing, so the per-call validation of the
# public API (fixed cost) is amortised and the time per decision is the kernel's.
_TIMING_TILE = 50


def pixel3_platform(per_cpu_domains: bool):
    """The bundled Pixel 3, or the "DT hacked" variant with one perf domain per CPU."""
    from ..platform import load_platform, platform_from_dict

    if not per_cpu_domains:
        return load_platform("pixel3")
    data = json.loads((resources.files("lisa_eas") / "platforms" / "pixel3.json").read_text())
    split = []
    for pd in data["perf_domains"]:
        for cpu in pd["cpus"]:
            split.append(dict(pd, name=f"{pd['name']}{cpu}", cpus=[cpu]))
    data = dict(data, name="pixel3-8pd", perf_domains=split,
                description="Pixel 3 with one cpufreq policy per CPU (the eb92692b test 1 DT hack)")
    return platform_from_dict(data, source="lisa_eas/platforms/pixel3.json split into per-CPU perf domains")


def _wakeup_states(per_cpu_domains: bool) -> dict:
    """Simulate the ramp on the Pixel 3 and return the EAS wake-up states (numpy arrays)."""
    import pandas as pd

    from ..sim import SimConfig, simulate
    from .workloads import eas_speedup_ramp

    plat = pixel3_platform(per_cpu_domains)
    config = SimConfig(governor="performance", placement="eas", era="v5.4")
    tr = simulate(plat, eas_speedup_ramp(), config=config)
    dec = tr.df("lisa_sim_eas_decision")
    cpu_util = tr.df("lisa_sim_cpu_util")
    task_util = tr.df("lisa_sim_task_util")
    times = dec["__ts"].to_numpy()
    left = pd.DataFrame({"__ts": times}).reset_index(drop=True)
    n_cpus = plat.nr_cpus
    ua = np.zeros((len(times), n_cpus), dtype=np.int64)
    ue = np.zeros_like(ua)
    for cpu in range(n_cpus):
        right = cpu_util[cpu_util["cpu"] == cpu][["__ts", "util_avg", "util_est_enqueued"]]
        # The state just before the wake-up: the last update strictly earlier than it.
        m = pd.merge_asof(left, right.reset_index(drop=True), on="__ts", allow_exact_matches=False)
        ua[:, cpu] = m["util_avg"].fillna(0).to_numpy(np.int64)
        ue[:, cpu] = m["util_est_enqueued"].fillna(0).to_numpy(np.int64)
    tm = pd.merge_asof(left, task_util[["__ts", "util_est_enqueued"]].reset_index(drop=True), on="__ts",
                       allow_exact_matches=False)
    return {"platform": plat.name, "n_pd": len(plat.perf_domains), "util_avg": np.minimum(ua, 1024),
            "util_est": np.minimum(ue, 1024), "task_util": dec["task_util"].to_numpy(np.int64),
            "task_util_est": tm["util_est_enqueued"].fillna(0).to_numpy(np.int64),
            "prev_cpu": dec["prev_cpu"].to_numpy(np.int64), "chosen_cpu": dec["chosen_cpu"].to_numpy(np.int64),
            "config": config.to_dict(), "sim_events": tr.metadata.get("sim_events")}


def _replay(states: dict) -> dict:
    """Both eras on the same states: decisions, work per wake-up and model time per wake-up."""
    from ..energy_model import EnergyModel
    from ..models import find_energy_efficient_cpu

    plat = pixel3_platform(states["n_pd"] == 8)
    calls, out = {}, {}
    for era in ERAS:
        kw = dict(util_est=states["util_est"], task_util_est=states["task_util_est"], overutilized=False, era=era,
                  energy_model=EnergyModel.from_platform(plat, era=era))
        dec = find_energy_efficient_cpu(plat, states["util_avg"], states["task_util"], states["prev_cpu"], **kw)
        out[era] = {"cpu": dec.cpu, "pd_eval": float(dec.pd_evaluations.mean()),
                    "util_comp": float(dec.cpu_util_computations.mean()), "ns": float("inf")}
        tkw = dict(kw, util_est=np.tile(states["util_est"], (_TIMING_TILE, 1)),
                   task_util_est=np.tile(states["task_util_est"], _TIMING_TILE))
        calls[era] = ((plat, np.tile(states["util_avg"], (_TIMING_TILE, 1)), np.tile(states["task_util"], _TIMING_TILE),
                       np.tile(states["prev_cpu"], _TIMING_TILE)), tkw)
    n = len(states["task_util"]) * _TIMING_TILE
    # The eras are timed alternately, best of several, so a change in machine load hits both.
    for _ in range(_TIMING_REPEATS):
        for era in ERAS:
            args, kw = calls[era]
            t0 = time.perf_counter_ns()
            find_energy_efficient_cpu(*args, **kw)
            out[era]["ns"] = min(out[era]["ns"], (time.perf_counter_ns() - t0) / n)
    return out


def _published_saving(pub, n_pd: int) -> tuple[float, float, float]:
    g = pub[pub["perf_domains"] == n_pd]
    before = float((g.hit_before * g.avg_us_before).sum() / g.hit_before.sum())
    after = float((g.hit_after * g.avg_us_after).sum() / g.hit_after.sum())
    return before, after, 100.0 * (before - after) / before


def run(sweep: Sweep) -> ExperimentResult:
    pub = published_csv(FILE)
    all_states = sweep.map(_wakeup_states, [True, False])
    rows, savings, work_savings, util_savings, agree = [], {}, {}, {}, {}
    for st in all_states:
        res = _replay(st)
        n_pd = st["n_pd"]
        before, after, pub_saving = _published_saving(pub, n_pd)
        t_saving = 100.0 * (1 - res["v5.4"]["ns"] / res["v5.0"]["ns"])
        w_saving = 100.0 * (1 - res["v5.4"]["pd_eval"] / res["v5.0"]["pd_eval"])
        savings[n_pd] = (pub_saving, t_saving)
        work_savings[n_pd] = w_saving
        util_savings[n_pd] = 100.0 * (1 - res["v5.4"]["util_comp"] / res["v5.0"]["util_comp"])
        agree[n_pd] = float((res["v5.0"]["cpu"] == res["v5.4"]["cpu"]).mean())
        rows.append({"perf_domains": n_pd, "wakeups": len(st["task_util"]),
                     "published_avg_us_v5.0": round(before, 3), "published_avg_us_v5.4": round(after, 3),
                     "published_saving_pct": round(pub_saving, 1),
                     "pd_evals_v5.0": round(res["v5.0"]["pd_eval"], 2),
                     "pd_evals_v5.4": round(res["v5.4"]["pd_eval"], 2),
                     "util_comps_v5.0": round(res["v5.0"]["util_comp"], 2),
                     "util_comps_v5.4": round(res["v5.4"]["util_comp"], 2),
                     "work_saving_pct": round(w_saving, 1),
                     "model_ns_v5.0": round(res["v5.0"]["ns"], 1), "model_ns_v5.4": round(res["v5.4"]["ns"], 1),
                     "model_time_saving_pct": round(t_saving, 1),
                     "same_cpu_pct": round(100 * agree[n_pd], 1)})
    rows.sort(key=lambda r: -r["perf_domains"])
    checks = []
    # The published figure is wall time of all of select_task_rq_fair() (the non-EAS part of
    # the wake-up and the profiler's own overhead included); the reproduction's deterministic
    # measure is the EAS search's work (energy evaluations of a perf domain and CPU-util
    # computations), which the time follows. Model wall time is reported, not checked: on a
    # shared machine it varies with the load. A large saving must show as >= 35 % fewer
    # evaluations and computations, a small one as <= 40 % (the publication's own spread
    # across CPUs is wider than +-20 points around its -52.9 % and -22.8 %).
    w8, w2 = work_savings[8], work_savings[2]
    u8, u2 = util_savings[8], util_savings[2]
    checks.append(check_that(
        "8 perf domains: the v5.4 era's saving is large (published -52.9 % hit-weighted time)",
        f"{savings[8][0]:.1f} % time saving",
        f"{w8:.1f} % fewer PD energy evaluations, {u8:.1f} % fewer CPU-util computations",
        w8 >= 35.0 and u8 >= 35.0,
        tolerance="work saving >= 35 % (both counts): the kernel time also includes the non-EAS part of "
                  "select_task_rq_fair and profiler overhead, which dilute the saving",
        why="the model's v5.0 and v5.4 work differ less than the kernel's time on this wake-up trace"))
    checks.append(check_that(
        "2 perf domains: the saving is small (published -22.8 %, +14..+31 % on the big CPUs)",
        f"{savings[2][0]:.1f} % time saving",
        f"{w2:.1f} % fewer PD energy evaluations, {u2:.1f} % fewer CPU-util computations",
        w2 <= 40.0 and u2 <= 40.0,
        tolerance="work saving <= 40 % (both counts): with 2 domains v5.0 evaluates each candidate over 2 "
                  "domains and v5.4 each domain plus its candidates, so only a modest gain is possible",
        why="the model shows a large saving with 2 perf domains too"))
    checks.append(check_that(
        "the saving grows with the number of perf domains (8 domains saves more than 2)",
        f"{savings[8][0]:.1f} % > {savings[2][0]:.1f} %", f"{w8:.1f} % > {w2:.1f} % (PD evaluations)",
        w8 > w2 and u8 > u2, tolerance="strict ordering of both work savings",
        why="the model's saving does not grow with the number of perf domains"))
    # The reasoning (work vs microseconds, the margin change) is in notebooks/repro_eas_wakeup_speedup.ipynb.
    notes = (
        "Compared: savings in EAS search work (em_cpu_energy evaluations, work_saving_pct, checked) on the same "
        "wake-up states, not the profiler's microseconds; model_time_saving_pct is the numba model's wall time "
        "(reported only).",
        "Wake-up states: the ramp on the Pixel 3 model, performance governor, v5.4 EAS; both eras replayed on them.",
        "same_cpu_pct (reported, not checked): the margin rule changed between the eras, so near-ties differ.",
        "Pixel 3 power: the Pixel kernel's legacy busy-cost tables; the work counts do not depend on them.",
    )
    return ExperimentResult(
        name="eas-wakeup-speedup", title=TITLE, columns=tuple(rows[0]), rows=tuple(rows), checks=tuple(checks),
        notes=notes,
        provenance={"published": published_provenance(FILE),
                    "platforms": ["lisa_eas/platforms/pixel3.json (2 perf domains)",
                                  "the same split into 8 per-CPU perf domains"],
                    "workload": "eas_speedup_ramp (workloads/eas_speedup_ramp.json)",
                    "simulations": [{"platform": s["platform"], "config": s["config"], "sim_events": s["sim_events"]}
                                    for s in all_states],
                    "model": "lisa_eas.models.find_energy_efficient_cpu eras v5.0, v5.4",
                    "timing": f"best of {_TIMING_REPEATS} batch calls over the states tiled {_TIMING_TILE} times, ns per wake-up"},
        series={"saving_pct": {"label": [f"{r['perf_domains']} perf domains" for r in rows],
                               "published": [r["published_saving_pct"] for r in rows],
                               "reproduced": [r["work_saving_pct"] for r in rows],
                               "model_time": [r["model_time_saving_pct"] for r in rows]}})
