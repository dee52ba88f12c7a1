"""Lazy public names for packages: import the defining module on first attribute access.

Keeps ``import lisa_eas`` (and its sub-packages) quick and free of side effects: pandas,
numba and holoviews load only when a name that needs them is first used.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping, MutableMapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str], namespace: MutableMapping[str, Any]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Build a package's module-level ``__getattr__`` and ``__dir__``.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (relative module names in ``exports`` resolve against it).
    exports : mapping of str to str
        Public name -> module defining it (absolute, or relative such as ``"._tasks"``).
    namespace : dict
        The package's ``globals()``; a loaded name is stored there so the lookup runs once.
    """
    def __getattr__(name: str) -> Any:
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
