"""Run the EAS behaviour suite on a board or on the model; gather the verdicts.

:func:`check_eas` runs every scenario ``iterations`` times, either on a real target
(``lisa-eas run`` machinery, one run directory per scenario and iteration) or on the
simulator (the iterations differ by the seeded start jitter), checks each trace
(:func:`lisa_eas.suite.check_scenario`) and returns a :class:`SuiteResult` that writes
``suite.json`` and a standalone ``suite.html``.

Exit codes (``SuiteResult.exit_code``): 0 all pass (or the suite is not applicable), 1 one
scenario failed, 3 none failed but one is undecided.
"""
from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BoardError, ConfigError
from ._ab import SysctlSetting, applied
from ._checks import FAIL, PASS, UNDECIDED, ScenarioResult, Thresholds, check_scenario
from ._scenarios import SCENARIOS, build_scenario, capacity_classes

__all__ = ["SuiteInterrupted", "SuiteResult", "check_eas", "eas_applicability"]


class SuiteInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`check_eas`: ``partial`` holds the verdicts collected so far
    (``settings["interrupted"]`` is True; on a target they are already written to ``out_dir``)."""

    def __init__(self, partial):
        super().__init__("interrupted")
        self.partial = partial


def eas_applicability(platform) -> str | None:
    """Why EAS cannot run on ``platform`` (None when it can).

    EAS needs CPUs of different capacities (``SD_ASYM_CPUCAPACITY``) and an Energy Model
    (perf domains with power data).
    """
    if not platform.perf_domains:
        return (f"{platform.name}: no cpufreq perf domains (no OPPs), so no Energy Model: EAS is not "
                "enabled on such a system")
    classes = capacity_classes(platform)
    if len(classes) < 2:
        return (f"{platform.name}: every CPU has capacity {classes[0]}; EAS only runs on asymmetric-capacity "
                "systems (SD_ASYM_CPUCAPACITY), so the suite does not apply")
    if not all(d.has_power for d in platform.perf_domains):
        return (f"{platform.name}: the perf domains have no power data (no Energy Model in "
                "/sys/kernel/debug/energy_model); EAS needs one. Give the board's platform with "
                "'platform:' in the target configuration")
    return None


@dataclass(frozen=True)
class SuiteResult:
    """Every verdict of one suite run."""

    platform: str
    mode: str
    era: str
    results: tuple[ScenarioResult, ...]
    not_applicable: str | None = None
    settings: dict = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        if self.not_applicable:
            return 0
        v = [r.verdict for r in self.results]
        if FAIL in v:
            return 1
        if UNDECIDED in v:
            return 3
        return 0

    def summary(self) -> dict:
        """scenario -> {PASS: n, FAIL: n, UNDECIDED: n}."""
        out: dict = {}
        for r in self.results:
            d = out.setdefault(r.scenario, {PASS: 0, FAIL: 0, UNDECIDED: 0})
            d[r.verdict] = d.get(r.verdict, 0) + 1
        return out

    def to_dict(self) -> dict:
        return {"kind": "lisa_eas.eas_suite", "platform": self.platform, "mode": self.mode, "era": self.era,
                "not_applicable": self.not_applicable, "exit_code": self.exit_code, "settings": self.settings,
                "summary": self.summary(), "results": [r.to_dict() for r in self.results]}

    def write(self, out_dir: str | os.PathLike) -> dict[str, Path]:
        """``suite.json`` and ``suite.html`` in ``out_dir`` (atomically)."""
        from .._atomic import write_atomic
        from ._report import suite_html

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        pj, ph = out / "suite.json", out / "suite.html"
        write_atomic(pj, json.dumps(self.to_dict(), indent=1) + "\n")
        write_atomic(ph, suite_html(self))
        return {"json": pj, "html": ph}

    @classmethod
    def from_json(cls, path: str | os.PathLike) -> "SuiteResult":
        """Read back ``suite.json`` (for :func:`lisa_eas.suite.compare`)."""
        from ._checks import CheckResult

        p = Path(path)
        if p.is_dir():
            p = p / "suite.json"
        try:
            d = json.loads(p.read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{p}: not a readable suite.json ({exc})") from None
        if d.get("kind") != "lisa_eas.eas_suite":
            raise ConfigError(f"{p}: not a `lisa-eas check eas` result (no kind: lisa_eas.eas_suite)")
        res = tuple(ScenarioResult(r["scenario"], r["iteration"], r["verdict"], r["reason"],
                                   tuple(CheckResult(**c) for c in r["checks"]), r.get("figures", {}),
                                   r.get("series", {}), r.get("metrics", {}), r.get("run_dir"))
                    for r in d["results"])
        return cls(d["platform"], d["mode"], d["era"], res, d.get("not_applicable"), d.get("settings", {}))


def _progress(total, enabled):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="run", desc="lisa-eas check eas", leave=True,
                disable=None if enabled is None else not enabled)


def check_eas(*, target=None, platform=None, era: str | None = None, placement: str = "eas",
              scenarios=None, iterations: int = 1, out_dir=None, progress: bool | None = None,
              thresholds: Thresholds = Thresholds(), start_jitter_us: int = 2000, seed: int = 0,
              sim_config=None) -> SuiteResult:
    """Run the EAS behaviour suite on a board (``target``) or on the model (``platform``).

    Parameters
    ----------
    target : path or TargetConfig or TargetConnection, optional
        A real target; its platform comes from the probe (Energy Model from debugfs, or
        the configuration's ``platform:``).
    platform : Platform or str, optional
        Simulate instead, on this board's model.
    era : str, optional
        Kernel era of the model (default v5.4) / of the Energy Model used by the checks
        (default: the target's kernel version).
    placement : str
        Simulator placement (``eas``, ``eas-v5.0``, ``no-eas``).
    scenarios : list of str, optional
        Default: all of :data:`SCENARIOS`.
    iterations : int
        Runs of each scenario.
    out_dir : path, optional
        Where the target's run directories go (and the report, with ``write``). Required
        on a target.
    start_jitter_us, seed : int
        Model only: each iteration ``i`` draws the threads' start offsets in
        ``[0, start_jitter_us]`` with seed ``seed + i`` (the run-to-run variation of when
        rt-app's threads start; no other randomness).
    sim_config : SimConfig, optional
        Base simulator configuration (placement/era/seed/jitter are set from the arguments).

    Returns
    -------
    SuiteResult

    Raises
    ------
    SuiteInterrupted
        On Ctrl-C, with the verdicts collected so far (a ``KeyboardInterrupt``).
    """
    if (target is None) == (platform is None):
        raise ConfigError("check_eas: give either target= (a board) or platform= (simulate)")
    if iterations < 1:
        raise ConfigError(f"iterations={iterations}: give at least 1")
    names = list(scenarios) if scenarios else list(SCENARIOS)
    bad = [n for n in names if n not in SCENARIOS]
    if bad:
        raise ConfigError(f"unknown scenario(s) {bad}; choose from {', '.join(SCENARIOS)}")
    if platform is not None:
        return _on_model(platform, era or "v5.4", placement, names, iterations, progress, thresholds,
                         start_jitter_us, seed, sim_config)
    if out_dir is None:
        raise ConfigError("check_eas on a target needs out_dir (where each run's artifacts go)")
    return _on_target(target, era, names, iterations, Path(out_dir), progress, thresholds)


def _on_model(platform, era, placement, names, iterations, progress, th, jitter, seed, base):
    from ..platform import Platform, load_platform
    from ..sim import SimConfig, simulate

    plat = platform if isinstance(platform, Platform) else load_platform(platform)
    settings = {"placement": placement, "iterations": iterations, "start_jitter_us": jitter, "seed": seed,
                "scenarios": names}
    na = eas_applicability(plat)
    if na:
        return SuiteResult(plat.name, "model", era, (), na, settings)
    base = base or SimConfig()
    results = []
    bar = _progress(len(names) * iterations, progress)
    try:
        for name in names:
            sc = build_scenario(name, plat)
            for i in range(iterations):
                bar.set_postfix_str(f"{name} #{i}")
                cfg = base.replace(placement=placement, era=era, seed=seed + i, start_jitter_us=jitter)
                tr = simulate(plat, sc.workload, config=cfg)
                results.append(check_scenario(tr, plat, sc, iteration=i, era=era, thresholds=th))
                bar.update(1)
    except KeyboardInterrupt:
        raise SuiteInterrupted(SuiteResult(plat.name, "model", era, tuple(results), None,
                                           {**settings, "interrupted": True})) from None
    finally:
        bar.close()
    return SuiteResult(plat.name, "model", era, tuple(results), None, settings)


def _on_target(target, era, names, iterations, out, progress, th):
    from ..target import TargetConnection, connect, probe, run_workload
    from ..trace import read_trace

    own = not isinstance(target, TargetConnection)
    conn = connect(target) if own else target
    try:
        info = probe(conn)
        plat = info.platform
        kern = era or _era_of(info.kernel_release)
        settings = {"target": conn.label, "kernel": info.kernel_release, "iterations": iterations,
                    "scenarios": names, "platform_source": info.platform_source}
        na = eas_applicability(plat)
        if na:
            return SuiteResult(plat.name, "target", kern, (), na, settings)
        results = []
        bar = _progress(len(names) * iterations, progress)
        stack = contextlib.ExitStack()
        governor_note = None
        try:
            # LISA ran the suite under schedutil: set it on every policy, restored afterwards
            gov = [SysctlSetting(f"/sys/devices/system/cpu/cpu{d.cpus[0]}/cpufreq/scaling_governor", "schedutil")
                   for d in plat.perf_domains]
            try:
                stack.enter_context(applied(conn, gov))
                settings["governor"] = "schedutil"
            except BoardError as exc:
                if getattr(exc, "transient", False):
                    raise
                governor_note = f"schedutil could not be set ({exc})"
                settings["governor"] = governor_note
            for name in names:
                sc = build_scenario(name, plat)
                for i in range(iterations):
                    bar.set_postfix_str(f"{name} #{i}")
                    rd = out / "runs" / f"{name}-{i}"
                    res = run_workload(conn, sc.workload, rd, progress=False)
                    tr = read_trace(res.trace_path)
                    lost = res.run_info.get("tracing", {}).get("lost_events")
                    results.append(check_scenario(tr, plat, sc, iteration=i, era=kern, thresholds=th,
                                                  lost_events=lost, run_dir=str(rd),
                                                  unpinned_frequency=governor_note))
                    bar.update(1)
        except KeyboardInterrupt:
            part = SuiteResult(plat.name, "target", kern, tuple(results), None, {**settings, "interrupted": True})
            part.write(out)
            raise SuiteInterrupted(part) from None
        finally:
            bar.close()
            stack.close()
        return SuiteResult(plat.name, "target", kern, tuple(results), None, settings)
    finally:
        if own:
            conn.close()


def _era_of(release: str) -> str:
    import re

    m = re.match(r"(\d+)\.(\d+)", release or "")
    return f"v{m.group(1)}.{m.group(2)}" if m else "v5.4"

