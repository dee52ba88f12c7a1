"""PELT replay: the PELT model (:func:`lisa_eas.models.pelt_timeline` through
:func:`lisa_eas.analysis.model_task_util`) fed with each task's timeline from the trace,
started from the task's first kernel sample, against every later kernel sample."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._load import kernel_task_util, model_task_util

__all__ = ["replay_pelt"]


def replay_pelt(trace, platform, *, era: str = "v5.4") -> tuple[pd.DataFrame, dict]:
    """Model util vs the kernel's at every kernel sample after the first, per task.

    Returns
    -------
    (DataFrame, dict)
        Rows: ``time``, ``pid``, ``kernel_util``, ``model_util``, ``error`` (model - kernel);
        summary: ``samples``, ``tasks``, ``abs_error_p50/p95/max``, ``mean_error`` (in util
        units of 1024) and ``source``. Empty with ``available: False`` when the trace has no
        kernel PELT events.
    """
    kt = kernel_task_util(trace)
    if kt is None or kt.empty or "sched_switch" not in trace.events:
        return (pd.DataFrame(columns=["time", "pid", "kernel_util", "model_util", "error"]),
                {"available": False, "reason": "the trace has no per-task PELT events (record sched_pelt_se "
                                                "or sched_load_se) or no sched_switch"})
    first = kt.reset_index().groupby("pid").first()
    init = {int(p): (float(r["Time"]), int(r["util"])) for p, r in first.iterrows()}
    model = model_task_util(trace, platform=platform, era=era, at=kt.index.to_numpy(), tasks=list(init),
                            init=init).reset_index()
    parts = []
    for pid, g in kt.reset_index().groupby("pid"):
        m = model[model["pid"].to_numpy() == pid]
        if m.empty or len(g) < 2:
            continue
        t = g["Time"].to_numpy()[1:]
        k = np.searchsorted(m["Time"].to_numpy(), t, side="right") - 1
        ok = k >= 0
        mu = m["util"].to_numpy()[np.maximum(k, 0)]
        ku = g["util"].to_numpy()[1:]
        parts.append(pd.DataFrame({"time": t[ok], "pid": pid, "kernel_util": ku[ok], "model_util": mu[ok],
                                   "error": (mu[ok] - ku[ok]).astype(np.int64)}))
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=["time", "pid", "kernel_util", "model_util", "error"])
    err = np.abs(df["error"].to_numpy(np.float64))
    summary = {"available": True, "source": kt.attrs.get("source"), "era": era, "samples": int(len(df)),
               "tasks": int(df["pid"].nunique()) if len(df) else 0,
               "abs_error_p50": float(np.percentile(err, 50)) if len(err) else None,
               "abs_error_p95": float(np.percentile(err, 95)) if len(err) else None,
               "abs_error_max": float(err.max()) if len(err) else None,
               "mean_error": float(df["error"].mean()) if len(df) else None}
    return df, summary
