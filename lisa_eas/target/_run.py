"""Run an rt-app workload on a board with tracing, and bring everything back.

:func:`run_workload` goes through the steps of :data:`~lisa_eas.target._artifacts.STEPS`:
save the workload, connect, probe, check (or install) rt-app, calibrate (cached per
target), set up tracefs (and debugfs, which rt-app 1.0's markers need), run rt-app on
the target under a detached shell that turns tracing on before and off after, poll it
with a timeout, read the ring-buffer stats, extract ``trace.dat``, pull the rt-app logs,
then write ``run.json``. Every artifact is written atomically as it arrives and the
manifest says which steps are complete; :func:`resume_run` finishes an interrupted
run (the detached rt-app keeps running when the link drops, so its logs and trace can
still be collected).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import platform as host_platform
import re
import shlex
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..errors import BoardError, ConfigError, PermanentBoardError, WorkloadError
from ._artifacts import STEPS, RunArtifacts
from ._config import TargetConfig, load_target_config
from ._connection import TargetConnection, connect
from ._interference import WARN_SHARE_PCT, other_cpu_time
from ._interrupt import RunInterrupted, raise_pending, stop_interrupted_run
from ._probe import probe
from ._progress import PhaseProgress
from . import _signals
from ._stuck import EXIT_GRACE_S, stuck_threads
from ._tracefs import TracefsCollector, ensure_debugfs

__all__ = ["RunInterrupted", "RunResult", "calibrate_rtapp", "resume_run", "run_workload"]

log = logging.getLogger(__name__)

_POLL_S = 0.25
_DEBUGFS_MARKER = "/sys/kernel/debug/tracing/trace_marker"


@dataclass(frozen=True)
class RunResult:
    """Where a finished run's artifacts are.

    Attributes
    ----------
    out_dir : Path
    trace_path : Path
        ``trace.dat`` (load with :func:`lisa_eas.trace.read_trace`).
    log_paths : tuple of Path
        rt-app's per-thread logs (load with :func:`lisa_eas.rtapp.read_rtapp_log`).
    run_info : dict
        The content of ``run.json``.
    """

    out_dir: Path
    trace_path: Path
    log_paths: tuple[Path, ...]
    run_info: Mapping[str, Any]

    @property
    def kernel_signals_path(self) -> Path | None:
        """``kernel_signals.bin`` when the run recorded the kernel's signals (else None)."""
        p = self.out_dir / "kernel_signals.bin"
        return p if p.exists() else None

    @property
    def overruns(self) -> int:
        return int(self.run_info.get("tracing", {}).get("lost_events", 0))


# --------------------------------------------------------------------------- API

def run_workload(target, workload, out_dir: str | os.PathLike, *, timeout: float | None = None,
                 calibration: int | None = None, progress: bool | None = None,
                 kernel_signals=None) -> RunResult:
    """Run an rt-app workload on a board, tracing it, and collect everything into ``out_dir``.

    Parameters
    ----------
    target : TargetConnection, TargetConfig or path
        A connection (left open), or a config / ``target_configs/*.yml`` path (connected
        and closed here; a path is recorded so ``--resume`` can reconnect).
    workload : Workload, mapping or path
        A :class:`lisa_eas.rtapp.Workload`, an rt-app JSON dict, or an rt-app JSON file.
    out_dir : path
        The artifact directory (created): ``workload.json``, ``target.json``,
        ``trace.dat``, ``rtapp/*.log``, ``rtapp.out``, ``run.json``, ``manifest.json``.
    timeout : float, optional
        Seconds allowed for rt-app (default: 1.5 x the workload's ``duration`` + 30 s,
        or 600 s when the duration is open).
    calibration : int, optional
        rt-app ``calibration`` (ns per loop). Default: the workload's own integer value,
        the target config's ``rtapp_calibration``, the per-target cache, else measured once.
    progress : bool or None
        Progress bar on/off (None: only on a terminal or in a notebook).
    kernel_signals : bool, list of str, mapping or SignalsConfig, optional
        Record the kernel's PELT/util_est/overutilized/capacity signals with the BPF
        collector, started before rt-app and stopped after it, into
        ``kernel_signals.bin`` (read with the trace: ``read_trace(out_dir)``). Default: the
        target config's ``tracing: kernel_signals``.

    Returns
    -------
    RunResult

    Raises
    ------
    TransientBoardError
        The link dropped or timed out: the directory holds what was collected, the
        manifest says what is missing, :func:`resume_run` finishes it.
    PermanentBoardError
        Missing rt-app, tracefs unusable, rt-app failed: cause and fix in the message.
    WorkloadError
        The workload cannot be read.
    """
    art = RunArtifacts(out_dir)
    if any(art.dir.iterdir()) and (art.dir / "manifest.json").exists():
        raise ConfigError(f"{art.dir} already holds a run; use `lisa-eas run --resume {art.dir}` "
                          f"(resume_run) or choose a new --out directory")
    data, source = _workload_dict(workload)
    ctx = art.context
    ctx["workload_source"] = source
    ctx["timeout_s"] = timeout
    ctx["calibration"] = calibration
    if kernel_signals is not None:
        from ._config import signals_config

        cfg = signals_config(kernel_signals, "kernel_signals")
        ctx["kernel_signals"] = cfg.to_dict() if cfg is not None else False
    if isinstance(target, (str, os.PathLike)):
        ctx["target_config_path"] = str(Path(target).resolve())
    try:
        art.save()
        text = json.dumps(data, indent=1) + "\n"
        art.write_text("workload.json", text)
        art.step_done("workload", ["workload.json"], sha256=hashlib.sha256(text.encode()).hexdigest(),
                      source=source)
    except KeyboardInterrupt:       # before anything ran on the target
        stop = stop_interrupted_run(art, None, None, "workload", None, None)
        _write_partial_run_json(art, None, time.time(), "interrupted", status="interrupted")
        raise stop from None
    return _drive(art, target, progress)


