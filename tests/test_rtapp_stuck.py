"""rt-app's shutdown race told apart from a run still going (lisa_eas.target._stuck)."""
from __future__ import annotations

from lisa_eas.target._stuck import stuck_threads

# rt-app 1.0's output of the CI hang of 2026-11-26 (video-short.json, 17 threads; [7] never exited)
_ORDER = [5, 2, 13, 14, 8, 6, 7, 9, 4, 3, 1, 0, 11, 12, 16, 10, 15]
_EXITS = [4, 1, 13, 0, 9, 8, 10, 14, 11, 12, 15, 16, 3, 2, 6, 5]
STARTED = "[rt-app] <notice> pLoad = 20ns\n" + "".join(
    f"[rt-app] <notice> [{i}] starting thread ...\n\n" for i in _ORDER)


def test_threads_left_after_others_exited_are_stuck():
    out = STARTED + "".join(f"[rt-app] <notice> [{i}] Exiting.\n" for i in _EXITS)
    assert stuck_threads(out) == [7]


def test_a_run_still_going_or_finished_has_none():
    assert stuck_threads(STARTED) == []          # no thread exited: the run is not over yet
    everyone = STARTED + "".join(f"[rt-app] <notice> [{i}] Exiting.\n" for i in range(17))
    assert stuck_threads(everyone) == []
    assert stuck_threads("") == []
