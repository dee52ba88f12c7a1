"""Compile the simulator's event loop once, in this process, before anything forks workers,
and say so: a cold compile takes a minute or two, and worker processes started before it
would each compile their own copy in silence."""
from __future__ import annotations

import sys
import time

__all__ = ["announce_compile", "event_loop_cached", "warm_up_simulator"]

MESSAGE = "compiling the simulator's event loop, first run only, ~1-2 min; cached afterwards"
_announced = False


def event_loop_cached() -> bool:
    """Whether numba's on-disk cache holds a compiled event loop for this source (its index is
    stamped with the source file; a stale or missing index reads as not cached)."""
    try:
        from .._kernels.sim_loop import sim_run

        if sim_run.signatures:          # already compiled or loaded in this process
            return True
        return bool(sim_run._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - numba internals: when unsure, say we compile
        return False


def announce_compile(stream=None) -> bool:
    """Print :data:`MESSAGE` to ``stream`` (default stderr) when the next run of the event loop
    will compile it (neither loaded in this process nor cached on disk), once per process: a
    user's first ``simulate()`` is not a minute of silence. Returns whether it printed."""
    global _announced
    if _announced or event_loop_cached():
        return False
    _announced = True
    print(f"lisa-eas: {MESSAGE}", file=stream or sys.stderr, flush=True)
    return True


def warm_up_simulator(stream=None) -> float:
    """Compile (or load) the event loop with a 10 ms run of one task; print :data:`MESSAGE` to
    ``stream`` (default stderr) first when it is not cached. Returns the seconds it took."""
    from ..platform import load_platform
    from ..rtapp import periodic, task, workload
    from . import SimConfig, simulate

    t0 = time.perf_counter()
    from .._kernels.sim_loop import sim_run

    if sim_run.signatures:
        return 0.0
    announce_compile(stream)
    wl = workload([task("warm", periodic(10, 2, duration_s=0.01))], calibration=100)
    simulate(load_platform("hikey960"), wl, config=SimConfig(duration_s=0.01, model_events=False))
    return time.perf_counter() - t0
