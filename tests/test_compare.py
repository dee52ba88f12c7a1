"""A/B comparisons: bootstrap intervals, verdicts, expectations, and A/B on the model."""
from __future__ import annotations

import json

import numpy as np
import pytest

from lisa_eas.errors import ConfigError
from lisa_eas.suite import bootstrap_diff, compare


def test_bootstrap_interval_of_a_shift():
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    lo, hi = bootstrap_diff(a, a + 10, seed=1)
    # each mean resamples within [1, 6]: the difference lies in [10 - 5, 10 + 5], centred on 10
    assert 5 < lo < 10 < hi < 15
    assert bootstrap_diff(a, a + 10, seed=1) == (lo, hi)  # seeded
    lo0, hi0 = bootstrap_diff(a, a, seed=1)
    assert lo0 < 0 < hi0
    with pytest.raises(ConfigError):
        bootstrap_diff(a, a, confidence=95)


def _runs(mean, sd, n, seed, key="energy"):
    rng = np.random.default_rng(seed)
    return [{key: float(x), "overrun_pct": 0.0} for x in rng.normal(mean, sd, n)]


def test_verdicts_and_expectations(tmp_path):
    a, b = _runs(100, 1, 8, 1), _runs(90, 1, 8, 2)
    c = compare(a, b, expect=["energy: B<A"])
    m = c.metric("energy")
    assert m.verdict == "B better" and m.ci_high < 0 and m.effect_size < -3
    assert c.exit_code == 0 and c.expectations[0].holds
    assert compare(a, b, expect=["energy: B>A"]).exit_code == 1
    assert compare(b, a).metric("energy").verdict == "B worse"
    # A/A: the same distribution on both sides
    aa = compare(_runs(100, 1, 8, 3), _runs(100, 1, 8, 4), expect=["energy: B=A"])
    assert aa.metric("energy").verdict == "no difference" and aa.exit_code == 0
    assert aa.metric("overrun_pct").verdict == "no difference"  # all zero
    assert not c.warnings
    small = compare(a[:3], b[:3])
    assert small.warnings and "below 5" in small.warnings[0]
    assert compare(a[:1], b[:1]).metric("energy").verdict.startswith("undecidable")
    paths = c.write(tmp_path)
    d = json.loads(paths["json"].read_text())
    assert d["metrics"][0]["name"] == "energy" and d["expectations"][0]["holds"]
    assert "B better" in paths["html"].read_text()
    with pytest.raises(ConfigError, match="METRIC: B<A"):
        compare(a, b, expect=["energy smaller"])
    with pytest.raises(ConfigError, match="no metric"):
        compare(a, b, expect=["slack: B<A"])


def test_model_eas_vs_no_eas_with_start_jitter(tmp_path, capsys):
    """On the model the only run-to-run randomness is the seeded start jitter; EAS saves energy."""
    from lisa_eas.cli import main
    from lisa_eas.rtapp import periodic, task, workload

    wl = workload([task(f"t{i}", periodic(16, 8, 1.0)) for i in range(4)], calibration=100)
    path = tmp_path / "wl.json"
    path.write_text(wl.to_json())
    sides = {}
    for placement in ("no-eas", "eas"):
        sides[placement] = []
        for seed in range(5):
            out = tmp_path / f"{placement}{seed}"
            assert main(["simulate", "--platform", "juno_r0", "--workload", str(path), "--out", str(out),
                         "--placement", placement, "--seed", str(seed), "--start-jitter-us", "4000",
                         "--format", "json"]) == 0
            sides[placement].append(str(out))
    capsys.readouterr()
    rc = main(["compare", *sides["no-eas"], "--vs", *sides["eas"], "--expect", "energy: B<A",
               "--out", str(tmp_path / "cmp")])
    out = capsys.readouterr().out
    assert rc == 0, out
    d = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    e = next(m for m in d["metrics"] if m["name"] == "energy")
    assert e["verdict"] == "B better" and e["diff_pct"] < -5
    # the jitter does move the runs: energy is not identical across seeds
    assert len(set(d["values_a"]["energy"])) > 1
    assert main(["compare", *sides["no-eas"], "--vs", *sides["eas"], "--expect", "energy: B>A",
                 "--out", str(tmp_path / "cmp2")]) == 1
    assert main(["compare", str(tmp_path / "nope"), "--vs", str(tmp_path / "nope"),
                 "--out", str(tmp_path / "cmp3")]) == 2


def test_suite_results_compare_per_scenario(tmp_path):
    from lisa_eas.sim import SimConfig
    from lisa_eas.suite import check_eas

    # threads started on their CPUs in turn (ablation fork-placement): forked from CPU 0 at v5.4 the
    # three small tasks start on the big CPUs with 512 / 512 / 256 of util, and no-EAS and EAS then
    # spend the short run alike ("no difference"); this test is about compare()'s verdicts
    for name, placement in (("a", "no-eas"), ("b", "eas")):
        check_eas(platform="juno_r0", placement=placement, scenarios=["ThreeSmallTasks"], iterations=5,
                  progress=False, sim_config=SimConfig(ablate=("fork-placement",))).write(tmp_path / name)
    c = compare([tmp_path / "a"], [tmp_path / "b"], metrics=["ThreeSmallTasks/energy",
                                                             "ThreeSmallTasks/energy_excess_pct"])
    assert c.n_a == c.n_b == 5
    assert c.metric("ThreeSmallTasks/energy_excess_pct").verdict == "B better"
    assert c.metric("ThreeSmallTasks/energy").mean_b < c.metric("ThreeSmallTasks/energy").mean_a
