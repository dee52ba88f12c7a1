"""Views into the simulator's flat state arrays (numba).

The event loop passes three flat ``int64`` arrays around instead of tuples of arrays (which
make numba slow to compile and to call): the mutable state ``S``, the static data ``P`` and
the output buffers ``O``. Each starts with a header of ``HEADER_SLOTS`` slots of 4 words
``(offset, dim0, dim1, dim2)`` (``lisa_eas.sim._engine.pack`` builds the arrays; the slots
are declared by name in ``sim_layout``; ``lisa_eas.sim._engine.view`` gives a slot as an
array of its shape to Python code).

The loop kernels are compiled without numba's reference counting (``_nrt=False``: no
``NRT_incref``/``NRT_decref`` call for each array passed to a function or viewed, ~30 % of
the loop's time otherwise; they allocate nothing and the arrays are owned by the caller);
such a function cannot return a view, so they read the slots with flat offsets (or slice
them in place to call a model kernel).

The hottest loop functions that are called from one to four places (``pelt_flat``,
``update_curr``, ``update_rq_avgs``, ``update_task_signal``, ``op_boundary``, ``pick_next``,
``switch_to``, ``choose_idle_state``, ``enqueue``, ``dequeue_sleep``, ``advance``,
``sugov_update_flat``, ``get_next_freq_flat``, ``place_eas``) are compiled with ``inline='always'``: numba inlines
them into their callers (LLVM does not, they are too large, and each call passes the
arrays as 7 words each plus the scalars, most of them on the stack): ~12 % less loop time
on the EAS RFC energy benchmark, for ~30 s more compile time (no cache: ~75 s instead of
~45 s). Inlining a function called from many places (``sync_cpu``) multiplies the compile
time instead (minutes).
"""
from __future__ import annotations

HEADER_SLOTS = 24
HEADER_WORDS = 4 * HEADER_SLOTS
