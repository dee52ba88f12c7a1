"""Where the cold compile of the simulator's event loop goes, function by function.

Compiles the event loop (``warm_up_simulator``: a 10 ms run) in this process with an empty
numba cache of its own (``NUMBA_CACHE_DIR`` set to a fresh temporary directory before numba is
imported, so the working copy's cache is neither used nor touched), recording numba's
``numba:compile`` events (one start / end pair per function compiled, nested: a caller's
typing compiles its callees) and ``numba:llvm_lock`` events (the LLVM work: optimisation and
code generation). Prints ONE JSON line: the wall and process CPU time of the whole compile,
the LLVM share, and the functions by exclusive time (their own typing, lowering and LLVM work,
their callees' compiles excluded), the top ``--top``.

A function inlined by numba (``inline='always'``) has no compile event of its own: its typing
and lowering are counted in each caller that inlines it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    cache = tempfile.mkdtemp(prefix="lisa-eas-compile-")
    os.environ["NUMBA_CACHE_DIR"] = cache
    from numba.core import event

    from lisa_eas.sim._warm import warm_up_simulator

    comp = event.install_recorder("numba:compile")
    llvm = event.install_recorder("numba:llvm_lock")
    w0, c0 = time.perf_counter(), time.process_time()
    with comp as rc, llvm as rl:
        warm_up_simulator(stream=open(os.devnull, "w"))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    # exclusive time per function from the nested start/end pairs
    excl: dict[str, float] = {}
    count: dict[str, int] = {}
    stack: list[list] = []
    for ts, ev in rc.buffer:
        disp = ev.data.get("dispatcher")
        name = getattr(getattr(disp, "py_func", None), "__qualname__", str(disp))
        mod = getattr(getattr(disp, "py_func", None), "__module__", "")
        key = f"{mod.rsplit('.', 1)[-1]}.{name}"
        if ev.is_start:
            stack.append([key, ts, 0.0])
        else:
            k, t0, child = stack.pop()
            total = ts - t0
            excl[k] = excl.get(k, 0.0) + total - child
            count[k] = count.get(k, 0) + 1
            if stack:
                stack[-1][2] += total
    llvm_s = 0.0
    t_start = None
    depth = 0
    for ts, ev in rl.buffer:
        if ev.is_start:
            if depth == 0:
                t_start = ts
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                llvm_s += ts - t_start
    top = sorted(excl.items(), key=lambda kv: -kv[1])[: args.top]
    with open("/proc/loadavg") as fh:
        load = [float(x) for x in fh.read().split()[:3]]
    print(json.dumps({"benchmark": "sim_compile", "loadavg_after": load, "wall_s": round(wall, 1),
                      "cpu_s": round(cpu, 1), "llvm_lock_s": round(llvm_s, 1), "functions": len(excl),
                      "top_exclusive_s": [[k, round(v, 2), count[k]] for k, v in top]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
