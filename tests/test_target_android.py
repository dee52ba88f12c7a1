"""Android targets: config validation, and the exact adb calls devlib's real classes make.

No Android device is available on this machine. The tests go through lisa_eas's
connection seam into devlib's real ``AndroidTarget``/``AdbConnection`` down to the
transport: the ``adb`` executable, replaced on PATH by tests/adb_shim.py, which records
every argv and runs the device's shell commands on this machine (plus an ``aapt`` that
devlib requires to exist but only uses for APKs).
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from conftest import REPO, require_live
from target_helpers import live_ready, periodic_workload, tracing_state

from lisa_eas.errors import ConfigError
from lisa_eas.target import connect, load_target_config, probe, run_workload, target_config_from_dict

SERIAL = "emulator-5554"


@pytest.fixture
def adb(tmp_path, monkeypatch):
    """Put the adb shim first on PATH; return a function giving the recorded argv lists."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "adb"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -S -E {REPO / 'tests' / 'adb_shim.py'} \"$@\"\n")
    shim.chmod(0o755)
    # devlib insists on finding aapt (it only uses it to install APKs, which lisa_eas never does)
    aapt = bindir / "aapt"
    aapt.write_text("#!/bin/sh\necho 'aapt: APK tools are not used by lisa_eas' >&2\nexit 1\n")
    aapt.chmod(0o755)
    import devlib.utils.android as android

    monkeypatch.setattr(android, "android_home", None)  # devlib caches the tool lookup per process
    (tmp_path / "device" / "data" / "local" / "tmp").mkdir(parents=True)
    log = tmp_path / "adb.log"
    log.write_text("")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ADB_SHIM_LOG", str(log))
    monkeypatch.setenv("ADB_SHIM_ROOT", str(tmp_path / "device"))
    monkeypatch.setenv("ADB_SHIM_SERIAL", SERIAL)
    monkeypatch.delenv("ANDROID_HOME", raising=False)
    return lambda: [json.loads(line) for line in log.read_text().splitlines()]


def _config(tmp_path, **extra):
    cfg = {"kind": "android", "name": "shim-phone", "adb_serial": SERIAL,
           "working_directory": str(tmp_path / "wd"), "connect_timeout_s": 10}
    cfg.update(extra)
    return target_config_from_dict(cfg)


def test_shipped_android_example_validates():
    cfg = load_target_config(REPO / "target_configs" / "android_example.yml")
    assert cfg.kind == "android" and cfg.adb_serial and cfg.tracing.extract == "raw"
    assert cfg.working_directory.startswith("/data/local/tmp")
    assert cfg.platform == "pixel3"


@pytest.mark.parametrize("extra, match", [
    ({"host": "10.0.0.1"}, "'host' only applies to kind: linux"),
    ({"password": "x"}, "'password' only applies to kind: linux"),
    ({"adb_serial": 1234}, "'adb_serial' must be str"),
    ({"working_directory": "data/local/tmp"}, "absolute path"),
])
def test_android_config_errors_name_the_field(tmp_path, extra, match):
    with pytest.raises(ConfigError, match=match):
        _config(tmp_path, **extra)


def test_connect_makes_these_adb_calls(adb, tmp_path):
    """The exact command lines devlib sends through adb when lisa_eas connects."""
    with connect(_config(tmp_path)) as board:
        calls = adb()
        assert board.devlib.__class__.__name__ == "AndroidTarget"
        assert board.devlib.conn.__class__.__name__ == "AdbConnection"
        # devlib first checks the device answers, then probes ls and root, with the given serial
        assert calls[:3] == [["adb", "-s", SERIAL, "shell", "ls /data/local/tmp > /dev/null"],
                             ["adb", "-s", SERIAL, "shell", '(ls -1); echo "\n$?"'],
                             ["adb", "-s", SERIAL, "shell", '(id); echo "\\n$?"']]
        # then every command is "adb -s SERIAL shell '(export PATH=...; CMD); echo \n$?'"
        wd = tmp_path / "wd" / "devlib"
        prefix = f"(export PATH={wd}/bin:$PATH && export LC_ALL=C && "
        shell_cmds = [c[4] for c in calls[3:] if c[:4] == ["adb", "-s", SERIAL, "shell"]]
        assert all(c.startswith(prefix) and c.endswith('); echo "\\n$?"') for c in shell_cmds)
        assert f"{prefix}getprop); echo \"\\n$?\"" in shell_cmds
        assert f"{prefix}mkdir -p {wd}); echo \"\\n$?\"" in shell_cmds
        pushes = [c for c in calls if c[3:4] == ["push"]]
        assert len(pushes) == 1 and pushes[0][-1].startswith(str(wd))  # devlib's busybox
        n = len(calls)
        assert board.read("/sys/devices/system/cpu/online") == Path(
            "/sys/devices/system/cpu/online").read_text().strip()
        assert adb()[n] == ["adb", "-s", SERIAL, "shell",
                            f'{prefix}cat /sys/devices/system/cpu/online); echo "\\n$?"']
        info = probe(board)
        assert info.kind == "android" and info.platform.nr_cpus == os.cpu_count()


def test_quoted_arguments_reach_the_device_shell_as_data(adb, tmp_path):
    canary = tmp_path / "device" / "INJECTED"
    word = f"x'; touch {canary}; echo \"$(touch {canary})\""
    with connect(_config(tmp_path)) as board:
        assert board.run(["echo", word]).strip() == word
    assert not canary.exists()
    last = adb()[-1]
    assert last[:4] == ["adb", "-s", SERIAL, "shell"] and "'\"'\"'" in last[4]


def test_adb_missing_is_a_permanent_error_with_the_fix(tmp_path, monkeypatch):
    from lisa_eas.errors import PermanentBoardError

    import devlib.utils.android as android

    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "which").symlink_to(shutil.which("which"))  # devlib looks tools up with `which`
    monkeypatch.setenv("PATH", str(bindir))  # ... and finds no adb
    monkeypatch.delenv("ANDROID_HOME", raising=False)
    monkeypatch.setattr(android, "android_home", None)
    with pytest.raises(PermanentBoardError, match="adb is not installed.*apt install adb"):
        connect(_config(tmp_path))


@pytest.mark.live
def test_a_whole_run_goes_through_adb_command_lines(adb, tmp_path):
    """run_workload over AndroidTarget: every step travels as adb shell/push/pull command lines."""
    ok, why = live_ready()
    require_live(ok, why)
    cfg = _config(tmp_path, tracing={"extract": "raw", "events": ["sched:sched_switch"]})
    result = run_workload(cfg, periodic_workload(loops=20), tmp_path / "run", progress=False)
    assert result.run_info["status"] == "complete"
    assert result.run_info["target"]["kind"] == "android"
    assert result.run_info["tracing"]["extract_method"] == "trace_pipe_raw"
    calls = adb()
    assert all(c[:3] == ["adb", "-s", SERIAL] or c[1] in ("devices", "start-server") for c in calls)
    verbs = {c[3] for c in calls if len(c) > 3}
    assert {"shell", "push", "pull"} <= verbs
    assert any("setsid nohup sh run.sh" in c[-1] for c in calls if c[3:4] == ["shell"])
    assert any(c[3] == "pull" and c[4].endswith("/raw/cpu0.raw") for c in calls if len(c) > 4)
    assert len(result.log_paths) == 1 and result.trace_path.stat().st_size > 0
    assert tracing_state() == ("0", "")
