"""The simulator's model layer: how it calls into the kernel decision models (numba), and the
layout constants those calls share (the model-parameter slots ``M_*``, the scratch rows
``SC_*``, the idle-statistics columns ``AI_*``, the thermal cap rows ``TH_*``, the governor state
widths). Each function of the layer gathers the simulated runqueues' state into the arrays the
kernels take and calls them; no decision logic is re-implemented there:

* ``sim_capacity``: ``cpu_util``, ``capacity_of`` under the thermal cap schedule, uclamp values,
  the misfit test and the overutilized flag (``eas.cpu_overutilized`` and its uclamp forms);
* ``sim_wakeup``: wake-up placement of CFS tasks outside EAS (EAS itself: ``eas.feec`` on the
  flat state in ``sim_eas``, while the root domain is not overutilized): ``sis.select_idle_sibling``
  with the SIS_UTIL depth (``sis.sis_util_nr_idle_scan``, refreshed at each load-balance pass as
  ``update_idle_cpu_scan`` is) or the SIS_PROP depth (``sis.sis_prop_nr`` from the waking CPU's
  ``avg_idle / 512`` or, v5.14+, ``wake_avg_idle``, and its ``avg_scan_cost``, fed by the
  modelled scan time), on the target ``wake_affine.wake_affine`` picks for a wake-up done on
  another CPU (``affine_target``), with ``p->recent_used_cpu`` per era, and ``wake_cap()``'s
  slow path ``fork.find_idlest_cpu`` before v5.7;
* ``sim_governor``: frequency: ``schedutil.sugov_update`` (with or without the RFC ramp boost;
  the rt runqueue's utilization is passed apart and added after ``max(util_avg, util_est)`` as
  ``effective_cpu_util`` does; RELATION_LE over the EM's inefficient OPPs from v5.16;
  ``sugov_update_flat`` gathers the inputs and passes the state in place) and
  ``governors.schedfreq_request`` / ``schedfreq_pending`` at each scheduler update
  (``cpufreq_update_util`` points), and the timer-driven ``governors.ondemand_step`` /
  ``interactive_account`` + ``interactive_step`` on each sampling timer, over per-policy governor
  state kept in the state array; performance / powersave pin the top / bottom OPP.
"""
from __future__ import annotations

from .sim_index import SC_IDLE_ROW
from .sim_sched import M_ATTACH_KEEPS_SUM  # noqa: F401 (one slot of the M_* table, read in sim_sched)

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
M_NEWIDLE_GATE = 44       # the newidle balance's early exit (ledger newidle-v4.14, newidle-v5.16): NEWIDLE_*
NEWIDLE_UNGATED = 0       # ablation (SimConfig.ablate "newidle-gate"): no gate (the simulator before it)
NEWIDLE_GATE_V4_14 = 1    # idle_balance(): avg_idle < sysctl_sched_migration_cost || !rd->overload
NEWIDLE_GATE_V5_16 = 2    # newidle_balance() from c5b0a7eefc70: !rd->overload || avg_idle < max_newidle_lb_cost (0 here)
M_OVERLOAD_MISFIT = 45    # 1: a misfit task sets rd->overload at the root-level balance (v4.20+, 757ffdd705ee; asymmetric
                          # capacities only: update_misfit_status needs sched_asym_cpucapacity)
M_OD_LONG_IDLE = 46       # ondemand's long-idle test, governors.OD_LONG_IDLE_* (ledger ondemand-v4.14, ondemand-v4.18)
M_LB_FORM = 47            # the CFS pull of the load balance: LB_SIMPLE, or the v4.16 - v4.19 load_balance() (ledger
                          # lb-v4.16; LB_V4_ASYM: with SD_ASYM_CPUCAPACITY at DIE, the RFC base kernel's flag)
LB_SIMPLE = 0
LB_V4 = 1
LB_V4_ASYM = 2
M_DIE_PCT = 48           # imbalance_pct of the domain above the LLC: 125, 117 from v5.10 (ledger topology-v5.10)
M_MISFIT_MIGRATE = 49    # 1: the balance moves a running misfit task to an idle bigger CPU (v4.20+, ledger lb-v4.20)
M_SIZE = 50

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
