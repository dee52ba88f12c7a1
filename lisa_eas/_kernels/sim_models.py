"""The simulator's calls into the kernel decision models (numba).

Each function here gathers the simulated runqueues' state into the arrays the issue-3
kernels take and calls them; no decision logic is re-implemented here:

* wake-up placement of CFS tasks: ``eas.feec`` (v5.0 / v5.4 / 6.x forms, on the flat
  state in ``sim_eas``) while the root domain is not overutilized, else ``sis.select_idle_sibling`` with the SIS_UTIL depth
  (``sis.sis_util_nr_idle_scan``, refreshed at each load-balance pass as
  ``update_idle_cpu_scan`` is) or the SIS_PROP depth (``sis.sis_prop_nr`` from the waking
  CPU's ``avg_idle / 512`` or, v5.14+, ``wake_avg_idle``, and its ``avg_scan_cost``, fed by the
  modelled scan time), on the target ``wake_affine.wake_affine`` picks for a wake-up done on
  another CPU (``affine_target``), with ``p->recent_used_cpu`` per era;
* overutilized: ``eas.cpu_overutilized``;
* frequency: ``schedutil.sugov_update`` (with or without the RFC ramp boost; the rt
  runqueue's utilization is passed apart and added after ``max(util_avg, util_est)`` as
  ``effective_cpu_util`` does; RELATION_LE over the EM's inefficient OPPs from v5.16;
  ``sugov_update_flat`` gathers the inputs and passes the state in place) and ``governors.schedfreq_request``
  / ``schedfreq_pending`` at each scheduler update (``cpufreq_update_util`` points), and the
  timer-driven ``governors.ondemand_step`` / ``interactive_account`` + ``interactive_step``
  on each sampling timer, over per-policy governor state kept in the state array;
  performance / powersave pin the top / bottom OPP.
"""
from __future__ import annotations

from ._jit import sim_helper, sim_inline, sim_kernel, sim_nrt

from .sim_layout import (P_CORE_ID, P_CORE_ID_N, P_CPU_CAP, P_CPU_PD, P_CPU_PD_N, P_LLC_ID, P_LLC_ID_N,
                         P_MASKS, P_MASKS_W, P_MODEL_PARAMS, P_MODEL_PARAMS_N, P_PD_COST, P_PD_COST_W,
                         P_PD_CPUS, P_PD_CPUS_W, P_PD_FREQ, P_PD_FREQ_W, P_PD_INEFF, P_PD_INEFF_W, P_PD_NCPU, P_PD_NOPP,
                         P_TASK_UCLAMP, P_THERMAL, P_THERMAL_N, P_THERMAL_W, S_CFS_PELT,
                         S_CFS_PELT_W, S_CONFIG, S_CPUS, S_DOMAINS, S_GLOBALS, S_GOV_CPU, S_GOV_CPU_W,
                         S_GOV_CPU_W2, S_GOV_POLICY, S_GOV_POLICY_W, S_IDLE_STATS, S_IDLE_STATS_W, S_RT_PELT,
                         S_RT_PELT_W, S_SCRATCH, S_SCRATCH_W, S_SU_CPU, S_SU_CPU_W, S_SU_CPU_W2, S_SU_POLICY,
                         S_RQ_TASKS, S_RQ_TASKS_W, S_SU_POLICY_W, S_TASK_PELT, S_TASK_PELT_W, S_TASKS,
                         S_THERMAL_PELT, S_THERMAL_PELT_W)

from .sim_state import C_IDLE_STATE, C_NFIELDS, P_NFIELDS, T_NFIELDS, T_RECENT

from .eas import UC_V5_6, UC_V6_2, UC_V6_3, cpu_overutilized, cpu_overutilized_uclamp, fits_capacity
from .fits import util_fits_cpu
from .fits import _inverts, util_fits_cpu_v62
from .governors import (IA_CUR, OD_CUR, OD_DEFERRED, OD_RATE_MULT, SF_CUR, SF_REQUESTED, SF_RT_REQ,
                        SF_RT_SEEN, SF_THROTTLE_END, interactive_account, interactive_step, ondemand_step,
                        sched_rt_capacity_req, schedfreq_pending, schedfreq_request)
from .pelt import SA_LOAD_AVG, SA_RUNNABLE_AVG, SA_UTIL_AVG
from .schedutil import (CS_LAST_UPDATE, CS_WENT_IDLE, FREQUENCY_UTIL, PS_LAST_FREQ_UPDATE, PS_NEED_FREQ_UPDATE,
                        PS_NEXT_FREQ, sugov_update)
from .sim_index import CS_COUNTS, CS_OU_BIT, CS_OU_DIRTY, CS_OU_STACK, CSN_OU, CSN_OU_DIRTY, SC_IDLE_ROW
from .sim_layout import S_CPU_SETS, S_CPU_SETS_W
from .sim_sched import M_ATTACH_KEEPS_SUM, emit, pelt_flat, sync_cpu, refresh_next_event, task_util_for_placement
from .sim_state import (C_BUSY_NS, C_CURR, C_NR_CFS, C_NR_RT, C_UE_SUM, EV_FREQ, EV_OVERUTIL, G_NOW, G_OVERUTIL,
                        G_WAKE_CAP, POLICY_FIFO, T_POLICY,
                        GOV_INTERACTIVE, GOV_ONDEMAND, GOV_SCHEDFREQ, GOV_SCHEDUTIL, INF_TIME, K_GOV,
                        K_MODEL_EVENTS, K_RAMP_BOOST, K_RATE_LIMIT_NS, K_SAMPLE_NS, K_SIS, K_TICK_NS, K_TRANS_LAT_NS,
                        P_LAST_UPDATE, P_NEXT_SAMPLE, P_OPP, P_PENDING_AT, P_PENDING_OPP, P_REQ_OPP,
                        SIS_UTIL, T_MASK)
from .sim_views import view2d
from .wake_affine import WA_THIS, wake_affine
from .fork import FORM_V4_14, FORM_V5_5, STATE_BUSY, STATE_NONE, find_idlest_cpu
from .sis import (ASYM_V5_7, PATH_PREV, PATH_RECENT, PATH_TARGET, select_idle_sibling, select_idle_sibling_asym,
                  sis_prop_nr, sis_util_nr_idle_scan, update_avg, wake_avg_idle_age)

