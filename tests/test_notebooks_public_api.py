"""The notebooks are what users copy: public API only, and plots that render offline."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
PRIVATE = re.compile(r"\blisa_eas(?:\.\w+)*\._\w+")


def _code(path):
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_uses_public_api_only(path):
    bad = sorted(set(PRIVATE.findall(_code(path))))
    assert not bad, f"{path.name} imports private modules: {bad}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_plots_render_offline(path):
    code = _code(path)
    calls = re.findall(r"hv\.extension\(([^)]*)\)", code)
    if "holoviews" in code:
        assert calls, f"{path.name}: plots without hv.extension"
    for args in calls:
        assert "inline=True" in args, f"{path.name}: hv.extension({args}) loads BokehJS from a CDN"


def test_the_private_pattern_catches_both_forms():
    assert PRIVATE.findall("from lisa_eas.repro._live import x\nimport lisa_eas._kernels.sis")
    assert not PRIVATE.findall("from lisa_eas.repro import can_trace\nfrom lisa_eas.plot import plot_frequency")
