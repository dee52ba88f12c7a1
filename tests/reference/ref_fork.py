"""Twin of the fork placement (lisa_eas/_kernels/fork.py), written independently from the kernel
source (kernel/sched/fair.c: find_idlest_cpu, find_idlest_group, find_idlest_group_cpu,
update_sg_wakeup_stats / update_pick_idlest from v5.5, post_init_entity_util_avg), without the
package's code. The scene: rt-app's main thread on ``parent`` clones each thread in turn; each
thread blocks (barrier) before the next clone; every idle CPU in one idle state (or none);
the parent has runnable load and load_avg ``parent_load`` (1024 by default), util 0.
"""
from __future__ import annotations

BIG = 1 << 64


def post_init(capacity, rq_util, rq_load):
    """post_init_entity_util_avg with se->load.weight = scale_load(1024) (64-bit)."""
    room = capacity - rq_util
    cap = int(room / 2)                      # C division of a long: toward zero
    if cap <= 0:
        return 0
    if rq_util == 0:
        return cap
    guess = (rq_util * 1024 * 1024) // (rq_load + 1)
    return cap if guess > cap else guess


class _Rq:
    def __init__(self, cpu, capacity, llc):
        self.cpu, self.capacity, self.llc = cpu, capacity, llc
        self.running = 0          # nr_running
        self.rload = 0            # runnable load (v4.x weighted_cpuload)
        self.load = 0             # cfs load_avg (blocked included)
        self.util = 0
        self.stamp = 0            # rq->idle_stamp


def die_pct(era):
    """sd_init's imbalance_pct of the domain above the LLC: 125 until v5.9; from v5.10
    (2208cdaa56c9 "sched/fair: Reduce minimal imbalance threshold") the 117 of every non-SMT level."""
    return 117 if era >= (5, 10) else 125


def _topology(rqs, cpu, era):
    """sched domains of ``cpu`` from the top: dicts with span, groups (local first, wrapping), pct,
    die."""
    n = len(rqs)
    doms = []
    llcs = []
    for r in rqs:
        if r.llc not in llcs:
            llcs.append(r.llc)
    if len(llcs) > 1:
        order = [(cpu + k) % n for k in range(n)]
        groups = []
        for c in order:
            g = [r.cpu for r in rqs if r.llc == rqs[c].llc]
            if g not in groups:
                groups.append(g)
        doms.append({"span": list(range(n)), "groups": groups, "pct": die_pct(era), "die": True})
    mine = [r.cpu for r in rqs if r.llc == rqs[cpu].llc]
    if len(mine) > 1:
        k = mine.index(cpu)
        doms.append({"span": mine, "groups": [[c] for c in mine[k:] + mine[:k]], "pct": 117, "die": False})
    return doms


def _group_v4(rqs, dom, this_cpu):
    pct = dom["pct"]
    imb = 1024 * (pct - 100) // 100
    iscale = 100 + (pct - 100) // 2
    best = None            # (group, runnable, avg)
    here = None
    for g in dom["groups"]:
        cap = sum(rqs[c].capacity for c in g)
        run = sum(rqs[c].rload for c in g) * 1024 // cap
        avg = sum(rqs[c].load for c in g) * 1024 // cap
        if this_cpu in g:
            here = (run, avg)
            continue
        if best is None:
            best = (g, run, avg)
            continue
        if best[1] > run + imb:
            best = (g, run, avg)
        elif run < best[1] + imb and 100 * best[2] > iscale * avg:
            best = (g, best[1], avg)
    if best is None:
        return None
    if here is None:
        return best[0]
    if best[1] > here[0] + imb:
        return None
    if here[0] < best[1] + imb and 100 * here[1] < iscale * best[2]:
        return None
    return best[0]


def _classify(rqs, g, pct):
    nr = sum(rqs[c].running for c in g)
    util = sum(min(rqs[c].util, rqs[c].capacity) for c in g)
    cap = sum(rqs[c].capacity for c in g)
    idle = len([c for c in g if rqs[c].running == 0])
    if nr > len(g) and 100 * cap < pct * util:
        kind = 2           # overloaded
    elif nr >= len(g) and 100 * cap <= pct * util:
        kind = 1           # fully busy
    else:
        kind = 0           # has spare
    avg = sum(rqs[c].load for c in g) * 1024 // cap if kind else 0
    return kind, avg, idle


