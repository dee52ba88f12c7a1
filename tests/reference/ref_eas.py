"""Plain-Python twin of lisa_eas/_kernels/eas.py, written from kernel/sched/fair.c per era.

With a kernel version (a (major, minor) tuple) the twin keeps its own era handling and its own
Energy Model (:class:`TwinEM`, built from the platform's OPP/power data as
kernel/power/energy_model.c of that version builds it). With an era label ("v5.0", "v5.4",
"v6.0") and an EM object (the reference engine passes its own :class:`TwinEM`) it runs the
older contract the simulator twin uses.
Perf domains are walked in the kernel's rd->pd order (build_perf_domains() prepends: highest
first CPU first). Python integers do not wrap, so unsigned long deltas are reduced mod 2^64.
"""
from __future__ import annotations

import math

ULONG_MAX = 2 ** 64 - 1
MASK64 = ULONG_MAX


class TwinPD:
    """One perf domain's EM table as kernel ``version`` builds it, and em_cpu_energy()."""

    def __init__(self, pd, version):
        self.version = version
        self.cpus = tuple(pd.cpus)
        self.scale_cpu = pd.cpu_capacity_max
        self.freqs = [int(f) for f in pd.freqs_khz]
        fmax = self.freqs[-1]
        raw = [float(o.power_mw) for o in pd.opps]
        if version >= (6, 0) and pd.power_source == "kernel_em":
            power = [int(round(p * 1000)) for p in raw]       # ae6ccaa65038: uW
        elif version >= (5, 15):
            power = [math.floor(p) * 1000 for p in raw]       # em_scale_power(): mW x1000
        else:
            power = [math.floor(p) for p in raw]              # integer mW
        self.perf = [self.scale_cpu * f // fmax for f in self.freqs]
        n = len(self.freqs)
        self.cost = [0] * n
        self.ineff = [False] * n
        prev = None
        for i in range(n - 1, -1, -1):
            if version >= (6, 9):
                c = 10 * power[i] // self.perf[i]
            else:
                c = fmax * power[i] // self.freqs[i]
            self.cost[i] = c
            if version >= (5, 16) and prev is not None and c >= prev:
                self.ineff[i] = True
            else:
                prev = c

    def cpu_energy(self, max_util, sum_util, cap=None):
        if sum_util == 0:
            return 0
        v = self.version
        cap = self.scale_cpu if cap is None else cap
        fmax = self.freqs[-1]
        if v >= (6, 9):
            keys, target = self.perf, min(max_util, cap)
        elif v >= (6, 8):
            keys, target = self.freqs, fmax * min(max_util, cap) // self.scale_cpu
        elif v >= (5, 14):
            keys, target = self.freqs, fmax * min(max_util + (max_util >> 2), cap) // self.scale_cpu
        else:
            keys, target = self.freqs, (fmax + (fmax >> 2)) * max_util // self.scale_cpu
        idx = len(keys) - 1
        for i, k in enumerate(keys):
            if k >= target and not (v >= (5, 16) and self.ineff[i]):
                idx = i
                break
        if v >= (6, 9):
            return self.cost[idx] * sum_util
        return self.cost[idx] * sum_util // self.scale_cpu


class TwinEM:
    def __init__(self, platform, version):
        self.version = version
        self.era = version
        self.domains = [TwinPD(pd, version) for pd in platform.perf_domains]


class Wakeup:
    def __init__(self, em, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of):
        self.em = em
        self.pds = sorted(em.domains, key=lambda d: min(d.cpus), reverse=True)
        self.util_avg, self.util_est = [int(x) for x in util_avg], [int(x) for x in util_est]
        self.task_util, self.task_ue, self.prev = int(task_util), int(task_ue), int(prev_cpu)
        self.allowed, self.cap_of = [bool(x) for x in allowed], [int(x) for x in cap_of]
        self.cap_orig = {c: d.scale_cpu for d in em.domains for c in d.cpus}
        self.pd_evals = 0
        self.util_calls = 0

    def cpu_util_next(self, cpu, dst):
        self.util_calls += 1
        util = self.util_avg[cpu]
        if self.prev == cpu and dst != cpu:
            util = max(util - self.task_util, 0)
        elif self.prev != cpu and dst == cpu:
            util += self.task_util
        est = self.util_est[cpu] + (self.task_ue if dst == cpu else 0)
        return min(max(util, est), self.cap_orig[cpu])

    # ------------------------------------------------ optional inputs (self.x: dict of per-CPU lists)
    x = None

    def xv(self, key, cpu):
        return self.x[key][cpu] if self.x and key in self.x else 0

    def energy_util(self, cpu, u, scale):
        """effective_cpu_util(cpu, u, ENERGY_UTIL, NULL): cfs + rt + dl, irq-scaled, max at scale."""
        irq = self.xv("irq", cpu)
        if irq >= scale:
            return scale
        util = u + self.xv("rt", cpu)
        if util + self.xv("dl", cpu) >= scale:
            return scale
        util += self.xv("dl", cpu)
        return min(scale, irq + util * (scale - irq) // scale)

    def freq_util(self, cpu, u, scale):
        """effective_cpu_util(cpu, u, FREQUENCY_UTIL, p), uclamp built in, no clamps."""
        irq = self.xv("irq", cpu)
        if irq >= scale:
            return scale
        util = u + self.xv("rt", cpu)
        if util + self.xv("dl", cpu) >= scale:
            return scale
        return min(scale, irq + util * (scale - irq) // scale + self.xv("bw_dl", cpu))

    def perf_util_v68(self, cpu, u, scale):
        """v6.8 sugov_effective_cpu_perf(effective_cpu_util(cpu, u, &min, &max))."""
        irq = self.xv("irq", cpu)
        if irq >= scale:
            return scale
        util = u + self.xv("rt", cpu) + self.xv("dl", cpu)
        util = scale if util >= scale else irq + util * (scale - irq) // scale
        return max(irq + self.xv("bw_dl", cpu), min(scale, util + (util >> 2)))

    def thermal_cap(self, pd):
        return pd.scale_cpu - self.xv("thermal", min(pd.cpus))

    def cpu_util_boost(self, cpu, dst):
        """v6.5 cpu_util(cpu, p, dst, 1): util_avg raised to runnable_avg first."""
        self.util_calls += 1
        util = max(self.util_avg[cpu], self.xv("runnable", cpu))
        if self.prev == cpu and dst != cpu:
            util = max(util - self.task_util, 0)
        elif self.prev != cpu and dst == cpu:
            util += self.task_util
        est = self.util_est[cpu] + (self.task_ue if dst == cpu else 0)
        return min(max(util, est), self.cap_orig[cpu])

    def pd_energy(self, pd, max_util, sum_util, cap=None):
        self.pd_evals += 1
        return pd.cpu_energy(max_util, sum_util, cap)

    # ---------------------------------------------------------------- v5.0
    def compute_energy_v50(self, dst):
        energy = 0
        for pd in self.pds:
            utils = [self.energy_util(c, self.cpu_util_next(c, dst), pd.scale_cpu) for c in sorted(pd.cpus)]
            energy += self.pd_energy(pd, max(utils), sum(utils))
        return energy

    def feec_v50(self):
        prev_energy = best_energy = ULONG_MAX
        best_cpu = self.prev
        for pd in self.pds:
            max_spare, msc = 0, -1
            for cpu in sorted(pd.cpus):
                if not self.allowed[cpu]:
                    continue
                util = self.cpu_util_next(cpu, cpu)
                cap = self.cap_of[cpu]
                if cap * 1024 < util * 1280:
                    continue
                if cpu == self.prev:
                    prev_energy = self.compute_energy_v50(cpu)
                    best_energy = min(best_energy, prev_energy)
                    continue
                if cap - util > max_spare:
                    max_spare, msc = cap - util, cpu
            if msc >= 0:
                e = self.compute_energy_v50(msc)
                if e < best_energy:
                    best_energy, best_cpu = e, msc
        self.energies = (prev_energy, best_energy, 0)
        if prev_energy == ULONG_MAX:
            return best_cpu
        if prev_energy - best_energy > prev_energy >> 4:
            return best_cpu
        return self.prev

    # ---------------------------------------------------------------- RFC v2 (Apr 2018)
    def feec_rfc2(self):
        """The EAS RFC v2 posting (6 Apr 2018, on 4.16-rc6), from its cover letter and the ledger
        row eas-v4.16: prev is costed whenever allowed, without the fit test the merged v5.0 added;
        then, per frequency domain, the fitting CPU other than prev with the most spare capacity;
        energies over the whole system; prev is left only for a saving above prev_energy / 64."""
        prev_energy = ULONG_MAX
        if self.allowed[self.prev]:
            prev_energy = self.compute_energy_v50(self.prev)
        best_energy, best_cpu = prev_energy, self.prev
        for pd in self.pds:
            spare_best, candidate = 0, None
            for cpu in sorted(pd.cpus):
                if cpu == self.prev or not self.allowed[cpu]:
                    continue
                util = self.cpu_util_next(cpu, cpu)
                if util * 1280 > self.cap_of[cpu] * 1024:      # does not fit with the 20 % margin
                    continue
                if self.cap_of[cpu] - util > spare_best:
                    spare_best, candidate = self.cap_of[cpu] - util, cpu
            if candidate is not None:
                e = self.compute_energy_v50(candidate)
                if e < best_energy:
                    best_energy, best_cpu = e, candidate
        self.energies = (prev_energy, best_energy, 0)
        if prev_energy == ULONG_MAX:
            return best_cpu
        return best_cpu if prev_energy - best_energy > prev_energy // 64 else self.prev

    # ---------------------------------------------------------------- v5.4
    def compute_energy_v54(self, dst, pd):
        raw = [(c, self.cpu_util_next(c, dst)) for c in sorted(pd.cpus)]
        busy = sum(self.energy_util(c, u, pd.scale_cpu) for c, u in raw)
        return self.pd_energy(pd, max(self.freq_util(c, u, pd.scale_cpu) for c, u in raw), busy)

    def feec_v54_unsigned(self):
        """v5.4 fair.c: unsigned long deltas; ``max_spare_cap_cpu != prev_cpu`` (4892f51ad54d)."""
        prev_delta = best_delta = ULONG_MAX
        base_energy = 0
        best_cpu = self.prev
        for pd in self.pds:
            base = self.compute_energy_v54(-1, pd)
            base_energy += base
            max_spare, msc = 0, -1
            for cpu in sorted(pd.cpus):
                if not self.allowed[cpu]:
                    continue
                util = self.cpu_util_next(cpu, cpu)
                cap = self.cap_of[cpu]
                if not util * 1280 < cap * 1024:
                    continue
                if cpu == self.prev:
                    prev_delta = (self.compute_energy_v54(cpu, pd) - base) & MASK64
                    best_delta = min(best_delta, prev_delta)
                if cap - util > max_spare:
                    max_spare, msc = cap - util, cpu
            if msc >= 0 and msc != self.prev:
                cur = (self.compute_energy_v54(msc, pd) - base) & MASK64
                if cur < best_delta:
                    best_delta, best_cpu = cur, msc
        self.energies = (prev_delta, best_delta, base_energy)
        if prev_delta == ULONG_MAX:
            return best_cpu
        if (prev_delta - best_delta) & MASK64 > ((prev_delta + base_energy) & MASK64) >> 4:
            return best_cpu
        return self.prev

    def compute_energy_v514(self, dst, pd):
        """v5.14 fair.c compute_energy() (0372e1cf70c2): busy time of the destination is
        cpu_util_next(cpu, p, -1) + task_util_est(p); its frequency util cpu_util_next(cpu, p, dst)."""
        max_util = sum_util = 0
        for c in sorted(pd.cpus):
            u_freq = self.cpu_util_next(c, dst)
            u_run = u_freq
            if c == dst:
                u_run = self.cpu_util_next(c, -1) + max(self.task_util, self.task_ue)
            sum_util += self.energy_util(c, u_run, pd.scale_cpu)
            max_util = max(max_util, self.freq_util(c, u_freq, pd.scale_cpu))
        return self.pd_energy(pd, max_util, sum_util, self.thermal_cap(pd))

    def feec_v514(self):
        """v5.14 fair.c find_energy_efficient_cpu() (8d4c97c105ca, 619e090c8e40)."""
        prev_delta = best_delta = ULONG_MAX
        base_energy = 0
        best_cpu = self.prev
        for pd in self.pds:
            max_spare, msc, compute_prev = 0, -1, False
            for cpu in sorted(pd.cpus):
                if not self.allowed[cpu]:
                    continue
                util = self.cpu_util_next(cpu, cpu)
                cap = self.cap_of[cpu]
                spare = max(cap - util, 0)
                if not util * 1280 < cap * 1024:
                    continue
                if cpu == self.prev:
                    compute_prev = True
                elif spare > max_spare:
                    max_spare, msc = spare, cpu
            if msc < 0 and not compute_prev:
                continue
            base = self.compute_energy_v514(-1, pd)
            base_energy += base
            if compute_prev:
                e = self.compute_energy_v514(self.prev, pd)
                if e < base:
                    self.energies = (prev_delta, best_delta, base_energy)
                    return self.prev
                prev_delta = e - base
                best_delta = min(best_delta, prev_delta)
            if msc >= 0:
                e = self.compute_energy_v514(msc, pd)
                if e < base:
                    self.energies = (prev_delta, best_delta, base_energy)
                    return self.prev
                if e - base < best_delta:
                    best_delta, best_cpu = e - base, msc
        self.energies = (prev_delta, best_delta, base_energy)
        if prev_delta == ULONG_MAX or prev_delta - best_delta > (prev_delta + base_energy) >> 4:
            return best_cpu
        return self.prev

    def feec_v54(self):
        prev_delta = best_delta = ULONG_MAX
        base_energy = 0
        best_cpu = self.prev
        for pd in self.pds:
            base = self.compute_energy_v54(-1, pd)
            base_energy += base
            max_spare, msc = 0, -1
            for cpu in sorted(pd.cpus):
                if not self.allowed[cpu]:
                    continue
                util = self.cpu_util_next(cpu, cpu)
                cap = self.cap_of[cpu]
                if not util * 1280 < cap * 1024:
                    continue
                if cpu == self.prev:
                    prev_delta = self.compute_energy_v54(cpu, pd) - base
                    best_delta = min(best_delta, prev_delta)
                if cap - util > max_spare:
                    max_spare, msc = cap - util, cpu
            if msc >= 0:
                cur = self.compute_energy_v54(msc, pd) - base
                if cur < best_delta:
                    best_delta, best_cpu = cur, msc
        self.energies = (prev_delta, best_delta, base_energy)
        if prev_delta == ULONG_MAX:
            return best_cpu
        if prev_delta - best_delta > (prev_delta + base_energy) >> 4:
            return best_cpu
        return self.prev

    # ---------------------------------------------------------------- v6.x
    def compute_energy_v60(self, pd, dst, pd_busy, task_busy, pd_cap, cpu_cap, headroom_here):
        max_util = 0
        for c in sorted(pd.cpus):
            u = self.cpu_util_boost(c, dst) if self.x else self.cpu_util_next(c, dst)
            if headroom_here:                      # sugov_effective_cpu_perf (v6.8+)
                u = self.perf_util_v68(c, u, pd.scale_cpu)
            else:
                u = self.freq_util(c, u, pd.scale_cpu)
            max_util = max(max_util, u)
        max_util = min(max_util, cpu_cap)
        busy = pd_busy if dst < 0 else min(pd_cap, pd_busy + task_busy)
        return self.pd_energy(pd, max_util, busy, cpu_cap)

    def feec_v60(self, spare_filter=True):
        """6.x fair.c; ``spare_filter``: v6.2's ``max_spare_cap > prev_spare_cap`` (v6.0/v6.1 lack it)."""
        target = self.prev
        prev_delta = best_delta = ULONG_MAX
        prev_fits = best_fits = -1
        best_cpu = self.prev
        base_energy = 0
        task_busy = max(self.task_util, self.task_ue)
        pmax, irq = self.cap_orig[self.prev], self.xv("irq", self.prev)
        task_busy = pmax if irq >= pmax else task_busy * (pmax - irq) // pmax     # scale_irq_capacity
        headroom_here = tuple(self.em.era) >= (6, 8)
        for pd in self.pds:
            cpus = sorted(pd.cpus)
            cpu_cap = self.thermal_cap(pd)                   # cpu_thermal_cap
            pd_cap = cpu_cap * len(cpus)
            prev_spare = max_spare = -1
            msc = -1
            max_fits = -1
            for cpu in cpus:
                if not self.allowed[cpu]:
                    continue
                util = self.cpu_util_next(cpu, cpu)
                cap = self.cap_of[cpu]
                fits = 1 if util * 1280 < cap * 1024 else 0
                if not fits:
                    continue
                spare = max(cap - util, 0)
                if cpu == self.prev:
                    prev_spare, prev_fits = spare, fits
                elif fits > max_fits or (fits == max_fits and spare > max_spare):
                    max_spare, msc, max_fits = spare, cpu, fits
            if msc < 0 and prev_spare < 0:
                continue
            pd_busy = min(pd_cap, sum(self.energy_util(c, self.cpu_util_next(c, -1), pd.scale_cpu) for c in cpus))
            base = self.compute_energy_v60(pd, -1, pd_busy, task_busy, pd_cap, cpu_cap, headroom_here)
            base_energy += base
            if prev_spare > -1:
                e = self.compute_energy_v60(pd, self.prev, pd_busy, task_busy, pd_cap, cpu_cap, headroom_here)
                if e < base:
                    self.energies = (prev_delta, best_delta, base_energy)
                    return target
                prev_delta = e - base
                best_delta = min(best_delta, prev_delta)
            if msc >= 0 and (max_spare > prev_spare or not spare_filter):
                if max_fits < best_fits:
                    continue
                e = self.compute_energy_v60(pd, msc, pd_busy, task_busy, pd_cap, cpu_cap, headroom_here)
                if e < base:
                    self.energies = (prev_delta, best_delta, base_energy)
                    return target
                cur = e - base
                if max_fits > 0 and best_fits > 0 and cur >= best_delta:
                    continue
                best_delta, best_cpu, best_fits = cur, msc, max_fits
        self.energies = (prev_delta, best_delta, base_energy)
        if best_fits > prev_fits or (best_fits > 0 and best_delta < prev_delta):
            target = best_cpu
        return target


def feec(era, em, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of, overutilized=False):
    """Returns (cpu, (prev, best, base) energies with None for 'not computed', pd_evals, util_calls).

    ``era``: a kernel version tuple (then ``em`` is a Platform and the twin builds its own EM)
    or a legacy label "v5.0" / "v5.4" / "v6.0" with an EM object (``TwinEM``: ``domains`` with
    ``cpus``, ``scale_cpu``, ``cpu_energy``).
    """
    if isinstance(era, tuple):
        return feec_version(era, em, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of,
                            overutilized)
    w = Wakeup(em, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of)
    if overutilized:
        return -1, (None, None, 0), 0, 0
    if task_util == 0 and task_ue == 0:
        return prev_cpu, (None, None, 0), 0, 0
    cpu = {"v5.0": w.feec_v50, "v5.4": w.feec_v54, "v6.0": w.feec_v60}[era]()
    energies = tuple(None if e == ULONG_MAX else e for e in w.energies)
    return cpu, energies, w.pd_evals, w.util_calls


def feec_version(version, platform, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of,
                 overutilized=False, inputs=None):
    """find_energy_efficient_cpu() of kernel ``version`` with this twin's own EM and era rules.

    ``inputs``: optional per-CPU lists "rt", "dl", "bw_dl", "irq", "thermal", "runnable"; thermal
    pressure only exists for the EM from v5.14, runnable boosting from v6.5."""
    if version < (5, 13):
        task_ue |= 1        # _task_util_est() | UTIL_AVG_UNCHANGED (v5.0 - v5.12 fair.c)
    em = TwinEM(platform, version)
    w = Wakeup(em, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of)
    if inputs:
        x = {k: [int(v) for v in vals] for k, vals in inputs.items()}
        if version < (5, 14):
            x.pop("thermal", None)
        if version < (6, 5):
            x.pop("runnable", None)
        w.x = x
    if overutilized:
        return -1, (None, None, 0), 0, 0
    if max(task_util, task_ue) == 0:      # task_util_est(p) == 0
        return prev_cpu, (None, None, 0), 0, 0
    if version < (5, 0):
        cpu = w.feec_rfc2()          # v4.16 - v4.20: the RFC v2 posting's rule (ledger eas-v4.16)
    elif version < (5, 4):
        cpu = w.feec_v50()
    elif version < (5, 14):
        cpu = w.feec_v54_unsigned()
    elif version < (6, 0):
        cpu = w.feec_v514()
    else:
        cpu = w.feec_v60(spare_filter=version >= (6, 2))

    def shown(e):
        if e is None or e == ULONG_MAX:
            return None
        return e - 2 ** 64 if e >= 2 ** 63 else e       # a wrapped delta, as signed
    energies = tuple(shown(e) for e in w.energies)
    return cpu, energies, w.pd_evals, w.util_calls
