"""State objects of the plain-Python reference simulator (``ref_sim_engine.py``).

Tasks, CPUs (with their cfs/rt runqueue signals) and perf domains are plain dataclasses with
Python ints; the run configuration is read from the :class:`~lisa_eas.sim.SimConfig` and the
:class:`~lisa_eas.platform.Platform` here, independently of ``lisa_eas.sim._engine.build_run``
(only the output schema constants come from ``lisa_eas._kernels.sim_state``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .ref_pelt import SchedAvg

INF_TIME = 1 << 62

# task states
NEW_OR_SLEEPING = "sleeping"
RUNNABLE = "runnable"
RUNNING = "running"
EXITED = "exited"

CFS = 0     # the compiled program's policy codes (SCHED_OTHER, SCHED_FIFO)
FIFO = 1


@dataclass
class Task:
    """One rt-app thread and its scheduling entity."""

    idx: int
    cpu: int                 # runqueue it is (or last was) on
    pc: int                  # index of the current op of its program
    policy: int
    prio: int
    mask: int                # index into the compiled affinity masks
    wake_at: int
    state: str = NEW_OR_SLEEPING
    sa: SchedAvg = field(default_factory=SchedAvg)
    ue_ewma: int = 0
    ue_enqueued: int = 0
    ue_cpu: int = -1         # CPU whose cfs_rq util_est sum holds this task's estimate
    vruntime: int = 0
    deadline: int = 0        # v6.6+ EEVDF: se->deadline (virtual, ns)
    vlag: int = 0            # v6.6+ EEVDF: se->vlag (V - vruntime at the dequeue; the deadline at the pick)
    exec_start: int = 0
    sum_exec: int = 0
    slice_start: int = 0     # sum_exec when it was last picked
    enq_seq: int = 0
    lru: int = 0             # cfs_tasks position: the stamp of its last enqueue / pick / skip (higher = nearer the head)
    ran: bool = False        # picked at least once (a task that never ran is cache-cold)
    fresh: bool = False      # the op at pc has not begun (after an affinity migration)
    rem_work: int = 0        # run: remaining work, ns at capacity 1024 times 1024
    runtime_end: int = 0
    op_start: int = 0
    timer_due: int = -1      # deadline it sleeps on in a timer event
    recent_used_cpu: int = -1
    start: int = 0           # rt-app t_first
    phase: int = 0
    phase_iter: int = 0
    phase_act: int = 0
    task_iter: int = 0
    # the current rt-app log row (activation)
    act_start: int = 0
    act_run: int = 0
    act_perf: int = 0
    act_cdur: int = 0
    act_cperiod: int = 0
    act_slack: int = 0
    act_wulat: int = 0


@dataclass
class Cpu:
    """One CPU: its runqueue counters and clocks, cfs_rq / rt_rq PELT signals, residency."""

    idx: int
    pd: "PerfDomain"
    capacity: int            # arch_scale_cpu_capacity
    llc: int
    nr_idle_scan: int        # SIS_UTIL depth of its LLC, refreshed by the load balancer
    res_busy: list
    res_idle: list
    curr: Task | None = None
    nr_cfs: int = 0
    nr_rt: int = 0
    clock_task: int = 0
    clock_pelt: int = 0
    lost_idle: int = 0       # rq->lost_idle_time
    min_vruntime: int = 0
    idle_state: int = -1     # -1: busy
    next_tick: int = INF_TIME
    next_event: int = INF_TIME   # end of the running task's current op
    last_acct: int = 0
    ue_sum: int = 0          # cfs_rq util_est.enqueued
    removed: list = field(default_factory=list)     # cfs_rq->removed: util_avg of each task removed since its last update
    busy_ns: int = 0
    need_resched: bool = False
    avg_idle: int = 2 * 500_000
    idle_stamp: int = 0
    wake_avg_idle: int = 2 * 500_000     # v5.14+ (sched_init: = avg_idle)
    wake_stamp: int = 0                  # jiffies
    avg_scan_cost: int = 0               # of this CPU's own LLC sched_domain
    cfs: SchedAvg = field(default_factory=SchedAvg)
    rt: SchedAvg = field(default_factory=SchedAvg)
    # the 2016 schedfreq series' RT average: rq->rt_avg, rq->age_stamp, the CPU's RT capacity
    # request, and whether an RT task was runnable at the last cpufreq update
    rt_avg: int = 0
    age_stamp: int = 0
    rt_request: int = 0
    rt_was_runnable: bool = False

    @property
    def nr_running(self) -> int:
        return self.nr_cfs + self.nr_rt

    @property
    def is_idle(self) -> bool:
        return self.curr is None and self.nr_running == 0


@dataclass
class PerfDomain:
    """A frequency domain: OPP table, current / pending OPP and its governor's state."""

    idx: int
    cpus: list               # Cpu objects, by CPU number
    freqs: list
    caps: list
    costs: list              # EM cost per OPP (ramp boost)
    idle_residency: list     # ns per idle state
    opp: int = 0
    pending_opp: int = -1
    pending_at: int = INF_TIME
    next_sample: int = INF_TIME
    sugov: object = None     # ref_schedutil.Policy
    ineff: list = None       # v5.16+: the OPPs cpufreq skips as inefficient (1), else None
    gov_cpu: list = field(default_factory=list)   # legacy governors' per-CPU rows
    gov_pol: list = field(default_factory=list)

    @property
    def freq(self) -> int:
        return self.freqs[self.opp]

    def opp_of_freq(self, f: int) -> int:
        for k, fk in enumerate(self.freqs):
            if fk >= f:
                return k
        return len(self.freqs) - 1


