"""Fitting a CPU energy model to measured rail energy (``lisa-eas platform fit``).

Model, per perf domain (one rail): over each rail sampling interval,

    E = sum_k P_k * busy_k + sum_s Q_s * idle_s + S * T

with ``busy_k`` the busy CPU-seconds at OPP k (all CPUs of the domain), ``idle_s`` the idle
CPU-seconds in idle state s, ``T`` the interval length: ``P_k`` the per-CPU active power at
OPP k, ``Q_s`` the per-CPU idle power, ``S`` the domain's static power (rail leakage, the
shared cache, regulators). Busy and idle times of a CPU add up to ``T``, so a constant per-CPU
power cannot be told from static power: by convention the deepest idle state's power is 0
and ``S`` holds it (n_cpus x its power); ``P_k`` and the other ``Q_s`` are relative to it.
Fitted by non-negative least squares with ``P_k`` non-decreasing with frequency
(``P_k = sum_{j<=k} d_j``, ``d_j >= 0``), on the first part of the trace; the rest is held
out and predicted.

Where the training window has at least 3 OPPs with busy time, each such OPP gets its own
power and OPPs between them are interpolated linearly in frequency; every other OPP (and
every OPP of a domain with less data) takes the parametric curve ``P(f) = a f + b f^3``
(``a, b >= 0``; dynamic power with voltage rising with frequency) fitted to all the busy
time; the result is made non-decreasing. The platform file marks each OPP ``fit_status``
observed / interpolated / model.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ._common import need_events
from ._power import _rail_samples, cluster_rails, interval_residency

__all__ = ["EnergyModelFit", "fit_energy_model", "nnls"]

_MIN_RESIDENCY_S = 0.05      # busy CPU-seconds an OPP needs in the training window


def nnls(a: np.ndarray, b: np.ndarray, tol: float = 1e-10, max_iter: int = 500) -> np.ndarray:
    """Non-negative least squares ``min ||a x - b||, x >= 0`` (Lawson-Hanson active set)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    m, n = a.shape
    x = np.zeros(n)
    passive = np.zeros(n, bool)
    w = a.T @ (b - a @ x)
    it = 0
    while (~passive).any() and np.max(np.where(passive, -np.inf, w)) > tol and it < max_iter:
        it += 1
        passive[int(np.argmax(np.where(passive, -np.inf, w)))] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if np.all(z[passive] > tol):
                break
            neg = passive & (z <= tol)
            alpha = np.min(x[neg] / np.maximum(x[neg] - z[neg], 1e-300))
            x = x + alpha * (z - x)
            passive &= x > tol
            x[~passive] = 0.0
            if not passive.any():
                z = np.zeros(n)
                break
        x = z
        w = a.T @ (b - a @ x)
    return x


@dataclass(frozen=True)
class EnergyModelFit:
    """The result of :func:`fit_energy_model`.

    Attributes
    ----------
    platform : dict
        The platform file (JSON-ready), loadable with
        :func:`lisa_eas.platform.platform_from_dict`.
    summary : pandas.DataFrame
        Per domain: ``rail``, ``train_error_pct`` and ``heldout_error_pct`` (predicted vs
        measured energy over the window), ``heldout_interval_nmae_pct`` (mean absolute
        error per rail interval / mean interval energy), ``static_power_mw``,
        ``observed_opps``, ``busy_s``, ``mean_power_mw``.
    residuals : pandas.DataFrame
        Per domain and rail interval: ``start``, ``end``, ``measured_mj``,
        ``predicted_mj``, ``set`` (train/heldout).
    """

    platform: dict
    summary: pd.DataFrame
    residuals: pd.DataFrame = field(repr=False)

    def to_platform(self):
        """The fitted board as a :class:`~lisa_eas.platform.Platform`."""
        from ..platform import platform_from_dict
        return platform_from_dict(self.platform, source="<fit>")

    def write(self, path: str | os.PathLike) -> Path:
        """Write the platform file (atomically)."""
        from .._atomic import write_atomic
        path = Path(path)
        write_atomic(path, json.dumps(self.platform, indent=1) + "\n")
        return path


def _domains_from_trace(trace):
    freqs = trace.metadata.get("cpu_frequencies")
    if not freqs:
        raise ConfigError("the trace has no CPU frequency tables (Perfetto cpu_info); give "
                          "platform= (--platform) for the domains and OPPs")
    doms = []
    for cpu, fr in enumerate(freqs):
        if doms and list(doms[-1][1]) == list(fr):
            doms[-1][0].append(cpu)
        else:
            doms.append(([cpu], tuple(int(f) for f in fr)))
    return doms


def _fit(x, y, train):
    """NNLS on the training rows with unit-norm columns."""
    scale = np.linalg.norm(x[train], axis=0)
    scale[scale == 0] = 1.0
    return nnls(x[train] / scale, y[train]) / scale