# model parameter vector: static slot 19
M_EM_MODE = 0
M_EAS_ERA = 1
M_SIS_MODE = 2
M_SU_ERA = 3
M_IMBALANCE_PCT = 4
M_LLC_WEIGHT = 5
M_SIS_SCAN_COST = 6
M_OD_UP_THRESHOLD = 7
M_OD_SAMPLING_US = 8
M_OD_DOWN_FACTOR = 9
M_EAS_OVERUTIL_ERA = 10
M_IA_GO_HISPEED = 11
M_IA_HISPEED_KHZ = 12     # 0: each policy's maximum
M_IA_TARGET_LOAD = 13
M_IA_MIN_SAMPLE_US = 14
M_IA_ABOVE_HS_DELAY_US = 15
M_SF_MARGIN = 16
M_SF_THROTTLE_NS = 17
M_ASYM_MODE = 18          # sis.ASYM_* on an asymmetric-capacity platform at era v5.7+, else -1
M_WAKE_CAP = 19           # asymmetric platform before v5.7: wake_cap() clears want_affine; 1: no SD_BALANCE_WAKE
                          # (fast path on prev, counted in G_WAKE_CAP); 2 / 3: the find_idlest_cpu() slow path
                          # in the v4.x / v5.5 form (WAKE_SLOW_V4 / WAKE_SLOW_V5_5; ledger wake_cap-v4.16)
WAKE_CAP_FAST = 1
WAKE_SLOW_V4 = 2
WAKE_SLOW_V5_5 = 3
M_MAX_CAP = 20            # the largest capacity_orig (rd->max_cpu_capacity)
M_SU_LIMITS_CHECK = 21    # 1: v6.9+ schedutil drops an efficient OPP outside the policy limits
M_SU_RESTORE_CACHED = 22  # 1: v5.11+ a schedutil busy hold restores cached_raw_freq
# the optional decision inputs (issue 17; all 0 by default, which is the simulator without them)
M_UCLAMP = 23             # 1: some task has a clamp (uclamp_is_used()), era v5.3+ (ledger uclamp-v5.3); 2: v5.14+, the
                          # waking task's clamps alone on an idle rq (ledger uclamp-v5.14)
M_THERMAL_CAPOF = 24      # 1: the thermal pressure lowers capacity_of (v5.7+, ledger thermal-v5.7)
M_EXTRA = 25              # 1: eas.feec gets the ``extra`` rows (RT util, thermal pressure, runnable_avg)
M_EXTRA_RT = 26           # 1: ... with the rt_rq's util_avg as cpu_util_rt (SimConfig rt_pressure)
M_EXTRA_THERMAL = 27      # 1: ... with the thermal pressure (the EM's allowed_cpu_cap, v5.14+, ledger em-v5.14)
M_RUNNABLE_BOOST = 28     # 1: runnable boosting in schedutil and feec (v6.5+, ledger schedutil-v6.5 / eas-v6.5)
M_EXTRA_UCLAMP = 29       # >0: ... with the rq and task clamps in the candidates' fit, its form eas.UC_* (ledger uclamp-v5.6)
M_EAS_IGNORE_OU = 30      # 1: ablation (SimConfig.ablate "eas-overutilized"): the EAS wake-up ignores the flag
M_SF_AVG_PERIOD_NS = 31   # schedfreq's RT average: sched_avg_period() = sched_time_avg_ms * NSEC_PER_MSEC / 2
M_OD_RT_STARVES = 32      # 1: ondemand's work item (a SCHED_NORMAL kworker) waits while RT tasks hold the CPUs
M_OD_IDLE_DEFERS = 33     # 1: ondemand takes no sample while every CPU of the policy is idle (deferrable timer)
# the wake-up path's era codes (issue 18)
M_SIS_PROP_ERA = 34       # 0: avg_idle / 512, avg_idle by >> 3 (< v5.7); 1: the same, avg_idle by / 8 (v5.7 -
                          # v5.13, ledger wakeup-v5.7); 2: wake_avg_idle (v5.14+, ledger sis-v5.14)
M_RECENT_ERA = 35         # 0: no recent_used_cpu (< v4.16); 1: v4.16 - v5.14 (ledger wakeup-v4.16); 2: v5.15+
                          # (p->recent_used_cpu = prev, ledger wakeup-v5.15)
M_WA_ERA = 36             # wake_affine.WA_* of the era
M_WA_LOAD = 37            # wake_affine_weight's load: 0 the cfs_rq's runnable_load_avg (< v5.5), 1 its load_avg
M_WAKER_AT_PREV = 38      # 1: ablation (SimConfig.ablate "resume-waker"): a task-to-task wake-up is placed as a
                          # timer wake-up on the task's prev CPU (no wake_affine, prev's SIS_PROP state)
# M_ATTACH_KEEPS_SUM = 39 (imported from sim_sched, which reads it): 1: ablation (SimConfig.ablate
#   "pelt-attach-reset"): attach keeps the task's util_sum and period_contrib (no kernel does:
#   attach_entity_load_avg rebuilds the sum from util_avg in the runqueue's window)
M_THERMAL_AVG = 40        # 1: a thermal cap schedule at v5.7 - v6.9: capacity_of and the capacity ranks read the
                          # PELT average of the pressure, thermal_load_avg (ledger thermal-v5.7, thermal-v6.10)
M_MISFIT_UCLAMP = 41      # >0: update_misfit_status's fit takes the task's clamps, its form eas.UC_* (uclamp in use,
                          # v5.6+: uclamp_task_util; v6.2 util_fits_cpu; v6.3+ util_fits_cpu > 0)
M_THERMAL_SHIFT = 42      # sched_thermal_decay_shift (v5.7 - v6.9, 0..10): the thermal PELT clock is rq_clock_task >> it
M_WAKE_CAP_UTIL_AVG = 43  # 1: wake_cap() tests task_util(p), the util_avg (before v4.20); 0: task_util_est(p)
M_SIZE = 44

# thermal cap schedule rows (static slot THERMAL): from TH_TIME on, perf domain TH_PD runs at most
# at OPP TH_OPP and its CPUs' thermal pressure is TH_PRESSURE (capacity_orig minus the capacity of
# that OPP, as cpufreq_cooling sets it with arch_set_thermal_pressure)
TH_TIME = 0
TH_PD = 1
TH_OPP = 2
TH_PRESSURE = 3
TH_SIZE = 4

# governor state: slot 15 per policy int64[nd, GOV_POL_WIDTH], slot 16 per policy CPU
# int64[nd, max CPUs per domain, GOV_CPU_WIDTH] (column layouts in ``governors``)
GOV_POL_WIDTH = 4
GOV_CPU_WIDTH = 6

# scratch rows: state slot 13 [row, cpu]
SC_UTIL = 0
SC_UE = 1
SC_CAP_ORIG = 2
SC_CAP_OF = 3
SC_IDLE = SC_IDLE_ROW     # the idle mask, kept up to date (sim_index.idle_changed), not scratch
SC_WORK = 5
SC_ENERGY = 6
SC_RESULT = 7
SC_PD_UTIL = 8
SC_PD_UE = 9
SC_PD_RT = 10
SC_PD_UC = 11             # two rows: the policy CPUs' (uclamp_min, uclamp_max) pairs, [m, 2] row-major
SC_EXTRA = 13             # eas.X_SIZE rows: eas.feec's ``extra`` [X_SIZE, width]
SC_ROWS = 13 + 13

