"""Plain-Python twin of lisa_eas/_kernels/pelt.py, written loop by loop from kernel/sched/pelt.c.

Python integers do not overflow, so ``mul_u64_u32_shr`` is just ``(val * mul) >> 32``: an
independent check of the kernel's overflow-free int64 split. The era flags are passed as a
dict of booleans so this file shares nothing with the numba module.
"""
from __future__ import annotations

from .ref_util_est import clear_flag, util_est_update


def decay_load(val, n, yn_inv):
    period = len(yn_inv)
    if n > period * 63:
        return 0
    if n >= period:
        val >>= n // period
        n %= period
    return (val * int(yn_inv[n])) >> 32


class SchedAvg:
    def __init__(self):
        self.last_update_time = 0
        self.load_sum = self.runnable_sum = self.util_sum = 0
        self.period_contrib = 0
        self.load_avg = self.runnable_avg = self.util_avg = 0


def accumulate_sum(sa, delta, load, runnable, running, scale_freq, scale_cpu, era, yn_inv):
    lam = era["load_avg_max"]
    contrib = delta
    delta += sa.period_contrib
    periods = delta // 1024
    if periods:
        sa.load_sum = decay_load(sa.load_sum, periods, yn_inv)
        sa.runnable_sum = decay_load(sa.runnable_sum, periods, yn_inv)
        sa.util_sum = decay_load(sa.util_sum, periods, yn_inv)
        delta %= 1024
        d1 = 1024 - sa.period_contrib
        d3 = delta
        c1 = decay_load(d1, periods, yn_inv)
        c2 = lam - decay_load(lam, periods, yn_inv) - 1024
        contrib = c1 + c2 + d3
    sa.period_contrib = delta
    if era["delta_scaling"]:
        contrib = contrib * scale_freq >> 10
        if load:
            sa.load_sum += load * contrib
        if runnable:
            sa.runnable_sum += runnable * contrib
        if running:
            sa.util_sum += contrib * scale_cpu
    else:
        if load:
            sa.load_sum += load * contrib
        if runnable:
            sa.runnable_sum += (runnable * contrib) << 10 if era["runnable_scaled"] else runnable * contrib
        if running:
            sa.util_sum += contrib << 10
    return periods


def update_load_sum(sa, now, load, runnable, running, scale_freq, scale_cpu, era, yn_inv):
    delta = now - sa.last_update_time
    if delta < 0:
        sa.last_update_time = now
        return 0
    delta >>= 10
    if not delta:
        return 0
    sa.last_update_time += delta << 10
    if era["zero_if_unloaded"] and not load:
        runnable = running = 0
    return accumulate_sum(sa, delta, load, runnable, running, scale_freq, scale_cpu, era, yn_inv)


def update_load_avg(sa, weight, era):
    if era["divider_mode"]:
        divider = era["load_avg_max"] - 1024 + sa.period_contrib
    else:
        divider = era["load_avg_max"]
    if era["weight_in_sum"]:
        sa.load_avg = sa.load_sum // divider
        sa.runnable_avg = sa.runnable_sum // divider
    else:
        sa.load_avg = weight * sa.load_sum // divider
        sa.runnable_avg = (sa.runnable_sum // divider if era["runnable_scaled"]
                           else weight * sa.runnable_sum // divider)
    sa.util_avg = sa.util_sum // divider


def pelt_timeline(ts, states, scale_cpu, scale_freq, weight, init, era, yn_inv):
    """Same contract as the numba ``pelt_timeline``; returns a list of 6-tuples."""
    lam = era["load_avg_max"]
    sa = SchedAvg()
    div0 = lam - 1024 if era["divider_mode"] else lam
    sa.util_avg, sa.load_avg, sa.runnable_avg = init[0], init[1], init[2]
    sa.util_sum = init[0] * div0
    if era["weight_in_sum"]:
        sa.load_sum = init[1] * div0
        sa.runnable_sum = init[2] * div0
    else:
        sa.load_sum = init[1] * div0 // weight
        sa.runnable_sum = init[2] * div0 if era["runnable_scaled"] else init[2] * div0 // weight
    ue_era = era["util_est"]
    ewma, enq = init[3], init[4]
    clock_task = clock_pelt = sa.last_update_time = ts[0]
    lost_idle_time = 0
    rows = [(sa.util_avg, sa.load_avg, sa.runnable_avg, ewma, enq, 0)]
    for k in range(1, len(ts)):
        prev, cur = states[k - 1], states[k]
        delta = ts[k] - ts[k - 1]
        clock_task += delta
        if era["delta_scaling"]:
            now = clock_task
        else:
            if prev in (0, 3):      # rq idle: _update_idle_rq_clock_pelt() syncs the PELT clock
                clock_pelt = clock_task
            else:              # update_rq_clock_pelt(): scale by CPU capacity then frequency
                d = delta * scale_cpu[k - 1] >> 10
                d = d * scale_freq[k - 1] >> 10
                clock_pelt += d
            now = clock_pelt - lost_idle_time
        if prev == 3:          # detached (migration): attach resets last_update_time, no decay
            sa.last_update_time = now
            rows.append((sa.util_avg, sa.load_avg, sa.runnable_avg, ewma, enq, 0))
            continue
        on_rq = 1 if prev in (1, 2) else 0
        running = 1 if prev == 2 else 0
        load = weight * on_rq if era["weight_in_sum"] else on_rq
        periods = update_load_sum(sa, now, load, load, running, scale_freq[k - 1], scale_cpu[k - 1], era, yn_inv)
        if periods:
            update_load_avg(sa, weight, era)
            if ue_era >= 0:
                ewma, enq = clear_flag(ewma, enq, ue_era)
        if prev in (1, 2) and cur in (0, 3):
            if ue_era >= 0 and cur == 0:
                ewma, enq = util_est_update(ewma, enq, sa.util_avg, sa.runnable_avg, scale_cpu[k - 1], ue_era)
            if not era["delta_scaling"]:
                limit = ((lam - 1024) << 10) - lam
                if sa.util_sum >= limit:
                    lost_idle_time += clock_task - clock_pelt
        rows.append((sa.util_avg, sa.load_avg, sa.runnable_avg, ewma, enq, 1 if periods else 0))
    return rows
