"""Each CPU's root cfs_rq ``util_avg`` (the collector's ``sched_pelt_cfs`` root records) against
a model built from every CFS task of the trace.

The kernel holds a root cfs_rq's ``util_avg`` as the sum of the contributions of the entities
attached to it: each task's ``util_avg`` is added at enqueue/attach and removed at detach
(``attach_entity_load_avg`` / ``detach_entity_load_avg``, a migration or an exit), and a blocked
(sleeping) task's contribution stays and decays with the cfs_rq's. So the model is: every task
that appears in ``sched_switch``/``sched_wakeup`` (not only rt-app's; RT/DL tasks, prio < 100,
left out) gets its own :func:`lisa_eas.models.pelt_timeline` over its whole timeline, and each
root sample on CPU ``c`` is compared with the sum of the models of the tasks that sit on ``c``
at that time (running, runnable, or blocked there since they last ran; not yet seen or exited:
not counted). A task's util moves with it when it migrates, as in the kernel; a task migrated
at its wake-up arrives with the util ``sync_entity_load_avg`` left it at (decayed only to its
old cfs_rq's last update: ``migrate_task_rq_fair`` -> ``remove_entity_load_avg``, then
``attach_entity_load_avg`` on the new CPU adds it as it is), that cfs_rq being the one whose
record follows the task's own records (the root, or its task group's).

What the kernel does that this does not:

* task groups: with ``sched_autogroup_enabled=1`` tasks sit in an autogroup cfs_rq whose group
  entity is what the root holds; the group entity's util follows the sum of its children by
  propagation (``update_tg_cfs_util``) with a lag of one update, and its own decay runs on the
  group entity's period phase, not each task's;
* period phase: each entity's 1024 us periods are aligned to its own ``last_update_time``;
  the model starts each task at its first event, not at its kernel phase;
* unknown spans: a runnable task switched out with no switch-in traced before it ran for an
  unknown part of that span: from its first collector record from ``RESYNC_S`` before the
  span's switch-out on (the dequeue's own update), its model restarts from the kernel's util
  there, and the root samples on that CPU from the span's start to that record are reported
  apart (``untraced``);
* unknown start: a task that existed before the trace started has an unknown util. A task's
  first collector record (``sched_pelt_se``) gives its start value when there is one; the
  comparison starts ``warmup_s`` after the trace starts, by which time any start error has
  decayed by ``2**(-warmup_s / 32 ms)`` (300 ms: under 1/600 of it).

Two time bases as for the tasks: ``pelt`` (every event mapped to its CPU's PELT clock with
:func:`pelt_clock_map`, root samples at their ``update_time``) and ``mono``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._common import STATE_DEAD, is_dead_state, STATE_RUNNABLE, STATE_RUNNING, STATE_SLEEPING, task_timeline

__all__ = ["compare_cfs_rq", "group_lag"]


def _stats(err: np.ndarray) -> dict:
    a = np.abs(err)
    if not len(a):
        return {"n": 0, "p50": None, "p99": None, "max": None, "mean": None}
    return {"n": int(len(a)), "p50": float(np.percentile(a, 50)), "p99": float(np.percentile(a, 99)),
            "max": float(a.max()), "mean": float(np.mean(err))}


ATTACH_WINDOW_S = 200e-6
#: A span with no traced switch-in ends at the task's first record from this long before its
#: switch-out (the dequeue's own update precedes the record, by up to ~160 us when interrupted).
RESYNC_S = 200e-6


def _near_attach(trace, s_t: np.ndarray, s_c: np.ndarray, window: float) -> np.ndarray:
    """Root samples within ``window`` of an attach or detach on their CPU: a
    ``sched_migrate_task`` (from or to it), a ``sched_wakeup_new`` (a fork's first attach, with
    the util ``post_init_entity_util_avg`` gives it) or an exiting task's last switch-out. The
    kernel writes the root's record both before and after such an attach/detach
    (``attach_entity_load_avg``, ``detach_entity_load_avg``, ``remove_entity_load_avg``), a few
    microseconds before the event's own record: which side a sample is on is not known from the
    trace, so one such sample can be off by the whole util of the task attached."""
    out = np.zeros(len(s_t), bool)
    times, cpus = [], []
    if "sched_migrate_task" in trace.events:
        mg = trace.df("sched_migrate_task")
        for col in ("orig_cpu", "dest_cpu"):
            times.append(mg.index.to_numpy(np.float64))
            cpus.append(mg[col].to_numpy(np.int64))
    if "sched_wakeup_new" in trace.events:
        wn = trace.df("sched_wakeup_new")
        times.append(wn.index.to_numpy(np.float64))
        cpus.append(wn["target_cpu"].to_numpy(np.int64))
    sw = trace.df("sched_switch")
    dead = is_dead_state(sw["prev_state"])
    times.append(sw.index.to_numpy(np.float64)[dead])
    cpus.append(sw["__cpu"].to_numpy(np.int64)[dead])
    m_t, m_c = np.concatenate(times), np.concatenate(cpus)
    for c in np.unique(m_c):
        tc = np.sort(m_t[m_c == c])
        sel = np.flatnonzero(s_c == c)
        j = np.searchsorted(tc, s_t[sel])
        lo = np.abs(s_t[sel] - tc[np.clip(j - 1, 0, len(tc) - 1)])
        hi = np.abs(tc[np.clip(j, 0, len(tc) - 1)] - s_t[sel])
        out[sel] |= np.minimum(lo, hi) < window
    return out


def _rt_pids(trace) -> set:
    sw = trace.df("sched_switch")
    rt = set(sw["next_pid"].to_numpy()[sw["next_prio"].to_numpy() < 100].tolist())
    rt |= set(sw["prev_pid"].to_numpy()[sw["prev_prio"].to_numpy() < 100].tolist())
    return rt


def _close_untraced_switch_outs(trace, tl: pd.DataFrame, se) -> pd.DataFrame:
    """A task left running with another ``sched_switch`` on its CPU after it that does not switch
    it out: its switch-out was not traced (on 6.18 the switch into idle may be missing too). It
    stopped by that switch: at its last collector record on that CPU before it (the dequeue's
    update) when there is one, else at that switch; from then on it is sleeping."""
    sw = trace.df("sched_switch")
    sw_t = sw.index.to_numpy(np.float64)
    sw_c = sw["__cpu"].to_numpy(np.int64)
    per_cpu = {int(c): sw_t[sw_c == c] for c in np.unique(sw_c)}
    t = tl["time"].to_numpy(np.float64)
    st = tl["state"].to_numpy(np.int64)
    cpu = tl["cpu"].to_numpy(np.int64)
    pid = tl["pid"].to_numpy(np.int64)
    nxt_same = np.r_[pid[1:] == pid[:-1], False]
    nxt_t = np.r_[t[1:], np.inf]
    nxt_t = np.where(nxt_same, nxt_t, np.inf)
    add = []
    se_t = se.index.to_numpy(np.float64) if se is not None else np.zeros(0)
    se_pid = se["pid"].to_numpy(np.int64) if se is not None else np.zeros(0, np.int64)
    for i in np.flatnonzero(st == STATE_RUNNING):
        ct = per_cpu.get(int(cpu[i]))
        if ct is None:
            continue
        j = np.searchsorted(ct, t[i], side="right")
        if j >= len(ct) or ct[j] >= nxt_t[i] - 1e-9:
            continue
        end = ct[j]
        mine = se_t[(se_pid == pid[i]) & (se_t > t[i]) & (se_t <= end)] if len(se_t) else se_t
        if len(mine):
            end = float(mine[-1])
        add.append((pid[i], end, STATE_SLEEPING, cpu[i]))
    if not add:
        return tl
    extra = pd.DataFrame(add, columns=["pid", "time", "state", "cpu"])
    out = pd.concat([tl[["pid", "time", "state", "cpu"]], extra], ignore_index=True)
    return out.sort_values(["pid", "time"], kind="stable").reset_index(drop=True)


def _apply_migrations(trace, tl: pd.DataFrame) -> pd.DataFrame:
    """``sched_migrate_task``: from that time the task (and its util: ``detach_entity_load_avg``
    on the old rq, ``attach_entity_load_avg`` on the new) sits on ``dest_cpu``, in the state it
    had (a load-balance move of a runnable task has no switch or wake-up of its own)."""
    if "sched_migrate_task" not in trace.events:
        return tl
    mg = trace.df("sched_migrate_task")
    if not len(mg):
        return tl
    t = tl["time"].to_numpy(np.float64)
    pid = tl["pid"].to_numpy(np.int64)
    st = tl["state"].to_numpy(np.int64)
    add = []
    for m_t, m_pid, dest in zip(mg.index.to_numpy(np.float64), mg["pid"].to_numpy(np.int64),
                                mg["dest_cpu"].to_numpy(np.int64)):
        rows = np.flatnonzero(pid == m_pid)
        if not len(rows):
            continue
        before = rows[t[rows] <= m_t]
        state = int(st[before[-1]]) if len(before) else STATE_SLEEPING
        after = rows[t[rows] > m_t]
        if state == STATE_RUNNABLE and len(after) and st[after[0]] != STATE_RUNNING:
            # pulled onto a CPU where its next event is its own switch-out: it ran there with
            # no sched_switch into it (a newly-idle CPU's pull, its switch out of idle not
            # traced): running from the pull
            state = STATE_RUNNING
        add.append((m_pid, m_t, STATE_SLEEPING if state == STATE_DEAD else state, dest, 1))
    extra = pd.DataFrame(add, columns=["pid", "time", "state", "cpu", "_r"])
    base = tl[["pid", "time", "state", "cpu"]].assign(_r=0)
    out = pd.concat([base, extra], ignore_index=True).sort_values(["pid", "time", "_r"], kind="stable")
    return out.drop(columns="_r").reset_index(drop=True)


def _untraced_spans(tl: pd.DataFrame, se) -> dict:
    """Per pid, the spans a task ran in with no traced switch-in (``task_timeline``'s
    ``untraced_switch_in``: a runnable row ended by its own switch-out, or a sleep whose
    switch-out follows a row it was not running in): ``(start, end, stop, cpu, util)``. How long
    it ran in ``[start, end)`` is not in the trace, so the root's samples on that CPU there hold
    an unknown part of its util. ``stop`` is the task's first collector record from ``RESYNC_S``
    before the span's switch-out on (its dequeue's own update, or a later one: the kernel's util
    there, from which the task's model restarts; ``inf`` with no record); ``end`` is the
    switch-out, or that record if it came first."""
    out: dict = {}
    f = tl["untraced_switch_in"].to_numpy(bool)
    if not f.any():
        return out
    t = tl["time"].to_numpy(np.float64)
    st = tl["state"].to_numpy(np.int64)
    pid = tl["pid"].to_numpy(np.int64)
    cpu = tl["cpu"].to_numpy(np.int64)
    nxt_same = np.r_[pid[1:] == pid[:-1], False]
    by_pid = {}
    if se is not None and len(se):
        se_t = se.index.to_numpy(np.float64)
        for p, g in pd.Series(np.arange(len(se))).groupby(se["pid"].to_numpy(np.int64)):
            by_pid[int(p)] = g.to_numpy()
        se_u = se["util"].to_numpy(np.int64)
    for i in np.flatnonzero(f):
        if st[i] == STATE_RUNNABLE:         # the runnable row is the span, to its switch-out
            start, end, on = t[i], (t[i + 1] if nxt_same[i] else np.inf), cpu[i]
        else:                               # a switch-out to sleep ends the row before it
            start, end, on = t[max(i - 1, 0)], t[i], cpu[max(i - 1, 0)]
        stop, util = np.inf, 0
        rec = by_pid.get(int(pid[i]))
        if rec is not None and np.isfinite(end):
            j = rec[np.searchsorted(se_t[rec], max(end - RESYNC_S, start), side="left"):]
            if len(j):
                stop, util = float(se_t[j[0]]), int(min(se_u[j[0]], 1024))
        out.setdefault(int(pid[i]), []).append((float(start), float(min(stop, end)), stop, int(on), util))
    return out


def _cfs_rq_updates(trace, se) -> tuple[dict, dict]:
    """Each task's cfs_rq (the ``path`` of the ``sched_pelt_cfs`` record that follows its own
    ``sched_pelt_se`` record in the same ``update_load_avg()``, on its CPU within 50 us: ``/`` or
    a task group's) and, per (CPU, path), the times and rq-clock values (``update_time``) of that
    cfs_rq's records. With several task groups of one name on a CPU their records are not told
    apart (a trace does not say which group a task is in)."""
    if "sched_pelt_cfs" not in trace.events:
        return {}, {}
    if se is None:
        se = pd.DataFrame({"cpu": np.zeros(0, np.int64), "pid": np.zeros(0, np.int64)},
                          index=np.zeros(0, np.float64))
    cfs = trace.df("sched_pelt_cfs")
    if not len(cfs):
        return {}, {}
    c_t = cfs.index.to_numpy(np.float64)
    c_cpu = cfs["cpu"].to_numpy(np.int64)
    c_path = cfs["path"].astype(str).to_numpy()
    c_u = cfs["update_time"].to_numpy(np.int64) if "update_time" in cfs.columns else np.round(c_t * 1e9).astype(np.int64)
    s_t = se.index.to_numpy(np.float64)
    s_cpu = se["cpu"].to_numpy(np.int64)
    s_pid = se["pid"].to_numpy(np.int64)
    path_of: dict = {}
    updates: dict = {}
    for c in np.unique(c_cpu):
        on = np.flatnonzero(c_cpu == c)
        mine = np.flatnonzero(s_cpu == c)
        j = np.searchsorted(c_t[on], s_t[mine], side="left")
        ok = j < len(on)
        jj = on[np.minimum(j, len(on) - 1)]
        ok &= c_t[jj] - s_t[mine] <= 50e-6
        for pid, path in zip(s_pid[mine[ok]], c_path[jj[ok]]):
            path_of.setdefault(int(pid), {}).setdefault(path, 0)
            path_of[int(pid)][path] += 1
        for path in np.unique(c_path[on]):
            sel = on[c_path[on] == path]
            updates[(int(c), str(path))] = (c_t[sel], c_u[sel])
    return {p: max(d, key=d.get) for p, d in path_of.items()}, updates


def _model_at(t_ev, st, cpu, s_t, s_c, s_loc, want, to_pelt, util0: int, era: str):
    """One task's PELT model from its first event (util ``util0``) over its events ``t_ev``
    (``st``, ``cpu``), at the root samples it sits under (on its CPU, not dead, ``want``):
    (sample indices, util_avg at each)."""
    from ...models import pelt_timeline

    if not len(t_ev):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    k = np.searchsorted(t_ev, s_t, side="right") - 1
    kk = np.clip(k, 0, len(t_ev) - 1)
    idx = np.flatnonzero(want & (k >= 0) & (cpu[kk] == s_c) & (st[kk] != STATE_DEAD))
    if not len(idx):
        return idx, np.zeros(0, np.int64)
    # the task's own time axis: each segment [event k, event k+1) lasts what the clock of
    # its CPU says (the PELT clocks of two CPUs differ by their steal time, so a migration
    # must not jump the axis); a root sample sits in its segment at its own clock value
    t_end = np.r_[t_ev[1:], max(t_ev[-1], float(s_t[-1]) + 1.0)]
    if to_pelt is not None:
        a, b = to_pelt(t_ev, cpu), to_pelt(t_end, cpu)
    else:
        a, b = np.round(t_ev * 1e9).astype(np.int64), np.round(t_end * 1e9).astype(np.int64)
    dur = np.maximum(b - a, 0)
    m_start = np.r_[0, np.cumsum(dur)[:-1]]
    ks = kk[idx]
    s_m = m_start[ks] + np.clip(s_loc[idx] - a[ks], 0, dur[ks])
    t_all = np.r_[t_ev, s_t[idx]]
    loc = np.r_[m_start, s_m]
    kind = np.r_[np.zeros(len(t_ev), np.int64), np.ones(len(idx), np.int64)]
    stt = np.r_[np.where(st == STATE_DEAD, 0, st), np.where(st[ks] == STATE_DEAD, 0, st[ks])]
    o = np.lexsort((kind, t_all))
    loc = np.maximum.accumulate(loc[o])
    stt, kind_o = stt[o], kind[o]
    sig = pelt_timeline(loc - loc[0], stt, era=era, util_avg=util0)
    return idx, sig["util_avg"].to_numpy(np.int64)[kind_o == 1]


def _task_model(t_ev, st, cpu, spans, util_first: int, s_t, s_c, s_loc, to_pelt, era: str,
                stale_sync: bool, cfs_updates: dict | None = None):
    """One task's util at the points ``s_t`` (on CPUs ``s_c``, their clock values ``s_loc``)
    where it sits on that CPU: (point indices, util_avg). The model runs in pieces: from the
    task's first event with ``util_first``; after each span it ran in with no traced switch-in
    (``spans``, :func:`_untraced_spans`), from the kernel's record that ends it; with
    ``stale_sync``, after each wake-up migration from its own util at its cfs_rq's last update on
    the old CPU (``cfs_updates``: that cfs_rq's record times and rq-clock values; its dequeue
    when none is later)."""
    pieces = [(-np.inf, util_first, None)]
    for _start, _end, stop, _on, util in spans:
        if np.isfinite(stop):
            pieces.append((stop, util, None))
    if stale_sync:
        # migrate_task_rq_fair() -> remove_entity_load_avg() -> sync_entity_load_avg() decays
        # a sleeping task only to its old cfs_rq's last update (cfs_rq_last_update_time()), and
        # attach_entity_load_avg() adds it to the new CPU as it is: the decay between is never
        # applied. That update is the last record of the task's cfs_rq on the old CPU, or its own
        # dequeue (its cfs_rq is updated with it) when no record is later. (An update that
        # crossed no period writes no record: up to a period later, the sync is.)
        moved = np.flatnonzero((cpu[1:] != cpu[:-1]) & (st[1:] == 0) & (st[:-1] == 0)) + 1
        for i in moved:
            t_sync, loc = float(t_ev[i - 1]), None
            rec = (cfs_updates or {}).get(int(cpu[i - 1]))
            if rec is not None:
                k = int(np.searchsorted(rec[0], t_ev[i], side="right")) - 1
                if k >= 0 and rec[0][k] > t_sync:
                    t_sync, loc = float(rec[0][k]), int(rec[1][k])
            pieces.append((float(t_ev[i]), -1, (t_sync, int(cpu[i - 1]), loc)))
    pieces.sort(key=lambda x: x[0])
    out_i, out_u = [], []
    prev_piece = None
    for j, (p_from, util0, sync_at) in enumerate(pieces):
        p_to = pieces[j + 1][0] if j + 1 < len(pieces) else np.inf
        keep = (t_ev > p_from) & (t_ev < p_to)
        k0 = int(np.searchsorted(t_ev, p_from, side="right")) - 1
        if np.isfinite(p_from):
            if k0 < 0:
                continue
            p_t, p_st, p_c = np.r_[p_from, t_ev[keep]], np.r_[st[k0], st[keep]], np.r_[cpu[k0], cpu[keep]]
        else:
            p_t, p_st, p_c = t_ev[keep], st[keep], cpu[keep]
        if sync_at is not None:
            if prev_piece is None:
                continue
            t_sync, on, loc = sync_at
            if to_pelt is None:
                loc = np.array([round(t_sync * 1e9)])
            elif loc is None:
                loc = to_pelt(np.array([t_sync]), np.array([on]))
            else:
                loc = np.array([loc])
            pt, pst, pc, pu = prev_piece
            _, u_sync = _model_at(pt, pst, pc, np.array([t_sync]), np.array([on]), np.asarray(loc, np.int64),
                                  np.array([True]), to_pelt, pu, era)
            if not len(u_sync):
                continue
            util0 = int(min(u_sync[0], 1024))
        in_piece = (s_t >= p_from) & (s_t < p_to)
        idx, u = _model_at(p_t, p_st, p_c, s_t, s_c, s_loc, in_piece, to_pelt, util0, era)
        prev_piece = (p_t, p_st, p_c, util0)
        out_i.append(idx)
        out_u.append(u)
    if not out_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(out_i), np.concatenate(out_u)


def compare_cfs_rq(trace, *, era: str = "v6.18", clock: str = "pelt",
                   warmup_s: float = 0.3, stale_sync: bool = True) -> tuple[pd.DataFrame, dict]:
    """Model vs kernel for each CPU's root cfs_rq util_avg.

    Parameters
    ----------
    trace : Trace
        With ``sched_switch``, ``sched_wakeup`` and the collector's ``sched_pelt_cfs`` records.
    era : str
        Kernel version of the PELT model.
    clock : {"pelt", "mono"}
        Time base (see the module docstring).
    warmup_s : float
        Root samples in the first ``warmup_s`` seconds of the trace are not compared (the
        start util of tasks already running before the trace is unknown).
    stale_sync : bool
        A task migrated at its wake-up arrives with its util at its old cfs_rq's last update
        (that cfs_rq's last record, else the task's dequeue), as the kernel's
        ``sync_entity_load_avg`` leaves it (see the module docstring). False decays it to the
        migration, as a fresh model would (kept for the on/off comparison).

    Returns
    -------
    (DataFrame, dict)
        One row per compared root sample (``time``, ``cpu``, ``kernel_util``, ``model_util``,
        ``tasks``: how many task models were summed, ``at_attach``, ``untraced``: samples within
        ``ATTACH_WINDOW_S`` of an attach/detach, or in a span a task ran in with no traced
        switch-in) and the summary ``{"util": {n, p50, p99, max, mean}, "clock", "era", "tasks",
        "warmup_s"}`` of ``|model - kernel|`` over the other samples (``util_all``: over every
        sample; ``at_attach_samples``, ``untraced_samples``: how many were set apart), and
        ``group_lag`` (:func:`group_lag`: the kernel's group entities against their own cfs_rq).
    """
    if clock not in ("pelt", "mono"):
        raise ValueError(f"clock must be 'pelt' or 'mono', got {clock!r}")
    cfs = trace.df("sched_pelt_cfs")
    root = cfs[cfs["is_root"].to_numpy(bool)] if "is_root" in cfs.columns else cfs[cfs["path"] == "/"]
    sw_t = trace.df("sched_switch").index.to_numpy(np.float64)
    t_from = float(sw_t[0]) + warmup_s
    # and only while the trace's sched events are recorded: the collector starts before and
    # stops after the tracer, and a root sample past the last sched_switch has no events to model
    r_t = root.index.to_numpy(np.float64)
    root = root[(r_t >= t_from) & (r_t <= float(sw_t[-1]))]
    s_t = root.index.to_numpy(np.float64)
    s_c = root["cpu"].to_numpy(np.int64)
    if clock == "pelt":
        from ._pelt_clock import pelt_clock_map
        to_pelt = pelt_clock_map(trace)
        s_loc = root["update_time"].to_numpy(np.int64)
    else:
        to_pelt = None
        s_loc = np.round(s_t * 1e9).astype(np.int64)
    total = np.zeros(len(root), np.int64)
    count = np.zeros(len(root), np.int64)
    se = trace.df("sched_pelt_se") if "sched_pelt_se" in trace.events else None
    first_util = {}
    if se is not None and len(se):
        se = se[se["pid"].to_numpy() > 0]
        first_util = se.groupby("pid", sort=False)["util"].first().to_dict()
    rt = _rt_pids(trace)
    tl_raw = task_timeline(trace)
    tl_all = _close_untraced_switch_outs(trace, _apply_migrations(trace, tl_raw), se)
    spans = _untraced_spans(tl_raw, se)
    path_of, cfs_updates = _cfs_rq_updates(trace, se) if stale_sync else ({}, {})
    untraced = np.zeros(len(s_t), bool)
    n_tasks = 0
    for pid, tl in tl_all.groupby("pid", sort=True):
        if pid in rt or not len(s_t):
            continue
        t_ev = tl["time"].to_numpy(np.float64)
        st = tl["state"].to_numpy(np.int64)
        cpu = tl["cpu"].to_numpy(np.int64)
        for start, end, stop, on, util in spans.get(int(pid), ()):
            untraced |= (s_c == on) & (s_t >= start) & (s_t < end)
        idx, u = _task_model(t_ev, st, cpu, spans.get(int(pid), ()), int(min(first_util.get(pid, 0), 1024)),
                             s_t, s_c, s_loc, to_pelt, era, stale_sync,
                             {c: v for (c, pth), v in cfs_updates.items() if pth == path_of.get(int(pid), "/")})
        if len(idx):
            np.add.at(total, idx, u)
            np.add.at(count, idx, 1)
        counted = len(idx) > 0
        n_tasks += counted
    rows = pd.DataFrame({"time": s_t, "cpu": s_c, "kernel_util": root["util"].to_numpy(np.int64),
                         "model_util": total, "tasks": count,
                         "at_attach": _near_attach(trace, s_t, s_c, ATTACH_WINDOW_S),
                         "untraced": untraced})
    err = (rows["model_util"] - rows["kernel_util"]).to_numpy(np.float64)
    judged = ~(rows["at_attach"].to_numpy(bool) | untraced)
    summary = {"clock": clock, "era": era, "tasks": n_tasks, "warmup_s": warmup_s,
               "util": _stats(err[judged]), "util_all": _stats(err),
               "at_attach_samples": int(rows["at_attach"].sum()), "untraced_samples": int(untraced.sum()),
               "group_lag": group_lag(trace)}
    return rows, summary


def group_lag(trace, window_s: float = 20e-6) -> dict:
    """How far the kernel's own group entities lag their group cfs_rq (task groups, autogroups).

    A root cfs_rq holds a group entity's ``util_avg``, not its children's: the group entity runs
    its own PELT signal and takes its cfs_rq's util only when a change is propagated
    (``propagate_entity_load_avg`` / ``update_tg_cfs_util``, after an attach/detach inside the
    group). Walking up from a task, ``update_load_avg()`` writes the group cfs_rq's record, then
    the group entity's (before propagation): each group ``sched_pelt_se`` record (pid <= 0) is
    paired with the same CPU's group ``sched_pelt_cfs`` record written at most ``window_s``
    before it, and ``|entity util - cfs_rq util|`` summarised (kernel against kernel: no model).
    """
    if "sched_pelt_se" not in trace.events or "sched_pelt_cfs" not in trace.events:
        return _stats(np.zeros(0))
    se = trace.df("sched_pelt_se")
    cfs = trace.df("sched_pelt_cfs")
    g = se[se["pid"].to_numpy() <= 0]
    gc = cfs[~cfs["is_root"].to_numpy(bool)] if "is_root" in cfs.columns else cfs[cfs["path"] != "/"]
    out = []
    for c in np.unique(g["cpu"].to_numpy(np.int64)):
        a = g[g["cpu"].to_numpy(np.int64) == c]
        b = gc[gc["cpu"].to_numpy(np.int64) == c]
        if not len(a) or not len(b):
            continue
        at = a.index.to_numpy(np.float64)
        bt = b.index.to_numpy(np.float64)
        j = np.searchsorted(bt, at, side="right") - 1
        ok = (j >= 0) & (at - bt[np.maximum(j, 0)] <= window_s)
        out.append(a["util"].to_numpy(np.int64)[ok] - b["util"].to_numpy(np.int64)[j[ok]])
    return _stats(np.concatenate(out).astype(np.float64) if out else np.zeros(0))
