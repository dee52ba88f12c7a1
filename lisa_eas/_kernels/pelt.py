"""PELT: per-entity load tracking, as ``kernel/sched/pelt.c`` computes it (numba kernels).

Follows ``decay_load``, ``accumulate_sum`` (with ``__accumulate_pelt_segments``),
``___update_load_sum``, ``___update_load_avg``, ``update_rq_clock_pelt``,
``_update_idle_rq_clock_pelt`` and ``update_idle_rq_clock_pelt`` (``kernel/sched/pelt.[ch]``;
``kernel/sched/fair.c`` before v4.18). All arithmetic is 64-bit integer as in the kernel.

A signal's state is an ``int64[SA_SIZE]`` array (see the ``SA_*`` indices); the era is
an ``int64[CFG_SIZE]`` configuration array built by :func:`lisa_eas.models.pelt.pelt_config`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import model_inline

from .util_est import UE_V6_12, task_util_est_clear_flag, util_est_update

SCHED_CAPACITY_SHIFT = 10

# sched_avg fields
SA_LAST_UPDATE = 0
SA_LOAD_SUM = 1
SA_RUNNABLE_SUM = 2
SA_UTIL_SUM = 3
SA_PERIOD_CONTRIB = 4
SA_LOAD_AVG = 5
SA_RUNNABLE_AVG = 6
SA_UTIL_AVG = 7
SA_SIZE = 8

# era configuration
CFG_DELTA_SCALING = 0      # 1: <= v5.0 invariance on the contribution; 0: v5.1+ clock_pelt
CFG_DIVIDER_MODE = 1       # 0: LOAD_AVG_MAX (<= v4.11); 1: LOAD_AVG_MAX - 1024 + period_contrib
CFG_WEIGHT_IN_SUM = 2      # 1: load_sum += weight * contrib (<= v4.14); 0: weight applied in avg
CFG_ZERO_IF_UNLOADED = 3   # 1: "if (!load) runnable = running = 0" (v4.15+)
CFG_RUNNABLE_SCALED = 4    # 1: runnable_sum += runnable*contrib << 10, avg without weight (v5.7+)
CFG_LOAD_AVG_MAX = 5
CFG_UTIL_EST_ERA = 6       # util_est era code (see util_est.py), -1: no util_est (< v4.17)
CFG_OLD_UPDATE = 7         # 1: v4.11 ``__update_load_avg`` (ledger pelt-v4.12: replaced by accumulate_sum)
CFG_MAX_N = 8              # LOAD_AVG_MAX_N of the v4.11 tables (345 for a 32-period half-life)
CFG_CFS_REMOVAL = 9        # how a leaving task's util comes off a cfs_rq: one of REMOVAL_* below
CFG_SIZE = 10
# With CFG_OLD_UPDATE the v4.11 tables follow the CFG_SIZE slots of the configuration array:
# ``runnable_avg_yN_sum[0..P]`` (P + 1 values, P = len(yn_inv)), then ``__accumulated_sum_N32``.

# CFG_CFS_REMOVAL: a task's util leaving a cfs_rq (update_cfs_rq_load_avg's removed path,
# detach_entity_load_avg)
REMOVAL_SUB = 0            # sub_positive of util_avg and util_sum (v4.11 - v5.12)
REMOVAL_RESYNC = 1         # util_sum = util_avg * divider (ledger pelt-v5.13)
REMOVAL_FLOOR = 2          # sub_positive, then util_sum >= util_avg * PELT_MIN_DIVIDER (ledger pelt-v5.17)

# timeline states
SLEEPING = 0
RUNNABLE = 1
RUNNING = 2
DETACHED = 3   # off every rq clock: time passes without accrual or decay (migration, <= v5.x attach)


@model_inline
def mul_u64_u32_shr32(val, mul):
    """``mul_u64_u32_shr(val, mul, 32)`` without overflow, in int64 (val < 2**62, mul < 2**32)."""
    hi = val >> 32
    lo = val & 0xFFFFFFFF
    lo_hi = lo >> 16
    lo_lo = lo & 0xFFFF
    low_part = ((lo_hi * mul) + ((lo_lo * mul) >> 16)) >> 16
    return hi * mul + low_part


@model_inline
def decay_load(val, n, yn_inv):
    """``decay_load(val, n)``: ``val * y**n``; ``len(yn_inv)`` is LOAD_AVG_PERIOD (32, 16 or 8)."""
    period = yn_inv.shape[0]
    pshift = 5 if period == 32 else (4 if period == 16 else 3)
    if n > period * 63:
        return 0
    if n >= period:
        val >>= n >> pshift
        n &= period - 1
    mul = yn_inv[n]
    if val < 0x80000000:
        return (val * mul) >> 32
    return mul_u64_u32_shr32(val, mul)


@njit(cache=True, inline="always")
def _decay_shifted(val, mul):
    """The last step of decay_load(): ``val * yN_inv[n] >> 32`` (val already halved)."""
    if val < 0x80000000:
        return (val * mul) >> 32
    return mul_u64_u32_shr32(val, mul)


@model_inline
def accumulate_sum(sa, delta, load, runnable, running, scale_freq, scale_cpu, cfg, yn_inv):
    """``accumulate_sum()``: decay the sums over crossed periods and add the new contribution.

    ``delta`` is in 1024-ns units. ``load`` is the weight when CFG_WEIGHT_IN_SUM (<= v4.14),
    else 0/1. Returns the number of crossed periods.
    """
    lam = cfg[CFG_LOAD_AVG_MAX]
    contrib = delta
    delta += sa[SA_PERIOD_CONTRIB]
    periods = delta >> 10
    if periods:
        # a sum at 0 stays 0 (decay_load(0, n) == 0) and the segments are only needed when
        # something is added: an idle signal (an rt_rq without rt tasks, a long-idle cfs_rq)
        # only moves its clock (same values, fewer operations)
        if sa[SA_LOAD_SUM]:
            sa[SA_LOAD_SUM] = decay_load(sa[SA_LOAD_SUM], periods, yn_inv)
        if sa[SA_RUNNABLE_SUM]:
            sa[SA_RUNNABLE_SUM] = decay_load(sa[SA_RUNNABLE_SUM], periods, yn_inv)
        if sa[SA_UTIL_SUM]:
            sa[SA_UTIL_SUM] = decay_load(sa[SA_UTIL_SUM], periods, yn_inv)
        delta &= 1023
        if load or runnable or running:
            # __accumulate_pelt_segments(periods, 1024 - period_contrib, delta)
            c1 = decay_load(1024 - sa[SA_PERIOD_CONTRIB], periods, yn_inv)
            c2 = lam - decay_load(lam, periods, yn_inv) - 1024
            contrib = c1 + c2 + delta
    sa[SA_PERIOD_CONTRIB] = delta
    if cfg[CFG_DELTA_SCALING]:
        _accrue_scaled(sa, load, runnable, running, (contrib * scale_freq) >> SCHED_CAPACITY_SHIFT, scale_cpu)
    else:
        if load:
            sa[SA_LOAD_SUM] += load * contrib
        if runnable:
            if cfg[CFG_RUNNABLE_SCALED]:
                sa[SA_RUNNABLE_SUM] += (runnable * contrib) << SCHED_CAPACITY_SHIFT
            else:
                sa[SA_RUNNABLE_SUM] += runnable * contrib
        if running:
            sa[SA_UTIL_SUM] += contrib << SCHED_CAPACITY_SHIFT
    return periods


@njit(cache=True)
def runnable_contrib_v411(n, cfg, yn_inv):
    """v4.11 ``__compute_runnable_contrib(n)``: ``sum_{i=1..n} 1024 y^i`` from the kernel's tables."""
    period = yn_inv.shape[0]
    if n <= period:
        return cfg[CFG_SIZE + n]
    if n >= cfg[CFG_MAX_N]:
        return cfg[CFG_LOAD_AVG_MAX]
    c = cfg[CFG_SIZE + period + 1 + n // period]
    n = n % period
    return decay_load(c, n, yn_inv) + cfg[CFG_SIZE + n]


@njit(cache=True, inline="always")
def _accrue_scaled(sa, load, runnable, running, scaled, scale_cpu):
    """Add one frequency-scaled (``cap_scale``-d) contribution ``scaled`` to the three sums, the
    util sum also scaled by ``scale_cpu``: ``accumulate_sum``'s delta-scaling branch (to v4.14)
    and each of the three segments of v4.11's ``__update_load_avg``."""
    if load:
        sa[SA_LOAD_SUM] += load * scaled
    if runnable:
        sa[SA_RUNNABLE_SUM] += runnable * scaled
    if running:
        sa[SA_UTIL_SUM] += scaled * scale_cpu


@njit(cache=True)
def update_signal_v411(sa, now, load, runnable, running, scale_freq, scale_cpu, cfg, yn_inv):
    """v4.11 ``__update_load_avg()`` (replaced by ``accumulate_sum`` in v4.12, a481db34b9be).

    Finishes the current period, decays over ``periods + 1``, adds the table sum of the
    full periods and the remainder, each scaled with its own ``cap_scale``; the divider is
    ``LOAD_AVG_MAX``; ``last_update_time = now`` (the sub-1024-ns remainder is dropped).
    ``load`` is the weight (0 when not on the rq); ``runnable`` stands in for the cfs_rq's
    ``runnable_load_sum`` (a task has none in v4.11). Returns 1 when a period boundary was
    crossed (the averages were recomputed), else 0.
    """
    delta = now - sa[SA_LAST_UPDATE]
    if delta < 0:
        sa[SA_LAST_UPDATE] = now
        return 0
    delta >>= 10
    if delta == 0:
        return 0
    sa[SA_LAST_UPDATE] = now
    lam = cfg[CFG_LOAD_AVG_MAX]
    delta_w = sa[SA_PERIOD_CONTRIB]
    decayed = 0
    if delta + delta_w >= 1024:
        decayed = 1
        sa[SA_PERIOD_CONTRIB] = 0
        delta_w = 1024 - delta_w
        _accrue_scaled(sa, load, runnable, running, (delta_w * scale_freq) >> SCHED_CAPACITY_SHIFT, scale_cpu)
        delta -= delta_w
        periods = delta // 1024
        delta = delta % 1024
        sa[SA_LOAD_SUM] = decay_load(sa[SA_LOAD_SUM], periods + 1, yn_inv)
        sa[SA_RUNNABLE_SUM] = decay_load(sa[SA_RUNNABLE_SUM], periods + 1, yn_inv)
        sa[SA_UTIL_SUM] = decay_load(sa[SA_UTIL_SUM], periods + 1, yn_inv)
        _accrue_scaled(sa, load, runnable, running,
                     (runnable_contrib_v411(periods, cfg, yn_inv) * scale_freq) >> SCHED_CAPACITY_SHIFT, scale_cpu)
    _accrue_scaled(sa, load, runnable, running, (delta * scale_freq) >> SCHED_CAPACITY_SHIFT, scale_cpu)
    sa[SA_PERIOD_CONTRIB] += delta
    if decayed:
        sa[SA_LOAD_AVG] = sa[SA_LOAD_SUM] // lam
        sa[SA_RUNNABLE_AVG] = sa[SA_RUNNABLE_SUM] // lam
        sa[SA_UTIL_AVG] = sa[SA_UTIL_SUM] // lam
    return decayed


@model_inline
def update_load_sum(sa, now, load, runnable, running, scale_freq, scale_cpu, cfg, yn_inv):
    """``___update_load_sum()``; ``now`` in ns. Returns the number of crossed periods (0: no avg change).

    For v4.11 (``CFG_OLD_UPDATE``) this is the whole ``__update_load_avg`` (sums and averages)."""
    if cfg[CFG_OLD_UPDATE]:
        return update_signal_v411(sa, now, load, runnable, running, scale_freq, scale_cpu, cfg, yn_inv)
    delta = now - sa[SA_LAST_UPDATE]
    if delta < 0:
        sa[SA_LAST_UPDATE] = now
        return 0
    delta >>= 10
    if delta == 0:
        return 0
    sa[SA_LAST_UPDATE] += delta << 10
    if cfg[CFG_ZERO_IF_UNLOADED] and load == 0:
        runnable = 0
        running = 0
    return accumulate_sum(sa, delta, load, runnable, running, scale_freq, scale_cpu, cfg, yn_inv)


@model_inline
def pelt_divider(sa, cfg):
    """``get_pelt_divider()`` (``LOAD_AVG_MAX`` up to v4.12, ledger pelt-v4.13)."""
    if cfg[CFG_DIVIDER_MODE] == 0:
        return cfg[CFG_LOAD_AVG_MAX]
    return cfg[CFG_LOAD_AVG_MAX] - 1024 + sa[SA_PERIOD_CONTRIB]


@model_inline
def cfs_rq_sub_util(sa, r, r_sum, cfg):
    """Take a leaving task's util out of the cfs_rq signal ``sa``: ``r`` off ``util_avg`` and,
    in the era's form (``cfg[CFG_CFS_REMOVAL]``), ``r_sum`` off ``util_sum``.

    ``update_cfs_rq_load_avg()`` applies ``cfs_rq->removed`` (``remove_entity_load_avg()``:
    wake-up migration, exit) with ``r_sum = r * divider``; ``detach_entity_load_avg()`` (a
    queued task moved) with ``r_sum`` = the entity's own ``util_sum``. Up to v5.12 both are
    ``sub_positive``; v5.13 (1c35b07e6d39, ledger pelt-v5.13) re-derives ``util_sum`` as
    ``util_avg * divider``; v5.17 (98b0d890220d / 7ceb77103001, ledger pelt-v5.17) is
    ``sub_positive`` again, then ``util_sum`` no lower than ``util_avg * PELT_MIN_DIVIDER``
    (``LOAD_AVG_MAX - 1024``)."""
    sa[SA_UTIL_AVG] = sa[SA_UTIL_AVG] - r if sa[SA_UTIL_AVG] > r else 0
    form = cfg[CFG_CFS_REMOVAL]
    if form == REMOVAL_RESYNC:
        sa[SA_UTIL_SUM] = sa[SA_UTIL_AVG] * pelt_divider(sa, cfg)
        return
    sa[SA_UTIL_SUM] = sa[SA_UTIL_SUM] - r_sum if sa[SA_UTIL_SUM] > r_sum else 0
    if form == REMOVAL_FLOOR:
        lo = sa[SA_UTIL_AVG] * (cfg[CFG_LOAD_AVG_MAX] - 1024)
        if sa[SA_UTIL_SUM] < lo:
            sa[SA_UTIL_SUM] = lo


@model_inline
def update_load_avg(sa, weight, runnable_weight, cfg):
    """``___update_load_avg()``: the ``*_avg`` from the ``*_sum`` (only after a period crossing)."""
    divider = pelt_divider(sa, cfg)
    if sa[SA_LOAD_SUM] == 0 and sa[SA_RUNNABLE_SUM] == 0 and sa[SA_UTIL_SUM] == 0:
        sa[SA_LOAD_AVG] = 0             # an idle signal (0 // divider, without the divisions)
        sa[SA_RUNNABLE_AVG] = 0
        sa[SA_UTIL_AVG] = 0
        return
    if cfg[CFG_WEIGHT_IN_SUM]:
        sa[SA_LOAD_AVG] = sa[SA_LOAD_SUM] // divider
        sa[SA_RUNNABLE_AVG] = sa[SA_RUNNABLE_SUM] // divider
    else:
        sa[SA_LOAD_AVG] = (weight * sa[SA_LOAD_SUM]) // divider
        if cfg[CFG_RUNNABLE_SCALED]:
            sa[SA_RUNNABLE_AVG] = sa[SA_RUNNABLE_SUM] // divider
        else:
            sa[SA_RUNNABLE_AVG] = (runnable_weight * sa[SA_RUNNABLE_SUM]) // divider
    sa[SA_UTIL_AVG] = sa[SA_UTIL_SUM] // divider


@njit(cache=True)
def update_signal(sa, now, on_rq, running, weight, scale_freq, scale_cpu, cfg, yn_inv):
    """One ``__update_load_avg_se``-style update of an entity (``on_rq``, ``running`` are 0/1).

    ``___update_load_sum`` + ``accumulate_sum`` + ``___update_load_avg`` fused on local
    variables (same arithmetic as the separate kernels above). Returns the number of crossed
    periods (``*_avg`` were recomputed iff > 0). v4.11 (``CFG_OLD_UPDATE``, ledger pelt-v4.11)
    runs :func:`update_signal_v411`.
    """
    if cfg[CFG_OLD_UPDATE]:
        return update_signal_v411(sa, now, weight * on_rq if cfg[CFG_WEIGHT_IN_SUM] else on_rq,
                                  weight * on_rq if cfg[CFG_WEIGHT_IN_SUM] else on_rq, running, scale_freq,
                                  scale_cpu, cfg, yn_inv)
    delta = now - sa[SA_LAST_UPDATE]
    if delta < 0:
        sa[SA_LAST_UPDATE] = now
        return 0
    delta >>= 10
    if delta == 0:
        return 0
    sa[SA_LAST_UPDATE] += delta << 10
    delta_scaling = cfg[CFG_DELTA_SCALING]
    weight_in_sum = cfg[CFG_WEIGHT_IN_SUM]
    runnable_scaled = cfg[CFG_RUNNABLE_SCALED]
    lam = cfg[CFG_LOAD_AVG_MAX]
    if weight_in_sum:
        load = weight * on_rq
    else:
        load = on_rq
    runnable = load
    if cfg[CFG_ZERO_IF_UNLOADED] and load == 0:
        runnable = 0
        running = 0
    load_sum = sa[SA_LOAD_SUM]
    runnable_sum = sa[SA_RUNNABLE_SUM]
    util_sum = sa[SA_UTIL_SUM]
    pc = sa[SA_PERIOD_CONTRIB]
    contrib = delta
    delta += pc
    periods = delta >> 10
    if periods:
        # decay_load() of the three sums and of the two segment terms, sharing y^periods
        period = yn_inv.shape[0]
        delta &= 1023
        if periods > period * 63:
            load_sum = 0
            runnable_sum = 0
            util_sum = 0
            contrib = lam - 1024 + delta
        else:
            sh = periods >> (5 if period == 32 else (4 if period == 16 else 3))
            mul = yn_inv[periods & (period - 1)]
            load_sum = _decay_shifted(load_sum >> sh, mul)
            runnable_sum = _decay_shifted(runnable_sum >> sh, mul)
            util_sum = _decay_shifted(util_sum >> sh, mul)
            contrib = (_decay_shifted((1024 - pc) >> sh, mul) + lam - _decay_shifted(lam >> sh, mul) - 1024
                       + delta)
    pc = delta
    if delta_scaling:
        contrib = (contrib * scale_freq) >> SCHED_CAPACITY_SHIFT
        if load:
            load_sum += load * contrib
        if runnable:
            runnable_sum += runnable * contrib
        if running:
            util_sum += contrib * scale_cpu
    else:
        if load:
            load_sum += load * contrib
        if runnable:
            if runnable_scaled:
                runnable_sum += (runnable * contrib) << SCHED_CAPACITY_SHIFT
            else:
                runnable_sum += runnable * contrib
        if running:
            util_sum += contrib << SCHED_CAPACITY_SHIFT
    sa[SA_LOAD_SUM] = load_sum
    sa[SA_RUNNABLE_SUM] = runnable_sum
    sa[SA_UTIL_SUM] = util_sum
    sa[SA_PERIOD_CONTRIB] = pc
    if periods:
        divider = lam if cfg[CFG_DIVIDER_MODE] == 0 else lam - 1024 + pc
        if weight_in_sum:
            sa[SA_LOAD_AVG] = load_sum // divider
            sa[SA_RUNNABLE_AVG] = runnable_sum // divider
        else:
            sa[SA_LOAD_AVG] = (weight * load_sum) // divider
            if runnable_scaled:
                sa[SA_RUNNABLE_AVG] = runnable_sum // divider
            else:
                sa[SA_RUNNABLE_AVG] = (weight * runnable_sum) // divider
        sa[SA_UTIL_AVG] = util_sum // divider
    return periods


@model_inline
def clock_pelt_advance(clock_pelt, delta_ns, scale_cpu, scale_freq):
    """``update_rq_clock_pelt()`` for a busy rq: the PELT clock runs at the CPU's relative speed."""
    delta_ns = (delta_ns * scale_cpu) >> SCHED_CAPACITY_SHIFT
    delta_ns = (delta_ns * scale_freq) >> SCHED_CAPACITY_SHIFT
    return clock_pelt + delta_ns


@model_inline
def idle_lost_time(util_sum, clock_task, clock_pelt, load_avg_max):
    """``update_idle_rq_clock_pelt()``: idle time lost when the rq was saturated (else 0)."""
    divider = ((load_avg_max - 1024) << SCHED_CAPACITY_SHIFT) - load_avg_max
    if util_sum >= divider:
        return clock_task - clock_pelt
    return 0


@njit(cache=True)
def pelt_timeline(ts, state, blocked, scale_cpu, scale_freq, weight, init, cfg, yn_inv, out):
    """Run a task's PELT signals (and util_est) along a run/sleep timeline.

    Segment ``k`` is ``[ts[k], ts[k+1])`` with ``state[k]`` (SLEEPING/RUNNABLE/RUNNING/DETACHED) on a
    CPU of capacity ``scale_cpu[k]`` at ``scale_freq[k]``. The kernel updates the signal at
    every ``ts[k]`` (k >= 1) with the previous segment's state; where ``blocked[k]`` that update
    is ``__update_load_avg_blocked_se`` (a waking task's ``sync_entity_load_avg``): it leaves
    util_est's flag alone, and ``ts[k]`` may be up to 1023 ns before ``ts[k - 1]`` (the
    negative delta sets ``last_update_time`` back). The task is assumed alone on
    its CPU when it sleeps (the CPU idles, so the v5.1+ PELT clock resyncs; when the task
    waits RUNNABLE another task runs). ``init`` = (util_avg, load_avg, runnable_avg,
    util_est_ewma, util_est_enqueued); ``out`` (int64[n, 6]) receives util_avg, load_avg,
    runnable_avg, util_est ewma, util_est enqueued, and 1 where the avg was recomputed.
    """
    n = ts.shape[0]
    lam = cfg[CFG_LOAD_AVG_MAX]
    sa = np.zeros(SA_SIZE, np.int64)
    divider = lam - 1024 if cfg[CFG_DIVIDER_MODE] == 1 else lam
    sa[SA_UTIL_AVG] = init[0]
    sa[SA_LOAD_AVG] = init[1]
    sa[SA_RUNNABLE_AVG] = init[2]
    # sums consistent with the averages (period_contrib = 0), as attach/initialisation does
    sa[SA_UTIL_SUM] = init[0] * divider
    if cfg[CFG_WEIGHT_IN_SUM]:
        sa[SA_LOAD_SUM] = init[1] * divider
        sa[SA_RUNNABLE_SUM] = init[2] * divider
    else:
        sa[SA_LOAD_SUM] = (init[1] * divider) // weight if weight > 0 else 0
        if cfg[CFG_RUNNABLE_SCALED]:
            sa[SA_RUNNABLE_SUM] = init[2] * divider
        else:
            sa[SA_RUNNABLE_SUM] = (init[2] * divider) // weight if weight > 0 else 0
    ue_era = cfg[CFG_UTIL_EST_ERA]
    ewma = init[3]
    enq = init[4]
    t0 = ts[0]
    clock_task = t0
    clock_pelt = t0
    lost = 0
    sa[SA_LAST_UPDATE] = t0
    out[0, 0] = sa[SA_UTIL_AVG]
    out[0, 1] = sa[SA_LOAD_AVG]
    out[0, 2] = sa[SA_RUNNABLE_AVG]
    out[0, 3] = ewma
    out[0, 4] = enq
    out[0, 5] = 0
    for k in range(1, n):
        prev = state[k - 1]
        cur = state[k]
        delta = ts[k] - ts[k - 1]
        clock_task += delta
        if cfg[CFG_DELTA_SCALING]:
            now = clock_task
        else:
            if prev == SLEEPING or prev == DETACHED:
                clock_pelt = clock_task
            else:
                clock_pelt = clock_pelt_advance(clock_pelt, delta, scale_cpu[k - 1], scale_freq[k - 1])
            now = clock_pelt - lost
        if prev == DETACHED:
            # attach_entity_load_avg(): last_update_time jumps to the new cfs_rq's clock
            sa[SA_LAST_UPDATE] = now
            out[k, 0] = sa[SA_UTIL_AVG]
            out[k, 1] = sa[SA_LOAD_AVG]
            out[k, 2] = sa[SA_RUNNABLE_AVG]
            out[k, 3] = ewma
            out[k, 4] = enq
            out[k, 5] = 0
            continue
        on_rq = 1 if prev == RUNNABLE or prev == RUNNING else 0
        running = 1 if prev == RUNNING else 0
        sleep = (prev == RUNNABLE or prev == RUNNING) and cur == SLEEPING
        if sleep and ue_era >= UE_V6_12:
            # v6.12+: util_est_update() runs before dequeue_entities() updates the entity
            ewma, enq = util_est_update(ewma, enq, sa[SA_UTIL_AVG], sa[SA_RUNNABLE_AVG],
                                        scale_cpu[k - 1], ue_era)
        periods = update_signal(sa, now, on_rq, running, weight, scale_freq[k - 1], scale_cpu[k - 1],
                                cfg, yn_inv)
        if periods and ue_era >= 0 and not blocked[k]:
            # cfs_se_util_change(): util_avg changed since the last enqueue
            ewma, enq = task_util_est_clear_flag(ewma, enq, ue_era)
        if sleep and 0 <= ue_era < UE_V6_12:
            ewma, enq = util_est_update(ewma, enq, sa[SA_UTIL_AVG], sa[SA_RUNNABLE_AVG],
                                        scale_cpu[k - 1], ue_era)
        if (prev == RUNNABLE or prev == RUNNING) and (cur == SLEEPING or cur == DETACHED):
            if not cfg[CFG_DELTA_SCALING]:
                lost += idle_lost_time(sa[SA_UTIL_SUM], clock_task, clock_pelt, lam)
        out[k, 0] = sa[SA_UTIL_AVG]
        out[k, 1] = sa[SA_LOAD_AVG]
        out[k, 2] = sa[SA_RUNNABLE_AVG]
        out[k, 3] = ewma
        out[k, 4] = enq
        out[k, 5] = 1 if periods else 0
    return out


@njit(cache=True)
def pelt_batch_updates(sa_all, now, on_rq, running, weight, scale_freq, scale_cpu, cfg, yn_inv):
    """Update many independent signals once each (``sa_all`` is int64[m, SA_SIZE]); returns crossings."""
    m = sa_all.shape[0]
    crossed = 0
    for i in range(m):
        if update_signal(sa_all[i], now[i], on_rq[i], running[i], weight, scale_freq[i], scale_cpu[i],
                         cfg, yn_inv):
            crossed += 1
    return crossed
