"""The simulator's own numba source run by the Python interpreter (NOT an independent twin).

What this is, honestly: the same code as ``lisa_eas/_kernels/sim_loop.py`` and the kernels it
calls, executed without numba. It cannot see an algorithm error (it shares every line of the
algorithm with the engine); it catches what compilation changes: overflow, typing, numba
semantics. The independent checks of the simulator are ``ref_sim_engine.py`` (written
separately, each step naming its kernel function; ``tests/test_sim_reference_engine.py``) and
``tests/test_sim_pelt_timeline.py`` (the PELT signals against the models on timelines rebuilt
from the trace).

It is the simulator's algorithm executed by the Python interpreter with no
numba at all: every ``@njit`` function the event loop reaches (the loop itself, the runqueue
mechanics and the issue-3 model kernels it calls) is rebuilt from its Python source
(``dispatcher.py_func``) with its globals rebound so that each call goes to the
interpreted twin of the callee. Integer arithmetic is Python's (arbitrary precision),
so any overflow or typing difference in the compiled engine shows up as a different
event stream. ``tests/test_sim_reference.py`` asserts both engines produce identical
event streams, and ``benchmarks/bench_sim.py`` measures the speed-up over this engine.
"""
from __future__ import annotations

import types

from numba.core.registry import CPUDispatcher


def _pure(obj, memo):
    if not isinstance(obj, CPUDispatcher):
        return obj
    if id(obj) in memo:
        return memo[id(obj)]
    f = obj.py_func
    g = dict(f.__globals__)
    clone = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
    memo[id(obj)] = clone
    for name in f.__code__.co_names:
        if name in g:
            g[name] = _pure(g[name], memo)
    # names used only inside nested code objects (none today, kept for safety)
    return clone


def pure_functions(module) -> dict:
    """Interpreted twins of every ``@njit`` function defined in ``module`` (name -> function)."""
    memo: dict = {}
    return {name: _pure(obj, memo) for name, obj in vars(module).items()
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__}


def reference_sim_run():
    """The interpreted twin of ``lisa_eas._kernels.sim_loop.sim_run`` (same signature)."""
    from lisa_eas._kernels.sim_loop import sim_run

    return _pure(sim_run, {})
