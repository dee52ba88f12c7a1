"""Small helpers shared by sub-commands: plain-text tables and JSON output."""
from __future__ import annotations

import json
import sys
from typing import Any

from .._text import format_table  # noqa: F401  (re-exported for the sub-commands)


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
