"""Kernel versions ("eras") that select which variant of an algorithm a model follows."""
from __future__ import annotations

import re

from .errors import ModelError

__all__ = ["parse_kernel_version", "select_era"]

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:[.\-].*)?$")


def parse_kernel_version(version: str | tuple[int, int]) -> tuple[int, int]:
    """``"v5.4"``, ``"5.4.0-rc1"`` or ``(5, 4)`` -> ``(5, 4)``; ``ModelError`` otherwise."""
    if isinstance(version, tuple) and len(version) == 2 and all(isinstance(v, int) for v in version):
        return version
    m = _VERSION_RE.match(str(version).strip())
    if not m:
        raise ModelError(f"kernel era {version!r} is not a kernel version; write it like 'v5.4' or 'v6.9'")
    return int(m.group(1)), int(m.group(2))


def select_era(version: str | tuple[int, int], eras: tuple[tuple[int, int], ...], what: str) -> tuple[int, int]:
    """The newest era in ``eras`` (sorted ascending) not newer than ``version``.

    Raises ``ModelError`` when ``version`` predates the first era, naming ``what``.
    """
    v = parse_kernel_version(version)
    chosen = None
    for era in eras:
        if era <= v:
            chosen = era
    if chosen is None:
        first = "v%d.%d" % eras[0]
        raise ModelError(f"{what} does not exist before {first}; got era {version!r}")
    return chosen
