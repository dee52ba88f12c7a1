"""task_timeline on hand-built traces: when a woken task whose switch-in was not traced may be
taken as running from its wake-up (the 6.18 case of a switch out of idle that the kernel does not
trace), and when the CPU shows it was busy, so that when the task ran is unknown.

The busy case is the event sequence of a fresh-clone CI run (2026-11-26, 07:34, 6.18 VM) whose
shared-CPU kernel-signals comparison failed with util p99 25.8: on CPU 1 the VM agent's
``tokio-rt-worker`` (pid 75, its own switch-in untraced) wakes ``ks_sh2`` and ``ks_sh1``;
``rcu_preempt`` hands over to ``ks_sh2`` (traced), ``ks_sh2`` sleeps and ``tokio-rt-worker``
runs (traced), then ``ks_sh1`` switches out with no traced switch-in. Taken as running from its
wake-up, ``ks_sh1`` overlapped ``ks_sh2``'s traced run and the model's util came out 46 above the
kernel's (150 vs 104)."""
from __future__ import annotations

import pandas as pd

from lisa_eas.analysis._common import STATE_RUNNABLE, STATE_RUNNING, task_timeline
from lisa_eas.trace import Trace

SH1, SH2, RCU, TOKIO, KWORKER = 18259, 18260, 15, 75, 13703


def _trace(switches, wakeups):
    """switches: (time, cpu, prev_pid, prev_state, next_pid); wakeups: (time, cpu, waker_pid, pid)."""
    swdf = pd.DataFrame({"__cpu": [r[1] for r in switches], "__pid": [r[2] for r in switches], "__comm": "x",
                         "prev_comm": [f"p{r[2]}" for r in switches], "prev_pid": [r[2] for r in switches],
                         "prev_prio": 120, "prev_state": [r[3] for r in switches],
                         "next_comm": [f"p{r[4]}" for r in switches], "next_pid": [r[4] for r in switches],
                         "next_prio": 120}, index=pd.Index([r[0] for r in switches], name="Time"))
    wk = pd.DataFrame({"__cpu": [r[1] for r in wakeups], "__pid": [r[2] for r in wakeups], "__comm": "w",
                       "comm": [f"p{r[3]}" for r in wakeups], "pid": [r[3] for r in wakeups], "prio": 120,
                       "target_cpu": [r[1] for r in wakeups]}, index=pd.Index([r[0] for r in wakeups], name="Time"))
    return Trace.from_dataframes({"sched_switch": swdf, "sched_wakeup": wk})


def _rows(trace, pid):
    tl = task_timeline(trace)
    return tl[tl["pid"] == pid].reset_index(drop=True)


# ks_sh1 ran and went to sleep (CPU 1 idle after it); woken at 0.977425
BEFORE = [(0.9600, 1, 0, 0, SH1), (0.962733, 1, SH1, 1, 0)]


def test_woken_on_an_idle_cpu_with_nothing_else_traced_runs_from_its_wakeup():
    tr = _trace(BEFORE + [(0.981488, 1, SH1, 1, 0)], [(0.977425, 1, 0, SH1)])
    r = _rows(tr, SH1)
    woken = r[r["time"] == 0.977425].iloc[0]
    assert woken["state"] == STATE_RUNNING and not r["untraced_switch_in"].any()


def test_the_ci_sequence_a_busy_cpu_leaves_the_start_unknown():
    sw = BEFORE + [(0.977444, 1, RCU, 1, SH2), (0.979560, 1, SH2, 1, TOKIO), (0.981488, 1, SH1, 1, KWORKER),
                   (0.981502, 1, KWORKER, 1, 0)]
    wk = [(0.977423, 1, TOKIO, SH2), (0.977425, 1, TOKIO, SH1)]
    r = _rows(_trace(sw, wk), SH1)
    woken = r[r["time"] == 0.977425].iloc[0]
    out = r[r["time"] == 0.981488].iloc[0]
    # runnable from the wake-up; the switch-out's span is flagged: it ran in it, when is unknown
    assert woken["state"] == STATE_RUNNABLE
    assert bool(woken["untraced_switch_in"]) or bool(out["untraced_switch_in"])


def test_a_switch_traced_on_that_cpu_after_the_wakeup_shows_it_was_busy():
    # woken from idle (the waker is the idle task), but ks_sh2 is traced running in between
    sw = BEFORE + [(0.977444, 1, 0, 0, SH2), (0.979560, 1, SH2, 1, 0), (0.981488, 1, SH1, 1, 0)]
    r = _rows(_trace(sw, [(0.977425, 1, 0, SH1)]), SH1)
    assert r[r["time"] == 0.977425].iloc[0]["state"] == STATE_RUNNABLE
    assert r["untraced_switch_in"].any()


def test_a_wakeup_written_by_a_running_task_on_that_cpu_shows_it_was_busy():
    # nothing else traced in between, but the wake-up was written on CPU 1 by tokio-rt-worker
    sw = BEFORE + [(0.981488, 1, SH1, 1, 0)]
    r = _rows(_trace(sw, [(0.977425, 1, TOKIO, SH1)]), SH1)
    assert r[r["time"] == 0.977425].iloc[0]["state"] == STATE_RUNNABLE
    assert r["untraced_switch_in"].any()
