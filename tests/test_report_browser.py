"""The pages lisa_eas writes, opened in a real headless Chromium (tests/browser.py): no console
error, no network request, every table and plot visible and rendered, the legends right, and
a full-page screenshot kept under results/screenshots/ for a person to look at."""
from __future__ import annotations

import html
import re

import pytest

from browser import assert_clean, open_page
from lisa_eas.repro import reproduce
from lisa_eas.repro._live import simulated_section
from lisa_eas.repro._report import experiment_plots, write_report


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    results = [reproduce("sis-util-scan"), reproduce("ramp-boost", workers=1)]
    sections = [simulated_section()]
    n_plots = sum(len(experiment_plots(r)) for r in results) + sum(len(s.plots) for s in sections)
    path = write_report(tmp_path_factory.mktemp("report") / "report.html", results, sections=sections)
    return path, results, n_plots


@pytest.fixture(scope="module")
def validation_page(tmp_path_factory):
    from lisa_eas import SimConfig, simulate
    from lisa_eas.analysis.validate import validate
    from lisa_eas.repro.workloads import ramp_boost_step

    tr = simulate("pixel3", ramp_boost_step(), config=SimConfig(governor="schedutil", placement="eas"))
    rep = validate(tr, "pixel3")
    from lisa_eas.plot import write_validation

    paths = write_validation(rep, tmp_path_factory.mktemp("validation"))
    return paths["html"], rep


def test_report_in_browser(report):
    path, results, n_plots = report
    page = open_page(path, "report")
    assert_clean(page, plots=n_plots)
    assert n_plots >= 6
    dom = page.dom
    assert '<table id="summary">' in dom
    for r in results:
        assert f'id="{r.name}"' in dom
    assert "2/2 checks ok" in dom  # sis-util-scan is exact
    assert ("NOT OK" in dom) == any(not r.ok for r in results)
    for r in results:
        for c in r.checks:
            if not c.ok:  # the whole reason is on the page, not cut off
                assert c.why and c.why in html.unescape(dom)
    print(f"screenshot: {page.screenshot}")


def test_report_is_standalone(report):
    path, _, _ = report
    text = path.read_text()
    assert not re.search(r'<script[^>]+src="', text)
    assert not re.search(r'<link[^>]+href="https?://', text)


def test_validation_page_in_browser(validation_page):
    path, rep = validation_page
    page = open_page(path, "validation")
    n = sum(bool(len(df)) for df in (rep.eas, rep.eas, rep.schedutil, rep.pelt))
    assert_clean(page, plots=n)
    assert n >= 3
    # the summary sits in the page body, not inside the inlined BokehJS
    body = page.dom[page.dom.rfind("<body"):]
    assert "<h2>Summary</h2>" in body and "agreement_pct" in body
    assert "Largest EAS disagreements" in body
    # the per-domain schedutil figures the CLI prints, and what the time shares count
    for name, d in rep.summary["schedutil"]["domains"].items():
        assert f"schedutil: {name}" in body
        if d.get("requests"):
            assert f"{d['request_agreement_pct']:.1f}%" in body
    assert "time at the model&#39;s frequency" in body or "time at the model's frequency" in body
    assert "while all its CPUs are idle" in body
    print(f"screenshot: {page.screenshot}")
