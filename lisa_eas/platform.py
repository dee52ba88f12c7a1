"""Boards as frozen dataclasses: CPU topology, perf domains, OPPs and idle states.

A :class:`Platform` is loaded 1:1 from a JSON file (the bundled boards live in
``lisa_eas/platforms/``, each with its provenance). It is pure data: the energy
model the kernel would build from it is :class:`lisa_eas.EnergyModel`.

Power numbers come from one of two very different sources, and the distinction is
kept visible in :attr:`PerfDomain.power_source` and :attr:`PerfDomain.power_unit`:

``"kernel_em"``
    the mainline Energy Model computed from the DT ``dynamic-power-coefficient``
    (``drivers/opp/of.c`` ``_get_power``), in mW;
``"legacy_eas"``
    the pre-mainline out-of-tree EAS ``busy-cost-data`` tables, in abstract
    "bogo-watt" units that are not always on a mW scale;
``"none"``
    no power data: the kernel registers no energy model for such a domain.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from .errors import PlatformError

__all__ = ["IdleState", "Opp", "PerfDomain", "Platform", "list_platforms", "load_platform"]

POWER_SOURCES = ("kernel_em", "legacy_eas", "none")
_POWER_UNITS = {"kernel_em": "mW", "legacy_eas": "bogo-watt", "fitted": "mW", "none": ""}
SCHED_CAPACITY_SCALE = 1024

_OPP_KNOWN = {"freq_khz", "capacity", "power_mw", "voltage_uv", "legacy_capacity",
              "legacy_cpu_power", "legacy_cluster_power"}


class FrozenMap(Mapping):
    """A read-only mapping that, unlike ``MappingProxyType``, pickles (for process pools)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] = ()):
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __setattr__(self, key, value):
        raise AttributeError("FrozenMap is read-only")

    def __getstate__(self):
        return self._data

    def __setstate__(self, state):
        object.__setattr__(self, "_data", state)

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"


@dataclass(frozen=True)
class Opp:
    """One operating performance point of a perf domain.

    ``power_mw`` is the per-CPU busy power in the domain's power unit (see
    :attr:`PerfDomain.power_unit`); ``capacity`` is the scheduler's view of the CPU's
    compute capacity at this frequency (0..1024). ``extra`` keeps comparison columns
    some boards carry (for example measured power from another source).
    """

    freq_khz: int
    capacity: int
    power_mw: float | None = None
    voltage_uv: int | None = None
    legacy_capacity: int | None = None
    legacy_cpu_power: float | None = None
    legacy_cluster_power: float | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: FrozenMap({}))


@dataclass(frozen=True)
class IdleState:
    """A CPU idle state: latencies from the DT, power where a legacy model gives it."""

    name: str
    entry_latency_us: int | None = None
    exit_latency_us: int | None = None
    min_residency_us: int | None = None
    power_mw: float | None = None
    cluster_power_mw: float | None = None


@dataclass(frozen=True)
class PerfDomain:
    """CPUs sharing one clock (one cpufreq policy) and their OPP table.

    ``static_power_mw`` is the domain's always-on power where a fitted model gives it
    (``lisa-eas platform fit``); the kernel EM has none."""

    name: str
    cpus: tuple[int, ...]
    opps: tuple[Opp, ...]
    cpu_capacity_max: int
    power_source: str
    core_type: str = ""
    capacity_dmips_mhz: int | None = None
    dynamic_power_coefficient: int | None = None
    power_source_detail: str = ""
    idle_states: tuple[IdleState, ...] = ()
    legacy_cpu_idle_cost: tuple[float, ...] = ()
    legacy_cluster_idle_cost: tuple[float, ...] = ()
    static_power_mw: float | None = None

    @property
    def power_unit(self) -> str:
        """Unit of ``Opp.power_mw`` in this domain: ``"mW"``, ``"bogo-watt"`` or ``""``."""
        return _POWER_UNITS[self.power_source]

    @property
    def freqs_khz(self) -> tuple[int, ...]:
        return tuple(o.freq_khz for o in self.opps)

    @property
    def fmax_khz(self) -> int:
        return self.opps[-1].freq_khz

    @property
    def has_power(self) -> bool:
        return all(o.power_mw is not None for o in self.opps)


