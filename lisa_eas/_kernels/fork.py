"""``find_idlest_cpu`` (``find_idlest_group`` / ``find_idlest_group_cpu``) for the fork balance and
the wake-up slow path, and ``post_init_entity_util_avg`` (ledger ``fork-v4.14``, ``fork-v5.5``,
``wake_cap-v4.16``, ``wake_cap-v5.7``).

One implementation, on per-CPU integer arrays (numba): :func:`find_idlest_cpu` is called by
:func:`fork_threads` when a run is set up (``wake_up_new_task`` -> ``select_task_rq_fair(SD_BALANCE_FORK)``)
and by the simulator at a wake-up that ``wake_cap()`` takes off the fast path
(``select_task_rq_fair(SD_BALANCE_WAKE)`` -> ``find_idlest_cpu(sd, p, cpu, prev_cpu, SD_BALANCE_WAKE)``,
``sim_wakeup.wake_slow_path``). Read in a v4.19 tree (0x88888888/Linux-4.19 at 57a18e1bebe8,
``kernel/sched/fair.c``: ``find_idlest_group`` with ``sd_flag``, ``capacity_spare_wake``,
``cpu_util_wake``, ``find_idlest_group_cpu``, ``find_idlest_cpu``; ``kernel/sched/topology.c``
``sd_init``) and in the stored torvalds/linux ``fair.c`` at 000619680c37 (a v5.5/v5.6 state,
``update_sg_wakeup_stats`` / ``update_pick_idlest``; the misfit group type read in the 57abff067a08
posting and its follow-ups).

Sched domains: MC over each LLC (groups: single CPUs), DIE over all CPUs (groups: the LLCs), each
kept only when it has more than one group; group lists start at the group of the balancing CPU and
wrap (``build_sched_groups``); a group's CPUs are visited in increasing order. Every domain has the
balance flag asked for: SD_BALANCE_FORK always (``sd_init``), SD_BALANCE_WAKE on the
SD_ASYM_CPUCAPACITY domain (DIE) and every domain below it (``sd_init``'s ``for_each_lower_domain``),
which is the only case the simulator calls the wake form in.

The two forms:

* v4.x (``FORM_V4_14``, v4.11 - v5.4): groups compared on their runnable load (``source_load`` /
  ``target_load`` with ``wake_idx`` = ``forkexec_idx`` = 0: the cfs_rq's ``runnable_load_avg``)
  with ``imbalance`` = 1024 * (pct - 100) / 100, then on ``load_avg`` (blocked load included) by
  ``100 + (pct - 100) / 2``; at a wake-up first the spare capacity (``capacity_of - cpu_util_wake``,
  the group's best CPU): stay when the local group's exceeds ``task_util(p) / 2`` and beats the
  most-spare group by that scale, else take the most-spare group when its spare exceeds
  ``task_util(p) / 2`` (skipped at fork: the new task has no util yet).
* v5.5 (``FORM_V5_5``, 57abff067a08): group types (overloaded, misfit when the domain is
  SD_ASYM_CPUCAPACITY and the task does not fit the group's ``max_capacity``, fully busy, has
  spare) from the loads, utils and run counts without the waking task (``cpu_load_without``,
  ``cpu_util_without``); the lower type wins, then by type: least ``avg_load``, highest
  ``max_capacity``, most idle CPUs.

In ``find_idlest_group_cpu`` an idle CPU with the smallest exit latency wins (``state``: the
exit-latency rank of its idle state, -2 idle without a cpuidle state, -1 busy), ties to the latest
``idle_stamp``, else the least loaded busy CPU (``runnable_load_avg`` before v5.5, ``load_avg``
from v5.5).

The fork scene (what rt-app does, read in scheduler-tools/rt-app ``src/rt-app.c``): the main
thread, running on ``parent_cpu``, calls ``pthread_create`` (clone: a fork balance with the
parent's affinity, all CPUs) for each thread in order; each new thread names itself and blocks in
``pthread_barrier_wait`` until the last one arrives. Modelled: each thread has blocked before the
next clone (its load and util stay on its CPU as blocked signals, undecayed over the few ms of
creation), the parent is the only runnable task (runnable load and ``load_avg`` ``parent_load``:
the caller's, ``lisa_eas.sim._fork.parent_load`` computes it with the era's PELT arithmetic;
util 0: not modelled), every idle CPU sits in the same idle state and a CPU a thread has
just left is the most recently idled one (``rq->idle_stamp``). The new task's util is 0 when its
CPU is chosen (``post_init_entity_util_avg`` runs after ``select_task_rq``), so the v4.x
spare-capacity rule is skipped at fork and no group is misfit.
"""
from __future__ import annotations

