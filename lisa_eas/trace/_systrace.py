"""Android systrace / atrace captures: the ftrace text they carry, handed to the text parser.

Handled containers: modern HTML (``<script class="trace-data">`` blocks; JSON blocks are
ignored), legacy HTML (``var linuxPerfData = "...";`` JavaScript string), JavaScript-escaped
text (``\\n\\`` line ends), and raw ``atrace`` output, plain or ``TRACE:`` + zlib (``atrace -z``).
"""
from __future__ import annotations

import re
import zlib

from ..errors import TraceError
from ._skips import SkipReport
from ._text import parse_text_lines

__all__ = ["read_systrace", "extract_ftrace_text"]

_TRACE_DATA = re.compile(r'<script[^>]*class="trace-data"[^>]*>(.*?)</script>', re.S | re.I)
_TRACE_DATA_OPEN = re.compile(r'<script[^>]*class="trace-data"[^>]*>', re.I)
_LEGACY = re.compile(r'var\s+linuxPerfData\s*=\s*"(.*?)(?:"\s*;\s*)?</script>', re.S)
_LEGACY_OPEN = re.compile(r'var\s+linuxPerfData\s*=\s*"')
# The line legacy systrace appends after the data (its HTML suffix): a fake clock-sync event
# stamped 0.0, which would otherwise stretch the trace back to time 0.
_DUMMY = re.compile(r"^\s*dummy-0+\s+\[\d+\]\s+0\.0+:\s+0:\s+trace_event_clock_sync:")

#: what :func:`extract_ftrace_text` noticed: ``(reason, line, detail)`` per finding
Findings = list


def _js_unescape(text: str) -> str:
    text = text.replace("\\n\\\n", "\n").replace("\\\n", "\n")
    table = {"n": "\n", "t": "\t"}
    return re.sub(r'\\(["\'\\nt])', lambda m: table.get(m.group(1), m.group(1)), text)


def extract_ftrace_text(raw: bytes, path: str = "", findings: Findings | None = None) -> tuple[str, str]:
    """Return ``(ftrace text, container kind)`` from a systrace/atrace file's bytes.

    An HTML capture cut short (its trace data opened but never closed, e.g. a copy that
    stopped early) gives the text up to the end of the file, and ``("truncated_html", line,
    detail)`` is appended to ``findings``.

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
    cut = _TRACE_DATA_OPEN.search(text)
    while cut and text[cut.end():cut.end() + 4096].lstrip().startswith(("{", "[")):
        cut = _TRACE_DATA_OPEN.search(text, cut.end())        # a JSON block: not ftrace text
    legacy = _LEGACY_OPEN.search(text) if cut is None else None
    if cut or legacy:
        start = (cut or legacy).end()
        if findings is not None:
            findings.append(("truncated_html", text.count("\n", 0, start) + 1,
                             "the trace data is never closed (no </script>): the file was cut short; "
                             "everything up to its end was read"))
        body = text[start:]
        return (body, "systrace html (truncated)") if cut else (_js_unescape(body), "systrace html (legacy, "
                                                                                   "truncated)")
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
    findings: Findings = []
    text, kind = extract_ftrace_text(raw, str(path), findings)
    if strict and findings:         # the truncation first: what follows it is cut too
        early = SkipReport(str(path), unit="line")
        for reason, line, detail in findings:
            early.add(reason, 1, line, detail)
        early.raise_if_any()
    lines = text.split("\n")
    dummies = [i for i in range(max(0, len(lines) - 4), len(lines)) if _DUMMY.match(lines[i])]
    for i in dummies:           # blank lines are skipped as headers; the numbering is kept
        lines[i] = ""
    dfs, info, skips = parse_text_lines(lines, str(path), strict)
    if dummies:
        skips.add("systrace_dummy_line", len(dummies), dummies[0] + 1,
                  "legacy systrace's trailing dummy trace_event_clock_sync stamped 0.0 (not an event)")
    for reason, line, detail in findings:
        skips.add(reason, 1, line, detail)
    m = re.search(r"#P:(\d+)", text[:4096])
    cpus = max(info["cpus"], int(m.group(1))) if m else info["cpus"]
    meta = {"source": str(path), "format": kind, "clock": None, "cpus": cpus,
            "kernel_version": None, "event_counts": {e: len(d) for e, d in dfs.items()},
            "lost_events": skips.count("lost_events")}
    return dfs, meta, skips
