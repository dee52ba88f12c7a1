"""Builders for the workloads people write by hand: periodic tasks, ramps, steps, sweeps.

Duty cycles are percentages, periods milliseconds and durations seconds (the units the
published experiments use); the model stores integer microseconds. A periodic phase is
``loop`` x (``run`` of duty x period, then a ``timer`` of the period), the way LISA and the
published experiments build them, so a late activation shows as negative slack.
Phases are tuples, so they compose with ``+``::

    phases = ramp(70, 10, -5, period_ms=16, step_s=0.5) + periodic(16, 5, duration_s=1)
    wl = workload([task("ramp", phases, cpus=(4,))], calibration=128)
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from ..errors import WorkloadError
from ._model import GlobalSettings, Phase, Policy, Run, RunTime, Task, Timer, Workload

__all__ = ["duty_cycle_sweep", "identical_tasks", "periodic", "ramp", "step", "task", "workload"]


def _period_us(period_ms: float) -> int:
    if not (period_ms > 0) or math.isinf(period_ms):
        raise WorkloadError(f"period_ms={period_ms!r}: the period must be a finite time > 0 ms")
    us = round(period_ms * 1000)
    if us < 1:
        raise WorkloadError(f"period_ms={period_ms!r} is below rt-app's 1 us resolution; use >= 0.001")
    return us


def periodic(period_ms: float, duty_cycle_pct: float, duration_s: float = 1.0, *,
             name: str = "periodic", runtime: bool = False, timer_ref: str = "unique",
             loops: int | None = None) -> tuple[Phase]:
    """One periodic phase: ``run`` for ``duty_cycle_pct`` % of every ``period_ms``.

    ``periodic(16, 30)`` = 30 % of every 16 ms for 1 s (62 activations).

    Parameters
    ----------
    period_ms : float
        Activation period in milliseconds.
    duty_cycle_pct : float
        Busy share of each period, 0-100 (of the calibration CPU at its top speed for
        ``run``; of wall time with ``runtime=True``).
    duration_s : float
        Phase length; the phase has ``floor(duration / period)`` activations.
    name : str
        Phase name (a JSON key: unique within its task).
    runtime : bool
        Use a ``runtime`` event (fixed wall time) instead of ``run`` (fixed work).
    timer_ref : str
        Timer name (``"unique"`` = one timer per thread).
    loops : int, optional
        Number of activations, overriding ``duration_s``.

    Returns
    -------
    tuple of Phase
        A 1-tuple, so results of builders concatenate with ``+``.

    Raises
    ------
    WorkloadError
        Duty cycle outside 0-100 (a run longer than its period), period <= 0, or a
        duration shorter than one period.
    """
    period = _period_us(period_ms)
    if not (0 <= duty_cycle_pct <= 100):
        raise WorkloadError(f"phase {name!r}: duty_cycle_pct={duty_cycle_pct!r} makes the run longer "
                            "than its period (or negative); give a duty cycle in 0-100")
    if loops is None:
        if not (duration_s > 0) or math.isinf(duration_s):
            raise WorkloadError(f"phase {name!r}: duration_s={duration_s!r} must be a finite time > 0")
        loops = int(math.floor(duration_s * 1e6 / period + 1e-9))
        if loops < 1:
            raise WorkloadError(f"phase {name!r}: duration_s={duration_s} is shorter than one period "
                                f"({period_ms} ms); make it at least one period long")
    elif loops < 1:
        raise WorkloadError(f"phase {name!r}: loops={loops} must be >= 1")
    busy = round(period * duty_cycle_pct / 100.0)
    events: list = []
    if busy > 0:
        events.append(RunTime(busy) if runtime else Run(busy))
    events.append(Timer(period, ref=timer_ref))
    return (Phase(name=name, events=tuple(events), loop=loops),)


def _pct_name(prefix: str, idx: int, pct: float) -> str:
    p = f"{pct:g}".replace(".", "_")
    return f"{prefix}{idx:03d}_dc{p}"


def duty_cycle_sweep(duty_cycles_pct: Iterable[float], period_ms: float = 16.0, step_s: float = 1.0,
                     *, prefix: str = "s", runtime: bool = False,
                     timer_ref: str = "unique") -> tuple[Phase, ...]:
    """One periodic phase per duty cycle, each ``step_s`` long.

    Parameters
    ----------
    duty_cycles_pct : iterable of float
        Duty cycles (0-100), in order.
    period_ms, step_s : float
        Period of every phase (ms) and length of each phase (s).
    prefix : str
        Phase names are ``<prefix><index>_dc<duty>`` (``s000_dc70``...).
    runtime : bool
        ``runtime`` (wall time) instead of ``run`` (work) events.
    timer_ref : str
        Timer name shared by the phases (the period continues across phases).

    Returns
    -------
    tuple of Phase
    """
    out: list[Phase] = []
    for i, dc in enumerate(duty_cycles_pct):
        out += periodic(period_ms, dc, step_s, name=_pct_name(prefix, i, dc), runtime=runtime,
                        timer_ref=timer_ref)
    if not out:
        raise WorkloadError("duty_cycle_sweep: no duty cycles given; pass at least one")
    return tuple(out)


def ramp(start_pct: float, stop_pct: float, step_pct: float, period_ms: float = 16.0,
         step_s: float = 1.0, *, prefix: str = "r", runtime: bool = False,
         timer_ref: str = "unique") -> tuple[Phase, ...]:
    """Duty cycle from ``start_pct`` to ``stop_pct`` (inclusive if hit) by ``step_pct``.

    ``ramp(70, 10, -5, 16, 0.5)`` is the EAS wake-up speed-up workload: 13 phases of
    0.5 s at 70 %, 65 %, ... 10 % with a 16 ms period.

    Parameters
    ----------
    start_pct, stop_pct, step_pct : float
        First and last duty cycle and the increment (its sign must lead from start to stop).
    period_ms : float
        Activation period (ms).
    step_s : float
        Length of each step (s).
    prefix, runtime, timer_ref
        As for :func:`duty_cycle_sweep`.

    Returns
    -------
    tuple of Phase

    Raises
    ------
    WorkloadError
        A step of 0 or of the wrong sign, or any :func:`periodic` error.
    """
    if step_pct == 0 or (stop_pct - start_pct) * step_pct < 0:
        raise WorkloadError(f"ramp: step_pct={step_pct} does not lead from {start_pct} to {stop_pct}; "
                            "use a positive step to go up and a negative one to go down")
    n = int(math.floor((stop_pct - start_pct) / step_pct + 1e-9)) + 1
    duties = [round(start_pct + i * step_pct, 6) for i in range(n)]
    return duty_cycle_sweep(duties, period_ms, step_s, prefix=prefix, runtime=runtime,
                            timer_ref=timer_ref)


def step(low_pct: float, high_pct: float, period_ms: float = 16.0, low_s: float = 1.0,
         high_s: float | None = None, *, prefix: str = "st", runtime: bool = False,
         timer_ref: str = "unique") -> tuple[Phase, Phase]:
    """Two phases: ``low_s`` at ``low_pct`` then ``high_s`` (default ``low_s``) at ``high_pct``.

    Repeat it with the task's ``loop`` (``task(..., loop=20)`` for the ramp-boost test).

    Parameters
    ----------
    low_pct, high_pct : float
        The two duty cycles (0-100).
    period_ms : float
        Activation period (ms).
    low_s, high_s : float
        Length of each level (s).
    prefix, runtime, timer_ref
        As for :func:`duty_cycle_sweep`.

    Returns
    -------
    tuple of two Phase
    """
    high_s = low_s if high_s is None else high_s
    return (periodic(period_ms, low_pct, low_s, name=_pct_name(prefix, 0, low_pct), runtime=runtime,
                     timer_ref=timer_ref)
            + periodic(period_ms, high_pct, high_s, name=_pct_name(prefix, 1, high_pct),
                       runtime=runtime, timer_ref=timer_ref))


def task(name: str, phases: Sequence[Phase], *, loop: int = 1, instance: int | None = None,
         cpus: Sequence[int] | None = None, policy: Policy | str | None = None,
         priority: int | None = None, util_min: int | None = None, util_max: int | None = None,
         delay_us: int | None = None, dl_runtime_us: int | None = None,
         dl_period_us: int | None = None, dl_deadline_us: int | None = None) -> Task:
    """A task running ``phases`` ``loop`` times (default once; -1 = until ``duration``).

    The phases always sit under ``"phases"``: Debian's rt-app 1.0 does not stop a
    phase-less task after its ``loop`` count.

    Parameters
    ----------
    name : str
        Task name (also the threads' name; keep it short, the kernel keeps 15 characters).
    phases : sequence of Phase
        From the builders, concatenated with ``+``.
    loop : int
        Repetitions of the whole phase sequence (-1 = until the global ``duration``).
    instance : int, optional
        Number of threads (rt-app default 1).
    cpus : sequence of int, optional
        CPU affinity.
    policy, priority : optional
        Scheduling policy (:class:`Policy` or its name) and priority (nice for SCHED_OTHER).
    util_min, util_max : int, optional
        uclamp values (0-1024; ignored by rt-app 1.0).
    delay_us, dl_runtime_us, dl_period_us, dl_deadline_us : int, optional
        Start delay and SCHED_DEADLINE parameters (µs).

    Returns
    -------
    Task

    Raises
    ------
    WorkloadError
        No phases, repeated phase names, bad loop/instance/cpus/uclamp values.
    """
    if not phases:
        raise WorkloadError(f"task {name!r}: no phases; build some with periodic()/ramp()/step()")
    names = [p.name for p in phases]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise WorkloadError(f"task {name!r}: phase names {dup} repeat; give each phase its own name "
                            "(the name= / prefix= arguments of the builders)")
    if loop == 0 or loop < -1:
        raise WorkloadError(f"task {name!r}: loop={loop}; use -1 (forever) or a count >= 1")
    if not name or any(c in name for c in '"\\\n'):
        raise WorkloadError(f"task name {name!r}: use a short name of letters, digits, '_' or '-'")
    if instance is not None and instance < 0:
        raise WorkloadError(f"task {name!r}: instance={instance} must be >= 0")
    if cpus is not None and (not cpus or any(int(c) < 0 for c in cpus)):
        raise WorkloadError(f"task {name!r}: cpus={cpus!r}; give a non-empty list of CPU numbers")
    for label, v in (("util_min", util_min), ("util_max", util_max)):
        if v is not None and not (-1 <= v <= 1024):
            raise WorkloadError(f"task {name!r}: {label}={v}; uclamp values are in [0, 1024] (-1 = unset)")
    pol = None if policy is None else Policy(policy) if not isinstance(policy, Policy) else policy
    return Task(name=name, phases=tuple(phases), loop=loop, instance=instance,
                cpus=None if cpus is None else tuple(int(c) for c in cpus), policy=pol,
                priority=priority, util_min=util_min, util_max=util_max, delay_us=delay_us,
                dl_runtime_us=dl_runtime_us, dl_period_us=dl_period_us,
                dl_deadline_us=dl_deadline_us)


def identical_tasks(n: int, name: str, phases: Sequence[Phase], *, as_instances: bool = True,
                    **props) -> tuple[Task, ...]:
    """``n`` identical tasks.

    Parameters
    ----------
    n : int
        Number of threads.
    name : str
        Task name.
    phases : sequence of Phase
        What each thread runs.
    as_instances : bool
        True: one task object with ``instance: n`` (threads share the name, each has its own
        ``"unique"`` timer). False: ``n`` task objects ``name0``, ``name1``...
    **props
        Passed to :func:`task`.

    Returns
    -------
    tuple of Task
    """
    if n < 1:
        raise WorkloadError(f"identical_tasks: n={n}; give at least one task")
    if as_instances:
        return (task(name, phases, instance=n, **props),)
    return tuple(task(f"{name}{i}", phases, **props) for i in range(n))


def workload(tasks: Sequence[Task], *, calibration: int | str | None = None, duration_s: int = -1,
             default_policy: Policy | str | None = None, logdir: str | None = None,
             log_basename: str | None = None, ftrace: bool | None = None,
             lock_pages: bool | None = None) -> Workload:
    """A workload from ``tasks`` with a ``global`` block rt-app 1.0 runs as is.

    ``log_size`` is never written (rt-app 1.0 leaves header-only logs with ``"file"``).

    Parameters
    ----------
    tasks : sequence of Task
        Tasks with distinct names.
    calibration : int or str, optional
        ns per loop (int; skips rt-app's 6-13 s calibration) or ``"CPU<n>"`` (calibrate on
        that CPU, normally the biggest). Not written when None (rt-app then uses CPU0).
    duration_s : int
        Global duration; -1 ends when every task finished its loops.
    default_policy, logdir, log_basename, ftrace, lock_pages : optional
        The same-named ``global`` keys (``ftrace`` is a boolean for rt-app 1.0).

    Returns
    -------
    Workload

    Raises
    ------
    WorkloadError
        No tasks, repeated task names or an invalid calibration.
    """
    if not tasks:
        raise WorkloadError("workload: no tasks; build some with task(...)")
    if calibration is not None and not (isinstance(calibration, int) and calibration > 0 or
                                        isinstance(calibration, str) and calibration.startswith("CPU")
                                        and calibration[3:].isdigit()):
        raise WorkloadError(f"workload: calibration={calibration!r}; give ns per loop (int > 0) "
                            "or 'CPU<n>'")
    pol = None if default_policy is None else Policy(default_policy)
    gs = GlobalSettings(duration_s=duration_s, calibration=calibration, default_policy=pol,
                        logdir=logdir, log_basename=log_basename, ftrace=ftrace, lock_pages=lock_pages)
    wl = Workload(tasks=tuple(tasks), global_settings=gs)
    wl.to_json()  # validates task-name uniqueness
    return wl