def _group_v55(rqs, dom, this_cpu):
    pct = dom["pct"]
    imb = 1024 * (pct - 100) // 100
    best, bstat = None, (2, (1 << 32) - 1, 0)
    here = None
    for g in dom["groups"]:
        st = _classify(rqs, g, pct)
        if this_cpu in g:
            here = st
            continue
        if st[0] != bstat[0]:
            take = st[0] < bstat[0]
        elif st[0] == 0:
            take = st[2] > bstat[2]
        else:
            take = st[1] < bstat[1]
        if take:
            best, bstat = g, st
    if best is None or here is None:
        return best
    if here[0] != bstat[0]:
        return None if here[0] < bstat[0] else best
    if here[0] == 0:
        return best if here[2] < bstat[2] else None
    if bstat[1] >= here[1] + imb or 100 * here[1] <= pct * bstat[1]:
        return None
    return best


def _cpu_in_group(rqs, g, this_cpu, with_state, v4):
    if len(g) == 1:
        return g[0]
    pick, pick_stamp, seen_state = -1, 0, False
    fallback, fallback_load = this_cpu, BIG
    for c in g:
        r = rqs[c]
        if r.running == 0:
            if with_state and not seen_state:
                seen_state, pick, pick_stamp = True, c, r.stamp
            elif r.stamp > pick_stamp:
                pick, pick_stamp = c, r.stamp
        elif pick < 0:
            ld = r.rload if v4 else r.load
            if ld < fallback_load:
                fallback, fallback_load = c, ld
    return pick if pick >= 0 else fallback


def _place(rqs, parent, with_state, era):
    v4 = era < (5, 5)          # 57abff067a08 (v5.5) reworked find_idlest_group
    cpu = parent
    doms = _topology(rqs, cpu, era)
    if not doms:
        return cpu
    depth = 0
    chosen = cpu
    choose = _group_v4 if v4 else _group_v55
    while depth < len(doms):
        dom = doms[depth]
        g = choose(rqs, dom, cpu)
        if g is None:
            depth += 1
            continue
        nxt = _cpu_in_group(rqs, g, cpu, with_state, v4)
        chosen = nxt
        if nxt == cpu:
            depth += 1
            continue
        size = len(dom["span"])
        cpu = nxt
        doms = [d for d in _topology(rqs, cpu, era) if len(d["span"]) < size]
        depth = 0
    return chosen


def fork_all(capacities, llcs, parent, with_state, era, count, parent_load=1024):
    """(cpu, util_avg) of each of ``count`` threads forked in order at kernel ``era`` (a tuple)."""
    rqs = [_Rq(c, int(cap), int(l)) for c, (cap, l) in enumerate(zip(capacities, llcs))]
    rqs[parent].running = 1
    rqs[parent].rload = rqs[parent].load = parent_load
    out = []
    for k in range(count):
        c = _place(rqs, parent, with_state, era)
        u = post_init(rqs[c].capacity, rqs[c].util, rqs[c].load)
        rqs[c].util += u
        rqs[c].load += 1024
        if c != parent:
            rqs[c].stamp = k + 1
        out.append((c, u))
    return out


# ---------------------------------------------------------------- the wake-up slow path
# select_task_rq_fair(SD_BALANCE_WAKE) without want_affine, SD_BALANCE_WAKE on every domain of an
# asymmetric big.LITTLE (DIE has SD_ASYM_CPUCAPACITY): find_idlest_cpu(sd = DIE of this, p, this,
# prev, SD_BALANCE_WAKE). Read from the v4.19 fair.c (spare capacity, runnable load) and the v5.5
# rework (group types with misfit, loads and utils without the waking task).

def _wake_v4(sc, dom, here_cpu):
    pct = dom["pct"]
    imb = 1024 * (pct - 100) // 100
    iscale = 100 + (pct - 100) // 2
    best, here = None, None
    spare_best, spare_g = 0, None
    for g in dom["groups"]:
        if not any(sc["allowed"][c] for c in g):
            continue
        cap = sum(sc["cap"][c] for c in g)
        run = sum(sc["rload"][c] for c in g) * 1024 // cap
        avg = sum(sc["load"][c] for c in g) * 1024 // cap
        spare = max([0] + [sc["cap"][c] - sc["util"][c] for c in g])
        if here_cpu in g:
            here = (run, avg, spare)
            continue
        if best is None or best[1] > run + imb:
            best = (g, run, avg)
        elif run < best[1] + imb and 100 * best[2] > iscale * avg:
            best = (g, best[1], avg)
        if spare > spare_best:
            spare_best, spare_g = spare, g
    half = sc["task_util"] // 2
    if here is not None and here[2] > half and iscale * here[2] > 100 * spare_best:
        return None
    if spare_best > half:
        return spare_g
    if best is None:
        return None
    if here is None:
        return best[0]
    if best[1] > here[0] + imb:
        return None
    if here[0] < best[1] + imb and 100 * here[1] < iscale * best[2]:
        return None
    return best[0]


