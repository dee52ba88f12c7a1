"""Plain-Python twin of lisa_eas/_kernels/schedutil.py, written from
kernel/sched/cpufreq_schedutil.c (v5.x/v6.x) and the RFC v3 ramp-boost patches."""
from __future__ import annotations

TICK_NSEC = 4_000_000
IOWAIT_BOOST_MIN = 1024 // 8


def effective_cpu_util(cfs, rt, dl, bw_dl, irq, scale, frequency, rt_runnable):
    if frequency and rt_runnable:
        return scale
    if irq >= scale:
        return scale
    util = cfs + rt
    if util + dl >= scale:
        return scale
    if not frequency:
        util += dl
    util = util * (scale - irq) // scale + irq
    if frequency:
        util += bw_dl
    return min(scale, util)


def resolve(freqs, target, fmin, fmax):
    target = min(max(target, fmin), fmax)
    for f in freqs:
        if f >= target:
            return f
    return freqs[-1]


def inefficient_flags(costs):
    """v5.16 kernel/power/energy_model.c em_compute_costs(): from the top state down, a state
    whose cost is >= the cost of the last efficient state above it is INEFFICIENT; cpufreq
    flags the same frequencies (em_cpufreq_update_efficiencies)."""
    flags = [False] * len(costs)
    prev = None
    for i in range(len(costs) - 1, -1, -1):
        if prev is not None and costs[i] >= prev:
            flags[i] = True
        else:
            prev = costs[i]
    return flags


def resolve_le(freqs, ineff, target, fmin, fmax, limits):
    """v5.16 cpufreq_driver_resolve_freq(.., RELATION_LE): clamp, then the first efficient
    frequency >= target (else the last efficient one); v6.9: a result outside the limits
    is redone without efficiencies."""
    target = min(max(target, fmin), fmax)
    eff = [f for f, bad in zip(freqs, ineff) if not bad]
    pick = next((f for f in eff if f >= target), eff[-1] if eff else None)
    if pick is None or (limits and not fmin <= pick <= fmax):
        pick = resolve(freqs, target, fmin, fmax)
    return pick


def higher_freq(freqs, costs, min_freq, margin):
    max_cost = 0
    for f, c in zip(freqs, costs):
        if f >= min_freq:
            max_cost = c + c * margin // 1024
            break
    for f, c in reversed(list(zip(freqs, costs))):
        if c <= max_cost:
            return f
    return min_freq


def map_freq(util, max_cap, fref, era):
    if era == 0:
        return (fref + (fref >> 2)) * util // max_cap
    util += util >> 2
    if era == 2:
        util = min(util, max_cap)
    return fref * util // max_cap


class Cpu:
    def __init__(self):
        self.last_update = 0
        self.boost = 0
        self.pending = False
        self.went_idle = False
        self.rb_ue = self.rb_ua = self.ramp_boost = 0

    def iowait_reset(self, time, set_boost, tick):
        if time - self.last_update <= tick:
            return False
        self.boost = IOWAIT_BOOST_MIN if set_boost else 0
        self.pending = set_boost
        return True

    def iowait_boost(self, time, io, tick):
        if self.boost and self.iowait_reset(time, io, tick):
            return
        if not io or self.pending:
            return
        self.pending = True
        self.boost = min(self.boost << 1, 1024) if self.boost else IOWAIT_BOOST_MIN

    def iowait_apply(self, time, util, max_cap, tick):
        if not self.boost:
            return util
        if self.iowait_reset(time, False, tick):
            return util
        if not self.pending:
            self.boost >>= 1
            if self.boost < IOWAIT_BOOST_MIN:
                self.boost = 0
                return util
        self.pending = False
        return max(util, self.boost * max_cap >> 10)

    def ramp_update(self, ue, ua):
        b = ua - ue if (ue == self.rb_ue and ua >= self.rb_ua and ua > ue) else 0
        self.rb_ue, self.rb_ua, self.ramp_boost = ue, ua, b
        return b


