"""The simulator's calls into the kernel decision models (numba).

Each function here gathers the simulated runqueues' state into the arrays the issue-3
kernels take and calls them; no decision logic is re-implemented here:

* wake-up placement of CFS tasks: ``eas.feec`` (v5.0 / v5.4 / 6.x forms) while the root
  domain is not overutilized, else ``sis.select_idle_sibling`` with the SIS_UTIL depth
  (``sis.sis_util_nr_idle_scan``, refreshed at each load-balance pass as
  ``update_idle_cpu_scan`` is) or the SIS_PROP depth (``sis.sis_prop_nr`` from the
  runqueue's ``avg_idle`` and a fixed per-runqueue scan cost);
* overutilized: ``eas.cpu_overutilized``;
* frequency: ``schedutil.sugov_update`` (with or without the RFC ramp boost; the rt
  runqueue enters through ``schedutil.effective_cpu_util``) and ``governors.schedfreq_request``
  / ``schedfreq_pending`` at each scheduler update (``cpufreq_update_util`` points), and the
  timer-driven ``governors.ondemand_step`` / ``interactive_account`` + ``interactive_step``
  on each sampling timer, over per-policy governor state kept in the state array;
  performance / powersave pin the top / bottom OPP.
"""
from __future__ import annotations

from numba import njit

from .sim_state import C_NFIELDS, P_NFIELDS, T_NFIELDS
from .sim_views import v1, v2, v3

from .eas import NO_ENERGY, cpu_overutilized, feec
from .governors import (IA_CUR, OD_CUR, OD_RATE_MULT, SF_CUR, SF_REQUESTED, SF_THROTTLE_END,
                        interactive_account, interactive_step, ondemand_step, schedfreq_pending,
                        schedfreq_request)
from .pelt import SA_UTIL_AVG
from .schedutil import (CS_LAST_UPDATE, FREQUENCY_UTIL, PS_LAST_FREQ_UPDATE, PS_NEED_FREQ_UPDATE, PS_NEXT_FREQ,
                        effective_cpu_util, sugov_update)
from .sim_sched import emit, sync_cpu, task_util_est, refresh_next_event
from .sim_state import (C_BUSY_NS, C_CURR, C_NR_CFS, C_NR_RT, C_UE_SUM, D_CHOSEN, D_HEAD, D_IN_CPUS,
                        D_IN_OVERUTIL, D_IN_TASK_UTIL, D_IN_TASK_UTIL_EST, D_PREV, D_TASK, D_TASK_UTIL, D_TIME,
                        EV_FREQ, EV_OVERUTIL, G_OVERUTIL, GOV_INTERACTIVE,
                        GOV_ONDEMAND, GOV_SCHEDFREQ, GOV_SCHEDUTIL, INF_TIME, K_GOV, K_MODEL_EVENTS, K_RAMP_BOOST,
                        K_RATE_LIMIT_NS, K_SAMPLE_NS, K_SIS, K_TICK_NS, K_TRANS_LAT_NS, N_EAS,
                        P_LAST_UPDATE, P_NEXT_SAMPLE, P_OPP, P_PENDING_AT, P_PENDING_OPP,
                        P_REQ_OPP, SIS_UTIL, T_CPU, T_MASK)
from .sis import select_idle_sibling, sis_prop_nr, sis_util_nr_idle_scan

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
M_SIZE = 18

# governor state: slot 15 per policy int64[nd, GOV_POL_WIDTH], slot 16 per policy CPU
# int64[nd, max CPUs per domain, GOV_CPU_WIDTH] (column layouts in ``governors``)
GOV_POL_WIDTH = 3
GOV_CPU_WIDTH = 6

# scratch rows: state slot 13 [row, cpu]
SC_UTIL = 0
SC_UE = 1
SC_CAP_ORIG = 2
SC_CAP_OF = 3
SC_IDLE = 4
SC_WORK = 5
SC_ENERGY = 6
SC_RESULT = 7
SC_PD_UTIL = 8
SC_PD_UE = 9
SC_ROWS = 10

