"""A tracefs collector that works where ``trace-cmd record`` and devlib's FtraceCollector do not.

On locked-down kernels (and many production Android kernels) ``trace-cmd record``
fails: it writes ``/proc/sys/kernel/ftrace_enabled`` and the function-tracer files,
which lockdown refuses. Everything a scheduler trace needs is plain tracefs, so this
collector writes the files itself: ``tracing_on``, ``set_event``, ``buffer_size_kb``,
``trace_clock`` (default ``mono``: the clock rt-app's logs use). After the run it reads the
per-CPU ``stats`` (overruns, BEFORE extracting, since extracting consumes the buffer),
then extracts ``trace.dat`` with ``trace-cmd extract`` when the target has it, or reads
``per_cpu/cpu*/trace_pipe_raw`` and the ``format`` files and writes a trace.dat v6 on
the host. :meth:`TracefsCollector.teardown` always leaves tracing off and the events
cleared (use the collector as a context manager, or call it in ``finally``).
"""
from __future__ import annotations

import logging
import re
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PermanentBoardError
from ._config import TracingConfig
from ._connection import TargetConnection
from ._tracedat import build_trace_dat_v6

__all__ = ["TracefsCollector", "CpuBufferStats", "ensure_debugfs", "find_tracefs"]

log = logging.getLogger(__name__)

_CANDIDATES = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
_MOUNT_FIX = ("mount it (as root): mount -t tracefs nodev /sys/kernel/tracing; the kernel needs "
              "CONFIG_FTRACE, or set 'tracing: {tracefs: PATH}' in the target config")
_DEBUGFS = "/sys/kernel/debug"


def find_tracefs(conn: TargetConnection, path: str | None = None) -> str:
    """The tracefs mount point on ``conn``'s target, mounting tracefs when it is not mounted.

    A freshly booted board often has neither tracefs nor debugfs mounted. With ``path``
    (the target config's ``tracing.tracefs``) only that directory is accepted; otherwise
    ``/sys/kernel/tracing`` and ``/sys/kernel/debug/tracing`` are tried, then tracefs is
    mounted at ``/sys/kernel/tracing`` (root only).

    Raises
    ------
    PermanentBoardError
        Naming the places looked at and the fix, when no tracefs can be found or mounted.
    """
    cands = (path,) if path else _CANDIDATES
    for cand in cands:
        if conn.exists(f"{cand}/tracing_on") and conn.exists(f"{cand}/events"):
            return cand
    if not path:
        conn.execute("mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true",
                     what="mounting tracefs")
        if conn.exists("/sys/kernel/tracing/tracing_on"):
            return "/sys/kernel/tracing"
    raise PermanentBoardError(
        f"{conn.label}: tracefs is not mounted (looked in {', '.join(cands)} and could not mount "
        f"it). Fix: {_MOUNT_FIX}")


def ensure_debugfs(conn: TargetConnection) -> bool:
    """Mount debugfs at ``/sys/kernel/debug`` on the target when it is not mounted.

    rt-app 1.0 writes its markers to the hard-coded ``/sys/kernel/debug/tracing/trace_marker``,
    and the probe reads ``sched/features`` and the energy model there. Returns whether
    ``/sys/kernel/debug/tracing/trace_marker`` exists afterwards (it also needs tracefs,
    which the kernel automounts inside debugfs).
    """
    marker = f"{_DEBUGFS}/tracing/trace_marker"
    if not conn.exists(marker):
        conn.execute(f"mount -t debugfs nodev {_DEBUGFS} 2>/dev/null || true", what="mounting debugfs")
    return conn.exists(marker)


@dataclass(frozen=True)
class CpuBufferStats:
    """One CPU's ring-buffer statistics (``per_cpu/cpuN/stats``) after a run."""

    cpu: int
    entries: int
    overrun: int
    commit_overrun: int
    dropped_events: int
    extra: dict = field(default_factory=dict)

    @property
    def lost(self) -> int:
        """Events lost on this CPU (overwritten or dropped)."""
        return self.overrun + self.commit_overrun + self.dropped_events


