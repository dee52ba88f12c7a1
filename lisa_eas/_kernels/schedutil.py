"""schedutil: the frequency a policy asks for (numba kernels), with the RFC "ramp boost".

Follows ``kernel/sched/cpufreq_schedutil.c``: ``get_next_freq()``, ``sugov_should_update_freq()``,
``sugov_update_next_freq()``, ``sugov_iowait_boost()``, ``sugov_iowait_reset()``,
``sugov_iowait_apply()``, ``sugov_cpu_is_busy()``, ``sugov_update_single()``,
``sugov_next_freq_shared()``; ``schedutil_cpu_util()``/``effective_cpu_util()`` from
``kernel/sched/fair.c``/``core.c``; ``cpufreq_driver_resolve_freq()`` (RELATION_L; RELATION_LE
skipping inefficient OPPs from v5.16).
Ramp boost follows "[RFC PATCH v3 0/6] sched/cpufreq: Make schedutil energy aware"
(D. Raillard, Oct 2019): ``em_pd_get_higher_freq()`` and ``sugov_cpu_ramp_boost_update()``.

Eras (``SU_*``): 0 = < v5.14 (``map_util_freq``: ``(f + f/4) * util / max``),
1 = v5.14 - v6.7 (``map_util_perf``: ``util += util/4``; ``f * util / max``),
2 = v6.8+ (headroom inside ``sugov_effective_cpu_perf``, clamped to the CPU capacity).
The other era rows (``schedutil-*`` of the era ledger) are flags of :func:`sugov_update`:
``restore_cached`` (v5.11), ``ineff`` (v5.16), ``limits_check`` (v6.9).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import model_inline

SU_V5_0 = 0
SU_V5_14 = 1
SU_V6_8 = 2
SU_V6_8_PERF = 3    # v6.8+ with the util already through sugov_effective_cpu_perf(): no headroom left to add

FREQUENCY_UTIL = 0
ENERGY_UTIL = 1

IOWAIT_BOOST_MIN = 128          # SCHED_CAPACITY_SCALE / 8
EM_COST_MARGIN_SCALE = 1024

# per-CPU state
CS_LAST_UPDATE = 0
CS_IOWAIT_BOOST = 1
CS_IOWAIT_PENDING = 2
CS_WENT_IDLE = 3          # entered idle since the last busy check (idle_calls changed)
CS_RB_UTIL_EST = 4
CS_RB_UTIL_AVG = 5
CS_RAMP_BOOST = 6
CS_SIZE = 7

# policy state
PS_LAST_FREQ_UPDATE = 0
PS_NEXT_FREQ = 1
PS_CACHED_RAW_FREQ = 2
PS_NEED_FREQ_UPDATE = 3
PS_SIZE = 4


@njit(cache=True)
def effective_cpu_util(util_cfs, util_rt, util_dl, bw_dl, irq, scale, util_type, rt_runnable):
    """``schedutil_cpu_util()`` / ``effective_cpu_util()`` (v5.3 - v6.7 form, no uclamp)."""
    if util_type == FREQUENCY_UTIL and rt_runnable:
        return scale
    if irq >= scale:
        return scale
    util = util_cfs + util_rt
    dl = util_dl
    if util + dl >= scale:
        return scale
    if util_type == ENERGY_UTIL:
        util += dl
    util = irq + util * (scale - irq) // scale
    if util_type == FREQUENCY_UTIL:
        util += bw_dl
    return util if util < scale else scale


@njit(cache=True)
def uclamp_rq_util_with(util, uclamp_min, uclamp_max):
    """``uclamp_rq_util_with()``: clamp ``util`` into the rq's (and task's) uclamp range."""
    if uclamp_min >= uclamp_max:
        return uclamp_min
    if util < uclamp_min:
        return uclamp_min
    if util > uclamp_max:
        return uclamp_max
    return util


@njit(cache=True)
def effective_cpu_util_uclamp(util_cfs, util_rt, util_dl, bw_dl, irq, scale, util_type, rt_runnable,
                              uclamp_used, uclamp_min, uclamp_max):
    """``schedutil_cpu_util()`` (v5.3 - v6.7) with uclamp: FREQUENCY_UTIL clamps CFS + RT into
    the rq's [uclamp_min, uclamp_max]; RT forces max only when uclamp is not in use."""
    if not uclamp_used and util_type == FREQUENCY_UTIL and rt_runnable:
        return scale
    if irq >= scale:
        return scale
    util = util_cfs + util_rt
    if util_type == FREQUENCY_UTIL and uclamp_used:
        util = uclamp_rq_util_with(util, uclamp_min, uclamp_max)
    dl = util_dl
    if util + dl >= scale:
        return scale
    if util_type == ENERGY_UTIL:
        util += dl
    util = irq + util * (scale - irq) // scale
    if util_type == FREQUENCY_UTIL:
        util += bw_dl
    return util if util < scale else scale


