"""Plain-Python twin of lisa_eas/_kernels/util_est.py, from util_est_update()/util_est_dequeue()
and cfs_se_util_change() in kernel/sched/fair.c and pelt.h, one function per kernel era."""
from __future__ import annotations

MARGIN = 1024 // 100


def _flag(era):
    return 0x1 if era < 3 else 0x80000000


def _within_margin(value, margin):
    # (unsigned int)(value + margin - 1) < (2 * margin - 1)
    return ((value + margin - 1) % (1 << 32)) < (2 * margin - 1)


def _u32(x):
    return x % (1 << 32)


def clear_flag(ewma, enqueued, era):
    if era >= 4:
        return ewma & ~_flag(era), enqueued
    return ewma, enqueued & ~_flag(era)


def task_util_est(ewma, enqueued, era):
    """_task_util_est(p). v5.0/v5.4/v5.12 fair.c: ``max(ue.ewma, ue.enqueued) | UTIL_AVG_UNCHANGED``
    (the LSB flag is kept, so never 0); v5.13 fair.c: ``max(ue.ewma, ue.enqueued &
    ~UTIL_AVG_UNCHANGED)`` (flag at bit 31); v6.8: ``ewma & ~UTIL_AVG_UNCHANGED``."""
    if era >= 4:
        return ewma & ~_flag(era)
    if era < 3:
        return max(ewma, enqueued) | 0x1
    return max(ewma, enqueued & ~_flag(era))


def era_code(version):
    """This twin's util_est rule for kernel ``version`` (a (major, minor) tuple), -1 before util_est:
    0 v4.17 (7f65ea42eb00), 1 v5.1 (capacity skip), 2 v5.5 (fast ramp-up, b8c96361402a),
    3 v5.13 (MSB flag, last_enqueued_diff: 68d7a190682a, b89997aa88f0), 4 v6.8 (50181c0cff31)."""
    if version < (4, 17):
        return -1
    if version < (5, 1):
        return 0
    if version < (5, 5):
        return 1
    if version < (5, 13):
        return 2
    if version < (6, 8):
        return 3
    return 4


def _dequeue_v4_17(ewma, enq, util, runnable, cap, fastup, cap_skip):
    if enq & 0x1:                                   # util_avg unchanged since enqueue
        return ewma, enq
    new_enq = util | 0x1
    if fastup and ewma < new_enq:
        return new_enq, new_enq
    diff = new_enq - ewma
    if _within_margin(diff, MARGIN):
        return ewma, enq
    if cap_skip and util > cap:
        return ewma, enq
    ewma = _u32((ewma << 2) + diff) >> 2
    return ewma, new_enq


def _dequeue_v5_13(ewma, enq, util, runnable, cap):
    flag = 0x80000000
    if enq & flag:
        return ewma, enq
    last_enqueued_diff = enq
    new_enq = util
    if ewma < new_enq:
        return new_enq, new_enq | flag
    last_ewma_diff = new_enq - ewma
    last_enqueued_diff -= new_enq
    if _within_margin(last_ewma_diff, MARGIN):
        if not _within_margin(last_enqueued_diff, MARGIN):
            return ewma, new_enq | flag
        return ewma, enq
    if util > cap:
        return ewma, enq
    ewma = _u32((ewma << 2) + last_ewma_diff) >> 2
    return ewma, new_enq | flag


def _update_v6_8(ewma, util, runnable, cap):
    flag = 0x80000000
    if ewma & flag:
        return ewma
    dequeued = util
    if ewma <= dequeued:
        return dequeued | flag
    diff = ewma - dequeued
    if diff < MARGIN:
        return ewma | flag
    if dequeued > cap:
        return ewma
    if dequeued + MARGIN < runnable:
        return ewma | flag
    ewma = _u32((ewma << 2) - diff) >> 2
    return ewma | flag


def util_est_update(ewma, enqueued, util, runnable, cap, era):
    if era >= 4:                 # v6.8 arithmetic (v6.12 only moves the call: see the engine)
        return _update_v6_8(ewma, util, runnable, cap), enqueued
    if era == 3:
        return _dequeue_v5_13(ewma, enqueued, util, runnable, cap)
    return _dequeue_v4_17(ewma, enqueued, util, runnable, cap, fastup=era >= 2, cap_skip=era >= 1)
