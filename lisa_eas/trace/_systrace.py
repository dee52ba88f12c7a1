"""Android systrace / atrace captures: the ftrace text they carry, handed to the text parser.

Handled containers: modern HTML (``<script class="trace-data">`` blocks; JSON blocks are
ignored), legacy HTML (``var linuxPerfData = "...";`` JavaScript string), JavaScript-escaped
text (``\\n\\`` line ends), and raw ``atrace`` output, plain or ``TRACE:`` + zlib (``atrace -z``).
"""
from __future__ import annotations

import re
import zlib

from ..errors import TraceError
from ._text import parse_text_lines

__all__ = ["read_systrace", "extract_ftrace_text"]

_TRACE_DATA = re.compile(r'<script[^>]*class="trace-data"[^>]*>(.*?)</script>', re.S | re.I)
_LEGACY = re.compile(r'var\s+linuxPerfData\s*=\s*"(.*?)(?:"\s*;\s*)?</script>', re.S)


def _js_unescape(text: str) -> str:
    text = text.replace("\\n\\\n", "\n").replace("\\\n", "\n")
    table = {"n": "\n", "t": "\t"}
    return re.sub(r'\\(["\'\\nt])', lambda m: table.get(m.group(1), m.group(1)), text)


def extract_ftrace_text(raw: bytes, path: str = "") -> tuple[str, str]:
    """Return ``(ftrace text, container kind)`` from a systrace/atrace file's bytes.

    Raises
    ------
    TraceError
        If the zlib stream is corrupt or no ftrace text is found.
    """
    if raw.startswith(b"TRACE:"):
        body = raw[raw.index(b"\n") + 1:] if b"\n" in raw[:8] else raw[6:]
        if body[:1] == b"\x78":
            try:
                body = zlib.decompress(body)
            except zlib.error as exc:
                raise TraceError(f"{path}: byte offset 7: corrupt zlib stream in atrace capture "
                                 f"({exc})") from None
            return body.decode("utf-8", "replace"), "atrace (zlib)"
        return body.decode("utf-8", "replace"), "atrace"
    text = raw.decode("utf-8", "replace")
    blocks = [b for b in _TRACE_DATA.findall(text) if not b.lstrip().startswith(("{", "["))]
    if blocks:
        return "\n".join(blocks), "systrace html"
    m = _LEGACY.search(text)
    if m:
        return _js_unescape(m.group(1)), "systrace html (legacy)"
    if "\\n\\\n" in text[:65536]:
        return _js_unescape(text), "systrace text (js-escaped)"
    if "<html" in text[:4096].lower():
        raise TraceError(f"{path}: HTML file without systrace trace data (no trace-data "
                         "script block and no linuxPerfData string)")
    return text, "ftrace text"


def read_systrace(path, strict: bool = False):
    """Read an Android systrace (HTML) or atrace capture.

    Returns ``({event: DataFrame}, metadata, SkipReport)``; ``tracing_mark_write`` events
    become ``print`` events with the marker text in ``buf``.
    """
    try:
        raw = open(path, "rb").read()
    except OSError as exc:
        raise TraceError(f"{path}: cannot read ({exc.strerror})") from None
    text, kind = extract_ftrace_text(raw, str(path))
    dfs, info, skips = parse_text_lines(text.split("\n"), str(path), strict)
    m = re.search(r"#P:(\d+)", text[:4096])
    cpus = max(info["cpus"], int(m.group(1))) if m else info["cpus"]
    meta = {"source": str(path), "format": kind, "clock": None, "cpus": cpus,
            "kernel_version": None, "event_counts": {e: len(d) for e, d in dfs.items()},
            "lost_events": skips.count("lost_events")}
    return dfs, meta, skips