def resume_run(out_dir: str | os.PathLike, target=None, *, progress: bool | None = None) -> RunResult:
    """Finish an interrupted run in ``out_dir`` (what ``lisa-eas run --resume DIR`` does).

    Parameters
    ----------
    out_dir : path
        A directory written by :func:`run_workload`.
    target : TargetConnection, TargetConfig or path, optional
        How to reach the board; default: the config path recorded in the manifest.

    Completed steps are kept. When rt-app was already started, its detached run is
    awaited (or found finished) and its logs and trace collected; when it never
    completed and is gone, it is run again.
    """
    art = RunArtifacts.open(out_dir)
    if art.manifest.get("status") == "complete":
        return _result(art)
    stopped = art.manifest.get("interrupted") or {}
    if art.manifest.get("status") == "interrupted" and stopped.get("rtapp_stopped"):
        raise ConfigError(f"{art.dir}: this run was interrupted (Ctrl-C or SIGTERM, during "
                          f"'{stopped.get('step')}', at {stopped.get('at')}) and rt-app was stopped then; "
                          f"it kept {', '.join(stopped.get('kept') or []) or 'nothing'}. It cannot be finished: "
                          f"start a new run with another --out, or discard it (rm -r {art.dir})")
    if target is None:
        path = art.context.get("target_config_path")
        if not path:
            raise ConfigError(f"{art.dir}: the run was started with a connection object, not a config "
                              f"file; pass the target (--target FILE) to resume it")
        target = path
    return _drive(art, target, progress)


def calibrate_rtapp(conn: TargetConnection, rtapp: str, *, cpu: int = 0, use_cache: bool = True) -> int:
    """rt-app's ``calibration`` (ns per loop, "pLoad") on ``cpu``, cached per target.

    Measuring costs rt-app ~6-13 s, so the value is kept in
    ``$LISA_EAS_CACHE`` (default ``~/.cache/lisa_eas``) ``/rtapp_calibration.json`` under a
    key made of the target's name, hostname, kernel, machine, rt-app binary and CPU.
    """
    ident = conn.execute(f"uname -n; uname -r; uname -m; cksum < {shlex.quote(rtapp)} 2>/dev/null || "
                         f"echo no-cksum", as_root=False, what="identifying the target").split()
    key = "|".join([conn.label, *ident, f"cpu{cpu}"])
    cache = _cache_dir() / "rtapp_calibration.json"
    entries = {}
    if use_cache and cache.exists():
        try:
            entries = json.loads(cache.read_text())
        except (OSError, json.JSONDecodeError):
            entries = {}
        if isinstance(entries.get(key), int):
            return entries[key]
    wd = conn.config.working_directory
    cal_dir = f"{wd}/calibration"
    spec = {"tasks": {"calibrate": {"loop": 1, "phases": {"p": {"loop": 1, "run": 1000}}}},
            "global": {"calibration": f"CPU{cpu}", "duration": -1, "logdir": cal_dir,
                       "log_basename": "calib", "ftrace": False, "gnuplot": False,
                       "default_policy": "SCHED_OTHER"}}
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / "calibration.json"
        local.write_text(json.dumps(spec))
        conn.execute(f"mkdir -p {shlex.quote(cal_dir)}", what="creating the calibration directory")
        conn.push(local, f"{cal_dir}/calibration.json")
    out = conn.execute(f"cd {shlex.quote(cal_dir)} && {shlex.quote(rtapp)} calibration.json 2>&1",
                       timeout=120, what="calibrating rt-app",
                       fix="set 'rtapp_calibration: N' (ns per loop) in the target config")
    try:
        from ..rtapp import parse_pload
    except ImportError:  # the rt-app package is optional here
        parse_pload = None
    m = re.search(r"pLoad\s*=\s*(\d+)\s*ns", out)
    if not m:
        raise PermanentBoardError(f"{conn.label}: rt-app printed no 'pLoad = N ns' while calibrating "
                                  f"(output: {' '.join(out.split())[:200]}). Fix: set "
                                  f"'rtapp_calibration: N' in the target config")
    value = int(m.group(1))
    if parse_pload is not None:
        values = parse_pload(out)
        value = int(values.get(cpu, next(iter(values.values()))))
    entries[key] = value
    cache.parent.mkdir(parents=True, exist_ok=True)
    from .._atomic import write_atomic

    write_atomic(cache, json.dumps(entries, indent=1))
    return value


