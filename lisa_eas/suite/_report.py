"""Standalone HTML pages (Jinja2 templates, BokehJS inline) of suite results and A/B comparisons."""
from __future__ import annotations

import math
import re
from pathlib import Path

__all__ = ["compare_html", "suite_html"]

_TEMPLATES = Path(__file__).with_name("templates")


def _fmt(v, spec: str = "%.3g") -> str:
    if v is None:
        return "-"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f) or math.isinf(f):
        return "-"
    return spec % f


def _render(name: str, **ctx) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_TEMPLATES)), autoescape=True,
                             undefined=jinja2.ChainableUndefined)
    page = env.get_template(name).render(fmt=_fmt, **ctx)
    # panel (imported by holoviews) may add module-shim <script src> tags only a server can serve
    return re.sub(r'<script[^>]*\ssrc="(?:static/|https?://)[^"]*"[^>]*>\s*</script>', "", page)


class _Obj(dict):
    """dict whose keys also read as attributes (for the template)."""

    __getattr__ = dict.get


def suite_html(result) -> str:
    """The page of a :class:`~lisa_eas.suite.SuiteResult`."""
    from ..plot import embed_components, plot_suite_energy, plot_suite_power

    plots = {}
    if result.results:
        plots["energy"] = plot_suite_energy(result)
        for i, r in enumerate(result.results):
            if r.series.get("t"):
                plots[f"power{i}"] = plot_suite_power(r)
    res, script, divs = embed_components(plots) if plots else ("", "", {})
    d = result.to_dict()
    d["results"] = [_Obj(x, figures=_Obj(x["figures"]), checks=[_Obj(c) for c in x["checks"]]) for x in d["results"]]
    return _render("suite.html.j2", r=_Obj(d), bokeh_resources=res, bokeh_script=script, divs=divs)


def compare_html(comparison) -> str:
    """The page of a :class:`~lisa_eas.suite.Comparison`."""
    from ..plot import embed_components, plot_ab_distributions

    plots = {m.name: plot_ab_distributions(comparison, m.name) for m in comparison.metrics}
    res, script, divs = embed_components(plots) if plots else ("", "", {})
    return _render("compare.html.j2", c=comparison, bokeh_resources=res, bokeh_script=script, divs=divs)
