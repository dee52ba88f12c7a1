"""The simulator's run configuration: one frozen object holding every modelling choice."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from .._era import parse_kernel_version
from ..errors import ModelError
from ..platform import FrozenMap

__all__ = ["GOVERNORS", "PLACEMENTS", "SIS_MODES", "SimConfig"]

PLACEMENTS = ("eas", "eas-v5.0", "no-eas")
#: Causes an ablation experiment can switch off (``SimConfig.ablate``).
ABLATIONS = ("eas-overutilized", "sis-prop-wake-avg-idle", "resume-waker", "pelt-attach-reset", "fork-placement",
             "wake-slow-path", "parent-load-nice0", "newidle-gate", "lb-v4")
SIS_MODES = ("util", "prop")
#: what ``simulate`` returns: every table, or the rt-app log and the metadata (sweeps)
OUTPUTS = ("full", "summary")
GOVERNORS = ("schedutil", "performance", "powersave", "ondemand", "interactive", "schedfreq")

#: Tunables each governor accepts, with their defaults (kernel / AOSP defaults).
GOVERNOR_TUNABLES: Mapping[str, Mapping[str, int]] = {
    "schedutil": {"rate_limit_us": 1000, "ramp_boost": 0},
    "performance": {},
    "powersave": {},
    "ondemand": {"sampling_rate_us": 10000, "up_threshold": 95, "sampling_down_factor": 1, "work_starved_by_rt": 1,
                 "idle_defers_sample": 1, "long_idle_test": 0},
    "interactive": {"timer_rate_us": 20000, "go_hispeed_load": 99, "hispeed_freq": 0, "target_load": 90,
                    "min_sample_time_us": 80000, "above_hispeed_delay_us": 20000},
    "schedfreq": {"capacity_margin": 1280, "throttle_us": 50000, "sched_time_avg_ms": 1000},
}

#: (lowest, highest) accepted value of tunables with a range (others: any integer >= 0).
_TUNABLE_RANGES: Mapping[str, tuple] = {
    "sampling_rate_us": (1, None), "up_threshold": (1, 100), "sampling_down_factor": (1, 100000),
    "timer_rate_us": (1, None), "go_hispeed_load": (1, 100), "target_load": (1, 100),
    "capacity_margin": (1024, None), "ramp_boost": (0, 1), "rate_limit_us": (0, None),
    "work_starved_by_rt": (0, 1), "idle_defers_sample": (0, 1), "sched_time_avg_ms": (1, None),
    "long_idle_test": (0, 2),
}


@dataclass(frozen=True)
class SimConfig:
    """Every modelling choice of one simulated run (frozen; build variants with :meth:`replace`).

    Parameters
    ----------
    placement : {"eas", "eas-v5.0", "no-eas"}
        Wake-up placement of CFS tasks. ``"eas"``: ``find_energy_efficient_cpu`` in the
        form of ``era`` (v5.0, v5.4, v5.14, v6.0, v6.2; v4.16 - v4.20: the April 2018 RFC v2, ledger eas-v4.16; the v5.4 form before v4.16) while the root domain is not
        overutilized, else the idle-CPU search; ``"eas-v5.0"``: the original v5.0 search;
        ``"no-eas"``: the idle-CPU search always (the "without EAS" baseline).
    era : str
        Kernel version whose PELT, util_est, energy-model, EAS, select_idle_sibling,
        schedutil and ondemand forms to use (the era ledger's rows, as the models map them).
    sis : {"util", "prop"}
        Depth rule of ``select_idle_cpu``: SIS_UTIL or SIS_PROP.
    governor : {"schedutil", "performance", "powersave", "ondemand", "interactive", "schedfreq"}
        cpufreq governor of every perf domain.
    governor_tunables : mapping
        Overrides of the governor's tunables (see ``GOVERNOR_TUNABLES``; defaults are the
        kernel's / AOSP's): schedutil ``rate_limit_us``, ``ramp_boost`` (0/1, the RFC
        "energy aware schedutil"); ondemand ``sampling_rate_us`` (10000), ``up_threshold``
        (95, the NOHZ default), ``sampling_down_factor`` (1), ``work_starved_by_rt`` (1: the
        sample's work item, a SCHED_NORMAL kworker on the CPU whose timer fired, waits while RT
        tasks hold the policy's busy CPUs, as in the kernel; 0: sampled regardless, for on/off
        experiments), ``idle_defers_sample`` (1: no sample while every CPU of the policy is idle, as the
        kernel's deferrable timers (v4.5) and scheduler update hooks (v4.6+) do; 0: samples on a
        free-running grid, idle or not, for on/off experiments), ``long_idle_test`` (what the
        "woke up from a long idle" test that reuses a CPU's previous load once compares with twice
        the sampling rate: 0 the era's, 1 the time since the CPU's last sample (v3.17 - v4.17:
        true after a late sample of a busy CPU too, ledger ondemand-v4.14), 2 its idle time (v4.18+,
        ledger ondemand-v4.18)); interactive ``timer_rate_us``
        (20000), ``go_hispeed_load`` (99), ``hispeed_freq`` (kHz; 0 = each policy's maximum),
        ``target_load`` (90), ``min_sample_time_us`` (80000), ``above_hispeed_delay_us``
        (20000); schedfreq ``capacity_margin`` (1280 = x1.25), ``throttle_us`` (50000),
        ``sched_time_avg_ms`` (1000, the kernel's ``sysctl_sched_time_avg``: the RT request's
        ``rt_avg`` halves every ``sched_time_avg_ms / 2``).
    transition_latency_us : int
        Delay between a governor's request and the new frequency.
    tick_hz : int
        Scheduler tick rate (CONFIG_HZ).
    sched_latency_ms, min_granularity_ms, wakeup_granularity_ms : float
        CFS tunables before scaling; scaled by ``1 + log2(min(nr_cpus, 8))`` as the kernel's
        default ``tunable_scaling`` does.
    balance_interval_ms : float
        Period of the simplified periodic load balance.
    sis_scan_cost_ns : int
        Modelled time of SIS_PROP's ``select_idle_cpu()`` per runqueue examined; each scan that
        does not run out of depth feeds it to the waking CPU's ``avg_scan_cost`` (``update_avg``)
        and, from v5.14, subtracts it from ``wake_avg_idle``.
    duration_s : float, optional
        Simulated time. Default: the workload's ``global.duration`` if > 0, else until every
        task exits.
    seed : int
        Seed of the only random choice, the start jitter.
    start_jitter_us : int
        Each thread starts at its delay plus a uniform draw in ``[0, start_jitter_us]``.
    model_events : bool
        Emit the model-only events (per-task / per-CPU util, overutilized).
    util_est : bool
        Use util_est (UTIL_EST sched feature).
    pelt_halflife_ms : int
        PELT half-life (32 mainline; 16 or 8 on some Android kernels).
    outputs : {"full", "summary"}
        ``"full"`` (default): every event table. ``"summary"``, for sweeps: the rt-app log
        (``lisa_sim_rtapp_log``) and the metadata only (energy per CPU / domain, busy and idle
        residencies in ``metadata["residency"]``); the event loop writes no event and no EAS
        decision row (``metadata["sim_events"]`` is None), computing what the full run does
        (the same rt-app log, energy and residencies), and ``model_events`` is ignored. The
        memory its output tables were written into is kept for the thread's next summary run
        (a sweep's runs write into pages already faulted in; one map per thread).
    thermal_caps : sequence of (time_s, target, capacity), optional
        A thermal cap schedule (default none): from ``time_s`` on, the perf domain of
        ``target`` (a CPU number, or ``"pd<k>"`` for perf domain ``k``) runs at most at its
        highest OPP whose capacity is ``<= capacity`` (the lowest OPP if none is), as a
        cpufreq cooling device sets ``policy->max``; its CPUs' thermal pressure is their
        capacity minus that OPP's (``arch_set_thermal_pressure``). A later row for the same
        domain replaces the cap; a capacity at or above the domain's lifts it. The pressure
        lowers ``capacity_of`` from v5.7 and caps the Energy Model from v5.14 (``hw_pressure``
        from v6.10 is the same figure).
    thermal_decay_shift : int
        ``sched_thermal_decay_shift`` (boot parameter, v5.7 - v6.9; default 0): the PELT clock of
        the thermal pressure's average (``thermal_load_avg``) is the task clock shifted right by it,
        so its half-life is 2^shift times PELT's. 0..10 (the kernel clamps to that range); only
        with a kernel that has it (``ModelError`` otherwise).
    rt_pressure : bool
        The EAS energy estimate counts each CPU's RT utilization (``effective_cpu_util()``
        of the era; default False: CFS only). ``capacity_of`` and schedutil always see it.
    runnable_boost : bool
        Runnable boosting (v6.5+, 7d0583cf9ec7): schedutil and the EAS OPP estimate read
        ``max(util_avg, runnable_avg)`` of each cfs_rq (default False; ignored before v6.5;
        not with schedutil's ``ramp_boost``).
    ablate : tuple of str
        Causes switched off for an ablation experiment (no kernel does this; default none):
        ``"eas-overutilized"``: the EAS wake-up ignores the overutilized flag (load balance still
        sees it), to measure what the tipping point costs a reproduction;
        ``"sis-prop-wake-avg-idle"``: from v5.14, SIS_PROP's depth in the v5.7 - v5.13 form
        (``this_rq()->avg_idle / 512``, no ``wake_avg_idle`` aging nor scan-time charge; ledger
        sis-v5.14 switched off alone); ``"resume-waker"``: a wake-up by another task (rt-app
        ``resume``) is placed as a timer wake-up is, on the task's previous CPU (``this`` = prev:
        no ``wake_affine``, prev's runqueue for SIS_PROP); ``"pelt-attach-reset"``: a task attached
        to a runqueue (wake-up migration, balancing) keeps its ``util_sum`` and ``period_contrib``
        instead of ``attach_entity_load_avg``'s ``util_sum = util_avg * divider`` with the
        runqueue's window (which drops the running time since the task's last 1024 us boundary);
        ``"fork-placement"``: the threads start on their allowed CPUs in turn, each with half its
        CPU's spare capacity, instead of where ``find_idlest_cpu`` at fork puts them (ledger
        fork-v4.14, fork-v5.5); ``"wake-slow-path"``: at v4.16 - v5.6 on an asymmetric platform a
        wake-up that ``wake_cap()`` takes off the fast path stays on ``select_idle_sibling`` on
        prev (as a kernel without SD_BALANCE_WAKE, e.g. mainline arm64 before v4.20) instead of
        ``find_idlest_cpu`` (ledger wake_cap-v4.16); ``"parent-load-nice0"``: rt-app's main thread
        forks with a runnable load of exactly 1024 instead of the value the era's PELT arithmetic
        gives it (``lisa_eas.sim._fork.parent_load``; 1023 at HZ=250 from v4.15);
        ``"newidle-gate"``: a CPU going idle tries the newidle CFS pull whatever its ``avg_idle``
        and ``rd->overload`` (no early exit of ``idle_balance()`` / ``newidle_balance()``; ledger
        newidle-v4.14, newidle-v5.16), as the simulator did before it modelled that gate;
        ``"lb-v4"``: at v4.16 - v4.19 the load balance's CFS pull is the simplified one of the
        other eras (each idle CPU pulls one waiting task from the runqueue with the most waiting)
        instead of the kernel's ``load_balance()`` (ledger lb-v4.16).
    stats_from_s : float
        Simulated time from which the idle-search statistics (``metadata["sis_stats"]``) are
        counted (default 0: the whole run); a warm-up before it is left out.
    """

    placement: str = "eas"
    era: str = "v5.4"
    sis: str = "util"
    governor: str = "schedutil"
    governor_tunables: Mapping[str, int] = field(default_factory=lambda: FrozenMap({}))
    transition_latency_us: int = 0
    tick_hz: int = 250
    sched_latency_ms: float = 6.0
    min_granularity_ms: float = 0.75
    wakeup_granularity_ms: float = 1.0
    balance_interval_ms: float = 4.0
    sis_scan_cost_ns: int = 500
    duration_s: float | None = None
    seed: int = 0
    start_jitter_us: int = 0
    model_events: bool = True
    util_est: bool = True
    pelt_halflife_ms: int = 32
    outputs: str = "full"
    thermal_caps: tuple = ()
    thermal_decay_shift: int = 0
    rt_pressure: bool = False
    runnable_boost: bool = False
    ablate: tuple = ()
    stats_from_s: float = 0.0

    def __post_init__(self):
        if self.placement not in PLACEMENTS:
            raise ModelError(f"SimConfig.placement {self.placement!r} is not one of {', '.join(PLACEMENTS)}")
        if self.outputs not in OUTPUTS:
            raise ModelError(f"SimConfig.outputs {self.outputs!r} is not one of {', '.join(OUTPUTS)}")
        if self.sis not in SIS_MODES:
            raise ModelError(f"SimConfig.sis {self.sis!r} is not one of {', '.join(SIS_MODES)}")
        if self.governor not in GOVERNORS:
            raise ModelError(f"SimConfig.governor {self.governor!r} is not modelled by the simulator; "
                             f"choose one of {', '.join(GOVERNORS)}")
        try:
            parse_kernel_version(self.era)
        except Exception as exc:
            raise ModelError(f"SimConfig.era {self.era!r}: {exc}") from exc
        if not isinstance(self.governor_tunables, FrozenMap):
            object.__setattr__(self, "governor_tunables", FrozenMap(dict(self.governor_tunables)))
        known = GOVERNOR_TUNABLES[self.governor]
        for k, v in self.governor_tunables.items():
            if k not in known:
                raise ModelError(f"SimConfig.governor_tunables: {k!r} is not a tunable of {self.governor} "
                                 f"(known: {', '.join(known) or 'none'})")
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ModelError(f"SimConfig.governor_tunables[{k!r}] must be an integer >= 0, got {v!r}")
            lo, hi = _TUNABLE_RANGES.get(k, (0, None))
            if v < lo or (hi is not None and v > hi):
                raise ModelError(f"SimConfig.governor_tunables[{k!r}] of {self.governor} must be within "
                                 f"{lo}..{hi if hi is not None else 'inf'}, got {v}")
        for name in ("tick_hz", "transition_latency_us", "sis_scan_cost_ns", "seed", "start_jitter_us"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ModelError(f"SimConfig.{name} must be an integer >= 0, got {v!r}")
        if self.tick_hz == 0 or self.tick_hz > 10000:
            raise ModelError(f"SimConfig.tick_hz must be within 1..10000, got {self.tick_hz}")
        for name in ("sched_latency_ms", "min_granularity_ms", "wakeup_granularity_ms", "balance_interval_ms"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v <= 0:
                raise ModelError(f"SimConfig.{name} must be a number > 0, got {v!r}")
        if isinstance(self.stats_from_s, bool) or not isinstance(self.stats_from_s, (int, float)) \
                or not math.isfinite(self.stats_from_s) or self.stats_from_s < 0:
            raise ModelError(f"SimConfig.stats_from_s must be a number >= 0 (seconds), got {self.stats_from_s!r}")
        if self.duration_s is not None and (not isinstance(self.duration_s, (int, float))
                                            or not math.isfinite(self.duration_s) or self.duration_s <= 0):
            raise ModelError(f"SimConfig.duration_s must be a number > 0 (seconds), got {self.duration_s!r}")
        for name in ("rt_pressure", "runnable_boost"):
            if not isinstance(getattr(self, name), bool):
                raise ModelError(f"SimConfig.{name} must be True or False, got {getattr(self, name)!r}")
        if self.runnable_boost and self.governor == "schedutil" and self.tunable("ramp_boost"):
            raise ModelError("SimConfig.runnable_boost cannot be combined with schedutil's ramp_boost tunable "
                             "(the RFC ramp boost predates runnable boosting); set one of them")
        object.__setattr__(self, "thermal_caps", _thermal_caps(self.thermal_caps))
        sh = self.thermal_decay_shift
        if isinstance(sh, bool) or not isinstance(sh, int) or not 0 <= sh <= 10:
            raise ModelError(f"SimConfig.thermal_decay_shift (sched_thermal_decay_shift) must be an integer "
                             f"within 0..10, got {sh!r}")
        if sh and not (5, 7) <= parse_kernel_version(self.era) < (6, 10):
            raise ModelError(f"SimConfig.thermal_decay_shift: sched_thermal_decay_shift exists in kernels v5.7 - "
                             f"v6.9 only (ledger thermal-v5.7, thermal-v6.10); SimConfig.era is {self.era!r}: "
                             f"use 0 or such an era")
        if isinstance(self.ablate, str) or not all(isinstance(a, str) for a in self.ablate):
            raise ModelError(f"SimConfig.ablate must be a tuple of names, got {self.ablate!r}")
        object.__setattr__(self, "ablate", tuple(self.ablate))
        unknown = [a for a in self.ablate if a not in ABLATIONS]
        if unknown:
            raise ModelError(f"SimConfig.ablate: {unknown[0]!r} is not an ablation (known: {', '.join(ABLATIONS)})")
        if self.pelt_halflife_ms not in (8, 16, 32):
            raise ModelError(f"SimConfig.pelt_halflife_ms must be 8, 16 or 32, got {self.pelt_halflife_ms!r}")

    def tunable(self, name: str) -> int:
        """The governor tunable ``name`` (override or default)."""
        return int(self.governor_tunables.get(name, GOVERNOR_TUNABLES[self.governor][name]))

    def replace(self, **changes: Any) -> "SimConfig":
        """A copy with ``changes`` applied (validated again)."""
        return replace(self, **changes)

    @property
    def era_tuple(self) -> tuple[int, int]:
        v = parse_kernel_version(self.era)
        return (v[0], v[1])

    def to_dict(self) -> dict:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = dict(v) if isinstance(v, Mapping) else v
        out["thermal_caps"] = [list(r) for r in self.thermal_caps]
        out["ablate"] = list(self.ablate)
        return out


def _thermal_caps(rows) -> tuple:
    """Validate ``SimConfig.thermal_caps``: ``ModelError`` naming the row and the field."""
    if rows is None:
        return ()
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise ModelError(f"SimConfig.thermal_caps must be a list of (time_s, cpu or 'pd<k>', capacity), got {rows!r}")
    out = []
    for i, row in enumerate(rows):
        where = f"SimConfig.thermal_caps[{i}]"
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != 3:
            raise ModelError(f"{where} must be (time_s, cpu or 'pd<k>', capacity), got {row!r}")
        t, target, cap = row
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
            raise ModelError(f"{where}: time_s must be a number >= 0 (seconds), got {t!r}")
        if isinstance(target, str):
            if not (target.startswith("pd") and target[2:].isdigit()):
                raise ModelError(f"{where}: target {target!r} must be a CPU number or 'pd<k>' (perf domain k)")
        elif isinstance(target, bool) or not isinstance(target, int) or target < 0:
            raise ModelError(f"{where}: target must be a CPU number or 'pd<k>', got {target!r}")
        if isinstance(cap, bool) or not isinstance(cap, int) or not 0 < cap <= 1024:
            raise ModelError(f"{where}: capacity must be an integer within 1..1024, got {cap!r}")
        out.append((float(t), target, int(cap)))
    return tuple(sorted(out, key=lambda r: r[0]))
