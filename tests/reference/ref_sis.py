"""Plain-Python twin of lisa_eas/_kernels/sis.py, from select_idle_sibling(), select_idle_cpu(),
select_idle_core(), select_idle_smt() and update_idle_cpu_scan() in kernel/sched/fair.c.
CPU masks are Python sets; for_each_cpu_wrap is written out."""
from __future__ import annotations

INT_MAX = 2 ** 31 - 1


def nr_idle_scan(sum_util, llc_weight, pct):
    x = sum_util // llc_weight
    tmp = x * x * pct * pct // (10000 * 1024)
    tmp = min(tmp, 1024)
    return (1024 - tmp) * llc_weight // 1024


def prop_nr(avg_idle, avg_scan_cost, span_weight, era):
    if era == 0:
        avg_idle //= 512
    avg_cost = avg_scan_cost + 1
    span_avg = span_weight * avg_idle
    return span_avg // avg_cost if span_avg > 4 * avg_cost else 4


def wrap(mask, start, n_cpus):
    """for_each_cpu_wrap(cpu, mask, start) over a mask that may shrink while iterating."""
    order = [c for c in range(start, n_cpus)] + [c for c in range(0, min(start, n_cpus))]
    for c in order:
        if c in mask:
            yield c


class Sis:
    def __init__(self, idle, allowed, llc_id, core_id, smt):
        self.idle, self.allowed = list(idle), list(allowed)
        self.llc, self.core, self.smt = list(llc_id), list(core_id), smt
        self.n = len(idle)
        self.scanned = 0
        self.ran_out = False     # select_idle_cpu()'s ``return -1`` on the depth, before its time accounting

    def siblings(self, cpu):
        return [c for c in range(self.n) if self.core[c] == self.core[cpu] and self.llc[c] == self.llc[cpu]]

    def llc_span(self, cpu):
        return {c for c in range(self.n) if self.llc[c] == self.llc[cpu]}

    # ---- v4.x .. v5.11
    def v4(self, target, prev, recent, has_idle_core, nr, util_mode):
        if self.idle[target]:
            return target, 0
        if prev != target and self.llc[prev] == self.llc[target] and self.idle[prev]:
            return prev, 1
        if (recent >= 0 and recent != prev and recent != target and self.llc[recent] == self.llc[target]
                and self.idle[recent] and self.allowed[recent]):
            return recent, 2
        if self.smt and has_idle_core:          # select_idle_core(): whole LLC
            cpus = {c for c in self.llc_span(target) if self.allowed[c]}
            for core in wrap(cpus, target, self.n):
                idle = True
                for c in self.siblings(core):
                    cpus.discard(c)
                    self.scanned += 1
                    if not self.idle[c]:
                        idle = False
                if idle:
                    return core, 3
        # v5.6+ (60588bfa223f) walks LLC & p->cpus_ptr; v5.4 fair.c walks the whole LLC span and
        # tests the affinity after ``if (!--nr)``, so disallowed CPUs use up depth
        cpus = {c for c in self.llc_span(target) if self.allowed[c] or not self.masked}
        nr = nr + 1 if util_mode else nr
        for cpu in wrap(cpus, target, self.n):
            nr -= 1
            if nr == 0:
                self.ran_out = True
                break
            if not self.allowed[cpu]:
                continue
            self.scanned += 1
            if self.idle[cpu]:
                return cpu, 4
        if self.smt:                              # select_idle_smt(target)
            for c in self.siblings(target):
                if c != target and self.allowed[c]:
                    self.scanned += 1
                    if self.idle[c]:
                        return c, 5
        return target, 6

    # ---- v5.12+
    def v512(self, target, prev, recent, has_idle_core, nr, util_mode):
        if self.idle[target]:
            return target, 0
        if prev != target and self.llc[prev] == self.llc[target] and self.idle[prev]:
            return prev, 1
        if (recent >= 0 and recent != prev and recent != target and self.llc[recent] == self.llc[target]
                and self.idle[recent] and self.allowed[recent]):
            return recent, 2
        # select_idle_smt(p, sd, prev): c722f35b513f, v5.13 (v5.12 has no select_idle_smt at all)
        if self.prev_smt and self.smt and not has_idle_core and self.llc[prev] == self.llc[target]:
            for c in self.siblings(prev):
                if c != prev and self.allowed[c]:
                    self.scanned += 1
                    if self.idle[c]:
                        return c, 5
        use_core = self.smt and has_idle_core
        if util_mode:
            nr = nr + 1
            if nr == 1:
                return target, 6
        elif use_core:
            nr = INT_MAX
        cpus = {c for c in self.llc_span(target) if self.allowed[c]}
        idle_cpu = -1
        # v5.12-v5.14 fair.c: for_each_cpu_wrap(cpu, cpus, target); v5.15 (56498cfb045d): target + 1
        for cpu in wrap(cpus, target + 1 if self.from_next else target, self.n):
            if use_core:
                idle = True
                for c in self.siblings(cpu):
                    self.scanned += 1
                    if not self.idle[c]:
                        idle = False
                        if idle_cpu == -1:
                            continue
                        break
                    if idle_cpu == -1 and c in cpus:
                        idle_cpu = c
                if idle:
                    return cpu, 3
                for c in self.siblings(cpu):
                    cpus.discard(c)
            else:
                nr -= 1
                if nr <= 0:
                    self.ran_out = True
                    break
                self.scanned += 1
                if self.idle[cpu]:
                    idle_cpu = cpu
                    break
        if idle_cpu >= 0:
            return idle_cpu, 4
        return target, 6


