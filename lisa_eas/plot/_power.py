"""Plots of measured power rails and of an energy-model fit (holoviews; bokeh backend)."""
from __future__ import annotations

import numpy as np

from ._common import hv

__all__ = ["plot_power_rails", "plot_rail_fit", "plot_fitted_power"]


def plot_power_rails(trace, rails=None, *, width: int = 900, height: int = 300):
    """Mean power of each rail between its samples (mW), one step curve per rail."""
    from ..analysis import df_power_rails

    df = df_power_rails(trace, rails)
    h = hv()
    curves = []
    for rail, g in df.groupby(df["rail"].astype(str), sort=True):
        g = g[np.isfinite(g["power_mw"].to_numpy())]
        curves.append(h.Curve((g.index.to_numpy(), g["power_mw"].to_numpy()), "Time",
                              "power_mw", label=rail).opts(interpolation="steps-pre"))
    return h.Overlay(curves).opts(width=width, height=height, xlabel="Time (s)",
                                  ylabel="power (mW)", title="Power rails", legend_position="right")


def plot_rail_fit(fit, *, width: int = 900, height: int = 260):
    """Measured vs predicted energy per rail interval of an
    :class:`~lisa_eas.analysis.EnergyModelFit`, the held-out part shaded."""
    h = hv()
    panels = []
    for rail, g in fit.residuals.groupby("rail", sort=False):
        t = g["start"].to_numpy()
        p_meas = g["measured_mj"].to_numpy() / (g["end"] - g["start"]).to_numpy()
        p_pred = g["predicted_mj"].to_numpy() / (g["end"] - g["start"]).to_numpy()
        split = g.loc[g["set"] == "heldout", "start"].min()
        span = h.VSpan(split, g["end"].max()).opts(color="grey", alpha=0.15)
        panels.append((h.Curve((t, p_meas), "Time", "mW", label="measured")
                       * h.Curve((t, p_pred), "Time", "mW", label="model") * span).opts(
            width=width, height=height, title=f"{rail}: measured vs fitted model "
                                              f"(held-out part shaded)", xlabel="Time (s)",
            ylabel="power (mW)", legend_position="right"))
    return h.Layout(panels).cols(1).opts(shared_axes=False)


def plot_fitted_power(platform, *, width: int = 600, height: int = 320):
    """Per-CPU active power per OPP of each perf domain (log scale), fitted OPPs marked."""
    from ..platform import Platform, load_platform

    plat = platform if isinstance(platform, Platform) else load_platform(platform)
    h = hv()
    items = []
    for d in plat.perf_domains:
        f = np.array(d.freqs_khz) / 1e3
        p = np.array([o.power_mw for o in d.opps], float)
        obs = np.array([o.extra.get("fit_status") == "observed" for o in d.opps])
        items.append(h.Curve((f, p), "MHz", "mW", label=d.name))
        if obs.any():
            items.append(h.Scatter((f[obs], p[obs]), "MHz", "mW", label=f"{d.name} fitted")
                         .opts(size=7))
    return h.Overlay(items).opts(width=width, height=height, logy=True, xlabel="frequency (MHz)",
                                 ylabel="power per busy CPU (mW)", title=f"{plat.name}: power per OPP",
                                 legend_position="right")
