"""Idle-CPU search (``select_idle_sibling``) with SIS_PROP or SIS_UTIL, the asymmetric-capacity
search of v5.7+ (``select_idle_capacity``), and the SIS_UTIL depth.

The numba kernels are in :mod:`lisa_eas._kernels.sis`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._era import eras_of
from ..errors import ModelError
from ._validate import cpu_index, era_of, int_array, int_scalar

__all__ = ["SIS_ERAS", "SIS_PATHS", "SisDecisions", "select_idle_sibling", "sis_prop_nr", "sis_util_nr_scan"]

#: Rows ``sis-*`` of the era ledger: the v4.9 select_idle_cpu()/SIS_PROP loop order (< v5.12;
#: depth counted on disallowed CPUs before v5.6), the asymmetric-capacity scan (v5.7+,
#: b7a331615d25) taken after the target/prev/recent checks with ``asym_fits_capacity`` (v5.10+,
#: b4c9c9f15649), its fit by ``util_fits_cpu`` (v6.2) with the -1 tier and the scan from
#: target + 1 (v6.3), the merged idle-core/idle-CPU loop (v5.12+, from target + 1 in v5.15+), prev's
#: idle SMT sibling first (v5.13+, c722f35b513f), SIS_PROP on wake_avg_idle (v5.14+), SIS_UTIL
#: (v6.0+; SIS_PROP removed in v6.7).
SIS_ERAS: tuple[tuple[int, int], ...] = eras_of("sis")
#: What the era error names: v4.0 - v4.8 searched for a wholly idle sched group (not modelled).
_SIS_WHAT = "select_idle_sibling's select_idle_cpu()/SIS_PROP form (ledger sis-v4.9)"


def sis_kernel_mode(version) -> int:
    """The ``lisa_eas._kernels.sis`` loop mode (``SIS_*``) of kernel ``version`` (ledger rows
    sis-v4.9, sis-v5.6, sis-v5.12, sis-v5.13, sis-v5.15)."""
    from .._kernels import sis as ks

    v = era_of(version, SIS_ERAS, _SIS_WHAT)
    if v < (5, 6):
        return ks.SIS_V4_0
    if v < (5, 12):
        return ks.SIS_V4
    if v < (5, 13):
        return ks.SIS_V5_12
    if v < (5, 15):
        return ks.SIS_V5_12_14
    return ks.SIS_V5_15


def asym_kernel_mode(version) -> int:
    """The ``lisa_eas._kernels.sis`` asymmetric-capacity mode (``ASYM_*``) of kernel ``version``
    (v5.7+; ledger rows sis-v5.7, sis-v5.10, sis-v6.2, sis-v6.3)."""
    from .._kernels import sis as ks

    v = era_of(version, SIS_ERAS, _SIS_WHAT)
    if v < (5, 7):
        raise ModelError(f"era {version!r}: select_idle_sibling() has no asymmetric-capacity path before v5.7")
    if v < (5, 10):
        return ks.ASYM_V5_7
    if v < (6, 2):
        return ks.ASYM_V5_10
    if v < (6, 3):
        return ks.ASYM_V6_2
    return ks.ASYM_V6_3


#: Names of the rules that chose the CPU (``SisDecisions.path``).
SIS_PATHS = ("target", "prev", "recent_used_cpu", "idle_core", "idle_cpu", "idle_smt", "fallback_target",
             "idle_capacity", "best_capacity")


def sis_util_nr_scan(sum_util: int, llc_weight: int, imbalance_pct: int = 117) -> int:
    """How many CPUs ``select_idle_cpu()`` may scan under SIS_UTIL (``nr_idle_scan``).

    ``update_idle_cpu_scan()`` (70fb5ccf2ebb): with ``x = sum_util / llc_weight``,
    ``nr = llc_weight * (1024 - min(1024, x^2 * pct^2 / (10000 * 1024))) / 1024``, all in
    integers. The scan examines at most this many CPUs (the kernel stores it and loops
    while ``--(nr + 1) > 0``).

    Parameters
    ----------
    sum_util : int
        Sum of ``cpu_util_cfs`` over the LLC (0 .. llc_weight * 1024).
    llc_weight : int
        CPUs in the LLC domain.
    imbalance_pct : int
        The LLC domain's ``imbalance_pct`` (117 for MC).

    Examples
    --------
    >>> sis_util_nr_scan(int(0.45 * 112 * 1024), 112)
    81
    """
    from .._kernels.sis import sis_util_nr_idle_scan

    llc_weight = int_scalar(llc_weight, "llc_weight", lo=1, hi=1 << 16)
    sum_util = int_scalar(sum_util, "sum_util", lo=0, hi=llc_weight * 1024)
    imbalance_pct = int_scalar(imbalance_pct, "imbalance_pct", lo=100, hi=1000)
    return int(sis_util_nr_idle_scan(sum_util, llc_weight, imbalance_pct))


def sis_prop_nr(avg_idle_ns: int, avg_scan_cost_ns: int, span_weight: int, era="v5.10") -> int:
    """SIS_PROP scan depth ``nr`` of ``select_idle_cpu()`` (v4.9 - v6.6).

    Before v5.14 ``avg_idle_ns`` is ``rq->avg_idle`` (divided by 512 inside); from v5.14 it is
    ``rq->wake_avg_idle``, used as is.
    """
    from .._kernels.sis import sis_prop_nr as k

    v = era_of(era, SIS_ERAS, "SIS_PROP")
    if v >= (6, 7):
        raise ModelError(f"SIS_PROP was removed in v6.7 (984ffb6a4366); era {era!r} has only SIS_UTIL")
    return int(k(int_scalar(avg_idle_ns, "avg_idle_ns", lo=0), int_scalar(avg_scan_cost_ns, "avg_scan_cost_ns", lo=0),
                 int_scalar(span_weight, "span_weight", lo=1), 1 if v >= (5, 14) else 0))


@dataclass(frozen=True)
class SisDecisions:
    """Per wake-up: chosen CPU, the rule that chose it (index into :data:`SIS_PATHS`) and the
    number of runqueues the LLC scan examined."""

    cpu: np.ndarray
    path: np.ndarray
    scanned: np.ndarray

    @property
    def path_names(self) -> list[str]:
        return [SIS_PATHS[p] for p in self.path]


def select_idle_sibling(idle, target, prev, *, recent_used_cpu=-1, allowed=None, era="v6.6", feature="util",
                        nr_idle_scan=None, sum_util=None, imbalance_pct: int = 117, avg_idle_ns=None,
                        avg_scan_cost_ns=None, llc_id=None, core_id=None, has_idle_core=False,
                        capacity_orig=None, capacity=None, task_util=None, uclamp_min=0, uclamp_max=1024,
                        thermal_pressure=0, thermal_load_avg=None, pd_id=None) -> SisDecisions:
    """Model ``select_idle_sibling()`` for one or many wake-ups.

    On an asymmetric-capacity system (``capacity_orig`` given with different values) and era
    v5.7+, the kernel's ``sched_asym_cpucapacity`` path is taken instead of the LLC scan:
    from v5.10 target, prev and ``recent_used_cpu`` when idle and the task fits them
    (``asym_fits_capacity``), then ``select_idle_capacity()`` over all CPUs from target (from
    target + 1 in v6.3+): the first idle CPU the task fits, else the idle CPU of highest
    capacity, else target. SIS_PROP/SIS_UTIL do not apply there. The fit per era (ledger rows
    sis-v5.7 .. sis-v6.3): ``fits_capacity(uclamp_task_util(p), capacity_of)`` (20 % margin,
    the task's util clamped by its ``uclamp_min``/``uclamp_max``) up to v6.1;
    ``util_fits_cpu(task_util_est, uclamp_min, uclamp_max, cpu)`` from v6.2, whose -1 answer
    (v6.3+: fits, but ``uclamp_min`` exceeds ``capacity_orig - thermal_pressure``) ranks an idle
    CPU above those that do not fit, by ``capacity_orig - thermal_load_avg``; v6.2's
    ``util_fits_cpu`` takes a CPU's inverted capacity (another perf domain of equal or lower
    ``capacity_orig`` keeps more capacity after ``thermal_load_avg``) as its capacity.

    Parameters
    ----------
    idle : bool array, shape (n_cpus,) or (n, n_cpus)
        ``available_idle_cpu()`` of each CPU at each wake-up.
    target, prev : int or array of int
        The wake-affine target and ``task_cpu(p)``.
    recent_used_cpu : int or array of int
        ``p->recent_used_cpu`` (-1: none).
    allowed : bool array like ``idle``, optional
        ``p->cpus_ptr`` (default all).
    era : str
        Kernel version; selects the loop shape (< v5.12 or later) and which features exist.
    feature : {"util", "prop", "none"}
        SIS_UTIL (v6.0+), SIS_PROP (< v6.7) or no depth limit.
    nr_idle_scan : int or array, optional
        SIS_UTIL's ``sd_llc_shared->nr_idle_scan``; or give ``sum_util`` (LLC sum of util).
    avg_idle_ns, avg_scan_cost_ns : int or array, optional
        SIS_PROP inputs (see :func:`sis_prop_nr`).
    llc_id, core_id : array of int, optional
        Per-CPU LLC and SMT-core ids (default: one LLC, no SMT).
    has_idle_core : bool or array of bool
        ``test_idle_cores(target)``.
    capacity_orig : array of int, optional
        Per-CPU ``arch_scale_cpu_capacity`` (1..1024). Values that differ make the system
        asymmetric (era v5.7+ only; before v5.7 ``wake_cap()`` in ``select_task_rq_fair``
        handled asymmetry, outside this function).
    capacity : array of int, shape (n_cpus,) or (n, n_cpus), optional
        ``capacity_of()`` of each CPU (default ``capacity_orig``).
    task_util : int or array of int
        ``task_util_est(p)``; needed with an asymmetric ``capacity_orig``.
    uclamp_min, uclamp_max : int or array of int
        The task's effective clamps (``uclamp_eff_value``, 0..1024; default no clamp), used on
        the asymmetric path (v5.7+).
    thermal_pressure : int or array, shape (n_cpus,) or (n, n_cpus)
        ``arch_scale_thermal_pressure`` per CPU (``util_fits_cpu``'s boost test, v6.2+;
        default 0).
    thermal_load_avg : int or array like ``thermal_pressure``, optional
        ``thermal_load_avg(rq)`` per CPU (the v6.3+ ranking of CPUs that miss only the boost;
        default ``thermal_pressure``).
    pd_id : array of int, optional
        Per-CPU perf domain, for v6.2's capacity inversion (default: the CPUs of equal
        ``capacity_orig`` form one domain). Give the same thermal values to a domain's CPUs, as
        the kernel's per-domain pressure has.

    Returns
    -------
    SisDecisions
        ``scanned`` counts the CPUs ``select_idle_capacity()`` examined on the asymmetric path.

    Examples
    --------
    HiKey960 (LITTLE 0-3 at 462, big 4-7 at 1024): a task of util 400 waking on a busy LITTLE
    CPU goes to the first idle big CPU; one of util 100 to the first idle LITTLE CPU.

    >>> cap = [462] * 4 + [1024] * 4
    >>> idle = [0, 1, 0, 0, 0, 1, 1, 0]
    >>> d = select_idle_sibling(idle, 0, 0, era="v6.1", capacity_orig=cap, task_util=[400])
    >>> int(d.cpu[0]), d.path_names[0]
    (5, 'idle_capacity')
    >>> int(select_idle_sibling(idle, 0, 0, era="v6.1", capacity_orig=cap, task_util=[100]).cpu[0])
    1
    """
    from .._kernels import sis as ks

    v = era_of(era, SIS_ERAS, _SIS_WHAT)
    idle_arr = int_array(np.asarray(idle).astype(np.int64) if np.asarray(idle).dtype == bool else idle, "idle",
                         ndim=(1, 2), lo=0, hi=1)
    if idle_arr.ndim == 1:
        idle_arr = idle_arr[None, :]
    n, n_cpus = idle_arr.shape

    def vec(value, name, check):
        a = check(value, name)
        if a.ndim == 0:
            a = np.full(n, int(a), dtype=np.int64)
        if a.shape != (n,):
            raise ModelError(f"{name} must be a scalar or have one value per wake-up ({n}), got shape {a.shape}")
        return np.ascontiguousarray(a)

    tgt = vec(target, "target", lambda x, nm: cpu_index(x, nm, n_cpus))
    prv = vec(prev, "prev", lambda x, nm: cpu_index(x, nm, n_cpus))
    rec = vec(recent_used_cpu, "recent_used_cpu", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=-1, hi=n_cpus - 1))
    hic = vec(np.asarray(has_idle_core).astype(np.int64), "has_idle_core",
              lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0, hi=1))
    if allowed is None:
        allowed_arr = np.ones((n, n_cpus), dtype=np.int64)
    else:
        allowed_arr = int_array(np.asarray(allowed).astype(np.int64), "allowed", ndim=(1, 2), lo=0, hi=1)
        allowed_arr = np.ascontiguousarray(np.broadcast_to(allowed_arr, (n, n_cpus))) if allowed_arr.ndim == 1 \
            else allowed_arr
        if allowed_arr.shape != (n, n_cpus):
            raise ModelError(f"allowed must have shape ({n}, {n_cpus}) like idle, got {allowed_arr.shape}")
    llc = np.zeros(n_cpus, dtype=np.int64) if llc_id is None else int_array(llc_id, "llc_id", lo=0)
    core = np.arange(n_cpus, dtype=np.int64) if core_id is None else int_array(core_id, "core_id", lo=0)
    for name, a in (("llc_id", llc), ("core_id", core)):
        if a.shape != (n_cpus,):
            raise ModelError(f"{name} must have one value per CPU ({n_cpus}), got shape {a.shape}")
    if capacity_orig is not None:
        corig = int_array(capacity_orig, "capacity_orig", lo=1, hi=1024)
        if corig.shape != (n_cpus,):
            raise ModelError(f"capacity_orig must have one value per CPU ({n_cpus}), got shape {corig.shape}")
        if len(set(corig.tolist())) > 1:
            if v < (5, 7):
                raise ModelError(f"era {era!r}: select_idle_sibling() has no asymmetric-capacity path before v5.7 "
                                 f"(wake_cap() in select_task_rq_fair() handled it); use era >= v5.7 or leave "
                                 f"capacity_orig out")
            if task_util is None:
                raise ModelError("an asymmetric capacity_orig needs task_util (uclamp_task_util(p) per wake-up)")
            cap = corig if capacity is None else int_array(capacity, "capacity", ndim=(1, 2), lo=0, hi=1024)
            if cap.ndim == 1 and cap.shape == (n_cpus,):
                cap = np.ascontiguousarray(np.broadcast_to(cap, (n, n_cpus)))
            if cap.shape != (n, n_cpus):
                raise ModelError(f"capacity must have shape ({n_cpus},) or ({n}, {n_cpus}), got {cap.shape}")
            tu = vec(task_util, "task_util", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0))
            umin = vec(uclamp_min, "uclamp_min", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0, hi=1024))
            umax = vec(uclamp_max, "uclamp_max", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0, hi=1024))

            def per_cpu(value, name):
                a = int_array(value, name, ndim=(0, 1, 2), lo=0, hi=1024)
                if a.ndim == 0:
                    a = np.full(n_cpus, int(a), dtype=np.int64)
                if a.ndim == 1 and a.shape == (n_cpus,):
                    a = np.broadcast_to(a, (n, n_cpus))
                if a.shape != (n, n_cpus):
                    raise ModelError(f"{name} must be a scalar or have shape ({n_cpus},) or ({n}, {n_cpus}), "
                                     f"got {a.shape}")
                return np.ascontiguousarray(a, dtype=np.int64)

            th = per_cpu(thermal_pressure, "thermal_pressure")
            th_avg = th if thermal_load_avg is None else per_cpu(thermal_load_avg, "thermal_load_avg")
            if pd_id is None:
                pd_of = np.unique(corig, return_inverse=True)[1].astype(np.int64)
            else:
                pd_of = int_array(pd_id, "pd_id", lo=0)
                if pd_of.shape != (n_cpus,):
                    raise ModelError(f"pd_id must have one value per CPU ({n_cpus}), got shape {pd_of.shape}")
            mode = asym_kernel_mode(v)
            out_cpu = np.empty(n, dtype=np.int64)
            out_res = np.empty((n, 2), dtype=np.int64)
            ks.sis_asym_batch(mode, idle_arr, allowed_arr, np.ascontiguousarray(cap, dtype=np.int64),
                              np.ascontiguousarray(corig, dtype=np.int64), th, th_avg,
                              np.ascontiguousarray(pd_of, dtype=np.int64), tu, umin, umax, tgt, prv, rec, llc, out_cpu,
                              out_res)
            return SisDecisions(cpu=out_cpu, path=out_res[:, 0].copy(), scanned=out_res[:, 1].copy())
    smt = len(set(zip(llc.tolist(), core.tolist()))) < n_cpus
    llc_weight = np.array([(llc == llc[t]).sum() for t in range(n_cpus)], dtype=np.int64)
    if feature == "util":
        if v < (6, 0):
            raise ModelError(f"SIS_UTIL exists from v6.0 (70fb5ccf2ebb); era {era!r} predates it: use "
                             f"feature='prop'")
        if (nr_idle_scan is None) == (sum_util is None):
            raise ModelError("feature='util' needs exactly one of nr_idle_scan or sum_util")
        if nr_idle_scan is not None:
            nr = vec(nr_idle_scan, "nr_idle_scan", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0, hi=n_cpus))
        else:
            su = vec(sum_util, "sum_util", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0))
            lw = llc_weight[tgt]
            if (su > lw * 1024).any():
                i = int(np.flatnonzero(su > lw * 1024)[0])
                raise ModelError(f"sum_util[{i}] = {su[i]} exceeds the LLC capacity {lw[i] * 1024}")
            pct = int_scalar(imbalance_pct, "imbalance_pct", lo=100, hi=1000)
            nr = np.array([ks.sis_util_nr_idle_scan(int(s), int(w), pct) for s, w in zip(su, lw)], dtype=np.int64)
        util_mode = True
    elif feature == "prop":
        if v >= (6, 7):
            raise ModelError(f"SIS_PROP was removed in v6.7; era {era!r} has only feature='util'")
        if avg_idle_ns is None or avg_scan_cost_ns is None:
            raise ModelError("feature='prop' needs avg_idle_ns and avg_scan_cost_ns")
        ai = vec(avg_idle_ns, "avg_idle_ns", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0))
        ac = vec(avg_scan_cost_ns, "avg_scan_cost_ns", lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0))
        prop_era = 1 if v >= (5, 14) else 0
        nr = np.array([ks.sis_prop_nr(int(a), int(c), int(w), prop_era)
                       for a, c, w in zip(ai, ac, llc_weight[tgt])], dtype=np.int64)
        util_mode = False
    elif feature == "none":
        nr = np.full(n, ks.INT_MAX, dtype=np.int64)
        util_mode = False
    else:
        raise ModelError(f"feature must be 'util', 'prop' or 'none', got {feature!r}")
    mode = sis_kernel_mode(era)
    out_cpu = np.empty(n, dtype=np.int64)
    out_res = np.empty((n, 2), dtype=np.int64)
    ks.sis_batch(mode, util_mode, idle_arr, allowed_arr, tgt, prv, rec, hic, nr, llc, core, smt, out_cpu, out_res)
    return SisDecisions(cpu=out_cpu, path=out_res[:, 0].copy(), scanned=out_res[:, 1].copy())


