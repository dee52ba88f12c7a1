"""Shared test set-up.

Live tests (marked ``live``) drive this machine for real. On a user's laptop they may
skip with a clear reason; under CI (``LISA_EAS_CI=1``, set by ``.ci/run``) a live test
that cannot run fails instead, so a broken live path never lands green.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
IN_CI = os.environ.get("LISA_EAS_CI") == "1"


def require_live(condition: bool, reason: str) -> None:
    """Skip (or, in CI, fail) a live test whose precondition ``condition`` is false."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"live test cannot run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA
