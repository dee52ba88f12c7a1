"""Helpers shared by the analyses: event checks with a recording hint, task-state
normalisation, per-task scheduling timelines built from ``sched_switch``/``sched_wakeup``."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ConfigError

__all__ = ["EVENT_SYSTEMS", "need_events", "record_hint", "check_platform", "is_runnable_state",
           "running_intervals", "task_timeline", "trace_span", "task_names"]

#: ftrace system of the events the analyses use (for the ``lisa-eas run`` hint).
EVENT_SYSTEMS = {
    "sched_switch": "sched", "sched_wakeup": "sched", "sched_wakeup_new": "sched", "sched_waking": "sched",
    "sched_migrate_task": "sched", "sched_overutilized": "sched", "sched_load_se": "sched",
    "sched_load_cfs_rq": "sched", "sched_pelt_se": "sched", "sched_pelt_cfs": "sched",
    "sched_load_avg_task": "sched", "sched_load_avg_cpu": "sched", "sched_util_est_se": "sched",
    "sched_util_est_cfs": "sched", "cpu_frequency": "power", "cpu_idle": "power", "print": "ftrace",
}

STATE_SLEEPING, STATE_RUNNABLE, STATE_RUNNING, STATE_DEAD = 0, 1, 2, 3
STATE_NAMES = ("sleeping", "runnable", "running", "dead")


def record_hint(events) -> str:
    """How to record ``events`` with ``lisa-eas run``."""
    names = [f"{EVENT_SYSTEMS.get(e, 'sched')}:{e}" for e in events if e != "print"]
    hint = ("record them with `lisa-eas run`: add " + ", ".join(names) +
            " to `tracing: events:` in the target configuration (target_configs/*.yml)") if names else ""
    if "print" in events:
        hint += ("; " if hint else "") + ("rt-app markers (`print`) need `\"ftrace\": true` (or "
                                          "\"loop,stats\") in the workload's global settings")
    return hint


def need_events(trace, *events: str) -> None:
    """Raise :class:`MissingTraceEventError` naming the events of ``events`` ``trace`` lacks."""
    missing = [e for e in events if e not in trace.events]
    if missing:
        from ..trace._events import missing_events_error
        raise missing_events_error(trace, missing, record_hint(missing))


def need_any(trace, *events: str) -> str:
    """The first of ``events`` the trace has; else :class:`MissingTraceEventError` naming them all."""
    for e in events:
        if e in trace.events:
            return e
    from ..trace._events import missing_events_error
    raise missing_events_error(trace, events, "one of them is needed; " + record_hint(events[:1]))


def trace_cpus(trace) -> int:
    """Number of CPUs of the trace: the metadata's count, else the highest CPU seen + 1."""
    n = trace.metadata.get("cpus")
    if n:
        return int(n)
    hi = -1
    for e in ("sched_switch", "cpu_idle", "cpu_frequency"):
        if e in trace.events:
            df = trace.df(e)
            if len(df):
                hi = max(hi, int(df["__cpu"].max()))
    return hi + 1


def check_platform(trace, platform):
    """``platform`` as a :class:`~lisa_eas.platform.Platform`, checked against the trace's CPUs.

    Raises
    ------
    ConfigError
        The trace has more CPUs than the platform, or (when the trace says how many CPUs the
        machine had) a different count.
    """
    from ..platform import Platform, load_platform

    plat = platform if isinstance(platform, Platform) else load_platform(platform)
    declared = trace.metadata.get("cpus")
    seen = -1
    for e in ("sched_switch", "sched_wakeup", "cpu_idle", "cpu_frequency"):
        if e in trace.events:
            df = trace.df(e)
            if len(df):
                seen = max(seen, int(df["__cpu"].max()))
    if (declared and int(declared) != plat.nr_cpus) or seen >= plat.nr_cpus:
        n = int(declared) if declared else seen + 1
        raise ConfigError(f"platform {plat.name!r} has {plat.nr_cpus} CPUs but the trace "
                          f"{trace.metadata.get('source', '')} comes from a {n}-CPU machine"
                          f"{' (CPU %d seen)' % seen if seen >= plat.nr_cpus else ''}; pick the platform "
                          f"of the board that recorded it (`lisa-eas platforms` lists them)")
    return plat


def platform_or_none(trace, platform):
    """``None``, or the platform (name or object) checked against the trace's CPUs."""
    return None if platform is None else check_platform(trace, platform)