def _wake_kind(sc, g, pct, top):
    """(type, avg_load, idle, max capacity); types: 0 spare, 1 fully busy, 2 misfit, 5 overloaded."""
    load = 0
    for c in g:
        v = sc["load"][c]
        if c == sc["prev"]:
            v = max(v - sc["task_load"], 0)
        load += v
    util = sum(sc["util"][c] for c in g)
    nr = sum(sc["nr"][c] for c in g)
    cap = sum(sc["cap"][c] for c in g)
    biggest = max(sc["cap"][c] for c in g)
    idle = sum(1 for c in g if sc["nr"][c] == 0 and sc["state"][c] != -1)
    if nr > len(g) and 100 * cap < pct * util:
        kind = 5
    elif top and 1280 * sc["fit_util"] >= 1024 * biggest:
        kind = 2
    elif nr < len(g) or 100 * cap > pct * util:
        kind = 0
    else:
        kind = 1
    avg = load * 1024 // cap if kind in (1, 5) else 0
    return kind, avg, idle, biggest


def _wake_v55(sc, dom, here_cpu):
    pct = dom["pct"]
    imb = 1024 * (pct - 100) // 100
    top = dom["die"]             # SD_ASYM_CPUCAPACITY: the DIE level only
    best, b = None, (5, (1 << 32) - 1, 0, 0)
    here = None
    for g in dom["groups"]:
        if not any(sc["allowed"][c] for c in g):
            continue
        k = _wake_kind(sc, g, pct, top)
        if here_cpu in g:
            here = k
            continue
        if k[0] != b[0]:
            take = k[0] < b[0]
        elif k[0] in (1, 5):
            take = k[1] < b[1]
        elif k[0] == 2:
            take = k[3] > b[3]
        else:
            take = k[2] > b[2]
        if take:
            best, b = g, k
    if best is None or here is None:
        return best
    if here[0] != b[0]:
        return None if here[0] < b[0] else best
    if here[0] in (1, 5):
        return None if (b[1] >= here[1] + imb or 100 * here[1] <= pct * b[1]) else best
    if here[0] == 2:
        return None if here[3] >= b[3] else best
    return None if here[2] >= b[2] else best


def _wake_cpu_in(sc, g, here_cpu, v4):
    if len(g) == 1:
        return g[0]
    chosen, lat, stamp = -1, BIG, 0
    fallback, fl = here_cpu, BIG
    for c in g:
        if not sc["allowed"][c]:
            continue
        st = sc["state"][c]
        if st != -1:
            if st >= 0 and st < lat:
                chosen, lat, stamp = c, st, sc["stamp"][c]
            elif (st < 0 or st == lat) and sc["stamp"][c] > stamp:
                chosen, stamp = c, sc["stamp"][c]
        elif chosen < 0:
            v = sc["rload"][c] if v4 else sc["load"][c]
            if v < fl:
                fallback, fl = c, v
    return chosen if chosen >= 0 else fallback


def wake_slow_path(sc, this, era):
    """The CPU find_idlest_cpu(SD_BALANCE_WAKE) returns for the scene ``sc`` (dict of per-CPU lists
    cap, llc, nr, rload, load, util (without the task), state (-1 busy, -2 idle without a cpuidle
    state, else the exit-latency rank), stamp, allowed; and prev, task_util, fit_util, task_load,
    pct_llc) woken on CPU ``this`` at kernel ``era``."""
    v4 = era < (5, 5)
    rqs = [_Rq(c, sc["cap"][c], sc["llc"][c]) for c in range(len(sc["cap"]))]

    def doms_of(cpu):
        out = _topology(rqs, cpu, era)
        for d in out:
            if not d["die"]:
                d["pct"] = sc["pct_llc"]
        return out

    cpu = this
    doms = doms_of(cpu)
    chosen = cpu
    i = 0
    while i < len(doms):
        dom = doms[i]
        g = _wake_v4(sc, dom, cpu) if v4 else _wake_v55(sc, dom, cpu)
        if g is None:
            i += 1
            continue
        nxt = _wake_cpu_in(sc, g, cpu, v4)
        chosen = nxt
        if nxt == cpu:
            i += 1
            continue
        size = len(dom["span"])
        cpu = nxt
        doms = [d for d in doms_of(cpu) if len(d["span"]) < size]
        i = 0
    return chosen
