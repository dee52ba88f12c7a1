"""Long silences (issue 15, item 6): the run progress bar's clock keeps moving during a long
phase, and the simulator's event loop is compiled once, in the parent, before workers fork,
with a message on stderr when it is not cached."""
from __future__ import annotations

import io
import time

import pytest

from lisa_eas.repro import Sweep
from lisa_eas.target._progress import PhaseProgress


def test_progress_elapsed_time_moves_during_a_long_phase():
    buf = io.StringIO()
    bar = PhaseProgress(("a", "b"), enabled=True, desc="run", file=buf, tick_s=0.2)
    try:
        with bar.phase("a"):
            time.sleep(1.3)
            during = buf.getvalue()      # before the phase ends (and before any update)
    finally:
        bar.close()
    assert "00:01" in during, during


def _square(x):
    return x * x


def test_sweep_warms_up_once_in_the_parent(tmp_path):
    calls = []
    assert Sweep(workers=2).map(_square, [1, 2, 3], warm=lambda: calls.append(1)) == [1, 4, 9]
    assert calls == [1]
    assert Sweep(workers=1).map(_square, [1, 2], warm=lambda: calls.append(1)) == [1, 4]
    assert calls == [1]                  # in-process: the jobs compile where they run


def test_cold_cache_is_detected_and_simulate_says_so(tmp_path):
    """With an empty numba cache (a fresh clone), the event loop reads as not cached and
    `lisa-eas simulate` says it compiles before it starts (the workload here is missing, so the
    command stops right after the message instead of compiling for a minute)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from lisa_eas.sim._warm import MESSAGE

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    repo = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-c", "from lisa_eas.sim._warm import event_loop_cached as c; "
                        "print(c())"], env=env, cwd=repo, capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "False", r.stderr
    r = subprocess.run([sys.executable, "-m", "lisa_eas.cli", "simulate", "--platform", "hikey960", "--workload",
                        str(tmp_path / "missing.json"), "--out", str(tmp_path / "o")], env=env, cwd=repo,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and MESSAGE in r.stderr, r.stderr


def test_event_loop_cache_detection_after_a_run():
    from lisa_eas.sim import warm_up_simulator
    from lisa_eas.sim._warm import event_loop_cached

    warm_up_simulator()
    assert event_loop_cached()


def test_simulate_says_when_it_compiles(monkeypatch, capsys):
    """A user's first ``simulate()`` (Python, a notebook) prints the message on stderr when the
    event loop is not cached, once per process; not when it is."""
    from lisa_eas import SimConfig, simulate
    from lisa_eas.rtapp import periodic, task, workload
    from lisa_eas.sim import _warm
    from lisa_eas.sim._warm import MESSAGE

    wl = workload([task("t", periodic(10, 10, duration_s=0.01))], calibration=100)
    monkeypatch.setattr(_warm, "_announced", False)
    simulate("hikey960", wl, config=SimConfig(duration_s=0.01))
    assert MESSAGE not in capsys.readouterr().err          # cached (or loaded): silent
    monkeypatch.setattr(_warm, "event_loop_cached", lambda: False)
    simulate("hikey960", wl, config=SimConfig(duration_s=0.01))
    simulate("hikey960", wl, config=SimConfig(duration_s=0.01))
    assert capsys.readouterr().err.count(MESSAGE) == 1
