"""Same-run A/B of the simulator's full output against an earlier commit, and its cold compile.

The bench workload of ``bench_sim.py`` (50 periodic tasks, 16 ms, 5 %, 30 s simulated on
HiKey960, EAS, schedutil, ``SimConfig()``: every event table, model events included) run by
``run_loop`` in child processes, one per tree: the working copy and the package as it was at
``--base`` (default 83ccb59, the commit before issue 16), extracted with ``git archive`` into a
temporary directory and imported from there (``PYTHONPATH``; the child checks which copy it
imported). Each tree gets its own empty ``NUMBA_CACHE_DIR``:

* **cold compile**: the first call of the event loop in a child whose cache is empty (process
  CPU time and wall time; the JIT compilation of every kernel the loop reaches);
* **full output**: then ``--rounds`` rounds, the two trees alternating, each child timing
  ``--repeat`` runs of the 30 s workload (process CPU time, cache warm); the best of all runs
  of each tree is kept (other processes on a shared machine only ever slow a run down).

Prints ONE JSON line: the load average before and after, the figures of each tree, and the
ratios current / base (overall best against best, and per round: each round's best of each
tree, with their median and range). ``--also REV`` adds a third tree (e.g. the head the
working copy started from), compared the same way, and, for the trees that have it, the
summary output (``SimConfig(outputs="summary")``, ``simulate`` end to end, best of
``--repeat`` after one warm run: a sweep's steady state). CPU time of a run; events per
second: the two trees do not simulate the same events (the PELT fix of issue 16 changes a
run). A ratio of CPU time <= 1 means the current code is no slower.

``--cache-dir DIR`` keeps the extracted trees and their caches in ``DIR`` (one per commit), so a
second invocation skips their cold compiles (the working copy then uses its own cache, next to
its sources); the cold compile is reported only for a tree whose cache was empty.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, time
import lisa_eas
assert os.path.realpath(lisa_eas.__file__).startswith(os.path.realpath(sys.argv[1])), lisa_eas.__file__
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim import SimConfig
from lisa_eas.sim._compile import compile_workload
from lisa_eas.sim._engine import build_run, run_loop
sim_s, repeat = float(sys.argv[2]), int(sys.argv[3])
plat = load_platform("hikey960")
wl = workload([task(f"t{i}", periodic(duty_cycle_pct=5, period_ms=16, duration_s=sim_s)) for i in range(50)],
              calibration=20)
compiled = compile_workload(wl, plat.nr_cpus)
config = SimConfig()
def run(seconds):
    S, P, O, margin = build_run(plat, compiled, config, int(seconds * 1e9))
    t0 = time.process_time()
    raw = run_loop(S, P, O, margin)
    return raw, time.process_time() - t0
w0, c0 = time.perf_counter(), time.process_time()
run(0.05)
out = {"first_call_cpu_s": time.process_time() - c0, "first_call_wall_s": time.perf_counter() - w0}
runs = [run(sim_s) for _ in range(repeat)]
out["events"] = int(len(runs[0][0].events))
out["cpu_s"] = [r[1] for r in runs]
try:                        # the summary output, where the tree has it: simulate() end to end
    summ = SimConfig(outputs="summary")
except Exception:
    summ = None
if summ is not None:
    from lisa_eas.sim import simulate
    simulate(plat, wl, config=summ)
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        simulate(plat, wl, config=summ)
        times.append(time.process_time() - t0)
    out["summary_cpu_s"] = times
print(json.dumps(out))
"""


