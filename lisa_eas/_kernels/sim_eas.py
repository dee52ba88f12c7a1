"""Energy-aware wake-up placement of the simulator (numba), on the flat state arrays.

``find_energy_efficient_cpu`` is computed by the models' own kernel, ``eas.feec`` (its v5.0 /
v5.4 / v6.x forms, ``cpu_util_next``, ``compute_energy`` and ``em_cpu_energy``, from
``kernel/sched/fair.c`` and ``include/linux/energy_model.h``): one implementation, so an era
fix in ``_kernels/eas.py`` reaches the simulator. ``place_eas`` gathers the per-CPU inputs
(the CPUs' cfs util_avg from state slot 6, util_est.enqueued from the CPU table,
``capacity_of`` from the rt util_avg in slot 7) into scratch rows of state slot 13 and passes
the static arrays (original capacities, slot 1; the task's affinity row, slot 12; the EM
arrays, slots 13, 14, 15) as views in place (2-D ones by ``sim_views.view2d``). The work counters (per decision: the perf-domain
evaluations and CPU-util computations of that one call, ``eas.feec``'s ``work`` row) and the
compared energies are ``eas.feec``'s ``work`` / ``energies`` arguments, the scratch rows
``SC_WORK`` / ``SC_ENERGY``; a decision with costed energies is logged with its inputs.

Cost: ``eas.feec`` computes ``cpu_util_next`` for each candidate it looks at, where the re-typed
copy this replaced kept a per-wake-up table; on the EAS RFC benchmark workload (50 tasks,
HiKey960, schedutil, 30 s simulated) the event loop took 0.141 s CPU against 0.130 s with the
copy (and 0.152 s once schedutil also runs the models' ``sugov_update``), for output identical
event for event.
"""
from __future__ import annotations

from ._jit import sim_inline

from .sim_layout import (O_COUNTERS, O_EAS_LOG, O_EAS_LOG_W, P_CPU_CAP, P_CPU_PD_N, P_EM_PD_CPUS,
                         P_EM_PD_CPUS_N, P_EM_PD_INFO, P_EM_PD_INFO_N, P_EM_PD_INFO_W, P_EM_STATES,
                         P_EM_STATES_N, P_EM_STATES_W, P_MASKS, P_MASKS_W, P_MODEL_PARAMS, S_CFS_PELT,
                         S_CFS_PELT_W, S_CPUS, S_GLOBALS_AT, S_RT_PELT, S_RT_PELT_W, S_SCRATCH, S_SCRATCH_W, S_TASKS,
                         S_TASK_PELT, S_TASK_PELT_W)
from .sim_layout import S_RQ_TASKS, S_RQ_TASKS_W

from .eas import (NO_ENERGY, UC_V6_2, X_RT, X_RUNNABLE, X_SIZE, X_THERMAL, X_UC_ON, X_UC_P_MAX, X_UC_P_MIN,
                  X_UC_RQ_MAX, X_UC_RQ_MIN, feec)
from .extra_rows import X_THERMAL_AVG, X_UC_IDLE
from .pelt import SA_RUNNABLE_AVG, SA_UTIL_AVG
from .sim_capacity import capacity_of, rq_uclamp, task_uclamp, thermal_avg, thermal_pressure
from .sim_models import (M_EAS_ERA, M_EAS_IGNORE_OU, M_EM_MODE, M_EXTRA, M_EXTRA_RT, M_EXTRA_THERMAL, M_EXTRA_UCLAMP,
                         M_RUNNABLE_BOOST, M_UCLAMP, SC_CAP_OF, SC_ENERGY, SC_EXTRA, SC_UE, SC_UTIL, SC_WORK)
from .sim_sched import sync_entity_load_avg, task_util_est
from .sim_views import view2d
from .sim_state import (C_NFIELDS, C_UE_SUM, D_CHOSEN, D_HEAD, D_IN_CPUS, D_IN_OVERUTIL, D_IN_TASK_UTIL,
                        D_IN_TASK_UTIL_EST, D_PREV, D_TASK, D_TASK_UTIL, D_TIME, G_OVERUTIL, N_EAS,
                        N_SUMMARY, T_MASK, T_NFIELDS)

