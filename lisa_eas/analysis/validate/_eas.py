"""EAS replay: ``find_energy_efficient_cpu`` of the chosen era at every EAS wake-up of a
trace, against the CPU the kernel picked, with the energy gap of each disagreement.

The energy of a placement is the model's ``compute_energy`` over every perf domain
(:func:`lisa_eas.models.eas.compute_energy_v50` with the era's Energy Model), i.e. the
energy the EM predicts for the system with the task on that CPU; the *regret* of a wake-up
is E(kernel's CPU) - E(model's CPU).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._state import WakeupState

__all__ = ["replay_eas"]


def placement_energy(em, state: WakeupState, rows: np.ndarray, cpus: np.ndarray) -> np.ndarray:
    """EM energy of each wake-up in ``rows`` with the task placed on ``cpus`` (per row)."""
    from ...models.eas import compute_energy_v50

    arr = em.arrays()
    out = np.full(len(rows), np.nan)
    work = np.zeros(2, np.int64)
    for k, (i, c) in enumerate(zip(rows, cpus)):
        if c < 0:
            continue
        out[k] = compute_energy_v50(arr, int(state.wakeups["prev_cpu"].iat[i]), int(c), state.util_avg[i],
                                    state.util_est[i], int(state.task_util[i]), int(state.task_util_est[i]), work)
    return out


def _task_clamps(wk: pd.DataFrame, task_uclamp) -> tuple[np.ndarray, np.ndarray] | None:
    """Per wake-up (uclamp_min, uclamp_max) of the waking task from ``task_uclamp`` ({comm or pid:
    (min, max)}; a pid key wins), (0, 1024) for the others; None without the option."""
    from ...errors import ModelError

    if not task_uclamp:
        return None
    for k, v in task_uclamp.items():
        ok = isinstance(v, (tuple, list)) and len(v) == 2 and all(
            isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= x <= 1024 for x in v)
        if not ok or v[0] > v[1]:
            raise ModelError(f"task_uclamp[{k!r}] = {v!r}: give (uclamp_min, uclamp_max), integers within "
                             f"0..1024 with uclamp_min <= uclamp_max")
    lo = np.zeros(len(wk), np.int64)
    hi = np.full(len(wk), 1024, np.int64)
    for i, (pid, comm) in enumerate(zip(wk["pid"].to_numpy(), wk["comm"].to_numpy())):
        v = task_uclamp.get(int(pid), task_uclamp.get(str(comm)))
        if v is not None:
            lo[i], hi[i] = v
    return lo, hi


def replay_eas(state: WakeupState, platform, *, era: str = "v5.4",
               task_uclamp: dict | None = None) -> tuple[pd.DataFrame, dict]:
    """Replay every ``eas`` wake-up of ``state``.

    Returns
    -------
    (DataFrame, dict)
        One row per EAS wake-up: ``time``, ``pid``, ``comm``, ``prev_cpu``, ``kernel_cpu``,
        ``model_cpu``, ``agree``, ``task_util``, ``task_util_est``, ``util`` (per-CPU
        util_avg at the wake-up, as a list), ``energy_kernel``, ``energy_model``, ``regret``,
        ``pd_evaluations``, ``feec_prev_energy`` / ``feec_best_energy`` / ``feec_base_energy`` (the
        model's own energies: prev CPU, best candidate, base), ``inputs`` (``logged``,
        ``kernel_pelt`` or ``pelt_model``: see :class:`WakeupState`); and the summary:
        ``wakeups``, ``agree``, ``agreement_pct``, ``regret_total``, ``regret_mean_disagreement``,
        ``energy_unit``, ``inputs`` (per input source: ``wakeups``, ``agree``, ``agreement_pct``).
    """
    from ...energy_model import EnergyModel
    from ...models import find_energy_efficient_cpu

    em = EnergyModel.from_platform(platform, era=era)
    rows = np.flatnonzero(state.wakeups["category"].to_numpy() == "eas")
    wk = state.wakeups.iloc[rows]
    n = len(rows)
    model_cpu = np.zeros(n, np.int64)
    pd_eval = np.zeros(n, np.int64)
    feec_energy = np.full((n, 3), np.nan)
    # capacity_of is one vector per call: one call per distinct capacity vector
    caps, group = np.unique(state.capacity[rows], axis=0, return_inverse=True) if n else (np.zeros((0, 0)), [])
    group = np.asarray(group).reshape(-1)
    prev = wk["prev_cpu"].to_numpy()
    tclamp = _task_clamps(wk, task_uclamp)
    for g, cap in enumerate(caps):
        sel = np.flatnonzero(group == g)
        r = rows[sel]
        extra = {k: v[r] for k, v in (state.cpu_inputs or {}).items()}
        if tclamp is not None:
            extra["task_uclamp_min"], extra["task_uclamp_max"] = tclamp[0][sel], tclamp[1][sel]
        dec = find_energy_efficient_cpu(platform, state.util_avg[r], state.task_util[r], prev[sel],
                                        util_est=state.util_est[r], task_util_est=state.task_util_est[r],
                                        allowed=state.allowed[r], capacity=cap, overutilized=state.overutilized[r],
                                        era=era, energy_model=em, **extra)
        model_cpu[sel] = dec.cpu
        pd_eval[sel] = dec.pd_evaluations
        feec_energy[sel] = np.column_stack([dec.prev_energy, dec.best_energy, dec.base_energy])
    kernel_cpu = wk["kernel_cpu"].to_numpy()
    e_kernel = placement_energy(em, state, rows, kernel_cpu)
    e_model = placement_energy(em, state, rows, model_cpu)
    agree = model_cpu == kernel_cpu
    df = pd.DataFrame({"time": wk["time"].to_numpy(), "pid": wk["pid"].to_numpy(), "comm": wk["comm"].to_numpy(),
                       "prev_cpu": wk["prev_cpu"].to_numpy(), "kernel_cpu": kernel_cpu, "model_cpu": model_cpu,
                       "agree": agree, "task_util": state.task_util[rows], "task_util_est": state.task_util_est[rows],
                       "util": [list(map(int, u)) for u in state.util_avg[rows]],
                       "energy_kernel": e_kernel, "energy_model": e_model,
                       "regret": np.where(agree, 0.0, e_kernel - e_model), "pd_evaluations": pd_eval,
                       "feec_prev_energy": feec_energy[:, 0], "feec_best_energy": feec_energy[:, 1],
                       "feec_base_energy": feec_energy[:, 2], "inputs": state.inputs[rows]})
    dis = df[~df["agree"]]
    summary = {"era": era, "wakeups": int(n), "agree": int(agree.sum()),
               "agreement_pct": float(100.0 * agree.sum() / n) if n else None,
               "disagree": int(n - agree.sum()),
               "regret_total": float(np.nansum(dis["regret"])) if len(dis) else 0.0,
               "regret_mean_disagreement": float(np.nanmean(dis["regret"])) if len(dis) else 0.0,
               "kernel_energy_total": float(np.nansum(e_kernel)), "model_energy_total": float(np.nansum(e_model)),
               "energy_unit": f"EM units of era {era} (cost x util / capacity)",
               "decision_inputs": _with_task_clamps(state.input_sources, task_uclamp),
               "inputs": {k: _input_summary(df[df["inputs"] == k]) for k in ("logged", "kernel_pelt", "pelt_model")
                          if (df["inputs"] == k).any()}}
    return df, summary


def _with_task_clamps(sources, task_uclamp) -> dict:
    out = dict(sources or {})
    out["task_uclamp"] = (f"given by the user for {sorted(map(str, task_uclamp))} (validate(task_uclamp=...)); "
                          "the other tasks' are absent: taken as 0 and 1024" if task_uclamp else
                          "absent: no trace event carries a task's clamps; taken as 0 and 1024 "
                          "(validate(task_uclamp=...) gives the ones you know)")
    return out


def _input_summary(df: pd.DataFrame) -> dict:
    n = len(df)
    a = int(df["agree"].sum())
    return {"wakeups": int(n), "agree": a, "agreement_pct": float(100.0 * a / n) if n else None}
