"""Plain-Python twin of the kernel's reworked ``load_balance()`` (v5.5+, as in v5.18), one level.

Written from kernel/sched/fair.c and kernel/sched/topology.c of v5.18.12 (a verbatim copy in
github esuoyanyu/kernel-5.18, commit 4b13cea91dc681a16955ce8fbef92b81486f3f4c, under
``common/``; blobs cc8daa3d (fair.c) and 810750e6 (topology.c)); the NUMA allowance is the one of
e496132ebedd "sched/fair: Adjust the allowed NUMA imbalance when SD_NUMA spans multiple LLCs"
(v5.18-rc1, with ``allow_numa_imbalance(running, imb_numa_nr)`` = ``running <= imb_numa_nr``).
Functions: ``task_hot``, ``can_migrate_task``, ``detach_tasks``, ``detach_one_task`` (the
stopper), ``update_sg_lb_stats``, ``group_has_capacity``, ``group_is_overloaded``,
``group_classify``, ``update_sd_pick_busiest``, ``update_sd_lb_stats``, ``adjust_numa_imbalance``,
``calculate_imbalance``, ``find_busiest_group``, ``find_busiest_queue``, ``asym_active_balance``,
``imbalanced_active_balance``, ``need_active_balance``, ``should_we_balance``, ``load_balance``;
``sd_init`` and the imb_numa_nr loop of ``build_sched_domains``.

Domains (``sd_init`` of v5.18; since v5.10 the default ``imbalance_pct`` is 117 for every level but
SMT): MC (SD_SHARE_PKG_RESOURCES, imbalance_pct 117, cache_nice_tries 1, groups = single CPUs), DIE
(117, cache_nice_tries 1, groups = the LLCs of the package; exists when the package holds more
than one LLC), NUMA (SD_NUMA, 117, cache_nice_tries 2, groups = nodes, one NUMA distance; a node
is a package). SD_PREFER_SIBLING is set on every level but NUMA; a level with
SD_ASYM_CPUCAPACITY (its span holds two or more ``capacity_orig`` values) clears it on its child;
``sds->prefer_sibling`` is the child's flag. ``imb_numa_nr`` of the NUMA level: nr_llcs = node
weight / LLC weight; ``node_weight >> 2`` when nr_llcs == 1, else nr_llcs (times
max(1, NUMA span / first NUMA span) = 1 here). Constants: migration cost 500 us,
sysctl_sched_nr_migrate 32, ``fits_capacity`` margin 1280/1024, ``capacity_greater`` 1078/1024,
NUMA_IMBALANCE_MIN 2, LB_MIN off, CACHE_HOT_BUDDY on, CONFIG_PREEMPTION (a NEWLY_IDLE balance
detaches one task).

:func:`load_balance` is a pure function of per-CPU views (:class:`LbCpu`, each with its
``cfs_tasks`` list head first as :class:`LbTask`) and returns what the balance decided
(:class:`LbResult`). Unsigned arithmetic is kept where the kernel's can wrap (the unsigned int
``idle_cpus`` difference, the unsigned long avg_load differences).

Not modelled: group_asym_packing / SD_ASYM_PACKING (and the SMT asym helpers), SMT levels
(SD_SHARE_CPUCAPACITY), NUMA balancing (``migrate_degrades_locality`` is taken as -1, fbq_type as
``all``: no task has NUMA faults), more than one NUMA distance (overlapping groups), cgroups
(task_h_load is the task's load_avg), throttled pairs, core scheduling cookies, SCHED_IDLE tasks,
LBF_DST_PINNED re-targeting to another CPU of the local group (``dst_pinned`` in the result says
where the kernel would do it), LBF_NEED_BREAK (never reached: loop_max <= 32), balance intervals,
nohz kicks, the root domain ``overload`` flag, CPU hotplug (every CPU active).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["LbTask", "LbCpu", "LbDomain", "LbResult", "NOT_IDLE", "IDLE", "NEWLY_IDLE",
           "GROUP_HAS_SPARE", "GROUP_FULLY_BUSY", "GROUP_MISFIT_TASK", "GROUP_ASYM_PACKING",
           "GROUP_IMBALANCED", "GROUP_OVERLOADED", "MIGRATE_LOAD", "MIGRATE_UTIL", "MIGRATE_TASK",
           "MIGRATE_MISFIT", "levels", "domain", "find_busiest_group", "find_busiest_queue",
           "detach_tasks", "load_balance"]

NOT_IDLE, IDLE, NEWLY_IDLE = "busy", "idle", "newidle"
# enum group_type, in pulling priority order
GROUP_HAS_SPARE, GROUP_FULLY_BUSY, GROUP_MISFIT_TASK, GROUP_ASYM_PACKING, GROUP_IMBALANCED, \
    GROUP_OVERLOADED = range(6)
MIGRATE_LOAD, MIGRATE_UTIL, MIGRATE_TASK, MIGRATE_MISFIT = "load", "util", "task", "misfit"

SCALE = 1024
MIGRATION_COST_NS = 500_000
NR_MIGRATE = 32
NUMA_IMBALANCE_MIN = 2
U32 = (1 << 32) - 1
U64 = (1 << 64) - 1


def fits_capacity(cap, max_cap):
    return cap * 1280 < max_cap * 1024


def capacity_greater(cap1, cap2):
    return cap1 * 1024 > cap2 * 1078


@dataclass(frozen=True)
class LbTask:
    """One entry of a runqueue's ``cfs_tasks`` list."""

    idx: int
    load: int                        # task_h_load = se.avg.load_avg (no cgroups)
    util: int = 0                    # task_util_est
    exec_start: int = 0              # se.exec_start (rq_clock_task ns)
    running: bool = False            # task_running(src_rq, p)
    cpus: frozenset | None = None    # cpus_ptr; None: every CPU
    uclamp_util: int | None = None   # uclamp_task_util when it differs from util
    buddy: bool = False              # cfs_rq->next or ->last (CACHE_HOT_BUDDY)
    percpu_kthread: bool = False     # kthread_is_per_cpu

    def allowed(self, cpu):
        return self.cpus is None or cpu in self.cpus


