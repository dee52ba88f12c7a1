"""The v4.16 - v4.19 ``load_balance()`` decision of the simulator (numba), ledger lb-v4.16.

Read in a v4.19 tree (0x88888888/Linux-4.19, ``kernel/sched/fair.c``; the balancer of the EAS
RFC's 4.16-rc6 base and of v4.17 - v4.19 alike) and its ``kernel/sched/topology.c`` ``sd_init``:

* Domains of a CPU: MC, its LLC, whose groups are single CPUs (imbalance_pct 117), when the LLC
  has more than one CPU; DIE, every CPU, whose groups are the LLCs (imbalance_pct 125), when there
  is more than one LLC. Both have ``cache_nice_tries`` 1; MC has SD_PREFER_SIBLING, so DIE
  balances with ``prefer_sibling``; with SD_ASYM_CPUCAPACITY at DIE (the RFC base kernel's flag:
  ``LB_V4_ASYM``) ``update_sd_pick_busiest`` does not pick a group of bigger CPUs running at most
  one task per CPU.
* ``update_sg_lb_stats`` / ``update_sd_lb_stats`` (group load = the CPUs' ``weighted_cpuload``
  (``sim_capacity``), the cfs_rq's runnable_load_avg as stored; group capacity the sum of
  ``capacity_of``; the prefer-sibling demotion of a remote group with two tasks more than the
  local one to "overloaded"), ``find_busiest_group`` per ``cpu_idle_type`` (the NEWLY_IDLE and
  NOT_IDLE ``imbalance_pct`` test, the IDLE ``idle_cpus`` test, the force balance of a CPU that is
  not busy, with capacity, against an overloaded group; EAS not overutilized: out_balanced),
  ``calculate_imbalance`` and ``fix_small_imbalance`` in ``unsigned long`` arithmetic,
  ``find_busiest_queue`` (highest ``weighted_cpuload / capacity_of``, a lone task heavier than the
  imbalance left alone), ``should_we_balance`` (an IDLE balance above MC is done by the first idle
  CPU of the local group), ``can_migrate_task`` with ``task_hot`` (500 us since the task last ran,
  unless ``nr_balance_failed > cache_nice_tries``) and ``need_active_balance``.

The moves themselves (``detach_tasks`` in ``cfs_tasks`` order, the active balance by the stopper)
are done by ``sim_balance.lb_level`` with the engine's own migration, and when a level is
balanced by ``sim_balance.rebalance_domains`` (``get_sd_balance_interval``: ``lb_interval_j``;
the interval after each outcome: ``lb_interval_after``). Not modelled (stated in the simulator's
approximations): LB_BIAS's ``cpu_load[]`` (source/target loads are the idx-0 load), the affinity
paths (``LBF_DST_PINNED`` re-targeting, ``group_imbalanced``), cache-hot buddies.
"""
from __future__ import annotations

from ._jit import sim_helper, sim_kernel

from .sim_capacity import capacity_of, cpu_util, weighted_cpuload
from .sim_layout import (P_CPU_CAP, P_CPU_PD_N, P_LLC_ID, P_MASKS, P_MASKS_W, P_MODEL_PARAMS, S_CONFIG_AT, S_CPUS,
                         S_GLOBALS_AT, S_RQ_TASKS, S_RQ_TASKS_W, S_TASKS)
from .sim_models import LB_V4_ASYM, M_LB_FORM
from .sim_state import (C_CURR, C_NFIELDS, C_NR_CFS, C_NR_RT, G_OVERUTIL, K_PLACEMENT, PLACE_NO_EAS, POLICY_CFS, T_LIST_SEQ,
                        T_MASK, T_NFIELDS, T_POLICY)

