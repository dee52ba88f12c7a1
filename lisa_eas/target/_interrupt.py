"""What a run does when it is interrupted (Ctrl-C, SIGTERM): stop rt-app on the target, keep
the logs and the trace recorded so far, mark the run ``interrupted`` in ``manifest.json`` and
``run.json``, leave tracing off.
"""
from __future__ import annotations

import contextlib
import logging
import shlex
import sys
import time

from ..errors import BoardError

__all__ = ["RunInterrupted", "stop_interrupted_run"]

log = logging.getLogger(__name__)

#: signals whose handler raised KeyboardInterrupt and whose run has not seen it yet: Python
#: ignores an exception raised where it cannot propagate (an at-fork callback, such as
#: logging's lock release around every subprocess the run starts, or a finaliser), so an
#: interrupt delivered there would be lost; the run's wait loop raises it again
_pending: list[int] = []


def note_interrupt(signum: int) -> None:
    """Remember that a signal handler is raising KeyboardInterrupt (see :func:`raise_pending`)."""
    _pending.append(signum)


def raise_pending() -> None:
    """Raise the KeyboardInterrupt of a noted signal that never reached the run."""
    if _pending:
        _pending.clear()
        raise KeyboardInterrupt


def clear_pending() -> None:
    """The run has seen the interrupt: nothing is pending any more."""
    _pending.clear()


@contextlib.contextmanager
def quiet_swallowed_interrupts():
    """While the run lasts, a noted interrupt that Python swallows prints nothing.

    Python reports an exception it cannot propagate through :func:`sys.unraisablehook`, which
    prints "Exception ignored in ..." and a traceback; for a noted interrupt that report is
    wrong (the interrupt is not lost: :func:`raise_pending` raises it again), and a user who
    pressed Ctrl-C would see a traceback. Every other unraisable exception is reported as before.
    """
    previous = sys.unraisablehook

    def hook(unraisable):
        if _pending and isinstance(unraisable.exc_value, KeyboardInterrupt):
            log.debug("interrupt delivered in %r: raised again by the run", unraisable.object)
            return
        previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM after keeping what it had collected.

    A :class:`KeyboardInterrupt` (a notebook or a script sees the interrupt it asked for) whose
    message says what was kept and how to resume or discard the run.
    """

    def __init__(self, out_dir, step: str, kept: list[str], resumable: bool):
        self.out_dir, self.step, self.kept, self.resumable = out_dir, step, list(kept), resumable
        what = ", ".join(kept) if kept else "nothing beyond the set-up files"
        if resumable:
            nxt = f"finish it with `lisa-eas run --resume {out_dir}`, or discard it: rm -r {out_dir}"
        elif step == "workload":
            nxt = f"nothing ran; discard it (rm -r {out_dir}) and start again"
        else:
            nxt = (f"rt-app was stopped, so this run cannot be finished: start a new one with another --out, "
                   f"or discard it: rm -r {out_dir}")
        super().__init__(f"run interrupted during '{step}': kept {what} in {out_dir} (marked interrupted in "
                         f"manifest.json and run.json; tracing is off); {nxt}")


def _stop_rtapp(conn, run_dir: str, wait_s: float = 5.0) -> None:
    """SIGINT then SIGKILL to rt-app: rt-app flushes its logs on SIGINT; the run script then
    turns tracing off and writes the exit code."""
    q = shlex.quote(run_dir)
    conn.execute(f"kill -INT \"$(cat {q}/rtapp.pid)\" 2>/dev/null; true", what="stopping rt-app")
    deadline = time.time() + wait_s
    while time.time() < deadline:
        if conn.execute(f"[ -f {q}/rc ] && echo done || echo running", as_root=False,
                        what="waiting for rt-app to stop").strip().endswith("done"):
            return
        time.sleep(0.1)
    conn.execute(f"kill -KILL \"$(cat {q}/rtapp.pid)\" 2>/dev/null; sleep 0.2; true", what="killing rt-app")


def stop_interrupted_run(art, conn, collector, step: str, collect_trace, collect_logs) -> RunInterrupted:
    """Clean up after an interrupt in ``step`` and return the :class:`RunInterrupted` to raise.

    ``collect_trace(collector, run_dir)`` / ``collect_logs(run_dir)`` bring back what rt-app
    and the trace buffer hold so far. A second interrupt during the clean-up stops the clean-up
    (tracing is still turned off by the run's target-side script once rt-app ends).
    """
    clear_pending()
    kept: list[str] = []
    run_dir = art.context.get("remote_run_dir")
    started = run_dir and art.manifest["steps"]["tracing"]["status"] == "complete" and \
        art.manifest["steps"]["run"]["status"] != "complete"
    try:
        if conn is not None and started:
            try:
                _stop_rtapp(conn, run_dir)
                out = conn.execute(f"cat {shlex.quote(run_dir)}/rtapp.out 2>/dev/null; true",
                                   what="reading rt-app's output")
                art.write_text("rtapp.out", out)
                kept.append("rtapp.out")
                if collector is not None:
                    collector.stop()
                    collect_trace(collector, run_dir)
                    kept.append("trace.dat (up to the interrupt)")
                collect_logs(run_dir)
                kept.append(f"{len(art.manifest['steps']['logs'].get('files', []))} rt-app logs (up to the "
                            f"interrupt)")
                conn.execute(f"rm -rf {shlex.quote(run_dir)}", what="removing the run directory on the target")
            except BoardError as exc:
                log.warning("interrupted run: could not collect everything: %s", exc)
        if collector is not None:
            try:
                collector.teardown()
            except BoardError as exc:
                log.warning("interrupted run: could not reset tracing: %s", exc)
    except KeyboardInterrupt:
        log.warning("second interrupt: clean-up stopped")
    # resumable when rt-app never started, and the workload was saved
    resumable = not started and art.manifest["steps"]["workload"]["status"] == "complete"
    art.manifest["status"] = "interrupted"
    art.manifest["interrupted"] = {"step": step, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                   "rtapp_stopped": bool(started), "kept": kept}
    if started:
        art.manifest["steps"]["run"] = {"status": "failed", "error": "interrupted (rt-app stopped)"}
    elif art.manifest["steps"][step]["status"] != "complete":
        art.manifest["steps"][step] = {"status": "missing"}
    art.save()
    return RunInterrupted(art.dir, step, kept, resumable)
