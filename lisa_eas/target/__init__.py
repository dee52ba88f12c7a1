"""Drive real boards: connect, probe, prepare, trace, run rt-app workloads.

Start from a target file (``target_configs/local.yml``)::

    from lisa_eas.target import connect, probe, run_workload
    with connect("target_configs/local.yml") as board:
        print(probe(board).platform)
        result = run_workload(board, "workloads/smoke_local.json", "runs/smoke")

:func:`resume_run` finishes a run that was interrupted (``lisa-eas run --resume DIR``).
"""
from __future__ import annotations

from ._artifacts import STEPS, RunArtifacts
from ._config import (KERNEL_SIGNALS, SignalsConfig, TargetConfig, TracingConfig, load_target_config,
                      signals_config, target_config_from_dict)
from ._connection import TargetConnection, connect
from ._prepare import DEFAULT_KEEP, Preparation, freeze_userspace, pin_frequencies
from ._probe import TargetInfo, parse_cpulist, probe
from ._run import RunInterrupted, RunResult, calibrate_rtapp, resume_run, run_workload
from ._signals import SIGNALS_FILE, KernelSignals, loader_path, record_signals
from ._tracedat import build_trace_dat_v6
from ._tracefs import CpuBufferStats, TracefsCollector, ensure_debugfs, find_tracefs

__all__ = [
    "CpuBufferStats",
    "DEFAULT_KEEP",
    "KERNEL_SIGNALS",
    "KernelSignals",
    "Preparation",
    "RunArtifacts",
    "RunInterrupted",
    "RunResult",
    "SIGNALS_FILE",
    "SignalsConfig",
    "STEPS",
    "TargetConfig",
    "TargetConnection",
    "TargetInfo",
    "TracefsCollector",
    "TracingConfig",
    "build_trace_dat_v6",
    "calibrate_rtapp",
    "connect",
    "ensure_debugfs",
    "find_tracefs",
    "freeze_userspace",
    "load_target_config",
    "loader_path",
    "parse_cpulist",
    "pin_frequencies",
    "probe",
    "record_signals",
    "resume_run",
    "run_workload",
    "signals_config",
    "target_config_from_dict",
]
