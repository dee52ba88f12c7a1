"""Legacy cpufreq governors over a recorded busy/idle timeline (open loop).

ondemand, interactive and schedfreq as in the kernels the 2016 "sched-freq" comparison
used, plus performance and powersave. The numba kernels are in
:mod:`lisa_eas._kernels.governors`. Each run returns a DataFrame of the frequency the
governor set at each evaluation (or change, for schedfreq).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._era import eras_of
from ..errors import ModelError
from ._validate import era_of, int_array, int_scalar, sorted_times

__all__ = ["CPUFREQ_DELAY_ERAS", "InteractiveTunables", "OndemandTunables", "SchedfreqTunables",
           "cpufreq_transition_delay_us", "interactive", "ondemand", "performance", "powersave", "schedfreq"]

#: Rows ``cpufreq_delay-*`` of the era ledger: how the kernel derives a governor's default rate
#: limit from the cpufreq driver (v4.7 schedutil's ``sugov_init``; v4.14, v6.9, v6.12
#: ``cpufreq_policy_transition_delay_us()``).
CPUFREQ_DELAY_ERAS: tuple[tuple[int, int], ...] = eras_of("cpufreq_delay")


def cpufreq_transition_delay_us(era, transition_latency_ns: int, transition_delay_us: int = 0) -> int:
    """The default ``rate_limit_us`` of schedutil (µs) as kernel ``era`` derives it from the driver.

    ``transition_latency_ns`` is ``policy->cpuinfo.transition_latency`` (0 when the driver sets
    none, e.g. ``qcom-cpufreq-hw``); ``transition_delay_us`` is ``policy->transition_delay_us``
    (0 when unset). Integer arithmetic as the kernel's (``latency = transition_latency /
    NSEC_PER_USEC``, ``LATENCY_MULTIPLIER`` 1000):

    * v4.7 (ledger cpufreq_delay-v4.7, ``sugov_init``): ``1000 * latency``, or 1000 when
      ``latency`` is 0 (``transition_delay_us`` does not exist yet);
    * v4.14 (cpufreq_delay-v4.14): ``transition_delay_us`` if set, else
      ``min(1000 * latency, 10000)``, or 1000 when ``latency`` is 0;
    * v6.9 (cpufreq_delay-v6.9): ... else ``latency`` itself when above 2000, else
      ``min(1000 * latency, 2000)``, or 1000;
    * v6.12 (cpufreq_delay-v6.12): ... else ``latency + latency / 2``, or 1000.

    Raises ``ModelError`` before v4.7 (no schedutil).
    """
    v = era_of(era, CPUFREQ_DELAY_ERAS, "schedutil's default rate_limit_us")
    lat_ns = int_scalar(transition_latency_ns, "transition_latency_ns", lo=0)
    delay = int_scalar(transition_delay_us, "transition_delay_us", lo=0)
    lat = lat_ns // 1000
    if v >= (4, 14) and delay:
        return delay
    if not lat:
        return 1000
    if v >= (6, 12):
        return lat + (lat >> 1)
    if v >= (6, 9):
        return lat if lat > 2000 else min(lat * 1000, 2000)
    if v >= (4, 14):
        return min(lat * 1000, 10000)
    return lat * 1000


@dataclass(frozen=True)
class OndemandTunables:
    """ondemand's sysfs tunables with the kernel's defaults (``cpufreq_ondemand.c``).

    ``up_threshold`` is 95 with NOHZ idle micro-accounting (80 without);
    ``sampling_rate_us`` defaults to 10 ms here (the kernel derives it from the driver's
    transition latency: at least 2 ticks).
    """

    sampling_rate_us: int = 10_000
    up_threshold: int = 95
    sampling_down_factor: int = 1


@dataclass(frozen=True)
class InteractiveTunables:
    """interactive's tunables with AOSP defaults (``cpufreq_interactive.c``).

    ``hispeed_freq`` 0 means the policy maximum (set at governor start);
    ``above_hispeed_delay_us`` defaults to ``timer_rate_us``.
    """

    timer_rate_us: int = 20_000
    go_hispeed_load: int = 99
    hispeed_freq: int = 0
    target_load: int = 90
    min_sample_time_us: int = 80_000
    above_hispeed_delay_us: int = 20_000


@dataclass(frozen=True)
class SchedfreqTunables:
    """schedfreq (``cpufreq_sched.c``): ``capacity_margin`` 1280 (= x1.25) and 50 ms throttle.

    The closed-loop simulator also models the series' RT request (``rt_avg`` over
    ``sched_time_avg_ms``, governor tunable ``sched_time_avg_ms``); this open-loop model takes
    the RT requests as given.
    """

    capacity_margin: int = 1280
    throttle_ns: int = 50_000_000


def _timeline(grid_ns, busy, freqs_khz):
    grid = sorted_times(grid_ns, "grid_ns")
    if grid.size < 2:
        raise ModelError("grid_ns needs at least two timestamps")
    b = int_array(np.asarray(busy).astype(np.int64) if np.asarray(busy).dtype == bool else busy, "busy",
                  ndim=(1, 2), lo=0, hi=1)
    b = b[:, None] if b.ndim == 1 else b
    if b.shape[0] != grid.size:
        raise ModelError(f"busy must have one row per grid time ({grid.size}), got shape {b.shape}")
    f = int_array(freqs_khz, "freqs_khz", lo=1)
    if f.size == 0 or (np.diff(f) <= 0).any():
        raise ModelError("freqs_khz must be a non-empty, strictly increasing OPP table")
    return grid, np.ascontiguousarray(b.astype(np.uint8)), f


def ondemand(grid_ns, busy, freqs_khz, tunables: OndemandTunables = OndemandTunables(), *,
             t_start: int | None = None, t_end: int | None = None, era: str = "v5.15", costs=None,
             inefficient=None) -> pd.DataFrame:
    """ondemand's samples over a busy timeline.

    Parameters
    ----------
    grid_ns : array of int
        Times (ns, sorted) where some CPU's busy/idle state changes.
    busy : array of 0/1, shape (K,) or (K, m)
        Whether each policy CPU is busy in ``[grid_ns[k], grid_ns[k+1])``.
    freqs_khz : array of int
        The policy's OPP table, ascending.
    era : str
        Kernel version (v4.14 or later). From v5.16 (ledger ondemand-v5.16) ``od_update``
        resolves with RELATION_CE and skips the OPPs the Energy Model flags inefficient, given
        by ``inefficient`` (one flag per OPP) or derived from the EM ``costs`` per OPP; without
        either no OPP is skipped (a kernel without an EM). ``dbs_update``'s long-idle test (reuse
        a CPU's previous load once) is on the time since its last sample before v4.18 and on its
        idle time from v4.18 (ledger ondemand-v4.18); on this free-running sample grid no window
        exceeds twice the sampling rate, so the two agree here (the simulator's late samples
        tell them apart).

    Returns
    -------
    pandas.DataFrame
        Index ``time_ns`` (each sample), columns ``freq_khz`` and ``load`` (max CPU load, %).
    """
    from .._kernels.governors import OD_LONG_IDLE_ELAPSED, OD_LONG_IDLE_IDLE, ondemand_run

    grid, b, f = _timeline(grid_ns, busy, freqs_khz)
    t0 = int(grid[0]) if t_start is None else int_scalar(t_start, "t_start", lo=0)
    t1 = int(grid[-1]) if t_end is None else int_scalar(t_end, "t_end", lo=t0)
    sr = int_scalar(tunables.sampling_rate_us, "sampling_rate_us", lo=1)
    up = int_scalar(tunables.up_threshold, "up_threshold", lo=1, hi=100)
    sdf = int_scalar(tunables.sampling_down_factor, "sampling_down_factor", lo=1, hi=100000)
    cap = (t1 - t0) // (sr * 1000) + 2
    out_t, out_f, out_l = (np.empty(cap, dtype=np.int64) for _ in range(3))
    from .schedutil import _ineff

    v = era_of(era, eras_of("ondemand"), "the ondemand model")
    ineff = _ineff(v, f, costs, inefficient)
    long_idle = OD_LONG_IDLE_IDLE if v >= (4, 18) else OD_LONG_IDLE_ELAPSED       # ledger ondemand-v4.18
    n = ondemand_run(grid, b, t0, t1, f, sr, up, sdf, out_t, out_f, out_l, ineff, long_idle)
    return pd.DataFrame({"freq_khz": out_f[:n], "load": out_l[:n]}, index=pd.Index(out_t[:n], name="time_ns"))


def interactive(grid_ns, busy, freqs_khz, tunables: InteractiveTunables = InteractiveTunables(), *,
                t_start: int | None = None, t_end: int | None = None) -> pd.DataFrame:
    """interactive's timer evaluations over a busy timeline (arguments as :func:`ondemand`)."""
    from .._kernels.governors import interactive_run

    grid, b, f = _timeline(grid_ns, busy, freqs_khz)
    t0 = int(grid[0]) if t_start is None else int_scalar(t_start, "t_start", lo=0)
    t1 = int(grid[-1]) if t_end is None else int_scalar(t_end, "t_end", lo=t0)
    tr = int_scalar(tunables.timer_rate_us, "timer_rate_us", lo=1)
    hs = int_scalar(tunables.hispeed_freq, "hispeed_freq", lo=0)
    cap = (t1 - t0) // (tr * 1000) + 2
    out_t, out_f = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)
    n = interactive_run(grid, b, t0, t1, f, tr, int_scalar(tunables.go_hispeed_load, "go_hispeed_load", lo=1),
                        hs, int_scalar(tunables.target_load, "target_load", lo=1, hi=100),
                        int_scalar(tunables.min_sample_time_us, "min_sample_time_us", lo=0),
                        int_scalar(tunables.above_hispeed_delay_us, "above_hispeed_delay_us", lo=0), out_t, out_f)
    return pd.DataFrame({"freq_khz": out_f[:n]}, index=pd.Index(out_t[:n], name="time_ns"))


