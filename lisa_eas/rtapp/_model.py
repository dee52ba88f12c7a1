"""The rt-app workload model: frozen dataclasses for global settings, tasks, phases and events.

Times are integers in microseconds (rt-app's unit), sizes in bytes. A field left at
``None`` means "not given in the file" (rt-app then applies its default), so a file read
and written back keeps exactly the keys it had. Keys the model does not understand are
kept, in order, in the ``extra`` tuples of :class:`GlobalSettings`, :class:`Task`,
:class:`Phase` and :class:`Workload`, written back unchanged and listed by
:meth:`Workload.unknown_keys`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._writer import workload_to_json

__all__ = [
    "Barrier", "Broadcast", "Event", "Fork", "GlobalSettings", "IORun", "Lock", "Mem", "Phase",
    "Policy", "Resume", "Run", "RunTime", "Signal", "Sleep", "Suspend", "Sync", "Task", "Timer",
    "Unlock", "Wait", "Workload", "Yield", "EVENT_TYPES",
]


class Policy(str, enum.Enum):
    """Scheduling policies rt-app knows (value = the rt-app/JSON spelling)."""

    OTHER = "SCHED_OTHER"  # CFS / EEVDF
    BATCH = "SCHED_BATCH"
    IDLE = "SCHED_IDLE"
    FIFO = "SCHED_FIFO"
    RR = "SCHED_RR"
    DEADLINE = "SCHED_DEADLINE"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


# ----------------------------------------------------------------------------- events
@dataclass(frozen=True)
class Event:
    """Base of the events a phase executes in order."""

    #: the rt-app key of the event; each event class also defines ``to_value()``
    KEY: ClassVar[str] = ""


@dataclass(frozen=True)
class Run(Event):
    """``run``: a fixed amount of *work*, given as µs at calibration speed.

    rt-app executes ``us * 1000 // pLoad`` loops, so the wall time stretches on a slower
    CPU or OPP (see :mod:`lisa_eas.rtapp` calibration helpers).
    """

    us: int
    KEY: ClassVar[str] = "run"

    def to_value(self):
        return self.us


@dataclass(frozen=True)
class RunTime(Event):
    """``runtime``: busy-loop for ``us`` µs of wall time, whatever the CPU speed."""

    us: int
    KEY: ClassVar[str] = "runtime"

    def to_value(self):
        return self.us


@dataclass(frozen=True)
class Sleep(Event):
    """``sleep``: relative sleep of ``us`` µs."""

    us: int
    KEY: ClassVar[str] = "sleep"

    def to_value(self):
        return self.us


@dataclass(frozen=True)
class Timer(Event):
    """``timer``: sleep until the next absolute period boundary of timer ``ref``.

    ``mode`` is ``"relative"`` (rt-app's default: re-anchor after an overrun) or
    ``"absolute"``; ``None`` = not given. ``ref`` ``"unique"`` gives one timer per thread.
    """

    period_us: int
    ref: str | None = "unique"
    mode: str | None = None
    KEY: ClassVar[str] = "timer"

    def to_value(self):
        v: dict = {}
        if self.ref is not None:
            v["ref"] = self.ref
        v["period"] = self.period_us
        if self.mode is not None:
            v["mode"] = self.mode
        return v


@dataclass(frozen=True)
class _Named(Event):
    name: str

    def to_value(self):
        return self.name


@dataclass(frozen=True)
class Lock(_Named):
    """``lock``: lock mutex ``name``."""

    KEY: ClassVar[str] = "lock"


@dataclass(frozen=True)
class Unlock(_Named):
    """``unlock``: unlock mutex ``name``."""

    KEY: ClassVar[str] = "unlock"


@dataclass(frozen=True)
class Signal(_Named):
    """``signal``: wake one waiter of condition ``name``."""

    KEY: ClassVar[str] = "signal"


@dataclass(frozen=True)
class Broadcast(_Named):
    """``broad``: wake every waiter of condition ``name``."""

    KEY: ClassVar[str] = "broad"


@dataclass(frozen=True)
class Barrier(_Named):
    """``barrier``: wait until every user of barrier ``name`` reached it."""

    KEY: ClassVar[str] = "barrier"


@dataclass(frozen=True)
class Suspend(_Named):
    """``suspend``: block until another thread resumes ``name`` (normally the task itself)."""

    KEY: ClassVar[str] = "suspend"


@dataclass(frozen=True)
class Resume(_Named):
    """``resume``: wake the suspended thread(s) named ``name``."""

    KEY: ClassVar[str] = "resume"


@dataclass(frozen=True)
class Fork(_Named):
    """``fork``: create a new thread of task ``name`` (not in Debian's rt-app 1.0)."""

    KEY: ClassVar[str] = "fork"


@dataclass(frozen=True)
class Yield(_Named):
    """``yield``: ``sched_yield()``; the string value is ignored by rt-app (often ``""``)."""

    name: str = ""
    KEY: ClassVar[str] = "yield"


@dataclass(frozen=True)
class Wait(Event):
    """``wait``: wait on condition ``ref`` with ``mutex`` held."""

    ref: str
    mutex: str
    KEY: ClassVar[str] = "wait"

    def to_value(self):
        return {"ref": self.ref, "mutex": self.mutex}


@dataclass(frozen=True)
class Sync(Event):
    """``sync``: signal condition ``ref`` and wait on it, atomically (``mutex`` held)."""

    ref: str
    mutex: str
    KEY: ClassVar[str] = "sync"

    def to_value(self):
        return {"ref": self.ref, "mutex": self.mutex}


@dataclass(frozen=True)
class Mem(Event):
    """``mem``: write ``nbytes`` into the per-thread memory buffer."""

    nbytes: int
    KEY: ClassVar[str] = "mem"

    def to_value(self):
        return self.nbytes


@dataclass(frozen=True)
class IORun(Event):
    """``iorun``: write ``nbytes`` to the global ``io_device``."""

    nbytes: int
    KEY: ClassVar[str] = "iorun"

    def to_value(self):
        return self.nbytes


#: event classes by rt-app key, longest key first (keys match by prefix: run0, run-1...)
EVENT_TYPES: dict[str, type] = {
    c.KEY: c for c in sorted(
        (Run, RunTime, Sleep, Timer, Lock, Unlock, Signal, Broadcast, Barrier, Suspend, Resume,
         Fork, Yield, Wait, Sync, Mem, IORun), key=lambda c: -len(c.KEY))
}


# -------------------------------------------------------------------- phases and tasks
@dataclass(frozen=True, kw_only=True)
class _Props:
    """Scheduling properties allowed on a task and on a phase (a phase only changes what it sets)."""

    policy: Policy | None = None
    priority: int | None = None
    dl_runtime_us: int | None = None
    dl_period_us: int | None = None
    dl_deadline_us: int | None = None
    cpus: tuple[int, ...] | None = None
    nodes_membind: tuple[int, ...] | None = None
    util_min: int | None = None
    util_max: int | None = None
    taskgroup: str | None = None


@dataclass(frozen=True, kw_only=True)
class Phase(_Props):
    """A sequence of events repeated ``loop`` times (``None`` = rt-app default 1)."""

    name: str = "p0"
    events: tuple[Event, ...] = ()
    loop: int | None = None
    extra: tuple[tuple[str, Any], ...] = ()

    @property
    def loops(self) -> int:
        return 1 if self.loop is None else self.loop

    @property
    def busy_us(self) -> int:
        """Configured run + runtime µs per iteration (rt-app's ``c_duration``)."""
        return sum(e.us for e in self.events if isinstance(e, (Run, RunTime)))

    @property
    def timer_period_us(self) -> int:
        """Sum of timer periods per iteration (rt-app's ``c_period``)."""
        return sum(e.period_us for e in self.events if isinstance(e, Timer))

    @property
    def sleep_us(self) -> int:
        return sum(e.us for e in self.events if isinstance(e, Sleep))

    @property
    def period_us(self) -> int:
        """Nominal length of one iteration: the timer periods if any, else busy + sleep."""
        return self.timer_period_us or (self.busy_us + self.sleep_us)

    @property
    def blocks(self) -> bool:
        """True if an iteration waits on another thread (suspend, wait, sync, barrier) and has
        no timer to set its pace: its length then depends on the other threads."""
        return not self.timer_period_us and any(
            isinstance(e, (Suspend, Wait, Sync, Barrier)) for e in self.events)

    @property
    def duty_cycle(self) -> float | None:
        """Nominal busy / period in [0, 1]; ``None`` if the period is 0 or set by other threads."""
        p = self.period_us
        return self.busy_us / p if p and not self.blocks else None

    @property
    def duration_us(self) -> int | None:
        """Nominal wall time of the phase (loops x period); ``None`` if it loops forever or
        its pace is set by other threads (:attr:`blocks`)."""
        return None if self.loops < 0 or self.blocks else self.loops * self.period_us


@dataclass(frozen=True, kw_only=True)
class Task(_Props):
    """An rt-app task object: ``instance`` threads running ``phases`` ``loop`` times.

    ``inline`` records that the single phase's events sat directly in the task object
    (no ``"phases"`` key); it only affects how the task is written back.
    """

    name: str = "task"
    phases: tuple[Phase, ...] = ()
    loop: int | None = None
    instance: int | None = None
    delay_us: int | None = None
    inline: bool = False
    extra: tuple[tuple[str, Any], ...] = ()

    @property
    def loops(self) -> int:
        """Task-level loop count (rt-app default -1 = forever)."""
        return -1 if self.loop is None else self.loop

    @property
    def instances(self) -> int:
        return 1 if self.instance is None else self.instance

    @property
    def duration_us(self) -> int | None:
        """Nominal wall time (delay + loops x phases); ``None`` if it runs until ``duration``."""
        if self.loops < 0:
            return None
        per = 0
        for ph in self.phases:
            d = ph.duration_us
            if d is None:
                return None
            per += d
        return (self.delay_us or 0) + self.loops * per


@dataclass(frozen=True, kw_only=True)
class GlobalSettings:
    """The ``global`` object. ``None`` = not given (rt-app's default applies).

    rt-app 1.0 (Debian) notes: ``calibration`` as an int (ns per loop) skips a 6-13 s
    calibration; an explicit ``"log_size": "file"`` leaves empty logs (omit it); ``ftrace``
    is a boolean there (newer rt-app also takes a category list string).
    """

    duration_s: int | None = None
    calibration: int | str | None = None
    default_policy: Policy | None = None
    pi_enabled: bool | None = None
    lock_pages: bool | None = None
    logdir: str | None = None
    log_basename: str | None = None
    log_size: int | str | None = None
    ftrace: bool | str | None = None
    gnuplot: bool | None = None
    io_device: str | None = None
    mem_buffer_size: int | None = None
    cumulative_slack: bool | None = None
    extra: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Workload:
    """A whole rt-app workload: global settings and tasks (in file order).

    Build one with the builders (:func:`lisa_eas.rtapp.periodic`, ...), read one with
    :func:`lisa_eas.rtapp.read_workload`, write it with :meth:`to_json`.
    """

    tasks: tuple[Task, ...]
    global_settings: GlobalSettings = field(default_factory=GlobalSettings)
    extra: tuple[tuple[str, Any], ...] = ()
    source: str = field(default="<built>", compare=False)

    def task(self, name: str) -> Task:
        """The task called ``name`` (KeyError if absent)."""
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(f"no task {name!r} in {self.source}; tasks: {[t.name for t in self.tasks]}")

    def with_global(self, **changes) -> "Workload":
        """A copy with some ``global`` settings changed, e.g. ``wl.with_global(calibration=18,
        logdir="/tmp/run", ftrace=True)`` (field names of :class:`GlobalSettings`)."""
        import dataclasses

        from ..errors import WorkloadError

        bad = sorted(set(changes) - {f.name for f in dataclasses.fields(GlobalSettings)})
        if bad:
            raise WorkloadError(f"with_global: unknown settings {bad}; use GlobalSettings field names "
                                "(duration_s, calibration, default_policy, logdir, log_basename, ...)")
        gs = dataclasses.replace(self.global_settings, **changes)
        return dataclasses.replace(self, global_settings=gs)

    def to_json(self, indent: int = 2) -> str:
        """rt-app JSON text that Debian's rt-app 1.0 runs as is (see :func:`write_workload`)."""
        return workload_to_json(self, indent=indent)

    @property
    def duration_s(self) -> float | None:
        """Nominal wall time: the longest task, capped by global ``duration``; None if unknown
        (a task loops forever or waits on other threads, and no global ``duration``)."""
        cap = self.global_settings.duration_s
        cap = None if cap is None or cap < 0 else float(cap)
        durs = [t.duration_us for t in self.tasks if t.instances > 0]
        if not durs:
            return cap
        if any(d is None for d in durs):
            return cap
        d = max(durs) / 1e6
        return d if cap is None else min(d, cap)

    def summary_rows(self) -> list[dict]:
        """One dict per (task, phase): loops, busy/sleep/period µs, nominal duty cycle and duration."""
        rows = []
        for t in self.tasks:
            for ph in t.phases:
                dc = ph.duty_cycle
                rows.append({
                    "task": t.name, "instances": t.instances, "task_loop": t.loops,
                    "phase": ph.name, "loop": ph.loops,
                    "run_us": sum(e.us for e in ph.events if isinstance(e, Run)),
                    "runtime_us": sum(e.us for e in ph.events if isinstance(e, RunTime)),
                    "sleep_us": ph.sleep_us, "timer_period_us": ph.timer_period_us,
                    "period_us": ph.period_us,
                    "duty_cycle_pct": None if dc is None else round(100.0 * dc, 3),
                    "duration_s": None if ph.duration_us is None else ph.duration_us / 1e6,
                    "cpus": ph.cpus if ph.cpus is not None else t.cpus,
                    "policy": (ph.policy or t.policy or self.global_settings.default_policy
                               or Policy.OTHER).value,
                })
        return rows

    def unknown_keys(self) -> list[tuple[str, str]]:
        """Keys kept but not understood by the model, as ``(where, key)`` pairs."""
        out = [("top level", k) for k, _ in self.extra]
        out += [("global", k) for k, _ in self.global_settings.extra]
        for t in self.tasks:
            out += [(f"task {t.name}", k) for k, _ in t.extra]
            for ph in t.phases:
                out += [(f"task {t.name} phase {ph.name}", k) for k, _ in ph.extra]
        return out

    def unmatched_suspend_resume(self) -> list[tuple[str, str, str]]:
        """``(where, key, name)`` of each ``resume`` of a name no thread suspends on (rt-app's
        ``pthread_cond_broadcast`` then wakes nobody) and each ``suspend`` on a name no thread
        resumes (the thread blocks for good), first use of each name, in file order."""
        used: dict[str, dict[str, str]] = {"suspend": {}, "resume": {}}
        for t in self.tasks:
            for ph in t.phases:
                for e in ph.events:
                    if isinstance(e, (Suspend, Resume)):
                        used[e.KEY].setdefault(e.name, f"task {t.name!r}, phase {ph.name!r}")
        return [(where, key, name) for key, other in (("resume", "suspend"), ("suspend", "resume"))
                for name, where in used[key].items() if name not in used[other]]

    def rtapp1_warnings(self) -> list[str]:
        """What Debian's rt-app 1.0 would silently ignore or mishandle in this workload."""
        w = []
        for where, key, name in self.unmatched_suspend_resume():
            w.append(f"{where}: {key} {name!r}: " + ("no thread suspends on it, the resume wakes nobody"
                                                     if key == "resume" else "no thread resumes it, the "
                                                     "thread blocks for good"))
        g = self.global_settings
        if isinstance(g.log_size, str) and g.log_size.lower() == "file":
            w.append('global log_size "file": rt-app 1.0 then writes header-only logs; omit log_size')
        if isinstance(g.ftrace, str):
            w.append("global ftrace: rt-app 1.0 takes a boolean, not a category list")
        for t in self.tasks:
            scopes = [("task", t)] + [("phase " + p.name, p) for p in t.phases]
            for label, obj in scopes:
                for attr, key in (("util_min", "util_min"), ("util_max", "util_max"),
                                  ("taskgroup", "taskgroup"), ("nodes_membind", "nodes_membind")):
                    if getattr(obj, attr) is not None:
                        w.append(f"task {t.name} {label}: rt-app 1.0 ignores {key!r}")
            for ph in t.phases:
                if any(isinstance(e, Fork) for e in ph.events):
                    w.append(f"task {t.name} phase {ph.name}: rt-app 1.0 ignores 'fork' events")
            if t.inline and t.loop is not None and t.loop >= 0:
                w.append(f"task {t.name}: rt-app 1.0 does not stop a phase-less task after "
                         f"loop={t.loop}; put the events in a phase")
        return w
