"""``results/report.html``: one standalone page with every reproduced table, its checks and plots.

Rendered from the Jinja2 template ``lisa_eas/plot/templates/report.html`` with bokeh's own
embedding (BokehJS inline: no network needed to open it): a summary, then per experiment its
claims coloured by outcome, its plots, the published and reproduced rows side by side, the
notes and the provenance; then optional extra sections (a simulated trace overview, the local
run of ``lisa-eas demo``) whose key/value figures are grouped in small tables.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from .._atomic import write_atomic
from ._claims import ExperimentResult

__all__ = ["ReportSection", "experiment_plots", "render_report", "write_report"]


@dataclass(frozen=True)
class ReportSection:
    """An extra section of the report (plain text; the template escapes it).

    Attributes
    ----------
    title : str
    text : str
        A paragraph under the title.
    groups : sequence of (str, mapping)
        Key/value tables, each under its own heading, laid out side by side.
    plots : sequence
        holoviews objects, or ``(plot, caption)`` pairs.
    pre : str
        Preformatted text (an error message), shown as is.
    """

    title: str
    text: str = ""
    groups: Sequence[tuple[str, Mapping[str, Any]]] = field(default_factory=tuple)
    plots: Sequence[Any] = field(default_factory=tuple)
    pre: str = ""


def experiment_plots(result: ExperimentResult) -> list:
    """The holoviews plots shown for ``result`` in the report and the notebooks."""
    from ..plot import _repro as p

    plots = []
    if result.name == "sis-util-scan":
        plots.append(p.plot_sis_scan(result))
    if result.name == "sis-efficiency":
        plots.append(p.plot_sis_scan_hist(result))
    if result.name == "ramp-boost":
        plots.append(p.plot_slack(result))
    if any(isinstance(s, dict) and {"label", "published", "reproduced"} <= set(s) for s in result.series.values()):
        plots.append(p.plot_published_vs_reproduced(result))
    return plots


def _result_view(result: ExperimentResult, plot_ids: Sequence[str]) -> dict:
    from ..plot._html import fmt

    def value(v):
        return fmt(v) if not isinstance(v, list) else json.dumps(v)

    checks = [{"claim": c.claim, "published": value(c.to_dict()["published"]),
               "reproduced": value(c.to_dict()["reproduced"]), "tolerance": c.tolerance, "ok": c.ok,
               "why": c.why} for c in result.checks]
    return {"name": result.name, "title": result.title, "ok": result.ok, "n_ok": sum(c.ok for c in result.checks),
            "n_checks": len(result.checks), "wall_time": float(result.provenance.get("wall_time_s", 0) or 0),
            "checks": checks, "columns": list(result.columns),
            "rows": [[fmt(r.get(c)) for c in result.columns] for r in result.rows], "notes": list(result.notes),
            "plots": list(plot_ids), "provenance": json.dumps(result.to_dict()["provenance"], indent=1)}


def render_report(results: Sequence[ExperimentResult], *, sections: Sequence[ReportSection] = (),
                  title: str = "lisa_eas: published results reproduced") -> str:
    """The standalone HTML page (template ``report.html``, BokehJS inline) for ``results`` and ``sections``."""
    from ..plot._html import kv_rows, render_page

    plots_by_id: dict[str, Any] = {}
    views = []
    for i, res in enumerate(results):
        ids = []
        for j, plot in enumerate(experiment_plots(res)):
            pid = f"plot-{i}-{j}"
            plots_by_id[pid] = plot
            ids.append(pid)
        views.append(_result_view(res, ids))
    sec_views = []
    for k, sec in enumerate(sections):
        plots = []
        for j, item in enumerate(sec.plots):
            plot, caption = item if isinstance(item, tuple) else (item, "")
            pid = f"extra-{k}-{j}"
            plots_by_id[pid] = plot
            plots.append((pid, caption))
        sec_views.append({"id": f"section-{k}", "title": sec.title, "text": sec.text, "pre": sec.pre,
                          "groups": [{"title": t, "rows": kv_rows(d)} for t, d in sec.groups], "plots": plots})
    return render_page("report.html", plots=plots_by_id, title=title, results=views, sections=sec_views)


def write_report(path: Path | str, results: Sequence[ExperimentResult], *,
                 sections: Sequence[ReportSection] = ()) -> Path:
    """Write the standalone report to ``path`` (atomically); return the path."""
    path = Path(path)
    write_atomic(path, render_report(results, sections=sections))
    return path