@njit(cache=True)
def effective_cpu_util_v68(util_cfs, util_rt, util_dl, bw_dl, irq, scale, rt_runnable, uclamp_used, uclamp_min,
                           uclamp_max, minmax):
    """v6.8+ ``effective_cpu_util(cpu, util_cfs, &min, &max)``; ``minmax`` (int64[2]) gets the
    performance floor (IRQ + DL bandwidth, uclamp_min, RT without uclamp) and ceiling (uclamp_max)."""
    if irq >= scale:
        minmax[0] = scale
        minmax[1] = scale
        return scale
    lo = irq + bw_dl
    if uclamp_used and uclamp_min > lo:
        lo = uclamp_min
    if not uclamp_used and rt_runnable:
        lo = scale
    minmax[0] = lo
    util = util_cfs + util_rt + util_dl
    hi = scale
    if uclamp_used and uclamp_max < hi:
        hi = uclamp_max
    minmax[1] = hi
    if util >= scale:
        return scale
    util = irq + util * (scale - irq) // scale
    return util if util < scale else scale


@njit(cache=True)
def sugov_effective_cpu_perf(actual, lo, hi):
    """v6.8+ ``sugov_effective_cpu_perf()``: ``max(lo, min(hi, actual * 1.25))``."""
    actual = actual + (actual >> 2)
    if actual < hi:
        hi = actual
    return lo if lo > hi else hi


@njit(cache=True)
def resolve_freq(freqs, target, fmin, fmax):
    """``cpufreq_driver_resolve_freq()``: clamp to [fmin, fmax], lowest table freq >= target."""
    if target > fmax:
        target = fmax
    if target < fmin:
        target = fmin
    for i in range(freqs.shape[0]):
        if freqs[i] >= target:
            return freqs[i]
    return freqs[freqs.shape[0] - 1]


@njit(cache=True)
def _find_index_al(freqs, ineff, target, efficiencies):
    """``cpufreq_table_find_index_al()``: the first (efficient) entry >= target, else the last one seen."""
    best = -1
    for i in range(freqs.shape[0]):
        if efficiencies and ineff[i]:
            continue
        if freqs[i] >= target:
            return i
        best = i
    return best


@model_inline
def resolve_freq_le(freqs, ineff, target, fmin, fmax, limits_check):
    """``cpufreq_driver_resolve_freq()`` with ``CPUFREQ_RELATION_LE`` (v5.16+, ledger schedutil-v5.16):
    clamp to [fmin, fmax], then the lowest *efficient* table frequency >= target (``ineff[i]``
    flags the OPPs the Energy Model marked inefficient). Up to v6.8 the efficient OPP may lie
    above ``fmax``; from v6.9 (``limits_check``, ledger schedutil-v6.9) a result outside
    [fmin, fmax] is dropped and the search redone without efficiencies."""
    if target > fmax:
        target = fmax
    if target < fmin:
        target = fmin
    idx = _find_index_al(freqs, ineff, target, True)
    if limits_check and (idx < 0 or freqs[idx] > fmax or freqs[idx] < fmin):
        idx = _find_index_al(freqs, ineff, target, False)
    if idx < 0:
        idx = _find_index_al(freqs, ineff, target, False)
    return freqs[idx]


@model_inline
def cpu_util_cfs_rt(util_avg, util_est, util_rt, scale):
    """The CPU utilization schedutil reads without DL/IRQ: ``max(util_avg, util_est) + util_rt``
    (``cpu_util_cfs()`` then ``effective_cpu_util()`` adds RT), capped at ``scale``."""
    u = util_avg if util_avg > util_est else util_est
    if u > scale:
        u = scale
    u += util_rt
    return u if u < scale else scale


