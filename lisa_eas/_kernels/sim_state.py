"""Layout of the simulator's state arrays (column indices), shared by the njit event loop.

The simulator keeps all of its state in a few ``int64`` numpy arrays so that the event
loop is a numba kernel over plain arrays and can be paused (output buffers full) and
resumed. This module only names the columns; the algorithms live in ``sim_sched.py``,
``sim_capacity.py``, ``sim_wakeup.py``, ``sim_governor.py``, ``sim_eas.py``, ``sim_lb.py``,
``sim_rq.py``, ``sim_balance.py`` and ``sim_loop.py``.
Times are integer nanoseconds.
"""
from __future__ import annotations

INF_TIME = 1 << 62

# ---------------------------------------------------------------- program ops (prog[k, 0])
OP_PHASE_BEGIN = 0   # a: phase number; starts one phase iteration (one rt-app log row)
OP_RUN = 1           # a: work in ns at capacity 1024 (stretches with capacity and frequency)
OP_RUNTIME = 2       # a: wall time in ns
OP_SLEEP = 3         # a: ns, relative
OP_TIMER = 4         # a: period ns, b: timer slot, c: 1 if mode is relative
OP_PHASE_END = 5     # a: pc of the phase's OP_PHASE_BEGIN, b: phase loop count (-1 = forever)
OP_TASK_END = 6      # a: pc of the first op, b: task loop count (-1 = forever)
OP_SET_SCHED = 7     # a: policy (POLICY_*), b: rt priority (1..99) or 0
OP_SET_AFFINITY = 8  # a: index of the CPU mask in the masks table
OP_EXIT = 9
OP_START = 10         # a: start delay ns; the thread's first wake-up (sets rt-app's t_first)
OP_SUSPEND = 11      # a: condition index; rt-app ``suspend``: block until a ``resume`` of it
OP_RESUME = 12       # a: condition index; rt-app ``resume``: wake every thread suspended on it
OP_SIZE = 4

POLICY_CFS = 0
POLICY_FIFO = 1

# ---------------------------------------------------------------- task states
TS_NEW = 0        # not started yet (delay)
TS_SLEEPING = 1
TS_RUNNABLE = 2   # queued on a runqueue, not running
TS_RUNNING = 3
TS_EXITED = 4

# ---------------------------------------------------------------- task fields TK[t, :]
T_STATE = 0
T_CPU = 1              # runqueue the task is (or last was) on
T_PC = 2
T_PHASE_ITER = 3
T_TASK_ITER = 4
T_REM = 5              # RUN: remaining work, in ns x 1024 (ns at capacity 1024, times 1024)
T_RT_END = 6           # RUNTIME: absolute end time
T_WAKE_AT = 7          # SLEEPING / NEW: absolute wake-up time
T_VRUNTIME = 8
T_EXEC_START = 9
T_SLICE_START = 10     # sum_exec at the time it was picked (for the tick preemption check)
T_POLICY = 11
T_PRIO = 12            # rt priority 1..99 for FIFO, 0 for CFS
T_MASK = 13            # index of the affinity mask
T_UE_EWMA = 14
T_UE_ENQ = 15
T_ENQ_SEQ = 16         # FIFO order among equal RT priorities
T_SUM_EXEC = 17
T_ACT_START = 18
T_ACT_RUN = 19         # wall time spent in run/runtime events of this activation
T_OP_START = 20        # start of the current run/runtime event
T_ACT_PERF = 21        # work done (ns at capacity 1024)
T_ACT_CDUR = 22
T_ACT_CPERIOD = 23
T_ACT_SLACK = 24
T_ACT_WULAT = 25
T_TIMER_DUE = 26       # deadline the task sleeps on in a timer event (-1: not in a timer)
T_START = 27           # thread start (rt-app t_first)
T_PHASE = 28
T_NR_ACT = 29
T_UE_CPU = 30          # CPU whose cfs_rq util_est.enqueued holds this task's estimate (-1: none)
T_PHASE_ACT = 31       # activation index within the current phase
T_FRESH = 32           # 1: T_PC is an op not begun yet (after a migration or a policy change)
T_RECENT = 33         # p->recent_used_cpu (v4.16+; -1: none)
T_LIST_SEQ = 34       # position in its rq's cfs_tasks list: stamped (G_LIST_SEQ) at enqueue and at pick, so
                       # the list's tail (load_balance's detach scan starts there) is the lowest stamp
T_DEADLINE = 35       # EEVDF (v6.6+): se->deadline, virtual ns
T_VLAG = 36           # EEVDF: se->vlag (V - v at the last dequeue), and set_next_entity's RUN_TO_PARITY
                       # stash of the deadline at pick while the task runs
T_NFIELDS = 37