def is_runnable_state(prev_state) -> np.ndarray:
    """Whether ``sched_switch.prev_state`` says the task stayed runnable (preempted).

    Numeric states: runnable when no sleep/stop/dead bit of the low byte is set (0 = R,
    1024/4096 = the "preempted" report bits of older kernels). Text states: ``R``/``R+``.
    """
    s = pd.Series(prev_state)
    if pd.api.types.is_numeric_dtype(s.dtype):
        return (np.asarray(s, dtype=np.int64) & 0xFF) == 0
    txt = s.astype(str)
    return txt.str.startswith("R").to_numpy()


def is_dead_state(prev_state) -> np.ndarray:
    s = pd.Series(prev_state)
    if pd.api.types.is_numeric_dtype(s.dtype):
        v = np.asarray(s, dtype=np.int64) & 0xFF
        return ((v & 16) != 0) | ((v & 32) != 0) | (v == 64)
    txt = s.astype(str)
    return txt.str.contains("x|X|Z", regex=True).to_numpy()


def trace_span(trace) -> tuple[float, float]:
    lo, hi = trace.time_range
    return float(lo), float(hi)


def running_intervals(trace) -> pd.DataFrame:
    """What ran on each CPU: one row per ``sched_switch`` -> next switch on the same CPU.

    Columns: ``cpu``, ``pid``, ``comm``, ``start``, ``end`` (s), ``duration`` (s),
    ``end_runnable`` (the task was preempted, not sleeping, at the end; False for the last
    interval, cut by the end of the trace), ``matched`` (the switch that ends the interval
    switches out the task this one switched in; False means switches were lost in between
    and ``end`` is only an upper bound). pid 0 (idle) included.
    ``attrs["unmatched_switches"]`` counts the unmatched intervals (some kernels, e.g. with
    the haltpoll cpuidle driver in a VM, do not always trace the switch out of idle).
    """
    need_events(trace, "sched_switch")
    sw = trace.df("sched_switch")
    t = sw.index.to_numpy(dtype=np.float64)
    cpu = sw["__cpu"].to_numpy(dtype=np.int64)
    order = np.lexsort((np.arange(len(t)), cpu))
    t, cpu = t[order], cpu[order]
    pid = sw["next_pid"].to_numpy(dtype=np.int64)[order]
    comm = np.asarray(sw["next_comm"].astype(str))[order]
    runnable = is_runnable_state(sw["prev_state"])[order]
    _, t_end = trace_span(trace)
    same_next = np.r_[cpu[1:] == cpu[:-1], False]
    end = np.where(same_next, np.r_[t[1:], 0.0], t_end)
    end_runnable = np.where(same_next, np.r_[runnable[1:], False], False)
    prev_pid = sw["prev_pid"].to_numpy(dtype=np.int64)[order]
    matched = ~same_next | (np.r_[prev_pid[1:], 0] == pid)
    df = pd.DataFrame({"cpu": cpu, "pid": pid, "comm": comm, "start": t, "end": end,
                       "duration": end - t, "end_runnable": end_runnable, "matched": matched})
    df = df.sort_values(["start", "cpu"], kind="stable").reset_index(drop=True)
    df.attrs["unmatched_switches"] = int((~matched).sum())
    return df


def task_names(trace) -> pd.DataFrame:
    """pid -> last comm seen in ``sched_switch`` (as next task) / ``sched_wakeup``."""
    parts = []
    if "sched_switch" in trace.events:
        sw = trace.df("sched_switch")
        parts.append(pd.DataFrame({"pid": sw["next_pid"].to_numpy(np.int64),
                                   "comm": np.asarray(sw["next_comm"].astype(str))}))
        parts.append(pd.DataFrame({"pid": sw["prev_pid"].to_numpy(np.int64),
                                   "comm": np.asarray(sw["prev_comm"].astype(str))}))
    for e in ("sched_wakeup", "sched_wakeup_new"):
        if e in trace.events:
            w = trace.df(e)
            parts.append(pd.DataFrame({"pid": w["pid"].to_numpy(np.int64), "comm": np.asarray(w["comm"].astype(str))}))
    if not parts:
        return pd.DataFrame({"pid": [], "comm": []})
    df = pd.concat(parts, ignore_index=True)
    return df.drop_duplicates("pid", keep="last").sort_values("pid").reset_index(drop=True)


