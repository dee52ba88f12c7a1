"""Fork placement of an rt-app run's threads: ``wake_up_new_task`` -> ``select_task_rq_fair(SD_BALANCE_FORK)``
-> ``find_idlest_cpu`` (``find_idlest_group`` / ``find_idlest_group_cpu``), then
``post_init_entity_util_avg`` on the chosen CPU (ledger ``fork-v4.14``, ``fork-v5.5``).

Plain Python on integers: it runs once per thread when a run is set up (rt-app creates every
thread before the use case starts), not in the event loop. Read in a v4.19 tree
(0x88888888/Linux-4.19 at 57a18e1bebe8, ``kernel/sched/fair.c``) and in the stored
torvalds/linux ``fair.c`` at 000619680c37 (a v5.5/v5.6 state, ``update_sg_wakeup_stats`` /
``update_pick_idlest``).

The scene the kernel sees (what rt-app does, read in scheduler-tools/rt-app ``src/rt-app.c``):
the main thread, running on ``parent_cpu``, calls ``pthread_create`` (clone: a fork balance
with the parent's affinity, all CPUs) for each thread in order; each new thread names itself
and blocks in ``pthread_barrier_wait`` until the last one arrives. Modelled: each thread has
blocked before the next clone (its load and util stay on its CPU as blocked signals, undecayed
over the few ms of creation), the parent is the only runnable task (runnable load and
``load_avg`` ``NICE_0_LOAD`` = 1024, util 0: not modelled), every idle CPU sits in the same idle
state and a CPU a thread has just left is the most recently idled one (``rq->idle_stamp``).
The new task's util is 0 when its CPU is chosen (``post_init_entity_util_avg`` runs after
``select_task_rq``), so the v4.x spare-capacity rule is skipped at fork and no group is misfit.
"""
from __future__ import annotations

FORK_V4_14 = 0      # find_idlest_group on runnable_load / load_avg with imbalance (v4.11 - v5.4 form)
FORK_V5_5 = 1       # 57abff067a08: group types, idle CPU counts (update_pick_idlest)

NICE_0_LOAD = 1024              # scale_load_down(NICE_0_LOAD): a nice-0 task's load_avg at init
NICE_0_WEIGHT = 1024 << 10      # se->load.weight of a nice-0 task on 64-bit (scale_load)
SCHED_CAPACITY_SCALE = 1024

# group types of the v5.5 form, in their enum order (only the ones the fork path reaches)
GROUP_HAS_SPARE, GROUP_FULLY_BUSY, GROUP_OVERLOADED = 0, 1, 5


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


class ForkScene:
    """Per-CPU state of the fork scene (see the module docstring)."""

    def __init__(self, capacity, llc_id, parent_cpu: int, has_idle_state: bool):
        n = len(capacity)
        self.capacity = [int(c) for c in capacity]
        self.llc_id = [int(x) for x in llc_id]
        self.nr_running = [0] * n
        self.runnable_load = [0] * n
        self.load_avg = [0] * n
        self.util_avg = [0] * n
        self.idle_stamp = [0] * n
        self.has_idle_state = has_idle_state
        self.parent = parent_cpu
        self.nr_running[parent_cpu] = 1
        self.runnable_load[parent_cpu] = NICE_0_LOAD
        self.load_avg[parent_cpu] = NICE_0_LOAD
        self.clock = 0

    # sched domains: MC over each LLC (groups: single CPUs), DIE over all CPUs (groups: the LLCs),
    # each kept only when it has more than one group (degenerate domains are removed)
    def domains(self, cpu: int):
        """The domains of ``cpu``, lowest first: ``(span, groups, imbalance_pct)``; each group list
        starts at the group of ``cpu`` and wraps (``build_sched_groups``)."""
        n = len(self.capacity)
        out = []
        llc = [c for c in range(n) if self.llc_id[c] == self.llc_id[cpu]]
        if len(llc) > 1:
            out.append((llc, [[c] for c in _wrap(llc, cpu)], 117))      # SD_SHARE_PKG_RESOURCES
        ids = sorted(set(self.llc_id))
        if len(ids) > 1:
            first = [c for c in range(n)]
            groups, seen = [], set()
            for c in _wrap(first, cpu):
                if self.llc_id[c] not in seen:
                    seen.add(self.llc_id[c])
                    groups.append([d for d in range(n) if self.llc_id[d] == self.llc_id[c]])
            out.append((first, groups, 125))                            # sd_init's default
        return out

    def idle(self, c: int) -> bool:
        return self.nr_running[c] == 0


def _wrap(span, start):
    i = span.index(start)
    return span[i:] + span[:i]


def _idlest_group_v4(sc: ForkScene, groups, pct: int, this_cpu: int, allowed):
    imbalance = NICE_0_LOAD * (pct - 100) // 100
    scale = 100 + (pct - 100) // 2
    idlest, min_rl, min_al = None, None, None
    this_rl = this_al = None
    for g in groups:
        if not any(allowed[c] for c in g):
            continue
        cap = sum(sc.capacity[c] for c in g)
        rl = sum(sc.runnable_load[c] for c in g) * SCHED_CAPACITY_SCALE // cap     # source/target_load(i, 0)
        al = sum(sc.load_avg[c] for c in g) * SCHED_CAPACITY_SCALE // cap
        if this_cpu in g:
            this_rl, this_al = rl, al
        elif min_rl is None or min_rl > rl + imbalance:
            idlest, min_rl, min_al = g, rl, al
        elif rl < min_rl + imbalance and 100 * min_al > scale * al:
            idlest, min_al = g, al
    # SD_BALANCE_FORK: the spare-capacity choice is skipped
    if idlest is None:
        return None
    if this_rl is None:
        return idlest
    if min_rl > this_rl + imbalance:
        return None
    if this_rl < min_rl + imbalance and 100 * this_al < scale * min_al:
        return None
    return idlest