# state slot 14: per-CPU idle statistics
AI_AVG_IDLE = 0
AI_IDLE_STAMP = 1
AI_NR_SCAN = 2
AI_WAKE_AVG_IDLE = 3      # rq->wake_avg_idle (v5.14+)
AI_WAKE_STAMP = 4         # rq->wake_stamp, in jiffies (ticks)
AI_SCAN_COST = 5          # avg_scan_cost of this CPU's sd_llc (each CPU has its own sched_domain)
AI_WIDTH = 6


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
def thermal_row(d, S, P):
    """The thermal cap schedule's row in force for perf domain ``d`` now (-1: no cap)."""
    n = P[P_THERMAL_N]
    if n == 0:
        return -1
    now = S[S[S_GLOBALS] + G_NOW]
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
    oG = S[S_GLOBALS]
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
        if S[S[S_CONFIG] + K_MODEL_EVENTS]:
            emit(O, now, EV_OVERUTIL, -1, ou, 0, 0, 0, 0)


@sim_kernel
def allowed_row(p, S, P):
    """Offset of task ``p``'s row of the affinity masks (static slot 12; P[P_MASKS_W] CPUs wide)."""
    return P[P_MASKS] + S[S[S_TASKS] + (p) * T_NFIELDS + T_MASK] * P[P_MASKS_W]


@sim_kernel
def update_idle_cpu_scan(S, P):
    """SIS_UTIL producer, run at each load-balance pass: ``nr_idle_scan`` per LLC from its sum of util."""
    n = P[P_CPU_PD_N]
    ollc = P[P_LLC_ID]
    osum = S[S_SCRATCH] + SC_UTIL * S[S_SCRATCH_W]       # scratch rows (state slot 13): sum of cpu_util and weight per LLC id
    ow = S[S_SCRATCH] + SC_UE * S[S_SCRATCH_W]
    for c in range(n):
        S[osum + P[ollc + c]] = 0
        S[ow + P[ollc + c]] = 0
    for j in range(n):
        S[osum + P[ollc + j]] += cpu_util(j, S, P)
        S[ow + P[ollc + j]] += 1
    for c in range(n):
        S[S[S_IDLE_STATS] + c * S[S_IDLE_STATS_W] + AI_NR_SCAN] = sis_util_nr_idle_scan(S[osum + P[ollc + c]], S[ow + P[ollc + c]],
                                                                  P[P[P_MODEL_PARAMS] + M_IMBALANCE_PCT])


@sim_helper
def wake_cap(p, this, prev, S, P):
    """``wake_cap(p, cpu, prev_cpu)`` (v4.10 - v5.6 on an asymmetric platform, ``M_WAKE_CAP``): the
    capacities differ by 1/8 or more and the task does not fit ``min(capacity_orig(prev),
    capacity_orig(cpu))`` (20 % margin) with ``task_util_est(p)`` (``task_fits_capacity``, v4.20+;
    the v4.19 tree read: ``task_util(p)``, the util_avg, up to the RFC-era kernels)."""
    if not P[P[P_MODEL_PARAMS] + M_WAKE_CAP]:
        return False
    min_cap = P[P[P_CPU_CAP] + prev]
    if P[P[P_CPU_CAP] + this] < min_cap:
        min_cap = P[P[P_CPU_CAP] + this]
    max_cap = P[P[P_MODEL_PARAMS] + M_MAX_CAP]
    u = task_util_for_placement(p, S)
    if P[P[P_MODEL_PARAMS] + M_WAKE_CAP_UTIL_AVG]:
        u = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_UTIL_AVG]
    return max_cap - min_cap >= (max_cap >> 3) and u * 1280 >= min_cap * 1024


@sim_nrt
def wake_slow_path(p, prev, this, S, P):
    """``select_task_rq_fair()``'s slow path at a wake-up (ledger wake_cap-v4.16): with
    SD_BALANCE_WAKE on the SD_ASYM_CPUCAPACITY domain and every domain below it, a wake-up without
    ``want_affine`` (``wake_cap()`` true, or ``this`` outside the task's affinity) walks to the top
    domain of ``this`` and calls ``find_idlest_cpu(sd, p, this, prev, SD_BALANCE_WAKE)``, the one
    ``fork.find_idlest_cpu`` (v4.x or v5.5 form, ``M_WAKE_CAP``). Gathered per CPU: ``capacity_of``,
    ``rq->nr_running`` (CFS + RT), the cfs_rq's runnable_load_avg, load_avg, and
    ``cpu_util_wake`` / ``cpu_util_without`` (the task's util_avg off prev, then util_est.enqueued,
    clamped to capacity_orig); an idle CPU's exit latency ranked by its idle state's index (the
    platform lists states shallow to deep); ``rq->idle_stamp`` is not kept: idle CPUs tie, the
    lowest-numbered wins. Counted in ``G_WAKE_CAP``."""
    mp = P[P_MODEL_PARAMS]
    n = P[P_CPU_PD_N]
    W = S[S_SCRATCH_W]
    ou = S[S_SCRATCH] + SC_UTIL * W        # scratch rows (state slot 13)
    ol = S[S_SCRATCH] + SC_UE * W
    oc = S[S_SCRATCH] + SC_CAP_OF * W
    orl = S[S_SCRATCH] + SC_WORK * W
    onr = S[S_SCRATCH] + SC_ENERGY * W
    ost = S[S_SCRATCH] + SC_PD_UTIL * W
    osp = S[S_SCRATCH] + SC_PD_UE * W
    oCP = S[S_CPUS]
    tu = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_UTIL_AVG]
    tl = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_LOAD_AVG]
    for c in range(n):
        oc_ = S[S_CFS_PELT] + c * S[S_CFS_PELT_W]
        if c == prev:
            u = S[oc_ + SA_UTIL_AVG]
            u -= tu if tu < u else u
            e = S[oCP + c * C_NFIELDS + C_UE_SUM]
            if e > u:
                u = e
            cap = P[P[P_CPU_CAP] + c]
            S[ou + c] = u if u < cap else cap
        else:
            S[ou + c] = cpu_util(c, S, P)
        S[ol + c] = S[oc_ + SA_LOAD_AVG]
        S[orl + c] = S[oc_ + SA_RUNNABLE_AVG]
        S[oc + c] = capacity_of(c, S, P)
        nr = S[oCP + c * C_NFIELDS + C_NR_CFS] + S[oCP + c * C_NFIELDS + C_NR_RT]
        S[onr + c] = nr
        if S[oCP + c * C_NFIELDS + C_CURR] < 0 and nr == 0:
            st = S[oCP + c * C_NFIELDS + C_IDLE_STATE]
            S[ost + c] = st if st >= 0 else STATE_NONE
            S[osp + c] = 1
        else:
            S[ost + c] = STATE_BUSY
            S[osp + c] = 0
    S[S[S_GLOBALS] + G_WAKE_CAP] += 1
    om = allowed_row(p, S, P)
    form = FORM_V5_5 if P[mp + M_WAKE_CAP] == WAKE_SLOW_V5_5 else FORM_V4_14
    return find_idlest_cpu(form, 1, this, prev, S[oc:oc + n], P[P[P_LLC_ID]:P[P_LLC_ID] + n], S[onr:onr + n],
                           S[orl:orl + n], S[ol:ol + n], S[ou:ou + n], S[ost:ost + n], S[osp:osp + n],
                           P[om:om + n], tu, task_util_for_placement(p, S), tl, P[mp + M_IMBALANCE_PCT], 1)


