"""Reproduce the published tables: side-by-side rows, checked claims, provenance.

>>> from lisa_eas.repro import reproduce, EXPERIMENTS
>>> res = reproduce("sis-util-scan")
>>> print(res.to_text())

Each experiment module (``sis_util_scan``, ``sis_efficiency``, ``eas_wakeup_speedup``, ``ramp_boost``,
``eas_rfc_energy``, ``schedfreq_governors``) reads the published figures from
``lisa_eas/published/`` and runs the models or the simulator through their public APIs;
independent simulations go through a :class:`Sweep` (local cores or a Dask cluster).

Each claim's outcome (ok / not ok) is recorded in ``expected_outcomes.json``:
:func:`check_expected` fails when an outcome changes, until the file is regenerated on
purpose with ``lisa-eas reproduce all --write-expectations``.
"""
from __future__ import annotations

from ._claims import Check, ExperimentResult
from ._expect import (EXPECTATIONS_FILE, OutcomeChangedError, check_expected, expected_outcomes, outcome_changes,
                      write_expectations)
from ._live import can_trace, fixed_frequency_platform
from ._registry import EXPERIMENTS, published_csv, reproduce, reproduce_all
from ._sweep import Sweep
from .kernel_vs_sim import RunVsSimulation, run_and_simulate, simulate_run


def experiment_plots(result):
    """The holoviews plots of a reproduced experiment (as in the report and the notebooks)."""
    from ._report import experiment_plots as plots

    return plots(result)


__all__ = ["Check", "EXPECTATIONS_FILE", "EXPERIMENTS", "ExperimentResult", "OutcomeChangedError", "Sweep",
           "can_trace", "check_expected", "expected_outcomes", "experiment_plots", "fixed_frequency_platform",
           "outcome_changes", "published_csv", "reproduce", "reproduce_all", "RunVsSimulation", "run_and_simulate",
           "simulate_run", "write_expectations"]
