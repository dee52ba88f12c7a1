"""Plain-Python twin of the kernel's v4.16 - v4.19 ``load_balance()`` (one domain level).

Written from kernel/sched/fair.c of v4.19 (the LB code is the v4.17 one): ``task_hot``,
``can_migrate_task``, ``detach_tasks``, ``group_has_capacity``, ``group_is_overloaded``,
``group_smaller_cpu_capacity``, ``group_classify``, ``update_sg_lb_stats``,
``update_sd_pick_busiest``, ``update_sd_lb_stats``, ``fix_small_imbalance``,
``calculate_imbalance``, ``find_busiest_group``, ``find_busiest_queue``,
``need_active_balance``, ``should_we_balance``, ``load_balance``; the domain flags from
``sd_init`` (kernel/sched/topology.c of v4.19): MC imbalance_pct 117, DIE 125, both
SD_PREFER_SIBLING, cache_nice_tries 1. ``capacity_margin`` 1280, ``sysctl_sched_migration_cost``
500 us, ``sysctl_sched_nr_migrate`` 32, CONFIG_PREEMPT (a NEWLY_IDLE balance detaches one task).

:func:`load_balance` is a pure function of per-CPU views (:class:`LbCpu`, each with its
``cfs_tasks`` list head first as :class:`LbTask`) and returns what the balance decided
(:class:`LbResult`); the reference engine (``ref_sim_engine_sched``) builds the views and applies
the result. Unsigned ``unsigned long`` arithmetic: every subtraction below is guarded by the
kernel's own checks, so Python ints give the C values.

Not modelled (the spec of issue 18, both engines): LB_BIAS ``cpu_load[]`` (source/target_load are
the idx-0 ``weighted_cpuload``), the affinity
paths (LBF_DST_PINNED re-targeting, LBF_ALL_PINNED redo, group_imbalanced), cache-hot buddies,
SD_ASYM_PACKING, NUMA.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["LbTask", "LbCpu", "LbResult", "NEWLY_IDLE", "IDLE", "NOT_IDLE", "levels", "load_balance",
           "interval_after", "interval_jiffies", "span_weight",
           "IMBALANCE_PCT", "CACHE_NICE_TRIES"]

NEWLY_IDLE = "newidle"
IDLE = "idle"
NOT_IDLE = "busy"                             # the periodic balance of a busy CPU (CPU_NOT_IDLE)
BUSY_FACTOR = 32                              # sd_init
MAX_PINNED_INTERVAL = 512                     # load_balance(): back-off cap when all tasks are pinned
IMBALANCE_PCT = {"MC": 117, "DIE": 125}       # sd_init: SD_SHARE_PKG_RESOURCES 117, else 125
CACHE_NICE_TRIES = 1
MIGRATION_COST_NS = 500_000
NR_MIGRATE = 32
CAPACITY_MARGIN = 1280
SCALE = 1024
ULONG_MAX = (1 << 64) - 1
GROUP_OTHER, GROUP_OVERLOADED = 0, 2          # enum group_type (group_imbalanced = 1 not modelled)


@dataclass(frozen=True)
class LbTask:
    """One entry of a runqueue's ``cfs_tasks`` list."""

    idx: int
    load: int                # task_h_load = se.avg.load_avg (no group scheduling)
    exec_start: int
    ran: bool                # has run at least once (a never-run task is cold)
    allowed: bool            # dst in its cpus_allowed
    running: bool            # task_running(src_rq, p)


@dataclass(frozen=True)
class LbCpu:
    """One CPU as the balancer reads it."""

    load: int                # weighted_cpuload (cfs_rq runnable load avg)
    util: int                # cpu_util
    nr_running: int          # rq->nr_running (CFS + RT)
    h_nr_running: int        # rq->cfs.h_nr_running
    capacity: int            # capacity_of
    capacity_orig: int       # capacity_orig_of
    llc: int
    idle: bool               # idle_cpu()
    tasks: tuple = ()        # cfs_tasks, head first
    curr_allowed: bool = False   # busiest->curr (any class) may run on dst: the stopper may be started


