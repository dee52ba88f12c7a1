"""Measured power rails (Perfetto ``power_rails``, e.g. Pixel ODPM) against energy models,
and the per-interval CPU residency both the comparison and the fit use.

A rail's energy counter is sampled every few hundred ms; between two samples the energy of
a CPU cluster's rail is compared with, or fitted to, what the cluster's CPUs did in that
interval: busy time per OPP and idle time per idle state, from ``cpu_idle`` and
``cpu_frequency``.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import ConfigError, MissingTraceEventError
from ._common import check_platform, need_events

__all__ = ["df_power_rails", "cluster_rails", "interval_residency", "df_rail_energy",
           "df_rail_vs_model"]

IDLE_EXIT = 4294967295
_CL = re.compile(r"CPUCL(\d+)", re.I)


def df_power_rails(trace, rails=None) -> pd.DataFrame:
    """The trace's power-rail samples (Perfetto ``power_rails`` packets).

    Parameters
    ----------
    trace : Trace
    rails : iterable of str, optional
        Only these rails.

    Returns
    -------
    pandas.DataFrame
        Index ``Time`` (s); ``rail``, ``subsys``, ``energy_uws`` (cumulative µW·s, as the
        rail's counter), ``power_mw`` (mean power since the rail's previous sample; NaN for
        its first sample or a repeated sample).
    """
    need_events(trace, "power_rails")
    df = trace.df("power_rails")
    if rails is not None:
        rails = list(rails)
        unknown = sorted(set(rails) - set(df["rail"].astype(str)))
        if unknown:
            raise ConfigError(f"rail(s) {', '.join(unknown)} not in the trace; it has: "
                              f"{', '.join(sorted(set(df['rail'].astype(str))))}")
        df = df[df["rail"].astype(str).isin(rails)]
    return df[["rail", "subsys", "energy_uws", "power_mw"]]


def cluster_rails(trace, n_domains: int, rails=None) -> list[str]:
    """The rail of each perf domain (domains in order of their CPUs): ``rails`` when given,
    else the rails named ``...CPUCL<n>...`` in order of n (ODPM naming)."""
    names = sorted(set(trace.df("power_rails")["rail"].astype(str)))
    if rails is not None:
        rails = list(rails)
        bad = [r for r in rails if r not in names]
        if bad or len(rails) != n_domains:
            raise ConfigError(f"rails {rails}: need one rail per perf domain ({n_domains}) among "
                              f"the trace's rails {names}")
        return rails
    cl = sorted((int(m.group(1)), n) for n in names if (m := _CL.search(n)))
    if len(cl) != n_domains:
        raise ConfigError(f"cannot tell which rail feeds which of the {n_domains} perf domains "
                          f"(rails named CPUCL<n>: {[n for _, n in cl]}); give rails=[...] "
                          f"(--rails) in the order of the domains; the trace's rails: {names}")
    return [n for _, n in cl]


def _rail_samples(trace, rail: str):
    df = trace.df("power_rails")
    df = df[df["rail"].astype(str) == rail]
    t = df["__ts"].to_numpy(np.int64)
    e = df["energy_uws"].to_numpy().astype(np.float64)
    keep = np.r_[True, np.diff(t) > 0]      # the HAL repeats some samples
    return t[keep], e[keep]


def _steps(df: pd.DataFrame, col: str, cpu: int, key: str):
    sel = df[key].to_numpy(np.int64) == cpu
    return df["__ts"].to_numpy(np.int64)[sel], df[col].to_numpy(np.int64)[sel]


def interval_residency(trace, cpus, freqs_khz, edges_ns: np.ndarray, n_idle: int = 4):
    """Per interval ``[edges[i], edges[i+1])``: busy CPU-seconds per OPP (summed over
    ``cpus``) and idle CPU-seconds per idle state.

    Frequencies between OPPs count at the next OPP up; before a CPU's first
    ``cpu_frequency`` event its first frequency is assumed, before its first ``cpu_idle``
    event the opposite of that event's state.

    Returns
    -------
    (busy, idle) : (ndarray (n, n_opps), ndarray (n, n_idle))
    """
    need_events(trace, "cpu_idle", "cpu_frequency")
    idle_df = trace.df("cpu_idle")
    fr_df = trace.df("cpu_frequency")
    freqs = np.asarray(freqs_khz, np.int64)
    n = len(edges_ns) - 1
    busy = np.zeros((n, len(freqs)))
    idle = np.zeros((n, n_idle))
    lo, hi = int(edges_ns[0]), int(edges_ns[-1])
    for cpu in cpus:
        ti, si = _steps(idle_df, "state", cpu, "cpu_id")
        tf, fv = _steps(fr_df, "state", cpu, "cpu_id")
        if not len(tf):
            raise MissingTraceEventError(["cpu_frequency"], f"no cpu_frequency event for CPU {cpu}")
        si = np.where((si == IDLE_EXIT) | (si < 0), -1, si)
        first_state = (0 if si[0] == -1 else -1) if len(si) else -1
        pts = np.unique(np.concatenate([ti, tf, edges_ns]))
        pts = pts[(pts >= lo) & (pts <= hi)]
        t0, dt = pts[:-1], np.diff(pts).astype(np.float64) / 1e9
        k = np.searchsorted(ti, t0, side="right") - 1
        state = np.where(k >= 0, si[np.maximum(k, 0)] if len(si) else -1, first_state)
        j = np.searchsorted(tf, t0, side="right") - 1
        f = fv[np.maximum(j, 0)]
        opp = np.minimum(np.searchsorted(freqs, f, side="left"), len(freqs) - 1)
        iv = np.searchsorted(edges_ns, t0, side="right") - 1
        b = state < 0
        np.add.at(busy, (iv[b], opp[b]), dt[b])
        st = np.minimum(state[~b], n_idle - 1)
        np.add.at(idle, (iv[~b], st), dt[~b])
    return busy, idle


def df_rail_energy(trace, rail: str) -> pd.DataFrame:
    """A rail's energy per sampling interval: ``start``, ``end`` (s), ``energy_mj``,
    ``power_mw``."""
    t, e = _rail_samples(trace, rail)
    return pd.DataFrame({"start": t[:-1] / 1e9, "end": t[1:] / 1e9,
                         "energy_mj": np.diff(e) / 1000.0,
                         "power_mw": np.diff(e) / 1000.0 / (np.diff(t) / 1e9)})


def df_rail_vs_model(trace, platform, rails=None) -> pd.DataFrame:
    """Per perf domain: the energy its rail measured over the rails' window beside the
    energy the platform's energy model predicts from the trace's frequency and idle
    residency (busy CPU-time x OPP power + idle time x idle-state power + static power).

    Parameters
    ----------
    trace : Trace
        Needs ``power_rails``, ``cpu_idle``, ``cpu_frequency``.
    platform : Platform or str
        Its domains' ``power_mw`` must be in mW (kernel EM or fitted).
    rails : list of str, optional
        The rail of each domain (default: the ``CPUCL<n>`` rails).

    Returns
    -------
    pandas.DataFrame
        Index: domain name; ``rail``, ``measured_mj``, ``model_mj``, ``error_pct``
        (model vs measured), ``busy_s``, ``window_s``.
    """
    plat = check_platform(trace, platform)
    need_events(trace, "power_rails", "cpu_idle", "cpu_frequency")
    names = cluster_rails(trace, len(plat.perf_domains), rails)
    rows = {}
    for d, rail in zip(plat.perf_domains, names):
        if d.power_unit != "mW":
            raise ConfigError(f"platform {plat.name!r} domain {d.name!r}: power in "
                              f"{d.power_unit or 'no unit'}, not mW; cannot compare with a rail")
        t, e = _rail_samples(trace, rail)
        edges = np.array([t[0], t[-1]])
        busy, idle = interval_residency(trace, d.cpus, d.freqs_khz, edges,
                                        max(len(d.idle_states), 1))
        p_opp = np.array([o.power_mw for o in d.opps], np.float64)
        p_idle = np.array([s.power_mw or 0.0 for s in d.idle_states] or [0.0])
        window = (t[-1] - t[0]) / 1e9
        model = busy[0] @ p_opp + idle[0] @ p_idle + (d.static_power_mw or 0.0) * window
        meas = (e[-1] - e[0]) / 1000.0
        rows[d.name] = {"rail": rail, "measured_mj": meas, "model_mj": model,
                        "error_pct": 100.0 * (model - meas) / meas if meas else np.nan,
                        "busy_s": float(busy.sum()), "window_s": window}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "domain"
    return out
