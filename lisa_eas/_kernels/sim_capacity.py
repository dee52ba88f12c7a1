"""The simulator's capacity and fit signals (numba), read by the wake-up, the load balance
and the governors: ``cpu_util``, ``capacity_of`` with the thermal cap schedule (the
instantaneous pressure and, v5.7 - v6.9, its PELT average ``thermal_load_avg``), the tasks' and
runqueues' uclamp values, v6.2's capacity inversion, the misfit test ``task_fits_cpu`` and the
root domain's overutilized flag. Layout constants (``M_*``, ``SC_*``, ``TH_*``) are in
``sim_models``."""
from __future__ import annotations

from ._jit import sim_helper
from .eas import UC_V5_6, UC_V6_2, UC_V6_3, cpu_overutilized, cpu_overutilized_uclamp, fits_capacity
from .fits import _inverts, util_fits_cpu, util_fits_cpu_v62
from .pelt import SA_LOAD_AVG, SA_UTIL_AVG
from .sim_index import CSN_OU, CSN_OU_DIRTY, CS_COUNTS, CS_OU_BIT, CS_OU_DIRTY, CS_OU_STACK
from .sim_layout import (P_CPU_CAP, P_CPU_PD, P_CPU_PD_N, P_MODEL_PARAMS, P_PD_CPUS, P_PD_CPUS_W, P_PD_NOPP,
                         P_TASK_UCLAMP, P_THERMAL, P_THERMAL_N, P_THERMAL_W, S_CFS_PELT, S_CFS_PELT_W, S_CONFIG_AT, S_CPUS,
                         S_CPU_SETS, S_CPU_SETS_W, S_GLOBALS_AT, S_RQ_TASKS, S_RQ_TASKS_W, S_RT_PELT, S_RT_PELT_W, S_TASKS,
                         S_TASK_PELT, S_TASK_PELT_W, S_THERMAL_PELT, S_THERMAL_PELT_W)
from .sim_models import (M_EAS_OVERUTIL_ERA, M_EXTRA_UCLAMP, M_MISFIT_UCLAMP, M_THERMAL_AVG, M_THERMAL_CAPOF,
                         M_THERMAL_SHIFT, TH_OPP, TH_PD, TH_PRESSURE, TH_TIME)
from .sim_sched import emit, pelt_flat, task_util_for_placement
from .sim_state import (C_NFIELDS, C_UE_SUM, EV_OVERUTIL, G_NOW, G_OVERUTIL, K_MODEL_EVENTS, POLICY_CFS, POLICY_FIFO,
                        T_NFIELDS, T_POLICY)


@sim_helper
def cpu_util(c, S, P):
    """``cpu_util(cpu)`` of the CFS runqueue: ``min(max(util_avg, util_est.enqueued), capacity)``."""
    u = S[S[S_CFS_PELT] + (c) * S[S_CFS_PELT_W] + SA_UTIL_AVG]
    e = S[S[S_CPUS] + (c) * C_NFIELDS + C_UE_SUM]
    if e > u:
        u = e
    cap = P[P[P_CPU_CAP] + c]
    return u if u < cap else cap


@sim_helper
def weighted_cpuload(c, S):
    """``weighted_cpuload()`` / ``cpu_runnable_load()``: the cfs_rq's ``runnable_load_avg``
    (v4.15 - v5.6; before v4.15 the same sum kept on the cfs_rq), the sum of its runnable
    entities' ``runnable_load_avg``, for a task its ``load_avg`` (weight-scaled runnable time,
    ``__update_load_avg_se`` with ``runnable = load = on_rq``): here the sum of the queued CFS
    tasks' load_avg as each was last updated. Read by the v4.x load balancer (``sim_lb``), the
    v4.x ``find_idlest_group`` / ``find_idlest_group_cpu`` of the wake-up slow path and
    ``wake_affine_weight`` before v5.5. The engines' cfs_rq ``SA_RUNNABLE_AVG`` is the v5.7+
    ``runnable_avg`` (``h_nr_running``-based; before v5.7 the same nr-based signal unscaled, about
    1/1024 of this sum), so it must not stand for this load."""
    oTK = S[S_TASKS]
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    total = 0
    for i in range(1, S[ol] + 1):
        p = S[ol + i]
        if S[oTK + p * T_NFIELDS + T_POLICY] == POLICY_CFS:
            total += S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_LOAD_AVG]
    return total


