"""Plain-Python twin of lisa_eas/_kernels/llc_wakeups.py (one LLC, every wake-up through
select_idle_sibling), written step by step with Python lists and the twin of the SIS kernel
(ref_sis). Same integer arithmetic, same event order; returns (stats, hist, end time)."""
from __future__ import annotations

from reference import ref_sis

N_STATS, N_HIST = 17, 24
BIG = 2 ** 63 - 1


def update_avg(avg, sample):
    diff = sample - avg
    return avg + (diff // 8 if diff >= 0 else -((-diff) // 8))   # C: s64 division truncates


def bucket(us):
    return min(us.bit_length(), N_HIST - 1)


class Llc:
    def __init__(self, util_mode, n_cpus, run_ns, tail_ns, wake_ptr, wake_idx, init_cpu, init_runnable, jitter,
                 params):
        (self.sim, self.warm, self.rq_ns, self.base_ns, self.lb, self.decay, self.jiffy, mibc,
         self.pct) = (int(x) for x in params)
        self.util_mode, self.n = util_mode, n_cpus
        self.run, self.tail = [int(x) for x in run_ns], [int(x) for x in tail_ns]
        self.wakes = [[int(w) for w in wake_idx[wake_ptr[t]:wake_ptr[t + 1]]] for t in range(len(run_ns))]
        self.jitter = [int(x) for x in jitter]
        self.k = 0
        self.cap = 2 * mibc
        n = n_cpus
        self.curr, self.phase, self.end = [-1] * n, [0] * n, [BIG] * n
        self.queue = [[] for _ in range(n)]
        self.idle_stamp, self.avg_idle = [0] * n, [self.cap] * n
        self.wake_avg_idle, self.wake_stamp = [self.cap // 2] * n, [0] * n
        self.busy_start, self.busy_acc, self.busy_since, self.util = [0] * n, [0] * n, [0] * n, [0] * n
        nt = len(run_ns)
        self.sleeping, self.woken = [True] * nt, [False] * nt
        self.prev, self.recent = [int(c) for c in init_cpu], [-1] * nt
        self.stats, self.hist = [0] * N_STATS, [0] * N_HIST
        for t in range(nt):
            if init_runnable[t]:
                c = self.prev[t]
                self.sleeping[t] = False
                if self.curr[c] < 0:
                    self.start(c, t, 0)
                else:
                    self.queue[c].append(t)

    def start(self, c, t, now):
        self.curr[c], self.phase[c] = t, 0
        self.end[c] = now + self.run[t] * (512 + self.jitter[self.k % len(self.jitter)]) // 1024
        self.k += 1

    def is_idle(self, c):
        return 1 if self.curr[c] < 0 else 0

    def lb_tick(self, at):
        total = 0
        for i in range(self.n):
            if self.curr[i] >= 0:
                self.busy_acc[i] += at - self.busy_start[i]
                self.busy_start[i] = at
            sample = self.busy_acc[i] * 1024 // self.lb
            if self.util_ready:
                self.util[i] = (self.util[i] * self.decay + sample * (2 ** 32 - self.decay)) >> 32
            else:
                self.util[i] = sample
            self.busy_acc[i] = 0
            total += self.util[i]
        self.util_ready = True
        self.nr_idle_scan = ref_sis.nr_idle_scan(total, self.n, self.pct)
        if at > self.warm:
            self.stats[9] += total
            self.stats[10] += 1

    def wake(self, c, w, now, counting):
        st = self.stats
        if not self.sleeping[w]:
            self.woken[w] = True
            if counting:
                st[16] += 1
            return
        p = self.prev[w]
        target = c if not self.queue[c] else p
        jn = now // self.jiffy
        while self.wake_stamp[c] < jn and self.wake_avg_idle[c] > 0:
            self.wake_stamp[c] += 1
            self.wake_avg_idle[c] >>= 1
        if self.util_mode:
            nr = self.nr_idle_scan
        else:
            nr = ref_sis.prop_nr(self.wake_avg_idle[c], self.avg_scan_cost[c], self.n, 1)
        idle = [self.is_idle(i) for i in range(self.n)]
        cpu, path, srch = ref_sis.search(1, bool(self.util_mode), idle, [1] * self.n, target, p,
                                         self.recent[w], False, nr, [0] * self.n, list(range(self.n)), False)
        scanned = srch.scanned
        if path > 1:
            self.recent[w] = p
        cost = self.base_ns + self.rq_ns * scanned
        # select_idle_cpu() accounts the scan (this CPU's own sd_llc) unless it ran out of depth
        if path > 2 and not self.util_mode and not srch.ran_out:
            self.wake_avg_idle[c] -= min(self.wake_avg_idle[c], cost)
            self.avg_scan_cost[c] = update_avg(self.avg_scan_cost[c], cost)
        if counting:
            st[0] += 1
            if path <= 2:
                st[1] += 1
                st[5] += 1
                st[13 + path] += 1
            else:
                st[2] += 1
                st[3] += scanned
                st[8] += nr
                self.hist[bucket(cost // 1000)] += 1
                if path == 4:
                    st[4] += 1
                    st[5] += 1
        self.sleeping[w] = False
        self.prev[w] = cpu
        if self.curr[cpu] < 0:
            self.avg_idle[cpu] = min(update_avg(self.avg_idle[cpu], now - self.idle_stamp[cpu]), self.cap)
            self.wake_stamp[cpu] = now // self.jiffy
            self.wake_avg_idle[cpu] = self.avg_idle[cpu] // 2
            self.start(cpu, w, now)
            self.busy_start[cpu] = self.busy_since[cpu] = now
        else:
            self.queue[cpu].append(w)
            if counting:
                st[12] += 1

    def run_all(self):
        self.avg_scan_cost, self.nr_idle_scan, self.util_ready = [0] * self.n, self.n, False
        next_lb, now, st = self.lb, 0, self.stats
        while True:
            tmin = min(self.end)
            c = self.end.index(tmin)
            while next_lb <= tmin and next_lb <= self.sim:
                self.lb_tick(next_lb)
                next_lb += self.lb
            if tmin > self.sim:
                break
            now = tmin
            counting = now > self.warm
            t = self.curr[c]
            st[11] += 1
            if self.phase[c] == 0:
                self.phase[c] = 1
                self.end[c] = now + self.tail[t]
                for w in self.wakes[t]:
                    self.wake(c, w, now, counting)
                continue
            if self.woken[t]:
                self.woken[t] = False
                if not self.queue[c]:
                    self.start(c, t, now)
                    continue
                self.queue[c].append(t)
            else:
                self.sleeping[t] = True
                self.prev[t] = c
            if not self.queue[c]:
                longest = max(range(self.n), key=lambda i: (len(self.queue[i]), -i))
                if self.queue[longest]:
                    self.start(c, self.queue[longest].pop(0), now)
                    continue
                self.curr[c], self.end[c] = -1, BIG
                self.idle_stamp[c] = now
                self.busy_acc[c] += now - self.busy_start[c]
                if counting:
                    st[6] += now - max(self.busy_since[c], self.warm)
                continue
            self.start(c, self.queue[c].pop(0), now)
        for i in range(self.n):
            if self.curr[i] >= 0:
                st[6] += self.sim - max(self.busy_since[i], self.warm)
        st[7] = self.sim - self.warm
        return now


def llc_wakeups(util_mode, n_cpus, run_ns, tail_ns, wake_ptr, wake_idx, init_cpu, init_runnable, jitter, params):
    m = Llc(util_mode, n_cpus, run_ns, tail_ns, wake_ptr, wake_idx, init_cpu, init_runnable, jitter, params)
    end = m.run_all()
    return m.stats, m.hist, end
