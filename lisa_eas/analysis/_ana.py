"""``trace.ana``: the analyses of a Trace by area, as LISA users know them.

``trace.ana.<area>.df_*(...)`` and ``trace.ana.<area>.plot_*(...)`` call the
:mod:`lisa_eas.analysis` function (or :mod:`lisa_eas.plot` plot) with the trace as first
argument. TAB completion lists the areas and, in each, its functions; ``help()`` shows each
function's docstring. Where LISA has an obvious name for one of ours, that name is an alias
(``trace.ana.frequency.df_cpus_frequency`` is ``df_cpu_frequency``); the full mapping is
:data:`LISA_NAMES` (and the docs' table).

>>> trace.ana.idle.df_cpu_idle_state_residency()
>>> trace.ana.tasks.plot_task_placement(tasks=["rt-app"])
"""
from __future__ import annotations

import functools
import importlib

__all__ = ["AREAS", "LISA_NAMES", "TraceAnalyses"]

#: area -> {name: "module:function"}; each function takes the trace as first argument.
AREAS: dict[str, dict[str, str]] = {
    "tasks": {
        "df_task_states": "lisa_eas.analysis:df_task_states",
        "df_task_state_residency": "lisa_eas.analysis:df_task_state_residency",
        "df_cpu_residency": "lisa_eas.analysis:df_cpu_residency",
        "df_migrations": "lisa_eas.analysis:df_migrations",
        "df_task_placement": "lisa_eas.analysis:df_task_placement",
        "plot_task_placement": "lisa_eas.plot:plot_task_placement",
        "plot_cpu_timeline": "lisa_eas.plot:plot_cpu_timeline",
    },
    "frequency": {
        "df_cpu_frequency": "lisa_eas.analysis:df_cpu_frequency",
        "df_frequency_residency": "lisa_eas.analysis:df_frequency_residency",
        "df_frequency_transitions": "lisa_eas.analysis:df_frequency_transitions",
        "plot_cpu_frequency": "lisa_eas.plot:plot_cpu_frequency",
    },
    "load_tracking": {
        "df_task_util": "lisa_eas.analysis:df_task_util",
        "df_cpu_util": "lisa_eas.analysis:df_cpu_util",
        "model_task_util": "lisa_eas.analysis:model_task_util",
        "plot_task_util": "lisa_eas.plot:plot_task_util",
        "plot_cpu_util": "lisa_eas.plot:plot_cpu_util",
    },
    "idle": {
        "df_cpus_idle": "lisa_eas.analysis:df_cpus_idle",
        "df_cpu_idle_state_residency": "lisa_eas.analysis:df_cpu_idle_state_residency",
        "plot_cpu_idle_state_residency": "lisa_eas.plot:plot_cpu_idle_state_residency",
    },
    "rta": {
        "df_rtapp_activations": "lisa_eas.analysis:df_rtapp_activations",
        "df_rtapp_crosscheck": "lisa_eas.analysis:df_rtapp_crosscheck",
    },
    "latency": {
        "df_wakeup_latency": "lisa_eas.analysis:df_wakeup_latency",
        "plot_wakeup_latency": "lisa_eas.plot:plot_wakeup_latency",
    },
    "status": {
        "df_overutilized": "lisa_eas.analysis:df_overutilized",
    },
    "energy": {
        "df_energy": "lisa_eas.analysis:df_energy",
        "energy_summary": "lisa_eas.analysis:energy_summary",
        "ramp_boost_energy_overhead": "lisa_eas.analysis:ramp_boost_energy_overhead",
    },
}

#: (area, LISA name) -> our name, for the names where LISA's is the obvious one; these
#: are aliases in ``trace.ana``. Same arguments unless the docs' table says otherwise.
LISA_NAMES: dict[tuple[str, str], str] = {
    ("tasks", "df_tasks_states"): "df_task_states",
    ("tasks", "df_tasks_total_residency"): "df_cpu_residency",
    ("frequency", "df_cpus_frequency"): "df_cpu_frequency",
    ("frequency", "df_cpu_frequency_residency"): "df_frequency_residency",
    ("frequency", "df_cpu_frequency_transitions"): "df_frequency_transitions",
    ("frequency", "plot_cpu_frequencies"): "plot_cpu_frequency",
    ("load_tracking", "plot_task_placement"): "plot_task_placement",
    ("latency", "df_latency_wakeup"): "df_wakeup_latency",
}


def _resolve(spec: str):
    mod, name = spec.split(":")
    return getattr(importlib.import_module(mod), name)


class _Area:
    """One area of ``trace.ana``: its functions bound to the trace."""

    def __init__(self, trace, area: str):
        self._trace = trace
        self._area = area
        self._names = dict(AREAS[area])
        for (a, lisa), ours in LISA_NAMES.items():
            if a == area:
                self._names[lisa] = self._names.get(ours) or next(v[ours] for v in AREAS.values() if ours in v)

    def __getattr__(self, name: str):
        names = self.__dict__.get("_names", {})
        if name not in names:
            raise AttributeError(f"trace.ana.{self._area} has no {name!r}; it has: {', '.join(sorted(names))}")
        fn = _resolve(names[name])
        bound = functools.partial(fn, self._trace)
        functools.update_wrapper(bound, fn)
        return bound

    def __dir__(self):
        return sorted(self._names)

    def __repr__(self) -> str:
        return f"<trace.ana.{self._area}: {', '.join(sorted(self._names))}>"


class TraceAnalyses:
    """``trace.ana``: one attribute per area (``tasks``, ``frequency``, ``load_tracking``, ``idle``,
    ``rta``, ``latency``, ``status``, ``energy``)."""

    def __init__(self, trace):
        self._trace = trace

    def __getattr__(self, area: str) -> _Area:
        if area.startswith("_") or area not in AREAS:
            raise AttributeError(f"trace.ana has no area {area!r}; areas: {', '.join(AREAS)}")
        return _Area(self._trace, area)

    def __dir__(self):
        return list(AREAS)

    def __repr__(self) -> str:
        return f"<trace.ana: {', '.join(AREAS)}>"
