"""Legacy cpufreq governors (numba): ondemand, interactive, schedfreq, performance, powersave.

* ondemand: ``dbs_update()`` (``drivers/cpufreq/cpufreq_governor.c``) and ``od_update()`` /
  ``od_dbs_update()`` (``cpufreq_ondemand.c``, v4.14+ form, powersave_bias 0,
  ignore_nice_load 0), frequency resolved with RELATION_C (closest, ties to the lower).
* interactive: ``cpufreq_interactive_timer()`` and ``choose_freq()`` (AOSP
  ``drivers/cpufreq/cpufreq_interactive.c``), single target load, no boostpulse, timers of all
  CPUs aligned, no timer_slack deferral.
* schedfreq: ``update_fdomain_capacity_request()`` / ``cpufreq_sched_thread()`` of the
  EAS-tree ``cpufreq_sched.c``: margined CFS+RT request, max over the policy, RELATION_L,
  throttled (a request made while throttled is applied when the throttle expires).

These run open loop over a recorded busy/idle timeline: ``grid`` int64[K] (ns, ascending) and
``busy`` uint8[K, m] saying whether CPU j was busy in ``[grid[k], grid[k+1])``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

UINT_MAX = 4294967295


@njit(cache=True)
def cumulative_busy(grid, busy):
    """Prefix sums of busy time: ``cum[k, j]`` = busy ns of CPU j in ``[grid[0], grid[k])``."""
    k_n = grid.shape[0]
    m = busy.shape[1]
    cum = np.zeros((k_n, m), np.int64)
    for k in range(1, k_n):
        dt = grid[k] - grid[k - 1]
        for j in range(m):
            cum[k, j] = cum[k - 1, j] + (dt if busy[k - 1, j] else 0)
    return cum


@njit(cache=True)
def busy_at(grid, busy, cum, t, j):
    """Busy ns of CPU j in ``[grid[0], t)`` (busy state of the last segment extends to +inf)."""
    if t <= grid[0]:
        return 0
    k = np.searchsorted(grid, t, side="right") - 1
    b = cum[k, j]
    if busy[k, j]:
        b += t - grid[k]
    return b


@njit(cache=True)
def relation_l(freqs, target):
    """Lowest table frequency >= target (the highest if none)."""
    for i in range(freqs.shape[0]):
        if freqs[i] >= target:
            return freqs[i]
    return freqs[freqs.shape[0] - 1]


@njit(cache=True)
def relation_h(freqs, target):
    """Highest table frequency <= target (the lowest if none)."""
    for i in range(freqs.shape[0] - 1, -1, -1):
        if freqs[i] <= target:
            return freqs[i]
    return freqs[0]


@njit(cache=True)
def relation_c(freqs, target):
    """``cpufreq_table_find_index_ac()``: closest table frequency, ties to the lower."""
    best = -1
    for i in range(freqs.shape[0]):
        f = freqs[i]
        if f == target:
            return f
        if f < target:
            best = i
            continue
        if best == -1:
            return f
        if target - freqs[best] > f - target:
            return f
        return freqs[best]
    return freqs[best]


@njit(cache=True)
def ondemand_run(grid, busy, t_start, t_end, freqs, sampling_rate_us, up_threshold, sampling_down_factor,
                 out_t, out_f, out_load):
    """ondemand samples from ``t_start`` to ``t_end``; returns the number of samples written.

    The policy starts at the lowest frequency. ``out_f[i]`` is the frequency set at sample i.
    """
    m = busy.shape[1]
    cum = cumulative_busy(grid, busy)
    fmin = freqs[0]
    fmax = freqs[freqs.shape[0] - 1]
    cur = fmin
    rate_mult = 1
    prev_update = np.full(m, t_start // 1000, np.int64)
    prev_idle = np.zeros(m, np.int64)
    prev_load = np.zeros(m, np.int64)
    for j in range(m):
        prev_idle[j] = (t_start - grid[0] - busy_at(grid, busy, cum, t_start, j)) // 1000 if t_start > grid[0] else 0
    t = t_start
    n = 0
    while n < out_t.shape[0]:
        t = t + sampling_rate_us * rate_mult * 1000
        if t > t_end:
            break
        sampling_rate = sampling_rate_us * rate_mult
        max_load = 0
        now_us = t // 1000
        for j in range(m):
            idle_total = (t - grid[0] - busy_at(grid, busy, cum, t, j)) // 1000 if t > grid[0] else 0
            elapsed = now_us - prev_update[j]
            prev_update[j] = now_us
            idle_time = idle_total - prev_idle[j]
            prev_idle[j] = idle_total
            if elapsed == 0:
                load = prev_load[j]
            elif idle_time > 2 * sampling_rate and prev_load[j]:
                load = prev_load[j]
                prev_load[j] = 0
            else:
                if elapsed >= idle_time:
                    load = 100 * (elapsed - idle_time) // elapsed
                else:
                    load = 0
                prev_load[j] = load
            if load > max_load:
                max_load = load
        if max_load > up_threshold:
            if cur < fmax:
                rate_mult = sampling_down_factor
            cur = fmax
        else:
            f_next = fmin + max_load * (fmax - fmin) // 100
            rate_mult = 1
            cur = relation_c(freqs, f_next)
        out_t[n] = t
        out_f[n] = cur
        out_load[n] = max_load
        n += 1
    return n


@njit(cache=True)
def choose_freq(freqs, cur, loadadjfreq, target_load):
    """interactive ``choose_freq()``: lowest frequency keeping load <= target_load, by iteration."""
    freq = cur
    freqmin = 0
    freqmax = UINT_MAX
    while True:
        prevfreq = freq
        freq = relation_l(freqs, loadadjfreq // target_load)
        if freq > prevfreq:
            freqmin = prevfreq
            if freq >= freqmax:
                freq = relation_h(freqs, freqmax - 1)
                if freq == freqmin:
                    freq = freqmax
                    break
        elif freq < prevfreq:
            freqmax = prevfreq
            if freq <= freqmin:
                freq = relation_l(freqs, freqmin + 1)
                if freq == freqmax:
                    break
        if freq == prevfreq:
            break
    return freq


@njit(cache=True)
def interactive_run(grid, busy, t_start, t_end, freqs, timer_rate_us, go_hispeed_load, hispeed_freq, target_load,
                    min_sample_time_us, above_hispeed_delay_us, out_t, out_f):
    """interactive timer evaluations (every ``timer_rate``); returns the number written.

    ``hispeed_freq`` 0 means the policy maximum (the governor's start-up default).
    """
    m = busy.shape[1]
    cum = cumulative_busy(grid, busy)
    fmax = freqs[freqs.shape[0] - 1]
    if hispeed_freq == 0:
        hispeed_freq = fmax
    cur = freqs[0]
    target = np.full(m, freqs[0], np.int64)
    floor_freq = np.full(m, freqs[0], np.int64)
    floor_validate = np.full(m, t_start // 1000, np.int64)
    hispeed_validate = np.full(m, t_start // 1000, np.int64)
    last_busy = np.zeros(m, np.int64)
    for j in range(m):
        last_busy[j] = busy_at(grid, busy, cum, t_start, j)
    speedadj = np.zeros(m, np.int64)
    t_prev = t_start
    t = t_start
    n = 0
    while n < out_t.shape[0]:
        t = t + timer_rate_us * 1000
        if t > t_end:
            break
        now = t // 1000
        delta_time = (t - t_prev) // 1000
        for j in range(m):
            b = busy_at(grid, busy, cum, t, j)
            active = (b - last_busy[j]) // 1000
            last_busy[j] = b
            speedadj[j] = active * cur
        for j in range(m):
            loadadjfreq = (speedadj[j] // delta_time) * 100
            cpu_load = loadadjfreq // target[j]
            if cpu_load >= go_hispeed_load:
                if target[j] < hispeed_freq:
                    new = hispeed_freq
                else:
                    new = choose_freq(freqs, cur, loadadjfreq, target_load)
                    if new < hispeed_freq:
                        new = hispeed_freq
            else:
                new = choose_freq(freqs, cur, loadadjfreq, target_load)
            if target[j] >= hispeed_freq and new > target[j] and now - hispeed_validate[j] < above_hispeed_delay_us:
                continue
            hispeed_validate[j] = now
            new = relation_l(freqs, new)
            if new < floor_freq[j] and now - floor_validate[j] < min_sample_time_us:
                continue
            floor_freq[j] = new
            floor_validate[j] = now
            target[j] = new
        f = 0
        for j in range(m):
            if target[j] > f:
                f = target[j]
        cur = relation_h(freqs, f)
        t_prev = t
        out_t[n] = t
        out_f[n] = cur
        n += 1
    return n


@njit(cache=True)
def schedfreq_run(times, cpu, cfs, rt, dl, m, freqs, capacity_margin, throttle_ns, out_t, out_f):
    """schedfreq over capacity-request events; returns the number of frequency changes written.

    Event i sets CPU ``cpu[i]``'s requests (``cfs``/``rt``/``dl`` capacity units);
    ``total = (cfs + rt) * capacity_margin / 1024 + dl``, policy request = max over CPUs,
    ``freq = capacity * policy.max >> 10``, RELATION_L. Changes are throttled.
    """
    fmax = freqs[freqs.shape[0] - 1]
    total = np.zeros(m, np.int64)
    cur = freqs[0]
    requested = freqs[0]
    throttle_end = np.int64(-1) << 62
    n = 0
    for i in range(times.shape[0]):
        t = times[i]
        # a request latched while throttled is applied when the throttle expires
        if requested != cur and throttle_end <= t and n < out_t.shape[0]:
            out_t[n] = throttle_end
            out_f[n] = requested
            n += 1
            cur = requested
            throttle_end = throttle_end + throttle_ns
        total[cpu[i]] = (cfs[i] + rt[i]) * capacity_margin // 1024 + dl[i]
        cap = 0
        for j in range(m):
            if total[j] > cap:
                cap = total[j]
        f = relation_l(freqs, (cap * fmax) >> 10)
        if f == requested:
            continue
        requested = f
        if throttle_end <= t and n < out_t.shape[0]:
            out_t[n] = t
            out_f[n] = f
            n += 1
            cur = f
            throttle_end = t + throttle_ns
    if requested != cur and n < out_t.shape[0]:
        out_t[n] = throttle_end
        out_f[n] = requested
        n += 1
    return n