# --------------------------------------------------------------------------- the steps

def _drive(art: RunArtifacts, target, progress) -> RunResult:
    own = not isinstance(target, TargetConnection)
    try:
        bar = PhaseProgress(STEPS, enabled=progress, desc="lisa-eas run")
        bar.skip("workload")
        art.manifest["status"] = "running"
        art.save()
    except KeyboardInterrupt:       # before anything ran on the target: resumable
        stop = stop_interrupted_run(art, None, None, "connect", None, None)
        _write_partial_run_json(art, None, time.time(), "interrupted", status="interrupted")
        raise stop from None
    t_start = time.time()
    conn: TargetConnection | None = None
    collector: TracefsCollector | None = None
    step = "connect"
    try:
        step = "connect"
        with bar.phase(step):
            t0 = time.time()
            conn = target if not own else connect(
                target if isinstance(target, TargetConfig) else load_target_config(target))
            art.write_json("target_config.json", conn.config.describe())
            art.step_done(step, ["target_config.json"], seconds=round(time.time() - t0, 3))
        step = "probe"
        with bar.phase(step):
            if not art.is_complete(step):
                info = probe(conn)
                art.write_json("target.json", info.to_dict())
                art.step_done(step, ["target.json"])
        step = "rtapp"
        with bar.phase(step):
            rtapp = _ensure_rtapp(conn)
            digest = conn.execute(f"cksum < {shlex.quote(rtapp)}", as_root=False,
                                  what="fingerprinting rt-app").split()[0]
            art.step_done(step, path=rtapp, cksum=digest)
        step = "calibration"
        with bar.phase(step):
            if not art.is_complete(step):
                cal, how = _calibration(art, conn, rtapp)
                art.step_done(step, value=cal, source=how)
        run_dir = art.context.get("remote_run_dir")
        if not art.is_complete("run"):
            state = _remote_state(conn, run_dir) if run_dir else "absent"
            if state == "absent":
                for s in ("tracing", "run"):
                    art.reset_step(s)
                step = "tracing"
                with bar.phase(step):
                    ks, ks_info = _signals.setup_for_run(conn, _signals_wanted(art, conn))
                    collector = TracefsCollector(conn, conn.config.tracing)
                    collector.setup()
                    markers = _markers_possible(conn, collector)
                    art.step_done(step, tracefs=collector.root, buffer=collector.buffer_dir,
                                  events=list(collector.enabled_events),
                                  skipped_events=list(collector.skipped_events), markers=markers,
                                  clock=conn.config.tracing.clock,
                                  buffer_size_kb=conn.config.tracing.buffer_size_kb,
                                  kernel_signals=ks_info or None)
                step = "run"
                with bar.phase(step):
                    run_dir = _start(art, conn, collector, rtapp, markers, ks)
                    _wait(art, conn, run_dir, bar)
            else:
                art.manifest["steps"]["tracing"]["status"] = "complete"
                bar.skip("tracing")
                step = "run"
                with bar.phase(step):
                    if state == "running":
                        _wait(art, conn, run_dir, bar)
                    else:
                        _finish_run_step(art, conn, run_dir)
        else:
            bar.skip("tracing")
            bar.skip("run")
        if collector is None:
            collector = TracefsCollector(conn, conn.config.tracing).attach()
        raise_pending()
        step = "trace"
        with bar.phase(step):
            if not art.is_complete(step):
                _collect_trace(art, conn, collector, run_dir)
            if (art.manifest["steps"]["tracing"].get("kernel_signals") or {}).get("status") == "armed" and \
                    "kernel_signals" not in art.manifest["steps"]["trace"]:
                art.manifest["steps"]["trace"]["kernel_signals"] = _signals.collect_for_run(conn, run_dir, art.dir)
                art.save()
        step = "logs"
        with bar.phase(step):
            if not art.is_complete(step):
                _collect_logs(art, conn, run_dir)
        with _suppress_board_errors():
            collector.teardown()
        collector = None
        conn.execute(f"rm -rf {shlex.quote(run_dir)}", what="removing the run directory on the target")
        step = "run_json"
        with bar.phase(step):
            info = _run_json(art, conn, t_start)
            info["steps"]["run_json"] = "complete"
            art.write_json("run.json", info)
            art.step_done(step, ["run.json"])
        art.finish()
        return _result(art)
    except BoardError as exc:
        art.step_failed(step, exc, transient=exc.transient)
        _write_partial_run_json(art, conn, t_start, exc)
        raise
    except KeyboardInterrupt:     # Ctrl-C, or SIGTERM turned into it by the CLI
        bar.close()
        stop = stop_interrupted_run(art, conn, collector, step,
                                    lambda c, d: _collect_trace(art, conn, c, d),
                                    lambda d: _collect_logs(art, conn, d))
        collector = None
        _write_partial_run_json(art, conn, t_start, "interrupted", status="interrupted")
        raise stop from None
    except BaseException as exc:
        msg = conn.scrub(str(exc)) if conn is not None else str(exc)
        art.step_failed(step, f"{type(exc).__name__}: {msg}")
        _write_partial_run_json(art, conn, t_start, msg)
        raise
    finally:
        bar.close()
        if collector is not None:
            try:
                collector.teardown()
            except BoardError as exc:  # link lost: tracing is turned off by the target-side script
                log.warning("could not reset tracing on %s: %s", conn.label if conn else "?", exc)
        if own and conn is not None:
            conn.close()


