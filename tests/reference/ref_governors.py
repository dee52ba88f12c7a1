"""Plain-Python twin of lisa_eas/_kernels/governors.py: ondemand (dbs_update/od_update),
interactive (cpufreq_interactive_timer/choose_freq) and schedfreq (cpufreq_sched.c)."""
from __future__ import annotations

import bisect

UINT_MAX = 2 ** 32 - 1


def busy_ns(grid, busy, t, j):
    """Busy ns of CPU j in [grid[0], t)."""
    total = 0
    for k in range(len(grid)):
        start = grid[k]
        if start >= t:
            break
        end = grid[k + 1] if k + 1 < len(grid) else t
        end = min(end, t)
        if busy[k][j]:
            total += end - start
    return total


def rel_l(freqs, target):
    for f in freqs:
        if f >= target:
            return f
    return freqs[-1]


def rel_h(freqs, target):
    for f in reversed(freqs):
        if f <= target:
            return f
    return freqs[0]


def rel_c(freqs, target):
    i = bisect.bisect_left(freqs, target)
    if i < len(freqs) and freqs[i] == target:
        return target
    if i == 0:
        return freqs[0]
    if i == len(freqs):
        return freqs[-1]
    lo, hi = freqs[i - 1], freqs[i]
    return hi if target - lo > hi - target else lo


