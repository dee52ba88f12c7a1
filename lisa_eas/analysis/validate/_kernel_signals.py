"""The PELT/util_est models against the running kernel's own signals (the kernel-signals
collector's ``sched_pelt_se`` / ``sched_util_est_se`` records).

For each task, :func:`lisa_eas.models.pelt_timeline` for the kernel's era is fed only with the
task's run/sleep timeline from the same trace (``sched_switch``/``sched_wakeup``), started from
the task's first kernel sample (its util/load/runnable, at the PELT period boundary that
sample's ``period_contrib`` locates), and compared with every later sample. Nothing is fitted.

Two time bases:

* ``pelt``: the kernel's PELT clock (``clock_pelt - lost_idle_time`` of the task's rq, which on a
  VM leaves out steal time). Trace times (mono) map to it with the records' rq clocks: mono to
  ``rq->clock`` by the lower envelope of ``ts - clock`` over all records (a line fitted to
  100 ms minima: the two clocks tick together up to NTP slew), and ``rq->clock`` to the PELT
  clock by the last sample's ``clock - clock_pelt + lost_idle_time`` on that CPU. Kernel samples
  are placed at their own ``update_time`` (``last_update_time``, PELT clock).
* ``mono``: trace times as they are; samples at their record time.

On the PELT clock each event of the timeline is placed on the rq clock the kernel ran it on, which
the records show (docs/guide/boards_live.md "Stale rq clocks"): an event's own update (a record
of the task just before the event's record, or anywhere between a wake-up's ``sched_waking`` and
``sched_wakeup``, or after a dequeue's ``sched_util_est_se``), a switch after a wake-up
preemption or out of idle on the latest rq clock (:mod:`._switch_clock`), a dequeue that crossed
no period on its util_est record's clock. A span the trace cannot place (an untraced switch-in,
or a wake-up the task's own samples show it waited through) is flagged ``trace_gap``.

A migration re-attaches the task to another rq's PELT clock, ``last_update_time`` and period
phase (``attach_entity_load_avg``), which depend on that rq, not on the task's timeline: each
stay of a task on one CPU is compared on its own, from its first sample there.

util_est is compared twice at each kernel ``sched_util_est_se`` record: the model's own estimate
(free-running from the start sample) and one :func:`~lisa_eas.models.util_est_step` from the
kernel's previous estimate on the model's util/runnable at the point the era samples them.
load_avg is judged on the samples without v6.12 delayed-dequeue time (the kernel's load equals
runnable * weight / 1024 there); the others are reported apart (``load_delayed``), with every
sample's error beyond the delayed load the kernel carries (``load_beyond_delayed``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._common import STATE_DEAD, STATE_RUNNABLE, STATE_RUNNING, task_timeline
from ._pelt_clock import clocked_records, pelt_clock_map
from ._switch_clock import switch_clock_times

__all__ = ["compare_kernel_signals", "kernel_signals_summary", "pelt_clock_map"]

#: How long before a task's ``sched_switch``/``sched_wakeup`` record a record of that task is
#: taken for the event's own update (in __schedule / ttwu_do_activate, between the rq-clock
#: update and the trace record). Measured on this VM (6.18.44-fc): 2-8 us for nearly all, up to
#: 30 us under load. It was 200 us: a tick's record 190-198 us before a wake-up preemption's
#: switch-out was taken for the switch-out's update, moving the end of the running span back
#: to the tick (util_avg low by 4, decaying over the next ~20 samples; the kernel's own sums at
#: the next sample are reproduced exactly with the switch-out at the wake-up's rq clock). Either
#: way a misjudged sample costs at most ``OWN_UPDATE_S * 1024 / LOAD_AVG_MAX`` (< 1 at 40 us).
OWN_UPDATE_S = 40e-6
#: Place a switch after a wake-up preemption on the wake-up's rq clock (:mod:`._switch_clock`).
#: False feeds every switch at its record, as before: kept to replay the difference on a trace.
SWITCH_CLOCK = True


def _stats(err: np.ndarray) -> dict:
    a = np.abs(err[~np.isnan(err)]) if len(err) else err
    if not len(a):
        return {"n": 0, "p50": None, "p99": None, "max": None, "mean": None}
    return {"n": int(len(a)), "p50": float(np.percentile(a, 50)), "p99": float(np.percentile(a, 99)),
            "max": float(a.max()), "mean": float(np.mean(err[~np.isnan(err)]))}


def _cpu_clocks(trace) -> dict:
    """``{cpu: (record times in s, rq clocks in ns, PELT clocks in ns)}`` of every collector
    record, in time order (the PELT clock: ``clock_pelt - lost_idle_time``, as ``update_time``)."""
    rec = clocked_records(trace)
    t = rec["__ts"].to_numpy(np.int64) / 1e9
    c = rec["cpu"].to_numpy(np.int64)
    k = rec["clock"].to_numpy(np.int64)
    pc = rec["clock_pelt"].to_numpy(np.int64) - rec["lost_idle_time"].to_numpy(np.int64)
    return {int(x): (t[c == x], k[c == x], pc[c == x]) for x in np.unique(c)}


def _clock_moved_on(cpu_clocks: dict | None, cpu: np.ndarray, t_from: np.ndarray, t_to: np.ndarray,
                    clk: np.ndarray) -> np.ndarray:
    """Whether a record on ``cpu`` after ``t_from`` and up to ``t_to`` shows an rq clock later
    than ``clk`` (by more than 2 us): the rq clock was updated in between."""
    out = np.zeros(len(t_from), bool)
    if not cpu_clocks:
        return out
    for i in range(len(t_from)):
        tc, kc, _ = cpu_clocks.get(int(cpu[i]), (None, None, None))
        if tc is None:
            continue
        lo = int(np.searchsorted(tc, t_from[i], side="right"))
        hi = int(np.searchsorted(tc, t_to[i], side="right"))
        out[i] = hi > lo and int(kc[lo:hi].max()) > int(clk[i]) + 2000
    return out


def _task(trace, pid: int, tl: pd.DataFrame, se: pd.DataFrame, ue: pd.DataFrame | None, era: str,
          to_pelt, clock: str, waking: np.ndarray | None = None,
          sw_clock: dict | None = None, cpu_clocks: dict | None = None, migrated_in: bool = False,
          ue_cfs: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    from ...models import pelt_timeline, util_est_step

    split = np.zeros(0, np.int64)
    if clock == "pelt" and cpu_clocks:
        # A task woken on an idle CPU whose switch-in was not traced runs from its wake-up (the
        # timeline's inference). In the kernel it is runnable from its enqueue's rq clock and
        # running from the clock the switch out of idle ran on: that __schedule() reuses the
        # latest rq clock (the wake-up's rq_clock_skip_update(), see _switch_clock), which another
        # wake-up in the same interrupt may have moved on. Such a row is split: runnable at the
        # wake-up, running from the latest clock a record on that CPU shows by the end of the
        # wake-up's interrupt (below). (A recorded run: two tasks woken by one timer, the first's
        # enqueue on a clock 153 us old, the second's on a fresh one; the first, running from
        # its enqueue's clock, was 3 high in util_avg.)
        st0 = tl["state"].to_numpy(np.int64)
        woke_running = np.flatnonzero((st0[1:] == STATE_RUNNING) & (st0[:-1] == 0)) + 1
        if len(woke_running):
            tl = tl.copy()
            dup = tl.iloc[woke_running].copy()
            dup["state"] = STATE_RUNNABLE
            order = np.r_[np.arange(len(tl)), woke_running - 0.5]
            tl = pd.concat([tl, dup], ignore_index=True).iloc[np.argsort(order, kind="stable")]
            tl = tl.reset_index(drop=True)
            split = woke_running + np.arange(len(woke_running))      # the runnable rows, re-indexed
    t_ev = tl["time"].to_numpy(np.float64)
    st = tl["state"].to_numpy(np.int64)
    st = np.where(st == STATE_DEAD, 0, st)
    cpu = tl["cpu"].to_numpy(np.int64)
    n = len(t_ev)
    # each event on its rq's clock: a switch after a wake-up preemption ran on the wake-up's
    # rq clock (see _switch_clock), the others at their record
    t_clk = t_ev.copy()
    if sw_clock:
        key = np.round(t_ev * 1e9).astype(np.int64)
        for i in range(n):
            w = sw_clock.get((int(cpu[i]), int(key[i])))
            if w is not None and st[i] in (STATE_RUNNING, STATE_RUNNABLE):
                t_clk[i] = w
    # segment k = [t_ev[k], t_ev[k+1]) on cpu[k]; its two ends on that CPU's clock
    t_end = np.r_[t_clk[1:], t_clk[-1]]
    if clock == "pelt":
        a = to_pelt(t_clk, cpu)
        b = to_pelt(t_end, cpu)
    else:
        a = np.round(t_clk * 1e9).astype(np.int64)
        b = np.round(t_end * 1e9).astype(np.int64)
    b = np.maximum(b, a)
    # kernel samples -> segment
    s_t = se.index.to_numpy(np.float64)
    s_cpu = se["cpu"].to_numpy(np.int64)
    k = np.searchsorted(t_ev, s_t, side="right") - 1
    ok = (k >= 0) & (k < n)
    kk = np.clip(k, 0, n - 1)
    if clock == "pelt":
        s_local = se["update_time"].to_numpy(np.int64)
        ok &= cpu[kk] == s_cpu      # the sample is on the segment's CPU clock
    else:
        s_local = np.round(s_t * 1e9).astype(np.int64)
    # a sample made by an enqueue/dequeue precedes that event's sched_switch/wakeup record by a
    # few us: it is the update of that event (one kernel update, not two). Only a few: a tick's
    # update (entity_tick) up to a period before a switch-out that crossed no period boundary
    # (so wrote no record) is not that switch-out's update; see OWN_UPDATE_S.
    nxt_i = np.clip(kk + 1, 0, n - 1)
    snap = ok & (kk + 1 < n) & (t_ev[nxt_i] - s_t < OWN_UPDATE_S) & (t_ev[nxt_i] >= s_t)
    if cpu_clocks and "clock" in se.columns and snap.any():
        # ... unless the event is a preemption (running -> runnable: put_prev_entity() in the
        # pick, on __schedule()'s clock) and the rq clock moved on between the sample and it:
        # another record on that CPU in between shows a later clock, so the switch-out's own
        # update ran on that one or later. (A recorded run: an update reusing a 130 us old clock
        # 28 us before a preemption whose own update, no period crossed, wrote no record; the
        # next task's record in the same __schedule() shows the switch's clock. Taken for the
        # switch-out's update, the running span ended 155 units early: util_avg 3 low.) Not a
        # dequeue to sleep: it comes before the pick, whose newidle balance updates the rq clock
        # (update_blocked_averages() records a few us later) before the switch record.
        cand = np.flatnonzero(snap & (st[kk] == STATE_RUNNING) & (st[nxt_i] == STATE_RUNNABLE))
        moved = _clock_moved_on(cpu_clocks, s_cpu[cand], s_t[cand], t_ev[nxt_i[cand]],
                                se["clock"].to_numpy(np.int64)[cand])
        snap[cand[moved]] = False
    if ue is not None and len(ue) and _samples_before(era):
        # v6.12+: a dequeue to sleep writes its util_est record before its own PELT update, so
        # a sample with that dequeue's util_est record after it is an earlier update (a tick
        # just before the dequeue), not the dequeue's
        u_all = ue.index.to_numpy(np.float64)
        first_ue = np.searchsorted(u_all, s_t, side="right")
        has_ue = (first_ue < len(u_all)) & (u_all[np.minimum(first_ue, len(u_all) - 1)] <= t_ev[nxt_i])
        snap &= ~(has_ue & (st[nxt_i] == 0))
        # ... and a sample at or after that record (and before the switch-out's) is the dequeue's
        # own update however far before the switch-out record (a recorded run: the dequeue's
        # update 161 us before its switch-out, which, as a separate point, became the "previous
        # update" util_est_update() samples: util 231 taken for the tick's 210, ewma 19 high)
        last_ue = np.searchsorted(u_all, s_t + 2e-6, side="right") - 1
        lu = np.where(last_ue >= 0, u_all[np.maximum(last_ue, 0)], -np.inf)
        snap |= ok & (kk + 1 < n) & (st[nxt_i] == 0) & (lu > t_ev[kk]) & (t_ev[nxt_i] >= s_t)
    if waking is not None and len(waking):
        # a wake-up's own update (the enqueue) comes after its sched_waking record (ttwu traces
        # sched_waking before activating the task): a sample of a sleeping task before that is an
        # earlier update, e.g. the v6.12+ completion of a delayed dequeue when the task, still
        # queued after its sleep, is picked (load grows there, runnable does not); taking it for
        # the wake-up moved the wake-up back by up to 200 us (runnable_avg off by 3)
        prev_st = np.r_[-1, st[:-1]]
        wake = (st == STATE_RUNNABLE) & (prev_st == 0)
        j = np.searchsorted(waking, t_ev, side="right") - 1
        wk_t = np.where(j >= 0, waking[np.maximum(j, 0)], -np.inf)
        snap &= ~(wake[nxt_i] & (s_t < wk_t[nxt_i] - 2e-6))
        # ... and a sample of the task between its wake-up's sched_waking record and the wake-up's
        # own record is that wake-up's update however far before the record: the enqueue walks
        # the task's hierarchy and ttwu checks preemption before tracing sched_wakeup, and that
        # can be interrupted (a recorded run: waking, the task's update 8 us later, its group's
        # 155 us after that, sched_wakeup 3 us later; with OWN_UPDATE_S alone the task on an idle
        # CPU was taken as running from the record, 161 us late, util_avg 3-4 low for ~10 samples)
        woke = ((st == STATE_RUNNABLE) | (st == STATE_RUNNING)) & (prev_st == 0)
        snap |= (ok & (kk + 1 < n) & woke[nxt_i] & (s_t >= wk_t[nxt_i] - 2e-6) & (wk_t[nxt_i] > t_ev[kk])
                 & (t_ev[nxt_i] >= s_t))
    if clock == "pelt":
        # ... and on the PELT clock that event happened when the kernel says: its rq clock may
        # lag (an update that reused an older rq clock), and the kernel accrues up to it
        same = snap & (cpu[nxt_i] == s_cpu)
        j = nxt_i[same]
        a[j] = s_local[same]
        b[j - 1] = s_local[same]
        if ue is not None and len(ue) and "clock_pelt" in ue.columns:
            # a dequeue to sleep that wrote no PELT record (no period crossed) still wrote its
            # util_est record, on the same rq clock: the event is on that clock (a recorded run:
            # a dequeue on an rq clock 164 us stale, 2 us before its switch-out record; placed at
            # the record, the task ran 161 units too long, runnable_avg 3 high)
            u_tt = ue.index.to_numpy(np.float64)
            u_pc = ue["clock_pelt"].to_numpy(np.int64) - ue["lost_idle_time"].to_numpy(np.int64)
            u_cpu = ue["cpu"].to_numpy(np.int64)
            placed = set(j.tolist())         # on their own sample's clock already
            for i in np.flatnonzero((st == 0) & (np.r_[-1, st[:-1]] >= STATE_RUNNABLE)):
                if i == 0 or i in placed:
                    continue
                k = int(np.searchsorted(u_tt, t_ev[i], side="right")) - 1
                if k >= 0 and u_tt[k] > t_ev[i - 1] and u_cpu[k] == cpu[i - 1] and u_pc[k] > 0:
                    a[i] = u_pc[k]
                    b[i - 1] = u_pc[k]
        # a switch that ran on its own wake-up's rq clock (moved back to that wake-up's record
        # by _switch_clock) starts where that wake-up's update is: the enqueue's own sample,
        # a few us before the record (the model ran 2-8 us short at each wake-up on an idle CPU)
        if sw_clock:
            own = np.flatnonzero((t_clk[1:] <= t_ev[:-1]) & (st[:-1] == STATE_RUNNABLE) & (cpu[1:] == cpu[:-1])) + 1
            own = own[~np.isin(own - 1, split)]
            a[own] = a[own - 1]
            b[own - 1] = a[own - 1]
        for r in split:
            # running from the latest rq clock on the CPU between the wake-up's sched_waking (or
            # its own record) and OWN_UPDATE_S after its sched_wakeup record
            tc, _, pc = cpu_clocks.get(int(cpu[r]), (None, None, None))
            if tc is None or r + 1 >= n:
                continue
            w0 = t_ev[r]
            if waking is not None and len(waking):
                j = int(np.searchsorted(waking, t_ev[r], side="right")) - 1
                if j >= 0 and (r == 0 or waking[j] > t_ev[r - 1]):
                    w0 = waking[j]
            lo = int(np.searchsorted(tc, w0 - 2e-6, side="left"))
            hi = int(np.searchsorted(tc, t_ev[r] + OWN_UPDATE_S, side="right"))
            latest = int(pc[lo:hi].max()) if hi > lo else int(a[r])
            a[r + 1] = max(int(a[r]), latest)
            b[r] = a[r + 1]
        b = np.maximum(b, a)
    dur = np.maximum(b - a, 0)
    m_start = np.r_[0, np.cumsum(dur)[:-1]]          # model axis at each event
    s_m = m_start[kk] + np.clip(s_local - a[kk], 0, dur[kk])
    s_m = np.where(snap, m_start[nxt_i], s_m)
    idx = np.flatnonzero(ok)
    if len(idx) < 2:
        return pd.DataFrame(), pd.DataFrame()
    if ue is not None and len(ue):
        # start where util_est is known too: the first sample after the first util_est record
        after = idx[s_t[idx] >= ue.index.to_numpy(np.float64)[0]]
        idx = after if len(after) >= 2 else idx
    # the start: the first sample. (A sample taken at an enqueue/dequeue, a few us before that
    # event's record, starts the model at the period boundary before it without its partial
    # period, which covers the state before the event: the event itself is then accrued once.
    # Requiring a sample with no event within 200 us after it left the first 10-90 % of a run
    # uncompared on a loaded CPU, where nearly every sample is an event's update.)
    first = idx[0]
    idx = idx[idx >= first]
    if len(idx) < 2:
        return pd.DataFrame(), pd.DataFrame()
    pc = int(se["period_contrib"].to_numpy(np.int64)[first])
    m0 = s_m[first] - pc * 1024
    # evaluation points: events after the start, and every sample
    # (events between that boundary and the first sample are already in the sample)
    after = m_start > m0
    ev_m = m_start[after]
    smp = idx[1:]
    pts = np.r_[m0, ev_m, s_m[smp]]
    # the model's first segment: the sample's, or the next one when the sample is that event's update
    seg0 = max(int(np.searchsorted(m_start, m0, side="right")) - 1, 0)
    seg_of = np.r_[seg0, np.flatnonzero(after), kk[smp]]
    kind = np.r_[0, np.ones(len(ev_m), np.int64), np.full(len(smp), 2)]
    order = np.lexsort((kind, pts))
    pts, seg_of, kind = pts[order], seg_of[order], kind[order]
    states = st[seg_of]
    # at an event point the segment starting there applies; samples keep their segment's state
    uniq, pos = np.unique(pts, return_index=True)
    states_u = states[pos]
    # a point sharing its time with an event takes the event's (new) state
    is_ev = kind == 1
    if is_ev.any():
        ev_pts = pts[is_ev]
        j = np.searchsorted(uniq, ev_pts)
        states_u[j] = states[is_ev]
    # the start: the sample's own sums without the partial period it accrued since the last
    # boundary (accumulate_sum adds d3 = period_contrib undecayed), so that the model, starting
    # at that boundary, accrues it once (in the state of the sample's segment)
    r = se.iloc[first]
    # the partial period [m0, sample] split over the segments it covers, in their own states
    ov = np.clip(np.minimum(m_start + dur, s_m[first]) - np.maximum(m_start, m0), 0, None)
    run_us = int(ov[st == STATE_RUNNING].sum()) >> 10
    onrq_us = int(ov[st >= STATE_RUNNABLE].sum()) >> 10
    lam_div = 47742 - 1024
    util_b = (int(r["util_sum"]) - (run_us << 10)) // lam_div
    run_b = (int(r["runnable_sum"]) - (onrq_us << 10)) // lam_div
    load_b = 1024 * (int(r["load_sum"]) - onrq_us) // lam_div
    # util_est as it was at that boundary (a dequeue after it is replayed by the model)
    ue0 = _ue_at(ue, s_t[first] - pc * 1024e-9 - 50e-6)
    sig = pelt_timeline(uniq - uniq[0], states_u, era=era, util_avg=int(np.clip(util_b, 0, 1024)),
                        load_avg=int(np.clip(load_b, 0, 1024)), runnable_avg=int(np.clip(run_b, 0, 1024)),
                        util_est_ewma=int(ue0))
    # trace gaps: a runnable task whose next event is its own switch-out ran in between with no
    # sched_switch into it (not a lost event: the kernel did not emit it); the model cannot know
    # when, so samples in the 250 ms after (8 half-lives) are flagged, not compared
    # The flag starts where the span the task ran in starts, not at the switch-out: the
    # dequeue's own update is written a few us before the switch-out record, and a tick may
    # sample the task inside the span. A switch-out to sleep (or exit) ends the span of the row
    # before it; a switch-out while runnable (preempted) is merged into its runnable row, which
    # is the span itself.
    gap = np.flatnonzero(tl["untraced_switch_in"].to_numpy(bool))
    gap_t = np.where(st[gap] == STATE_RUNNABLE, t_ev[gap], t_ev[np.maximum(gap - 1, 0)])

    def flagged(times):
        if not len(gap_t):
            return np.zeros(len(times), bool)
        j = np.searchsorted(gap_t, times, side="right") - 1
        return (j >= 0) & (times - gap_t[np.maximum(j, 0)] < 0.25)
    mi = np.searchsorted(uniq, s_m[smp])
    model = sig.iloc[mi]
    rows = pd.DataFrame({"time": s_t[smp], "pid": pid, "cpu": s_cpu[smp],
                         "kernel_util": se["util"].to_numpy(np.int64)[smp],
                         "model_util": model["util_avg"].to_numpy(np.int64),
                         "kernel_runnable": se["runnable"].to_numpy(np.int64)[smp],
                         "model_runnable": model["runnable_avg"].to_numpy(np.int64),
                         "kernel_load": se["load"].to_numpy(np.int64)[smp],
                         "kernel_delayed_load": _delayed_load(se)[smp],
                         "model_load": model["load_avg"].to_numpy(np.int64),
                         "trace_gap": flagged(s_t[smp])})
    ue_rows = pd.DataFrame()
    if ue is not None and len(ue):
        # util_est records: at a dequeue to sleep; the model's value at that event
        u_t = ue.index.to_numpy(np.float64)
        u_t = u_t[u_t > s_t[first]]
        sleep_ev = np.flatnonzero((st == 0) & (np.r_[0, st[:-1]] >= STATE_RUNNABLE))
        sleep_ev = sleep_ev[m_start[sleep_ev] > m0]
        if len(sleep_ev) and len(u_t):
            e_t = t_ev[sleep_ev]
            j = np.clip(np.searchsorted(e_t, u_t - 200e-6), 0, len(e_t) - 1)
            near = np.abs(e_t[j] - u_t) < 1e-3
            mj = np.searchsorted(uniq, m_start[sleep_ev[j]])
            mj = np.clip(mj, 0, len(uniq) - 1)
            in_ue = ue.index.to_numpy(np.float64) > s_t[first]
            kern = ue.loc[in_ue]
            # one step: the era's rule from the kernel's own previous estimate, on the model's
            # util/runnable at the point the era samples them (v6.12+: the entity's previous
            # update, util_est_update() before dequeue_entities(); before: this dequeue's)
            pos = np.flatnonzero(in_ue)
            prev_k = np.where(pos > 0, ue["ewma"].to_numpy(np.int64)[np.maximum(pos - 1, 0)], int(ue0))
            ps = np.clip(mj - 1, 0, len(uniq) - 1) if _samples_before(era) else mj
            m_u = sig["util_avg"].to_numpy(np.int64)[ps]
            m_r = sig["runnable_avg"].to_numpy(np.int64)[ps]
            # before the model's first own update its state is the start sample: the kernel's
            # averages there (the model starts from the period boundary before that sample,
            # without its partial period, so its own averages at the start are not those)
            m_u = np.where(uniq[ps] <= s_m[first], int(r["util"]), m_u)
            m_r = np.where(uniq[ps] <= s_m[first], int(r["runnable"]), m_r)
            step = np.array([util_est_step(int(e), int(u_), int(r_), era=era)[0] & 0x7FFFFFFF
                             for e, u_, r_ in zip(prev_k, m_u, m_r)], np.int64)
            free = sig["util_est_ewma"].to_numpy(np.int64)[mj] & 0x7FFFFFFF
            if _one_field(era):
                skip_first = migrated_in and _first_sleep_unchanged(st, t_ev, cpu, se, ue, sleep_ev, s_t[first],
                                                                    era, ue_cfs)
                free = _free_running(sig, uniq, m_start[sleep_ev], s_m[first], _ue_at(ue, s_t[first] + 1e-6), r,
                                     era, skip_first)[j]
            ue_rows = pd.DataFrame({"time": u_t, "pid": pid,
                                    "kernel_ewma": kern["ewma"].to_numpy(np.int64),
                                    "model_ewma": free,
                                    "kernel_enqueued": kern["enqueued"].to_numpy(np.int64),
                                    # v6.8+ has one field: the kernel reports it as both
                                    "model_enqueued": free if _one_field(era) else np.where(
                                        sig["util_est_enqueued"].to_numpy(np.int64)[mj] & 0x7FFFFFFF,
                                        sig["util_est_enqueued"].to_numpy(np.int64)[mj] & 0x7FFFFFFF,
                                        sig["util_est_ewma"].to_numpy(np.int64)[mj] & 0x7FFFFFFF),
                                    "step_ewma": step, "kernel_util": kern["util"].to_numpy(np.int64),
                                    "model_util": m_u, "model_runnable": m_r,
                                    # the EWMA keeps an error for as long as its updates are
                                    # skipped: every util_est sample after a gap is flagged (from
                                    # the gap's dequeue, whose record precedes its switch-out)
                                    "trace_gap": (u_t >= gap_t[0] - 200e-6) if len(gap_t) else
                                    np.zeros(len(u_t), bool)})[near]
    return rows, ue_rows


def _delayed_load(se) -> np.ndarray:
    """The part of each sample's load_avg accrued while the task was queued but not runnable.

    For a task entity ``load_sum`` accrues ``!!se->on_rq`` and ``runnable_sum`` accrues
    ``se_runnable(se) << SCHED_CAPACITY_SHIFT``, so ``load_avg == runnable_avg * weight / 1024``
    (to rounding) unless the entity was on the rq without being runnable: from v6.12 a task
    that sleeps with negative lag stays queued, ``sched_delayed``, until it is picked
    (152e11f6df29 DELAY_DEQUEUE; fc1892becd56 makes ``se_runnable()`` 0 for it). The excess
    (0 within 2 of rounding) is that delayed time, decayed; the task's timeline from the
    trace does not say when the delayed dequeue happened."""
    w = np.maximum(se["weight"].to_numpy(np.int64) >> 10, 1) if "weight" in se.columns else np.int64(1024)
    ex = se["load"].to_numpy(np.int64) - (se["runnable"].to_numpy(np.int64) * w) // 1024
    # Rounding alone never makes load exceed runnable at nice 0: both sums accrue the same
    # contrib (load_sum += contrib, runnable_sum += contrib << 10) and decay_load() floors each,
    # so runnable_sum >= load_sum << 10 holds through every decay and attach, and
    # load_avg = 1024 * load_sum / divider <= runnable_sum / divider = runnable_avg (the
    # difference stays above -1: 33 309 nice-0 samples here, -1 to 0, never below). Any excess is
    # delayed time (or, in a new task's first few hundred ms, what is left of its initial load:
    # init_entity_runnable_average() starts load_avg at the weight, post_init_entity_util_avg()
    # runnable_avg at util_avg). At another weight the product rounds by up to ceil(weight / 1024).
    tol = np.where(w == 1024, 0, -(-w // 1024))
    return np.where(ex > tol, ex, 0)


def _samples_before(era) -> bool:
    """v6.12+ (ledger util_est-v6.12): util_est_update() samples the previous PELT update."""
    from ..._era import parse_kernel_version

    return parse_kernel_version(era) >= (6, 12)


def _one_field(era) -> bool:
    from ..._era import parse_kernel_version

    return parse_kernel_version(era) >= (6, 8)


def _waited_behind_untraced(tl: pd.DataFrame, se: pd.DataFrame) -> pd.DataFrame:
    """``tl`` (one task's timeline) with the wake-ups the timeline took for running on an idle CPU
    (no switch-in traced) that the task's own kernel samples show it waited through: between two
    of its samples inside that span its util_avg fell while its runnable_avg grew, which only a
    task on the runqueue and not running does (util_sum accrues only while running). Such a
    row becomes runnable and the switch-out that ends it ``untraced_switch_in`` (it ran there,
    when is unknown), as the timeline marks a wake-up behind an untraced switch it can see.

    The CPU looked idle because what ran there left no record at all: on this VM the agent's
    threads (a recorded run: the task woken in the idle task's context, then nothing traced on
    that CPU for 2.3 ms, its next sample util 141 -> 134 with runnable 157 -> 198; the model,
    running it from the wake-up, was 49 high)."""
    st = tl["state"].to_numpy(np.int64)
    rows = np.flatnonzero((st[1:] == STATE_RUNNING) & (st[:-1] == 0)) + 1
    if not len(rows) or len(se) < 2:
        return tl
    t = tl["time"].to_numpy(np.float64)
    s_t = se.index.to_numpy(np.float64)
    u = se["util"].to_numpy(np.int64)
    r = se["runnable"].to_numpy(np.int64)
    waited = []
    for i in rows:
        end = t[i + 1] if i + 1 < len(t) else np.inf
        k = np.flatnonzero((s_t > t[i]) & (s_t < end))
        k = k[k > 0]
        if len(k) and bool(((u[k] < u[k - 1]) & (r[k] > r[k - 1])).any()):
            waited.append(i)
    if not waited:
        return tl
    tl = tl.copy()
    w = np.asarray(waited)
    cpu = tl["cpu"].to_numpy(np.int64)
    tl.iloc[w, tl.columns.get_loc("state")] = STATE_RUNNABLE
    # a switch-out to sleep ends the span (it is flagged); a preemption leaves the task runnable,
    # and its row merges into the span's, which is flagged itself (as task_timeline merges them)
    has_next = w + 1 < len(tl)
    pre = np.zeros(len(w), bool)
    pre[has_next] = (st[w[has_next] + 1] == STATE_RUNNABLE) & (cpu[w[has_next] + 1] == cpu[w[has_next]])
    flag = np.r_[w[pre], w[has_next & ~pre] + 1].astype(np.int64)
    tl.iloc[flag, tl.columns.get_loc("untraced_switch_in")] = True
    if pre.any():
        tl = tl.drop(index=tl.index[w[pre] + 1])
    return tl


def _first_sleep_unchanged(st, t_ev, cpu, se, ue, sleep_ev, t_start: float, era, ue_cfs) -> bool:
    """Whether the kernel skips util_est_update() at a stay's first sleep after a migration.

    util_est_update() returns early while its own UTIL_AVG_UNCHANGED flag (set by its last update)
    is set; only an update of the entity's PELT sums that crosses a period clears it
    (``__update_load_avg_se`` -> ``cfs_se_util_change``). A task woken onto another CPU is attached
    there with no such update (``last_update_time`` 0 after ``migrate_task_rq_fair``; the
    wake-up's ``sync_entity_load_avg`` is ``__update_load_avg_blocked_se``, which does not clear
    it), so if it then sleeps before a tick updates it, the flag of its last update before the
    migration still stands. From v6.12 util_est_update() runs before the dequeue's own PELT
    update, so that update does not count. The dequeue is found by the root cfs_rq's
    util_est dropping by the task's estimate (``util_est_dequeue``'s ``sched_util_est_cfs``
    record; ``ue_cfs``), else taken ``OWN_UPDATE_S`` before the switch-out. (A recorded run: a
    task pinned by rt-app slept in D while migration/0 moved it, woke on CPU 1 and slept
    2.8 ms later, its dequeue 155 us before its switch-out record: the kernel wrote no util_est
    record there, the model updated, ewma 325 for the kernel's 295 a period later.)"""
    if ue is None or not len(ue) or "util_est_raw" not in ue.columns or not len(sleep_ev):
        return False
    runs = np.flatnonzero((st == 0) & (np.r_[0, st[:-1]] >= STATE_RUNNABLE))
    i1 = int(sleep_ev[0])
    if not len(runs) or runs[0] != i1:
        return False                  # not the stay's first sleep
    u_t = ue.index.to_numpy(np.float64)
    k = int(np.searchsorted(u_t, t_start + 1e-6, side="right")) - 1
    if k < 0 or not int(ue["util_est_raw"].to_numpy(np.int64)[k]) & 0x80000000:
        return False
    est = int(ue["util_est_raw"].to_numpy(np.int64)[k]) & 0x7FFFFFFF
    t_deq = t_ev[i1] - OWN_UPDATE_S
    if not _samples_before(era):
        t_deq = t_ev[i1]
    elif ue_cfs and int(cpu[i1 - 1]) in ue_cfs:
        ct, ce = ue_cfs[int(cpu[i1 - 1])]
        lo, hi = np.searchsorted(ct, t_ev[0], side="right"), np.searchsorted(ct, t_ev[i1], side="right")
        drop = np.flatnonzero((ce[max(lo - 1, 0):hi][:-1] - ce[max(lo - 1, 0):hi][1:]) == est) + max(lo - 1, 0) + 1
        drop = drop[drop >= lo]
        if len(drop):
            t_deq = float(ct[drop[-1]])
    s_t = se.index.to_numpy(np.float64)
    return not np.any((s_t > t_ev[0]) & (s_t < t_deq))


def _free_running(sig, uniq, sleep_m, start_m, ewma0: int, start, era, skip_first: bool = False) -> np.ndarray:
    """The model's own util_est (v6.8+: one field) after each sleep event at ``sleep_m``.

    The same rule and samples as :func:`~lisa_eas.models.pelt_timeline`'s ``util_est_ewma``,
    except at the start: the model starts at the period boundary before the start sample
    (``start_m``) without that sample's partial period, so up to the start sample the sampled
    averages are the start sample's (the kernel's), and sleeps before it are already in the
    kernel's estimate there (``ewma0``). ``skip_first``: the kernel's UTIL_AVG_UNCHANGED is
    still set at the stay's first sleep (see :func:`_first_sleep_unchanged`): that update is
    skipped (when that sleep is the start sample's own event it is in ``ewma0`` already)."""
    from ...models import util_est_step

    ew = sig["util_est_ewma"].to_numpy(np.int64)
    ua = sig["util_avg"].to_numpy(np.int64)
    ra = sig["runnable_avg"].to_numpy(np.int64)
    upd = sig["avg_updated"].to_numpy(bool)
    before = _samples_before(era)
    out = np.empty(len(sleep_m), np.int64)
    e = ewma0 & 0x7FFFFFFF
    done = 0
    for i, m in enumerate(sleep_m):
        if m <= start_m:
            out[i] = e
            continue
        k = int(np.clip(np.searchsorted(uniq, m), 0, len(uniq) - 1))
        p = max(k - 1, 0) if before else k
        # the model's UTIL_AVG_UNCHANGED before this util_est_update (set by the last one, cleared
        # by a period crossing since; before v6.12 this dequeue's own crossing clears it too)
        unchanged = (bool(ew[max(k - 1, 0)] & 0x80000000) and (before or not upd[k]) and done > 0) \
            or (skip_first and i == 0)
        if not unchanged:
            at_start = uniq[p] <= start_m
            u = int(start["util"]) if at_start else int(ua[p])
            r = int(start["runnable"]) if at_start else int(ra[p])
            e = util_est_step(e, u, r, era=era)[0] & 0x7FFFFFFF
        done += 1
        out[i] = e
    return out


def _ue_at(ue, t) -> int:
    if ue is None or not len(ue):
        return 0
    before = ue[ue.index.to_numpy(np.float64) <= t]
    return int(before["ewma"].iloc[-1]) if len(before) else 0


def compare_kernel_signals(trace, *, era: str = "v6.18", tasks=None, clock: str = "pelt",
                           min_samples: int = 20) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Model vs kernel for every task with kernel samples (or ``tasks``: pids or comms).

    Returns
    -------
    (DataFrame, DataFrame, dict)
        PELT rows (``time``, ``pid``, ``cpu``, ``kernel_*``/``model_*`` for util, runnable, load,
        ``trace_gap``), util_est rows (``kernel_ewma``, ``model_ewma``, ``kernel_enqueued``,
        ``model_enqueued``, ``trace_gap``) and the summary: ``{"util"|"runnable"|"load"|
        "util_est_ewma"|"util_est_enqueued": {n, p50, p99, max, mean}}`` of ``|model - kernel|`` over
        the samples not flagged ``trace_gap`` (``util_all`` ...: over every sample), plus
        ``clock``, ``era``, ``tasks``, ``trace_gap_samples``. A trace gap is a runnable task
        switched out with no switch-in recorded before: it ran, but the trace does not say
        when; the 250 ms after it are flagged.
    """
    if clock not in ("pelt", "mono"):
        raise ValueError(f"clock must be 'pelt' or 'mono', got {clock!r}")
    se_all = trace.df("sched_pelt_se")
    se_all = se_all[se_all["pid"].to_numpy() > 0]
    ue_all = trace.df("sched_util_est_se") if "sched_util_est_se" in trace.events else None
    if tasks is not None:
        want = set(tasks)
        comm = se_all["comm"].astype(str).to_numpy()
        pids = se_all["pid"].to_numpy()
        se_all = se_all[np.array([p in want or c in want for p, c in zip(pids, comm)], bool)]
    tl_all = task_timeline(trace)
    to_pelt = pelt_clock_map(trace) if clock == "pelt" else None
    sw_clock = switch_clock_times(trace) if SWITCH_CLOCK else None
    cpu_clocks = _cpu_clocks(trace) if clock == "pelt" else None
    wk_all: dict = {}
    if "sched_waking" in trace.events:
        wk = trace.df("sched_waking")
        for p_, g in pd.Series(wk.index.to_numpy(np.float64)).groupby(wk["pid"].to_numpy()):
            wk_all[int(p_)] = np.sort(g.to_numpy())
    ue_cfs: dict = {}
    if "sched_util_est_cfs" in trace.events:
        uc = trace.df("sched_util_est_cfs")
        uc = uc[uc["is_root"].to_numpy(bool)] if "is_root" in uc.columns else uc
        for c_ in np.unique(uc["cpu"].to_numpy(np.int64)):
            one = uc[uc["cpu"].to_numpy(np.int64) == c_]
            ue_cfs[int(c_)] = (one.index.to_numpy(np.float64), one["enqueued"].to_numpy(np.int64))
    rows, ue_rows = [], []
    for pid, se in se_all.groupby("pid", sort=True):
        if len(se) < min_samples:
            continue
        tl = tl_all[tl_all["pid"].to_numpy() == pid]
        if len(tl) < 2:
            continue
        tl = _waited_behind_untraced(tl, se)
        ue = ue_all[ue_all["pid"].to_numpy() == pid] if ue_all is not None else None
        # a migration re-attaches the task to the new rq's PELT clock, last_update_time and
        # period phase (attach_entity_load_avg), which the task's own timeline does not give:
        # each stay on one CPU is compared on its own, from its first sample
        # likewise after an untraced switch-in (when the task ran is unknown): the model restarts
        # from the next kernel sample
        c = tl["cpu"].to_numpy()
        gaps = np.flatnonzero(tl["untraced_switch_in"].to_numpy(bool))
        cut = np.unique(np.r_[0, np.flatnonzero(c[1:] != c[:-1]) + 1, gaps + 1, len(tl)])
        t_tl = tl["time"].to_numpy(np.float64)
        for lo, hi in zip(cut[:-1], cut[1:]):
            t0, t1 = t_tl[lo], (t_tl[hi] if hi < len(tl) else np.inf)
            part_se = se[(se.index.to_numpy() >= t0) & (se.index.to_numpy() < t1)]
            if len(part_se) < 2 or hi - lo < 2:
                continue
            part_ue = ue[(ue.index.to_numpy() < t1)] if ue is not None else None
            r, u = _task(trace, int(pid), tl.iloc[lo:hi + 1] if hi < len(tl) else tl.iloc[lo:], part_se,
                         part_ue, era, to_pelt, clock, waking=wk_all.get(int(pid)), sw_clock=sw_clock,
                         cpu_clocks=cpu_clocks, migrated_in=bool(lo > 0 and c[lo] != c[lo - 1]),
                         ue_cfs=ue_cfs)
            rows.append(r)
            ue_rows.append(u)
    pelt = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    uest = pd.concat(ue_rows, ignore_index=True) if ue_rows else pd.DataFrame()
    summary = {"clock": clock, "era": era, "tasks": int(pelt["pid"].nunique()) if len(pelt) else 0,
               "trace_gap_samples": int(pelt["trace_gap"].sum()) if len(pelt) else 0}
    cp = pelt[~pelt["trace_gap"].to_numpy(bool)] if len(pelt) else pelt
    cu = uest[~uest["trace_gap"].to_numpy(bool)] if len(uest) else uest
    for name in ("util", "runnable", "load"):
        summary[name] = _stats((cp[f"model_{name}"] - cp[f"kernel_{name}"]).to_numpy(np.float64)
                               if len(cp) else np.zeros(0))
    if len(cp):
        # load: judged on the samples with no delayed-dequeue time in them; the others are
        # reported apart, and every sample's error beyond the delayed load the kernel carries
        dl = cp["kernel_delayed_load"].to_numpy(np.int64)
        err = (cp["model_load"] - cp["kernel_load"]).to_numpy(np.float64)
        summary["load"] = _stats(err[dl == 0])
        summary["load_delayed"] = _stats(err[dl > 0])
        summary["load_beyond_delayed"] = _stats(np.maximum(np.abs(err) - dl, 0))
        summary["delayed_samples"] = int((dl > 0).sum())
    else:
        summary["load_delayed"] = summary["load_beyond_delayed"] = _stats(np.zeros(0))
        summary["delayed_samples"] = 0
        summary[f"{name}_all"] = _stats((pelt[f"model_{name}"] - pelt[f"kernel_{name}"]).to_numpy(np.float64)
                                        if len(pelt) else np.zeros(0))
    for name in ("ewma", "enqueued"):
        summary[f"util_est_{name}"] = _stats((cu[f"model_{name}"] - cu[f"kernel_{name}"]).to_numpy(np.float64)
                                             if len(cu) else np.zeros(0))
    summary["util_est_step"] = _stats((cu["step_ewma"] - cu["kernel_ewma"]).to_numpy(np.float64)
                                      if len(cu) else np.zeros(0))
    return pelt, uest, summary


def kernel_signals_summary(trace, era: str, tasks=None) -> dict:
    """The ``kernel_signals`` section of :func:`validate`: :func:`compare_kernel_signals` on the
    PELT clock and on mono, or ``available: False`` when the trace has no collector records
    (``sched_pelt_se`` with rq clocks, from ``--kernel-signals``)."""
    if "sched_pelt_se" not in trace.events or "clock_pelt" not in trace.df("sched_pelt_se").columns \
            or "sched_switch" not in trace.events:
        return {"available": False, "reason": "no kernel-signals records (record with `lisa-eas run "
                                              "--kernel-signals`) or no sched_switch"}
    out: dict = {"available": True, "era": era}
    for clock in ("pelt", "mono"):
        _, _, s = compare_kernel_signals(trace, era=era, tasks=tasks, clock=clock)
        out[clock] = {k: v for k, v in s.items() if k not in ("clock", "era")}
        if "sched_pelt_cfs" in trace.events and len(trace.df("sched_pelt_cfs")):
            # each CPU's root cfs_rq util_avg against the sum of every CFS task's model
            from ._cfs_rq import compare_cfs_rq
            _, c = compare_cfs_rq(trace, era=era, clock=clock)
            out[clock]["cfs_rq"] = {k: v for k, v in c.items() if k not in ("clock", "era")}
    return out
