"""The reproduce framework: claims, result formats, CLI exit codes, published data, workloads."""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from lisa_eas.cli import main
from lisa_eas.repro import EXPERIMENTS, ExperimentResult, Sweep, published_csv, reproduce
from lisa_eas.repro import _registry
from lisa_eas.repro._claims import check_close, check_exact, check_rank_correlation, spearman

REPO = Path(__file__).resolve().parent.parent
SHARED_PUBLISHED = Path("/work/shared/published")


def test_spearman_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # textbook example with a tie: ranks (1, 2.5, 2.5, 4) vs (1, 2, 3, 4)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486832980505138)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_checks_hold_and_fail():
    assert check_exact("x", [1, 2], [1, 2]).ok
    c = check_exact("x", [1, 2], [1, 3], why="because")
    assert not c.ok and c.why == "because"
    assert check_close("y", 10.0, 10.9, rel=0.1, justification="j").ok
    assert not check_close("y", 10.0, 11.1, rel=0.1, justification="j").ok
    assert not check_close("y", 10.0, float("nan"), abs_=100, justification="j").ok
    assert "±10% relative" in check_close("y", 10.0, 10.0, rel=0.1, justification="j").tolerance
    assert check_rank_correlation("z", [1, 2, 3, 4, 5], [2, 3, 4, 5, 9], min_rho=0.9, justification="j").ok
    assert not check_rank_correlation("z", [1, 2, 3, 4, 5], [5, 4, 3, 2, 1], min_rho=0.0, justification="j").ok


def test_published_data_is_the_shared_copy():
    pkg = REPO / "lisa_eas" / "published"
    assert (pkg / "SOURCES.md").is_file()
    if SHARED_PUBLISHED.is_dir():
        for f in SHARED_PUBLISHED.iterdir():
            assert (pkg / f.name).read_bytes() == f.read_bytes(), f.name
    df = published_csv("sis_util_scan_nr_16.csv")
    assert df["scan_nr"].tolist() == [16, 15, 15, 14, 13, 11, 9, 6, 3, 0, 0]
    for f in pkg.glob("*.csv"):
        assert f.name in (pkg / "SOURCES.md").read_text(), f"{f.name} has no source line"


def test_sis_util_scan_exact_and_json(capsys):
    assert main(["reproduce", "sis-util-scan", "--format", "json"]) == 0
    obj = json.loads(capsys.readouterr().out.strip())
    assert set(obj) >= {"name", "rows", "checks", "provenance"}
    assert obj["name"] == "sis-util-scan" and obj["ok"] is True
    assert len(obj["rows"]) == 22 and all(r["published_scan_nr"] == r["reproduced_scan_nr"] for r in obj["rows"])
    for c in obj["checks"]:
        assert set(c) >= {"claim", "published", "reproduced", "tolerance", "ok"}
    prov = obj["provenance"]
    assert prov["published"][0]["file"] == "lisa_eas/published/sis_util_scan_nr_112.csv"
    assert len(prov["published"][0]["sha256"]) == 64 and prov["lisa_eas"] and prov["wall_time_s"] >= 0


def test_failing_check_gives_exit_code_1_in_every_format(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(_registry.EXPERIMENTS, "fixture-fail", "repro_fixture_failing")
    assert main(["reproduce", "fixture-fail", "--format", "table", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "[NOT OK] an idle LLC scans all its CPUs" in out and "not reproduced, because" in out
    assert main(["reproduce", "fixture-fail", "--format", "json"]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert obj["ok"] is False and obj["checks"][0]["ok"] is False and obj["checks"][0]["why"]
    assert main(["reproduce", "fixture-fail", "--format", "csv"]) == 1
    text = capsys.readouterr().out
    rows = list(csv.reader(io.StringIO(text.split("\n\n")[1])))
    assert rows[0][:5] == ["claim", "published", "reproduced", "tolerance", "ok"] and rows[1][4] == "False"
    saved = json.loads((tmp_path / "fixture-fail.json").read_text())
    assert saved["ok"] is False
    assert json.loads((tmp_path / "summary.json").read_text())["fixture-fail"]["failed"]


def test_unknown_experiment_is_a_clear_error(capsys):
    from lisa_eas.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown experiment 'nope'.*sis-util-scan"):
        reproduce("nope")
    with pytest.raises(SystemExit):
        main(["reproduce", "nope"])
    assert "invalid choice" in capsys.readouterr().err


def test_sweep_local_pool_equals_in_process():
    from lisa_eas.repro.schedfreq_governors import simulate_case

    jobs = [("mt8173_evb", "cfs", 4, g) for g in ("performance", "powersave", "ondemand")]
    serial = Sweep(workers=1).map(simulate_case, jobs)
    pooled = Sweep(workers=2).map(simulate_case, jobs)
    assert serial == pooled
    assert Sweep(workers=1).where == "in-process" and Sweep(workers=2).where == "local:2"
    with pytest.raises(Exception, match="positive integer"):
        Sweep(workers=0)


def test_registry_lists_every_experiment_module():
    assert list(EXPERIMENTS) == ["sis-util-scan", "sis-efficiency", "eas-wakeup-speedup", "ramp-boost",
                                 "eas-rfc-energy", "schedfreq-governors"]
    for mod in EXPERIMENTS.values():
        assert (REPO / (mod.replace(".", "/") + ".py")).is_file()


def test_result_round_trips_to_json_and_frame():
    res = reproduce("sis-util-scan")
    assert isinstance(res, ExperimentResult) and res.ok
    assert json.loads(res.to_json())["rows"] == res.to_dict()["rows"]
    assert res.to_frame().shape == (22, len(res.columns))
    assert res.checks_frame()["ok"].all()
    assert "2/2 checks ok" in res.to_text()


def test_decimation_keeps_peaks_and_bounds_points():
    """The step-curve decimation of the plots (plot._common.downsample_steps, the one plot_frequency
    uses): one-sample spikes survive, at most max_points points, times increasing, the first and the
    last sample kept (a frequency step is drawn to the end), short series untouched."""
    import numpy as np

    from lisa_eas.plot._common import downsample_steps

    x = np.arange(1_000_000, dtype=float)
    y = np.sin(x / 1000.0)
    y[123_457] = 5.0  # a one-sample spike must survive
    y[765_432] = -5.0
    dx, dy = downsample_steps(x, y, 3000)
    assert len(dx) <= 3000 and dy.max() == 5.0 and dy.min() == -5.0
    assert np.all(np.diff(dx) > 0)
    assert (dx[0], dx[-1], dy[-1]) == (0.0, 999_999.0, y[-1])
    sx, sy = downsample_steps(x[:10], y[:10], 3000)
    assert len(sx) == 10


def test_notebooks_match_their_generator():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(REPO / "notebooks" / "make_notebooks.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    import nbformat

    for path in (REPO / "notebooks").glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        if path.name.startswith("repro_") or path.stem in ("drive_a_board", "validate_a_patch"):
            assert nb.metadata["kernelspec"]["name"] == "python3" and nb.metadata["language_info"]["name"] == "python"
            assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{path.name} has outputs"
    names = {p.name for p in (REPO / "notebooks").glob("repro_*.ipynb")}
    assert names == {f"repro_{m.rsplit('.', 1)[1]}.ipynb" for m in EXPERIMENTS.values()}
