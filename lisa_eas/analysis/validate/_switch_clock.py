"""The rq clock a traced context switch ran on: a wake-up preemption's switch reuses the
wake-up's rq clock.

``wakeup_preempt()`` (kernel/sched/core.c, read in v6.18; ``check_preempt_curr()`` before v6.7):
when the running task is queued and needs rescheduling after a wake-up's enqueue, it calls
``rq_clock_skip_update()``, and the next ``__schedule()`` on that rq promotes RQCF_REQ_SKIP to
RQCF_ACT_SKIP and does not update the rq clock: ``put_prev_entity()`` of the preempted task and
``set_next_entity()`` of the next one account PELT up to the wake-up's clock. With
PREEMPT_NONE (this VM's 6.18.44-fc) the switch waits for the preempted task to leave the
kernel, so the switch record can come hundreds of us (ms in a long syscall) after the
wake-up; the task switched in accrues running, and the preempted one stops, from the wake-up's
clock. Placed at the switch record, the incoming task's util_avg was low by 6 for a 290 us
wait (the kernel's own sums at its next sample are reproduced exactly with running from the
wake-up's clock).

The same holds for a switch out of the idle task: ``init_idle()`` sets the idle task's
``on_rq`` to TASK_ON_RQ_QUEUED and nothing clears it, so a wake-up onto an idle CPU (the
fair task is above the idle class: ``resched_curr()``) also calls ``rq_clock_skip_update()``,
and ``schedule_idle()``'s ``__schedule()`` reuses the wake-up's clock: the task woken on an
idle CPU accrues running from its wake-up, not from the switch record. On this VM the switch
out of idle comes 6-30 us (median 12) after the wake-up record; at 16 ms periods that left the
model's util_avg low by 2-3 in fresh-clone CI runs (25 us waits), while on this machine, whose
CPUs other users keep busy, an idle CPU at a wake-up was rare. The kernel's sums at the next
dequeue are those of running from the wake-up's clock, to the unit, in 165 of 166 such spans
of 10 recorded runs, none from the switch record (``scripts/ks_replay_sums.py``). ``IDLE_PREV``.

Seen from a trace: a switch whose ``prev`` is preempted (runnable, so still queued) or is the
idle task, with a wake-up onto that CPU since the CPU's previous switch. A clock update in
between that the trace does not show (a tick) moves the clock later; the records' own rq
clocks show the ones that wrote a record.
"""
from __future__ import annotations

import numpy as np

from .._common import is_runnable_state, wakeup_events
from ._pelt_clock import clocked_records, mono_minus_clock

__all__ = ["IDLE_PREV", "switch_clock_times"]

#: Also a switch out of the idle task (pid 0) runs on the wake-up's rq clock. False keeps the
#: rule to preempted tasks only, as before: kept to replay the difference on a trace.
IDLE_PREV = True


def switch_clock_times(trace) -> dict:
    """``{(cpu, switch time in ns): time in s of the rq clock the switch ran on}`` for the
    switches that reused a wake-up's rq clock (the others ran on their own time).

    The clock is the wake-up's, or a later one that a record on that CPU shows before the
    switch (a tick between them updates the rq clock: the skip only spares ``__schedule()``'s
    own update), as a mono time through the records' clock offset (:func:`mono_minus_clock`)."""
    sw = trace.df("sched_switch")
    ts = sw.index.to_numpy(np.float64)
    cpu = sw["__cpu"].to_numpy(np.int64)
    prev_pid = sw["prev_pid"].to_numpy(np.int64)
    # prev still queued: preempted (runnable), or the idle task (always TASK_ON_RQ_QUEUED)
    preempted = np.asarray(is_runnable_state(sw["prev_state"]), bool) & (prev_pid > 0)
    if IDLE_PREV:
        preempted |= prev_pid == 0
    wk = wakeup_events(trace)
    w_t = wk["time"].to_numpy(np.float64)
    w_c = wk["target_cpu"].to_numpy(np.int64)
    rec = clocked_records(trace)
    r_ts = rec["__ts"].to_numpy(np.int64)
    r_cpu = rec["cpu"].to_numpy(np.int64)
    r_clk = rec["clock"].to_numpy(np.int64)
    if len(r_ts):
        t0, icpt, slope = mono_minus_clock(r_ts, r_clk)
        r_mono = (r_clk + np.round(icpt + slope * (r_ts - t0)).astype(np.int64)) / 1e9   # each record's clock, as mono
    out: dict = {}
    for c in np.unique(cpu):
        on = np.flatnonzero(cpu == c)
        t_c = ts[on]
        wt = np.sort(w_t[w_c == c])
        if not len(wt):
            continue
        prev_t = np.r_[-np.inf, t_c[:-1]]
        j = np.searchsorted(wt, t_c, side="left") - 1      # the last wake-up onto c before the switch
        wj = np.where(j >= 0, wt[np.maximum(j, 0)], -np.inf)
        hit = preempted[on] & (wj > prev_t)
        rc_ts = r_ts[r_cpu == c] / 1e9 if len(r_ts) else np.zeros(0)
        rc_mono = r_mono[r_cpu == c] if len(r_ts) else np.zeros(0)
        # the latest rq clock any record on c shows up to each instant
        rc_max = np.maximum.accumulate(rc_mono) if len(rc_mono) else rc_mono
        for i in np.flatnonzero(hit):
            w = float(wj[i])
            k = int(np.searchsorted(rc_ts, t_c[i], side="right")) - 1
            if k >= 0 and rc_ts[k] > w:
                w = max(w, float(rc_max[k]))
            out[(int(c), int(round(t_c[i] * 1e9)))] = min(w, float(t_c[i]))
    return out