@dataclass(frozen=True)
class Platform:
    """A board: its perf domains, plus LLC facts used by the idle-CPU search.

    ``llc_groups`` are the CPUs of each last-level-cache scheduling domain (``sd_llc``),
    ``llc_weight`` the size of the largest; a board file gives either ``llc_groups`` (e.g.
    one per cluster on big.LITTLE boards whose clusters each have their own L2) or
    ``llc_weight`` (consecutive CPUs), and without either every CPU shares one LLC.
    ``imbalance_pct`` is the kernel default for an MC domain (117) unless given.
    """

    name: str
    description: str
    perf_domains: tuple[PerfDomain, ...]
    nr_cpus: int
    llc_weight: int
    imbalance_pct: int = 117
    notes: str = ""
    provenance: tuple[Mapping[str, str], ...] = ()
    source: str = ""
    llc_groups: tuple[tuple[int, ...], ...] = ()
    #: What the board's published energy meter covers (``"meter"`` in the JSON; see
    #: :mod:`lisa_eas.sim._meter`): ``scope`` ("cpus" or "board"), ``name``, ``domains`` (the
    #: perf domains it measures), ``non_cpu_baseline_mw`` (None: no public figure) and ``provenance``.
    meter: Mapping[str, Any] | None = None

    @property
    def cpus(self) -> tuple[int, ...]:
        return tuple(range(self.nr_cpus))

    def llc_ids(self) -> np.ndarray:
        """LLC id of each CPU (int64): its index in ``llc_groups``, else consecutive groups of
        ``llc_weight`` CPUs."""
        if self.llc_groups:
            ids = np.zeros(self.nr_cpus, np.int64)
            for k, group in enumerate(self.llc_groups):
                ids[list(group)] = k
            return ids
        return np.arange(self.nr_cpus, dtype=np.int64) // self.llc_weight

    def llc_size(self, cpu: int) -> int:
        """Number of CPUs in ``cpu``'s LLC (``sd_llc_size``)."""
        ids = self.llc_ids()
        return int((ids == ids[cpu]).sum())

    def domain_of(self, cpu: int) -> PerfDomain:
        """The perf domain holding ``cpu``."""
        for pd in self.perf_domains:
            if cpu in pd.cpus:
                return pd
        raise PlatformError(f"platform {self.name!r}: CPU {cpu} is in no perf domain "
                            f"(CPUs are {list(self.cpus)})")

    def cpu_capacity(self, cpu: int) -> int:
        """``arch_scale_cpu_capacity(cpu)``: the CPU's capacity at its top OPP."""
        if not self.perf_domains:
            return SCHED_CAPACITY_SCALE
        return self.domain_of(cpu).cpu_capacity_max

    @property
    def power_sources(self) -> tuple[str, ...]:
        return tuple(sorted({pd.power_source for pd in self.perf_domains}))


# --------------------------------------------------------------------------- loading

def _bundled_dir():
    return resources.files("lisa_eas") / "platforms"


def list_platforms() -> list[str]:
    """Names of the bundled boards, sorted.

    Returns
    -------
    list of str
        Names accepted by :func:`load_platform`.
    """
    return sorted(p.name[:-5] for p in _bundled_dir().iterdir() if p.name.endswith(".json"))


