"""Helpers shared by the trace tests: test data set-up and the trace-cmd report oracle."""
from __future__ import annotations

import csv
import lzma
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import numpy as np

TRACES = Path(__file__).resolve().parent / "data" / "traces"
DAT_NAMES = ("lisa_juno-r0_sched_load", "trappy_arm32_thermal", "trappy_juno_cpu_idle",
             "trappy_juno_sched_switch")
HAVE_TRACE_CMD = shutil.which("trace-cmd") is not None

_LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):"
                   r"\s+(?P<event>\w+):\s?(?P<payload>.*)$")


def unpack_dat(name: str, dest: Path) -> Path:
    """Decompress ``tests/data/traces/dat/<name>.dat.xz`` into ``dest``."""
    out = dest / f"{name}.dat"
    if not out.exists():
        out.write_bytes(lzma.decompress((TRACES / "dat" / f"{name}.dat.xz").read_bytes()))
    return out


def convert(src: Path, dest: Path, version: int, compression: str) -> Path:
    """``trace-cmd convert`` a trace.dat to another file version / compression."""
    subprocess.run(["trace-cmd", "convert", "--file-version", str(version), "--compression",
                    compression, "-i", str(src), "-o", str(dest)], check=True,
                   capture_output=True, timeout=120)
    return dest


def expected_counts(rel_prefix: str) -> dict[str, dict[str, int]]:
    """``{file: {event: count}}`` from expected_event_counts.csv (breakdown rows dropped)."""
    out: dict = defaultdict(dict)
    with open(TRACES / "expected_event_counts.csv") as fh:
        for row in csv.DictReader(fh):
            if row["file"].startswith(rel_prefix) and "/" not in row["event"]:
                out[row["file"]][row["event"]] = int(row["count"])
    return dict(out)


def report_text(path: Path, raw: bool = True, buffer: str | None = None) -> str:
    """``trace-cmd report [-R] -t`` text; with ``buffer``, only that instance's lines
    (trace-cmd prefixes them with ``NAME:``), prefix removed."""
    cmd = ["trace-cmd", "report", "-t"] + (["-R"] if raw else []) + [str(path)]
    text = subprocess.run(cmd, check=True, capture_output=True, timeout=300).stdout.decode(
        "utf-8", "replace")
    if buffer:
        prefix = buffer + ":"
        text = "\n".join(ln[len(prefix):] for ln in text.split("\n") if ln.startswith(prefix))
    return text


def report_lines(path: Path, raw: bool = True, buffer: str | None = None) -> dict[str, list[tuple]]:
    """Run ``trace-cmd report [-R] -t`` and group its event lines by event name.

    Each entry is ``(ts_ns, cpu, pid, comm, payload)``.
    """
    if buffer:
        text = report_text(path, raw, buffer)
        return _group(text, "")
    cmd = ["trace-cmd", "report", "-t"] + (["-R"] if raw else []) + [str(path)]
    for _ in range(2):   # trace-cmd has been seen printing nothing once on a loaded machine
        proc = subprocess.run(cmd, check=True, capture_output=True, timeout=300)
        if proc.stdout.count(b"\n") > 1:
            break
    return _group(proc.stdout.decode("utf-8", "replace"), proc.stderr[-500:])


def _group(text: str, stderr) -> dict[str, list[tuple]]:
    out: dict = defaultdict(list)
    for line in text.split("\n"):
        m = _LINE.match(line)
        if not m:
            continue
        sec, frac = m.group("ts").split(".")
        ts = int(sec) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])
        out[m.group("event")].append((ts, int(m.group("cpu")), int(m.group("pid")),
                                      m.group("comm").strip(), m.group("payload").lstrip(" ")))
    assert out, f"trace-cmd report gave no event lines: {stderr!r} {text[:300]!r}"
    return out


def payload_regex(fields) -> re.Pattern:
    parts = [re.escape(f) + ("=(.*)" if i == len(fields) - 1 else "=(.*?)")
             for i, f in enumerate(fields)]
    return re.compile("^" + " ".join(parts) + r"\s*$", re.S)


def value_matches(ours, text: str) -> bool | None:
    """Does our decoded value equal trace-cmd's rendering? None if not comparable."""
    if isinstance(ours, (int, np.integer)):
        t = text.strip()
        if re.fullmatch(r"-?\d+", t):
            return int(t) == int(ours)
        if re.fullmatch(r"0x[0-9a-fA-F]+", t):
            return int(t, 16) == int(ours) % (1 << 64) or int(t, 16) == int(ours)
        return None   # a symbol name (kallsyms) or a flag rendering
    if isinstance(ours, str):
        return ours.rstrip() == text.rstrip()
    return None


def dat_layout(dat) -> dict:
    """The ring-buffer layout arguments of the page-walk kernels, from an opened trace.dat."""
    hp = dat.header_page
    fmt0 = dat.any_format()
    tf, pf = fmt0.field("common_type"), fmt0.field("common_pid")
    return dict(page_size=dat.page_size, ts_off=hp["timestamp"][0], commit_off=hp["commit"][0],
                commit_size=hp["commit"][1], data_off=hp["data"][0], big=dat.big_endian,
                type_off=tf.offset, type_size=tf.size, pid_off=pf.offset)
