"""What both page walks of a ``trace.dat`` share, without numba or pandas: the ring-buffer
constants, the record layout read from the file's ``header_page`` and common fields, the
check of the page size, the cut of each CPU's data into walk chunks, how a walk's counts
become the skipped report, and the trace's metadata.

The decoding reader (:mod:`lisa_eas.trace._datread`, numba walks) and the counting walk of
``lisa-eas trace info`` (:mod:`lisa_eas.trace._datcount`, plain Python) both use these, so
the two agree on everything but the fields they decode.
"""
from __future__ import annotations

import re

from ..errors import TraceError
from ._datfile import DatFile
from ._skips import SkipReport

__all__ = ["DIAG_NAMES", "NDIAG_WALK", "RB_MISSED_EVENTS", "RB_MISSED_STORED", "ABS_TS_MASK",
           "record_layout", "check_page_size", "walk_chunks", "run_ends", "add_walk_skips",
           "add_unknown_skips", "dat_metadata", "kernel_version"]

# rows of a walk's ``diag`` table: [count, first byte offset]
DIAG_NAMES = (
    "corrupt_page",         # commit larger than the page, or page cut by the end of data
    "truncated_record",     # a record runs past the committed data of its page
    "bad_record_length",    # a length word smaller than its own header
    "short_record",         # a record too small to hold the common header
    "lost_event_pages",     # pages flagged by the kernel as following lost events
    "lost_events",          # number of events the kernel says it dropped (when stored)
)
NDIAG_WALK = len(DIAG_NAMES)
# the commit word's flags (kernel ring_buffer.c: RB_MISSED_EVENTS, RB_MISSED_STORED)
RB_MISSED_EVENTS = 1 << 31
RB_MISSED_STORED = 1 << 30
# an absolute time stamp record (type_len 31) replaces the low 59 bits of the time
ABS_TS_MASK = (1 << 59) - 1
_CHUNK_BYTES = 8 << 20      # file bytes walked between two releases of the mapped pages


def kernel_version(uname: str) -> str | None:
    """The kernel release of a ``uname -a`` line (``None`` when it has none)."""
    m = re.match(r"\S+\s+\S+\s+(\d+\.\d+\S*)", uname or "")
    return m.group(1) if m else None


