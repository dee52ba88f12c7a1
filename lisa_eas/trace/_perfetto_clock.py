"""Clock snapshots of a Perfetto trace: every timestamp put on the trace's primary clock.

A ``ClockSnapshot`` packet (``clock_snapshot.proto``: repeated ``Clock {clock_id = 1,
timestamp = 2}``, ``primary_trace_clock = 2``) reads several clocks at one instant. As
trace_processor's clock tracker does, a timestamp of clock A is moved onto the primary
clock with the snapshot nearest before it: ``t + (primary - A)`` of the latest snapshot
whose A reading is at or before ``t`` (the first snapshot for earlier timestamps). Clocks
that drift apart over a long trace (MONOTONIC vs BOOTTIME across a suspend) are thus
followed snapshot by snapshot rather than frozen at the first one.
"""
from __future__ import annotations

import numpy as np

from ._pbsmall import fields

__all__ = ["Clocks", "CLOCK_NAMES", "BOOT", "MONO_RAW", "METHOD"]

CLOCK_NAMES = {1: "realtime", 2: "realtime_coarse", 3: "mono", 4: "mono_coarse", 5: "mono_raw",
               6: "boot"}
BOOT, MONO_RAW = 6, 5
METHOD = ("each timestamp moved onto the primary clock by the offset of the latest clock "
          "snapshot at or before it (the first snapshot for earlier ones), as trace_processor")


class Clocks:
    """The clock snapshots of a trace and the primary (trace) clock."""

    def __init__(self):
        self.primary = BOOT
        self.snaps: list[dict[int, int]] = []

    def add_snapshot(self, data: bytes) -> None:
        """Add the ``ClockSnapshot`` message ``data``."""
        clocks = {}
        primary = None
        for f, _, v in fields(data):
            if f == 1:
                cid = ts = None
                for g, _, u in fields(v):
                    if g == 1:
                        cid = u
                    elif g == 2:
                        ts = u
                if cid is not None and ts is not None:
                    clocks[cid] = ts
            elif f == 2:
                primary = v
        if primary:
            self.primary = primary
        if clocks:
            self.snaps.append(clocks)

    def _pairs(self, clock_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(readings of ``clock_id``, offsets to the primary clock) of the snapshots holding
        both, in reading order."""
        pts = sorted((s[clock_id], s[self.primary] - s[clock_id]) for s in self.snaps
                     if clock_id in s and self.primary in s)
        return (np.array([p[0] for p in pts], np.int64), np.array([p[1] for p in pts], np.int64))

    def offset(self, clock_id: int) -> int:
        """Offset from ``clock_id`` to the primary clock at the first snapshot (0 for the
        primary clock itself, clock 0 and clocks no snapshot relates to it)."""
        if clock_id in (0, self.primary):
            return 0
        _, off = self._pairs(clock_id)
        return int(off[0]) if len(off) else 0

    def to_primary(self, ts, clock_id: int):
        """``ts`` (a number or an int64 array of ``clock_id`` readings) on the primary clock.
        An array whose offset is constant is shifted in place."""
        if clock_id in (0, self.primary):
            return ts
        src, off = self._pairs(clock_id)
        if not len(off):
            return ts
        if np.ndim(ts) == 0:
            i = max(int(np.searchsorted(src, ts, side="right")) - 1, 0)
            return int(ts) + int(off[i])
        if (off == off[0]).all():
            ts += off[0]
            return ts
        i = np.searchsorted(src, ts, side="right") - 1
        np.maximum(i, 0, out=i)
        ts += off[i]
        return ts

    def metadata(self) -> dict:
        return {"clock": CLOCK_NAMES.get(self.primary, f"clock_{self.primary}"),
                "clock_snapshots": len(self.snaps), "clock_method": METHOD}