def _extract(rev: str, dest: Path) -> Path:
    """The package (``lisa_eas/``) as it was at ``rev``, extracted into ``dest``."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "lisa_eas"],
                         check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        tf.extractall(dest, filter="data")
    return dest


def _child(tree: Path, cache: Path | None, sim_s: float, repeat: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("NUMBA_CACHE_DIR", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    res = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(sim_s), str(repeat)], cwd=str(tree),
                         env=env, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"child for {tree} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _load() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="83ccb59", help="the commit to compare with (default: 83ccb59)")
    ap.add_argument("--also", default=None, help="a second commit to compare with (e.g. main's head: its summary "
                                                  "output is then compared too)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of warm runs (default 3)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per child (default 3)")
    ap.add_argument("--sim-s", type=float, default=30.0, help="simulated seconds (default 30)")
    ap.add_argument("--cache-dir", default=None, help="keep each tree's numba cache here (one per commit) across "
                                                      "invocations: the cold compile is then measured only where "
                                                      "that cache was still empty")
    args = ap.parse_args(argv)
    out = {"benchmark": "sim_ab", "workload": "EAS RFC energy: 50 tasks, 16 ms, 5 %", "platform": "hikey960",
           "sim_s": args.sim_s, "base": args.base, "loadavg_before": _load(), "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="lisa_eas_ab_") as tmp:
        tmp = Path(tmp)
        trees = {"base": _extract(args.base, tmp / "base"), "current": ROOT}
        if args.also:
            trees["also"] = _extract(args.also, tmp / "also")
        caches = {k: tmp / f"cache_{k}" for k in trees}
        if args.cache_dir:
            # the extracted trees and their caches outlive this run, at a fixed path per commit
            # (numba's cache is keyed by the source's path); the working copy uses its own
            # cache next to its sources (``make clean-cache`` after editing a kernel)
            keep = Path(args.cache_dir)
            for k, rev in (("base", args.base), ("also", args.also)):
                if k in trees:
                    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], check=True,
                                         capture_output=True, text=True).stdout.strip()[:12]
                    if not (keep / f"tree_{sha}" / "lisa_eas").is_dir():
                        _extract(rev, keep / f"tree_{sha}")
                    trees[k] = keep / f"tree_{sha}"
                    caches[k] = keep / f"cache_{sha}"
            caches["current"] = None
        # a tree whose cache is empty compiles cold in its first child (the working copy under
        # --cache-dir: its own cache next to its sources, empty after ``make clean-cache``)
        warm = {k: any((ROOT / "lisa_eas").rglob("*.nbi")) if caches[k] is None
                else caches[k].is_dir() and any(caches[k].rglob("*.nbi")) for k in trees}
        res = {k: {"cpu_s": [], "summary_cpu_s": []} for k in trees}
        per_round = {k: [] for k in trees if k != "current"}
        per_round_summary = []
        for r in range(args.rounds):
            best_of_round = {}
            order = list(trees)
            for k in (order if r % 2 == 0 else order[::-1]):
                if caches[k] is not None:
                    caches[k].mkdir(parents=True, exist_ok=True)
                got = _child(trees[k], caches[k], args.sim_s, args.repeat)
                if r == 0 and not warm[k]:      # the first child of a tree whose cache was empty: the cold compile
                    res[k]["cold_compile_cpu_s"] = round(got["first_call_cpu_s"], 1)
                    res[k]["cold_compile_wall_s"] = round(got["first_call_wall_s"], 1)
                res[k]["events"] = got["events"]
                res[k]["cpu_s"] += got["cpu_s"]
                res[k]["summary_cpu_s"] += got.get("summary_cpu_s", [])
                best_of_round[k] = (min(got["cpu_s"]), min(got.get("summary_cpu_s", [0.0])))
            for k in per_round:
                per_round[k].append(best_of_round["current"][0] / best_of_round[k][0])
            if "also" in trees and best_of_round["also"][1] > 0:
                per_round_summary.append(best_of_round["current"][1] / best_of_round["also"][1])
        for k, v in res.items():
            best = min(v["cpu_s"])
            v["cpu_s_all"] = [round(x, 4) for x in v.pop("cpu_s")]
            v["cpu_s_best"] = round(best, 4)
            v["events_per_s"] = round(v["events"] / best)
            v["sim_s_per_wall_s"] = round(args.sim_s / best, 1)
            summ = v.pop("summary_cpu_s")
            if summ:
                v["summary_cpu_s_all"] = [round(x, 4) for x in summ]
                v["summary_cpu_s_best"] = round(min(summ), 4)
                v["summary_x_realtime"] = round(args.sim_s / min(summ), 1)
        out.update(res)
    b, c = out["base"], out["current"]
    out["ratio_cpu_s_current_over_base"] = round(c["cpu_s_best"] / b["cpu_s_best"], 3)
    # the same ratio within each round (best of each child's runs): its median and spread say how
    # far the load of a shared machine moves the figure
    for k, rr in per_round.items():
        tag = "" if k == "base" else "_vs_also"
        out[f"ratio_cpu_s_per_round{tag}"] = [round(x, 3) for x in rr]
        out[f"ratio_cpu_s_per_round{tag}_median"] = round(statistics.median(rr), 3)
        out[f"ratio_cpu_s_per_round{tag}_spread"] = [round(min(rr), 3), round(max(rr), 3)]
    if "also" in out:
        a = out["also"]
        out["ratio_cpu_s_current_over_also"] = round(c["cpu_s_best"] / a["cpu_s_best"], 3)
        if "cold_compile_cpu_s" in c and "cold_compile_cpu_s" in a:
            out["ratio_cold_compile_cpu_current_over_also"] = round(c["cold_compile_cpu_s"] / a["cold_compile_cpu_s"], 3)
        if per_round_summary:
            out["ratio_summary_cpu_s_current_over_also"] = round(c["summary_cpu_s_best"] / a["summary_cpu_s_best"], 3)
            out["ratio_summary_per_round"] = [round(x, 3) for x in per_round_summary]
            out["ratio_summary_per_round_median"] = round(statistics.median(per_round_summary), 3)
    out["ratio_events_per_s_current_over_base"] = round(c["events_per_s"] / b["events_per_s"], 3)
    if "cold_compile_cpu_s" in c and "cold_compile_cpu_s" in b:
        out["ratio_cold_compile_cpu_current_over_base"] = round(c["cold_compile_cpu_s"] / b["cold_compile_cpu_s"], 3)
    out["loadavg_after"] = _load()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
