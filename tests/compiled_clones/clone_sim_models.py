"""Interpreted runs of the simulator's model layer (``lisa_eas/_kernels/sim_capacity.py``,
``sim_wakeup.py``, ``sim_governor.py``: calls into the model kernels (EAS, SIS, schedutil,
ondemand)): their numba source without numba, not an independent twin.

Built like the reference engine (``clone_sim_loop.py``): the modules' ``@njit`` functions run
from their Python source with every call rebound to interpreted twins. The engines built
from them are compared event for event in ``tests/test_sim_reference.py``.
"""
from __future__ import annotations

from .clone_sim_loop import pure_functions


def modules() -> tuple:
    """The model layer's modules."""
    from lisa_eas._kernels import sim_capacity, sim_governor, sim_wakeup

    return sim_capacity, sim_wakeup, sim_governor


def functions() -> dict:
    """Name -> interpreted twin of each numba function of the model layer."""
    out: dict = {}
    for mod in modules():
        out.update(pure_functions(mod))
    return out