@sim_kernel
def affine_target(p, prev, this, sync, S, P):
    """``select_task_rq_fair()``'s target for a wake-up done on CPU ``this`` (``!= prev``) with
    ``want_affine``: ``wake_affine.wake_affine`` of the era (ledger rows wakeup-*), for the lowest
    domain spanning both CPUs (the LLC's ``imbalance_pct`` when they share it, else 125, the
    ``sd_init`` default of the level above). Loads: the cfs_rq's ``runnable_load_avg`` before
    v5.5, its ``load_avg`` from v5.5; ``task_h_load`` without group scheduling (the tasks'
    ``load_avg``); the waker is ``this``'s current task (0 load when idle)."""
    oCP = S[S_CPUS]
    oTK = S[S_TASKS]
    mp = P[P_MODEL_PARAMS]
    share = P[P[P_LLC_ID] + this] == P[P[P_LLC_ID] + prev]
    this_nr = S[oCP + this * C_NFIELDS + C_NR_CFS] + S[oCP + this * C_NFIELDS + C_NR_RT]
    this_idle = S[oCP + this * C_NFIELDS + C_CURR] < 0 and this_nr == 0
    prev_idle = S[oCP + prev * C_NFIELDS + C_CURR] < 0 and \
        S[oCP + prev * C_NFIELDS + C_NR_CFS] + S[oCP + prev * C_NFIELDS + C_NR_RT] == 0
    sig = SA_LOAD_AVG if P[mp + M_WA_LOAD] else SA_RUNNABLE_AVG
    this_load = S[S[S_CFS_PELT] + this * S[S_CFS_PELT_W] + sig]
    prev_load = S[S[S_CFS_PELT] + prev * S[S_CFS_PELT_W] + sig]
    task_load = S[S[S_TASK_PELT] + p * S[S_TASK_PELT_W] + SA_LOAD_AVG]
    cur = S[oCP + this * C_NFIELDS + C_CURR]
    cur_load = 0
    if cur >= 0 and S[oTK + cur * T_NFIELDS + T_POLICY] != POLICY_FIFO:
        cur_load = S[S[S_TASK_PELT] + cur * S[S_TASK_PELT_W] + SA_LOAD_AVG]
    pct = P[mp + M_IMBALANCE_PCT] if share else 125
    r = wake_affine(P[mp + M_WA_ERA], this_idle, prev_idle, share, sync, this_nr, this_load, prev_load, task_load,
                    cur_load, capacity_of(this, S, P), capacity_of(prev, S, P), pct)
    return this if r == WA_THIS else prev


