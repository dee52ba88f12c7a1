#!/usr/bin/env python3
"""Replay a task's kernel PELT sums between two of its kernel-signals records, by hand.

A diagnostic for the kernel-signals comparison (``lisa_eas.analysis.validate``): it asks the
kernel's own sums, not our model, when a task started running. For each pair of consecutive
``sched_pelt_se`` records A, B of the task on one CPU that has a switch-in of the task between
them, it starts from A's sums (``load_sum``, ``runnable_sum``, ``util_sum``, ``period_contrib``,
``last_update_time``) and runs v6.18's ``___update_load_sum``/``accumulate_sum``
(kernel/sched/pelt.c) to B's PELT clock (``clock_pelt - lost_idle_time`` of B's record: the
update that wrote it), the task runnable throughout and running from a start P, and reports
which P gives B's ``util_sum``: the switch record (mapped onto the PELT clock from A's clock
and the mono time elapsed since A), the wake-up's clock (A's, when A is the wake-up's
enqueue update) or the P solved from B's sums.

Written from the kernel source (v6.18 kernel/sched/pelt.c: ``decay_load``,
``__accumulate_pelt_segments``, ``accumulate_sum``, ``___update_load_sum``; sched-pelt.h's
table as Documentation/scheduler/sched-pelt.c generates it); it imports nothing of
lisa_eas's models or kernels (the trace reader only), so it is an independent check.

Usage: ``python scripts/ks_replay_sums.py RUN_DIR TASK_COMM [--all]`` (``--all``: every pair
with a switch-in, not only those after a wake-up on an idle CPU).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

LOAD_AVG_PERIOD = 32
LOAD_AVG_MAX = 47742
_Y = 0.5 ** (1 / 32.0)
YN_INV = [int(((1 << 32) - 1) * _Y ** i) for i in range(LOAD_AVG_PERIOD)]
assert YN_INV[1] == 0xfa83b2da and YN_INV[16] == 0xb504f333


def decay_load(val: int, n: int) -> int:
    if n > LOAD_AVG_PERIOD * 63:
        return 0
    if n >= LOAD_AVG_PERIOD:
        val >>= n // LOAD_AVG_PERIOD
        n %= LOAD_AVG_PERIOD
    return (val * YN_INV[n]) >> 32


class Avg:
    def __init__(self, lut: int, load_sum: int, runnable_sum: int, util_sum: int, pc: int):
        self.lut, self.load_sum, self.runnable_sum, self.util_sum, self.pc = lut, load_sum, runnable_sum, util_sum, pc

    def update(self, now: int, load: int, runnable: int, running: int) -> None:
        """___update_load_sum(now, sa, load, runnable, running) for a task entity."""
        delta = now - self.lut
        if delta < 0:
            self.lut = now
            return
        delta >>= 10
        if not delta:
            return
        self.lut += delta << 10
        if not load:
            runnable = running = 0
        contrib = delta
        delta += self.pc
        periods = delta // 1024
        if periods:
            self.load_sum = decay_load(self.load_sum, periods)
            self.runnable_sum = decay_load(self.runnable_sum, periods)
            self.util_sum = decay_load(self.util_sum, periods)
            delta %= 1024
            if load:
                contrib = (decay_load(1024 - self.pc, periods)
                           + LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024 + delta)
        self.pc = delta
        if load:
            self.load_sum += load * contrib
        if runnable:
            self.runnable_sum += (runnable * contrib) << 10
        if running:
            self.util_sum += contrib << 10

    def util_avg(self) -> int:
        return self.util_sum // (LOAD_AVG_MAX - 1024 + self.pc)


def replay(a, now_b: int, p: int) -> Avg:
    """A's sums, runnable from A to B, running from PELT time p (one update at p, one at B)."""
    s = Avg(int(a["update_time"]), int(a["load_sum"]), int(a["runnable_sum"]), int(a["util_sum"]),
            int(a["period_contrib"]))
    s.update(p, 1, 1, 0)
    s.update(now_b, 1, 1, 1)
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("comm")
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args(argv)
    from lisa_eas.trace import read_trace

    t = read_trace(args.run_dir, cache=False)
    se = t.df("sched_pelt_se")
    se = se[se["comm"].astype(str) == args.comm]
    sw = t.df("sched_switch")
    wk = t.df("sched_wakeup")
    pid = int(se["pid"].iloc[0])
    sw_in = sw[sw["next_pid"].to_numpy() == pid]
    wk = wk[wk["pid"].to_numpy() == pid]
    ts = se["__ts"].to_numpy(np.int64)
    cpu = se["cpu"].to_numpy()
    now = (se["clock_pelt"].to_numpy(np.int64) - se["lost_idle_time"].to_numpy(np.int64))
    n_pairs = n_wake = n_rec = exact_wake = exact_rec = 0
    print("switch-in           cpu prev        state wake->sw us  B.util_sum  at-switch  at-wake   P-solved(us after A)  "
          "util B / at-switch / at-wake")
    for i in range(len(se) - 1):
        a, b = se.iloc[i], se.iloc[i + 1]
        if cpu[i] != cpu[i + 1]:
            continue
        ins = sw_in[(sw_in.index.to_numpy() * 1e9 > ts[i]) & (sw_in.index.to_numpy() * 1e9 < ts[i + 1])]
        if len(ins) != 1 or int(ins["__cpu"].iloc[0]) != cpu[i]:
            continue
        # only spans whose other events are the switch-in: A before it, B the task's next update
        # (the dequeue or a tick), no switch-out of the task in between
        outs = sw[(sw["prev_pid"].to_numpy() == pid) & (sw.index.to_numpy() * 1e9 > ts[i])
                  & (sw.index.to_numpy() * 1e9 < ts[i + 1] - 40_000)]
        if len(outs):
            continue
        t_sw = int(round(ins.index[0] * 1e9))
        prev_idle = int(ins["prev_pid"].iloc[0]) == 0
        w = wk[(wk.index.to_numpy() * 1e9 > ts[i]) & (wk.index.to_numpy() * 1e9 <= t_sw)]
        at_wake = len(w) > 0 and (w.index[0] * 1e9 - ts[i]) < 40_000   # A is the wake-up's enqueue update
        if not args.all and not (prev_idle and at_wake):
            continue
        n_pairs += 1
        p_sw = int(now[i] + (t_sw - ts[i]))
        k_sw = replay(a, int(now[i + 1]), p_sw)
        k_wk = replay(a, int(now[i + 1]), int(now[i]))
        target = int(b["util_sum"])
        best = min(range(int(now[i]), min(p_sw + 200_000, int(now[i + 1])), 1024),
                   key=lambda p: abs(replay(a, int(now[i + 1]), p).util_sum - target))
        n_wake += abs(k_wk.util_sum - target) <= abs(k_sw.util_sum - target)
        n_rec += abs(k_sw.util_sum - target) < abs(k_wk.util_sum - target)
        exact_wake += k_wk.util_sum == target
        exact_rec += k_sw.util_sum == target
        wake_us = (t_sw - w.index[0] * 1e9) / 1e3 if len(w) else float("nan")
        print(f"{ins.index[0]:.6f} {cpu[i]:3d} {str(ins['prev_comm'].iloc[0])[:11]:11s} "
              f"{int(ins['prev_state'].iloc[0]):5d} {wake_us:9.1f}  "
              f"{target:10d} {k_sw.util_sum - target:+10d} {k_wk.util_sum - target:+8d}   {(best - now[i]) / 1e3:8.1f}"
              f"              {int(b['util'])} / {k_sw.util_avg()} / {k_wk.util_avg()}")
    print(f"{n_pairs} spans: B's util_sum reproduced exactly from the wake-up's clock in {exact_wake}, from the "
          f"switch record in {exact_rec}; the wake-up's clock at least as close in {n_wake}, the switch record "
          f"closer in {n_rec}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