def schedfreq(times_ns, cpu, cfs, freqs_khz, *, rt=None, dl=None, n_cpus: int | None = None,
              tunables: SchedfreqTunables = SchedfreqTunables()) -> pd.DataFrame:
    """schedfreq's frequency changes for a sequence of per-CPU capacity requests.

    Parameters
    ----------
    times_ns : array of int
        Request times (sorted).
    cpu : array of int
        Policy CPU (0..m-1) making each request.
    cfs, rt, dl : array of int
        The CPU's CFS / RT / DL capacity requests (0..1024) at that time.

    Returns
    -------
    pandas.DataFrame
        Index ``time_ns`` of each frequency change (throttled ones at the throttle's end),
        column ``freq_khz``.
    """
    from .._kernels.governors import schedfreq_run

    t = sorted_times(times_ns, "times_ns")
    n = t.size
    m = int_scalar(n_cpus, "n_cpus", lo=1) if n_cpus is not None else None
    c = int_array(cpu, "cpu", lo=0, hi=None if m is None else m - 1)
    m = m if m is not None else (int(c.max()) + 1 if c.size else 1)

    def req(v, name):
        if v is None:
            return np.zeros(n, dtype=np.int64)
        a = int_array(v, name, lo=0, hi=1024)
        if a.shape != (n,):
            raise ModelError(f"{name} must have one value per request ({n}), got shape {a.shape}")
        return a

    if c.shape != (n,):
        raise ModelError(f"cpu must have one value per request ({n}), got shape {c.shape}")
    f = int_array(freqs_khz, "freqs_khz", lo=1)
    if f.size == 0 or (np.diff(f) <= 0).any():
        raise ModelError("freqs_khz must be a non-empty, strictly increasing OPP table")
    out_t, out_f = np.empty(n + 2, dtype=np.int64), np.empty(n + 2, dtype=np.int64)
    k = schedfreq_run(t, c, req(cfs, "cfs"), req(rt, "rt"), req(dl, "dl"), m, f,
                      int_scalar(tunables.capacity_margin, "capacity_margin", lo=1024),
                      int_scalar(tunables.throttle_ns, "throttle_ns", lo=0), out_t, out_f)
    return pd.DataFrame({"freq_khz": out_f[:k]}, index=pd.Index(out_t[:k], name="time_ns"))


def performance(freqs_khz) -> int:
    """The performance governor: always ``policy->max``."""
    f = int_array(freqs_khz, "freqs_khz", lo=1)
    if f.size == 0:
        raise ModelError("freqs_khz is empty")
    return int(f.max())


def powersave(freqs_khz) -> int:
    """The powersave governor: always ``policy->min``."""
    f = int_array(freqs_khz, "freqs_khz", lo=1)
    if f.size == 0:
        raise ModelError("freqs_khz is empty")
    return int(f.min())
