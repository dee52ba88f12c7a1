"""Views of a :class:`~lisa_eas.analysis.validate.ValidationReport` and its standalone HTML."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import hv

__all__ = ["plot_eas_agreement", "plot_eas_regret", "plot_pelt_error", "plot_schedutil", "validation_html",
           "write_validation"]


def plot_eas_agreement(report):
    """Each EAS wake-up: task util vs time, agreeing (green) or not (red) with the model."""
    h = hv()
    df = report.eas
    if df.empty:
        return h.Scatter([], "time", "task_util").opts(title="EAS: no wake-ups replayed")
    d = pd.DataFrame({"time": df["time"], "task_util": df["task_util"],
                      "agree": np.where(df["agree"], "agree", "disagree"), "kernel_cpu": df["kernel_cpu"],
                      "model_cpu": df["model_cpu"], "comm": df["comm"].astype(str)})
    return h.Scatter(d, "time", ["task_util", "agree", "kernel_cpu", "model_cpu", "comm"]).opts(
        color="agree", cmap={"agree": "green", "disagree": "red"}, size=5, tools=["hover"], width=900, height=300,
        title=f"EAS replay ({report.summary['eas'].get('agreement_pct') or 0:.1f}% agreement)", legend_position="right")


def plot_eas_regret(report):
    """Cumulative energy regret of the kernel's choices against the model's."""
    h = hv()
    df = report.eas
    if df.empty:
        return h.Curve([], "time", "regret")
    return h.Curve((df["time"].to_numpy(), np.nancumsum(df["regret"].to_numpy())), "time", "cumulative regret").opts(
        width=900, height=250, title="Cumulative energy regret (kernel - model)")


def plot_pelt_error(report):
    """Distribution of model - kernel util errors."""
    h = hv()
    err = report.pelt["error"].to_numpy(dtype=float) if len(report.pelt) else np.zeros(0)
    edges = np.arange(np.floor(err.min()) - 0.5, np.ceil(err.max()) + 1.5) if len(err) else np.linspace(-1, 1, 3)
    if len(edges) > 200:
        edges = np.histogram_bin_edges(err, bins=100)
    return h.Histogram(np.histogram(err, edges), kdims=["model - kernel util"]).opts(width=600, height=250,
                                                                            title="PELT error")


def plot_schedutil(report):
    """Trace frequency vs the model's request at each frequency change."""
    h = hv()
    df = report.schedutil
    if df.empty:
        return h.Scatter([], "trace_freq", "model_freq")
    d = pd.DataFrame({"trace_MHz": df["trace_freq"].to_numpy(float) / 1000.0,
                      "model_MHz": df["model_freq"].to_numpy(float) / 1000.0, "domain": df["domain"].astype(str)})
    pts = h.Scatter(d, "trace_MHz", ["model_MHz", "domain"]).opts(
        color="domain", cmap="Category10", size=6, tools=["hover"])
    agree = h.Slope(1, 0).opts(color="grey", line_dash="dashed")  # where the model agrees with the trace
    return (pts * agree).opts(width=500, height=400, title="schedutil: trace vs model frequency (MHz)",
                              legend_position="top_left")


