"""Run independent jobs (simulations) in parallel: local cores by default, or a Dask cluster.

``Sweep(workers=None)`` uses a process pool over all local cores; ``Sweep(workers=1)`` runs
in-process (what tests and notebooks compare against); ``Sweep(scheduler="tcp://host:8786")``
sends the jobs to a running ``dask.distributed`` scheduler (``pip install 'lisa_eas[dask]'``).
Jobs are ``(function, argument)`` pairs whose function is importable by name (module-level),
so a worker process or a remote Dask worker can run it; results come back in input order.
Every job is deterministic (the simulator is deterministic for a configuration), so where a
job runs never changes its result.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from ..errors import ConfigError

__all__ = ["Sweep"]


def _call(job: tuple[Callable[[Any], Any], Any]) -> Any:
    fn, arg = job
    return fn(arg)


@dataclass(frozen=True)
class Sweep:
    """Where the jobs of a reproduction run.

    Parameters
    ----------
    workers : int, optional
        Local worker processes (default: ``os.cpu_count()``); 1 runs every job in this process.
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``); when given, ``workers`` is ignored.
    connect_timeout_s : float
        How long to wait for the Dask scheduler to answer.
    """

    workers: int | None = None
    scheduler: str | None = None
    connect_timeout_s: float = 30.0

    def __post_init__(self):
        if self.workers is not None and (not isinstance(self.workers, int) or self.workers < 1):
            raise ConfigError(f"Sweep.workers must be a positive integer, got {self.workers!r}")

    @property
    def where(self) -> str:
        """Short description for provenance: ``in-process``, ``local:N`` or ``dask:ADDRESS``."""
        if self.scheduler:
            return f"dask:{self.scheduler}"
        n = self.workers or os.cpu_count() or 1
        return "in-process" if n == 1 else f"local:{n}"

    def map(self, fn: Callable[[Any], Any], args: Iterable[Any], *,
            warm: Callable[[], Any] | None = None) -> list[Any]:
        """``[fn(a) for a in args]``, run in parallel; results in input order.

        ``warm``, when given, runs once in this process before local worker processes are
        forked (e.g. :func:`lisa_eas.sim.warm_up_simulator`: the workers then inherit the
        compiled simulator instead of each compiling it)."""
        jobs = [(fn, a) for a in args]
        if not jobs:
            return []
        if self.scheduler:
            return self._map_dask(jobs)
        n = min(self.workers or os.cpu_count() or 1, len(jobs))
        if n == 1:
            return [_call(j) for j in jobs]
        if warm is not None:
            warm()
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        # fork: workers inherit the imported modules and compiled kernels, and a script
        # calling this needs no ``if __name__ == "__main__"`` guard (spawn/forkserver re-import it).
        with ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("fork")) as pool:
            return list(pool.map(_call, jobs, chunksize=1))

    def _map_dask(self, jobs: Sequence[tuple[Callable, Any]]) -> list[Any]:
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ConfigError("--scheduler needs dask.distributed: pip install 'lisa_eas[dask]'") from exc
        try:
            client = Client(self.scheduler, timeout=self.connect_timeout_s, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"cannot reach the Dask scheduler at {self.scheduler!r}: {exc}; start one with "
                              f"`dask scheduler` (and `dask worker ADDRESS`) or drop --scheduler") from exc
        try:
            futures = client.map(_call, list(jobs), pure=False)
            return client.gather(futures)
        finally:
            client.close()
