"""`lisa-eas` accepts a LISA target_conf.yml: translated key by key, with a note of what was left out."""
from __future__ import annotations

import json

import pytest

from lisa_eas.cli import main
from lisa_eas.errors import ConfigError
from lisa_eas.target import load_target_config

LISA_SSH = """\
target-conf:
    kind: linux
    name: juno
    host: 192.168.0.1
    port: 2222
    username: root
    keyfile: id_rsa
    strict-host-check: false
    workdir: /root/lisa
    tools: [rt-app]
    devlib:
        excluded-modules: [hwmon]
platform-info:
    rtapp:
        calib: {}
"""


def test_ssh_board_translated_with_notes(tmp_path):
    p = tmp_path / "target_conf.yml"
    p.write_text(LISA_SSH)
    cfg = load_target_config(p)
    assert (cfg.kind, cfg.name, cfg.host, cfg.port, cfg.username) == ("linux", "juno", "192.168.0.1", 2222, "root")
    assert cfg.key_file == str(tmp_path / "id_rsa") and cfg.strict_host_check is False
    assert cfg.working_directory == "/root/lisa"
    notes = "\n".join(cfg.notes)
    for left_out in ("target-conf.tools", "target-conf.devlib", "top-level platform-info"):
        assert left_out in notes
    assert cfg.describe()["notes"] == list(cfg.notes)  # kept in run.json
    assert "key_file" not in json.dumps(cfg.describe())  # no secret paths


def test_android_and_host_kinds(tmp_path):
    p = tmp_path / "a.yml"
    p.write_text("target-conf:\n  kind: android\n  device: ABC123\n  host: 10.0.0.2\n  username: root\n")
    cfg = load_target_config(p)
    assert (cfg.kind, cfg.adb_serial, cfg.adb_server) == ("android", "ABC123", "10.0.0.2")
    assert any("target-conf.username" in n for n in cfg.notes)
    p.write_text("target-conf:\n  kind: host\n  name: me\n")
    cfg = load_target_config(p)
    assert cfg.kind == "local" and cfg.name == "me"


def test_bad_value_names_the_lisa_file_and_line(tmp_path):
    p = tmp_path / "bad.yml"
    p.write_text("target-conf:\n  kind: linux\n  host: h\n  port: 99999\n")
    with pytest.raises(ConfigError, match=r"bad.yml \(LISA target-conf\):4: 'port'"):
        load_target_config(p)


def test_our_own_files_have_no_notes():
    assert load_target_config("target_configs/ssh_example.yml").notes == ()


def test_cli_target_config_prints_the_translation(tmp_path, capsys):
    p = tmp_path / "target_conf.yml"
    p.write_text(LISA_SSH)
    assert main(["target", "config", "--target", str(p)]) == 0
    out = capsys.readouterr().out
    assert "host: 192.168.0.1" in out and "note: ignored target-conf.tools" in out
    assert main(["target", "config", "--target", str(p), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["port"] == 2222


@pytest.mark.live
def test_probe_this_machine_from_a_lisa_file(tmp_path, capsys):
    from conftest import require_live
    from target_helpers import live_ready

    ok, why = live_ready()
    require_live(ok, why)
    p = tmp_path / "target_conf.yml"
    p.write_text(f"target-conf:\n  kind: host\n  name: this-machine\n  workdir: {tmp_path / 'wd'}\n"
                 "  lazy-platinfo: true\n")
    assert main(["target", "probe", "--target", str(p)]) == 0
    cap = capsys.readouterr()
    assert "this-machine (local)" in cap.out and "online CPUs" in cap.out
    assert "note: ignored target-conf.lazy-platinfo" in cap.err