class TracefsCollector:
    """Record ftrace events by writing tracefs directly.

    Parameters
    ----------
    conn : TargetConnection
        The board.
    tracing : TracingConfig
        Events, buffer size, clock, instance, extraction mode, tracefs path.

    Examples
    --------
    >>> with TracefsCollector(conn, conn.config.tracing) as tc:   # doctest: +SKIP
    ...     tc.start(); conn.execute("sleep 1"); tc.stop()
    ...     stats = tc.buffer_stats()
    ...     tc.extract("/tmp/lisa", "trace.dat")
    """

    def __init__(self, conn: TargetConnection, tracing: TracingConfig) -> None:
        self.conn = conn
        self.tracing = tracing
        self.root: str | None = None
        self.enabled_events: tuple[str, ...] = ()
        self.skipped_events: tuple[str, ...] = ()
        self._saved: dict[str, str] = {}
        self._created_instance = False

    # ----------------------------------------------------------------- paths
    @property
    def buffer_dir(self) -> str:
        """The tracefs directory of the buffer in use (top level or the instance)."""
        if self.root is None:
            raise RuntimeError("TracefsCollector.setup() has not run")
        if self.tracing.instance:
            return f"{self.root}/instances/{self.tracing.instance}"
        return self.root

    @property
    def tracing_on_path(self) -> str:
        return f"{self.buffer_dir}/tracing_on"

    # -------------------------------------------------------------- set-up
    def find_tracefs(self) -> str:
        """The tracefs mount point on the target, mounting tracefs when it is not mounted."""
        return find_tracefs(self.conn, self.tracing.tracefs)

    def attach(self) -> "TracefsCollector":
        """Find the buffer without changing anything (to extract or tear down after a resume)."""
        self.root = self.find_tracefs()
        return self

    def setup(self) -> "TracefsCollector":
        """Prepare the buffer: tracing off, cleared, clock, size, events enabled (not yet on)."""
        conn, tr = self.conn, self.tracing
        self.root = self.find_tracefs()
        if tr.instance:
            inst = f"{self.root}/instances/{tr.instance}"
            if not conn.exists(inst):
                conn.execute(f"mkdir {shlex.quote(inst)}", what=f"creating tracefs instance {tr.instance}",
                             fix="use the top-level buffer (remove 'tracing.instance'); this kernel "
                                 "may not support instances")
                self._created_instance = True
        b = self.buffer_dir
        for name in ("trace_clock", "buffer_size_kb"):
            val = conn.try_read(f"{b}/{name}")
            if val is not None:
                self._saved[name] = val
        unwritable = ("tracefs is not writable: lisa_eas must run as root on the target, and a kernel "
                      "in lockdown=confidentiality refuses tracefs writes; mount it read-write")
        self.conn.write(f"{b}/tracing_on", 0, what=f"turning tracing off in {b}", fix=unwritable)
        self.conn.execute(f": > {shlex.quote(b + '/set_event')} && : > {shlex.quote(b + '/trace')}",
                          what="clearing the trace buffer and events", fix=unwritable)
        clocks = self._saved.get("trace_clock", "")
        if tr.clock not in clocks.replace("[", " ").replace("]", " ").split():
            raise PermanentBoardError(
                f"{conn.label}: trace clock {tr.clock!r} is not offered by this kernel (it offers: "
                f"{clocks}). Fix: set 'tracing: {{clock: ...}}' to one of those")
        conn.write(f"{b}/trace_clock", tr.clock, what="setting trace_clock")
        conn.write(f"{b}/buffer_size_kb", tr.buffer_size_kb, what="setting buffer_size_kb",
                   fix="lower 'tracing.buffer_size_kb'; the board lacks memory for this buffer")
        self._enable_events()
        return self

    def _enable_events(self) -> None:
        b = shlex.quote(self.buffer_dir + "/set_event")
        lines = []
        for ev in self.tracing.events:
            q = shlex.quote(ev)
            lines.append(f"if printf '%s\\n' {q} >> {b} 2>/dev/null; then echo OK {q}; else echo SKIP {q}; fi")
        out = self.conn.execute("; ".join(lines) or "true", what="enabling trace events")
        ok = [ln[3:] for ln in out.splitlines() if ln.startswith("OK ")]
        skipped = [ln[5:] for ln in out.splitlines() if ln.startswith("SKIP ")]
        self.enabled_events, self.skipped_events = tuple(ok), tuple(skipped)
        if skipped:
            log.warning("%s: the kernel has no event(s) %s; recording without them",
                        self.conn.label, ", ".join(skipped))

    # ------------------------------------------------------------ on / off
    def start(self) -> None:
        self.conn.write(self.tracing_on_path, 1, what="turning tracing on")

    def stop(self) -> None:
        self.conn.write(self.tracing_on_path, 0, what="turning tracing off")

    def buffer_stats(self) -> dict[int, CpuBufferStats]:
        """Per-CPU ring-buffer stats. Read them BEFORE :meth:`extract` (extracting consumes)."""
        q = shlex.quote(self.buffer_dir + "/per_cpu")
        out = self.conn.execute(f'for d in {q}/cpu*; do echo "== ${{d##*/cpu}}"; cat "$d/stats"; done',
                                what="reading per-CPU buffer stats")
        stats, cpu, cur = {}, None, {}

        def flush():
            if cpu is not None:
                stats[cpu] = CpuBufferStats(
                    cpu=cpu, entries=int(cur.pop("entries", 0)), overrun=int(cur.pop("overrun", 0)),
                    commit_overrun=int(cur.pop("commit overrun", 0)),
                    dropped_events=int(cur.pop("dropped events", 0)), extra=dict(cur))

        for line in out.splitlines():
            if line.startswith("== "):
                flush()
                cpu, cur = int(line[3:]), {}
                continue
            k, sep, v = line.partition(":")
            if sep and re.fullmatch(r"\s*-?\d+\s*", v):
                cur[k.strip()] = int(v)
        flush()
        return stats

    # ------------------------------------------------------------- extract
    def extract(self, remote_dir: str, local_path: str | Path) -> str:
        """Extract the recorded buffer into ``local_path`` (trace.dat); returns the method used.

        ``remote_dir`` is a scratch directory on the target (it must exist).
        """
        mode = self.tracing.extract
        tc = None
        if mode in ("auto", "trace-cmd") and not self.tracing.instance:
            tc = self.conn.which("trace-cmd")
            if tc is None and mode == "trace-cmd":
                raise PermanentBoardError(
                    f"{self.conn.label}: trace-cmd is not installed on the target. Fix: install it "
                    f"(Debian: apt install trace-cmd) or set 'tracing: {{extract: raw}}'")
        if tc is not None:
            remote = f"{remote_dir}/trace.dat"
            self.conn.execute(f"cd {shlex.quote(remote_dir)} && {shlex.quote(tc)} extract -o trace.dat",
                              what="extracting the trace with trace-cmd", timeout=max(
                                  120.0, self.conn.config.command_timeout_s),
                              fix="set 'tracing: {extract: raw}' to read the buffer without trace-cmd")
            self.conn.pull(remote, local_path, timeout=600)
            return "trace-cmd extract"
        self._extract_raw(remote_dir, Path(local_path))
        return "trace_pipe_raw"

    def _extract_raw(self, remote_dir: str, local_path: Path) -> None:
        conn, root, b = self.conn, self.root, self.buffer_dir
        raw = f"{remote_dir}/raw"
        qr, qroot, qb = shlex.quote(raw), shlex.quote(root), shlex.quote(b)
        script = (
            f"mkdir -p {qr} && cd {qr} || exit 1; "
            f"for d in {qb}/per_cpu/cpu*; do n=${{d##*/cpu}}; "
            f"dd if=\"$d/trace_pipe_raw\" of=cpu$n.raw bs=4096 iflag=nonblock 2>/dev/null "
            f"|| timeout 5 cat \"$d/trace_pipe_raw\" > cpu$n.raw; done; "
            f"cat {qroot}/events/header_page > header_page; cat {qroot}/events/header_event > header_event; "
            f"for f in {qroot}/events/ftrace/*/format; do e=${{f%/format}}; "
            f"cat \"$f\" > \"ftrace..${{e##*/}}.format\"; done; "
            f"cat {qb}/set_event > set_event; "
            f"while IFS=: read -r s e; do [ -n \"$e\" ] && cat {qroot}/events/\"$s\"/\"$e\"/format "
            f"> \"$s..$e.format\"; done < set_event; "
            f"cat {qroot}/saved_cmdlines > saved_cmdlines 2>/dev/null; "
            f"cat {qroot}/printk_formats > printk_formats 2>/dev/null; "
            f"cat {qb}/trace_clock > trace_clock; uname -snrvm > uname 2>/dev/null || uname -a > uname; "
            f"ls -1")
        listing = conn.execute(script, what="reading the raw ring-buffer pages",
                               timeout=max(120.0, conn.config.command_timeout_s)).split()
        with tempfile.TemporaryDirectory(prefix="lisa_eas_raw_") as tmp:
            files: dict[str, bytes] = {}
            for name in listing:
                conn.pull(f"{raw}/{name}", Path(tmp) / name, timeout=600)
                files[name] = (Path(tmp) / name).read_bytes()
        cpus = sorted(int(n[3:-4]) for n in files if re.fullmatch(r"cpu\d+\.raw", n))
        pages = [files.get(f"cpu{c}.raw", b"") for c in range(max(cpus) + 1 if cpus else 0)]
        systems: dict[str, list[bytes]] = {}
        for name in sorted(files):
            if name.endswith(".format") and not name.startswith("ftrace.."):
                sys_ = name.split("..", 1)[0]
                systems.setdefault(sys_, []).append(files[name])
        ftrace = [files[n] for n in sorted(files) if n.startswith("ftrace..")]
        build_trace_dat_v6(local_path, header_page=files["header_page"], header_event=files["header_event"],
                           ftrace_formats=ftrace, systems=systems, cpu_pages=pages,
                           printk_formats=files.get("printk_formats", b""),
                           saved_cmdlines=files.get("saved_cmdlines", b""),
                           trace_clock=files.get("trace_clock", b""),
                           uname=files.get("uname", b"").decode(errors="replace"))

    # ------------------------------------------------------------ teardown
    def teardown(self) -> None:
        """Tracing off, events cleared, clock and buffer size restored, instance removed.

        Safe to call more than once and after a failed :meth:`setup`. Raises only when the
        target cannot be reached (the buffer state is then unknown).
        """
        if self.root is None:
            return
        b = shlex.quote(self.buffer_dir)
        cmds = [f"printf '0\\n' > {b}/tracing_on", f": > {b}/set_event"]
        for name, val in self._saved.items():
            if name == "trace_clock":
                m = re.search(r"\[(\S+)\]", val)
            else:
                m = re.search(r"expanded:\s*(\d+)", val) or re.match(r"\s*(\d+)", val)
            val = m.group(1) if m else None
            if val:
                cmds.append(f"printf '%s\\n' {shlex.quote(val)} > {b}/{name}")
        if self._created_instance:
            cmds.append(f"rmdir {b}")
        self.conn.execute("; ".join(f"{{ {c}; }} 2>/dev/null" for c in cmds) + "; true",
                          what="turning tracing off and clearing the events")

    def __enter__(self) -> "TracefsCollector":
        try:
            return self.setup()
        except BaseException:
            self.teardown()
            raise

    def __exit__(self, *exc) -> None:
        self.teardown()
