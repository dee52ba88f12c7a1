"""rt-app calibration: ns per loop (``pLoad``), and how long a ``run`` lasts on a given CPU/OPP.

rt-app turns ``"run": t`` (µs) into ``t * 1000 // pLoad`` busy loops, where ``pLoad`` is
the ns per loop measured on the calibration CPU at its top speed (or given as an
integer ``calibration``). The *work* is fixed, so on a CPU of capacity ``c`` running at
``f`` out of ``f_max`` the wall time stretches to about::

    t_wall = loops * pLoad * (cal_capacity / c) * (f_max / f) / 1000   [µs]

``runtime`` events instead keep wall time. These helpers are pure functions; running
the calibration on a board is the target layer's job (it parses rt-app's output with
:func:`parse_pload`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import WorkloadError

__all__ = ["Calibration", "measured_ns_per_loop", "parse_pload", "run_loops"]

# rt-app 1.0: "[rt-app] <notice> pLoad = 355ns"; newer: "pLoad = 355ns : calib_cpu 4"
_PLOAD_RE = re.compile(r"pLoad\s*=\s*(\d+)\s*ns(?:\s*:\s*calib_cpu\s*(\d+))?")


def parse_pload(text: str) -> dict:
    """ns-per-loop values printed by rt-app, as ``{calib_cpu or None: pload_ns}``.

    Parameters
    ----------
    text : str
        rt-app's stdout/stderr (rt-app 1.0 prints ``pLoad = 355ns``, newer versions
        ``pLoad = 355ns : calib_cpu 4``).

    Returns
    -------
    dict
        CPU number (``None`` when rt-app does not say) -> ns per loop.

    Raises
    ------
    WorkloadError
        If the text has no ``pLoad = <n>ns`` line.
    """
    out: dict = {}
    for m in _PLOAD_RE.finditer(text):
        out[None if m.group(2) is None else int(m.group(2))] = int(m.group(1))
    if not out:
        raise WorkloadError("rt-app output has no 'pLoad = <n>ns' line; run rt-app with a "
                            '"calibration": "CPU<n>" global and pass its stdout')
    return out


def run_loops(run_us: int, pload_ns: int) -> int:
    """Busy loops rt-app executes for ``"run": run_us`` with ``pLoad`` = ``pload_ns``.

    Parameters
    ----------
    run_us : int
        The ``run`` value (µs at calibration speed).
    pload_ns : int
        ns per loop (the ``calibration`` integer).

    Returns
    -------
    int
        ``run_us * 1000 // pload_ns``, rt-app's integer arithmetic.
    """
    if pload_ns <= 0:
        raise WorkloadError(f"pload_ns={pload_ns}: ns per loop must be > 0")
    return (int(run_us) * 1000) // int(pload_ns)


@dataclass(frozen=True)
class Calibration:
    """ns per loop measured on (or assumed for) one CPU at its top frequency.

    Parameters
    ----------
    pload_ns : int
        rt-app's ns per loop (the ``calibration`` integer).
    capacity : int
        Capacity (0-1024) of the calibration CPU at its top frequency; 1024 when
        calibrating on the biggest CPU, as LISA does.
    cpu : int, optional
        The calibration CPU, for the record.
    """

    pload_ns: int
    capacity: int = 1024
    cpu: int | None = None

    def __post_init__(self):
        if self.pload_ns <= 0 or not (0 < self.capacity <= 1024):
            raise WorkloadError(f"Calibration(pload_ns={self.pload_ns}, capacity={self.capacity}): "
                                "need pload_ns > 0 and 0 < capacity <= 1024")

    def loops(self, run_us: int) -> int:
        """Busy loops of ``"run": run_us``."""
        return run_loops(run_us, self.pload_ns)

    def ns_per_loop(self, capacity: int, freq_khz: int | None = None,
                    max_freq_khz: int | None = None) -> float:
        """Expected ns per loop on a CPU of ``capacity`` (at its top speed) running at ``freq_khz``."""
        if capacity <= 0:
            raise WorkloadError(f"capacity={capacity}: must be > 0")
        scale = self.capacity / capacity
        if freq_khz is not None:
            if not max_freq_khz or freq_khz <= 0:
                raise WorkloadError("freq_khz needs max_freq_khz (the CPU's top frequency), both > 0")
            scale *= max_freq_khz / freq_khz
        return self.pload_ns * scale

    def run_wall_us(self, run_us: int, capacity: int, freq_khz: int | None = None,
                    max_freq_khz: int | None = None) -> float:
        """Wall time (µs) of ``"run": run_us`` on that CPU/OPP (CPU-bound loop, no preemption)."""
        return self.loops(run_us) * self.ns_per_loop(capacity, freq_khz, max_freq_khz) / 1000.0

    def run_for_wall_us(self, wall_us: float, capacity: int, freq_khz: int | None = None,
                        max_freq_khz: int | None = None) -> int:
        """The ``run`` value (µs) that lasts ``wall_us`` on that CPU/OPP: the inverse of
        :meth:`run_wall_us`, for "x % of CPU c at frequency f" workloads."""
        return int(round(wall_us * self.pload_ns / self.ns_per_loop(capacity, freq_khz, max_freq_khz)))

    def utilization(self, run_us: int, period_us: int) -> float:
        """Capacity-invariant utilization (0-1024) of ``run_us`` every ``period_us``: the work as
        a share of the calibration CPU's top speed, scaled by its capacity."""
        if period_us <= 0:
            raise WorkloadError(f"period_us={period_us}: must be > 0")
        return float(self.capacity) * run_us / period_us


def measured_ns_per_loop(log_df, pload_ns: int, quantile: float = 0.0) -> float:
    """Actual ns per loop from an rt-app log of ``run``-only phases run with ``pLoad=pload_ns``.

    Each row executed ``c_duration * 1000 // pload_ns`` loops in ``run_us`` wall µs. Like
    rt-app's own calibration, the default keeps the **fastest** row (``quantile=0``): the
    iteration least disturbed by preemption, interrupts or a low frequency. Use the result
    as the integer ``calibration`` of later workloads to skip rt-app's calibration.
    """
    df = log_df[log_df["c_duration_us"] > 0]
    if df.empty:
        raise WorkloadError("measured_ns_per_loop: the log has no rows with run events")
    loops = (df["c_duration_us"].astype("int64") * 1000) // int(pload_ns)
    return float((df["run_us"] * 1000.0 / loops).quantile(quantile))
