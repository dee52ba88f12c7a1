"""``lisa-eas run``: run an rt-app workload on a board with tracing, or resume a run."""
from __future__ import annotations

import contextlib
import signal
import threading


def register(sub) -> None:
    p = sub.add_parser(
        "run", help="run an rt-app workload on a target with tracing (or --resume a run)",
        description="Run an rt-app workload on the target a config file describes, record a trace "
                    "with the tracefs collector, and collect trace.dat, the rt-app logs and run.json "
                    "into --out. A run that stops halfway can be finished with --resume DIR.")
    p.add_argument("--target", help="target config YAML (e.g. target_configs/local.yml)")
    p.add_argument("--workload", help="rt-app workload JSON (e.g. workloads/smoke_local.json)")
    p.add_argument("--out", help="artifact directory to create")
    p.add_argument("--resume", metavar="DIR", help="finish the interrupted run in DIR")
    p.add_argument("--timeout", type=float, help="seconds allowed for rt-app (default from the "
                                                 "workload duration, else 600)")
    p.add_argument("--calibration", type=int, help="rt-app calibration in ns per loop (default: "
                                                   "workload, config, cache, else measured)")
    p.add_argument("--kernel-signals", nargs="?", const="all", metavar="LIST",
                   help="also record the kernel's PELT/util_est/overutilized/capacity signals with the BPF "
                        "collector (no kernel module): all, or a comma list of pelt_se, pelt_cfs, pelt_rt, "
                        "pelt_dl, pelt_irq, util_est_se, util_est_cfs, overutilized, cpu_capacity")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_run)


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM ends a run the way Ctrl-C does (rt-app stopped, what was collected kept); the
    previous handlers are back afterwards. Both signals are also noted for the run: a
    KeyboardInterrupt raised while the run forks a subprocess lands in an at-fork callback,
    where Python ignores it (without printing a traceback here), and the run's wait loop raises
    it again."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from ..target._interrupt import note_interrupt, quiet_swallowed_interrupts

    def handler(signum, frame):
        if signum == signal.SIGTERM:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)     # once: the clean-up must not be cut short
        note_interrupt(signum)
        raise KeyboardInterrupt

    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    signal.signal(signal.SIGTERM, handler)
    if previous[signal.SIGINT] is signal.default_int_handler:     # not when Ctrl-C is ignored (a background job)
        signal.signal(signal.SIGINT, handler)
    try:
        with quiet_swallowed_interrupts():
            yield
    finally:
        for s, h in previous.items():
            if h is not None:
                signal.signal(s, h)


def _run(args) -> int:
    with _sigterm_as_interrupt():
        return _run_or_resume(args)


def _run_or_resume(args) -> int:
    from ..target import resume_run, run_workload

    progress = False if args.no_progress else None
    if args.resume:
        if args.workload or args.out:
            raise SystemExit("lisa-eas run --resume DIR: do not give --workload or --out with --resume")
        result = resume_run(args.resume, args.target, progress=progress)
    else:
        if args.timeout is not None and not args.timeout > 0:
            raise SystemExit(f"run: --timeout {args.timeout:g}: give the seconds allowed for rt-app, > 0")
        missing = [f"--{n}" for n in ("target", "workload", "out") if not getattr(args, n)]
        if missing:
            raise SystemExit(f"lisa-eas run: missing {', '.join(missing)} (or use --resume DIR)")
        result = run_workload(args.target, args.workload, args.out, timeout=args.timeout,
                              calibration=args.calibration, progress=progress,
                              kernel_signals=args.kernel_signals)
    info = result.run_info
    print(f"run complete: {result.out_dir}")
    print(f"  trace:   {result.trace_path} ({info['tracing'].get('extract_method')}, "
          f"lost events: {info['tracing'].get('lost_events')})")
    ks = info.get("kernel_signals") or {}
    if ks.get("status") and ks.get("status") != "armed":
        print(f"  signals: {result.out_dir / 'kernel_signals.bin'} ({ks.get('status')}, {ks.get('records')} "
              f"records, dropped {ks.get('dropped')})" if ks.get("records") is not None else
              f"  signals: {ks.get('status')} {ks.get('error', '')}".rstrip())
    for path in result.log_paths:
        print(f"  rt-app:  {path}")
    print(f"  run.json: {result.out_dir / 'run.json'} (kernel {info['kernel'].get('kernel_release')}, "
          f"{info['timings'].get('total_s')} s)")
    return 0
