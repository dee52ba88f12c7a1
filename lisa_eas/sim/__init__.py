"""Simulate rt-app workloads on a modelled board; the result is the same Trace as a real run.

>>> from lisa_eas import simulate, SimConfig
>>> trace = simulate("hikey960", "workloads/eas_rfc_energy_50.json",
...                  config=SimConfig(governor="schedutil", placement="eas"))
>>> trace.df("sched_switch"), trace.metadata["energy"]["total"]

Scheduling model
----------------
* **Time** is integer nanoseconds; the event loop (``lisa_eas/_kernels/sim_loop.py``) is a
  numba kernel over arrays, deterministic for a configuration (the seed only draws the
  optional start jitter).
* **Tasks** execute rt-app's events: ``run`` is work (µs at capacity 1024) progressing at the
  CPU's capacity at its current OPP, ``runtime`` wall time, ``sleep`` relative, ``timer``
  absolute per thread (``relative`` mode re-anchors after a miss), ``suspend`` blocks on a
  named condition until a ``resume`` of it (which wakes every thread suspended there, from
  the resumer's CPU, no WF_SYNC; a resume nobody waits for is lost, as rt-app's
  ``pthread_cond_broadcast``); one rt-app log row per phase iteration with ``slack`` and
  ``wu_lat`` as rt-app computes them.
* **CPU time** is shared the vruntime CFS way up to v6.5 (ledger cfs-v4.14): nice-0 tasks,
  ``place_entity`` sleeper credit of half ``sched_latency``, wake-up preemption past
  ``wakeup_granularity``, tick preemption after ``sched_slice`` (tunables scaled by ``1 +
  log2(min(nr_cpus, 8))``); from v6.6 by EEVDF (ledger cfs-v6.6, ``_kernels/sim_eevdf.py``):
  the eligible task of earliest virtual deadline runs (RUN_TO_PARITY), a task is placed at the
  average vruntime minus the lag it left with, the deadline is renewed (and curr rescheduled)
  once the base slice is used, a waking task preempts only when it is that pick; v6.12's
  delayed dequeue is not modelled (``metadata["approximations"]``).
  SCHED_FIFO runs above CFS (highest priority first, FIFO among equals, no throttling).
* **Wake-up placement** of CFS tasks: ``find_energy_efficient_cpu`` (issue-3 kernel; the
  v5.0, v5.4, v5.14, v6.0 or v6.2 form of ``era`` as ``models.eas.eas_kernel_era`` maps it,
  the EAS RFC v2 of April 2018 from v4.16 to v4.20, the v5.4 form before v4.16, the v5.0 form with ``placement="eas-v5.0"``) while the root domain is not overutilized, else
  ``select_idle_sibling`` (target = the task's previous CPU; no wake_affine): on the LLC with
  the SIS_UTIL or SIS_PROP depth, or, from v5.7 on a platform whose CPUs differ in capacity
  (every bundled board), its asymmetric-capacity form: from v5.10 target/prev when idle and
  the task fits them, then ``select_idle_capacity`` over all CPUs (the first idle CPU whose
  ``capacity_of`` fits ``task_util_est`` with the 20 % margin, the task's clamps in the era's
  form, else the biggest idle one);
  SIS_UTIL/SIS_PROP do not apply there, as in the kernel. Before v5.7 on such a platform
  ``wake_cap()`` (a task that does not fit the smaller of prev's and the waker's
  ``capacity_orig`` with the 20 % margin: ``task_util`` before v4.20, ``task_util_est`` after)
  clears ``want_affine``; with SD_BALANCE_WAKE on the asymmetric domain (mainline from v4.20's
  flag detection; eras v4.16 - v4.19 stand for the EAS RFC's base kernel, which set the flag at
  DIE) such a wake-up takes the slow path ``find_idlest_cpu(sd, p, this, prev,
  SD_BALANCE_WAKE)`` from the top domain (``_kernels/fork.py``, the one implementation the fork
  uses: the v4.x runnable-load / spare-capacity form, the v5.5 group types with misfit; ledger
  ``wake_cap-v4.16``, ``wake_cap-v5.7``); counted in ``metadata["wake_cap_wakeups"]``; the
  ablation ``"wake-slow-path"`` keeps the fast path on prev. ``no-eas`` always takes the idle
  search (or that slow path).
  Around that search, per era (ledger ``wakeup-*``, ``sis-v5.14``; ``docs/guide/simulate.md``):
  a timer wake-up is done on prev (``this_cpu == prev_cpu``: no ``wake_affine``); a wake-up by
  another task (``sim_loop.wake_up(p, waker_cpu, sync)``) targets
  ``wake_affine()``'s answer (WA_IDLE, WA_WEIGHT on ``runnable_load_avg`` < v5.5 / ``load_avg``,
  idle prev kept from v5.11; ``wake_wide`` not modelled); ``p->recent_used_cpu`` from v4.16 (prev
  when it wins and the waker's set to its CPU up to v5.14, prev after every search past target
  and prev from v5.15); SIS_PROP from ``this_rq()``: ``avg_idle / 512`` before v5.14,
  ``wake_avg_idle`` from v5.14, ``avg_scan_cost`` charged ``sis_scan_cost_ns`` per runqueue
  scanned unless the depth ran out. What the kernel sees at a wake-up: ``try_to_wake_up``
  updates no clock of prev, so every runqueue is read as last updated, and the waking task
  is synced only where the kernel's path calls ``sync_entity_load_avg`` (EAS past the
  overutilized test, ``wake_cap()`` when the capacities differ by 1/8, the slow path, the
  asymmetric ``select_idle_sibling``, ``remove_entity_load_avg`` at a migration): a blocked
  update to its cfs_rq's last update, not to now (``lisa_sim_task_sync``). A migrated task is
  attached with that less decayed util; one woken on prev is aged to now by the enqueue. Not
  modelled: ``rq->idle_stamp`` in the slow path (idle CPUs in equal states tie to the
  lowest-numbered). The util of a task that left (wake-up migration, exit) stays in its old
  cfs_rq until that cfs_rq's next update (``cfs_rq->removed``), so a placement or a governor
  reading it in between counts it on both CPUs, as the kernel does. A frequency change and a
  sampling governor's read of busy time update the runqueues of the CPUs that run a task (the
  simulator's own bookkeeping) and leave idle ones as the kernel last updated them. FIFO tasks: the previous CPU unless it runs an
  rt task of equal or higher priority, else an idle CPU, else one running only CFS.
* **Load balance**: every ``balance_interval_ms`` the blocked signals of all
  runqueues are updated, the overutilized flag is set/cleared (it is only set at enqueue and
  tick), SIS_UTIL's scan depth refreshed; when overutilized (or without EAS) each idle CPU
  balances. At eras v4.16 - v4.19 the kernel's ``load_balance()`` runs instead (ledger
  ``lb-v4.16``, ``lisa_eas._kernels.sim_lb`` / ``sim_balance``), per domain (MC then DIE) with its
  own ``last_balance`` and ``balance_interval`` (``sd_weight`` ms, reset after a move, doubled up
  to twice that when balanced, times ``busy_factor`` 32 on a busy CPU): at each busy CPU's tick
  once its ``rq->next_balance`` is due (``rebalance_domains(CPU_NOT_IDLE)``), at the nohz idle
  balance that tick may kick (``nohz_balancer_kick``: the CPU runs two tasks or its LLC has more
  than one busy CPU; each idle CPU whose ``next_balance`` is due, the ILB last;
  ``nohz.next_balance`` the earliest of theirs), and when a CPU goes idle (newidle, no interval):
  ``should_we_balance``, group statistics with
  ``prefer_sibling``, ``find_busiest_group`` / ``calculate_imbalance`` / ``find_busiest_queue``,
  ``detach_tasks`` from the tail of ``cfs_tasks`` (cache-hot and pinned tasks skipped, one task
  for a newidle balance), ``nr_balance_failed`` and the stopper's active balance. Other eras (simplified): each idle CPU
  pulls one waiting CFS task from the runqueue with the most waiting tasks, and from v4.20
  (ledger ``lb-v4.20``) a running task that does not fit its CPU moves to an idle bigger CPU
  (misfit; as the kernel's active balance, the source CPU then schedules and goes idle the normal
  way). A CPU about to idle
  pulls the same way (newidle), past the era's early exit (``rd->overload``, set at 2 tasks on
  a runqueue and rewritten at each pass; before v5.16 also ``avg_idle`` >= 500 us; ledger
  ``newidle-*``, counted in ``metadata["newidle_skipped"]``), and pulls waiting FIFO tasks
  regardless; an idle CPU that pulls leaves its idle state first (``cpu_idle`` exit, ``avg_idle``).
* **PELT / util_est** per task and per runqueue with the issue-3 kernels, against each
  runqueue's PELT clock (v5.1+: ``update_rq_clock_pelt``, and ``update_idle_rq_clock_pelt``
  at idle entry: a saturated CPU's lost idle time is subtracted; <= v5.0: delta scaling).
  util_est only with ``SimConfig(util_est=True)`` on a v4.17+ era (else the estimates stay
  0); ``util_est_update`` skips a dequeue while UTIL_AVG_UNCHANGED stands (set by its last
  update, cleared by an entity update that crosses a period: ``cfs_se_util_change``), which a
  wake-up migration keeps (the wake-up's ``sync_entity_load_avg`` is a blocked update that does
  not clear it, the attach does no entity update) and a wake-up on prev keeps unless the
  enqueue's update, from the sync's time to now, crosses a period; from v6.12 it runs before the dequeue's
  own update (ledger ``util_est-v6.12``). Threads start where rt-app's ``pthread_create`` loop leaves them: each clone placed by
  ``find_idlest_cpu`` at ``SD_BALANCE_FORK`` (v4.x / v5.5 forms, ledger ``fork-*``; the parent on
  the calibration CPU, each clone blocked at rt-app's barrier before the next) with
  ``post_init_entity_util_avg`` on that CPU (``docs/guide/simulate.md``); the blocked utilization of remote idle CPUs is as fresh
  as the last load-balance pass, as in the kernel.
* **Frequency**: one governor per perf domain: schedutil (issue-3 ``sugov_update``, rate
  limit, busy hold, optional RFC ramp boost on the CFS signals; the rt runqueue's util_avg
  added after ``max(util_avg, util_est)``, a runnable rt task asks for the top OPP; the
  era's formula, v5.11 cached-frequency restore, v5.16 RELATION_LE over the Energy Model's
  inefficient OPPs, v6.9 limits check; ondemand resolves with RELATION_CE from v5.16);
  schedfreq (``cpufreq_sched``: at each scheduler update the CPU's CFS request
  ``cpu_util`` normalised to the CPU's capacity and its RT request as the 2016 series set it
  (``sched_rt_update_capacity_req()``: ``rq->rt_avg``, the RT run time scaled by the
  frequency and halved every ``sched_time_avg_ms / 2``, over the elapsed average period;
  refreshed at each tick of an RT task and when the CPU has no RT task left), margined x1.25,
  max over the policy, RELATION_L, throttled 50 ms with a latched request applied when the
  throttle ends); ondemand and interactive on a per-policy timer (``sampling_rate`` x
  ``rate_mult`` / ``timer_rate``, the policy's CPUs evaluated together) from each CPU's busy
  time, whatever the class of what ran; ondemand's sample runs in a SCHED_NORMAL kworker of
  the CPU whose timer fired, so while RT tasks hold the policy's busy CPUs (none runs a CFS
  task) the sample waits until an RT task leaves its CPU (``work_starved_by_rt``)
  (interactive's ``cputime_speedadj`` is also accounted before each
  frequency change); performance, powersave. The governors are the issue-3 per-step kernels
  (``lisa_eas._kernels.governors``) with the kernel / AOSP default tunables, overridable
  through ``SimConfig.governor_tunables``. A request takes ``transition_latency_us`` to
  apply. Not modelled: ondemand's ``powersave_bias``/``io_is_busy``, interactive's
  ``timer_slack`` deferral, boost/boostpulse and per-frequency target loads, schedfreq's
  tick-time jump to the top OPP.
* **EAS decisions** (``lisa_sim_eas_decision``): the chosen CPU, the compared energies, the
  work of that one ``find_energy_efficient_cpu`` call (``pd_evaluations``,
  ``cpu_util_computations``, as :func:`lisa_eas.models.eas.find_energy_efficient_cpu`
  reports them) and its exact inputs.
* **Idle states** (:mod:`lisa_eas.models.cpuidle`): a CPU going idle enters the state the menu
  governor picks, the deepest whose target residency and exit latency fit the predicted idle,
  here the time to the next timer armed on it (no learnt correction factor, no iowait, no QoS);
  cluster states are per-CPU requests, the cluster powering down only while all its CPUs are in
  one (the meter model). At t = 0 no timer is armed: every CPU starts in its deepest state.
* **Energy**: see :mod:`lisa_eas.sim._energy` (the Energy Model's estimate,
  ``metadata["energy"]``) and :mod:`lisa_eas.sim._meter` (what the board's meter would read:
  cluster and idle power included, ``metadata["energy"]["meter"]``; full output only).
* **Boards without cpufreq or an Energy Model** (``x86_llc112``, a probed server or VM): fixed
  frequency at each CPU's capacity (no ``cpu_frequency`` events), EAS off (the kernel enables it
  only with an Energy Model), no energy figure; ``metadata["platform_model"]`` says so
  (:func:`lisa_eas.sim._fixed.plan_platform`).

* **Decision inputs** (issue 17, each absent by default): a task's rt-app ``util_min`` /
  ``util_max`` (uclamp, v5.3+: rq max aggregation, schedutil per era, the EAS candidates' fit
  from v5.6, ``util_fits_cpu`` and the rq-clamped overutilized test from v6.2),
  ``SimConfig.thermal_caps`` (policy max; ``capacity_of`` from v5.7; EM cap from
  v5.14), ``SimConfig.rt_pressure`` (RT util in the EAS energy), ``SimConfig.runnable_boost``
  (v6.5+).

Workload features the simulator does not model (locks, condition wait/signal, barriers, ``mem``/``iorun``, uclamp set
in a phase, SCHED_DEADLINE/RR...) raise :class:`~lisa_eas.errors.ModelError` before the run;
approximations it makes (ignored taskgroups, shared timers) are listed in
``trace.metadata["approximations"]``.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import ModelError
from ._config import GOVERNORS, PLACEMENTS, SIS_MODES, SimConfig
from ._warm import warm_up_simulator

__all__ = ["GOVERNORS", "PLACEMENTS", "SIS_MODES", "SimConfig", "simulate", "warm_up_simulator"]

_UNBOUNDED_CAP_S = 3600.0


def _as_platform(platform):
    from ..platform import Platform, load_platform
    return platform if isinstance(platform, Platform) else load_platform(platform)


def _meter_or_none(frames, meta, plat):
    """The meter figure of a run (:func:`lisa_eas.sim._meter.meter_energy`); None for a board
    without meter power data (no legacy cluster/idle costs)."""
    from ..trace import Trace
    from ._meter import meter_energy

    try:
        return meter_energy(Trace.from_dataframes(frames, meta), plat, t_end=meta["t_end_s"])
    except ModelError:
        return None


def _as_workload(workload):
    from ..rtapp import read_workload
    if isinstance(workload, (str, os.PathLike)):
        return read_workload(Path(workload))
    return workload


def _t_end(workload, config: SimConfig) -> tuple[int, bool]:
    if config.duration_s is not None:
        return int(round(config.duration_s * 1e9)), False
    gd = workload.global_settings.duration_s
    if gd is not None and gd > 0:
        return int(gd) * 1_000_000_000, False
    finite = all(t.loops >= 0 and all(ph.loops >= 0 for ph in t.phases) for t in workload.tasks if t.instances > 0)
    if not finite:
        raise ModelError(f"{getattr(workload, 'source', 'workload')}: some task loops forever and the workload "
                         f"has no global 'duration'; pass SimConfig(duration_s=...)")
    return int(_UNBOUNDED_CAP_S * 1e9), True


def simulate(platform, workload, *, config: SimConfig | None = None):
    """Run ``workload`` on a model of ``platform``; return the Trace a real run would give.

    Parameters
    ----------
    platform : Platform or str or Path
        A :class:`~lisa_eas.platform.Platform`, a bundled board name or a platform JSON path.
    workload : Workload or str or Path
        An :class:`lisa_eas.rtapp.Workload` or the path of an rt-app JSON file.
    config : SimConfig, optional
        Modelling choices (default ``SimConfig()``: EAS v5.4, SIS_UTIL, schedutil).

    Returns
    -------
    lisa_eas.trace.Trace
        Events ``sched_switch``, ``sched_wakeup``, ``sched_migrate_task``, ``cpu_frequency``,
        ``cpu_idle``, ``print`` (rt-app markers), ``lisa_sim_rtapp_log`` (rt-app log rows)
        and the model-only ``lisa_sim_task_util``, ``lisa_sim_task_sync`` (a waking task's
        ``sync_entity_load_avg``: the PELT time its signal was brought to), ``lisa_sim_cpu_util``,
        ``lisa_sim_overutilized``, ``lisa_sim_eas_decision``. ``metadata`` holds the
        configuration that ran, ``energy`` (per CPU, per domain, total; None without power
        data), ``approximations`` and ``platform_model`` (what was modelled instead of what on a
        board without cpufreq or Energy Model: ``frequency``, ``eas``, ``energy``; empty otherwise).

    Raises
    ------
    ModelError
        A workload feature or configuration the simulator does not model.
    PlatformError, WorkloadError
        Unknown board, unreadable workload.
    """
    import time

    from ..trace import Trace
    from ._compile import compile_workload
    from ._energy import energy_from_residency
    from ._engine import build_run, release_output, run_loop, sis_stats_dict
    from ._fork import parent_load
    from ._fixed import plan_platform
    from ._warm import announce_compile
    from ._output import raw_to_frames

    config = config or SimConfig()
    if not isinstance(config, SimConfig):
        raise ModelError(f"config must be a SimConfig, got {type(config).__name__}")
    plat, config, platform_model = plan_platform(_as_platform(platform), config)
    wl = _as_workload(workload)
    compiled = compile_workload(wl, plat.nr_cpus)
    t_end, until_exit = _t_end(wl, config)
    S, P, O, margin = build_run(plat, compiled, config, t_end)
    announce_compile()          # the first call on a machine compiles the loop: say so (stderr)
    t0 = time.perf_counter()
    raw = run_loop(S, P, O, margin, known_end=not until_exit)
    wall = time.perf_counter() - t0
    summary = config.outputs == "summary"
    t1 = time.perf_counter()
    n_events = None if summary else int(len(raw.events))
    frames = raw_to_frames(raw, compiled, plat, model_events=config.model_events, summary=summary,
                           release=not summary)
    if summary:                 # the summary frames are copies: the output memory serves the next run
        release_output(raw)
    if "frequency" in platform_model:       # no cpufreq: no frequency events, as on such a machine
        frames.pop("cpu_frequency", None)
    output_wall = time.perf_counter() - t1
    approx = list(compiled.approximations)
    era_t = config.era_tuple
    if raw.wake_cap_wakeups and "wake-slow-path" in config.ablate and (4, 16) <= era_t < (5, 7):
        approx.append(f"{raw.wake_cap_wakeups} wake-up(s) of a task that did not fit its previous CPU: at era "
                      f"{config.era} the kernel's wake_cap() sends them to the find_idlest_cpu() slow path, "
                      "switched off by the ablation 'wake-slow-path'; they took select_idle_sibling() on the "
                      "previous CPU's LLC")
    elif raw.wake_cap_wakeups and (4, 16) <= era_t < (5, 7):
        approx.append(f"{raw.wake_cap_wakeups} wake-up(s) through the find_idlest_cpu() slow path (wake_cap(), "
                      "ledger wake_cap-v4.16): rq->idle_stamp not kept, idle CPUs in equal states tie to the "
                      "lowest-numbered")
    if "fork-placement" not in config.ablate:
        approx.append(f"fork placement: rt-app's main thread on CPU {compiled.parent_cpu} (runnable load "
                      f"{parent_load(config)}: the era's PELT after running at the top OPP) "
                      "clones the threads in order, each blocked at rt-app's barrier before the next clone, "
                      "every idle CPU in one idle state (find_idlest_cpu at SD_BALANCE_FORK, ledger fork-*)")
    uclamp_set = compiled.uclamp is not None and (compiled.uclamp >= 0).any()
    if uclamp_set or config.thermal_caps or config.rt_pressure or config.runnable_boost:
        approx.append("decision inputs (uclamp / thermal caps / RT pressure / runnable boosting): the EAS decision "
                      "log (lisa_sim_eas_decision) records the CFS inputs only, so a replay of this run's EAS "
                      "decisions from the log does not see them; EAS applies uclamp to its candidates' fit and "
                      "the overutilized test and its energy estimate's OPP (per era), not to the idle search; thermal pressure is instantaneous and a cap takes effect at the domain's next "
                      "frequency request")
    if config.era_tuple >= (6, 12):
        approx.append(f"delayed dequeue: at era {config.era} the kernel keeps a sleeping SCHED_OTHER task whose lag "
                      "is negative queued until it is eligible again (152e11f6df29 sched/fair: Implement delayed "
                      "dequeue, v6.12, with PLACE_REL_DEADLINE for a migrating task's deadline); the simulator "
                      "dequeues at once and runs the v6.6 - v6.11 EEVDF (ledger cfs-v6.6)")
    if config.era_tuple >= (6, 6):
        approx.append("EEVDF (ledger cfs-v6.6): rt-app's threads start with lag 0 at their first wake-up (their fork "
                      "and first run up to rt-app's start barrier are outside the run); among equal virtual "
                      "deadlines the lowest task index runs (the kernel's order follows its tree's insertion order)")
    if (4, 16) <= era_t < (4, 20) and "lb-v4" not in config.ablate:
        approx.append("load balance (ledger lb-v4.16): the v4.16 - v4.19 load_balance() per domain with its balance "
                      "interval and back-off, run by busy CPUs at their tick (CPU_NOT_IDLE), by the idle CPUs a busy "
                      "CPU's tick kicks the nohz idle balance for, and by newly idle CPUs; not modelled: LB_BIAS's "
                      "cpu_load[] (source/target loads are the idx-0 load), the affinity retries (LBF_DST_PINNED, "
                      "LBF_ALL_PINNED's redo, group_imbalanced), cache-hot buddies, the stopper a newidle balance "
                      "would start, the stopper's delay (it moves at once and the rebalance_domains walk stops "
                      "there), nr_busy_cpus counting a CPU busy from its wake-up rather than from its first tick")
    else:
        approx.append(f"load balance: at era {config.era} simplified (each idle CPU pulls one waiting task from the "
                      "runqueue with the most waiting; from v4.20 a misfit task moves up, ledger lb-v4.20); the "
                      "kernel's load_balance() is "
                      "modelled for v4.16 - v4.19 only (ledger lb-v4.16)")
    if era_t >= (5, 16) and "newidle-gate" not in config.ablate:
        approx.append("newidle balance: no time is charged to balancing, so sd->max_newidle_lb_cost is 0 and the "
                      "avg_idle tests of newidle_balance() (c5b0a7eefc70, v5.16+) never stop a pull; only "
                      "!rd->overload does")
    if until_exit and raw.t_end >= t_end:
        approx.append(f"the tasks had not all exited after {_UNBOUNDED_CAP_S:.0f} s; the run was stopped there")
    has_power = all(d.has_power for d in plat.perf_domains)
    energy = energy_from_residency(raw.res_busy, raw.res_idle, plat) if has_power else None
    meta = {
        "source": "lisa_eas.simulate", "clock": "sim", "cpus": plat.nr_cpus, "kernel_version": config.era,
        "platform": plat.name, "workload": str(getattr(wl, "source", "")), "config": config.to_dict(),
        "approximations": approx, "energy": energy, "t_end_s": raw.t_end / 1e9,
        "threads": [th.comm for th in compiled.threads], "sim_wall_s": wall,
        "sim_events": n_events, "wake_cap_wakeups": raw.wake_cap_wakeups,
        "output_wall_s": output_wall, "platform_model": platform_model,
        "sis_stats": sis_stats_dict(raw.sis_stats) if raw.sis_stats is not None else None,
    }
    if any(raw.newidle_skipped):    # newidle balances stopped by the era's early exit (sim_balance.pull_one)
        meta["newidle_skipped"] = {"avg_idle": raw.newidle_skipped[0], "overload": raw.newidle_skipped[1]}
    if energy is not None:      # the meter needs the cpu_frequency / cpu_idle timeline: full output only
        energy["meter"] = (_meter_or_none(frames, meta, plat) if not summary and "cpu_frequency" in frames
                           else None)
    if summary:
        meta["residency"] = {"busy_ns_per_opp": raw.res_busy.tolist(), "idle_ns_per_state": raw.res_idle.tolist()}
    return Trace.from_dataframes(frames, meta)