class _suppress_board_errors:
    """Suppress BoardError from a best-effort clean-up (the run's artifacts are already safe)."""

    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        return typ is not None and issubclass(typ, BoardError)


def _workload_dict(workload) -> tuple[dict, str]:
    if hasattr(workload, "to_json"):
        text, source = workload.to_json(), f"Workload object {getattr(workload, 'name', '')}".strip()
    elif isinstance(workload, Mapping):
        text, source = json.dumps(workload), "<dict>"
    else:
        path = Path(workload)
        source = str(path)
        try:
            from ..rtapp import read_workload
        except ImportError:
            read_workload = None
        if read_workload is not None:
            text = read_workload(path).to_json()
        else:
            try:
                text = path.read_text()
            except OSError as exc:
                raise WorkloadError(f"{path}: cannot read the workload ({exc.strerror})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WorkloadError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), dict) or not data["tasks"]:
        raise WorkloadError(f"{source}: an rt-app workload needs a non-empty 'tasks' object")
    return data, source


def _ensure_rtapp(conn: TargetConnection) -> str:
    cfg = conn.config
    found = conn.which(cfg.rtapp_path)
    if found:
        return found
    if cfg.rtapp_install and not Path(cfg.rtapp_install).is_file():
        raise PermanentBoardError(f"{conn.label}: rt-app is not on the target and 'rtapp_install' names no "
                                  f"file on this host ({cfg.rtapp_install}). Fix: give the host path of "
                                  f"an rt-app binary built for the target in {cfg.source}")
    if cfg.rtapp_install:
        dest = f"{cfg.working_directory}/bin/rt-app"
        conn.execute(f"mkdir -p {shlex.quote(cfg.working_directory + '/bin')}", what="creating the bin dir")
        conn.push(cfg.rtapp_install, dest)
        conn.execute(f"chmod 755 {shlex.quote(dest)}", what="making rt-app executable")
        if conn.which(dest):
            return dest
    raise PermanentBoardError(
        f"{conn.label}: rt-app not found on the target (looked for {cfg.rtapp_path!r}). Fix: install it "
        f"on the target (Debian: apt install rt-app), set 'rtapp_path' to its location, or set "
        f"'rtapp_install' to a host path of an rt-app binary built for the target, in {cfg.source}")


def _calibration(art: RunArtifacts, conn: TargetConnection, rtapp: str) -> tuple[int, str]:
    wl = json.loads((art.dir / "workload.json").read_text())
    given = art.context.get("calibration")
    if isinstance(given, int):
        return given, "argument"
    cal = wl.get("global", {}).get("calibration")
    if isinstance(cal, int) and not isinstance(cal, bool):
        return cal, "workload"
    if conn.config.rtapp_calibration:
        return conn.config.rtapp_calibration, "target config"
    cpu, note = _calibration_cpu(art, cal)
    return calibrate_rtapp(conn, rtapp, cpu=cpu), f"measured on CPU{cpu}{note} (cached per target)"


def _calibration_cpu(art: RunArtifacts, cal) -> tuple[int, str]:
    """The CPU to calibrate on: the workload's ``"CPUn"`` when the target has it, else the
    target's biggest online CPU (the probe's capacities); CPU 0 without a probe."""
    target = json.loads((art.dir / "target.json").read_text()) if (art.dir / "target.json").exists() else {}
    online = [int(c) for c in target.get("online_cpus") or []]
    caps = {int(k): int(v) for k, v in (target.get("cpu_capacity") or {}).items()}
    biggest = max(online, key=lambda c: (caps.get(c, 1024), -c)) if online else 0
    if isinstance(cal, str) and re.fullmatch(r"CPU\d+", cal):
        want = int(cal[3:])
        if not online or want in online:
            return want, ""
        return biggest, (f", the target's biggest CPU: the workload asks for CPU{want}, which this target does "
                         f"not have (online CPUs {online})")
    return (0 if not online or 0 in online else biggest), ""


def _markers_possible(conn: TargetConnection, collector: TracefsCollector) -> bool:
    """rt-app 1.0 writes markers to the debugfs trace_marker of the top-level buffer."""
    if collector.tracing.instance:
        log.warning("%s: tracing into instance %r: rt-app's markers go to the top-level buffer and "
                    "are not recorded", conn.label, collector.tracing.instance)
        return False
    if not ensure_debugfs(conn):
        raise PermanentBoardError(
            f"{conn.label}: rt-app 1.0 writes its markers to {_DEBUGFS_MARKER}, which does not exist "
            f"and debugfs could not be mounted. Fix: mount -t debugfs nodev /sys/kernel/debug (kernel "
            f"needs CONFIG_DEBUG_FS), or set 'tracing: {{instance: NAME}}' to record without markers")
    return True


def _signals_wanted(art: RunArtifacts, conn: TargetConnection):
    """The run's kernel_signals setting: the run_workload argument, else the target config's."""
    given = art.context.get("kernel_signals")
    return given if given is not None else conn.config.tracing.kernel_signals


def _start(art: RunArtifacts, conn: TargetConnection, collector: TracefsCollector, rtapp: str,
           markers: bool, ks: "_signals.KernelSignals | None" = None) -> str:
    cfg = conn.config
    run_dir = f"{cfg.working_directory}/runs/{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}"
    wl = json.loads((art.dir / "workload.json").read_text())
    glob_ = dict(wl.get("global", {}))
    glob_.pop("log_size", None)  # rt-app 1.0: an explicit "file" leaves the logs empty
    glob_.update({"logdir": run_dir, "log_basename": "rt-app", "ftrace": markers,
                  "calibration": art.manifest["steps"]["calibration"]["value"]})
    glob_.setdefault("default_policy", "SCHED_OTHER")
    glob_.setdefault("gnuplot", False)
    wl["global"] = glob_
    q = shlex.quote
    on = q(collector.tracing_on_path)
    ks_start, ks_stop = [], []
    if ks is not None:  # the kernel-signals collector: attached before rt-app, stopped after it
        out = str((art.dir / _signals.SIGNALS_FILE).resolve()) if cfg.kind == "local" else \
            f"{run_dir}/{_signals.SIGNALS_FILE}"
        ks_start = ks.start_lines(out, f"{run_dir}/signals.log", f"{run_dir}/signals.pid",
                                  max_s=_timeout_of(art) + 60)
        ks_stop = ks.stop_lines(f"{run_dir}/signals.pid")
    script = "\n".join([
        f"cd {q(run_dir)} || exit 1",
        "echo $$ > shell.pid",
        *ks_start,
        f"printf '1\\n' > {on}",
        f"{q(rtapp)} workload.json > rtapp.out 2>&1 &",
        "echo $! > rtapp.pid",
        "wait $!",
        "rc=$?",
        f"printf '0\\n' > {on}",
        *ks_stop,
        "echo $rc > rc.tmp && mv rc.tmp rc",
        ""])
    conn.execute(f"mkdir -p {q(run_dir)}", what="creating the run directory on the target")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "workload.json").write_text(json.dumps(wl, indent=1))
        (Path(tmp) / "run.sh").write_text(script)
        conn.push(Path(tmp) / "workload.json", f"{run_dir}/workload.json")
        conn.push(Path(tmp) / "run.sh", f"{run_dir}/run.sh")
    art.write_text("workload.target.json", json.dumps(wl, indent=1) + "\n")
    art.context["remote_run_dir"] = run_dir
    art.context["run_started"] = time.time()
    art.save()
    # detached: survives a dropped link, so its logs and trace can be collected on resume
    conn.execute(f"cd {q(run_dir)} && (setsid nohup sh run.sh > run.log 2>&1 < /dev/null &) ; true",
                 what="starting rt-app")
    return run_dir


