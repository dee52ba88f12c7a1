"""EAS replay: ``find_energy_efficient_cpu`` of the chosen era at every EAS wake-up of a
trace, against the CPU the kernel picked, with the energy gap of each disagreement.

The energy of a placement is the model's ``compute_energy`` over every perf domain
(:func:`lisa_eas._kernels.eas.compute_energy_v50` with the era's Energy Model), i.e. the
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
    from ..._kernels.eas import compute_energy_v50

    arr = em.arrays()
    out = np.full(len(rows), np.nan)
    work = np.zeros(2, np.int64)
    for k, (i, c) in enumerate(zip(rows, cpus)):
        if c < 0:
            continue
        out[k] = compute_energy_v50(arr["pd_info"], arr["pd_cpus"], arr["em_states"], arr["em_mode"],
                                    int(state.wakeups["prev_cpu"].iat[i]), int(c), state.util_avg[i],
                                    state.util_est[i], int(state.task_util[i]), int(state.task_util_est[i]),
                                    arr["cap_orig"], work)
    return out


def replay_eas(state: WakeupState, platform, *, era: str = "v5.4") -> tuple[pd.DataFrame, dict]:
    """Replay every ``eas`` wake-up of ``state``.

    Returns
    -------
    (DataFrame, dict)
        One row per EAS wake-up: ``time``, ``pid``, ``comm``, ``prev_cpu``, ``kernel_cpu``,
        ``model_cpu``, ``agree``, ``task_util``, ``task_util_est``, ``util`` (per-CPU
        util_avg at the wake-up, as a list), ``energy_kernel``, ``energy_model``, ``regret``,
        ``pd_evaluations``; and the summary: ``wakeups``, ``agree``, ``agreement_pct``,
        ``regret_total``, ``regret_mean_disagreement``, ``energy_unit``.
    """
    from ...energy_model import EnergyModel
    from ...models import find_energy_efficient_cpu

    em = EnergyModel.from_platform(platform, era=era)
    rows = np.flatnonzero(state.wakeups["category"].to_numpy() == "eas")
    wk = state.wakeups.iloc[rows]
    if len(rows):
        dec = find_energy_efficient_cpu(platform, state.util_avg[rows], state.task_util[rows],
                                        wk["prev_cpu"].to_numpy(), util_est=state.util_est[rows],
                                        task_util_est=state.task_util_est[rows], overutilized=False, era=era,
                                        energy_model=em)
        model_cpu = dec.cpu
        pd_eval = dec.pd_evaluations
    else:
        model_cpu = np.zeros(0, np.int64)
        pd_eval = np.zeros(0, np.int64)
    kernel_cpu = wk["kernel_cpu"].to_numpy()
    e_kernel = placement_energy(em, state, rows, kernel_cpu)
    e_model = placement_energy(em, state, rows, model_cpu)
    agree = model_cpu == kernel_cpu
    df = pd.DataFrame({"time": wk["time"].to_numpy(), "pid": wk["pid"].to_numpy(), "comm": wk["comm"].to_numpy(),
                       "prev_cpu": wk["prev_cpu"].to_numpy(), "kernel_cpu": kernel_cpu, "model_cpu": model_cpu,
                       "agree": agree, "task_util": state.task_util[rows], "task_util_est": state.task_util_est[rows],
                       "util": [list(map(int, u)) for u in state.util_avg[rows]],
                       "energy_kernel": e_kernel, "energy_model": e_model,
                       "regret": np.where(agree, 0.0, e_kernel - e_model), "pd_evaluations": pd_eval})
    n = len(df)
    dis = df[~df["agree"]]
    summary = {"era": era, "wakeups": int(n), "agree": int(agree.sum()),
               "agreement_pct": float(100.0 * agree.sum() / n) if n else None,
               "disagree": int(n - agree.sum()),
               "regret_total": float(np.nansum(dis["regret"])) if len(dis) else 0.0,
               "regret_mean_disagreement": float(np.nanmean(dis["regret"])) if len(dis) else 0.0,
               "kernel_energy_total": float(np.nansum(e_kernel)), "model_energy_total": float(np.nansum(e_model)),
               "energy_unit": f"EM units of era {era} (cost x util / capacity)"}
    return df, summary