# ---------------------------------------------------------------- CPU fields CP[c, :]
C_CURR = 0             # running task, -1 = idle
C_NR_CFS = 1           # queued CFS tasks (running one included)
C_NR_RT = 2
C_CLOCK_TASK = 3       # last time the rq clock was updated
C_CLOCK_PELT = 4
C_LOST_IDLE = 5
C_MIN_VRUNTIME = 6
C_IDLE_STATE = 7       # current idle state index, -1 = busy
C_NEXT_TICK = 8
C_LAST_ACCT = 9        # last time residency/energy was accounted
C_UE_SUM = 10          # cfs_rq util_est.enqueued
C_BUSY_NS = 11         # busy time (for sampling governors), cumulative
C_NEED_RESCHED = 12
C_NEXT_EVENT = 13      # cached time of the running task's next op boundary
C_LB_FAILED = 14       # sd->nr_balance_failed of this CPU's MC domain; C_LB_FAILED + 1: its DIE domain
C_NEXT_BAL = 16        # rq->next_balance (jiffies; v4.16 - v4.19 balancer)
C_LB_LAST = 17         # sd->last_balance (jiffies) of the MC domain; C_LB_LAST + 1: DIE
C_LB_INTV = 19         # sd->balance_interval (ms) of the MC domain; C_LB_INTV + 1: DIE (0: not set, sd_weight)
C_REMOVED_UTIL = 21    # cfs_rq->removed.util_avg: util of tasks gone by remove_entity_load_avg (wake-up
                       # migration, exit), taken out at the cfs_rq's next update_cfs_rq_load_avg
C_REMOVED_NR = 22      # cfs_rq->removed.nr
C_NFIELDS = 23

# ---------------------------------------------------------------- perf-domain fields PD[d, :]
P_OPP = 0              # current OPP index
P_LAST_UPDATE = 1      # last governor frequency decision (rate limit)
P_PENDING_OPP = 2      # -1 = no change in flight
P_PENDING_AT = 3       # when the pending change takes effect (transition latency)
P_NEXT_SAMPLE = 4      # next sampling-governor timer
P_REQ_OPP = 5          # last requested OPP
P_NFIELDS = 6

# ---------------------------------------------------------------- globals G[:]
G_NOW = 0
G_T_END = 1
G_OVERUTIL = 2
G_NEXT_LB = 3
G_ENQ_SEQ = 4
G_DONE = 5             # 1 when every task has exited
G_STATUS = 6           # 0 running, 1 paused (buffer full), 2 finished
G_ITER = 7
G_WAKE_DIRTY = 8       # 1: the wake-up heap and the runqueue member lists are to be built from the
                       # task table (set by build_run; the loop keeps them up to date afterwards)
G_ALIVE = 9            # tasks not exited
G_HEAP_N = 10          # sleeping tasks in the wake-up heap (its top is the earliest wake-up)
G_WAKE_CAP = 11        # wake-ups through the find_idlest_cpu() slow path (sim_wakeup.wake_slow_path, v4.16 -
                       # v5.6), or without SD_BALANCE_WAKE the wake_cap() wake-ups kept on the fast path
G_OVERLOAD = 12         # rd->overload (v3.16+): set when a runqueue reaches 2 runnable tasks (add_nr_running), rewritten
                       # by each root-level load balance (update_sd_lb_stats: a CPU with nr_running > 1; v4.20+ also
                       # a misfit task); read by the newidle balance's gate (sim_balance.pull_one)
G_NEWIDLE_SKIP_AVG_IDLE = 13   # newidle balances the gate stopped on avg_idle < sysctl_sched_migration_cost (< v5.16)
G_NEWIDLE_SKIP_OVERLOAD = 14   # ... on !rd->overload
G_LIST_SEQ = 15        # stamps of the cfs_tasks order (T_LIST_SEQ)
G_NEXT_ILB = 16        # nohz.next_balance (jiffies): no nohz idle balance kicked before (v4.16 - v4.19 balancer)
G_WAKE_SYNC = 17       # the PELT time sync_entity_load_avg brought the waking task to in this wake-up (its
                       # cfs_rq's last update; -1: not synced), emitted as EV_TASK_SYNC once the CPU is chosen
G_NFIELDS = 18

# ---------------------------------------------------------------- output events ev[n, :]
E_TIME = 0
E_KIND = 1
E_CPU = 2
E_A = 3
E_B = 4
E_C = 5
E_D = 6
E_E = 7
E_SIZE = 8

