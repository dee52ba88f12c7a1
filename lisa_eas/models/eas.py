"""Energy-aware wake-up (``find_energy_efficient_cpu``) for many wake-ups at once.

The numba kernels are in :mod:`lisa_eas._kernels.eas`; this module validates the inputs,
builds the era's Energy Model and returns a :class:`EasDecisions`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._era import eras_of, parse_kernel_version
from ..energy_model import EnergyModel
from ..errors import ModelError
from ..platform import Platform, load_platform
from ._validate import cpu_index, era_of, int_array, util_array

__all__ = ["EAS_ERAS", "EasDecisions", "cpu_overutilized", "find_energy_efficient_cpu"]

#: Kernel versions where the EAS wake-up changed (rows ``eas-*`` of the era ledger): v4.16 (the
#: out-of-tree RFC v2 of April 2018 on 4.16-rc6, ledger eas-v4.16), v5.0 (first
#: mainline EAS, O(n^2)), v5.4 (eb92692b2544, O(n) per-domain unsigned deltas), v5.14 (base only
#: for domains with a candidate, prev out of the max-spare race, early return), v6.0 (no margin;
#: task busy time separate), v6.2 (max-spare CPU costed only with more spare capacity than prev).
EAS_ERAS: tuple[tuple[int, int], ...] = eras_of("eas")


def eas_kernel_era(version) -> int:
    """The ``lisa_eas._kernels.eas`` era code (``EAS_*``) of kernel ``version``."""
    from .._kernels import eas as ke

    v = era_of(version, EAS_ERAS, "the mainline EAS wake-up")
    return {(4, 16): ke.EAS_RFC_V2, (5, 0): ke.EAS_V5_0, (5, 4): ke.EAS_V5_4, (5, 14): ke.EAS_V5_14, (6, 0): ke.EAS_V6_0,
            (6, 2): ke.EAS_V6_2, (6, 5): ke.EAS_V6_2}[v]


def uclamp_fit_form(version) -> int:
    """The form of the uclamp-aware fit of kernel ``version`` (``lisa_eas._kernels.eas.UC_*``, from
    the ledger's ``uclamp-*`` rows): 0 before v5.6 (no clamp in EAS), clamp-then-fit (v5.6),
    ``util_fits_cpu`` (v6.2), its -1 answer and tiers (v6.3), spare 0 kept (v6.7)."""
    from .._era import select_era
    from .._kernels import eas as ke

    v = parse_kernel_version(version)
    if v < (5, 6):
        return 0
    return {(5, 6): ke.UC_V5_6, (5, 14): ke.UC_V5_6, (6, 2): ke.UC_V6_2, (6, 3): ke.UC_V6_3,
            (6, 7): ke.UC_V6_7}[select_era(v, tuple(e for e in eras_of("uclamp") if e >= (5, 6)), "uclamp in EAS")]


def uclamp_eas_form(version) -> int:
    """The ``X_UC_ON`` form of the EAS wake-up's clamps at kernel ``version``: ``UC_V5_3`` at v5.3 -
    v5.5 (ledger uclamp-v5.3: the clamps in the energy estimate's OPP, none in the candidates'
    fit), :func:`uclamp_fit_form` from v5.6, 0 before v5.3 (no uclamp)."""
    from .._kernels import eas as ke

    v = parse_kernel_version(version)
    if v < (5, 3):
        return 0
    if v < (5, 6):
        return ke.UC_V5_3
    return uclamp_fit_form(v)


@dataclass(frozen=True)
class EasDecisions:
    """What ``find_energy_efficient_cpu`` decided for each wake-up (arrays of length n).

    Attributes
    ----------
    cpu : ndarray of int
        The chosen CPU; -1 where EAS was not used (root domain overutilized).
    prev_energy, best_energy : ndarray of float
        The energies compared: v5.0 system energy with the task on prev_cpu / on the best
        candidate; v5.4 and later the per-domain deltas. NaN where not computed (prev_cpu
        did not fit, or EAS skipped).
    base_energy : ndarray of int
        v5.4+: sum of the visited domains' energy without the task (0 for v5.0).
    pd_evaluations : ndarray of int
        Number of ``em_cpu_energy`` evaluations (one per perf domain costed).
    cpu_util_computations : ndarray of int
        Number of ``cpu_util_next`` computations.
    era : str
        The modeled era (``"v4.16"`` for the April 2018 EAS RFC v2, ``"v5.0"``, ``"v5.4"``, ``"v5.14"``,
        ``"v6.0"`` or ``"v6.2"``).
    """

    cpu: np.ndarray
    prev_energy: np.ndarray
    best_energy: np.ndarray
    base_energy: np.ndarray
    pd_evaluations: np.ndarray
    cpu_util_computations: np.ndarray
    era: str

    def to_dataframe(self):
        import pandas as pd

        return pd.DataFrame({"cpu": self.cpu, "prev_energy": self.prev_energy, "best_energy": self.best_energy,
                             "base_energy": self.base_energy, "pd_evaluations": self.pd_evaluations,
                             "cpu_util_computations": self.cpu_util_computations})


def _energy_model(platform, era, energy_model):
    if energy_model is not None:
        if not isinstance(energy_model, EnergyModel):
            raise ModelError(f"energy_model must be an EnergyModel, got {type(energy_model).__name__}")
        return energy_model
    if isinstance(platform, str):
        platform = load_platform(platform)
    if not isinstance(platform, Platform):
        raise ModelError(f"platform must be a Platform or a board name, got {type(platform).__name__}")
    # the RFC v2 era (v4.16 - v4.20, ledger eas-v4.16) has no mainline EM: its capacity-state table
    # is modelled by the v5.0 EM form (the same state and energy up to integer rounding)
    if parse_kernel_version(era) < (5, 0):
        era = "v5.0"
    return EnergyModel.from_platform(platform, era=era)


def find_energy_efficient_cpu(platform, util_avg, task_util, prev_cpu, *, util_est=None, task_util_est=None,
                              allowed=None, capacity=None, overutilized=False, era="v5.4",
                              energy_model: EnergyModel | None = None, util_rt=None, util_dl=None, bw_dl=None,
                              util_irq=None, thermal_pressure=None, runnable_avg=None, uclamp_min=None,
                              uclamp_max=None, task_uclamp_min=None, task_uclamp_max=None,
                              thermal_load_avg=None, uclamp_idle_max=None) -> EasDecisions:
    """Model the EAS wake-up decision of ``era`` for one or many wake-ups.

    Parameters
    ----------
    platform : Platform or str
        The board (its Energy Model is built for ``era`` unless ``energy_model`` is given).
    util_avg : array of int, shape (n_cpus,) or (n, n_cpus)
        Each CPU's ``cfs_rq.avg.util_avg`` at the wake-up (0..1024), the waking task's
        blocked utilization still included in prev_cpu's value as in the kernel.
    task_util : int or array of int, shape (n,)
        The task's ``util_avg`` after ``sync_entity_load_avg`` (0..1024).
    prev_cpu : int or array of int
        ``task_cpu(p)``.
    util_est : array like ``util_avg``, optional
        CPUs' ``util_est.enqueued`` (default 0).
    task_util_est : int or array, optional
        ``_task_util_est(p)`` (default 0). Before v5.13 the kernel returns it with the
        ``UTIL_AVG_UNCHANGED`` flag (bit 0) set (ledger util_est-v4.17), so the model sets that
        bit: ``task_util_est(p)`` is then never 0 and the "no utilization, stay on prev"
        early exit cannot happen in those kernels.
    allowed : bool array like ``util_avg``, optional
        ``p->cpus_ptr`` (default all CPUs).
    capacity : array of int, optional
        ``capacity_of(cpu)`` per CPU (default the CPUs' original capacity).
    overutilized : bool, array of bool or "auto"
        ``rd->overutilized``; "auto" derives it from the CPUs' utilization with the era's
        ``cpu_overutilized`` rule.
    era : str
        Kernel version, e.g. "v5.0", "v5.4", "v6.6".
    util_rt, util_dl, bw_dl, util_irq : array like ``util_avg``, optional
        Each CPU's ``cpu_util_rt``, ``cpu_util_dl``, ``cpu_bw_dl`` and ``cpu_util_irq`` (default
        absent): the energy estimate then uses ``effective_cpu_util()`` (v5.0 ENERGY_UTIL for
        both OPP and busy time; v5.4 - v6.7 FREQUENCY_UTIL for the OPP, with the DL bandwidth;
        v6.8 the ``sugov_effective_cpu_perf`` floor ``irq + bw_dl``), and v6.x scales the task's
        busy time by prev's IRQ pressure. ``capacity_of`` stays the ``capacity`` input (give
        ``arch_scale_cpu_capacity`` minus the RT/DL/IRQ/thermal averages, as the kernel's
        ``scale_rt_capacity`` does). Modelled as with CONFIG_UCLAMP_TASK=y and no clamps: a
        runnable RT task does not force the maximum.
    thermal_pressure : array like ``util_avg``, optional
        ``arch_scale_thermal_pressure(cpu)`` (``hw_pressure`` from v6.10): from v5.14 the EM
        caps the OPP at the capacity left (``allowed_cpu_cap``, ledger em-v5.14), from v6.0 the
        energy environment also caps max util and the busy time (``cpu_thermal_cap``).
        Ignored before v5.14.
    thermal_load_avg : array like ``util_avg``, optional
        ``thermal_load_avg(rq)``, the PELT average of the pressure, which v6.2's capacity
        inversion reads with the clamps (ledger uclamp-v6.2; default ``thermal_pressure``). ``capacity`` carries
        the average into ``capacity_of`` (v5.7 - v6.9; v6.10+ subtracts the instantaneous cpufreq
        pressure instead, ledger thermal-v6.10).
    runnable_avg : array like ``util_avg``, optional
        Each CPU's ``cfs_rq->avg.runnable_avg``; from v6.5 (runnable boosting, ledger eas-v6.5)
        the OPP estimate uses ``max(util_avg, runnable_avg)``. Ignored before v6.5.
    uclamp_min, uclamp_max : array like ``util_avg``, optional
        Each rq's aggregated clamps over its queued tasks (``uclamp_rq_get``); a CPU given 0 and 0
        (the default) has no task queued: an idle rq (``UCLAMP_FLAG_IDLE``), whose uclamp_min is 0
        and whose uclamp_max is the one kept from its last task, ``uclamp_idle_max``.
    uclamp_idle_max : array like ``util_avg``, optional
        The uclamp_max an idle rq keeps from the last task that left it (``uclamp_idle_value``,
        e496187da710, v5.3; default 1024: that task had no uclamp_max). Used, on the CPUs given
        rq clamps 0 and 0, by the energy estimate's OPP of a CPU the task does not go to (every
        era), by v6.2+'s "auto" overutilized, and before v5.14 max-aggregated with the waking
        task's own uclamp_max on its destination and in the v5.6+ candidate fit; from v5.14
        (3e1493f46390, ledger uclamp-v5.14) the waking task's own clamps alone apply there.
    task_uclamp_min, task_uclamp_max : int or array of int, optional
        The waking task's effective clamps (default 0 and 1024). Given any of the four, from
        v5.6 (ledger uclamp-v5.6, 1d42509e475c) a candidate must fit with its util clamped by
        ``uclamp_rq_util_with(rq, util, p)``: a ``uclamp_min`` above a CPU's ``capacity_of``
        / 1.25 keeps the task off it. From v6.2 (ledger uclamp-v6.2) the fit is
        ``util_fits_cpu()`` on the unclamped util with the max-aggregated clamps, the early exit
        ``uclamp_task_util(p) == 0`` and "auto" overutilized uses the rq clamps; v6.3 (ledger
        uclamp-v6.3) ranks CPUs that fail only the boost (fits -1) by thermal capacity; v6.7
        (ledger uclamp-v6.7) keeps CPUs with spare capacity 0. The energy estimate's OPP takes the
        clamps from v5.3 (af24bde8df20, ledger uclamp-v5.3: FREQUENCY_UTIL through
        ``uclamp_util_with(rq, util, cpu == dst_cpu ? p : NULL)``, the rq's, and the task's on the
        destination), in the v5.0 form at v5.3 too; v5.3 - v5.5 fit the candidates without them.
        Ignored before v5.3.

    Returns
    -------
    EasDecisions
    """
    from .._kernels import eas as ke

    v = era_of(era, EAS_ERAS, "the mainline EAS wake-up")
    em = _energy_model(platform, era, energy_model)
    plat = em.platform
    n_cpus = plat.nr_cpus
    arr = em.arrays()
    ua = util_array(util_avg, "util_avg", ndim=(1, 2))
    single = ua.ndim == 1
    if single:
        ua = ua[None, :]
    n = ua.shape[0]
    if ua.shape[1] != n_cpus:
        raise ModelError(f"util_avg has {ua.shape[1]} CPUs per wake-up but platform {plat.name!r} has {n_cpus}")

    def per_cpu(value, name, default):
        if value is None:
            return np.full((n, n_cpus), default, dtype=np.int64)
        a = int_array(value, name, ndim=(1, 2), lo=0, hi=1024 if name != "allowed" else 1)
        if a.ndim == 1:
            a = np.broadcast_to(a, (n, a.shape[0]))
        if a.shape != (n, n_cpus):
            raise ModelError(f"{name} must have shape ({n}, {n_cpus}) like util_avg, got {a.shape}")
        return np.ascontiguousarray(a)

    def per_wakeup(value, name, default, check):
        if value is None:
            return np.full(n, default, dtype=np.int64)
        a = check(value, name)
        if a.ndim == 0:
            a = np.full(n, int(a), dtype=np.int64)
        if a.shape != (n,):
            raise ModelError(f"{name} must be a scalar or have one value per wake-up ({n}), got shape {a.shape}")
        return np.ascontiguousarray(a)

    ue = per_cpu(util_est, "util_est", 0)
    allowed_arr = per_cpu(None if allowed is None else np.asarray(allowed).astype(np.int64), "allowed", 1)
    tu = per_wakeup(task_util, "task_util", 0, lambda x, nm: util_array(x, nm, ndim=(0, 1)))
    tue = per_wakeup(task_util_est, "task_util_est", 0, lambda x, nm: util_array(x, nm, ndim=(0, 1)))
    prev = per_wakeup(prev_cpu, "prev_cpu", 0, lambda x, nm: cpu_index(x, nm, n_cpus))
    cap_orig = arr["cap_orig"]
    if capacity is None:
        cap_of = cap_orig.copy()
    else:
        cap_of = util_array(capacity, "capacity")
        if cap_of.shape != (n_cpus,):
            raise ModelError(f"capacity must have one value per CPU ({n_cpus}), got shape {cap_of.shape}")
    code = eas_kernel_era(era)
    full = parse_kernel_version(era)
    extra = None
    inputs = {"util_rt": util_rt, "util_dl": util_dl, "bw_dl": bw_dl, "util_irq": util_irq,
              "thermal_pressure": thermal_pressure, "runnable_avg": runnable_avg}
    uc_inputs = (uclamp_min, uclamp_max, task_uclamp_min, task_uclamp_max, uclamp_idle_max)
    uc_on = any(v_ is not None for v_ in uc_inputs) and full >= (5, 3)
    if any(v_ is not None for v_ in inputs.values()) or uc_on:
        extra = np.zeros((n, ke.X_SIZE, n_cpus), dtype=np.int64)
        rows = {"util_rt": ke.X_RT, "util_dl": ke.X_DL, "bw_dl": ke.X_BW_DL, "util_irq": ke.X_IRQ,
                "thermal_pressure": ke.X_THERMAL, "runnable_avg": ke.X_RUNNABLE}
        for name, value in inputs.items():
            if value is None:
                continue
            if name == "thermal_pressure" and full < (5, 14):
                continue                        # the EM has no allowed_cpu_cap before v5.14
            if name == "runnable_avg" and full < (6, 5):
                continue                        # no runnable boosting before v6.5 (ledger eas-v6.5)
            extra[:, rows[name], :] = per_cpu(value, name, 0)
        if (5, 3) <= full < (5, 6):
            # v5.3 - v5.5 (ledger uclamp-v5.3): the OPP from FREQUENCY_UTIL (af24bde8df20), also in the
            # v5.0 form; without clamps given, the defaults (idle rqs kept at 1024, task 0 - 1024) clamp nothing
            extra[:, ke.X_UC_ON, :] = ke.UC_V5_3
            extra[:, ke.X_UC_RQ_MAX, :] = 1024
            extra[:, ke.X_UC_P_MAX, :] = 1024
        if uc_on:                               # ledger uclamp-v5.3 / v5.6 / v5.14 / v6.2 / v6.3 / v6.7
            extra[:, ke.X_UC_ON, :] = uclamp_eas_form(full)
            rq_min = per_cpu(uclamp_min, "uclamp_min", 0)
            rq_max = per_cpu(uclamp_max, "uclamp_max", 0)
            idle = (rq_min == 0) & (rq_max == 0)         # no task queued: UCLAMP_FLAG_IDLE
            extra[:, ke.X_UC_RQ_MIN, :] = rq_min
            # an idle rq keeps its last task's uclamp_max (uclamp_idle_value, e496187da710)
            extra[:, ke.X_UC_RQ_MAX, :] = np.where(idle, per_cpu(uclamp_idle_max, "uclamp_idle_max", 1024), rq_max)
            if full >= (5, 14):                 # ledger uclamp-v5.14: the waking task's clamps alone there
                extra[:, ke.X_UC_IDLE, :] = idle
            for row, value, name, default in ((ke.X_UC_P_MIN, task_uclamp_min, "task_uclamp_min", 0),
                                              (ke.X_UC_P_MAX, task_uclamp_max, "task_uclamp_max", 1024)):
                a = per_wakeup(value, name, default, lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0, hi=1024))
                extra[:, row, :] = a[:, None]
        th = extra[:, ke.X_THERMAL, :]
        extra[:, ke.X_THERMAL_AVG, :] = th if thermal_load_avg is None else per_cpu(thermal_load_avg,
                                                                                     "thermal_load_avg", 0)
        if (th >= cap_orig[None, :]).any():
            i, c = (int(x) for x in np.argwhere(th >= cap_orig[None, :])[0])
            raise ModelError(f"thermal_pressure[{i}, {c}] = {th[i, c]} leaves no capacity on CPU {c} "
                             f"(capacity {cap_orig[c]}); it must be below the CPU's capacity")
        extra = np.ascontiguousarray(extra)
    if parse_kernel_version(era) < (5, 13):
        tue = tue | 1                     # _task_util_est() | UTIL_AVG_UNCHANGED (ledger util_est-v4.17)
    if isinstance(overutilized, str):
        if overutilized != "auto":
            raise ModelError(f"overutilized must be a bool, an array of bools or 'auto', got {overutilized!r}")
        cpu_util = np.minimum(np.maximum(ua, ue), cap_orig[None, :])
        if extra is not None and extra[0, ke.X_UC_ON, 0] == ke.UC_V6_2:
            # v6.2: util_fits_cpu with its capacity inversion (aa69c36f31aa, ledger uclamp-v6.2), from
            # thermal_load_avg over the perf domains (computed here, refreshed at load balance in the kernel)
            pdi, pdc = arr["pd_info"], arr["pd_cpus"]
            own = np.zeros(n_cpus, np.int64)
            for j in range(pdi.shape[0]):
                own[pdc[pdi[j, 0]:pdi[j, 1]]] = j
            ou = np.array([[ke.util_fits_cpu_v62(
                int(cpu_util[i, c]), int(extra[i, ke.X_UC_RQ_MIN, c]), int(extra[i, ke.X_UC_RQ_MAX, c]), int(cap_of[c]),
                int(cap_orig[c]), int(extra[i, ke.X_THERMAL, c]),
                int(ke.capacity_inverted_pd(c, int(own[c]), pdi, pdc, cap_orig, extra[i, ke.X_THERMAL_AVG]))) == 0
                for c in range(n_cpus)] for i in range(n)]).any(axis=1)
        elif extra is not None and extra[0, ke.X_UC_ON, 0] >= ke.UC_V6_2:   # ledger uclamp-v6.2
            ou = np.array([[ke.cpu_overutilized_uclamp(int(cpu_util[i, c]), int(cap_of[c]), int(cap_orig[c]),
                                                        int(extra[i, ke.X_THERMAL, c]), int(extra[i, ke.X_UC_RQ_MIN, c]),
                                                        int(extra[i, ke.X_UC_RQ_MAX, c]), int(extra[i, ke.X_UC_ON, c]))
                            for c in range(n_cpus)] for i in range(n)]).any(axis=1)
        elif v < (5, 4):
            ou = (cap_of[None, :] * 1024 < cpu_util * 1280).any(axis=1)
        else:
            ou = ~(cpu_util * 1280 < cap_of[None, :] * 1024).all(axis=1)
        ou = ou.astype(np.int64)
    else:
        ou = per_wakeup(np.asarray(overutilized).astype(np.int64), "overutilized", 0,
                        lambda x, nm: int_array(x, nm, ndim=(0, 1), lo=0, hi=1))
    out_cpu = np.empty(n, dtype=np.int64)
    out_energy = np.empty((n, 3), dtype=np.int64)
    out_work = np.empty((n, 2), dtype=np.int64)
    if extra is None:
        ke.feec_batch(code, arr["pd_info"], arr["pd_cpus"], arr["em_states"], arr["em_mode"], cap_orig, cap_of, ua,
                      ue, tu, tue, prev, allowed_arr, ou, out_cpu, out_energy, out_work)
    else:
        ke.feec_batch(code, arr["pd_info"], arr["pd_cpus"], arr["em_states"], arr["em_mode"], cap_orig, cap_of, ua,
                      ue, tu, tue, prev, allowed_arr, ou, out_cpu, out_energy, out_work, extra)
    none = out_energy == ke.NO_ENERGY
    energies = out_energy.astype(np.float64)
    energies[none] = np.nan
    return EasDecisions(cpu=out_cpu, prev_energy=energies[:, 0], best_energy=energies[:, 1],
                        base_energy=out_energy[:, 2], pd_evaluations=out_work[:, 0],
                        cpu_util_computations=out_work[:, 1], era="v%d.%d" % v)


def cpu_overutilized(util, capacity, era="v5.4") -> bool:
    """``cpu_overutilized()``: v5.0 ``util*1280 > capacity*1024``; v5.4+ ``util*1280 >= capacity*1024``."""
    from .._kernels import eas as ke

    v = era_of(era, EAS_ERAS, "cpu_overutilized")
    u = int(util_array(util, "util", ndim=(0,)))
    c = int(util_array(capacity, "capacity", ndim=(0,)))
    return bool(ke.cpu_overutilized(u, c, ke.EAS_V5_0 if v < (5, 4) else ke.EAS_V5_4))


def rd_overutilized_rows(cpu_util, capacity, era="v5.4") -> np.ndarray:
    """The root domain's overutilized flag for each row of ``cpu_util`` (int[n, cpus]): any CPU
    ``cpu_overutilized()`` at its ``capacity`` (the v5.0 form before v5.4, ``!fits_capacity``
    from v5.4; an older ``era`` takes the v5.0 form). Returns int64[n] of 0/1."""
    from .._kernels import eas as ke

    code = ke.EAS_V5_0 if parse_kernel_version(era) < (5, 4) else ke.EAS_V5_4
    cu = np.ascontiguousarray(cpu_util, np.int64)
    cap = np.ascontiguousarray(capacity, np.int64)
    if cu.ndim != 2 or cap.shape != (cu.shape[1],):
        raise ModelError(f"rd_overutilized_rows: cpu_util must be [rows, cpus] and capacity [cpus], got "
                         f"{cu.shape} and {cap.shape}")
    return np.array([ke.rd_overutilized(cu[i], cap, code) for i in range(cu.shape[0])], dtype=np.int64)


def compute_energy_v50(em_arrays: dict, task_cpu: int, dst_cpu: int, util_avg, util_est, task_util: int,
                       task_util_est: int, work=None) -> int:
    """v5.0 ``compute_energy(p, dst_cpu, head)``: the system's energy (every perf domain) with the
    task moved from ``task_cpu`` to ``dst_cpu``, per-CPU ``util_avg``/``util_est`` as the cfs_rqs
    hold them; ``em_arrays`` is :meth:`lisa_eas.energy_model.EnergyModel.arrays`. ``work``
    (int64[2], optional) accumulates the perf-domain and CPU-util evaluations."""
    from .._kernels.eas import compute_energy_v50 as k

    if work is None:
        work = np.zeros(2, np.int64)
    return k(em_arrays["pd_info"], em_arrays["pd_cpus"], em_arrays["em_states"], em_arrays["em_mode"],
             int(task_cpu), int(dst_cpu), util_avg, util_est, int(task_util), int(task_util_est),
             em_arrays["cap_orig"], work)