# state slot 14: per-CPU idle statistics
AI_AVG_IDLE = 0
AI_IDLE_STAMP = 1
AI_NR_SCAN = 2


@njit(cache=True)
def cpu_util(c, S, P):
    """``cpu_util(cpu)`` of the CFS runqueue: ``min(max(util_avg, util_est.enqueued), capacity)``."""
    u = S[S[24] + (c) * S[26] + SA_UTIL_AVG]
    e = S[S[12] + (c) * C_NFIELDS + C_UE_SUM]
    if e > u:
        u = e
    cap = P[P[4] + c]
    return u if u < cap else cap


@njit(cache=True)
def capacity_of(c, S, P):
    """``capacity_of(cpu)``: original capacity minus the rt runqueue's utilization."""
    cap = P[P[4] + c] - S[S[28] + (c) * S[30] + SA_UTIL_AVG]
    return cap if cap > 1 else 1


@njit(cache=True)
def update_overutilized(now, set_only, S, P, O):
    """Set (and, from the load balancer, clear) the root domain's overutilized flag."""
    oG = S[0]
    ou = 0
    for c in range(P[1]):
        if cpu_overutilized(cpu_util(c, S, P), capacity_of(c, S, P), P[P[76] + M_EAS_OVERUTIL_ERA]):
            ou = 1
            break
    if set_only and ou == 0:
        return
    if ou != S[oG + G_OVERUTIL]:
        S[oG + G_OVERUTIL] = ou
        if S[S[4] + K_MODEL_EVENTS]:
            emit(O, now, EV_OVERUTIL, -1, ou, 0, 0, 0, 0)


@njit(cache=True)
def allowed_row(p, S, P):
    return v2(P, 12)[S[S[8] + (p) * T_NFIELDS + T_MASK]]


@njit(cache=True)
def place_eas(p, prev, now, S, P, O):
    """``find_energy_efficient_cpu`` for a waking CFS task (-1: fall back to the idle search)."""
    sc = v2(S, 13)
    n = P[1]
    for c in range(n):
        sc[SC_UTIL, c] = S[S[24] + (c) * S[26] + SA_UTIL_AVG]
        sc[SC_UE, c] = S[S[12] + (c) * C_NFIELDS + C_UE_SUM]
        sc[SC_CAP_ORIG, c] = P[P[4] + c]
        sc[SC_CAP_OF, c] = capacity_of(c, S, P)
    work = sc[SC_WORK, :2]
    energies = sc[SC_ENERGY, :3]
    tu = S[S[20] + (p) * S[22] + SA_UTIL_AVG]
    tue = task_util_est(p, S)
    allowed = allowed_row(p, S, P)
    ou = S[S[0] + G_OVERUTIL] != 0
    cpu = feec(P[P[76] + M_EAS_ERA], v2(P, 13), v1(P, 14), v2(P, 15), P[P[76] + M_EM_MODE], sc[SC_CAP_ORIG, :n],
               sc[SC_CAP_OF, :n], sc[SC_UTIL, :n], sc[SC_UE, :n], tu, tue, prev, allowed, ou, work, energies)
    if cpu >= 0 and (energies[1] != NO_ENERGY or energies[0] != NO_ENERGY):
        eas = v2(O, 2)
        cnt = v1(O, 3)
        k = cnt[N_EAS]
        eas[k, D_TIME] = now
        eas[k, D_TASK] = p
        eas[k, D_PREV] = prev
        eas[k, D_CHOSEN] = cpu
        eas[k, D_TASK_UTIL] = tu if tu > tue else tue
        for j in range(3):
            eas[k, D_HEAD + j] = energies[j] if energies[j] != NO_ENERGY else -1
        eas[k, D_HEAD + 3] = work[0]
        eas[k, D_HEAD + 4] = work[1]
        eas[k, D_IN_TASK_UTIL] = tu
        eas[k, D_IN_TASK_UTIL_EST] = tue
        eas[k, D_IN_OVERUTIL] = 1 if ou else 0
        for c in range(n):
            eas[k, D_IN_CPUS + c] = sc[SC_UTIL, c]
            eas[k, D_IN_CPUS + n + c] = sc[SC_UE, c]
            eas[k, D_IN_CPUS + 2 * n + c] = sc[SC_CAP_OF, c]
            eas[k, D_IN_CPUS + 3 * n + c] = 1 if allowed[c] else 0
        cnt[N_EAS] = k + 1
    return cpu


