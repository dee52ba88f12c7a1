"""Declaring the events an analysis needs."""
from __future__ import annotations

import functools

from ..errors import MissingTraceEventError

__all__ = ["requires_events", "check_events", "RECORD_HINT"]

RECORD_HINT = ("record them by adding them to the traced events (tracefs set_event, e.g. "
               "`echo sched:sched_switch >> /sys/kernel/tracing/set_event`, or the events list "
               "of `lisa-eas run`), then `trace-cmd extract`")


def check_events(trace, events) -> None:
    """Raise :class:`MissingTraceEventError` if ``trace`` lacks any of ``events``."""
    present = set(trace.events)
    missing = [e for e in events if e not in present]
    if missing:
        raise MissingTraceEventError(missing, RECORD_HINT)


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
