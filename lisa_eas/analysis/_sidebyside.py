"""A measured run and a simulated run of the same rt-app workload, side by side.

:func:`df_run_comparison` takes two :class:`~lisa_eas.trace.Trace` objects (a ``lisa-eas run``
directory read back, and :func:`lisa_eas.sim.simulate` of the same workload) and gives, per
rt-app task, the same figures computed the same way on both: activations, run time, slack,
wake-up latency, migrations and the time the task ran on each CPU.

Both sides go through the same code: rt-app activations from the markers
(:func:`~lisa_eas.analysis.df_rtapp_activations`) and the task's state timeline
(``task_timeline``: ``sched_switch`` / ``sched_wakeup``). Wake-up latency is the runnable time
from a wake-up of a sleeping task to its switch-in, counted only when the switch-in is traced
(a kernel that leaves a switch-in out of the trace makes the task's start unknown: those
wake-ups are counted apart, ``wakeups_untraced``; a wake-up on an idle CPU whose switch-in
is not traced counts as latency 0, the timeline's own inference).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import STATE_RUNNABLE, STATE_RUNNING, STATE_SLEEPING, declare_events, task_timeline

__all__ = ["df_run_comparison", "run_metrics"]

#: the metrics of :func:`run_metrics`, in the order of the table
METRICS = ("activations", "run_us_p50", "run_us_p95", "slack_us_p5", "slack_us_p50", "overruns",
           "wakeups", "wakeups_untraced", "wu_lat_us_p50", "wu_lat_us_p95", "wu_lat_us_p99",
           "migrations", "runtime_s", "runtime_untraced_s")


def _pct(x: np.ndarray, q: float) -> float:
    x = x[~np.isnan(x)]
    return float(np.percentile(x, q)) if len(x) else float("nan")


def _task_of(comm: np.ndarray, name: str) -> np.ndarray:
    """comm matches an rt-app task name (the kernel keeps 15 characters of it)."""
    return np.array([c == name or (len(name) > 15 and c == name[:15]) for c in comm], bool)


@declare_events("sched_switch", "sched_wakeup", "print")
def run_metrics(trace, tasks=None) -> pd.DataFrame:
    """Per rt-app task: the figures :func:`df_run_comparison` puts side by side.

    Parameters
    ----------
    trace : Trace
        A measured run (``lisa-eas run`` directory) or a simulated one.
    tasks : list of str, optional
        rt-app task names (default: every task with activations in the trace).

    Returns
    -------
    pandas.DataFrame
        Index ``task``; columns :data:`METRICS` plus ``cpu<N>_s`` (seconds the task ran on
        CPU N). ``run_us``/``slack_us`` are rt-app's (from the markers); ``wu_lat_us`` from
        the timeline; ``migrations`` counts a run on another CPU than the task's previous run, from
        the task's first activation (rt-app's thread set-up before it, where the thread pins
        itself to its ``cpus``, is not counted); ``cpu<N>_s`` counts every run.
        ``runtime_s`` is the traced running time; ``runtime_untraced_s`` is the length of the
        runnable spans that end in a switch-out whose switch-in the kernel did not trace (the
        task ran in them, for an unknown part: an upper bound of the running time the timeline
        cannot place; 0 on a simulated run). On a VM whose agent threads switch without
        ``sched_switch`` records, a task preempted by them and switched back loses that part of
        its ``runtime_s``: the task's CPU time lies between ``runtime_s`` and the sum.
    """
    from ._rtapp import df_rtapp_activations

    acts = df_rtapp_activations(trace)
    names = sorted(set(acts["task"].astype(str))) if tasks is None else list(tasks)
    tl = task_timeline(trace)
    sw = trace.df("sched_switch")
    comm_of = pd.Series(np.r_[sw["next_comm"].astype(str).to_numpy(), sw["prev_comm"].astype(str).to_numpy()],
                        index=np.r_[sw["next_pid"].to_numpy(np.int64), sw["prev_pid"].to_numpy(np.int64)])
    comm_of = comm_of[~comm_of.index.duplicated(keep="last")]
    cpus = list(range(int(sw["__cpu"].max()) + 1)) if len(sw) else []
    rows = {}
    for name in names:
        a = acts[acts["task"].astype(str) == name]
        pids = comm_of.index[_task_of(comm_of.to_numpy(), name)]
        row = {"activations": len(a),
               "run_us_p50": _pct(a["run_us"].to_numpy(np.float64), 50),
               "run_us_p95": _pct(a["run_us"].to_numpy(np.float64), 95),
               "slack_us_p5": _pct(a["slack_us"].to_numpy(np.float64), 5),
               "slack_us_p50": _pct(a["slack_us"].to_numpy(np.float64), 50),
               "overruns": int((a["slack_us"].to_numpy(np.float64) < 0).sum())}
        lat, untraced, migr, unknown = [], 0, 0, 0.0
        per_cpu = dict.fromkeys(cpus, 0.0)
        # the workload starts at the task's first activation: runs that end before it are rt-app's
        # own set-up (the thread pins itself there), not the workload's placement
        t0 = float(a.index.min()) if len(a) else -np.inf
        for pid in pids:
            t = tl[tl["pid"].to_numpy() == pid]
            st = t["state"].to_numpy(np.int64)
            dur = t["duration"].to_numpy(np.float64)
            cpu = t["cpu"].to_numpy(np.int64)
            end = t["time"].to_numpy(np.float64) + dur
            gap = t["untraced_switch_in"].to_numpy(bool)
            prev = np.r_[-1, st[:-1]]
            nxt = np.r_[st[1:], -1]
            # a wake-up of a sleeping task: runnable until the switch-in (latency), or running
            # from the wake-up (woken on an idle CPU, the switch-in not traced: 0)
            woke = (prev == STATE_SLEEPING) & ((st == STATE_RUNNABLE) | (st == STATE_RUNNING))
            ok = woke & (((st == STATE_RUNNABLE) & (nxt == STATE_RUNNING) & ~gap) | (st == STATE_RUNNING))
            untraced += int((woke & ~ok).sum())
            lat.extend(np.where(st[ok] == STATE_RUNNING, 0.0, dur[ok] * 1e6).tolist())
            # the span the task ran in with its switch-in untraced: a preempted switch-out is
            # merged into its runnable row (the row itself), a switch-out to sleep or exit ends
            # the runnable row before it
            for i in np.flatnonzero(gap):
                if st[i] == STATE_RUNNABLE:
                    unknown += float(dur[i])
                elif i > 0 and st[i - 1] == STATE_RUNNABLE:
                    unknown += float(dur[i - 1])
            run = st == STATE_RUNNING
            rc = cpu[run & (end > t0)]
            migr += int((rc[1:] != rc[:-1]).sum())
            for c, d in zip(cpu[run], dur[run]):
                per_cpu[int(c)] = per_cpu.get(int(c), 0.0) + float(d)
        lat_a = np.asarray(lat, np.float64)
        row.update({"wakeups": len(lat_a) + untraced, "wakeups_untraced": untraced,
                    "wu_lat_us_p50": _pct(lat_a, 50), "wu_lat_us_p95": _pct(lat_a, 95),
                    "wu_lat_us_p99": _pct(lat_a, 99), "migrations": migr,
                    "runtime_s": float(sum(per_cpu.values())), "runtime_untraced_s": unknown})
        row.update({f"cpu{c}_s": v for c, v in sorted(per_cpu.items())})
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "task"
    return out


def df_run_comparison(measured, simulated, tasks=None) -> pd.DataFrame:
    """A measured run and a simulated run of the same rt-app workload, side by side.

    Parameters
    ----------
    measured, simulated : Trace
        The run on a machine (``lisa_eas.trace.read_trace(run_dir)``) and
        :func:`lisa_eas.sim.simulate` of the same workload (e.g. on the run's probed platform,
        ``lisa_eas.target._probe.platform_from_target_json``). Use
        :func:`lisa_eas.repro.simulate_run` to build both from a run directory.
    tasks : list of str, optional
        rt-app task names (default: the measured run's tasks).

    Returns
    -------
    pandas.DataFrame
        Index (``task``, ``metric``) over :func:`run_metrics`'s figures (and ``cpu<N>_s`` for
        every CPU of either run); columns ``measured``, ``simulated``, ``difference``
        (simulated - measured).
    """
    m = run_metrics(measured, tasks)
    s = run_metrics(simulated, list(m.index) if tasks is None else tasks)
    cols = list(METRICS) + sorted({c for c in list(m.columns) + list(s.columns) if c.startswith("cpu")},
                                  key=lambda c: int(c[3:-2]))
    m = m.reindex(columns=cols)
    s = s.reindex(index=m.index, columns=cols)
    for c in cols:
        if c.startswith("cpu"):
            m[c] = m[c].fillna(0.0)
            s[c] = s[c].fillna(0.0)
    out = pd.DataFrame({"measured": m.stack(future_stack=True), "simulated": s.stack(future_stack=True)})
    out.index.names = ["task", "metric"]
    out["difference"] = out["simulated"] - out["measured"]
    return out
