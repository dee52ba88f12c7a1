"""One run's figures for an A/B comparison: energy, slack, overruns, wake-up latency,
residencies, migrations and (optionally) EAS agreement with the model.

Every metric is a scalar per run, named so its direction is known (:data:`LOWER_IS_BETTER`
and :data:`HIGHER_IS_BETTER`; the others, residencies, only describe).
"""
from __future__ import annotations

import numpy as np

from ..errors import LisaEasError

__all__ = ["HIGHER_IS_BETTER", "LOWER_IS_BETTER", "METRIC_DOC", "metric_direction", "run_metrics"]

#: metric -> what it is (units in the name)
METRIC_DOC = {
    "energy": "EM energy estimate of the run (platform power unit x s; the meter's reading when "
              "the run has one)",
    "slack_mean_us": "mean rt-app slack of the activations",
    "negative_slack_mean_us": "mean of the negative slacks (0 when none)",
    "overrun_pct": "activations that ended after their deadline (negative slack), %",
    "wakeup_latency_p50_us": "median wake-up latency of the rt-app threads",
    "wakeup_latency_p99_us": "99th percentile wake-up latency of the rt-app threads",
    "migrations": "migrations of the rt-app threads",
    "eas_agreement_pct": "wake-ups where the kernel chose the CPU the EAS model chose, %",
}
LOWER_IS_BETTER = ("energy", "overrun_pct", "wakeup_latency_p50_us", "wakeup_latency_p99_us", "migrations")
HIGHER_IS_BETTER = ("slack_mean_us", "negative_slack_mean_us", "eas_agreement_pct")


def metric_direction(name: str) -> int:
    """-1 when lower is better, +1 when higher is better, 0 when the metric only describes."""
    if name in LOWER_IS_BETTER:
        return -1
    if name in HIGHER_IS_BETTER:
        return 1
    return 0


def _rtapp_pids(trace, acts):
    return sorted(int(p) for p in acts["pid"].unique()) if "pid" in acts.columns else []


def run_metrics(trace=None, platform=None, *, logs=None, tasks=None, eas_agreement: bool = False,
                era: str = "v5.4", meter_energy: float | None = None) -> dict:
    """The A/B metrics of one run.

    Parameters
    ----------
    trace : Trace, optional
        The run's trace (simulated or recorded). Without it only the rt-app log metrics exist.
    platform : Platform or str, optional
        Needed for the energy estimate (with power data) and the frequency residency.
    logs : optional
        rt-app logs (:func:`lisa_eas.analysis.df_rtapp_activations`); used for slack when given.
    tasks : list of pid, optional
        The threads measured (default: every rt-app thread of the trace).
    eas_agreement : bool
        Also replay the EAS decisions (:func:`lisa_eas.analysis.validate.validate`; slower).
    meter_energy : float, optional
        Energy read from a meter: reported as ``energy`` instead of the estimate.

    Returns
    -------
    dict
        Metric name -> float (see :data:`METRIC_DOC`; plus ``residency_cpu<N>_pct`` and
        ``freq_mean_khz_<domain>``).
    """
    from ..analysis import (df_frequency_residency, df_migrations, df_rtapp_activations, df_task_placement,
                            df_wakeup_latency, energy_summary)

    out: dict = {}
    acts = df_rtapp_activations(trace, logs=logs) if (trace is not None or logs is not None) else None
    if acts is not None and len(acts):
        sl = acts["slack_us"].to_numpy(np.float64)
        sl = sl[np.isfinite(sl)]
        if len(sl):
            out["slack_mean_us"] = float(sl.mean())
            neg = sl[sl < 0]
            out["negative_slack_mean_us"] = float(neg.mean()) if len(neg) else 0.0
            out["overrun_pct"] = 100.0 * len(neg) / len(sl)
        out["activations"] = float(len(acts))
    if trace is None:
        return out
    if tasks is None and acts is not None and "pid" in acts.columns:
        tasks = _rtapp_pids(trace, acts)
    plat = None
    if platform is not None:
        from ..analysis._common import check_platform
        plat = check_platform(trace, platform)
    if meter_energy is not None:
        out["energy"] = float(meter_energy)
    elif plat is not None and plat.perf_domains and all(d.has_power for d in plat.perf_domains):
        out["energy"] = energy_summary(trace, plat)["total"]
    if "sched_switch" in trace.events and tasks:
        if "sched_wakeup" in trace.events:
            lat = df_wakeup_latency(trace, tasks=tasks)["latency_us"].to_numpy(np.float64)
            if len(lat):
                out["wakeup_latency_p50_us"] = float(np.percentile(lat, 50))
                out["wakeup_latency_p99_us"] = float(np.percentile(lat, 99))
        out["migrations"] = float(len(df_migrations(trace, tasks=tasks)))
        pl = df_task_placement(trace, tasks=tasks)
        tot = float(pl["duration"].sum())
        if tot > 0:
            per = pl.groupby("cpu")["duration"].sum()
            n = plat.nr_cpus if plat is not None else int(per.index.max()) + 1
            for c in range(n):
                out[f"residency_cpu{c}_pct"] = 100.0 * float(per.get(c, 0.0)) / tot
    if plat is not None and "cpu_frequency" in trace.events and plat.perf_domains:
        try:
            fr = df_frequency_residency(trace, plat, per="domain")
        except LisaEasError:
            fr = None
        if fr is not None and len(fr):
            out.update(_freq_means(fr, plat))
    if eas_agreement and plat is not None:
        from ..analysis.validate import validate
        s = validate(trace, plat, era=era).summary["eas"]
        if s.get("wakeups"):
            out["eas_agreement_pct"] = float(s["agreement_pct"])
    return out


def _freq_means(fr, plat) -> dict:
    """Time-weighted mean frequency per perf domain from ``df_frequency_residency``."""
    out = {}
    cols = {c.lower(): c for c in fr.columns}
    time_col = next((cols[c] for c in ("time_s", "seconds", "residency_s", "time") if c in cols), None)
    if time_col is None:
        return out
    df = fr.reset_index()
    fcol = next((c for c in df.columns if str(c).lower() in ("frequency", "freq_khz", "freq")), None)
    dcol = next((c for c in df.columns if str(c).lower() in ("domain", "cpu")), None)
    if fcol is None or dcol is None:
        return out
    for key, g in df.groupby(dcol):
        w = g[time_col].to_numpy(np.float64)
        if w.sum() <= 0:
            continue
        name = key if dcol == "domain" else plat.domain_of(int(key)).name
        out[f"freq_mean_khz_{name}"] = float((g[fcol].to_numpy(np.float64) * w).sum() / w.sum())
    return out
