"""`make docs` builds the HTML documentation; its pages open in headless Chromium with no console
error, no network request, every table and plot visible (screenshots in results/screenshots/)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from browser import assert_clean, open_page

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "docs" / "_build" / "html"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def docs():
    # the same command as `make docs` (notebook results are cached between builds)
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", "2", "docs", str(HTML)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    errors = [l for l in proc.stderr.splitlines() if "ERROR" in l or "Traceback" in l]
    assert not errors, "\n".join(errors)
    return HTML


def test_index_page(docs):
    page = open_page(docs / "index.html", "docs_index")
    assert_clean(page)
    for link in ("guide/reproduce.html", "lisa.html", "api.html", "notebooks/repro_eas_rfc_energy.html"):
        assert link in page.dom


@pytest.mark.parametrize("name", ["repro_eas_wakeup_speedup", "platforms_and_energy_models"])
def test_notebook_page_renders_its_plots_offline(docs, name):
    page = open_page(docs / "notebooks" / f"{name}.html", f"docs_{name}")
    assert_clean(page)
    assert int(page.attrs["data-visible-plots"]) >= 3
    assert "cdn.holoviz.org" not in page.dom and "cdn.bokeh.org" not in page.dom


def test_api_and_lisa_pages(docs):
    api = (docs / "api.html").read_text()
    assert "df_cpu_idle_state_residency" in api and "check_expected" in api
    lisa = (docs / "lisa.html").read_text()
    assert "df_cpus_frequency" in lisa and "target-conf" in lisa