@dataclass(frozen=True)
class LbCpu:
    """One CPU as the balancer reads it."""

    load: int                 # cpu_load = cfs_rq->avg.load_avg
    util: int                 # cpu_util_cfs
    runnable: int             # cpu_runnable = cfs_rq->avg.runnable_avg
    nr_running: int           # rq->nr_running (every class)
    h_nr_running: int         # rq->cfs.h_nr_running
    capacity: int             # capacity_of
    capacity_orig: int        # capacity_orig_of (arch_scale_cpu_capacity)
    llc: int
    node: int = 0             # NUMA node = package
    idle: bool | None = None  # idle_cpu(); None: nr_running == 0
    tasks: tuple = ()         # cfs_tasks, head first
    misfit_task_load: int = 0  # rq->misfit_task_load
    curr_cpus: frozenset | None = None  # cpus_ptr of a non-CFS rq->curr (a CFS curr is in tasks)
    active_balance: bool = False        # a stopper work is already pending on this rq

    def is_idle(self):
        return self.nr_running == 0 if self.idle is None else self.idle

    def curr_allows(self, cpu):
        run = next((t for t in self.tasks if t.running), None)
        if run is not None:
            return run.allowed(cpu)
        return self.curr_cpus is None or cpu in self.curr_cpus


@dataclass(frozen=True)
class LbDomain:
    name: str
    span: tuple
    groups: tuple             # tuples of CPUs, local group first, then in wrap order from dst
    numa: bool
    pkg: bool                 # SD_SHARE_PKG_RESOURCES
    asym: bool                # SD_ASYM_CPUCAPACITY
    imbalance_pct: int
    cache_nice_tries: int
    prefer_sibling: bool      # child && child->flags & SD_PREFER_SIBLING
    imb_numa_nr: int
    has_parent: bool


