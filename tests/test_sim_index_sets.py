"""The simulator's incrementally kept sets (``sim_index``: the idle mask, the counts of waiting
tasks and waiting FIFO tasks, the per-CPU overutilized answers) against a recount from the state the loop left,
at several stop times of runs with CFS, FIFO and pinned tasks (no thermal caps: the
overutilized answers are only kept when they depend on the state alone)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lisa_eas import SimConfig
from lisa_eas._kernels import sim_index as si
from lisa_eas._kernels import sim_layout as L
from lisa_eas._kernels import sim_models as sm
from lisa_eas._kernels import sim_state as ss
from lisa_eas._kernels.pelt import SA_UTIL_AVG
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim._compile import compile_workload
from lisa_eas.sim._engine import build_run, run_loop, view
from lisa_eas.sim._fixed import plan_platform


def _workload(n: int):
    ts = [task(f"t{i}", periodic(16, 10 + (i % 4) * 15, duration_s=2)) for i in range(n)]
    ts.append(task("rt", periodic(10, 30, duration_s=2), policy="SCHED_FIFO", priority=10))
    ts.append(task("pinned", periodic(12, 50, duration_s=2), cpus=[0, 1]))
    return workload(ts, calibration=100)


def _overutilized(util_avg, ue_sum, rt_util, cap_orig, v5_0):
    """``cpu_overutilized`` written from the kernel: cpu_util = min(max(util_avg, util_est), cap
    orig); capacity_of = cap orig - rt util (at least 1); v5.0 ``cap * 1024 < util * 1280``,
    v5.4+ ``!fits_capacity`` (``util * 1280 < cap * 1024``)."""
    util = min(max(util_avg, ue_sum), cap_orig)
    cap = max(cap_orig - rt_util, 1)
    return int(cap * 1024 < util * 1280) if v5_0 else int(not util * 1280 < cap * 1024)


CASES = [("x86_llc112", 16, 60, SimConfig(seed=1, start_jitter_us=16000)),
         ("x86_llc112", 16, 100, SimConfig(seed=2, era="v5.18", sis="prop")),
         ("hikey960", 8, 30, SimConfig(seed=3)),
         ("tc2", 5, 20, SimConfig(seed=4, era="v4.14", util_est=False))]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_sets_match_a_recount(case):
    name, ncpu, ntask, config = CASES[case]
    board = load_platform(name)
    if board.nr_cpus != ncpu:
        board = replace(board, name=f"{name}_{ncpu}", nr_cpus=ncpu, llc_weight=ncpu)
    plat, cfg, _ = plan_platform(board, replace(config, duration_s=2))
    compiled = compile_workload(_workload(ntask), plat.nr_cpus)
    for t_end_ms in (37, 411, 1203):
        S, P, O, m = build_run(plat, compiled, cfg, t_end_ms * 1_000_000)
        run_loop(S, P, O, m)
        tk = view(S, L.S_TASKS // 4)
        cp = view(S, L.S_CPUS // 4)
        n = plat.nr_cpus
        sets = view(S, L.S_CPU_SETS // 4)
        counts = sets[si.CS_COUNTS]
        waiting = tk[:, ss.T_STATE] == ss.TS_RUNNABLE
        assert counts[si.CSN_WAITING] == int(waiting.sum())
        assert counts[si.CSN_WAITING_RT] == int((waiting & (tk[:, ss.T_POLICY] == ss.POLICY_FIFO)).sum())
        assert 0 < int((tk[:, ss.T_STATE] != ss.TS_EXITED).sum())        # stopped mid-run
        idle = view(S, L.S_SCRATCH // 4)[sm.SC_IDLE][:n]
        want_idle = ((cp[:, ss.C_CURR] < 0) & (cp[:, ss.C_NR_CFS] + cp[:, ss.C_NR_RT] == 0)).astype(np.int64)
        assert idle.tolist() == want_idle.tolist()
        # the overutilized answers: the dirty CPUs are those on the stack; every other CPU's
        # kept answer is the test of its state now; the count is the number of 1 answers
        dirty = sets[si.CS_OU_DIRTY][:n]
        stack = sets[si.CS_OU_STACK][:counts[si.CSN_OU_DIRTY]].tolist()
        assert sorted(stack) == sorted(set(stack)) == np.flatnonzero(dirty).tolist()
        bits = sets[si.CS_OU_BIT][:n]
        assert counts[si.CSN_OU] == int(bits.sum())
        cfs = view(S, L.S_CFS_PELT // 4)
        rt = view(S, L.S_RT_PELT // 4)
        cap = view(P, L.P_CPU_CAP // 4)
        v5_0 = view(P, L.P_MODEL_PARAMS // 4)[sm.M_EAS_OVERUTIL_ERA] == 0
        for c in range(n):
            if not dirty[c]:
                assert bits[c] == _overutilized(int(cfs[c, SA_UTIL_AVG]), int(cp[c, ss.C_UE_SUM]),
                                                int(rt[c, SA_UTIL_AVG]), int(cap[c]), v5_0), (t_end_ms, c)