@dataclass
class LbResult:
    moved: tuple = ()        # detached task indices, in detach order
    src: int = -1
    active: int = -1         # task index moved by the active balance (stopper), or -1
    skipped: tuple = ()      # task indices moved to the list head, in order
    nr_balance_failed: int = 0
    continue_balancing: bool = True
    imbalance: int = 0
    busiest_group: tuple | None = None
    outcome: str = ""        # "stop", "balanced", "no-queue", "moved", "pinned", "failed", "one-pinned",
                             # "kicked" (stopper started, nothing to move), "active" (the stopper moved)
    stats: dict = field(default_factory=dict)


def levels(llcs, dst):
    """The domain levels of ``dst``, lowest first: MC when its LLC holds more than one CPU, DIE
    when there is more than one LLC."""
    out = []
    if sum(1 for x in llcs if x == llcs[dst]) > 1:
        out.append("MC")
    if len(set(llcs)) > 1:
        out.append("DIE")
    return out


def _groups(cpus, dst, level):
    """The level's groups (lists of CPU indices), local group first then around the ring in
    increasing first-CPU order."""
    n = len(cpus)
    if level == "MC":
        gs = [[i] for i in range(n) if cpus[i].llc == cpus[dst].llc]
    else:
        by = {}
        for i in range(n):
            by.setdefault(cpus[i].llc, []).append(i)
        gs = sorted(by.values(), key=lambda g: g[0])
    k = next(j for j, g in enumerate(gs) if dst in g)
    return gs[k:] + gs[:k]


def _has_capacity(s, pct):
    """group_has_capacity()."""
    if s["sum_nr_running"] < s["group_weight"]:
        return True
    return s["group_capacity"] * 100 > s["group_util"] * pct


def _is_overloaded(s, pct):
    """group_is_overloaded()."""
    if s["sum_nr_running"] <= s["group_weight"]:
        return False
    return s["group_capacity"] * 100 < s["group_util"] * pct


def _sg_stats(cpus, g, pct):
    """update_sg_lb_stats() (source_load / target_load at idx 0 = weighted_cpuload)."""
    s = {"group_load": 0, "group_util": 0, "sum_nr_running": 0, "sum_weighted_load": 0, "idle_cpus": 0,
         "overload": False}
    for i in g:
        c = cpus[i]
        s["group_load"] += c.load
        s["group_util"] += c.util
        s["sum_nr_running"] += c.h_nr_running
        if c.nr_running > 1:
            s["overload"] = True
        s["sum_weighted_load"] += c.load
        if c.nr_running == 0 and c.idle:
            s["idle_cpus"] += 1
    s["group_capacity"] = sum(cpus[i].capacity for i in g)       # update_group_capacity
    s["min_capacity"] = min(cpus[i].capacity for i in g)
    s["avg_load"] = s["group_load"] * SCALE // s["group_capacity"]
    s["load_per_task"] = s["sum_weighted_load"] // s["sum_nr_running"] if s["sum_nr_running"] else 0
    s["group_weight"] = len(g)
    s["group_no_capacity"] = _is_overloaded(s, pct)
    s["group_type"] = GROUP_OVERLOADED if s["group_no_capacity"] else GROUP_OTHER
    return s


def _pick_busiest(sds, s, asym):
    """update_sd_pick_busiest() (no SD_ASYM_PACKING)."""
    b = sds["busiest_stat"]
    if s["group_type"] > b["group_type"]:
        return True
    if s["group_type"] < b["group_type"]:
        return False
    if s["avg_load"] <= b["avg_load"]:
        return False
    if asym and s["sum_nr_running"] <= s["group_weight"] and \
            sds["local_stat"]["min_capacity"] * CAPACITY_MARGIN < s["min_capacity"] * SCALE:
        return False            # group_smaller_cpu_capacity(sds->local, sg)
    return True


