"""Legacy cpufreq governors (numba): ondemand, interactive, schedfreq, performance, powersave.

* ondemand: ``dbs_update()`` (``drivers/cpufreq/cpufreq_governor.c``) and ``od_update()`` /
  ``od_dbs_update()`` (``cpufreq_ondemand.c``, v4.14+ form, powersave_bias 0,
  ignore_nice_load 0), frequency resolved with RELATION_C (closest, ties to the lower; from
  v5.16 RELATION_CE, the closest efficient OPP). The "long idle" test that reuses the previous
  load once compares the wall time since the last sample before v4.18 and the idle time from
  v4.18 (``long_idle``: :data:`OD_LONG_IDLE_ELAPSED` / :data:`OD_LONG_IDLE_IDLE`, ledger
  ondemand-v4.14, ondemand-v4.18).
* interactive: ``cpufreq_interactive_timer()`` and ``choose_freq()`` (AOSP
  ``drivers/cpufreq/cpufreq_interactive.c``), single target load, no boostpulse, timers of all
  CPUs aligned, no timer_slack deferral.
* schedfreq: ``update_fdomain_capacity_request()`` / ``cpufreq_sched_thread()`` of the
  EAS-tree ``cpufreq_sched.c``: margined CFS+RT request, max over the policy, RELATION_L,
  throttled (a request made while throttled is applied when the throttle expires). Its RT
  request is the 2016 kernel's RT average (``sched_rt_update_capacity_req()`` of the schedfreq
  series' ``kernel/sched/rt.c``: ``rq->rt_avg`` accrued by ``sched_rt_avg_update()`` at each
  ``update_curr_rt()``, halved once per ``sched_avg_period()`` = ``sched_time_avg_ms / 2`` by
  ``sched_avg_update()``; :func:`rt_avg_accrue`, :func:`sched_avg_update`,
  :func:`sched_rt_capacity_req`).

Each governor has per-step entry points over a small state (``cpu_st`` int64[m, *_CPU_SIZE]
per policy CPU, ``pol_st`` int64[*_POL_SIZE] per policy; columns below): ``*_init``, then
``ondemand_step`` per sample, ``interactive_account`` + ``interactive_step`` per timer,
``schedfreq_request`` per scheduler update and ``schedfreq_pending`` when the throttle
expires. The simulator's event loop calls these; the ``*_run`` functions replay a recorded
busy/idle timeline through the same steps (open loop): ``grid`` int64[K] (ns, ascending) and
``busy`` uint8[K, m] saying whether CPU j was busy in ``[grid[k], grid[k+1])``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

UINT_MAX = 4294967295

# ondemand state: per CPU cpu_st[j, :] and per policy pol_st[:]
OD_PREV_UPDATE = 0     # prev_update_time (us)
OD_PREV_IDLE = 1       # prev_cpu_idle (us)
OD_PREV_LOAD = 2       # prev_load (%)
OD_CPU_SIZE = 3
OD_CUR = 0             # policy->cur (kHz)
OD_RATE_MULT = 1
OD_LOAD = 2            # max load of the last sample
OD_DEFERRED = 3        # 1: a sample is due but its work item waits for the CPU (closed loop only)
OD_POL_SIZE = 4
# dbs_update()'s long-idle test (reuse prev_load once): on the time elapsed since the CPU's last
# sample (18b46abd0009, v3.17 dbs_check_cpu: wall_time; v4.6+ dbs_update: time_elapsed; ledger
# ondemand-v4.14) or on its idle time in that window (7592019634f8, v4.18; ledger ondemand-v4.18)
OD_LONG_IDLE_ELAPSED = 0
OD_LONG_IDLE_IDLE = 1

# interactive state
IA_TARGET = 0          # target_freq
IA_FLOOR = 1           # floor_freq
IA_FLOOR_T = 2         # floor_validate_time (us)
IA_HS_T = 3            # hispeed_validate_time (us)
IA_LAST_BUSY = 4       # busy ns at the last update_load
IA_SPEEDADJ = 5        # cputime_speedadj
IA_CPU_SIZE = 6
IA_CUR = 0             # policy->cur
IA_T_PREV = 1          # cputime_speedadj_timestamp (ns)
IA_POL_SIZE = 2

# schedfreq state
SF_TOTAL = 0           # the CPU's margined capacity request
SF_RT_AVG = 1          # rq->rt_avg: RT run time (ns) x arch_scale_freq_capacity, halved per period
SF_AGE_STAMP = 2       # rq->age_stamp (ns)
SF_RT_REQ = 3          # the RT capacity request last set (set_rt_cpu_capacity)
SF_RT_SEEN = 4         # 1: an RT task was runnable at the last update (closed loop only)
SF_CPU_SIZE = 5
SF_CUR = 0
SF_REQUESTED = 1       # requested_freq
SF_THROTTLE_END = 2    # throttle (ns)
SF_POL_SIZE = 3


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


@njit(cache=True, inline="always")
def _closest_index(freqs, ineff, skip_ineff, target):
    """``cpufreq_table_find_index_ac()`` on an ascending table: the index of the closest
    frequency, ties to the lower; entries flagged in ``ineff`` are passed over when
    ``skip_ineff``. -1 when no entry was considered."""
    best = -1
    for i in range(freqs.shape[0]):
        if skip_ineff and ineff[i]:
            continue
        f = freqs[i]
        if f == target:
            return i
        if f < target:
            best = i
            continue
        if best == -1:
            return i
        if target - freqs[best] > f - target:
            return i
        return best
    return best


@njit(cache=True)
def relation_c(freqs, target):
    """``cpufreq_table_find_index_ac()``: closest table frequency, ties to the lower."""
    return freqs[_closest_index(freqs, freqs, False, target)]


@njit(cache=True)
def relation_ce(freqs, ineff, target):
    """``cpufreq_table_find_index_ac()`` with efficiencies (RELATION_CE, v5.16+, ledger
    ondemand-v5.16): :func:`relation_c` over the OPPs not flagged in ``ineff``; when every OPP
    is flagged the kernel searches again without efficiencies."""
    i = _closest_index(freqs, ineff, True, target)
    if i == -1:
        i = _closest_index(freqs, ineff, False, target)
    return freqs[i]


@njit(cache=True)
def ondemand_init(now_ns, idle_us, fmin, cpu_st, pol_st):
    """Governor start (``od_start``): idle time stamps of each policy CPU, policy at ``fmin``.

    ``idle_us[j]``: cumulative idle time of policy CPU j in µs (``get_cpu_idle_time_us``);
    ``cpu_st`` int64[m, OD_CPU_SIZE] and ``pol_st`` int64[OD_POL_SIZE] are the governor state.
    """
    for j in range(cpu_st.shape[0]):
        cpu_st[j, OD_PREV_UPDATE] = now_ns // 1000
        cpu_st[j, OD_PREV_IDLE] = idle_us[j]
        cpu_st[j, OD_PREV_LOAD] = 0
    pol_st[OD_CUR] = fmin
    pol_st[OD_RATE_MULT] = 1
    pol_st[OD_LOAD] = 0
    if pol_st.shape[0] > OD_DEFERRED:
        pol_st[OD_DEFERRED] = 0


@njit(cache=True)
def ondemand_step(now_ns, idle_us, freqs, sampling_rate_us, up_threshold, sampling_down_factor, cpu_st, pol_st,
                  ineff=None, long_idle=OD_LONG_IDLE_IDLE):
    """One ondemand sample (``dbs_update`` + ``od_update``) at ``now_ns``; returns the new frequency.

    ``ineff`` (v5.16+): per-OPP inefficiency flags; the frequency is then resolved with
    RELATION_CE (closest efficient OPP). None: RELATION_C.

    ``long_idle``: what a CPU's "woke up from a long idle" test compares with twice the
    sampling rate (times ``rate_mult``) before its previous load is reused once (and then
    cleared): :data:`OD_LONG_IDLE_ELAPSED` the time since its last sample (v3.17 - v4.17: true
    after a late sample of a busy CPU too), :data:`OD_LONG_IDLE_IDLE` its idle time (v4.18+).

    ``pol_st[OD_CUR]`` is ``policy->cur`` on entry (the caller may set it to the frequency in
    effect) and the chosen frequency on return; the next sample is due
    ``sampling_rate_us * pol_st[OD_RATE_MULT]`` µs later; ``pol_st[OD_LOAD]`` is the max load.
    """
    fmin = freqs[0]
    fmax = freqs[freqs.shape[0] - 1]
    sampling_rate = sampling_rate_us * pol_st[OD_RATE_MULT]
    now_us = now_ns // 1000
    max_load = 0
    for j in range(cpu_st.shape[0]):
        elapsed = now_us - cpu_st[j, OD_PREV_UPDATE]
        cpu_st[j, OD_PREV_UPDATE] = now_us
        idle_time = idle_us[j] - cpu_st[j, OD_PREV_IDLE]
        cpu_st[j, OD_PREV_IDLE] = idle_us[j]
        if long_idle == OD_LONG_IDLE_ELAPSED:
            long_window = elapsed > 2 * sampling_rate
        else:
            long_window = idle_time > 2 * sampling_rate
        if elapsed == 0:
            load = cpu_st[j, OD_PREV_LOAD]
        elif long_window and cpu_st[j, OD_PREV_LOAD]:
            # waking up from a long idle period: reuse the last load once
            load = cpu_st[j, OD_PREV_LOAD]
            cpu_st[j, OD_PREV_LOAD] = 0
        else:
            if elapsed >= idle_time:
                load = 100 * (elapsed - idle_time) // elapsed
            else:
                load = 0
            cpu_st[j, OD_PREV_LOAD] = load
        if load > max_load:
            max_load = load
    if max_load > up_threshold:
        if pol_st[OD_CUR] < fmax:
            pol_st[OD_RATE_MULT] = sampling_down_factor
        pol_st[OD_CUR] = fmax
    else:
        pol_st[OD_RATE_MULT] = 1
        if ineff is None:
            pol_st[OD_CUR] = relation_c(freqs, fmin + max_load * (fmax - fmin) // 100)
        else:
            pol_st[OD_CUR] = relation_ce(freqs, ineff, fmin + max_load * (fmax - fmin) // 100)
    pol_st[OD_LOAD] = max_load
    return pol_st[OD_CUR]


@njit(cache=True)
def _idle_us(grid, busy, cum, t, out):
    """Cumulative idle µs of each CPU at ``t`` over a recorded timeline (0 before ``grid[0]``)."""
    for j in range(out.shape[0]):
        out[j] = (t - grid[0] - busy_at(grid, busy, cum, t, j)) // 1000 if t > grid[0] else 0


@njit(cache=True)
def ondemand_run(grid, busy, t_start, t_end, freqs, sampling_rate_us, up_threshold, sampling_down_factor,
                 out_t, out_f, out_load, ineff=None, long_idle=OD_LONG_IDLE_IDLE):
    """ondemand samples from ``t_start`` to ``t_end``; returns the number of samples written.

    The policy starts at the lowest frequency. ``out_f[i]`` is the frequency set at sample i.
    Each sample is one :func:`ondemand_step` (``ineff``, ``long_idle`` as there; on this
    free-running grid no window exceeds twice the sampling rate, so both long-idle tests agree).
    """
    m = busy.shape[1]
    cum = cumulative_busy(grid, busy)
    cpu_st = np.zeros((m, OD_CPU_SIZE), np.int64)
    pol_st = np.zeros(OD_POL_SIZE, np.int64)
    idle = np.zeros(m, np.int64)
    _idle_us(grid, busy, cum, t_start, idle)
    ondemand_init(t_start, idle, freqs[0], cpu_st, pol_st)
    t = t_start
    n = 0
    while n < out_t.shape[0]:
        t = t + sampling_rate_us * pol_st[OD_RATE_MULT] * 1000
        if t > t_end:
            break
        _idle_us(grid, busy, cum, t, idle)
        out_f[n] = ondemand_step(t, idle, freqs, sampling_rate_us, up_threshold, sampling_down_factor, cpu_st,
                                 pol_st, ineff, long_idle)
        out_t[n] = t
        out_load[n] = pol_st[OD_LOAD]
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
def interactive_init(now_ns, busy_ns, fmin, cpu_st, pol_st):
    """Governor start: every CPU's target and floor at ``fmin``, validation stamps at ``now_ns``.

    ``busy_ns[j]``: cumulative busy ns of policy CPU j; ``cpu_st`` int64[m, IA_CPU_SIZE],
    ``pol_st`` int64[IA_POL_SIZE].
    """
    for j in range(cpu_st.shape[0]):
        cpu_st[j, IA_TARGET] = fmin
        cpu_st[j, IA_FLOOR] = fmin
        cpu_st[j, IA_FLOOR_T] = now_ns // 1000
        cpu_st[j, IA_HS_T] = now_ns // 1000
        cpu_st[j, IA_LAST_BUSY] = busy_ns[j]
        cpu_st[j, IA_SPEEDADJ] = 0
    pol_st[IA_CUR] = fmin
    pol_st[IA_T_PREV] = now_ns


@njit(cache=True)
def interactive_account(busy_ns, cur, row):
    """``update_load()`` of one CPU: ``cputime_speedadj += active_time * policy->cur``.

    Called at each timer and, in a closed loop, before each frequency change (the
    governor's CPUFREQ_PRECHANGE notifier); ``row`` is the CPU's ``cpu_st`` row.
    """
    active = (busy_ns - row[IA_LAST_BUSY]) // 1000
    row[IA_LAST_BUSY] = busy_ns
    row[IA_SPEEDADJ] += active * cur


@njit(cache=True)
def interactive_step(now_ns, freqs, go_hispeed_load, hispeed_freq, target_load, min_sample_time_us,
                     above_hispeed_delay_us, cpu_st, pol_st):
    """One ``cpufreq_interactive_timer()`` evaluation of every policy CPU (timers aligned).

    The CPUs' ``cputime_speedadj`` must have been accounted up to ``now_ns``
    (:func:`interactive_account`); they are reset here, as the timer re-arm does.
    ``hispeed_freq`` is in kHz (resolve the 0 default to the policy maximum before).
    Returns the policy frequency (``RELATION_H`` of the highest CPU target), also stored in
    ``pol_st[IA_CUR]``.
    """
    now = now_ns // 1000
    delta_time = (now_ns - pol_st[IA_T_PREV]) // 1000
    cur = pol_st[IA_CUR]
    m = cpu_st.shape[0]
    for j in range(m):
        if delta_time <= 0:
            continue
        loadadjfreq = (cpu_st[j, IA_SPEEDADJ] // delta_time) * 100
        cpu_load = loadadjfreq // cpu_st[j, IA_TARGET]
        if cpu_load >= go_hispeed_load:
            if cpu_st[j, IA_TARGET] < hispeed_freq:
                new = hispeed_freq
            else:
                new = choose_freq(freqs, cur, loadadjfreq, target_load)
                if new < hispeed_freq:
                    new = hispeed_freq
        else:
            new = choose_freq(freqs, cur, loadadjfreq, target_load)
        if cpu_st[j, IA_TARGET] >= hispeed_freq and new > cpu_st[j, IA_TARGET] \
                and now - cpu_st[j, IA_HS_T] < above_hispeed_delay_us:
            continue
        cpu_st[j, IA_HS_T] = now
        new = relation_l(freqs, new)
        if new < cpu_st[j, IA_FLOOR] and now - cpu_st[j, IA_FLOOR_T] < min_sample_time_us:
            continue
        cpu_st[j, IA_FLOOR] = new
        cpu_st[j, IA_FLOOR_T] = now
        cpu_st[j, IA_TARGET] = new
    f = 0
    for j in range(m):
        cpu_st[j, IA_SPEEDADJ] = 0
        if cpu_st[j, IA_TARGET] > f:
            f = cpu_st[j, IA_TARGET]
    pol_st[IA_CUR] = relation_h(freqs, f)
    pol_st[IA_T_PREV] = now_ns
    return pol_st[IA_CUR]


@njit(cache=True)
def interactive_run(grid, busy, t_start, t_end, freqs, timer_rate_us, go_hispeed_load, hispeed_freq, target_load,
                    min_sample_time_us, above_hispeed_delay_us, out_t, out_f):
    """interactive timer evaluations (every ``timer_rate``); returns the number written.

    ``hispeed_freq`` 0 means the policy maximum (the governor's start-up default). Each
    evaluation is :func:`interactive_account` of every CPU then :func:`interactive_step`.
    """
    m = busy.shape[1]
    cum = cumulative_busy(grid, busy)
    if hispeed_freq == 0:
        hispeed_freq = freqs[freqs.shape[0] - 1]
    cpu_st = np.zeros((m, IA_CPU_SIZE), np.int64)
    pol_st = np.zeros(IA_POL_SIZE, np.int64)
    b = np.zeros(m, np.int64)
    for j in range(m):
        b[j] = busy_at(grid, busy, cum, t_start, j)
    interactive_init(t_start, b, freqs[0], cpu_st, pol_st)
    t = t_start
    n = 0
    while n < out_t.shape[0]:
        t = t + timer_rate_us * 1000
        if t > t_end:
            break
        for j in range(m):
            interactive_account(busy_at(grid, busy, cum, t, j), pol_st[IA_CUR], cpu_st[j])
        out_f[n] = interactive_step(t, freqs, go_hispeed_load, hispeed_freq, target_load, min_sample_time_us,
                                    above_hispeed_delay_us, cpu_st, pol_st)
        out_t[n] = t
        n += 1
    return n


@njit(cache=True)
def schedfreq_init(fmin, cpu_st, pol_st):
    """Governor start: no capacity requests, policy at ``fmin``, not throttled."""
    for j in range(cpu_st.shape[0]):
        cpu_st[j, SF_TOTAL] = 0
        cpu_st[j, SF_RT_AVG] = 0
        cpu_st[j, SF_AGE_STAMP] = 0
        cpu_st[j, SF_RT_REQ] = 0
        cpu_st[j, SF_RT_SEEN] = 0
    pol_st[SF_CUR] = fmin
    pol_st[SF_REQUESTED] = fmin
    pol_st[SF_THROTTLE_END] = -(np.int64(1) << 62)


@njit(cache=True, inline="always")
def rt_avg_accrue(delta_exec_ns, freq_capacity, row):
    """``sched_rt_avg_update(rq, delta_exec)`` (v4.1+, dfbca41f3479 "sched: Make scale_rt
    invariant with frequency"): ``rq->rt_avg += delta_exec * arch_scale_freq_capacity(cpu)``;
    called from ``update_curr_rt()``. ``row`` is the CPU's schedfreq state row."""
    row[SF_RT_AVG] += delta_exec_ns * freq_capacity


@njit(cache=True, inline="always")
def sched_avg_update(now_ns, period_ns, row):
    """``sched_avg_update(rq)`` (v4.4 ``kernel/sched/core.c``): while ``rq_clock - age_stamp``
    exceeds ``sched_avg_period()``, advance ``age_stamp`` by one period and halve ``rt_avg``.
    ``period_ns`` = ``sysctl_sched_time_avg`` (ms) x NSEC_PER_MSEC / 2."""
    while now_ns - row[SF_AGE_STAMP] > period_ns:
        row[SF_AGE_STAMP] += period_ns
        row[SF_RT_AVG] //= 2


@njit(cache=True)
def sched_rt_capacity_req(now_ns, period_ns, row):
    """``sched_rt_update_capacity_req(rq)`` of the 2016 schedfreq series (``kernel/sched/rt.c``,
    called from ``task_tick_rt()`` while an RT task is runnable and from
    ``pick_next_task_rt()`` when none is left): :func:`sched_avg_update`, then
    ``used = rt_avg / (sched_avg_period() + (rq_clock - age_stamp))`` (a negative delta
    counts 0), at most SCHED_CAPACITY_SCALE; stored as the CPU's RT request and returned
    (capacity units of the CPU at its maximum frequency, as ``scale_rt_capacity()`` reads
    the same average)."""
    sched_avg_update(now_ns, period_ns, row)
    delta = now_ns - row[SF_AGE_STAMP]
    if delta < 0:
        delta = 0
    used = row[SF_RT_AVG] // (period_ns + delta)
    if used > 1024:
        used = 1024
    row[SF_RT_REQ] = used
    return used


@njit(cache=True)
def schedfreq_pending(now_ns, throttle_ns, pol_st):
    """The frequency thread applying a request latched while throttled, once the throttle expired.

    Returns the time the change takes effect (the throttle's end, <= ``now_ns``) and sets
    ``pol_st[SF_CUR]`` to the latched request (re-arming the throttle), or -1 if nothing is
    pending or the policy is still throttled.
    """
    if pol_st[SF_REQUESTED] != pol_st[SF_CUR] and pol_st[SF_THROTTLE_END] <= now_ns:
        t = pol_st[SF_THROTTLE_END]
        pol_st[SF_CUR] = pol_st[SF_REQUESTED]
        pol_st[SF_THROTTLE_END] = t + throttle_ns
        return t
    return -1


@njit(cache=True)
def schedfreq_request(now_ns, j, cfs, rt, dl, freqs, capacity_margin, throttle_ns, cpu_st, pol_st):
    """``update_fdomain_capacity_request()`` after CPU j set its CFS / RT / DL requests.

    ``total = (cfs + rt) * capacity_margin / 1024 + dl``; the policy asks for
    ``max(total) * policy.max >> 10`` resolved with RELATION_L. Returns the frequency applied
    now, or -1 when the request is unchanged or latched by the throttle (call
    :func:`schedfreq_pending` once ``pol_st[SF_THROTTLE_END]`` has passed).
    """
    cpu_st[j, SF_TOTAL] = (cfs + rt) * capacity_margin // 1024 + dl
    cap = 0
    for k in range(cpu_st.shape[0]):
        if cpu_st[k, SF_TOTAL] > cap:
            cap = cpu_st[k, SF_TOTAL]
    f = relation_l(freqs, (cap * freqs[freqs.shape[0] - 1]) >> 10)
    if f == pol_st[SF_REQUESTED]:
        return -1
    pol_st[SF_REQUESTED] = f
    if pol_st[SF_THROTTLE_END] <= now_ns:
        pol_st[SF_CUR] = f
        pol_st[SF_THROTTLE_END] = now_ns + throttle_ns
        return f
    return -1


@njit(cache=True)
def schedfreq_run(times, cpu, cfs, rt, dl, m, freqs, capacity_margin, throttle_ns, out_t, out_f):
    """schedfreq over capacity-request events; returns the number of frequency changes written.

    Event i sets CPU ``cpu[i]``'s requests (``cfs``/``rt``/``dl`` capacity units); each is a
    :func:`schedfreq_pending` then a :func:`schedfreq_request`. Changes are throttled; a
    request latched by the throttle is written at the throttle's end.
    """
    cpu_st = np.zeros((m, SF_CPU_SIZE), np.int64)
    pol_st = np.zeros(SF_POL_SIZE, np.int64)
    schedfreq_init(freqs[0], cpu_st, pol_st)
    n = 0
    for i in range(times.shape[0]):
        t = times[i]
        if n >= out_t.shape[0]:
            break
        tp = schedfreq_pending(t, throttle_ns, pol_st)
        if tp >= 0:
            out_t[n] = tp
            out_f[n] = pol_st[SF_CUR]
            n += 1
        f = schedfreq_request(t, cpu[i], cfs[i], rt[i], dl[i], freqs, capacity_margin, throttle_ns, cpu_st, pol_st)
        if f >= 0 and n < out_t.shape[0]:
            out_t[n] = t
            out_f[n] = f
            n += 1
    if pol_st[SF_REQUESTED] != pol_st[SF_CUR] and n < out_t.shape[0]:
        out_t[n] = pol_st[SF_THROTTLE_END]
        out_f[n] = pol_st[SF_REQUESTED]
        n += 1
    return n
