"""The simulator's indexes (numba): the heap of sleeping tasks by wake-up time and the member
list of each runqueue, on the flat state array (layout in ``sim_sched``'s docstring and
``sim_state``).

The loop never scans every task for them: the heap (state slot 17, each task's position in
it slot 18) is ordered by (wake-up time, task index), so its top is the next wake-up; each
runqueue's queued tasks (runnable or running) are kept in ascending task order (slot 19: a
count then the task indices), so that a scan of them visits the tasks in the same order as
a scan of the whole task table.

Nor does it scan every CPU for the next op boundary or tick: a tournament tree per time
(slot ``CPU_TIMES``, row 0 each CPU's ``C_NEXT_EVENT``, row 1 its ``C_NEXT_TICK``; a row holds
``2 m`` words, ``m`` the CPU count rounded up to a power of two, node ``i``'s children at
``2i`` and ``2i + 1``, the leaves at ``m + c``, the root at 1) holds in each node the CPU with
the earliest time below it, the lower CPU at equal times: its root is the CPU a scan of all
CPUs in order picks, kept up to date in ``log2 m`` steps by :func:`cpu_time_changed` after
each write of one of the two times.

Nor does the idle search build its mask of idle CPUs from the CPU table at each wake-up: the
scratch row ``SC_IDLE_ROW`` (``sim_models.SC_IDLE``) holds for each CPU 1 when it runs nothing
and has nothing queued (``available_idle_cpu`` without the kernel's ``vcpu_is_preempted``),
rewritten by :func:`idle_changed` after each write of the CPU's current task or queued counts.

Slot ``CPU_SETS`` (rows ``CS_*``) holds what else is kept up to date instead of recounted:

* the number of tasks waiting on a runqueue (``TS_RUNNABLE``), and of those the FIFO ones,
  changed only through :func:`set_state` (a task's policy changes only while it runs): a
  pull (newidle or periodic) finds nothing to move when they are 0, without visiting every
  runqueue;
* the root domain's overutilized test per CPU: each CPU's last ``cpu_overutilized`` answer
  (row ``CS_OU_BIT``) and the count of CPUs answering 1, and the set of CPUs whose inputs
  (the cfs_rq's util_avg, ``util_est.enqueued``, the rt_rq's util_avg) were written since
  (:func:`ou_dirty`: a flag row and a stack), so that ``update_overutilized`` re-tests only
  those, not every CPU per wake-up and tick.
"""
from __future__ import annotations

from ._jit import sim_helper, sim_kernel

from .sim_layout import (S_CPU_TIMES, S_CPU_TIMES_W, S_CPUS, S_CPUS_N, S_GLOBALS_AT, S_HEAP_POS, S_RQ_TASKS,
                         S_RQ_TASKS_W, S_TASKS, S_TASKS_N, S_WAKE_HEAP)

from .sim_layout import S_CPU_SETS, S_CPU_SETS_W, S_SCRATCH, S_SCRATCH_W
from .sim_state import G_OVERLOAD, POLICY_FIFO, T_POLICY
from .sim_state import (C_CURR, C_NR_CFS, C_NR_RT,
                        C_NEXT_EVENT, C_NEXT_TICK, C_NFIELDS, G_ALIVE, G_HEAP_N, G_WAKE_DIRTY, T_CPU, T_NFIELDS,
                        T_STATE, T_WAKE_AT, TS_EXITED, TS_RUNNABLE, TS_RUNNING, TS_SLEEPING)

#: rows of the ``CPU_TIMES`` trees
CT_EVENT = 0
CT_TICK = 1

#: the scratch row (state slot ``SCRATCH``) of the idle mask, ``sim_models.SC_IDLE``
SC_IDLE_ROW = 4


#: rows of slot ``CPU_SETS``: per CPU, the dirty flag of its overutilized answer, that answer,
#: the stack of dirty CPUs; then one row of counts (``CSN_*``)
CS_OU_DIRTY = 0
CS_OU_BIT = 1
CS_OU_STACK = 2
CS_COUNTS = 3
CSN_OU_DIRTY = 0        # CPUs on the dirty stack
CSN_OU = 1              # CPUs whose last answer is 1
CSN_WAITING = 2         # tasks in TS_RUNNABLE
CSN_WAITING_RT = 3      # FIFO tasks in TS_RUNNABLE


@sim_helper
def ou_dirty(c, S):
    """An input of CPU ``c``'s overutilized test was written: it is to be re-tested."""
    w = S[S_CPU_SETS_W]
    o = S[S_CPU_SETS]
    if S[o + CS_OU_DIRTY * w + c] == 0:
        S[o + CS_OU_DIRTY * w + c] = 1
        k = S[o + CS_COUNTS * w + CSN_OU_DIRTY]
        S[o + CS_OU_STACK * w + k] = c
        S[o + CS_COUNTS * w + CSN_OU_DIRTY] = k + 1


