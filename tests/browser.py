"""Open a page in Debian's headless Chromium: what the page's probe recorded, and a screenshot.

Every page lisa_eas writes (and the rendered docs) is checked the same way: the page is
loaded from a file:// URL with the network disabled, the DOM is dumped after BokehJS ran,
console errors are read from Chromium's log, and a full-page screenshot is kept under
``results/screenshots/`` (or ``$LISA_EAS_SCREENSHOTS``) for a person to look at.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from conftest import require_live

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--hide-scrollbars",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=15000"]


def screenshot_dir() -> Path:
    d = Path(os.environ.get("LISA_EAS_SCREENSHOTS", ROOT / "results" / "screenshots"))
    d.mkdir(parents=True, exist_ok=True)
    return d


@dataclass
class Page:
    dom: str
    log: str
    attrs: dict
    console_errors: list
    network: list
    screenshot: Path | None = None


def _run(args, timeout=120):
    exe = shutil.which("chromium")
    with tempfile.TemporaryDirectory(prefix="lisa-chromium-") as profile:
        return subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                              timeout=timeout)


def open_page(path: Path, name: str, *, width: int = 1400, max_height: int = 16000) -> Page:
    """Load ``path``, read the probe's attributes on ``<body>``, take a full-page screenshot ``name.png``."""
    require_live(shutil.which("chromium") is not None, "Debian's chromium is not installed (make test installs it)")
    proc = _run(["--dump-dom", Path(path).resolve().as_uri()])
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom, log = proc.stdout, proc.stderr
    body = re.findall(r"<body([^>]*data-page-height[^>]*)>", dom)  # the probe's attributes
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body[-1])) if body else {}
    console = [line for line in log.splitlines() if "Uncaught" in line or ":ERROR:CONSOLE" in line
               or ("CONSOLE" in line and "error" in line.lower())]
    # Chromium logs every URL request it could not serve; with the network off none may be attempted.
    network = re.findall(r"(?:https?|wss?)://[^\s\"')]+", "\n".join(
        line for line in log.splitlines() if "CONSOLE" in line or "net::" in line))
    height = int(attrs.get("data-page-height") or 2400)
    shot = screenshot_dir() / f"{name}.png"
    proc = _run([f"--screenshot={shot}", f"--window-size={width},{min(max(height, 600), max_height)}",
                 Path(path).resolve().as_uri()])
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, f"screenshot {shot} too small ({len(data)} B)"
    return Page(dom, log, attrs, console, network, shot)


def assert_clean(page: Page, *, plots: int | None = None) -> None:
    """No console error, no network request, every table and plot visible, every plot rendered."""
    assert not page.console_errors, "\n".join(page.console_errors)
    assert page.attrs.get("data-js-errors") == "0", re.findall(r'<pre id="js-errors">.*?</pre>', page.dom, re.S)
    assert not page.network and not page.attrs.get("data-network"), (page.network, page.attrs.get("data-network"))
    assert page.attrs.get("data-invisible", "") == "", f"not visible: {page.attrs['data-invisible']}"
    if plots is not None:
        assert int(page.attrs["data-plots-expected"]) == plots
        assert int(page.attrs.get("data-bokeh-roots", -1)) == plots, "BokehJS did not render every plot"