def _pages_plausible(dat: DatFile, page: int, sample: int = 64) -> bool:
    """Whether the first ``sample`` pages of each CPU, cut every ``page`` bytes, all have a
    commit that fits the page and time stamps that do not go backwards."""
    hp = dat.header_page
    ts_off = hp["timestamp"][0]
    c_off, c_size = hp["commit"]
    d_off = hp["data"][0]
    if dat.raw is None or page <= d_off:
        return False
    e = ">" if dat.big_endian else "<"
    buf = dat.raw
    for _, start, size in dat.cpu_ranges:
        last = -1
        for k in range(min(sample, size // page)):
            base = start + k * page
            head = bytes(buf[base:base + d_off])
            if len(head) < d_off:
                return False
            ts = int.from_bytes(head[ts_off:ts_off + 8], "big" if e == ">" else "little")
            commit = int.from_bytes(head[c_off:c_off + c_size], "big" if e == ">" else "little")
            commit &= (1 << 27) - 1            # the kernel keeps flags above the length
            if commit > page - d_off or (commit and ts < last):
                return False
            if commit:
                last = ts
    return True


def check_page_size(dat: DatFile, skips: SkipReport) -> None:
    """Hold the file's page size against the page layout the kernel described (header_page:
    ``data`` runs from its offset to the end of the page). A corrupted page size would make
    the page walk read one page in two (or worse) while every page it did read looked fine.
    When the two disagree, the smaller one whose pages all look sound (commit within the page,
    time stamps not going backwards, on the first pages of each CPU) is used and the mismatch
    reported: a too-large size also lands on sound pages (every other one), a too-small one
    cuts them. A page size that is not a power of two is reported as implausible."""
    off, size = dat.header_page.get("data", (0, 0))
    implied = int(off) + int(size)
    where = int(dat.page_size_offset)
    ok = 256 <= implied <= 1 << 24 and implied & (implied - 1) == 0
    if implied != dat.page_size and ok:
        sound = [p for p in sorted((implied, dat.page_size)) if _pages_plausible(dat, p)]
        chosen = sound[0] if sound else implied
        skips.add("page_size_mismatch", 1, where,
                  f"the file header gives pages of {dat.page_size} bytes but its header_page layout a page of "
                  f"{implied} bytes (data at {off}, {size} bytes); the file is corrupt, decoded with {chosen}")
        dat.page_size = chosen
    elif dat.page_size & (dat.page_size - 1):
        skips.add("implausible_page_size", 1, where,
                  f"page size {dat.page_size} is not a power of two (ring-buffer pages are); the file is corrupt "
                  f"and events may be missing")


def record_layout(dat: DatFile, skips: SkipReport) -> tuple:
    """The page and record layout both walks take after ``(buf, start, size)``: ``(page_size,
    ts_off, commit_off, commit_size, data_off, big, type_off, type_size, pid_off)``, after
    checking the page size (which may correct ``dat.page_size`` and report it in ``skips``).

    The common header's ``common_type`` and ``common_pid`` positions come from any event
    format of the file (2 bytes at 0 and 4 bytes at 4 when none says otherwise).

    Raises
    ------
    TraceError
        If the header_page commit word is not 4 or 8 bytes.
    """
    hp = dat.header_page
    fmt0 = dat.any_format()
    tf = fmt0.field("common_type") if fmt0 else None
    pf = fmt0.field("common_pid") if fmt0 else None
    type_off, type_size = (tf.offset, tf.size) if tf and tf.size in (1, 2, 4) else (0, 2)
    pid_off = pf.offset if pf and pf.size == 4 else 4
    check_page_size(dat, skips)
    commit_off, commit_size = hp["commit"]
    if commit_size not in (4, 8):
        raise TraceError(f"{dat.path}: header_page commit size {commit_size} is not 4 or 8")
    return (dat.page_size, hp["timestamp"][0], commit_off, commit_size, hp["data"][0],
            dat.big_endian, type_off, type_size, pid_off)


def walk_chunks(dat: DatFile) -> list:
    """(cpu, start, size) pieces of the CPU ranges, cut on page boundaries every
    ``_CHUNK_BYTES`` (the walk of a piece equals that part of the range's walk: every page
    restarts from its own time stamp)."""
    step = max(1, _CHUNK_BYTES // dat.page_size) * dat.page_size
    out = []
    for cpu, start, size in dat.cpu_ranges:
        for a in range(0, max(size, 1), step):
            out.append((cpu, start + a, min(step, size - a)))
    return out


def run_ends(chunks: list) -> list:
    """Whether each chunk ends a per-CPU run of the time merge (the next chunk is another
    CPU's, or not contiguous with it)."""
    return [k + 1 == len(chunks) or chunks[k + 1][0] != cpu or chunks[k + 1][1] != start + size
            for k, (cpu, start, size) in enumerate(chunks)]


def add_walk_skips(skips: SkipReport, diag) -> None:
    """The counts of a walk's ``diag`` table (rows :data:`DIAG_NAMES`) into ``skips``."""
    for k, name in enumerate(DIAG_NAMES):
        if diag[k][0]:
            skips.add(name, int(diag[k][0]), int(diag[k][1]))


def add_unknown_skips(skips: SkipReport, unknown: dict, out_of_range: int, first: int) -> None:
    """Records whose event id has no format (``unknown``: id -> records, in id order) or lies
    outside 0..65535; ``first`` is the byte offset of the first such record."""
    for eid, n in unknown.items():
        skips.add("unknown_event_id", int(n), first, f"event id {eid} has no format in the file")
    if out_of_range:
        skips.add("unknown_event_id", int(out_of_range), first, "event id out of range")


def dat_metadata(path, dat: DatFile, counts: dict, skips: SkipReport) -> dict:
    """The metadata of a trace.dat read (``counts``: records per event name)."""
    return {
        "source": str(path),
        "format": f"trace.dat v{dat.version}",
        "clock": dat.clock or "local",
        "cpus": int(dat.options.get("cpucount") or dat.nr_cpus),
        "kernel_version": kernel_version(dat.options.get("uname", "")),
        "uname": dat.options.get("uname"),
        "compression": dat.compression,
        "long_size": int(dat.header_page["commit"][1]),
        "page_size": int(dat.page_size),
        "event_counts": counts,
        "lost_events": skips.count("lost_events"),
        "buffer": dat.options.get("instance", ""),
        "buffers": dat.options.get("buffers", [""]),
    }
