"""Views of a :class:`~lisa_eas.analysis.validate.ValidationReport` and its standalone HTML."""
from __future__ import annotations

import html
import json
import re

import numpy as np
import pandas as pd

from ._common import hv

__all__ = ["plot_eas_agreement", "plot_eas_regret", "plot_pelt_error", "plot_schedutil", "validation_html"]


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
    return h.Scatter(df, "trace_freq", ["model_freq", "domain"]).opts(
        color="domain", size=6, width=500, height=400, tools=["hover"], title="schedutil: trace vs model (kHz)")


def _table(d: dict) -> str:
    rows = []
    for k, v in d.items():
        if isinstance(v, dict):
            v = "<br>".join(f"{html.escape(str(a))}: {html.escape(json.dumps(b, default=str))}" for a, b in v.items())
        else:
            v = html.escape(json.dumps(v, default=str))
        rows.append(f"<tr><th>{html.escape(str(k))}</th><td>{v}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def validation_html(report) -> str:
    """A standalone HTML page (bokeh resources inline, no network) of the report."""
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    h = hv()
    plots = ([plot_eas_agreement(report), plot_eas_regret(report)] if len(report.eas) else []) + \
        ([plot_schedutil(report)] if len(report.schedutil) else []) + \
        ([plot_pelt_error(report)] if len(report.pelt) else [])
    if not plots:      # nothing to draw: the page says why in "Does not apply"
        plots = [h.Div("<p>No replayed decision has a plot (see the tables above).</p>")]
    model = h.render(h.Layout(plots).cols(1), backend="bokeh")
    page = file_html(model, INLINE, title="lisa_eas validation")
    # panel (imported by holoviews) registers a module-shim <script src="static/..."> that only a
    # panel server can serve; the bokeh plots need none of it, so keep the page self-contained
    page = re.sub(r'<script[^>]*\ssrc="(?:static/|https?://)[^"]*"[^>]*>\s*</script>', "", page)
    s = report.summary
    dis = report.eas[~report.eas["agree"]] if len(report.eas) else report.eas
    top = dis.sort_values("regret", ascending=False).head(50) if len(dis) else dis
    na = s.get("not_applicable") or []
    parts = ["<h1>lisa_eas validation</h1>", "<h2>Summary</h2>",
             _table({k: v for k, v in s.items() if not isinstance(v, (dict, list))}),
             ("<h2>Does not apply</h2><ul>" + "".join(f"<li><b>{html.escape(n['check'])}</b>: "
                                                       f"{html.escape(n['reason'])}</li>" for n in na) + "</ul>")
             if na else "",
             "<h2>Wake-ups</h2>", _table(s["wakeups"]), "<h2>EAS</h2>", _table(s["eas"]),
             "<h2>SIS</h2>", _table(s["sis"]), "<h2>schedutil</h2>", _table(s["schedutil"]),
             "<h2>PELT</h2>", _table(s["pelt"]),
             "<h2>Kernel signals (BPF collector): model vs kernel</h2>",
             _table(s.get("kernel_signals") or {"available": False}),
             "<h2>Largest EAS disagreements</h2>" if s["eas"].get("applicable", True) else "",
             (top.drop(columns=["util"], errors="ignore").to_html(index=False, float_format=lambda x: f"{x:.4g}")
              if len(top) else "<p>none</p>") if s["eas"].get("applicable", True) else ""]
    style = ("<style>body{font-family:sans-serif} table{border-collapse:collapse;margin:6px 0} "
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;font-size:13px}</style>")
    # the page's own <body> tag, after the last </head> (BokehJS inline carries "</head><body>"
    # strings too)
    head_end = page.rfind("</head>")
    m = re.compile(r"<body[^>]*>").search(page, max(head_end, 0))
    at = m.end() if m else 0
    return page[:at] + style + "\n".join(parts) + page[at:]