class Policy:
    def __init__(self, m, max_cap, freqs, fmin, fmax, era, rate_ns, tick, use_io, use_rb, costs):
        self.cpus = [Cpu() for _ in range(m)]
        self.max_cap, self.freqs, self.fmin, self.fmax, self.era = max_cap, list(freqs), fmin, fmax, era
        self.rate_ns, self.tick, self.use_io, self.use_rb, self.costs = rate_ns, tick, use_io, use_rb, list(costs)
        self.last_freq_update = -(1 << 62)
        self.next_freq = 0
        self.cached_raw = 0
        # ``era``: a kernel version (major, minor), or the legacy formula code 0/1/2 (v5.0, v5.14,
        # v6.8 formulas with the v5.0-v5.10 hold and RELATION_L)
        if isinstance(era, tuple):
            self.era = 0 if era < (5, 14) else (1 if era < (6, 8) else 2)
            self.restore_cached = era >= (5, 11)          # 0070ea296239
            self.ineff = inefficient_flags(self.costs) if era >= (5, 16) and any(self.costs) else None
            self.limits = era >= (6, 9)
        else:
            self.restore_cached, self.ineff, self.limits = False, None, False

    def get_next_freq(self, util, boost):
        f = map_freq(util, self.max_cap, self.freqs[-1], self.era)
        if boost is not None:
            f = higher_freq(self.freqs, self.costs, f, boost)
        if f == self.cached_raw:
            return self.next_freq
        self.cached_raw = f
        if self.ineff is not None:
            return resolve_le(self.freqs, self.ineff, f, self.fmin, self.fmax, self.limits)
        return resolve(self.freqs, f, self.fmin, self.fmax)

    def update(self, cpu, time, io, went_idle, ua, ue, rt=None):
        """``ua``/``ue``: the CPUs' cfs_rq util_avg and util_est; ``rt`` (optional): their RT
        utilization, which effective_cpu_util() adds after cpu_util_cfs() = max(ua, ue) (the ramp
        boost reads ua/ue alone)."""
        rt = rt or [0] * len(ua)
        c = self.cpus[cpu]
        if went_idle:
            c.went_idle = True
        if self.use_io:
            c.iowait_boost(time, io, self.tick)
        c.last_update = time
        if time - self.last_freq_update < self.rate_ns:
            return self.next_freq
        boost = None
        if len(self.cpus) == 1:
            busy = not c.went_idle
            c.went_idle = False
            util = min(min(max(ua[0], ue[0]), self.max_cap) + rt[0], self.max_cap)
            if self.use_rb:
                boost = c.ramp_update(ue[0], ua[0])
            if self.use_io:
                util = c.iowait_apply(time, util, self.max_cap, self.tick)
            cached = self.cached_raw
            nf = self.get_next_freq(util, boost)
            if busy and nf < self.next_freq:
                nf = self.next_freq
                self.cached_raw = cached if self.restore_cached else 0
        else:
            util = 0
            for j, cj in enumerate(self.cpus):
                u = min(min(max(ua[j], ue[j]), self.max_cap) + rt[j], self.max_cap)
                if self.use_io:
                    u = cj.iowait_apply(time, u, self.max_cap, self.tick)
                util = max(util, u)
                if self.use_rb:
                    b = cj.ramp_update(ue[j], ua[j]) if j == cpu else cj.ramp_boost
                    boost = b if boost is None else max(boost, b)
            nf = self.get_next_freq(util, boost)
        if nf == self.next_freq:
            return nf
        self.next_freq = nf
        self.last_freq_update = time
        return nf


def run(times, cpu, iowait, went_idle, ua, ue, max_cap, freqs, fmin, fmax, era, rate_ns, tick, use_io, use_rb, costs):
    p = Policy(len(ua[0]), max_cap, freqs, fmin, fmax, era, rate_ns, tick, use_io, use_rb, costs)
    return [p.update(cpu[i], times[i], iowait[i], went_idle[i], ua[i], ue[i]) for i in range(len(times))]


def uclamp_util_with(util, lo, hi):
    if lo >= hi:
        return lo
    return min(max(util, lo), hi)


def effective_cpu_util_uclamp(cfs, rt, dl, bw_dl, irq, scale, frequency, rt_runnable, used, lo, hi):
    """schedutil_cpu_util() of v5.3 - v6.7 with uclamp."""
    if not used and frequency and rt_runnable:
        return scale
    if irq >= scale:
        return scale
    util = cfs + rt
    if frequency and used:
        util = uclamp_util_with(util, lo, hi)
    if util + dl >= scale:
        return scale
    if not frequency:
        util += dl
    util = util * (scale - irq) // scale + irq
    if frequency:
        util += bw_dl
    return min(scale, util)


def effective_cpu_perf_v68(cfs, rt, dl, bw_dl, irq, scale, rt_runnable, used, lo, hi):
    """effective_cpu_util(cpu, util, &min, &max) then sugov_effective_cpu_perf() (v6.8+)."""
    if irq >= scale:
        return scale
    floor = max(irq + bw_dl, lo if used else 0)
    if not used and rt_runnable:
        floor = scale
    util = cfs + rt + dl
    ceil = min(scale, hi) if used else scale          # *max is set before the saturation test
    if util >= scale:
        eff = scale
    else:
        eff = min(scale, util * (scale - irq) // scale + irq)
    actual = eff + (eff >> 2)
    return max(floor, min(ceil, actual))
