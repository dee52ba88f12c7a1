"""Live: `lisa-eas run` interrupted by Ctrl-C (SIGINT) or SIGTERM while rt-app runs (issue 15,
item 3). rt-app must stop on the target, the logs and trace recorded so far must be kept, the
run marked interrupted in manifest.json and run.json, tracing left off, and the command must
exit 130 with one line; `--resume` must then say the run was interrupted.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, require_live
from target_helpers import live_ready, periodic_workload, tracing_state, write_workload

pytestmark = pytest.mark.live


def _as_at_a_terminal() -> None:
    """The child's SIGINT as a shell in the foreground gives it: a harness that started the test
    run in the background without job control (``cmd &`` in a script) has SIGINT ignored, which
    the child inherits, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _rtapp_running(tag: str) -> bool:
    out = subprocess.run(["pgrep", "-af", "rt-app"], capture_output=True, text=True).stdout
    return any(tag in line for line in out.splitlines())


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_interrupt_keeps_what_was_collected(tmp_path, sig):
    ok, why = live_ready()
    require_live(ok, why)
    wd = tmp_path / "target-wd"
    cfg = tmp_path / "local.yml"
    cfg.write_text(f"kind: local\nname: local-interrupt\nworking_directory: {wd}\n")
    wl = write_workload(tmp_path / "long.json", periodic_workload("intr_per", loops=600, calibration=20))
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "lisa_eas.cli", "run", "--target", str(cfg), "--workload",
                             str(wl), "--out", str(out), "--no-progress"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_at_a_terminal)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:     # until rt-app has been started on the target
            m = out / "manifest.json"
            if m.exists() and "run_started" in m.read_text():
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        time.sleep(1.5)                   # ~90 of the 600 activations
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    # one error line (a warning about the machine's load may precede it), no traceback
    last = stderr.strip().splitlines()[-1]
    assert "Traceback" not in stderr and stderr.count("lisa-eas: ") == 1, stderr
    assert last.startswith("lisa-eas: run interrupted during 'run'") and "rm -r" in last
    assert not _rtapp_running(str(wd)), "rt-app still runs on the target"
    assert tracing_state()[0] == "0"
    manifest = json.loads((out / "manifest.json").read_text())
    run = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "interrupted" and run["status"] == "interrupted"
    assert manifest["interrupted"]["rtapp_stopped"] is True
    op = run["tracing"]["other_processes"]     # counted from the partial trace too
    assert op["available"] and op["span_s"] > 1.0 and 0.0 <= op["share_pct"] <= 100.0
    logs = sorted((out / "rtapp").glob("rt-app-intr_per-*.log"))
    assert logs and (out / "trace.dat").is_file()
    n_acts = len(logs[0].read_text().splitlines()) - 1
    assert 20 < n_acts < 600, n_acts           # partial: stopped well before the end
    from lisa_eas import read_trace
    tr = read_trace(out / "trace.dat", cache=False)
    sw = tr.df("sched_switch")
    # both directions: this VM does not always trace the switch out of an idle CPU, so a task
    # woken there can miss its switch-ins; every activation ends with a traced switch-out
    assert ((sw["next_comm"].astype(str) == "intr_per") | (sw["prev_comm"].astype(str) == "intr_per")).sum() > 20
    res = subprocess.run([sys.executable, "-m", "lisa_eas.cli", "run", "--resume", str(out)], cwd=REPO,
                         capture_output=True, text=True, env={**os.environ})
    assert res.returncode == 2 and "this run was interrupted" in res.stderr and "another tool" not in res.stderr


def test_interrupt_before_rtapp_started_is_resumable(tmp_path):
    """Interrupted while rt-app is being calibrated (nothing ran yet): the run is marked
    interrupted and resumable, and `--resume` finishes it."""
    ok, why = live_ready()
    require_live(ok, why)
    wd = tmp_path / "target-wd"
    cfg = tmp_path / "local.yml"
    cfg.write_text(f"kind: local\nname: local-interrupt-early\nworking_directory: {wd}\n")
    wl = write_workload(tmp_path / "short.json", periodic_workload("intr_early", loops=30, calibration="CPU0"))
    out = tmp_path / "run"
    env = {**os.environ, "LISA_EAS_CACHE": str(tmp_path / "cache")}     # no cached calibration: measured
    cmd = [sys.executable, "-m", "lisa_eas.cli", "run", "--target", str(cfg), "--workload", str(wl), "--out",
           str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_at_a_terminal)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:     # probe done: calibration under way
            m = out / "manifest.json"
            if m.exists() and json.loads(m.read_text())["steps"]["probe"]["status"] == "complete":
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr
    assert "finish it with `lisa-eas run --resume" in stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["interrupted"]["rtapp_stopped"] is False
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    assert tracing_state()[0] == "0"
    res = subprocess.run([sys.executable, "-m", "lisa_eas.cli", "run", "--resume", str(out), "--no-progress"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
