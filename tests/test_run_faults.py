"""Faults around a run and the CLI boundary (issue 15, items 3 and 4): OS errors end as one
line naming the path and the fix (exit 2), every CLI failure exits 2, option errors name the
option, the calibration CPU exists on the target, other processes' CPU time is counted from
the trace, and the target's working directory is not named like the package."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lisa_eas.cli import main

REPO = Path(__file__).resolve().parent.parent
SMOKE = REPO / "workloads" / "smoke_local.json"


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _simulate(out, capsys):
    rc = main(["simulate", "--platform", "hikey960", "--workload", str(SMOKE), "--duration", "0.2",
               "--no-model-events", "--out", str(out)])
    return rc, _one_line(capsys.readouterr().err) if rc else ""


def test_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x")
    rc, err = _simulate(f, capsys)
    assert rc == 2 and str(f) in err and "give a directory path" in err


def test_out_under_proc(capsys):
    rc, err = _simulate("/proc/lisa_eas_out", capsys)
    assert rc == 2 and "/proc/lisa_eas_out" in err and "cannot be created in /proc or /sys" in err


def test_out_parent_is_a_file(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x")
    rc, err = _simulate(f / "sub", capsys)
    assert rc == 2 and "afile" in err and ("a part of the path is a file" in err or "give a directory" in err)


def _unshare_ok() -> bool:
    return os.geteuid() == 0 and shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "--mount", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_ok(), reason="needs root and unshare to mount a private tmpfs")
@pytest.mark.parametrize("case", ["read-only", "full"])
def test_out_read_only_or_full_disk(tmp_path, case):
    """A private tmpfs in a mount namespace: read-only (`simulate --out` fails before simulating),
    or 16 KiB (`trace convert --out`: the parquet files do not fit)."""
    import lzma

    mnt = tmp_path / "mnt"
    mnt.mkdir()
    trace = tmp_path / "trace.txt"
    trace.write_bytes(lzma.decompress((REPO / "tests/data/runs/local_2cpu_smoke/trace.txt.xz").read_bytes()))
    if case == "read-only":
        opts, cmd = "ro", f"simulate --platform hikey960 --workload {SMOKE} --out {mnt}/out"
    else:
        opts, cmd = "size=16k", f"trace convert {trace} --no-cache --out {mnt}/out"
    script = f"mount -t tmpfs -o {opts} tmpfs {mnt} && exec {sys.executable} -m lisa_eas.cli {cmd}"
    r = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], cwd=REPO,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    err = _one_line(r.stderr)
    assert str(mnt) in err
    if case == "read-only":
        assert "Read-only file system" in err and "writable file system" in err
    else:
        assert "No space left on device" in err and "free some space" in err


def test_option_errors_name_the_option(tmp_path, capsys):
    rc = main(["simulate", "--platform", "hikey960", "--workload", str(SMOKE), "--governor", "foo",
               "--out", str(tmp_path / "o")])
    err = _one_line(capsys.readouterr().err)
    assert rc == 2 and "--governor 'foo'" in err and "SimConfig" not in err
    rc = main(["simulate", "--platform", "hikey960", "--workload", str(SMOKE), "--duration", "-1",
               "--out", str(tmp_path / "o")])
    err = _one_line(capsys.readouterr().err)
    assert rc == 2 and err.startswith("lisa-eas: error: --duration ")


@pytest.mark.parametrize("argv", [["run", "--target", "x.yml"], ["run", "--resume", "d", "--out", "o"],
                                  ["platforms", "show"],
                                  ["trace", "convert", "tests/data/traces/systrace/trappy_systrace_excerpt.html",
                                   "--no-cache"]])
def test_every_cli_failure_exits_2(argv, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    assert main(argv) == 2
    _one_line(capsys.readouterr().err)


def test_default_working_directory_not_named_like_the_package():
    from lisa_eas.target import load_target_config
    from lisa_eas.target._config import TargetConfig

    assert Path(TargetConfig(kind="local").working_directory).name != "lisa_eas"
    for f in (REPO / "target_configs").glob("*.yml"):
        cfg = load_target_config(f)
        assert "lisa_eas" not in Path(cfg.working_directory).parts, f


def _art(tmp_path, online, caps):
    from lisa_eas.target import RunArtifacts

    art = RunArtifacts(tmp_path / "run")
    art.write_json("target.json", {"online_cpus": online, "cpu_capacity": {str(c): v for c, v in caps.items()}})
    return art


def test_calibration_cpu_exists_on_the_target(tmp_path):
    from lisa_eas.target._run import _calibration_cpu

    art = _art(tmp_path, [0, 1], {0: 1024, 1: 1024})
    cpu, note = _calibration_cpu(art, "CPU4")          # eas_speedup_ramp.json asks for a big CPU
    assert cpu == 0 and "asks for CPU4, which this target does not have" in note
    assert _calibration_cpu(art, "CPU1") == (1, "")
    big = _art(tmp_path / "b", [0, 1, 2, 3], {0: 446, 1: 446, 2: 1024, 3: 1024})
    assert _calibration_cpu(big, "CPU7")[0] == 2       # the biggest CPU, lowest id


def test_other_processes_cpu_time_from_the_trace(tmp_path):
    """Two CPUs, a 1 s trace. CPU0: idle 0-0.2, the workload's "wl" 0.2-0.7, "cc1" 0.7-0.9,
    idle 0.9-1.0. CPU1: "kworker/1:0" 0-0.1, idle 0.1-1.0. By hand: others ran 0.2 + 0.1 = 0.3 s
    of 2 x 1 s = 15 %; cc1 first."""
    from lisa_eas.target._interference import other_cpu_time

    lines = ["# tracer: nop"]
    rows = [(0.0, 0, "swapper/0", 0, "swapper/0", 0), (0.2, 0, "swapper/0", 0, "wl", 100),
            (0.7, 0, "wl", 100, "cc1", 200), (0.9, 0, "cc1", 200, "swapper/0", 0),
            (0.0, 1, "swapper/1", 0, "kworker/1:0", 30), (0.1, 1, "kworker/1:0", 30, "swapper/1", 0),
            (1.0, 0, "swapper/0", 0, "swapper/0", 0)]
    for t, cpu, pc, pp, nc, np_ in sorted(rows):
        lines.append(f"{pc:>16}-{pp:<5} [{cpu:03d}] {1000 + t:.6f}: sched_switch: prev_comm={pc} prev_pid={pp} "
                     f"prev_prio=120 prev_state=0 next_comm={nc} next_pid={np_} next_prio=120")
    p = tmp_path / "trace.txt"
    p.write_text("\n".join(lines) + "\n")
    r = other_cpu_time(p, ["wl"])
    assert r["available"] and r["cpus"] == 2 and r["span_s"] == pytest.approx(1.0)
    assert r["seconds"] == pytest.approx(0.3) and r["share_pct"] == pytest.approx(15.0)
    assert r["top"][0][0] == "cc1" and r["top"][0][1] == pytest.approx(0.2)


@pytest.mark.parametrize("argv,option", [
    (["reproduce", "sis-util-scan", "--workers", "0"], "--workers"),
    (["model", "eas", "--platform", "juno_r0", "--util", "0,300,0,0,0,0", "--task-util", "3000", "--prev-cpu", "1"],
     "--task-util"),
    (["workload", "new", "periodic", "--duty", "300"], "--duty"),
    (["run", "--target", "t.yml", "--workload", "w.json", "--out", "o", "--timeout", "-5"], "--timeout"),
])
def test_more_option_errors_name_the_option(argv, option, capsys):
    assert main(argv) == 2
    err = _one_line(capsys.readouterr().err)
    assert option in err and "Sweep." not in err and "task_util" not in err and "duty_cycle_pct" not in err


@pytest.mark.parametrize("cmd", ["run", "validate", "convert"])
def test_out_is_a_file_for_every_command(tmp_path, cmd, capsys, monkeypatch):
    """The same one line for `run`, `validate` and `trace convert` (nothing reaches a target:
    the run directory is created before connecting)."""
    import lzma

    monkeypatch.chdir(REPO)
    f = tmp_path / "afile"
    f.write_text("x")
    trace = tmp_path / "trace.txt"
    trace.write_bytes(lzma.decompress((REPO / "tests/data/runs/local_2cpu_smoke/trace.txt.xz").read_bytes()))
    argv = {"run": ["run", "--target", "target_configs/local.yml", "--workload", str(SMOKE), "--out", str(f)],
            "validate": ["validate", str(trace), "--platform", "tests/data/sim/local_2cpu.json", "--out", str(f)],
            "convert": ["trace", "convert", str(trace), "--no-cache", "--out", str(f)]}[cmd]
    assert main(argv) == 2
    err = _one_line(capsys.readouterr().err)
    assert str(f) in err and "give a directory path" in err