def _remote_state(conn: TargetConnection, run_dir: str) -> str:
    """``done``, ``running`` or ``absent`` (never started, or died without an exit code)."""
    q = shlex.quote(run_dir)
    out = conn.execute(
        f"if [ -f {q}/rc ]; then echo done; elif [ -f {q}/shell.pid ] && kill -0 \"$(cat {q}/shell.pid)\" "
        f"2>/dev/null; then echo running; else echo absent; fi", what="checking the run on the target")
    return out.strip().splitlines()[-1] if out.strip() else "absent"


def _duration_of(art: RunArtifacts) -> float:
    """The workload's ``duration`` in seconds (0 when open-ended)."""
    wl = json.loads((art.dir / "workload.json").read_text())
    dur = wl.get("global", {}).get("duration", -1)
    return float(dur) if isinstance(dur, (int, float)) and dur > 0 else 0.0


def _timeout_of(art: RunArtifacts) -> float:
    if art.context.get("timeout_s"):
        return float(art.context["timeout_s"])
    dur = _duration_of(art)
    return 1.5 * dur + 30 if dur > 0 else 600.0


def _wait(art: RunArtifacts, conn: TargetConnection, run_dir: str, bar: PhaseProgress) -> None:
    limit = _timeout_of(art)
    dur = _duration_of(art)
    stuck_after = dur + EXIT_GRACE_S if dur > 0 else None
    started = art.context.get("run_started", time.time())
    q = shlex.quote(run_dir)
    while True:
        out = conn.execute(f"cat {q}/rc 2>/dev/null || echo RUNNING", as_root=False,
                           what="waiting for rt-app").strip()
        if out != "RUNNING":
            break
        raise_pending()           # an interrupt whose KeyboardInterrupt a fork callback swallowed
        elapsed = time.time() - started
        bar.note(f"rt-app {elapsed:.0f} s")
        if stuck_after is not None and elapsed > stuck_after:
            stuck = stuck_threads(conn.execute(f"cat {q}/rtapp.out 2>/dev/null; true", as_root=False,
                                               what="reading rt-app's output"))
            if stuck:
                _stop_stuck_rtapp(art, conn, run_dir, stuck, elapsed)
                break
        if elapsed > limit:
            conn.execute(f"kill \"$(cat {q}/rtapp.pid)\" 2>/dev/null; sleep 0.5; "
                         f"kill -9 \"$(cat {q}/rtapp.pid)\" 2>/dev/null; true", what="stopping rt-app")
            raise PermanentBoardError(
                f"{conn.label}: rt-app did not finish within {limit:.0f} s. Fix: pass a larger timeout "
                f"(--timeout) or give the workload a finite 'duration'")
        time.sleep(_POLL_S)
    _finish_run_step(art, conn, run_dir)