@dataclass
class LbResult:
    moved: tuple = ()          # detached task indices, in detach order
    src: int = -1
    active: int = -1           # task moved by the stopper (active_load_balance_cpu_stop), or -1
    skipped: tuple = ()        # tasks moved to the list head by detach_tasks, in order
    nr_balance_failed: int = 0
    continue_balancing: bool = True
    imbalance: int = 0         # env->imbalance from find_busiest_group (last pass)
    imbalance_left: int = 0    # env->imbalance after detach_tasks
    migration_type: str = ""
    busiest_group: tuple | None = None
    outcome: str = ""          # stop, balanced, no-queue, moved, pinned, failed, one-pinned, active
    excluded: tuple = ()       # CPUs dropped from env->cpus by LBF_ALL_PINNED redo passes
    parent_imbalance: bool | None = None   # sd_parent's local sgc->imbalance set / cleared / untouched
    dst_pinned: bool = False   # the kernel would re-target to another CPU of the local group
    overutilized: bool = False  # rd->overutilized after update_sd_lb_stats
    stats: dict = field(default_factory=dict)


def _wrap_groups(gs, dst, n):
    def key(g):
        return min((i - dst) % n for i in g)
    return tuple(tuple(sorted(g)) for g in sorted(gs, key=key))


def _asym(cpus, span):
    return len({cpus[i].capacity_orig for i in span}) > 1


def levels(llcs, dst, nodes=None):
    """The non-degenerate domain levels of ``dst``, lowest first."""
    n = len(llcs)
    nodes = list(nodes) if nodes is not None else [0] * n
    llc = [i for i in range(n) if llcs[i] == llcs[dst] and nodes[i] == nodes[dst]]
    pkg = [i for i in range(n) if nodes[i] == nodes[dst]]
    out = []
    if len(llc) > 1:
        out.append("MC")
    if len({llcs[i] for i in pkg}) > 1:
        out.append("DIE")
    if len(set(nodes)) > 1:
        out.append("NUMA")
    return out


def domain(cpus, dst, level):
    """The ``sched_domain`` of ``dst`` at ``level`` as sd_init / build_sched_domains leave it."""
    n = len(cpus)
    lv = levels([c.llc for c in cpus], dst, [c.node for c in cpus])
    if level not in lv:
        raise ValueError(f"no {level} domain for CPU {dst}: {lv}")
    node = [i for i in range(n) if cpus[i].node == cpus[dst].node]
    llc = [i for i in node if cpus[i].llc == cpus[dst].llc]
    has_parent = lv.index(level) < len(lv) - 1
    if level == "MC":
        span, gs = llc, [[i] for i in llc]
        return LbDomain("MC", tuple(span), _wrap_groups(gs, dst, n), False, True, _asym(cpus, span), 117, 1,
                        False, 0, has_parent)
    if level == "DIE":
        by = {}
        for i in node:
            by.setdefault(cpus[i].llc, []).append(i)
        asym = _asym(cpus, node)
        # MC child keeps SD_PREFER_SIBLING unless DIE is asymmetric; no child when MC degenerated
        pref = "MC" in lv and not asym
        return LbDomain("DIE", tuple(node), _wrap_groups(by.values(), dst, n), False, False, asym, 117, 1,
                        pref, 0, has_parent)
    by = {}
    for i in range(n):
        by.setdefault(cpus[i].node, []).append(i)
    asym, die_asym = _asym(cpus, range(n)), _asym(cpus, node)
    # the child's SD_PREFER_SIBLING: DIE's is cleared by an asymmetric NUMA level, MC's by an
    # asymmetric DIE; a DIE with MC's span degenerates and hands its flag down to MC
    if "DIE" in lv:
        pref = not asym
    elif "MC" in lv:
        pref = not die_asym or not asym
    else:
        pref = False
    nr_llcs = len(node) // len(llc)
    imb = len(node) >> 2 if nr_llcs == 1 else nr_llcs
    return LbDomain("NUMA", tuple(range(n)), _wrap_groups(by.values(), dst, n), True, False, asym, 117, 2,
                    pref, imb, has_parent)


# ---- statistics -------------------------------------------------------------------------------

def _has_capacity(pct, s):
    """group_has_capacity()."""
    if s["sum_nr_running"] < s["group_weight"]:
        return True
    if s["group_capacity"] * pct < s["group_runnable"] * 100:
        return False
    return s["group_capacity"] * 100 > s["group_util"] * pct


def _is_overloaded(pct, s):
    """group_is_overloaded() (with the v5.7 runnable test)."""
    if s["sum_nr_running"] <= s["group_weight"]:
        return False
    if s["group_capacity"] * 100 < s["group_util"] * pct:
        return True
    return s["group_capacity"] * pct < s["group_runnable"] * 100