@njit(cache=True)
def uclamp_cpu_util(util_avg, util_est, util_rt, scale, uclamp_min, uclamp_max, era):
    """The CPU utilization schedutil asks a frequency for with uclamp in use (ledger uclamp-v5.3),
    without DL and IRQ: ``cpu_util_cfs()`` (``min(max(util_avg, util_est), capacity)``) + RT, then

    * before v6.8 (``schedutil_cpu_util()`` / ``effective_cpu_util(FREQUENCY_UTIL)``, v5.3 -
      v6.7): clamped into the rq's ``[uclamp_min, uclamp_max]`` (``uclamp_rq_util_with(rq,
      util, NULL)``), capped at the capacity; :func:`get_next_freq` adds the headroom after;
    * from v6.8 (``effective_cpu_util(cpu, util, &min, &max)`` then
      ``sugov_effective_cpu_perf()``, ledger schedutil-v6.8): ``max(uclamp_min, min(uclamp_max,
      capacity, 1.25 util))``, the headroom already in, so :func:`get_next_freq` is called with
      ``SU_V6_8_PERF``.
    """
    u = util_avg if util_avg > util_est else util_est
    if u > scale:
        u = scale
    u += util_rt
    if era == SU_V6_8:
        hi = uclamp_max if uclamp_max < scale else scale
        if u >= scale:
            u = scale
        return sugov_effective_cpu_perf(u, uclamp_min, hi)
    u = uclamp_rq_util_with(u, uclamp_min, uclamp_max)
    return u if u < scale else scale


@njit(cache=True)
def em_pd_get_higher_freq(freqs, costs, min_freq, cost_margin):
    """RFC v3 ``em_pd_get_higher_freq()``: highest OPP whose cost is within the margin."""
    max_cost = 0
    for i in range(freqs.shape[0]):
        if freqs[i] >= min_freq:
            max_cost = costs[i] + (costs[i] * cost_margin) // EM_COST_MARGIN_SCALE
            break
    for i in range(freqs.shape[0] - 1, -1, -1):
        if costs[i] <= max_cost:
            return freqs[i]
    return min_freq


@model_inline
def raw_next_freq(util, max_cap, freq_ref, era):
    """The unresolved frequency of ``get_next_freq()`` for ``util`` (0..max_cap)."""
    if era == SU_V5_0:
        return (freq_ref + (freq_ref >> 2)) * util // max_cap
    if era == SU_V5_14:
        util = util + (util >> 2)
        return freq_ref * util // max_cap
    if era == SU_V6_8_PERF:
        return freq_ref * util // max_cap
    util = util + (util >> 2)
    if util > max_cap:
        util = max_cap
    return freq_ref * util // max_cap


@model_inline
def get_next_freq(ps, util, max_cap, freq_ref, freqs, fmin, fmax, era, boost, costs, ineff=None,
                  limits_check=False):
    """``get_next_freq(sg_policy, util, max)`` (+ RFC ramp boost when ``boost >= 0``).

    ``ineff`` (v5.16+): per-OPP inefficiency flags, resolved with RELATION_LE
    (:func:`resolve_freq_le`); None resolves with RELATION_L (before v5.16, or no EM).
    """
    f = raw_next_freq(util, max_cap, freq_ref, era)
    if boost >= 0:
        f = em_pd_get_higher_freq(freqs, costs, f, boost)
    if f == ps[PS_CACHED_RAW_FREQ] and not ps[PS_NEED_FREQ_UPDATE]:
        return ps[PS_NEXT_FREQ]
    ps[PS_CACHED_RAW_FREQ] = f
    if ineff is None:
        return resolve_freq(freqs, f, fmin, fmax)
    return resolve_freq_le(freqs, ineff, f, fmin, fmax, limits_check)


@model_inline
def iowait_reset(cs, time, set_boost, tick_ns):
    """``sugov_iowait_reset()``: drop the boost after more than a tick without request."""
    if time - cs[CS_LAST_UPDATE] <= tick_ns:
        return False
    cs[CS_IOWAIT_BOOST] = IOWAIT_BOOST_MIN if set_boost else 0
    cs[CS_IOWAIT_PENDING] = 1 if set_boost else 0
    return True


