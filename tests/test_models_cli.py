"""``lisa-eas model``: SIS_UTIL table, one EAS decision, schedutil frequencies, errors."""
from __future__ import annotations

import json

from lisa_eas.cli import main


def test_sis_scan_table(capsys):
    assert main(["model", "sis-scan", "--llc-weight", "16", "--sum-util-pct", "0", "45", "86",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["nr_idle_scan"] for r in rows] == [16, 11, 0]


def test_eas_decision(capsys):
    assert main(["model", "eas", "--platform", "juno_r0", "--util", "0,300,0,0,0,0", "--task-util", "300",
                 "--prev-cpu", "1", "--era", "v5.0", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["cpu"] == 0 and row["prev_energy"] == 114 and row["best_energy"] == 71


def test_next_freq(capsys):
    assert main(["model", "next-freq", "--platform", "hikey960", "--domain", "big", "--util", "400", "820",
                 "--era", "v5.4"]) == 0
    out = capsys.readouterr().out
    assert "1421000" in out and "2362000" in out


def test_bad_input_is_a_clear_error(capsys):
    assert main(["model", "sis-scan", "--llc-weight", "0", "--sum-util", "3"]) == 2
    assert "--llc-weight" in capsys.readouterr().err      # the option, not the argument behind it
    assert main(["model", "eas", "--platform", "juno_r0", "--util", "0,0,0,0,0,2000", "--task-util", "1",
                 "--prev-cpu", "0"]) == 2
    assert "--util" in capsys.readouterr().err
