"""Energy estimates from a trace and the platform's energy data, per CPU, per perf domain
and in total; and the ramp-boost "energy overhead" of the RFC "Make schedutil energy aware".

The estimate integrates each CPU's power over time: a busy CPU draws its domain's per-CPU
power at the current OPP (``Opp.power_mw``; a frequency between OPPs takes the next OPP up),
an idle CPU its idle state's ``IdleState.power_mw`` where the platform gives one (else 0).
Busy/idle comes from ``cpu_idle`` when the trace has it, else from ``sched_switch`` (the
idle task running = idle, shallowest state). Without ``cpu_frequency`` every CPU is taken
at its top OPP (``attrs["assumed_fmax"]`` says so). Cluster-level power of legacy tables
is not included. Energy unit: the platform's power unit x s (mJ for mW).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ModelError
from ._common import check_platform, need_any, running_intervals, trace_span

__all__ = ["df_energy", "energy_summary", "ramp_boost_energy_overhead"]

IDLE_EXIT = 4294967295


def _busy_steps(trace, cpu: int):
    """(times, idle_state) for a CPU: -1 busy, else the idle state index."""
    if "cpu_idle" in trace.events:
        df = trace.df("cpu_idle")
        sel = np.asarray(df["cpu_id"], dtype=np.int64) == cpu
        st = np.asarray(df["state"], dtype=np.int64)[sel]
        st = np.where((st == IDLE_EXIT) | (st < 0), -1, st)
        return df.index.to_numpy(np.float64)[sel], st
    iv = running_intervals(trace)
    iv = iv[iv["cpu"] == cpu]
    return iv["start"].to_numpy(), np.where(iv["pid"].to_numpy() == 0, 0, -1)


def df_energy(trace, platform) -> pd.DataFrame:
    """Estimated energy per CPU with its busy/idle split.

    Parameters
    ----------
    trace : Trace
        Needs ``cpu_idle`` or ``sched_switch``; uses ``cpu_frequency`` when present.
    platform : Platform or str
        The board; its CPU count must match the trace's.

    Returns
    -------
    pandas.DataFrame
        Index ``cpu``; ``domain``, ``busy_s``, ``idle_s``, ``busy_energy``, ``idle_energy``,
        ``energy``. ``attrs``: ``unit``, ``assumed_fmax``, ``window`` (s).
    """
    plat = check_platform(trace, platform)
    need_any(trace, "cpu_idle", "sched_switch")
    lo, hi = trace_span(trace)
    fr = None
    if "cpu_frequency" in trace.events:
        from ._frequency import df_cpu_frequency
        fr = df_cpu_frequency(trace, plat)
    rows = {}
    for d in plat.perf_domains:
        if not d.has_power:
            raise ModelError(f"platform {plat.name!r} domain {d.name!r} has OPPs without power data; "
                             f"no energy estimate")
        freqs = np.array(d.freqs_khz, dtype=np.int64)
        power = np.array([o.power_mw for o in d.opps], dtype=np.float64)
        idle_p = np.array([s.power_mw or 0.0 for s in d.idle_states] or [0.0])
        for c in d.cpus:
            tb, sb = _busy_steps(trace, c)
            if fr is not None:
                g = fr[fr["cpu"] == c]
                tf, fv = g.index.to_numpy(np.float64), g["frequency"].to_numpy(np.int64)
            else:
                tf, fv = np.zeros(0), np.zeros(0, np.int64)
            pts = np.unique(np.concatenate([[lo], tb, tf, [hi]]))
            pts = pts[(pts >= lo) & (pts <= hi)]
            dt = np.diff(pts)
            t0 = pts[:-1]
            kb = np.searchsorted(tb, t0, side="right") - 1
            # before the first cpu_idle event the state is unknown: count it busy if the CPU ran a task
            state = np.where(kb >= 0, sb[np.maximum(kb, 0)] if len(sb) else -1, -1)
            kf = np.searchsorted(tf, t0, side="right") - 1
            f = np.where(kf >= 0, fv[np.maximum(kf, 0)] if len(fv) else freqs[-1], freqs[-1])
            opp = np.minimum(np.searchsorted(freqs, f, side="left"), len(freqs) - 1)
            busy = state < 0
            st = np.clip(state, 0, len(idle_p) - 1)
            be = float((dt[busy] * power[opp[busy]]).sum())
            ie = float((dt[~busy] * idle_p[st[~busy]]).sum())
            rows[c] = {"domain": d.name, "busy_s": float(dt[busy].sum()), "idle_s": float(dt[~busy].sum()),
                       "busy_energy": be, "idle_energy": ie, "energy": be + ie}
    out = pd.DataFrame.from_dict(rows, orient="index").sort_index()
    out.index.name = "cpu"
    units = sorted({d.power_unit or "abstract" for d in plat.perf_domains})
    out.attrs.update(unit="+".join(u + "*s" for u in units), assumed_fmax=fr is None, window=(lo, hi))
    return out


def energy_summary(trace, platform) -> dict:
    """``{"unit", "per_cpu", "per_domain", "total", "window"}`` from :func:`df_energy`."""
    df = df_energy(trace, platform)
    return {"unit": df.attrs["unit"], "per_cpu": {int(c): float(e) for c, e in df["energy"].items()},
            "per_domain": {k: float(v) for k, v in df.groupby("domain")["energy"].sum().items()},
            "total": float(df["energy"].sum()), "window": list(df.attrs["window"]),
            "assumed_fmax": bool(df.attrs["assumed_fmax"])}


def ramp_boost_energy_overhead(trace) -> pd.DataFrame:
    """The ramp-boost energy overhead as the RFC v3 cover letter defines it.

    "Extra power consumption induced by ramp boost, assuming continuous OPP space and
    single-CPU policies": the boost ``b`` (``sugov_cpu_ramp_boost_update``, computed with
    the schedutil model's kernel from the CPU's root cfs_rq ``util_avg`` and
    ``util_est.enqueued``) raises the allowed cost per unit of work by ``b/1024``; with a
    continuous OPP space that is the extra energy. The overhead is the busy-time weighted
    mean of ``b/1024`` (the CPU is busy when util_avg > 0 between two samples).

    Needs per-CPU util_avg and util_est (``lisa_sim_cpu_util`` or ``sched_util_est_cfs`` +
    a cfs PELT event).

    Returns
    -------
    pandas.DataFrame
        Index ``cpu``; ``overhead_pct``, ``boosted_time_s``, ``samples``.
    """
    from ..models.schedutil import ramp_boost_series
    from ._load import kernel_cpu_util

    cu = kernel_cpu_util(trace)
    if cu is None or "util_est_enqueued" not in cu.columns:
        if "sched_util_est_cfs" in trace.events and cu is not None:
            ue = trace.df("sched_util_est_cfs")
            ue = ue[ue["path"].astype(str) == "/"] if "path" in ue.columns else ue
            m = pd.merge_asof(cu.reset_index().sort_values("Time"),
                              pd.DataFrame({"Time": ue.index.to_numpy(np.float64),
                                            "cpu": np.asarray(ue["cpu"], np.int64),
                                            "util_est_enqueued": np.asarray(ue["enqueued"], np.int64)}),
                              on="Time", by="cpu", direction="backward")
            cu = m.set_index("Time").fillna({"util_est_enqueued": 0})
        else:
            from ..errors import MissingTraceEventError
            raise MissingTraceEventError(["sched_util_est_cfs", "sched_pelt_cfs"],
                                         "ramp-boost overhead needs each CPU's util_avg and util_est.enqueued: "
                                         "record sched:sched_pelt_cfs and sched:sched_util_est_cfs with "
                                         "`lisa-eas run` (LISA kernel module), or simulate")
    rows = {}
    for cpu, g in cu.groupby("cpu"):
        t = g.index.to_numpy(np.float64)
        ua = g["util"].to_numpy(np.int64)
        ue = g["util_est_enqueued"].to_numpy(np.int64)
        boost = ramp_boost_series(ue, ua)
        dt = np.r_[np.diff(t), 0.0]
        busy = ua > 0
        w = dt * busy
        tot = w.sum()
        rows[int(cpu)] = {"overhead_pct": float(100.0 * (w * boost / 1024.0).sum() / tot) if tot > 0 else 0.0,
                          "boosted_time_s": float(dt[boost > 0].sum()), "samples": int(len(t))}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "cpu"
    return out
