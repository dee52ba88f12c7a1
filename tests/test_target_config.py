"""Target config files: safe YAML, every key checked, errors with file:line and the fix, no secrets out."""
from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import REPO

from lisa_eas.errors import ConfigError
from lisa_eas.target import TargetConfig, load_target_config, target_config_from_dict
from lisa_eas.target._artifacts import STEPS, RunArtifacts
from lisa_eas.target._probe import parse_cpulist


@pytest.mark.parametrize("name", ["local", "ssh_example", "android_example"])
def test_shipped_configs_load(name):
    cfg = load_target_config(REPO / "target_configs" / f"{name}.yml")
    assert isinstance(cfg, TargetConfig)
    assert cfg.tracing.clock == "mono"
    assert "sched:sched_switch" in cfg.tracing.events


def test_local_config_defaults():
    cfg = load_target_config(REPO / "target_configs" / "local.yml")
    assert cfg.kind == "local" and cfg.working_directory == "/tmp/lisa-eas-target"
    assert cfg.tracing.extract == "auto" and cfg.tracing.instance is None


def test_config_is_frozen():
    cfg = target_config_from_dict({"kind": "local"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.kind = "linux"


def _write(tmp_path, text):
    p = tmp_path / "board.yml"
    p.write_text(text)
    return p


def test_unknown_key_names_file_line_and_known_keys(tmp_path):
    p = _write(tmp_path, "kind: linux\nhost: 10.0.0.1\nhots: typo\n")
    with pytest.raises(ConfigError, match=r"board\.yml:3: 'hots' is not a target setting; known keys: .*host"):
        load_target_config(p)


def test_unknown_tracing_key_names_its_line(tmp_path):
    p = _write(tmp_path, "kind: local\ntracing:\n  clock: mono\n  buffer_kb: 4\n")
    with pytest.raises(ConfigError, match=r"board\.yml:4: 'tracing\.buffer_kb' is not a tracing setting"):
        load_target_config(p)


def test_invalid_yaml_gives_line_and_column(tmp_path):
    p = _write(tmp_path, "kind: local\ntracing: [unclosed\n")
    with pytest.raises(ConfigError, match=r"board\.yml:\d+:\d+: invalid YAML"):
        load_target_config(p)


def test_yaml_is_loaded_safely(tmp_path):
    marker = tmp_path / "EXECUTED"
    p = _write(tmp_path, f"kind: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_target_config(p)
    assert not marker.exists()


@pytest.mark.parametrize("data, match", [
    ({"kind": "ssh"}, "'kind' must be one of local, linux, android"),
    ({"kind": "linux"}, "'host' is required for kind: linux"),
    ({"kind": "linux", "host": "h", "port": 70000}, "'port' has an invalid value 70000"),
    ({"kind": "linux", "host": "h", "port": "22"}, "'port' must be int"),
    ({"kind": "linux", "host": "h", "password": "p", "key_file": "/k"}, "either password or key_file"),
    ({"kind": "local", "host": "h"}, "'host' only applies to kind: linux"),
    ({"kind": "local", "adb_serial": "x"}, "'adb_serial' only applies to kind: android"),
    ({"kind": "local", "tracing": {"clock": "wallclock"}}, "'tracing.clock' must be one of"),
    ({"kind": "local", "tracing": {"events": ["sched_switch"]}}, "'system:event' names"),
    ({"kind": "local", "tracing": {"buffer_size_kb": 0}}, "integer >= 4"),
    ({"kind": "local", "tracing": {"extract": "perf"}}, "'tracing.extract' must be one of"),
    ({"kind": "local", "tracing": {"instance": "../x"}}, "plain directory name"),
    ({"kind": "local", "rtapp_calibration": 0}, "ns per loop"),
    ({"kind": "local", "strict_host_check": "yes"}, "must be bool"),
    (["kind", "local"], "top level must be a mapping"),
])
def test_invalid_values_name_the_field(data, match):
    with pytest.raises(ConfigError, match=match):
        target_config_from_dict(data, source="x.yml")


def test_secrets_stay_out_of_repr_and_describe(tmp_path):
    key = tmp_path / "secret_key_name"
    key.write_text("not a key")
    with_pw = target_config_from_dict({"kind": "linux", "host": "h", "password": "hunter2-Zz"})
    with_key = target_config_from_dict({"kind": "linux", "host": "h", "key_file": str(key)})
    for cfg in (with_pw, with_key):
        text = repr(cfg) + json.dumps(cfg.describe())
        assert "hunter2-Zz" not in text and "secret_key_name" not in text
    assert with_pw.describe()["auth"] == "password" and with_key.describe()["auth"] == "key file"


def test_relative_key_file_is_relative_to_the_config(tmp_path):
    (tmp_path / "keys").mkdir()
    p = _write(tmp_path, "kind: linux\nhost: h\nkey_file: keys/id\n")
    assert load_target_config(p).key_file == str(tmp_path / "keys" / "id")


def test_missing_key_file_is_reported_without_its_path(tmp_path):
    from lisa_eas.errors import PermanentBoardError
    from lisa_eas.target import connect

    cfg = target_config_from_dict({"kind": "linux", "host": "127.0.0.1",
                                   "key_file": str(tmp_path / "hidden_key_path")})
    with pytest.raises(PermanentBoardError, match="'key_file' does not exist") as err:
        connect(cfg)
    assert "hidden_key_path" not in str(err.value)


def test_parse_cpulist():
    assert parse_cpulist("0-3,5,7-8\n") == (0, 1, 2, 3, 5, 7, 8)
    assert parse_cpulist("0") == (0,)


def test_manifest_round_trip_and_resume_needs_a_manifest(tmp_path):
    art = RunArtifacts(tmp_path / "run")
    art.write_text("workload.json", "{}")
    art.step_done("workload", ["workload.json"], sha256="x")
    art.step_failed("connect", "boom", transient=True)
    again = RunArtifacts.open(tmp_path / "run")
    assert again.is_complete("workload") and not again.is_complete("connect")
    assert again.missing_steps() == list(STEPS[1:])
    assert again.manifest["status"] == "incomplete"
    with pytest.raises(ConfigError, match="--resume needs a directory written by `lisa-eas run`"):
        RunArtifacts.open(tmp_path / "elsewhere")


def test_cli_run_requires_its_arguments(capsys):
    from lisa_eas.cli import main

    assert main(["run", "--target", "x.yml"]) == 2      # one line, exit 2, like every CLI failure
    assert "error: run: missing --workload, --out" in capsys.readouterr().err
