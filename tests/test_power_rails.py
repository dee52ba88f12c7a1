"""Power rails and energy models fitted to them: residency against a naive twin, NNLS
against exhaustive search, recovery of a known model from synthetic rails, the Pixel 7 Pro
fit with its held-out error, the bundled pixel7pro platform and the CLI."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from lisa_eas import ConfigError, Trace, read_trace
from lisa_eas.analysis import (df_power_rails, df_rail_energy, df_rail_vs_model,
                               fit_energy_model)
from lisa_eas.analysis._emfit import nnls
from lisa_eas.analysis._power import interval_residency
from lisa_eas.cli import main
from lisa_eas.platform import load_platform
from perfetto_oracle import PIXEL, unpack

EXIT = 4294967295


@pytest.fixture(scope="module")
def pixel(tmp_path_factory):
    p = unpack(PIXEL, tmp_path_factory.mktemp("pw"))
    return p, read_trace(p, cache=False)


def test_df_power_rails(pixel):
    _, t = pixel
    df = df_power_rails(t)
    assert df["rail"].nunique() == 24 and len(df) == 5760
    cl = df_power_rails(t, ["S4M_VDD_CPUCL0"])
    assert len(cl) == 240 and set(cl["subsys"].astype(str)) == {"CPU(LITTLE)"}
    with pytest.raises(ConfigError, match="NOPE"):
        df_power_rails(t, ["NOPE"])
    e = df_rail_energy(t, "S4M_VDD_CPUCL0")
    assert (e["energy_mj"] >= 0).all() and (e["end"] > e["start"]).all()


def _naive_residency(trace, cpu, freqs, edges):
    """Twin: walk the events of one CPU in time order."""
    idle = trace.df("cpu_idle")
    idle = idle[idle["cpu_id"] == cpu]
    fr = trace.df("cpu_frequency")
    fr = fr[fr["cpu_id"] == cpu]
    ev = sorted([(int(t), 0, int(s)) for t, s in zip(idle["__ts"], idle["state"])] +
                [(int(t), 1, int(f)) for t, f in zip(fr["__ts"], fr["state"])])
    first_idle = [s for _, k, s in ev if k == 0][0]
    busy = first_idle != EXIT     # before the first event: the opposite
    freq = [f for _, k, f in ev if k == 1][0]
    out = np.zeros((len(edges) - 1, len(freqs)))
    t_prev = int(edges[0])
    pts = sorted(set([e for e, _, _ in ev if edges[0] <= e <= edges[-1]] + list(edges)))
    state = {"busy": busy, "freq": freq}
    j = 0
    for e_t, k, v in ev:                       # state at edges[0]
        if e_t > edges[0]:
            break
        if k == 0:
            state["busy"] = v == EXIT
        else:
            state["freq"] = v
        j += 1
    for p in pts[1:]:
        if state["busy"]:
            i = int(np.searchsorted(edges, t_prev, side="right")) - 1
            opp = min(int(np.searchsorted(freqs, state["freq"])), len(freqs) - 1)
            out[i, opp] += (p - t_prev) / 1e9
        while j < len(ev) and ev[j][0] <= p:
            if ev[j][1] == 0:
                state["busy"] = ev[j][2] == EXIT
            else:
                state["freq"] = ev[j][2]
            j += 1
        t_prev = p
    return out


def test_interval_residency_twin_and_conservation(pixel):
    _, t = pixel
    freqs = t.metadata["cpu_frequencies"][0]
    rails = t.df("power_rails")
    rails = rails[rails["rail"] == "S4M_VDD_CPUCL0"]
    edges = np.unique(rails["__ts"].to_numpy())[:40]
    busy, idle = interval_residency(t, [1], freqs, edges)
    twin = _naive_residency(t, 1, freqs, edges)
    assert np.allclose(busy, twin, atol=1e-9)
    # busy + idle time of every interval = its length (one CPU)
    assert np.allclose(busy.sum(1) + idle.sum(1), np.diff(edges) / 1e9)


def test_nnls_equals_exhaustive_search():
    rng = np.random.default_rng(19)
    for _ in range(20):
        a = rng.normal(size=(12, 4))
        b = rng.normal(size=12)
        best = np.inf
        for k in range(5):
            for sub in itertools.combinations(range(4), k):
                x = np.zeros(4)
                if sub:
                    x[list(sub)] = np.linalg.lstsq(a[:, sub], b, rcond=None)[0]
                if (x >= -1e-12).all():
                    best = min(best, float(np.sum((a @ x - b) ** 2)))
        x = nnls(a, b)
        assert (x >= 0).all()
        assert np.sum((a @ x - b) ** 2) == pytest.approx(best, rel=1e-7, abs=1e-9)


def _synthetic(seed=0):
    """Two CPUs of one domain, random idle/frequency events, a rail integrated every 1 ms
    from a known model: P(OPP) = [50, 120, 300] mW, idle 10 / 2 mW, static 15 mW."""
    rng = np.random.default_rng(seed)
    freqs = [500000, 1000000, 2000000]
    p_opp, p_idle, static = [50.0, 120.0, 300.0], [10.0, 2.0], 15.0
    dur_ms = 60_000
    grid = np.arange(dur_ms)            # 1 ms steps
    rows_i, rows_f = [], []
    power = np.full(dur_ms, static)
    for cpu in (0, 1):
        t = 0
        state = np.empty(dur_ms, np.int64)
        f_idx = np.empty(dur_ms, np.int64)
        while t < dur_ms:
            n = int(rng.integers(5, 200))
            s = int(rng.choice([-1, -1, 0, 1]))
            state[t:t + n] = s
            rows_i.append((t * 1_000_000, cpu, EXIT if s < 0 else s))
            t += n
        t = 0
        while t < dur_ms:
            n = int(rng.integers(50, 2000))
            k = int(rng.integers(0, 3))
            f_idx[t:t + n] = k
            rows_f.append((t * 1_000_000, cpu, freqs[k]))
            t += n
        busy = state < 0
        power += np.where(busy, np.array(p_opp)[f_idx], np.array(p_idle)[np.maximum(state, 0)])
    energy_uws = np.concatenate([[0.0], np.cumsum(power) * 1e-3 * 1000])   # mW*ms -> uWs
    sample_ms = np.arange(0, dur_ms + 1, 250)

    def frame(rows, cols):
        ts = np.array([r[0] for r in rows], np.int64)
        df = pd.DataFrame({"__ts": ts, "__cpu": np.array([r[1] for r in rows], np.int32),
                           "__pid": np.zeros(len(rows), np.int32),
                           "__comm": pd.Categorical(["x"] * len(rows)), **cols(rows)},
                          index=pd.Index(ts / 1e9, name="Time"))
        return df.sort_index(kind="stable")

    idle = frame(rows_i, lambda r: {"state": np.array([x[2] for x in r], np.uint32),
                                    "cpu_id": np.array([x[1] for x in r], np.uint32)})
    fr = frame(rows_f, lambda r: {"state": np.array([x[2] for x in r], np.uint32),
                                  "cpu_id": np.array([x[1] for x in r], np.uint32)})
    rts = sample_ms.astype(np.int64) * 1_000_000
    rails = pd.DataFrame({"__ts": rts, "__cpu": -1, "__pid": -1, "__comm": "",
                          "rail": pd.Categorical(["VDD_CPUCL0"] * len(rts)),
                          "subsys": pd.Categorical(["CPU"] * len(rts)),
                          "energy_uws": energy_uws[sample_ms].astype(np.uint64),
                          "power_mw": np.nan}, index=pd.Index(rts / 1e9, name="Time"))
    trace = Trace.from_dataframes({"cpu_idle": idle, "cpu_frequency": fr, "power_rails": rails},
                                  metadata={"cpus": 2, "cpu_frequencies": [freqs, freqs]})
    return trace, p_opp, p_idle, static


def test_fit_recovers_a_known_model():
    trace, p_opp, p_idle, static = _synthetic()
    fit = fit_energy_model(trace, train_fraction=0.6)
    d = fit.platform["perf_domains"][0]
    got = [o["power_mw"] for o in d["opps"]]
    # convention: the deepest idle state is 0 and static power holds 2 CPUs x its power
    deep = p_idle[-1]
    assert got == pytest.approx([p - deep for p in p_opp], rel=0.01)
    assert [s["power_mw"] for s in d["idle_states"]] == pytest.approx(
        [q - deep for q in p_idle], abs=0.3)
    assert d["static_power_mw"] == pytest.approx(static + 2 * deep, abs=0.3)
    assert abs(fit.summary["heldout_error_pct"].iloc[0]) < 0.5


def test_pixel7pro_fit_heldout_error(pixel):
    _, t = pixel
    fit = fit_energy_model(t, capacity_dmips_mhz=[260, 880, 997])
    s = fit.summary
    assert list(s["rail"]) == ["S4M_VDD_CPUCL0", "S3M_VDD_CPUCL1", "S2M_VDD_CPUCL2"]
    # the little domain (busy 18.6 CPU-s of the 60 s) meets the 10 % held-out target; the
    # mid and big ones are idle-dominated (0.6 / 0.06 busy CPU-s, 1.5 / 0.2 mW on average)
    assert abs(s["heldout_error_pct"].iloc[0]) <= 10
    plat = fit.to_platform()
    for d in plat.perf_domains:
        p = [o.power_mw for o in d.opps]
        assert all(x >= 0 for x in p) and p == sorted(p)
        assert all(s.power_mw >= 0 for s in d.idle_states) and d.static_power_mw >= 0
    # the fitted model predicts the whole window's energy of the little rail
    cmp = df_rail_vs_model(t, plat)
    assert abs(cmp.loc["cluster0", "error_pct"]) < 5


def test_bundled_pixel7pro_is_the_fit(pixel):
    _, t = pixel
    bundled = load_platform("pixel7pro")
    assert [d.cpus for d in bundled.perf_domains] == [(0, 1, 2, 3), (4, 5), (6, 7)]
    # capacities by hand: floor(dmips * fmax * 1024 / (997 * 2850000))
    assert [d.cpu_capacity_max for d in bundled.perf_domains] == [
        260 * 1803000 * 1024 // (997 * 2850000), 880 * 2348000 * 1024 // (997 * 2850000), 1024]
    assert [d.cpu_capacity_max for d in bundled.perf_domains] == [168, 744, 1024]
    fit = fit_energy_model(t, capacity_dmips_mhz=[260, 880, 997])
    for d, f in zip(bundled.perf_domains, fit.platform["perf_domains"]):
        assert [o.power_mw for o in d.opps] == [o["power_mw"] for o in f["opps"]]
    assert {p["repo"] for p in bundled.provenance} >= {"kerneltoast/android_kernel_google_gs201",
                                                       "Zetos11/PerfettoTraceScript"}
    cmp = df_rail_vs_model(t, bundled)
    assert list(cmp["rail"]) == ["S4M_VDD_CPUCL0", "S3M_VDD_CPUCL1", "S2M_VDD_CPUCL2"]


def test_cli_platform_fit(pixel, tmp_path, capsys):
    path, _ = pixel
    out = tmp_path / "board.json"
    assert main(["platform", "fit", str(path), "--out", str(out), "--dmips", "260,880,997",
                 "--name", "myphone"]) == 0
    assert "held-out" in capsys.readouterr().out
    assert load_platform(out).name == "myphone"
    assert json.loads(out.read_text())["fit"]["train_fraction"] == 0.7
    assert main(["platform", "fit", str(path), "--out", str(out), "--rails", "S4M_VDD_CPUCL0"]) == 2
    assert "one rail per perf domain" in capsys.readouterr().err
