"""An experiment whose one check fails by construction (a wrong "published" figure),
registered by tests/test_repro_framework.py to check the exit code and outputs of
`lisa-eas reproduce` when a claim does not hold. The reproduced value comes from the real
SIS_UTIL model."""
from __future__ import annotations

from lisa_eas.models import sis_util_nr_scan
from lisa_eas.repro._claims import ExperimentResult, check_exact


def run(sweep) -> ExperimentResult:
    got = sis_util_nr_scan(0, 16)  # an idle 16-CPU LLC: scans all 16
    wrong = 15
    return ExperimentResult(
        name="fixture-fail", title="an idle 16-CPU LLC, against a wrong figure", columns=("published", "reproduced"),
        rows=({"published": wrong, "reproduced": got},),
        checks=(check_exact("an idle LLC scans all its CPUs", wrong, got, why="the fixture's figure is wrong"),),
        provenance={"published": "test fixture"},
        series={"scan": {"label": ["idle"], "published": [wrong], "reproduced": [got]}})
