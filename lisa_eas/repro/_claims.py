"""Checked claims and the result of one reproduced experiment.

A :class:`Check` holds one published claim: the published value, the reproduced value, the
tolerance (a sentence saying what is accepted and why) and whether it holds. An
:class:`ExperimentResult` holds the side-by-side rows, the checks, free-text notes (what the
reproduction cannot match and why) and the provenance of every input.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["Check", "ExperimentResult", "check_close", "check_exact", "check_rank_correlation",
           "check_that", "spearman"]


def _plain(v: Any) -> Any:
    """JSON-friendly scalar/list (numpy scalars to Python, NaN to None)."""
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if math.isnan(f) else f
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.ndarray):
        return [_plain(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


@dataclass(frozen=True)
class Check:
    """One published claim held against the reproduction.

    Attributes
    ----------
    claim : str
        What the publication says, in one sentence.
    published, reproduced : object
        The published and the reproduced figure (number, list, or text).
    tolerance : str
        What counts as agreement and why that tolerance (stated where the check is built).
    ok : bool
        Whether the reproduced value is within the tolerance.
    why : str
        For a check that fails: why the reproduction cannot match (model limits, missing data).
    """

    claim: str
    published: Any
    reproduced: Any
    tolerance: str
    ok: bool
    why: str = ""

    def to_dict(self) -> dict:
        d = {"claim": self.claim, "published": _plain(self.published), "reproduced": _plain(self.reproduced),
             "tolerance": self.tolerance, "ok": bool(self.ok)}
        if self.why:
            d["why"] = self.why
        return d


def check_exact(claim: str, published, reproduced, *, why: str = "") -> Check:
    """Equality of integers or sequences of integers (tolerance: none)."""
    ok = list(np.atleast_1d(published)) == list(np.atleast_1d(reproduced))
    return Check(claim, published, reproduced, "exact (integer arithmetic of the kernel)", ok, "" if ok else why)


def check_close(claim: str, published: float, reproduced: float, *, rel: float | None = None,
                abs_: float | None = None, justification: str, why: str = "") -> Check:
    """``|reproduced - published| <= max(rel * |published|, abs_)``; NaN never passes."""
    limit = max(rel * abs(published) if rel is not None else 0.0, abs_ or 0.0)
    ok = reproduced is not None and not (isinstance(reproduced, float) and math.isnan(reproduced)) \
        and abs(reproduced - published) <= limit
    parts = []
    if rel is not None:
        parts.append(f"±{rel * 100:g}% relative")
    if abs_ is not None:
        parts.append(f"±{abs_:g} absolute")
    return Check(claim, published, reproduced, f"{' or '.join(parts)}: {justification}", bool(ok), "" if ok else why)


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman rank correlation (average ranks for ties); NaN when a side is constant."""
    import pandas as pd

    ra = pd.Series(np.asarray(a, dtype=float)).rank().to_numpy()
    rb = pd.Series(np.asarray(b, dtype=float)).rank().to_numpy()
    if len(ra) < 2 or ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def check_rank_correlation(claim: str, published: Sequence[float], reproduced: Sequence[float], *,
                           min_rho: float, justification: str, why: str = "") -> Check:
    """Spearman's rho between the published and the reproduced column is at least ``min_rho``."""
    rho = spearman(published, reproduced)
    ok = not math.isnan(rho) and rho >= min_rho
    return Check(claim, f"rho = 1 (the published column itself, n = {len(published)})", round(rho, 3),
                 f"Spearman rho >= {min_rho:g}: {justification}", bool(ok), "" if ok else why)


def check_that(claim: str, published, reproduced, ok: bool, *, tolerance: str, why: str = "") -> Check:
    """A qualitative claim whose test is computed by the caller."""
    return Check(claim, published, reproduced, tolerance, bool(ok), "" if ok else why)


@dataclass(frozen=True)
class ExperimentResult:
    """One reproduced experiment: the side-by-side table, the checks, notes and provenance.

    Attributes
    ----------
    name, title : str
        Registry name (``sis-util-scan``...) and a one-line title.
    columns : tuple of str
        Column order of ``rows``.
    rows : tuple of dict
        Published and reproduced values side by side, one dict per row.
    checks : tuple of Check
    notes : tuple of str
        What the reproduction does differently and why (durations, missing data, model limits).
    provenance : dict
        Where every input came from: published file and source, platforms, workloads,
        simulator configurations, package and library versions, wall time.
    series : dict
        Extra data for plots (name -> dict of lists), not printed.
    """

    name: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[dict, ...]
    checks: tuple[Check, ...]
    notes: tuple[str, ...] = ()
    provenance: Mapping[str, Any] = field(default_factory=dict)
    series: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every check holds."""
        return all(c.ok for c in self.checks)

    def to_frame(self):
        """The side-by-side rows as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=list(self.columns))

    def checks_frame(self):
        """The checks as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([c.to_dict() for c in self.checks],
                            columns=["claim", "published", "reproduced", "tolerance", "ok", "why"])

    def to_dict(self) -> dict:
        """The JSON object ``lisa-eas reproduce --format json`` prints."""
        return {"name": self.name, "title": self.title, "ok": self.ok,
                "rows": [{c: _plain(r.get(c)) for c in self.columns} for r in self.rows],
                "checks": [c.to_dict() for c in self.checks], "notes": list(self.notes),
                "provenance": _plain(dict(self.provenance))}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, allow_nan=False)

    def to_csv(self) -> str:
        """The rows as CSV (one header line), then a blank line and the checks as CSV."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow(["" if r.get(c) is None else _plain(r.get(c)) for c in self.columns])
        buf.write("\n")
        w.writerow(["claim", "published", "reproduced", "tolerance", "ok", "why"])
        for c in self.checks:
            d = c.to_dict()
            w.writerow([d["claim"], d["published"], d["reproduced"], d["tolerance"], d["ok"], d.get("why", "")])
        return buf.getvalue()

    def to_text(self) -> str:
        """Human-readable report: title, side-by-side table, checks, notes."""
        from .._text import format_table

        out = [f"== {self.name}: {self.title}", ""]
        out.append(format_table(self.columns, [[r.get(c) for c in self.columns] for r in self.rows]))
        out += ["", "checks:"]
        for c in self.checks:
            mark = "ok    " if c.ok else "NOT OK"
            out.append(f"  [{mark}] {c.claim}")
            out.append(f"           published: {_short(c.published)}   reproduced: {_short(c.reproduced)}")
            out.append(f"           tolerance: {c.tolerance}")
            if c.why:
                out.append(f"           not reproduced, because: {c.why}")
        if self.notes:
            out += ["", "notes:"] + [f"  - {n}" for n in self.notes]
        out.append(f"\n{sum(c.ok for c in self.checks)}/{len(self.checks)} checks ok"
                   f" (wall time {self.provenance.get('wall_time_s', 0):.1f} s)")
        return "\n".join(out)


def _short(v: Any) -> str:
    v = _plain(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list):
        return "[" + ", ".join(_short(x) for x in v) + "]"
    return str(v)
