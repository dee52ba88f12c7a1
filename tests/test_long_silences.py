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


def test_simulate_cli_says_when_it_compiles(tmp_path, capsys, monkeypatch):
    import lisa_eas.sim._warm as warm
    from lisa_eas.cli import main

    monkeypatch.setattr(warm, "event_loop_cached", lambda: False)
    rc = main(["simulate", "--platform", "hikey960", "--workload", "workloads/smoke_local.json", "--duration",
               "0.05", "--no-model-events", "--out", str(tmp_path / "o")])
    assert rc == 0
    assert warm.MESSAGE in capsys.readouterr().err


def test_event_loop_cache_detection_after_a_run():
    from lisa_eas.sim import warm_up_simulator
    from lisa_eas.sim._warm import event_loop_cached

    warm_up_simulator()
    assert event_loop_cached()
