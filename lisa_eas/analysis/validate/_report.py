"""Assemble the replays into one report: :func:`validate` -> :class:`ValidationReport`,
written as ``validation.json`` (every figure) and ``validation.html`` (standalone)."""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import TraceError
from .._common import check_platform, need_events
from ._eas import replay_eas
from ._kernel_signals import kernel_signals_summary
from ._pelt import replay_pelt
from ._schedutil import replay_schedutil
from ._sis import replay_sis
from ._state import CATEGORIES, rebuild_wakeups

__all__ = ["ValidationReport", "eas_inactive_reason", "load_trace_arg", "run_facts", "validate"]


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`validate` found. ``summary`` holds every headline figure; the tables hold
    one row per replayed decision (``eas``, ``sis``), frequency change (``schedutil``) or
    kernel PELT sample (``pelt``); ``wakeups`` every wake-up with its category."""

    summary: dict
    wakeups: pd.DataFrame
    eas: pd.DataFrame
    sis: pd.DataFrame
    schedutil: pd.DataFrame
    pelt: pd.DataFrame
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready: the summary plus every table as a list of records."""
        def records(df):
            return json.loads(df.to_json(orient="records", double_precision=10)) if len(df) else []
        return {"summary": _clean(self.summary), "eas": records(self.eas), "sis": records(self.sis),
                "schedutil": records(self.schedutil), "pelt": records(self.pelt),
                "wakeups": records(self.wakeups)}

    def write_json(self, out_dir: str | os.PathLike) -> Path:
        """Write ``validation.json`` (every figure) into ``out_dir`` (atomically); the page with it:
        :func:`lisa_eas.plot.write_validation`."""
        from ..._atomic import write_atomic

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        pj = out / "validation.json"
        write_atomic(pj, json.dumps(self.to_dict(), indent=1) + "\n")
        return pj


def _clean(obj):
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def load_trace_arg(path: str | os.PathLike):
    """A Trace from a trace file, a ``lisa-eas run`` directory (its ``trace.dat``) or a
    ``lisa-eas simulate --out`` directory (``metadata.json`` + one parquet file per event)."""
    from ...trace import read_trace

    p = Path(path)
    if p.is_dir():
        for name in ("trace.dat", "trace.txt"):
            if (p / name).is_file():
                return read_trace(p / name)
        if (p / "metadata.json").is_file():
            return _read_simulate_dir(p)
        raise TraceError(f"{p}: not a run directory (no trace.dat, trace.txt or metadata.json in it); give a "
                         f"trace file, the --out directory of `lisa-eas run` or of `lisa-eas simulate`")
    return read_trace(p)


def _read_simulate_dir(p: Path):
    """The Trace written by ``lisa-eas simulate --out p``."""
    from ...trace import Trace

    try:
        meta = json.loads((p / "metadata.json").read_text())
    except (OSError, ValueError) as e:
        raise TraceError(f"{p / 'metadata.json'}: not readable JSON ({e}); re-run `lisa-eas simulate --out {p}`")
    files = meta.pop("files", None)
    if not isinstance(files, dict) or not files:
        raise TraceError(f"{p / 'metadata.json'}: no 'files' field listing the event parquet files; it is not "
                         f"a `lisa-eas simulate --out` directory")
    dfs = {}
    for event, name in files.items():
        f = p / name
        if not f.is_file():
            raise TraceError(f"{f}: missing (listed for event {event!r} in {p / 'metadata.json'}); "
                             f"re-run `lisa-eas simulate --out {p}`")
        dfs[event] = pd.read_parquet(f)
    return Trace.from_dataframes(dfs, metadata=meta)


def _version(era: str) -> tuple:
    from ..._era import parse_kernel_version
    return tuple(parse_kernel_version(era))


def _load_json(path: Path) -> dict:
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


def run_facts(trace) -> dict:
    """What the directory a trace came from recorded about its run: ``kind`` (``run`` for a
    ``lisa-eas run`` directory, ``simulate`` for a simulated trace, ``trace`` otherwise),
    ``platform`` (a Platform or a name; None when unknown), ``governor``, ``placement``,
    ``era`` (simulated runs) and ``cpufreq`` (whether the machine had cpufreq; None if unknown)."""
    meta = trace.metadata
    if meta.get("source") == "lisa_eas.simulate":
        cfg = meta.get("config") or {}
        if isinstance(cfg, str):
            cfg = {}
        return {"kind": "simulate", "platform": meta.get("platform_arg") or meta.get("platform"),
                "governor": cfg.get("governor"), "placement": cfg.get("placement"), "era": cfg.get("era"),
                "cpufreq": True, "where": "the simulation's metadata.json"}
    src = Path(str(meta.get("source") or ""))
    target_json = src.parent / "target.json"
    if src.name and target_json.is_file():
        from ...target._probe import platform_from_target_json

        t = _load_json(target_json)
        pols = t.get("cpufreq_policies") or []
        govs = sorted({str(p.get("governor")) for p in pols if p.get("governor")})
        return {"kind": "run", "platform": platform_from_target_json(target_json), "where": str(target_json),
                "governor": govs[0] if len(govs) == 1 else (",".join(govs) or None), "placement": None,
                "era": None, "cpufreq": bool(pols), "capacities": t.get("cpu_capacity") or {},
                "kernel": t.get("kernel_release"),
                "status": _load_json(src.parent / "run.json").get("status")}
    return {"kind": "trace", "platform": None, "governor": None, "placement": None, "era": None, "cpufreq": None}


