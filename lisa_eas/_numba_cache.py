"""The on-disk numba cache of a package's kernels, invalidated by any change to that package.

numba keys a cached function by its own source file only (``_SourceFileBackedLocatorMixin.
get_source_stamp``: the file's sha256). A kernel that reads a constant or calls a function of
another module (``sim_loop`` reads the state layout of ``sim_state``, inlines the PELT and EAS
kernels) keeps its old machine code when only that other module changes: after a ``git pull``
or an upgrade that renumbers a state field, the stale code indexes the new layout and the
process crashes or computes garbage (seen here as segfaults until ``make clean-cache``).

:func:`install` makes the stamp of every function cached from a file of one of
:data:`PACKAGES` (``lisa_eas/_kernels``, ``lisa_eas/trace``) the pair (numba's own stamp, a
digest of every ``*.py`` of that package directory): any edit there recompiles that package's
kernels on their next call, and nothing else's. It is called by those two packages'
``__init__`` (so before any of their ``@njit(cache=True)`` dispatchers exists), only wraps
numba's stamp method for files of those directories, and does nothing with a numba that lacks
the method (that numba's per-file stamps apply; ``setup.cfg`` bounds the version).
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache

__all__ = ["PACKAGES", "install", "package_digest"]

_HERE = os.path.dirname(os.path.abspath(__file__))
#: package directories whose kernels share one cache stamp
PACKAGES = frozenset(os.path.join(_HERE, p) for p in ("_kernels", "trace"))
_installed = False


def _sources(directory: str) -> tuple:
    """(name, mtime_ns, size) of every ``*.py`` of ``directory``, sorted: the digest's key."""
    out = []
    for e in os.scandir(directory):
        if e.name.endswith(".py") and e.is_file():
            st = e.stat()
            out.append((e.name, st.st_mtime_ns, st.st_size))
    return tuple(sorted(out))


@lru_cache(maxsize=16)
def _digest(directory: str, key: tuple) -> str:
    h = hashlib.sha256()
    for name, _, _ in key:
        h.update(name.encode())
        with open(os.path.join(directory, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def package_digest(directory: str) -> str | None:
    """sha256 over the names and contents of ``directory``'s ``*.py`` files, or None when
    ``directory`` is not one of :data:`PACKAGES`."""
    directory = os.path.abspath(directory)
    if directory not in PACKAGES:
        return None
    return _digest(directory, _sources(directory))


def install() -> None:
    """Key the numba cache of :data:`PACKAGES`' functions by their package's digest (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        from numba.core import caching
        mixin = caching._SourceFileBackedLocatorMixin
        original = mixin.get_source_stamp
    except (ImportError, AttributeError):      # another numba: its per-file stamps apply
        return

    def get_source_stamp(self):
        stamp = original(self)
        py_file = getattr(self, "_py_file", None)
        digest = package_digest(os.path.dirname(py_file)) if py_file else None
        return stamp if digest is None else (stamp, digest)

    get_source_stamp.__wrapped__ = original
    mixin.get_source_stamp = get_source_stamp
