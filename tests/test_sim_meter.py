"""The meter model (lisa_eas.sim._meter): cluster and idle power integrated over a CPU timeline.

Expected values are worked by hand from the platform file's tables (juno_r0.json), not from the
code: per-CPU busy power = the EM's power_mw at the OPP; cluster active/idle and CPU idle power =
the legacy EAS costs times the domain's power_mw / legacy_cpu_power at the top OPP; the cluster's
idle power is that of its CPUs' shallowest state.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lisa_eas.errors import PlatformError
from lisa_eas.platform import load_platform, platform_from_dict
from lisa_eas.sim._meter import meter_energy
from lisa_eas.trace import Trace

MS = 1_000_000


def _frame(rows):
    ts = np.array([r[0] for r in rows], np.int64)
    df = pd.DataFrame({"__ts": ts, "__cpu": np.array([r[1] for r in rows], np.int32),
                       "__pid": np.zeros(len(rows), np.int32), "__comm": pd.Categorical(["x"] * len(rows)),
                       "state": np.array([r[2] for r in rows], np.uint32),
                       "cpu_id": np.array([r[1] for r in rows], np.uint32)},
                      index=pd.Index(ts / 1e9, name="Time"))
    return df.sort_index(kind="stable")


def _juno_trace():
    """Big (CPUs 1, 2): CPU1 runs 0-10 ms at 450 MHz then cluster-sleep; CPU2 in cluster-sleep
    until 30 ms, runs at 1100 MHz until 40 ms, then WFI. LITTLE (0, 3, 4, 5): cluster-sleep
    throughout. 50 ms."""
    exit_ = 4294967295
    idle = [(0, 2, 2), (0, 0, 2), (0, 3, 2), (0, 4, 2), (0, 5, 2), (10 * MS, 1, 2), (30 * MS, 2, exit_),
            (40 * MS, 2, 0)]
    freq = [(0, c, 450000) for c in range(6)] + [(30 * MS, 1, 1100000), (30 * MS, 2, 1100000)]
    return Trace.from_dataframes({"cpu_idle": _frame(idle), "cpu_frequency": _frame(freq)},
                                 metadata={"cpus": 6, "clock": "sim"})


def test_juno_meter_by_hand():
    """Big, f = 583 / 616 (power_mw / legacy_cpu_power at 1100 MHz):
    0-10 ms: CPU1 busy 160.367 mW, CPU2 cluster-sleep 0, cluster active at 450 MHz 24 f;
    10-30 ms: both in cluster-sleep: cluster idle 24 f (cluster-sleep-0's), cluster down 20 ms;
    30-40 ms: CPU2 busy 583 mW, cluster active at 1100 MHz 64 f;
    40-50 ms: CPU2 in WFI 15 f, the cluster at its shallowest state (WFI) 65 f.
    cpu_busy = 1.60367 + 5.83 mW*s; cpu_idle = 0.15 f; cluster_active = (0.24 + 0.64) f;
    cluster_idle = (0.48 + 0.65) f. LITTLE (f = 119 / 93): 50 ms of cluster-sleep, 17 f."""
    m = meter_energy(_juno_trace(), load_platform("juno_r0"), t_end=0.050)
    f = 583.0 / 616.0
    big = m["per_domain"]["big"]
    assert big["cpu_busy"] == pytest.approx(1.60367 + 5.83)
    assert big["cpu_idle"] == pytest.approx(0.15 * f)
    assert big["cluster_active"] == pytest.approx(0.88 * f)
    assert big["cluster_idle"] == pytest.approx(1.13 * f)
    assert big["cluster_down_s"] == pytest.approx(0.020)
    little = m["per_domain"]["little"]
    assert little["total"] == pytest.approx(17 * 119 / 93 * 0.050)
    assert little["cluster_down_s"] == pytest.approx(0.050)
    # Juno r0's meters read the two clusters: the covered figure is both domains, no baseline
    assert m["scope"] == "cpus" and m["covered"] == pytest.approx(big["total"] + little["total"])


def test_hikey960_meter_maps_the_legacy_idle_arrays_onto_the_dt_states():
    """HiKey960's idle states carry no power: the legacy arrays' last entries map onto the DT
    states (LITTLE cpu [5, 5, 0, 0], cluster [12, 12, 12, 0] -> cpu-sleep 0 / 12, cluster-sleep
    0 / 0). All LITTLE CPUs in cpu-sleep (state 0) for 1 s: the cluster draws 12 f with
    f = 245.436 / 502; the scope is the whole board without a baseline."""
    idle = [(0, c, 0) for c in range(4)] + [(0, c, 1) for c in range(4, 8)]
    freq = [(0, c, 533000 if c < 4 else 903000) for c in range(8)]
    tr = Trace.from_dataframes({"cpu_idle": _frame(idle), "cpu_frequency": _frame(freq)},
                               metadata={"cpus": 8, "clock": "sim"})
    m = meter_energy(tr, load_platform("hikey960"), t_end=1.0)
    assert m["per_domain"]["little"]["total"] == pytest.approx(12 * 245.436 / 502)
    assert m["per_domain"]["big"]["total"] == pytest.approx(0.0)
    assert m["scope"] == "board" and m["meter"]["non_cpu_baseline_mw"] is None


def test_meter_declaration_is_validated():
    import json
    from importlib import resources

    raw = json.loads((resources.files("lisa_eas") / "platforms" / "juno_r0.json").read_text())
    raw["meter"] = {"scope": "rails"}
    with pytest.raises(PlatformError, match="'meter': 'scope'"):
        platform_from_dict(raw)
    raw["meter"] = {"scope": "cpus", "domains": ["gpu"]}
    with pytest.raises(PlatformError, match="'domains'"):
        platform_from_dict(raw)


def test_menu_select_by_hand():
    """menu.c v4.16 menu_select(): deepest state with target_residency <= predicted and
    exit_latency <= predicted / (1 + 10 nr_iowaiters) (and <= the QoS request).
    Juno r0 LITTLE: WFI (no figures), cpu-sleep-0 (residency 2000, exit 1200), cluster-sleep-0
    (2500, 1200). predicted 2400: cpu-sleep-0 (cluster-sleep needs 2500) -> 1; 3000 -> 2;
    1999 -> 0; 3000 with one iowaiter: limit 3000 / 11 = 272 < 1200 -> 0; QoS 1000 -> 0.
    HiKey960 big cluster-sleep-1 (3500, 2900): 3400 -> cpu-sleep-1 (1500, 550) = 0 (no WFI
    listed). The loop's thresholds are max(residency, exit) in ns."""
    from lisa_eas.models import menu_select, menu_thresholds

    juno = load_platform("juno_r0").perf_domains[0].idle_states
    assert [menu_select(juno, p) for p in (2400, 3000, 1999)] == [1, 2, 0]
    assert menu_select(juno, 3000, nr_iowaiters=1) == 0
    assert menu_select(juno, 3000, latency_req_us=1000) == 0
    big = load_platform("hikey960").perf_domains[1].idle_states
    assert menu_select(big, 3400) == 0 and menu_select(big, 3500) == 1
    assert menu_thresholds(juno) == [0, 2_000_000, 2_500_000]


def test_ablation_switch_is_validated_and_reaches_the_loop():
    """SimConfig.ablate names causes to switch off; "eas-overutilized" sets the loop's flag."""
    from lisa_eas._kernels import sim_models as sm
    from lisa_eas.errors import ModelError
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._engine import _model_params

    with pytest.raises(ModelError, match="not an ablation"):
        SimConfig(ablate=("margin",))
    with pytest.raises(ModelError, match="tuple of names"):
        SimConfig(ablate="eas-overutilized")
    plat = load_platform("juno_r0")
    caps = np.array([plat.domain_of(c).cpu_capacity_max for c in range(plat.nr_cpus)], np.int64)
    on = _model_params(plat, SimConfig(ablate=("eas-overutilized",)), 0, caps)
    off = _model_params(plat, SimConfig(), 0, caps)
    assert on[sm.M_EAS_IGNORE_OU] == 1 and off[sm.M_EAS_IGNORE_OU] == 0
    assert SimConfig(ablate=["eas-overutilized"]).to_dict()["ablate"] == ["eas-overutilized"]
