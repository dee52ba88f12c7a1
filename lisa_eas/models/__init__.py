"""Fast, faithful models of Linux scheduler and cpufreq decisions.

Each function validates its arguments (a :class:`~lisa_eas.errors.ModelError` naming the
argument on bad input) and runs a numba kernel from :mod:`lisa_eas._kernels`, which
compiles on first use and is cached on disk.

* PELT / util_est: :func:`pelt_timeline`, :func:`resample_signal`, :func:`pelt_config`,
  :func:`pelt_tables`, :func:`rq_clock_pelt` (a runqueue's v5.1+ PELT clock), :func:`pelt_clock_scaled`,
  :func:`thermal_load_avg` (the thermal pressure's average, v5.7+, with ``sched_thermal_decay_shift``),
  :func:`util_est_step`;
* EAS wake-up: :func:`find_energy_efficient_cpu` (eras v4.16 = the April 2018 RFC v2, v5.0, v5.4, v5.14, v6.0, v6.2, v6.5), :func:`cpu_overutilized`;
* the era ledger: :data:`ERA_LEDGER`, :func:`era_ledger` (one row per modelled behaviour change);
* cpuidle: :func:`menu_select`, :func:`menu_thresholds` (the menu governor's state choice);
* idle-CPU search: :func:`select_idle_sibling`, :func:`sis_util_nr_scan`, :func:`sis_prop_nr`;
* the wake-up path around it: :func:`wake_affine`, :func:`recent_used_cpu_after`, :func:`avg_idle_update`,
  :func:`sis_prop_account`;
* schedutil: :func:`schedutil_next_freq`, :func:`schedutil_run`, :func:`effective_cpu_util`, :func:`effective_cpu_perf`,
  :func:`em_pd_get_higher_freq` (ramp boost), :func:`schedutil_tables`;
* legacy governors: :func:`ondemand`, :func:`interactive`, :func:`schedfreq`,
  :func:`performance`, :func:`powersave`;
* energy-optimal placement of periodic tasks: :func:`optimal_placement`, :func:`brute_force_placement`,
  :func:`placement_energy` (also exported by :mod:`lisa_eas.analysis`).
"""
from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "ERA_LEDGER": "lisa_eas._era",
    "era_ledger": "lisa_eas._era",
    "opp_inefficient": "lisa_eas.models.schedutil",
    "EAS_ERAS": "lisa_eas.models.eas",
    "EasDecisions": "lisa_eas.models.eas",
    "PELT_ERAS": "lisa_eas.models.pelt",
    "UTIL_EST_ERAS": "lisa_eas.models.pelt",
    "cpu_overutilized": "lisa_eas.models.eas",
    "find_energy_efficient_cpu": "lisa_eas.models.eas",
    "menu_select": "lisa_eas.models.cpuidle",
    "menu_thresholds": "lisa_eas.models.cpuidle",
    "pelt_clock_scaled": "lisa_eas.models.pelt",
    "pelt_config": "lisa_eas.models.pelt",
    "pelt_tables": "lisa_eas.models.pelt",
    "pelt_timeline": "lisa_eas.models.pelt",
    "resample_signal": "lisa_eas.models.pelt",
    "rq_clock_pelt": "lisa_eas.models.pelt",
    "thermal_load_avg": "lisa_eas.models.pelt",
    "util_est_step": "lisa_eas.models.pelt",
    "SIS_ERAS": "lisa_eas.models.sis",
    "SIS_PATHS": "lisa_eas.models.sis",
    "SisDecisions": "lisa_eas.models.sis",
    "select_idle_sibling": "lisa_eas.models.sis",
    "sis_prop_nr": "lisa_eas.models.sis",
    "sis_util_nr_scan": "lisa_eas.models.sis",
    "WAKEUP_ERAS": "lisa_eas.models.wakeup",
    "RqLoad": "lisa_eas.models.wakeup",
    "avg_idle_update": "lisa_eas.models.wakeup",
    "die_imbalance_pct": "lisa_eas.models.wakeup",
    "recent_used_cpu_after": "lisa_eas.models.wakeup",
    "sis_prop_account": "lisa_eas.models.wakeup",
    "wake_affine": "lisa_eas.models.wakeup",
    "SCHEDUTIL_ERAS": "lisa_eas.models.schedutil",
    "effective_cpu_perf": "lisa_eas.models.schedutil",
    "effective_cpu_util": "lisa_eas.models.schedutil",
    "em_pd_get_higher_freq": "lisa_eas.models.schedutil",
    "schedutil_next_freq": "lisa_eas.models.schedutil",
    "schedutil_run": "lisa_eas.models.schedutil",
    "schedutil_tables": "lisa_eas.models.schedutil",
    "CPUFREQ_DELAY_ERAS": "lisa_eas.models.governors",
    "InteractiveTunables": "lisa_eas.models.governors",
    "OndemandTunables": "lisa_eas.models.governors",
    "SchedfreqTunables": "lisa_eas.models.governors",
    "cpufreq_transition_delay_us": "lisa_eas.models.governors",
    "interactive": "lisa_eas.models.governors",
    "ondemand": "lisa_eas.models.governors",
    "performance": "lisa_eas.models.governors",
    "powersave": "lisa_eas.models.governors",
    "schedfreq": "lisa_eas.models.governors",
    "PlacementResult": "lisa_eas.models.placement",
    "brute_force_placement": "lisa_eas.models.placement",
    "optimal_placement": "lisa_eas.models.placement",
    "placement_energy": "lisa_eas.models.placement",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
