"""Validate a kernel: the EAS behaviour suite and A/B verdicts with confidence intervals.

* :func:`check_eas` runs LISA's EAS behaviour scenarios (OneSmallTask ... RampDown,
  EnergyModelWakeMigration; :data:`SCENARIOS`) on a board or on the model and checks each
  run (:func:`check_scenario`): placement energy against the exact optimum, slack, noise
  (-> UNDECIDED), load tracking. ``lisa-eas check eas``.
* :func:`compare` holds N runs of side A against N runs of side B, metric by metric, with
  bootstrap confidence intervals, effect sizes and a verdict. ``lisa-eas compare``.
* :func:`ab_runs` runs a workload on a board with a kernel setting changed between the
  sides (:class:`SysctlSetting`, :class:`SchedFeature`), restoring it afterwards.

>>> from lisa_eas.suite import check_eas
>>> res = check_eas(platform="juno_r0", era="v5.4")
>>> res.summary(), res.exit_code
"""
from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "SCENARIOS": "._scenarios",
    "Scenario": "._scenarios",
    "TaskSpec": "._scenarios",
    "build_scenario": "._scenarios",
    "big_duty_pct": "._scenarios",
    "little_duty_pct": "._scenarios",
    "CheckResult": "._checks",
    "ScenarioResult": "._checks",
    "Thresholds": "._checks",
    "check_scenario": "._checks",
    "noise_table": "._checks",
    "SuiteResult": "._runner",
    "SuiteInterrupted": "._runner",
    "check_eas": "._runner",
    "eas_applicability": "._runner",
    "run_metrics": "._metrics",
    "METRIC_DOC": "._metrics",
    "Comparison": "._compare",
    "MetricComparison": "._compare",
    "compare": "._compare",
    "bootstrap_diff": "._compare",
    "load_runs": "._compare",
    "SysctlSetting": "._ab",
    "SchedFeature": "._ab",
    "competing_load": "._ab",
    "ab_runs": "._ab",
    "applied": "._ab",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