def select_pids(trace, tasks) -> np.ndarray | None:
    """pids matching ``tasks`` (pids or comm names); None = all."""
    if tasks is None:
        return None
    if isinstance(tasks, (str, int, np.integer)):
        tasks = [tasks]
    names = task_names(trace)
    pids = set()
    for t in tasks:
        if isinstance(t, (int, np.integer)):
            pids.add(int(t))
        else:
            pids.update(names.loc[names["comm"] == t, "pid"].tolist())
    return np.array(sorted(pids), dtype=np.int64)


def wakeup_events(trace) -> pd.DataFrame:
    """``sched_wakeup`` (+ ``sched_wakeup_new``) rows: time, pid, comm, target_cpu, new, waker_cpu,
    waker_pid (the task current on ``waker_cpu`` when the event was written; -1 if unknown), prio."""
    parts = []
    for e, new in (("sched_wakeup", False), ("sched_wakeup_new", True)):
        if e in trace.events:
            w = trace.df(e)
            tgt = w["target_cpu"] if "target_cpu" in w.columns else w["__cpu"]
            parts.append(pd.DataFrame({"time": w.index.to_numpy(np.float64), "pid": w["pid"].to_numpy(np.int64),
                                       "comm": np.asarray(w["comm"].astype(str)),
                                       "target_cpu": np.asarray(tgt, dtype=np.int64), "new": new,
                                       "waker_cpu": w["__cpu"].to_numpy(np.int64),
                                       "waker_pid": (w["__pid"].to_numpy(np.int64) if "__pid" in w.columns
                                                     else np.full(len(w), -1, np.int64)),
                                       "prio": (w["prio"].to_numpy(np.int64) if "prio" in w.columns
                                                else np.full(len(w), 120, np.int64))}))
    if not parts:
        return pd.DataFrame({"time": pd.Series([], dtype=float), "pid": pd.Series([], dtype=np.int64),
                             "comm": pd.Series([], dtype=object), "target_cpu": pd.Series([], dtype=np.int64),
                             "new": pd.Series([], dtype=bool), "waker_cpu": pd.Series([], dtype=np.int64),
                             "waker_pid": pd.Series([], dtype=np.int64), "prio": pd.Series([], dtype=np.int64)})
    return pd.concat(parts, ignore_index=True).sort_values("time", kind="stable").reset_index(drop=True)


