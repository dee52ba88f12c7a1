"""The simulator's numba flags (``lisa_eas._kernels._jit``): a ``sim_*`` function called from
another njit function with constant arguments is compiled once per argument types, not once
per constant (numba's default, which compiled the loop's helpers up to 16 times each)."""
from __future__ import annotations

from numba import njit

from lisa_eas._kernels._jit import _by_type


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