@sim_helper
def set_state(p, st, S):
    """Write task ``p``'s ``T_STATE``, keeping the counts of waiting tasks."""
    o = S[S_TASKS] + p * T_NFIELDS + T_STATE
    on = S[S_CPU_SETS] + CS_COUNTS * S[S_CPU_SETS_W]
    rt = S[S_TASKS] + p * T_NFIELDS + T_POLICY
    if S[o] == TS_RUNNABLE:
        S[on + CSN_WAITING] -= 1
        if S[rt] == POLICY_FIFO:
            S[on + CSN_WAITING_RT] -= 1
    if st == TS_RUNNABLE:
        S[on + CSN_WAITING] += 1
        if S[rt] == POLICY_FIFO:
            S[on + CSN_WAITING_RT] += 1
    S[o] = st


@sim_helper
def idle_changed(c, S):
    """CPU ``c``'s current task or queued counts were written: rewrite its bit of the idle mask,
    and set the root domain's overload flag when its runqueue holds 2 or more tasks
    (``add_nr_running``: ``prev_nr < 2 && nr_running >= 2`` sets ``rd->overload``, v3.16+; the
    flag is cleared only by the root-level balance, so setting it at any count >= 2 is the same)."""
    o = S[S_CPUS] + c * C_NFIELDS
    nr = S[o + C_NR_CFS] + S[o + C_NR_RT]
    S[S[S_SCRATCH] + SC_IDLE_ROW * S[S_SCRATCH_W] + c] = 1 if S[o + C_CURR] < 0 and nr == 0 else 0
    if nr >= 2:
        S[S_GLOBALS_AT + G_OVERLOAD] = 1


@sim_helper
def _earlier_cpu(a, b, field, S):
    """Of CPUs ``a`` and ``b`` (-1: none), the one whose ``field`` time is earlier; ``a`` at equal
    times (the caller passes the lower CPU first)."""
    if a < 0:
        return b
    if b < 0:
        return a
    oCP = S[S_CPUS]
    if S[oCP + b * C_NFIELDS + field] < S[oCP + a * C_NFIELDS + field]:
        return b
    return a


@sim_helper
def cpu_time_changed(c, which, S):
    """CPU ``c``'s next op boundary (``which`` = ``CT_EVENT``) or next tick (``CT_TICK``) was
    written: update its path to the root of that tree."""
    w = S[S_CPU_TIMES_W]
    o = S[S_CPU_TIMES] + which * w
    field = C_NEXT_EVENT if which == CT_EVENT else C_NEXT_TICK
    i = ((w >> 1) + c) >> 1
    while i >= 1:
        S[o + i] = _earlier_cpu(S[o + 2 * i], S[o + 2 * i + 1], field, S)
        i >>= 1


@sim_helper
def earliest_cpu(which, S):
    """The CPU with the earliest next op boundary (``CT_EVENT``) or tick (``CT_TICK``), the lowest
    one among equal times (whatever its time, INF_TIME included)."""
    return S[S[S_CPU_TIMES] + which * S[S_CPU_TIMES_W] + 1]


@sim_kernel
def build_cpu_times(S):
    """Build both trees from the CPU table."""
    w = S[S_CPU_TIMES_W]
    m = w >> 1
    n = S[S_CPUS_N]
    for which in range(2):
        o = S[S_CPU_TIMES] + which * w
        field = C_NEXT_EVENT if which == CT_EVENT else C_NEXT_TICK
        for c in range(m):
            S[o + m + c] = c if c < n else -1
        for i in range(m - 1, 0, -1):
            S[o + i] = _earlier_cpu(S[o + 2 * i], S[o + 2 * i + 1], field, S)


@sim_kernel
def heap_sift(i, S):
    """Restore the heap order around position ``i`` (up, then down). A task comes before another
    when it wakes earlier, or at the same time with a lower index; each wake-up time is read
    once into a local."""
    oh = S[S_WAKE_HEAP]
    opos = S[S_HEAP_POS]
    oTK = S[S_TASKS]
    n = S[S_GLOBALS_AT + G_HEAP_N]
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
    oG = S_GLOBALS_AT
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
    oG = S_GLOBALS_AT
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
    task table, and the CPU time trees and the idle mask from the CPU table (at the start of a
    run: ``G_WAKE_DIRTY``)."""
    oG = S_GLOBALS_AT
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
    build_cpu_times(S)
    w = S[S_CPU_SETS_W]
    ocs = S[S_CPU_SETS]
    waiting = 0
    waiting_rt = 0
    for p in range(S[S_TASKS_N]):
        if S[oTK + p * T_NFIELDS + T_STATE] == TS_RUNNABLE:
            waiting += 1
            if S[oTK + p * T_NFIELDS + T_POLICY] == POLICY_FIFO:
                waiting_rt += 1
    S[ocs + CS_COUNTS * w + CSN_WAITING] = waiting
    S[ocs + CS_COUNTS * w + CSN_WAITING_RT] = waiting_rt
    S[ocs + CS_COUNTS * w + CSN_OU_DIRTY] = 0
    S[ocs + CS_COUNTS * w + CSN_OU] = 0
    for c in range(S[S_CPUS_N]):
        idle_changed(c, S)
        S[ocs + CS_OU_BIT * w + c] = 0
        S[ocs + CS_OU_DIRTY * w + c] = 0
        ou_dirty(c, S)
    S[oG + G_WAKE_DIRTY] = 0
