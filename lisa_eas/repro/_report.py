"""``results/report.html``: one standalone page with every reproduced table, its checks and plots.

The page embeds BokehJS inline (no network needed to open it), one table per experiment with
published and reproduced side by side, the checks coloured by outcome, the notes and the
provenance, the interactive plots of :mod:`lisa_eas.plot._repro`, and optional extra
sections (a simulated trace overview, the local run of ``lisa-eas demo``).
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from .._atomic import write_atomic
from ._claims import ExperimentResult

__all__ = ["ReportSection", "experiment_plots", "render_report", "write_report"]

_CSS = """
body{font-family:system-ui,sans-serif;margin:24px;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f0f0f0}
td.text,th.text{text-align:left}
tr.ok td.status{background:#d8f0d8} tr.fail td.status{background:#f6d5d5}
.ok-badge{color:#176617;font-weight:bold} .fail-badge{color:#a11;font-weight:bold}
.scroll{overflow-x:auto} details{margin:6px 0} pre{font-size:12px;background:#f7f7f7;padding:8px}
section{border-top:2px solid #ddd;margin-top:24px;padding-top:8px}
"""

# Installed before BokehJS so that any error on the page is recorded where a test can read it.
_ERROR_HOOK = """<script>
window.__lisaErrors = [];
window.addEventListener('error', function (e) { window.__lisaErrors.push(String(e.message)); });
window.addEventListener('unhandledrejection', function (e) { window.__lisaErrors.push(String(e.reason)); });
</script>"""

# After the plots are embedded, record how many Bokeh roots rendered (read by the browser test).
_RENDER_PROBE = """<script>
(function () {
  function probe() {
    var n = 0;
    if (window.Bokeh && Bokeh.documents) {
      Bokeh.documents.forEach(function (d) { n += d.roots().length; });
    }
    document.body.setAttribute('data-bokeh-roots', String(n));
    document.body.setAttribute('data-js-errors', String(window.__lisaErrors.length));
    if (window.__lisaErrors.length) {
      document.getElementById('js-errors').textContent = window.__lisaErrors.join('\\n');
    }
  }
  window.addEventListener('load', function () { setTimeout(probe, 500); setTimeout(probe, 3000); });
})();
</script>"""


@dataclass(frozen=True)
class ReportSection:
    """An extra section of the report: a title, an HTML body (already escaped) and plots."""

    title: str
    body_html: str
    plots: Sequence[Any] = field(default_factory=tuple)


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


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}" if v == v else "nan"
    return html.escape(str(v))


def _rows_table(result: ExperimentResult) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in result.columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in result.columns) + "</tr>"
                   for r in result.rows)
    return f'<div class="scroll"><table class="rows"><tr>{head}</tr>{body}</table></div>'


def _checks_table(result: ExperimentResult) -> str:
    out = ['<table class="checks"><tr><th class="text">claim</th><th>published</th><th>reproduced</th>'
           '<th class="text">tolerance</th><th>ok</th><th class="text">not reproduced, because</th></tr>']
    for c in result.checks:
        d = c.to_dict()
        cls = "ok" if c.ok else "fail"
        out.append(f'<tr class="{cls}"><td class="text">{html.escape(c.claim)}</td>'
                   f'<td>{_cell(json.dumps(d["published"]) if isinstance(d["published"], list) else d["published"])}</td>'
                   f'<td>{_cell(json.dumps(d["reproduced"]) if isinstance(d["reproduced"], list) else d["reproduced"])}</td>'
                   f'<td class="text">{html.escape(c.tolerance)}</td>'
                   f'<td class="status">{"ok" if c.ok else "NOT OK"}</td>'
                   f'<td class="text">{html.escape(c.why)}</td></tr>')
    out.append("</table>")
    return "".join(out)


def _experiment_section(result: ExperimentResult, plot_ids: Sequence[str]) -> str:
    n_ok = sum(c.ok for c in result.checks)
    badge = "ok-badge" if result.ok else "fail-badge"
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in result.notes)
    plots = "".join(f'<div class="plot" id="{pid}-wrap">{{{{PLOT:{pid}}}}}</div>' for pid in plot_ids)
    prov = html.escape(json.dumps(result.to_dict()["provenance"], indent=1))
    return (f'<section class="experiment" id="{html.escape(result.name)}">'
            f'<h2>{html.escape(result.name)} <span class="{badge}">{n_ok}/{len(result.checks)} checks ok</span></h2>'
            f"<p>{html.escape(result.title)}</p><h3>Checks</h3>{_checks_table(result)}"
            f"<h3>Published and reproduced</h3>{_rows_table(result)}"
            f"<h3>Notes</h3><ul>{notes}</ul>{plots}"
            f"<details><summary>Provenance</summary><pre>{prov}</pre></details></section>")


def render_report(results: Sequence[ExperimentResult], *, sections: Sequence[ReportSection] = (),
                  title: str = "lisa_eas: published results reproduced") -> str:
    """The standalone HTML page (BokehJS inline) for ``results`` and extra ``sections``."""
    from ..plot import embed_components

    plots_by_id: dict[str, Any] = {}
    parts = []
    for i, res in enumerate(results):
        ids = []
        for j, plot in enumerate(experiment_plots(res)):
            pid = f"plot-{i}-{j}"
            plots_by_id[pid] = plot
            ids.append(pid)
        parts.append(_experiment_section(res, ids))
    for k, sec in enumerate(sections):
        ids = []
        for j, plot in enumerate(sec.plots):
            pid = f"extra-{k}-{j}"
            plots_by_id[pid] = plot
            ids.append(pid)
        plots = "".join(f'<div class="plot" id="{pid}-wrap">{{{{PLOT:{pid}}}}}</div>' for pid in ids)
        parts.append(f'<section class="extra"><h2>{html.escape(sec.title)}</h2>{sec.body_html}{plots}</section>')
    resources, script, divs = embed_components(plots_by_id)
    body = "".join(parts)
    for pid, div in divs.items():
        body = body.replace(f"{{{{PLOT:{pid}}}}}", div)
    summary_rows = "".join(
        f'<tr class="{"ok" if r.ok else "fail"}"><td class="text"><a href="#{html.escape(r.name)}">'
        f'{html.escape(r.name)}</a></td><td>{sum(c.ok for c in r.checks)}/{len(r.checks)}</td>'
        f'<td class="status">{"ok" if r.ok else "NOT OK"}</td>'
        f'<td>{r.provenance.get("wall_time_s", 0):.1f}</td></tr>' for r in results)
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style>{_ERROR_HOOK}{resources}{script}</head><body>"
            f"<h1>{html.escape(title)}</h1><p>Generated {when} by lisa-eas. Each experiment shows the "
            f"published figures beside the reproduced ones; a check that does not hold says why.</p>"
            f'<table id="summary"><tr><th class="text">experiment</th><th>checks ok</th><th>status</th>'
            f"<th>wall time (s)</th></tr>{summary_rows}</table>{body}"
            f'<pre id="js-errors"></pre>{_RENDER_PROBE}</body></html>')


def write_report(path: Path | str, results: Sequence[ExperimentResult], *,
                 sections: Sequence[ReportSection] = ()) -> Path:
    """Write the standalone report to ``path`` (atomically); return the path."""
    path = Path(path)
    write_atomic(path, render_report(results, sections=sections))
    return path
