"""The kernel Energy Model built from a platform, as each kernel era builds and uses it.

Per perf domain the kernel keeps a table of states (frequency, power, cost, and from
v6.9 ``performance``) built by ``em_create_perf_table`` / ``em_compute_costs``
(``kernel/power/energy_model.c``), and estimates a domain's energy with
``em_cpu_energy`` (``include/linux/energy_model.h``; ``em_pd_energy`` before v5.9).
The variants modeled here, selected by ``era``:

======  =====================================================================
era     what changed
======  =====================================================================
v5.0    ``cost = fmax * power / freq`` (power in integer mW); the energy call
        maps ``max_util`` to a frequency with the 1.25 headroom inside
        ``map_util_freq``: ``freq = (fmax + fmax/4) * max_util / scale_cpu``;
        first state with ``frequency >= freq``; ``E = cost * sum_util / scale_cpu``
v5.14   ``max_util = min(map_util_perf(max_util), allowed_cpu_cap)`` with
        ``map_util_perf(u) = u + u/4``; ``freq = fmax * max_util / scale_cpu``
v5.15   ``em_scale_power``: power x1000 before computing cost (64-bit)
v5.16   states whose cost is not below the next higher efficient state's are
        flagged INEFFICIENT and skipped when the domain sets
        ``EM_PERF_DOMAIN_SKIP_INEFFICIENCIES``
v6.0    power in integer uW (``_get_power`` divides by 1e6), no x1000 scaling
        (ae6ccaa65038; v5.19 still divides by 1e9 and scales x1000)
v6.8    headroom no longer applied here (callers apply it);
        ``max_util = min(max_util, allowed_cpu_cap)``
v6.9    ``performance = scale_cpu * freq / fmax``, ``cost = 10 * power /
        performance``; first state with ``performance >= max_util``;
        ``E = cost * sum_util`` (no division)
======  =====================================================================

Integer arithmetic follows the kernel (64-bit unsigned, truncating division). Power
from legacy "bogo-watt" tables goes through the same formulas in its own unit; from
v5.15 on it is scaled x1000 like mW, so relative figures stay comparable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._era import eras_of, parse_kernel_version, select_era
from .errors import ModelError, PlatformError
from .platform import PerfDomain, Platform, load_platform

__all__ = ["EM_ERAS", "EnergyModel", "PerfDomainEnergyModel"]

#: Kernel versions at which the energy model's construction or use changed (rows ``em-*`` of the
#: era ledger ``lisa_eas._era.ERA_LEDGER``).
EM_ERAS: tuple[tuple[int, int], ...] = eras_of("em")


@dataclass(frozen=True)
class PerfDomainEnergyModel:
    """The kernel's EM table of one perf domain, for one era.

    Arrays are ascending in frequency, one entry per state. ``power`` is in
    ``power_unit`` as the kernel stores it for the era (integer mW, mW x1000, uW or
    abstract), ``cost`` and ``performance`` as the kernel computes them.
    """

    name: str
    cpus: tuple[int, ...]
    era: tuple[int, int]
    scale_cpu: int
    freq_khz: np.ndarray
    power: np.ndarray
    cost: np.ndarray
    performance: np.ndarray
    inefficient: np.ndarray
    skip_inefficiencies: bool
    power_unit: str
    power_source: str

    @property
    def nr_states(self) -> int:
        return len(self.freq_khz)

    @property
    def fmax_khz(self) -> int:
        return int(self.freq_khz[-1])

    def state_index(self, max_util: int, allowed_cpu_cap: int | None = None) -> int:
        """Index of the state ``em_cpu_energy`` selects for ``max_util`` in this era."""
        max_util = _check_util(max_util, "max_util")
        cap = self.scale_cpu if allowed_cpu_cap is None else _check_util(allowed_cpu_cap, "allowed_cpu_cap")
        era = self.era
        if era >= (6, 9):
            max_util = min(max_util, cap)
            key, target = self.performance, max_util
        elif era >= (6, 8):
            max_util = min(max_util, cap)
            key, target = self.freq_khz, self.fmax_khz * max_util // self.scale_cpu
        elif era >= (5, 14):
            max_util = min(max_util + (max_util >> 2), cap)
            key, target = self.freq_khz, self.fmax_khz * max_util // self.scale_cpu
        else:
            fmax = self.fmax_khz
            key, target = self.freq_khz, (fmax + (fmax >> 2)) * max_util // self.scale_cpu
        skip = self.skip_inefficiencies and era >= (5, 16)
        for i in range(self.nr_states):
            if key[i] >= target:
                if skip and self.inefficient[i]:
                    continue
                return i
        return self.nr_states - 1

    def cpu_energy(self, max_util: int, sum_util: int, allowed_cpu_cap: int | None = None) -> int:
        """``em_cpu_energy(pd, max_util, sum_util, allowed_cpu_cap)`` for this era.

        Parameters
        ----------
        max_util : int
            Highest CPU utilization in the domain (0..1024), which sets the OPP.
            Before v6.8 this is the raw utilization (the EM applies the 1.25 headroom);
            from v6.8 the caller has already applied it.
        sum_util : int
            Sum of the domain's CPU utilizations (the busy time), >= 0.
        allowed_cpu_cap : int, optional
            Capacity cap from thermal pressure (v5.14+); defaults to ``scale_cpu``.

        Returns
        -------
        int
            Energy in the era's unit: ``cost * sum_util / scale_cpu`` (before v6.9)
            or ``cost * sum_util`` (v6.9+).
        """
        if isinstance(sum_util, bool) or not isinstance(sum_util, (int, np.integer)) or sum_util < 0:
            raise ModelError(f"sum_util must be an integer >= 0, got {sum_util!r}")
        if sum_util == 0:
            return 0
        i = self.state_index(max_util, allowed_cpu_cap)
        if self.era >= (6, 9):
            return int(self.cost[i]) * int(sum_util)
        return int(self.cost[i]) * int(sum_util) // self.scale_cpu

    def table(self):
        """The domain's EM table as a DataFrame (one row per state)."""
        import pandas as pd

        return pd.DataFrame({"freq_khz": self.freq_khz, "power": self.power, "cost": self.cost,
                             "performance": self.performance, "inefficient": self.inefficient})