@sim_nrt
def place_idle_sibling(p, target, prev, this, S, P):
    """``select_idle_sibling(p, prev, target)`` (SIS_UTIL or SIS_PROP depth) on the LLC of ``target``,
    done by CPU ``this`` (the waker's; ``this_rq()``); on an asymmetric-capacity platform from
    v5.7 its ``sched_asym_cpucapacity`` path instead (``sis.select_idle_sibling_asym``:
    ``select_idle_capacity`` over all CPUs, with ``capacity_of``, ``task_util_est(p)`` and the
    task's clamps in the era's fit, ledger rows sis-v5.7 / sis-v6.2 / sis-v6.3).

    SIS_PROP per era (``M_SIS_PROP_ERA``): the depth from ``this``'s ``avg_idle / 512`` (before
    v5.14) or its ``wake_avg_idle`` aged per jiffy (v5.14+), and ``this``'s ``avg_scan_cost``; a
    scan that did not run out of depth then charges its time (``sis_scan_cost_ns`` per runqueue
    examined) to ``wake_avg_idle`` (v5.14+) and ``avg_scan_cost`` (``update_avg``).
    ``p->recent_used_cpu`` per era (``M_RECENT_ERA``): passed as the recent candidate from
    v4.16, set to prev when it wins (v4.16 - v5.14) or whenever the target and prev checks
    fail (v5.15+). A wake-up that ``wake_cap()`` (v4.10 - v5.6) took off the fast path reaches
    here only without SD_BALANCE_WAKE (``M_WAKE_CAP`` 1: counted in ``G_WAKE_CAP``); with it the
    caller takes ``wake_slow_path``.

    Compiled with reference counting (``select_idle_sibling`` allocates its scratch mask; numba
    would otherwise compile it with the caller's ``_nrt=False``)."""
    oidle = S[S_SCRATCH] + SC_IDLE * S[S_SCRATCH_W]       # scratch rows (state slot 13)
    ores = S[S_SCRATCH] + SC_RESULT * S[S_SCRATCH_W]
    mp = P[P_MODEL_PARAMS]
    n = P[P_CPU_PD_N]
    # the idle mask (scratch row SC_IDLE) is kept up to date by sim_index.idle_changed
    asym = P[mp + M_ASYM_MODE]
    if P[mp + M_WAKE_CAP] == WAKE_CAP_FAST and wake_cap(p, this, prev, S, P):
        # no SD_BALANCE_WAKE (M_WAKE_CAP 1): wake_cap() only cleared want_affine; counted
        S[S[S_GLOBALS] + G_WAKE_CAP] += 1
    rera = P[mp + M_RECENT_ERA]
    ort = S[S_TASKS] + p * T_NFIELDS + T_RECENT
    recent = S[ort] if rera > 0 else -1
    if asym >= 0:
        ocap = S[S_SCRATCH] + SC_CAP_OF * S[S_SCRATCH_W]
        oth = S[S_SCRATCH] + SC_UTIL * S[S_SCRATCH_W]     # scratch row reused: the thermal pressure
        otha = oth
        if P[mp + M_THERMAL_AVG]:
            otha = S[S_SCRATCH] + SC_UE * S[S_SCRATCH_W]  # scratch row reused: thermal_load_avg
        for c in range(n):
            S[ocap + c] = capacity_of(c, S, P)
            S[oth + c] = thermal_pressure(c, S, P)
            if otha != oth:
                S[otha + c] = thermal_avg(c, S, P)
        uc = P[mp + M_UCLAMP] != 0
        om = allowed_row(p, S, P)
        # the task's clamps (0, 1024 without uclamp), the thermal pressure of util_fits_cpu and
        # thermal_load_avg for v6.2's capacity inversion and v6.3's ranking (v6.10+: both the
        # cpufreq pressure of get_actual_cpu_capacity)
        cpu = select_idle_sibling_asym(asym, S[oidle:oidle + n], P[om:om + P[P_MASKS_W]], S[ocap:ocap + n],
                                       P[P[P_CPU_CAP]:P[P_CPU_CAP] + n], S[oth:oth + n], S[otha:otha + n],
                                       P[P[P_CPU_PD]:P[P_CPU_PD] + n], task_util_for_placement(p, S),
                                       task_uclamp(p, 0, S, P) if uc else 0, task_uclamp(p, 1, S, P) if uc else 1024,
                                       target, prev, recent,
                                       P[P[P_LLC_ID]:P[P_LLC_ID] + P[P_LLC_ID_N]], S[ores:ores + 2])
        # the v5.7 - v5.9 asym path returns before the recent_used_cpu block; v5.10+ reaches it
        # after the target and prev checks (ledger wakeup-v5.15 / wakeup-v4.16)
        if rera == 2 and asym != ASYM_V5_7 and S[ores] != PATH_TARGET and S[ores] != PATH_PREV:
            S[ort] = prev
        elif rera == 1 and S[ores] == PATH_RECENT:
            S[ort] = prev
        return cpu
    util_mode = S[S[S_CONFIG] + K_SIS] == SIS_UTIL
    pera = P[mp + M_SIS_PROP_ERA]
    oi = S[S_IDLE_STATS] + this * S[S_IDLE_STATS_W]      # this_rq() and this CPU's sd_llc
    if util_mode:
        nr = S[S[S_IDLE_STATS] + (target) * S[S_IDLE_STATS_W] + AI_NR_SCAN]
    else:
        w = 0
        for j in range(n):
            if P[P[P_LLC_ID] + j] == P[P[P_LLC_ID] + target]:
                w += 1
        if pera >= 2:       # v5.14+: wake_avg_idle aged per jiffy (ledger sis-v5.14)
            jiffies = S[S[S_GLOBALS] + G_NOW] // S[S[S_CONFIG] + K_TICK_NS]
            wai, stamp = wake_avg_idle_age(S[oi + AI_WAKE_AVG_IDLE], S[oi + AI_WAKE_STAMP], jiffies)
            S[oi + AI_WAKE_AVG_IDLE] = wai
            S[oi + AI_WAKE_STAMP] = stamp
            nr = sis_prop_nr(wai, S[oi + AI_SCAN_COST], w, 1)
        else:               # avg_idle / 512
            nr = sis_prop_nr(S[oi + AI_AVG_IDLE], S[oi + AI_SCAN_COST], w, 0)
    om = allowed_row(p, S, P)
    cpu = select_idle_sibling(P[mp + M_SIS_MODE], util_mode, S[oidle:oidle + n], P[om:om + P[P_MASKS_W]], target,
                              prev, recent, False, nr, P[P[P_LLC_ID]:P[P_LLC_ID] + P[P_LLC_ID_N]],
                              P[P[P_CORE_ID]:P[P_CORE_ID] + P[P_CORE_ID_N]], False, S[ores:ores + 3])
    path = S[ores]
    if rera == 2 and path != PATH_TARGET and path != PATH_PREV:
        S[ort] = prev
    elif rera == 1 and path == PATH_RECENT:
        S[ort] = prev
    if not util_mode and path != PATH_TARGET and path != PATH_PREV and path != PATH_RECENT and S[ores + 2] == 0:
        # select_idle_cpu() ran to its end: its time is accounted (not after ``return -1``)
        t = P[mp + M_SIS_SCAN_COST] * S[ores + 1]
        if pera >= 2:
            S[oi + AI_WAKE_AVG_IDLE] -= t if t < S[oi + AI_WAKE_AVG_IDLE] else S[oi + AI_WAKE_AVG_IDLE]
        S[oi + AI_SCAN_COST] = update_avg(S[oi + AI_SCAN_COST], t, True)
    return cpu


@sim_kernel
def apply_opp(d, opp, now, S, P, O):
    """A frequency change takes effect in perf domain ``d`` (all its CPUs synced first)."""
    oPD = S[S_DOMAINS]
    m = P[P[P_PD_NCPU] + d]
    for j in range(m):
        sync_cpu(P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j], now, S, P)
    if S[S[S_CONFIG] + K_GOV] == GOV_INTERACTIVE:
        # CPUFREQ_PRECHANGE notifier: account the busy time so far at the old frequency
        old = P[P[P_PD_FREQ] + (d) * P[P_PD_FREQ_W] + S[oPD + (d) * P_NFIELDS + P_OPP]]
        w = S[S_GOV_CPU_W2]                  # legacy-governor per-CPU state (slot 16) of domain d, CPU j
        o = S[S_GOV_CPU] + d * S[S_GOV_CPU_W] * w
        for j in range(m):
            interactive_account(S[S[S_CPUS] + (P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j]) * C_NFIELDS + C_BUSY_NS], old,
                                S[o + j * w:o + (j + 1) * w])
    S[oPD + (d) * P_NFIELDS + P_OPP] = opp
    f = P[P[P_PD_FREQ] + (d) * P[P_PD_FREQ_W] + opp]
    for j in range(m):
        c = P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j]
        emit(O, now, EV_FREQ, c, f, 0, 0, 0, 0)
        if S[S[S_CPUS] + (c) * C_NFIELDS + C_CURR] >= 0:
            refresh_next_event(c, now, S, P)


@sim_kernel
def request_opp(d, opp, now, S, P, O):
    """The governor asks for ``opp``; it takes effect after the transition latency."""
    oPD = S[S_DOMAINS]
    if P[P_THERMAL_N] > 0:
        top = thermal_max_opp(d, S, P)     # the driver clamps every request to policy->max
        if opp > top:
            opp = top
    S[oPD + (d) * P_NFIELDS + P_REQ_OPP] = opp
    if opp == S[oPD + (d) * P_NFIELDS + P_OPP] and S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] < 0:
        return
    if S[S[S_CONFIG] + K_TRANS_LAT_NS] <= 0:
        S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] = -1
        S[oPD + (d) * P_NFIELDS + P_PENDING_AT] = INF_TIME
        if opp != S[oPD + (d) * P_NFIELDS + P_OPP]:
            apply_opp(d, opp, now, S, P, O)
        return
    if S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] < 0:
        S[oPD + (d) * P_NFIELDS + P_PENDING_AT] = now + S[S[S_CONFIG] + K_TRANS_LAT_NS]
    S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] = opp


