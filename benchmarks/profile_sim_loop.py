"""Where the simulator's event loop spends its time: a ``perf`` profile by numba function.

Compiles the loop afresh (an empty temporary ``NUMBA_CACHE_DIR``: code loaded from numba's
cache carries no symbol table; the compile takes a minute or two), writes a perf map
(``/tmp/perf-PID.map``: each compiled function's address, from its code library) so that
``perf report`` can name the JIT code, then records ``perf record -F 4000`` on this process
while it runs the bench workload (50 tasks, 16 ms, 5 %, 30 s, HiKey960, EAS, schedutil) ``N``
times in the chosen output mode. Prints ONE JSON line: the share of the samples of each
function (self time; numba's inlined callees count in their caller), the top ``--top``.

With ``--scale N`` the workload is instead ``bench_sim_scale.py``'s CPU series case: the bundled
``x86_llc112`` cut to ``N`` CPUs (no cpufreq, no Energy Model), 6.25 tasks per CPU of 8 % of
16 ms, start times spread over a period, 10 s simulated per run.

Usage: ``python benchmarks/profile_sim_loop.py [--outputs summary|full] [--runs 8] [--top 25]
[--scale 112] [--annotate NAME --asm-out FILE]`` (needs ``perf``, and ``kernel.perf_event_paranoid``
<= 1 or root).

``--annotate NAME[,NAME...]`` (short names as printed, e.g. ``sim_loop.op_done``) goes down to the
instructions: the function's machine code is copied out of this process's memory and
disassembled (``objdump``), each instruction with its share of the function's samples
(``perf script``'s sampled addresses), written to ``--asm-out``; the JSON line then also
gives the function's hottest instructions.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def _short(sym: str) -> str:
    """``_ZN8lisa_eas8_kernels3eas8feec_v54B3v81...`` -> ``eas.feec_v54`` (numba's mangled names:
    length-prefixed identifiers, then ``B`` and the specialisation)."""
    parts, pos = [], 3
    while pos < len(sym) and sym[pos].isdigit():
        m = re.match(r"\d+", sym[pos:])
        n = int(m.group(0))
        pos += len(m.group(0))
        parts.append(sym[pos:pos + n])
        pos += n
    parts = [x for x in parts if x not in ("lisa_eas", "_kernels")]
    return ".".join(parts) if parts else sym[:60]


def _perf_map(path: str) -> dict:
    import importlib
    import pkgutil

    import lisa_eas._kernels as K
    from numba.core.registry import CPUDispatcher

    syms = {}
    for mi in pkgutil.iter_modules(K.__path__):
        mod = importlib.import_module("lisa_eas._kernels." + mi.name)
        for obj in vars(mod).values():
            if isinstance(obj, CPUDispatcher):
                for cres in obj.overloads.values():
                    lib = cres.library
                    for f in lib._final_module.functions:
                        if not f.is_declaration:
                            addr = lib.get_pointer_to_function(f.name)
                            if addr:
                                syms[addr] = f.name
    addrs = sorted(syms)
    with open(path, "w") as out:
        for i, a in enumerate(addrs):
            size = addrs[i + 1] - a if i + 1 < len(addrs) and addrs[i + 1] - a < (1 << 22) else 4096
            out.write(f"{a:x} {size:x} {syms[a]}\n")
    return {a: (syms[a], (addrs[i + 1] - a) if i + 1 < len(addrs) else 4096) for i, a in enumerate(addrs)}


def _annotate(data: str, symtab: dict, name: str, out_path: str) -> list:
    """Instruction-level shares of the function ``name`` (short name): its sampled addresses
    (``perf script``) against its machine code, copied from this process and disassembled."""
    import ctypes
    from collections import Counter

    names = set(name.split(","))
    funcs = [(a, sz, sym) for a, (sym, sz) in symtab.items() if _short(sym) in names]
    if not funcs:
        raise SystemExit(f"--annotate {name!r}: no such compiled function")
    ips = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True).stdout.split()
    counts = Counter(int(x, 16) for x in ips)
    hot = []
    with open(out_path, "w") as out:
        for a, sz, sym in funcs:
            inside = {ip: n for ip, n in counts.items() if a <= ip < a + sz}
            total = sum(inside.values()) or 1
            with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as fh:
                fh.write(ctypes.string_at(a, sz))
            dis = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", f"--adjust-vma={a:#x}",
                                  fh.name], capture_output=True, text=True).stdout
            os.unlink(fh.name)
            out.write(f"== {sym} ({sum(inside.values())} samples)\n")
            for line in dis.splitlines():
                m = re.match(r"\s*([0-9a-f]+):", line)
                if not m:
                    continue
                n = inside.get(int(m.group(1), 16), 0)
                out.write(f"{100.0 * n / total:6.2f} {line}\n")
                if n:
                    hot.append((_short(sym), round(100.0 * n / total, 2), line.split("\t")[-1].strip()))
    hot.sort(key=lambda x: -x[1])
    return hot[:30]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outputs", default="summary", choices=("summary", "full"))
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--scale", type=int, default=0, help="x86_llc112 cut to this many CPUs (0: HiKey960)")
    ap.add_argument("--annotate", default=None, help="a function's short name: instruction-level shares")
    ap.add_argument("--asm-out", default="/tmp/lisa_eas_annotate.txt")
    args = ap.parse_args(argv)
    if shutil.which("perf") is None:
        raise SystemExit("perf is not installed (Debian: linux-perf)")
    if os.environ.get("NUMBA_CACHE_DIR") is None:      # re-run with an empty cache: symbols need a fresh compile
        with tempfile.TemporaryDirectory(prefix="lisa_eas_prof_") as tmp:
            env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
            return subprocess.run([sys.executable, __file__, *(argv or sys.argv[1:])], env=env).returncode
    from lisa_eas.platform import load_platform
    from lisa_eas.rtapp import periodic, task, workload
    from lisa_eas.sim import SimConfig
    from lisa_eas.sim._compile import compile_workload
    from lisa_eas.sim._engine import build_run, run_loop

    run_ns = int(30e9)
    if args.scale:
        from dataclasses import replace

        from lisa_eas.sim._fixed import plan_platform
        x86 = load_platform("x86_llc112")
        n = args.scale
        board = x86 if n == x86.nr_cpus else replace(x86, name=f"x86_llc{n}", nr_cpus=n, llc_weight=n)
        wl = workload([task(f"t{i}", periodic(duty_cycle_pct=8, period_ms=16, duration_s=10))
                       for i in range(n * 25 // 4)], calibration=100)
        base = SimConfig(duration_s=10, start_jitter_us=16000, seed=1)
        plat, cfg, _ = plan_platform(board, base if args.outputs == "full" else replace(base, outputs=args.outputs))
        run_ns = int(10e9)
    else:
        plat = load_platform("hikey960")
        wl = workload([task(f"t{i}", periodic(duty_cycle_pct=5, period_ms=16, duration_s=30)) for i in range(50)],
                      calibration=20)
        cfg = SimConfig(outputs=args.outputs) if args.outputs != "full" else SimConfig()   # (also on trees before the option)
    compiled = compile_workload(wl, plat.nr_cpus)
    t0 = time.perf_counter()
    S, P, O, m = build_run(plat, compiled, cfg, int(1e9))
    run_loop(S, P, O, m)
    compile_s = time.perf_counter() - t0
    symtab = _perf_map(f"/tmp/perf-{os.getpid()}.map")
    n_syms = len(symtab)
    data = tempfile.mktemp(prefix="lisa_eas_prof_", suffix=".data")
    rec = subprocess.Popen(["perf", "record", "-q", "-F", "4000", "-p", str(os.getpid()), "-o", data],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    t0 = time.process_time()
    for _ in range(args.runs):
        S, P, O, m = build_run(plat, compiled, cfg, run_ns)
        run_loop(S, P, O, m)
    cpu = time.process_time() - t0
    rec.send_signal(signal.SIGINT)
    rec.wait()
    rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "sym", "--stdio"],
                         capture_output=True, text=True).stdout
    hot = _annotate(data, symtab, args.annotate, args.asm_out) if args.annotate else None
    os.unlink(data)
    rows = []
    for line in rep.splitlines():
        m_ = re.match(r"\s+([\d.]+)%\s+\[(.)\]\s+(\S+)", line)
        if m_:
            rows.append((float(m_.group(1)), m_.group(2), m_.group(3)))
    shares: dict[str, float] = {}
    for pct, kind, sym in rows:
        name = _short(sym) if sym.startswith("_ZN") else ("[kernel]" if kind == "k" else sym)
        shares[name] = shares.get(name, 0.0) + pct
    top = sorted(shares.items(), key=lambda kv: -kv[1])[:args.top]
    print(json.dumps({"profile": "sim_loop", "outputs": args.outputs, "runs": args.runs, "scale": args.scale,
                      "cpu_s_per_run": round(cpu / args.runs, 4), "compile_s": round(compile_s, 1),
                      "symbols": n_syms, "self_pct": {k: round(v, 2) for k, v in top},
                      **({"annotate": args.annotate, "asm_out": args.asm_out, "hot": hot} if hot is not None else {})}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