@njit(cache=True)
def update_idle_cpu_scan(S, P):
    """SIS_UTIL producer, run at each load-balance pass: ``nr_idle_scan`` per LLC from its sum of util."""
    n = P[1]
    llc = v1(P, 17)
    ai = v2(S, 14)
    for c in range(n):
        s = 0
        w = 0
        for j in range(n):
            if llc[j] == llc[c]:
                s += cpu_util(j, S, P)
                w += 1
        ai[c, AI_NR_SCAN] = sis_util_nr_idle_scan(s, w, P[P[76] + M_IMBALANCE_PCT])


@njit(cache=True)
def place_idle_sibling(p, target, prev, S, P):
    """``select_idle_sibling`` (SIS_UTIL or SIS_PROP depth) on the LLC of ``target``."""
    sc = v2(S, 13)
    oCP = S[12]
    n = P[1]
    for c in range(n):
        sc[SC_IDLE, c] = 1 if S[oCP + (c) * C_NFIELDS + C_CURR] < 0 and S[oCP + (c) * C_NFIELDS + C_NR_CFS] + S[oCP + (c) * C_NFIELDS + C_NR_RT] == 0 else 0
    util_mode = S[S[4] + K_SIS] == SIS_UTIL
    if util_mode:
        nr = S[S[56] + (target) * S[58] + AI_NR_SCAN]
    else:
        w = 0
        for j in range(n):
            if P[P[68] + j] == P[P[68] + target]:
                w += 1
        nr = sis_prop_nr(S[S[56] + (target) * S[58] + AI_AVG_IDLE], P[P[76] + M_SIS_SCAN_COST], w, 1)
    result = sc[SC_RESULT, :2]
    return select_idle_sibling(P[P[76] + M_SIS_MODE], util_mode, sc[SC_IDLE, :n], allowed_row(p, S, P), target, prev,
                               -1, False, nr, v1(P, 17), v1(P, 18), False, result)


@njit(cache=True)
def apply_opp(d, opp, now, S, P, O):
    """A frequency change takes effect in perf domain ``d`` (all its CPUs synced first)."""
    oPD = S[16]
    m = P[P[24] + d]
    for j in range(m):
        sync_cpu(P[P[20] + (d) * P[22] + j], now, S, P)
    if S[S[4] + K_GOV] == GOV_INTERACTIVE:
        # CPUFREQ_PRECHANGE notifier: account the busy time so far at the old frequency
        old = P[P[12] + (d) * P[14] + S[oPD + (d) * P_NFIELDS + P_OPP]]
        cst = v3(S, 16)[d]
        for j in range(m):
            interactive_account(S[S[12] + (P[P[20] + (d) * P[22] + j]) * C_NFIELDS + C_BUSY_NS], old, cst[j])
    S[oPD + (d) * P_NFIELDS + P_OPP] = opp
    f = P[P[12] + (d) * P[14] + opp]
    for j in range(m):
        c = P[P[20] + (d) * P[22] + j]
        emit(O, now, EV_FREQ, c, f, 0, 0, 0, 0)
        if S[S[12] + (c) * C_NFIELDS + C_CURR] >= 0:
            refresh_next_event(c, now, S, P)


