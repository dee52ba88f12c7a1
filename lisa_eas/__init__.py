"""lisa_eas: fast, faithful models of Linux scheduler decisions, held against real traces.

Public names are loaded on first use, so ``import lisa_eas`` stays quick and has no
side effects (numba kernels compile only when a model is first called).
"""
from __future__ import annotations

from ._lazy import lazy_exports

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "BoardError": "lisa_eas.errors",
    "ConfigError": "lisa_eas.errors",
    "EnergyModel": "lisa_eas.energy_model",
    "IdleState": "lisa_eas.platform",
    "LisaEasError": "lisa_eas.errors",
    "MissingTraceEventError": "lisa_eas.errors",
    "ModelError": "lisa_eas.errors",
    "Opp": "lisa_eas.platform",
    "PerfDomain": "lisa_eas.platform",
    "PermanentBoardError": "lisa_eas.errors",
    "Platform": "lisa_eas.platform",
    "PlatformError": "lisa_eas.errors",
    "SimConfig": "lisa_eas.sim",
    "TargetConfig": "lisa_eas.target",
    "TargetConnection": "lisa_eas.target",
    "Trace": "lisa_eas.trace",
    "TraceError": "lisa_eas.errors",
    "TransientBoardError": "lisa_eas.errors",
    "Workload": "lisa_eas.rtapp",
    "WorkloadError": "lisa_eas.errors",
    "connect": "lisa_eas.target",
    "find_energy_efficient_cpu": "lisa_eas.models",
    "list_platforms": "lisa_eas.platform",
    "load_platform": "lisa_eas.platform",
    "load_target_config": "lisa_eas.target",
    "pelt_timeline": "lisa_eas.models",
    "probe": "lisa_eas.target",
    "read_rtapp_log": "lisa_eas.rtapp",
    "read_trace": "lisa_eas.trace",
    "read_workload": "lisa_eas.rtapp",
    "reproduce": "lisa_eas.repro",
    "resume_run": "lisa_eas.target",
    "run_workload": "lisa_eas.target",
    "select_idle_sibling": "lisa_eas.models",
    "simulate": "lisa_eas.sim",
    "sis_util_nr_scan": "lisa_eas.models",
    "workload_from_json": "lisa_eas.rtapp",
    "write_workload": "lisa_eas.rtapp",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
