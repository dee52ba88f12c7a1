"""schedutil: next frequency, effective utilization, iowait boost, and the RFC ramp boost.

The numba kernels are in :mod:`lisa_eas._kernels.schedutil`.
"""
from __future__ import annotations

import numpy as np

from .._era import eras_of
from ..energy_model import EnergyModel
from ..errors import ModelError
from ._validate import era_of, int_array, int_scalar, sorted_times

__all__ = ["SCHEDUTIL_ERAS", "effective_cpu_perf", "effective_cpu_util", "em_pd_get_higher_freq", "opp_inefficient",
           "schedutil_next_freq", "schedutil_run", "schedutil_tables"]

#: Rows ``schedutil-*`` of the era ledger: v5.0 (``map_util_freq`` with the 1.25 inside), v5.11
#: (a busy hold restores ``cached_raw_freq``), v5.14 (``map_util_perf``), v5.16 (RELATION_LE: the
#: EM's inefficient OPPs skipped), v6.8 (headroom in ``sugov_effective_cpu_perf``, clamped to the
#: capacity), v6.9 (an efficient OPP outside the policy limits is dropped).
SCHEDUTIL_ERAS: tuple[tuple[int, int], ...] = eras_of("schedutil")


def _formula(v) -> int:
    from .._kernels import schedutil as ks

    return ks.SU_V5_0 if v < (5, 14) else (ks.SU_V5_14 if v < (6, 8) else ks.SU_V6_8)


def schedutil_kernel_era(version) -> int:
    """The ``lisa_eas._kernels.schedutil`` formula code (``SU_*``) of kernel ``version`` (the
    other schedutil era rows are flags of ``sugov_update``: ``restore_cached`` v5.11+,
    ``ineff`` v5.16+, ``limits_check`` v6.9+)."""
    return _formula(era_of(version, SCHEDUTIL_ERAS, "schedutil's frequency formula"))


def opp_inefficient(costs) -> np.ndarray:
    """Which OPPs ``em_compute_costs()`` (v5.16+) flags inefficient: walking down from the top,
    a state whose cost is not below the last efficient (higher) state's cost."""
    c = int_array(costs, "costs", lo=0)
    out = np.zeros(c.size, dtype=np.int64)
    prev = None
    for i in range(c.size - 1, -1, -1):
        if prev is not None and c[i] >= prev:
            out[i] = 1
        else:
            prev = int(c[i])
    return out


def _ineff(v, f, costs, inefficient):
    """The per-OPP inefficiency flags cpufreq uses in era ``v`` (None: RELATION_L)."""
    if v < (5, 16):                          # ledger schedutil-v5.16
        return None
    if inefficient is not None:
        a = int_array(np.asarray(inefficient).astype(np.int64), "inefficient", lo=0, hi=1)
        if a.shape != f.shape:
            raise ModelError(f"inefficient must have one flag per OPP ({f.size}), got shape {a.shape}")
        return np.ascontiguousarray(a)
    if costs is not None:
        return opp_inefficient(costs)
    return None


def _freqs(freqs_khz, name="freqs_khz") -> np.ndarray:
    f = int_array(freqs_khz, name, lo=1)
    if f.size == 0 or (np.diff(f) <= 0).any():
        raise ModelError(f"{name} must be a non-empty, strictly increasing OPP frequency table")
    return f


def schedutil_tables(platform, domain: str, era="v5.4") -> tuple[np.ndarray, np.ndarray, int]:
    """``(freqs_khz, costs, capacity)`` of a platform's perf domain, costs from the era's EM."""
    em = EnergyModel.from_platform(platform, era=era)
    for d in em.domains:
        if d.name == domain:
            return d.freq_khz.copy(), d.cost.copy(), d.scale_cpu
    raise ModelError(f"domain {domain!r} is not in platform {em.platform.name!r}; "
                     f"domains: {[d.name for d in em.domains]}")


def _uclamp(uclamp_min, uclamp_max):
    if uclamp_min is None and uclamp_max is None:
        return False, 0, 1024
    lo = 0 if uclamp_min is None else int_scalar(uclamp_min, "uclamp_min", lo=0, hi=1024)
    hi = 1024 if uclamp_max is None else int_scalar(uclamp_max, "uclamp_max", lo=0, hi=1024)
    return True, lo, hi


