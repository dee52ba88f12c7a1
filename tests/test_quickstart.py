"""The quick start of the docs (and of the README, when it has one) runs verbatim."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"<!-- quickstart:begin -->\s*```python\n(.*?)```\s*<!-- quickstart:end -->", re.S)


def _blocks():
    out = []
    for f in ("docs/index.md", "README.md"):
        m = BLOCK.search((ROOT / f).read_text())
        if m:
            out.append(pytest.param(m.group(1), id=f))
    return out


@pytest.mark.parametrize("code", _blocks())
def test_quickstart_runs_verbatim(code, tmp_path):
    assert len(code.strip().splitlines()) <= 20
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "2/2 checks ok" in proc.stdout and "% EAS agreement" in proc.stdout