def validation_html(report, *, title: str = "lisa_eas validation") -> str:
    """A standalone HTML page (template ``validation.html``, BokehJS inline, no network) of the report.

    The summary is grouped in small tables (wake-ups, EAS, SIS, schedutil, PELT); each plot
    is shown only when its replay has data, else a sentence says why it is absent; then the
    largest EAS disagreements.
    """
    from ._html import kv_rows, render_page

    s = report.summary
    groups = [{"title": "trace", "rows": kv_rows({k: v for k, v in s.items()
                                                   if not isinstance(v, (dict, list))})}]
    na = s.get("not_applicable") or []
    if na:      # checks that cannot apply to this run, each with its reason
        groups.append({"title": "Does not apply", "rows": [(n["check"], n["reason"]) for n in na]})
    for key, name in (("wakeups", "wake-ups"), ("eas", "EAS"), ("sis", "SIS"), ("schedutil", "schedutil"),
                      ("pelt", "PELT"), ("kernel_signals", "kernel signals: model vs kernel")):
        if isinstance(s.get(key), dict):
            groups.append({"title": name, "rows": kv_rows({k: v for k, v in s[key].items()
                                                           if not isinstance(v, (dict, list))
                                                           and k != "residency_scope"})})
        if key == "schedutil":
            groups.extend(_schedutil_domains(s.get(key)))
    plots, items = {}, []
    candidates = (
        ("eas-agreement", report.eas, plot_eas_agreement,
         "Each EAS wake-up: the task's util against time, green where the kernel and the model chose the same CPU.",
         "No EAS wake-up was replayed (no wake-up went through find_energy_efficient_cpu: the platform has no "
         "energy model, or the system was overutilized)."),
        ("eas-regret", report.eas, plot_eas_regret,
         "Cumulative energy regret: the model's estimate of the energy the kernel's choices cost over the "
         "model's (positive: the kernel spent more).", None),
        ("schedutil", report.schedutil, plot_schedutil,
         "At each frequency change of the trace, the frequency the schedutil model requests (one colour per "
         "frequency domain); on the diagonal they agree. The time shares in the schedutil cards count only "
         + str((s.get("schedutil") or {}).get("residency_scope", "the time both are known")) + ".",
         "schedutil not replayed: " + str((s.get("schedutil") or {}).get("reason", "no frequency changes")) + "."),
        ("pelt-error", report.pelt, plot_pelt_error,
         "Distribution of the PELT model's util minus the kernel's, at every kernel PELT sample.",
         "PELT not replayed: the trace has no kernel PELT events (sched_pelt_se / sched_pelt_cfs), so there is "
         "nothing to hold the model against."),
    )
    for pid, df, fn, caption, absent in candidates:
        if len(df):
            plots[pid] = fn(report)
            items.append({"pid": pid, "caption": caption})
        elif absent:
            items.append({"pid": None, "id": f"no-{pid}", "caption": absent})
    dis = report.eas[~report.eas["agree"]] if len(report.eas) else report.eas
    top = dis.sort_values("regret", ascending=False).head(50) if len(dis) else dis
    top = top.drop(columns=["util"], errors="ignore")
    from ._html import fmt

    disagreements = {"columns": list(top.columns), "total": int(len(dis)),
                     "rows": [[fmt(v) for v in r] for r in top.itertuples(index=False)],
                     "why": "None: the kernel and the model chose the same CPU at every replayed EAS wake-up."
                     if len(report.eas) else "None: no EAS wake-up was replayed."}
    return render_page("validation.html", plots=plots, title=title, groups=groups, plots_and_notes=items,
                       disagreements=disagreements)


# the per-domain schedutil figures, as the CLI prints them (key, label, unit)
_SU_ROWS = (("requests", "requests compared", ""), ("requests_agree", "requests matching the model", ""),
            ("request_agreement_pct", "requests matching (%)", "%"),
            ("requests_before_util", "requests before the first util sample", ""),
            ("time_at_model_freq_pct", "time at the model's frequency", "%"),
            ("over_provisioned_pct", "time above it", "%"), ("under_provisioned_pct", "time below it", "%"),
            ("compared_s", "time compared (s, a CPU busy)", ""),
            ("idle_excluded_s", "time left out (s, domain idle)", ""),
            ("lag_ms_median", "median lag to the model's frequency (ms)", ""),
            ("trace_freqs_in_platform_opps", "trace frequencies are platform OPPs", ""), ("note", "note", ""))


def _schedutil_domains(su) -> list[dict]:
    """One summary card per schedutil domain: the figures ``lisa-eas validate`` prints."""
    from ._html import fmt

    if not isinstance(su, dict) or not isinstance(su.get("domains"), dict):
        return []
    cards = []
    for name, d in su["domains"].items():
        rows = []
        for key, label, unit in _SU_ROWS:
            if key in d:
                v = d[key]
                rows.append((label, "n/a" if v is None else (f"{v:.1f}%" if unit == "%" else fmt(v))))
        cards.append({"title": f"schedutil: {name}", "rows": rows})
    return cards


def write_validation(report, out_dir) -> dict:
    """Write ``validation.json`` (every figure) and the standalone ``validation.html`` of a
    :class:`~lisa_eas.analysis.validate.ValidationReport` into ``out_dir`` (atomically).

    Returns
    -------
    dict
        ``{"json": path, "html": path}``.
    """
    from .._atomic import write_atomic

    pj = report.write_json(out_dir)
    ph = pj.with_name("validation.html")
    write_atomic(ph, validation_html(report))
    return {"json": pj, "html": ph}
