"""Load tracking: per-task and per-CPU utilization from the trace's own PELT events when it
has them, else from the PELT model (:func:`lisa_eas.models.pelt_timeline`) fed with the
trace's scheduling timeline; and the time the system spent overutilized.

Kernel PELT events understood (first found wins):

* tasks: ``sched_pelt_se`` (mainline tracepoints via the LISA module), ``sched_load_se``
  (4.1x pre-upstream), ``sched_load_avg_task`` (Android 4.x), ``lisa_sim_task_util``
  (simulator);
* CPUs (root cfs_rq): ``sched_pelt_cfs``, ``sched_load_cfs_rq``, ``sched_load_avg_cpu``,
  ``lisa_sim_cpu_util``.
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ..errors import ModelError
from ._common import (STATE_DEAD, STATE_RUNNING, need_events, platform_or_none, select_pids, task_names,
                      task_timeline, trace_span)

__all__ = ["TASK_PELT_EVENTS", "CPU_PELT_EVENTS", "df_cpu_util", "df_overutilized", "df_task_util",
           "model_task_util"]

TASK_PELT_EVENTS = ("sched_pelt_se", "sched_load_se", "sched_load_avg_task", "lisa_sim_task_util")
CPU_PELT_EVENTS = ("sched_pelt_cfs", "sched_load_cfs_rq", "sched_load_avg_cpu", "lisa_sim_cpu_util")


def _util_col(df):
    for c in ("util", "util_avg"):
        if c in df.columns:
            return c
    raise ModelError(f"PELT event without a util/util_avg column (columns: {list(df.columns)})")


def kernel_task_util(trace) -> pd.DataFrame | None:
    """Task util from the trace's PELT events (None when it has none).

    Columns ``pid``, ``cpu``, ``util`` (+ ``util_est_ewma``/``util_est_enqueued`` when
    present); index ``Time``.
    """
    for e in TASK_PELT_EVENTS:
        if e in trace.events:
            df = trace.df(e)
            sel = df
            if "path" in df.columns:
                sel = df[df["pid"].to_numpy() > 0]
            out = pd.DataFrame({"pid": sel["pid"].to_numpy(np.int64),
                                "cpu": np.asarray(sel["cpu"] if "cpu" in sel.columns else sel["__cpu"], np.int64),
                                "util": np.asarray(sel[_util_col(sel)], np.int64)},
                               index=pd.Index(sel.index.to_numpy(np.float64), name="Time"))
            for c in ("util_est_ewma", "util_est_enqueued"):
                if c in sel.columns:
                    out[c] = sel[c].to_numpy(np.int64)
            out.attrs["source"] = e
            return out
    return None


def kernel_cpu_util(trace) -> pd.DataFrame | None:
    """Root cfs_rq util per CPU from the trace's PELT events (None when it has none).

    Columns ``cpu``, ``util`` (+ ``util_est_enqueued``, ``rt_util_avg`` when present).
    """
    for e in CPU_PELT_EVENTS:
        if e in trace.events:
            df = trace.df(e)
            sel = df
            if "path" in df.columns:
                sel = df[df["path"].astype(str) == "/"]
            out = pd.DataFrame({"cpu": np.asarray(sel["cpu"] if "cpu" in sel.columns else sel["__cpu"], np.int64),
                                "util": np.asarray(sel[_util_col(sel)], np.int64)},
                               index=pd.Index(sel.index.to_numpy(np.float64), name="Time"))
            for c in ("util_est_enqueued", "rt_util_avg"):
                if c in sel.columns:
                    out[c] = sel[c].to_numpy(np.int64)
            out.attrs["source"] = e
            return out
    return None


def _freq_scale_lookup(trace, platform):
    """cpu -> (times, freq_scale 0..1024) from cpu_frequency and the platform's fmax."""
    if platform is None or "cpu_frequency" not in trace.events:
        return {}
    from ._frequency import df_cpu_frequency

    fr = df_cpu_frequency(trace, platform)
    out = {}
    for cpu, g in fr.groupby("cpu"):
        if cpu >= platform.nr_cpus:
            continue
        fmax = platform.domain_of(int(cpu)).fmax_khz
        fs = np.clip(g["frequency"].to_numpy(np.int64) * 1024 // fmax, 1, 1024)
        out[int(cpu)] = (g.index.to_numpy(np.float64), fs)
    return out


def _rq_pelt_clocks(trace, platform, fscale) -> dict:
    """cpu -> function(times_ns) giving the v5.1+ rq PELT clock an update at those instants
    computes (:func:`lisa_eas.models.rq_clock_pelt`), rebuilt from ``sched_switch`` (busy / idle,
    the switches to idle sync it), ``sched_wakeup`` onto the CPU and ``cpu_frequency`` (runqueue
    update points the trace shows) and the platform's CPU capacities."""
    from ..models import rq_clock_pelt
    from ._common import wakeup_events

    sw = trace.df("sched_switch")
    t_sw = np.round(sw.index.to_numpy(np.float64) * 1e9).astype(np.int64)
    cpu_sw = sw["__cpu"].to_numpy(np.int64)
    busy_sw = sw["next_pid"].to_numpy(np.int64) != 0
    wk = wakeup_events(trace)
    t_wk = np.round(wk["time"].to_numpy(np.float64) * 1e9).astype(np.int64)
    cpu_wk = wk["target_cpu"].to_numpy(np.int64)
    lo = min(int(t_sw.min()) if t_sw.size else 0, int(t_wk.min()) if t_wk.size else 0)
    clocks = {}
    for c in np.unique(cpu_sw):
        c = int(c)
        sel = cpu_sw == c
        st, sb = t_sw[sel], busy_sw[sel]
        parts = [st, t_wk[cpu_wk == c], [lo]]
        f_t = f_v = None
        if c in fscale:
            f_t = np.round(fscale[c][0] * 1e9).astype(np.int64)
            f_v = fscale[c][1]
            parts.append(f_t)
        pts = np.unique(np.concatenate(parts).astype(np.int64))
        j = np.searchsorted(st, pts, side="right") - 1
        busy = np.where(j >= 0, sb[np.maximum(j, 0)], False)
        fs = 1024
        if f_t is not None:
            k = np.searchsorted(f_t, pts, side="right") - 1
            fs = np.where(k >= 0, f_v[np.maximum(k, 0)], 1024)
        cap = platform.cpu_capacity(c) if platform is not None and 0 <= c < platform.nr_cpus else 1024
        went_idle = np.isin(pts, st[~sb])
        clocks[c] = functools.partial(rq_clock_pelt, pts, busy, cpu_capacity=cap, freq_scale=fs,
                                      went_idle=went_idle)
    return clocks


def _task_pelt_axis(ns, cpus, clocks):
    """A task's PELT time at its update points ``ns``: each segment advances it by the time the
    clock of the runqueue it is on advanced over that segment (a migrating task is re-attached
    to its new runqueue's clock, no time passing in the jump)."""
    axis = np.zeros(ns.size, np.int64)
    if ns.size < 2:
        return axis + (ns[0] if ns.size else 0)
    inc = ns[1:] - ns[:-1]
    seg_cpu = cpus[:-1]
    for c in np.unique(seg_cpu):
        if int(c) not in clocks:
            continue
        sel = np.flatnonzero(seg_cpu == c)
        clk = clocks[int(c)]
        inc[sel] = clk(at_ns=ns[sel + 1]) - clk(at_ns=ns[sel])
    axis[0] = ns[0]
    axis[1:] = ns[0] + np.cumsum(np.maximum(inc, 0))
    return axis


def model_task_util(trace, *, platform=None, era: str = "v5.4", at=None, tasks=None,
                    init: dict | None = None) -> pd.DataFrame:
    """Task util from the PELT model driven by the trace's scheduling timeline.

    Each task's sleeping / runnable / running segments come from ``sched_switch`` and
    ``sched_wakeup``; CPU capacity (and frequency, when the trace has ``cpu_frequency``)
    from ``platform``. :func:`lisa_eas.models.pelt_timeline` does the arithmetic. From v5.1
    (scale invariance in the runqueue's PELT clock) the task's time is its runqueue's clock,
    rebuilt from every task's switches on that CPU with :func:`lisa_eas.models.rq_clock_pelt`
    (the clock a sleeping task decays on runs slower while other tasks keep the CPU busy).

    Parameters
    ----------
    at : array of float, optional
        Extra times (s) where every task's signal is evaluated (e.g. wake-ups), as a
        kernel update (decay) at that instant would give.
    init : dict, optional
        pid -> (time_s, util_avg) starting values (e.g. the first kernel sample); the model
        starts at that time. Default: 0 at the task's first event.

    Returns
    -------
    pandas.DataFrame
        Index ``Time``; ``pid``, ``cpu``, ``state``, ``util``, ``util_est_ewma``,
        ``util_est_enqueued`` at each update point of each task.
    """
    from ..models import pelt_timeline

    platform = platform_or_none(trace, platform)
    tl = task_timeline(trace)
    pids = select_pids(trace, tasks)
    if pids is not None:
        tl = tl[np.isin(tl["pid"].to_numpy(), pids)]
    fscale = _freq_scale_lookup(trace, platform)
    from ..models import pelt_clock_scaled

    clocks = _rq_pelt_clocks(trace, platform, fscale) if pelt_clock_scaled(era) else None
    at = np.unique(np.asarray(at, dtype=np.float64)) if at is not None else np.zeros(0)
    parts = []
    for pid, g in tl.groupby("pid", sort=True):
        t_ev = g["time"].to_numpy()
        st_ev = g["state"].to_numpy()
        cpu_ev = g["cpu"].to_numpy()
        t0 = t_ev[0]
        u0 = 0
        if init is not None and pid in init:
            t0, u0 = init[pid]
            u0 = int(min(max(u0, 0), 1024))
        extra = [at[(at >= t0) & (at <= t_ev[-1] + 10.0)]]
        for c in (np.unique(cpu_ev[st_ev == STATE_RUNNING]) if clocks is None else ()):
            if int(c) in fscale:
                ft = fscale[int(c)][0]
                extra.append(ft[(ft >= t0) & (ft <= t_ev[-1])])
        pts = np.unique(np.concatenate([t_ev[t_ev >= t0], [t0]] + extra))
        k = np.searchsorted(t_ev, pts, side="right") - 1
        known = k >= 0
        pts, k = pts[known], k[known]
        if len(pts) == 0:
            continue
        states = st_ev[k].copy()
        states[states == STATE_DEAD] = 0
        cpus = cpu_ev[k]
        cap = np.array([platform.cpu_capacity(int(c)) if platform is not None and 0 <= c < platform.nr_cpus
                        else 1024 for c in cpus], dtype=np.int64) if platform is not None else 1024
        fs = np.full(len(pts), 1024, dtype=np.int64)
        for c in np.unique(cpus):
            if int(c) in fscale:
                ft, fv = fscale[int(c)]
                sel = cpus == c
                j = np.searchsorted(ft, pts[sel], side="right") - 1
                fs[sel] = np.where(j >= 0, fv[np.maximum(j, 0)], 1024)
        ns = np.round(pts * 1e9).astype(np.int64)
        ns, first = np.unique(ns, return_index=True)
        if clocks is not None:       # v5.1+: the runqueue's PELT clock carries the invariance
            axis = _task_pelt_axis(ns, cpus[first], clocks)
            sig = pelt_timeline(axis - axis[0], states[first], cpu_capacity=1024, freq_scale=1024, era=era,
                                util_avg=u0)
        else:
            sig = pelt_timeline(ns - ns[0], states[first], cpu_capacity=cap if np.isscalar(cap) else cap[first],
                                freq_scale=fs[first], era=era, util_avg=u0)
        parts.append(pd.DataFrame({"pid": pid, "cpu": cpus[first], "state": states[first],
                                   "util": sig["util_avg"].to_numpy(),
                                   "util_est_ewma": sig["util_est_ewma"].to_numpy() & 0x7FFFFFFF,
                                   "util_est_enqueued": sig["util_est_enqueued"].to_numpy() & 0x7FFFFFFF},
                                  index=pd.Index(pts[first], name="Time")))
    if not parts:
        return pd.DataFrame({"pid": [], "cpu": [], "state": [], "util": [], "util_est_ewma": [],
                             "util_est_enqueued": []}, index=pd.Index([], name="Time", dtype=float))
    out = pd.concat(parts).sort_index(kind="stable")
    out.attrs["source"] = "model"
    return out


def df_task_util(trace, tasks=None, *, platform=None, era: str = "v5.4", source: str = "auto") -> pd.DataFrame:
    """Per-task ``util_avg`` over time.

    Parameters
    ----------
    source : {"auto", "kernel", "model"}
        ``auto``: the trace's PELT events when present, else the model.

    Returns
    -------
    pandas.DataFrame
        Index ``Time``; ``pid``, ``comm``, ``cpu``, ``util``; ``attrs["source"]`` names the
        event used or ``"model"``.
    """
    df = kernel_task_util(trace) if source in ("auto", "kernel") else None
    if df is None:
        if source == "kernel":
            need_events(trace, TASK_PELT_EVENTS[0])
        df = model_task_util(trace, platform=platform, era=era, tasks=tasks)
    else:
        pids = select_pids(trace, tasks)
        if pids is not None:
            df = df[np.isin(df["pid"].to_numpy(), pids)]
    src = df.attrs.get("source")
    names = task_names(trace).set_index("pid")["comm"] if "sched_switch" in trace.events else pd.Series(dtype=object)
    out = df[["pid", "cpu", "util"]].copy()
    out.insert(1, "comm", names.reindex(out["pid"]).to_numpy())
    out.attrs["source"] = src
    return out


def model_cpu_util(trace, *, platform=None, era: str = "v5.4", grid=None) -> pd.DataFrame:
    """Root cfs_rq util per CPU from the model: the sum of the model utils of the tasks
    attached to each CPU (the CPU they run on or last ran on, blocked tasks included, as
    the kernel's ``cfs_rq->avg.util_avg`` sums them), evaluated at ``grid`` (s; default a
    1 ms grid over the trace)."""
    platform = platform_or_none(trace, platform)
    lo, hi = trace_span(trace)
    if grid is None:
        grid = np.arange(lo, hi, 1e-3)
    grid = np.unique(np.asarray(grid, dtype=np.float64))
    tu = model_task_util(trace, platform=platform, era=era, at=grid)
    n_cpus = platform.nr_cpus if platform is not None else max(int(tu["cpu"].max()) + 1 if len(tu) else 1, 1)
    total = np.zeros((len(grid), n_cpus), dtype=np.int64)
    t_all = tu.index.to_numpy()
    for pid, g in tu.groupby("pid"):
        t = g.index.to_numpy()
        k = np.searchsorted(t, grid, side="right") - 1
        ok = k >= 0
        cpu = g["cpu"].to_numpy()[k[ok]]
        util = g["util"].to_numpy()[k[ok]]
        inside = (cpu >= 0) & (cpu < n_cpus)
        np.add.at(total, (np.flatnonzero(ok)[inside], cpu[inside]), util[inside])
    del t_all
    rows = pd.DataFrame({"cpu": np.tile(np.arange(n_cpus), len(grid)), "util": np.minimum(total, 1024).ravel()},
                        index=pd.Index(np.repeat(grid, n_cpus), name="Time"))
    rows.attrs["source"] = "model"
    return rows


def df_cpu_util(trace, *, platform=None, era: str = "v5.4", source: str = "auto") -> pd.DataFrame:
    """Per-CPU root cfs_rq ``util_avg`` over time (kernel events, else the model on a 1 ms grid).

    Returns
    -------
    pandas.DataFrame
        Index ``Time``; ``cpu``, ``util``; ``attrs["source"]``.
    """
    df = kernel_cpu_util(trace) if source in ("auto", "kernel") else None
    if df is None:
        if source == "kernel":
            need_events(trace, CPU_PELT_EVENTS[0])
        df = model_cpu_util(trace, platform=platform, era=era)
    src = df.attrs.get("source")
    out = df[["cpu", "util"]].copy()
    out.attrs["source"] = src
    return out


def df_overutilized(trace, *, platform=None, era: str = "v5.4") -> pd.DataFrame:
    """Intervals during which the root domain was overutilized, and their total.

    From ``sched_overutilized`` / ``lisa_sim_overutilized`` when present, else derived
    from the per-CPU util (:func:`df_cpu_util`) with the kernel rule
    (:func:`lisa_eas.models.cpu_overutilized`, needs ``platform``).

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (start); ``end``, ``duration`` (s). ``attrs``: ``total_s``,
        ``share_pct``, ``source``.
    """
    platform = platform_or_none(trace, platform)
    lo, hi = trace_span(trace)
    src = None
    for e in ("sched_overutilized", "lisa_sim_overutilized"):
        if e in trace.events:
            df = trace.df(e)
            t = df.index.to_numpy(np.float64)
            v = np.asarray(df["overutilized"], dtype=np.int64)
            src = e
            break
    else:
        if platform is None:
            raise ModelError("df_overutilized: the trace has no overutilized events; pass the platform to "
                             "derive it from the CPUs' utilization")
        from ..models.eas import rd_overutilized_rows

        cu = df_cpu_util(trace, platform=platform, era=era)
        piv = cu.pivot_table(index=cu.index, columns="cpu", values="util", aggfunc="last").ffill().fillna(0)
        caps = [platform.cpu_capacity(int(c)) for c in piv.columns]
        v = rd_overutilized_rows(piv.to_numpy(np.int64), caps, era)      # fits_capacity() from v5.4
        t = piv.index.to_numpy(np.float64)
        src = f"model ({cu.attrs.get('source')})"
    change = np.r_[True, v[1:] != v[:-1]] if len(v) else np.zeros(0, bool)
    t, v = t[change], v[change]
    ends = np.r_[t[1:], hi]
    on = v == 1
    out = pd.DataFrame({"end": ends[on], "duration": ends[on] - t[on]}, index=pd.Index(t[on], name="Time"))
    out.attrs.update(total_s=float(out["duration"].sum()),
                     share_pct=float(100.0 * out["duration"].sum() / (hi - lo)) if hi > lo else 0.0, source=src)
    return out