@sim_helper
def opp_of_freq(d, f, P):
    for k in range(P[P[P_PD_NOPP] + d]):
        if P[P[P_PD_FREQ] + (d) * P[P_PD_FREQ_W] + k] >= f:
            return k
    return P[P[P_PD_NOPP] + d] - 1


@sim_kernel
def governor_update(c, now, S, P, O):
    """``cpufreq_update_util(rq)`` from CPU ``c`` (schedutil, schedfreq; the others are timer driven)."""
    oK = S[S_CONFIG]
    gov = S[oK + K_GOV]
    if gov == GOV_SCHEDFREQ:
        schedfreq_update(c, now, S, P, O)
        return
    if gov == GOV_ONDEMAND:
        d = P[P[P_CPU_PD] + c]
        if S[S[S_GOV_POLICY] + d * S[S_GOV_POLICY_W] + OD_DEFERRED]:
            ondemand_resume(d, now, S, P, O)
        return
    if gov != GOV_SCHEDUTIL:
        return
    d = P[P[P_CPU_PD] + c]
    m = P[P[P_PD_NCPU] + d]
    j_self = 0
    for j in range(m):
        if P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j] == c:
            j_self = j
    ops = S[S_SU_POLICY] + d * S[S_SU_POLICY_W]              # this policy's row of the schedutil policy state (slot 12)
    if not (S[ops + PS_NEED_FREQ_UPDATE] or now - S[ops + PS_LAST_FREQ_UPDATE] >= S[oK + K_RATE_LIMIT_NS]):
        # sugov_update's rate-limited return (no iowait, not from idle): it only stamps the
        # CPU's last update; taken here before gathering the utilizations (same result)
        S[S[S_SU_CPU] + (d * S[S_SU_CPU_W] + j_self) * S[S_SU_CPU_W2] + CS_LAST_UPDATE] = now
        S[S[S_DOMAINS] + (d) * P_NFIELDS + P_LAST_UPDATE] = now
        opp = opp_of_freq(d, S[ops + PS_NEXT_FREQ], P)
        o = S[S_DOMAINS] + d * P_NFIELDS
        # the same request again (the common case): request_opp would change nothing, as
        # the request is already pending or already in effect; skip the call (not under a
        # thermal cap schedule: request_opp clamps each request to the cap in force now)
        if P[P_THERMAL_N] == 0 and opp == S[o + P_REQ_OPP] \
                and (S[o + P_PENDING_OPP] == opp or (S[o + P_PENDING_OPP] < 0 and opp == S[o + P_OPP])):
            return
        request_opp(d, opp, now, S, P, O)
        return
    f = sugov_update_flat(c, d, m, j_self, now, S, P)
    S[S[S_DOMAINS] + (d) * P_NFIELDS + P_LAST_UPDATE] = now
    opp = opp_of_freq(d, f, P)
    o = S[S_DOMAINS] + d * P_NFIELDS
    # past the rate limit, sugov_update mostly returns the same next_freq (the policy's
    # last_freq_update_time moves only when next_freq does): the same skip as above, but not
    # under a thermal cap schedule, where request_opp clamps the request to the cap now in force
    if P[P_THERMAL_N] == 0 and opp == S[o + P_REQ_OPP] \
            and (S[o + P_PENDING_OPP] == opp or (S[o + P_PENDING_OPP] < 0 and opp == S[o + P_OPP])):
        return
    request_opp(d, opp, now, S, P, O)


@sim_helper
def pd_cpu_util(cj, boost, uc, S, P):
    """The (util_avg, util_est, util_rt) triple ``schedutil.sugov_update`` gets for CPU ``cj``:
    the root cfs_rq's util_avg and ``util_est.enqueued`` as they are (``cpu_util_cfs()`` takes
    their max; the ramp boost reads them alone) and the RT utilization that
    ``effective_cpu_util()`` adds after that max (``max(cfs, util_est) + rt``, kernel order, in
    ``schedutil.cpu_util_cfs_rt``). With an rt task runnable the kernel asks for the CPU's
    capacity (``rt_rq_is_runnable()``: return max up to v6.7, the floor ``*min = max`` from
    v6.8, no uclamp): the RT term is then the capacity, which saturates the sum in every era."""
    cap = P[P[P_CPU_CAP] + cj]
    ua = S[S[S_CFS_PELT] + (cj) * S[S_CFS_PELT_W] + SA_UTIL_AVG]
    if boost:
        # v6.5+ cpu_util_cfs_boost(): util_avg raised to the cfs_rq's runnable_avg (ledger schedutil-v6.5)
        r = S[S[S_CFS_PELT] + (cj) * S[S_CFS_PELT_W] + SA_RUNNABLE_AVG]
        if r > ua:
            ua = r
    ue = S[S[S_CPUS] + (cj) * C_NFIELDS + C_UE_SUM]
    if S[S[S_CPUS] + (cj) * C_NFIELDS + C_NR_RT] > 0 and not uc:
        return ua, ue, cap
    return ua, ue, S[S[S_RT_PELT] + (cj) * S[S_RT_PELT_W] + SA_UTIL_AVG]


