"""Plain-Python twin of lisa_eas/_kernels/eas.py, written from kernel/sched/fair.c per era.

Energies come from ``PerfDomainEnergyModel.cpu_energy`` (the pure-Python em_cpu_energy of
lisa_eas.energy_model), so the numba EM lookup is checked against it too. Perf domains are
walked in the kernel's rd->pd order (build_perf_domains() prepends: highest first CPU first).
"""
from __future__ import annotations

ULONG_MAX = 2 ** 64 - 1


class Wakeup:
    def __init__(self, em, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of):
        self.em = em
        self.pds = sorted(em.domains, key=lambda d: min(d.cpus), reverse=True)
        self.util_avg, self.util_est = list(util_avg), list(util_est)
        self.task_util, self.task_ue, self.prev = task_util, task_ue, prev_cpu
        self.allowed, self.cap_of = list(allowed), list(cap_of)
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

    def pd_energy(self, pd, max_util, sum_util, cap=None):
        self.pd_evals += 1
        return pd.cpu_energy(max_util, sum_util, cap)

    # ---------------------------------------------------------------- v5.0
    def compute_energy_v50(self, dst):
        energy = 0
        for pd in self.pds:
            utils = [min(self.cpu_util_next(c, dst), pd.scale_cpu) for c in sorted(pd.cpus)]
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

    # ---------------------------------------------------------------- v5.4
    def compute_energy_v54(self, dst, pd):
        utils = [min(self.cpu_util_next(c, dst), pd.scale_cpu) for c in sorted(pd.cpus)]
        return self.pd_energy(pd, max(utils), sum(utils))

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
            u = min(self.cpu_util_next(c, dst), pd.scale_cpu)
            if headroom_here:                      # sugov_effective_cpu_perf (v6.8+)
                u = min(u + (u >> 2), pd.scale_cpu)
            max_util = max(max_util, u)
        max_util = min(max_util, cpu_cap)
        busy = pd_busy if dst < 0 else min(pd_cap, pd_busy + task_busy)
        return self.pd_energy(pd, max_util, busy, cpu_cap)

    def feec_v60(self):
        target = self.prev
        prev_delta = best_delta = ULONG_MAX
        prev_fits = best_fits = -1
        best_cpu = self.prev
        base_energy = 0
        task_busy = max(self.task_util, self.task_ue)
        headroom_here = self.em.era >= (6, 8)
        for pd in self.pds:
            cpus = sorted(pd.cpus)
            cpu_cap = pd.scale_cpu
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
            pd_busy = min(pd_cap, sum(min(self.cpu_util_next(c, -1), cpu_cap) for c in cpus))
            base = self.compute_energy_v60(pd, -1, pd_busy, task_busy, pd_cap, cpu_cap, headroom_here)
            base_energy += base
            if prev_spare > -1:
                e = self.compute_energy_v60(pd, self.prev, pd_busy, task_busy, pd_cap, cpu_cap, headroom_here)
                if e < base:
                    self.energies = (prev_delta, best_delta, base_energy)
                    return target
                prev_delta = e - base
                best_delta = min(best_delta, prev_delta)
            if msc >= 0 and max_spare > prev_spare:
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
    """Returns (cpu, (prev, best, base) energies with None for 'not computed', pd_evals, util_calls)."""
    w = Wakeup(em, util_avg, util_est, task_util, task_ue, prev_cpu, allowed, cap_of)
    if overutilized:
        return -1, (None, None, 0), 0, 0
    if task_util == 0 and task_ue == 0:
        return prev_cpu, (None, None, 0), 0, 0
    cpu = {"v5.0": w.feec_v50, "v5.4": w.feec_v54, "v6.0": w.feec_v60}[era]()
    energies = tuple(None if e == ULONG_MAX else e for e in w.energies)
    return cpu, energies, w.pd_evals, w.util_calls
