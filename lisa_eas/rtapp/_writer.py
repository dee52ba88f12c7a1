"""Write the workload model as rt-app JSON that Debian's rt-app 1.0 runs as is.

json-c (rt-app's parser) keeps only the last of repeated keys, so repeated events get
numeric suffixes (``run``, ``run1``, ``run2``...), which rt-app matches by prefix. Keys
that were not given (``None``) are not written; unknown keys kept by the reader are
written back after the known ones.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from .._atomic import write_atomic

if TYPE_CHECKING:       # the model's classes, for the annotations only: _model imports this module
    from ._model import GlobalSettings, Phase, Task, Workload, _Props

__all__ = ["workload_to_dict", "workload_to_json", "write_workload"]

_PROP_FIELDS = (("policy", "policy"), ("priority", "priority"), ("dl_runtime_us", "dl-runtime"),
                ("dl_period_us", "dl-period"), ("dl_deadline_us", "dl-deadline"), ("cpus", "cpus"),
                ("nodes_membind", "nodes_membind"), ("util_min", "util_min"),
                ("util_max", "util_max"), ("taskgroup", "taskgroup"))
_GLOBAL_FIELDS = (("duration_s", "duration"), ("calibration", "calibration"),
                  ("default_policy", "default_policy"), ("pi_enabled", "pi_enabled"),
                  ("lock_pages", "lock_pages"), ("logdir", "logdir"), ("log_basename", "log_basename"),
                  ("log_size", "log_size"), ("ftrace", "ftrace"), ("gnuplot", "gnuplot"),
                  ("io_device", "io_device"), ("mem_buffer_size", "mem_buffer_size"),
                  ("cumulative_slack", "cumulative_slack"))


def _jsonable(v):
    if hasattr(v, "value") and isinstance(v, str):  # Policy enum
        return v.value
    if isinstance(v, tuple):
        return list(v)
    return v


def _props(obj: _Props, out: dict) -> None:
    for f, key in _PROP_FIELDS:
        v = getattr(obj, f)
        if v is not None:
            out[key] = _jsonable(v)


def _events(ph: Phase, out: dict) -> None:
    counts: dict[str, int] = {}
    for ev in ph.events:
        n = counts.get(ev.KEY, 0)
        counts[ev.KEY] = n + 1
        out[ev.KEY if n == 0 else f"{ev.KEY}{n}"] = ev.to_value()


def _extra(pairs, out: dict) -> None:
    for k, v in pairs:
        out[k] = v


def _task(t: Task) -> dict:
    out: dict = {}
    if t.instance is not None:
        out["instance"] = t.instance
    if t.delay_us is not None:
        out["delay"] = t.delay_us
    if t.loop is not None:
        out["loop"] = t.loop
    _props(t, out)
    if t.inline and len(t.phases) == 1:
        _events(t.phases[0], out)
    else:
        phases: dict = {}
        for ph in t.phases:
            p: dict = {}
            if ph.loop is not None:
                p["loop"] = ph.loop
            _props(ph, p)
            _events(ph, p)
            _extra(ph.extra, p)
            phases[ph.name] = p
        out["phases"] = phases
    _extra(t.extra, out)
    return out


def _global(g: GlobalSettings) -> dict:
    out: dict = {}
    for f, key in _GLOBAL_FIELDS:
        v = getattr(g, f)
        if v is not None:
            out[key] = _jsonable(v)
    _extra(g.extra, out)
    return out


def workload_to_dict(workload: Workload) -> dict:
    """The workload as a JSON-ready dict (unique keys, file order kept)."""
    names = [t.name for t in workload.tasks]
    if len(set(names)) != len(names):
        from ..errors import WorkloadError

        dup = sorted({n for n in names if names.count(n) > 1})
        raise WorkloadError(f"{workload.source}: task names {dup} are repeated; give each task "
                            "a distinct name (rt-app keys tasks by name)")
    out: dict = {"global": _global(workload.global_settings),
                 "tasks": {t.name: _task(t) for t in workload.tasks}}
    _extra(workload.extra, out)
    return out


def _is_flat(v) -> bool:
    if isinstance(v, list):
        return all(not isinstance(x, (dict, list)) for x in v)
    if isinstance(v, dict):
        return len(v) <= 4 and all(not isinstance(x, (dict, list)) for x in v.values())
    return True


def _dump(v, indent: int, level: int) -> str:
    """JSON with one member per line, but flat arrays and small flat objects (timer) inline."""
    if _is_flat(v) or not isinstance(v, (dict, list)):
        return json.dumps(v, separators=(", ", ": "))
    pad, inner = " " * (indent * level), " " * (indent * (level + 1))
    if isinstance(v, list):
        body = ",\n".join(inner + _dump(x, indent, level + 1) for x in v)
        return "[\n" + body + "\n" + pad + "]"
    body = ",\n".join(f"{inner}{json.dumps(k)}: {_dump(x, indent, level + 1)}" for k, x in v.items())
    return "{\n" + body + "\n" + pad + "}"


def workload_to_json(workload: Workload, indent: int = 2) -> str:
    """rt-app JSON text of ``workload``: strict JSON, repeated events as ``run``, ``run1``...

    Parameters
    ----------
    workload : Workload
        What to write.
    indent : int
        Spaces per level; flat arrays and small flat objects (timers) stay on one line.

    Returns
    -------
    str
        The text, ending with a newline.
    """
    d = workload_to_dict(workload)
    return "{\n" + ",\n".join(f"{' ' * indent}{json.dumps(k)}: {_dump(x, indent, 1)}"
                               for k, x in d.items()) + "\n}\n"


def write_workload(workload: Workload, path) -> Path:
    """Write ``workload`` to ``path`` as rt-app JSON, atomically.

    Parameters
    ----------
    workload : Workload
        What to write.
    path : str or Path
        Destination (parent directories are created).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    WorkloadError
        If two tasks share a name (rt-app keys tasks by name).
    """
    p = Path(path)
    write_atomic(p, workload_to_json(workload))
    return p
