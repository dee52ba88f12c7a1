"""Small helpers shared by sub-commands: plain-text tables and JSON output."""
from __future__ import annotations

import json
import sys
from typing import Any, Sequence


def print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=1, default=_default)
    sys.stdout.write("\n")


def _default(o):
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (tuple, set, frozenset)):
        return list(o)
    return str(o)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Right-aligned plain-text table (numbers line up), one header line and a rule."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = "  ".join(h.rjust(w) for h, w in zip(headers, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    return "\n".join(out)


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}".rstrip("0").rstrip(".") if v == v else "nan"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)