def _stop_stuck_rtapp(art: RunArtifacts, conn: TargetConnection, run_dir: str, stuck: list[int],
                      elapsed: float) -> None:
    """rt-app's shutdown race (:mod:`._stuck`): stop rt-app (the run script then turns tracing off
    and writes the exit code) and note the stuck threads; the run goes on to collect the trace and
    the logs."""
    q = shlex.quote(run_dir)
    conn.execute(f"kill -9 \"$(cat {q}/rtapp.pid)\" 2>/dev/null; for i in $(seq 100); do "
                 f"[ -f {q}/rc ] && break; sleep 0.1; done; true", what="stopping rt-app stuck at its exit")
    art.context["rtapp_stuck_at_exit"] = {"threads": stuck, "stopped_after_s": round(elapsed, 1)}
    art.save()
    log.warning("%s: rt-app thread(s) %s did not exit %.0f s after the workload's duration (rt-app's "
                "shutdown race: a thread waiting in a suspend/sync missed the end-of-run wake-up); rt-app "
                "was stopped and the run kept: the trace is whole, those threads' logs may be incomplete",
                conn.label, ", ".join(map(str, stuck)), EXIT_GRACE_S)


def _finish_run_step(art: RunArtifacts, conn: TargetConnection, run_dir: str) -> None:
    q = shlex.quote(run_dir)
    rc = int(conn.execute(f"cat {q}/rc", what="reading rt-app's exit code").strip() or -1)
    output = conn.execute(f"cat {q}/rtapp.out 2>/dev/null; true", what="reading rt-app's output")
    art.write_text("rtapp.out", output)
    if rc == 125 and conn.exists(f"{run_dir}/signals.log"):  # the kernel-signals collector did not start
        raise _signals.KernelSignals(conn).error(conn.try_read(f"{run_dir}/signals.log") or "")
    stuck = art.context.get("rtapp_stuck_at_exit")
    if stuck and rc == 128 + 9:     # stopped by _stop_stuck_rtapp (SIGKILL) after its whole duration
        art.step_done("run", ["rtapp.out", "workload.target.json"], exit_code=rc, stuck_at_exit=stuck,
                      seconds=round(time.time() - art.context.get("run_started", time.time()), 3))
        return
    if rc != 0:
        tail = " | ".join(output.strip().splitlines()[-3:])
        fix = "check the workload (workload.target.json is what ran) and rtapp.out"
        if "mark_fd" in output:
            fix = ("rt-app could not write its trace markers: tracing was turned off during the run, "
                   "most likely by another tool using tracefs at the same time; run again alone")
        raise PermanentBoardError(f"{conn.label}: rt-app exited with code {rc}: {tail}. Fix: {fix}")
    art.step_done("run", ["rtapp.out", "workload.target.json"], exit_code=rc,
                  seconds=round(time.time() - art.context.get("run_started", time.time()), 3))


