"""The wake-up syncs of a simulated trace as update points of a task's PELT timeline.

``try_to_wake_up`` -> ``select_task_rq_fair`` / ``migrate_task_rq_fair`` call
``sync_entity_load_avg``, which decays the sleeping task to ``cfs_rq_last_update_time()`` of the
runqueue it slept on (a time in that runqueue's PELT clock, not now) without touching
util_est's flag (``__update_load_avg_blocked_se``). The simulator reports each such update in
``lisa_sim_task_sync`` (the wake-up's time and the PELT time reached); a timeline rebuilt from
the trace carries it as a blocked point (``models.pelt_timeline(..., blocked=...)``) just before
the wake-up's enqueue row.
"""
from __future__ import annotations

import numpy as np


def insert_syncs(trace, pid, wall, axis, states, *extra):
    """Insert the wake-up syncs of ``pid`` into a timeline.

    ``wall``: the points' trace times (sorted); ``axis``: the same points on the model's clock
    (PELT clock, or ``wall`` itself); ``states``: the state of each segment; ``extra``: more
    per-segment arrays. A sync at wake-up time ``t`` becomes a point on ``axis`` at its PELT
    time, placed before the first point at or after ``t``, its segment sleeping (``extra``
    arrays repeat the value of the segment it splits). Returns ``(axis, states, blocked,
    original, *extra)``; ``original`` marks the points that were given."""
    sy = trace.df("lisa_sim_task_sync")
    sy = sy[sy["pid"] == pid]
    wall = np.asarray(wall, np.int64)
    axis = np.asarray(axis, np.int64)
    states = np.asarray(states)
    at = np.searchsorted(wall, sy["__ts"].to_numpy().astype(np.int64), side="left")
    pos = at + np.arange(at.size)                 # where each lands once the earlier ones are in
    n = axis.size + at.size
    keep = np.ones(n, bool)
    keep[pos] = False
    out_axis = np.empty(n, np.int64)
    out_axis[keep] = axis
    out_axis[pos] = sy["pelt_time"].to_numpy().astype(np.int64)
    out_states = np.empty(n, states.dtype)
    out_states[keep] = states
    out_states[pos] = 0
    blocked = ~keep
    outs = []
    for arr in extra:
        arr = np.asarray(arr)
        o = np.empty(n, arr.dtype)
        o[keep] = arr
        o[pos] = o[pos - 1]                        # the split segment's value (point pos-1 is given)
        outs.append(o)
    return (out_axis, out_states, blocked, keep, *outs)
