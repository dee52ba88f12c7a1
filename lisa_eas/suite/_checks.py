"""The checks of the EAS behaviour suite on one trace of one scenario, and its verdict.

* **placement energy**: the observed placement (each task on the CPU it last ran on, with
  its phase's expected utilization) costed with the Energy Model
  (:func:`lisa_eas.analysis.placement_energy`) and integrated over the test window, against
  the exact optimum of the same tasks at every instant
  (:func:`lisa_eas.analysis.optimal_placement`, 20 % capacity margin). PASS when observed
  < optimum x (1 + threshold). Measured frequencies and idle states are not used (as in
  LISA): the check judges where the tasks ran, not the governor.
* **slack**: at most 15 % of each task's activations with negative slack.
* **noise** (makes the verdict UNDECIDED, never FAIL): any other task ran more than 1 % of the
  window (``sugov:*`` 5 %, ``irq/*`` 1.5 %), the trace lost events, or a frequency the check
  needed could not be pinned.
* **load tracking** (reported; it decides the verdict only with
  ``Thresholds(load_tracking_in_verdict=True)``; only where the trace has the kernel's PELT signals; the simulator's
  ``lisa_sim_task_util`` counts): each task's traced util against the PELT model driven by
  the trace's own scheduling timeline (mean |error| <= 2 %, max <= 5 % of 1024), and its
  settled util within 5 % of the duty cycle on phases long enough to settle.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import LisaEasError, ModelError

__all__ = ["CheckResult", "ScenarioResult", "Thresholds", "check_scenario", "noise_table"]

PASS, FAIL, UNDECIDED, SKIPPED = "PASS", "FAIL", "UNDECIDED", "SKIPPED"


@dataclass(frozen=True)
class Thresholds:
    """Defaults of LISA's suite (``capacity_margin_pct``: the optimum's 20 % headroom)."""

    capacity_margin_pct: float = 20.0
    negative_slack_pct: float = 15.0
    noise_pct: float = 1.0
    noise_sugov_pct: float = 5.0
    noise_irq_pct: float = 1.5
    util_mean_err_pct: float = 2.0
    util_max_err_pct: float = 5.0
    util_settled_pct: float = 5.0
    #: LISA ran load tracking as its own test (pinned task, pinned OPP); here it rides along
    #: the EAS scenarios under their governor, so by default it is reported without deciding
    #: the scenario's verdict.
    load_tracking_in_verdict: bool = False


@dataclass(frozen=True)
class CheckResult:
    name: str
    verdict: str
    value: float | None
    threshold: float | None
    unit: str
    detail: str

    def to_dict(self) -> dict:
        return {"name": self.name, "verdict": self.verdict, "value": _num(self.value),
                "threshold": _num(self.threshold), "unit": self.unit, "detail": self.detail}


@dataclass(frozen=True)
class ScenarioResult:
    """Verdict of one scenario in one iteration, with its checks and figures."""

    scenario: str
    iteration: int
    verdict: str
    reason: str
    checks: tuple[CheckResult, ...]
    figures: dict = field(default_factory=dict)
    series: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    run_dir: str | None = None

    def to_dict(self, series: bool = True) -> dict:
        out = {"scenario": self.scenario, "iteration": self.iteration, "verdict": self.verdict,
               "reason": self.reason, "checks": [c.to_dict() for c in self.checks],
               "figures": {k: _num(v) for k, v in self.figures.items()},
               "metrics": {k: _num(v) for k, v in self.metrics.items()}, "run_dir": self.run_dir}
        if series:
            out["series"] = {k: [_num(x) for x in v] for k, v in self.series.items()}
        return out


def _num(v):
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return None if not np.isfinite(f) else f
    return v


def _matches(comm: str, name: str) -> bool:
    return re.fullmatch(re.escape(name[:15]) + r"(-[0-9]+)*", comm[:15]) is not None or comm == name[:15]


def _task_pids(acts: pd.DataFrame, scenario) -> dict[int, object]:
    """pid -> TaskSpec of the rt-app threads of the scenario."""
    out = {}
    for (pid, comm), _ in acts.groupby(["pid", "task"], sort=False):
        for spec in scenario.tasks:
            if _matches(str(comm), spec.name):
                out[int(pid)] = spec
                break
    return out


def _phase_starts(acts_pid: pd.DataFrame, spec) -> list[tuple[float, int]]:
    """(start time, util) of each test phase of one thread, then (end, 0)."""
    out = []
    for ph in range(spec.test_from, len(spec.duties_pct)):
        a = acts_pid[acts_pid["phase"] == ph]
        if len(a):
            out.append((float(a.index[0]), spec.util(ph)))
    if out:
        out.append((float(np.nanmax(acts_pid["end"].to_numpy(np.float64))), 0))
    return out


def noise_table(trace, window: tuple[float, float], exempt_pids, thresholds: Thresholds = Thresholds()) -> pd.DataFrame:
    """Running time of every task other than ``exempt_pids`` (and idle) in ``window``, as % of it.

    Returns
    -------
    pandas.DataFrame
        Index ``comm``; ``running_s``, ``pct``, ``limit_pct``, ``noisy``. rt-app's own main
        thread (``rt-app``) is part of the workload and not listed.
    """
    from ..analysis._common import running_intervals

    lo, hi = window
    iv = running_intervals(trace)
    iv = iv[(iv["pid"] > 0) & ~np.isin(iv["pid"].to_numpy(), list(exempt_pids))]
    s = np.clip(iv["start"].to_numpy(np.float64), lo, hi)
    e = np.clip(iv["end"].to_numpy(np.float64), lo, hi)
    dur = pd.Series(e - s, index=iv.index)
    comm = iv["comm"].astype(str) if "comm" in iv.columns else iv["pid"].astype(str)
    per = dur.groupby(comm.to_numpy()).sum()
    per = per[(per > 0) & ~per.index.str.startswith("rt-app")]
    span = max(hi - lo, 1e-12)
    out = pd.DataFrame({"running_s": per, "pct": 100.0 * per / span})
    lim = np.where(out.index.str.startswith("sugov:"), thresholds.noise_sugov_pct,
                   np.where(out.index.str.startswith("irq/"), thresholds.noise_irq_pct, thresholds.noise_pct))
    out["limit_pct"] = lim
    out["noisy"] = out["pct"] > out["limit_pct"]
    out.index.name = "comm"
    return out.sort_values("pct", ascending=False)


def _energy_check(trace, plat, scenario, pids, acts, window, era, th: Thresholds, em):
    from ..analysis import optimal_placement, placement_energy
    from ..analysis._common import running_intervals

    iv = running_intervals(trace)
    # per pid: step functions of util (phases) and of CPU (where it last ran)
    pts = {window[0], window[1]}
    util_steps, cpu_steps = {}, {}
    for pid, spec in pids.items():
        ph = _phase_starts(acts[acts["pid"] == pid], spec)
        if not ph:
            continue
        util_steps[pid] = (np.array([p[0] for p in ph]), np.array([p[1] for p in ph], np.int64))
        r = iv[iv["pid"] == pid]
        t = r["start"].to_numpy(np.float64)
        c = r["cpu"].to_numpy(np.int64)
        if not len(t):
            continue
        keep = np.r_[True, c[1:] != c[:-1]]
        cpu_steps[pid] = (t[keep], c[keep])
        pts.update(util_steps[pid][0].tolist())
        pts.update(t[keep].tolist())
    if not util_steps or not cpu_steps:
        return CheckResult("placement energy", UNDECIDED, None, scenario.energy_threshold_pct, "%",
                           "no activation or run of the scenario's tasks in the trace"), {}, {}
    times = np.array(sorted(p for p in pts if window[0] <= p <= window[1]))
    t0s, dts = times[:-1], np.diff(times)
    obs = np.zeros(len(t0s))
    opt = np.zeros(len(t0s))
    cache: dict = {}
    for k, t in enumerate(t0s):
        utils, cpus = [], []
        for pid, (ut, uv) in util_steps.items():
            j = np.searchsorted(ut, t, side="right") - 1
            if j < 0 or uv[j] == 0:
                continue
            ct, cv = cpu_steps.get(pid, (np.zeros(0), np.zeros(0, np.int64)))
            if not len(ct):
                continue
            i = max(np.searchsorted(ct, t, side="right") - 1, 0)
            utils.append(int(uv[j]))
            cpus.append(int(cv[i]))
        if not utils:
            continue
        key = tuple(sorted(utils))
        if key not in cache:
            try:
                cache[key] = optimal_placement(plat, list(key), era=era,
                                               capacity_margin_pct=th.capacity_margin_pct).energy
            except ModelError as exc:
                return CheckResult("placement energy", UNDECIDED, None, scenario.energy_threshold_pct, "%",
                                   f"no placement of utils {list(key)} fits the CPUs with the "
                                   f"{th.capacity_margin_pct:g} % margin ({exc})"), {}, {}
        opt[k] = cache[key]
        obs[k] = placement_energy(plat, utils, cpus, era=era, em=em)
    e_obs = float((obs * dts).sum())
    e_opt = float((opt * dts).sum())
    excess = 100.0 * (e_obs / e_opt - 1.0) if e_opt > 0 else float("nan")
    ok = e_obs < e_opt * (1 + scenario.energy_threshold_pct / 100.0)
    detail = (f"observed {e_obs:.4g} vs optimal {e_opt:.4g} (EM units x s, era {era}): "
              f"{excess:+.1f} % (limit +{scenario.energy_threshold_pct:g} %)")
    figures = {"energy_observed": e_obs, "energy_optimal": e_opt, "energy_excess_pct": excess,
               "energy_threshold_pct": scenario.energy_threshold_pct}
    series = {"t": (t0s - window[0]).round(6).tolist(), "power_observed": obs.tolist(), "power_optimal": opt.tolist()}
    return CheckResult("placement energy", PASS if ok else FAIL, excess, scenario.energy_threshold_pct, "%",
                       detail), figures, series


def _slack_check(acts, pids, th: Thresholds):
    worst, worst_name, rows = 0.0, "", []
    for pid, spec in pids.items():
        a = acts[(acts["pid"] == pid) & (acts["phase"] >= spec.test_from)]
        sl = a["slack_us"].to_numpy(np.float64)
        sl = sl[np.isfinite(sl)]
        if not len(sl):
            continue
        pct = 100.0 * float((sl < 0).sum()) / len(sl)
        rows.append(f"{spec.name}/{pid} {pct:.1f} %")
        if pct >= worst:
            worst, worst_name = pct, f"{spec.name} (pid {pid})"
    if not rows:
        return CheckResult("slack", UNDECIDED, None, th.negative_slack_pct, "%",
                           "no activation with a slack figure"), {}
    ok = worst <= th.negative_slack_pct
    return (CheckResult("slack", PASS if ok else FAIL, worst, th.negative_slack_pct, "%",
                        f"activations with negative slack: worst {worst_name} {worst:.1f} % "
                        f"(limit {th.negative_slack_pct:g} %); " + ", ".join(rows)),
            {"negative_slack_worst_pct": worst})


def _load_check(trace, plat, acts, pids, era, th: Thresholds):
    from ..analysis._load import kernel_task_util, model_task_util

    ku = kernel_task_util(trace)
    if ku is None:
        return CheckResult("load tracking", SKIPPED, None, th.util_mean_err_pct, "% of 1024",
                           "the trace has no kernel PELT signals (sched_pelt_se, or the simulator's "
                           "lisa_sim_task_util); record them to check load tracking"), {}
    sel = list(pids)
    ku = ku[np.isin(ku["pid"].to_numpy(), sel)]
    if not len(ku):
        return CheckResult("load tracking", SKIPPED, None, th.util_mean_err_pct, "% of 1024",
                           "no PELT sample of the scenario's tasks"), {}
    t = np.unique(ku.index.to_numpy(np.float64))
    first = ku.groupby("pid").head(1)
    init = {int(p): (float(ts), int(u)) for ts, p, u in zip(first.index, first["pid"], first["util"])}
    mu = model_task_util(trace, platform=plat, era=era, at=t, tasks=sel, init=init)
    k = ku.reset_index().rename(columns={"index": "Time"})
    k.columns = ["Time"] + list(k.columns[1:])
    m = mu.reset_index()
    m.columns = ["Time"] + list(m.columns[1:])
    j = pd.merge_asof(k.sort_values("Time"), m[["Time", "pid", "util"]].sort_values("Time"), on="Time",
                      by="pid", direction="backward", suffixes=("", "_model"))
    j = j.dropna(subset=["util_model"])
    err = np.abs(j["util"].to_numpy(np.float64) - j["util_model"].to_numpy(np.float64)) / 1024 * 100
    mean_err, max_err = (float(err.mean()), float(err.max())) if len(err) else (float("nan"), float("nan"))
    settled = []
    for pid, spec in pids.items():
        a = acts[acts["pid"] == pid]
        for ph in range(spec.test_from, len(spec.duties_pct)):
            if spec.phase_s[ph] < 1.0:
                continue
            ap = a[a["phase"] == ph]
            if len(ap) < 4:
                continue
            lo, hi = float(ap.index[len(ap) // 2]), float(ap["end"].max())
            kk = ku[(ku["pid"] == pid) & (ku.index >= lo) & (ku.index <= hi)]
            if len(kk):
                settled.append(abs(float(kk["util"].mean()) - spec.util(ph)) / 1024 * 100)
    settled_err = max(settled) if settled else float("nan")
    bad = []
    if mean_err > th.util_mean_err_pct:
        bad.append(f"mean |error| {mean_err:.2f} % > {th.util_mean_err_pct:g} %")
    if max_err > th.util_max_err_pct:
        bad.append(f"max |error| {max_err:.2f} % > {th.util_max_err_pct:g} %")
    if settled and settled_err > th.util_settled_pct:
        bad.append(f"settled util {settled_err:.2f} % off the duty cycle > {th.util_settled_pct:g} %")
    detail = (f"traced util vs PELT model over {len(err)} samples: mean |error| {mean_err:.2f} %, max "
              f"{max_err:.2f} % of 1024" + (f"; settled util vs duty cycle: worst {settled_err:.2f} %" if settled
                                            else "; no phase long enough to settle"))
    return (CheckResult("load tracking", FAIL if bad else PASS, mean_err, th.util_mean_err_pct, "% of 1024",
                        detail + ("; " + "; ".join(bad) if bad else "")),
            {"util_mean_err_pct": mean_err, "util_max_err_pct": max_err, "util_settled_err_pct": settled_err})


def check_scenario(trace, platform, scenario, *, iteration: int = 0, era: str = "v5.4",
                   thresholds: Thresholds = Thresholds(), lost_events: int | None = None,
                   unpinned_frequency: str | None = None, run_dir: str | None = None,
                   with_metrics: bool = True) -> ScenarioResult:
    """Run the suite's checks on ``trace`` of ``scenario`` and give the verdict.

    Parameters
    ----------
    trace : Trace
        Needs ``sched_switch`` and rt-app markers (``print``).
    platform : Platform or str
        The board (with an Energy Model).
    scenario : Scenario
        From :func:`build_scenario` for this platform.
    era : str
        Energy Model era for the costs (the board's kernel version).
    lost_events : int, optional
        Events the ring buffer lost (default: the trace's ``metadata["lost_events"]``).
    unpinned_frequency : str, optional
        Why a frequency the checks needed could not be pinned (makes the verdict UNDECIDED).

    Returns
    -------
    ScenarioResult
        FAIL when a check fails on a clean run; UNDECIDED when noise, lost events or an
        unpinned frequency make the run unfit to judge, or a check could not be computed;
        else PASS.
    """
    from ..analysis import df_rtapp_activations
    from ..analysis._common import check_platform
    from ..energy_model import EnergyModel

    plat = check_platform(trace, platform)
    em = EnergyModel.from_platform(plat, era=era)
    acts = df_rtapp_activations(trace)
    pids = _task_pids(acts, scenario)
    checks: list[CheckResult] = []
    figures: dict = {}
    series: dict = {}
    if not pids:
        c = CheckResult("tasks", UNDECIDED, None, None, "", "none of the scenario's rt-app tasks "
                        f"({', '.join(s.name for s in scenario.tasks)}) has activations in the trace")
        return ScenarioResult(scenario.name, iteration, UNDECIDED, c.detail, (c,), run_dir=run_dir)
    starts = []
    for pid, spec in pids.items():
        a = acts[(acts["pid"] == pid) & (acts["phase"] >= spec.test_from)]
        if len(a):
            starts.append(float(a.index[0]))
    lo = min(starts) if starts else float(acts.index[0])
    hi = float(np.nanmax(acts[np.isin(acts["pid"].to_numpy(), list(pids))]["end"].to_numpy(np.float64)))
    window = (lo, hi)
    figures["window_s"] = hi - lo
    # noise
    noise = noise_table(trace, window, set(pids), thresholds)
    noisy = noise[noise["noisy"]]
    lost = lost_events if lost_events is not None else trace.metadata.get("lost_events")
    reasons_undecided = []
    if len(noisy):
        reasons_undecided.append("noise: " + ", ".join(f"{c} ran {r.pct:.2f} % (limit {r.limit_pct:g} %)"
                                                       for c, r in noisy.head(5).iterrows()))
    if lost:
        reasons_undecided.append(f"the trace lost {int(lost)} events")
    if unpinned_frequency:
        reasons_undecided.append(f"frequency not pinned: {unpinned_frequency}")
    top = noise.head(1)
    checks.append(CheckResult("noise", UNDECIDED if reasons_undecided else PASS,
                              float(top["pct"].iat[0]) if len(top) else 0.0, thresholds.noise_pct, "%",
                              "; ".join(reasons_undecided) if reasons_undecided else
                              (f"noisiest other task {top.index[0]} {top['pct'].iat[0]:.2f} %" if len(top)
                               else "no other task ran")))
    figures["noise_top_pct"] = float(top["pct"].iat[0]) if len(top) else 0.0
    c, f, s = _energy_check(trace, plat, scenario, pids, acts, window, era, thresholds, em)
    checks.append(c)
    figures.update(f)
    series.update(s)
    c, f = _slack_check(acts, pids, thresholds)
    checks.append(c)
    figures.update(f)
    try:
        c, f = _load_check(trace, plat, acts, pids, era, thresholds)
    except LisaEasError as exc:
        c, f = CheckResult("load tracking", SKIPPED, None, None, "", f"not computed: {exc}"), {}
    checks.append(c)
    figures.update(f)
    metrics = {}
    if with_metrics:
        from ._metrics import run_metrics
        try:
            metrics = run_metrics(trace, plat, tasks=list(pids))
        except LisaEasError:
            metrics = {}
    deciding = [c for c in checks if c.name != "load tracking" or thresholds.load_tracking_in_verdict]
    failed = [c for c in deciding if c.verdict == FAIL]
    undecided = [c for c in deciding if c.verdict == UNDECIDED]
    if reasons_undecided:
        verdict, reason = UNDECIDED, "; ".join(reasons_undecided)
        if failed:
            reason += " (would have failed: " + "; ".join(f"{c.name}: {c.detail}" for c in failed) + ")"
    elif failed:
        verdict, reason = FAIL, "; ".join(f"{c.name}: {c.detail}" for c in failed)
    elif undecided:
        verdict, reason = UNDECIDED, "; ".join(f"{c.name}: {c.detail}" for c in undecided)
    else:
        verdict, reason = PASS, "; ".join(f"{c.name}: {c.detail}" for c in deciding if c.name != "noise"
                                          and c.verdict == PASS)
    return ScenarioResult(scenario.name, iteration, verdict, reason, tuple(checks), figures, series, metrics,
                          run_dir)