# ---------------------------------------------------------------- configuration
#: util_est eras: v4.17, v5.1, v5.5, v5.13, v6.8 (arithmetic, ref_util_est) and v6.12 (b55945c500c5:
#: dequeue_task_fair() calls util_est_update() before dequeue_entities())
UTIL_EST_ERAS = ((4, 17), (5, 1), (5, 5), (5, 13), (6, 8), (6, 12))


def pelt_tables(halflife: int):
    """``runnable_avg_yN_inv`` and ``LOAD_AVG_MAX`` with the kernel generator's integer recipe."""
    y = math.pow(0.5, 1.0 / halflife)
    yn = [int(((1 << 32) - 1) * math.pow(y, i)) for i in range(halflife)]
    y_inv = int(((1 << 32) - 1) * y)
    mx, last = 1024, 0
    while True:
        mx = ((mx * y_inv) >> 32) + 1024
        if mx == last:
            return yn, mx
        last = mx


def pelt_era(version, halflife: int, util_est: bool) -> dict:
    """The era flags ``ref_pelt`` takes, for kernel ``version`` (earliest PELT model: v4.11)."""
    v = max(version, (4, 11))
    _, lam = pelt_tables(halflife)
    ue = -1
    if util_est and version >= UTIL_EST_ERAS[0]:
        ue = max(i for i, e in enumerate(UTIL_EST_ERAS) if e <= version)
    # divider LOAD_AVG_MAX - 1024 + period_contrib from v4.13 (625ed2bf049d, "sched/cfs: Make
    # util/load_avg more stable"); LOAD_AVG_MAX before
    return {"delta_scaling": v < (5, 1), "divider_mode": int(v >= (4, 13)), "weight_in_sum": v < (4, 15),
            "zero_if_unloaded": v >= (4, 15), "runnable_scaled": v >= (5, 7), "load_avg_max": lam,
            "util_est": ue,
            # how update_cfs_rq_load_avg() takes a removed task's util out of the cfs_rq and
            # detach_entity_load_avg() a detached one's: 0 sub_positive of the sums (v4.11 fair.c),
            # 1 util_sum re-derived as util_avg * divider (1c35b07e6d39, v5.13), 2 sub_positive then
            # util_sum >= util_avg * PELT_MIN_DIVIDER (98b0d890220d / 7ceb77103001, v5.17)
            "cfs_removal": 0 if v < (5, 13) else (1 if v < (5, 17) else 2)}


@dataclass(frozen=True)
class RunParams:
    """Everything the engine needs from ``SimConfig`` and the platform, as plain ints."""

    tick_ns: int
    latency_ns: int
    min_gran_ns: int
    wakeup_gran_ns: int
    balance_ns: int
    placement: str
    sis: str
    governor: str
    rate_limit_ns: int
    transition_ns: int
    model_events: bool
    util_est: bool
    ue_era: int              # util_est arithmetic era (the v4.17 one when util_est is off)
    ramp_boost: bool
    sample_ns: int
    eas_era: object          # ref_eas: a kernel version, or the label "v5.0" (placement eas-v5.0)
    overutil_v50: bool
    sis_version: tuple       # ref_sis: the kernel version of select_idle_sibling
    asym: int                # select_idle_sibling's asymmetric-capacity form: -1 none, 0 v5.7, 1 v5.10,
                             # 2 v6.2 (util_fits_cpu), 3 v6.3+ (scan from target + 1)
    su_era: tuple            # ref_schedutil Policy: the kernel version (formula, hold, RELATION_LE, limits)
    imbalance_pct: int
    llc_weight: int
    sis_scan_cost: int
    tunables: dict
    sis_prop_version: tuple = (5, 4)     # the kernel version whose SIS_PROP inputs are used
    recent_version: tuple = (5, 4)       # the kernel version whose recent_used_cpu rules are used
    # the wake-up slow path (SD_BALANCE_WAKE on the asymmetric domain: the RFC base kernel v4.16 -
    # v4.19, mainline v4.20 - v5.6): 0 none, 1 the v4.x find_idlest_group, 2 the v5.5 one
    wake_slow: int = 0
    wake_cap_util_avg: bool = False      # wake_cap() on task_util(p) (before v4.20), else task_util_est
    # the newidle balance's early exit, the kernel version of idle_balance() / newidle_balance()
    # (None: no early exit, the ablation "newidle-gate"); a misfit task marks the root domain
    # overloaded at the root-level balance (v4.20+, sched_asym_cpucapacity only)
    newidle_version: tuple | None = (5, 4)
    misfit_overloads: bool = False
    od_version: tuple = (5, 4)           # ondemand's dbs_update long-idle test: v4.17 elapsed, v4.18+ idle time
    # the CFS pull of the balancer: None the simplified pull_one; "v4" the v4.16 - v4.19 load_balance()
    # (ref_lb, issue 18) on MC / DIE; asym: SD_ASYM_CPUCAPACITY on DIE (wake_slow == 1)
    lb_form: str | None = None
    lb_asym: bool = False                # SD_ASYM_CPUCAPACITY at DIE (the RFC base kernel's flag, v4.16 - v4.19)
    wa_version: tuple = (5, 4)           # the kernel version of wake_affine() (loads; v5.11's idle prev)
    era: tuple = (5, 4)                  # the kernel version (where no finer field says)
    waker_at_prev: bool = False          # an rt-app resume placed as a timer wake-up on prev (ablation resume-waker)
    # v6.6+: EEVDF runs SCHED_OTHER (147f3efaa241, 5e963f2bd465): the base slice is min_gran_ns
    # (sysctl_sched_base_slice, same log scaling), lag clamp max(2 * slice, TICK_NSEC = tick_ns)
    eevdf: bool = False