def effective_cpu_util(util_cfs: int, util_rt: int = 0, util_dl: int = 0, bw_dl: int = 0, irq: int = 0, *,
                       scale: int = 1024, util_type: str = "frequency", rt_runnable: bool = False,
                       uclamp_min: int | None = None, uclamp_max: int | None = None) -> int:
    """``schedutil_cpu_util()`` / ``effective_cpu_util()`` (v5.3 - v6.7): CFS + RT + DL + IRQ.

    ``util_type`` "frequency" adds the DL bandwidth, goes to max when RT is runnable (unless
    uclamp is in use) and clamps CFS + RT into the rq's ``[uclamp_min, uclamp_max]`` when
    either is given; "energy" adds the DL utilization instead.
    """
    from .._kernels.schedutil import ENERGY_UTIL, FREQUENCY_UTIL, effective_cpu_util_uclamp as k

    if util_type not in ("frequency", "energy"):
        raise ModelError(f"util_type must be 'frequency' or 'energy', got {util_type!r}")
    vals = [int_scalar(v, n, lo=0, hi=1024) for v, n in ((util_cfs, "util_cfs"), (util_rt, "util_rt"),
                                                         (util_dl, "util_dl"), (bw_dl, "bw_dl"), (irq, "irq"))]
    scale = int_scalar(scale, "scale", lo=1, hi=1024)
    used, lo, hi = _uclamp(uclamp_min, uclamp_max)
    return int(k(*vals, scale, FREQUENCY_UTIL if util_type == "frequency" else ENERGY_UTIL, bool(rt_runnable),
                 used, lo, hi))


def effective_cpu_perf(util_cfs: int, util_rt: int = 0, util_dl: int = 0, bw_dl: int = 0, irq: int = 0, *,
                       scale: int = 1024, rt_runnable: bool = False, uclamp_min: int | None = None,
                       uclamp_max: int | None = None) -> int:
    """The capacity schedutil requests from v6.8 on: ``sugov_effective_cpu_perf()`` applied to
    ``effective_cpu_util(cpu, util, &min, &max)`` (1.25 headroom, bounded by the uclamp/DL/IRQ
    floor and the uclamp ceiling)."""
    import numpy as np_

    from .._kernels.schedutil import effective_cpu_util_v68, sugov_effective_cpu_perf

    vals = [int_scalar(v, n, lo=0, hi=1024) for v, n in ((util_cfs, "util_cfs"), (util_rt, "util_rt"),
                                                         (util_dl, "util_dl"), (bw_dl, "bw_dl"), (irq, "irq"))]
    scale = int_scalar(scale, "scale", lo=1, hi=1024)
    used, lo, hi = _uclamp(uclamp_min, uclamp_max)
    mm = np_.zeros(2, dtype=np_.int64)
    eff = effective_cpu_util_v68(*vals, scale, bool(rt_runnable), used, lo, hi, mm)
    return int(sugov_effective_cpu_perf(eff, mm[0], mm[1]))


def em_pd_get_higher_freq(freqs_khz, costs, min_freq: int, cost_margin: int) -> int:
    """RFC v3 ``em_pd_get_higher_freq()``: the highest OPP whose cost is within
    ``cost(first OPP >= min_freq) * (1 + cost_margin / 1024)``."""
    from .._kernels.schedutil import em_pd_get_higher_freq as k

    f = _freqs(freqs_khz)
    c = int_array(costs, "costs", lo=0)
    if c.shape != f.shape:
        raise ModelError(f"costs must have one value per OPP ({f.size}), got shape {c.shape}")
    return int(k(f, c, int_scalar(min_freq, "min_freq", lo=0), int_scalar(cost_margin, "cost_margin", lo=0)))


