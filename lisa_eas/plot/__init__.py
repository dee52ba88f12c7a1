"""Plots of the analyses and of the model validation (holoviews objects, bokeh backend).

The only package of lisa_eas that imports holoviews/bokeh (on first use). Long signals
are decimated per screen bucket (first/last/min/max kept) so traces with millions of events
stay responsive without datashader.

>>> from lisa_eas.plot import plot_task_placement
>>> plot_task_placement(trace, tasks=["rt-app"])
"""
from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "downsample_steps": "._common",
    "embed_components": "._common",
    "plot_cpu_frequency": "._analysis",
    "plot_cpu_idle_state_residency": "._analysis",
    "plot_cpu_util": "._analysis",
    "plot_energy": "._analysis",
    "plot_rtapp_slack": "._analysis",
    "plot_task_placement": "._analysis",
    "plot_task_util": "._analysis",
    "plot_wakeup_latency": "._analysis",
    "plot_fitted_power": "._power",
    "plot_power_rails": "._power",
    "plot_rail_fit": "._power",
    "plot_eas_agreement": "._validate",
    "plot_energy_model": "._platform",
    "plot_eas_regret": "._validate",
    "plot_pelt_error": "._validate",
    "plot_schedutil": "._validate",
    "validation_html": "._validate",
    "write_validation": "._validate",
    "plot_ab_distributions": "._suite",
    "plot_suite_energy": "._suite",
    "plot_suite_power": "._suite",
    "plot_cpu_timeline": "._repro",
    "plot_energy_breakdown": "._repro",
    "plot_frequency": "._repro",
    "plot_published_vs_reproduced": "._repro",
    "plot_sis_scan": "._repro",
    "plot_sis_scan_hist": "._repro",
    "plot_slack": "._repro",
    "plot_workload_phases": "._repro",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