@sim_inline
def place_eas(p, prev, now, S, P, O):
    """``find_energy_efficient_cpu`` for a waking CFS task (-1: fall back to the idle search),
    computed by the models' own kernel ``eas.feec`` (its era forms, energy model and work
    counters): the per-CPU inputs are gathered into scratch rows, the static EM arrays and the
    task's affinity row are passed as views in place. Decisions with costed energies are logged
    with their inputs (EAS slot of ``O``)."""
    osc = S[S_SCRATCH]
    ow = osc + SC_WORK * S[S_SCRATCH_W]
    oe = osc + SC_ENERGY * S[S_SCRATCH_W]
    S[oe] = NO_ENERGY
    S[oe + 1] = NO_ENERGY
    S[oe + 2] = 0
    S[ow] = 0                     # the work counters are per decision (eas.feec's ``work`` row)
    S[ow + 1] = 0
    om = P[P_MASKS] + S[S[S_TASKS] + (p) * T_NFIELDS + T_MASK] * P[P_MASKS_W]
    ou = S[S_GLOBALS_AT + G_OVERUTIL] != 0
    if ou and not P[P[P_MODEL_PARAMS] + M_EAS_IGNORE_OU]:
        return -1
    sync_entity_load_avg(p, S, P)     # past the overutilized test, before task_util_est(p)
    tu = S[S[S_TASK_PELT] + (p) * S[S_TASK_PELT_W] + SA_UTIL_AVG]
    tue = task_util_est(p, S)
    if tu == 0 and tue == 0 and P[P[P_MODEL_PARAMS] + M_EXTRA_UCLAMP] < UC_V6_2:
        return prev               # task_util_est(p) == 0: stay on prev (from v6.2 eas.feec decides with the clamps)
    n = P[P_CPU_PD_N]
    ou_ = osc + SC_UTIL * S[S_SCRATCH_W]
    oue = osc + SC_UE * S[S_SCRATCH_W]
    ocap = osc + SC_CAP_OF * S[S_SCRATCH_W]
    for c in range(n):
        S[ou_ + c] = S[S[S_CFS_PELT] + c * S[S_CFS_PELT_W] + SA_UTIL_AVG]       # cfs_rq util_avg
        S[oue + c] = S[S[S_CPUS] + c * C_NFIELDS + C_UE_SUM]      # cfs_rq util_est.enqueued
        S[ocap + c] = capacity_of(c, S, P)
    opi = P[P_EM_PD_INFO]
    ost = P[P_EM_STATES]
    mp = P[P_MODEL_PARAMS]
    # the optional inputs (issue 17): eas.feec's ``extra`` rows in scratch, zero where not given;
    # ``None`` in a run without them. One call, with ``extra`` typed as an optional array, so
    # that eas.feec is compiled once for the loop, not for ``extra=None`` and again for the rows
    # (~30 % of the loop's cold compile), and skips the rows where there are none
    w = S[S_SCRATCH_W]
    ox = osc + SC_EXTRA * w
    extra = None
    if P[mp + M_EXTRA]:
        for k in range(X_SIZE * w):
            S[ox + k] = 0
        for c in range(n):
            if P[mp + M_EXTRA_RT]:
                S[ox + X_RT * w + c] = S[S[S_RT_PELT] + c * S[S_RT_PELT_W] + SA_UTIL_AVG]
            if P[mp + M_EXTRA_THERMAL]:
                S[ox + X_THERMAL * w + c] = thermal_pressure(c, S, P)
                S[ox + X_THERMAL_AVG * w + c] = thermal_avg(c, S, P)     # v6.2's capacity inversion
            if P[mp + M_RUNNABLE_BOOST]:
                S[ox + X_RUNNABLE * w + c] = S[S[S_CFS_PELT] + c * S[S_CFS_PELT_W] + SA_RUNNABLE_AVG]
            if P[mp + M_EXTRA_UCLAMP]:
                S[ox + X_UC_ON * w + c] = P[mp + M_EXTRA_UCLAMP]
                S[ox + X_UC_RQ_MIN * w + c] = rq_uclamp(c, 0, S, P)
                S[ox + X_UC_RQ_MAX * w + c] = rq_uclamp(c, 1, S, P)
                if P[mp + M_UCLAMP] == 2 and S[S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]] == 0:
                    S[ox + X_UC_IDLE * w + c] = 1     # v5.14+: an idle rq's clamps ignored (ledger uclamp-v5.14)
                S[ox + X_UC_P_MIN * w + c] = task_uclamp(p, 0, S, P)
                S[ox + X_UC_P_MAX * w + c] = task_uclamp(p, 1, S, P)
        extra = view2d(S, ox, X_SIZE, w)
    cpu = feec(P[mp + M_EAS_ERA], view2d(P, opi, P[P_EM_PD_INFO_N], P[P_EM_PD_INFO_W]), P[P[P_EM_PD_CPUS]:P[P_EM_PD_CPUS] + P[P_EM_PD_CPUS_N]],
               view2d(P, ost, P[P_EM_STATES_N], P[P_EM_STATES_W]), P[mp + M_EM_MODE], P[P[P_CPU_CAP]:P[P_CPU_CAP] + n],
               S[ocap:ocap + n], S[ou_:ou_ + n], S[oue:oue + n], tu, tue, prev, P[om:om + n], False,
               S[ow:ow + 2], S[oe:oe + 3], extra)
    if (S[oe + 1] != NO_ENERGY or S[oe] != NO_ENERGY) and O[O[O_COUNTERS] + N_SUMMARY] == 0:
        n = P[P_CPU_PD_N]
        k = O[O[O_COUNTERS] + N_EAS]
        r = O[O_EAS_LOG] + k * O[O_EAS_LOG_W]
        O[r + D_TIME] = now
        O[r + D_TASK] = p
        O[r + D_PREV] = prev
        O[r + D_CHOSEN] = cpu
        O[r + D_TASK_UTIL] = tu if tu > tue else tue
        for j in range(3):
            O[r + D_HEAD + j] = S[oe + j] if S[oe + j] != NO_ENERGY else -1
        O[r + D_HEAD + 3] = S[ow]
        O[r + D_HEAD + 4] = S[ow + 1]
        O[r + D_IN_TASK_UTIL] = tu
        O[r + D_IN_TASK_UTIL_EST] = tue
        O[r + D_IN_OVERUTIL] = 0
        for c in range(n):
            O[r + D_IN_CPUS + c] = S[S[S_CFS_PELT] + c * S[S_CFS_PELT_W] + SA_UTIL_AVG]
            O[r + D_IN_CPUS + n + c] = S[S[S_CPUS] + c * C_NFIELDS + C_UE_SUM]
            O[r + D_IN_CPUS + 2 * n + c] = capacity_of(c, S, P)
            O[r + D_IN_CPUS + 3 * n + c] = 1 if P[om + c] else 0
        O[O[O_COUNTERS] + N_EAS] = k + 1
    return cpu