def _collect_trace(art: RunArtifacts, conn: TargetConnection, collector: TracefsCollector,
                   run_dir: str) -> None:
    stats = collector.buffer_stats()
    lost = sum(s.lost for s in stats.values())
    per_cpu = {str(c): {"entries": s.entries, "overrun": s.overrun, "commit_overrun": s.commit_overrun,
                        "dropped_events": s.dropped_events} for c, s in stats.items()}
    if lost:
        log.warning("%s: the trace buffer lost %d events (overrun); raise tracing.buffer_size_kb",
                    conn.label, lost)
    interference = _interference(conn, collector, art)
    with tempfile.TemporaryDirectory(dir=art.dir, prefix=".pull-") as tmp:
        local = Path(tmp) / "trace.dat"
        method = collector.extract(run_dir, local)
        art.add_file("trace.dat", local)
    # the other interference: CPU time other processes took (``interference`` above lists
    # what other tools changed in tracefs)
    others = _other_processes(art, conn)
    others["warning"] = None
    if others.get("share_pct", 0.0) > WARN_SHARE_PCT:
        others["warning"] = (f"other processes took {others['share_pct']:.1f}% of the CPU time during the run "
                             f"({others['seconds']:.2f} s on {others['cpus']} CPUs over {others['span_s']:.2f} s; "
                             f"most: {', '.join(f'{n} {v:.2f} s' for n, v in others['top'][:3])})")
        log.warning("%s: %s", conn.label, others["warning"])
    art.step_done("trace", ["trace.dat"], method=method, lost_events=lost, per_cpu=per_cpu,
                  interference=interference, other_processes=others)


def _other_processes(art: RunArtifacts, conn: TargetConnection) -> dict:
    """CPU time the trace shows for processes other than the workload (never fails the run)."""
    try:
        wl = json.loads((art.dir / "workload.target.json").read_text())
        return other_cpu_time(art.dir / "trace.dat", list(wl.get("tasks", {})))
    except Exception as exc:  # noqa: BLE001 - a figure about the run, not the run itself
        log.warning("%s: could not count other processes' CPU time: %s", conn.label, exc)
        return {"available": False, "reason": f"{type(exc).__name__}: {exc}"}


def _interference(conn: TargetConnection, collector: TracefsCollector, art: RunArtifacts) -> list[str]:
    """Settings another tool changed in the shared buffer while the run was recording."""
    out = []
    clock = conn.try_read(f"{collector.buffer_dir}/trace_clock") or ""
    m = re.search(r"\[(\S+)\]", clock)
    want = conn.config.tracing.clock
    if m and m.group(1) != want:
        out.append(f"trace_clock is {m.group(1)!r}, not {want!r}: another tool changed it during the "
                   f"run, so trace times may not line up with rt-app's logs")
    events = art.manifest["steps"]["tracing"].get("events") or []
    now = set((conn.try_read(f"{collector.buffer_dir}/set_event") or "").split())
    if events and not any("*" in e for e in events) and not set(events) <= now:
        out.append(f"events {sorted(set(events) - now)} were disabled during the run by another tool")
    for msg in out:
        log.warning("%s: %s", conn.label, msg)
    return out


