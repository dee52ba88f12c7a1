"""lisa_eas: fast, faithful models of Linux scheduler decisions, held against real traces.

Public names are loaded on first use, so ``import lisa_eas`` stays quick and has no
side effects (numba kernels compile only when a model is first called).
"""
from __future__ import annotations

import importlib

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
    "TraceError": "lisa_eas.errors",
    "TransientBoardError": "lisa_eas.errors",
    "WorkloadError": "lisa_eas.errors",
    "list_platforms": "lisa_eas.platform",
    "load_platform": "lisa_eas.platform",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'lisa_eas' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