def _classify(pct, s, imbalanced):
    """group_classify() (no group_asym_packing)."""
    if _is_overloaded(pct, s):
        return GROUP_OVERLOADED
    if imbalanced:
        return GROUP_IMBALANCED
    if s["group_misfit_task_load"]:
        return GROUP_MISFIT_TASK
    if not _has_capacity(pct, s):
        return GROUP_FULLY_BUSY
    return GROUP_HAS_SPARE


def _sg_stats(cpus, sd, g, env_cpus, local, imbalanced):
    """update_sg_lb_stats(): (stats, overutilized seen)."""
    s = dict(group_load=0, group_util=0, group_runnable=0, sum_nr_running=0, sum_h_nr_running=0,
             idle_cpus=0, group_misfit_task_load=0, avg_load=0)
    over = False
    for i in g:
        if i not in env_cpus:
            continue
        c = cpus[i]
        s["group_load"] += c.load
        s["group_util"] += c.util
        s["group_runnable"] += c.runnable
        s["sum_h_nr_running"] += c.h_nr_running
        s["sum_nr_running"] += c.nr_running
        if not fits_capacity(c.util, c.capacity):       # cpu_overutilized
            over = True
        if c.nr_running == 0 and c.is_idle():
            s["idle_cpus"] += 1
            continue
        if local:
            continue
        if sd.asym and s["group_misfit_task_load"] < c.misfit_task_load:
            s["group_misfit_task_load"] = c.misfit_task_load
    s["group_capacity"] = sum(cpus[i].capacity for i in g)          # update_group_capacity
    s["min_capacity"] = min(cpus[i].capacity for i in g)
    s["max_capacity"] = max(cpus[i].capacity for i in g)
    s["group_weight"] = len(g)
    s["group_type"] = _classify(sd.imbalance_pct, s, imbalanced)
    if s["group_type"] == GROUP_OVERLOADED:
        s["avg_load"] = s["group_load"] * SCALE // s["group_capacity"]
    return s, over


def _pick_busiest(cpus, sd, dst, sds, s):
    """update_sd_pick_busiest() (no group_asym_packing)."""
    b = sds["busiest_stat"]
    if not s["sum_h_nr_running"]:
        return False
    if s["group_type"] == GROUP_MISFIT_TASK and (
            not capacity_greater(cpus[dst].capacity, s["max_capacity"])
            or sds["local_stat"]["group_type"] != GROUP_HAS_SPARE):
        return False
    if s["group_type"] > b["group_type"]:
        return True
    if s["group_type"] < b["group_type"]:
        return False
    t = s["group_type"]
    if t in (GROUP_OVERLOADED, GROUP_FULLY_BUSY):
        if s["avg_load"] <= b["avg_load"]:
            return False
    elif t == GROUP_IMBALANCED:
        return False
    elif t == GROUP_MISFIT_TASK:
        if s["group_misfit_task_load"] < b["group_misfit_task_load"]:
            return False
    elif t == GROUP_HAS_SPARE:
        if s["idle_cpus"] > b["idle_cpus"]:
            return False
        if s["idle_cpus"] == b["idle_cpus"] and s["sum_nr_running"] <= b["sum_nr_running"]:
            return False
    if sd.asym and t <= GROUP_FULLY_BUSY and capacity_greater(s["min_capacity"], cpus[dst].capacity):
        return False
    return True


def _adjust_numa_imbalance(imbalance, dst_running, imb_numa_nr):
    if not dst_running <= imb_numa_nr:            # allow_numa_imbalance
        return imbalance
    if imbalance <= NUMA_IMBALANCE_MIN:
        return 0
    return imbalance


