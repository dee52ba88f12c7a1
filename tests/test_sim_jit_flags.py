"""The simulator's numba flags (``lisa_eas._kernels._jit``): a ``sim_*`` function called from
another njit function with constant arguments is compiled once per argument types, not once
per constant (numba's default, which compiled the loop's helpers up to 16 times each); a ``sim_*``
function indexes its flat arrays without numba's negative-index wrap-around, and only it."""
from __future__ import annotations

from numba import njit

import numpy as np

from lisa_eas._kernels._jit import FLAT_STATE, _by_type, _flat_state


def test_constant_arguments_share_one_specialisation():
    add = _by_type(njit(cache=False, _nrt=False))(lambda a, b: a + b)
    plain = njit(cache=False)(lambda a, b: a + b)

    @njit(cache=False)
    def caller(x):
        return add(x, 1) + add(x, 2) + add(1, x) + add(x, x) + plain(x, 1) + plain(x, 2)

    assert caller(3) == 4 + 5 + 4 + 6 + 4 + 5
    assert [tuple(str(t) for t in sig) for sig in add.signatures] == [("int64", "int64")]
    # numba's own behaviour, which _by_type turns off: one specialisation per literal value
    assert len(plain.signatures) == 2


def test_a_non_literal_type_still_gets_its_own_specialisation():
    pick = _by_type(njit(cache=False, _nrt=False, forceinline=True))(lambda a, flag: a if flag else -a)

    @njit(cache=False)
    def caller(x):
        return pick(x, True) + pick(x, False) + pick(x, x > 0) + pick(x, 1)

    assert caller(5) == 5 - 5 + 5 + 5
    assert sorted(tuple(str(t) for t in sig) for sig in pick.signatures) == [("int64", "bool"), ("int64", "int64")]


def _wraps(llvm_ir: str) -> bool:
    """numba's wrap-around of a signed index: ``select (i < 0), i + n, i``."""
    return "icmp slt" in llvm_ir and "select" in llvm_ir


def test_flat_state_functions_index_without_the_wrap_around():
    import numba
    assert FLAT_STATE, f"numba {numba.__version__} lacks the internals the loop's flat_state flag hooks into"
    flat = _flat_state(njit(cache=False, _nrt=False))(lambda S, i: S[S[0] + i])
    plain = njit(cache=False)(lambda S, i: S[S[0] + i])
    S = np.arange(10, dtype=np.int64)
    S[0] = 3
    assert flat(S, 2) == plain(S, 2) == 5
    assert not _wraps(flat.inspect_llvm(flat.signatures[0]))
    assert _wraps(plain.inspect_llvm(plain.signatures[0]))


def test_a_kernel_called_from_a_flat_state_function_keeps_the_wrap_around():
    at = njit(cache=False)(lambda a, i: a[i])       # a model kernel: numba's own semantics

    @_flat_state(njit(cache=False, _nrt=False))
    def caller(S, i):
        return at(S[1:4], i) + at(S, i)

    S = np.arange(10, dtype=np.int64)
    assert caller(S, -1) == 3 + 9
    assert _wraps(at.inspect_llvm(at.signatures[0]))
