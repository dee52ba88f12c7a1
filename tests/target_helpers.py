"""Shared helpers of the tests/test_target_*.py files (live board tests).

They read the artifacts of a run through the project's own readers when those are
importable (``lisa_eas.trace.read_trace``, ``lisa_eas.rtapp.read_rtapp_log``) and check the
same facts with ``trace-cmd report`` / the raw log text otherwise, so the tests never
depend on a reader that is still being written.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

TRACEFS = "/sys/kernel/tracing"


def mount_tracing() -> str:
    """Find or mount tracefs and debugfs on this machine with the product's own logic.

    A freshly booted machine has neither mounted; the product mounts them when it needs them
    (``lisa_eas.target.find_tracefs`` / ``ensure_debugfs``), so the tests' precondition is no
    stricter than the product. Every live test calls this itself (through :func:`live_ready`):
    none relies on an earlier test having mounted anything. Raises ``PermanentBoardError``
    when tracefs cannot be mounted.
    """
    from lisa_eas.target import connect, ensure_debugfs, find_tracefs, target_config_from_dict

    with connect(target_config_from_dict({"kind": "local", "name": "test-mounts"})) as conn:
        root = find_tracefs(conn)
        ensure_debugfs(conn)
    return root


def live_ready(tools: tuple[str, ...] = ("rt-app", "trace-cmd")) -> tuple[bool, str]:
    """(usable, reason) for tests that drive this machine's tracefs and rt-app.

    As root, mounts tracefs and debugfs when they are not mounted (see :func:`mount_tracing`).
    """
    if os.geteuid() != 0:
        return False, "live target tests need root (tracefs, rt-app with ftrace)"
    for tool in tools:
        if not shutil.which(tool):
            return False, f"{tool} is not installed (apt install {tool})"
    from lisa_eas.errors import LisaEasError

    try:
        root = mount_tracing()
    except LisaEasError as exc:
        return False, str(exc)
    if not os.path.exists(f"{root}/tracing_on"):
        return False, f"tracefs is not mounted at {root}"
    return True, ""


def periodic_workload(name: str = "t6_periodic", loops: int = 125, period_us: int = 16000,
                      run_us: int = 4000, calibration: int | str = 16) -> dict:
    """A periodic rt-app 1.0 task: ``loops`` activations of ``run_us`` every ``period_us``."""
    return {"tasks": {name: {"loop": 1, "phases": {"p": {
                "loop": loops, "run": run_us, "timer": {"ref": "tick", "period": period_us}}}}},
            "global": {"duration": -1, "calibration": calibration, "default_policy": "SCHED_OTHER"}}


def write_workload(path: Path, spec: dict) -> Path:
    path.write_text(json.dumps(spec, indent=1))
    return path


def tracing_state() -> tuple[str, str]:
    """(tracing_on, set_event) of the top-level buffer."""
    return (Path(f"{TRACEFS}/tracing_on").read_text().strip(),
            Path(f"{TRACEFS}/set_event").read_text().strip())


def switches(trace_path: Path, comm: str) -> int:
    """Number of sched_switch events switching ``comm`` in or out.

    Both directions count: on this VM the kernel does not always record the switch out of a
    CPU's idle task (seen on one haltpoll CPU), so a task woken on that CPU can have its
    switch-ins missing while every switch-out (it sleeps at the end of each activation) is
    there.
    """
    try:
        from lisa_eas.trace import read_trace
    except ImportError:
        out = subprocess.run(["trace-cmd", "report", str(trace_path)], capture_output=True, text=True,
                             check=True).stdout
        return sum(1 for ln in out.splitlines() if "sched_switch:" in ln
                   and (f"==> {comm}:" in ln or f"sched_switch: {comm}:" in " ".join(ln.split())))
    df = read_trace(trace_path).df("sched_switch")
    return int((df["next_comm"] == comm).sum() + (df["prev_comm"] == comm).sum())


def marker_begins(trace_path: Path, comm: str = "t6_periodic") -> np.ndarray:
    """Start times (s) of the activations of thread ``comm`` found in the trace's markers.

    ``Trace.activations`` (rt-app 1.0's ``[i] begins loop`` markers) when the readers are
    there, else the same markers from ``trace-cmd report``. Filtering on the thread name
    keeps out markers of any other rt-app that ran meanwhile (they share the buffer).
    """
    try:
        from lisa_eas.rtapp.markers import df_activations_from_markers  # noqa: F401
        from lisa_eas.trace import read_trace
    except ImportError:
        out = subprocess.run(["trace-cmd", "report", "-t", str(trace_path)], capture_output=True,
                             text=True, check=True).stdout
        times = [int(m.group(1)) / 1e9 for m in
                 re.finditer(rf"^\s*{re.escape(comm[:15])}-\d+\s.*?\s(\d+): print:.*\] begins loop",
                             out, re.M)]
        return np.array(times)
    acts = read_trace(trace_path).activations
    return acts[acts["__comm"] == comm[:15]].index.to_numpy(dtype=float)


def log_starts(log_path: Path) -> np.ndarray:
    """Activation start times (s) of an rt-app 1.0 per-thread log."""
    try:
        from lisa_eas.rtapp import read_rtapp_log
    except ImportError:
        rows = [ln.split() for ln in log_path.read_text().splitlines()
                if ln.strip() and not ln.startswith("#")]
        return np.array([int(r[4]) for r in rows]) / 1e6
    return read_rtapp_log(log_path).index.to_numpy(dtype=float)
