"""rt-app workload -> flat per-thread programs for the numba event loop.

Each thread (task x instance) becomes a list of ops (``lisa_eas/_kernels/sim_state.py``
``OP_*``): ``START(delay)``, then per phase ``SET_SCHED``/``SET_AFFINITY`` when the phase
changes them, ``PHASE_BEGIN``, its events (``RUN``/``RUNTIME``/``SLEEP``/``TIMER``/``SUSPEND``/``RESUME``),
``PHASE_END`` (phase loop), and after the last phase ``TASK_END`` (task loop) and ``EXIT``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError

__all__ = ["CompiledWorkload", "PhaseSpec", "ThreadSpec", "compile_threads"]


@dataclass(frozen=True)
class PhaseSpec:
    """One phase of a thread: events and the scheduling attributes it sets (None: unchanged)."""

    name: str
    loop: int
    events: tuple            # ("run", ns) | ("runtime", ns) | ("sleep", ns) | ("timer", period_ns, ref, relative)
                             # | ("suspend", name) | ("resume", name)
    policy: str | None = None
    priority: int | None = None
    cpus: tuple | None = None


@dataclass(frozen=True)
class ThreadSpec:
    """One rt-app thread (one instance of a task)."""

    task: str
    comm: str
    delay_ns: int
    loop: int
    phases: tuple
    policy: str = "SCHED_OTHER"
    priority: int = 0
    cpus: tuple | None = None
    uclamp: tuple = (-1, -1)      # requested (uclamp_min, uclamp_max); -1: not set


@dataclass
class CompiledWorkload:
    """Arrays of a compiled workload; ``prog`` rows are (op, a, b, c)."""

    prog: np.ndarray
    pc0: np.ndarray
    delay_ns: np.ndarray
    policy0: np.ndarray
    prio0: np.ndarray
    mask0: np.ndarray
    masks: np.ndarray
    nr_timer_slots: int
    threads: tuple
    phase_names: tuple              # per thread, the names of its phases
    approximations: list = field(default_factory=list)
    uclamp: np.ndarray | None = None     # int64[n_threads, 2]: requested (uclamp_min, uclamp_max), -1 unset
    cond_names: tuple = ()               # suspend/resume condition names, by condition index
    parent_cpu: int = 0                  # rt-app's main thread's CPU (the calibration CPU "CPU<n>", else 0)

    @property
    def nr_conds(self) -> int:
        return len(self.cond_names)

    @property
    def nr_threads(self) -> int:
        return len(self.threads)


_POLICIES = {"SCHED_OTHER": 0, "SCHED_FIFO": 1}


def _policy_code(policy: str, where: str) -> int:
    if policy not in _POLICIES:
        raise ModelError(f"{where}: scheduling policy {policy!r} is not modelled by the simulator "
                         f"(it models SCHED_OTHER and SCHED_FIFO)")
    return _POLICIES[policy]


def compile_threads(threads, nr_cpus: int) -> CompiledWorkload:
    """Compile thread specifications into the loop's program arrays.

    Raises
    ------
    ModelError
        A policy the simulator does not model, CPUs outside the platform, or a phase that
        loops forever without taking any time.
    """
    from .._kernels import sim_state as ss

    prog: list[tuple[int, int, int, int]] = []
    masks: list[tuple[int, ...]] = []
    mask_index: dict[tuple[int, ...], int] = {}
    timer_slots: dict[tuple[int, str], int] = {}
    conds: dict[str, int] = {}
    pc0, delays, pol0, prio0, mask0, phase_names = [], [], [], [], [], []

    mask_of_cpus: dict[tuple, int] = {}      # the CPU lists already seen (valid) -> mask index

    def mask_of(cpus, where) -> int:
        if cpus is None:
            cpus = tuple(range(nr_cpus))
        key = tuple(cpus)
        if key in mask_of_cpus:
            return mask_of_cpus[key]
        bad = [c for c in cpus if not 0 <= c < nr_cpus]
        if bad or not cpus:
            raise ModelError(f"{where}: CPUs {list(bad) or list(cpus)} are not in the platform "
                             f"(CPUs 0..{nr_cpus - 1})")
        allowed = set(cpus)
        m = tuple(1 if c in allowed else 0 for c in range(nr_cpus))
        if m not in mask_index:
            mask_index[m] = len(masks)
            masks.append(m)
        mask_of_cpus[key] = mask_index[m]
        return mask_index[m]

    for ti, th in enumerate(threads):
        where = f"task {th.task!r} (thread {th.comm})"
        pc0.append(len(prog))
        delays.append(int(th.delay_ns))
        pol = _policy_code(th.policy, where)
        pol0.append(pol)
        prio0.append(int(th.priority) if pol == 1 else 0)
        cpus0 = th.cpus
        if cpus0 is None and th.phases and th.phases[0].cpus is not None:
            cpus0 = th.phases[0].cpus
        m0 = mask_of(cpus0, where)
        mask0.append(m0)
        prog.append((ss.OP_START, int(th.delay_ns), 0, 0))
        first = len(prog)
        cur_pol, cur_prio, cur_mask = pol, prio0[-1], m0
        names = []
        for pi, ph in enumerate(th.phases):
            pwhere = f"{where}, phase {ph.name!r}"
            names.append(ph.name)
            if ph.policy is not None or ph.priority is not None:
                npol = _policy_code(ph.policy, pwhere) if ph.policy is not None else cur_pol
                nprio = int(ph.priority) if (ph.priority is not None and npol == 1) else (cur_prio if npol == 1 else 0)
                if npol == 1 and nprio < 1:
                    raise ModelError(f"{pwhere}: SCHED_FIFO needs a priority within 1..99, got {nprio}")
                if (npol, nprio) != (cur_pol, cur_prio) or pi == 0:
                    prog.append((ss.OP_SET_SCHED, npol, nprio, 0))
                cur_pol, cur_prio = npol, nprio
            if ph.cpus is not None:
                nm = mask_of(ph.cpus, pwhere)
                prog.append((ss.OP_SET_AFFINITY, nm, 0, 0))
                cur_mask = nm
            begin = len(prog)
            prog.append((ss.OP_PHASE_BEGIN, pi, 0, 0))
            takes_time = False
            for ev in ph.events:
                kind = ev[0]
                if kind in ("run", "runtime", "sleep"):
                    ns = int(ev[1])
                    if ns < 0:
                        raise ModelError(f"{pwhere}: {kind} of {ns} ns is negative")
                    op = {"run": ss.OP_RUN, "runtime": ss.OP_RUNTIME, "sleep": ss.OP_SLEEP}[kind]
                    prog.append((op, ns, 0, 0))
                    takes_time = takes_time or ns > 0
                elif kind == "timer":
                    period, ref, relative = int(ev[1]), str(ev[2]), int(bool(ev[3]))
                    if period <= 0:
                        raise ModelError(f"{pwhere}: timer {ref!r} period must be > 0, got {period} ns")
                    key = (ti, ref)
                    if key not in timer_slots:
                        timer_slots[key] = len(timer_slots)
                    prog.append((ss.OP_TIMER, period, timer_slots[key], relative))
                    takes_time = True
                elif kind in ("suspend", "resume"):
                    name = str(ev[1])
                    if name not in conds:
                        conds[name] = len(conds)
                    prog.append((ss.OP_SUSPEND if kind == "suspend" else ss.OP_RESUME, conds[name], 0, 0))
                else:
                    raise ModelError(f"{pwhere}: event {kind!r} is not modelled by the simulator")
            if not takes_time and (ph.loop < 0 or th.loop < 0):
                raise ModelError(f"{pwhere}: the phase takes no time and loops forever; give it a "
                                 f"run, runtime, sleep or timer (a suspend does not count: woken at once "
                                 f"by a resumer that takes no time either, it would spin at one instant)")
            prog.append((ss.OP_PHASE_END, begin, int(ph.loop), 0))
        prog.append((ss.OP_TASK_END, first, int(th.loop), 0))
        prog.append((ss.OP_EXIT, 0, 0, 0))
        phase_names.append(tuple(names))
    if not threads:
        raise ModelError("the workload has no threads to simulate")
    return CompiledWorkload(
        prog=np.array(prog, dtype=np.int64).reshape(-1, ss.OP_SIZE),
        pc0=np.array(pc0, np.int64), delay_ns=np.array(delays, np.int64),
        policy0=np.array(pol0, np.int64), prio0=np.array(prio0, np.int64),
        mask0=np.array(mask0, np.int64), masks=np.array(masks, dtype=np.uint8).reshape(-1, nr_cpus),
        nr_timer_slots=len(timer_slots), threads=tuple(threads), phase_names=tuple(phase_names),
        uclamp=np.array([tuple(getattr(th, "uclamp", (-1, -1))) for th in threads], np.int64).reshape(-1, 2),
        cond_names=tuple(conds))


_UNMODELLED_EVENTS = {
    "lock": "mutex lock/unlock", "unlock": "mutex lock/unlock", "signal": "condition signal/wait",
    "broad": "condition broadcast", "wait": "condition signal/wait", "sync": "condition sync",
    "barrier": "barriers",
    "mem": "mem (memory copy)", "iorun": "iorun (I/O writes)", "fork": "fork", "yield": "yield",
}


def compile_workload(workload, nr_cpus: int) -> CompiledWorkload:
    """Compile an :class:`lisa_eas.rtapp.Workload` for the event loop.

    A task's thread is named after the task, as Debian's rt-app 1.0 names it, or ``T-k`` for
    instance ``k`` of a task with several instances; truncated to 15 characters (the
    kernel's comm).

    Raises
    ------
    ModelError
        The workload uses a feature the simulator does not model (named in the message):
        events other than run / runtime / sleep / timer / suspend / resume, policies other than SCHED_OTHER /
        SCHED_FIFO, SCHED_DEADLINE parameters, a ``resume`` of a name no thread suspends on
        or a ``suspend`` on a name no thread resumes, uclamp (util_min / util_max) set in a phase
        (a task's own ``util_min`` / ``util_max`` are modelled) or outside 0..1024 or with
        ``util_min > util_max``.
    """
    from ..rtapp._model import Policy, Resume, Run, RunTime, Sleep, Suspend, Timer

    src = getattr(workload, "source", "<workload>")
    gs = workload.global_settings
    default_policy = gs.default_policy.value if gs.default_policy is not None else "SCHED_OTHER"
    approx: list[str] = []
    threads: list[ThreadSpec] = []
    shared_refs: dict[str, set] = {}
    named: dict[str, set] = {"suspend": set(), "resume": set()}       # the names each key uses
    idx = 0

    def pol_name(p):
        return None if p is None else (p.value if isinstance(p, Policy) else str(p))

    def task_uclamp(task, where):
        vals = []
        for attr in ("util_min", "util_max"):
            v = getattr(task, attr, None)
            if v is None or v == -1:
                vals.append(-1)
                continue
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 1024:
                raise ModelError(f"{src}: {where}: {attr} = {v!r}; uclamp values are integers within 0..1024 "
                                 f"(-1: not set)")
            vals.append(int(v))
        if vals[0] >= 0 and vals[1] >= 0 and vals[0] > vals[1]:
            raise ModelError(f"{src}: {where}: util_min {vals[0]} > util_max {vals[1]} (sched_setattr refuses it)")
        return tuple(vals)

    def check_props(obj, where, phase=False):
        for attr, what in (("dl_runtime_us", "SCHED_DEADLINE parameters"), ("dl_period_us", "SCHED_DEADLINE parameters"),
                           ("dl_deadline_us", "SCHED_DEADLINE parameters")):
            if getattr(obj, attr, None) is not None:
                raise ModelError(f"{src}: {where}: {what} ({attr.replace('_us', '').replace('_', '-')}) "
                                 f"are not modelled by the simulator")
        for attr in ("util_min", "util_max"):
            v = getattr(obj, attr, None)
            if phase and v is not None and v >= 0:
                raise ModelError(f"{src}: {where}: uclamp ({attr}) set in a phase is not modelled by the "
                                 f"simulator; set it on the task")
        if getattr(obj, "taskgroup", None):
            approx.append(f"{where}: taskgroup {obj.taskgroup!r} ignored (one flat CFS runqueue per CPU)")
        if getattr(obj, "nodes_membind", None):
            approx.append(f"{where}: nodes_membind ignored (no NUMA model)")

    for task in workload.tasks:
        where = f"task {task.name!r}"
        check_props(task, where)
        uclamp = task_uclamp(task, where)
        phases = []
        for ph in task.phases:
            pwhere = f"{where}, phase {ph.name!r}"
            check_props(ph, pwhere, phase=True)
            evs = []
            for e in ph.events:
                if isinstance(e, Run):
                    evs.append(("run", int(e.us) * 1000))
                elif isinstance(e, RunTime):
                    evs.append(("runtime", int(e.us) * 1000))
                elif isinstance(e, Sleep):
                    evs.append(("sleep", int(e.us) * 1000))
                elif isinstance(e, Timer):
                    ref = e.ref or "unique"
                    if ref != "unique":
                        shared_refs.setdefault(ref, set()).add(task.name)
                    mode = e.mode or "relative"
                    evs.append(("timer", int(e.period_us) * 1000, ref, mode != "absolute"))
                elif isinstance(e, (Suspend, Resume)):
                    if not isinstance(e.name, str) or not e.name:
                        raise ModelError(f"{src}: {pwhere}: {e.KEY!r} needs the name of a condition (the "
                                         f"suspended thread's name), got {e.name!r}")
                    evs.append((e.KEY, e.name))
                    named[e.KEY].add(e.name)
                else:
                    key = getattr(e, "KEY", type(e).__name__)
                    raise ModelError(f"{src}: {pwhere}: the {key!r} event ({_UNMODELLED_EVENTS.get(key, key)}) "
                                     f"is not modelled by the simulator; it models run, runtime, sleep, "
                                     f"timer, suspend and resume")
            phases.append(PhaseSpec(name=ph.name, loop=ph.loops, events=tuple(evs), policy=pol_name(ph.policy),
                                    priority=ph.priority, cpus=tuple(ph.cpus) if ph.cpus is not None else None))
        policy = pol_name(task.policy) or default_policy
        prio = task.priority if task.priority is not None else (10 if policy in ("SCHED_FIFO", "SCHED_RR") else 0)
        for k in range(task.instances):
            comm = task.name if task.instances == 1 else f"{task.name}-{k}"
            threads.append(ThreadSpec(task=task.name, comm=comm[:15],
                                      delay_ns=int(task.delay_us or 0) * 1000, loop=task.loops,
                                      phases=tuple(phases), policy=policy, priority=prio, uclamp=uclamp,
                                      cpus=tuple(task.cpus) if task.cpus is not None else None))
            idx += 1
    for where, key, name in workload.unmatched_suspend_resume():
        other, verb, fate = (("suspend", "suspends on", "wakes nobody (rt-app's pthread_cond_broadcast is lost)")
                             if key == "resume" else ("resume", "resumes", "blocks forever"))
        known = sorted(named[other]) or "none"
        raise ModelError(f"{src}: {where}: {key!r} {name!r}: no thread {verb} {name!r}, so it "
                         f"{fate}; {other} names in the workload: {known} (a bare \"suspend\" is the "
                         f"task's own name)")
    for ref, tasks in sorted(shared_refs.items()):
        n = sum(1 for th in threads if th.task in tasks)
        if n > 1:
            approx.append(f"timer {ref!r} is shared by {n} threads in rt-app; simulated as one timer per thread")
    if gs.cumulative_slack:
        approx.append("cumulative_slack: slack is the last timer's, not the sum over the loop's timers")
    if gs.calibration is not None:
        approx.append("run: work in us at capacity 1024 (the calibration CPU is taken as the platform's "
                      "biggest CPU at its top OPP)")
    out = compile_threads(threads, nr_cpus) if threads else None
    if out is None:
        raise ModelError(f"{src}: the workload has no threads (every task has instance 0)")
    out.approximations = approx
    cal = gs.calibration
    if isinstance(cal, str) and cal.startswith("CPU") and cal[3:].isdigit() and int(cal[3:]) < nr_cpus:
        out.parent_cpu = int(cal[3:])        # rt-app calibrates pinned there, then restores its mask
    return out
