"""The report of what a reader could not decode (kept on every Trace)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import TraceError

__all__ = ["SkipReport"]


@dataclass
class SkipReport:
    """Counts and first position of everything a reader skipped or could not decode.

    ``entries`` maps a reason (``"corrupt_page"``, ``"unparsed_line"``, ...) to a dict
    with ``count``, ``first`` (byte offset for binary files, line number for text; -1
    when not tied to one place) and ``detail`` (first message).
    """

    source: str = ""
    unit: str = "byte offset"
    entries: dict = field(default_factory=dict)

    def add(self, reason: str, count: int = 1, first: int = -1, detail: str = "") -> None:
        e = self.entries.get(reason)
        if e is None:
            self.entries[reason] = {"count": int(count), "first": int(first), "detail": detail}
        else:
            e["count"] += int(count)
            if e["first"] < 0 <= first:
                e["first"] = int(first)

    def count(self, reason: str) -> int:
        e = self.entries.get(reason)
        return e["count"] if e else 0

    @property
    def total(self) -> int:
        """Number of skipped items, lost-event notices excluded."""
        return sum(e["count"] for r, e in self.entries.items() if not r.startswith("lost_"))

    def __bool__(self) -> bool:
        return bool(self.entries)

    def as_dict(self) -> dict:
        return {k: dict(v) for k, v in self.entries.items()}

    def raise_if_any(self) -> None:
        """Raise :class:`TraceError` for the first skipped item (strict mode)."""
        bad = [(r, e) for r, e in self.entries.items() if not r.startswith("lost_")]
        if not bad:
            return
        bad.sort(key=lambda re_: (re_[1]["first"] < 0, re_[1]["first"]))
        reason, e = bad[0]
        where = f"{self.unit} {e['first']}" if e["first"] >= 0 else "somewhere in the file"
        detail = f" ({e['detail']})" if e["detail"] else ""
        raise TraceError(f"{self.source}: {where}: {reason}{detail}; {e['count']} such item(s). "
                         "Read with strict=False to keep every decodable event and see "
                         "Trace.skipped")

    def __str__(self) -> str:
        if not self.entries:
            return "nothing skipped"
        return "; ".join(f"{r}: {e['count']} (first at {self.unit} {e['first']})"
                         for r, e in self.entries.items())
