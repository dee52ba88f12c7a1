"""rt-app workloads: model, builders, reader/writer, calibration, logs and markers.

Read, check and write any rt-app JSON (json-c dialect: comments, trailing commas,
repeated event keys, bare ``"suspend"``)::

    from lisa_eas.rtapp import read_workload, periodic, ramp, task, workload
    wl = read_workload("workloads/eas_speedup_ramp.json")
    wl2 = workload([task("t", periodic(16, 30, duration_s=2))], calibration=20)
    open("t.json", "w").write(wl2.to_json())

and read what a run produced: :func:`read_rtapp_log` (per-thread log files) and
:func:`lisa_eas.rtapp.markers.df_activations_from_markers` (ftrace markers).
"""
from __future__ import annotations

from ._builders import duty_cycle_sweep, identical_tasks, periodic, ramp, step, task, workload
from ._calibration import Calibration, measured_ns_per_loop, parse_pload, run_loops
from ._log import read_rtapp_log, read_rtapp_logs
from ._model import (Barrier, Broadcast, Event, Fork, GlobalSettings, IORun, Lock, Mem, Phase, Policy,
                     Resume, Run, RunTime, Signal, Sleep, Suspend, Sync, Task, Timer, Unlock, Wait,
                     Workload, Yield)
from ._reader import read_workload, workload_from_json
from ._writer import workload_to_json, write_workload

__all__ = [
    "Barrier", "Broadcast", "Calibration", "Event", "Fork", "GlobalSettings", "IORun", "Lock", "Mem",
    "Phase", "Policy", "Resume", "Run", "RunTime", "Signal", "Sleep", "Suspend", "Sync", "Task",
    "Timer", "Unlock", "Wait", "Workload", "Yield",
    "duty_cycle_sweep", "identical_tasks", "measured_ns_per_loop", "parse_pload", "periodic", "ramp",
    "read_rtapp_log", "read_rtapp_logs", "read_workload", "run_loops", "step", "task", "workload",
    "workload_from_json", "workload_to_json", "write_workload",
]