def _calculate_imbalance(sd, idle, sds):
    """calculate_imbalance(): (migration_type, imbalance)."""
    local, busiest = sds["local_stat"], sds["busiest_stat"]
    bt = busiest["group_type"]
    if bt == GROUP_MISFIT_TASK:
        return MIGRATE_MISFIT, 1
    if bt == GROUP_IMBALANCED:
        return MIGRATE_TASK, 1
    if local["group_type"] == GROUP_HAS_SPARE:
        if bt > GROUP_FULLY_BUSY and not sd.pkg:
            imb = max(local["group_capacity"], local["group_util"]) - local["group_util"]
            if idle != NOT_IDLE and imb == 0:
                return MIGRATE_TASK, 1
            return MIGRATE_UTIL, imb
        if busiest["group_weight"] == 1 or sds["prefer_sibling"]:
            imb = max(0, busiest["sum_nr_running"] - local["sum_nr_running"]) >> 1
        else:
            imb = ((local["idle_cpus"] - busiest["idle_cpus"]) & U32) >> 1      # unsigned int
        if sd.numa:
            imb = _adjust_numa_imbalance(imb, local["sum_nr_running"] + 1, sd.imb_numa_nr)
        return MIGRATE_TASK, imb
    if local["group_type"] < GROUP_OVERLOADED:
        local["avg_load"] = local["group_load"] * SCALE // local["group_capacity"]
        sds["avg_load"] = sds["total_load"] * SCALE // sds["total_capacity"]
        if local["avg_load"] >= busiest["avg_load"]:
            return "", 0
    a = ((busiest["avg_load"] - sds["avg_load"]) & U64) * busiest["group_capacity"] & U64
    b = ((sds["avg_load"] - local["avg_load"]) & U64) * local["group_capacity"] & U64
    return MIGRATE_LOAD, min(a, b) // SCALE


def find_busiest_group(cpus, dst, sd, idle, env_cpus, *, eas=False, overutilized=True,
                       imbalanced_groups=()):
    """update_sd_lb_stats() + find_busiest_group(): (busiest group or None, migration_type,
    imbalance, sds). ``sds["overutilized"]`` is rd->overutilized after the statistics pass."""
    init = dict(group_load=0, group_util=0, group_runnable=0, sum_nr_running=0, sum_h_nr_running=0,
                group_misfit_task_load=0, avg_load=0, group_capacity=0, group_weight=0)
    sds = {"busiest": None, "busiest_stat": dict(init, idle_cpus=U32, group_type=GROUP_HAS_SPARE),
           "total_load": 0, "total_capacity": 0, "avg_load": 0, "groups": [],
           "prefer_sibling": sd.prefer_sibling}
    over = False
    imb_set = {tuple(sorted(g)) for g in imbalanced_groups}
    for k, g in enumerate(sd.groups):
        s, o = _sg_stats(cpus, sd, g, env_cpus, k == 0, g in imb_set)
        over |= o
        sds["groups"].append((g, s))
        if k == 0:
            sds["local"], sds["local_stat"] = g, s
        elif _pick_busiest(cpus, sd, dst, sds, s):
            sds["busiest"], sds["busiest_stat"] = g, s
        sds["total_load"] += s["group_load"]
        sds["total_capacity"] += s["group_capacity"]
    sds["overutilized"] = over if not sd.has_parent else (overutilized or over)
    local, busiest = sds["local_stat"], sds["busiest_stat"]

    def balanced():
        return None, "", 0, sds

    if eas and not sds["overutilized"]:
        return balanced()
    if sds["busiest"] is None:
        return balanced()
    bt = busiest["group_type"]
    force = bt in (GROUP_MISFIT_TASK, GROUP_IMBALANCED)
    if not force:
        if local["group_type"] > bt:
            return balanced()
        if local["group_type"] == GROUP_OVERLOADED:
            if local["avg_load"] >= busiest["avg_load"]:
                return balanced()
            sds["avg_load"] = sds["total_load"] * SCALE // sds["total_capacity"]
            if local["avg_load"] >= sds["avg_load"]:
                return balanced()
            if 100 * busiest["avg_load"] <= sd.imbalance_pct * local["avg_load"]:
                return balanced()
        if sds["prefer_sibling"] and local["group_type"] == GROUP_HAS_SPARE and \
                busiest["sum_nr_running"] > local["sum_nr_running"] + 1:
            force = True
    if not force and bt != GROUP_OVERLOADED:
        if idle == NOT_IDLE:
            return balanced()
        if busiest["group_weight"] > 1 and local["idle_cpus"] <= busiest["idle_cpus"] + 1:
            return balanced()
        if busiest["sum_h_nr_running"] == 1:
            return balanced()
    mtype, imbalance = _calculate_imbalance(sd, idle, sds)
    return (sds["busiest"] if imbalance else None), mtype, imbalance, sds