LB_MC = 0
LB_DIE = 1
#: sd_init(): imbalance_pct of MC (SD_SHARE_PKG_RESOURCES) and of the level above
PCT_MC = 117
PCT_DIE = 125
CACHE_NICE_TRIES = 1
GROUP_OTHER = 0
GROUP_OVERLOADED = 2
#: sysctl_sched_migration_cost (task_hot)
MIGRATION_COST_NS = 500_000
#: enum cpu_idle_type: the balancing CPU is idle (periodic / nohz balance), busy (its periodic
#: balance at the tick) or about to idle (newidle balance)
LB_IDLE = 0
LB_NOT_IDLE = 1
LB_NEWLY_IDLE = 2
#: sd_init(): busy_factor (a busy CPU balances a level every balance_interval * 32 ms)
BUSY_FACTOR = 32
#: load_balance(): the cap of the interval's back-off when every task was pinned
MAX_PINNED_INTERVAL = 512
#: load_balance()'s outcomes, for the balance interval (lb_interval_after)
LBO_MOVED = 0          # tasks detached: the interval back to min_interval
LBO_FAILED = 1         # a busiest queue, nothing moved, no stopper kicked: min_interval too
LBO_BALANCED = 2       # out_balanced (should_we_balance, no busiest group / queue): back off
LBO_PINNED = 3         # out_all_pinned / out_one_pinned with LBF_ALL_PINNED: back off up to 512 ms
LBO_ACTIVE = 4         # the stopper kicked (active balance): back off


@sim_helper
def lb_weight(level, dst, P):
    """``sd->span_weight`` of ``dst``'s domain at ``level``: its LLC's CPUs (MC), every CPU (DIE);
    ``sd_init`` sets ``min_interval`` to it, ``max_interval`` to twice it and starts
    ``balance_interval`` at it (ms)."""
    n = P[P_CPU_PD_N]
    if level == LB_DIE:
        return n
    w = 0
    for c in range(n):
        if P[P[P_LLC_ID] + c] == P[P[P_LLC_ID] + dst]:
            w += 1
    return w


@sim_helper
def lb_interval_j(interval_ms, busy, tick_ns, n):
    """``get_sd_balance_interval(sd, cpu_busy)``: ``balance_interval`` (ms), times ``busy_factor``
    on a busy CPU, in jiffies (``msecs_to_jiffies`` rounds up), clamped to [1,
    ``max_load_balance_interval`` = HZ * online CPUs / 10]."""
    hz = 1_000_000_000 // tick_ns
    ms = interval_ms * BUSY_FACTOR if busy else interval_ms
    j = (ms * hz + 999) // 1000
    top = hz * n // 10
    if j > top:
        j = top
    return j if j > 1 else 1


@sim_helper
def lb_interval_after(outcome, interval_ms, weight):
    """``sd->balance_interval`` after a ``load_balance()`` of v4.16 - v4.19 with ``outcome``
    (``LBO_*``): reset to ``min_interval`` when it moved tasks or found a queue it could not move
    from without kicking the stopper; doubled while below ``max_interval`` (2 * weight) when
    balanced or when the stopper was kicked; with every task pinned doubled while below
    ``MAX_PINNED_INTERVAL`` or ``max_interval``."""
    if outcome == LBO_MOVED or outcome == LBO_FAILED:
        return weight
    top = 2 * weight
    if outcome == LBO_PINNED and top < MAX_PINNED_INTERVAL:
        top = MAX_PINNED_INTERVAL
    return interval_ms * 2 if interval_ms < top else interval_ms


@sim_helper
def nohz_kick_wanted(nr_running, h_nr_running, nr_busy_llc, llc_weight, capacity, capacity_orig):
    """v4.16 - v4.19 ``nohz_balancer_kick()``'s balance conditions for a busy CPU's tick, once
    some CPU is idle (``nohz.nr_cpus``) and ``nohz.next_balance`` has passed: kick when the CPU
    runs two tasks or more (``rq->nr_running``, CFS and RT), or its LLC has more than one busy CPU
    (``sd_llc_shared->nr_busy_cpus``), or it runs a CFS task (``cfs.h_nr_running``) on a capacity
    that RT / IRQ pressure cut below ``capacity_orig * 100 / imbalance_pct`` of ``rq->sd``, its
    lowest domain (``check_cpu_capacity``: MC's 117 when the LLC has more than one CPU, else
    DIE's 125). The SD_ASYM_PACKING clause is not modelled (no such domain on these boards)."""
    if nr_running >= 2 or nr_busy_llc > 1:
        return True
    if h_nr_running >= 1:
        pct = PCT_MC if llc_weight > 1 else PCT_DIE
        return capacity * pct < capacity_orig * 100
    return False


