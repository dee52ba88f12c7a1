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

import numpy as np

from ._common import downsample_steps, hold_to, trace_end

__all__ = ["plot_cpu_timeline", "plot_energy_breakdown", "plot_frequency", "plot_published_vs_reproduced",
           "plot_sis_scan", "plot_sis_scan_hist", "plot_slack", "plot_workload_phases"]


def _hv():
    from ._common import hv

    return hv()


def _bar_series(result) -> tuple[str, dict]:
    for key, s in result.series.items():
        if isinstance(s, dict) and {"label", "published", "reproduced"} <= set(s):
            return key, s
    raise ValueError(f"{result.name}: no series with 'label', 'published' and 'reproduced' values to plot")


#: One colour per source, the same in every chart (the legend names the source).
SOURCE_COLORS = {"published": "#4c72b0", "reproduced": "#dd8452", "model": "#dd8452"}


def plot_published_vs_reproduced(result, *, width: int = 900, height: int | None = None):
    """Horizontal grouped bars: for each row of ``result``, the published value beside the reproduced one.

    The bars are coloured by source (published / reproduced), so the legend is right whatever
    the number of rows; rows run down the page (one line per row), so 60 rows stay readable.

    Parameters
    ----------
    result : lisa_eas.repro.ExperimentResult
        A result of :func:`lisa_eas.reproduce`.
    width : int
    height : int, optional
        Default: 22 px per row (at least 260).

    Returns
    -------
    holoviews.Bars
    """
    import pandas as pd

    hv = _hv()
    key, s = _bar_series(result)
    labels = [str(x) for x in s["label"]]
    data = []
    for lab, p, r in zip(labels, s["published"], s["reproduced"]):
        data.append((lab, "published", np.nan if p is None else float(p)))
        data.append((lab, "reproduced", np.nan if r is None else float(r)))
    df = pd.DataFrame(data, columns=["row", "source", key])
    # invert_axes draws the first row at the bottom: reverse so the chart reads like the table
    df = df.iloc[::-1].reset_index(drop=True)
    bars = hv.Bars(df, kdims=["row", "source"], vdims=[key])
    return bars.opts(width=width, height=height or max(260, 70 + 26 * len(labels)), invert_axes=True,
                     multi_level=True, tools=["hover"], color="source", cmap=SOURCE_COLORS, show_legend=True,
                     legend_position="right", title=f"{result.name}: published vs reproduced ({key})",
                     xlabel="", ylabel=key, show_grid=True, hooks=[_row_labels_horizontal])


def _row_labels_horizontal(plot, element):
    """Row names written horizontally on the factor axis; the per-bar source (in the legend) hidden."""
    ax = plot.state.yaxis[0]
    ax.group_label_orientation = "horizontal"
    ax.major_label_text_font_size = "0px"
    ax.group_text_font_size = "12px"
    ax.group_text_color = "#222"


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
    return bars.opts(width=width, height=height, xrotation=60, tools=["hover"], multi_level=True, color="source",
                     cmap=SOURCE_COLORS, show_legend=True, legend_position="top_right", xlabel="bucket (us)",
                     title="select_idle_cpu() time, log2 us buckets (224 netperf, SIS_PROP)")


def plot_slack(result, *, width: int = 900, height: int = 300):
    """rt-app slack of every activation with ramp boost off and on (ramp-boost experiment)."""
    hv = _hv()
    s = result.series["slack"]
    curves = [hv.Scatter((np.asarray(s[k]["time_s"]), np.asarray(s[k]["slack_us"])), "time_s", "slack_us",
                         label=f"ramp boost {k}").opts(size=3) for k in ("off", "on")]
    return hv.Overlay(curves).opts(width=width, height=height, title="rt-app slack per activation (simulated)",
                                   legend_position="bottom_right")


def plot_frequency(trace, *, max_points: int = 3000, width: int = 900, height: int = 280):
    """Frequency of each CPU over time, from the trace's ``cpu_frequency`` events (step curves,
    each held to the trace's last ``sched_switch``: the last frequency set is the CPU's frequency
    until the end of the run)."""
    hv = _hv()
    df = trace.df("cpu_frequency")
    end = trace_end(trace, df)
    curves = []
    for cpu, g in df.groupby("cpu_id" if "cpu_id" in df.columns else "__cpu"):
        x, y = downsample_steps(*hold_to(g.index.to_numpy(np.float64), g["state"].to_numpy(np.float64) / 1000.0,
                                         end), max_points)
        curves.append(hv.Curve((x, y), "time_s", "freq_MHz", label=f"CPU{cpu}").opts(interpolation="steps-post"))
    return hv.Overlay(curves).opts(width=width, height=height, title="CPU frequency", legend_position="right",
                                   xlabel="time (s)", ylabel="frequency (MHz)")


_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
            "#bcbd22", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5"]


