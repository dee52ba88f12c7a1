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


def v411_tables(yn_inv, load_avg_max):
    """v4.11's runnable_avg_yN_sum (sum_{i=1..n} 1024 y^i, n <= P), __accumulated_sum_N32 (one
    entry per half-life) and LOAD_AVG_MAX_N, regenerated: each step adds 1024 then decays by
    y with the kernel's integer multiply; a half-life halves. For P = 32 the kernel's header
    reads 1002, 1982, 2941, ..., 23371 / 23371, 35056, ..., 46719 / 345."""
    period = len(yn_inv)
    y1 = int(yn_inv[1])
    sums = [0]
    for _ in range(period):
        sums.append(((sums[-1] + 1024) * y1) >> 32)
    # LOAD_AVG_MAX_N: the periods after which the series has converged to LOAD_AVG_MAX
    mx, n = 0, 0
    while mx != load_avg_max:
        mx = ((mx * y1) >> 32) + 1024
        n += 1
    max_n = n - 2          # the generator reports 345 for P = 32: two below this count
    acc = [0]
    while len(acc) < max_n // period + 2:
        acc.append(acc[-1] // 2 + sums[period])
    return sums, acc, max_n


def update_v411(sa, now, load, running, scale_freq, scale_cpu, era, yn_inv):
    """v4.11 kernel/sched/fair.c __update_load_avg(): complete the open period, decay the sums
    over periods + 1, add the table sum of the whole periods, then the remainder, each part
    cap_scale()d on its own; last_update_time = now; divide by LOAD_AVG_MAX."""
    lam = era["load_avg_max"]
    sums, acc, max_n = v411_tables(yn_inv, lam)
    period = len(yn_inv)
    delta = now - sa.last_update_time
    if delta < 0:
        sa.last_update_time = now
        return 0
    delta >>= 10
    if not delta:
        return 0
    sa.last_update_time = now
    decayed = 0
    if delta + sa.period_contrib >= 1024:
        decayed = 1
        dw = 1024 - sa.period_contrib
        sa.period_contrib = 0
        s = dw * scale_freq >> 10
        sa.load_sum += load * s
        sa.runnable_sum += load * s
        if running:
            sa.util_sum += s * scale_cpu
        delta -= dw
        periods, delta = delta // 1024, delta % 1024
        sa.load_sum = decay_load(sa.load_sum, periods + 1, yn_inv)
        sa.runnable_sum = decay_load(sa.runnable_sum, periods + 1, yn_inv)
        sa.util_sum = decay_load(sa.util_sum, periods + 1, yn_inv)
        if periods <= period:
            c = sums[periods]
        elif periods >= max_n:
            c = lam
        else:
            c = decay_load(acc[periods // period], periods % period, yn_inv) + sums[periods % period]
        c = c * scale_freq >> 10
        sa.load_sum += load * c
        sa.runnable_sum += load * c
        if running:
            sa.util_sum += c * scale_cpu
    s = delta * scale_freq >> 10
    sa.load_sum += load * s
    sa.runnable_sum += load * s
    if running:
        sa.util_sum += s * scale_cpu
    sa.period_contrib += delta
    if decayed:
        sa.load_avg = sa.load_sum // lam
        sa.runnable_avg = sa.runnable_sum // lam
        sa.util_avg = sa.util_sum // lam
    return decayed


def era_flags(version, load_avg_max=47742, util_est=True):
    """This twin's PELT rules for kernel ``version`` ((major, minor)), from the kernel history:
    v4.11 old __update_load_avg; v4.12 accumulate_sum (a481db34b9be) still dividing by
    LOAD_AVG_MAX; v4.13 divider LOAD_AVG_MAX - 1024 + period_contrib (625ed2bf049d); v4.15
    0/1 load with the weight in the average, running/runnable zeroed when not loaded; v5.1
    invariance on the rq's PELT clock (23127296889f); v5.7 runnable_avg << 10 (9f68395333ad);
    v6.12 util_est_update() called by dequeue_entities() before the entity's own update
    (``ue_first``)."""
    from .ref_util_est import era_code

    return {"old_update": version < (4, 12), "divider_mode": int(version >= (4, 13)),
            "delta_scaling": version < (5, 1), "weight_in_sum": version < (4, 15),
            "zero_if_unloaded": version >= (4, 15), "runnable_scaled": version >= (5, 7),
            "load_avg_max": load_avg_max, "util_est": era_code(version) if util_est else -1,
            "ue_first": version >= (6, 12)}


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


def pelt_timeline(ts, states, scale_cpu, scale_freq, weight, init, era, yn_inv, blocked=None):
    """Same contract as the numba ``pelt_timeline``; returns a list of 6-tuples. ``blocked[k]``:
    the update at ``ts[k]`` is sync_entity_load_avg's __update_load_avg_blocked_se, which does
    not call cfs_se_util_change."""
    blocked = blocked or [False] * len(ts)
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
        dequeue = prev in (1, 2) and cur == 0 and ue_era >= 0
        if dequeue and era.get("ue_first"):
            ewma, enq = util_est_update(ewma, enq, sa.util_avg, sa.runnable_avg, scale_cpu[k - 1], ue_era)
        if era.get("old_update"):
            periods = update_v411(sa, now, load, running, scale_freq[k - 1], scale_cpu[k - 1], era, yn_inv)
        else:
            periods = update_load_sum(sa, now, load, load, running, scale_freq[k - 1], scale_cpu[k - 1], era,
                                      yn_inv)
        if periods:
            if not era.get("old_update"):
                update_load_avg(sa, weight, era)
            if ue_era >= 0 and not blocked[k]:
                ewma, enq = clear_flag(ewma, enq, ue_era)
        if prev in (1, 2) and cur in (0, 3):
            if dequeue and not era.get("ue_first"):
                ewma, enq = util_est_update(ewma, enq, sa.util_avg, sa.runnable_avg, scale_cpu[k - 1], ue_era)
            if not era["delta_scaling"]:
                limit = ((lam - 1024) << 10) - lam
                if sa.util_sum >= limit:
                    lost_idle_time += clock_task - clock_pelt
        rows.append((sa.util_avg, sa.load_avg, sa.runnable_avg, ewma, enq, 1 if periods else 0))
    return rows
