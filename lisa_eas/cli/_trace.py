"""``lisa-eas trace``: summarise a trace, or convert it to one parquet file per event or to a
Perfetto protobuf trace."""
from __future__ import annotations

import io
from pathlib import Path

from ._output import format_table, print_json


def register(sub) -> None:
    p = sub.add_parser("trace", help="inspect a trace (info) or convert it to parquet or Perfetto "
                                     "(convert)",
                       description="Read a trace.dat (v6/v7), Perfetto protobuf trace, "
                                   "trace-cmd/tracefs text or Android systrace/atrace file (or a "
                                   "`lisa-eas run`/`simulate` output directory). 'info' prints its "
                                   "events, counts, time span, CPUs, clock and what could not be "
                                   "decoded; 'convert' writes one parquet file per event (--to "
                                   "parquet) or a Perfetto trace for ui.perfetto.dev (--to perfetto).")
    p.add_argument("action", choices=["info", "convert"])
    p.add_argument("file", help="trace file, or a `lisa-eas run`/`lisa-eas simulate` --out directory")
    p.add_argument("--out", help="convert: output directory (parquet) or file (perfetto)")
    p.add_argument("--to", choices=["parquet", "perfetto"], default="parquet",
                   help="convert: output format (default parquet)")
    p.add_argument("--events", nargs="+", metavar="EVENT", help="only these events")
    p.add_argument("--strict", action="store_true",
                   help="fail at the first undecodable byte/line instead of skipping it")
    p.add_argument("--no-cache", action="store_true", help="do not use or fill the parquet cache")
    p.add_argument("--buffer", help="trace.dat: tracefs instance to read ('' = top buffer)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_run)


def _info(trace) -> dict:
    """The summary of a :class:`Trace` or of a :class:`TraceSummary` (same metadata, events,
    time range and skipped report; rows per event without a DataFrame)."""
    meta = trace.metadata
    counts, span = meta.get("event_counts"), meta.get("time_range")
    if isinstance(counts, dict) and set(counts) == set(trace.events) and span and None not in span:
        # a cache hit: the counts and time range of the decode, no event table read
        counts, (start, end) = dict(counts), span
    else:
        rows = getattr(trace, "rows", None) or (lambda e: len(trace.df(e)))
        counts = {e: rows(e) for e in trace.events}
        start, end = trace.time_range
    return {"source": meta.get("source"), "format": meta.get("format"),
            "clock": meta.get("clock"), "cpus": meta.get("cpus"),
            "kernel_version": meta.get("kernel_version"), "buffer": meta.get("buffer"),
            "start_s": start, "end_s": end,
            "duration_s": end - start if counts else 0.0, "events": counts,
            "total_events": sum(counts.values()), "lost_events": meta.get("lost_events", 0),
            "skipped": trace.skipped.as_dict()}


def _load(args):
    from ..trace import read_trace

    if args.action == "info":
        # a small trace.dat: counted by a page walk, no decode (no pandas, no numba); None
        # when only the decode gives the same answer
        from ..trace import summarize_trace

        summary = summarize_trace(args.file, events=args.events, strict=args.strict,
                                  buffer=args.buffer)
        if summary is not None:
            _check_events_known(summary, args)
            return summary
    if Path(args.file).is_dir():
        from ..analysis.validate import load_trace_arg
        trace = load_trace_arg(args.file)
        if args.events:
            _check_events_known(trace, args)
            from ..trace import Trace
            trace = Trace.from_dataframes({e: trace.df(e) for e in args.events},
                                          metadata=trace.metadata)
        return trace
    trace = read_trace(args.file, events=args.events, strict=args.strict, cache=not args.no_cache,
                       buffer=args.buffer)
    _check_events_known(trace, args)
    return trace


def _check_events_known(trace, args) -> None:
    """``--events`` names only events the file holds; else a TraceError naming the unknown ones
    and listing the known ones (an empty summary would look like an empty trace)."""
    from ..errors import TraceError

    unknown = [e for e in args.events or () if e not in trace.events]
    if unknown:
        known = sorted((trace.metadata.get("event_counts") or {}).keys()) or sorted(trace.events)
        raise TraceError(f"{args.file}: --events {' '.join(unknown)}: no such event in this trace; it holds "
                         f"{', '.join(known) or 'no events'}")


def _run(args) -> int:
    trace = _load(args)
    if args.action == "info":
        info = _info(trace)
        if args.format == "json":
            print_json(info)
            return 0
        print(f"{info['source']}: {info['format']}, clock {info['clock'] or 'unknown'}, "
              f"{info['cpus']} CPUs, kernel {info['kernel_version'] or 'unknown'}")
        print(f"time {info['start_s']:.6f} .. {info['end_s']:.6f} s "
              f"({info['duration_s']:.6f} s), {info['total_events']} events, "
              f"{info['lost_events']} lost")
        print(format_table(["event", "count"], sorted(info["events"].items())))
        print(f"skipped: {trace.skipped}")
        return 0
    from .._atomic import write_bytes_atomic

    if not args.out:
        raise SystemExit("trace convert: give --out DIR (parquet) or --out FILE (perfetto)")
    out = Path(args.out)
    if args.to == "perfetto":
        if out.is_dir():
            out = out / (Path(args.file).name + ".perfetto-trace")
        trace.to_perfetto(out)
        n = sum(len(trace.df(e)) for e in trace.events)
        if args.format == "json":
            print_json({"out": str(out), "events": n, "bytes": out.stat().st_size})
        else:
            print(f"{out}: {n} events, {out.stat().st_size} bytes (open it in ui.perfetto.dev)")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for event in trace.events:
        df = trace.df(event)
        path = out / f"{event}.parquet"
        buf = io.BytesIO()
        df.to_parquet(buf, index=True)
        write_bytes_atomic(path, buf.getvalue())      # a full disk names the file
        rows.append([event, len(df), str(path)])
    if args.format == "json":
        print_json([{"event": e, "rows": n, "path": p} for e, n, p in rows])
    else:
        print(format_table(["event", "rows", "file"], rows))
    return 0