@njit(cache=True)
def request_opp(d, opp, now, S, P, O):
    """The governor asks for ``opp``; it takes effect after the transition latency."""
    oPD = S[16]
    S[oPD + (d) * P_NFIELDS + P_REQ_OPP] = opp
    if opp == S[oPD + (d) * P_NFIELDS + P_OPP] and S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] < 0:
        return
    if S[S[4] + K_TRANS_LAT_NS] <= 0:
        S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] = -1
        S[oPD + (d) * P_NFIELDS + P_PENDING_AT] = INF_TIME
        if opp != S[oPD + (d) * P_NFIELDS + P_OPP]:
            apply_opp(d, opp, now, S, P, O)
        return
    if S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] < 0:
        S[oPD + (d) * P_NFIELDS + P_PENDING_AT] = now + S[S[4] + K_TRANS_LAT_NS]
    S[oPD + (d) * P_NFIELDS + P_PENDING_OPP] = opp


@njit(cache=True)
def opp_of_freq(d, f, P):
    for k in range(P[P[8] + d]):
        if P[P[12] + (d) * P[14] + k] >= f:
            return k
    return P[P[8] + d] - 1


@njit(cache=True)
def governor_update(c, now, S, P, O):
    """``cpufreq_update_util(rq)`` from CPU ``c`` (schedutil, schedfreq; the others are timer driven)."""
    oK = S[4]
    gov = S[oK + K_GOV]
    if gov == GOV_SCHEDFREQ:
        schedfreq_update(c, now, S, P, O)
        return
    if gov != GOV_SCHEDUTIL:
        return
    d = P[P[0] + c]
    m = P[P[24] + d]
    j_self = 0
    for j in range(m):
        if P[P[20] + (d) * P[22] + j] == c:
            j_self = j
    ops = S[48] + d * S[50]              # this policy's row of the schedutil policy state (slot 12)
    if not (S[ops + PS_NEED_FREQ_UPDATE] or now - S[ops + PS_LAST_FREQ_UPDATE] >= S[oK + K_RATE_LIMIT_NS]):
        # sugov_update's rate-limited return (no iowait, not from idle): it only stamps the
        # CPU's last update; taken here before gathering the utilizations (same result)
        S[S[36] + (d * S[38] + j_self) * S[39] + CS_LAST_UPDATE] = now
        S[S[16] + (d) * P_NFIELDS + P_LAST_UPDATE] = now
        request_opp(d, opp_of_freq(d, S[ops + PS_NEXT_FREQ], P), now, S, P, O)
        return
    sc = v2(S, 13)
    for j in range(m):
        cj = P[P[20] + (d) * P[22] + j]
        if cj == c:
            j_self = j
        cap = P[P[4] + cj]
        rt_runnable = S[S[12] + (cj) * C_NFIELDS + C_NR_RT] > 0
        sc[SC_PD_UTIL, j] = effective_cpu_util(S[S[24] + (cj) * S[26] + SA_UTIL_AVG], S[S[28] + (cj) * S[30] + SA_UTIL_AVG], 0, 0, 0, cap,
                                               FREQUENCY_UTIL, rt_runnable)
        sc[SC_PD_UE, j] = S[S[12] + (cj) * C_NFIELDS + C_UE_SUM] if not rt_runnable else 0
    nopp = P[P[8] + d]
    freqs = v2(P, 3)[d, :nopp]
    f = sugov_update(v3(S, 9)[d, :m], v2(S, 12)[d], j_self, now, False, False, sc[SC_PD_UTIL, :m], sc[SC_PD_UE, :m],
                     P[P[4] + c], freqs[nopp - 1], freqs, freqs[0], freqs[nopp - 1], P[P[76] + M_SU_ERA],
                     S[oK + K_RATE_LIMIT_NS], S[oK + K_TICK_NS], False, S[oK + K_RAMP_BOOST] != 0, v2(P, 16)[d, :nopp])
    S[S[16] + (d) * P_NFIELDS + P_LAST_UPDATE] = now
    request_opp(d, opp_of_freq(d, f, P), now, S, P, O)