def find_busiest_queue(cpus, dst, sd, group, mtype, imbalance, env_cpus):
    """find_busiest_queue() by migration type (fbq_type ``all``, no SD_ASYM_PACKING)."""
    best, b_load, b_cap, b_util, b_nr = -1, 0, 1, 0, 0
    for i in group:
        if i not in env_cpus:
            continue
        c = cpus[i]
        nr = c.h_nr_running
        if not nr:
            continue
        cap = c.capacity
        if sd.asym and not capacity_greater(cpus[dst].capacity, cap) and nr == 1:
            continue
        if mtype == MIGRATE_LOAD:
            reduced = c.capacity * sd.imbalance_pct < c.capacity_orig * 100      # check_cpu_capacity
            if nr == 1 and c.load > imbalance and not reduced:
                continue
            if c.load * b_cap > b_load * cap:
                best, b_load, b_cap = i, c.load, cap
        elif mtype == MIGRATE_UTIL:
            if nr <= 1:
                continue
            if b_util < c.util:
                best, b_util = i, c.util
        elif mtype == MIGRATE_TASK:
            if b_nr < nr:
                best, b_nr = i, nr
        elif mtype == MIGRATE_MISFIT:
            if c.misfit_task_load > b_load:
                best, b_load = i, c.misfit_task_load
    return best


def _task_hot(p, src, dst_cpu, cpus, now):
    if p.buddy and cpus[dst_cpu].nr_running:
        return True
    return now - p.exec_start < MIGRATION_COST_NS


def detach_tasks(cpus, src, dst, sd, idle, mtype, imbalance, now, nr_balance_failed):
    """detach_tasks(): (detached, skipped, imbalance left, flags, list after) where flags holds
    "all_pinned" (LBF_ALL_PINNED still set), "some_pinned", "dst_pinned"."""
    s = cpus[src]
    lst = list(s.tasks)
    flags = {"all_pinned"}
    if imbalance <= 0:
        return (), (), imbalance, flags, lst
    nr_running = s.nr_running
    loop, loop_max = 0, min(NR_MIGRATE, s.nr_running)
    local = sd.groups[0]
    detached, skipped = [], []
    while lst:
        if idle != NOT_IDLE and nr_running <= 1:
            break
        p = lst[-1]
        loop += 1
        if loop > loop_max:
            break
        ok = not p.percpu_kthread
        if ok and not p.allowed(dst):
            ok = False
            flags.add("some_pinned")
            if idle != NEWLY_IDLE and "dst_pinned" not in flags and \
                    any(p.allowed(c) for c in local if c != dst):
                flags.add("dst_pinned")
        elif ok:
            flags.discard("all_pinned")
            if p.running:
                ok = False
            elif _task_hot(p, src, dst, cpus, now) and nr_balance_failed <= sd.cache_nice_tries:
                ok = False
        if ok:
            if mtype == MIGRATE_LOAD:
                load = max(p.load, 1)
                if (load >> min(nr_balance_failed, 63)) > imbalance:       # shr_bound
                    ok = False
                else:
                    imbalance -= load
            elif mtype == MIGRATE_UTIL:
                if p.util > imbalance:
                    ok = False
                else:
                    imbalance -= p.util
            elif mtype == MIGRATE_TASK:
                imbalance -= 1
            elif mtype == MIGRATE_MISFIT:
                u = p.util if p.uclamp_util is None else p.uclamp_util
                if fits_capacity(u, s.capacity):
                    ok = False
                else:
                    imbalance = 0
        if not ok:
            lst.pop()
            lst.insert(0, p)
            skipped.append(p.idx)
            continue
        lst.pop()
        nr_running -= 1
        detached.append(p.idx)
        if idle == NEWLY_IDLE:
            break
        if imbalance <= 0:
            break
    return tuple(detached), tuple(skipped), imbalance, flags, lst


def _should_we_balance(cpus, dst, sd, idle, env_cpus):
    if dst not in env_cpus:
        return False
    if idle == NEWLY_IDLE:
        return True
    local = sd.groups[0]
    for i in local:
        if i in env_cpus and cpus[i].is_idle():
            return i == dst
    return local[0] == dst