def load_platform(name_or_path: str | Path) -> Platform:
    """Load a bundled board by name, or a platform JSON file by path.

    Parameters
    ----------
    name_or_path : str or Path
        A name from :func:`list_platforms` (``"hikey960"``) or the path of a JSON file
        with the same layout as the bundled ones.

    Returns
    -------
    Platform

    Raises
    ------
    PlatformError
        Unknown board name (the known ones are listed), unreadable file, or a
        description that fails validation (the message names the field).
    """
    path = Path(name_or_path)
    if path.suffix == ".json" or path.exists():
        source = str(path)
        try:
            text = path.read_text()
        except OSError as exc:
            raise PlatformError(f"{path}: cannot read platform file ({exc.strerror})") from exc
    else:
        name = str(name_or_path)
        ref = _bundled_dir() / f"{name}.json"
        if not ref.is_file():
            raise PlatformError(f"unknown platform {name!r}; known boards: "
                                f"{', '.join(list_platforms())}, or give a path to a JSON file")
        source = f"lisa_eas/platforms/{name}.json"
        text = ref.read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlatformError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg})") from exc
    return platform_from_dict(data, source=source)


def platform_from_dict(data: Mapping[str, Any], *, source: str = "<dict>") -> Platform:
    """Build and validate a :class:`Platform` from the JSON layout of the bundled files."""
    if not isinstance(data, Mapping):
        raise PlatformError(f"{source}: top level must be an object")
    name = _req(data, "name", str, source)
    pds_raw = data.get("perf_domains") or []
    if not isinstance(pds_raw, list):
        raise PlatformError(f"{source}: 'perf_domains' must be a list")
    pds = tuple(_domain(pd, f"{source}: perf_domains[{i}]") for i, pd in enumerate(pds_raw))
    seen: dict[int, str] = {}
    for pd in pds:
        for cpu in pd.cpus:
            if cpu in seen:
                raise PlatformError(f"{source}: CPU {cpu} is in two perf domains "
                                    f"({seen[cpu]!r} and {pd.name!r}); each CPU belongs to one")
            seen[cpu] = pd.name
    if pds:
        nr_cpus = max(seen) + 1
        holes = sorted(set(range(nr_cpus)) - set(seen))
        if holes:
            raise PlatformError(f"{source}: CPUs {holes} are in no perf domain; "
                                f"CPU ids must be 0..{nr_cpus - 1}")
    else:
        if "llc_weight" not in data:
            raise PlatformError(f"{source}: a platform without perf_domains needs 'llc_weight'")
        nr_cpus = _req(data, "llc_weight", int, source)
    llc_groups = _llc_groups(data.get("llc_groups"), nr_cpus, source)
    if llc_groups and "llc_weight" in data:
        raise PlatformError(f"{source}: give 'llc_groups' or 'llc_weight', not both")
    llc_weight = max(len(g) for g in llc_groups) if llc_groups else int(data.get("llc_weight", nr_cpus))
    if not 1 <= llc_weight <= nr_cpus:
        raise PlatformError(f"{source}: 'llc_weight' {llc_weight} must be within 1..{nr_cpus}")
    imbalance_pct = int(data.get("imbalance_pct", 117))
    if imbalance_pct < 100:
        raise PlatformError(f"{source}: 'imbalance_pct' {imbalance_pct} must be >= 100")
    prov = tuple(FrozenMap(dict(p)) for p in data.get("provenance", ()))
    return Platform(name=name, description=str(data.get("description", "")), perf_domains=pds,
                    nr_cpus=nr_cpus, llc_weight=llc_weight, imbalance_pct=imbalance_pct,
                    notes=str(data.get("notes", "")), provenance=prov, source=source, llc_groups=llc_groups,
                    meter=_meter(data.get("meter"), pds, source))


def _meter(raw: Any, pds: tuple, source: str) -> Mapping[str, Any] | None:
    """The ``meter`` declaration: what the board's published energy meter covers."""
    if raw is None:
        return None
    where = f"{source}: 'meter'"
    if not isinstance(raw, Mapping):
        raise PlatformError(f"{where} must be an object with 'scope' ('cpus' or 'board'), 'name', 'domains'")
    scope = raw.get("scope")
    if scope not in ("cpus", "board"):
        raise PlatformError(f"{where}: 'scope' must be 'cpus' or 'board', got {scope!r}")
    names = [pd.name for pd in pds]
    domains = raw.get("domains", names)
    if not isinstance(domains, list) or not all(d in names for d in domains):
        raise PlatformError(f"{where}: 'domains' must list perf domains of this board ({', '.join(names)}), "
                            f"got {domains!r}")
    base = raw.get("non_cpu_baseline_mw")
    if base is not None and (not isinstance(base, (int, float)) or isinstance(base, bool) or base < 0):
        raise PlatformError(f"{where}: 'non_cpu_baseline_mw' must be a number >= 0 or null, got {base!r}")
    return FrozenMap({"scope": scope, "name": str(raw.get("name", "")), "domains": tuple(domains),
                      "non_cpu_baseline_mw": base, "baseline_note": str(raw.get("baseline_note", "")),
                      "provenance": str(raw.get("provenance", ""))})


