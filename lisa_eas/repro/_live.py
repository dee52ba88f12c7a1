"""Extra report sections of ``lisa-eas demo``: a simulated trace overview and a run on this machine.

* :func:`simulated_section` - the ramp-boost workload simulated on the Pixel 3 model: the
  frequency, the task on each CPU and the energy per CPU, from the same Trace object a real
  run gives.
* :func:`live_section` - when this machine can trace (root, tracefs, rt-app): the local smoke
  workload run on the local target (``target_configs/local.yml``), its trace read back, the
  rt-app activations counted, and the run replayed against the models
  (:func:`lisa_eas.analysis.validate.validate`).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from ._report import ReportSection

__all__ = ["can_trace", "live_section", "simulated_section"]

_LOCAL_CONFIG = {"kind": "local", "name": "local", "working_directory": "/tmp/lisa-eas-target", "rtapp_path": "rt-app",
                 "tracing": {"events": ["sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new",
                                        "sched:sched_waking", "sched:sched_migrate_task",
                                        "sched:sched_process_exit", "power:cpu_idle", "power:cpu_frequency"],
                             "buffer_size_kb": 65536, "clock": "mono"}}


def can_trace() -> tuple[bool, str]:
    """Whether this machine can run the live step, and why not."""
    if os.geteuid() != 0:
        return False, "not running as root (tracefs and rt-app's tracing need root)"
    if not (Path("/sys/kernel/tracing").is_dir() or Path("/sys/kernel/debug/tracing").is_dir()):
        return False, "no tracefs mount point (/sys/kernel/tracing)"
    if shutil.which("rt-app") is None:
        return False, "rt-app is not installed (Debian: apt install rt-app)"
    return True, ""


def simulated_section() -> ReportSection:
    """The ramp-boost step workload simulated on the Pixel 3 model (boost on), plotted."""
    from ..plot import _repro as p
    from ..sim import SimConfig, simulate
    from .workloads import ramp_boost_step

    config = SimConfig(governor="schedutil", placement="eas", governor_tunables={"ramp_boost": 1})
    tr = simulate("pixel3", ramp_boost_step(), config=config)
    run = {"platform": "pixel3", "workload": "ramp_boost_step", "events": tr.metadata.get("sim_events"),
           "simulated (s)": tr.metadata.get("t_end_s"),
           "simulation wall time (s)": round(float(tr.metadata.get("sim_wall_s", 0.0)), 3),
           "energy": f"{tr.metadata['energy']['total']:.1f} {tr.metadata['energy']['unit']}"}
    cfg = {k: (json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in config.to_dict().items()}
    return ReportSection("Simulated trace: ramp-boost workload on the Pixel 3 model",
                         "The same Trace object a real run gives, from the simulator.",
                         groups=(("run", run), ("simulator configuration", cfg)),
                         plots=((p.plot_frequency(tr), "Frequency of each CPU (schedutil, ramp boost on)."),
                                (p.plot_cpu_timeline(tr), "The task running on each CPU (sched_switch)."),
                                (p.plot_energy_breakdown(tr), "Energy of each CPU over the run.")))


def fixed_frequency_platform(name: str, nr_cpus: int):
    """This machine as a platform when it exposes no cpufreq: one perf domain, one OPP.

    Capacity 1024 for every CPU; the power figure is a placeholder (1000 mW busy, idle 0) so
    that the energy model exists; it is not a measurement and no energy figure of the live
    run is reported.
    """
    from ..platform import platform_from_dict

    data = {"name": f"{name}-fixed-frequency",
            "description": f"{name} at its fixed frequency (no cpufreq): {nr_cpus} symmetric CPUs, one OPP; "
                           "placeholder power",
            "perf_domains": [{"name": "cpus", "cpus": list(range(nr_cpus)), "cpu_capacity_max": 1024,
                              "power_mw_source": "kernel_em_placeholder",
                              "opps": [{"freq_khz": 1000000, "capacity": 1024, "power_mw": 1000}]}]}
    return platform_from_dict(data, source="lisa_eas.repro._live.fixed_frequency_platform")


def live_section(out_dir: Path) -> tuple[ReportSection, dict]:
    """Run the smoke workload on this machine, read its trace, validate it; section + summary.

    Raises the package's errors (``BoardError``, ``TraceError``...) when a step fails.
    """
    from ..analysis.validate import validate
    from ..plot import _repro as p
    from ..plot import write_validation
    import pandas as pd

    from ..rtapp import read_rtapp_log
    from ..sim import SimConfig, simulate
    from ..target import connect, load_target_config, probe, run_workload, target_config_from_dict
    from ..trace import read_trace
    from .workloads import smoke_local

    cfg_path = Path("target_configs/local.yml")
    config = load_target_config(cfg_path) if cfg_path.is_file() else target_config_from_dict(
        _LOCAL_CONFIG, source="lisa_eas.repro._live (built-in local target)")
    run_dir = Path(out_dir) / "local_run"
    if run_dir.exists():
        shutil.rmtree(run_dir)
    with connect(config) as board:
        info = probe(board)
        result = run_workload(board, smoke_local(), run_dir, progress=False)
    trace = read_trace(result.trace_path)
    report = validate(trace)        # the run's own probed platform; checks that cannot apply say why
    plat = info.platform
    plat_note = f"probed platform {plat.name!r}"
    if not plat.perf_domains:      # the simulator needs perf domains
        plat = fixed_frequency_platform(info.hostname or "local", len(info.online_cpus))
        plat_note = (f"probed platform {info.platform.name!r} (validation); simulated as {plat.name!r}: this "
                     "machine exposes no cpufreq, so it is modelled at a fixed frequency (one OPP, placeholder "
                     "power; no energy figure is reported)")
    write_validation(report, run_dir / "validation")
    measured = pd.concat([read_rtapp_log(lp) for lp in result.log_paths], ignore_index=True)
    # only its rt-app log is compared: the summary output (the same log as the full run)
    sim = simulate(plat, smoke_local(), config=SimConfig(governor="performance", placement="no-eas",
                                                         outputs="summary"))
    modeled = sim.df("lisa_sim_rtapp_log")
    run = {"kernel": info.kernel_release, "cpus": len(info.online_cpus), "platform": plat_note,
           "trace": str(result.trace_path), "events": ", ".join(trace.events),
           "validation": str(run_dir / "validation")}
    rtapp = {"activations, trace markers": int(len(trace.activations)),
             "activations, logs (measured)": int(len(measured)), "activations, simulated": int(len(modeled)),
             "mean slack us, measured": round(float(measured["slack_us"].mean()), 1),
             "mean slack us, simulated": round(float(modeled["slack_us"].mean()), 1)}
    groups = [("run", run), ("rt-app: measured vs simulated", rtapp)]
    flat = {k: v for k, v in report.summary.items() if not isinstance(v, (dict, list))}
    groups.append(("validation", flat))
    for k, v in report.summary.items():
        if isinstance(v, dict):
            groups.append((f"validation: {k}", {kk: vv for kk, vv in v.items() if not isinstance(vv, (dict, list))}))
    summary = {**run, **{f"rt-app {k}": v for k, v in rtapp.items()},
               **{f"validation {k}": v for k, v in flat.items()}}
    for title, d in groups[3:]:
        summary.update({f"{title.replace(': ', ' ')}.{k}": v for k, v in d.items()})
    plots = [(p.plot_cpu_timeline(trace), "The task running on each CPU of this machine (sched_switch).")]
    groups.append(("validation: checks that do not apply",
                   {na["check"]: na["reason"] for na in report.summary.get("not_applicable", [])}))
    for na in report.summary.get("not_applicable", []):
        summary[f"validation {na['check']}"] = f"does not apply: {na['reason']}"
    if "cpu_frequency" in trace.events and len(trace.df("cpu_frequency")):
        plots.append((p.plot_frequency(trace), "Frequency of each CPU of this machine."))
    section = ReportSection("This machine: the smoke workload run for real and replayed against the models",
                            "rt-app on the local target, traced with tracefs, read back and validated "
                            "(lisa_eas.analysis.validate); the full validation page is validation/validation.html "
                            "under the run directory.", groups=tuple(groups), plots=tuple(plots))
    return section, summary