import numpy as np

from ._jit import kernel

FORK_V4_14 = 0      # find_idlest_group on runnable_load / load_avg with imbalance (v4.11 - v5.4 form)
FORK_V5_5 = 1       # 57abff067a08: group types, idle CPU counts (update_pick_idlest)
FORM_V4_14 = FORK_V4_14
FORM_V5_5 = FORK_V5_5

NICE_0_LOAD = 1024              # scale_load_down(NICE_0_LOAD): a nice-0 task's load_avg at init
NICE_0_WEIGHT = 1024 << 10      # se->load.weight of a nice-0 task on 64-bit (scale_load)
SCHED_CAPACITY_SCALE = 1024
CAPACITY_MARGIN = 1280          # task_fits_capacity: capacity * 1024 > util * 1280

# group types of the v5.5 form, in their enum order (only the ones the slow path reaches)
GROUP_HAS_SPARE, GROUP_FULLY_BUSY, GROUP_MISFIT, GROUP_OVERLOADED = 0, 1, 2, 5

STATE_BUSY = -1                 # ``state`` entries: not idle
STATE_NONE = -2                 # idle without a cpuidle state (idle_get_state() NULL)
_ULONG_MAX = (1 << 63) - 1      # stands for ULONG_MAX / UINT_MAX (never reached by a load)


