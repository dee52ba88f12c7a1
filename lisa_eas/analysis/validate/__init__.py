"""Replay a trace against the models, decision by decision: measured vs model.

>>> from lisa_eas.analysis.validate import validate
>>> report = validate("trace.dat", "juno_r0", era="v5.4")
>>> report.summary["eas"]["agreement_pct"], report.eas[~report.eas.agree].head()
>>> report.write_json("validation/")                  # validation.json
>>> from lisa_eas.plot import write_validation
>>> write_validation(report, "validation/")            # validation.json + validation.html

* **EAS** (:func:`replay_eas`): every CFS wake-up while not overutilized, the model's
  ``find_energy_efficient_cpu`` vs the CPU the kernel picked; energy gap and total regret.
* **SIS** (:func:`replay_sis`): CFS wake-ups while overutilized, ``select_idle_sibling``.
* **schedutil** (:func:`replay_schedutil`): next frequency from the util signals vs
  ``cpu_frequency``.
* **PELT** (:func:`replay_pelt`): the model vs the kernel's own PELT samples.
* **kernel signals** (:func:`compare_kernel_signals`): with the BPF collector's records
  (``--kernel-signals``), each task's util/runnable/load and util_est vs the model fed with
  its timeline, on the kernel's PELT clock and on mono (``summary["kernel_signals"]``); and
  (:func:`compare_cfs_rq`) each CPU's root cfs_rq util_avg vs the sum of every CFS task's
  model (``summary["kernel_signals"][clock]["cfs_rq"]``).

On a simulated trace the EAS wake-ups the simulator logged use the exact inputs it passed to
``find_energy_efficient_cpu`` (``lisa_sim_eas_decision``), so the replay agrees 100% with it;
``validate(..., inputs="rebuilt")`` forces the path real traces take (inputs rebuilt from PELT
events or the PELT model). ``report.eas["inputs"]`` says which source each wake-up used.

Every wake-up falls in exactly one category (``eas``, ``sis``, ``rt``, ``no_prev_cpu``,
``new_task``), so the report's counts add up to the trace's wake-ups.
"""
from __future__ import annotations

from ._eas import replay_eas
from ._cfs_rq import compare_cfs_rq
from ._kernel_signals import compare_kernel_signals, kernel_signals_summary
from ._pelt import replay_pelt
from ._report import ValidationReport, load_trace_arg, validate
from ._schedutil import replay_schedutil
from ._sis import replay_sis
from ._state import CATEGORIES, WakeupState, rebuild_wakeups

__all__ = ["CATEGORIES", "ValidationReport", "WakeupState", "compare_cfs_rq", "compare_kernel_signals", "kernel_signals_summary",
           "load_trace_arg", "rebuild_wakeups", "replay_eas",
           "replay_pelt", "replay_schedutil", "replay_sis", "validate"]
