"""Live tests: a remote Linux target over real SSH (OpenSSH sshd on 127.0.0.1, devlib LinuxTarget).

The fixture starts its own sshd on a free port with generated keys (tests/sshd.py); the
same workload as the local test runs over it. Then the faults: sshd killed in the middle
of a run, a wrong password, a closed port, an untrusted host key.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

import pytest
import yaml
from conftest import require_live
from sshd import SshServer, sshd_available
from target_helpers import live_ready, log_starts, marker_begins, periodic_workload, switches, tracing_state

from lisa_eas.errors import PermanentBoardError, TransientBoardError
from lisa_eas.target import connect, run_workload, target_config_from_dict

pytestmark = pytest.mark.live

_PASSWORD = "s3cret-Pa55word;'"


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    ok, why = sshd_available()
    require_live(ok, why)
    ok, why = live_ready()
    require_live(ok, why)
    server = SshServer(tmp_path_factory.mktemp("sshd")).start()
    yield server
    server.kill()


def _config_file(server: SshServer, path: Path, **extra) -> Path:
    path.write_text(yaml.safe_dump(server.target_config(**extra)))
    return path


def test_same_workload_over_ssh_gives_the_same_artifacts(sshd, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "ssh-run"
    result = run_workload(_config_file(sshd, tmp_path / "ssh.yml"), periodic_workload(loops=125), out,
                          progress=False)
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
             and not p.name.startswith(".") and ".lisa_eas" not in p.as_posix()}
    assert {"manifest.json", "run.json", "target.json", "target_config.json", "trace.dat", "rtapp.out",
            "workload.json", "workload.target.json", "rtapp/rt-app-t6_periodic-0.log"} <= names
    info = result.run_info
    assert info["status"] == "complete" and info["target"]["kind"] == "linux"
    assert info["target"]["auth"] == "key file"
    assert switches(result.trace_path, "t6_periodic") >= 10
    starts, begins = log_starts(result.log_paths[0]), marker_begins(result.trace_path)
    assert len(starts) == len(begins) == 125
    assert abs(starts - begins).max() < 200e-6
    assert tracing_state() == ("0", "")
    # the key path is nowhere: not in run.json, the manifest, the logs
    key = str(sshd.key_file)
    for f in out.rglob("*.json"):
        assert key not in f.read_text() and sshd.key_file.name not in f.read_text()
    assert key not in caplog.text


def test_sshd_killed_mid_run_is_transient_then_resume_finishes(sshd, tmp_path):
    """Kill sshd and its sessions while rt-app runs: TransientBoardError, partial artifacts, resume."""
    from lisa_eas.cli import main

    cfg = _config_file(sshd, tmp_path / "ssh.yml")
    out = tmp_path / "interrupted"
    errors: list[BaseException] = []

    def target():
        try:
            run_workload(cfg, periodic_workload(loops=250), out, progress=False)  # 4 s
        except BaseException as exc:  # noqa: BLE001 - examined below
            errors.append(exc)

    worker = threading.Thread(target=target)
    worker.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        m = out / "manifest.json"
        if m.exists() and json.loads(m.read_text())["context"].get("remote_run_dir"):
            break
        time.sleep(0.05)
    time.sleep(0.8)
    t_kill = time.monotonic()
    sshd.kill()
    worker.join(timeout=60)
    assert not worker.is_alive()
    assert time.monotonic() - t_kill < 30
    assert len(errors) == 1 and isinstance(errors[0], TransientBoardError), errors
    assert "lost contact" in str(errors[0]) and "--resume" in str(errors[0])

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "incomplete"
    steps = manifest["steps"]
    assert steps["run"]["status"] == "failed" and steps["run"]["transient"] is True
    assert [s for s in ("workload", "connect", "probe", "rtapp", "calibration", "tracing")
            if steps[s]["status"] != "complete"] == []
    assert steps["trace"]["status"] == steps["logs"]["status"] == "missing"
    assert (out / "workload.json").is_file() and (out / "target.json").is_file()
    assert not (out / "trace.dat").exists()
    assert json.loads((out / "run.json").read_text())["status"] == "incomplete"

    # the board comes back on the same port; `lisa-eas run --resume DIR` finishes the run
    sshd.start()
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert (out / "trace.dat").is_file()
    log = out / "rtapp" / "rt-app-t6_periodic-0.log"
    assert len(log_starts(log)) == len(marker_begins(out / "trace.dat")) == 250
    assert tracing_state() == ("0", "")


def test_wrong_password_is_permanent_and_never_shown(sshd, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    cfg = {k: v for k, v in sshd.target_config().items() if k != "key_file"}
    cfg["password"] = _PASSWORD
    t0 = time.monotonic()
    with pytest.raises(PermanentBoardError) as err:
        connect(target_config_from_dict(cfg))
    assert time.monotonic() - t0 < 20
    msg = str(err.value)
    assert "refused the login" in msg and "Fix:" in msg and "password" in msg
    assert _PASSWORD not in msg and _PASSWORD not in repr(err.value)
    assert _PASSWORD not in caplog.text
    assert _PASSWORD not in repr(target_config_from_dict(cfg))
    assert _PASSWORD not in json.dumps(target_config_from_dict(cfg).describe())
    # a run that fails to connect writes no secret to disk either
    with pytest.raises(PermanentBoardError):
        run_workload(target_config_from_dict(cfg), periodic_workload(loops=2), tmp_path / "o",
                     progress=False)
    for f in (tmp_path / "o").rglob("*"):
        if f.is_file():
            assert _PASSWORD not in f.read_text()


def test_closed_port_is_transient_within_bounded_time(sshd):
    from sshd import free_port

    cfg = target_config_from_dict({**sshd.target_config(), "port": free_port(), "connect_timeout_s": 5})
    t0 = time.monotonic()
    with pytest.raises(TransientBoardError, match="cannot reach the SSH server.*Fix:"):
        connect(cfg)
    assert time.monotonic() - t0 < 15


def test_untrusted_host_key_is_permanent(sshd):
    cfg = target_config_from_dict({**sshd.target_config(), "strict_host_check": True})
    with pytest.raises(PermanentBoardError, match="host key is not trusted.*known_hosts"):
        connect(cfg)
