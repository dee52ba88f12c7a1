"""Track events of a Perfetto trace: counter tracks and slices, with the interned data
they refer to, as two tables of the trace.dat-shaped frames.

Field numbers from Perfetto's ``protos/perfetto/trace/``: ``track_event/track_descriptor.proto``
(uuid 1, name 2, counter 8), ``track_event/track_event.proto`` (type 9: 1 slice begin,
2 slice end, 3 instant, 4 counter; track_uuid 11, name_iid 10, name 23,
debug_annotations 4, counter_value 30, double_counter_value 44),
``track_event/debug_annotation.proto`` (name_iid 1, name 10, bool 2, uint 3, int 4,
double 5, string 6) and ``interned_data/interned_data.proto`` (event_names 2,
debug_annotation_names 3: iid 1, name 2). Interned names live per packet sequence and are
forgotten when a packet sets ``SEQ_INCREMENTAL_STATE_CLEARED`` (sequence_flags bit 1).

* ``track_counter``: one row per counter value: ``track`` (the descriptor's name) and
  ``value`` (float64).
* ``track_slice``: one row per instant and per begin/end pair (``dur`` in ns, 0 for an
  instant; a begin without its end gets -1): ``track``, ``name`` and one column per debug
  annotation name (float64 for numbers, text otherwise).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._pbsmall import as_double, fields, signed64

__all__ = ["Tracks", "TRACK_TABLES"]

TRACK_TABLES = ("track_counter", "track_slice")
_SEQ_CLEARED = 1
_BEGIN, _END, _INSTANT, _COUNTER = 1, 2, 3, 4


def _text(b) -> str:
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)


class Tracks:
    """Collects the track packets of a trace (in file order) and builds the tables."""

    def __init__(self):
        self.desc: dict[int, tuple[str, bool]] = {}
        self.interned: dict[int, tuple[dict, dict]] = {}
        self.counters: list[tuple[int, int, float]] = []
        self.slices: list[tuple[int, int, int, str, dict]] = []   # ts, uuid, type, name, args

    def packet(self, data: bytes, seq: int, flags: int, ts: int) -> None:
        """One TracePacket (its bytes) of sequence ``seq``; ``ts`` on the primary clock."""
        if flags & _SEQ_CLEARED or seq not in self.interned:
            self.interned[seq] = ({}, {})
        names, anns = self.interned[seq]
        event = None
        for f, w, v in fields(data):
            if f == 12 and w == 2:
                for g, w2, u in fields(v):
                    if g in (2, 3) and w2 == 2:
                        d = {h: x for h, _, x in fields(u)}
                        (names if g == 2 else anns)[d.get(1, 0)] = _text(d.get(2, b""))
            elif f == 60 and w == 2:
                d = {}
                for g, _, u in fields(v):
                    d[g] = u
                self.desc[d.get(1, 0)] = (_text(d.get(2, b"")), 8 in d)
            elif f == 11 and w == 2:
                event = v
        if event is not None:
            self._event(event, names, anns, ts)

    def _event(self, data: bytes, names: dict, anns: dict, ts: int) -> None:
        typ, uuid, name, args, value = 0, 0, "", {}, None
        for f, w, v in fields(data):
            if f == 9:
                typ = v
            elif f == 11:
                uuid = v
            elif f == 10:
                name = names.get(v, f"name_{v}")
            elif f == 23 and w == 2:
                name = _text(v)
            elif f == 30 and w == 0:
                value = float(signed64(v))
            elif f == 44 and w == 1:
                value = as_double(v)
            elif f == 4 and w == 2:
                key, val = None, None
                for g, w2, u in fields(v):
                    if g == 1:
                        key = anns.get(u, f"arg_{u}")
                    elif g == 10 and w2 == 2:
                        key = _text(u)
                    elif g in (2, 3):
                        val = float(u)
                    elif g == 4:
                        val = float(signed64(u))
                    elif g == 5 and w2 == 1:
                        val = as_double(u)
                    elif g == 6 and w2 == 2:
                        val = _text(u)
                if key is not None and val is not None:
                    args[key] = val
        if typ == _COUNTER:
            if value is not None:
                self.counters.append((ts, uuid, value))
        elif typ in (_BEGIN, _END, _INSTANT):
            self.slices.append((ts, uuid, typ, name, args))

    def _track(self, uuid: int) -> str:
        return self.desc.get(uuid, (f"track_{uuid}", False))[0]

    def frames(self, frame) -> dict[str, pd.DataFrame]:
        """The ``track_counter`` and ``track_slice`` frames (built with ``frame(ts, cols,
        cpu, pid, comm)``)."""
        out = {}
        if self.counters:
            c = sorted(self.counters, key=lambda r: r[0])
            n = len(c)
            out["track_counter"] = frame(
                np.array([r[0] for r in c], np.int64),
                {"track": pd.Categorical([self._track(r[1]) for r in c]),
                 "value": np.array([r[2] for r in c], np.float64)},
                np.full(n, -1), np.full(n, -1), None)
        rows = []
        open_: dict[int, list] = {}
        for ts, uuid, typ, name, args in self.slices:
            if typ == _INSTANT:
                rows.append([ts, uuid, name, 0, args])
            elif typ == _BEGIN:
                row = [ts, uuid, name, -1, args]
                rows.append(row)
                open_.setdefault(uuid, []).append(row)
            elif open_.get(uuid):
                row = open_[uuid].pop()
                row[3] = ts - row[0]
                row[4] = {**row[4], **args}
        if rows:
            rows.sort(key=lambda r: r[0])
            n = len(rows)
            cols = {"track": pd.Categorical([self._track(r[1]) for r in rows]),
                    "name": pd.Categorical([r[2] for r in rows]),
                    "dur": np.array([r[3] for r in rows], np.int64)}
            keys = list(dict.fromkeys(k for r in rows for k in r[4]))
            for k in keys:
                vals = [r[4].get(k) for r in rows]
                if all(v is None or isinstance(v, float) for v in vals):
                    cols[k] = np.array([np.nan if v is None else v for v in vals], np.float64)
                else:
                    cols[k] = pd.Categorical(["" if v is None else str(v) for v in vals])
            out["track_slice"] = frame(np.array([r[0] for r in rows], np.int64), cols,
                                       np.full(n, -1), np.full(n, -1), None)
        return out
