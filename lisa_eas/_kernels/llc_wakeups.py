"""Wake-up-heavy tasks on one LLC, every wake-up through ``select_idle_sibling`` (numba).

A small event model of one last-level-cache domain (``n_cpus`` CPUs, no SMT) built for the
``sis-efficiency`` reproduction (commit 70fb5ccf2ebb's SIS_PROP baseline table). It is not the
general simulator (``lisa_eas.sim``): it models only what the idle-CPU search sees.

Tasks alternate bursts and sleeps. A burst is ``run`` ns of work (``run_ns[t]`` scaled by a
jitter in [0.5, 1.5)), then the task wakes every task of its wake list (``wake_idx[wake_ptr[t]:
wake_ptr[t + 1]]``), then runs ``tail_ns[t]`` more (the syscall return and the next blocking
read), then sleeps -- unless it was woken while running, in which case it starts a new burst
(a ``try_to_wake_up()`` of a running task only marks it runnable). Each CPU runs its tasks in
FIFO order; a CPU going idle pulls the first waiting task of the longest queue (a stand-in for
newidle balance). Wake-up placement, per woken sleeping task:

* ``wake_affine_idle()`` with a sync wake-up: target = the waker's CPU when it runs only the
  waker, else prev when prev is idle, else prev (``wake_affine_weight`` is not modeled);
* :func:`lisa_eas._kernels.sis.select_idle_sibling` (v5.12+ form, SIS_PROP or SIS_UTIL), with
  ``p->recent_used_cpu = prev`` once the target and prev fast paths failed;
* SIS_PROP (``util_mode`` 0): depth from :func:`~lisa_eas._kernels.sis.sis_prop_nr` (v5.14+
  ``wake_avg_idle`` of the waker's CPU, halved per elapsed jiffy, and the waker's CPU's own
  ``avg_scan_cost``: each CPU has its own ``sd_llc``), then, unless the scan ran out of depth
  (``if (!--nr) return -1`` returns before the accounting), ``wake_avg_idle -=
  min(wake_avg_idle, time)`` and ``update_avg(avg_scan_cost, time)`` (1/8 weight) with the
  modeled time ``scan_base_ns + scan_rq_ns * runqueues scanned``. ``rq->avg_idle`` gets
  ``update_avg(avg_idle, idle time)`` when a task is woken onto an idle CPU, capped at
  ``2 * max_idle_balance_cost``; then ``wake_avg_idle = avg_idle / 2``;
* SIS_UTIL (``util_mode`` 1): ``nr_idle_scan`` from
  :func:`~lisa_eas._kernels.sis.sis_util_nr_idle_scan` of the LLC sum of a PELT-like per-CPU
  util recomputed every ``lb_interval_ns`` (busy fraction of the window, blended with the old
  value by ``decay_q32 / 2**32`` = y^window_ms, y^32 = 1/2; the first window sets it directly).

Everything is integer arithmetic so the plain-Python twin (tests/reference/ref_llc_wakeups.py)
matches exactly.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .sis import PATH_IDLE_CPU, PATH_RECENT, SIS_V5_15, select_idle_sibling, sis_prop_nr, sis_util_nr_idle_scan

# params (int64 array)
P_SIM_NS = 0
P_WARMUP_NS = 1
P_SCAN_RQ_NS = 2
P_SCAN_BASE_NS = 3
P_LB_INTERVAL_NS = 4
P_DECAY_Q32 = 5
P_JIFFY_NS = 6
P_MAX_IDLE_BALANCE_COST = 7
P_IMBALANCE_PCT = 8
N_PARAMS = 9

# stats (int64 array), counted after the warm-up
S_SEARCHES = 0       # select_idle_sibling() calls
S_FAST = 1           # served by target, prev or recent
S_DOM_SEARCHES = 2   # calls that reached select_idle_cpu()
S_DOM_SCANNED = 3    # runqueues select_idle_cpu() examined
S_DOM_FOUND = 4      # select_idle_cpu() found an idle CPU
S_FOUND = 5          # the wake-up got an idle CPU (fast path or scan)
S_BUSY_NS = 6        # sum over CPUs of busy time
S_COUNTED_NS = 7     # length of the counted window
S_DEPTH_SUM = 8      # sum of the scan limit (nr_idle_scan or SIS_PROP nr) over domain searches
S_SUM_UTIL_SUM = 9   # sum of LLC sum_util over load-balance ticks
S_UTIL_TICKS = 10
S_EVENTS = 11        # burst ends processed (whole run)
S_QUEUED = 12        # wake-ups placed on a busy CPU
S_TARGET = 13
S_PREV = 14
S_RECENT = 15
S_WAKE_NOOP = 16     # wakes of a task already runnable/running
N_STATS = 17
N_HIST = 24          # log2 buckets of modeled select_idle_cpu time in us: [0,1), [1,2), [2,4), ...

INT64_MAX = 9223372036854775807


@njit(cache=True)
def _bucket(us):
    b = 0
    while us > 0:
        us >>= 1
        b += 1
    return b if b < N_HIST else N_HIST - 1


@njit(cache=True)
def _update_avg(avg, sample):
    """``update_avg()``: ``avg += (sample - avg) / 8`` with C's truncating signed division."""
    diff = sample - avg
    return avg + (diff // 8 if diff >= 0 else -((-diff) // 8))


@njit(cache=True)
def _start(c, t, now, k, run_ns, jitter, curr, phase, end):
    curr[c] = t
    phase[c] = 0
    end[c] = now + run_ns[t] * (512 + jitter[k % jitter.shape[0]]) // 1024
    return k + 1


@njit(cache=True)
def llc_wakeups(util_mode, n_cpus, run_ns, tail_ns, wake_ptr, wake_idx, init_cpu, init_runnable, jitter, params,
                stats, hist):
    """Run the model; fills ``stats`` (int64[N_STATS]) and ``hist`` (int64[N_HIST]). Returns the end time."""
    n_tasks = run_ns.shape[0]
    sim_ns = params[P_SIM_NS]
    warm = params[P_WARMUP_NS]
    lb_ns = params[P_LB_INTERVAL_NS]
    jiffy = params[P_JIFFY_NS]
    avg_idle_cap = 2 * params[P_MAX_IDLE_BALANCE_COST]
    llc_id = np.zeros(n_cpus, np.int64)
    core_id = np.arange(n_cpus).astype(np.int64)
    allowed = np.ones(n_cpus, np.uint8)
    idle = np.ones(n_cpus, np.uint8)
    curr = np.full(n_cpus, -1, np.int64)
    phase = np.zeros(n_cpus, np.int64)
    end = np.full(n_cpus, INT64_MAX, np.int64)
    qbuf = np.zeros((n_cpus, n_tasks + 1), np.int64)
    qhead = np.zeros(n_cpus, np.int64)
    qlen = np.zeros(n_cpus, np.int64)
    idle_stamp = np.zeros(n_cpus, np.int64)
    avg_idle = np.full(n_cpus, avg_idle_cap, np.int64)
    wake_avg_idle = np.full(n_cpus, avg_idle_cap // 2, np.int64)
    wake_stamp = np.zeros(n_cpus, np.int64)
    busy_start = np.zeros(n_cpus, np.int64)
    busy_acc = np.zeros(n_cpus, np.int64)
    busy_since = np.zeros(n_cpus, np.int64)
    util = np.zeros(n_cpus, np.int64)
    sleeping = np.ones(n_tasks, np.uint8)
    woken = np.zeros(n_tasks, np.uint8)
    prev = init_cpu.copy()
    recent = np.full(n_tasks, -1, np.int64)
    res = np.zeros(3, np.int64)
    avg_scan_cost = np.zeros(n_cpus, np.int64)
    nr_idle_scan = n_cpus
    util_ready = False
    next_lb = lb_ns
    k = 0
    # initial placement: runnable tasks on their CPU, in task order
    for t in range(n_tasks):
        if init_runnable[t]:
            c = init_cpu[t]
            sleeping[t] = 0
            if curr[c] < 0:
                k = _start(c, t, 0, k, run_ns, jitter, curr, phase, end)
                idle[c] = 0
                busy_start[c] = 0
                busy_since[c] = 0
            else:
                qbuf[c, (qhead[c] + qlen[c]) % (n_tasks + 1)] = t
                qlen[c] += 1
    now = 0
    while True:
        c = 0
        tmin = INT64_MAX
        for i in range(n_cpus):
            if end[i] < tmin:
                tmin = end[i]
                c = i
        # periodic load balance ticks (SIS_UTIL's producer) up to the next event
        while next_lb <= tmin and next_lb <= sim_ns:
            sum_util = 0
            for i in range(n_cpus):
                if curr[i] >= 0:
                    busy_acc[i] += next_lb - busy_start[i]
                    busy_start[i] = next_lb
                sample = busy_acc[i] * 1024 // lb_ns
                if util_ready:
                    util[i] = (util[i] * params[P_DECAY_Q32] + sample * ((1 << 32) - params[P_DECAY_Q32])) >> 32
                else:
                    util[i] = sample
                busy_acc[i] = 0
                sum_util += util[i]
            util_ready = True
            nr_idle_scan = sis_util_nr_idle_scan(sum_util, n_cpus, params[P_IMBALANCE_PCT])
            if next_lb > warm:
                stats[S_SUM_UTIL_SUM] += sum_util
                stats[S_UTIL_TICKS] += 1
            next_lb += lb_ns
        if tmin > sim_ns:
            break
        now = tmin
        counting = now > warm
        t = curr[c]
        stats[S_EVENTS] += 1
        if phase[c] == 0:
            # end of the work part: wake the wake list, then run the tail
            phase[c] = 1
            end[c] = now + tail_ns[t]
            for j in range(wake_ptr[t], wake_ptr[t + 1]):
                w = wake_idx[j]
                if not sleeping[w]:
                    woken[w] = 1
                    if counting:
                        stats[S_WAKE_NOOP] += 1
                    continue
                p = prev[w]
                # wake_affine_idle() with WF_SYNC; the waker's CPU is busy (it runs the waker)
                if qlen[c] == 0:
                    target = c
                else:
                    target = p
                # SIS_PROP depth from the waker's runqueue (v5.14+: wake_avg_idle aged per jiffy)
                jn = now // jiffy
                while wake_stamp[c] < jn and wake_avg_idle[c] > 0:
                    wake_stamp[c] += 1
                    wake_avg_idle[c] >>= 1
                if util_mode:
                    nr = nr_idle_scan
                else:
                    nr = sis_prop_nr(wake_avg_idle[c], avg_scan_cost[c], n_cpus, 1)
                cpu = select_idle_sibling(SIS_V5_15, util_mode, idle, allowed, target, p, recent[w], False, nr,
                                          llc_id, core_id, False, res)
                path = res[0]
                scanned = res[1]
                if path > 1:
                    recent[w] = p
                if path > PATH_RECENT and res[2] == 0:   # select_idle_cpu() ran to its accounting
                    cost = params[P_SCAN_BASE_NS] + params[P_SCAN_RQ_NS] * scanned
                    if not util_mode:
                        wake_avg_idle[c] -= min(wake_avg_idle[c], cost)
                        avg_scan_cost[c] = _update_avg(avg_scan_cost[c], cost)
                if counting:
                    stats[S_SEARCHES] += 1
                    if path <= PATH_RECENT:
                        stats[S_FAST] += 1
                        stats[S_FOUND] += 1
                        stats[S_TARGET + path] += 1
                    else:
                        stats[S_DOM_SEARCHES] += 1
                        stats[S_DOM_SCANNED] += scanned
                        stats[S_DEPTH_SUM] += nr
                        hist[_bucket((params[P_SCAN_BASE_NS] + params[P_SCAN_RQ_NS] * scanned) // 1000)] += 1
                        if path == PATH_IDLE_CPU:
                            stats[S_DOM_FOUND] += 1
                            stats[S_FOUND] += 1
                sleeping[w] = 0
                prev[w] = cpu
                if curr[cpu] < 0:
                    # ttwu_do_activate() on an idle rq: update_avg(avg_idle, idle time), capped
                    delta = now - idle_stamp[cpu]
                    avg_idle[cpu] = _update_avg(avg_idle[cpu], delta)
                    if avg_idle[cpu] > avg_idle_cap:
                        avg_idle[cpu] = avg_idle_cap
                    wake_stamp[cpu] = now // jiffy
                    wake_avg_idle[cpu] = avg_idle[cpu] // 2
                    k = _start(cpu, w, now, k, run_ns, jitter, curr, phase, end)
                    idle[cpu] = 0
                    busy_start[cpu] = now
                    busy_since[cpu] = now
                else:
                    qbuf[cpu, (qhead[cpu] + qlen[cpu]) % (n_tasks + 1)] = w
                    qlen[cpu] += 1
                    if counting:
                        stats[S_QUEUED] += 1
            continue
        # end of the tail: run again (woken meanwhile) or sleep; then the next task of the queue
        if woken[t]:
            woken[t] = 0
            if qlen[c] == 0:
                k = _start(c, t, now, k, run_ns, jitter, curr, phase, end)
                continue
            qbuf[c, (qhead[c] + qlen[c]) % (n_tasks + 1)] = t
            qlen[c] += 1
        else:
            sleeping[t] = 1
            prev[t] = c
        if qlen[c] == 0:
            # newidle stand-in: pull the first waiting task of the longest queue
            src = -1
            best = 0
            for i in range(n_cpus):
                if qlen[i] > best:
                    best = qlen[i]
                    src = i
            if src >= 0:
                nt = qbuf[src, qhead[src]]
                qhead[src] = (qhead[src] + 1) % (n_tasks + 1)
                qlen[src] -= 1
                k = _start(c, nt, now, k, run_ns, jitter, curr, phase, end)
                continue
            curr[c] = -1
            end[c] = INT64_MAX
            idle[c] = 1
            idle_stamp[c] = now
            busy_acc[c] += now - busy_start[c]
            if counting:
                stats[S_BUSY_NS] += now - max(busy_since[c], warm)
            continue
        nt = qbuf[c, qhead[c]]
        qhead[c] = (qhead[c] + 1) % (n_tasks + 1)
        qlen[c] -= 1
        k = _start(c, nt, now, k, run_ns, jitter, curr, phase, end)
    for i in range(n_cpus):
        if curr[i] >= 0:
            stats[S_BUSY_NS] += sim_ns - max(busy_since[i], warm)
    stats[S_COUNTED_NS] = sim_ns - warm
    return now
