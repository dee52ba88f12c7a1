"""The simulator's frequency governors (numba): applying and requesting an OPP (thermal caps,
transition latency), schedutil at each ``cpufreq_update_util`` point through
``schedutil.sugov_update``, the 2016 schedfreq requests, and the timer-driven ondemand and
interactive samples over the per-policy state (``sim_models.GOV_*`` widths)."""
from __future__ import annotations

from ._jit import sim_helper, sim_inline, sim_kernel
from .governors import (IA_CUR, OD_CUR, OD_DEFERRED, OD_RATE_MULT, SF_CUR, SF_REQUESTED, SF_RT_REQ, SF_RT_SEEN,
                        SF_THROTTLE_END, interactive_account, interactive_step, ondemand_step, sched_rt_capacity_req,
                        schedfreq_pending, schedfreq_request)
from .pelt import SA_RUNNABLE_AVG, SA_UTIL_AVG
from .schedutil import CS_LAST_UPDATE, PS_LAST_FREQ_UPDATE, PS_NEED_FREQ_UPDATE, PS_NEXT_FREQ, sugov_update
from .sim_capacity import cpu_util, rq_uclamp, thermal_max_opp
from .sim_layout import (P_CPU_CAP, P_CPU_PD, P_MODEL_PARAMS, P_MODEL_PARAMS_N, P_PD_COST, P_PD_COST_W, P_PD_CPUS,
                         P_PD_CPUS_W, P_PD_FREQ, P_PD_FREQ_W, P_PD_INEFF, P_PD_INEFF_W, P_PD_NCPU, P_PD_NOPP,
                         P_THERMAL_N, S_CFS_PELT, S_CFS_PELT_W, S_CONFIG_AT, S_CPUS, S_DOMAINS, S_GOV_CPU, S_GOV_CPU_W,
                         S_GOV_CPU_W2, S_GOV_POLICY, S_GOV_POLICY_W, S_RT_PELT, S_RT_PELT_W, S_SCRATCH, S_SCRATCH_W,
                         S_SU_CPU, S_SU_CPU_W, S_SU_CPU_W2, S_SU_POLICY, S_SU_POLICY_W, S_TASKS)
from .sim_models import (M_IA_ABOVE_HS_DELAY_US, M_IA_GO_HISPEED, M_IA_HISPEED_KHZ, M_IA_MIN_SAMPLE_US,
                         M_IA_TARGET_LOAD, M_OD_DOWN_FACTOR, M_OD_IDLE_DEFERS, M_OD_LONG_IDLE, M_OD_RT_STARVES,
                         M_OD_SAMPLING_US, M_OD_UP_THRESHOLD, M_RUNNABLE_BOOST, M_SF_AVG_PERIOD_NS, M_SF_MARGIN,
                         M_SF_THROTTLE_NS, M_SU_ERA, M_SU_LIMITS_CHECK, M_SU_RESTORE_CACHED, M_UCLAMP, SC_PD_RT,
                         SC_PD_UC, SC_PD_UE, SC_PD_UTIL)
from .sim_sched import emit, refresh_next_event, sync_cpu_bookkeeping
from .sim_state import (C_BUSY_NS, C_CURR, C_NFIELDS, C_NR_RT, C_UE_SUM, EV_FREQ, GOV_INTERACTIVE, GOV_ONDEMAND,
                        GOV_SCHEDFREQ, GOV_SCHEDUTIL, INF_TIME, K_GOV, K_RAMP_BOOST, K_RATE_LIMIT_NS, K_SAMPLE_NS,
                        K_TICK_NS, K_TRANS_LAT_NS, POLICY_FIFO, P_LAST_UPDATE, P_NEXT_SAMPLE, P_NFIELDS, P_OPP,
                        P_PENDING_AT, P_PENDING_OPP, P_REQ_OPP, T_NFIELDS, T_POLICY)
from .sim_views import view2d


@sim_helper
def policy_index(c, d, m, P):
    """The index of CPU ``c`` among the ``m`` CPUs of its policy (perf domain) ``d``."""
    j_self = 0
    for j in range(m):
        if P[P[P_PD_CPUS] + d * P[P_PD_CPUS_W] + j] == c:
            j_self = j
    return j_self


@sim_helper
def policy_state(d, S, P):
    """Perf domain ``d``'s legacy-governor policy state (state slot 15, a view) and its OPP
    frequencies (static slot 3)."""
    o = S[S_GOV_POLICY] + d * S[S_GOV_POLICY_W]
    of = P[P_PD_FREQ] + d * P[P_PD_FREQ_W]
    return S[o:o + S[S_GOV_POLICY_W]], P[of:of + P[P[P_PD_NOPP] + d]]


@sim_kernel
def apply_opp(d, opp, now, S, P, O):
    """A frequency change takes effect in perf domain ``d`` (all its CPUs synced first)."""
    oPD = S[S_DOMAINS]
    m = P[P[P_PD_NCPU] + d]
    for j in range(m):
        sync_cpu_bookkeeping(P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j], now, S, P)
    if S[S_CONFIG_AT + K_GOV] == GOV_INTERACTIVE:
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
    if S[S_CONFIG_AT + K_TRANS_LAT_NS] <= 0:
        S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] = -1
        S[oPD + (d) * P_NFIELDS + P_PENDING_AT] = INF_TIME
        if opp != S[oPD + (d) * P_NFIELDS + P_OPP]:
            apply_opp(d, opp, now, S, P, O)
        return
    if S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] < 0:
        S[oPD + (d) * P_NFIELDS + P_PENDING_AT] = now + S[S_CONFIG_AT + K_TRANS_LAT_NS]
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
    oK = S_CONFIG_AT
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
    j_self = policy_index(c, d, m, P)
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
    oK = S_CONFIG_AT
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
    j_self = policy_index(c, d, m, P)
    pol, freqs = policy_state(d, S, P)
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
    (``M_OD_IDLE_DEFERS``, tunable ``idle_defers_sample``, on by default: a deferrable timer does
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
    pol, freqs = policy_state(d, S, P)
    nopp = freqs.shape[0]
    for j in range(m):
        sync_cpu_bookkeeping(P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j], now, S, P)
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
    # the long-idle test of the era (or of the long_idle_test tunable): M_OD_LONG_IDLE
    f = ondemand_step(now, idle, freqs, mp[M_OD_SAMPLING_US], mp[M_OD_UP_THRESHOLD], mp[M_OD_DOWN_FACTOR],
                      cst, pol, P[oi:oi + nopp], mp[M_OD_LONG_IDLE])
    request_opp(d, opp_of_freq(d, f, P), now, S, P, O)
    S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = now + mp[M_OD_SAMPLING_US] * pol[OD_RATE_MULT] * 1000


@sim_kernel
def governor_sample(d, now, S, P, O):
    """Governor timer of perf domain ``d``: ondemand's sample, interactive's timer (both re-armed),
    or the end of schedfreq's throttle."""
    oK = S_CONFIG_AT
    oPD = S[S_DOMAINS]
    gov = S[oK + K_GOV]
    m = P[P[P_PD_NCPU] + d]
    pol, freqs = policy_state(d, S, P)
    nopp = freqs.shape[0]
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
        sync_cpu_bookkeeping(P[P[P_PD_CPUS] + (d) * P[P_PD_CPUS_W] + j], now, S, P)
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
