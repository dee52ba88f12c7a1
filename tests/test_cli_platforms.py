"""`lisa-eas platforms` and `lisa-eas demo` as a user runs them."""
from __future__ import annotations

import json
import subprocess
import sys

from lisa_eas.cli import main


def test_platforms_list_table(capsys):
    assert main(["platforms"]) == 0
    out = capsys.readouterr().out
    assert "hikey960" in out and "little 0,3-5: 5 OPPs, cap 446" in out and "legacy_eas" in out


def test_platforms_list_json(capsys):
    assert main(["platforms", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["juno_r0"]["cpus"] == 6
    assert rows["pixel3"]["perf_domains"][0]["power_unit"] == "bogo-watt"
    assert rows["x86_llc112"]["llc_weight"] == 112


def test_platforms_show_json_has_em_costs(capsys):
    assert main(["platforms", "show", "hikey960", "--era", "v5.0", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    little = data["perf_domains"][0]
    assert [s["em_cost"] for s in little["opps"]] == [96, 129, 163, 201, 245]
    assert data["provenance"] and data["em_era"] == "v5.0"


def test_platforms_show_table_and_missing_em(capsys):
    assert main(["platforms", "show", "peach_pi"]) == 0
    out = capsys.readouterr().out
    assert "no energy model" in out and "19" not in out.split("\n")[0]


def test_unknown_board_is_a_clear_error_with_exit_2(capsys):
    assert main(["platforms", "show", "hikey970"]) == 2
    err = capsys.readouterr().err
    assert "unknown platform 'hikey970'" in err and "juno_r0" in err


def test_console_script_runs(tmp_path):
    exe = [sys.executable, "-m", "lisa_eas.cli"]
    res = subprocess.run(exe + ["platforms", "show", "juno_r0"], capture_output=True, text=True, check=True)
    assert "perf domain 'big': CPUs 1-2" in res.stdout
    res = subprocess.run(exe + ["demo", "--out", str(tmp_path)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    summary = json.loads((tmp_path / "platforms.json").read_text())
    assert summary["peach_pi"]["energy_model"] is None
    assert summary["hikey960"]["domains"]["big"]["power_unit"] == "uW"
    # the demo's own report, as a user opens it: every plot rendered, every table visible, no network
    from browser import assert_clean, open_page

    page = open_page(tmp_path / "report.html", "demo_report")
    assert_clean(page, plots=int(page.attrs["data-plots-expected"]))
    assert int(page.attrs["data-plots-expected"]) >= 10