def post_init_util(cpu_scale: int, cfs_util: int, cfs_load: int) -> int:
    """``post_init_entity_util_avg``: the new task's util_avg on a cfs_rq of util ``cfs_util`` and
    load_avg ``cfs_load`` on a CPU of capacity ``cpu_scale`` (``arch_scale_cpu_capacity``)."""
    cap = cpu_scale - cfs_util
    cap = -((-cap) // 2) if cap < 0 else cap // 2       # C's (long)(...) / 2 truncates toward zero
    if cap <= 0:
        return 0
    if cfs_util != 0:
        return min(cfs_util * NICE_0_WEIGHT // (cfs_load + 1), cap)
    return cap


@kernel
def _first_of_llc(c, llc):
    """The lowest CPU of ``c``'s LLC (the group's identity at DIE level)."""
    for d in range(llc.shape[0]):
        if llc[d] == llc[c]:
            return d
    return c


@kernel
def _n_llcs(llc):
    k = 0
    for c in range(llc.shape[0]):
        if _first_of_llc(c, llc) == c:
            k += 1
    return k


@kernel
def _llc_size(c, llc):
    k = 0
    for d in range(llc.shape[0]):
        if llc[d] == llc[c]:
            k += 1
    return k


@kernel
def _group_stats(form, wake, level, g, prev, cap, llc, nr, rload, load, util, state, allowed,
                 fit_util, task_load, pct, asym, out):
    """One group's statistics into ``out``: [allowed, runnable, avg_load, max_spare, type, v5.5
    avg_load, idle CPUs, max_capacity]. ``level`` 1: DIE (group = the LLC of CPU ``g``), 0: MC
    (group = CPU ``g``); ``asym``: the domain is SD_ASYM_CPUCAPACITY (misfit groups)."""
    n = cap.shape[0]
    any_allowed = 0
    rl = 0
    al = 0
    spare = 0
    gload = 0
    gutil = 0
    gnr = 0
    gidle = 0
    gcap = 0
    gmax = 0
    w = 0
    for c in range(n):
        if level == 1:
            if llc[c] != llc[g]:
                continue
        elif c != g:
            continue
        w += 1
        if allowed[c]:
            any_allowed = 1
        rl += rload[c]
        al += load[c]
        gcap += cap[c]
        if cap[c] > gmax:
            gmax = cap[c]
        s = cap[c] - util[c]                 # capacity_spare_wake: capacity_of - cpu_util_wake
        if s > spare:
            spare = s
        ld = load[c]
        if wake and c == prev:               # cpu_load_without: the task's blocked load off prev
            ld = ld - task_load if ld > task_load else 0
        gload += ld
        gutil += util[c]
        gnr += nr[c]
        if nr[c] == 0 and state[c] != STATE_BUSY:
            gidle += 1
    out[0] = any_allowed
    out[1] = rl * SCHED_CAPACITY_SCALE // gcap
    out[2] = al * SCHED_CAPACITY_SCALE // gcap
    out[3] = spare
    # group_classify (v5.5): overloaded, misfit, fully busy, has spare
    if gnr > w and gcap * 100 < gutil * pct:
        t = GROUP_OVERLOADED
    elif asym and not gmax * 1024 > fit_util * CAPACITY_MARGIN:
        t = GROUP_MISFIT
    elif gnr < w or gcap * 100 > gutil * pct:
        t = GROUP_HAS_SPARE
    else:
        t = GROUP_FULLY_BUSY
    out[4] = t
    out[5] = gload * SCHED_CAPACITY_SCALE // gcap if (t == GROUP_FULLY_BUSY or t == GROUP_OVERLOADED) else 0
    out[6] = gidle
    out[7] = gmax
    return 0


@kernel
def find_idlest_group(form, wake, level, this_cpu, prev, cap, llc, nr, rload, load, util, state, allowed,
                      task_util, fit_util, task_load, pct, asym):
    """``find_idlest_group(sd, p, this_cpu[, sd_flag])`` for the domain at ``level`` (1 DIE, 0 MC)
    of ``this_cpu``: the chosen group (a CPU of it: the first of its LLC at DIE, the CPU at MC) or
    -1 (NULL: stay)."""
    n = cap.shape[0]
    imbalance = NICE_0_LOAD * (pct - 100) // 100
    scale = 100 + (pct - 100) // 2
    st = np.zeros(8, np.int64)
    idlest = -1
    min_rl = _ULONG_MAX
    min_al = _ULONG_MAX
    this_rl = -1
    this_al = 0
    this_spare = 0
    most_spare = 0
    most_spare_g = -1
    i_type = GROUP_OVERLOADED
    i_avg = (1 << 32) - 1           # UINT_MAX
    i_idle = 0
    i_max = 0
    local = 0
    l_type = 0
    l_avg = 0
    l_idle = 0
    l_max = 0
    for k in range(n):
        c = (this_cpu + k) % n                  # groups from the local one, wrapping
        if level == 1:
            # the group of CPU c is visited at the first CPU of the wrap order that is in it
            first = True
            for j in range(k):
                if llc[(this_cpu + j) % n] == llc[c]:
                    first = False
                    break
            if not first:
                continue
            g = c
        else:
            if llc[c] != llc[this_cpu]:
                continue
            g = c
        _group_stats(form, wake, level, g, prev, cap, llc, nr, rload, load, util, state, allowed,
                     fit_util, task_load, pct, asym, st)
        if st[0] == 0:
            continue                            # no CPU of the group allowed
        is_local = llc[g] == llc[this_cpu] if level == 1 else g == this_cpu
        if form == FORM_V4_14:
            if is_local:
                this_rl = st[1]
                this_al = st[2]
                this_spare = st[3]
            else:
                if min_rl > st[1] + imbalance:
                    min_rl = st[1]
                    min_al = st[2]
                    idlest = g
                elif st[1] < min_rl + imbalance and 100 * min_al > scale * st[2]:
                    min_al = st[2]
                    idlest = g
                if most_spare < st[3]:
                    most_spare = st[3]
                    most_spare_g = g
        else:
            if is_local:
                local = 1
                l_type = st[4]
                l_avg = st[5]
                l_idle = st[6]
                l_max = st[7]
                continue
            t = st[4]
            if t < i_type:
                better = True
            elif t > i_type:
                better = False
            elif t == GROUP_OVERLOADED or t == GROUP_FULLY_BUSY:
                better = not i_avg <= st[5]
            elif t == GROUP_MISFIT:
                better = not i_max >= st[7]
            else:
                better = not i_idle >= st[6]
            if better:
                idlest = g
                i_type = t
                i_avg = st[5]
                i_idle = st[6]
                i_max = st[7]
    if form == FORM_V4_14:
        if wake:
            if this_rl >= 0 and this_spare > task_util // 2 and scale * this_spare > 100 * most_spare:
                return -1
            if most_spare > task_util // 2:
                return most_spare_g
        if idlest < 0:
            return -1
        if this_rl < 0:
            return idlest                       # the local group is not allowed
        if min_rl > this_rl + imbalance:
            return -1
        if this_rl < min_rl + imbalance and 100 * this_al < scale * min_al:
            return -1
        return idlest
    if idlest < 0:
        return -1
    if local == 0:
        return idlest
    if l_type < i_type:
        return -1
    if l_type > i_type:
        return idlest
    if l_type == GROUP_OVERLOADED or l_type == GROUP_FULLY_BUSY:
        if i_avg >= l_avg + imbalance or 100 * l_avg <= pct * i_avg:
            return -1
    elif l_type == GROUP_MISFIT:
        if l_max >= i_max:
            return -1
    elif l_idle >= i_idle:
        return -1
    return idlest


@kernel
def find_idlest_group_cpu(form, level, g, this_cpu, llc, rload, load, state, stamp, allowed):
    """``find_idlest_group_cpu(group, p, this_cpu)``."""
    if level == 0 or _llc_size(g, llc) == 1:
        return g                                # group_weight == 1: its CPU
    n = llc.shape[0]
    min_exit = _ULONG_MAX
    latest = 0
    shallowest = -1
    least = this_cpu
    min_load = _ULONG_MAX
    for c in range(n):
        if llc[c] != llc[g] or not allowed[c]:
            continue
        if state[c] != STATE_BUSY:
            has = state[c] >= 0
            if has and state[c] < min_exit:
                min_exit = state[c]
                latest = stamp[c]
                shallowest = c
            elif (not has or state[c] == min_exit) and stamp[c] > latest:
                latest = stamp[c]
                shallowest = c
        elif shallowest == -1:
            ld = rload[c] if form == FORM_V4_14 else load[c]
            if ld < min_load:
                min_load = ld
                least = c
    return shallowest if shallowest != -1 else least


@kernel
def find_idlest_cpu(form, wake, cpu, prev, cap, llc, nr, rload, load, util, state, stamp, allowed,
                    task_util, fit_util, task_load, pct_llc, pct_die, asym):
    """``find_idlest_cpu(sd, p, cpu, prev_cpu, sd_flag)`` from the top domain of ``cpu`` (the
    forking CPU, or the waking CPU ``smp_processor_id()`` at a wake-up), every domain carrying the
    flag (see the module docstring). Per CPU: ``cap`` capacity_of (the groups' ``sgc->capacity`` and
    ``max_capacity``), ``llc`` LLC id, ``nr`` rq->nr_running, ``rload`` the cfs_rq's
    runnable_load_avg, ``load`` its load_avg, ``util`` cpu_util_wake / cpu_util_without (the
    waking task's util off ``prev``, util_est, clamped to capacity_orig), ``state`` the idle
    state's exit-latency rank (``STATE_BUSY``, ``STATE_NONE``), ``stamp`` rq->idle_stamp,
    ``allowed`` the task's affinity. ``task_util``: ``task_util(p)`` of the v4.x spare rule;
    ``fit_util``: the util of v5.5's misfit test; ``task_load``: the task's load_avg (v5.5
    ``cpu_load_without`` on ``prev``); ``pct_llc`` / ``pct_die``: the MC and DIE domains'
    imbalance_pct (DIE: 125, 117 from v5.10, ledger topology-v5.10);
    ``asym``: the top domain (the lowest spanning every capacity: DIE, or MC when one LLC holds
    them all) is SD_ASYM_CPUCAPACITY. ``wake`` 0: SD_BALANCE_FORK (no spare rule, nothing to
    take off ``prev``)."""
    n = cap.shape[0]
    top = 1 if _n_llcs(llc) > 1 else (0 if _llc_size(cpu, llc) > 1 else -1)
    if top < 0:
        return cpu
    new_cpu = cpu
    level = top
    while level >= 0:
        if level == 0 and _llc_size(cpu, llc) < 2:
            break                               # no MC domain (degenerate): nothing below
        pct = pct_die if level == 1 else pct_llc
        g = find_idlest_group(form, wake, level, cpu, prev, cap, llc, nr, rload, load, util, state, allowed,
                              task_util, fit_util, task_load, pct, 1 if (asym != 0 and level == top) else 0)
        if g < 0:
            level -= 1
            continue
        new_cpu = find_idlest_group_cpu(form, level, g, cpu, llc, rload, load, state, stamp, allowed)
        if new_cpu == cpu:
            level -= 1
            continue
        # the highest domain of new_cpu below the span just balanced
        weight = n if level == 1 else _llc_size(cpu, llc)
        cpu = new_cpu
        level = 0 if (_llc_size(cpu, llc) > 1 and _llc_size(cpu, llc) < weight) else -1
    return new_cpu


def fork_threads(capacity, llc_id, parent_cpu: int, has_idle_state: bool, form: int, n_threads: int,
                 parent_load: int = NICE_0_LOAD, pct_die: int = 125):
    """Fork ``n_threads`` threads in order from a parent on ``parent_cpu`` whose runnable load and
    load_avg are ``parent_load``, with the DIE domain's ``imbalance_pct`` ``pct_die``; returns each
    thread's CPU and initial util_avg (``post_init_entity_util_avg``), the new task blocking before
    the next fork."""
    n = len(capacity)
    cap = np.array([int(c) for c in capacity], np.int64)
    llc = np.array([int(x) for x in llc_id], np.int64)
    nr = np.zeros(n, np.int64)
    rload = np.zeros(n, np.int64)
    load = np.zeros(n, np.int64)
    util = np.zeros(n, np.int64)
    stamp = np.zeros(n, np.int64)
    allowed = np.ones(n, np.int64)              # the parent's affinity
    idle_state = 0 if has_idle_state else STATE_NONE
    nr[parent_cpu] = 1
    rload[parent_cpu] = parent_load
    load[parent_cpu] = parent_load
    cpus, utils = [], []
    for k in range(n_threads):
        state = np.where(nr > 0, STATE_BUSY, idle_state).astype(np.int64)
        clamped = np.minimum(util, cap)
        c = int(find_idlest_cpu(form, 0, parent_cpu, parent_cpu, cap, llc, nr, rload, load, clamped, state,
                                stamp, allowed, 0, 0, 0, 117, pct_die, 0))
        u = post_init_util(int(cap[c]), int(util[c]), int(load[c]))
        util[c] += u
        load[c] += NICE_0_LOAD          # init_entity_runnable_average: load_avg = the weight
        if c != parent_cpu:
            stamp[c] = k + 1            # the thread blocks at the barrier: its CPU idles again
        cpus.append(c)
        utils.append(u)
    return cpus, utils
