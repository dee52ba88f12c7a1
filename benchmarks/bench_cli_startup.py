"""CLI start-up benchmark: a fresh ``lisa-eas trace info`` on a small trace, against
``python -c pass``, ``trace-cmd report`` and a fresh full decode of the same file, in one run.

The trace is the bundled ``tests/data/traces/dat/lisa_juno-r0_sched_load.dat.xz`` (3,724
events, 3.4 MB once decompressed into a temporary directory). Each command runs in a fresh
process ``--repeat`` times after one warm-up run (the numba kernels compiled and cached on disk,
the files in the page cache, as for a user's second command); the minimum and median wall time
and the median CPU time (user + system of the child, steadier on a shared machine) are
printed for:

* ``python -c pass``: the interpreter alone (the floor of any Python CLI);
* ``python -c "import numpy"``: what any numpy-based answer pays first;
* ``floor``: a Python that imports numpy, pandas and numba and initialises numba's CPU target
  (what numba does before it loads any cached kernel): the least any fresh decode costs
  with this stack;
* ``trace-cmd report FILE > /dev/null``: the C tool on the same file (when installed);
* ``lisa-eas trace info FILE`` and ``... --no-cache``: a small trace.dat is counted by a
  page walk in the standard library (``lisa_eas/trace/_datcount.py``: no numpy, pandas or
  numba, no cache read or written);
* ``decode``: ``read_trace(FILE, cache=False)`` and every DataFrame built, in a fresh process
  (what ``trace info`` cost before the counting walk, and still costs on files the walk
  declines).

Then where ``trace info``'s import time goes (``python -X importtime``, cumulative per
top-level package). Target (issue 21): a fresh ``trace info`` on a small trace <= 0.5 s.
Prints a table and ONE JSON line (with the 1-minute load average: wall times on a shared
machine grow with it, CPU times much less).

Usage: ``python benchmarks/bench_cli_startup.py [--repeat N] [--trace FILE]``
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACE_XZ = ROOT / "tests" / "data" / "traces" / "dat" / "lisa_juno-r0_sched_load.dat.xz"
TARGET_S = 0.5


def _lisa_eas() -> list[str]:
    script = Path(sys.executable).with_name("lisa-eas")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lisa_eas.cli"]


def _timed(cmd: list[str], cwd: Path, before=None, env=None) -> tuple[float, float]:
    """(wall s, CPU s) of one run of ``cmd`` with its output to /dev/null."""
    if before:
        before()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def _measure(cmd, cwd, repeat, before=None, env=None) -> dict:
    _timed(cmd, cwd, before, env)                  # warm-up: compiled kernels, page cache
    runs = [_timed(cmd, cwd, before, env) for _ in range(repeat)]
    walls = [w for w, _ in runs]
    return {"min_s": round(min(walls), 4), "median_s": round(statistics.median(walls), 4),
            "cpu_median_s": round(statistics.median(c for _, c in runs), 4)}


def _import_breakdown(cmd_args: list[str], cwd: Path) -> dict:
    """Cumulative import time (s) of the top-level packages the command imports."""
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "lisa_eas.cli", *cmd_args], cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    out: dict[str, float] = {}
    for line in p.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cum, name = line.split("|", 2)
        if not cum.strip().isdigit() or name.startswith("  "):
            continue
        top = name.strip().split(".")[0]
        out[top] = out.get(top, 0.0) + int(cum) / 1e6
    return {k: round(v, 3) for k, v in sorted(out.items(), key=lambda kv: -kv[1])[:8]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--trace", help="a trace file instead of the bundled 3,724-event trace.dat")
    ap.add_argument("--compare-tree", metavar="DIR",
                    help="also time `trace info` with the lisa_eas package of DIR (e.g. an older commit "
                         "extracted with `git archive COMMIT lisa_eas | tar -x -C DIR`) first on PYTHONPATH")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lisa_eas_cli_bench_"))
    try:
        if args.trace:
            trace = work / Path(args.trace).name
            shutil.copy(args.trace, trace)
        else:
            trace = work / "trace.dat"
            trace.write_bytes(lzma.decompress(TRACE_XZ.read_bytes()))
        cache = work / f".{trace.name}.lisa_eas"
        drop_cache = lambda: shutil.rmtree(cache, ignore_errors=True)       # noqa: E731
        cli = _lisa_eas()
        rows = {"python -c pass": _measure([sys.executable, "-c", "pass"], work, args.repeat)}
        rows["python -c 'import numpy'"] = _measure([sys.executable, "-c", "import numpy"], work,
                                                    args.repeat)
        # what any decode pays before its first byte: the libraries it stands on, and numba's
        # target initialisation (numba refreshes every typing/lowering registry before it
        # loads the first cached kernel, whichever kernel it is)
        rows["floor: numpy+pandas+numba, numba init"] = _measure(
            [sys.executable, "-c", "import numpy, pandas, numba\n"
             "from numba.core.registry import cpu_target\ncpu_target.target_context.refresh()"],
            work, args.repeat)
        if shutil.which("trace-cmd"):
            rows["trace-cmd report"] = _measure(["trace-cmd", "report", trace.name], work, args.repeat)
        rows["trace info"] = _measure([*cli, "trace", "info", trace.name], work, args.repeat)
        rows["trace info --no-cache"] = _measure([*cli, "trace", "info", trace.name, "--no-cache"], work,
                                                 args.repeat)
        rows["decode: read_trace(cache=False), all DataFrames"] = _measure(
            [sys.executable, "-c", "import sys; from lisa_eas.trace import read_trace\n"
             "t = read_trace(sys.argv[1], cache=False); [t.df(e) for e in t.events]", trace.name],
            work, args.repeat)
        if args.compare_tree:
            env = dict(os.environ, PYTHONPATH=str(Path(args.compare_tree).resolve()))
            mod = [sys.executable, "-m", "lisa_eas.cli"]
            rows["[compare-tree] trace info --no-cache"] = _measure([*mod, "trace", "info", trace.name, "--no-cache"],
                                                                    work, args.repeat, env=env)
            drop_cache()
        imports = _import_breakdown(["trace", "info", trace.name], work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = rows["python -c pass"]["median_s"]
    tc = rows.get("trace-cmd report", {}).get("median_s")
    print(f"{'command':46s} {'min s':>7s} {'median s':>9s} {'CPU s':>7s} {'x python':>9s} {'x trace-cmd':>12s}")
    for name, r in rows.items():
        print(f"{name:46s} {r['min_s']:7.3f} {r['median_s']:9.3f} {r['cpu_median_s']:7.3f} "
              f"{r['median_s'] / base:9.1f} {(r['median_s'] / tc) if tc else float('nan'):12.1f}")
    print("imports of `trace info` (s, cumulative): " + ", ".join(f"{k} {v}" for k, v in imports.items()))
    out = {"benchmark": "cli_startup", "trace": args.trace or str(TRACE_XZ.relative_to(ROOT)),
           "load_avg_1m": round(os.getloadavg()[0], 2), "target_s": TARGET_S, "runs": rows,
           "imports_s": imports,
           "meets_target": {k: v["min_s"] <= TARGET_S for k, v in rows.items() if k.startswith("trace info")},
           "compare_tree": args.compare_tree}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
