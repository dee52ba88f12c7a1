"""Trace ingest: trace.dat (v6/v7), trace-cmd/tracefs text and Android systrace/atrace
into one :class:`Trace` object with a DataFrame per event in LISA's schema.

>>> from lisa_eas.trace import read_trace
>>> trace = read_trace("trace.dat")
>>> trace.df("sched_switch")
"""
from __future__ import annotations

from ._datcount import TraceSummary, summarize_trace
from ._events import check_events, requires_events
from ._skips import SkipReport
from ._trace import SCHEMA_COLUMNS, Trace, read_trace

__all__ = ["SCHEMA_COLUMNS", "SkipReport", "Trace", "TraceSummary", "check_events", "read_trace",
           "requires_events", "summarize_trace"]