def fit_energy_model(trace, *, platform=None, rails=None, train_fraction: float = 0.7,
                     capacity_dmips_mhz=None, name: str | None = None,
                     description: str = "", provenance=()) -> EnergyModelFit:
    """Fit each CPU domain's active power per OPP and its idle and static power to the
    energy measured by its power rail.

    Parameters
    ----------
    trace : Trace
        Needs ``power_rails``, ``cpu_idle`` and ``cpu_frequency`` (a Perfetto trace of a
        phone with ODPM rails, for example).
    platform : Platform or str, optional
        Domains, OPPs and capacities to keep (only the power is fitted). Default: the
        domains and OPP tables of the trace's ``cpu_info``.
    rails : list of str, optional
        The rail of each domain, in domain order (default: the ``CPUCL<n>`` rails).
    train_fraction : float
        Part of the rail window (from its start) to fit on; the rest is held out.
    capacity_dmips_mhz : list of int, optional
        Per domain, for the capacities when no platform is given (DT
        ``capacity-dmips-mhz``; default: equal, i.e. capacity proportional to frequency).
    name, description : str
        Of the platform file.
    provenance : iterable of dict
        Extra provenance entries for the platform file.

    Returns
    -------
    EnergyModelFit

    Raises
    ------
    ConfigError
        If the domains or rails cannot be told, or the training window is too short.
    """
    need_events(trace, "power_rails", "cpu_idle", "cpu_frequency")
    if not 0.1 <= train_fraction <= 0.95:
        raise ConfigError(f"train_fraction {train_fraction}: must be within 0.1..0.95")
    if platform is not None:
        from ._common import check_platform
        plat = check_platform(trace, platform)
        doms = [(list(d.cpus), d.freqs_khz, d) for d in plat.perf_domains]
    else:
        doms = [(c, f, None) for c, f in _domains_from_trace(trace)]
    names = cluster_rails(trace, len(doms), rails)
    dmips = list(capacity_dmips_mhz) if capacity_dmips_mhz is not None else [1] * len(doms)
    if len(dmips) != len(doms):
        raise ConfigError(f"capacity_dmips_mhz: {len(dmips)} values for {len(doms)} domains")
    top = max(dm * f[-1] for dm, (_, f, _) in zip(dmips, doms))
    idle_df = trace.df("cpu_idle")
    st = idle_df["state"].to_numpy(np.int64)
    n_idle = int(st[st != 4294967295].max()) + 1 if (st != 4294967295).any() else 1
    summary, resid, pds = {}, [], []
    for i, ((cpus, freqs, pd0), rail) in enumerate(zip(doms, names)):
        t, e = _rail_samples(trace, rail)
        if len(t) < 10:
            raise ConfigError(f"rail {rail}: {len(t)} samples; at least 10 are needed")
        busy, idle = interval_residency(trace, cpus, freqs, t, n_idle)
        dt = np.diff(t) / 1e9
        y = np.diff(e) / 1000.0
        split = t[0] + train_fraction * (t[-1] - t[0])
        train = t[1:] <= split
        if train.sum() < 5 or (~train).sum() < 2:
            raise ConfigError(f"rail {rail}: too few intervals to fit and hold out")
        res_train = busy[train].sum(axis=0)
        fk = np.asarray(freqs, np.float64) / 1e6          # GHz
        # stage 1: a parametric curve P(f) = a f + b f^3 (a, b >= 0) for every OPP
        idle_x = idle[:, :n_idle - 1]        # the deepest state: 0 by convention
        xp = np.column_stack([busy @ fk, busy @ fk ** 3, idle_x, dt])
        cp = _fit(xp, y, train)
        curve = cp[0] * fk + cp[1] * fk ** 3
        # stage 2: free per-OPP power, non-decreasing, where the training window has data
        obs = [k for k in range(len(freqs)) if res_train[k] >= _MIN_RESIDENCY_S]
        status = ["model"] * len(freqs)
        p_opp = curve.copy()
        q, static = np.r_[cp[2:1 + n_idle], 0.0], float(cp[-1])
        if len(obs) >= 3:
            # busy time at an unobserved OPP counts at the next observed OPP up (else the top)
            bin_of = [next((j for j, k2 in enumerate(obs) if k2 >= k), len(obs) - 1)
                      for k in range(len(freqs))]
            bb = np.zeros((len(t) - 1, len(obs)))
            for k in range(len(freqs)):
                bb[:, bin_of[k]] += busy[:, k]
            cum = np.cumsum(bb[:, ::-1], axis=1)[:, ::-1]     # column j: busy at bins >= j
            coef = _fit(np.column_stack([cum, idle_x, dt]), y, train)
            p_opp[obs] = np.cumsum(coef[:len(obs)])
            for k in obs:
                status[k] = "observed"
            q, static = np.r_[coef[len(obs):len(obs) + n_idle - 1], 0.0], float(coef[-1])
            # unobserved OPPs between observed ones: interpolated linearly in f
            for k in range(obs[0] + 1, obs[-1]):
                if status[k] != "observed":
                    lo = max(j for j in obs if j < k)
                    hi = min(j for j in obs if j > k)
                    w = (fk[k] - fk[lo]) / (fk[hi] - fk[lo])
                    p_opp[k] = p_opp[lo] + w * (p_opp[hi] - p_opp[lo])
                    status[k] = "interpolated"
        p_opp = np.maximum.accumulate(np.maximum(p_opp, 0.0))   # non-decreasing
        pred = busy @ p_opp + idle @ q + static * dt
        p_opp = p_opp.tolist()
        tr, ho = train, ~train
        summary[f"domain{i}"] = {
            "rail": rail, "cpus": cpus,
            "train_error_pct": 100 * (pred[tr].sum() - y[tr].sum()) / y[tr].sum(),
            "heldout_error_pct": 100 * (pred[ho].sum() - y[ho].sum()) / y[ho].sum(),
            "heldout_interval_nmae_pct": 100 * float(np.mean(np.abs(pred[ho] - y[ho])) /
                                                     max(float(np.mean(y[ho])), 1e-12)),
            "mean_power_mw": float(y.sum() / dt.sum()),
            "static_power_mw": static, "observed_opps": status.count("observed"),
            "busy_s": float(busy.sum())}
        resid.append(pd.DataFrame({"domain": f"domain{i}", "rail": rail, "start": t[:-1] / 1e9,
                                   "end": t[1:] / 1e9, "measured_mj": y, "predicted_mj": pred,
                                   "set": np.where(train, "train", "heldout")}))
        if pd0 is not None:
            caps = [o.capacity for o in pd0.opps]
            cap_max = pd0.cpu_capacity_max
            dname = pd0.name
        else:
            cap_max = int(dmips[i] * freqs[-1] * 1024 // top)
            caps = [max(1, int(cap_max * f // freqs[-1])) for f in freqs]
            dname = f"cluster{i}"
        pds.append({
            "name": dname, "cpus": cpus, "cpu_capacity_max": cap_max,
            **({"capacity_dmips_mhz": dmips[i]} if capacity_dmips_mhz is not None else {}),
            "power_mw_source": f"fitted to rail {rail} (per-CPU active power per OPP, NNLS, "
                               f"non-decreasing)",
            "static_power_mw": round(static, 3),
            "idle_states": [{"name": f"state{s}", "power_mw": round(float(q[s]), 3)}
                            for s in range(n_idle)],
            "opps": [{"freq_khz": int(f), "capacity": int(c), "power_mw": round(float(p), 3),
                      "fit_status": stt, "fit_busy_s": round(float(res_train[k]), 3)}
                     for k, (f, c, p, stt) in enumerate(zip(freqs, caps, p_opp, status))]})
    src = trace.metadata.get("source", "")
    summ = pd.DataFrame.from_dict(summary, orient="index")
    t_all = [r for r in resid]
    window = (float(t_all[0]["start"].iloc[0]), float(t_all[0]["end"].iloc[-1]))
    plat_dict = {
        "name": name or "fitted",
        "description": description or f"CPU energy model fitted to measured rail energy of "
                                      f"{Path(str(src)).name}",
        "provenance": [{"repo": None, "path": str(Path(str(src)).name), "commit": None,
                        "what": f"trace whose power rails the energy model was fitted to "
                                f"(kernel {trace.metadata.get('kernel_version')})"},
                       *provenance],
        "perf_domains": pds,
        "notes": (f"power_mw, idle-state power_mw and static_power_mw are FITTED (lisa_eas "
                  f"fit_energy_model) to the rails {', '.join(names)}: non-negative least "
                  f"squares, OPP power non-decreasing with frequency, on the first "
                  f"{train_fraction:.0%} of the rail window ({window[0]:.3f}..{window[1]:.3f} s); "
                  f"OPPs with {_MIN_RESIDENCY_S} s of busy time there are fitted one by one when "
                  f"at least 3 are, the others interpolated (linear in f) or taken from the "
                  f"fitted curve a f + b f^3, see fit_status. Held-out energy "
                  f"error per domain: " + ", ".join(
                      f"{r['rail']} {r['heldout_error_pct']:+.1f}%" for r in summary.values())),
        "fit": {"train_fraction": train_fraction, "window_s": list(window),
                "summary": {k: {kk: (vv if not isinstance(vv, float) else round(vv, 3))
                                for kk, vv in v.items()} for k, v in summary.items()}},
    }
    return EnergyModelFit(plat_dict, summ, pd.concat(resid, ignore_index=True))