def _llc_groups(raw: Any, nr_cpus: int, source: str) -> tuple[tuple[int, ...], ...]:
    """``llc_groups``: lists of CPUs that partition 0..nr_cpus-1 (None: not given)."""
    if raw is None:
        return ()
    where = f"{source}: 'llc_groups'"
    if not isinstance(raw, list) or not raw or not all(isinstance(g, list) and g for g in raw):
        raise PlatformError(f"{where} must be a non-empty list of non-empty CPU lists, e.g. [[0, 1], [2, 3]]")
    seen: list[int] = []
    for g in raw:
        for c in g:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < nr_cpus:
                raise PlatformError(f"{where}: {c!r} is not a CPU of this board (0..{nr_cpus - 1})")
        seen.extend(g)
    if sorted(seen) != list(range(nr_cpus)):
        dup = sorted({c for c in seen if seen.count(c) > 1})
        missing = sorted(set(range(nr_cpus)) - set(seen))
        raise PlatformError(f"{where} must put each CPU in exactly one LLC: "
                            + (f"CPUs {dup} appear twice" if dup else f"CPUs {missing} are missing"))
    return tuple(tuple(sorted(g)) for g in raw)


def _req(d: Mapping[str, Any], key: str, typ: type, where: str):
    if key not in d or d[key] is None:
        raise PlatformError(f"{where}: missing field {key!r}")
    val = d[key]
    if typ is int and isinstance(val, float) and val.is_integer():
        val = int(val)
    if not isinstance(val, typ) or isinstance(val, bool):
        raise PlatformError(f"{where}: field {key!r} must be {typ.__name__}, got {val!r}")
    return val


def _power_source(raw: Any, where: str) -> str:
    if raw is None:
        return "none"
    text = str(raw)
    if text.startswith("kernel_em"):
        return "kernel_em"
    if text.startswith("legacy"):
        return "legacy_eas"
    if text.startswith("fitted"):
        return "fitted"
    raise PlatformError(f"{where}: 'power_mw_source' {text!r} is not understood; it must start "
                        f"with 'kernel_em' (mainline EM, mW), 'legacy' (old EAS tables) or "
                        f"'fitted' (fitted to measured energy, mW), or be null")


