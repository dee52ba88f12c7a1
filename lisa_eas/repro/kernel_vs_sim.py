"""This machine's kernel against the simulator: an rt-app run and its simulation, side by side.

:func:`simulate_run` takes a finished ``lisa-eas run`` directory, simulates the same workload
(``workload.target.json``, the file rt-app ran) on the platform the run probed (``target.json``)
at the running kernel's era (``run.json``), and returns both traces with
:func:`lisa_eas.analysis.df_run_comparison` and the reasons the two differ, read from the run
itself. :func:`run_and_simulate` runs the workload first.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError

__all__ = ["RunVsSimulation", "run_and_simulate", "simulate_run"]


@dataclass(frozen=True)
class RunVsSimulation:
    """A measured run and its simulation.

    Attributes
    ----------
    measured, simulated : Trace
    table : pandas.DataFrame
        :func:`~lisa_eas.analysis.df_run_comparison` (index task, metric).
    era : str
        The kernel version the simulator modelled (the run's kernel).
    differences : tuple of str
        What differs between the machine and the model, and why, from this run's facts.
    """

    measured: object
    simulated: object
    table: object
    era: str
    differences: tuple = field(default_factory=tuple)

    def to_text(self) -> str:
        lines = [f"measured run vs simulation (era {self.era}):", self.table.round(1).to_string(), "",
                 "what differs and why:"]
        lines += [f"- {d}" for d in self.differences]
        return "\n".join(lines)


def _era_of(release: str) -> str:
    m = re.match(r"(\d+)\.(\d+)", release or "")
    if not m:
        raise ConfigError(f"run.json: kernel_release {release!r} has no version; pass era='vX.Y'")
    return f"v{m.group(1)}.{m.group(2)}"


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror}); give a `lisa-eas run` output "
                          f"directory") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: not JSON ({exc}); give a `lisa-eas run` output directory") from None


def simulate_run(run_dir, *, era: str | None = None, config=None, tasks=None,
                 calibrate_from_log: bool = True) -> RunVsSimulation:
    """Simulate the workload of a finished run on its probed platform; both side by side.

    Parameters
    ----------
    run_dir : path
        A ``lisa-eas run`` / :func:`~lisa_eas.target.run_workload` output directory.
    era : str, optional
        Kernel version to model (default: the run's kernel release, e.g. 6.18.44 -> v6.18).
    config : SimConfig, optional
        Simulator configuration (its ``era`` is replaced by ``era``); default ``SimConfig()``.
    tasks : list of str, optional
        rt-app task names to compare (default: every task of the measured run).
    calibrate_from_log : bool
        Size the simulated work as the loops this machine executed: each ``run`` scaled by the
        run's fastest activation's ns per loop over the ``calibration`` rt-app used (from the
        run's rt-app logs; a calibration measured under other users' load can be 3x off).
        False: ``run`` as written (us at capacity 1024).

    Raises
    ------
    ConfigError
        ``run_dir`` is not a run directory (names the missing file).
    """
    from dataclasses import replace

    from ..analysis import df_run_comparison
    from ..sim import SimConfig, simulate
    from ..target._probe import platform_from_target_json
    from ..trace import read_trace

    run_dir = Path(run_dir)
    info = _read_json(run_dir / "run.json")
    wl = run_dir / "workload.target.json"
    if not wl.is_file():
        raise ConfigError(f"{wl}: missing; give a `lisa-eas run` output directory")
    era = era or _era_of((info.get("kernel") or {}).get("kernel_release", ""))
    plat = platform_from_target_json(run_dir / "target.json")
    cfg = replace(config or SimConfig(), era=era)
    measured = read_trace(run_dir)
    spec = _read_json(wl)
    notes = []
    pload = (info.get("workload") or {}).get("calibration") or (spec.get("global") or {}).get("calibration")
    if calibrate_from_log and isinstance(pload, int) and pload > 0:
        # the work rt-app did is loops, sized with `calibration` ns per loop; what a loop costs
        # on this machine is the fastest activation's (the least disturbed, as rt-app's own
        # calibration takes it): the simulator gets that work
        ns = _ns_per_loop(run_dir, pload)
        if ns is not None:
            factor = ns / pload
            spec = _scale_run(spec, factor)
            notes.append(f"work: rt-app sized each run with calibration {pload} ns/loop "
                         f"({(info.get('workload') or {}).get('calibration_source', 'the workload')}); the run's "
                         f"fastest activation took {ns:.1f} ns/loop, so the simulator runs each 'run' x {factor:.3f} "
                         "(the loops the machine executed)")
    from ..rtapp import read_workload
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "workload.json"
        path.write_text(json.dumps(spec))
        simulated = simulate(plat, read_workload(path), config=cfg)
    table = df_run_comparison(measured, simulated, tasks)
    return RunVsSimulation(measured, simulated, table, era,
                           tuple(notes + _differences(info, measured, simulated, table)))


def _ns_per_loop(run_dir: Path, pload: int) -> float | None:
    """This machine's ns per rt-app loop: the fastest activation of the run's rt-app logs."""
    from ..rtapp import measured_ns_per_loop, read_rtapp_log

    best = None
    for log in sorted((run_dir / "rtapp").glob("*.log")):
        try:
            v = measured_ns_per_loop(read_rtapp_log(log), pload)
        except Exception:       # noqa: BLE001 - a log without run rows: no figure from it
            continue
        best = v if best is None else min(best, v)
    return best


def _scale_run(spec, factor: float):
    """The workload with every ``run`` event (``run``, ``run0``...) scaled by ``factor``."""
    if isinstance(spec, dict):
        return {k: (max(int(round(v * factor)), 1) if re.fullmatch(r"run\d*", k) and isinstance(v, (int, float))
                    and not isinstance(v, bool) else _scale_run(v, factor)) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_scale_run(v, factor) for v in spec]
    return spec


def run_and_simulate(target, workload, out_dir, *, era: str | None = None, config=None,
                     **run_kwargs) -> RunVsSimulation:
    """:func:`~lisa_eas.target.run_workload` on ``target``, then :func:`simulate_run` of it."""
    from ..target import run_workload

    res = run_workload(target, workload, out_dir, **run_kwargs)
    return simulate_run(res.out_dir, era=era, config=config)


def _differences(info: dict, measured, simulated, table) -> list[str]:
    """What differs between this machine and the model, from the run's own facts."""
    from .._era import parse_kernel_version

    out = []
    other = ((info.get("tracing") or {}).get("other_processes") or {})
    if other.get("available"):
        out.append(f"other processes took {other['share_pct']:.0f} % of the CPU time during the run "
                   f"(top: {', '.join(str(t[0]) for t in other.get('top', [])[:3])}); the simulator runs the "
                   "workload alone, so measured run time (rt-app's, wall clock: it includes the time the task "
                   "was preempted), wake-up latency and overruns are larger")
    pm = simulated.metadata.get("platform_model") or {}
    for k in ("frequency", "eas"):
        if k in pm:
            out.append(f"{k}: {pm[k]}")
    era = simulated.metadata.get("config", {}).get("era") or ""
    try:
        v = parse_kernel_version(era)
    except Exception:       # noqa: BLE001 - an era the ledger does not parse: say nothing of it
        v = (0, 0)
    if v >= (6, 12):
        out.append("from v6.12 the kernel keeps a sleeping task with negative lag queued until it is eligible "
                   "(delayed dequeue); the simulator's EEVDF is v6.6 - v6.11's (ledger cfs-v6.6), which dequeues "
                   "at once, so who runs first on a shared CPU may differ")
    for a in simulated.metadata.get("approximations") or []:
        out.append(f"simulator: {a}")
    cpu_rows = [m for m in table.index.get_level_values("metric").unique() if m.startswith("cpu")]
    for task in table.index.get_level_values("task").unique():
        res = table.loc[task].loc[cpu_rows]
        if len(res) and res["measured"].idxmax() != res["simulated"].idxmax():
            out.append(f"{task} ran mostly on {res['measured'].idxmax()[:-2].upper()} on the machine and on "
                       f"{res['simulated'].idxmax()[:-2].upper()} in the simulation: the model holds only the "
                       "workload, so the idle-CPU search finds an idle CPU for it; on the machine the other "
                       "processes keep the CPUs busy and the task stays where it was forked or last ran")
    for task in table.index.get_level_values("task").unique():
        acts, wk, ovr = (float(table.loc[(task, k), "measured"]) for k in ("activations", "wakeups", "overruns"))
        if wk < acts and ovr > 0:
            out.append(f"{task}: {int(acts - wk)} fewer measured wake-ups than activations, {int(ovr)} overruns: an "
                       "activation that ends after its next period has started does not sleep, so it has no wake-up")
    unt = table.xs("wakeups_untraced", level="metric")["measured"] if len(table) else None
    if unt is not None and (unt > 0).any():
        out.append(f"{int(unt.sum())} measured wake-up(s) with an untraced switch-in (this kernel does not trace "
                   "switches out of idle or of the VM agent's threads): left out of the latency figures")
    ur = table.xs("runtime_untraced_s", level="metric")["measured"] if len(table) else None
    if ur is not None and (ur > 0).any():
        out.append("measured runtime_s leaves out what a task ran after a switch-in the kernel did not trace (a "
                   "preemption by an untraced thread, switched back): up to "
                   + ", ".join(f"{t} {v * 1e3:.1f} ms" for t, v in ur.items() if v > 0)
                   + " (runtime_untraced_s), so the task's CPU time lies between runtime_s and the sum")
    return out