@sim_helper
def lb_in_group(level, dst, c, g, P):
    """Whether CPU ``c`` is in group ``g`` of ``dst``'s domain at ``level`` (MC: ``g`` is a CPU of
    dst's LLC; DIE: ``g`` is an LLC id)."""
    if level == LB_MC:
        return c == g
    return P[P[P_LLC_ID] + c] == g


@sim_helper
def lb_group_of(level, c, P):
    return c if level == LB_MC else P[P[P_LLC_ID] + c]


@sim_kernel
def lb_levels(dst, P):
    """Which levels exist for ``dst``: bit 0 MC (its LLC has more than one CPU), bit 1 DIE (more than
    one LLC)."""
    size = lb_weight(LB_MC, dst, P)
    return (1 if size > 1 else 0) | (2 if size < P[P_CPU_PD_N] else 0)


@sim_kernel
def lb_group_stats(level, dst, g, S, P):
    """``update_sg_lb_stats`` of group ``g``: (group_load, group_util, sum_nr_running,
    sum_weighted_load, idle_cpus, group_capacity, group_weight, min_capacity, balance_cpu). With
    the idx-0 loads group_load and sum_weighted_load are the same sum; balance_cpu is the group's
    first idle CPU, else its first CPU (``should_we_balance``)."""
    n = P[P_CPU_PD_N]
    oCP = S[S_CPUS]
    load = 0
    util = 0
    nr = 0
    idle = 0
    cap = 0
    weight = 0
    min_cap = 1 << 62
    first_idle = -1
    first = -1
    lo, hi = 0, n
    if level == LB_MC:
        lo, hi = g, g + 1               # an MC group is one CPU (of dst's LLC)
    for c in range(lo, hi):
        if level == LB_DIE and P[P[P_LLC_ID] + c] != g:
            continue
        if first < 0:
            first = c
        wl = weighted_cpuload(c, S)
        load += wl
        util += cpu_util(c, S, P)
        nr += S[oCP + c * C_NFIELDS + C_NR_CFS]
        running = S[oCP + c * C_NFIELDS + C_NR_CFS] + S[oCP + c * C_NFIELDS + C_NR_RT]
        if running == 0 and S[oCP + c * C_NFIELDS + C_CURR] < 0:
            idle += 1
            if first_idle < 0:
                first_idle = c
        k = capacity_of(c, S, P)
        cap += k
        if k < min_cap:
            min_cap = k
        weight += 1
    return load, util, nr, load, idle, cap, weight, min_cap, first_idle if first_idle >= 0 else first


@sim_helper
def lb_has_capacity(nr, weight, cap, util, pct):
    """``group_has_capacity``."""
    if nr < weight:
        return True
    return cap * 100 > util * pct


@sim_helper
def lb_is_overloaded(nr, weight, cap, util, pct):
    """``group_is_overloaded``."""
    if nr <= weight:
        return False
    return cap * 100 < util * pct


