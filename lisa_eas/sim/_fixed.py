"""Boards without an energy model or without cpufreq (servers, a probed VM): what the
simulator runs on them.

The kernel registers an Energy Model only for perf domains whose driver gives power data
(``em_dev_register_perf_domain``), and ``build_perf_domains()`` (kernel/sched/topology.c,
v5.0 531b5c9f5cd0 onwards) enables EAS only when every CPU's domain has one: without it
``sched_energy_enabled()`` is false, ``select_task_rq_fair()`` never calls
``find_energy_efficient_cpu()`` and a wake-up takes the idle search (``select_idle_sibling``),
the load balance runs as on any SMP system. Without cpufreq there is no frequency to change:
every CPU runs at ``arch_scale_cpu_capacity`` (1024 when the firmware gives no capacities)
and ``arch_scale_freq_capacity`` stays at 1024.

:func:`plan_platform` turns such a board into what the event loop needs (a single,
fixed-frequency "perf domain" of one OPP with no power data: one OPP means the governor never
changes anything) and says, in words that go into ``trace.metadata["platform_model"]``, what
was modelled instead of what: frequency fixed, EAS off, no energy figure.
"""
from __future__ import annotations

from dataclasses import replace

from ..errors import ModelError
from ..platform import SCHED_CAPACITY_SCALE, Opp, PerfDomain, Platform
from ._config import SimConfig

__all__ = ["FIXED_DOMAIN_NAME", "plan_platform"]

#: Name of the single fixed-frequency domain given to a board without perf domains.
FIXED_DOMAIN_NAME = "fixed-frequency"

# The frequency of the synthetic OPP is never shown (no cpu_frequency events are written for
# such a board); it only has to be positive for the loop's frequency-invariance ratio (1024).
_NOMINAL_KHZ = 1_000_000


def _has_energy_model(platform: Platform) -> str | None:
    """Why the kernel would have no Energy Model for ``platform`` (None: it has one)."""
    if not all(d.has_power for d in platform.perf_domains):
        return "its perf domains have no power data (no Energy Model)"
    return None


def plan_platform(platform: Platform, config: SimConfig) -> tuple[Platform, SimConfig, dict]:
    """The platform and configuration the event loop runs for ``platform``, and what they model.

    * No perf domains (no cpufreq): one fixed-frequency domain over every CPU, each at
      ``platform.cpu_capacity`` (1024), a single OPP without power; governor ``performance``
      (the only OPP), placement ``no-eas``; no energy figure.
    * Perf domains without power data (cpufreq, no Energy Model): the governor runs as asked;
      placement ``no-eas`` (the kernel does not enable EAS without an EM); no energy figure.
    * Otherwise: unchanged.

    Returns
    -------
    (Platform, SimConfig, dict)
        The platform and configuration to run, and ``platform_model``: ``frequency``,
        ``eas`` and ``energy``, each a sentence (empty dict when nothing was changed).

    Raises
    ------
    ModelError
        Only through :class:`SimConfig` validation (cannot happen for the changes made here).
    """
    notes: dict[str, str] = {}
    fixed = not platform.perf_domains
    if fixed:
        caps = {platform.cpu_capacity(c) for c in platform.cpus}
        if len(caps) != 1:          # cannot happen today: without domains every CPU is 1024
            caps = {SCHED_CAPACITY_SCALE}
        cap = caps.pop()
        pd = PerfDomain(name=FIXED_DOMAIN_NAME, cpus=platform.cpus,
                        opps=(Opp(freq_khz=_NOMINAL_KHZ, capacity=cap),), cpu_capacity_max=cap,
                        power_source="none")
        platform = replace(platform, perf_domains=(pd,))
        notes["frequency"] = (f"fixed: the board has no cpufreq perf domains, every CPU runs at capacity {cap} "
                              f"(governor {config.governor!r} not modelled; no cpu_frequency events)")
        if config.governor != "performance":
            config = config.replace(governor="performance", governor_tunables={})
        why = "the board has no perf domains, so no Energy Model"
    else:
        why = _has_energy_model(platform)
    if why and config.governor == "schedutil" and config.tunable("ramp_boost"):
        raise ModelError(f"SimConfig.governor_tunables['ramp_boost'] needs the Energy Model of platform "
                         f"{platform.name!r}, which has none: {why}; drop ramp_boost")
    if why:
        if config.placement != "no-eas":
            notes["eas"] = (f"off: {why}; the kernel does not enable EAS (build_perf_domains), wake-ups take "
                            f"the era's idle search (placement {config.placement!r} asked, 'no-eas' run)")
            config = config.replace(placement="no-eas")
        else:
            notes["eas"] = f"off: {why} (placement 'no-eas' asked)"
        notes["energy"] = f"absent: {why}; metadata['energy'] is None"
    return platform, config, notes