def task_segments(seg, cpus, *, title: str, max_segments: int = 20000, max_tasks: int = 12, width: int = 900,
                  height: int | None = None):
    """Run segments (columns ``start``, ``cpu``, ``end``, ``cpu_end``, ``task``) drawn one line per CPU.

    The CPU axis is discrete (``CPU<n>`` ticks); the ``max_tasks`` tasks that ran longest each
    get a colour and a legend entry, the others are drawn grey as ``other``; beyond
    ``max_segments`` segments every n-th is kept.
    """
    hv = _hv()
    cpus = sorted(int(c) for c in cpus)
    if len(seg):
        busy = (seg["end"] - seg["start"]).groupby(seg["task"]).sum().sort_values(ascending=False)
        named = [str(x) for x in busy.index[:max_tasks]]
        seg = seg.assign(task=seg["task"].astype(str).where(seg["task"].astype(str).isin(named), "other"))
    else:
        named = []
    if len(seg) > max_segments:
        seg = seg.iloc[::int(np.ceil(len(seg) / max_segments))]
    cmap = {name: _PALETTE[i % len(_PALETTE)] for i, name in enumerate(named)}
    cmap["other"] = "#bbbbbb"
    kd = ["start", "cpu", "end", "cpu_end"]
    layers = [hv.Segments(seg[seg["task"] == name], kdims=kd, vdims=["task"], label=name).opts(
        color=cmap[name], line_width=12, line_alpha=1.0, tools=["hover"])
        for name in named + ["other"] if (seg["task"] == name).any()] or [hv.Segments(seg, kdims=kd, vdims=["task"])]
    if len(named) == 1:
        title = f"{title}: {named[0]}"
    # tall enough for one line per CPU and for the legend (one entry per named task + other)
    auto_height = max(200, 80 + 28 * len(cpus), 70 + 21 * len(layers))
    return hv.Overlay(layers).opts(width=width, height=height or auto_height, title=title, xlabel="time (s)",
                                   ylabel="", yticks=[(float(c), f"CPU{c}") for c in cpus],
                                   ylim=(min(cpus, default=0) - 0.6, max(cpus, default=0) + 0.6),
                                   show_legend=True, legend_position="right")


def plot_cpu_timeline(trace, *, max_segments: int = 20000, max_tasks: int = 12, width: int = 900,
                      height: int | None = None):
    """Which task ran on each CPU, from ``sched_switch`` (one segment per run, idle omitted).

    The CPU axis is discrete (one labelled line per CPU); the ``max_tasks`` tasks that ran
    longest each get a colour and a legend entry, the others are drawn grey as ``other``.
    """
    import pandas as pd

    df = trace.df("sched_switch")
    t = df.index.to_numpy(np.float64)
    cpu = df["__cpu"].to_numpy().astype(np.int64)
    t_end = float(t[-1]) if len(t) else 0.0
    order = np.lexsort((np.arange(len(t)), cpu))      # by CPU, in time order within a CPU
    t, cpu = t[order], cpu[order]
    nxt = df["next_comm"].astype(str).to_numpy()[order]
    pid = df["next_pid"].to_numpy()[order]
    end = np.empty_like(t)
    if len(t):
        same = cpu[1:] == cpu[:-1]
        end[:-1] = np.where(same, t[1:], t_end)       # a run lasts until the CPU's next switch
        end[-1] = t_end
    keep = (pid != 0) & (end > t)                     # idle omitted
    seg = pd.DataFrame({"start": t[keep], "cpu": cpu[keep].astype(float), "end": end[keep],
                        "cpu_end": cpu[keep].astype(float), "task": nxt[keep]})
    cpus = np.unique(cpu)
    return task_segments(seg, cpus, title="Task per CPU (sched_switch)", max_segments=max_segments,
                         max_tasks=max_tasks, width=width, height=height)


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


def plot_workload_phases(workload, *, max_tasks: int = 6, max_time_s: float = 60.0, width: int = 900,
                         height: int = 260):
    """The nominal duty cycle of each task of an rt-app workload over time, phase by phase.

    Each phase contributes its configured busy / period for its nominal duration (loops x
    period), repeated as many times as the task loops (drawn up to ``max_time_s``). Tasks
    with identical phases (``identical_tasks``) are drawn once, labelled ``name xN``.

    Parameters
    ----------
    workload : lisa_eas.rtapp.Workload
    max_tasks : int
        Distinct task shapes drawn.
    max_time_s : float
        Time axis cut-off.

    Returns
    -------
    holoviews.Overlay
    """
    hv = _hv()
    shapes: dict[tuple, list[str]] = {}
    for t in workload.tasks:
        key = (tuple((p.duty_cycle, p.duration_us) for p in t.phases), t.loop)
        shapes.setdefault(key, []).extend([t.name] * max(1, t.instance or 1))
    curves = []
    for (phases, loop), names in list(shapes.items())[:max_tasks]:
        xs, ys, t0 = [], [], 0.0
        reps = 1 if loop is None else (loop if loop > 0 else 10**6)
        for _ in range(reps):
            for dc, dur in phases:
                if dur is None or t0 >= max_time_s:
                    break
                xs += [t0, t0 + dur / 1e6]
                ys += [100.0 * (dc or 0.0)] * 2
                t0 += dur / 1e6
            if t0 >= max_time_s:
                break
        label = names[0] if len(names) == 1 else f"{names[0]} x{len(names)}"
        curves.append(hv.Curve((xs, ys), "time (s)", "duty cycle (%)", label=label))
    return hv.Overlay(curves).opts(width=width, height=height, title="Workload: nominal duty cycle per phase",
                                   legend_position="right", ylim=(0, 105), show_legend=True)