EV_SWITCH = 0      # cpu; a: prev task (-1 idle), b: prev_state, c: next task (-1 idle)
EV_WAKEUP = 1      # cpu; a: task, b: target cpu, c: task running on that CPU (-1 idle)
EV_FREQ = 2        # cpu; a: freq kHz
EV_IDLE = 3        # cpu; a: state (-1 = exit)
EV_TASK_UTIL = 4   # cpu; a: task, b: util_avg, c: util_est ewma, d: util_est enqueued, e: load_avg
EV_CPU_UTIL = 5    # cpu; a: util_avg, b: util_est enqueued sum, c: capacity now, d: nr_running
EV_OVERUTIL = 6    # a: 0/1
EV_MIGRATE = 7     # cpu (dest); a: task, b: orig cpu, c: reason (0 wake, 1 balance, 2 misfit)
EV_TASK_SYNC = 8   # cpu (prev); a: task, b: the PELT time of the blocked update (its cfs_rq's last update)

# ---------------------------------------------------------------- activations act[n, :]
A_TASK = 0
A_PHASE = 1
A_PHASE_LOOP = 2
A_START = 3
A_END = 4
A_RUN = 5
A_PERF = 6
A_SLACK = 7
A_CDUR = 8
A_CPERIOD = 9
A_WULAT = 10
A_CPU = 11         # CPU the thread logged from (where it ran at the end of the loop)
A_SIZE = 12

# ---------------------------------------------------------------- EAS decision log eas[n, :]
D_TIME = 0
D_TASK = 1
D_PREV = 2
D_CHOSEN = 3
D_TASK_UTIL = 4
D_HEAD = 5         # then prev / best / base energy (-1: not costed), pd evaluations, cpu_util computations
# the exact inputs ``feec`` was called with:
D_IN_TASK_UTIL = D_HEAD + 5       # task util_avg
D_IN_TASK_UTIL_EST = D_HEAD + 6   # _task_util_est(p)
D_IN_OVERUTIL = D_HEAD + 7        # rd->overutilized
D_IN_CPUS = D_HEAD + 8            # then D_IN_PER_CPU blocks of nr_cpus columns: cfs util_avg,
D_IN_PER_CPU = 4                  # util_est.enqueued, capacity_of, allowed (0/1)

# ---------------------------------------------------------------- counters cnt[:]
N_EV = 0
N_ACT = 1
N_EAS = 2
N_SUMMARY = 3      # 1: summary output (SimConfig(outputs="summary")): no event or EAS rows are written
N_SIZE = 4

PREV_STATE_RUNNING = 0
PREV_STATE_SLEEP = 1
PREV_STATE_DEAD = 16

# ---------------------------------------------------------------- idle-search statistics (state slot SIS_STATS)
# counted from SS_FROM on (the warm-up's end, ns), at each wake-up that called select_idle_sibling()
SS_FROM = 0
SS_SEARCHES = 1        # select_idle_sibling() calls
SS_FAST = 2            # served by target, prev or recent_used_cpu
SS_DOM_SEARCHES = 3    # calls that reached select_idle_cpu() (or the idle-core / SMT search)
SS_DOM_SCANNED = 4     # runqueues examined there
SS_DOM_FOUND = 5       # ... that found an idle CPU
SS_FOUND = 6           # wake-ups given an idle CPU (fast path or scan)
SS_HIST = 7            # then one count per number of runqueues examined (0 .. nr_cpus)

# ---------------------------------------------------------------- run configuration K[:]
K_TICK_NS = 0
K_LATENCY_NS = 1        # sched_latency (scaled by the CPU count factor)
K_MIN_GRAN_NS = 2
K_WAKEUP_GRAN_NS = 3
K_LB_NS = 4             # periodic load-balance interval
K_PLACEMENT = 5         # PLACE_*
K_SIS = 6               # SIS_*
K_GOV = 7               # GOV_*
K_RATE_LIMIT_NS = 8
K_TRANS_LAT_NS = 9
K_MODEL_EVENTS = 10     # 1: emit the model-only util/overutilized events
K_DELTA_SCALING = 11    # 1: <= v5.0 PELT invariance (no clock_pelt)
K_UE_ERA = 12
K_RAMP_BOOST = 13
K_SAMPLE_NS = 14        # sampling period of ondemand / interactive
K_NR_CPUS = 15
K_UTIL_EST = 16         # 1: util_est in use
K_EEVDF = 17           # 1: the v6.6+ EEVDF pick, placement and preemption (ledger cfs-v6.6)
K_SIZE = 18

PLACE_EAS = 0           # find_energy_efficient_cpu, v5.4 (O(n)) form
PLACE_EAS_V50 = 1       # the original v5.0 form
PLACE_NO_EAS = 2

SIS_UTIL = 0
SIS_PROP = 1

GOV_PERFORMANCE = 0
GOV_POWERSAVE = 1
GOV_SCHEDUTIL = 2
GOV_ONDEMAND = 3
GOV_INTERACTIVE = 4
GOV_SCHEDFREQ = 5
