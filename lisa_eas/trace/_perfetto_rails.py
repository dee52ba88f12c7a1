"""Power rails and battery counters of a Perfetto trace, as tables of the trace.dat-shaped
frames.

Field numbers from Perfetto's ``protos/perfetto/trace/power/power_rails.proto``
(``PowerRails``: rail_descriptor 1 {index 1, rail_name 2, subsys_name 3}, energy_data 2
{index 1, timestamp_ms 2, energy 3 (uWs)}) and ``power/battery_counters.proto``
(charge_counter_uah 1, capacity_percent 2 (float), current_ua 3, current_avg_ua 4,
name 5, energy_counter_uwh 6, voltage_uv 7).

* ``power_rails``: one row per energy sample: ``rail``, ``subsys``, ``energy_uws``
  (cumulative, as the meter gives it) and ``power_mw`` (the mean power since the rail's
  previous sample; NaN for its first).
* ``battery``: one row per packet, NaN where a counter is absent.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._pbsmall import as_float, fields, signed64

__all__ = ["Rails"]

_BATTERY = ("charge_counter_uah", "capacity_percent", "current_ua", "current_avg_ua",
            "energy_counter_uwh", "voltage_uv")


class Rails:
    """Collects power rail and battery packets and builds their tables."""

    def __init__(self):
        self.desc: dict[int, tuple[str, str]] = {}
        self.rows: list[tuple[int, int, int]] = []
        self.batt: list[tuple] = []

    def power_rails(self, data: bytes) -> None:
        """A ``PowerRails`` message (its samples carry their own boot-clock times)."""
        for f, _, v in fields(data):
            if f == 1:
                d = {g: u for g, _, u in fields(v)}
                self.desc[d.get(1, 0)] = (d.get(2, b"").decode("utf-8", "replace"),
                                          d.get(3, b"").decode("utf-8", "replace"))
            elif f == 2:
                d = {g: u for g, _, u in fields(v)}
                self.rows.append((d.get(1, 0), d.get(2, 0), d.get(3, 0)))

    def battery(self, data: bytes, ts: int) -> None:
        """A ``BatteryCounters`` message of the packet at ``ts``."""
        d = {1: np.nan, 2: np.nan, 3: np.nan, 4: np.nan, 6: np.nan, 7: np.nan}
        name = ""
        for f, w, v in fields(data):
            if f == 2 and w == 5:
                d[2] = as_float(v)
            elif f == 5:
                name = v.decode("utf-8", "replace")
            elif f in d and w == 0:
                d[f] = float(signed64(v))
        self.batt.append((ts, d[1], d[2], d[3], d[4], d[6], d[7], name))

    def frames(self, frame, to_primary) -> dict[str, pd.DataFrame]:
        """The ``power_rails`` and ``battery`` frames (``frame(ts, cols, cpu, pid, comm)``
        builds one; ``to_primary(ts)`` puts boot-clock times on the trace clock)."""
        out = {}
        if self.rows:
            r = np.array(self.rows, np.uint64)
            idx = r[:, 0].astype(np.int64)
            ts = to_primary(r[:, 1].astype(np.int64) * 1_000_000)
            energy = r[:, 2]
            order = np.lexsort((ts, idx))
            idx, ts, energy = idx[order], ts[order], energy[order]
            e = energy.astype(np.float64)
            same = np.r_[False, idx[1:] == idx[:-1]]
            dt = np.r_[0, np.diff(ts)].astype(np.float64)
            de = np.r_[0.0, np.diff(e)]
            with np.errstate(divide="ignore", invalid="ignore"):
                power = np.where(same & (dt > 0), de / (dt / 1e9) / 1000.0, np.nan)
            names = [self.desc.get(int(i), (f"rail_{int(i)}", ""))[0] for i in idx]
            subsys = [self.desc.get(int(i), ("", ""))[1] for i in idx]
            order2 = np.argsort(ts, kind="stable")
            n = len(ts)
            out["power_rails"] = frame(
                ts[order2], {"rail": pd.Categorical(np.array(names, object)[order2]),
                             "subsys": pd.Categorical(np.array(subsys, object)[order2]),
                             "energy_uws": energy[order2], "power_mw": power[order2]},
                np.full(n, -1), np.full(n, -1), None)
        if self.batt:
            b = sorted(self.batt, key=lambda x: x[0])
            ts = np.array([x[0] for x in b], np.int64)
            cols = {name: np.array([x[i] for x in b], np.float64)
                    for i, name in enumerate(_BATTERY, start=1)}
            cols["name"] = pd.Categorical([x[7] for x in b])
            n = len(ts)
            out["battery"] = frame(ts, cols, np.full(n, -1), np.full(n, -1), None)
        return out

    def names(self) -> list[str]:
        return sorted({v[0] for v in self.desc.values()})
