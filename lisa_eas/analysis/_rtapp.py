"""rt-app analyses: activations, run time, slack and negative slack, overruns (from the
rt-app logs and from the trace's markers, cross-checked), and wake-up latency.

Slack is rt-app's: the time between the end of an activation's work and its timer
deadline (negative: the deadline had already passed, an overrun).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import MissingTraceEventError, TraceError
from ._common import declare_events, need_events, record_hint, wakeup_events

__all__ = ["df_rtapp_activations", "df_rtapp_crosscheck", "df_rtapp_stats", "df_wakeup_latency"]

_LOG_TO_ACT = {"run_us": "run_us", "period_us": "period_us", "slack_us": "slack_us", "wu_lat_us": "wu_lat_us",
               "c_period_us": "c_period_us", "c_duration_us": "c_run_us"}


def _from_log(log: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({"task": log["task"].astype(str).to_numpy(),
                        "thread_idx": log["thread_idx"].to_numpy(np.int64),
                        "end": log["end_us"].to_numpy() / 1e6},
                       index=pd.Index(log["start_us"].to_numpy() / 1e6, name="Time"))
    for src, dst in _LOG_TO_ACT.items():
        if src in log.columns:
            out[dst] = log[src].to_numpy(dtype=np.float64)
    out["source"] = "log"
    return out


#: Default ``timer_slack_ns`` of a SCHED_OTHER task (RT tasks have none): an hrtimer wake-up
#: of a CFS task comes up to this late, so it is taken off the wake-up to get the deadline.
CFS_TIMER_SLACK_S = 50e-6


def _slack_from_rtapp1(trace, acts: pd.DataFrame) -> pd.DataFrame:
    """rt-app 1.0 text markers carry no statistics: derive run time and slack.

    Each iteration's markers are ``begins`` -> ``executing 0`` ... ``executing k`` (k = the
    timer event) -> ``end``: the work ends at the timer event's marker (``run``). The
    deadline: when the task sleeps in the timer, its ``sched_wakeup`` (less the CFS timer
    slack, and at most one period after the previous observed deadline, as an hrtimer
    wake-up can be late but never early) is the deadline; when it overran (no sleep), the deadline follows rt-app 1.0's
    timer rule ``next = max(previous deadline, previous timer start) + period`` (the first
    one a period after the phase starts), the period
    being the median spacing of the observed deadlines of the phase. Without
    ``sched_wakeup`` the ``end`` marker stands for the deadline (slack then includes the
    wake-up latency).
    """
    pr = trace.df("print")
    buf = pr["buf"].astype(str)
    ex = buf.str.extract(r"\[(?P<idx>\d+)\] executing (?P<ev>\d+)")
    ok = ex["idx"].notna().to_numpy()
    execs = pd.DataFrame({"t": pr.index.to_numpy(np.float64)[ok], "pid": pr["__pid"].to_numpy(np.int64)[ok]})
    acts = acts.copy()
    t_run_end = np.full(len(acts), np.nan)
    starts = acts.index.to_numpy(np.float64)
    ends = acts["end"].to_numpy(np.float64)
    pids = acts["__pid"].to_numpy(np.int64)
    phases = acts["phase"].to_numpy(np.int64)
    for pid, grp in execs.groupby("pid"):
        sel = np.flatnonzero(pids == pid)
        t = grp["t"].to_numpy()
        # the last "executing" marker inside the iteration starts the timer event
        k = np.searchsorted(t, np.where(np.isnan(ends[sel]), np.inf, ends[sel]), side="left") - 1
        valid = (k >= 0) & (t[np.maximum(k, 0)] >= starts[sel])
        t_run_end[sel[valid]] = t[k[valid]]
    deadline = ends.copy()
    if "sched_wakeup" in trace.events:
        wk = wakeup_events(trace)
        for pid, grp in wk.groupby("pid"):
            sel = np.flatnonzero(pids == pid)
            if not len(sel):
                continue
            t = grp["time"].to_numpy()
            lag = CFS_TIMER_SLACK_S if grp["prio"].iat[0] >= 100 else 0.0
            k = np.searchsorted(t, t_run_end[sel], side="left")
            cand = np.where(k < len(t), t[np.minimum(k, len(t) - 1)], np.nan)
            slept = ~np.isnan(t_run_end[sel]) & (cand <= ends[sel] + 1e-9)
            d = np.where(slept, cand - lag, np.nan)
            tt = t_run_end[sel]
            for ph in np.unique(phases[sel]):
                m = np.flatnonzero(phases[sel] == ph)
                both = slept[m][1:] & slept[m][:-1]
                if not both.any():
                    continue
                period = float(np.median(np.diff(d[m])[both]))
                raw = d[m].copy()
                if not slept[m[0]]:
                    # an overrun on the phase's first iteration: rt-app arms the first
                    # deadline one period after the phase starts
                    d[m[0]] = starts[sel][m[0]] + period
                for j in range(1, len(m)):
                    a, b = m[j - 1], m[j]
                    if slept[b]:
                        # an hrtimer wake-up can only be late: the grid from the previous
                        # observed deadline bounds it (robust to one late interrupt)
                        if slept[a] and tt[a] <= raw[j - 1]:
                            d[b] = min(raw[j], raw[j - 1] + period)
                    elif not np.isnan(d[a]) and not np.isnan(tt[a]):
                        d[b] = max(d[a], tt[a]) + period
            have = ~np.isnan(d)
            deadline[sel[have]] = d[have]
    acts["run_us"] = np.round((t_run_end - starts) * 1e6)
    acts["slack_us"] = np.round((deadline - t_run_end) * 1e6)
    acts["period_us"] = np.round((ends - starts) * 1e6)
    return acts


@declare_events("print")
def _acts_from_trace(trace) -> pd.DataFrame:
    acts = trace.activations
    if acts.empty:
        raise MissingTraceEventError(["print (rt-app markers)"], record_hint(["print"]))
    if (acts["format"] == "rtapp1").any() and acts["slack_us"].isna().all():
        acts = _slack_from_rtapp1(trace, acts)
    out = pd.DataFrame({"task": acts["__comm"].astype(str).to_numpy(), "pid": acts["__pid"].to_numpy(),
                        "thread_idx": acts["thread_idx"].to_numpy(), "phase": acts["phase"].to_numpy(),
                        "phase_loop": acts["phase_loop"].to_numpy(), "end": acts["end"].to_numpy()},
                       index=pd.Index(acts.index.to_numpy(np.float64), name="Time"))
    for c in ("run_us", "period_us", "slack_us", "wu_lat_us", "c_period_us", "c_run_us"):
        out[c] = acts[c].to_numpy(dtype=np.float64)
    out["source"] = "trace"
    return out


def df_rtapp_activations(trace=None, logs=None) -> pd.DataFrame:
    """rt-app activations (phase iterations) from a trace's markers or from rt-app logs.

    Parameters
    ----------
    trace : Trace, optional
        Needs ``print`` (rt-app markers). rt-app 1.0 text markers carry no statistics: run
        time and slack are then derived from the markers (and ``sched_wakeup`` if present).
    logs : DataFrame or path or list of paths, optional
        :func:`lisa_eas.rtapp.read_rtapp_log` output(s) or log files. Used when given.

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (activation start, s); columns ``task``, ``run_us``, ``period_us``,
        ``slack_us``, ``wu_lat_us`` (NaN when unknown), ``overrun`` (slack < 0), ``source``.
    """
    if logs is not None:
        from ..rtapp import read_rtapp_log
        if isinstance(logs, pd.DataFrame):
            frames = [logs]
        else:
            logs = [logs] if not isinstance(logs, (list, tuple)) else logs
            frames = [x if isinstance(x, pd.DataFrame) else read_rtapp_log(x) for x in logs]
        out = pd.concat([_from_log(f) for f in frames]).sort_index(kind="stable")
    elif trace is not None:
        out = _acts_from_trace(trace)
    else:
        raise TraceError("df_rtapp_activations needs a trace or rt-app logs")
    out["overrun"] = out["slack_us"] < 0
    return out


def df_rtapp_stats(acts: pd.DataFrame) -> pd.DataFrame:
    """Per task: activations, mean run time, slack, negative slack and overruns.

    Parameters
    ----------
    acts : DataFrame
        :func:`df_rtapp_activations` output.

    Returns
    -------
    pandas.DataFrame
        Index ``task``; columns ``activations``, ``run_us_mean``, ``slack_us_mean``,
        ``slack_us_min``, ``negative_slack_us_mean`` (mean over the negative values only,
        0 when none, as in the ramp-boost RFC), ``overruns``, ``overrun_pct``.
    """
    g = acts.groupby("task", sort=True)
    neg = acts["slack_us"].where(acts["slack_us"] < 0)
    out = pd.DataFrame({"activations": g.size(), "run_us_mean": g["run_us"].mean(),
                        "slack_us_mean": g["slack_us"].mean(), "slack_us_min": g["slack_us"].min(),
                        "negative_slack_us_mean": neg.groupby(acts["task"]).mean().fillna(0.0),
                        "overruns": g["overrun"].sum().astype(np.int64)})
    out["overrun_pct"] = 100.0 * out["overruns"] / out["activations"]
    return out


def df_rtapp_crosscheck(trace, logs, *, tolerance_us: float = 200.0) -> pd.DataFrame:
    """Activations from the trace markers against the rt-app logs, per task.

    Activations are matched by start time (the log's ``start`` and the marker share
    CLOCK_MONOTONIC when ``trace_clock=mono``; otherwise the first activations are aligned).

    Returns
    -------
    pandas.DataFrame
        Index ``<task>-<thread index>``; ``log_activations``, ``trace_activations``, ``matched``,
        ``slack_abs_err_us_max``, ``slack_abs_err_us_p95``, ``slack_abs_err_us_mean``,
        ``run_abs_err_us_mean``, ``agree`` (same count and every slack within ``tolerance_us``).
    """
    tr = df_rtapp_activations(trace)
    lg = df_rtapp_activations(logs=logs)
    rows = {}
    for (task, tidx), lgt in lg.groupby(["task", "thread_idx"]):
        cand = tr[tr["task"].str.startswith(task[:15])]
        if (cand["thread_idx"] >= 0).any():
            cand = cand[cand["thread_idx"] == tidx]
        elif len(cand) and cand["pid"].nunique() > 1:
            # LISA markers carry no thread index: pick the thread whose first start is closest
            firsts = cand.groupby("pid").apply(lambda c: abs(c.index[0] - lgt.index[0]))
            cand = cand[cand["pid"] == firsts.idxmin()]
        ts, tl = cand.index.to_numpy(), lgt.index.to_numpy()
        offset = 0.0
        if len(ts) and len(tl) and abs(ts[0] - tl[0]) > 1.0:
            offset = ts[0] - tl[0]
        if len(ts):
            k = np.searchsorted(ts, tl + offset)
            k0 = np.clip(k - 1, 0, len(ts) - 1)
            k1 = np.clip(k, 0, len(ts) - 1)
            pick = np.where(np.abs(ts[k0] - tl - offset) <= np.abs(ts[k1] - tl - offset), k0, k1)
            ok = np.abs(ts[pick] - tl - offset) < 500e-6
        else:
            pick, ok = np.zeros(len(tl), np.int64), np.zeros(len(tl), bool)
        s_err = (np.abs(cand["slack_us"].to_numpy()[pick[ok]] - lgt["slack_us"].to_numpy()[ok]) if ok.any()
                 else np.array([np.nan]))
        r_err = (np.abs(cand["run_us"].to_numpy()[pick[ok]] - lgt["run_us"].to_numpy()[ok]) if ok.any()
                 else np.array([np.nan]))
        rows[f"{task}-{tidx}"] = {
            "log_activations": len(lgt), "trace_activations": len(cand), "matched": int(ok.sum()),
            "slack_abs_err_us_max": float(np.nanmax(s_err)),
            "slack_abs_err_us_p95": float(np.nanpercentile(s_err, 95)),
            "slack_abs_err_us_mean": float(np.nanmean(s_err)),
            "run_abs_err_us_mean": float(np.nanmean(r_err)),
            "agree": bool(len(lgt) == len(cand) == ok.sum() and np.nanmax(s_err) <= tolerance_us)}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "task"
    return out


@declare_events("sched_switch", "sched_wakeup")
def df_wakeup_latency(trace, tasks=None) -> pd.DataFrame:
    """Wake-up latency: from each ``sched_wakeup`` of a task to its next switch-in.

    A wake-up is paired with the task's next switch-in only when no switch-out of the task
    comes first: a switch-out first means the task was already running at the wake-up (the
    kernel traces a wake-up of a task still on its runqueue, ``ttwu_runnable``), or that its
    switch-in was not traced (some kernels trace no switch out of the idle task, e.g. this
    project's 6.18 test VM). Either way there is no latency to measure, and pairing it with a
    later switch-in would count a whole run and a wait as latency.

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (wake-up, s); ``pid``, ``comm``, ``target_cpu``, ``cpu`` (where it
        ran), ``latency_us``. Wake-ups with no later switch-in in the trace, or with a
        switch-out of the task before it, are dropped; ``df.attrs["unpaired"]`` counts the
        latter.
    """
    from ._common import select_pids

    need_events(trace, "sched_switch")
    wk = wakeup_events(trace)
    sw = trace.df("sched_switch")
    pids = select_pids(trace, tasks)
    if pids is not None:
        wk = wk[np.isin(wk["pid"].to_numpy(), pids)]
    t = sw.index.to_numpy(np.float64)
    n = len(sw)
    # every switch of a task, in and out: the wake-up's next one decides
    ev = pd.DataFrame({"t_in": np.r_[t, t],
                       "pid": np.r_[sw["next_pid"].to_numpy(np.int64), sw["prev_pid"].to_numpy(np.int64)],
                       "cpu": np.r_[sw["__cpu"].to_numpy(np.int64), sw["__cpu"].to_numpy(np.int64)],
                       "is_in": np.r_[np.ones(n, bool), np.zeros(n, bool)]}).sort_values("t_in", kind="stable")
    m = pd.merge_asof(wk.sort_values("time"), ev, left_on="time", right_on="t_in", by="pid",
                      direction="forward")
    m = m.dropna(subset=["t_in"])
    paired = m["is_in"].to_numpy(bool)
    unpaired = int((~paired).sum())
    m = m[paired]
    out = pd.DataFrame({"pid": m["pid"].to_numpy(), "comm": m["comm"].to_numpy(),
                        "target_cpu": m["target_cpu"].to_numpy(), "cpu": m["cpu"].astype(np.int64).to_numpy(),
                        "latency_us": (m["t_in"] - m["time"]).to_numpy() * 1e6},
                       index=pd.Index(m["time"].to_numpy(), name="Time"))
    out.attrs["unpaired"] = unpaired
    return out
