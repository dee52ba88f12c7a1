"""Read rt-app JSON (the json-c dialect plus workgen's liberties) into the workload model.

Every error is a :class:`~lisa_eas.errors.WorkloadError` naming ``file:line:column``, the
key and the fix. Keys the model does not know are kept (see :mod:`._model`), or rejected
with their position when ``strict=True``.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import WorkloadError
from ._jsonc import BARE, JArray, JMember, JObject, JScalar, parse_jsonc
from ._model import (EVENT_TYPES, GlobalSettings, Phase, Policy, Resume, Suspend, Task, Timer, Wait,
                     Sync, Workload, Yield, RunTime, Run, Sleep, Mem, IORun)

__all__ = ["read_workload", "workload_from_json"]

_LEGACY_KEYS = {"exec", "period", "deadline", "lock_order", "resources", "exec jitter", "hard_rsv"}
# properties allowed on a task and a phase -> model field
_PROP_KEYS = {"policy": "policy", "priority": "priority", "dl-runtime": "dl_runtime_us",
              "dl-period": "dl_period_us", "dl-deadline": "dl_deadline_us", "cpus": "cpus",
              "nodes_membind": "nodes_membind", "util_min": "util_min", "util_max": "util_max",
              "taskgroup": "taskgroup"}
# newer rt-app events the model does not represent: kept as unknown keys, never mis-read as mem/...
_KEPT_EVENT_PREFIXES = ("memrun", "sem_post", "sem_wait")
_CALIB_RE = re.compile(r"^CPU\d+$")


def plain(node) -> Any:
    """A JSON node as plain Python (objects -> dict; a repeated key keeps its last value, as json-c)."""
    if isinstance(node, JObject):
        return {m.key: plain(m.value) for m in node.members}
    if isinstance(node, JArray):
        return [plain(v) for v in node.items]
    return None if node.value is BARE else node.value


class _Ctx:
    def __init__(self, source: str, strict: bool):
        self.source = source
        self.strict = strict

    def fail(self, node, what: str, fix: str, key: str | None = None):
        k = f" key {key!r}:" if key else ""
        raise WorkloadError(f"{self.source}:{node.line}:{node.col}:{k} {what}; {fix}")

    # typed scalars ---------------------------------------------------------------------
    def scalar(self, m: JMember):
        if not isinstance(m.value, JScalar):
            kind = "an object" if isinstance(m.value, JObject) else "an array"
            self.fail(m, f"expected a single value, got {kind}", "see the rt-app tutorial for its type",
                      m.key)
        if m.value.value is BARE:
            self.fail(m, "key without a value",
                      f'write "{m.key}": <value> (only "suspend" and "yield" may be left bare)', m.key)
        return m.value.value

    def int_(self, m: JMember, lo: int | None = None, what: str = "an integer") -> int:
        v = self.scalar(m)
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(m.value, f"expected {what}, got {v!r}", f'write "{m.key}": <integer>', m.key)
        if lo is not None and v < lo:
            self.fail(m.value, f"{v} is below the minimum {lo}",
                      f"use a value >= {lo} (rt-app misbehaves on negative times)", m.key)
        return v

    def str_(self, m: JMember) -> str:
        v = self.scalar(m)
        if not isinstance(v, str):
            self.fail(m.value, f"expected a string, got {v!r}", f'write "{m.key}": "<name>"', m.key)
        return v

    def bool_(self, m: JMember) -> bool:
        v = self.scalar(m)
        if not isinstance(v, bool):
            self.fail(m.value, f"expected true or false, got {v!r}", f'write "{m.key}": true|false', m.key)
        return v

    def policy(self, m: JMember) -> Policy:
        v = self.str_(m)
        try:
            return Policy(v)
        except ValueError:
            self.fail(m.value, f"unknown policy {v!r}",
                      "use one of " + ", ".join(p.value for p in Policy), m.key)

    def int_list(self, m: JMember) -> tuple[int, ...]:
        if not isinstance(m.value, JArray):
            self.fail(m.value, "expected an array of CPU numbers", f'write "{m.key}": [0, 1]', m.key)
        out = []
        for it in m.value.items:
            v = getattr(it, "value", None)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                self.fail(it, f"expected a CPU/node number >= 0, got {plain(it)!r}",
                          f'write "{m.key}": [0, 1]', m.key)
            out.append(v)
        return tuple(out)

    def unknown(self, m: JMember, where: str, extra: list):
        if self.strict:
            self.fail(m, f"unknown key in {where}",
                      "remove it or fix its spelling (read with strict=False to keep it as is)", m.key)
        extra.append((m.key, plain(m.value)))


def _no_dup(ctx: _Ctx, seen: dict, m: JMember, where: str) -> None:
    if m.key in seen:
        first = seen[m.key]
        ctx.fail(m, f"repeated in {where} (first at {first.line}:{first.col})",
                 "keep a single one", m.key)
    seen[m.key] = m


def _props(ctx: _Ctx, m: JMember) -> tuple[str, Any]:
    f = _PROP_KEYS[m.key]
    if f == "policy":
        return f, ctx.policy(m)
    if f in ("cpus", "nodes_membind"):
        return f, ctx.int_list(m)
    if f == "taskgroup":
        return f, ctx.str_(m)
    if f == "priority":
        return f, ctx.int_(m)
    if f in ("util_min", "util_max"):
        v = ctx.int_(m, lo=-1)
        if v > 1024:
            ctx.fail(m.value, f"{v} is above 1024", "uclamp values are in [0, 1024] (-1 = unset)", m.key)
        return f, v
    return f, ctx.int_(m, lo=0)


def _event(ctx: _Ctx, m: JMember, cls: type, task_name: str):
    v = m.value
    if isinstance(v, JScalar) and v.value is BARE:
        if cls is Suspend:
            return Suspend(task_name)  # what workgen fills in
        if cls is Yield:
            return Yield("")
        ctx.fail(m, "event without a value", f'write "{m.key}": <value> (only "suspend" and "yield" '
                 "may be left bare)", m.key)
    if cls is Suspend and isinstance(v, JScalar) and v.value == "":
        return Suspend(task_name)  # an empty suspend is filled in the same way
    if cls is Resume and isinstance(v, JScalar) and v.value == "":
        ctx.fail(v, "resume without a name", f'write "{m.key}": "<name of the suspended thread>" (the task '
                 "name its \"suspend\" waits on)", m.key)
    if cls in (Run, RunTime, Sleep):
        return cls(ctx.int_(m, lo=0, what="a time in microseconds"))
    if cls in (Mem, IORun):
        return cls(ctx.int_(m, lo=0, what="a size in bytes"))
    if cls in (Timer, Wait, Sync):
        if not isinstance(v, JObject):
            fix = ('write "timer": {"ref": "unique", "period": <us>}' if cls is Timer
                   else f'write "{m.key}": {{"ref": "<cond>", "mutex": "<mutex>"}}')
            ctx.fail(v, f"expected an object, got {plain(v)!r}", fix, m.key)
        fields: dict = {}
        seen: dict = {}
        allowed = ("ref", "period", "mode") if cls is Timer else ("ref", "mutex")
        for sub in v:
            _no_dup(ctx, seen, sub, f"{m.key!r}")
            if sub.key not in allowed:
                ctx.fail(sub, f"unknown key in {m.key!r}", "allowed keys: " + ", ".join(allowed), sub.key)
            if sub.key == "period":
                fields["period_us"] = ctx.int_(sub, lo=1, what="a period in microseconds")
            elif sub.key == "mode":
                mode = ctx.str_(sub)
                if mode not in ("relative", "absolute"):
                    ctx.fail(sub.value, f"unknown timer mode {mode!r}", 'use "relative" or "absolute"',
                             "mode")
                fields["mode"] = mode
            else:
                fields[sub.key] = ctx.str_(sub)
        if cls is Timer:
            if "period_us" not in fields:
                ctx.fail(v, "timer without a period", 'add "period": <us>', m.key)
            fields.setdefault("ref", None)
        else:
            for need in ("ref", "mutex"):
                if need not in fields:
                    ctx.fail(v, f"missing {need!r}", f'write "{m.key}": {{"ref": "<cond>", "mutex": '
                             '"<mutex>"}', m.key)
        return cls(**fields)
    return cls(ctx.str_(m))


def _event_class(key: str):
    if key.startswith(_KEPT_EVENT_PREFIXES):
        return None
    for base, cls in EVENT_TYPES.items():  # longest key first: runtime before run
        if key.startswith(base):
            return cls
    return None


def _legacy(ctx: _Ctx, m: JMember):
    ctx.fail(m, "rt-app 0.x grammar, replaced by events in 2015 (rt-app 1.0 answers 'Unknown or "
             "mismatch ... event type' and runs the task without this work)",
             'rewrite the task with events, e.g. "run": <exec us>, "timer": {"ref": "unique", '
             '"period": <period us>}, and lock/unlock events instead of "resources"/"lock_order"',
             m.key)


def _phase_body(ctx: _Ctx, obj: JObject, task_name: str, where: str, allowed_extra: tuple):
    """Events, properties and unknown keys of a phase (or of a task written inline)."""
    events, props, extra, special = [], {}, [], []
    seen: dict = {}
    for m in obj:
        if m.key in _PROP_KEYS or m.key == "loop" or m.key in allowed_extra:
            _no_dup(ctx, seen, m, where)
            if m.key in _PROP_KEYS:
                f, val = _props(ctx, m)
                props[f] = val
            else:
                special.append(m)
            continue
        if m.key in _LEGACY_KEYS:
            _legacy(ctx, m)
        cls = _event_class(m.key)
        if cls is None:
            _no_dup(ctx, seen, m, where)  # kept keys are written back once each
            ctx.unknown(m, where, extra)
        else:
            events.append(_event(ctx, m, cls, task_name))
    return events, props, extra, special


def _loop(ctx: _Ctx, m: JMember) -> int:
    v = ctx.int_(m, lo=-1)
    if v == 0:
        ctx.fail(m.value, "loop 0 runs nothing", "use -1 (forever) or a count >= 1", "loop")
    return v


def _task(ctx: _Ctx, m: JMember) -> Task:
    name = m.key
    if not isinstance(m.value, JObject):
        ctx.fail(m.value, f"task {name!r} must be an object", f'write "{name}": {{"run": ..., ...}}', name)
    where = f"task {name!r}"
    events, props, extra, special = _phase_body(ctx, m.value, name, where,
                                                ("instance", "delay", "phases"))
    kw: dict = dict(props)
    phases_m = None
    for s in special:
        if s.key == "loop":
            kw["loop"] = _loop(ctx, s)
        elif s.key == "instance":
            kw["instance"] = ctx.int_(s, lo=0)
        elif s.key == "delay":
            kw["delay_us"] = ctx.int_(s, lo=0, what="a delay in microseconds")
        else:
            phases_m = s
    if phases_m is not None:
        if events:
            ctx.fail(phases_m, f"{where} has both \"phases\" and events at task level",
                     "move the task-level events into a phase", "phases")
        if not isinstance(phases_m.value, JObject) or not phases_m.value.members:
            ctx.fail(phases_m.value, "expected a non-empty object of phases",
                     'write "phases": {"p0": {"run": ..., ...}}', "phases")
        phases, names = [], set()
        for pm in phases_m.value:
            if not isinstance(pm.value, JObject):
                ctx.fail(pm.value, f"phase {pm.key!r} must be an object",
                         f'write "{pm.key}": {{"run": ..., ...}}', pm.key)
            pwhere = f"{where} phase {pm.key!r}"
            pev, pprops, pextra, pspecial = _phase_body(ctx, pm.value, name, pwhere, ())
            if not pev:
                ctx.fail(pm, f"{pwhere} has no events", "add events such as run/sleep/timer", pm.key)
            pname, k = pm.key, 2
            while pname in names:  # a repeated phase key: kept (json-c would keep only the last)
                pname, k = f"{pm.key}-{k}", k + 1
            names.add(pname)
            ploop = _loop(ctx, pspecial[0]) if pspecial else None
            phases.append(Phase(name=pname, events=tuple(pev), loop=ploop, extra=tuple(pextra),
                                **pprops))
        return Task(name=name, phases=tuple(phases), extra=tuple(extra), **kw)
    if not events:
        ctx.fail(m, f"{where} has no events and no phases", "add events such as run/sleep/timer", name)
    return Task(name=name, phases=(Phase(name="", events=tuple(events)),), inline=True,
                extra=tuple(extra), **kw)


def _global(ctx: _Ctx, m: JMember) -> GlobalSettings:
    if not isinstance(m.value, JObject):
        ctx.fail(m.value, "\"global\" must be an object", 'write "global": {"duration": -1, ...}', "global")
    kw: dict = {}
    extra: list = []
    seen: dict = {}
    for g in m.value:
        _no_dup(ctx, seen, g, "global")
        k = g.key
        if k == "duration":
            kw["duration_s"] = ctx.int_(g, lo=-1, what="a duration in seconds")
        elif k == "calibration":
            v = ctx.scalar(g)
            if isinstance(v, bool) or not (isinstance(v, int) and v > 0
                                           or isinstance(v, str) and _CALIB_RE.match(v)):
                ctx.fail(g.value, f"invalid calibration {v!r}",
                         'give "CPU<n>" (calibrate on that CPU) or ns per loop as an integer > 0', k)
            kw["calibration"] = v
        elif k == "default_policy":
            kw["default_policy"] = ctx.policy(g)
        elif k in ("pi_enabled", "lock_pages", "gnuplot", "cumulative_slack"):
            kw[k] = ctx.bool_(g)
        elif k in ("logdir", "log_basename", "io_device"):
            kw[k] = ctx.str_(g)
        elif k == "mem_buffer_size":
            kw[k] = ctx.int_(g, lo=1, what="a size in bytes")
        elif k == "log_size":
            v = ctx.scalar(g)
            if not ((isinstance(v, int) and not isinstance(v, bool) and v >= 0)
                    or (isinstance(v, str) and v.lower() in ("file", "disable", "auto"))):
                ctx.fail(g.value, f"invalid log_size {v!r}",
                         'give MB per thread as an integer, or "file", "disable", "auto" '
                         '(better: omit it on rt-app 1.0)', k)
            kw[k] = v
        elif k == "ftrace":
            v = ctx.scalar(g)
            if not isinstance(v, (bool, str)):
                ctx.fail(g.value, f"invalid ftrace {v!r}", "give true/false (rt-app 1.0) or a category "
                         'list such as "main,task,loop,event"', k)
            kw[k] = v
        else:
            ctx.unknown(g, "global", extra)
    return GlobalSettings(extra=tuple(extra), **kw)


def workload_from_json(text: str, source: str = "<string>", *, strict: bool = False) -> Workload:
    """Read a workload from rt-app JSON text.

    Parameters
    ----------
    text : str
        rt-app JSON (comments, trailing commas, repeated event keys and bare ``"suspend"``
        keys accepted).
    source : str
        Name used in error messages.
    strict : bool
        Reject keys the model does not understand instead of keeping them.

    Returns
    -------
    Workload

    Raises
    ------
    WorkloadError
        With ``source:line:column``, the key and the fix.
    """
    ctx = _Ctx(source, strict)
    root = parse_jsonc(text, source)
    tasks_m = glob_m = None
    extra: list = []
    seen: dict = {}
    for m in root:
        if m.key == "tasks":
            _no_dup(ctx, seen, m, "the top level")
            tasks_m = m
        elif m.key == "global":
            _no_dup(ctx, seen, m, "the top level")
            glob_m = m
        else:
            # "resources" here is the legacy, optional declaration block: kept as is
            _no_dup(ctx, seen, m, "the top level")
            ctx.unknown(m, "the top level", extra)
    if tasks_m is None:
        ctx.fail(root, "no \"tasks\" object (rt-app rejects the file)",
                 'add "tasks": {"<name>": {...}} (a fragment such as merge/global.json must be merged '
                 "with task files first)")
    if not isinstance(tasks_m.value, JObject) or not tasks_m.value.members:
        ctx.fail(tasks_m.value, "\"tasks\" must be a non-empty object", 'write "tasks": {"t0": {...}}',
                 "tasks")
    tasks, tseen = [], {}
    for tm in tasks_m.value:
        _no_dup(ctx, tseen, tm, "tasks")
        tasks.append(_task(ctx, tm))
    gs = _global(ctx, glob_m) if glob_m is not None else GlobalSettings()
    return Workload(tasks=tuple(tasks), global_settings=gs, extra=tuple(extra), source=source)


def read_workload(path, *, strict: bool = False) -> Workload:
    """Read an rt-app JSON workload file (see :func:`workload_from_json`).

    Raises
    ------
    WorkloadError
        If the file cannot be read or is not a valid workload (file:line:column, key, fix).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WorkloadError(f"{p}: no such file; check the path") from None
    except IsADirectoryError:
        raise WorkloadError(f"{p}: is a directory; give an rt-app .json file") from None
    except UnicodeDecodeError as exc:
        raise WorkloadError(f"{p}: byte {exc.start} is not UTF-8; save the file as UTF-8 text") from None
    except OSError as exc:
        raise WorkloadError(f"{p}: cannot be read ({exc.strerror}); check permissions") from None
    return workload_from_json(text, str(p), strict=strict)
