"""Live A/B on a board: the same workload with a kernel setting changed between the sides.

A side is a list of settings applied before its runs and restored after each (even when a
run fails or is interrupted):

* :class:`SysctlSetting` - any ``/proc/sys`` (or sysfs) file root can write, e.g.
  ``/proc/sys/kernel/sched_autogroup_enabled``, ``/proc/sys/kernel/sched_rt_runtime_us``;
* :class:`SchedFeature` - a scheduler feature in ``/sys/kernel/debug/sched/features``
  (``/sys/kernel/debug/sched_features`` before v5.13), on boards where debugfs is writable.

:func:`competing_load` starts busy loops in a session of their own (``setsid``: with
autogroup, one task group), pinned to some CPUs, for the workload to compete with.
:func:`ab_runs` interleaves the sides (A B B A A B ...) so a slow drift of the machine
does not fall on one side, and returns the run directories for :func:`compare`.
"""
from __future__ import annotations

import contextlib
import logging
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from ..errors import PermanentBoardError

__all__ = ["SchedFeature", "SysctlSetting", "ab_runs", "applied", "competing_load"]

log = logging.getLogger(__name__)

_FEATURES = ("/sys/kernel/debug/sched/features", "/sys/kernel/debug/sched_features")


@dataclass(frozen=True)
class SysctlSetting:
    """Write ``value`` to ``path`` (a sysctl or sysfs file) for one side."""

    path: str
    value: str

    def describe(self) -> str:
        return f"{self.path}={self.value}"

    def apply(self, conn) -> str:
        old = conn.try_read(self.path)
        if old is None:
            raise PermanentBoardError(f"{conn.label}: cannot read {self.path}; the kernel has no such setting "
                                      f"(check the path) or it is not readable")
        conn.execute(f"printf '%s\\n' {shlex.quote(str(self.value))} > {shlex.quote(self.path)}",
                     what=f"setting {self.path} to {self.value}",
                     fix="run as root; some settings are read-only under lockdown or in a container")
        now = conn.try_read(self.path)
        if now is not None and now.split() != str(self.value).split():
            self.restore(conn, old)
            raise PermanentBoardError(f"{conn.label}: wrote {self.value!r} to {self.path} but it reads "
                                      f"{now!r}; the kernel refused the value")
        return old

    def restore(self, conn, old: str) -> None:
        conn.execute(f"printf '%s\\n' {shlex.quote(old)} > {shlex.quote(self.path)}",
                     what=f"restoring {self.path} to {old}")


@dataclass(frozen=True)
class SchedFeature:
    """Turn the scheduler feature ``name`` on or off for one side (debugfs ``sched/features``)."""

    name: str
    enabled: bool

    def describe(self) -> str:
        return f"sched_feature {'' if self.enabled else 'NO_'}{self.name}"

    def _path(self, conn) -> str:
        for p in _FEATURES:
            if conn.exists(p):
                return p
        raise PermanentBoardError(f"{conn.label}: no {_FEATURES[0]} (debugfs not mounted, or a kernel without "
                                  "CONFIG_SCHED_DEBUG). Fix: mount -t debugfs nodev /sys/kernel/debug")

    def apply(self, conn) -> str:
        path = self._path(conn)
        text = conn.try_read(path)
        if text is None:
            raise PermanentBoardError(f"{conn.label}: {path} exists but cannot be read, even by root (kernel "
                                      "lockdown makes debugfs inaccessible). Fix: A/B a setting root can change "
                                      "instead, e.g. SysctlSetting('/proc/sys/kernel/sched_autogroup_enabled', '0')")
        feats = text.split()
        if self.name not in feats and f"NO_{self.name}" not in feats:
            raise PermanentBoardError(f"{conn.label}: the kernel has no scheduler feature {self.name!r} "
                                      f"(it has: {' '.join(f.removeprefix('NO_') for f in feats)})")
        old = self.name if self.name in feats else f"NO_{self.name}"
        self._write(conn, path, self.name if self.enabled else f"NO_{self.name}")
        return old

    def _write(self, conn, path, word) -> None:
        conn.execute(f"printf '%s' {shlex.quote(word)} > {shlex.quote(path)}", what=f"writing {word} to {path}",
                     fix="debugfs must be writable by root (kernel lockdown makes it read-only); use a sysctl "
                         "or a cgroup setting instead")

    def restore(self, conn, old: str) -> None:
        self._write(conn, self._path(conn), old)