@sim_helper
def thermal_row(d, S, P):
    """The thermal cap schedule's row in force for perf domain ``d`` now (-1: no cap)."""
    n = P[P_THERMAL_N]
    if n == 0:
        return -1
    now = S[S_GLOBALS_AT + G_NOW]
    o = P[P_THERMAL]
    w = P[P_THERMAL_W]
    r = -1
    for k in range(n):
        if P[o + k * w + TH_TIME] > now:
            break
        if P[o + k * w + TH_PD] == d:
            r = k
    return r


@sim_helper
def thermal_pressure(c, S, P):
    """``arch_scale_thermal_pressure(cpu)`` now (``hw_pressure`` from v6.10): from the schedule."""
    r = thermal_row(P[P[P_CPU_PD] + c], S, P)
    if r < 0:
        return 0
    return P[P[P_THERMAL] + r * P[P_THERMAL_W] + TH_PRESSURE]


@sim_helper
def thermal_avg(c, S, P):
    """The pressure that ``capacity_of`` and the capacity rankings subtract now.

    v5.7 - v6.9 (``M_THERMAL_AVG``): ``thermal_load_avg(rq)``, the PELT average of the pressure as
    last updated (pelt.c ``update_thermal_load_avg``, read with ``READ_ONCE``, no update on read).
    v6.10+ (f1f8d0a22422 ``get_actual_cpu_capacity``, c281afe24fc5: cpufreq_cooling no longer
    sets the hw pressure, so ``hw_load_avg`` stays 0): ``max(hw_load_avg, cpufreq_get_pressure)``,
    the cooling device's ``policy->max`` pressure, instantaneous: the schedule's value."""
    if P[P[P_MODEL_PARAMS] + M_THERMAL_AVG]:
        return S[S[S_THERMAL_PELT] + c * S[S_THERMAL_PELT_W] + SA_LOAD_AVG]
    return thermal_pressure(c, S, P)


@sim_helper
def update_thermal_avg(c, now, S, P):
    """``update_thermal_load_avg(rq_clock_thermal(rq), rq, arch_scale_thermal_pressure(cpu))`` at
    v5.7 - v6.9 (``scheduler_tick``; ``__update_blocked_others`` from the load balance): one PELT
    update of CPU ``c``'s thermal signal with the pressure now in force as load, runnable and
    running (``___update_load_sum``), then ``___update_load_avg(sa, 1)`` when a period was
    crossed: ``load_avg = load_sum / divider``. The clock is ``rq_clock_thermal(rq)``:
    ``rq_clock_task`` (the simulator's time) shifted right by ``sched_thermal_decay_shift``
    (``M_THERMAL_SHIFT``, the boot parameter of 76504793832b, v5.7, clamped to 0..10; removed in
    v6.10 by 97450eb90965): a shift of k stretches each PELT period 2^k times."""
    if P[P[P_MODEL_PARAMS] + M_THERMAL_AVG]:
        pr = thermal_pressure(c, S, P)
        pelt_flat(S, S[S_THERMAL_PELT] + c * S[S_THERMAL_PELT_W], now >> P[P[P_MODEL_PARAMS] + M_THERMAL_SHIFT],
                  pr, pr, pr, 1024, 1024, 1, 1, P)


@sim_helper
def thermal_max_opp(d, S, P):
    """The highest OPP the thermal cap lets perf domain ``d`` run at now (policy->max)."""
    r = thermal_row(d, S, P)
    if r < 0:
        return P[P[P_PD_NOPP] + d] - 1
    return P[P[P_THERMAL] + r * P[P_THERMAL_W] + TH_OPP]


