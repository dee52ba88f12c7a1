"""Atomic file writes: a reader never sees a half-written file.

Each write goes to a temporary file in the destination directory, is flushed to
disk, then renamed over the destination (``os.replace`` is atomic on POSIX).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["copy_atomic", "write_atomic", "write_bytes_atomic"]


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file in the same directory, then rename)."""
    write_bytes_atomic(path, text.encode())


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same directory, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:    # a full disk fails in write(): name the file it was for
        os.unlink(tmp)
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        os.unlink(tmp)
        raise


def copy_atomic(src: Path, path: Path) -> None:
    """Copy the file ``src`` to ``path`` atomically (the copy appears whole or not at all)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError as exc:    # a full disk fails in write(): name the file it was for
        os.unlink(tmp)
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        os.unlink(tmp)
        raise