def select_idle_sibling(mode, util_mode, idle, allowed, target, prev, recent, has_idle_core, nr, llc_id, core_id,
                        smt):
    """``mode``: a kernel version (major, minor), or 0 (the v5.6-v5.11 loop) / 1 (the v5.15+ loop)."""
    cpu, path, s = search(mode, util_mode, idle, allowed, target, prev, recent, has_idle_core, nr, llc_id, core_id,
                          smt)
    return cpu, path, s.scanned


def search(mode, util_mode, idle, allowed, target, prev, recent, has_idle_core, nr, llc_id, core_id, smt):
    """As :func:`select_idle_sibling`, returning the searcher (``scanned``, ``ran_out``) third."""
    s = Sis(idle, allowed, llc_id, core_id, smt)
    if isinstance(mode, tuple):
        version = mode
    else:
        version = (5, 6) if mode == 0 else (5, 15)
    s.masked = version >= (5, 6)
    s.from_next = version >= (5, 15)
    s.prev_smt = version >= (5, 13)
    fn = s.v4 if version < (5, 12) else s.v512
    cpu, path = fn(target, prev, recent, has_idle_core, nr, util_mode)
    return cpu, path, s


def update_avg(avg, sample, signed_div):
    """kernel update_avg(): the difference over 8, as C's s64 division (truncation toward zero)
    when ``signed_div``, else as an arithmetic right shift by 3 (rounding toward -inf)."""
    diff = sample - avg
    if not signed_div:
        return avg + (diff >> 3)
    q = abs(diff) // 8
    return avg + (q if diff >= 0 else -q)


def age_wake_avg_idle(value, stamp, jiffies):
    """v5.14 select_idle_cpu(): one halving per jiffy elapsed; stops once the value is 0."""
    while value and stamp < jiffies:
        value //= 2
        stamp += 1
    return value, stamp


# ---- asymmetric CPU capacity (v5.7+): select_idle_capacity() and the select_idle_sibling() checks
# Forms (this twin's own codes, written from kernel/sched/fair.c of v5.10 (the b4c9c9f15649 patch),
# a 6.2.1 tree and a 6.3 tree): 0 v5.7 - v5.9 (scan only), 1 v5.10 - v6.1 (target / prev / recent
# checks first), 2 v6.2 (util_fits_cpu, 0/1), 3 v6.3+ (-1 tier, scan from target + 1).
def fits_capacity(util, cap):
    return util * 1280 < cap * 1024


def util_fits_cpu_twin(util, umin, umax, cap, cap_orig, thermal, v63):
    """util_fits_cpu() with uclamp in use: 1 / 0, and in v6.3 -1 for 'fits but not the boost'."""
    plain = fits_capacity(util, cap)
    forced = umax <= cap_orig and not (cap_orig == 1024 and umax == 1024)
    ok = plain or forced
    boost = min(umin, umax)
    if v63:
        if ok and util < boost and boost > cap_orig - thermal:
            return -1
        return 1 if ok else 0
    if util < boost and cap_orig != 1024:
        ok = ok and boost <= cap_orig - thermal
    return 1 if ok else 0