def _domain(raw: Mapping[str, Any], where: str) -> PerfDomain:
    if not isinstance(raw, Mapping):
        raise PlatformError(f"{where}: must be an object")
    name = _req(raw, "name", str, where)
    where = f"{where} ({name!r})"
    cpus_raw = _req(raw, "cpus", list, where)
    if not cpus_raw or not all(isinstance(c, int) and c >= 0 for c in cpus_raw):
        raise PlatformError(f"{where}: 'cpus' must be a non-empty list of CPU ids >= 0")
    if len(set(cpus_raw)) != len(cpus_raw):
        raise PlatformError(f"{where}: 'cpus' lists a CPU twice: {cpus_raw}")
    cap_max = _req(raw, "cpu_capacity_max", int, where)
    if not 0 < cap_max <= SCHED_CAPACITY_SCALE:
        raise PlatformError(f"{where}: 'cpu_capacity_max' {cap_max} must be within 1..1024")
    source = _power_source(raw.get("power_mw_source"), where)
    opps_raw = _req(raw, "opps", list, where)
    if not opps_raw:
        raise PlatformError(f"{where}: 'opps' is empty; a perf domain needs at least one OPP")
    opps = tuple(_opp(o, f"{where} opps[{i}]") for i, o in enumerate(opps_raw))
    for i in range(1, len(opps)):
        if opps[i].freq_khz <= opps[i - 1].freq_khz:
            raise PlatformError(f"{where} opps[{i}]: frequencies must increase strictly "
                                f"({opps[i - 1].freq_khz} kHz then {opps[i].freq_khz} kHz); sort the OPPs")
        if opps[i].capacity < opps[i - 1].capacity:
            raise PlatformError(f"{where} opps[{i}]: capacity {opps[i].capacity} is below the "
                                f"previous OPP's {opps[i - 1].capacity}")
    if opps[-1].capacity > cap_max:
        raise PlatformError(f"{where}: top OPP capacity {opps[-1].capacity} exceeds "
                            f"'cpu_capacity_max' {cap_max}")
    if source != "none":
        for i, o in enumerate(opps):
            if o.power_mw is None:
                raise PlatformError(f"{where} opps[{i}]: 'power_mw' is missing but 'power_mw_source' "
                                    f"says the domain has an energy model; give the power or set "
                                    f"'power_mw_source' to null")
    states, cpu_idle_cost, cluster_idle_cost = [], (), ()
    for j, s in enumerate(raw.get("idle_states") or ()):
        if s.get("name") == "legacy_idle_cost_raw":
            cpu_idle_cost = tuple(s.get("legacy_cpu_idle_cost") or ())
            cluster_idle_cost = tuple(s.get("legacy_cluster_idle_cost") or ())
            continue
        states.append(IdleState(
            name=_req(s, "name", str, f"{where} idle_states[{j}]"),
            entry_latency_us=s.get("entry_latency_us"), exit_latency_us=s.get("exit_latency_us"),
            min_residency_us=s.get("min_residency_us"), power_mw=s.get("power_mw"),
            cluster_power_mw=s.get("cluster_power_mw")))
    return PerfDomain(
        name=name, cpus=tuple(cpus_raw), opps=opps, cpu_capacity_max=cap_max, power_source=source,
        core_type=str(raw.get("core_type", "")), capacity_dmips_mhz=raw.get("capacity_dmips_mhz"),
        dynamic_power_coefficient=raw.get("dynamic_power_coefficient"),
        power_source_detail=str(raw.get("power_mw_source") or ""), idle_states=tuple(states),
        legacy_cpu_idle_cost=cpu_idle_cost, legacy_cluster_idle_cost=cluster_idle_cost,
        static_power_mw=_static_power(raw.get("static_power_mw"), where))


def _static_power(raw: Any, where: str) -> float | None:
    if raw is None:
        return None
    if not isinstance(raw, (int, float)) or raw < 0:
        raise PlatformError(f"{where}: 'static_power_mw' must be a number >= 0, got {raw!r}")
    return float(raw)


def _opp(raw: Mapping[str, Any], where: str) -> Opp:
    if not isinstance(raw, Mapping):
        raise PlatformError(f"{where}: must be an object")
    freq = _req(raw, "freq_khz", int, where)
    if freq <= 0:
        raise PlatformError(f"{where}: 'freq_khz' must be > 0, got {freq}")
    cap = _req(raw, "capacity", int, where)
    if not 0 < cap <= SCHED_CAPACITY_SCALE:
        raise PlatformError(f"{where}: 'capacity' {cap} must be within 1..1024")
    power = raw.get("power_mw")
    if power is not None and (not isinstance(power, (int, float)) or power < 0):
        raise PlatformError(f"{where}: 'power_mw' must be a number >= 0, got {power!r}")
    extra = {k: v for k, v in raw.items() if k not in _OPP_KNOWN}
    return Opp(freq_khz=freq, capacity=cap, power_mw=power, voltage_uv=raw.get("voltage_uv"),
               legacy_capacity=raw.get("legacy_capacity"),
               legacy_cpu_power=raw.get("legacy_cpu_power"),
               legacy_cluster_power=raw.get("legacy_cluster_power"),
               extra=FrozenMap(extra))
