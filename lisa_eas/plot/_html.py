"""Standalone HTML pages from Jinja2 templates, with bokeh's own embedding.

Every page lisa_eas writes (``results/report.html``, ``validation.html``) is one file that
works offline: BokehJS inline (:data:`bokeh.resources.INLINE`), the plots embedded with
:func:`bokeh.embed.components`, the layout from a template in ``lisa_eas/plot/templates``
(autoescaped). The base template records, for the browser test, how many plots rendered,
every JavaScript error, every network request, and every table or plot that is not visible.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Mapping

__all__ = ["kv_rows", "render_page"]


@lru_cache(maxsize=1)
def _env():
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("lisa_eas.plot", "templates"),
                              autoescape=jinja2.select_autoescape(["html", "j2"]), trim_blocks=True,
                              lstrip_blocks=True, undefined=jinja2.StrictUndefined)


def fmt(v: Any) -> str:
    """One table cell: ``-`` for None, 4 significant digits for floats, yes/no for booleans."""
    import json

    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}" if v == v else "nan"
    if isinstance(v, (list, tuple)):
        return ", ".join(fmt(x) for x in v) if len(v) <= 12 else json.dumps(v, default=str)[:300]
    if isinstance(v, dict):
        return ", ".join(f"{k}: {fmt(x)}" for k, x in v.items())
    try:  # numpy scalars
        import numpy as np

        if isinstance(v, np.generic):
            return fmt(v.item())
    except ImportError:  # pragma: no cover
        pass
    return str(v)


def kv_rows(d: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(key, formatted value)`` pairs of a flat mapping, for a key/value table."""
    return [(str(k), fmt(v)) for k, v in d.items()]


def render_page(template: str, *, plots: Mapping[str, Any] | None = None, **context) -> str:
    """Render ``templates/<template>`` into one standalone HTML page.

    Parameters
    ----------
    template : str
        Template file name (``report.html``, ``validation.html``).
    plots : mapping of str to holoviews object, optional
        Plot id -> plot; the template places each with ``{{ plot(id) }}``.
    **context
        The template's variables.

    Returns
    -------
    str
        The page: BokehJS inline, no network needed.
    """
    from bokeh.embed import components
    from bokeh.resources import INLINE
    from markupsafe import Markup

    from ._common import hv

    plots = dict(plots or {})
    divs: dict[str, str] = {}
    script = ""
    if plots:
        renderer = hv().renderer("bokeh")
        models = {pid: renderer.get_plot(p).state for pid, p in plots.items()}
        script, divs = components(models)

    def plot(pid: str):
        return Markup(f'<div class="plot" data-plot="{pid}">{divs[pid]}</div>')

    # panel (imported by holoviews) registers a module-shim <script src="static/..."> that only
    # a panel server can serve; the bokeh plots need none of it, so the page stays one file
    resources = re.sub(r'<script[^>]*\ssrc="[^"]*"[^>]*>\s*</script>', "", INLINE.render()) if plots else ""
    env = _env()
    return env.get_template(template).render(
        bokeh_resources=Markup(resources), bokeh_script=Markup(script), plot=plot,
        n_plots=len(plots), fmt=fmt, generated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **context)
