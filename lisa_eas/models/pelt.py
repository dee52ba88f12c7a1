"""PELT util_avg/load_avg/runnable_avg and util_est of a task along a run/sleep timeline.

The numba kernels are in :mod:`lisa_eas._kernels.pelt` and :mod:`lisa_eas._kernels.util_est`;
this module validates arguments and picks the kernel era.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from .._era import eras_of
from ..errors import ModelError
from ._validate import era_of, int_array, int_scalar, sorted_times

__all__ = ["PELT_ERAS", "UTIL_EST_ERAS", "pelt_clock_scaled", "pelt_config", "pelt_tables", "pelt_timeline",
           "resample_signal", "rq_clock_pelt", "thermal_load_avg", "util_est_step"]

#: Kernel versions where PELT's arithmetic changed (see :func:`pelt_config`; rows ``pelt-*`` of
#: :data:`lisa_eas._era.ERA_LEDGER`).
PELT_ERAS: tuple[tuple[int, int], ...] = eras_of("pelt")
#: Kernel versions where util_est changed (see :mod:`lisa_eas._kernels.util_est`; rows ``util_est-*``).
UTIL_EST_ERAS: tuple[tuple[int, int], ...] = eras_of("util_est")

_STATES = {"sleeping": 0, "sleep": 0, "runnable": 1, "running": 2, "run": 2, "detached": 3}


@lru_cache(maxsize=8)
def pelt_tables(halflife: int = 32) -> tuple[np.ndarray, int]:
    """``runnable_avg_yN_inv`` and ``LOAD_AVG_MAX`` for a half-life of ``halflife`` periods.

    Computed with the integer algorithm of the kernel's generator
    (``Documentation/scheduler/sched-pelt.c``): ``yN_inv[n] = floor((2**32 - 1) * y**n)``
    and the fixed point of ``max = (max * floor((2**32 - 1) * y) >> 32) + 1024``.
    For 32 this gives the mainline table and 47742; 16 and 8 are the Android options.
    """
    halflife = int_scalar(halflife, "halflife", lo=1)
    if halflife not in (8, 16, 32):
        raise ModelError(f"halflife must be 32 (mainline), 16 or 8 periods, got {halflife}")
    y = math.pow(0.5, 1.0 / halflife)
    yn = np.array([int(((1 << 32) - 1) * math.pow(y, i)) for i in range(halflife)], dtype=np.int64)
    y_inv = int(((1 << 32) - 1) * y)
    mx, last = 1024, 0
    while True:
        mx = ((mx * y_inv) >> 32) + 1024
        if mx == last:
            break
        last = mx
    yn.flags.writeable = False
    return yn, mx


@lru_cache(maxsize=8)
def pelt_tables_v411(halflife: int = 32) -> tuple[np.ndarray, np.ndarray, int]:
    """v4.11's ``runnable_avg_yN_sum``, ``__accumulated_sum_N32`` and ``LOAD_AVG_MAX_N``.

    The integer generator of the v4.11 tables: ``sum[n] = ((sum[n-1] + 1024) * yN_inv[1]) >> 32``,
    ``acc[k] = acc[k-1] / 2 + sum[P]`` (one half-life per step) and ``LOAD_AVG_MAX_N`` the
    number of periods after which the sum is ``LOAD_AVG_MAX``. For 32 this gives the kernel's
    1002, 1982, 2941, ..., 23371; 23371, 35056, ..., 46719 and 345.
    """
    yn, _ = pelt_tables(halflife)
    y_inv = int(((1 << 32) - 1) * math.pow(0.5, 1.0 / halflife))
    sums = [0]
    for _ in range(halflife):
        sums.append(((sums[-1] + 1024) * y_inv) >> 32)
    mx, last, updates = 1024, 0, 0
    while True:
        mx = ((mx * y_inv) >> 32) + 1024
        updates += 1
        if mx == last:
            break
        last = mx
    max_n = updates - 2           # 345 for 32, as the kernel's table header states
    acc = [0]
    for _ in range(max_n // halflife + 1):
        acc.append(acc[-1] // 2 + sums[halflife])
    return np.array(sums, dtype=np.int64), np.array(acc, dtype=np.int64), max_n


def pelt_config(era="v6.9", halflife: int = 32, util_est: bool = True) -> np.ndarray:
    """The kernel configuration array (``lisa_eas._kernels.pelt.CFG_*``) for ``era``.

    ======  ============================================================================
    era     PELT arithmetic (ledger rows ``pelt-*``)
    ======  ============================================================================
    v4.11   old ``__update_load_avg``: finish the period, decay over ``periods + 1``, add
            the table sum, each part ``cap_scale``-d on its own; ``last_update_time = now``;
            invariance on the contribution (freq on all sums, CPU capacity on util_sum);
            ``load_sum += weight*contrib``; divider LOAD_AVG_MAX
    v4.12   three-segment ``accumulate_sum``, divider still LOAD_AVG_MAX
    v4.13   divider ``LOAD_AVG_MAX - 1024 + period_contrib``
    v4.15   load/runnable accrue 0/1, the weight multiplies in the average; running and
            runnable forced to 0 when not loaded
    v5.1    scale invariance moves to the rq's PELT clock (``update_rq_clock_pelt``), with
            ``lost_idle_time`` when the rq was saturated (23127296889f)
    v5.7    ``runnable_avg`` replaces ``runnable_load_avg`` (``<< 10``, no weight)
    v5.13   a task's util leaving a cfs_rq (removed / detached): ``util_sum`` re-derived as
            ``util_avg * divider`` (1c35b07e6d39)
    v5.17   ... ``util_sum`` minus the task's sum, no lower than ``util_avg *
            PELT_MIN_DIVIDER`` (98b0d890220d, 7ceb77103001); before v5.13 the plain
            ``sub_positive`` (``_kernels.pelt.cfs_rq_sub_util``)
    ======  ============================================================================
    """
    from .._kernels import pelt as kp

    v = era_of(era, PELT_ERAS, "the PELT model")
    _, lam = pelt_tables(halflife)
    old = v < (4, 12)                                     # ledger pelt-v4.12
    extra = 0
    if old:
        sums, acc, max_n = pelt_tables_v411(halflife)
        extra = sums.size + acc.size
    cfg = np.zeros(kp.CFG_SIZE + extra, dtype=np.int64)
    cfg[kp.CFG_DELTA_SCALING] = int(v < (5, 1))           # ledger pelt-v5.1
    cfg[kp.CFG_DIVIDER_MODE] = int(v >= (4, 13))          # ledger pelt-v4.13
    cfg[kp.CFG_WEIGHT_IN_SUM] = int(v < (4, 15))          # ledger pelt-v4.15
    cfg[kp.CFG_ZERO_IF_UNLOADED] = int(v >= (4, 15))      # ledger pelt-v4.15
    cfg[kp.CFG_RUNNABLE_SCALED] = int(v >= (5, 7))        # ledger pelt-v5.7
    cfg[kp.CFG_LOAD_AVG_MAX] = lam
    cfg[kp.CFG_OLD_UPDATE] = int(old)
    cfg[kp.CFG_CFS_REMOVAL] = (kp.REMOVAL_SUB if v < (5, 13) else          # ledger pelt-v5.13
                               kp.REMOVAL_RESYNC if v < (5, 17) else      # ledger pelt-v5.17
                               kp.REMOVAL_FLOOR)
    if old:
        cfg[kp.CFG_MAX_N] = max_n
        cfg[kp.CFG_SIZE:kp.CFG_SIZE + sums.size] = sums
        cfg[kp.CFG_SIZE + sums.size:] = acc
    from .._era import parse_kernel_version

    full = parse_kernel_version(era)
    if util_est and full >= UTIL_EST_ERAS[0]:
        ue = era_of(full, UTIL_EST_ERAS, "util_est")
        cfg[kp.CFG_UTIL_EST_ERA] = UTIL_EST_ERAS.index(ue)
    else:
        cfg[kp.CFG_UTIL_EST_ERA] = -1
    return cfg


def _states(states, n: int) -> np.ndarray:
    if isinstance(states, (list, tuple, np.ndarray, pd.Series)) and len(states) and isinstance(
            np.asarray(states).flat[0], str):
        try:
            arr = np.array([_STATES[s] for s in states], dtype=np.int64)
        except KeyError as exc:
            raise ModelError(f"states: unknown state {exc.args[0]!r}; use 'sleeping', 'runnable', "
                             f"'running' or 'detached' (or 0/1/2/3)") from None
    else:
        arr = int_array(states, "states", lo=0, hi=3)
    if arr.shape != (n,):
        raise ModelError(f"states must have one entry per timestamp ({n}), got shape {arr.shape}")
    return arr


def _blocked(value, n: int) -> np.ndarray:
    arr = np.asarray(value)
    if arr.shape != (n,) or arr.dtype.kind not in "bui":
        raise ModelError(f"blocked must be one bool per timestamp ({n}), got shape {arr.shape} of {arr.dtype}")
    if arr.size and (arr[0] or (arr.dtype.kind != "b" and not np.isin(arr, (0, 1)).all())):
        raise ModelError("blocked: 0/1 (or bool) per timestamp, and the first point cannot be a blocked update")
    return arr.astype(np.uint8)


def _timeline_times(times_ns, blk: np.ndarray) -> np.ndarray:
    """Update points, non-decreasing except that a blocked one may lie up to 1023 ns before the
    point before it."""
    if not blk.any():
        return sorted_times(times_ns, "times_ns")
    ts = int_array(times_ns, "times_ns", lo=0, hi=1 << 62)
    d = np.diff(ts)
    bad = np.flatnonzero((d < 0) & ~((blk[1:] != 0) & (d > -1024)))
    if bad.size:
        i = int(bad[0]) + 1
        raise ModelError(f"times_ns must be sorted (non-decreasing; a blocked point may precede the one before it "
                         f"by under 1024 ns): times_ns[{i}] = {ts[i]} < times_ns[{i - 1}] = {ts[i - 1]}")
    return ts


def _per_segment(value, name: str, n: int, lo: int, hi: int) -> np.ndarray:
    arr = int_array(value, name, ndim=(0, 1), lo=lo, hi=hi)
    if arr.ndim == 0:
        return np.full(n, int(arr), dtype=np.int64)
    if arr.shape != (n,):
        raise ModelError(f"{name} must be a scalar or have one entry per timestamp ({n}), got {arr.shape}")
    return arr


def pelt_timeline(times_ns, states, *, cpu_capacity=1024, freq_scale=1024, era="v6.9", weight: int = 1024,
                  halflife: int = 32, util_avg: int = 0, load_avg: int = 0, runnable_avg: int = 0,
                  util_est_ewma: int = 0, util_est_enqueued: int = 0, blocked=None) -> pd.DataFrame:
    """The PELT signals of a task at each kernel update point of its timeline.

    Parameters
    ----------
    times_ns : array of int
        Update points (ns, sorted, >= 0). Segment ``k`` is ``[times_ns[k], times_ns[k+1])``.
    states : array of int or str
        State during segment k: 0/"sleeping", 1/"runnable" (waiting, another task runs),
        2/"running", 3/"detached" (migrating: the kernel re-attaches the signal to the new
        runqueue's clock, so this time is neither accrued nor decayed). The last entry only
        matters for util_est (a final dequeue).
    cpu_capacity, freq_scale : int or array of int
        ``arch_scale_cpu_capacity`` and ``arch_scale_freq_capacity`` (1..1024) per segment.
    era : str
        Kernel version (``"v4.11"`` ... ``"v6.9"``), see :func:`pelt_config`.
    weight : int
        The task's load weight (1024 for nice 0).
    halflife : int
        PELT half-life in periods: 32 (mainline), 16 or 8 (Android options).
    util_avg, load_avg, runnable_avg, util_est_ewma, util_est_enqueued : int
        Starting values (as the kernel last reported them).
    blocked : array of bool, optional
        Per update point: the update is a waking task's ``sync_entity_load_avg``
        (``__update_load_avg_blocked_se`` to its cfs_rq's last update, inside a sleeping
        segment): it decays the signal but leaves util_est's UTIL_AVG_UNCHANGED flag alone, and
        its time may be up to 1023 ns before the previous point (the kernel's negative delta sets
        ``last_update_time`` back to it). The simulator reports these points in
        ``lisa_sim_task_sync`` (``pelt_time``).

    Returns
    -------
    pandas.DataFrame
        Index ``time_ns``; columns ``util_avg``, ``load_avg``, ``runnable_avg``,
        ``util_est_ewma``, ``util_est_enqueued`` (raw kernel fields, flag bit included) and
        ``avg_updated`` (a 1024-us boundary was crossed, so the averages were recomputed).
    """
    from .._kernels import pelt as kp

    n = np.asarray(times_ns).size
    if n == 0:
        raise ModelError("times_ns is empty; give at least one timestamp")
    blk = np.zeros(n, np.uint8) if blocked is None else _blocked(blocked, n)
    ts = _timeline_times(times_ns, blk)
    st = _states(states, n)
    bad = np.flatnonzero((blk[1:] != 0) & (st[:-1] != 0))
    if bad.size:
        k = int(bad[0]) + 1
        raise ModelError(f"blocked[{k}]: a blocked update (sync_entity_load_avg) falls in a sleeping segment, "
                         f"but states[{k - 1}] is {int(st[k - 1])}; mark only points of a task asleep")
    cap = _per_segment(cpu_capacity, "cpu_capacity", n, 1, 1024)
    fs = _per_segment(freq_scale, "freq_scale", n, 1, 1024)
    weight = int_scalar(weight, "weight", lo=1, hi=88761)
    for name, val in (("util_avg", util_avg), ("runnable_avg", runnable_avg), ("util_est_ewma", util_est_ewma),
                      ("util_est_enqueued", util_est_enqueued)):
        int_scalar(val, name, lo=0, hi=0x80000000 + 1024 if name.startswith("util_est") else 1024)
    int_scalar(load_avg, "load_avg", lo=0, hi=weight)
    cfg = pelt_config(era, halflife)
    yn, _ = pelt_tables(halflife)
    init = np.array([util_avg, load_avg, runnable_avg, util_est_ewma, util_est_enqueued], dtype=np.int64)
    out = np.zeros((n, 6), dtype=np.int64)
    kp.pelt_timeline(ts, st, blk, cap, fs, np.int64(weight), init, cfg, yn, out)
    df = pd.DataFrame(out, columns=["util_avg", "load_avg", "runnable_avg", "util_est_ewma", "util_est_enqueued",
                                    "avg_updated"], index=pd.Index(ts, name="time_ns"))
    df["avg_updated"] = df["avg_updated"].astype(bool)
    return df


def pelt_clock_scaled(era) -> bool:
    """Whether kernel ``era`` puts scale invariance in the rq's PELT clock (v5.1+,
    ``update_rq_clock_pelt``; ledger row ``pelt-v5.1``) rather than in each contribution."""
    return era_of(era, PELT_ERAS, "the PELT model") >= (5, 1)


def rq_clock_pelt(points_ns, busy, *, cpu_capacity=1024, freq_scale=1024, went_idle=None,
                  at_ns=None) -> np.ndarray:
    """A runqueue's PELT clock (``rq_clock_pelt``, v5.1+) rebuilt from its busy / idle timeline.

    ``update_rq_clock_pelt()`` advances the clock at each runqueue update by the time since the
    last one scaled by CPU capacity then frequency (each step truncated: ``(delta * cap) >> 10``
    then ``* freq >> 10``) while the CPU is busy, and syncs it to the task clock when the CPU is
    idle (``update_idle_rq_clock_pelt``; the lost idle time of a saturated runqueue is not
    modelled: give timelines whose runqueue stays below saturation).

    Parameters
    ----------
    points_ns : array of int
        The runqueue's update points (ns, sorted): every instant the kernel updates it (switches,
        wake-ups onto it, ticks, frequency changes read there...). A missing point moves the
        clock by a few ns of truncation. Segment ``k`` is ``[points_ns[k], points_ns[k+1])``.
    busy : array of bool
        Whether the CPU runs a task during segment ``k``.
    cpu_capacity, freq_scale : int or array of int
        ``arch_scale_cpu_capacity`` / ``arch_scale_freq_capacity`` (1..1024) per segment.
    went_idle : array of bool, optional
        Points where the CPU switched to idle: the clock syncs there even when a task runs again
        from the same instant (default: where ``busy`` is False).
    at_ns : array of int, optional
        Instead of the clock after each point's update, the clock an update at each of these
        instants computes: advanced from the last point strictly before it (so at a point where
        the CPU goes idle, the value before that switch syncs the clock).

    Returns
    -------
    numpy.ndarray
        int64 clock values (ns), one per point (or per ``at_ns``).
    """
    from .._kernels import pelt as kp

    pts = sorted_times(points_ns, "points_ns")
    n = pts.size
    if n == 0:
        raise ModelError("points_ns is empty; give at least one update point")
    b = np.asarray(busy, dtype=bool)
    if b.shape != (n,):
        raise ModelError(f"busy has {b.size} entries for {n} points; give one per segment")
    cap = _per_segment(cpu_capacity, "cpu_capacity", n, 1, 1024)
    fs = _per_segment(freq_scale, "freq_scale", n, 1, 1024)
    adv = np.zeros(n, np.int64)
    if n > 1:
        adv[1:] = kp.clock_pelt_advance(np.zeros(n - 1, np.int64), np.diff(pts), cap[:-1], fs[:-1])
    # a point resets the clock to the task clock when the CPU was idle before it or is idle after
    synced = ~b if went_idle is None else (np.asarray(went_idle, dtype=bool) | ~b)
    if synced.shape != (n,):
        raise ModelError(f"went_idle has {synced.size} entries for {n} points; give one per point")
    reset = np.ones(n, bool)
    reset[1:] = ~b[:-1] | synced[1:]
    csum = np.cumsum(np.where(reset, 0, adv))
    start = np.maximum.accumulate(np.where(reset, np.arange(n), 0))
    clock = pts[start] + csum - csum[start]
    if at_ns is None:
        return clock
    t = int_array(at_ns, "at_ns")
    i = np.maximum(np.searchsorted(pts, t, side="left") - 1, 0)
    step = kp.clock_pelt_advance(np.zeros(t.size, np.int64), np.maximum(t - pts[i], 0), cap[i], fs[i])
    return np.where(b[i] & (t > pts[0]), clock[i] + step, t)


def util_est_step(ewma: int, util_avg: int, runnable_avg: int, *, cpu_capacity: int = 1024, era="v6.9",
                  enqueued: int = 0) -> tuple[int, int]:
    """One ``util_est_update()`` at the dequeue of a task going to sleep (the era's rule).

    Parameters
    ----------
    ewma, enqueued : int
        The task's ``util_est`` fields before the dequeue (raw, flag bit included; ``enqueued``
        exists before v6.8 only). A set ``UTIL_AVG_UNCHANGED`` flag means no update.
    util_avg, runnable_avg : int
        The task's util_avg / runnable_avg the kernel samples: from v6.12 those of the
        entity's previous PELT update (``util_est_update()`` runs before
        ``dequeue_entities()``), before v6.12 those of this dequeue's update (ledger row
        ``util_est-v6.12``). :func:`pelt_timeline` applies that ordering itself; this function
        takes the sample as given.
    cpu_capacity : int
        ``arch_scale_cpu_capacity`` of the task's CPU.
    era : str
        Kernel version.

    Returns
    -------
    (int, int)
        The new ``(ewma, enqueued)``, raw (flag bit included).
    """
    from .._kernels.util_est import util_est_update

    code = UTIL_EST_ERAS.index(era_of(era, UTIL_EST_ERAS, "util_est"))
    for name, val in (("ewma", ewma), ("enqueued", enqueued)):
        int_scalar(val, name, lo=0, hi=0x80000000 + 1024)
    int_scalar(util_avg, "util_avg", lo=0, hi=1024)
    int_scalar(runnable_avg, "runnable_avg", lo=0, hi=1024)
    int_scalar(cpu_capacity, "cpu_capacity", lo=1, hi=1024)
    e, q = util_est_update(np.int64(ewma), np.int64(enqueued), np.int64(util_avg), np.int64(runnable_avg),
                           np.int64(cpu_capacity), np.int64(code))
    return int(e), int(q)


def resample_signal(signal: pd.DataFrame, grid_ns) -> pd.DataFrame:
    """The value the kernel would expose at each grid time: the last update at or before it.

    Grid points before the first update get the first row.
    """
    grid = sorted_times(grid_ns, "grid_ns")
    idx = np.asarray(signal.index, dtype=np.int64)
    pos = np.searchsorted(idx, grid, side="right") - 1
    pos[pos < 0] = 0
    out = signal.iloc[pos].copy()
    out.index = pd.Index(grid, name="time_ns")
    return out


def util_est_kernel_era(era) -> int:
    """The ``lisa_eas._kernels.util_est`` era code of kernel ``era``: the index of the newest
    :data:`UTIL_EST_ERAS` row not newer than it (0 before the first)."""
    from .._era import parse_kernel_version

    v = parse_kernel_version(era)
    k = [i for i, e in enumerate(UTIL_EST_ERAS) if e <= v]
    return k[-1] if k else 0


def task_util_est_values(ewma, enqueued, era) -> np.ndarray:
    """``_task_util_est(p)`` (the estimate without util_avg, raw flag handling of the era) of each
    ``(ewma, enqueued)`` pair of the raw kernel fields; int64[n]."""
    from .._kernels.util_est import task_util_est_value

    code = util_est_kernel_era(era)
    return np.array([task_util_est_value(int(a), int(b), code) for a, b in zip(ewma, enqueued)], dtype=np.int64)


def thermal_load_avg(times_ns, pressure, *, era="v6.9", decay_shift: int = 0, halflife: int = 32) -> pd.Series:
    """``thermal_load_avg(rq)`` after each ``update_thermal_load_avg(rq_clock_thermal(rq), rq, pressure)``.

    pelt.c ``update_thermal_load_avg`` (v5.7, ledger thermal-v5.7): ``___update_load_sum(now, sa,
    p, p, p)`` accrues the pressure ``p`` passed at an update over the whole time since the
    previous one, then ``___update_load_avg(sa, 1)`` when a period was crossed: ``load_avg =
    load_sum / divider``. The clock is ``rq_clock_thermal(rq) = rq_clock_task(rq) >>
    sched_thermal_decay_shift`` (76504793832b, v5.7; removed by 97450eb90965 in v6.10, where the
    signal is ``hw_load_avg`` on the task clock), not scale-invariant.

    Parameters
    ----------
    times_ns : array of int
        The update times (``rq_clock_task``, ns, sorted, >= 0): the kernel's ticks of the CPU and
        its ``__update_blocked_others``. The signal starts zeroed at time 0 (boot).
    pressure : int or array of int
        The thermal (hw) pressure passed at each update (0..1024).
    era : str
        Kernel version, v5.7 or later (no average before).
    decay_shift : int
        ``sched_thermal_decay_shift`` (boot parameter, 0..10, the kernel's clamp; v5.7 - v6.9 only):
        a shift of k makes every PELT period 2^k times longer.
    halflife : int
        PELT half-life in periods (32 mainline; 16 or 8 on some Android kernels).

    Returns
    -------
    pandas.Series
        ``load_avg`` of the thermal signal after each update, indexed by ``time_ns``.
    """
    from .._era import parse_kernel_version
    from .._kernels import pelt as kp

    v = parse_kernel_version(era)
    if v < (5, 7):
        raise ModelError(f"thermal_load_avg does not exist before v5.7 (ledger thermal-v5.7); got era {era!r}")
    if isinstance(decay_shift, bool) or not isinstance(decay_shift, (int, np.integer)) or not 0 <= decay_shift <= 10:
        raise ModelError(f"decay_shift (sched_thermal_decay_shift) must be an integer within 0..10, got {decay_shift!r}")
    if decay_shift and v >= (6, 10):
        raise ModelError(f"decay_shift: sched_thermal_decay_shift was removed in v6.10 (97450eb90965, ledger "
                         f"thermal-v6.10); got era {era!r}: use 0")
    ts = sorted_times(times_ns, "times_ns")
    if ts.size == 0:
        raise ModelError("times_ns is empty; give at least one timestamp")
    pr = _per_segment(pressure, "pressure", ts.size, 0, 1024)
    cfg = pelt_config(era, halflife)
    yn, _ = pelt_tables(halflife)
    sa = np.zeros(kp.SA_SIZE, np.int64)
    out = np.zeros(ts.size, np.int64)
    for k in range(ts.size):
        p = int(pr[k])
        if kp.update_load_sum(sa, int(ts[k]) >> int(decay_shift), p, p, p, 1024, 1024, cfg, yn):
            kp.update_load_avg(sa, 1, 1, cfg)
        out[k] = sa[kp.SA_LOAD_AVG]
    return pd.Series(out, index=pd.Index(ts, name="time_ns"), name="thermal_load_avg")
