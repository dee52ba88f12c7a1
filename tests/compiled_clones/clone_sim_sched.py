"""Interpreted runs of ``lisa_eas/_kernels/sim_sched.py`` (runqueue mechanics (clocks, PELT plumbing, enqueue/dequeue, pick, switch)): its numba source without numba, not an independent twin.

Built like the reference engine (``clone_sim_loop.py``): the module's ``@njit`` functions run
from their Python source with every call rebound to interpreted twins. The engines built
from them are compared event for event in ``tests/test_sim_reference.py``.
"""
from __future__ import annotations

from .clone_sim_loop import pure_functions


def functions() -> dict:
    """Name -> interpreted twin of each numba function of ``sim_sched``."""
    from lisa_eas._kernels import sim_sched

    return pure_functions(sim_sched)
