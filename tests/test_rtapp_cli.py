"""``lisa-eas workload show|check|new``."""
from __future__ import annotations

import json

from conftest import DATA, REPO

from lisa_eas.cli import main
from lisa_eas.rtapp import read_workload

CORPUS = DATA / "rtapp" / "json"


def test_show_table_and_json(capsys):
    assert main(["workload", "show", str(REPO / "workloads" / "ramp_boost_step.json")]) == 0
    out = capsys.readouterr().out
    assert "st001_dc75" in out and "11.520 s" in out and "CPU4" in out
    assert main(["workload", "show", str(CORPUS / "rt-app" / "mp3-short.json"), "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["tasks"] == 5 and "global: frag" in info["unknown_keys"]
    assert info["phases"][0]["task"] == "AudioTick"


def test_check(capsys):
    good = str(CORPUS / "rt-app" / "tutorial" / "example2.json")
    bad = str(CORPUS / "rt-app" / "merge" / "thread0.json")
    assert main(["workload", "check", good]) == 0
    assert main(["workload", "check", good, bad]) == 1
    out = capsys.readouterr().out
    assert out.count("ok   ") == 2 and f"FAIL {bad}:4:10: key 'exec'" in out
    # --strict: unknown keys and rt-app 1.0 warnings fail
    assert main(["workload", "check", "--strict", str(CORPUS / "rt-app" / "mp3-short.json")]) == 1
    assert main(["workload", "check", "--strict", str(CORPUS / "rt-app" / "tutorial" / "example10.json")]) == 1
    assert "ignores 'taskgroup'" in capsys.readouterr().out


def test_new(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["workload", "new", "periodic", "--duty", "30", "--duration-s", "2", "--cpus", "0-1",
                 "--calibration", "20", "-o", str(out)]) == 0
    wl = read_workload(out)
    (t,) = wl.tasks
    assert t.cpus == (0, 1) and t.phases[0].loop == 125 and wl.global_settings.calibration == 20
    assert main(["workload", "new", "ramp", "--start", "70", "--stop", "10", "--step", "-5",
                 "--duration-s", "0.5"]) == 0
    text = capsys.readouterr().out
    assert text.count('"loop": 31') == 13
    assert main(["workload", "new", "step", "--low", "5", "--high", "75", "--duration-s", "0.3",
                 "--cycles", "20", "--cpus", "4", "--tasks", "3", "--policy", "SCHED_FIFO",
                 "-o", str(out)]) == 0
    t = read_workload(out).tasks[0]
    assert (t.loop, t.instance, t.cpus, t.policy.value) == (20, 3, (4,), "SCHED_FIFO")
    # bad input: a WorkloadError -> exit 2 with the message
    assert main(["workload", "new", "periodic", "--duty", "150"]) == 2
    assert "longer than its period" in capsys.readouterr().err
    assert main(["workload", "new", "periodic", "--cpus", "a-b"]) == 2
    assert main(["workload", "show", str(tmp_path / "missing.json")]) == 2