def ondemand(grid, busy, t_start, t_end, freqs, sampling_rate_us, up_threshold, sdf, version=(5, 15), costs=None):
    """``version`` >= (5, 16): od_update() resolves with CPUFREQ_RELATION_CE, the closest of the
    OPPs the EM left efficient (em_compute_costs(): cost below every higher efficient cost).
    ``version`` < (4, 18): dbs_update's long-idle test is on the time elapsed since the last
    sample, not the idle time (7592019634f8)."""
    if version >= (5, 16) and costs:
        keep, last = [], None
        for f, c in sorted(zip(freqs, costs), reverse=True):
            if last is None or c < last:
                keep.append(f)
                last = c
        pick = sorted(keep)
    else:
        pick = freqs
    m = len(busy[0])
    cur, rate_mult = freqs[0], 1
    prev_update = [t_start // 1000] * m
    prev_idle = [(t_start - grid[0] - busy_ns(grid, busy, t_start, j)) // 1000 if t_start > grid[0] else 0
                 for j in range(m)]
    prev_load = [0] * m
    out = []
    t = t_start
    while True:
        t += sampling_rate_us * rate_mult * 1000
        if t > t_end:
            return out
        sampling_rate = sampling_rate_us * rate_mult
        max_load = 0
        for j in range(m):
            idle_total = (t - grid[0] - busy_ns(grid, busy, t, j)) // 1000
            elapsed = t // 1000 - prev_update[j]
            prev_update[j] = t // 1000
            idle = idle_total - prev_idle[j]
            prev_idle[j] = idle_total
            if elapsed == 0:
                load = prev_load[j]
            elif (elapsed if version < (4, 18) else idle) > 2 * sampling_rate and prev_load[j]:
                load = prev_load[j]
                prev_load[j] = 0
            else:
                load = 100 * (elapsed - idle) // elapsed if elapsed >= idle else 0
                prev_load[j] = load
            max_load = max(max_load, load)
        if max_load > up_threshold:
            if cur < freqs[-1]:
                rate_mult = sdf
            cur = freqs[-1]
        else:
            rate_mult = 1
            cur = rel_c(pick, freqs[0] + max_load * (freqs[-1] - freqs[0]) // 100)
        out.append((t, cur, max_load))


def choose_freq(freqs, cur, loadadjfreq, tl):
    freq, freqmin, freqmax = cur, 0, UINT_MAX
    while True:
        prevfreq = freq
        freq = rel_l(freqs, loadadjfreq // tl)
        if freq > prevfreq:
            freqmin = prevfreq
            if freq >= freqmax:
                freq = rel_h(freqs, freqmax - 1)
                if freq == freqmin:
                    return freqmax
        elif freq < prevfreq:
            freqmax = prevfreq
            if freq <= freqmin:
                freq = rel_l(freqs, freqmin + 1)
                if freq == freqmax:
                    return freq
        if freq == prevfreq:
            return freq


def interactive(grid, busy, t_start, t_end, freqs, timer_rate_us, go_hispeed, hispeed, tl, min_sample_us,
                above_delay_us):
    m = len(busy[0])
    hispeed = hispeed or freqs[-1]
    cur = freqs[0]
    target = [freqs[0]] * m
    floor = [freqs[0]] * m
    floor_t = [t_start // 1000] * m
    hs_t = [t_start // 1000] * m
    last_busy = [busy_ns(grid, busy, t_start, j) for j in range(m)]
    out = []
    t_prev = t = t_start
    while True:
        t += timer_rate_us * 1000
        if t > t_end:
            return out
        now = t // 1000
        delta = (t - t_prev) // 1000
        speedadj = []
        for j in range(m):
            b = busy_ns(grid, busy, t, j)
            speedadj.append((b - last_busy[j]) // 1000 * cur)
            last_busy[j] = b
        for j in range(m):
            loadadjfreq = speedadj[j] // delta * 100
            if loadadjfreq // target[j] >= go_hispeed:
                new = hispeed if target[j] < hispeed else max(hispeed, choose_freq(freqs, cur, loadadjfreq, tl))
            else:
                new = choose_freq(freqs, cur, loadadjfreq, tl)
            if target[j] >= hispeed and new > target[j] and now - hs_t[j] < above_delay_us:
                continue
            hs_t[j] = now
            new = rel_l(freqs, new)
            if new < floor[j] and now - floor_t[j] < min_sample_us:
                continue
            floor[j], floor_t[j] = new, now
            target[j] = new
        cur = rel_h(freqs, max(target))
        t_prev = t
        out.append((t, cur))


def schedfreq(times, cpu, cfs, rt, dl, m, freqs, margin, throttle_ns):
    total = [0] * m
    cur = requested = freqs[0]
    throttle_end = -(1 << 62)
    out = []
    for i, t in enumerate(times):
        if requested != cur and throttle_end <= t:
            out.append((throttle_end, requested))
            cur = requested
            throttle_end += throttle_ns
        total[cpu[i]] = (cfs[i] + rt[i]) * margin // 1024 + dl[i]
        f = rel_l(freqs, max(total) * freqs[-1] >> 10)
        if f == requested:
            continue
        requested = f
        if throttle_end <= t:
            out.append((t, f))
            cur = f
            throttle_end = t + throttle_ns
    if requested != cur:
        out.append((throttle_end, requested))
    return out


# ------------------------------------------------------------------ per-step twins
# State as in the kernels: cpu_st rows are lists, pol_st a list (same column order).

def ondemand_init(now_ns, idle_us, fmin, cpu_st, pol_st):
    for j, row in enumerate(cpu_st):
        row[:3] = [now_ns // 1000, idle_us[j], 0]
    pol_st[:3] = [fmin, 1, 0]


def ondemand_step(now_ns, idle_us, freqs, sampling_rate_us, up_threshold, sdf, cpu_st, pol_st, ineff=None,
                  version=(5, 15)):
    """``ineff`` (v5.16+): per-OPP flags of the EM's inefficient OPPs; od_update() then resolves
    with CPUFREQ_RELATION_CE, the closest of the other OPPs. ``version``: the kernel whose
    long-idle test is used: before v4.18 (dbs_check_cpu's wall_time, then dbs_update's
    time_elapsed) the window since the last sample, from v4.18 (7592019634f8) the idle time in
    it, each against 2 x sampling_rate x rate_mult."""
    pick = freqs if not ineff else [f for f, bad in zip(freqs, ineff) if not bad] or freqs
    cur, rate_mult = pol_st[0], pol_st[1]
    sampling_rate = sampling_rate_us * rate_mult
    now = now_ns // 1000
    loads = []
    for j, row in enumerate(cpu_st):
        prev_update, prev_idle, prev_load = row[0], row[1], row[2]
        elapsed, idle = now - prev_update, idle_us[j] - prev_idle
        row[0], row[1] = now, idle_us[j]
        if elapsed == 0:
            load = prev_load
        elif (idle if version >= (4, 18) else elapsed) > 2 * sampling_rate and prev_load:
            load, row[2] = prev_load, 0
        else:
            load = 100 * (elapsed - idle) // elapsed if elapsed >= idle else 0
            row[2] = load
        loads.append(load)
    max_load = max([0] + loads)
    if max_load > up_threshold:
        pol_st[1] = sdf if cur < freqs[-1] else rate_mult
        pol_st[0] = freqs[-1]
    else:
        pol_st[1] = 1
        pol_st[0] = rel_c(pick, freqs[0] + max_load * (freqs[-1] - freqs[0]) // 100)
    pol_st[2] = max_load
    return pol_st[0]


def interactive_init(now_ns, busy_ns, fmin, cpu_st, pol_st):
    for j, row in enumerate(cpu_st):
        row[:6] = [fmin, fmin, now_ns // 1000, now_ns // 1000, busy_ns[j], 0]
    pol_st[:2] = [fmin, now_ns]


def interactive_account(busy_ns, cur, row):
    row[5] += (busy_ns - row[4]) // 1000 * cur
    row[4] = busy_ns


def interactive_step(now_ns, freqs, go_hispeed, hispeed, tl, min_sample_us, above_delay_us, cpu_st, pol_st):
    now = now_ns // 1000
    delta = (now_ns - pol_st[1]) // 1000
    cur = pol_st[0]
    for row in cpu_st:
        if delta <= 0:
            continue
        target = row[0]
        loadadjfreq = row[5] // delta * 100
        if loadadjfreq // target >= go_hispeed:
            new = hispeed if target < hispeed else max(hispeed, choose_freq(freqs, cur, loadadjfreq, tl))
        else:
            new = choose_freq(freqs, cur, loadadjfreq, tl)
        if target >= hispeed and new > target and now - row[3] < above_delay_us:
            continue
        row[3] = now
        new = rel_l(freqs, new)
        if new < row[1] and now - row[2] < min_sample_us:
            continue
        row[0], row[1], row[2] = new, new, now
    for row in cpu_st:
        row[5] = 0
    pol_st[0] = rel_h(freqs, max(row[0] for row in cpu_st))
    pol_st[1] = now_ns
    return pol_st[0]


def schedfreq_init(fmin, cpu_st, pol_st):
    for row in cpu_st:
        row[0] = 0
    pol_st[:3] = [fmin, fmin, -(1 << 62)]


def schedfreq_pending(now_ns, throttle_ns, pol_st):
    cur, requested, throttle_end = pol_st
    if requested != cur and throttle_end <= now_ns:
        pol_st[0], pol_st[2] = requested, throttle_end + throttle_ns
        return throttle_end
    return -1


def schedfreq_request(now_ns, j, cfs, rt, dl, freqs, margin, throttle_ns, cpu_st, pol_st):
    cpu_st[j][0] = (cfs + rt) * margin // 1024 + dl
    f = rel_l(freqs, max(row[0] for row in cpu_st) * freqs[-1] >> 10)
    if f == pol_st[1]:
        return -1
    pol_st[1] = f
    if pol_st[2] <= now_ns:
        pol_st[0], pol_st[2] = f, now_ns + throttle_ns
        return f
    return -1
