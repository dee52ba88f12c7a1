"""The live suite on a freshly booted machine: tracefs and debugfs not mounted.

A new machine (and CI's) boots with neither mounted; the product mounts them when it needs
them, and so must every live test's precondition (``target_helpers.live_ready``). This test
runs live tests of several files in a private mount namespace where both are unmounted
first, under ``LISA_EAS_CI=1`` (a skip fails), each file's tests in a process of their own,
so none can rely on a mount made by an earlier test.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, require_live

pytestmark = pytest.mark.live

# One quick live test of each way in: a tracefs instance (test_trace_live), rt-app 1.0's
# debugfs markers, the product's run_workload (tracefs + debugfs), and the simulator check.
SELECTED = (
    "tests/test_trace_live.py",
    "tests/test_rtapp_live.py::test_ftrace_markers_match_log",
    "tests/test_analysis_live.py",
)

_SCRIPT = r"""
set -u
umount -l /sys/kernel/debug 2>/dev/null
umount -l /sys/kernel/tracing 2>/dev/null
if grep -qE ' (tracefs|debugfs) ' /proc/self/mounts; then
  echo "could not unmount tracefs/debugfs in the namespace" >&2; exit 97
fi
exec "$@"
"""


def _fresh_namespace_ok() -> tuple[bool, str]:
    if os.geteuid() != 0:
        return False, "needs root (a private mount namespace)"
    if shutil.which("unshare") is None:
        return False, "unshare (util-linux) is not installed"
    return True, ""


@pytest.mark.parametrize("selected", SELECTED)
def test_live_tests_mount_what_they_need(selected):
    ok, why = _fresh_namespace_ok()
    require_live(ok, why)
    env = dict(os.environ, LISA_EAS_CI="1")
    cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _SCRIPT, "fresh",
           sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
           "-m", "live and not board", selected]
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-25:])
    assert proc.returncode == 0, f"{selected} failed on a machine without tracefs/debugfs:\n{tail}"
    assert " passed" in proc.stdout and "skipped" not in proc.stdout.splitlines()[-1], tail
