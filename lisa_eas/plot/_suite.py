"""Plots of the EAS behaviour suite and of A/B comparisons (holoviews, bokeh backend)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import hv

__all__ = ["plot_ab_distributions", "plot_suite_energy", "plot_suite_power"]

_COLORS = {"PASS": "#2a9d2a", "FAIL": "#c62828", "UNDECIDED": "#e0a000"}


def plot_suite_energy(result):
    """Energy excess over the optimum (%) per scenario and iteration, with each threshold."""
    h = hv()
    rows = []
    for r in result.results:
        ex = r.figures.get("energy_excess_pct")
        if ex is None or not np.isfinite(ex):
            continue
        rows.append({"run": f"{r.scenario} #{r.iteration}", "excess_pct": float(ex), "verdict": r.verdict,
                     "threshold_pct": float(r.figures.get("energy_threshold_pct", np.nan))})
    df = pd.DataFrame(rows, columns=["run", "excess_pct", "verdict", "threshold_pct"])
    if df.empty:
        return h.Text(0, 0, "no energy figure").opts(title="placement energy vs optimum")
    bars = h.Bars(df, kdims=["run"], vdims=["excess_pct", "verdict"]).opts(
        color="verdict", cmap=_COLORS, xrotation=60, width=900, height=320, tools=["hover"],
        ylabel="energy above the optimum (%)", title="placement energy vs the exact optimum")
    lim = h.Scatter(df, kdims=["run"], vdims=["threshold_pct"]).opts(marker="dash", size=30, color="black")
    return bars * lim


def plot_suite_power(scenario_result):
    """EM power of the observed placement and of the optimum over the test window."""
    h = hv()
    s = scenario_result.series
    if not s.get("t"):
        return h.Text(0, 0, "no series").opts(title=scenario_result.scenario)
    t = np.asarray(s["t"], dtype=float)
    obs = h.Curve((t, np.asarray(s["power_observed"], dtype=float)), "time (s)", "EM power",
                  label="observed placement").opts(interpolation="steps-post")
    opt = h.Curve((t, np.asarray(s["power_optimal"], dtype=float)), "time (s)", "EM power",
                  label="optimal placement").opts(interpolation="steps-post", line_dash="dashed")
    return (obs * opt).opts(width=900, height=260, legend_position="top_left",
                            title=f"{scenario_result.scenario} #{scenario_result.iteration}: "
                                  f"{scenario_result.verdict}")


def plot_ab_distributions(comparison, metric: str):
    """The per-run values of ``metric`` on side A and side B, side by side."""
    h = hv()
    a = comparison.values_a.get(metric, [])
    b = comparison.values_b.get(metric, [])
    df = pd.DataFrame({"side": ["A"] * len(a) + ["B"] * len(b), metric: list(a) + list(b)})
    box = h.BoxWhisker(df, kdims=["side"], vdims=[metric]).opts(box_fill_color="#dde")
    pts = h.Scatter(df, kdims=["side"], vdims=[metric]).opts(jitter=0.3, size=6, color="#333", tools=["hover"])
    return (box * pts).opts(width=330, height=260, title=metric)