@sim_inline
def sugov_update_flat(c, d, m, j_self, now, S, P):
    """``schedutil.sugov_update`` (no iowait, ``went_idle`` False: the simulator sets the flag
    when the CPU idles) from CPU ``c`` (``j_self`` in its domain ``d`` of ``m`` CPUs): the
    domain's rows of the per-CPU state (slot 9) and its policy state (slot 12) are passed in
    place, each CPU's CFS ``util_avg`` / ``util_est`` and RT utilization (``pd_cpu_util``)
    gathered into the scratch rows ``SC_PD_UTIL`` / ``SC_PD_UE`` / ``SC_PD_RT``, the OPP
    frequencies, EM costs and inefficiency flags (static slots 3, 16, 21) as views. The
    frequency is resolved with RELATION_LE over the flags (all zero before v5.16 or without
    an EM, which is RELATION_L exactly), the v6.9 limits check and the v5.11 cached-frequency
    restore as the era's model parameters say. Returns the policy's next_freq."""
    oK = S[S_CONFIG]
    wcs = S[S_SU_CPU_W2]
    ocs = S[S_SU_CPU] + d * S[S_SU_CPU_W] * wcs
    ops = S[S_SU_POLICY] + d * S[S_SU_POLICY_W]
    osu = S[S_SCRATCH] + SC_PD_UTIL * S[S_SCRATCH_W]
    ose = S[S_SCRATCH] + SC_PD_UE * S[S_SCRATCH_W]
    osr = S[S_SCRATCH] + SC_PD_RT * S[S_SCRATCH_W]
    ouc = S[S_SCRATCH] + SC_PD_UC * S[S_SCRATCH_W]
    uc = P[P[P_MODEL_PARAMS] + M_UCLAMP] != 0
    boost = P[P[P_MODEL_PARAMS] + M_RUNNABLE_BOOST] != 0
    for j in range(m):
        cj = P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j]
        ua, ue, ur = pd_cpu_util(cj, boost, uc, S, P)
        S[osu + j] = ua
        S[ose + j] = ue
        S[osr + j] = ur
        if uc:
            S[ouc + 2 * j] = rq_uclamp(cj, 0, S, P)
            S[ouc + 2 * j + 1] = rq_uclamp(cj, 1, S, P)
    nopp = P[P[P_PD_NOPP] + d]
    of = P[P_PD_FREQ] + d * P[P_PD_FREQ_W]
    oc = P[P_PD_COST] + d * P[P_PD_COST_W]
    oi = P[P_PD_INEFF] + d * P[P_PD_INEFF_W]
    fmax = P[of + nopp - 1]
    mp = P[P_MODEL_PARAMS]
    # policy->max: the top OPP, or the thermal cap's (cpufreq_cooling) while one is in force
    pmax = fmax if P[P_THERMAL_N] == 0 else P[of + thermal_max_opp(d, S, P)]
    if uc:
        return sugov_update(view2d(S, ocs, m, wcs), S[ops:ops + S[S_SU_POLICY_W]], j_self, now, False,
                            False, S[osu:osu + m], S[ose:ose + m], P[P[P_CPU_CAP] + c], fmax, P[of:of + nopp], P[of],
                            pmax, P[mp + M_SU_ERA], S[oK + K_RATE_LIMIT_NS], S[oK + K_TICK_NS], False,
                            S[oK + K_RAMP_BOOST] != 0, P[oc:oc + nopp], P[oi:oi + nopp], P[mp + M_SU_LIMITS_CHECK] != 0,
                            P[mp + M_SU_RESTORE_CACHED] != 0, S[osr:osr + m], view2d(S, ouc, m, 2))
    return sugov_update(view2d(S, ocs, m, wcs), S[ops:ops + S[S_SU_POLICY_W]], j_self, now, False, False,
                        S[osu:osu + m], S[ose:ose + m], P[P[P_CPU_CAP] + c], fmax, P[of:of + nopp], P[of], pmax,
                        P[mp + M_SU_ERA], S[oK + K_RATE_LIMIT_NS], S[oK + K_TICK_NS], False,
                        S[oK + K_RAMP_BOOST] != 0, P[oc:oc + nopp], P[oi:oi + nopp], P[mp + M_SU_LIMITS_CHECK] != 0,
                        P[mp + M_SU_RESTORE_CACHED] != 0, S[osr:osr + m])


@sim_kernel
def schedfreq_update(c, now, S, P, O):
    """schedfreq at a scheduler update of CPU ``c``: its CFS request (``cpu_util`` normalised to
    the CPU's own capacity as ``update_capacity_of`` does) and its RT request as the 2016 series
    set it (``sched_rt_update_capacity_req()``: the ``rt_avg`` average, refreshed at each tick of
    an RT task (:func:`schedfreq_rt_tick`) and when the CPU finds no RT task left to pick; kept
    in between), then the policy's throttled request."""
    d = P[P[P_CPU_PD] + c]
    m = P[P[P_PD_NCPU] + d]
    j_self = 0
    for j in range(m):
        if P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j] == c:
            j_self = j
    o = S[S_GOV_POLICY] + d * S[S_GOV_POLICY_W]
    pol = S[o:o + S[S_GOV_POLICY_W]]                        # the domain's legacy-governor policy state (slot 15)
    nopp = P[P[P_PD_NOPP] + d]
    of = P[P_PD_FREQ] + d * P[P_PD_FREQ_W]
    freqs = P[of:of + nopp]                     # its OPP frequencies (static slot 3)
    throttle = P[P[P_MODEL_PARAMS] + M_SF_THROTTLE_NS]
    if schedfreq_pending(now, throttle, pol) >= 0:
        request_opp(d, opp_of_freq(d, pol[SF_CUR], P), now, S, P, O)
    cap = P[P[P_CPU_CAP] + c]
    cfs = cpu_util(c, S, P) * 1024 // cap
    w = S[S_GOV_CPU_W2]
    o = S[S_GOV_CPU] + d * S[S_GOV_CPU_W] * w
    row = S[o + j_self * w:o + (j_self + 1) * w]
    if S[S[S_CPUS] + (c) * C_NFIELDS + C_NR_RT] > 0:
        row[SF_RT_SEEN] = 1
    elif row[SF_RT_SEEN]:
        # pick_next_task_rt() finding no RT task left: sched_rt_update_capacity_req()
        row[SF_RT_SEEN] = 0
        sched_rt_capacity_req(now, P[P[P_MODEL_PARAMS] + M_SF_AVG_PERIOD_NS], row)
    rt = row[SF_RT_REQ]
    f = schedfreq_request(now, j_self, cfs, rt, 0, freqs, P[P[P_MODEL_PARAMS] + M_SF_MARGIN], throttle,
                          view2d(S, o, m, w), pol)
    if f >= 0:
        request_opp(d, opp_of_freq(d, f, P), now, S, P, O)
    # a request latched by the throttle is applied when it expires (the frequency thread)
    S[S[S_DOMAINS] + (d) * P_NFIELDS + P_NEXT_SAMPLE] = pol[SF_THROTTLE_END] if pol[SF_REQUESTED] != pol[SF_CUR] else INF_TIME


@sim_kernel
def schedfreq_rt_tick(c, now, S, P):
    """``task_tick_rt()`` of the 2016 schedfreq series: ``sched_rt_update_capacity_req()`` while an
    RT task is runnable on CPU ``c`` (its run time already charged by ``update_curr``)."""
    d = P[P[P_CPU_PD] + c]
    j = 0
    for k in range(P[P[P_PD_NCPU] + d]):
        if P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + k] == c:
            j = k
    w = S[S_GOV_CPU_W2]
    o = S[S_GOV_CPU] + (d * S[S_GOV_CPU_W] + j) * w
    row = S[o:o + w]
    row[SF_RT_SEEN] = 1
    sched_rt_capacity_req(now, P[P[P_MODEL_PARAMS] + M_SF_AVG_PERIOD_NS], row)


