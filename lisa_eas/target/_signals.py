"""The kernel-signals collector on a target: the BPF program of ``lisa_eas/target/bpf``
(built by ``make setup``) loaded by its static loader ``lisa-eas-signals``, run on the
target next to rt-app.

Why a C loader (a libbpf skeleton linked statically) rather than ctypes over
``libbpf.so.1``: it runs on SSH targets as well as locally (one pushed binary, no Python,
libbpf or headers needed there), it keeps up with >100 k records/s (a ctypes callback per
record does not), and it survives a dropped link like the detached rt-app does, writing
its records into the run directory as they arrive.

:class:`KernelSignals` checks the target (architecture, kernel >= 5.12, BTF, root, every
tracepoint, bpf() allowed: each failure is one :class:`PermanentBoardError` naming the
cause and the fix), pushes the loader, and gives the shell lines that start it before rt-app
and stop it after. :func:`record_signals` records for a while around whatever the user runs
(``lisa-eas signals record``).
"""
from __future__ import annotations

import json
import os
import platform as host_platform
import re
import shlex
import time
from pathlib import Path
from typing import Any

from ..errors import BoardError, ConfigError, PermanentBoardError
from ._config import SignalsConfig, TargetConfig, load_target_config, signals_config
from ._connection import TargetConnection, connect

__all__ = ["KernelSignals", "SIGNALS_FILE", "loader_path", "record_signals"]

#: The records file (and ``SIGNALS_FILE + ".json"``, the collector's summary).
SIGNALS_FILE = "kernel_signals.bin"
_ERR = re.compile(r"lisa-eas-signals: error: (\w+): (.*)")
_MIN_KERNEL = (5, 12)


def loader_path() -> Path:
    """The built loader: ``$LISA_EAS_SIGNALS_LOADER`` or ``lisa_eas/target/bpf/build/lisa-eas-signals``.

    Raises
    ------
    PermanentBoardError
        It was not built.
    """
    env = os.environ.get("LISA_EAS_SIGNALS_LOADER")
    path = Path(env) if env else Path(__file__).parent / "bpf" / "build" / "lisa-eas-signals"
    if not path.is_file():
        raise PermanentBoardError(
            f"the kernel-signals collector is not built ({path} is missing). Fix: run `make setup` in the "
            f"lisa_eas checkout (as root it installs clang, llvm, bpftool, libbpf-dev, libelf-dev, "
            f"zlib1g-dev and builds it; it needs /sys/kernel/btf/vmlinux), or `make -C lisa_eas/target/bpf`")
    return path


def _host_machine() -> str:
    return host_platform.machine()


