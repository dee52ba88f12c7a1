"""Plots of the reproduced experiments and of a run's trace (holoviews, bokeh backend).

* :func:`plot_published_vs_reproduced` - grouped bars, published beside reproduced, for any
  :class:`~lisa_eas.repro.ExperimentResult` (a ``series`` entry with ``label``, ``published``
  and ``reproduced`` lists);
* :func:`plot_sis_scan` - SIS_UTIL scan depth curves with the published points;
* :func:`plot_sis_scan_hist` - sis-efficiency: select_idle_cpu() time per log2 bucket, published
  beside the model's (each normalised to its total);
* :func:`plot_slack` - ramp-boost rt-app slack per activation, boost off and on;
* :func:`plot_frequency`, :func:`plot_cpu_timeline`, :func:`plot_energy_breakdown` - a Trace's
  frequency per CPU, the task running on each CPU over time, energy per CPU.

Trace plots decimate to ``max_points`` per series keeping each bin's first, min and max
sample (peaks survive), so they stay responsive on traces of millions of events.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["plot_cpu_timeline", "plot_energy_breakdown", "plot_frequency", "plot_published_vs_reproduced",
           "plot_sis_scan", "plot_sis_scan_hist", "plot_slack"]


def _hv():
    import holoviews as hv

    if hv.Store.current_backend != "bokeh" or "bokeh" not in hv.Store.renderers:
        hv.renderer("bokeh")
        hv.Store.set_current_backend("bokeh")
    return hv


def _bar_series(result) -> tuple[str, dict]:
    for key, s in result.series.items():
        if isinstance(s, dict) and {"label", "published", "reproduced"} <= set(s):
            return key, s
    raise ValueError(f"{result.name}: no series with 'label', 'published' and 'reproduced' values to plot")


def plot_published_vs_reproduced(result, *, width: int = 900, height: int = 320):
    """Grouped bars: the published value beside the reproduced one for each row of ``result``.

    Parameters
    ----------
    result : lisa_eas.repro.ExperimentResult
        A result of :func:`lisa_eas.reproduce`.

    Returns
    -------
    holoviews.Bars
    """
    hv = _hv()
    key, s = _bar_series(result)
    labels = s["label"]
    data = []
    for lab, p, r in zip(labels, s["published"], s["reproduced"]):
        data.append((str(lab), "published", np.nan if p is None else float(p)))
        data.append((str(lab), "reproduced", np.nan if r is None else float(r)))
    bars = hv.Bars(data, kdims=["row", "source"], vdims=[key])
    return bars.opts(width=width, height=height, xrotation=60, tools=["hover"], multi_level=False,
                     title=f"{result.name}: published vs reproduced ({key})", color="source",
                     cmap={"published": "#4c72b0", "reproduced": "#dd8452"}, show_legend=True)


def plot_sis_scan(result, *, width: int = 600, height: int = 320):
    """SIS_UTIL ``nr_idle_scan`` vs sum_util%: reproduced curves, published points."""
    hv = _hv()
    s = result.series["scan_nr"]
    w = np.asarray(s["llc_weight"])
    layers = []
    for weight in sorted(set(w.tolist())):
        m = w == weight
        x = np.asarray(s["sum_util_pct"])[m]
        layers.append(hv.Curve((x, np.asarray(s["reproduced"])[m]), "sum_util_pct", "scan_nr",
                               label=f"model, {weight} CPUs/LLC"))
        layers.append(hv.Scatter((x, np.asarray(s["published"])[m]), "sum_util_pct", "scan_nr",
                                 label=f"published, {weight} CPUs/LLC").opts(size=8))
    return hv.Overlay(layers).opts(width=width, height=height, title="SIS_UTIL scan depth vs LLC sum_util",
                                   legend_position="top_right")


def plot_sis_scan_hist(result, *, width: int = 700, height: int = 300):
    """select_idle_cpu() time per log2 us bucket: published (224 netperf) beside the model, as fractions.

    Parameters
    ----------
    result : lisa_eas.repro.ExperimentResult
        The ``sis-efficiency`` result (its ``series["scan_hist"]``).

    Returns
    -------
    holoviews.Bars
    """
    hv = _hv()
    s = result.series["scan_hist"]
    data = []
    for source, los, counts in (("published", s["published_lo_us"], s["published"]),
                                ("model", s["bucket_lo_us"], s["model"])):
        total = float(sum(counts)) or 1.0
        for lo, n in zip(los, counts):
            data.append((f"{int(lo)}", source, n / total))
    order = sorted({d[0] for d in data}, key=int)
    bars = hv.Bars(sorted(data, key=lambda d: (order.index(d[0]), d[1])), kdims=["bucket_lo_us", "source"],
                   vdims=["fraction"])
    return bars.opts(width=width, height=height, xrotation=60, tools=["hover"], multi_level=False, color="source",
                     cmap={"published": "#4c72b0", "model": "#dd8452"}, show_legend=True,
                     title="select_idle_cpu() time, log2 us buckets (224 netperf, SIS_PROP)")


def plot_slack(result, *, width: int = 900, height: int = 300):
    """rt-app slack of every activation with ramp boost off and on (ramp-boost experiment)."""
    hv = _hv()
    s = result.series["slack"]
    curves = [hv.Scatter((np.asarray(s[k]["time_s"]), np.asarray(s[k]["slack_us"])), "time_s", "slack_us",
                         label=f"ramp boost {k}").opts(size=3) for k in ("off", "on")]
    return hv.Overlay(curves).opts(width=width, height=height, title="rt-app slack per activation (simulated)",
                                   legend_position="bottom_right")


def _decimate(x: np.ndarray, y: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Keep each bin's first, min and max sample: at most ``max_points`` points, peaks kept."""
    n = len(x)
    if n <= max_points:
        return x, y
    bins = max(1, max_points // 3)
    edges = np.linspace(0, n, bins + 1).astype(np.int64)
    keep = []
    for a, b in zip(edges[:-1], edges[1:]):
        if b <= a:
            continue
        seg = y[a:b]
        keep += [a, a + int(np.argmin(seg)), a + int(np.argmax(seg))]
    idx = np.unique(np.asarray(keep, dtype=np.int64))
    return x[idx], y[idx]


def plot_frequency(trace, *, max_points: int = 3000, width: int = 900, height: int = 280):
    """Frequency of each CPU over time, from the trace's ``cpu_frequency`` events (step curves)."""
    hv = _hv()
    df = trace.df("cpu_frequency")
    curves = []
    for cpu, g in df.groupby("cpu_id" if "cpu_id" in df.columns else "__cpu"):
        x, y = _decimate(g.index.to_numpy(), g["state"].to_numpy(np.float64) / 1000.0, max_points)
        curves.append(hv.Curve((x, y), "time_s", "freq_MHz", label=f"CPU{cpu}").opts(interpolation="steps-post"))
    return hv.Overlay(curves).opts(width=width, height=height, title="CPU frequency", legend_position="right")


def plot_cpu_timeline(trace, *, max_segments: int = 20000, width: int = 900, height: int = 300):
    """Which task ran on each CPU, from ``sched_switch`` (one segment per run, idle omitted)."""
    hv = _hv()
    df = trace.df("sched_switch")
    t = df.index.to_numpy()
    cpu = df["__cpu"].to_numpy()
    nxt = df["next_comm"].astype(str).to_numpy()
    pid = df["next_pid"].to_numpy()
    rows: list[tuple[Any, ...]] = []
    t_end = float(t[-1]) if len(t) else 0.0
    for c in np.unique(cpu):
        m = np.flatnonzero(cpu == c)
        starts = t[m]
        ends = np.append(starts[1:], t_end)
        for s_, e_, comm, p in zip(starts, ends, nxt[m], pid[m]):
            if p != 0 and e_ > s_:
                rows.append((float(s_), float(c), float(e_), float(c), comm))
    if len(rows) > max_segments:
        step = int(np.ceil(len(rows) / max_segments))
        rows = rows[::step]
    seg = hv.Segments(rows, kdims=["start", "cpu", "end", "cpu_end"], vdims=["task"])
    return seg.opts(width=width, height=height, line_width=10, color="task", cmap="Category20", tools=["hover"],
                    title="Task per CPU (sched_switch)", xlabel="time_s", ylabel="CPU", show_legend=False)


def plot_energy_breakdown(trace, *, width: int = 500, height: int = 280):
    """Energy per CPU of a simulated run (``trace.metadata['energy']['per_cpu']``)."""
    hv = _hv()
    e = trace.metadata.get("energy") or {}
    per_cpu = e.get("per_cpu")
    if per_cpu is None:
        raise ValueError("the trace carries no energy (a simulated run on a platform with power data has it)")
    vals = list(per_cpu.values()) if isinstance(per_cpu, dict) else list(per_cpu)
    data = [(f"CPU{i}", float(v)) for i, v in enumerate(vals)]
    return hv.Bars(data, kdims=["cpu"], vdims=[f"energy ({e.get('unit', '')})"]).opts(
        width=width, height=height, tools=["hover"], title="Energy per CPU")