def run_params(platform, config) -> RunParams:
    era = config.era_tuple
    factor = 1 + int(math.log2(min(platform.nr_cpus, 8)))     # SCHED_TUNABLESCALING_LOG
    gov = config.governor
    pe = pelt_era(era, config.pelt_halflife_ms, config.util_est)
    if config.placement == "eas-v5.0":
        eas_era = "v5.0"
    else:           # mainline EAS from v5.0; v4.16 - v4.20 the RFC v2 posting (ledger eas-v4.16); an era
        eas_era = era if era >= (4, 16) else (5, 4)     # before it runs the v5.4 form (as the simulator states)
    sample = {"ondemand": "sampling_rate_us", "interactive": "timer_rate_us"}.get(gov)
    tun_names = {"ondemand": ("up_threshold", "sampling_rate_us", "sampling_down_factor", "work_starved_by_rt",
                              "idle_defers_sample"),
                 "interactive": ("go_hispeed_load", "hispeed_freq", "target_load", "min_sample_time_us",
                                 "above_hispeed_delay_us"),
                 "schedfreq": ("capacity_margin", "throttle_us", "sched_time_avg_ms")}.get(gov, ())
    return RunParams(
        tick_ns=1_000_000_000 // config.tick_hz,
        latency_ns=int(config.sched_latency_ms * 1e6) * factor,
        min_gran_ns=int(config.min_granularity_ms * 1e6) * factor,
        wakeup_gran_ns=int(config.wakeup_granularity_ms * 1e6) * factor,
        balance_ns=int(config.balance_interval_ms * 1e6),
        placement=config.placement, sis=config.sis, governor=gov,
        rate_limit_ns=config.tunable("rate_limit_us") * 1000 if gov == "schedutil" else 0,
        transition_ns=config.transition_latency_us * 1000,
        model_events=bool(config.model_events),
        util_est=pe["util_est"] >= 0, ue_era=max(pe["util_est"], 0),
        ramp_boost=bool(config.tunable("ramp_boost")) if gov == "schedutil" else False,
        sample_ns=config.tunable(sample) * 1000 if sample else 0,
        eas_era=eas_era, overutil_v50=era < (5, 4), sis_version=max(era, (4, 0)),
        asym=-1 if era < (5, 7) or len({d.cpu_capacity_max for d in platform.perf_domains}) < 2 else
        (0 if era < (5, 10) else 1 if era < (6, 2) else 2 if era < (6, 3) else 3),
        su_era=max(era, (5, 0)),
        imbalance_pct=platform.imbalance_pct, llc_weight=platform.llc_weight,
        sis_scan_cost=config.sis_scan_cost_ns,
        tunables={k: config.tunable(k) for k in tun_names},
        sis_prop_version=era, recent_version=era,
        wake_slow=0 if (not (4, 16) <= era < (5, 7) or "wake-slow-path" in config.ablate
                        or len({d.cpu_capacity_max for d in platform.perf_domains}) < 2) else (2 if era >= (5, 5) else 1),
        wake_cap_util_avg=era < (4, 20),
        newidle_version=None if "newidle-gate" in config.ablate else era,
        misfit_overloads=era >= (4, 20) and len({d.cpu_capacity_max for d in platform.perf_domains}) > 1,
        # the long_idle_test tunable: 0 the era's test, 1 the elapsed time (as v4.17), 2 the idle time (v4.18)
        lb_form="v4" if (4, 16) <= era < (4, 20) and "lb-v4" not in config.ablate else None,
        lb_asym=(4, 16) <= era < (4, 20) and len({d.cpu_capacity_max for d in platform.perf_domains}) > 1,
        wa_version=era, waker_at_prev="resume-waker" in config.ablate, era=era, eevdf=era >= (6, 6),
        od_version={0: era, 1: (4, 17), 2: (4, 18)}[config.tunable("long_idle_test")] if gov == "ondemand" else era)