class KernelSignals:
    """The collector for one target connection.

    Parameters
    ----------
    conn : TargetConnection
    config : SignalsConfig, list of str, True or mapping
        What to record (see :func:`lisa_eas.target.signals_config`).
    """

    def __init__(self, conn: TargetConnection, config: Any = True) -> None:
        self.conn = conn
        self.config: SignalsConfig = signals_config(config) or SignalsConfig()
        self.remote_loader: str | None = None

    # ------------------------------------------------------------------ checks
    def check(self) -> None:
        """Check the target can run the collector, push the loader and load the programs once.

        Raises
        ------
        PermanentBoardError
            Other architecture, kernel older than 5.12, no BTF, not root, a missing
            tracepoint, bpf() refused, or the loader not built; the message names the fix.
        """
        c = self.conn
        label = c.label
        local = loader_path()
        facts = c.execute("uname -m; uname -r; id -u; test -r /sys/kernel/btf/vmlinux && echo btf || echo nobtf",
                          what="checking the target for the kernel-signals collector").split()
        if len(facts) < 4:
            raise PermanentBoardError(f"{label}: could not read uname/id on the target ({' '.join(facts)})")
        machine, release, uid, btf = facts[-4:]
        if machine != _host_machine():
            raise PermanentBoardError(
                f"{label}: the kernel-signals collector was built for {_host_machine()} on this host and the "
                f"target is {machine}. Fix: build it on (or for) a {machine} machine with "
                f"`make -C lisa_eas/target/bpf` and set LISA_EAS_SIGNALS_LOADER to that binary, or run "
                f"without kernel signals")
        m = re.match(r"(\d+)\.(\d+)", release)
        if m and (int(m.group(1)), int(m.group(2))) < _MIN_KERNEL:
            raise PermanentBoardError(
                f"{label}: kernel {release} is older than 5.12, which BPF programs on the bare scheduler "
                f"tracepoints (pelt_se_tp, ...) need. Fix: a newer kernel, or LISA's kernel module")
        if btf != "btf":
            raise PermanentBoardError(
                f"{label}: the target kernel has no BTF (/sys/kernel/btf/vmlinux missing), which the CO-RE "
                f"collector needs to find the scheduler's fields. Fix: a kernel built with "
                f"CONFIG_DEBUG_INFO_BTF=y, or LISA's kernel module")
        if uid != "0":
            raise PermanentBoardError(
                f"{label}: the kernel-signals collector needs root (or CAP_BPF and CAP_PERFMON) and the "
                f"target commands run as uid {uid}. Fix: connect as root or with passwordless sudo")
        wd = c.config.working_directory
        dest = f"{wd}/bin/lisa-eas-signals"
        c.execute(f"mkdir -p {shlex.quote(wd + '/bin')}", what="creating the bin directory")
        c.push(local, dest)
        c.execute(f"chmod 755 {shlex.quote(dest)}", what="making lisa-eas-signals executable")
        self.remote_loader = dest
        out = c.execute(" ".join(map(shlex.quote, [dest, *self.options(), "--check"])) + " 2>&1; echo rc=$?",
                        what="loading the kernel-signals BPF programs")
        rc = re.search(r"rc=(\d+)\s*$", out)
        if not rc or rc.group(1) != "0":
            raise self.error(out)

    def error(self, output: str) -> PermanentBoardError:
        """The PermanentBoardError for the loader's output (its ``error: CODE: message`` line)."""
        m = _ERR.search(output or "")
        if m:
            return PermanentBoardError(f"{self.conn.label}: kernel signals: {m.group(2)}")
        tail = " ".join((output or "").split())[-300:]
        return PermanentBoardError(f"{self.conn.label}: the kernel-signals collector failed ({tail or 'no output'})."
                                   f" Fix: run it by hand with LISA_EAS_SIGNALS_DEBUG=1 to see libbpf's log")

    # ------------------------------------------------------------------ running
    def options(self) -> list[str]:
        cfg = self.config
        argv = ["--signals", ",".join(cfg.signals), "--ringbuf-kb", str(cfg.ringbuf_kb)]
        if cfg.task_only:
            argv.append("--task-only")
        if cfg.root_only:
            argv.append("--root-only")
        for p in cfg.pids:
            argv += ["--pid", str(p)]
        return argv

    def start_lines(self, out_path: str, log_path: str, pid_path: str, fail_rc: int = 125,
                    max_s: float | None = None) -> list[str]:
        """Shell lines (for a target-side script) that start the collector writing to
        ``out_path`` and wait until it is attached; on failure the script exits ``fail_rc``.
        ``max_s``: the collector stops by itself after that long (should the script die)."""
        if self.remote_loader is None:
            raise ConfigError("KernelSignals.check() must run before start_lines()")
        q = shlex.quote
        summ = q(out_path + ".json")
        cmd = " ".join(map(q, [self.remote_loader, *self.options(), "--out", out_path,
                               "--summary", out_path + ".json",
                               *(["--duration", f"{max_s:.0f}"] if max_s else [])]))
        return [f"rm -f {summ}",
                f"{cmd} > {q(log_path)} 2>&1 &",
                f"echo $! > {q(pid_path)}",
                "i=0",
                f"while [ ! -f {summ} ] && kill -0 \"$(cat {q(pid_path)})\" 2>/dev/null && [ $i -lt 300 ]; do "
                f"sleep 0.05; i=$((i+1)); done",
                f"[ -f {summ} ] || {{ echo {fail_rc} > rc.tmp && mv rc.tmp rc; exit {fail_rc}; }}"]

    @staticmethod
    def stop_lines(pid_path: str) -> list[str]:
        """Shell lines that stop the collector (SIGTERM: it drains, then writes its summary)."""
        q = shlex.quote(pid_path)
        return [f"ks=$(cat {q} 2>/dev/null)",
                "[ -n \"$ks\" ] && kill -TERM \"$ks\" 2>/dev/null",
                "i=0; while [ -n \"$ks\" ] && kill -0 \"$ks\" 2>/dev/null && [ $i -lt 200 ]; do "
                "sleep 0.05; i=$((i+1)); done"]


def setup_for_run(conn: TargetConnection, config: Any) -> tuple["KernelSignals | None", dict[str, Any]]:
    """The collector of a run (checked and pushed), or None when not asked for or, with
    ``optional``, unavailable; plus the facts for the manifest."""
    cfg = signals_config(config)
    if cfg is None:
        return None, {}
    ks = KernelSignals(conn, cfg)
    try:
        ks.check()
    except PermanentBoardError as exc:
        if not cfg.optional:
            raise
        return None, {"config": cfg.to_dict(), "status": "unavailable", "error": str(exc)}
    return ks, {"config": cfg.to_dict(), "status": "armed"}