def task_timeline(trace) -> pd.DataFrame:
    """Per-task state changes: one row each time a task changes state.

    Built from ``sched_switch`` (switch in: running; switch out: runnable if preempted,
    dead if exiting, else sleeping) and ``sched_wakeup``/``sched_wakeup_new`` (a sleeping
    task becomes runnable). Columns: ``pid``, ``time`` (s), ``state`` (0 sleeping,
    1 runnable, 2 running, 3 dead), ``cpu`` (where it runs / will run / last ran),
    ``duration`` (s, to the task's next change or the end of the trace). pid 0 excluded.
    A wake-up on an idle CPU whose next event is the task's own switch-out (its switch-in
    was not traced, as on 6.18 for some switches out of idle) makes it running from the
    wake-up, unless the CPU shows it was not idle: another task was woken onto it since its
    last traced switch to the idle task, the wake-up was written on it by a task other than
    its idle task, its idle task woke a higher-priority task onto it before the switch-out, or
    a switch on it was traced between the wake-up and the switch-out. Any
    other switch-out of a task that was not running marks its row
    ``untraced_switch_in`` (True: the task ran in that row's span, when is unknown).
    """
    need_events(trace, "sched_switch")
    sw = trace.df("sched_switch")
    ts = sw.index.to_numpy(np.float64)
    cpu = sw["__cpu"].to_numpy(np.int64)
    runnable = is_runnable_state(sw["prev_state"])
    dead = is_dead_state(sw["prev_state"])
    out_state = np.where(runnable, STATE_RUNNABLE, np.where(dead, STATE_DEAD, STATE_SLEEPING))
    wk = wakeup_events(trace)
    pid = np.concatenate([sw["next_pid"].to_numpy(np.int64), sw["prev_pid"].to_numpy(np.int64), wk["pid"].to_numpy()])
    time = np.concatenate([ts, ts, wk["time"].to_numpy()])
    state = np.concatenate([np.full(len(ts), STATE_RUNNING), out_state, np.full(len(wk), -1)])
    where = np.concatenate([cpu, cpu, wk["target_cpu"].to_numpy()])
    # a wake-up written on its target CPU by a task other than the idle task: that CPU was busy
    busy_waker = np.concatenate([np.zeros(2 * len(ts), bool),
                                 (wk["waker_cpu"].to_numpy() == wk["target_cpu"].to_numpy())
                                 & (wk["waker_pid"].to_numpy() > 0)])
    wprio = np.concatenate([np.zeros(2 * len(ts), np.int64), wk["prio"].to_numpy(np.int64)])
    # at equal times: switch out before switch in of the same task; wake-ups first
    rank = np.concatenate([np.full(len(ts), 2), np.full(len(ts), 1), np.zeros(len(wk))])
    seq = np.arange(len(pid))
    keep = pid > 0
    pid, time, state, where, rank, seq, busy_waker, wprio = (a[keep] for a in (pid, time, state, where, rank, seq,
                                                                               busy_waker, wprio))
    o = np.lexsort((seq, rank, time, pid))
    # ... except a run of no length on one CPU (switched in by one sched_switch and out by a later
    # one at the same timestamp: in the simulator a task picked and preempted, or exiting, at
    # once): the trace's own row order holds there
    row = np.where(seq[o] < len(ts), seq[o], seq[o] - len(ts))       # the sched_switch row of each
    po, to_, ro, wo = pid[o], time[o], rank[o], where[o]
    nz = np.flatnonzero((po[1:] == po[:-1]) & (to_[1:] == to_[:-1]) & (ro[:-1] == 1) & (ro[1:] == 2)
                        & (wo[1:] == wo[:-1]) & (row[1:] < row[:-1]))
    o[nz], o[nz + 1] = o[nz + 1], o[nz].copy()
    pid, time, state, where, rank, busy_waker, wprio = (pid[o], time[o], state[o], where[o], rank[o], busy_waker[o],
                                                        wprio[o])
    df = pd.DataFrame({"pid": pid, "time": time, "state": state, "cpu": where})
    # a wake-up makes a sleeping (or never seen) task runnable; otherwise it changes nothing
    known = df["state"].where(df["state"] >= 0)
    prev_known = known.groupby(df["pid"]).ffill().groupby(df["pid"]).shift(1)
    is_wake = df["state"].to_numpy() < 0
    pk = prev_known.to_numpy()
    wake_state = np.where(np.isnan(pk) | (pk == STATE_SLEEPING), STATE_RUNNABLE, pk)
    st = np.where(is_wake, wake_state, df["state"].to_numpy()).astype(np.int64)
    # a wake-up followed by the task's own switch-out, with no switch-in between: the switch
    # in was not traced (on 6.18 the switch out of idle to a task woken on an idle CPU is
    # not), so the task ran from its wake-up
    same_next = np.r_[pid[1:] == pid[:-1], False]
    out_next = np.r_[rank[1:] == 1, False] if len(rank) else np.zeros(0, bool)
    missed = is_wake & (st == STATE_RUNNABLE) & same_next & out_next
    m = np.flatnonzero(missed)
    idle_at = _cpu_idle_at(ts, cpu, sw["next_pid"].to_numpy(np.int64), time[m], where[m], time[m + 1],
                           wk["time"].to_numpy(np.float64), wk["target_cpu"].to_numpy(np.int64))
    idle_at &= ~busy_waker[m]
    idle_at &= ~_outranked_while_idle(wk, time[m], where[m], time[m + 1], pid[m], wprio[m])
    st[m[idle_at]] = STATE_RUNNING
    df["state"] = st
    # a switch-out of a task not running just before: its switch-in was not traced (and, unlike
    # the idle case above, when it started is unknown): flagged ``untraced_switch_in``
    prev_st = np.r_[-1, st[:-1]]
    same_prev = np.r_[False, pid[1:] == pid[:-1]]
    df["untraced_switch_in"] = (rank == 1) & same_prev & (prev_st != STATE_RUNNING)
    _, t_end = trace_span(trace)
    nxt = df.groupby("pid")["time"].shift(-1).to_numpy()
    df["duration"] = np.where(np.isnan(nxt), t_end, nxt) - df["time"].to_numpy()
    # drop no-op rows (state unchanged) by merging their duration into the previous row
    same = (df["pid"].to_numpy()[1:] == df["pid"].to_numpy()[:-1]) & (st[1:] == st[:-1]) & \
           (df["cpu"].to_numpy()[1:] == df["cpu"].to_numpy()[:-1])
    first = np.r_[True, ~same]
    grp = np.cumsum(first) - 1
    dur = np.bincount(grp, weights=df["duration"].to_numpy())
    out = df[first].reset_index(drop=True)
    out["duration"] = dur
    out["untraced_switch_in"] = np.bincount(grp, weights=df["untraced_switch_in"].to_numpy(np.float64)) > 0
    return out