@njit(cache=True)
def schedfreq_update(c, now, S, P, O):
    """schedfreq at a scheduler update of CPU ``c``: its CFS and RT capacity requests (``cpu_util``
    and the rt runqueue's util_avg, normalised to the CPU's own capacity as
    ``update_capacity_of`` does), then the policy's throttled request."""
    d = P[P[0] + c]
    m = P[P[24] + d]
    j_self = 0
    for j in range(m):
        if P[P[20] + (d) * P[22] + j] == c:
            j_self = j
    pol = v2(S, 15)[d]
    nopp = P[P[8] + d]
    freqs = v2(P, 3)[d, :nopp]
    throttle = P[P[76] + M_SF_THROTTLE_NS]
    if schedfreq_pending(now, throttle, pol) >= 0:
        request_opp(d, opp_of_freq(d, pol[SF_CUR], P), now, S, P, O)
    cap = P[P[4] + c]
    cfs = cpu_util(c, S, P) * 1024 // cap
    rt = S[S[28] + (c) * S[30] + SA_UTIL_AVG] * 1024 // cap
    if rt > 1024:
        rt = 1024
    f = schedfreq_request(now, j_self, cfs, rt, 0, freqs, P[P[76] + M_SF_MARGIN], throttle, v3(S, 16)[d, :m], pol)
    if f >= 0:
        request_opp(d, opp_of_freq(d, f, P), now, S, P, O)
    # a request latched by the throttle is applied when it expires (the frequency thread)
    S[S[16] + (d) * P_NFIELDS + P_NEXT_SAMPLE] = pol[SF_THROTTLE_END] if pol[SF_REQUESTED] != pol[SF_CUR] else INF_TIME


@njit(cache=True)
def governor_sample(d, now, S, P, O):
    """Governor timer of perf domain ``d``: ondemand's sample, interactive's timer (both re-armed),
    or the end of schedfreq's throttle."""
    oK = S[4]
    oPD = S[16]
    gov = S[oK + K_GOV]
    m = P[P[24] + d]
    pol = v2(S, 15)[d]
    nopp = P[P[8] + d]
    freqs = v2(P, 3)[d, :nopp]
    if gov == GOV_SCHEDFREQ:
        S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = INF_TIME
        if schedfreq_pending(now, P[P[76] + M_SF_THROTTLE_NS], pol) >= 0:
            request_opp(d, opp_of_freq(d, pol[SF_CUR], P), now, S, P, O)
        return
    for j in range(m):
        sync_cpu(P[P[20] + (d) * P[22] + j], now, S, P)
    cur = freqs[S[oPD + (d) * P_NFIELDS + P_OPP]]      # policy->cur
    cst = v3(S, 16)[d, :m]
    mp = v1(P, 19)
    if gov == GOV_ONDEMAND:
        idle = v2(S, 13)[SC_PD_UTIL, :m]
        for j in range(m):
            idle[j] = (now - S[S[12] + (P[P[20] + (d) * P[22] + j]) * C_NFIELDS + C_BUSY_NS]) // 1000
        pol[OD_CUR] = cur
        f = ondemand_step(now, idle, freqs, mp[M_OD_SAMPLING_US], mp[M_OD_UP_THRESHOLD], mp[M_OD_DOWN_FACTOR],
                          cst, pol)
        request_opp(d, opp_of_freq(d, f, P), now, S, P, O)
        S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = now + mp[M_OD_SAMPLING_US] * pol[OD_RATE_MULT] * 1000
    elif gov == GOV_INTERACTIVE:
        pol[IA_CUR] = cur
        for j in range(m):
            interactive_account(S[S[12] + (P[P[20] + (d) * P[22] + j]) * C_NFIELDS + C_BUSY_NS], cur, cst[j])
        hs = mp[M_IA_HISPEED_KHZ] if mp[M_IA_HISPEED_KHZ] > 0 else freqs[nopp - 1]
        f = interactive_step(now, freqs, mp[M_IA_GO_HISPEED], hs, mp[M_IA_TARGET_LOAD], mp[M_IA_MIN_SAMPLE_US],
                             mp[M_IA_ABOVE_HS_DELAY_US], cst, pol)
        request_opp(d, opp_of_freq(d, f, P), now, S, P, O)
        S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = now + S[oK + K_SAMPLE_NS]
    else:
        S[oPD + (d) * P_NFIELDS + P_NEXT_SAMPLE] = INF_TIME
