"""rt-app threads stuck at the end of a run (rt-app's shutdown race), told apart from a slow run.

When its ``duration`` ends, rt-app's ``shutdown()`` clears the flag its threads test before each
event and broadcasts every wait resource's condition once, without taking the resource's mutex
(rt-app 1.0, ``src/rt-app.c``; later versions broadcast the same way). A thread that has already
passed the flag test and is between locking that mutex and ``pthread_cond_wait()`` misses the
broadcast and waits forever; the main thread then waits in ``pthread_join()`` and a second signal
does nothing (``shutdown()`` returns at once when the flag is already clear). Workloads whose threads
``suspend``/``resume`` each other often (Android-like graphs) hit it now and then.

The workload has run its whole duration by then: :func:`stuck_threads` recognises the state from
rt-app's output (every thread started, some printed ``Exiting.``, the others never did), the run
stops rt-app and keeps what was collected, and ``run.json`` names the threads whose logs are
incomplete (``rtapp.stuck_at_exit``).
"""
from __future__ import annotations

import re

__all__ = ["EXIT_GRACE_S", "stuck_threads"]

EXIT_GRACE_S = 10.0
"""Seconds past the workload's ``duration`` after which threads that have not exited while others
have are taken as stuck (a thread ends at its next event after the duration; no rt-app event of a
periodic workload lasts this long)."""

_STARTED = re.compile(r"\[(\d+)\] starting thread")
_EXITED = re.compile(r"\[(\d+)\] Exiting\.")


def stuck_threads(output: str) -> list[int]:
    """Indices of the rt-app threads that started and never printed ``Exiting.``, when at least one
    thread did (rt-app's shutdown has run); ``[]`` otherwise (still running, or all exited).

    Parameters
    ----------
    output : str
        rt-app's standard output and error so far.
    """
    started = {int(i) for i in _STARTED.findall(output)}
    exited = {int(i) for i in _EXITED.findall(output)}
    if not exited:
        return []
    return sorted(started - exited)
