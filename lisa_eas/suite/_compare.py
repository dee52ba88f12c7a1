"""A/B verdicts: N runs of side A against N runs of side B, metric by metric.

For each metric (:mod:`lisa_eas.suite._metrics`) the difference of the means B - A gets a
percentile **bootstrap confidence interval** (each side resampled with replacement,
``n_boot`` times, seeded), an effect size (Hedges' g: the difference in pooled standard
deviations, small-sample corrected) and a verdict: *B better* / *B worse* when the interval
excludes 0 (the metric's direction says which is better), *B higher* / *B lower* for the
descriptive metrics, else *no difference* at that confidence. Below 5 runs a side the
percentile bootstrap is too narrow to trust: a warning says so (below 2 nothing is decided).

Runs are ``lisa-eas run`` directories (``trace.dat``; rt-app logs), ``lisa-eas simulate --out``
directories, ``lisa-eas check eas`` results (``suite.json``: each scenario's iterations,
metrics prefixed ``<scenario>/``), Traces, or dicts of metrics.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ._metrics import METRIC_DOC, metric_direction, run_metrics

__all__ = ["Comparison", "Expectation", "MetricComparison", "bootstrap_diff", "compare", "load_runs",
           "parse_expect"]

MIN_RUNS = 5


@dataclass(frozen=True)
class MetricComparison:
    name: str
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float
    ci_high: float
    diff_pct: float
    effect_size: float
    verdict: str
    doc: str = ""

    def to_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Expectation:
    text: str
    metric: str
    relation: str
    holds: bool
    detail: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` found."""

    label_a: str
    label_b: str
    n_a: int
    n_b: int
    confidence: float
    n_boot: int
    seed: int
    metrics: tuple[MetricComparison, ...]
    values_a: dict
    values_b: dict
    runs_a: tuple[str, ...]
    runs_b: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    expectations: tuple[Expectation, ...] = ()
    group: str = ""

    def metric(self, name: str) -> MetricComparison:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(f"no metric {name!r}; have {', '.join(m.name for m in self.metrics)}")

    @property
    def exit_code(self) -> int:
        """1 when an expectation does not hold, else 0."""
        return 1 if any(not e.holds for e in self.expectations) else 0

    def table(self):
        """The metrics as a DataFrame (one row per metric)."""
        import pandas as pd

        return pd.DataFrame([m.to_dict() for m in self.metrics]).set_index("name")

    def to_dict(self) -> dict:
        return {"kind": "lisa_eas.compare", "label_a": self.label_a, "label_b": self.label_b, "n_a": self.n_a,
                "n_b": self.n_b, "confidence": self.confidence, "n_boot": self.n_boot, "seed": self.seed,
                "warnings": list(self.warnings), "expectations": [e.to_dict() for e in self.expectations],
                "exit_code": self.exit_code, "metrics": [m.to_dict() for m in self.metrics],
                "values_a": self.values_a, "values_b": self.values_b, "runs_a": list(self.runs_a),
                "runs_b": list(self.runs_b)}

    def write(self, out_dir: str | os.PathLike) -> dict[str, Path]:
        """``compare.json`` and a standalone ``compare.html`` in ``out_dir`` (atomically)."""
        from .._atomic import write_atomic
        from ._report import compare_html

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        pj, ph = out / "compare.json", out / "compare.html"
        write_atomic(pj, json.dumps(self.to_dict(), indent=1, default=float) + "\n")
        write_atomic(ph, compare_html(self))
        return {"json": pj, "html": ph}


