"""SIS replay: for CFS wake-ups outside EAS (root domain overutilized), the model's
``select_idle_sibling`` (scan depth and choice) against the CPU the kernel picked and its
idleness.

The wake-affine target is not in the trace: the replay uses ``target = prev_cpu`` (the
kernel's choice when ``wake_affine`` keeps the task near its previous CPU). The SIS_UTIL
depth uses the LLC's current sum of util (the kernel refreshes it at load balance).
Eras before v6.0 have SIS_PROP, whose ``avg_idle`` / ``avg_scan_cost`` are not traced:
the replay then scans without a depth limit (``feature="none"``) and says so. From v5.7, on
a platform whose CPUs differ in capacity, the kernel takes the asymmetric-capacity path
instead (``select_idle_capacity`` with each CPU's ``capacity_of`` and the task's
``task_util_est``; ``feature="asym_capacity"``, ``nr_scan`` = every CPU), in the era's form
(the v6.2 ``util_fits_cpu`` fit, v6.3's scan from target + 1); no event gives the waking task's
clamps, so the replay fits it unclamped (0, 1024) and says so.

``p->recent_used_cpu`` is not traced either. From v5.15 the kernel sets it to prev after every
search that gets past the target and prev checks (ledger wakeup-v5.15), so the replay rebuilds
it from the trace: before each wake-up, the previous CPU of the task's latest earlier replayed
wake-up whose kernel choice was not prev (the target here); none before the first such wake-up
(the value set at fork is not in the trace). v4.16 - v5.14 also change it from the waker's side:
the replay passes none there and says so.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._state import WakeupState

__all__ = ["replay_sis"]


def _recent_used_cpu(wk: pd.DataFrame, era_v: tuple) -> np.ndarray:
    """``p->recent_used_cpu`` at each wake-up of ``wk`` (v5.15+ rule, see the module docstring);
    -1 where unknown or before v5.15."""
    n = len(wk)
    if era_v < (5, 15) or n == 0:
        return np.full(n, -1, np.int64)
    prev = wk["prev_cpu"].to_numpy().astype(np.int64)
    moved = wk["kernel_cpu"].to_numpy() != prev
    order = np.lexsort((np.arange(n), wk["time"].to_numpy(), wk["pid"].to_numpy()))
    pid = pd.Series(wk["pid"].to_numpy()[order])
    set_to = pd.Series(np.where(moved, prev, -1)[order]).where(pd.Series(moved[order]))
    after = set_to.groupby(pid).ffill()                      # the value after each wake-up
    before = after.groupby(pid).shift(1).fillna(-1).to_numpy().astype(np.int64)
    out = np.empty(n, np.int64)
    out[order] = before
    return out


def replay_sis(state: WakeupState, platform, *, era: str = "v6.6") -> tuple[pd.DataFrame, dict]:
    """Replay every ``sis`` wake-up of ``state``.

    Returns
    -------
    (DataFrame, dict)
        Rows: ``time``, ``pid``, ``comm``, ``prev_cpu``, ``kernel_cpu``, ``model_cpu``,
        ``agree``, ``path`` (rule that chose), ``scanned``, ``nr_scan`` (depth limit),
        ``kernel_cpu_was_idle``, ``model_cpu_was_idle``; summary with the agreement and the
        share of wake-ups where the kernel picked an idle CPU.
    """
    from ..._era import parse_kernel_version
    from ...models import select_idle_sibling, sis_util_nr_scan

    rows = np.flatnonzero(state.wakeups["category"].to_numpy() == "sis")
    wk = state.wakeups.iloc[rows]
    v = parse_kernel_version(era)
    sis_era = era if v >= (4, 9) else "v4.9"
    llc = platform.llc_ids()
    cap = np.array([platform.cpu_capacity(c) for c in range(platform.nr_cpus)], np.int64)
    asym = v >= (5, 7) and len(set(cap.tolist())) > 1
    feature = "asym_capacity" if asym else ("util" if v >= (6, 0) else "none")
    if len(rows):
        prev = wk["prev_cpu"].to_numpy()
        recent = _recent_used_cpu(wk, v)
        if asym:
            nr = np.full(len(rows), platform.nr_cpus)
            dec = select_idle_sibling(state.idle[rows].astype(bool), prev, prev, recent_used_cpu=recent, era=sis_era,
                                      llc_id=llc,
                                      allowed=state.allowed[rows], capacity_orig=cap, capacity=state.capacity[rows],
                                      task_util=np.maximum(state.task_util[rows], state.task_util_est[rows]))
        elif feature == "util":
            cpu_util = np.minimum(np.maximum(state.util_avg[rows], state.util_est[rows]), cap[None, :])
            lw = np.array([(llc == llc[p]).sum() for p in prev])
            su = np.array([cpu_util[i, llc == llc[p]].sum() for i, p in enumerate(prev)])
            nr = np.array([sis_util_nr_scan(int(min(s, w * 1024)), int(w), platform.imbalance_pct)
                           for s, w in zip(su, lw)])
            dec = select_idle_sibling(state.idle[rows].astype(bool), prev, prev, recent_used_cpu=recent, era=sis_era,
                                      feature="util",
                                      nr_idle_scan=np.minimum(nr, platform.nr_cpus), llc_id=llc)
        else:
            nr = np.full(len(rows), platform.nr_cpus)
            dec = select_idle_sibling(state.idle[rows].astype(bool), prev, prev, recent_used_cpu=recent, era=sis_era,
                                      feature="none",
                                      llc_id=llc)
        model_cpu, path, scanned = dec.cpu, dec.path_names, dec.scanned
    else:
        model_cpu, path, scanned, nr = (np.zeros(0, np.int64), [], np.zeros(0, np.int64), np.zeros(0, np.int64))
    kernel_cpu = wk["kernel_cpu"].to_numpy()
    idle = state.idle[rows]
    k_idle = idle[np.arange(len(rows)), np.clip(kernel_cpu, 0, platform.nr_cpus - 1)].astype(bool) if len(rows) \
        else np.zeros(0, bool)
    m_idle = idle[np.arange(len(rows)), np.clip(model_cpu, 0, platform.nr_cpus - 1)].astype(bool) if len(rows) \
        else np.zeros(0, bool)
    agree = model_cpu == kernel_cpu
    df = pd.DataFrame({"time": wk["time"].to_numpy(), "pid": wk["pid"].to_numpy(), "comm": wk["comm"].to_numpy(),
                       "prev_cpu": wk["prev_cpu"].to_numpy(), "kernel_cpu": kernel_cpu, "model_cpu": model_cpu,
                       "agree": agree, "path": list(path), "scanned": scanned, "nr_scan": nr,
                       "kernel_cpu_was_idle": k_idle, "model_cpu_was_idle": m_idle})
    n = len(df)
    summary = {"era": era, "feature": feature, "wakeups": int(n), "agree": int(agree.sum()),
               "agreement_pct": float(100.0 * agree.sum() / n) if n else None,
               "kernel_picked_idle_pct": float(100.0 * k_idle.sum() / n) if n else None,
               "model_picked_idle_pct": float(100.0 * m_idle.sum() / n) if n else None,
               "mean_scanned": float(np.mean(scanned)) if n else None,
               "target": "prev_cpu (wake_affine not traced)",
               "task_uclamp": ("absent: no event gives the waking task's clamps; the asymmetric fit takes (0, 1024)"
                               if asym else "not used by the LLC search"),
               "recent_used_cpu": ("rebuilt from the trace (v5.15 rule)" if v >= (5, 15) else
                                   "none (not traced; v4.16 - v5.14 also set it from the waker)" if v >= (4, 16)
                                   else "none (no such field before v4.16)")}
    return df, summary