@dataclass(frozen=True)
class EnergyModel:
    """The energy model the kernel of a given era builds from a platform.

    Build it with :meth:`from_platform`. ``domains`` follow the platform's perf
    domains; :meth:`domain_of` finds a CPU's.
    """

    platform: Platform
    era: tuple[int, int]
    domains: tuple[PerfDomainEnergyModel, ...]

    @classmethod
    def from_platform(cls, platform: Platform | str, era: str | tuple[int, int] = "v6.9", *,
                      power_column: str | None = None,
                      skip_inefficiencies: bool = True) -> "EnergyModel":
        """Build the EM of ``platform`` as kernel ``era`` would.

        Parameters
        ----------
        platform : Platform or str
            A platform or a bundled board name.
        era : str or (int, int)
            Kernel version, e.g. ``"v5.0"``, ``"v5.4"``, ``"v6.9"``; mapped to the newest
            EM change not newer than it (see :data:`EM_ERAS`).
        power_column : str, optional
            Use another per-OPP power column (e.g. ``"power_mw_if_exynos5422_dpc"``,
            ``"legacy_cpu_power"``) instead of ``power_mw``.
        skip_inefficiencies : bool
            Whether the domain sets ``EM_PERF_DOMAIN_SKIP_INEFFICIENCIES`` (v5.16+).

        Raises
        ------
        PlatformError
            A domain has no power data (the kernel would register no EM).
        ModelError
            Unknown era.
        """
        if isinstance(platform, str):
            platform = load_platform(platform)
        v = parse_kernel_version(era)
        em_era = select_era(v, EM_ERAS, "the mainline Energy Model")
        if not platform.perf_domains:
            raise PlatformError(f"platform {platform.name!r} has no perf domains, so no energy model")
        doms = tuple(_build_domain(pd, em_era, power_column, skip_inefficiencies, platform.name)
                     for pd in platform.perf_domains)
        return cls(platform=platform, era=em_era, domains=doms)

    def domain_of(self, cpu: int) -> PerfDomainEnergyModel:
        for d in self.domains:
            if cpu in d.cpus:
                return d
        raise ModelError(f"CPU {cpu} is not in platform {self.platform.name!r} "
                         f"(CPUs 0..{self.platform.nr_cpus - 1})")

    @property
    def era_name(self) -> str:
        return "v%d.%d" % self.era

    def arrays(self) -> dict:
        """The model packed into int64 arrays for the numba kernels (``lisa_eas._kernels.eas``).

        Perf domains come in the kernel's ``rd->pd`` list order: ``build_perf_domains()``
        prepends each new domain, so the domain of the highest first CPU comes first.

        Returns
        -------
        dict
            ``pd_info`` int64[n_pd, 6] (cpu_start, cpu_end, state_start, state_end,
            scale_cpu, skip_inefficient), ``pd_cpus`` int64[n_cpus], ``em_states``
            int64[n_states, 4] (freq_khz, cost, performance, inefficient), ``em_mode``
            (0: < v5.14, 1: v5.14-v6.7, 2: v6.8, 3: v6.9+), ``cap_orig`` int64[n_cpus]
            and ``pd_names`` (tuple, list order).
        """
        order = sorted(self.domains, key=lambda d: min(d.cpus), reverse=True)
        n_cpus = self.platform.nr_cpus
        pd_info = np.zeros((len(order), 6), dtype=np.int64)
        pd_cpus, states = [], []
        cap_orig = np.zeros(n_cpus, dtype=np.int64)
        skip = self.era >= (5, 16)
        for i, d in enumerate(order):
            cpus = sorted(d.cpus)
            pd_info[i, 0], pd_info[i, 1] = len(pd_cpus), len(pd_cpus) + len(cpus)
            pd_cpus.extend(cpus)
            pd_info[i, 2], pd_info[i, 3] = len(states), len(states) + d.nr_states
            for k in range(d.nr_states):
                states.append((int(d.freq_khz[k]), int(d.cost[k]), int(d.performance[k]),
                               int(bool(d.inefficient[k]))))
            pd_info[i, 4] = d.scale_cpu
            pd_info[i, 5] = int(skip and d.skip_inefficiencies)
            cap_orig[cpus] = d.scale_cpu
        if self.era >= (6, 9):
            mode = 3
        elif self.era >= (6, 8):
            mode = 2
        elif self.era >= (5, 14):
            mode = 1
        else:
            mode = 0
        return {"pd_info": pd_info, "pd_cpus": np.array(pd_cpus, dtype=np.int64),
                "em_states": np.array(states, dtype=np.int64).reshape(-1, 4), "em_mode": mode,
                "cap_orig": cap_orig, "pd_names": tuple(d.name for d in order)}