def bootstrap_diff(a, b, *, confidence: float = 0.95, n_boot: int = 4000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(b) - mean(a)`` (each side resampled on its own)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if not (0 < confidence < 1):
        raise ConfigError(f"confidence={confidence}: give a level in (0, 1), e.g. 0.95")
    if len(a) == 0 or len(b) == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    ma = a[rng.integers(0, len(a), (n_boot, len(a)))].mean(axis=1)
    mb = b[rng.integers(0, len(b), (n_boot, len(b)))].mean(axis=1)
    lo, hi = np.quantile(mb - ma, [(1 - confidence) / 2, 1 - (1 - confidence) / 2])
    return float(lo), float(hi)


def _hedges_g(a, b) -> float:
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return float("nan")
    sp = math.sqrt(((na - 1) * np.var(a, ddof=1) + (nb - 1) * np.var(b, ddof=1)) / (na + nb - 2))
    d = float(np.mean(b) - np.mean(a))
    if sp == 0:
        return 0.0 if d == 0 else math.copysign(math.inf, d)
    j = 1 - 3 / (4 * (na + nb) - 9)
    return d / sp * j


_EXPECT_RE = re.compile(r"^\s*([\w./\-]+)\s*:\s*B\s*(<|>|=|==)\s*A\s*$")


def parse_expect(text: str) -> tuple[str, str]:
    """``"energy: B<A"`` -> ``("energy", "<")``."""
    m = _EXPECT_RE.match(text)
    if not m:
        raise ConfigError(f"--expect {text!r}: write it as 'METRIC: B<A', 'METRIC: B>A' or 'METRIC: B=A' "
                          f"(e.g. 'energy: B<A')")
    return m.group(1), "=" if m.group(2) == "==" else m.group(2)


# --------------------------------------------------------------------------- loading runs

def _platform_for(path: Path, meta_platform: str | None, platform):
    if platform is not None:
        return platform
    from ..platform import list_platforms

    if meta_platform and meta_platform in list_platforms():
        return meta_platform
    return None


_LOG_METRICS = ("slack_mean_us", "negative_slack_mean_us", "overrun_pct")


def _run_dir_metrics(p: Path, platform, eas_agreement, era, wanted=None) -> dict:
    from ..analysis.validate import load_trace_arg

    logs = sorted((p / "rtapp").glob("*.log")) if (p / "rtapp").is_dir() else None
    if logs and wanted and set(wanted) <= set(_LOG_METRICS):
        return run_metrics(None, None, logs=[str(x) for x in logs])  # no need to read the trace
    trace = load_trace_arg(p)
    meta_plat = None
    if (p / "target.json").is_file():
        try:
            meta_plat = json.loads((p / "target.json").read_text()).get("platform", {}).get("name")
        except (OSError, ValueError):
            meta_plat = None
    else:
        meta_plat = trace.metadata.get("platform")
    plat = _platform_for(p, meta_plat, platform)
    m = run_metrics(trace, plat, eas_agreement=eas_agreement, era=era)
    if logs:
        try:
            lm = run_metrics(None, None, logs=[str(x) for x in logs])
            m.update({k: v for k, v in lm.items() if k in ("slack_mean_us", "negative_slack_mean_us", "overrun_pct")})
        except Exception:  # noqa: BLE001 - a header-only log: keep the trace's figures
            pass
    return m


def load_runs(items, *, platform=None, eas_agreement: bool = False, era: str = "v5.4",
              metrics=None) -> list[tuple[str, dict]]:
    """``(label, metrics)`` of every run in ``items`` (paths, Traces, metric dicts, suite results).

    A ``suite.json`` (or a directory holding one) gives one entry per iteration, holding
    every scenario's metrics prefixed ``<scenario>/``.
    """
    from ..trace import Trace

    out: list[tuple[str, dict]] = []
    for k, it in enumerate(items):
        if isinstance(it, dict):
            out.append((f"run{k}", dict(it)))
            continue
        if isinstance(it, Trace):
            out.append((str(it.metadata.get("source", f"trace{k}")), run_metrics(it, platform, eas_agreement=eas_agreement,
                                                                                  era=era)))
            continue
        if hasattr(it, "results") and hasattr(it, "exit_code"):
            out += _suite_entries(it, f"suite{k}")
            continue
        p = Path(it)
        if (p.is_dir() and (p / "suite.json").is_file()) or p.name == "suite.json":
            from ._runner import SuiteResult
            out += _suite_entries(SuiteResult.from_json(p), str(p))
            continue
        if not p.exists():
            raise ConfigError(f"{p}: no such run directory or file")
        out.append((str(p), _run_dir_metrics(p, platform, eas_agreement, era, metrics)))
    return out


def _suite_entries(res, label) -> list[tuple[str, dict]]:
    by_iter: dict[int, dict] = {}
    for r in res.results:
        d = by_iter.setdefault(r.iteration, {})
        for k, v in r.metrics.items():
            d[f"{r.scenario}/{k}"] = v
        for k in ("energy_excess_pct", "negative_slack_worst_pct"):
            if r.figures.get(k) is not None:
                d[f"{r.scenario}/{k}"] = r.figures[k]
    return [(f"{label}#{i}", by_iter[i]) for i in sorted(by_iter)]


# --------------------------------------------------------------------------- compare

def _verdict(name: str, lo: float, hi: float, n_a: int, n_b: int) -> str:
    if n_a < 2 or n_b < 2 or not (math.isfinite(lo) and math.isfinite(hi)):
        return "undecidable (too few runs)"
    base = name.rsplit("/", 1)[-1]
    if lo > 0 or hi < 0:
        sign = 1 if lo > 0 else -1
        d = metric_direction(base) if not base.startswith("energy_excess") else -1
        if base == "negative_slack_worst_pct":
            d = -1
        if d == 0:
            return "B higher" if sign > 0 else "B lower"
        return "B better" if sign * d > 0 else "B worse"
    return "no difference"


def compare(a, b, *, platform=None, metrics=None, confidence: float = 0.95, n_boot: int = 4000, seed: int = 0,
            expect=(), eas_agreement: bool = False, era: str = "v5.4", label_a: str = "A",
            label_b: str = "B") -> Comparison:
    """Hold N runs of side ``a`` against N runs of side ``b``.

    Parameters
    ----------
    a, b : list
        Runs of each side (see :func:`load_runs`).
    platform : Platform or str, optional
        For the energy estimate and frequency residency (default: the runs' own, when it is
        a bundled board).
    metrics : list of str, optional
        Only these metrics (default: every metric both sides have).
    confidence : float
        Level of the intervals (default 0.95).
    n_boot, seed : int
        Bootstrap resamples and their seed (results are reproducible).
    expect : list of str
        Asserted directions (``"energy: B<A"``); :attr:`Comparison.exit_code` is 1 when one
        does not hold at that confidence.
    eas_agreement : bool
        Replay the EAS decisions of each run (needs a platform with an Energy Model).

    Returns
    -------
    Comparison
    """
    ra = load_runs(a, platform=platform, eas_agreement=eas_agreement, era=era, metrics=metrics)
    rb = load_runs(b, platform=platform, eas_agreement=eas_agreement, era=era, metrics=metrics)
    if not ra or not rb:
        raise ConfigError("compare: give at least one run on each side")
    names = sorted(set().union(*(m for _, m in ra)) & set().union(*(m for _, m in rb)))
    if metrics:
        missing = [m for m in metrics if m not in names]
        if missing:
            raise ConfigError(f"metric(s) {missing} not found in both sides; available: {', '.join(names)}")
        names = list(metrics)
    names = [n for n in names if n != "activations"]
    out, va, vb = [], {}, {}
    for i, n in enumerate(names):
        xa = np.array([m[n] for _, m in ra if m.get(n) is not None and np.isfinite(m[n])], dtype=np.float64)
        xb = np.array([m[n] for _, m in rb if m.get(n) is not None and np.isfinite(m[n])], dtype=np.float64)
        if not len(xa) or not len(xb):
            continue
        lo, hi = bootstrap_diff(xa, xb, confidence=confidence, n_boot=n_boot, seed=seed + i)
        ma, mb = float(xa.mean()), float(xb.mean())
        out.append(MetricComparison(n, len(xa), len(xb), ma, mb, mb - ma, lo, hi,
                                    100.0 * (mb - ma) / abs(ma) if ma else float("nan"), _hedges_g(xa, xb),
                                    _verdict(n, lo, hi, len(xa), len(xb)),
                                    METRIC_DOC.get(n.rsplit("/", 1)[-1], "")))
        va[n], vb[n] = xa.tolist(), xb.tolist()
    warnings = []
    if min(len(ra), len(rb)) < MIN_RUNS:
        warnings.append(f"{len(ra)} run(s) of A and {len(rb)} of B: below {MIN_RUNS} a side the bootstrap "
                        "interval is too narrow to trust (it cannot see variation the few runs did not show); "
                        f"run at least {MIN_RUNS} a side, more for small effects")
    exps = []
    by_name = {m.name: m for m in out}
    for text in expect or ():
        metric, rel = parse_expect(text)
        m = by_name.get(metric)
        if m is None:
            raise ConfigError(f"--expect {text!r}: no metric {metric!r} in both sides; available: "
                              f"{', '.join(by_name)}")
        if rel == "<":
            holds = m.ci_high < 0
        elif rel == ">":
            holds = m.ci_low > 0
        else:
            holds = m.ci_low <= 0 <= m.ci_high
        exps.append(Expectation(text, metric, rel, bool(holds),
                                f"B - A = {m.diff:+.4g}, {100 * confidence:g} % CI [{m.ci_low:+.4g}, {m.ci_high:+.4g}]"))
    return Comparison(label_a, label_b, len(ra), len(rb), confidence, n_boot, seed, tuple(out), va, vb,
                      tuple(x for x, _ in ra), tuple(x for x, _ in rb), tuple(warnings), tuple(exps))