@sim_kernel
def lb_find_busiest(dst, level, itype, S, P, out):
    """``should_we_balance`` + ``find_busiest_group`` + ``find_busiest_queue`` for ``dst`` at
    ``level``, ``itype`` the ``cpu_idle_type`` (``LB_IDLE``, ``LB_NOT_IDLE``, ``LB_NEWLY_IDLE``).

    Returns the busiest runqueue's CPU, -1 when balanced (or no queue), -2 when
    ``should_we_balance`` says another CPU of the local group balances this level and above.
    ``out[0]`` gets the imbalance (weighted load to move)."""
    n = P[P_CPU_PD_N]
    pct = PCT_MC if level == LB_MC else PCT_DIE
    asym = level == LB_DIE and P[P[P_MODEL_PARAMS] + M_LB_FORM] == LB_V4_ASYM
    prefer_sibling = level == LB_DIE and (lb_levels(dst, P) & 1) == 1
    local_g = lb_group_of(level, dst, P)
    l_load, l_util, l_nr, l_wl, l_idle, l_cap, l_weight, l_min, l_first = lb_group_stats(level, dst, local_g, S, P)
    out[0] = 0
    if itype != LB_NEWLY_IDLE and l_first != dst:
        return -2                       # should_we_balance(): not the local group's balance CPU
    if S[S_GLOBALS_AT + G_OVERUTIL] == 0 and S[S_CONFIG_AT + K_PLACEMENT] != PLACE_NO_EAS:
        return -1                       # the RFC's find_busiest_group: EAS, not overutilized -> out_balanced
    l_avg = (l_load * 1024) // l_cap
    l_lpt = l_wl // l_nr if l_nr > 0 else 0
    l_has_cap = lb_has_capacity(l_nr, l_weight, l_cap, l_util, pct)
    l_type = GROUP_OVERLOADED if lb_is_overloaded(l_nr, l_weight, l_cap, l_util, pct) else GROUP_OTHER
    total_load = l_load
    total_cap = l_cap
    b_g = -1
    b_type = GROUP_OTHER
    b_avg = 0
    b_nr = 0
    b_wl = 0
    b_idle = 0
    b_cap = 1
    b_nocap = False
    # the other groups in the ring order of the domain's groups, which starts at dst's group
    for k in range(1, n):
        c = (dst + k) % n
        if level == LB_MC and P[P[P_LLC_ID] + c] != P[P[P_LLC_ID] + dst]:
            continue
        g = lb_group_of(level, c, P)
        if g == local_g:
            continue
        if level == LB_DIE:
            # a group is visited at its first CPU in the ring from dst
            first_in_ring = True
            for j in range(1, k):
                if P[P[P_LLC_ID] + (dst + j) % n] == g:
                    first_in_ring = False
                    break
            if not first_in_ring:
                continue
        s_load, s_util, s_nr, s_wl, s_idle, s_cap, s_weight, s_min, _f = lb_group_stats(level, dst, g, S, P)
        s_avg = (s_load * 1024) // s_cap
        s_nocap = lb_is_overloaded(s_nr, s_weight, s_cap, s_util, pct)
        if prefer_sibling and l_has_cap and s_nr > l_nr + 1:
            s_nocap = True
        s_type = GROUP_OVERLOADED if s_nocap else GROUP_OTHER
        # update_sd_pick_busiest
        pick = False
        if s_type > b_type:
            pick = True
        elif s_type == b_type and s_avg > b_avg:
            pick = True
            if asym and s_nr <= s_weight and l_min * 1280 < s_min * 1024:
                pick = False            # group_smaller_cpu_capacity(local, sg): keep bigger CPUs
        if pick:
            b_g, b_type, b_avg, b_nr, b_wl, b_idle, b_cap, b_nocap = (g, s_type, s_avg, s_nr, s_wl, s_idle,
                                                                     s_cap, s_nocap)
        total_load += s_load
        total_cap += s_cap
    # find_busiest_group
    if b_g < 0 or b_nr == 0:
        return -1
    sds_avg = (1024 * total_load) // total_cap
    force = itype != LB_NOT_IDLE and l_has_cap and b_nocap
    if not force:
        if l_avg >= b_avg or l_avg >= sds_avg:
            return -1
        if itype == LB_IDLE:
            if b_type != GROUP_OVERLOADED and l_idle <= b_idle + 1:
                return -1
        elif 100 * b_avg <= pct * l_avg:
            return -1
    b_lpt = b_wl // b_nr
    imb = lb_calculate_imbalance(l_avg, l_nr, l_lpt, l_cap, l_type, b_avg, b_nr, b_lpt, b_cap, b_type, sds_avg, dst, S)
    if imb == 0:
        return -1
    out[0] = imb
    # find_busiest_queue
    busiest = -1
    best_wl = 0
    best_cap = 1
    oCP = S[S_CPUS]
    for c in range(n):
        if not lb_in_group(level, dst, c, b_g, P):
            continue
        cap = capacity_of(c, S, P)
        wl = weighted_cpuload(c, S)
        nr = S[oCP + c * C_NFIELDS + C_NR_CFS] + S[oCP + c * C_NFIELDS + C_NR_RT]
        reduced = cap * pct < P[P[P_CPU_CAP] + c] * 100          # check_cpu_capacity()
        if nr == 1 and wl > imb and not reduced:
            continue
        if wl * best_cap > best_wl * cap:
            best_wl, best_cap, busiest = wl, cap, c
    return busiest


