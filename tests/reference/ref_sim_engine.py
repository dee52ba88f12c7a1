"""An independently written plain-Python reference engine of the simulator.

A naive discrete-event simulator over Python objects (``ref_sim_engine_state``: Task, Cpu,
PerfDomain dataclasses, Python ints), written from the simulator's documented algorithm
(``lisa_eas.sim`` module docstring, ``lisa_eas/_kernels/sim_*.py``) rather than from its flat
arrays. The decision models are the plain-Python twins of the kernels (``ref_pelt``,
``ref_util_est``, ``ref_eas``, ``ref_sis``, ``ref_schedutil``, ``ref_governors``). Inputs:
the Platform (its OPP / power / idle-state data, read as plain numbers), the SimConfig and the
compiled workload (its op program); the Energy Model is the twin's own (``ref_eas.TwinEM``);
output: a ``RawRun`` whose arrays ``tests/test_sim_reference_engine.py`` compares with the
numba engine's exactly.

Next event: an explicit scan for the earliest ``(time, kind, index)``, kinds in this order:
the end of a running task's op (per CPU), a tick (per CPU), a task wake-up, a frequency
change taking effect, a governor timer (per domain), the periodic load balance.

The rt-app / scheduler / governor logic itself lives in ``ref_sim_engine_sched.py``
(:class:`Scheduler`); this module sets the run up and drives the event loop.
"""
from __future__ import annotations

import numpy as np

from . import ref_eas, ref_fork
from . import ref_sim_schema as ss
from .ref_governors import interactive_init, ondemand_init, schedfreq_init
from .ref_schedutil import Policy
from .ref_sim_engine_sched import Scheduler
from .ref_sim_engine_state import (CFS, EXITED, INF_TIME, NEW_OR_SLEEPING, Cpu, PerfDomain, Task, pelt_era,
                                   pelt_tables, run_params)

__all__ = ["ENGINE_DEVIATIONS", "run_reference"]

#: Where this engine, written from the kernel source, knows the numba simulator to compute
#: something else. ``run_reference(..., deviations=...)`` switches a named step to the
#: simulator's form, so that the event-for-event comparison still checks everything else;
#: ``tests/test_sim_reference_engine.py`` holds each deviation (it fails once the simulator is
#: fixed, so that the entry is removed here).
ENGINE_DEVIATIONS: dict = {
    # none today. Fixed (issue 16): "cfs_removal" (the simulator took r * divider off the
    # cfs_rq's util_sum on every path with the v5.17 floor in every era; now
    # pelt.cfs_rq_sub_util, era rows pelt-v5.13 / pelt-v5.17, detach with the entity's own sum)
    # and "op_boundary_rq_update" (the simulator updated the runqueue at an rt-app op boundary
    # that is no scheduler event)
}


def run_reference(platform, compiled, config, t_end_ns, deviations=()):
    """Simulate ``compiled`` on ``platform`` with ``config`` until ``t_end_ns``; returns a
    ``lisa_eas.sim._engine.RawRun`` (same inputs as ``build_run`` + ``run_loop``).

    ``deviations``: names of :data:`ENGINE_DEVIATIONS` to compute the simulator's way."""
    unknown = set(deviations) - set(ENGINE_DEVIATIONS)
    if unknown:
        raise ValueError(f"unknown deviations {sorted(unknown)}; known: {sorted(ENGINE_DEVIATIONS)}")
    from lisa_eas.sim._engine import RawRun      # the output container only (no algorithm)

    if not platform.perf_domains:        # as lisa_eas.sim._engine.build_run
        from lisa_eas.errors import ModelError
        raise ModelError(f"platform {platform.name!r} has no perf domains (no OPPs); the simulator needs them")
    prm = run_params(platform, config)
    need_em = config.placement != "no-eas" or prm.ramp_boost
    # the twin's own Energy Model of the run's kernel version (ref_eas.TwinEM, written from
    # kernel/power/energy_model.c): ramp boost's costs and the "eas-v5.0" placement's tables
    em = ref_eas.TwinEM(platform, config.era_tuple) if need_em else None
    era = pelt_era(config.era_tuple, config.pelt_halflife_ms, config.util_est)
    yn, _ = pelt_tables(config.pelt_halflife_ms)
    sim = Simulation(platform, compiled, config, prm, em, era, yn, int(t_end_ns))
    sim.deviations = frozenset(deviations)
    sim.run()
    nc = len(sim.cpus)
    width = ss.D_IN_CPUS + ss.D_IN_PER_CPU * nc
    return RawRun(events=np.array(sim.events, np.int64).reshape(-1, ss.E_SIZE),
                  activations=np.array(sim.activations, np.int64).reshape(-1, ss.A_SIZE),
                  eas=np.array(sim.eas_log, np.int64).reshape(-1, width),
                  res_busy=np.array([c.res_busy for c in sim.cpus], np.int64),
                  res_idle=np.array([c.res_idle for c in sim.cpus], np.int64),
                  t_end=sim.now, iterations=0, newidle_skipped=tuple(sim.newidle_stopped))


