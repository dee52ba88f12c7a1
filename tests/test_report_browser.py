"""results/report.html opened in a real headless Chromium: no JavaScript error, the tables and
every interactive plot rendered, and a screenshot saved."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import require_live
from lisa_eas.repro import reproduce
from lisa_eas.repro._live import simulated_section
from lisa_eas.repro._report import experiment_plots, write_report

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0", "--virtual-time-budget=15000"]


def _chromium(tmp_path, *args):
    exe = shutil.which("chromium")
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    return subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    results = [reproduce("sis-util-scan"), reproduce("ramp-boost", workers=1)]
    sections = [simulated_section()]
    n_plots = sum(len(experiment_plots(r)) for r in results) + sum(len(s.plots) for s in sections)
    path = write_report(tmp_path_factory.mktemp("report") / "report.html", results, sections=sections)
    return path, results, n_plots


def test_report_renders_without_javascript_errors(report, tmp_path):
    require_live(shutil.which("chromium") is not None, "Debian's chromium is not installed (make test installs it)")
    path, results, n_plots = report
    proc = _chromium(tmp_path, "--dump-dom", path.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom, log = proc.stdout, proc.stderr
    console_errors = [l for l in log.splitlines() if "Uncaught" in l or ":ERROR:CONSOLE" in l]
    assert not console_errors, "\n".join(console_errors)
    assert 'data-js-errors="0"' in dom, re.findall(r'<pre id="js-errors">.*?</pre>', dom, re.S)
    roots = re.search(r'data-bokeh-roots="(\d+)"', dom)
    assert roots, "the render probe did not run: BokehJS did not load"
    assert int(roots.group(1)) == n_plots >= 6
    assert "bokeh" in log.lower()  # BokehJS logged its start-up to the console
    assert '<table id="summary">' in dom
    for r in results:
        assert f'id="{r.name}"' in dom
        assert dom.count('class="checks"') >= len(results)
    assert "2/2 checks ok" in dom  # sis-util-scan is exact
    failing = any(not r.ok for r in results)
    assert ("NOT OK" in dom) == failing
    for r in results:
        for c in r.checks:
            if not c.ok:
                assert c.why and c.why.replace("'", "&#x27;")[:40] in dom


def test_report_screenshot(report, tmp_path):
    require_live(shutil.which("chromium") is not None, "Debian's chromium is not installed (make test installs it)")
    path, _, _ = report
    shot = tmp_path / "report.png"
    proc = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,2400", path.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000, f"screenshot {shot} too small ({len(data)} B)"
    print(f"screenshot: {shot}")


def test_report_is_standalone(report):
    path, _, _ = report
    text = path.read_text()
    # BokehJS is inline: no script or stylesheet is fetched from the network.
    assert not re.search(r'<script[^>]+src="https?://', text)
    assert not re.search(r'<link[^>]+href="https?://', text)
