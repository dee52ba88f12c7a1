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

__all__ = ["ValidationReport", "load_trace_arg", "validate"]


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

    def write(self, out_dir: str | os.PathLike) -> dict[str, Path]:
        """Write ``validation.json`` and ``validation.html`` into ``out_dir`` (atomically)."""
        from ..._atomic import write_atomic
        from ...plot import validation_html

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        pj, ph = out / "validation.json", out / "validation.html"
        write_atomic(pj, json.dumps(self.to_dict(), indent=1) + "\n")
        write_atomic(ph, validation_html(self))
        return {"json": pj, "html": ph}


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


def validate(trace, platform, *, era: str = "v5.4", sis_era: str | None = None, pelt_era: str | None = None,
             pelt: str = "auto", inputs: str = "auto") -> ValidationReport:
    """Hold a trace against the models, decision by decision.

    Parameters
    ----------
    trace : Trace or path
        A real or simulated trace (or a trace file / run directory). Needs ``sched_switch``;
        wake-ups come from ``sched_wakeup``/``sched_wakeup_new`` (else they are inferred from
        ``sched_switch``); ``cpu_frequency`` enables the schedutil replay; kernel PELT events
        enable the PELT replay and are used as the util signals.
    platform : Platform or str
        The board that recorded the trace (its CPU count must match).
    era : str
        Kernel era of the EAS model (``v5.0``, ``v5.4``, ``v6.x``) and of schedutil.
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

    Returns
    -------
    ValidationReport

    Raises
    ------
    MissingTraceEventError
        No ``sched_switch``.
    ConfigError
        The platform's CPU count does not match the trace.
    """
    from .._load import df_cpu_util, kernel_cpu_util

    if not hasattr(trace, "events"):
        trace = load_trace_arg(trace)
    need_events(trace, "sched_switch")
    plat = check_platform(trace, platform)
    kv = trace.metadata.get("kernel_version")
    if pelt_era is None:
        pelt_era = era
        if kv and trace.metadata.get("source") != "lisa_eas.simulate":
            from ..._era import parse_kernel_version
            try:
                v = parse_kernel_version(str(kv))
                pelt_era = "v%d.%d" % v
            except Exception:
                pass
    state = rebuild_wakeups(trace, plat, era=era, pelt_era=pelt_era, pelt=pelt, inputs=inputs)
    eas_df, eas_sum = replay_eas(state, plat, era=era)
    sis_df, sis_sum = replay_sis(state, plat, era=sis_era or era)
    counts = state.wakeups["category"].value_counts().to_dict()
    accounting = {c: int(counts.get(c, 0)) for c in CATEGORIES}
    accounting["total"] = int(len(state.wakeups))
    accounting["accounted"] = int(sum(accounting[c] for c in CATEGORIES))
    su_df, su_sum = pd.DataFrame(), {"available": False, "reason": "no cpu_frequency events"}
    if "cpu_frequency" in trace.events:
        if kernel_cpu_util(trace) is not None:
            cu = df_cpu_util(trace, platform=plat, era=pelt_era)
            kc = kernel_cpu_util(trace)
            if "util_est_enqueued" in kc.columns:
                cu = kc
        else:
            cu = df_cpu_util(trace, platform=plat, era=pelt_era, source="model")
        su_df, su_sum = replay_schedutil(trace, plat, cu, era=era)
        su_sum["available"] = True
    pelt_df, pelt_sum = replay_pelt(trace, plat, era=pelt_era)
    ks_sum = kernel_signals_summary(trace, pelt_era)
    summary = {
        "trace": str(trace.metadata.get("source", "")), "platform": plat.name, "era": era,
        "pelt_era": pelt_era, "kernel_version": kv, "util_source": state.util_source,
        "overutilized_source": state.overutilized_source,
        "wakeups_inferred_from_sched_switch": bool(state.wakeups["inferred"].any()) if len(state.wakeups) else False,
        "wakeups": accounting, "eas": eas_sum, "sis": sis_sum, "schedutil": su_sum, "pelt": pelt_sum,
        "kernel_signals": ks_sum,
    }
    return ValidationReport(summary=summary, wakeups=state.wakeups, eas=eas_df, sis=sis_df, schedutil=su_df,
                            pelt=pelt_df)