def eas_inactive_reason(plat, facts: dict) -> str | None:
    """Why EAS cannot have placed the trace's wake-ups (None when it may have): the kernel only
    builds perf domains for EAS on asymmetric CPU capacities with an energy model registered
    (``build_perf_domains``/``sched_is_eas_possible``); a simulated run says its placement."""
    if facts.get("kind") == "simulate" and facts.get("placement") == "no-eas":
        return ("the simulated run used placement 'no-eas' (no energy-aware wake-up), so the EAS model does "
                "not apply; its CFS wake-ups are held against the idle-CPU search (SIS)")
    caps = {plat.cpu_capacity(c) for c in range(plat.nr_cpus)}
    has_em = bool(plat.perf_domains) and all(d.has_power for d in plat.perf_domains)
    if len(caps) == 1 and not has_em:
        return (f"EAS is not active on this kernel: all CPUs have capacity {caps.pop()} and no energy model is "
                f"registered, so every CFS wake-up goes through the idle-CPU search (SIS), held against the SIS "
                f"model instead")
    if len(caps) == 1:
        return (f"EAS is not active on this kernel: all CPUs have capacity {caps.pop()} (EAS needs asymmetric "
                f"CPU capacities), so every CFS wake-up goes through the idle-CPU search (SIS)")
    if not has_em:
        return ("EAS is not active on this kernel: no energy model is registered for its perf domains, so every "
                "CFS wake-up goes through the idle-CPU search (SIS)")
    return None


def schedutil_unavailable_reason(trace, plat, facts: dict) -> str | None:
    """Why the schedutil replay does not apply (None when it does)."""
    if facts.get("cpufreq") is False or not plat.perf_domains:
        return ("this machine has no cpufreq (no CPU frequency scaling, e.g. a VM): its CPUs run at one fixed "
                "frequency and no governor requests a frequency, so there is nothing to hold against schedutil")
    gov = facts.get("governor")
    if gov and gov != "schedutil":
        what = "the simulated run" if facts.get("kind") == "simulate" else "the board's cpufreq policies"
        return (f"{what} used the {gov} governor, not schedutil: scoring its frequencies against schedutil's "
                f"would mean nothing")
    if "cpu_frequency" not in trace.events:
        return "no cpu_frequency events in the trace (add power:cpu_frequency to the traced events)"
    return None