def schedutil_next_freq(util: int, freqs_khz, *, capacity: int = 1024, era="v6.9", fmin: int | None = None,
                        fmax: int | None = None, ramp_boost: int | None = None, costs=None,
                        inefficient=None) -> int:
    """The frequency ``get_next_freq()`` resolves for ``util`` (stateless; frequency invariant).

    Parameters
    ----------
    util : int
        The CPU's (or policy's max) utilization, 0..capacity.
    freqs_khz : array of int
        The policy's OPP table, ascending; the top one is ``cpuinfo.max_freq``.
    capacity : int
        ``arch_scale_cpu_capacity`` of the policy's CPUs.
    fmin, fmax : int, optional
        ``policy->min`` / ``policy->max`` (default the table's ends).
    ramp_boost : int, optional
        RFC v3 ramp boost (capacity units) used as the EM cost margin; needs ``costs``.
    costs : array of int, optional
        The EM cost of each OPP. From v5.16 cpufreq resolves with RELATION_LE and skips the
        OPPs the EM flags inefficient, derived from these costs (:func:`opp_inefficient`).
    inefficient : bool array, optional
        The inefficiency flags themselves (v5.16+; overrides ``costs``). Without either, no
        OPP is skipped (a kernel without an EM).
    """
    from .._kernels import schedutil as ks

    v = era_of(era, SCHEDUTIL_ERAS, "schedutil's frequency formula")
    f = _freqs(freqs_khz)
    capacity = int_scalar(capacity, "capacity", lo=1, hi=1024)
    util = int_scalar(util, "util", lo=0, hi=capacity)
    lo = int(f[0]) if fmin is None else int_scalar(fmin, "fmin", lo=0)
    hi = int(f[-1]) if fmax is None else int_scalar(fmax, "fmax", lo=lo)
    boost = -1
    c = np.zeros_like(f)
    if ramp_boost is not None:
        boost = int_scalar(ramp_boost, "ramp_boost", lo=0, hi=1024)
        if costs is None:
            raise ModelError("ramp_boost needs the EM costs of the OPPs (costs=...)")
    if costs is not None:
        c = int_array(costs, "costs", lo=0)
        if c.shape != f.shape:
            raise ModelError(f"costs must have one value per OPP ({f.size}), got shape {c.shape}")
    ps = np.zeros(ks.PS_SIZE, dtype=np.int64)
    ps[ks.PS_CACHED_RAW_FREQ] = -1
    ineff = _ineff(v, f, costs, inefficient)
    if ineff is None:
        return int(ks.get_next_freq(ps, util, capacity, int(f[-1]), f, lo, hi, _formula(v), boost, c))
    return int(ks.get_next_freq(ps, util, capacity, int(f[-1]), f, lo, hi, _formula(v), boost, c, ineff,
                                v >= (6, 9)))


