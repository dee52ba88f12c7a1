"""Plain-Python twin of lisa_eas/_kernels/wake_affine.py, from wake_affine(), wake_affine_idle() and
wake_affine_weight() in kernel/sched/fair.c (v4.14 form; v5.11 adds the idle-prev answer).
Returns "this", "prev" or None (nr_cpumask_bits)."""
from __future__ import annotations


def affine_idle(v511, this_idle, prev_idle, share_cache, sync, this_nr_running):
    if this_idle and share_cache:
        return "prev" if prev_idle else "this"
    if sync and this_nr_running == 1:
        return "this"
    if v511 and prev_idle:
        return "prev"
    return None


def affine_weight(this_load, prev_load, task_load, current_load, sync, cap_this, cap_prev, pct):
    if sync and current_load > this_load:
        return "this"
    lhs = (this_load - (current_load if sync else 0) + task_load) * 100 * cap_prev
    rhs = (prev_load - task_load) * (100 + (pct - 100) // 2) * cap_this + (1 if sync else 0)
    return "this" if lhs < rhs else None


def affine(v511, this_idle, prev_idle, share_cache, sync, this_nr_running, this_load, prev_load, task_load,
           current_load, cap_this, cap_prev, pct):
    got = affine_idle(v511, this_idle, prev_idle, share_cache, sync, this_nr_running)
    if got is None:
        got = affine_weight(this_load, prev_load, task_load, current_load, sync, cap_this, cap_prev, pct)
    return got or "prev"
