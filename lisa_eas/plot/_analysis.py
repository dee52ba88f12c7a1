"""``plot_*`` views of the analyses (holoviews objects; bokeh backend)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import MAX_POINTS, downsample_steps, hold_to, hv, trace_end

__all__ = ["plot_cpu_frequency", "plot_cpu_idle_state_residency", "plot_cpu_util", "plot_energy", "plot_rtapp_slack",
           "plot_task_placement",
           "plot_task_util", "plot_wakeup_latency"]


def _steps(t, y, label, max_points):
    t, y = downsample_steps(t, y, max_points)
    return hv().Curve((t, y), "Time", label).opts(interpolation="steps-post")


def plot_task_placement(trace, tasks=None, *, max_segments: int = 20000):
    """Which CPU each task ran on over time (one horizontal segment per run).

    Runs shorter than a pixel are merged away beyond ``max_segments`` (the longest kept).
    """
    from ..analysis import df_task_placement

    from ._repro import task_segments

    df = df_task_placement(trace, tasks)
    if len(df) > max_segments:
        df = df.nlargest(max_segments, "duration").sort_index()
    segs = pd.DataFrame({"start": df.index.to_numpy(), "cpu": df["cpu"].to_numpy(float), "end": df["end"].to_numpy(),
                         "cpu_end": df["cpu"].to_numpy(float), "task": df["comm"].astype(str).to_numpy()})
    return task_segments(segs, np.unique(df["cpu"].to_numpy()), title="Task placement", max_segments=max_segments)


def plot_cpu_frequency(trace, platform=None, *, max_points: int = MAX_POINTS):
    """Each CPU's frequency over time (kHz), one step curve per CPU, held to the trace's last
    ``sched_switch``."""
    from ..analysis import df_cpu_frequency

    df = df_cpu_frequency(trace, platform)
    end = trace_end(trace, df)
    curves = {int(c): _steps(*hold_to(g.index.to_numpy(), g["frequency"].to_numpy(), end), "kHz", max_points)
              for c, g in df.groupby("cpu")}
    return hv().NdOverlay(curves, kdims="cpu").opts(width=900, height=300, title="CPU frequency")


def plot_task_util(trace, tasks=None, *, platform=None, max_points: int = MAX_POINTS):
    """Task ``util_avg`` over time (kernel PELT events, else the PELT model)."""
    from ..analysis import df_task_util

    df = df_task_util(trace, tasks, platform=platform)
    curves = {f"{g['comm'].iat[0]}-{pid}": _steps(g.index.to_numpy(), g["util"].to_numpy(), "util", max_points)
              for pid, g in df.groupby("pid")}
    return hv().NdOverlay(curves, kdims="task").opts(width=900, height=300,
                                                     title=f"Task util ({df.attrs.get('source')})")


def plot_cpu_util(trace, *, platform=None, max_points: int = MAX_POINTS):
    """Per-CPU root cfs_rq ``util_avg`` over time."""
    from ..analysis import df_cpu_util

    df = df_cpu_util(trace, platform=platform)
    curves = {int(c): _steps(g.index.to_numpy(), g["util"].to_numpy(), "util", max_points)
              for c, g in df.groupby("cpu")}
    return hv().NdOverlay(curves, kdims="cpu").opts(width=900, height=300,
                                                    title=f"CPU util ({df.attrs.get('source')})")


def plot_rtapp_slack(trace_or_acts):
    """Slack of each rt-app activation over time (negative: overrun).

    Parameters
    ----------
    trace_or_acts : Trace or DataFrame
        A trace (its activations come from :func:`lisa_eas.analysis.df_rtapp_activations`), or
        an activations table already built from it.
    """
    if isinstance(trace_or_acts, pd.DataFrame):
        acts = trace_or_acts
    else:
        from ..analysis import df_rtapp_activations
        acts = df_rtapp_activations(trace_or_acts)
    h = hv()
    pts = {t: h.Scatter((g.index.to_numpy(), g["slack_us"].to_numpy()), "Time", "slack (us)")
           for t, g in acts.groupby("task")}
    return (h.NdOverlay(pts, kdims="task") * h.HLine(0).opts(color="red")).opts(
        width=900, height=300, title="rt-app slack")


def plot_wakeup_latency(trace, tasks=None):
    """Distribution of wake-up latencies (us)."""
    from ..analysis import df_wakeup_latency

    df = df_wakeup_latency(trace, tasks)
    lat = df["latency_us"].to_numpy()
    edges = np.histogram_bin_edges(lat, bins=50) if len(lat) else np.linspace(0, 1, 2)
    return hv().Histogram(np.histogram(lat, edges), kdims=["latency (us)"]).opts(width=600, height=300,
                                                                         title="Wake-up latency")


def plot_energy(df_energy: pd.DataFrame):
    """Energy per CPU, split busy / idle (:func:`lisa_eas.analysis.df_energy`)."""
    long = pd.concat([pd.DataFrame({"cpu": df_energy.index.astype(str), "part": p, "energy": df_energy[c].to_numpy()})
                      for p, c in (("busy", "busy_energy"), ("idle", "idle_energy"))])
    return hv().Bars(long, ["cpu", "part"], "energy").opts(stacked=True, width=600, height=300,
                                                           title=f"Energy ({df_energy.attrs.get('unit', '')})")


def plot_cpu_idle_state_residency(trace, cpus=None):
    """Time each CPU spent running (``active``) and in each idle state, stacked per CPU."""
    from ..analysis import df_cpu_idle_state_residency

    df = df_cpu_idle_state_residency(trace, cpus)
    parts = [c for c in df.columns if c != "total"]
    long = pd.concat([pd.DataFrame({"cpu": [f"CPU{c}" for c in df.index], "state": p, "time (s)": df[p].to_numpy()})
                      for p in parts])
    return hv().Bars(long, ["cpu", "state"], "time (s)").opts(
        stacked=True, width=600, height=300, tools=["hover"], legend_position="right", show_legend=True,
        title="Idle-state residency per CPU")
