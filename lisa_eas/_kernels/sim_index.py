"""The simulator's indexes (numba): the heap of sleeping tasks by wake-up time and the member
list of each runqueue, on the flat state array (layout in ``sim_sched``'s docstring and
``sim_state``).

The loop never scans every task for them: the heap (state slot 17, each task's position in
it slot 18) is ordered by (wake-up time, task index), so its top is the next wake-up; each
runqueue's queued tasks (runnable or running) are kept in ascending task order (slot 19: a
count then the task indices), so that a scan of them visits the tasks in the same order as
a scan of the whole task table.
"""
from __future__ import annotations

from ._jit import sim_helper, sim_kernel

from .sim_layout import (S_CPUS_N, S_GLOBALS, S_HEAP_POS, S_RQ_TASKS, S_RQ_TASKS_W, S_TASKS, S_TASKS_N,
                         S_WAKE_HEAP)

from .sim_state import (G_ALIVE, G_HEAP_N, G_WAKE_DIRTY, T_CPU, T_NFIELDS, T_STATE, T_WAKE_AT, TS_EXITED,
                        TS_RUNNABLE, TS_RUNNING, TS_SLEEPING)


@sim_kernel
def heap_sift(i, S):
    """Restore the heap order around position ``i`` (up, then down). A task comes before another
    when it wakes earlier, or at the same time with a lower index; each wake-up time is read
    once into a local."""
    oh = S[S_WAKE_HEAP]
    opos = S[S_HEAP_POS]
    oTK = S[S_TASKS]
    n = S[S[S_GLOBALS] + G_HEAP_N]
    p = S[oh + i]
    wp = S[oTK + p * T_NFIELDS + T_WAKE_AT]
    while i > 0:
        j = (i - 1) >> 1
        q = S[oh + j]
        wq = S[oTK + q * T_NFIELDS + T_WAKE_AT]
        if not (wp < wq or (wp == wq and p < q)):
            break
        S[oh + i] = q
        S[opos + q] = i
        i = j
    while True:
        j = 2 * i + 1
        if j >= n:
            break
        q = S[oh + j]
        wq = S[oTK + q * T_NFIELDS + T_WAKE_AT]
        if j + 1 < n:
            r = S[oh + j + 1]
            wr = S[oTK + r * T_NFIELDS + T_WAKE_AT]
            if wr < wq or (wr == wq and r < q):
                j += 1
                q = r
                wq = wr
        if not (wq < wp or (wq == wp and q < p)):
            break
        S[oh + i] = q
        S[opos + q] = i
        i = j
    S[oh + i] = p
    S[opos + p] = i


@sim_helper
def heap_push(p, S):
    """Task ``p`` starts sleeping (its ``T_WAKE_AT`` set)."""
    oG = S[S_GLOBALS]
    n = S[oG + G_HEAP_N]
    S[S[S_WAKE_HEAP] + n] = p
    S[S[S_HEAP_POS] + p] = n
    S[oG + G_HEAP_N] = n + 1
    heap_sift(n, S)


@sim_kernel
def heap_remove(p, S):
    """Task ``p`` stops sleeping (woken, or exited); a no-op when it is not in the heap.

    The hole it leaves sinks to a leaf along the earlier child at each level (one comparison
    per level), then the heap's last task fills it and rises to its place (usually at once:
    the last task tends to wake late)."""
    oG = S[S_GLOBALS]
    oh = S[S_WAKE_HEAP]
    opos = S[S_HEAP_POS]
    oTK = S[S_TASKS]
    i = S[opos + p]
    if i < 0:
        return
    S[opos + p] = -1
    n = S[oG + G_HEAP_N] - 1
    S[oG + G_HEAP_N] = n
    if i == n:
        return
    while True:
        j = 2 * i + 1
        if j >= n:
            break
        q = S[oh + j]
        if j + 1 < n:
            r = S[oh + j + 1]
            wq = S[oTK + q * T_NFIELDS + T_WAKE_AT]
            wr = S[oTK + r * T_NFIELDS + T_WAKE_AT]
            if wr < wq or (wr == wq and r < q):
                j += 1
                q = r
        S[oh + i] = q
        S[opos + q] = i
        i = j
    q = S[oh + n]
    S[oh + i] = q
    S[opos + q] = i
    heap_sift(i, S)


@sim_helper
def rq_add(p, c, S):
    """Task ``p`` is queued on CPU ``c`` (kept in ascending task order)."""
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    n = S[ol]
    i = n
    while i > 0 and S[ol + i] > p:
        S[ol + i + 1] = S[ol + i]
        i -= 1
    S[ol + i + 1] = p
    S[ol] = n + 1


@sim_helper
def rq_del(p, c, S):
    """Task ``p`` leaves CPU ``c``'s runqueue."""
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    n = S[ol]
    i = 1
    while i <= n and S[ol + i] != p:
        i += 1
    if i > n:
        return
    while i < n:
        S[ol + i] = S[ol + i + 1]
        i += 1
    S[ol] = n - 1


@sim_kernel
def build_indexes(S):
    """Build the wake-up heap, the runqueue member lists and the count of live tasks from the
    task table (at the start of a run: ``G_WAKE_DIRTY``)."""
    oG = S[S_GLOBALS]
    oTK = S[S_TASKS]
    S[oG + G_HEAP_N] = 0
    for c in range(S[S_CPUS_N]):
        S[S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]] = 0
    alive = 0
    for p in range(S[S_TASKS_N]):
        S[S[S_HEAP_POS] + p] = -1
        st = S[oTK + p * T_NFIELDS + T_STATE]
        if st != TS_EXITED:
            alive += 1
        if st == TS_SLEEPING:
            heap_push(p, S)
        elif st == TS_RUNNABLE or st == TS_RUNNING:
            rq_add(p, S[oTK + p * T_NFIELDS + T_CPU], S)
    S[oG + G_ALIVE] = alive
    S[oG + G_WAKE_DIRTY] = 0