def _need_active_balance(cpus, src, dst, sd, idle, mtype, failed):
    if mtype == MIGRATE_TASK and failed > sd.cache_nice_tries + 2:   # imbalanced_active_balance
        return True
    s, d = cpus[src], cpus[dst]
    if idle != NOT_IDLE and s.h_nr_running == 1:
        if s.capacity * sd.imbalance_pct < s.capacity_orig * 100 and \
                s.capacity * sd.imbalance_pct < d.capacity * 100:
            return True
    return mtype == MIGRATE_MISFIT


def load_balance(cpus, dst, level, idle, now, nr_balance_failed, *, eas=False, overutilized=True,
                 imbalanced_groups=()):
    """One ``load_balance(dst, sd, idle)`` at ``level`` ("MC", "DIE", "NUMA"); ``idle`` NOT_IDLE,
    IDLE or NEWLY_IDLE; ``nr_balance_failed`` the level's counter before; ``eas``:
    sched_energy_enabled() with a perf domain; ``overutilized``: rd->overutilized before;
    ``imbalanced_groups``: groups of this level whose sgc->imbalance is set."""
    sd = domain(cpus, dst, level)
    env_cpus = set(sd.span)
    res = LbResult(nr_balance_failed=nr_balance_failed)
    all_pinned = False
    excluded = []

    def out_balanced(outcome, keep_flags_pinned):
        if sd.has_parent and not keep_flags_pinned:
            res.parent_imbalance = False
        res.nr_balance_failed = 0
        res.outcome = outcome
        res.excluded = tuple(excluded)
        return res

    while True:
        if not _should_we_balance(cpus, dst, sd, idle, env_cpus):
            res.continue_balancing = False
            return out_balanced("stop", all_pinned)
        group, mtype, imbalance, sds = find_busiest_group(
            cpus, dst, sd, idle, env_cpus, eas=eas, overutilized=overutilized,
            imbalanced_groups=imbalanced_groups)
        res.stats, res.overutilized = sds, sds["overutilized"]
        res.imbalance, res.migration_type, res.busiest_group = imbalance, mtype, group
        if group is None:
            return out_balanced("balanced", all_pinned)
        src = find_busiest_queue(cpus, dst, sd, group, mtype, imbalance, env_cpus)
        if src < 0:
            return out_balanced("no-queue", all_pinned)
        res.src = src
        s = cpus[src]
        all_pinned = True
        lst = list(s.tasks)
        res.moved, res.skipped, res.imbalance_left = (), (), imbalance
        if s.nr_running > 1:
            moved, skipped, left, flags, lst = detach_tasks(cpus, src, dst, sd, idle, mtype, imbalance, now,
                                                            nr_balance_failed)
            res.moved, res.skipped, res.imbalance_left = moved, skipped, left
            all_pinned = "all_pinned" in flags
            res.dst_pinned = "dst_pinned" in flags and left > 0
            if sd.has_parent and "some_pinned" in flags and left > 0:
                res.parent_imbalance = True
            if all_pinned:
                env_cpus.discard(src)
                excluded.append(src)
                if not env_cpus <= set(sd.groups[0]):
                    all_pinned = True
                    continue                       # redo
                res.nr_balance_failed, res.outcome, res.excluded = 0, "pinned", tuple(excluded)
                return res
        break
    res.excluded = tuple(excluded)
    if res.moved:
        res.nr_balance_failed, res.outcome = 0, "moved"
        return res
    failed = nr_balance_failed + (1 if idle != NEWLY_IDLE else 0)
    res.nr_balance_failed, res.outcome = failed, "failed"
    if _need_active_balance(cpus, src, dst, sd, idle, mtype, failed):
        if not s.curr_allows(dst):
            res.outcome = "one-pinned"
            return res
        if not s.active_balance:
            # active_load_balance_cpu_stop on src: the stopper is curr (every CFS task is now
            # preempted), nr_running counts it; detach_one_task scans from the tail under
            # LBF_ACTIVE_LB: the first task allowed on dst that is no per-CPU kthread moves and
            # the counter is reset.
            p = next((t for t in reversed(lst) if t.allowed(dst) and not t.percpu_kthread), None)
            if p is not None and s.nr_running + 1 > 1:
                res.active, res.outcome, res.nr_balance_failed = p.idx, "active", 0
    return res