@model_inline
def iowait_boost(cs, time, iowait, tick_ns):
    """``sugov_iowait_boost()``: on each update; doubles at most once per request."""
    if cs[CS_IOWAIT_BOOST] and iowait_reset(cs, time, iowait, tick_ns):
        return
    if not iowait:
        return
    if cs[CS_IOWAIT_PENDING]:
        return
    cs[CS_IOWAIT_PENDING] = 1
    if cs[CS_IOWAIT_BOOST]:
        b = cs[CS_IOWAIT_BOOST] << 1
        cs[CS_IOWAIT_BOOST] = b if b < 1024 else 1024
        return
    cs[CS_IOWAIT_BOOST] = IOWAIT_BOOST_MIN


@model_inline
def iowait_apply(cs, time, util, max_cap, tick_ns):
    """``sugov_iowait_apply()``: ``max(util, boost)``, halving the boost when no request is pending."""
    if not cs[CS_IOWAIT_BOOST]:
        return util
    if iowait_reset(cs, time, False, tick_ns):
        return util
    if not cs[CS_IOWAIT_PENDING]:
        cs[CS_IOWAIT_BOOST] >>= 1
        if cs[CS_IOWAIT_BOOST] < IOWAIT_BOOST_MIN:
            cs[CS_IOWAIT_BOOST] = 0
            return util
    cs[CS_IOWAIT_PENDING] = 0
    boost = (cs[CS_IOWAIT_BOOST] * max_cap) >> 10
    return boost if boost > util else util


@model_inline
def ramp_boost_update(cs, util_est_enqueued, util_avg):
    """RFC v3 ``sugov_cpu_ramp_boost_update()``: ``util_avg - util_est`` while util rises above it."""
    boost = 0
    if (util_est_enqueued == cs[CS_RB_UTIL_EST] and util_avg >= cs[CS_RB_UTIL_AVG]
            and util_avg > util_est_enqueued):
        boost = util_avg - util_est_enqueued
    cs[CS_RB_UTIL_EST] = util_est_enqueued
    cs[CS_RB_UTIL_AVG] = util_avg
    cs[CS_RAMP_BOOST] = boost
    return boost


@njit(cache=True)
def cpu_util_cfs(util_avg, util_est, scale):
    """``cpu_util_cfs()`` with UTIL_EST: ``min(max(util_avg, util_est), capacity)``."""
    u = util_avg if util_avg > util_est else util_est
    return u if u < scale else scale


