"""The artifact directory of a run: files written as they arrive, atomically, plus a manifest.

``manifest.json`` lists every step of the run with its state (``complete``, ``missing``
or ``failed`` with the error) and the files it produced, and the run's overall
``status`` (``running``, ``complete`` or ``incomplete``). It is rewritten atomically
after each step, so a run that dies halfway leaves a directory that says what is
there and what is not; ``lisa-eas run --resume DIR`` reads it to finish the rest.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterable

from .._atomic import copy_atomic, write_atomic, write_bytes_atomic
from ..errors import ConfigError

__all__ = ["RunArtifacts", "STEPS"]

#: The steps of a run, in order.
STEPS = ("workload", "connect", "probe", "rtapp", "calibration", "tracing", "run", "trace", "logs",
         "run_json")
MANIFEST = "manifest.json"


class RunArtifacts:
    """An artifact directory and its manifest.

    Parameters
    ----------
    out_dir : path
        Created when missing.
    """

    def __init__(self, out_dir: str | Path, manifest: dict | None = None) -> None:
        self.dir = Path(out_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.manifest: dict[str, Any] = manifest or {
            "format": 1, "status": "running", "created": _now(),
            "steps": {s: {"status": "missing"} for s in STEPS}, "context": {}}

    @classmethod
    def open(cls, out_dir: str | Path) -> "RunArtifacts":
        """Re-open an existing artifact directory (for resuming)."""
        path = Path(out_dir) / MANIFEST
        try:
            manifest = json.loads(path.read_text())
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the run manifest ({exc.strerror}); --resume needs "
                              f"a directory written by `lisa-eas run`") from exc
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{exc.lineno}: invalid manifest JSON ({exc.msg})") from exc
        if not isinstance(manifest, dict) or set(manifest.get("steps", {})) != set(STEPS):
            raise ConfigError(f"{path}: not a lisa_eas run manifest (steps {', '.join(STEPS)} expected)")
        return cls(out_dir, manifest)

    # ------------------------------------------------------------- manifest
    @property
    def context(self) -> dict[str, Any]:
        """Free-form facts a resume needs (remote run dir, config path, ...)."""
        return self.manifest["context"]

    def save(self) -> None:
        write_atomic(self.dir / MANIFEST, json.dumps(self.manifest, indent=1, sort_keys=False) + "\n")

    def is_complete(self, step: str) -> bool:
        return self.manifest["steps"][step]["status"] == "complete"

    def missing_steps(self) -> list[str]:
        return [s for s in STEPS if not self.is_complete(s)]

    def step_done(self, step: str, files: Iterable[str] = (), **info: Any) -> None:
        """Mark ``step`` complete with the files it wrote (relative names) and facts."""
        entry = {"status": "complete", "finished": _now()}
        if files:
            entry["files"] = sorted(files)
        entry.update(info)
        self.manifest["steps"][step] = entry
        self.save()

    def step_failed(self, step: str, error: BaseException | str, transient: bool | None = None) -> None:
        entry = {"status": "failed", "finished": _now(), "error": str(error)}
        if transient is not None:
            entry["transient"] = transient
        self.manifest["steps"][step] = entry
        self.manifest["status"] = "incomplete"
        self.save()

    def reset_step(self, step: str) -> None:
        self.manifest["steps"][step] = {"status": "missing"}

    def finish(self) -> None:
        """Set the overall status from the steps (``complete`` only when all are)."""
        self.manifest["status"] = "complete" if not self.missing_steps() else "incomplete"
        self.manifest["finished"] = _now()
        self.save()

    # ---------------------------------------------------------------- files
    def write_text(self, name: str, text: str) -> Path:
        path = self.dir / name
        write_atomic(path, text)
        return path

    def write_json(self, name: str, obj: Any) -> Path:
        return self.write_text(name, json.dumps(obj, indent=1, default=str) + "\n")

    def write_bytes(self, name: str, data: bytes) -> Path:
        path = self.dir / name
        write_bytes_atomic(path, data)
        return path

    def add_file(self, name: str, src: str | Path) -> Path:
        path = self.dir / name
        copy_atomic(Path(src), path)
        return path


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