def collect_for_run(conn: TargetConnection, run_dir: str, art_dir: Path) -> dict[str, Any]:
    """Bring a run's signals into its artifact directory (a local target wrote them there
    already) and return the ``run.json`` facts; a collector that died keeps what it wrote."""
    q = shlex.quote
    remote = f"{run_dir}/{SIGNALS_FILE}"
    if conn.config.kind != "local" or not (art_dir / SIGNALS_FILE).exists():
        if not conn.exists(remote):
            return {"status": "missing"}
        for name in (SIGNALS_FILE, SIGNALS_FILE + ".json"):
            if conn.exists(f"{run_dir}/{name}"):
                tmp = art_dir / f".{name}.part"
                conn.pull(f"{run_dir}/{name}", tmp)
                os.replace(tmp, art_dir / name)
    alive = conn.execute(f"kill -0 \"$(cat {q(run_dir)}/signals.pid 2>/dev/null)\" 2>/dev/null && echo 1 || "
                         f"echo 0", what="checking the kernel-signals collector").strip().endswith("1")
    try:
        summary = json.loads((art_dir / (SIGNALS_FILE + ".json")).read_text())
    except (OSError, json.JSONDecodeError):
        summary = None
    return summary_info(summary, alive)


def summary_info(summary: dict | None, alive: bool = False) -> dict[str, Any]:
    """The facts of a collector summary that go into ``run.json`` (status ``interrupted`` when
    the collector died without its final summary)."""
    if not summary:
        return {"status": "missing"}
    status = summary.get("status")
    if status == "running" and not alive:
        status = "interrupted"
    return {"status": status, "records": summary.get("written"), "received": summary.get("received"),
            "dropped": summary.get("dropped"), "dropped_per_cpu": summary.get("dropped_per_cpu"),
            "written_per_cpu": summary.get("written_per_cpu"), "signals": summary.get("signals"),
            "seconds": round((summary.get("mono_now_ns", 0) - summary.get("mono_start_ns", 0)) / 1e9, 3)}


def record_signals(target, duration: float, out_dir: str | os.PathLike, config: Any = True) -> dict[str, Any]:
    """Record the kernel's signals for ``duration`` seconds into ``out_dir`` (what
    ``lisa-eas signals record`` does), around whatever runs on the target meanwhile.

    Parameters
    ----------
    target : TargetConnection, TargetConfig or path
    duration : float
        Seconds (> 0).
    out_dir : path
        Receives ``kernel_signals.bin`` and ``kernel_signals.bin.json`` (read them with
        :func:`lisa_eas.trace.read_trace` on the directory).
    config : SignalsConfig, list of str, True or mapping

    Returns
    -------
    dict
        The collector's summary facts (records, drops per CPU, status).
    """
    if not duration or duration <= 0:
        raise ConfigError(f"duration must be > 0 seconds, got {duration!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    own = not isinstance(target, TargetConnection)
    conn = connect(target if isinstance(target, TargetConfig) else load_target_config(target)) if own else target
    try:
        ks = KernelSignals(conn, config)
        ks.check()
        wd = conn.config.working_directory
        rdir = f"{wd}/signals-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        local = conn.config.kind == "local"
        dest = str(out.resolve() / SIGNALS_FILE) if local else f"{rdir}/{SIGNALS_FILE}"
        q = shlex.quote
        conn.execute(f"mkdir -p {q(rdir)}", what="creating the signals directory")
        script = ["cd " + q(rdir), *ks.start_lines(dest, f"{rdir}/signals.log", f"{rdir}/signals.pid"),
                  f"sleep {float(duration)}", *KernelSignals.stop_lines(f"{rdir}/signals.pid"), "echo 0 > rc"]
        try:
            out_txt = conn.execute("sh -c " + q("\n".join(script)) + " 2>&1; true", timeout=duration + 60,
                                   what="recording kernel signals")
            if not conn.exists(dest + ".json"):
                log = conn.try_read(f"{rdir}/signals.log") or out_txt
                raise ks.error(log)
            if not local:
                tmp = out / f".{SIGNALS_FILE}.part"
                for name in (SIGNALS_FILE, SIGNALS_FILE + ".json"):
                    conn.pull(f"{rdir}/{name}", tmp)
                    os.replace(tmp, out / name)
        finally:
            try:
                conn.execute(f"rm -rf {q(rdir)}", what="removing the signals directory")
            except BoardError:
                pass
        summary = json.loads((out / (SIGNALS_FILE + ".json")).read_text())
        return summary_info(summary)
    finally:
        if own:
            conn.close()
