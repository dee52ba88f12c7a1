"""``lisa-eas signals record``: the kernel's own PELT/util_est signals for a while, around
any workload the user starts themselves."""
from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "signals", help="record the kernel's PELT/util_est/overutilized/capacity signals (BPF, no module)",
        description="Record the kernel's own PELT, util_est, overutilized and CPU capacity signals on the "
                    "bare scheduler tracepoints with a BPF program (kernel >= 5.12 with BTF, root), for "
                    "--duration seconds, into --out (kernel_signals.bin + its .json summary). Read it "
                    "with lisa_eas.trace.read_trace(OUT).")
    p.add_argument("action", choices=["record"])
    p.add_argument("--duration", type=float, required=True, help="seconds to record")
    p.add_argument("--out", required=True, help="output directory (created)")
    p.add_argument("--target", default=None, help="target config YAML (default: this machine)")
    p.add_argument("--signals", default="all", help="all, or a comma list of pelt_se, pelt_cfs, pelt_rt, "
                                                   "pelt_dl, pelt_irq, util_est_se, util_est_cfs, "
                                                   "overutilized, cpu_capacity")
    p.add_argument("--task-only", action="store_true", help="entity records of tasks only (no groups)")
    p.add_argument("--root-only", action="store_true", help="cfs_rq records of the root cfs_rq only")
    p.add_argument("--pid", type=int, action="append", default=[], help="only this task (repeatable)")
    p.add_argument("--ringbuf-kb", type=int, default=16384, help="BPF ring buffer size, KiB (power of two)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from ..target import record_signals, signals_config, target_config_from_dict

    cfg = signals_config({"signals": args.signals, "task_only": args.task_only, "root_only": args.root_only,
                          "pids": args.pid, "ringbuf_kb": args.ringbuf_kb}, "lisa-eas signals")
    target = args.target or target_config_from_dict({"kind": "local"})
    info = record_signals(target, args.duration, args.out, cfg)
    print(f"kernel signals: {args.out}/kernel_signals.bin ({info.get('records')} records in "
          f"{info.get('seconds')} s, dropped {info.get('dropped')} {info.get('dropped_per_cpu')}, "
          f"{info.get('status')})")
    return 0
