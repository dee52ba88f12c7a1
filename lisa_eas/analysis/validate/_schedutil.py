"""schedutil replay: the frequency ``get_next_freq`` asks for from the rebuilt util signals
(:func:`lisa_eas.models.schedutil_next_freq`, per policy: max over its CPUs of
``max(util_avg, util_est)``) against the trace's ``cpu_frequency`` events.

Two figures per policy, each answering its own question:

* ``request_agreement_pct`` (*per frequency request*): of the trace's frequency requests (each
  ``cpu_frequency`` event of the policy's first CPU that sets a new frequency: schedutil only
  asks the driver when its answer changes), the share whose frequency equals the model's answer
  at the request, from the util samples at or before it (the update that makes a request
  carries the same timestamp as the request: ``sugov_update_*`` runs in the path that updated
  the util). A low figure with a high residency agreement means the kernel
  reached the same frequencies at other moments (rate limit, busy hold, iowait boost).
* ``time_at_model_freq_pct`` (*time-weighted residency*): the share of the time where both
  are known **and some CPU of the domain runs a task** that the trace ran at exactly the
  model's frequency; ``over_provisioned_pct`` / ``under_provisioned_pct`` are the shares
  above / below it (the three add up to 100). While every CPU of the domain is idle,
  schedutil gets no util update and makes no request (the frequency stays where the last
  request left it), while the model's answer follows the decaying util: comparing then would
  count as "above the model" time where the governor had nothing to answer
  (``idle_excluded_s`` says how much time that leaves out; ``compared_s`` the time compared).

``requests`` counts the requests compared (those made after the domain's first util sample;
earlier ones are counted in ``requests_before_util``), ``lag_ms_median`` is the median delay
between the model starting to ask for a frequency and the trace reaching it. With the
kernel-signals collector's ``sched_pelt_rt`` records, each CPU's RT utilization is added after
``max(util_avg, util_est)`` as ``effective_cpu_util`` does (``decision_inputs`` in the summary
says whether it was). Stateless: no rate limit, no iowait
boost, no busy hold (those need state the trace does not carry).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["replay_schedutil"]


def _freq_table(platform, domain, era) -> np.ndarray:
    from ...models import schedutil_next_freq

    freqs = np.array(domain.freqs_khz, np.int64)
    cap = domain.cpu_capacity_max
    return np.array([schedutil_next_freq(u, freqs, capacity=cap, era=era) for u in range(cap + 1)], np.int64)


def replay_schedutil(trace, platform, cpu_util: pd.DataFrame, *, era: str = "v5.4") -> tuple[pd.DataFrame, dict]:
    """Replay schedutil for each perf domain.

    Parameters
    ----------
    cpu_util : DataFrame
        Per-CPU util over time (index Time; ``cpu``, ``util``, optional ``util_est_enqueued``),
        e.g. :func:`lisa_eas.analysis.df_cpu_util`.

    Returns
    -------
    (DataFrame, dict)
        One row per frequency request of the trace (``time``, ``domain``, ``trace_freq``,
        ``model_freq``, ``agree``, ``lag_ms``); summary per domain (see the module docstring:
        ``request_agreement_pct``, ``time_at_model_freq_pct``, ``over_provisioned_pct``,
        ``under_provisioned_pct``, ``requests``, ``lag_ms_median``).
    """
    from .._frequency import df_cpu_frequency

    fr = df_cpu_frequency(trace, platform)
    lo, hi = trace.time_range
    rt = None
    inputs = {"util_rt": "absent: the trace has no sched_pelt_rt events (kernel-signals collector or LISA module)",
              "uclamp": "absent: no trace event gives the rq clamps (not modelled by the replay)",
              "runnable_avg": "absent: not used by the schedutil replay",
              "thermal_pressure": "absent: the replay's policy max is the top OPP"}
    if "sched_pelt_rt" in trace.events and {"cpu", "util"} <= set(trace.df("sched_pelt_rt").columns):
        from ...errors import ModelError
        rt = trace.df("sched_pelt_rt")
        v = pd.to_numeric(rt["util"], errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(v) | (v < 0) | (v > 1024)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ModelError(f"sched_pelt_rt.util = {rt['util'].iloc[k]!r} at {rt.index[k]} is not a utilization "
                             f"within 0..1024; the trace's util_rt input is corrupt")
        inputs["util_rt"] = "sched_pelt_rt.util"
    busy_t, busy_at = {}, {}
    for d in platform.perf_domains:
        busy_t[d.name], busy_at[d.name] = _domain_busy(trace, d.cpus)
    rows, summary = [], {}
    for d in platform.perf_domains:
        if not d.opps:
            continue
        table = _freq_table(platform, d, era)
        cap = d.cpu_capacity_max
        sel = cpu_util[cpu_util["cpu"].isin(list(d.cpus))]
        if sel.empty:
            summary[d.name] = {"requests": 0, "note": "no util samples for this domain"}
            continue
        util = np.maximum(sel["util"].to_numpy(np.int64),
                          sel["util_est_enqueued"].to_numpy(np.int64) if "util_est_enqueued" in sel.columns else 0)
        piv = pd.DataFrame({"t": sel.index.to_numpy(np.float64), "cpu": sel["cpu"].to_numpy(), "u": util})
        piv = piv.pivot_table(index="t", columns="cpu", values="u", aggfunc="last").ffill().fillna(0)
        tg = piv.index.to_numpy(np.float64)
        per_cpu = np.minimum(piv.to_numpy(np.int64), cap)          # cpu_util_cfs(): min(max(util, util_est), cap)
        if rt is not None:
            for j, c in enumerate(piv.columns):
                g = rt[rt["cpu"].to_numpy() == c]
                k = np.searchsorted(g.index.to_numpy(np.float64), tg, side="right") - 1
                per_cpu[:, j] += np.where(k >= 0, g["util"].to_numpy(np.int64)[np.maximum(k, 0)], 0) if len(g) else 0
        dom_util = np.minimum(per_cpu.max(axis=1), cap)
        model_f = table[dom_util]
        first = d.cpus[0]
        g = fr[fr["cpu"] == first]
        tf, ff = g.index.to_numpy(np.float64), g["frequency"].to_numpy(np.int64)
        changes = np.r_[True, ff[1:] != ff[:-1]] if len(ff) else np.zeros(0, bool)
        tc, fc = tf[changes], ff[changes]
        k = np.searchsorted(tg, tc, side="right") - 1
        # a request made before the first util sample of the domain has no model answer to
        # hold it against: it is counted apart (``requests_before_util``), not as a disagreement
        known = k >= 0
        n_before = int(np.count_nonzero(~known))
        tc, fc, k = tc[known], fc[known], k[known]
        m_at = model_f[k]
        # lag: since when the model had been asking for the trace's new frequency
        lag = np.full(len(tc), np.nan)
        m_change_t = tg[np.r_[True, model_f[1:] != model_f[:-1]]] if len(tg) else tg
        for j in np.flatnonzero(m_at == fc):
            kk = np.searchsorted(m_change_t, tg[k[j]], side="right") - 1
            if kk >= 0:
                lag[j] = (tc[j] - m_change_t[kk]) * 1e3
        for j in range(len(tc)):
            rows.append({"time": tc[j], "domain": d.name, "trace_freq": int(fc[j]), "model_freq": int(m_at[j]),
                         "agree": bool(m_at[j] == fc[j]), "lag_ms": lag[j]})
        # time-weighted residency: both step functions on the union of their change points,
        # from the first instant both are known to the end of the trace, counting only the
        # time some CPU of the domain runs a task (see _domain_busy)
        bp = np.unique(np.r_[tg, tf, busy_t[d.name]])
        bp = bp[(bp >= max(tg[0] if len(tg) else np.inf, tf[0] if len(tf) else np.inf)) & (bp <= hi)]
        dt = np.diff(np.r_[bp, hi]) if len(bp) else np.zeros(0)
        mf = model_f[np.searchsorted(tg, bp, side="right") - 1] if len(bp) else np.zeros(0, np.int64)
        tfreq = ff[np.searchsorted(tf, bp, side="right") - 1] if len(bp) else np.zeros(0, np.int64)
        busy = busy_at[d.name](bp)
        idle_s = float(dt[~busy].sum())
        dt = np.where(busy, dt, 0.0)
        tot = dt.sum()
        over = dt[tfreq > mf].sum()
        under = dt[tfreq < mf].sum()
        n = len(tc)
        summary[d.name] = {
            "requests": int(n), "requests_agree": int(np.sum(m_at == fc)), "requests_before_util": n_before,
            "request_agreement_pct": float(100.0 * np.mean(m_at == fc)) if n else None,
            "time_at_model_freq_pct": float(100.0 * (tot - over - under) / tot) if tot > 0 else None,
            "over_provisioned_pct": float(100.0 * over / tot) if tot > 0 else None,
            "under_provisioned_pct": float(100.0 * under / tot) if tot > 0 else None,
            "compared_s": float(tot), "idle_excluded_s": idle_s,
            "lag_ms_median": float(np.nanmedian(lag)) if np.isfinite(lag).any() else None,
            "trace_freqs_in_platform_opps": bool(np.isin(np.unique(ff), d.freqs_khz).all()) if len(ff) else None,
        }
    df = pd.DataFrame(rows, columns=["time", "domain", "trace_freq", "model_freq", "agree", "lag_ms"])
    return df, {"era": era, "domains": summary, "util_source": cpu_util.attrs.get("source"),
                "decision_inputs": inputs, "residency_scope": RESIDENCY_SCOPE}


RESIDENCY_SCOPE = ("time while some CPU of the domain runs a task (sched_switch): while all its CPUs are "
                   "idle schedutil gets no util update and makes no request, so the frequency it left is "
                   "not held against the model's answer from the decaying util")


def _domain_busy(trace, cpus):
    """``(switch times of the domain's CPUs, busy(t))``: ``busy(t)`` is whether, at each of
    the times ``t``, some CPU of ``cpus`` runs a task, i.e. its last ``sched_switch`` at or
    before ``t`` switched to a pid other than 0; before its first switch, whether that switch
    left a task (``prev_pid`` other than 0) or the idle task.
    Without ``sched_switch`` every instant counts as busy (the residency is then over all
    the time, as the scope in the summary cannot be applied)."""
    if "sched_switch" not in trace.events:
        return np.zeros(0), lambda t: np.ones(len(t), bool)
    sw = trace.df("sched_switch")
    on = np.isin(sw["__cpu"].to_numpy(), list(cpus))
    st = sw.index.to_numpy(np.float64)[on]
    scpu = sw["__cpu"].to_numpy(np.int64)[on]
    spid = sw["next_pid"].to_numpy(np.int64)[on]
    ppid = sw["prev_pid"].to_numpy(np.int64)[on]
    per = []
    for c in cpus:
        m = np.flatnonzero(scpu == c)
        if len(m):
            per.append((st[m], spid[m] != 0, bool(ppid[m[0]] != 0)))

    def busy(t):
        out = np.zeros(len(t), bool)
        for tc, run, before in per:
            j = np.searchsorted(tc, t, side="right") - 1
            out |= np.where(j >= 0, run[np.maximum(j, 0)], before)
        return out
    return st, busy
