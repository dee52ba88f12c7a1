"""The cpuidle menu governor's state choice (``drivers/cpuidle/governors/menu.c``, ``menu_select()``).

Read in v4.16 (the EAS RFC v2 kernels): the governor predicts the idle duration from the next
timer event (``tick_nohz_get_sleep_length()``) times a learnt correction factor, turns it into
a latency limit ``predicted_us / performance_multiplier`` (``1 + 10 * nr_iowaiters``, capped by
the PM QoS CPU latency request), then keeps the deepest enabled state whose
``target_residency`` does not exceed the prediction and whose ``exit_latency`` does not exceed
the limit; with none, state 0 (WFI on arm64, ``CPUIDLE_DRIVER_STATE_START``). Cluster states
(``cluster-sleep``) are per-CPU states here: PSCI powers the cluster down only while all its
CPUs are in one, which is the meter's business (:mod:`lisa_eas.sim._meter`).

The simulator predicts with the next wake-up timer armed on the CPU (the earliest timer of a
task that last ran there), no iowait and no QoS request, so a state is kept when
``max(target_residency, exit_latency) <= predicted``: :func:`menu_thresholds` folds the two
tests into one threshold per state, which the event loop compares (``choose_idle_state``).
Not modelled: the correction factor learnt from past idle periods and the repeating-pattern
detection (``get_typical_interval``), which lower the prediction when remote wake-ups end idle
periods before the timer.
"""
from __future__ import annotations

from typing import Sequence

from ..errors import ModelError

__all__ = ["menu_select", "menu_thresholds"]


def menu_thresholds(states: Sequence) -> list[int]:
    """Per idle state, the least predicted idle (ns) at which menu keeps it, without iowait or QoS:
    ``max(target_residency, exit_latency)`` (``IdleState.min_residency_us`` / ``exit_latency_us``;
    a state without them, e.g. WFI in a legacy table, is always allowed)."""
    return [1000 * max(int(s.min_residency_us or 0), int(s.exit_latency_us or 0)) for s in states]


def menu_select(states: Sequence, predicted_us: float, *, nr_iowaiters: int = 0,
                latency_req_us: float | None = None) -> int:
    """Index of the idle state ``menu_select()`` picks for a predicted idle of ``predicted_us``.

    Parameters
    ----------
    states : sequence of IdleState
        The CPU's states, shallowest first (a perf domain's ``idle_states``).
    predicted_us : float
        Predicted idle duration (µs), after the correction factor.
    nr_iowaiters : int
        Tasks in iowait on the CPU (``performance_multiplier = 1 + 10 * nr_iowaiters``).
    latency_req_us : float, optional
        The PM QoS CPU latency request (None: none).
    """
    if predicted_us < 0 or nr_iowaiters < 0:
        raise ModelError(f"menu_select: predicted_us ({predicted_us}) and nr_iowaiters ({nr_iowaiters}) must be >= 0")
    limit = predicted_us / (1 + 10 * nr_iowaiters)
    if latency_req_us is not None:
        limit = min(limit, latency_req_us)
    chosen = 0
    for i, s in enumerate(states):
        if (s.min_residency_us or 0) > predicted_us:
            continue
        if (s.exit_latency_us or 0) > limit:
            continue
        chosen = i
    return chosen
