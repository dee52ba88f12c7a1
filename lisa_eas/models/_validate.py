"""Argument checks shared by the public model wrappers: bad input -> ModelError naming it."""
from __future__ import annotations

import numpy as np

from .._era import parse_kernel_version, select_era
from ..errors import ModelError


def int_array(value, name: str, *, ndim: tuple[int, ...] = (1,), lo: int | None = None,
              hi: int | None = None) -> np.ndarray:
    """``value`` as a C-contiguous int64 array, checked for shape and range."""
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise ModelError(f"{name} must be an array of integers ({exc})") from None
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ModelError(f"{name} contains NaN or infinite values")
        if not np.all(arr == np.floor(arr)):
            raise ModelError(f"{name} must hold integers (the kernel's integer arithmetic); "
                             f"round it first, e.g. np.rint({name}).astype(int)")
    elif arr.dtype.kind not in "iu":
        raise ModelError(f"{name} must be an array of integers, got dtype {arr.dtype}")
    if arr.ndim not in ndim:
        raise ModelError(f"{name} must have {' or '.join(str(d) for d in ndim)} dimension(s), "
                         f"got shape {arr.shape}")
    arr = np.array(arr, dtype=np.int64, order="C")
    if arr.size:
        if lo is not None and arr.min() < lo:
            raise ModelError(f"{name} must be >= {lo}; found {arr.min()} "
                             f"at index {np.unravel_index(arr.argmin(), arr.shape)}")
        if hi is not None and arr.max() > hi:
            raise ModelError(f"{name} must be <= {hi}; found {arr.max()} "
                             f"at index {np.unravel_index(arr.argmax(), arr.shape)}")
    return arr


def util_array(value, name: str, ndim=(1,)) -> np.ndarray:
    """Utilization values (0..1024)."""
    return int_array(value, name, ndim=ndim, lo=0, hi=1024)


def int_scalar(value, name: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ModelError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if lo is not None and value < lo:
        raise ModelError(f"{name} must be >= {lo}, got {value}")
    if hi is not None and value > hi:
        raise ModelError(f"{name} must be <= {hi}, got {value}")
    return value


def sorted_times(value, name: str) -> np.ndarray:
    """Non-negative, non-decreasing timestamps in ns (below 2**62, so sums cannot overflow)."""
    arr = int_array(value, name, lo=0, hi=1 << 62)
    if arr.size > 1:
        bad = np.flatnonzero(np.diff(arr) < 0)
        if bad.size:
            i = int(bad[0]) + 1
            raise ModelError(f"{name} must be sorted (non-decreasing): {name}[{i}] = {arr[i]} "
                             f"< {name}[{i - 1}] = {arr[i - 1]}")
    return arr


def era_of(era, eras, what: str) -> tuple[int, int]:
    """The modeled era for kernel version ``era``; ModelError for garbage or too-old versions."""
    return select_era(parse_kernel_version(era), eras, what)


def cpu_index(value, name: str, nr_cpus: int) -> np.ndarray:
    arr = int_array(value, name, ndim=(0, 1))
    if arr.size and (arr.min() < 0 or arr.max() >= nr_cpus):
        bad = int(arr.min() if arr.min() < 0 else arr.max())
        raise ModelError(f"{name}: CPU {bad} is not in the platform (CPUs 0..{nr_cpus - 1})")
    return arr