@sim_helper
def od_sample_wait(d, S, P):
    """Why ondemand's sample for perf domain ``d`` cannot run now: 0 it can; 2 its work item (a
    SCHED_NORMAL kworker on the CPU whose deferrable timer fired: ``dbs_timer_handler`` ->
    ``queue_work(system_wq)``, v4.5; ``dbs_irq_work`` -> ``schedule_work_on(smp_processor_id())``,
    v4.6+) waits because an RT task runs on some CPU of the policy and no CFS task runs on any
    (``M_OD_RT_STARVES``; the simulator's approximation: any CFS-busy CPU of the policy runs the
    work); 1 every CPU of the policy is idle and the timer waits for one to wake
    (``M_OD_IDLE_DEFERS``, tunable ``idle_defers_sample``, off by default: a deferrable timer does
    not wake an idle CPU; from v4.6 the samples come from the scheduler's update hooks)."""
    rt = False
    for j in range(P[P[P_PD_NCPU] + d]):
        p = S[S[S_CPUS] + (P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j]) * C_NFIELDS + C_CURR]
        if p >= 0:
            if S[S[S_TASKS] + (p) * T_NFIELDS + T_POLICY] == POLICY_FIFO:
                rt = True
            else:
                return 0
    if rt:
        return 2 if P[P[P_MODEL_PARAMS] + M_OD_RT_STARVES] else 0
    return 1 if P[P[P_MODEL_PARAMS] + M_OD_IDLE_DEFERS] else 0


@sim_kernel
def ondemand_resume(d, now, S, P, O):
    """A held ondemand sample after a scheduler event on perf domain ``d``: a timer held by an idle
    policy fires once a CPU is awake (its work may then wait for an RT task); a queued work
    item runs once no RT task holds the CPUs, whether or not a CPU is still busy."""
    o = S[S_GOV_POLICY] + d * S[S_GOV_POLICY_W] + OD_DEFERRED
    held = S[o]
    w = od_sample_wait(d, S, P)
    if held == 1 and w == 1:
        return
    if w == 2:
        S[o] = 2
        return
    S[o] = 0
    ondemand_sample(d, now, S, P, O)


@sim_kernel
def ondemand_sample(d, now, S, P, O):
    """ondemand's work item for perf domain ``d`` (``dbs_work_handler`` -> ``od_dbs_update``): the
    policy's CPUs synced, one ``governors.ondemand_step``, the request, the next sample armed."""
    oPD = S[S_DOMAINS]
    m = P[P[P_PD_NCPU] + d]
    o = S[S_GOV_POLICY] + d * S[S_GOV_POLICY_W]
    pol = S[o:o + S[S_GOV_POLICY_W]]
    nopp = P[P[P_PD_NOPP] + d]
    of = P[P_PD_FREQ] + d * P[P_PD_FREQ_W]
    freqs = P[of:of + nopp]
    for j in range(m):
        sync_cpu(P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j], now, S, P)
    w = S[S_GOV_CPU_W2]
    oc = S[S_GOV_CPU] + d * S[S_GOV_CPU_W] * w
    cst = view2d(S, oc, m, w)
    mp = P[P[P_MODEL_PARAMS]:P[P_MODEL_PARAMS] + P[P_MODEL_PARAMS_N]]                 # model parameters (static slot 19)
    os_ = S[S_SCRATCH] + SC_PD_UTIL * S[S_SCRATCH_W]
    idle = S[os_:os_ + m]
    for j in range(m):
        idle[j] = (now - S[S[S_CPUS] + (P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j]) * C_NFIELDS + C_BUSY_NS]) // 1000
    pol[OD_CUR] = freqs[S[oPD + (d) * P_NFIELDS + P_OPP]]      # policy->cur
    # RELATION_CE over the EM's inefficiency flags (static slot 21; all zero before v5.16 or
    # without an EM, which is RELATION_C exactly)
    oi = P[P_PD_INEFF] + d * P[P_PD_INEFF_W]
    f = ondemand_step(now, idle, freqs, mp[M_OD_SAMPLING_US], mp[M_OD_UP_THRESHOLD], mp[M_OD_DOWN_FACTOR],
                      cst, pol, P[oi:oi + nopp])
    request_opp(d, opp_of_freq(d, f, P), now, S, P, O)
    S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = now + mp[M_OD_SAMPLING_US] * pol[OD_RATE_MULT] * 1000


@sim_kernel
def governor_sample(d, now, S, P, O):
    """Governor timer of perf domain ``d``: ondemand's sample, interactive's timer (both re-armed),
    or the end of schedfreq's throttle."""
    oK = S[S_CONFIG]
    oPD = S[S_DOMAINS]
    gov = S[oK + K_GOV]
    m = P[P[P_PD_NCPU] + d]
    o = S[S_GOV_POLICY] + d * S[S_GOV_POLICY_W]
    pol = S[o:o + S[S_GOV_POLICY_W]]
    nopp = P[P[P_PD_NOPP] + d]
    of = P[P_PD_FREQ] + d * P[P_PD_FREQ_W]
    freqs = P[of:of + nopp]
    if gov == GOV_SCHEDFREQ:
        S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = INF_TIME
        if schedfreq_pending(now, P[P[P_MODEL_PARAMS] + M_SF_THROTTLE_NS], pol) >= 0:
            request_opp(d, opp_of_freq(d, pol[SF_CUR], P), now, S, P, O)
        return
    if gov == GOV_ONDEMAND:
        w = od_sample_wait(d, S, P)
        if w:
            # held (ondemand_resume runs it): nothing is read before
            pol[OD_DEFERRED] = w
            S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = INF_TIME
            return
        ondemand_sample(d, now, S, P, O)
        return
    for j in range(m):
        sync_cpu(P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j], now, S, P)
    cur = freqs[S[oPD + (d) * P_NFIELDS + P_OPP]]      # policy->cur
    w = S[S_GOV_CPU_W2]
    o = S[S_GOV_CPU] + d * S[S_GOV_CPU_W] * w
    cst = view2d(S, o, m, w)
    mp = P[P[P_MODEL_PARAMS]:P[P_MODEL_PARAMS] + P[P_MODEL_PARAMS_N]]                 # model parameters (static slot 19)
    if gov == GOV_INTERACTIVE:
        pol[IA_CUR] = cur
        for j in range(m):
            interactive_account(S[S[S_CPUS] + (P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j]) * C_NFIELDS + C_BUSY_NS], cur, cst[j])
        hs = mp[M_IA_HISPEED_KHZ] if mp[M_IA_HISPEED_KHZ] > 0 else freqs[nopp - 1]
        f = interactive_step(now, freqs, mp[M_IA_GO_HISPEED], hs, mp[M_IA_TARGET_LOAD], mp[M_IA_MIN_SAMPLE_US],
                             mp[M_IA_ABOVE_HS_DELAY_US], cst, pol)
        request_opp(d, opp_of_freq(d, f, P), now, S, P, O)
        S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = now + S[oK + K_SAMPLE_NS]
    else:
        S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = INF_TIME