@sim_kernel
def lb_calculate_imbalance(l_avg, l_nr, l_lpt, l_cap, l_type, b_avg, b_nr, b_lpt, b_cap, b_type, sds_avg, dst, S):
    """``calculate_imbalance`` (with ``fix_small_imbalance``): the weighted load to move; every
    operand here is non-negative where the kernel subtracts (its own tests order them)."""
    if b_avg <= sds_avg or l_avg >= sds_avg:
        return lb_fix_small_imbalance(l_avg, l_nr, l_lpt, l_cap, b_avg, b_lpt, b_cap, dst, S, 0)
    load_above = -1         # ~0UL
    if b_type == GROUP_OVERLOADED and l_type == GROUP_OVERLOADED:
        la = b_nr * 1024
        if la > b_cap:
            load_above = ((la - b_cap) * 1024) // b_cap
    max_pull = b_avg - sds_avg
    if load_above >= 0 and load_above < max_pull:
        max_pull = load_above
    a = max_pull * b_cap
    b = (sds_avg - l_avg) * l_cap
    imb = (a if a < b else b) // 1024
    if imb < b_lpt:
        return lb_fix_small_imbalance(l_avg, l_nr, l_lpt, l_cap, b_avg, b_lpt, b_cap, dst, S, imb)
    return imb


@sim_kernel
def lb_fix_small_imbalance(l_avg, l_nr, l_lpt, l_cap, b_avg, b_lpt, b_cap, dst, S, imb):
    """``fix_small_imbalance``: returns the imbalance it leaves (``imb`` when it keeps it)."""
    imbn = 2
    if l_nr == 0:
        oCP = S[S_CPUS]
        h = S[oCP + dst * C_NFIELDS + C_NR_CFS]
        l_lpt = weighted_cpuload(dst, S) // h if h > 0 else 0       # cpu_avg_load_per_task(dst)
    elif b_lpt > l_lpt:
        imbn = 1
    scaled = (b_lpt * 1024) // b_cap
    if b_avg + scaled >= l_avg + scaled * imbn:
        return b_lpt
    capa_now = b_cap * min(b_lpt, b_avg) + l_cap * min(l_lpt, l_avg)
    capa_now //= 1024
    capa_move = 0
    if b_avg > scaled:
        capa_move += b_cap * min(b_lpt, b_avg - scaled)
    if b_avg * b_cap < b_lpt * 1024:
        tmp = (b_avg * b_cap) // l_cap
    else:
        tmp = (b_lpt * 1024) // l_cap
    capa_move += l_cap * min(l_lpt, l_avg + tmp)
    capa_move //= 1024
    if capa_move > capa_now:
        return b_lpt
    return imb


@sim_helper
def lb_tail(src, dst, S, P):
    """The tail of CPU ``src``'s ``cfs_tasks`` list: its queued CFS task with the lowest stamp
    (``T_LIST_SEQ``); with ``dst`` >= 0, the tail-most one allowed on ``dst`` (``detach_one_task``)."""
    oTK = S[S_TASKS]
    ol = S[S_RQ_TASKS] + src * S[S_RQ_TASKS_W]
    best = -1
    for i in range(1, S[ol] + 1):
        p = S[ol + i]
        if S[oTK + p * T_NFIELDS + T_POLICY] != POLICY_CFS:
            continue
        if dst >= 0 and not P[P[P_MASKS] + S[oTK + p * T_NFIELDS + T_MASK] * P[P_MASKS_W] + dst]:
            continue
        if best < 0 or S[oTK + p * T_NFIELDS + T_LIST_SEQ] < S[oTK + best * T_NFIELDS + T_LIST_SEQ]:
            best = p
    return best
