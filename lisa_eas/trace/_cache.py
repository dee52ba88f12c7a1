"""Parquet cache of decoded traces, keyed by the trace file's content.

Each trace gets a directory (next to the trace by default: ``.<name>.lisa_eas/``) holding
one parquet file per event and a ``manifest.json`` with the content key, metadata and the
skipped report. The key is a 64-bit hash (SHA-256, truncated; hashlib, so that a cache hit loads neither numba
nor pandas: ~30 ms for 64 MiB here) of the file content (every byte up to 64 MiB, sampled
blocks plus size and mtime above) and the cache format version, so a changed file is
re-decoded.
"""
from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import tempfile
from pathlib import Path

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TraceCache", "content_key", "CACHE_VERSION"]

CACHE_VERSION = 4      # 4: SHA-256 content key
_MANIFEST = "manifest.json"


_FULL_HASH_LIMIT = 64 << 20     # files up to this size are hashed entirely
_SAMPLE_BLOCK = 64 << 10
_SAMPLE_BUDGET = 16 << 20


def _hash_mapped(mm, size: int) -> int:
    h = hashlib.sha256()
    view = memoryview(mm)
    if size <= _FULL_HASH_LIMIT:
        h.update(view)
    else:
        edge = 1 << 20
        nblocks = (_SAMPLE_BUDGET - 2 * edge) // _SAMPLE_BLOCK
        stride = (size - 2 * edge) // nblocks
        h.update(view[:edge])
        h.update(view[size - edge:])
        for k in range(nblocks):
            h.update(view[edge + k * stride:edge + k * stride + _SAMPLE_BLOCK])
    view.release()
    return int.from_bytes(h.digest()[:8], "little")


def content_key(path: str | os.PathLike) -> str:
    """Key of the file content for the cache.

    Files up to 64 MiB: a hash of every byte. Larger files: a hash of the first and last
    MiB (headers, formats, the end of the last CPU's data) and of 64 KiB blocks spread
    evenly over the rest (16 MiB sampled in all), together with the size and the
    modification time in ns. Always combined with the cache format version.
    """
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        size = st.st_size
        if size == 0:
            return f"v{CACHE_VERSION}-0-0"
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            h = _hash_mapped(mm, size)
        extra = f"-{st.st_mtime_ns:x}" if size > _FULL_HASH_LIMIT else ""
    return f"v{CACHE_VERSION}-{size:x}-{h:016x}{extra}"


def default_cache_dir(path: Path) -> Path:
    return path.parent / f".{path.name}.lisa_eas"


def _fallback_dir(path: Path) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lisa_eas" / "traces"
    return base / f"{path.name}-{abs(hash(str(path.resolve()))):x}"


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    return obj


class TraceCache:
    """The cache directory of one trace file."""

    def __init__(self, trace_path: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                 buffer: str | None = None):
        self.trace_path = Path(trace_path)
        if cache_dir is not None:
            self.dir = Path(cache_dir) / f"{self.trace_path.name}.lisa_eas"
        else:
            self.dir = default_cache_dir(self.trace_path)
            if not os.access(self.dir.parent, os.W_OK):
                self.dir = _fallback_dir(self.trace_path)
        if buffer is not None:
            self.dir = self.dir.with_name(self.dir.name + f"@{buffer or 'top'}")
        self.key = content_key(self.trace_path)

    def manifest(self) -> dict | None:
        """The manifest if the cache matches the current file content, else None."""
        try:
            man = json.loads((self.dir / _MANIFEST).read_text())
        except (OSError, ValueError):
            return None
        if man.get("key") != self.key or man.get("version") != CACHE_VERSION:
            return None
        return man

    def event_path(self, event: str) -> Path:
        return self.dir / f"{event}.parquet"

    def load(self, event: str) -> pd.DataFrame:
        """The cached DataFrame of ``event`` (see :mod:`._parquet_io` for the file layout)."""
        from ._parquet_io import read_frame
        return read_frame(self.event_path(event))[0]

    def store(self, dfs: dict, metadata: dict, skipped: dict, manifest: dict | None) -> None:
        """Write ``dfs`` (adding to an existing matching cache); best effort, never raises."""
        import pyarrow as pa

        from ._parquet_io import write_frame
        try:
            if manifest is None and self.dir.exists():
                shutil.rmtree(self.dir, ignore_errors=True)
            self.dir.mkdir(parents=True, exist_ok=True)
            stored = set(manifest["stored"]) if manifest else set()
            for name, df in dfs.items():
                fd, tmp = tempfile.mkstemp(dir=self.dir, suffix=".tmp")
                os.close(fd)
                write_frame(df, tmp)
                os.chmod(tmp, 0o644)
                os.replace(tmp, self.event_path(name))
                stored.add(name)
            man = {"key": self.key, "version": CACHE_VERSION, "source": str(self.trace_path),
                   "metadata": _jsonable(metadata), "skipped": _jsonable(skipped),
                   "stored": sorted(stored)}
            fd, tmp = tempfile.mkstemp(dir=self.dir, suffix=".tmp")
            with os.fdopen(fd, "w") as fh:
                json.dump(man, fh)
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.dir / _MANIFEST)
        except (OSError, pa.ArrowException, TypeError, ValueError):
            # an unwritable or full disk must not break reading the trace
            pass
