"""The simulator's output tables as the reference engine writes them (column layout only).

Written here, not imported from ``lisa_eas._kernels.sim_state``, so that no file of
``tests/reference/`` reads the package's kernels; ``tests/test_sim_reference_engine.py``
checks that these numbers are the engine's output schema (a layout, not an algorithm).
"""
from __future__ import annotations

# events: one row (time, kind, cpu, a, b, c, d, e) per event
E_SIZE = 8
EV_SWITCH = 0      # cpu; a: prev task (-1 idle), b: prev_state, c: next task (-1 idle)
EV_WAKEUP = 1      # cpu; a: task, b: target cpu, c: task running on that CPU (-1 idle)
EV_FREQ = 2        # cpu; a: freq kHz
EV_IDLE = 3        # cpu; a: idle state (-1 = exit)
EV_TASK_UTIL = 4   # cpu; a: task, b: util_avg, c: util_est ewma, d: util_est enqueued, e: load_avg
EV_CPU_UTIL = 5    # cpu; a: cfs util_avg, b: util_est enqueued sum, c: capacity now, d: nr_running, e: rt util
EV_OVERUTIL = 6    # a: 0/1
EV_MIGRATE = 7     # cpu (dest); a: task, b: orig cpu, c: reason (0 wake, 1 balance, 2 misfit)
EV_TASK_SYNC = 8   # cpu (prev); a: task, b: PELT time the wake-up's sync_entity_load_avg took the task to

# sched_switch prev_state (TASK_RUNNING, TASK_INTERRUPTIBLE, TASK_DEAD as trace-cmd prints them)
PREV_STATE_RUNNING = 0
PREV_STATE_SLEEP = 1
PREV_STATE_DEAD = 16

# activations (rt-app log rows): task, phase, phase loop, start, end, run, perf, slack, c_duration,
# c_period, wu_lat, cpu
A_SIZE = 12

# EAS decision log: time, task, prev, chosen, task util, prev / best / base energy, pd evaluations,
# cpu_util computations, task util_avg, _task_util_est, overutilized, then 4 blocks of nr_cpus
# columns (cfs util_avg, util_est.enqueued, capacity_of, allowed)
D_IN_CPUS = 13
D_IN_PER_CPU = 4
