"""Sphinx configuration of the lisa_eas documentation (``make docs`` -> docs/_build/html).

The notebooks under ``notebooks/`` are copied into ``docs/notebooks/`` at build time and
executed by myst-nb (results cached in ``docs/_build/.jupyter_cache``, so a rebuild only
re-runs what changed); ``drive_a_board`` drives this machine for real and is shown without
being executed. The API reference comes from the numpydoc docstrings.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

project = "lisa_eas"
author = "lisa_eas developers"
copyright = "lisa_eas developers"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "furo"
html_title = "lisa_eas"
# the render probe has one source, in the package (its pages include it)
html_static_path = ["_static", "../lisa_eas/plot/templates/render_probe.js"]
html_js_files = ["render_probe.js"]
html_css_files = ["custom.css"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "misc.highlighting_failure", "mystnb.unknown_mime_type"]

nb_execution_mode = "cache"
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_excludepatterns = ["notebooks/drive_a_board.ipynb"]
nb_merge_streams = True

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_validation_checks: set = set()


def _copy_notebooks(app):
    """The notebooks live in notebooks/ (executed by CI there); the docs get a copy."""
    dst = HERE / "notebooks"
    dst.mkdir(exist_ok=True)
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        target = dst / nb.name
        if not target.exists() or target.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, target)


_PANEL_CDN = re.compile(r"https://cdn\.holoviz\.org/panel/[^/\"']+/dist/([^\"'?]+)(\?[^\"']*)?")


def _panel_css_offline(app, exception):
    """Notebook outputs made by panel (holoviews' notebook renderer) name a few stylesheets on
    panel's CDN; serve the installed panel's copies from _static so the pages need no network."""
    if exception is not None or app.builder.format != "html":
        return
    import panel

    dist = Path(panel.__file__).parent / "dist"
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if "cdn.holoviz.org" not in text:
            continue
        depth = len(page.relative_to(out).parts) - 1
        prefix = "../" * depth + "_static/panel/"

        def local(m):
            src = dist / m.group(1)
            if not src.is_file():
                return m.group(0)
            dst = out / "_static" / "panel" / m.group(1)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            return prefix + m.group(1)

        page.write_text(_PANEL_CDN.sub(local, text), encoding="utf-8")


def setup(app):
    app.connect("builder-inited", _copy_notebooks)
    app.connect("build-finished", _panel_css_offline)
