"""The registry of reproducible experiments and the ``reproduce`` entry point.

Each experiment is a module of this package defining ``TITLE`` and ``run(sweep) ->
ExperimentResult``; it reads the published figures with :func:`published_csv` (package data
copied with its sources into ``lisa_eas/published/``) and runs the models or the simulator
through the public APIs. :func:`reproduce` adds the common provenance (package, library
versions, where the jobs ran, wall time).
"""
from __future__ import annotations

import hashlib
import importlib
import platform as _pyplatform
import time
from dataclasses import replace
from datetime import datetime, timezone
from importlib import resources
from typing import Any

from ..errors import ConfigError
from ._claims import ExperimentResult
from ._sweep import Sweep

__all__ = ["EXPERIMENTS", "published_csv", "published_provenance", "reproduce", "reproduce_all"]

#: name -> module defining ``TITLE`` and ``run(sweep)``, in the order ``reproduce all`` runs them.
EXPERIMENTS: dict[str, str] = {
    "sis-util-scan": "lisa_eas.repro.sis_util_scan",
    "sis-efficiency": "lisa_eas.repro.sis_efficiency",
    "eas-wakeup-speedup": "lisa_eas.repro.eas_wakeup_speedup",
    "ramp-boost": "lisa_eas.repro.ramp_boost",
    "eas-rfc-energy": "lisa_eas.repro.eas_rfc_energy",
    "schedfreq-governors": "lisa_eas.repro.schedfreq_governors",
}

# Where each published file comes from (see lisa_eas/published/SOURCES.md).
_SOURCES = {
    "eas_wakeup_speedup.csv": "commit eb92692b 'sched/fair: Speed-up energy-aware wake-ups' (Q. Perret, v5.4)",
    "ramp_boost_slack.csv": "'[RFC PATCH v3 0/6] sched/cpufreq: Make schedutil energy aware', reply by "
                            "D. Raillard, 14 Oct 2019",
    "sis_util_scan_nr_112.csv": "commit 70fb5ccf2ebb 'sched/fair: Introduce SIS_UTIL ...' (Chen Yu, 2022)",
    "sis_util_scan_nr_16.csv": "commit 70fb5ccf2ebb 'sched/fair: Introduce SIS_UTIL ...' (Chen Yu, 2022)",
    "sis_prop_vanilla_efficiency.csv": "commit 70fb5ccf2ebb 'sched/fair: Introduce SIS_UTIL ...' (Chen Yu, 2022), "
                                       "SIS_PROP baseline table",
    "sis_prop_select_idle_cpu_latency_hist.csv": "commit 70fb5ccf2ebb 'sched/fair: Introduce SIS_UTIL ...' "
                                                 "(Chen Yu, 2022), select_idle_cpu() time histogram",
    "eas_rfc_energy.csv": "'[RFC PATCH v2 0/6] Energy Aware Scheduling' cover letter (D. Eggemann, 6 Apr 2018)",
    "schedfreq_rtapp_cases.csv": "'sched-freq: integrating the scheduler and cpufreq', S. Muckle, "
                                 "Linaro Connect BKK16-104, 2016",
    "schedfreq_chromebook2_cfs.csv": "BKK16-104 slides (Muckle, 2016), Exynos 5800 CFS table",
    "schedfreq_chromebook2_rt.csv": "BKK16-104 slides (Muckle, 2016), Exynos 5800 RT table",
    "schedfreq_mt8173_cfs.csv": "BKK16-104 slides (Muckle, 2016), MT8173 CFS table",
    "schedfreq_mt8173_power.csv": "BKK16-104 slides (Muckle, 2016), MT8173 power table",
}


def _published_bytes(filename: str) -> bytes:
    try:
        return (resources.files("lisa_eas") / "published" / filename).read_bytes()
    except FileNotFoundError as exc:
        raise ConfigError(f"published data file lisa_eas/published/{filename} is missing from the install; "
                          f"reinstall the package (it is package data)") from exc


def published_csv(filename: str):
    """The published table ``lisa_eas/published/<filename>`` as a DataFrame."""
    import io

    import pandas as pd

    return pd.read_csv(io.BytesIO(_published_bytes(filename)))


def published_provenance(*filenames: str) -> list[dict]:
    """File name, source document and sha256 of each published file an experiment reads."""
    return [{"file": f"lisa_eas/published/{f}", "source": _SOURCES.get(f, ""),
             "sha256": hashlib.sha256(_published_bytes(f)).hexdigest()} for f in filenames]


def _module(name: str):
    try:
        mod = EXPERIMENTS[name]
    except KeyError:
        raise ConfigError(f"unknown experiment {name!r}; choose one of: {', '.join(EXPERIMENTS)} or 'all'") from None
    return importlib.import_module(mod)


def _versions() -> dict[str, str]:
    out = {"python": _pyplatform.python_version()}
    for lib in ("numpy", "pandas", "numba"):
        try:
            out[lib] = importlib.import_module(lib).__version__
        except ImportError:  # pragma: no cover
            out[lib] = "missing"
    return out


def reproduce(name: str, *, workers: int | None = None, scheduler: str | None = None,
              sweep: Sweep | None = None) -> ExperimentResult:
    """Reproduce one published experiment and check its claims.

    Parameters
    ----------
    name : str
        One of :data:`EXPERIMENTS` (``sis-util-scan``, ``sis-efficiency``, ``eas-wakeup-speedup``,
        ``ramp-boost``, ``eas-rfc-energy``, ``schedfreq-governors``).
    workers : int, optional
        Local worker processes for the independent simulations (default: all cores; 1 runs
        everything in this process).
    scheduler : str, optional
        Address of a Dask scheduler to run the simulations on instead.
    sweep : Sweep, optional
        A ready :class:`Sweep` (overrides ``workers`` and ``scheduler``).

    Returns
    -------
    ExperimentResult
        Side-by-side rows, checks (``.ok``), notes and provenance.

    Examples
    --------
    >>> from lisa_eas import reproduce
    >>> res = reproduce("sis-util-scan")
    >>> res.ok, res.to_frame().head(3)
    """
    from .. import __version__

    mod = _module(name)
    sweep = sweep or Sweep(workers=workers, scheduler=scheduler)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    res: ExperimentResult = mod.run(sweep)
    prov: dict[str, Any] = {"experiment": name, "module": mod.__name__, "lisa_eas": __version__,
                            "versions": _versions(), "sweep": sweep.where, "started_utc": started}
    prov.update(res.provenance)
    prov["wall_time_s"] = round(time.perf_counter() - t0, 3)
    return replace(res, provenance=prov)


def reproduce_all(*, workers: int | None = None, scheduler: str | None = None,
                  sweep: Sweep | None = None) -> list[ExperimentResult]:
    """:func:`reproduce` every experiment of :data:`EXPERIMENTS`, in order."""
    sweep = sweep or Sweep(workers=workers, scheduler=scheduler)
    return [reproduce(n, sweep=sweep) for n in EXPERIMENTS]