def schedutil_run(times_ns, util_avg, freqs_khz, *, util_est=None, cpu=None, capacity: int = 1024, era="v6.9",
                  rate_limit_us: int = 1000, iowait=None, went_idle=None, ramp_boost: bool = False, costs=None,
                  tick_ns: int = 4_000_000, fmin: int | None = None, fmax: int | None = None,
                  inefficient=None, util_rt=None, runnable_avg=None) -> np.ndarray:
    """Drive one schedutil policy through a sequence of ``cpufreq_update_util()`` calls.

    Parameters
    ----------
    times_ns : array of int, shape (n,)
        Update times (sorted).
    util_avg, util_est : array of int, shape (n,) or (n, m)
        Each policy CPU's root cfs_rq ``util_avg`` / ``util_est.enqueued`` at each update
        (m CPUs in the policy; one CPU uses ``sugov_update_single`` with the busy hold).
    cpu : array of int, optional
        Which policy CPU (0..m-1) makes each call (default 0).
    rate_limit_us : int
        ``rate_limit_us`` (the minimum time between frequency changes).
    iowait : bool array, optional
        ``SCHED_CPUFREQ_IOWAIT`` flag of each call (enables the iowait boost model).
    went_idle : bool array, optional
        Whether the calling CPU entered idle since its previous call (the busy hold keeps the
        frequency from dropping when it did not). Default: True (no hold).
    ramp_boost : bool
        Apply the RFC v3 ramp boost (needs ``costs``, the EM cost per OPP).
    costs, inefficient : array, optional
        As in :func:`schedutil_next_freq` (v5.16+ skips inefficient OPPs).
    util_rt : array of int like ``util_avg``, optional
        Each CPU's RT utilization (``rq->avg_rt.util_avg``), added after
        ``max(util_avg, util_est)`` as ``effective_cpu_util()`` does (default none).
    runnable_avg : array of int like ``util_avg``, optional
        Each CPU's ``cfs_rq->avg.runnable_avg``: from v6.5 (runnable boosting, ledger
        schedutil-v6.5) the CFS utilization is ``max(util_avg, runnable_avg, util_est)``.
        Ignored before v6.5; not combined with the RFC ramp boost (a v5.4-era patch).

    Returns
    -------
    ndarray of int
        The policy's ``next_freq`` after each call.
    """
    from .._kernels import schedutil as ks

    v = era_of(era, SCHEDUTIL_ERAS, "schedutil's frequency formula")
    t = sorted_times(times_ns, "times_ns")
    n = t.size
    f = _freqs(freqs_khz)
    capacity = int_scalar(capacity, "capacity", lo=1, hi=1024)
    ua = int_array(util_avg, "util_avg", ndim=(1, 2), lo=0, hi=1024)
    ua = ua[:, None] if ua.ndim == 1 else ua
    if ua.shape[0] != n:
        raise ModelError(f"util_avg must have one row per update ({n}), got shape {ua.shape}")
    m = ua.shape[1]
    if util_est is None:
        ue = np.zeros_like(ua)
    else:
        ue = int_array(util_est, "util_est", ndim=(1, 2), lo=0, hi=1024)
        ue = np.ascontiguousarray(ue[:, None] if ue.ndim == 1 else ue)
        if ue.shape != ua.shape:
            raise ModelError(f"util_est must have the shape of util_avg {ua.shape}, got {ue.shape}")
    ua = np.ascontiguousarray(ua)

    def vec(value, name, default, hi):
        if value is None:
            return np.full(n, default, dtype=np.int64)
        a = int_array(np.asarray(value).astype(np.int64), name, ndim=(0, 1), lo=0, hi=hi)
        a = np.full(n, int(a), dtype=np.int64) if a.ndim == 0 else a
        if a.shape != (n,):
            raise ModelError(f"{name} must have one value per update ({n}), got shape {a.shape}")
        return np.ascontiguousarray(a)

    cpu_arr = vec(cpu, "cpu", 0, m - 1)
    io = vec(iowait, "iowait", 0, 1)
    wi = vec(went_idle, "went_idle", 1, 1)
    c = np.zeros_like(f)
    if ramp_boost and costs is None:
        raise ModelError("ramp_boost=True needs the EM costs of the OPPs (costs=...)")
    if costs is not None:
        c = int_array(costs, "costs", lo=0)
        if c.shape != f.shape:
            raise ModelError(f"costs must have one value per OPP ({f.size}), got shape {c.shape}")
    rate = int_scalar(rate_limit_us, "rate_limit_us", lo=0) * 1000
    tick = int_scalar(tick_ns, "tick_ns", lo=1)
    lo = int(f[0]) if fmin is None else int_scalar(fmin, "fmin", lo=0)
    hi = int(f[-1]) if fmax is None else int_scalar(fmax, "fmax", lo=lo)
    if runnable_avg is not None:
        ra = int_array(runnable_avg, "runnable_avg", ndim=(1, 2), lo=0, hi=1024)
        ra = ra[:, None] if ra.ndim == 1 else ra
        if ra.shape != ua.shape:
            raise ModelError(f"runnable_avg must have the shape of util_avg {ua.shape}, got {ra.shape}")
        if v >= (6, 5):
            if ramp_boost:
                raise ModelError("runnable_avg (runnable boosting, v6.5+) cannot be combined with ramp_boost=True "
                                 "(the RFC ramp boost is a v5.4-era patch); drop one of them")
            ua = np.ascontiguousarray(np.maximum(ua, ra))     # cpu_util_cfs_boost()
    rt = None
    if util_rt is not None:
        rt = int_array(util_rt, "util_rt", ndim=(1, 2), lo=0, hi=1024)
        rt = np.ascontiguousarray(rt[:, None] if rt.ndim == 1 else rt)
        if rt.shape != ua.shape:
            raise ModelError(f"util_rt must have the shape of util_avg {ua.shape}, got {rt.shape}")
    ineff = _ineff(v, f, costs, inefficient)
    out = np.empty(n, dtype=np.int64)
    ks.sugov_run(t, cpu_arr, io, wi, ua, ue, capacity, int(f[-1]), f, lo, hi, _formula(v), rate, tick,
                 iowait is not None, bool(ramp_boost), c, out, ineff, v >= (6, 9), v >= (5, 11), rt)
    return out


def ramp_boost_series(util_est_enqueued, util_avg) -> np.ndarray:
    """RFC v3 ``sugov_cpu_ramp_boost_update()`` over one CPU's samples in order (the boost,
    ``util_avg - util_est`` while util rises above the estimate, of each sample; int64[n])."""
    from .._kernels.schedutil import CS_SIZE, ramp_boost_update

    ue = np.asarray(util_est_enqueued, np.int64)
    ua = np.asarray(util_avg, np.int64)
    if ue.shape != ua.shape or ue.ndim != 1:
        raise ModelError(f"ramp_boost_series: util_est_enqueued and util_avg must be 1-D of one length, got "
                         f"{ue.shape} and {ua.shape}")
    cs = np.zeros(CS_SIZE, dtype=np.int64)
    return np.array([ramp_boost_update(cs, int(e), int(a)) for e, a in zip(ue, ua)], dtype=np.int64)