def _collect_logs(art: RunArtifacts, conn: TargetConnection, run_dir: str) -> None:
    q = shlex.quote(run_dir)
    names = [n for n in conn.execute(f"cd {q} && ls -1", as_root=False, what="listing rt-app logs")
             .splitlines() if n.endswith(".log") and n.startswith("rt-app")]
    stuck = set((art.context.get("rtapp_stuck_at_exit") or {}).get("threads", ()))
    files, empty = [], []
    with tempfile.TemporaryDirectory(dir=art.dir, prefix=".pull-") as tmp:
        for name in names:
            local = Path(tmp) / f"f{len(files)}"
            conn.pull(f"{run_dir}/{name}", local)
            m = re.search(r"-(\d+)\.log$", name)
            if stuck and m and int(m.group(1)) in stuck and local.stat().st_size == 0:
                empty.append(f"rtapp/{name}")   # a stuck thread's log never flushed: not kept
                continue
            art.add_file(f"rtapp/{name}", local)
            files.append(f"rtapp/{name}")
    if not files:
        raise PermanentBoardError(f"{conn.label}: rt-app wrote no log files in {run_dir}. Fix: check "
                                  f"rtapp.out in the artifact directory")
    art.step_done("logs", files, **({"empty_logs_of_stuck_threads": empty} if empty else {}))


def _tool_versions(conn: TargetConnection | None) -> dict[str, str]:
    from .. import __version__

    out = {"lisa_eas": __version__, "python": host_platform.python_version()}
    try:
        import devlib

        out["devlib"] = getattr(devlib, "__version__", "") or _dist_version("devlib")
    except ImportError:
        pass
    if conn is not None:
        with _suppress_board_errors():
            tc = conn.which("trace-cmd")
            if tc:
                out["trace-cmd (target)"] = " ".join(conn.execute(
                    f"{shlex.quote(tc)} -h 2>&1 | grep -m1 version || true", as_root=False).split())
    return out


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return ""


def _run_json(art: RunArtifacts, conn: TargetConnection | None, t_start: float, error=None) -> dict:
    steps = art.manifest["steps"]

    def load(name):
        p = art.dir / name
        return json.loads(p.read_text()) if p.exists() else None

    target = load("target.json") or {}
    trace = steps["trace"]
    info = {
        "status": "complete" if error is None else "incomplete",
        "target": load("target_config.json"),
        "kernel": {k: target.get(k) for k in ("kernel_release", "kernel_version", "machine", "hostname")},
        "platform": target.get("platform"),
        "probe_notes": target.get("notes"),
        "workload": {"source": art.context.get("workload_source"), "sha256": steps["workload"].get("sha256"),
                     "calibration": steps["calibration"].get("value"),
                     "calibration_source": steps["calibration"].get("source")},
        "rtapp": {"path": steps["rtapp"].get("path"), "cksum": steps["rtapp"].get("cksum"),
                  "exit_code": steps["run"].get("exit_code"),
                  **({"stuck_at_exit": {**steps["run"]["stuck_at_exit"],
                                        "empty_logs": steps["logs"].get("empty_logs_of_stuck_threads", [])}}
                     if steps["run"].get("stuck_at_exit") else {})},
        "tracing": {**{k: steps["tracing"].get(k) for k in ("events", "skipped_events", "clock",
                                                             "buffer_size_kb", "markers", "buffer")},
                    "extract_method": trace.get("method"), "lost_events": trace.get("lost_events"),
                    "interference": trace.get("interference"),
                    "other_processes": trace.get("other_processes"),
                    "per_cpu": trace.get("per_cpu")},
        "kernel_signals": trace.get("kernel_signals") or steps["tracing"].get("kernel_signals"),
        "timings": {"total_s": round(time.time() - t_start, 3),
                    "run_s": steps["run"].get("seconds"), "connect_s": steps["connect"].get("seconds")},
        "tools": _tool_versions(conn) if error is None else {},
        "host": {"python": host_platform.python_version(), "system": host_platform.system()},
        "steps": {k: v.get("status") for k, v in steps.items()},
    }
    if error is not None:
        info["error"] = str(error)
    text = json.dumps(info, default=str)
    if conn is not None and conn.scrub(text) != text:  # belt and braces: never a secret on disk
        info = json.loads(conn.scrub(text))
    return info


def _write_partial_run_json(art: RunArtifacts, conn, t_start: float, error, status: str | None = None) -> None:
    try:
        info = _run_json(art, None, t_start, error=error if not conn else conn.scrub(str(error)))
        if status:
            info["status"] = status
            info["interrupted"] = art.manifest.get("interrupted")
        art.write_json("run.json", info)
    except Exception as exc:  # noqa: BLE001 - never mask the run's own error
        log.warning("could not write run.json: %s", exc)


def _result(art: RunArtifacts) -> RunResult:
    logs = tuple(art.dir / f for f in art.manifest["steps"]["logs"].get("files", ()))
    info = json.loads((art.dir / "run.json").read_text())
    return RunResult(out_dir=art.dir, trace_path=art.dir / "trace.dat", log_paths=logs, run_info=info)



def _cache_dir() -> Path:
    env = os.environ.get("LISA_EAS_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "lisa_eas"

