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

``view2d`` gives ``flat[start:start + rows * cols]`` as a C-contiguous ``rows x cols`` array
(the EM tables and the per-CPU scratch rows passed to ``eas.feec`` and ``sugov_update``) by
building the array header in place: numba's ``reshape`` calls a C helper
(``numba_attempt_nocopy_reshape``) on every wake-up and frequency update (~2.4 % of the loop's
time), and ``as_strided`` does not compile without reference counting. The view shares the
flat array's memory (and its owner, for the model kernels that count references).
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.imputils import lower_builtin
from numba.extending import type_callable
from numba.np.arrayobj import make_array, populate_array

HEADER_SLOTS = 32
HEADER_WORDS = 4 * HEADER_SLOTS


def view2d(flat, start, rows, cols):
    """``flat[start:start + rows * cols].reshape((rows, cols))`` of a 1-D contiguous array; in
    numba code without the reshape helper call (the caller guarantees the bounds, as for a
    slice); in Python (the reference engine runs the loop's ``py_func``) that expression."""
    return flat[start:start + rows * cols].reshape((rows, cols))


@type_callable(view2d)
def _view2d_type(context):
    def typer(flat, start, rows, cols):
        if (isinstance(flat, types.Array) and flat.ndim == 1 and flat.layout == "C"
                and all(isinstance(t, types.Integer) for t in (start, rows, cols))):
            return flat.copy(ndim=2, layout="C")
        return None
    return typer


@lower_builtin(view2d, types.Array, types.Integer, types.Integer, types.Integer)
def _view2d_lower(context, builder, sig, args):
    """The array header of ``flat[start:start + rows * cols]`` as ``rows x cols`` (C order),
    sharing the flat array's data and owner."""
    src = make_array(sig.args[0])(context, builder, args[0])
    start_, rows_, cols_ = (context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], sig.args[1:]))
    itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(sig.args[0].dtype)))
    out = make_array(sig.return_type)(context, builder)
    populate_array(out, data=builder.gep(src.data, [start_]),
                   shape=cgutils.pack_array(builder, [rows_, cols_]),
                   strides=cgutils.pack_array(builder, [builder.mul(cols_, itemsize), itemsize]),
                   itemsize=itemsize, meminfo=src.meminfo, parent=src.parent)
    return out._getvalue()