@sim_helper
def capacity_of(c, S, P):
    """``capacity_of(cpu)``: original capacity minus the rt runqueue's utilization and, from v5.7
    with a thermal cap schedule, the thermal pressure (``scale_rt_capacity``, ledger thermal-v5.7):
    its PELT average ``thermal_load_avg`` at v5.7 - v6.9, the instantaneous cpufreq pressure of
    ``get_actual_cpu_capacity`` from v6.10 (:func:`thermal_avg`). Computed at each read, while the
    kernel refreshes ``cpu_capacity`` at each load balance (``update_cpu_capacity``)."""
    cap = P[P[P_CPU_CAP] + c] - S[S[S_RT_PELT] + (c) * S[S_RT_PELT_W] + SA_UTIL_AVG]
    if P[P_THERMAL_N] > 0 and P[P[P_MODEL_PARAMS] + M_THERMAL_CAPOF]:     # one load without a schedule
        cap -= thermal_avg(c, S, P)
    return cap if cap > 1 else 1


@sim_helper
def task_uclamp(p, k, S, P):
    """Task ``p``'s effective clamp ``k`` (0 min, 1 max): its request, else the default (``uclamp_none``;
    an RT task's ``uclamp_min`` defaults to 1024, 1a00d999971c, v5.3)."""
    v = P[P[P_TASK_UCLAMP] + 2 * p + k]
    if v >= 0:
        return v
    if k == 1:
        return 1024
    return 1024 if S[S[S_TASKS] + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO else 0


@sim_helper
def rq_uclamp(c, k, S, P):
    """``uclamp_rq_get(rq, k)``: the max of clamp ``k`` over the tasks queued on CPU ``c``
    (max aggregation of the clamp buckets); an empty runqueue (``UCLAMP_FLAG_IDLE``) has
    ``uclamp_min`` 0 and keeps the ``uclamp_max`` of the last task that left it
    (``uclamp_idle_value``, e496187da710, v5.3: ``rq_del`` leaves that task in the list's first
    slot), 1024 before any task (``uclamp_rq_init``)."""
    ol = S[S_RQ_TASKS] + c * S[S_RQ_TASKS_W]
    v = 0
    if S[ol] == 0 and k == 1:
        last = S[ol + 1] if S[S_RQ_TASKS_W] > 1 else -1
        return 1024 if last < 0 else task_uclamp(last, 1, S, P)
    for i in range(1, S[ol] + 1):
        u = task_uclamp(S[ol + i], k, S, P)
        if u > v:
            v = u
    return v


@sim_helper
def capacity_inversion(c, S, P):
    """v6.2's ``cpu_in_capacity_inversion(cpu)`` (44c7b80bffc3, removed in v6.3 by a2e90611b9f4), as
    ``fits.capacity_inverted`` rules it, over the perf domains' first CPUs and this run's
    ``thermal_load_avg`` (:func:`thermal_avg`): ``capacity_orig - thermal_load_avg`` of ``c`` when
    inverted, else 0 (always 0 without a thermal cap schedule). Computed at each read (the kernel
    sets it in ``update_cpu_capacity``, at load balance)."""
    if P[P_THERMAL_N] == 0:
        return 0
    co = P[P[P_CPU_CAP] + c]
    inv = co - thermal_avg(c, S, P)
    own = P[P[P_CPU_PD] + c]
    for e in range(P[P_CPU_PD_N]):
        d = P[P[P_CPU_PD] + e]
        if d != own and P[P[P_PD_CPUS] + d * P[P_PD_CPUS_W]] == e \
                and _inverts(co, inv, P[P[P_CPU_CAP] + e], thermal_avg(e, S, P)):
            return inv
    return 0


@sim_helper
def task_fits_cpu(p, c, S, P):
    """The misfit test of ``update_misfit_status`` / the load balance: does task ``p`` fit CPU ``c``?

    Without clamps ``fits_capacity(task_util_est(p), capacity_of(cpu))``. With uclamp in use, per
    era (``M_MISFIT_UCLAMP``): v5.6 (a7008c07a568, ledger uclamp-v5.6) ``task_fits_capacity``
    fits ``uclamp_task_util(p)``, the util clamped into the task's range; v6.2 (b48e16a69792,
    ledger uclamp-v6.2) ``task_fits_cpu`` is ``util_fits_cpu(task_util_est(p), p's uclamp_min,
    uclamp_max, cpu)`` with v6.2's capacity inversion (:func:`capacity_inversion`, aa69c36f31aa;
    read in a 6.2.1 tree); v6.3 (e5ed0550c04c, ledger uclamp-v6.3) ``util_fits_cpu(...) > 0``:
    a CPU that misses only the boost (-1) is a misfit."""
    tu = task_util_for_placement(p, S)
    cap = capacity_of(c, S, P)
    form = P[P[P_MODEL_PARAMS] + M_MISFIT_UCLAMP]
    if form == 0:
        return fits_capacity(tu, cap)
    lo = task_uclamp(p, 0, S, P)
    hi = task_uclamp(p, 1, S, P)
    if form == UC_V5_6:
        u = tu if tu > lo else lo
        return fits_capacity(u if u < hi else hi, cap)
    if form == UC_V6_2:
        return util_fits_cpu_v62(tu, lo, hi, cap, P[P[P_CPU_CAP] + c], thermal_pressure(c, S, P),
                                 capacity_inversion(c, S, P)) != 0
    f = util_fits_cpu(tu, lo, hi, cap, P[P[P_CPU_CAP] + c], thermal_pressure(c, S, P), form)
    if form >= UC_V6_3:
        return f > 0
    return f != 0


@sim_helper
def update_overutilized(now, set_only, S, P, O):
    """Set (and, from the load balancer, clear) the root domain's overutilized flag."""
    oG = S_GLOBALS_AT
    if set_only and S[oG + G_OVERUTIL]:
        return          # already set: the scan below could not change anything
    ou = 0
    form = P[P[P_MODEL_PARAMS] + M_EXTRA_UCLAMP]
    n_scan = P[P_CPU_PD_N]
    if form < UC_V6_2 and (P[P_THERMAL_N] == 0 or not P[P[P_MODEL_PARAMS] + M_THERMAL_CAPOF]):
        n_scan = 0
        # the answers change only with their inputs: re-test the CPUs whose inputs were written
        # since (sim_index.ou_dirty), keep the count of CPUs answering 1 (the same flag as a scan)
        w = S[S_CPU_SETS_W]
        o = S[S_CPU_SETS]
        era = P[P[P_MODEL_PARAMS] + M_EAS_OVERUTIL_ERA]
        for k in range(S[o + CS_COUNTS * w + CSN_OU_DIRTY]):
            c = S[o + CS_OU_STACK * w + k]
            S[o + CS_OU_DIRTY * w + c] = 0
            b = 1 if cpu_overutilized(cpu_util(c, S, P), capacity_of(c, S, P), era) else 0
            S[o + CS_COUNTS * w + CSN_OU] += b - S[o + CS_OU_BIT * w + c]
            S[o + CS_OU_BIT * w + c] = b
        S[o + CS_COUNTS * w + CSN_OU_DIRTY] = 0
        ou = 1 if S[o + CS_COUNTS * w + CSN_OU] > 0 else 0
    for c in range(n_scan):     # otherwise (time-dependent thermal pressure, rq clamps): every CPU
        if form == UC_V6_2:     # v6.2: util_fits_cpu with its capacity inversion (aa69c36f31aa)
            if util_fits_cpu_v62(cpu_util(c, S, P), rq_uclamp(c, 0, S, P), rq_uclamp(c, 1, S, P),
                                 capacity_of(c, S, P), P[P[P_CPU_CAP] + c], thermal_pressure(c, S, P),
                                 capacity_inversion(c, S, P)) == 0:
                ou = 1
                break
        elif form >= UC_V6_2:   # util_fits_cpu with the rq clamps (ledger uclamp-v6.2); idle rq: its kept max
            if cpu_overutilized_uclamp(cpu_util(c, S, P), capacity_of(c, S, P), P[P[P_CPU_CAP] + c],
                                       thermal_pressure(c, S, P), rq_uclamp(c, 0, S, P),
                                       rq_uclamp(c, 1, S, P), form):
                ou = 1
                break
        elif cpu_overutilized(cpu_util(c, S, P), capacity_of(c, S, P), P[P[P_MODEL_PARAMS] + M_EAS_OVERUTIL_ERA]):
            ou = 1
            break
    if set_only and ou == 0:
        return
    if ou != S[oG + G_OVERUTIL]:
        S[oG + G_OVERUTIL] = ou
        if S[S_CONFIG_AT + K_MODEL_EVENTS]:
            emit(O, now, EV_OVERUTIL, -1, ou, 0, 0, 0, 0)