def _outranked_while_idle(wk: pd.DataFrame, t, cpus, t_out, pids, prios) -> np.ndarray:
    """Whether, after each task's wake-up at ``t[i]`` onto idle CPU ``cpus[i]`` and before its
    switch-out at ``t_out[i]``, that CPU's idle task woke another task of higher priority (lower
    ``prio``) onto it: the CPU was still idle then, both were queued together, and the kernel
    picks the higher-priority one first (EEVDF: a nice -10 task's virtual deadline is ~1/9 of a
    nice 0 one's). Its switch-in may leave no record either (the VM agent's thread, nice -10, on
    this machine), so when the task ran is unknown. (A recorded run: ks_sh1 and tokio-rt-worker
    woken 2 us apart by CPU 1's idle task, nothing traced there for 4.3 ms but ks_sh1's own
    prints from 2.3 ms on and its switch-out to tokio-rt-worker; its kernel samples: util 117 ->
    149 with runnable 140 -> 215, about half the span running; taken for running from the
    wake-up, the model was 45 high.)"""
    out = np.zeros(len(t), bool)
    if not len(t) or not len(wk):
        return out
    # wakeup_events() rows are in time order
    w_t, w_cpu, w_pid, w_prio = (wk["time"].to_numpy(np.float64), wk["target_cpu"].to_numpy(np.int64),
                                 wk["pid"].to_numpy(np.int64), wk["prio"].to_numpy(np.int64))
    idle_woken = (wk["waker_pid"].to_numpy() == 0) & (wk["waker_cpu"].to_numpy() == w_cpu)
    for c in np.unique(cpus):
        on = idle_woken & (w_cpu == c)
        wt, wp, wpr = w_t[on], w_pid[on], w_prio[on]
        sel = np.flatnonzero(cpus == c)
        lo = np.searchsorted(wt, t[sel], side="left")
        hi = np.searchsorted(wt, t_out[sel], side="left")
        for i, a, b in zip(sel, lo, hi):
            if b > a:
                out[i] = bool(((wpr[a:b] < prios[i]) & (wp[a:b] != pids[i])).any())
    return out


def _cpu_idle_at(sw_t, sw_cpu, next_pid, t, cpus, t_out, wk_t=None, wk_cpu=None) -> np.ndarray:
    """Whether each CPU ``cpus[i]`` ran its idle task from ``t[i]`` until the woken task's own
    switch-out at ``t_out[i]``: its last switch before ``t[i]`` was to pid 0, no other wake-up
    onto it (``wk_t``/``wk_cpu``) came between that switch and ``t[i]`` (a task woken onto the
    idle CPU before runs first, even when its switch-in is not traced: the VM agent's thread is
    switched in untraced here, and the task woken after it then waits behind it), and no switch
    on it was traced between ``t[i]`` and ``t_out[i]`` (one would show another task ran there).
    A CPU with no switch before counts as not idle."""
    out = np.zeros(len(t), bool)
    for c in np.unique(cpus):
        sel = np.flatnonzero(cpus == c)
        on = sw_cpu == c
        tc, nc = sw_t[on], next_pid[on]
        j = np.searchsorted(tc, t[sel], side="right") - 1
        k = np.searchsorted(tc, t_out[sel], side="left")
        idle = (j >= 0) & (nc[np.maximum(j, 0)] == 0) & (k == j + 1)
        if wk_t is not None and len(wk_t):
            wc = np.sort(wk_t[wk_cpu == c])
            since = np.where(j >= 0, tc[np.maximum(j, 0)], -np.inf)
            # wake-ups onto c in (last switch, t): the task's own is at t itself
            n_between = np.searchsorted(wc, t[sel], side="left") - np.searchsorted(wc, since, side="right")
            idle &= n_between == 0
        out[sel] = idle
    return out


def declare_events(*events: str):
    """Decorator: the analysis needs ``events``; raises :class:`MissingTraceEventError`
    naming the missing ones and the ``lisa-eas run`` option that records them. The list is
    in the wrapper's ``required_events`` attribute."""
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(trace, *args, **kwargs):
            need_events(trace, *events)
            return fn(trace, *args, **kwargs)
        wrapper.required_events = tuple(events)
        return wrapper
    return deco
