"""A claim's outcome (ok / not ok) is held against the committed expectation: a change fails
until `lisa-eas reproduce all --write-expectations` records it on purpose."""
from __future__ import annotations

import dataclasses
import json

import pytest

from lisa_eas.cli import main
from lisa_eas.repro import (EXPECTATIONS_FILE, EXPERIMENTS, OutcomeChangedError, check_expected, expected_outcomes,
                            outcome_changes, reproduce, write_expectations)
from lisa_eas.repro import _expect


def test_every_experiment_has_an_expectation():
    exp = expected_outcomes()
    assert set(exp) == set(EXPERIMENTS)
    for name, claims in exp.items():
        assert claims, name
        assert set(claims.values()) <= {"ok", "not ok"}


# The fast experiments are checked here; the slow ones (eas-rfc-energy, schedfreq-governors)
# by their notebooks, which CI executes (nbmake) and which end with check_expected(res).
@pytest.mark.parametrize("name", ["sis-util-scan", "sis-efficiency", "eas-wakeup-speedup", "ramp-boost"])
def test_outcomes_match_the_expectation(name):
    check_expected(reproduce(name, workers=1))


def test_a_flipped_claim_fails_and_names_itself():
    res = reproduce("sis-util-scan")
    flipped = dataclasses.replace(res, checks=(dataclasses.replace(res.checks[0], ok=not res.checks[0].ok),
                                               *res.checks[1:]))
    changes = outcome_changes(flipped)
    assert len(changes) == 1 and res.checks[0].claim in changes[0] and "was ok, is now not ok" in changes[0]
    with pytest.raises(OutcomeChangedError, match="--write-expectations"):
        check_expected(flipped)
    renamed = dataclasses.replace(res, checks=(dataclasses.replace(res.checks[0], claim="another claim"),
                                               *res.checks[1:]))
    assert {c.split(":")[1].split()[0] for c in outcome_changes(renamed)} == {"new", "claim"}


def test_write_then_check_round_trip(tmp_path, monkeypatch, capsys):
    path = tmp_path / "expected.json"
    path.write_text(EXPECTATIONS_FILE.read_text())
    monkeypatch.setattr(_expect, "EXPECTATIONS_FILE", path)
    assert main(["reproduce", "sis-util-scan", "--check-expectations", "--format", "json"]) == 0
    data = json.loads(path.read_text())
    claim = next(iter(data["experiments"]["sis-util-scan"]))
    data["experiments"]["sis-util-scan"][claim] = "not ok"
    path.write_text(json.dumps(data))
    assert main(["reproduce", "sis-util-scan", "--check-expectations", "--format", "json"]) == 1
    assert "outcome changed" in capsys.readouterr().err
    assert main(["reproduce", "sis-util-scan", "--write-expectations", "--format", "json"]) == 0
    assert json.loads(path.read_text())["experiments"]["sis-util-scan"][claim] == "ok"
    # the other experiments' entries are kept
    assert set(json.loads(path.read_text())["experiments"]) == set(EXPERIMENTS)


def test_unreadable_expectation_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"experiments": {"a": {"c": "maybe"}}}')
    with pytest.raises(OutcomeChangedError, match="neither 'ok' nor 'not ok'"):
        expected_outcomes(bad)
    with pytest.raises(OutcomeChangedError, match="write-expectations"):
        expected_outcomes(tmp_path / "missing.json")
    assert write_expectations([], tmp_path / "new.json").is_file()
