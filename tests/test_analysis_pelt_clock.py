"""The analyses' PELT replay (``model_task_util``) on the runqueue's own PELT clock (v5.1+).

Tasks pinned two CPUs share them, so a sleeping task decays on a runqueue clock that runs slower
while the others keep the CPU busy. Before ``model_task_util`` rebuilt that clock (each task was
replayed as if alone: its sleep on wall time) its util missed the simulator's by up to 43 % of
1024 (mean 5.6 %) here at v5.4; with the clock rebuilt (:func:`lisa_eas.models.rq_clock_pelt`,
the same rebuild tests/test_sim_pelt_timeline.py uses) the miss is the rounding of the extra
evaluation points, measured max 1.66 %, mean 0.10 %.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lisa_eas.analysis._load import kernel_task_util, model_task_util
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim import SimConfig, simulate


def _miss(era):
    plat = load_platform("juno_r2")
    tasks = [task(f"t{i}", periodic(duty_cycle_pct=d, period_ms=p, duration_s=1.0), cpus=[i % 2])
             for i, (d, p) in enumerate([(10, 16), (25, 10), (40, 20), (15, 8), (30, 12), (5, 16)])]
    # threads started on their CPUs in turn (ablation fork-placement): with the fork balance each pinned
    # thread carries its fork util to CPU 0 or 1, saturating them at the start (v6.9 then misses by
    # 7.5 % of 1024 at worst: not investigated, issue 18)
    trace = simulate(plat, workload(tasks, calibration=20), config=SimConfig(era=era, ablate=("fork-placement",)))
    ku = kernel_task_util(trace)
    first = ku.groupby("pid").head(1)
    init = {int(p): (float(ts), int(u)) for ts, p, u in zip(first.index, first["pid"], first["util"])}
    mu = model_task_util(trace, platform=plat, era=era, at=np.unique(ku.index.to_numpy(np.float64)),
                         tasks=sorted(init), init=init)
    k = ku.reset_index()
    k.columns = ["Time"] + list(k.columns[1:])
    m = mu.reset_index()
    m.columns = ["Time"] + list(m.columns[1:])
    j = pd.merge_asof(k.sort_values("Time"), m[["Time", "pid", "util"]].sort_values("Time"), on="Time", by="pid",
                      direction="backward", suffixes=("", "_model")).dropna(subset=["util_model"])
    err = np.abs(j["util"].to_numpy(float) - j["util_model"].to_numpy(float)) / 1024 * 100
    return float(err.mean()), float(err.max()), len(err)


@pytest.mark.parametrize("era", ["v5.4", "v6.9"])
def test_model_task_util_follows_the_runqueue_pelt_clock(era):
    mean, worst, n = _miss(era)
    assert n > 2000
    assert mean < 0.3 and worst < 2.0, f"{era}: mean {mean:.2f} %, max {worst:.2f} % of 1024"