def _build_domain(pd: PerfDomain, era, power_column, skip_ineff, plat_name) -> PerfDomainEnergyModel:
    col = power_column or "power_mw"
    raw = []
    for i, o in enumerate(pd.opps):
        val = getattr(o, col, None) if col in ("power_mw", "legacy_cpu_power") else o.extra.get(col)
        if val is None:
            hint = ("" if power_column else " (the kernel registers no EM for it; pass power_column= "
                    "to use another column such as "
                    f"{sorted(k for k in o.extra if 'power' in k) or ['legacy_cpu_power']})")
            raise PlatformError(f"platform {plat_name!r}, perf domain {pd.name!r}, OPP {i} "
                                f"({o.freq_khz} kHz): no {col!r}{hint}")
        raw.append(float(val))
    freqs = np.array(pd.freqs_khz, dtype=np.int64)
    fmax = int(freqs[-1])
    uses_uw = era >= (6, 0) and pd.power_source == "kernel_em" and col == "power_mw"     # ledger em-v6.0
    if uses_uw:
        # _get_power() stores truncated uW; the files keep uW / 1000.
        power = np.array([int(round(p * 1000)) for p in raw], dtype=np.int64)
        unit = "uW"
    else:
        power = np.array([math.floor(p) for p in raw], dtype=np.int64)
        unit = _unit(pd)
        if era >= (5, 15):
            # em_scale_power() (5.15-5.19, ledger em-v5.15); kept for non-uW sources from 6.0 on.
            power = power * 1000
            unit = "uW" if unit == "mW" else f"{unit} x1000"
    scale_cpu = pd.cpu_capacity_max
    n = len(freqs)
    performance = np.array([scale_cpu * int(f) // fmax for f in freqs], dtype=np.int64)
    cost = np.zeros(n, dtype=np.int64)
    ineff = np.zeros(n, dtype=bool)
    prev_cost = None
    for i in range(n - 1, -1, -1):  # em_compute_costs() walks from the top state down
        if era >= (6, 9):
            if performance[i] == 0:
                raise PlatformError(f"perf domain {pd.name!r}: OPP {freqs[i]} kHz has zero performance")
            c = 10 * int(power[i]) // int(performance[i])
        else:
            c = fmax * int(power[i]) // int(freqs[i])
        cost[i] = c
        if era >= (5, 16) and prev_cost is not None and c >= prev_cost:
            ineff[i] = True
        else:
            prev_cost = c
    return PerfDomainEnergyModel(
        name=pd.name, cpus=pd.cpus, era=era, scale_cpu=scale_cpu, freq_khz=freqs, power=power,
        cost=cost, performance=performance, inefficient=ineff, skip_inefficiencies=skip_ineff,
        power_unit=unit, power_source=pd.power_source)


def _unit(pd: PerfDomain) -> str:
    return pd.power_unit or "abstract"


def _check_util(u, name: str) -> int:
    if isinstance(u, bool) or not isinstance(u, (int, np.integer)):
        raise ModelError(f"{name} must be an integer in 0..1024, got {u!r}")
    if not 0 <= u <= 1024:
        raise ModelError(f"{name} must be within 0..1024, got {u}")
    return int(u)