@model_inline
def sugov_update(cs_all, ps, cpu, time, iowait, went_idle, util_avg, util_est, max_cap, freq_ref, freqs, fmin,
                 fmax, era, rate_limit_ns, tick_ns, use_iowait, use_ramp_boost, costs, ineff=None,
                 limits_check=False, restore_cached=False, util_rt=None, uclamp=None):
    """One ``cpufreq_update_util()`` call from ``cpu`` of the policy; returns the policy's next_freq.

    ``cs_all`` int64[m, CS_SIZE] per-CPU state; ``ps`` int64[PS_SIZE]; ``util_avg``/``util_est``
    int64[m] are the CPUs' root cfs_rq signals now. One CPU in the policy: ``sugov_update_single``
    (with the busy hold); more: ``sugov_update_shared`` (max over CPUs).

    ``ineff``/``limits_check``: see :func:`get_next_freq`. ``restore_cached`` (v5.11+, ledger
    schedutil-v5.11): a busy hold restores ``cached_raw_freq`` instead of zeroing it.
    ``util_rt`` (int64[m], optional): RT utilization, added after ``max(util_avg, util_est)``;
    the ramp boost reads the CFS signals only.
    ``uclamp`` (int64[m, 2], optional, needs ``util_rt``): each rq's aggregated
    (``uclamp_min``, ``uclamp_max``) with uclamp in use (ledger uclamp-v5.3): the CPU's util is
    :func:`uclamp_cpu_util` (``util_rt`` is then the RT utilization itself, a runnable RT task
    raising the rq's ``uclamp_min`` instead of forcing the maximum).
    """
    m = cs_all.shape[0]
    cs = cs_all[cpu]
    if went_idle:
        cs[CS_WENT_IDLE] = 1
    if use_iowait:
        iowait_boost(cs, time, iowait, tick_ns)
    cs[CS_LAST_UPDATE] = time
    if not (ps[PS_NEED_FREQ_UPDATE] or time - ps[PS_LAST_FREQ_UPDATE] >= rate_limit_ns):
        return ps[PS_NEXT_FREQ]
    boost = -1
    if m == 1:
        busy = False
        if not ps[PS_NEED_FREQ_UPDATE]:
            busy = cs[CS_WENT_IDLE] == 0
            cs[CS_WENT_IDLE] = 0
        if util_rt is None:
            util = cpu_util_cfs(util_avg[0], util_est[0], max_cap)
        elif uclamp is None:
            util = cpu_util_cfs_rt(util_avg[0], util_est[0], util_rt[0], max_cap)
        else:
            util = uclamp_cpu_util(util_avg[0], util_est[0], util_rt[0], max_cap, uclamp[0, 0], uclamp[0, 1], era)
        if use_ramp_boost:
            boost = ramp_boost_update(cs, util_est[0], util_avg[0])
        if use_iowait:
            util = iowait_apply(cs, time, util, max_cap, tick_ns)
        cached = ps[PS_CACHED_RAW_FREQ]
        next_f = get_next_freq(ps, util, max_cap, freq_ref, freqs, fmin, fmax,
                               SU_V6_8_PERF if uclamp is not None and era == SU_V6_8 else era, boost, costs, ineff,
                               limits_check)
        if busy and next_f < ps[PS_NEXT_FREQ]:
            next_f = ps[PS_NEXT_FREQ]
            ps[PS_CACHED_RAW_FREQ] = cached if restore_cached else 0
    else:
        util = 0
        for j in range(m):
            if util_rt is None:
                u = cpu_util_cfs(util_avg[j], util_est[j], max_cap)
            elif uclamp is None:
                u = cpu_util_cfs_rt(util_avg[j], util_est[j], util_rt[j], max_cap)
            else:
                u = uclamp_cpu_util(util_avg[j], util_est[j], util_rt[j], max_cap, uclamp[j, 0], uclamp[j, 1], era)
            if use_iowait:
                u = iowait_apply(cs_all[j], time, u, max_cap, tick_ns)
            if u > util:
                util = u
            if use_ramp_boost:
                if j == cpu:
                    b = ramp_boost_update(cs_all[j], util_est[j], util_avg[j])
                else:
                    b = cs_all[j, CS_RAMP_BOOST]
                if b > boost:
                    boost = b
        next_f = get_next_freq(ps, util, max_cap, freq_ref, freqs, fmin, fmax,
                               SU_V6_8_PERF if uclamp is not None and era == SU_V6_8 else era, boost, costs, ineff,
                               limits_check)
    if ps[PS_NEED_FREQ_UPDATE]:
        ps[PS_NEED_FREQ_UPDATE] = 0
        if ps[PS_NEXT_FREQ] == next_f:
            return next_f
    elif ps[PS_NEXT_FREQ] == next_f:
        return next_f
    ps[PS_NEXT_FREQ] = next_f
    ps[PS_LAST_FREQ_UPDATE] = time
    return next_f


@njit(cache=True)
def sugov_run(times, cpu, iowait, went_idle, util_avg, util_est, max_cap, freq_ref, freqs, fmin, fmax, era,
              rate_limit_ns, tick_ns, use_iowait, use_ramp_boost, costs, out_freq, ineff=None, limits_check=False,
              restore_cached=False, util_rt=None):
    """Drive one policy through ``n`` update events (``util_avg``/``util_est``/``util_rt`` are int64[n, m])."""
    m = util_avg.shape[1]
    cs_all = np.zeros((m, CS_SIZE), np.int64)
    ps = np.zeros(PS_SIZE, np.int64)
    ps[PS_LAST_FREQ_UPDATE] = -(np.int64(1) << 62)     # the first call may always update
    for i in range(times.shape[0]):
        if util_rt is None:
            out_freq[i] = sugov_update(cs_all, ps, cpu[i], times[i], iowait[i], went_idle[i], util_avg[i],
                                       util_est[i], max_cap, freq_ref, freqs, fmin, fmax, era, rate_limit_ns,
                                       tick_ns, use_iowait, use_ramp_boost, costs, ineff, limits_check,
                                       restore_cached)
        else:
            out_freq[i] = sugov_update(cs_all, ps, cpu[i], times[i], iowait[i], went_idle[i], util_avg[i],
                                       util_est[i], max_cap, freq_ref, freqs, fmin, fmax, era, rate_limit_ns,
                                       tick_ns, use_iowait, use_ramp_boost, costs, ineff, limits_check,
                                       restore_cached, util_rt[i])
    return out_freq