def validate(trace, platform=None, *, era: str | None = None, sis_era: str | None = None,
             pelt_era: str | None = None, pelt: str = "auto", inputs: str = "auto",
             task_uclamp: dict | None = None) -> ValidationReport:
    """Hold a trace against the models, decision by decision.

    Parameters
    ----------
    trace : Trace or path
        A real or simulated trace (or a trace file / run directory). Needs ``sched_switch``;
        wake-ups come from ``sched_wakeup``/``sched_wakeup_new`` (else they are inferred from
        ``sched_switch``); ``cpu_frequency`` enables the schedutil replay; kernel PELT events
        enable the PELT replay and are used as the util signals.
    platform : Platform or str, optional
        The board that recorded the trace (its CPU count must match). Default: the platform the
        run recorded: a ``lisa-eas run`` directory's probe (``target.json``), a simulated
        run's platform.
    era : str, optional
        Kernel era of the EAS model (``v5.0``, ``v5.4``, ``v6.x``) and of schedutil. Default:
        the simulated run's era, else the trace's kernel version, else ``v5.4``.
    sis_era : str, optional
        Era of the idle-CPU search (default ``era``).
    pelt_era : str, optional
        Era of the PELT model (default: the trace's kernel version, else ``era``).
    pelt : {"auto", "kernel", "model"}
        Source of the util signals.
    inputs : {"auto", "rebuilt"}
        ``auto``: on a simulated trace, the EAS wake-ups use the exact inputs the simulator
        logged (``lisa_sim_eas_decision``); ``rebuilt``: rebuild them from the util signals as
        for a real trace.
    task_uclamp : dict, optional
        The waking tasks' own clamps, which no trace event carries: ``{comm or pid: (uclamp_min,
        uclamp_max)}`` (each 0..1024), for the tasks you know (e.g. the rt-app ``util_min`` /
        ``util_max`` you set). The EAS replay gives them to ``find_energy_efficient_cpu`` for those
        tasks' wake-ups (a pid key wins over a comm key); the others keep no clamp (0, 1024), as
        does the whole replay without this option (the summary's ``decision_inputs`` says which).

    Returns
    -------
    ValidationReport
        ``summary["not_applicable"]`` lists each check that does not apply to this run and why
        (EAS inactive on a symmetric machine or without an energy model, a simulated no-EAS or
        non-schedutil run, a machine without cpufreq).

    Raises
    ------
    MissingTraceEventError
        No ``sched_switch``.
    ConfigError
        The platform's CPU count does not match the trace, or no platform was given and the
        trace does not say which board recorded it.
    """
    from ...errors import ConfigError
    from .._load import df_cpu_util, kernel_cpu_util

    if not hasattr(trace, "events"):
        trace = load_trace_arg(trace)
    need_events(trace, "sched_switch")
    facts = run_facts(trace)
    if platform is None:
        platform = facts.get("platform")
        if platform is None:
            raise ConfigError(f"{trace.metadata.get('source', 'trace')}: which board recorded this trace? Give "
                              f"--platform (a bundled board, `lisa-eas platforms`, or a platform JSON); only a "
                              f"`lisa-eas run` or `lisa-eas simulate` directory says it itself")
    plat = check_platform(trace, platform)
    kv = trace.metadata.get("kernel_version") or facts.get("kernel")
    simulated = trace.metadata.get("source") == "lisa_eas.simulate"
    kernel_era = None
    if kv and not simulated:
        from ..._era import parse_kernel_version
        try:
            kernel_era = "v%d.%d" % parse_kernel_version(str(kv))[:2]
        except Exception:
            kernel_era = None
    if era is None:     # the EAS models start at v5.0: older kernels keep the v5.4 default
        era = facts.get("era") or (kernel_era if kernel_era and _version(kernel_era) >= (5, 0) else "v5.4")
    if pelt_era is None:
        pelt_era = kernel_era or era
    not_applicable = []
    eas_why = eas_inactive_reason(plat, facts)
    if eas_why:
        not_applicable.append({"check": "eas", "reason": eas_why})
    state = rebuild_wakeups(trace, plat, era=era, pelt_era=pelt_era, pelt=pelt, inputs=inputs,
                            eas_active=eas_why is None)
    if eas_why is None:
        eas_df, eas_sum = replay_eas(state, plat, era=era, task_uclamp=task_uclamp)
    else:
        eas_df, eas_sum = pd.DataFrame(), {"applicable": False, "reason": eas_why, "wakeups": 0}
    sis_df, sis_sum = replay_sis(state, plat, era=sis_era or era)
    counts = state.wakeups["category"].value_counts().to_dict()
    accounting = {c: int(counts.get(c, 0)) for c in CATEGORIES}
    accounting["total"] = int(len(state.wakeups))
    accounting["accounted"] = int(sum(accounting[c] for c in CATEGORIES))
    su_why = schedutil_unavailable_reason(trace, plat, facts)
    su_df, su_sum = pd.DataFrame(), {"available": False, "reason": su_why}
    if su_why is None:
        if kernel_cpu_util(trace) is not None:
            cu = df_cpu_util(trace, platform=plat, era=pelt_era)
            kc = kernel_cpu_util(trace)
            if "util_est_enqueued" in kc.columns:
                cu = kc
        else:
            cu = df_cpu_util(trace, platform=plat, era=pelt_era, source="model")
        su_df, su_sum = replay_schedutil(trace, plat, cu, era=era)
        su_sum["available"] = True
    else:
        not_applicable.append({"check": "schedutil", "reason": su_why})
    pelt_df, pelt_sum = replay_pelt(trace, plat, era=pelt_era)
    ks_sum = kernel_signals_summary(trace, pelt_era)
    if not pelt_sum.get("available"):
        not_applicable.append({"check": "pelt", "reason": pelt_sum.get("reason") or
                               "the trace has no kernel PELT samples to hold the PELT model against"})
    summary = {
        "trace": str(trace.metadata.get("source", "")), "platform": plat.name, "era": era,
        "pelt_era": pelt_era, "kernel_version": kv, "util_source": state.util_source,
        "overutilized_source": state.overutilized_source, "run": {k: v for k, v in facts.items()
                                                                 if k in ("kind", "governor", "placement", "where",
                                                                          "status")},
        "wakeups_inferred_from_sched_switch": bool(state.wakeups["inferred"].any()) if len(state.wakeups) else False,
        "wakeups": accounting, "eas": eas_sum, "sis": sis_sum, "schedutil": su_sum, "pelt": pelt_sum,
        "kernel_signals": ks_sum,
        "not_applicable": not_applicable,
    }
    return ValidationReport(summary=summary, wakeups=state.wakeups, eas=eas_df, sis=sis_df, schedutil=su_df,
                            pelt=pelt_df)