def inverted_capacity(c, cap_orig, thermal_avg, pd=None):
    """v6.2 update_cpu_capacity()'s rq->cpu_capacity_inverted: walk the other perf domains (pd per
    CPU; default: equal capacity_orig = one domain), read one CPU of each (the first), 0 when none
    inverts CPU c."""
    pd = list(cap_orig) if pd is None else list(pd)
    mine = cap_orig[c] - thermal_avg[c]
    seen = set()
    for d, other in enumerate(cap_orig):
        if pd[d] == pd[c] or pd[d] in seen:
            continue
        seen.add(pd[d])
        if other > cap_orig[c]:
            continue
        if other == cap_orig[c] and other - thermal_avg[d] > mine:
            return mine
        if other < cap_orig[c] and other > mine:
            return mine
    return 0


def task_fit(mode, util, umin, umax, c, cap, cap_orig, thermal, thermal_avg=None):
    """Does the task fit CPU c (cap: its capacity_of; cap_orig / thermal / thermal_avg per CPU)."""
    if mode >= 3:
        return util_fits_cpu_twin(util, umin, umax, cap, cap_orig[c], thermal[c], True)
    if mode == 2:
        inv = inverted_capacity(c, cap_orig, thermal if thermal_avg is None else thermal_avg)
        if inv:                                    # the inverted capacity for both terms
            return util_fits_cpu_twin(util, umin, umax, cap, inv, 0, False)
        return util_fits_cpu_twin(util, umin, umax, cap, cap_orig[c], thermal[c], False)
    clamped = min(max(util, umin), umax)          # uclamp_task_util(p): clamp(), max first
    return 1 if fits_capacity(clamped, cap) else 0


def select_idle_capacity(idle, allowed, capacity, task_util, target, mode=1, uclamp=(0, 1024), cap_orig=None,
                         thermal=None, thermal_avg=None):
    """-> (cpu or -1, path or None, CPUs examined); span = every CPU & p->cpus_ptr."""
    n = len(idle)
    cap_orig = list(capacity) if cap_orig is None else list(cap_orig)
    thermal = [0] * n if thermal is None else list(thermal)
    thermal_avg = thermal if thermal_avg is None else list(thermal_avg)
    cpus = {c for c in range(n) if allowed[c]}
    best = None                                    # (rank key, cpu): fits level first (-1 < 0), then capacity
    examined = 0
    for c in wrap(cpus, (target + 1) % n if mode >= 3 else target, n):
        examined += 1
        if not idle[c]:
            continue
        f = task_fit(mode, task_util, uclamp[0], uclamp[1], c, capacity[c], cap_orig, thermal, thermal_avg)
        if f > 0:
            return c, 7, examined
        ccap = cap_orig[c] - thermal_avg[c] if f < 0 else capacity[c]
        if best is None:
            if f < 0 or ccap > 0:
                best = (f, ccap, c)
        elif f < best[0] or (f == best[0] and ccap > best[1]):
            best = (f, ccap, c)
    if best is None:
        return -1, None, examined
    return best[2], 8, examined


def select_idle_sibling_asym(mode, idle, allowed, capacity, task_util, target, prev, recent, llc_id,
                             uclamp=(0, 1024), cap_orig=None, thermal=None, thermal_avg=None):
    """-> (cpu, path, examined); mode 0: v5.7-v5.9, 1: v5.10-v6.1, 2: v6.2, 3: v6.3+."""
    n = len(idle)
    co = list(capacity) if cap_orig is None else list(cap_orig)
    th = [0] * n if thermal is None else list(thermal)
    fits = [task_fit(mode, task_util, uclamp[0], uclamp[1], c, capacity[c], co, th, thermal_avg) == 1
            for c in range(n)]
    if mode >= 1:
        if idle[target] and fits[target]:
            return target, 0, 0
        if prev != target and llc_id[prev] == llc_id[target] and idle[prev] and fits[prev]:
            return prev, 1, 0
        if (recent >= 0 and recent not in (prev, target) and llc_id[recent] == llc_id[target]
                and idle[recent] and allowed[recent] and fits[recent]):
            return recent, 2, 0
    cpu, path, examined = select_idle_capacity(idle, allowed, capacity, task_util, target, mode, uclamp, cap_orig,
                                               thermal, thermal_avg)
    if cpu < 0:
        return target, 6, examined
    return cpu, path, examined
