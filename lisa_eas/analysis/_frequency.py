"""Frequency analyses: residency and transitions per CPU / policy, and the sched-freq
slides' governor overhead and overruns against performance / powersave reference runs."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ModelError
from ._common import declare_events, platform_or_none, trace_span

__all__ = ["df_cpu_frequency", "df_frequency_residency", "df_frequency_transitions", "df_governor_comparison",
           "governor_overhead"]


@declare_events("cpu_frequency")
def df_cpu_frequency(trace, platform=None) -> pd.DataFrame:
    """Each CPU's frequency over time (kHz): one row per change, with its duration.

    With ``platform``, a ``cpu_frequency`` event of one CPU applies to every CPU of its
    perf domain (some kernels only trace the policy's first CPU).

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (s); columns ``cpu``, ``frequency`` (kHz), ``duration`` (s, to the
        CPU's next change or the end of the trace).
    """
    platform = platform_or_none(trace, platform)
    df = trace.df("cpu_frequency")
    cpu = np.asarray(df["cpu_id"], dtype=np.int64)
    t = df.index.to_numpy(np.float64)
    f = np.asarray(df["state"], dtype=np.int64)
    if platform is not None:
        ts, cs, fs = [t], [cpu], [f]
        for pd_ in platform.perf_domains:
            for c in pd_.cpus:
                others = [o for o in pd_.cpus if o != c]
                sel = np.isin(cpu, others)
                if sel.any():
                    ts.append(t[sel])
                    cs.append(np.full(sel.sum(), c))
                    fs.append(f[sel])
        t, cpu, f = np.concatenate(ts), np.concatenate(cs), np.concatenate(fs)
        keep = ~pd.DataFrame({"t": t, "c": cpu}).duplicated().to_numpy()
        t, cpu, f = t[keep], cpu[keep], f[keep]
    o = np.lexsort((t, cpu))
    t, cpu, f = t[o], cpu[o], f[o]
    _, t_end = trace_span(trace)
    same = np.r_[cpu[1:] == cpu[:-1], False]
    end = np.where(same, np.r_[t[1:], 0.0], t_end)
    out = pd.DataFrame({"cpu": cpu, "frequency": f, "duration": end - t}, index=pd.Index(t, name="Time"))
    return out.sort_index(kind="stable")


@declare_events("cpu_frequency")
def df_frequency_residency(trace, platform=None, *, per="cpu") -> pd.DataFrame:
    """Time spent at each frequency, per CPU or per policy (perf domain).

    Time before a CPU's first ``cpu_frequency`` event is not counted (unknown frequency).

    Parameters
    ----------
    per : {"cpu", "domain"}
        ``"domain"`` needs ``platform``; a domain's residency is its first CPU's.

    Returns
    -------
    pandas.DataFrame
        Index (``cpu`` or ``domain``, ``frequency``); columns ``time_s``, ``share_pct``.
    """
    platform = platform_or_none(trace, platform)
    fr = df_cpu_frequency(trace, platform)
    if per == "domain":
        if platform is None:
            raise ModelError("per='domain' needs the platform")
        first = {pd_.cpus[0]: pd_.name for pd_ in platform.perf_domains}
        fr = fr[fr["cpu"].isin(list(first))].copy()
        fr["domain"] = fr["cpu"].map(first)
        key = "domain"
    elif per == "cpu":
        key = "cpu"
    else:
        raise ModelError(f"per must be 'cpu' or 'domain', got {per!r}")
    res = fr.groupby([key, "frequency"])["duration"].sum().rename("time_s").to_frame()
    res["share_pct"] = 100.0 * res["time_s"] / res.groupby(level=0)["time_s"].transform("sum")
    return res


@declare_events("cpu_frequency")
def df_frequency_transitions(trace, platform=None) -> pd.DataFrame:
    """Number of frequency changes per CPU (a repeated event at the same frequency is not a change).

    Returns
    -------
    pandas.DataFrame
        Index ``cpu``; ``transitions``, ``transitions_per_s``, ``up``, ``down``.
    """
    fr = df_cpu_frequency(trace, platform)
    lo, hi = trace_span(trace)
    rows = {}
    for cpu, g in fr.groupby("cpu"):
        d = np.diff(g["frequency"].to_numpy())
        n = int((d != 0).sum())
        rows[int(cpu)] = {"transitions": n, "transitions_per_s": n / (hi - lo) if hi > lo else np.nan,
                          "up": int((d > 0).sum()), "down": int((d < 0).sum())}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "cpu"
    return out


def governor_overhead(t_gov: float, t_perf: float, t_powersave: float) -> float:
    """The sched-freq slides' overhead ``OH = (t_gov - t_perf) / (t_powersave - t_perf)``.

    ``t_*`` are the same metric (typically the mean busy time per activation, e.g.
    ``df_rtapp_stats(...)["run_us_mean"]``) measured with the governor under test, with
    performance and with powersave. 0 = as fast as performance, 1 = as slow as powersave.

    Returns
    -------
    float
        The overhead as a fraction (multiply by 100 for %).

    Raises
    ------
    ModelError
        ``t_powersave == t_perf`` (the references do not bracket anything).
    """
    t_gov, t_perf, t_powersave = float(t_gov), float(t_perf), float(t_powersave)
    if not np.isfinite([t_gov, t_perf, t_powersave]).all():
        raise ModelError("governor_overhead: the three times must be finite numbers")
    if t_powersave == t_perf:
        raise ModelError("governor_overhead: the powersave and performance references are equal "
                         f"({t_perf}); OH is undefined (is the frequency pinned?)")
    return (t_gov - t_perf) / (t_powersave - t_perf)


def df_governor_comparison(runs: dict, *, performance: str = "performance",
                           powersave: str = "powersave") -> pd.DataFrame:
    """OH and overruns of several governors over the same rt-app workload.

    Parameters
    ----------
    runs : dict
        Governor name -> :func:`~lisa_eas.analysis.df_rtapp_activations` DataFrame (from a
        trace or logs), including the ``performance`` and ``powersave`` references.

    Returns
    -------
    pandas.DataFrame
        Index (``task``, ``governor``); ``run_us_mean``, ``overhead_pct``, ``overruns``,
        ``activations``.
    """
    from ._rtapp import df_rtapp_stats

    for ref in (performance, powersave):
        if ref not in runs:
            raise ModelError(f"df_governor_comparison needs the {ref!r} reference run")
    stats = {g: df_rtapp_stats(a) for g, a in runs.items()}
    rows = []
    for g, st in stats.items():
        for task, r in st.iterrows():
            tp = stats[performance].loc[task, "run_us_mean"]
            tps = stats[powersave].loc[task, "run_us_mean"]
            rows.append({"task": task, "governor": g, "run_us_mean": r["run_us_mean"],
                         "overhead_pct": 100.0 * governor_overhead(r["run_us_mean"], tp, tps),
                         "overruns": int(r["overruns"]), "activations": int(r["activations"])})
    return pd.DataFrame(rows).set_index(["task", "governor"])


