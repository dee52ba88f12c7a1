"""The EAS behaviour scenarios: rt-app workloads sized for a platform's CPUs and OPPs.

The scenarios and their thresholds are those of LISA's removed EAS behaviour suite
(``lisa_tests/arm/kernel/scheduler/eas_behaviour.py``, last at LISA ``8413bca99^``),
re-specified here (facts only; the code is ours). Every periodic phase has a 16 ms period.
Each task starts with a warm-up phase (0.1 s at a near-zero duty cycle; ``RampDown``: 0.5 s
at its first duty cycle, so its util starts high) that the checks leave out.

Duty cycles are percentages of the biggest CPU at its top OPP (rt-app's ``run`` is work at
the calibration CPU's speed; calibrate on the biggest CPU; the simulator's ``run`` is work
at capacity 1024), so a task's expected utilization is ``duty / 100 * 1024``.

* *little* duty cycle: schedutil requests ``1.25 x util``; the little one is the util whose
  request lands mid-way between the smallest CPU's OPP closest to half its top frequency
  and the OPP below it (LISA also added the PELT swing; a 16 ms period swings a few units
  only, which we leave out).
* *big* duty cycle: the capacity of the second-largest capacity class (a task that does not
  fit a smaller CPU with the 20 % margin), times 0.95 when it would reach 80 % of the
  largest class.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ConfigError

__all__ = ["SCENARIOS", "Scenario", "TaskSpec", "big_duty_pct", "build_scenario", "capacity_classes",
           "little_duty_pct", "scenario_names"]

PERIOD_MS = 16.0
WARMUP_S = 0.1
WARMUP_DUTY_PCT = 0.01


@dataclass(frozen=True)
class TaskSpec:
    """One task of a scenario: its name and each phase's duty cycle (%).

    ``test_from`` is the index of the first phase the checks look at (the phases before it
    are the warm-up).
    """

    name: str
    duties_pct: tuple[float, ...]
    phase_s: tuple[float, ...]
    test_from: int = 1

    def util(self, phase: int) -> int:
        """Expected utilization (capacity units) of ``phase``."""
        return int(round(self.duties_pct[phase] / 100.0 * 1024))


@dataclass(frozen=True)
class Scenario:
    """A scenario built for one platform: the workload, its tasks and the energy threshold."""

    name: str
    energy_threshold_pct: float
    tasks: tuple[TaskSpec, ...]
    workload: object
    description: str

    @property
    def duration_s(self) -> float:
        return max(sum(t.phase_s) for t in self.tasks)


#: name -> (energy threshold %, description)
SCENARIOS: dict[str, tuple[float, str]] = {
    "OneSmallTask": (5.0, "1 task at the little duty cycle, 1 s"),
    "ThreeSmallTasks": (20.0, "3 tasks at the little duty cycle, 1 s"),
    "TwoBigTasks": (5.0, "2 tasks at the big duty cycle, 1 s"),
    "TwoBigThreeSmall": (5.0, "3 little + 2 big tasks, 1 s"),
    "RampUp": (15.0, "1 task from 10 % of a little CPU up to the big duty cycle, +5 % every 0.5 s"),
    "RampDown": (18.0, "1 task from the big duty cycle down to 10 % of a little CPU, -5 % every 0.5 s"),
    "EnergyModelWakeMigration": (5.0, "1 task per biggest CPU, 2 x (2 s at 20 % of a little CPU, "
                                      "2 s at the big duty cycle)"),
}


def scenario_names() -> list[str]:
    return list(SCENARIOS)


def _plat(platform):
    from ..platform import Platform, load_platform

    return platform if isinstance(platform, Platform) else load_platform(platform)


def capacity_classes(platform) -> list[int]:
    """Distinct CPU capacities of the platform, largest first."""
    platform = _plat(platform)
    return sorted({platform.cpu_capacity(c) for c in platform.cpus}, reverse=True)


def little_duty_pct(platform) -> float:
    """The little duty cycle (% of the biggest CPU at top OPP) of ``platform``."""
    platform = _plat(platform)
    dom = min(platform.perf_domains, key=lambda d: d.cpu_capacity_max)
    freqs = list(dom.freqs_khz)
    fmax = freqs[-1]
    caps = [dom.cpu_capacity_max * f / fmax for f in freqs]
    if len(freqs) == 1:
        request = caps[0] / 2
    else:
        k = min(range(1, len(freqs)), key=lambda i: abs(freqs[i] - fmax / 2))
        request = (caps[k - 1] + caps[k]) / 2
    return round(request / 1.25 / 1024 * 100, 2)


def big_duty_pct(platform) -> float:
    """The big duty cycle (% of the biggest CPU at top OPP) of ``platform``."""
    platform = _plat(platform)
    classes = capacity_classes(platform)
    if len(classes) < 2:
        raise ConfigError(f"platform {platform.name!r}: every CPU has capacity {classes[0]}; the EAS "
                          "scenarios need CPUs of at least two capacities")
    util = classes[1]
    if util >= 0.8 * classes[0]:
        util *= 0.95
    return round(util / 1024 * 100, 2)


def _periodic_phases(duties, phase_s):
    from ..rtapp import periodic

    out = ()
    for i, (d, s) in enumerate(zip(duties, phase_s)):
        out += periodic(PERIOD_MS, d, s, name=f"p{i:02d}")
    return out


def _task(name, duties, phase_s, test_from=1):
    return TaskSpec(name=name, duties_pct=tuple(float(d) for d in duties), phase_s=tuple(phase_s),
                    test_from=test_from)


def _specs(name: str, platform) -> list[TaskSpec]:
    little, big = little_duty_pct(platform), big_duty_pct(platform)
    warm = (WARMUP_DUTY_PCT,)
    small_cap = capacity_classes(platform)[-1]
    ten_pct_little = round(0.10 * small_cap / 1024 * 100, 2)
    if name == "OneSmallTask":
        return [_task("small0", warm + (little,), (WARMUP_S, 1.0))]
    if name == "ThreeSmallTasks":
        return [_task(f"small{i}", warm + (little,), (WARMUP_S, 1.0)) for i in range(3)]
    if name == "TwoBigTasks":
        return [_task(f"big{i}", warm + (big,), (WARMUP_S, 1.0)) for i in range(2)]
    if name == "TwoBigThreeSmall":
        return ([_task(f"small{i}", warm + (little,), (WARMUP_S, 1.0)) for i in range(3)]
                + [_task(f"big{i}", warm + (big,), (WARMUP_S, 1.0)) for i in range(2)])
    if name in ("RampUp", "RampDown"):
        n = int(math.floor((big - ten_pct_little) / 5.0 + 1e-9)) + 1
        duties = [round(ten_pct_little + 5.0 * i, 2) for i in range(n)]
        if name == "RampDown":
            duties = duties[::-1]
            return [_task("ramp", (duties[0],) + tuple(duties), (0.5,) + (0.5,) * len(duties))]
        return [_task("ramp", warm + tuple(duties), (WARMUP_S,) + (0.5,) * len(duties))]
    if name == "EnergyModelWakeMigration":
        top = capacity_classes(platform)[0]
        n = sum(1 for c in platform.cpus if platform.cpu_capacity(c) == top)
        low = round(0.20 * small_cap / 1024 * 100, 2)
        return [_task(f"migr{i}", warm + (low, big, low, big), (WARMUP_S, 2.0, 2.0, 2.0, 2.0)) for i in range(n)]
    raise ConfigError(f"unknown EAS scenario {name!r}; choose from {', '.join(SCENARIOS)}")


def build_scenario(name: str, platform, *, calibration: int | str | None = None) -> Scenario:
    """The scenario ``name`` sized for ``platform``.

    Parameters
    ----------
    name : str
        One of :data:`SCENARIOS`.
    platform : Platform or str
    calibration : int or str, optional
        rt-app ``calibration``; default ``"CPU<n>"`` of a biggest CPU (measured there on a
        board; the simulator takes ``run`` as work at capacity 1024 anyway).

    Returns
    -------
    Scenario

    Raises
    ------
    ConfigError
        Unknown scenario, or a platform whose CPUs all have one capacity.
    """
    from ..platform import Platform, load_platform
    from ..rtapp import task, workload

    plat = platform if isinstance(platform, Platform) else load_platform(platform)
    if name not in SCENARIOS:
        raise ConfigError(f"unknown EAS scenario {name!r}; choose from {', '.join(SCENARIOS)}")
    specs = _specs(name, plat)
    if calibration is None:
        top = capacity_classes(plat)[0]
        calibration = f"CPU{min(c for c in plat.cpus if plat.cpu_capacity(c) == top)}"
    tasks = [task(s.name, _periodic_phases(s.duties_pct, s.phase_s)) for s in specs]
    wl = workload(tasks, calibration=calibration, ftrace=True)
    thr, desc = SCENARIOS[name]
    return Scenario(name=name, energy_threshold_pct=thr, tasks=tuple(specs), workload=wl, description=desc)