def _wakeup_stats(sc: ForkScene, g, pct: int):
    load = sum(sc.load_avg[c] for c in g)
    util = sum(min(sc.util_avg[c], sc.capacity[c]) for c in g)
    nr = sum(sc.nr_running[c] for c in g)
    idle = sum(1 for c in g if sc.idle(c))
    cap = sum(sc.capacity[c] for c in g)
    if nr > len(g) and cap * 100 < util * pct:
        gtype = GROUP_OVERLOADED
    elif nr < len(g) or cap * 100 > util * pct:
        gtype = GROUP_HAS_SPARE
    else:
        gtype = GROUP_FULLY_BUSY
    avg = load * SCHED_CAPACITY_SCALE // cap if gtype >= GROUP_FULLY_BUSY else 0
    return gtype, avg, idle


def _idlest_group_v55(sc: ForkScene, groups, pct: int, this_cpu: int, allowed):
    imbalance = NICE_0_LOAD * (pct - 100) // 100
    idlest, i_type, i_avg, i_idle = None, GROUP_OVERLOADED, (1 << 32) - 1, 0
    local = None
    for g in groups:
        if not any(allowed[c] for c in g):
            continue
        st = _wakeup_stats(sc, g, pct)
        if this_cpu in g:
            local = st
            continue
        gtype, avg, idle = st
        if gtype < i_type:
            better = True
        elif gtype > i_type:
            better = False
        elif gtype == GROUP_HAS_SPARE:
            better = i_idle < idle
        else:
            better = i_avg > avg
        if better:
            idlest, i_type, i_avg, i_idle = g, gtype, avg, idle
    if idlest is None:
        return None
    if local is None:
        return idlest
    l_type, l_avg, l_idle = local
    if l_type < i_type:
        return None
    if l_type > i_type:
        return idlest
    if l_type == GROUP_HAS_SPARE:
        return None if l_idle >= i_idle else idlest
    if i_avg >= l_avg + imbalance or 100 * l_avg <= pct * i_avg:
        return None
    return idlest


def _idlest_group_cpu(sc: ForkScene, form: int, g, this_cpu: int, allowed) -> int:
    if len(g) == 1:
        return g[0]
    min_exit = None         # every idle CPU in the same state: one exit latency
    latest, shallowest, least, min_load = 0, -1, this_cpu, None
    for c in g:
        if not allowed[c]:
            continue
        if sc.idle(c):
            if sc.has_idle_state and min_exit is None:
                min_exit, latest, shallowest = 0, sc.idle_stamp[c], c
            elif sc.idle_stamp[c] > latest:
                latest, shallowest = sc.idle_stamp[c], c
        elif shallowest == -1:
            load = sc.runnable_load[c] if form == FORK_V4_14 else sc.load_avg[c]
            if min_load is None or load < min_load:
                min_load, least = load, c
    return shallowest if shallowest != -1 else least


def find_idlest_cpu(sc: ForkScene, form: int, allowed) -> int:
    """``find_idlest_cpu(sd, p, cpu = prev_cpu = parent_cpu, SD_BALANCE_FORK)`` from the top domain."""
    cpu = sc.parent
    doms = sc.domains(cpu)
    if not doms:
        return cpu
    level = len(doms) - 1
    new_cpu = cpu
    pick = _idlest_group_v4 if form == FORK_V4_14 else _idlest_group_v55
    while level >= 0:
        span, groups, pct = sc.domains(cpu)[level]
        g = pick(sc, groups, pct, cpu, allowed)
        if g is None:
            level -= 1
            continue
        new_cpu = _idlest_group_cpu(sc, form, g, cpu, allowed)
        if new_cpu == cpu:
            level -= 1
            continue
        weight = len(span)
        cpu = new_cpu
        lower = [i for i, d in enumerate(sc.domains(cpu)) if len(d[0]) < weight]
        level = lower[-1] if lower else -1
    return new_cpu


def fork_threads(capacity, llc_id, parent_cpu: int, has_idle_state: bool, form: int, n_threads: int):
    """Fork ``n_threads`` threads in order from a parent on ``parent_cpu``; returns each thread's CPU
    and initial util_avg (``post_init_entity_util_avg``), the new task blocking before the next fork."""
    sc = ForkScene(capacity, llc_id, parent_cpu, has_idle_state)
    allowed = [True] * len(sc.capacity)         # the parent's affinity
    cpus, utils = [], []
    for _ in range(n_threads):
        c = find_idlest_cpu(sc, form, allowed)
        u = post_init_util(sc.capacity[c], sc.util_avg[c], sc.load_avg[c])
        sc.util_avg[c] += u
        sc.load_avg[c] += NICE_0_LOAD       # init_entity_runnable_average: load_avg = the weight
        sc.clock += 1
        if c != sc.parent:
            sc.idle_stamp[c] = sc.clock     # the thread blocks at the barrier: its CPU idles again
        cpus.append(c)
        utils.append(u)
    return cpus, utils
