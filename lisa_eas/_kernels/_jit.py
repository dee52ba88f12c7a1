"""The numba compilation flags of the simulator's kernels, in one place.

Every event-loop function is compiled with ``cache=True`` (on-disk cache next to the source)
and ``_nrt=False`` (no reference counting: no ``NRT_incref``/``NRT_decref`` per array passed
or viewed, ~30 % of the loop's time otherwise; these functions allocate nothing and the arrays
belong to the caller). Three forms, by how a function is called (measurements in
``sim_sched`` and ``sim_views``):

``sim_kernel``
    an ordinary call (functions called from many places, whose inlining would multiply the
    compile time);
``sim_helper``
    small helpers on the event path, inlined by LLVM (``forceinline``: ``alwaysinline`` on the
    linked bitcode, no extra numba typing, so the first compile stays as it was);
``sim_inline``
    the larger functions called from one to four places, inlined by numba itself
    (``inline='always'``: ~12 % less loop time for ~30 s more first compile).

``model_inline`` marks the models' own small kernels that the loop calls on every event
(the PELT sums, util_est, schedutil's update, the EAS wake-up of the default era): compiled
as every model kernel (reference counting on; called alone from ``lisa_eas.models``), and
``forceinline`` so that LLVM inlines them into the loop's functions instead of calling them
with every array passed as 7 words (measured in ``benchmarks/bench_sim_ab.py``, see
``docs/guide/simulate.md``).

``sim_nrt`` keeps reference counting for the one function that builds array views it passes
on to a model kernel which itself takes views (``place_idle_sibling``); ``kernel`` is the
models' default (``cache=True``), for the output-stage helpers that allocate.
"""
from __future__ import annotations

from numba import njit

__all__ = ["kernel", "model_inline", "sim_helper", "sim_inline", "sim_kernel", "sim_nrt"]

kernel = njit(cache=True)
model_inline = njit(cache=True, forceinline=True)
sim_kernel = njit(cache=True, _nrt=False)
sim_helper = njit(cache=True, _nrt=False, forceinline=True)
sim_inline = njit(cache=True, _nrt=False, inline='always')
sim_nrt = njit(cache=True, _nrt=True)
