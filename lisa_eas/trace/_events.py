"""Declaring the events an analysis needs."""
from __future__ import annotations

import functools
import json
from pathlib import Path

from ..errors import MissingTraceEventError

__all__ = ["requires_events", "check_events", "missing_events_error", "why_missing", "RECORD_HINT"]

RECORD_HINT = ("record them by adding them to the traced events (tracefs set_event, e.g. "
               "`echo sched:sched_switch >> /sys/kernel/tracing/set_event`, or the events list "
               "of `lisa-eas run`), then `trace-cmd extract`")


def _run_dir_facts(trace) -> tuple[dict, dict]:
    """``(run.json, target.json)`` of the ``lisa-eas run`` directory holding the trace file,
    ``({}, {})`` when the trace does not come from one."""
    src = str(trace.metadata.get("source") or "")
    facts = []
    for name in ("run.json", "target.json"):
        try:
            d = json.loads((Path(src).parent / name).read_text()) if src else {}
        except (OSError, ValueError):
            d = {}
        facts.append(d if isinstance(d, dict) else {})
    return facts[0], facts[1]


def why_missing(trace, event: str) -> str | None:
    """Why ``trace`` has no ``event`` when the trace itself can tell: it was recorded but left
    out by ``events=``, or the machine that recorded it cannot produce it. ``None`` when
    the event was simply not recorded."""
    counts = trace.metadata.get("event_counts") or {}
    n = counts.get(event, 0)
    if n:
        return (f"{event} is in the trace file ({n} records) but was filtered out when it was read "
                f"(events=...): read it again without events=, or with {event!r} in the list")
    meta_why = (trace.metadata.get("unavailable_events") or {}).get(event)
    if meta_why:
        return f"{event} cannot be produced here: {meta_why}"
    run, target = _run_dir_facts(trace)
    if not run and not target:
        return None
    tracing = run.get("tracing") or {}
    enabled = {str(e).split(":")[-1] for e in tracing.get("events", [])}
    skipped = {str(e).split(":")[-1] for e in tracing.get("skipped_events", [])}
    if event in skipped:
        return (f"{event} cannot be produced on this machine: its kernel has no such trace event (the run "
                f"skipped it, see run.json tracing.skipped_events)")
    if event == "cpu_frequency" and target and not target.get("cpufreq_policies"):
        return ("cpu_frequency cannot be produced on this machine: it has no cpufreq (no CPU frequency "
                "scaling, e.g. a VM; target.json cpufreq_policies is empty), so the kernel never emits it. "
                "Frequency analyses need a board with cpufreq")
    if event == "cpu_idle" and target and not any(target.get("idle_states") or {}):
        return ("cpu_idle cannot be produced on this machine: it has no cpuidle states (target.json "
                "idle_states is empty)")
    if event in enabled:
        return (f"{event} was enabled during the run but the kernel emitted none: this machine does not "
                f"produce it (or did not during this workload)")
    return None


def missing_events_error(trace, missing, hint: str = RECORD_HINT) -> MissingTraceEventError:
    """The :class:`MissingTraceEventError` for ``missing`` events of ``trace``: each event the
    trace can explain (filtered out, or not producible on the machine) says so; the recording
    ``hint`` is kept for the others."""
    missing = list(missing)
    reasons = [r for r in (why_missing(trace, e) for e in missing) if r]
    unexplained = [e for e in missing if not why_missing(trace, e)]
    parts = reasons + ([hint] if unexplained and hint else [])
    return MissingTraceEventError(missing, "; ".join(parts))


def check_events(trace, events) -> None:
    """Raise :class:`MissingTraceEventError` if ``trace`` lacks any of ``events``."""
    present = set(trace.events)
    missing = [e for e in events if e not in present]
    if missing:
        raise missing_events_error(trace, missing, RECORD_HINT)


def requires_events(*events: str):
    """Decorator for analyses taking a :class:`~lisa_eas.trace.Trace` as first argument.

    The wrapped function raises :class:`MissingTraceEventError` naming the missing events
    and how to record them before doing any work. The needed events are listed in the
    wrapper's ``required_events`` attribute.

    Examples
    --------
    >>> @requires_events("sched_switch", "sched_wakeup")
    ... def wakeup_latency(trace):
    ...     ...
    """
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(trace, *args, **kwargs):
            check_events(trace, events)
            return fn(trace, *args, **kwargs)
        wrapper.required_events = tuple(events)
        return wrapper
    return deco
