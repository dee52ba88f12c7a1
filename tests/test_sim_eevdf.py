"""EEVDF (v6.6+) in the simulator against the vruntime CFS before it, worked out by hand from
kernel/sched/fair.c (ledger rows cfs-v4.14, cfs-v6.6).

The scene: HiKey960 (8 CPUs: the tunables scale by 1 + ilog2(8) = 4, so sysctl_sched_latency
24 ms, wakeup_granularity 4 ms, base_slice / min_granularity 3 ms), HZ 250 (ticks at 4, 8, 12 ms
on the CPU running a task), both tasks pinned to CPU 0. A runs 100 ms of wall time from t = 0; W
starts at 10 ms and runs 1 ms.

v6.5 (place_entity, check_preempt_wakeup): A placed at max(0, min_vruntime - 12 ms) = 0 and
runs alone, vruntime = wall time; the tick's update_min_vruntime leaves min_vruntime = 8 ms. W
wakes at 10 ms and is placed at max(0, 8 - 12 ms) = 0; A's vruntime 10 ms - 0 > 4 ms: W preempts
at once (10.000 ms).

v6.6 (place_entity, update_deadline, pick_eevdf, check_preempt_wakeup): A placed on the empty
runqueue at V = min_vruntime = 0, deadline 3 ms, the stash vlag = 3 ms when it is switched in.
Tick 4 ms: vruntime 4 >= 3: deadline 7 ms (alone: no reschedule; the stash no longer equals the
deadline). Tick 8 ms: deadline 11 ms. W wakes at 10 ms: V = A's 10 ms, W's lag 0, so W at 10 ms,
deadline 13 ms. The pick: both eligible (sum 20 >= 10 x 2), A not protected (3 != 11), W's
deadline 13 ms is not earlier than A's 11 ms: A keeps the CPU. Tick 12 ms: A's vruntime 12 >= 11:
deadline 15 ms and, W queued, a reschedule; the pick: A not eligible (22 < 12 x 2), W eligible
(22 >= 10 x 2): W runs at 12.000 ms.
"""
from __future__ import annotations

import pytest

from lisa_eas.rtapp import Phase, RunTime, Sleep, task, workload
from lisa_eas.sim import SimConfig, simulate


def _first_switch_to(era: str, name: str) -> int:
    wl = workload([task("A", [Phase(name="a", events=(RunTime(100_000),), loop=1)], cpus=[0]),
                   task("W", [Phase(name="w", events=(RunTime(1_000),), loop=1)], cpus=[0], delay_us=10_000)],
                  calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(era=era, placement="no-eas"))
    sw = tr.df("sched_switch")
    return int(sw[sw["next_comm"] == name]["__ts"].iloc[0])


@pytest.mark.parametrize("era, expected_ns", [("v6.5", 10_000_000), ("v6.6", 12_000_000)])
def test_waking_task_preempts_under_v6_5_and_waits_for_the_deadline_under_v6_6(era, expected_ns):
    """v6.5: W preempts A at its wake-up (10 ms); v6.6: A keeps the CPU until its deadline passes
    at the 12 ms tick (hand-worked in the module docstring)."""
    assert _first_switch_to(era, "W") == expected_ns


def test_min_vruntime_follows_update_curr_before_a_wake_up_v6_5():
    """v6.5 (ledger cfs-v4.14): ``update_curr`` ends in ``update_min_vruntime``, so a task waking
    between two ticks is placed against the running task's vruntime of that instant.

    HiKey960, CPU 0: W runs 2 ms from t = 0 and sleeps until 39 ms, then runs 30 ms; A starts at
    5 ms (placed at max(0, 2 - 12 ms) = 0: W's dequeue left min_vruntime at W's 2 ms) and runs on.
    At 39 ms the enqueue's update_curr brings A to 34 ms and min_vruntime with it; W is placed at
    max(2, 34 - 12) = 22 ms and preempts (34 - 22 = 12 > 4 ms). Ticks at 40, 44, 48 ms: W has run
    1, 5, 9 ms (< the 12 ms slice of two tasks) and its vruntime 23, 27, 31 ms is below A's 34.
    Tick 52 ms: 13 ms > 12: rescheduled, and A (34) is left of W (22 + 13 = 35): A runs at 52 ms.
    (With min_vruntime as the 36 ms tick left it, 31 ms, W was placed at 19 ms and kept the CPU
    until the 56 ms tick.)"""
    wl = workload([task("W", [Phase(name="w0", events=(RunTime(2_000), Sleep(37_000)), loop=1),
                              Phase(name="w1", events=(RunTime(30_000),), loop=1)], cpus=[0]),
                   task("A", [Phase(name="a", events=(RunTime(200_000),), loop=1)], cpus=[0], delay_us=5_000)],
                  calibration=20)
    sw = simulate("hikey960", wl, config=SimConfig(era="v6.5", placement="no-eas")).df("sched_switch")
    to_w = sw[(sw["next_comm"] == "W") & (sw["__ts"] >= 39_000_000)]
    assert int(to_w["__ts"].iloc[0]) == 39_000_000
    to_a = sw[(sw["next_comm"] == "A") & (sw["__ts"] > 39_000_000)]
    assert int(to_a["__ts"].iloc[0]) == 52_000_000
