"""``sis-util-scan``: SIS_UTIL scan depth vs the LLC's sum of util_avg (commit 70fb5ccf2ebb).

The commit message gives ``scan_nr`` for 112 and 16 CPUs per LLC at sum_util = 0..86 % of the
LLC capacity. The model is :func:`lisa_eas.models.sis_util_nr_scan` (``update_idle_cpu_scan``
in integer arithmetic); the sum of util is ``pct * llc_weight * 1024 / 100`` rounded down,
imbalance_pct 117 (the MC domain's), as in the commit message.
"""
from __future__ import annotations

from ._claims import ExperimentResult, check_exact
from ._registry import published_csv, published_provenance
from ._sweep import Sweep

TITLE = "SIS_UTIL scan depth vs LLC sum_util, 112 and 16 CPUs per LLC (70fb5ccf2ebb)"
FILES = ("sis_util_scan_nr_112.csv", "sis_util_scan_nr_16.csv")
IMBALANCE_PCT = 117


def run(sweep: Sweep) -> ExperimentResult:
    from ..models import sis_util_nr_scan

    rows, checks = [], []
    for f in FILES:
        pub = published_csv(f)
        weight = int(pub["llc_weight"].iloc[0])
        got = [sis_util_nr_scan(int(p) * weight * 1024 // 100, weight, IMBALANCE_PCT) for p in pub["sum_util_pct"]]
        for p, want, have in zip(pub["sum_util_pct"], pub["scan_nr"], got):
            rows.append({"llc_weight": weight, "sum_util_pct": int(p), "published_scan_nr": int(want),
                         "reproduced_scan_nr": have, "ok": int(want) == have})
        # Exact: the kernel computes nr_idle_scan in integers, so the model must give the
        # very same integers; any difference is a bug.
        checks.append(check_exact(f"scan_nr row for {weight} CPUs per LLC (sum_util 0..86 %)",
                                  pub["scan_nr"].astype(int).tolist(), got,
                                  why="the integer formula of update_idle_cpu_scan differs from the model"))
    return ExperimentResult(
        name="sis-util-scan", title=TITLE,
        columns=("llc_weight", "sum_util_pct", "published_scan_nr", "reproduced_scan_nr", "ok"),
        rows=tuple(rows), checks=tuple(checks),
        notes=("sum_util = pct * llc_weight * 1024 // 100 (integer), imbalance_pct = 117 (MC domain); "
               "the published 'scan_nr' is nr_idle_scan, the most CPUs select_idle_cpu() examines.",),
        provenance={"published": published_provenance(*FILES),
                    "model": "lisa_eas.models.sis_util_nr_scan (update_idle_cpu_scan, kernel/sched/fair.c)",
                    "parameters": {"imbalance_pct": IMBALANCE_PCT}},
        series={"scan_nr": {"llc_weight": [r["llc_weight"] for r in rows],
                            "sum_util_pct": [r["sum_util_pct"] for r in rows],
                            "published": [r["published_scan_nr"] for r in rows],
                            "reproduced": [r["reproduced_scan_nr"] for r in rows]}})