def _fix_small_imbalance(local, busiest, dst_avg_load_per_task):
    """fix_small_imbalance(): returns env->imbalance (the caller's value when unchanged)."""
    imbn = 2
    if not local["sum_nr_running"]:
        local["load_per_task"] = dst_avg_load_per_task      # cpu_avg_load_per_task(dst)
    elif busiest["load_per_task"] > local["load_per_task"]:
        imbn = 1
    scaled = busiest["load_per_task"] * SCALE // busiest["group_capacity"]
    if busiest["avg_load"] + scaled >= local["avg_load"] + scaled * imbn:
        return busiest["load_per_task"]
    capa_now = busiest["group_capacity"] * min(busiest["load_per_task"], busiest["avg_load"])
    capa_now += local["group_capacity"] * min(local["load_per_task"], local["avg_load"])
    capa_now //= SCALE
    capa_move = 0
    if busiest["avg_load"] > scaled:
        capa_move += busiest["group_capacity"] * min(busiest["load_per_task"], busiest["avg_load"] - scaled)
    if busiest["avg_load"] * busiest["group_capacity"] < busiest["load_per_task"] * SCALE:
        tmp = busiest["avg_load"] * busiest["group_capacity"] // local["group_capacity"]
    else:
        tmp = busiest["load_per_task"] * SCALE // local["group_capacity"]
    capa_move += local["group_capacity"] * min(local["load_per_task"], local["avg_load"] + tmp)
    capa_move //= SCALE
    if capa_move > capa_now:
        return busiest["load_per_task"]
    return None


def _calculate_imbalance(sds, dst_avg_load_per_task):
    """calculate_imbalance() (no group_imbalanced)."""
    local, busiest, avg = sds["local_stat"], sds["busiest_stat"], sds["avg_load"]
    if busiest["avg_load"] <= avg or local["avg_load"] >= avg:
        r = _fix_small_imbalance(local, busiest, dst_avg_load_per_task)
        return 0 if r is None else r
    load_above_capacity = ULONG_MAX
    if busiest["group_type"] == GROUP_OVERLOADED and local["group_type"] == GROUP_OVERLOADED:
        lac = busiest["sum_nr_running"] * SCALE
        if lac > busiest["group_capacity"]:
            load_above_capacity = (lac - busiest["group_capacity"]) * 1024 // busiest["group_capacity"]
    max_pull = min(busiest["avg_load"] - avg, load_above_capacity)
    imbalance = min(max_pull * busiest["group_capacity"], (avg - local["avg_load"]) * local["group_capacity"]) // SCALE
    if imbalance < busiest["load_per_task"]:
        r = _fix_small_imbalance(local, busiest, dst_avg_load_per_task)
        return imbalance if r is None else r
    return imbalance


