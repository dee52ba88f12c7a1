"""The expected outcome (ok / not ok) of every published claim, committed with the code.

A reproduction reports; it does not decide by itself whether a change is welcome. The file
``lisa_eas/repro/expected_outcomes.json`` records, for every experiment, each claim and
whether it held when the file was last written on purpose. :func:`outcome_changes` lists
what differs in a new result (a claim that flipped, appeared or disappeared);
:func:`check_expected` raises :class:`OutcomeChangedError` on any difference, so a claim
that flips from ok to NOT OK (or back) fails CI until the file is regenerated with::

    lisa-eas reproduce all --write-expectations
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping

from .._atomic import write_atomic
from ..errors import LisaEasError
from ._claims import ExperimentResult

__all__ = ["EXPECTATIONS_FILE", "OutcomeChangedError", "check_expected", "expected_outcomes", "outcome_changes",
           "write_expectations"]

#: The committed expectation file.
EXPECTATIONS_FILE = Path(__file__).with_name("expected_outcomes.json")

_HOW = "lisa-eas reproduce all --write-expectations"


class OutcomeChangedError(LisaEasError):
    """A reproduced claim's outcome differs from the committed expectation."""


def _outcome(ok: bool) -> str:
    return "ok" if ok else "not ok"


def expected_outcomes(path: Path | str | None = None) -> dict[str, dict[str, str]]:
    """``{experiment: {claim: "ok" | "not ok"}}`` from the expectation file."""
    p = Path(path or EXPECTATIONS_FILE)
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        raise OutcomeChangedError(f"{p}: not readable ({e}); regenerate it with `{_HOW}`") from None
    out = {}
    for name, claims in data.get("experiments", {}).items():
        bad = [v for v in claims.values() if v not in ("ok", "not ok")]
        if bad:
            raise OutcomeChangedError(f"{p}: experiment {name!r}: outcome {bad[0]!r} is neither 'ok' nor 'not ok'")
        out[name] = dict(claims)
    return out


def outcome_changes(result: ExperimentResult, expected: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
    """Each difference between ``result``'s claim outcomes and the expectation, one sentence each."""
    expected = expected_outcomes() if expected is None else expected
    if result.name not in expected:
        return [f"{result.name}: no expectation recorded"]
    want = expected[result.name]
    got = {c.claim: _outcome(c.ok) for c in result.checks}
    changes = [f"{result.name}: {claim!r} was {want[claim]}, is now {o}"
               for claim, o in got.items() if claim in want and want[claim] != o]
    changes += [f"{result.name}: new claim {claim!r} ({o})" for claim, o in got.items() if claim not in want]
    changes += [f"{result.name}: claim {claim!r} ({o}) no longer checked" for claim, o in want.items()
                if claim not in got]
    return changes


def check_expected(result: ExperimentResult, expected: Mapping[str, Mapping[str, str]] | None = None) -> None:
    """Raise :class:`OutcomeChangedError` when an outcome of ``result`` differs from the expectation.

    Raises
    ------
    OutcomeChangedError
        Naming every changed claim and the command that records the new outcomes on purpose.
    """
    changes = outcome_changes(result, expected)
    if changes:
        raise OutcomeChangedError("; ".join(changes) + f". If the change is intended, record it with `{_HOW}` "
                                  f"(or `lisa-eas reproduce {result.name} --write-expectations`) and commit "
                                  f"{EXPECTATIONS_FILE.name}")


def write_expectations(results: Iterable[ExperimentResult], path: Path | str | None = None) -> Path:
    """Record the outcomes of ``results`` (other experiments' entries kept); return the file."""
    p = Path(path or EXPECTATIONS_FILE)
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError):
        data = {}
    exps = data.get("experiments", {})
    for r in results:
        exps[r.name] = {c.claim: _outcome(c.ok) for c in r.checks}
    from ._registry import EXPERIMENTS

    order = [n for n in EXPERIMENTS if n in exps] + sorted(n for n in exps if n not in EXPERIMENTS)
    doc = {"about": "Expected outcome of every reproduced claim. A change fails CI until recorded on purpose "
                    f"with `{_HOW}`.", "experiments": {n: exps[n] for n in order}}
    write_atomic(p, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return p