@contextlib.contextmanager
def applied(conn, settings: Sequence) -> Iterator[None]:
    """Apply ``settings`` in order; restore them in reverse order on exit, whatever happens."""
    done = []
    try:
        for s in settings:
            done.append((s, s.apply(conn)))
        yield
    finally:
        errors = []
        for s, old in reversed(done):
            try:
                s.restore(conn, old)
            except Exception as exc:  # noqa: BLE001 - restore every one, report after
                errors.append(f"{s.describe()}: {exc}")
        if errors:
            raise PermanentBoardError(f"{conn.label}: could not restore " + "; ".join(errors))


@contextlib.contextmanager
def competing_load(conn, n: int, cpus: Sequence[int] | None = None) -> Iterator[int]:
    """``n`` busy loops in one new session (one autogroup), pinned to ``cpus``; stopped on exit.

    Yields the session's process group id (only this group is killed afterwards).
    """
    if n <= 0:
        yield 0
        return
    pin = f"taskset -c {','.join(str(int(c)) for c in cpus)} " if cpus else ""
    loop = f"{pin}sh -c 'while :; do :; done' &"
    inner = " ".join([loop] * n) + " wait"
    pidfile = f"/tmp/lisa_eas_load.{os.getpid()}.{id(conn) & 0xffff}"
    conn.execute(f"setsid sh -c {shlex.quote('echo $$ > ' + pidfile + '; ' + inner)} > /dev/null 2>&1 "
                 f"< /dev/null & sleep 0.2; cat {pidfile}", what="starting the competing load")
    pgid = int((conn.try_read(pidfile) or "0").strip() or 0)
    try:
        yield pgid
    finally:
        if pgid > 1:
            # dash's kill takes no "--": a negative pid is the process group
            conn.execute(f"kill -TERM -{pgid} 2>/dev/null; sleep 0.1; kill -0 -{pgid} 2>/dev/null && "
                         f"kill -KILL -{pgid} 2>/dev/null; rm -f {pidfile}; true", what="stopping the competing load")


def ab_runs(target, workload, out_dir, *, side_a: Sequence = (), side_b: Sequence = (), n: int = 5,
            load: int = 0, load_cpus: Sequence[int] | None = None, side_a_name: str = "A",
            side_b_name: str = "B", progress: bool | None = None) -> tuple[list[Path], list[Path]]:
    """Run ``workload`` ``n`` times per side on a board, the sides interleaved.

    Parameters
    ----------
    target : path, TargetConfig or TargetConnection
    workload : Workload or path
    out_dir : path
        Each run goes to ``out_dir/<side>/<i>`` (a ``lisa-eas run`` directory).
    side_a, side_b : list of SysctlSetting / SchedFeature
        What each side changes (empty: the board as it is). Restored after every run.
    n : int
        Runs per side.
    load, load_cpus :
        Busy loops started (in one session of their own) after the side's settings and
        before each run, stopped after it.

    Returns
    -------
    (list of Path, list of Path)
        The run directories of A and of B.
    """
    from tqdm.auto import tqdm

    from ..target import TargetConnection, connect, run_workload

    own = not isinstance(target, TargetConnection)
    conn = connect(target) if own else target
    out = Path(out_dir)
    runs = {side_a_name: [], side_b_name: []}
    bar = tqdm(total=2 * n, unit="run", desc="lisa-eas A/B", disable=None if progress is None else not progress)
    try:
        for i in range(n):
            order = [(side_a_name, side_a), (side_b_name, side_b)]
            if i % 2:
                order.reverse()
            for name, settings in order:
                bar.set_postfix_str(f"{name} #{i}")
                rd = out / name / f"{i:02d}"
                for attempt in range(2):
                    try:
                        with applied(conn, settings), competing_load(conn, load, load_cpus):
                            run_workload(conn, workload, rd, progress=False)
                        break
                    except PermanentBoardError as exc:
                        # another tool switched tracing off under rt-app (tracefs is machine-wide):
                        # that run is lost, not the experiment; run it again once
                        if attempt or "mark_fd" not in str(exc):
                            raise
                        log.warning("%s: %s; running %s #%d again", conn.label, exc, name, i)
                        rd = out / name / f"{i:02d}-again"
                runs[name].append(rd)
                bar.update(1)
    finally:
        bar.close()
        if own:
            conn.close()
    return runs[side_a_name], runs[side_b_name]