def find_busiest_group(cpus, dst, level, idle, asym):
    """update_sd_lb_stats() + find_busiest_group(): (busiest group or None, imbalance, sds)."""
    pct = IMBALANCE_PCT[level]
    prefer_sibling = level == "DIE" and "MC" in levels([c.llc for c in cpus], dst)
    sds = {"busiest": None, "busiest_stat": {"avg_load": 0, "sum_nr_running": 0, "group_type": GROUP_OTHER},
           "total_load": 0, "total_capacity": 0, "groups": []}
    for k, g in enumerate(_groups(cpus, dst, level)):
        s = _sg_stats(cpus, g, pct)
        sds["groups"].append((tuple(g), s))
        if k == 0:
            sds["local"], sds["local_stat"] = tuple(g), s
        else:
            local = sds["local_stat"]
            if prefer_sibling and _has_capacity(local, pct) and s["sum_nr_running"] > local["sum_nr_running"] + 1:
                s["group_no_capacity"] = True
                s["group_type"] = GROUP_OVERLOADED
            if _pick_busiest(sds, s, asym and level == "DIE"):
                sds["busiest"], sds["busiest_stat"] = tuple(g), s
        sds["total_load"] += s["group_load"]
        sds["total_capacity"] += s["group_capacity"]
    local, busiest = sds["local_stat"], sds["busiest_stat"]
    if sds["busiest"] is None or busiest["sum_nr_running"] == 0:
        return None, 0, sds
    sds["avg_load"] = SCALE * sds["total_load"] // sds["total_capacity"]
    force = idle != NOT_IDLE and _has_capacity(local, pct) and busiest["group_no_capacity"]
    if not force:
        if local["avg_load"] >= busiest["avg_load"] or local["avg_load"] >= sds["avg_load"]:
            return None, 0, sds
        if idle == IDLE:
            if busiest["group_type"] != GROUP_OVERLOADED and local["idle_cpus"] <= busiest["idle_cpus"] + 1:
                return None, 0, sds
        elif 100 * busiest["avg_load"] <= pct * local["avg_load"]:
            return None, 0, sds
    sds["force_balance"] = force
    d = cpus[dst]
    imbalance = _calculate_imbalance(sds, d.load // d.h_nr_running if d.h_nr_running else 0)
    return (sds["busiest"] if imbalance else None), imbalance, sds


def find_busiest_queue(cpus, group, imbalance, pct):
    """find_busiest_queue(): max weighted_cpuload / capacity_of by cross multiplication."""
    best, best_load, best_cap = -1, 0, 1
    for i in group:
        c = cpus[i]
        if c.nr_running == 1 and c.load > imbalance and not (c.capacity * pct < c.capacity_orig * 100):
            continue
        if c.load * best_cap > best_load * c.capacity:
            best, best_load, best_cap = i, c.load, c.capacity
    return best


def detach_tasks(src, imbalance, idle, now, nr_balance_failed):
    """detach_tasks() over ``src.tasks`` (head first): (detached, skipped, imbalance left, all
    pinned: no task examined was allowed on dst, ``LBF_ALL_PINNED`` left set, the list after)."""
    lst = list(src.tasks)
    if imbalance <= 0:
        return (), (), imbalance, True, lst
    nr_running = src.nr_running
    loop, loop_max = 0, min(NR_MIGRATE, src.nr_running)
    detached, skipped = [], []
    all_pinned = True
    while lst:
        if idle != NOT_IDLE and nr_running <= 1:   # an idle dst does not take the last task
            break
        p = lst[-1]
        loop += 1
        if loop > loop_max:
            break
        ok = p.allowed
        if ok:
            all_pinned = False                    # can_migrate_task clears LBF_ALL_PINNED
            ok = not p.running
        if ok:
            hot = p.ran and now - p.exec_start < MIGRATION_COST_NS          # task_hot
            ok = not hot or nr_balance_failed > CACHE_NICE_TRIES
        if ok and p.load // 2 > imbalance:
            ok = False
        if not ok:
            lst.pop()
            lst.insert(0, p)                      # list_move to the head
            skipped.append(p.idx)
            continue
        lst.pop()
        nr_running -= 1
        detached.append(p.idx)
        imbalance -= p.load
        if idle == NEWLY_IDLE:                    # CONFIG_PREEMPT
            break
        if imbalance <= 0:
            break
    return tuple(detached), tuple(skipped), imbalance, all_pinned, lst


def should_we_balance(cpus, dst, level, idle):
    if idle == NEWLY_IDLE:
        return True
    local = _groups(cpus, dst, level)[0]
    first_idle = next((i for i in local if cpus[i].idle), local[0])
    return first_idle == dst


def load_balance(cpus, dst, level, idle, now, nr_balance_failed, asym=False, eas_balanced=False):
    """One ``load_balance(dst, sd, idle)`` at ``level`` ("MC" / "DIE"); ``idle`` NEWLY_IDLE, IDLE or
    NOT_IDLE; ``nr_balance_failed`` the level's counter of ``dst`` before; ``asym``: the platform's
    DIE domain has SD_ASYM_CPUCAPACITY; ``eas_balanced``: EAS is on and the root domain not
    overutilized (the EAS kernels' find_busiest_group then goes to out_balanced)."""
    pct = IMBALANCE_PCT[level]
    if not should_we_balance(cpus, dst, level, idle):
        return LbResult(nr_balance_failed=0, continue_balancing=False, outcome="stop")
    if eas_balanced:
        return LbResult(nr_balance_failed=0, outcome="balanced")
    group, imbalance, sds = find_busiest_group(cpus, dst, level, idle, asym)
    if group is None:
        return LbResult(nr_balance_failed=0, outcome="balanced", stats=sds)
    src = find_busiest_queue(cpus, group, imbalance, pct)
    if src < 0:
        return LbResult(nr_balance_failed=0, outcome="no-queue", imbalance=imbalance, busiest_group=group,
                        stats=sds)
    s = cpus[src]
    detached, skipped, all_pinned, lst = (), (), False, list(s.tasks)
    if s.nr_running > 1:
        detached, skipped, _, all_pinned, lst = detach_tasks(s, imbalance, idle, now, nr_balance_failed)
    res = LbResult(src=src, skipped=skipped, imbalance=imbalance, busiest_group=group, stats=sds)
    if detached:
        res.moved, res.nr_balance_failed, res.outcome = detached, 0, "moved"
        return res
    if s.nr_running > 1 and all_pinned:
        # LBF_ALL_PINNED: the kernel retries without src (not modelled) or ends out_all_pinned
        res.nr_balance_failed, res.outcome = 0, "pinned"
        return res
    failed = nr_balance_failed + (1 if idle != NEWLY_IDLE else 0)
    d = cpus[dst]
    need = (idle != NOT_IDLE and s.h_nr_running == 1 and s.capacity * pct < s.capacity_orig * 100
            and s.capacity * pct < d.capacity * 100) or failed > CACHE_NICE_TRIES + 2
    res.nr_balance_failed, res.outcome = failed, "failed"
    # (the stopper work a newidle balance would start is not modelled: the engines move at once)
    if need and idle != NEWLY_IDLE:
        if not s.curr_allowed:
            res.outcome = "one-pinned"            # LBF_ALL_PINNED, out_one_pinned: the counter stays
            return res
        res.nr_balance_failed, res.outcome = CACHE_NICE_TRIES + 1, "kicked"
        # active_load_balance_cpu_stop -> detach_one_task: from the tail, the first CFS task allowed
        # on dst (cache-hot ones too: nr_balance_failed > cache_nice_tries now); on success the
        # failure counter is reset
        p = next((t for t in reversed(lst) if t.allowed), None)
        if p is not None:
            res.active, res.outcome, res.nr_balance_failed = p.idx, "active", 0
    return res


def span_weight(llcs, dst, level):
    """sd->span_weight of ``dst``'s domain at ``level``: sd_init sets min_interval to it,
    max_interval to twice it and starts balance_interval at it (ms)."""
    return sum(1 for x in llcs if x == llcs[dst]) if level == "MC" else len(llcs)


def interval_after(outcome, interval, weight):
    """sd->balance_interval after load_balance() ended with ``outcome``: back to min_interval when
    it moved tasks or failed without starting the stopper ("if (likely(!active_balance))"); doubled
    while below max_interval after out_balanced or a started stopper; with LBF_ALL_PINNED
    (out_all_pinned, out_one_pinned) doubled while below MAX_PINNED_INTERVAL or max_interval."""
    if outcome in ("moved", "failed"):
        return weight
    if outcome in ("pinned", "one-pinned"):
        return interval * 2 if (interval < MAX_PINNED_INTERVAL or interval < 2 * weight) else interval
    return interval * 2 if interval < 2 * weight else interval


def interval_jiffies(interval, busy, hz, nr_cpus):
    """get_sd_balance_interval(): the interval (ms), times busy_factor on a busy CPU, by
    msecs_to_jiffies (rounded up), clamped to [1, HZ * nr_cpus / 10]."""
    ms = interval * BUSY_FACTOR if busy else interval
    j = -(-ms * hz // 1000)
    return max(1, min(j, hz * nr_cpus // 10))
