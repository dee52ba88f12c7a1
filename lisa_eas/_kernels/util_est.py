"""util_est: the task utilization estimate kept at dequeue (numba kernels).

Follows ``util_est_update()`` (``util_est_dequeue()`` before v5.13) and
``cfs_se_util_change()`` in ``kernel/sched/fair.c`` / ``kernel/sched/pelt.h``, and
``_task_util_est()``. Values are the raw kernel fields, flag bit included.

Era codes (``UE_*``):

====  ======  ================================================================
code  era     rule
====  ======  ================================================================
0     v4.17   EWMA w = 1/4, skip within 1 % margin, flag = LSB of ``enqueued``
1     v5.1    + skip when task util > CPU capacity (10a35e6812aa)
2     v5.5    + fast ramp-up: ``ewma = enqueued`` on increases (b8c96361402a)
3     v5.13   flag moves to the MSB, ``enqueued`` stored even inside the margin
              when it moved by >= UTIL_EST_MARGIN (b89997aa88f0)
4     v6.8    one field (the EWMA), fast-up always on, snap when within margin,
              skip when the task waited on the rq (50181c0cff31)
5     v6.12   same rule; ``dequeue_task_fair()`` calls ``util_est_update()`` before
              ``dequeue_entities()``, so the sample is the util_avg (and runnable_avg)
              of the entity's previous PELT update, not the one made at this dequeue
              (Peter Zijlstra's "sched/fair: Fix util_est" of the EEVDF
              delayed-dequeue series, merged for v6.12; measured on 6.18 with the
              kernel-signals collector: the util_est_se record precedes the
              dequeue's pelt_se record and equals the earlier util_avg). The call
              site applies it (``pelt_timeline``); the rule itself is v6.8's.
====  ======  ================================================================
"""
from __future__ import annotations

from numba import njit

from ._jit import model_inline

UE_V4_17 = 0
UE_V5_1 = 1
UE_V5_5 = 2
UE_V5_13 = 3
UE_V6_8 = 4
UE_V6_12 = 5

UTIL_EST_WEIGHT_SHIFT = 2
UTIL_EST_MARGIN = 10           # SCHED_CAPACITY_SCALE / 100
FLAG_LSB = 0x1
FLAG_MSB = 0x80000000
U32 = 0xFFFFFFFF


@model_inline
def util_est_flag(era):
    """The UTIL_AVG_UNCHANGED bit of the era."""
    return FLAG_LSB if era < UE_V5_13 else FLAG_MSB


@model_inline
def within_margin(value, margin):
    """``within_margin()``: ``abs(value) < margin`` via the kernel's unsigned compare."""
    return ((value + margin - 1) & U32) < (2 * margin - 1)


@model_inline
def task_util_est_clear_flag(ewma, enqueued, era):
    """``cfs_se_util_change()``: clear UTIL_AVG_UNCHANGED once util_avg was recomputed."""
    flag = util_est_flag(era)
    if era >= UE_V6_8:
        return ewma & ~flag, enqueued
    return ewma, enqueued & ~flag


@model_inline
def task_util_est_value(ewma, enqueued, era):
    """``_task_util_est(p)`` (the estimate without util_avg) as the era's kernel returns it.

    v4.17 - v5.12 (ledger util_est-v4.17): ``max(ewma, enqueued) | UTIL_AVG_UNCHANGED``, the
    LSB flag kept, so the value is odd and never 0. v5.13+ (ledger util_est-v5.13): the MSB
    flag masked off ``enqueued``; v6.8+: ``ewma`` without the flag.
    """
    flag = util_est_flag(era)
    if era >= UE_V6_8:
        return ewma & ~flag
    if era < UE_V5_13:
        e = ewma if ewma > enqueued else enqueued
        return e | FLAG_LSB
    e = enqueued & ~flag
    return ewma if ewma > e else e


@model_inline
def util_est_update(ewma, enqueued, task_util, task_runnable, cpu_capacity, era):
    """Update at the dequeue of a task going to sleep; returns the new ``(ewma, enqueued)``."""
    flag = util_est_flag(era)
    if era >= UE_V6_8:
        if ewma & flag:
            return ewma, enqueued
        dequeued = task_util
        if ewma <= dequeued:
            return dequeued | flag, enqueued
        diff = ewma - dequeued
        if diff < UTIL_EST_MARGIN:
            return ewma | flag, enqueued
        if dequeued > cpu_capacity:
            return ewma, enqueued
        if dequeued + UTIL_EST_MARGIN < task_runnable:
            return ewma | flag, enqueued
        ewma = (((ewma << UTIL_EST_WEIGHT_SHIFT) - diff) & U32) >> UTIL_EST_WEIGHT_SHIFT
        return ewma | flag, enqueued
    if enqueued & flag:
        return ewma, enqueued
    if era >= UE_V5_13:
        last_enqueued_diff = enqueued
        enq = task_util
        if ewma < enq:
            return enq, enq | flag
        last_ewma_diff = enq - ewma
        last_enqueued_diff -= enq
        if within_margin(last_ewma_diff, UTIL_EST_MARGIN):
            if not within_margin(last_enqueued_diff, UTIL_EST_MARGIN):
                return ewma, enq | flag
            return ewma, enqueued
        if task_util > cpu_capacity:
            return ewma, enqueued
        ewma = (((ewma << UTIL_EST_WEIGHT_SHIFT) + last_ewma_diff) & U32) >> UTIL_EST_WEIGHT_SHIFT
        return ewma, enq | flag
    enq = task_util | flag
    if era >= UE_V5_5 and ewma < enq:
        return enq, enq
    last_ewma_diff = enq - ewma
    if within_margin(last_ewma_diff, UTIL_EST_MARGIN):
        return ewma, enqueued
    if era >= UE_V5_1 and task_util > cpu_capacity:
        return ewma, enqueued
    ewma = (((ewma << UTIL_EST_WEIGHT_SHIFT) + last_ewma_diff) & U32) >> UTIL_EST_WEIGHT_SHIFT
    return ewma, enq
