"""Analyses of a :class:`~lisa_eas.trace.Trace`, the same on real and simulated runs.

``df_*`` functions return DataFrames; the matching ``plot_*`` functions live in
:mod:`lisa_eas.plot`. Each analysis declares the events it needs (``required_events``
attribute) and raises :class:`~lisa_eas.errors.MissingTraceEventError` naming them and the
``lisa-eas run`` tracing option that records them.

* tasks: :func:`df_task_states`, :func:`df_task_state_residency`, :func:`df_cpu_residency`,
  :func:`df_migrations`, :func:`df_task_placement`;
* rt-app: :func:`df_rtapp_activations`, :func:`df_rtapp_stats`, :func:`df_rtapp_crosscheck`,
  :func:`df_wakeup_latency`;
* a measured run against a simulated run of the same workload: :func:`df_run_comparison`
  (:func:`run_metrics` per run);
* frequency: :func:`df_cpu_frequency`, :func:`df_frequency_residency`,
  :func:`df_frequency_transitions`, :func:`governor_overhead`, :func:`df_governor_comparison`;
* energy: :func:`df_energy`, :func:`energy_summary`, :func:`ramp_boost_energy_overhead`;
* load: :func:`df_task_util`, :func:`df_cpu_util`, :func:`df_overutilized`,
  :func:`model_task_util`;
* measured power: :func:`df_power_rails`, :func:`df_rail_energy`, :func:`df_rail_vs_model`,
  :func:`fit_energy_model` (an energy model fitted to power rails);
* energy-optimal placement: :func:`optimal_placement`, :func:`brute_force_placement`,
  :func:`placement_energy` (the energy of a given placement);
* idle states: :func:`df_cpus_idle`, :func:`df_cpu_idle_state_residency`;
* replay against the models: :mod:`lisa_eas.analysis.validate`;
* by area, LISA style: ``trace.ana.<area>.df_*`` / ``plot_*`` (:class:`TraceAnalyses`; LISA's
  names that map to ours: :data:`LISA_NAMES`).
"""
from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "df_cpu_frequency": "._frequency",
    "df_frequency_residency": "._frequency",
    "df_frequency_transitions": "._frequency",
    "df_governor_comparison": "._frequency",
    "governor_overhead": "._frequency",
    "df_cpu_idle_state_residency": "._idle",
    "df_cpus_idle": "._idle",
    "df_energy": "._energy",
    "energy_summary": "._energy",
    "ramp_boost_energy_overhead": "._energy",
    "df_cpu_util": "._load",
    "df_overutilized": "._load",
    "df_task_util": "._load",
    "model_task_util": "._load",
    "df_rtapp_activations": "._rtapp",
    "df_rtapp_crosscheck": "._rtapp",
    "df_rtapp_stats": "._rtapp",
    "df_wakeup_latency": "._rtapp",
    "df_run_comparison": "._sidebyside",
    "run_metrics": "._sidebyside",
    "df_cpu_residency": "._tasks",
    "df_migrations": "._tasks",
    "df_task_placement": "._tasks",
    "df_task_state_residency": "._tasks",
    "df_task_states": "._tasks",
    "df_power_rails": "._power",
    "df_rail_energy": "._power",
    "df_rail_vs_model": "._power",
    "EnergyModelFit": "._emfit",
    "fit_energy_model": "._emfit",
    "AREAS": "._ana",
    "LISA_NAMES": "._ana",
    "TraceAnalyses": "._ana",
    "PlacementResult": "lisa_eas.models.placement",
    "brute_force_placement": "lisa_eas.models.placement",
    "optimal_placement": "lisa_eas.models.placement",
    "placement_energy": "lisa_eas.models.placement",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
