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

The three ``sim_*`` forms above also compile with ``flat_state`` (:func:`_flat_state`): an
integer index is used as it is, without numba's negative-index wrap-around (a compare and a
select on every state read, ~25 % of the summary loop; the loop's indices are offsets into
``S``, ``P``, ``O``, never counted from the end). Only these functions: a model kernel they call
keeps numba's semantics (``tests/test_sim_jit_flags.py``). The flag hooks numba internals
(``arrayobj.fix_integer_index``, the flags stack); with a numba that lacks them (``FLAT_STATE``
false) the loop compiles with numba's own indexing, and that test says so.

``sim_nrt`` keeps reference counting for the one function that builds array views it passes
on to a model kernel which itself takes views (``place_idle_sibling``); ``kernel`` is the
models' default (``cache=True``), for the output-stage helpers that allocate.

``sim_kernel`` and ``sim_nrt`` functions (ordinary calls) are compiled once per argument
*type*, not once per constant: numba types a constant argument at a call site as a literal
(``Literal[int](-1)``, ``Literal[bool]``) and compiles the callee again for each combination of
literal values it is called with from other njit functions (``move_queued`` was compiled 5
times, ``wake_up``, ``schedule``, ``pull_one``, ``leave_cpu`` twice each). :func:`_by_type`
makes such a call resolve (and compile) the callee on the non-literal argument types
(``numba.core.types.unliteral``). The inlined forms (``sim_helper``, ``sim_inline``) keep
numba's per-constant specialisation: they are small or inlined anyway, and folding their
constants before LLVM inlines them measured ~2 % of loop time (``emit`` is still compiled 16
times, a second or so). Measured with ``benchmarks/profile_sim_compile.py`` (cold compile by
function) and ``bench_sim_ab.py``; see ``docs/guide/simulate.md``.
"""
from __future__ import annotations

from numba import njit
from numba.core import types

try:    # numba internals the flat_state flag hooks into (numba 0.59 - 0.68, setup.cfg bounds it)
    from numba.core.compiler import Flags
    from numba.core.targetconfig import ConfigStack, Option
    from numba.np import arrayobj
    FLAT_STATE = hasattr(arrayobj, "fix_integer_index") and hasattr(ConfigStack, "top_or_none")
except ImportError:     # another numba: the sim_* functions compile with numba's own indexing
    FLAT_STATE = False


def _by_type(jit):
    """``jit`` whose dispatchers resolve calls from other njit functions on non-literal argument
    types (one compiled specialisation per argument types, not per constant value passed)."""
    def decorate(fn):
        disp = jit(fn)
        resolve = disp.get_call_template

        def get_call_template(args, kws):
            return resolve(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})
        disp.get_call_template = get_call_template
        return disp
    return decorate


if FLAT_STATE:
    class _SimFlags(Flags):
        """numba's compilation flags with one more: ``flat_state``."""
        flat_state = Option(type=bool, default=False,
                            doc="integer indices are never negative: no wrap-around fix-up (sim_* functions)")

    _fix_integer_index = arrayobj.fix_integer_index

    def _fix_index(context, builder, idxty, idx, size):
        """numba's ``fix_integer_index`` (an integer index into one array dimension), without the
        negative-index wrap-around (``i < 0 ? i + n : i``) in the functions compiled with
        ``flat_state``: their indices are offsets into ``S``, ``P``, ``O`` and are never negative.
        Every other function is compiled as numba compiles it."""
        flags = ConfigStack.top_or_none()
        if idxty.signed and flags is not None and getattr(flags, "flat_state", False):
            return context.cast(builder, idx, idxty, types.intp)
        return _fix_integer_index(context, builder, idxty, idx, size)

    arrayobj.fix_integer_index = _fix_index     # a no-op for every function without the flag


def _flat_state(jit):
    """``jit`` whose functions are compiled with ``flat_state``: an integer index ``S[i]`` is used as
    it is, without numba's negative-index wrap-around. The loop's functions index the flat arrays
    with ``offset + row * width + field``, never from the end (a negative index in them is a bug,
    not a wrap-around): the fix-up was a compare and a select on every state read, and it kept
    LLVM from folding the offset arithmetic into the loads; measured in ``bench_sim_ab.py``
    (``docs/guide/simulate.md``)."""
    def decorate(fn):
        disp = jit(fn)
        if not FLAT_STATE:
            return disp
        customize = disp._compiler._customize_flags

        def customize_flags(flags):
            flags = _SimFlags(customize(flags))
            flags.flat_state = True
            return flags
        disp._compiler._customize_flags = customize_flags
        return disp
    return decorate


__all__ = ["kernel", "model_inline", "sim_helper", "sim_inline", "sim_kernel", "sim_nrt"]

kernel = njit(cache=True)
model_inline = njit(cache=True, forceinline=True)
sim_kernel = _by_type(_flat_state(njit(cache=True, _nrt=False)))
sim_helper = _flat_state(njit(cache=True, _nrt=False, forceinline=True))
sim_inline = _flat_state(njit(cache=True, _nrt=False, inline='always'))
sim_nrt = _by_type(njit(cache=True, _nrt=True))
