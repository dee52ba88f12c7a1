"""``wake_affine()``: the waker's CPU or the wakee's previous CPU as the idle search's target (numba).

Follows ``kernel/sched/fair.c`` from v4.14, where ``wake_affine()`` became ``wake_affine_idle()``
(WA_IDLE) then, when that has no answer, ``wake_affine_weight()`` (WA_WEIGHT, with WA_BIAS),
both sched features on by default; the answer is ``this_cpu`` (the CPU doing the wake-up) or
``prev_cpu``. ``select_task_rq_fair()`` calls it only when ``want_affine`` (the wake-up is not
wide, the task fits, before v5.7 ``!wake_cap()``, and may run on ``this_cpu``), for the lowest
sched domain spanning both CPUs, and only when ``this_cpu != prev_cpu``: a timer wake-up,
which the timer interrupt of the previous CPU performs, never gets here.

Eras (ledger rows ``wakeup-*``):

* ``WA_V4_14`` (v4.14 - v5.10, ledger wakeup-v4.14): ``wake_affine_idle``: an idle ``this_cpu``
  sharing the LLC with prev -> prev if prev is idle too, else ``this_cpu``; a sync wake-up from a
  CPU whose only task is the waker -> ``this_cpu``; else no answer. ``wake_affine_weight``
  compares the two runqueues' loads: ``target_load``/``source_load`` at ``wake_idx`` 0 (v4.14 -
  v5.2) and ``cpu_runnable_load()`` (v5.3, v5.4) are the cfs_rq's ``runnable_load_avg``;
  ``cpu_load()``, the cfs_rq's ``load_avg``, from v5.5 (11f10e5420f6, ledger wakeup-v5.5). The
  caller passes the era's signal.
* ``WA_V5_11`` (v5.11+): ``wake_affine_idle`` returns an idle prev before giving up
  (d8fcb81f1acf, ledger wakeup-v5.11).

``task_h_load()`` is taken without group scheduling (``p->se.avg.load_avg``); with
``CONFIG_FAIR_GROUP_SCHED`` a root-level task's is that scaled by ``h_load / (load_avg + 1)``.
The plain-Python twin is ``tests/reference/ref_wake_affine.py``.
"""
from __future__ import annotations

from numba import njit

WA_V4_14 = 0
WA_V5_11 = 1

WA_NONE = -1      # nr_cpumask_bits: no answer
WA_THIS = 0
WA_PREV = 1


@njit(cache=True)
def wake_affine_idle(mode, this_idle, prev_idle, share_cache, sync, this_nr_running):
    """``wake_affine_idle(this_cpu, prev_cpu, sync)``: WA_THIS, WA_PREV or WA_NONE."""
    if this_idle and share_cache:
        return WA_PREV if prev_idle else WA_THIS
    if sync and this_nr_running == 1:
        return WA_THIS
    if mode >= WA_V5_11 and prev_idle:
        return WA_PREV
    return WA_NONE


@njit(cache=True)
def wake_affine_weight(this_load, prev_load, task_load, current_load, sync, capacity_this, capacity_prev,
                       imbalance_pct):
    """``wake_affine_weight()`` (s64 arithmetic, WA_BIAS on): WA_THIS or WA_NONE.

    ``this_load`` / ``prev_load``: the two runqueues' load (see the module docstring);
    ``task_load`` the wakee's and ``current_load`` the waker's ``task_h_load``;
    ``capacity_*`` ``capacity_of``; ``imbalance_pct`` the domain's."""
    this_eff = this_load
    if sync:
        if current_load > this_eff:
            return WA_THIS
        this_eff -= current_load
    this_eff += task_load
    this_eff *= 100
    this_eff *= capacity_prev
    prev_eff = prev_load - task_load
    prev_eff *= 100 + (imbalance_pct - 100) // 2
    prev_eff *= capacity_this
    if sync:
        prev_eff += 1
    return WA_THIS if this_eff < prev_eff else WA_NONE


@njit(cache=True)
def wake_affine(mode, this_idle, prev_idle, share_cache, sync, this_nr_running, this_load, prev_load, task_load,
                current_load, capacity_this, capacity_prev, imbalance_pct):
    """``wake_affine()``: WA_THIS or WA_PREV (WA_IDLE, then WA_WEIGHT when it has no answer)."""
    r = wake_affine_idle(mode, this_idle, prev_idle, share_cache, sync, this_nr_running)
    if r == WA_NONE:
        r = wake_affine_weight(this_load, prev_load, task_load, current_load, sync, capacity_this, capacity_prev,
                               imbalance_pct)
    return WA_PREV if r == WA_NONE else r
