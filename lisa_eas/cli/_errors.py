"""One-line messages for what fails at the CLI boundary: OS errors and option errors.

Every failure of a ``lisa-eas`` command ends as one line on stderr and exit status 2
(130 for an interrupt); these helpers turn the exceptions that do not come from the
package's own tree (:class:`OSError`, usage errors) into such a line.
"""
from __future__ import annotations

import errno
import re

__all__ = ["os_error_message", "option_names"]

_FIXES = {
    errno.EEXIST: "it is a file, not a directory: give a directory path (or one that does not exist yet)",
    errno.ENOTDIR: "a part of the path is a file: give a directory path",
    errno.EISDIR: "it is a directory: give a file path",
    errno.EROFS: "give a path on a writable file system (e.g. under $HOME or /tmp)",
    errno.EACCES: "give a path you can write to (e.g. under $HOME or /tmp), or run with the needed rights",
    errno.EPERM: "give a path on an ordinary file system (e.g. under $HOME or /tmp), not /proc or /sys",
    errno.ENOSPC: "free some space or give a path on another file system",
    errno.EDQUOT: "free some space or give a path on another file system",
    errno.ENOENT: "check the path",
    errno.ENAMETOOLONG: "give a shorter path",
}
_VIRTUAL = ("/proc", "/sys")


def os_error_message(exc: OSError) -> str:
    """``PATH: what went wrong; the fix`` for an :class:`OSError` (one line)."""
    path = "" if exc.filename is None else str(exc.filename)
    if exc.filename2 is not None:
        path = f"{path} -> {exc.filename2}"
    what = exc.strerror or str(exc) or type(exc).__name__
    fix = _FIXES.get(exc.errno or -1, "")
    if path.startswith(_VIRTUAL) and exc.errno in (errno.ENOENT, errno.EACCES, errno.EPERM):
        fix = "files cannot be created in /proc or /sys: " + _FIXES[errno.EROFS]
    return (f"{path}: " if path else "") + what + (f"; {fix}" if fix else "")


def option_names(message: str, mapping: dict[str, str]) -> str:
    """``message`` with each dataclass field (``SimConfig.governor``) replaced by the CLI option
    the user typed (``--governor``); longest names first, so ``governor_tunables`` wins over
    ``governor``."""
    for field in sorted(mapping, key=len, reverse=True):
        message = re.sub(rf"\b{re.escape(field)}\b", mapping[field], message)
    return message