def _cpufreq_inefficient(pd, config):
    """v5.16+ (1f39fa0dccff): the OPPs the perf domain's Energy Model flags inefficient, which
    schedutil (CPUFREQ_RELATION_LE) and ondemand (RELATION_CE) skip; the EM is the twin's own
    (ref_eas.TwinPD, em_compute_costs of the version). None before v5.16, for the other
    governors, or on a platform the twin cannot build an EM for."""
    version = config.era_tuple
    if version < (5, 16) or config.governor not in ("schedutil", "ondemand"):
        return None
    try:
        twin = ref_eas.TwinPD(pd, version)
    except Exception:            # no power figures: no EM, no flags
        return None
    return [int(x) for x in twin.ineff]


class Simulation(Scheduler):
    """Set-up (the state at t = 0) and the event loop."""

    def __init__(self, platform, compiled, config, prm, em, era, yn, t_end):
        self.prm, self.em, self.era, self.yn = prm, em, era, yn
        self.platform = platform
        self.prog = [tuple(int(x) for x in row) for row in compiled.prog]
        self.masks = [[int(x) for x in row] for row in compiled.masks]
        self.now = 0
        self.t_end = t_end
        self.done = False
        self.overutilized = False
        self.rd_overload = False         # root_domain->overload (0 at boot)
        self.newidle_stopped = [0, 0]    # newidle balances that gave up: on avg_idle, on !overload
        self.enq_seq = 0
        self.lru_seq = 0                 # cfs_tasks order stamps (ref_lb)
        self.lb_failed = {}              # sd->nr_balance_failed per (CPU, level) (ref_lb)
        self.next_ilb = 0                # nohz.next_balance, jiffies (v4.16 - v4.19 nohz idle balance)
        self.lb_last = {}                # sd->last_balance (jiffies) per (CPU, level)
        self.lb_interval = {}            # sd->balance_interval (ms) per (CPU, level); absent: sd_weight
        self.rq_next_balance = {}        # rq->next_balance (jiffies) per CPU
        self.next_balance = prm.balance_ns
        self.timers = {}                 # timer slot -> next absolute expiry
        self.conds = {}                  # suspend/resume condition -> tasks waiting on it, in order
        self.feec_work = [0, 0]          # (pd evaluations, cpu_util computations) of the last decision
        self.events, self.activations, self.eas_log = [], [], []
        self._build_platform(platform, config)
        self._build_tasks(compiled, config)
        # t = 0: every domain at its OPP, every CPU idle in its deepest state (no timer armed on
        # it yet: menu_select() bounds the predicted idle by the next timer event, here none)
        for c in self.cpus:
            deepest = len(c.pd.idle_residency) - 1
            self.events.append((0, ss.EV_FREQ, c.idx, c.pd.freq, 0, 0, 0, 0))
            self.events.append((0, ss.EV_IDLE, c.idx, deepest, 0, 0, 0, 0))
            c.idle_state = deepest

    def _build_platform(self, platform, config):
        prm = self.prm
        nc = platform.nr_cpus
        kmax = max(len(pd.opps) for pd in platform.perf_domains)
        smax = max(max(len(pd.idle_states), 1) for pd in platform.perf_domains)
        self.cpus = [None] * nc
        self.pds = []
        for d, pd in enumerate(platform.perf_domains):
            costs = [int(x) for x in self.em.domains[d].cost] if self.em is not None else [0] * len(pd.opps)
            resid = [int(st.min_residency_us or 0) * 1000 for st in pd.idle_states] or [0]
            dom = PerfDomain(idx=d, cpus=[], freqs=[o.freq_khz for o in pd.opps], caps=[o.capacity for o in pd.opps],
                             costs=costs, idle_residency=resid)
            dom.ineff = _cpufreq_inefficient(pd, config)
            if config.governor == "performance":
                dom.opp = len(dom.freqs) - 1
            if prm.sample_ns > 0:
                dom.next_sample = prm.sample_ns
            for c in sorted(pd.cpus):
                llc = [i for i, group in enumerate(platform.llc_groups) if c in group]
                llc = llc[0] if llc else c // prm.llc_weight
                size = len(platform.llc_groups[llc]) if platform.llc_groups else prm.llc_weight
                cpu = Cpu(idx=c, pd=dom, capacity=pd.cpu_capacity_max, llc=llc,
                          nr_idle_scan=size, res_busy=[0] * kmax, res_idle=[0] * smax)
                self.cpus[c] = cpu
                dom.cpus.append(cpu)
            self._init_governor(dom, config)
            self.pds.append(dom)

    def _init_governor(self, dom, config):
        prm = self.prm
        m = len(dom.cpus)
        f0 = dom.freq
        if prm.governor == "schedutil":
            dom.sugov = Policy(m, dom.cpus[0].capacity, dom.freqs, dom.freqs[0], dom.freqs[-1], prm.su_era,
                               prm.rate_limit_ns, prm.tick_ns, False, prm.ramp_boost, dom.costs)
            dom.sugov.ineff = dom.ineff         # the EM's flags (the twin's own EM), not the ramp boost costs
            dom.sugov.last_freq_update = 0      # the governor starts at t = 0 at the current frequency
            dom.sugov.next_freq = f0
        dom.gov_cpu = [[0] * 6 for _ in range(m)]
        dom.gov_pol = [0, 0, 0]
        if prm.governor == "ondemand":
            ondemand_init(0, [0] * m, f0, dom.gov_cpu, dom.gov_pol)
        elif prm.governor == "interactive":
            interactive_init(0, [0] * m, f0, dom.gov_cpu, dom.gov_pol)
        elif prm.governor == "schedfreq":
            schedfreq_init(f0, dom.gov_cpu, dom.gov_pol)

    def _build_tasks(self, compiled, config):
        nt = compiled.nr_threads
        if config.start_jitter_us:
            rng = np.random.default_rng(config.seed)
            jitter = [int(j) * 1000 for j in rng.integers(0, config.start_jitter_us + 1, size=nt)]
        else:
            jitter = [0] * nt
        lam = self.era["load_avg_max"]
        self.tasks = []
        # rt-app's pthread_create loop: each clone balanced by find_idlest_cpu (SD_BALANCE_FORK)
        forked = None
        if "fork-placement" not in config.ablate:
            forked = ref_fork.fork_all([c.capacity for c in self.cpus], [c.llc for c in self.cpus],
                                       compiled.parent_cpu,
                                       all(pd.idle_states for pd in self.platform.perf_domains),
                                       config.era_tuple, nt)
        for t in range(nt):
            mask = int(compiled.mask0[t])
            allowed = [c for c, ok in enumerate(self.masks[mask]) if ok]
            cpu = allowed[t % len(allowed)] if forked is None else forked[t][0]
            if cpu not in allowed:
                cpu = allowed[0]                  # the thread's own affinity, set later, moves it
            # wake_up_new_task(): p->recent_used_cpu = task_cpu(p), still the parent's CPU
            task = Task(idx=t, cpu=cpu, pc=int(compiled.pc0[t]), policy=int(compiled.policy0[t]),
                        prio=int(compiled.prio0[t]), mask=mask, wake_at=int(compiled.delay_ns[t]) + jitter[t],
                        recent_used_cpu=cpu if forked is None else compiled.parent_cpu)
            if task.policy == CFS:
                # post_init_entity_util_avg() on the forked CPU (ablation: half of the spare capacity)
                rq = self.cpus[cpu].cfs
                u = (self.cpus[cpu].capacity - rq.util_avg) // 2 if forked is None else forked[t][1]
                # util_sum = util_avg * LOAD_AVG_MAX up to v4.12 (post_init_entity_util_avg);
                # from v4.13 (625ed2bf049d) attach_entity_load_avg's LOAD_AVG_MAX - 1024 + period_contrib (0)
                div = lam - 1024 if self.era["divider_mode"] else lam
                task.sa.util_avg = u
                task.sa.util_sum = u * div
                rq.util_avg += u
                rq.util_sum += u * div
            self.tasks.append(task)

    # ------------------------------------------------------------------ event loop
    def next_event(self):
        """The earliest pending event as ``(time, kind, index)``; ties by kind then index."""
        cands = [(c.next_event, 0, c.idx) for c in self.cpus]
        cands += [(c.next_tick, 1, c.idx) for c in self.cpus]
        cands += [(t.wake_at, 2, t.idx) for t in self.tasks if t.state == NEW_OR_SLEEPING]
        cands += [(d.pending_at, 3, d.idx) for d in self.pds]
        cands += [(d.next_sample, 4, d.idx) for d in self.pds]
        if any(t.state != EXITED for t in self.tasks):
            cands.append((self.next_balance, 5, 0))
        best = min(cands)
        return best if best[0] < INF_TIME else (INF_TIME, -1, -1)

    def run(self):
        while True:
            t, kind, idx = self.next_event()
            if not self.done and all(task.state == EXITED for task in self.tasks):
                self.done = True
                self.t_end = self.now          # the run ends when its last task exits
            if t > self.t_end or kind < 0:
                for c in self.cpus:
                    self.sync_cpu(c, self.t_end)
                    self.account(c, self.t_end)
                self.now = self.t_end
                return
            t = max(t, self.now)               # an event due while its CPU was busy runs now
            self.now = t
            if kind == 0:
                self.op_done(self.cpus[idx], t)
            elif kind == 1:
                self.tick(self.cpus[idx], t)
            elif kind == 2:
                self.wake_up(self.tasks[idx], t)
            elif kind == 3:
                dom = self.pds[idx]
                opp = dom.pending_opp
                dom.pending_opp, dom.pending_at = -1, INF_TIME
                if opp >= 0 and opp != dom.opp:
                    self.apply_opp(dom, opp, t)
            elif kind == 4:
                self.governor_timer(self.pds[idx], t)
            else:
                self.load_balance(t)
                self.next_balance = t + self.prm.balance_ns

