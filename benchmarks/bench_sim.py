"""Benchmark of the simulator on the EAS RFC energy workload.

50 periodic tasks (16 ms period, 5 % duty cycle), 30 s simulated on HiKey960 with EAS and
schedutil. Prints ONE JSON line: simulated events, events/s, simulated seconds per wall
second, and the speed-up of the numba engine over the independently written plain-Python
reference engine (``tests/reference/ref_sim_engine.py``: objects, the model twins) and over
the interpreted twin of the numba kernels (``tests/compiled_clones/clone_sim_loop.py``), both
measured in this run on a shorter window of the same workload, with a check that all three
produce identical output. Times are process CPU time (robust to other load on the machine), the best
of ``REPEAT`` runs, of ``run_loop``: the event loop and its output written into the result
tables (whose fresh memory is part of the cost: ~110 MB with model events); the JIT
compilation (first call) is timed separately.

``simulate_*``: the same run end to end, ``lisa_eas.simulate`` returning the Trace with all
its DataFrames built (the trace schema, rt-app markers included).

Targets (issue 7): >= 1 M events/s and >= 1000x real time on that workload.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from reference.ref_sim_engine import ENGINE_DEVIATIONS, run_reference  # noqa: E402
from compiled_clones.clone_sim_loop import reference_sim_run  # noqa: E402

from lisa_eas.platform import load_platform  # noqa: E402
from lisa_eas.rtapp import periodic, task, workload  # noqa: E402
from lisa_eas.sim import SimConfig  # noqa: E402
from lisa_eas.sim._compile import compile_workload  # noqa: E402
from lisa_eas.sim._engine import build_run, run_loop  # noqa: E402

SIM_S = 30.0
REF_S = 0.5
REPEAT = 3


def _run(plat, compiled, config, seconds, loop=None):
    S, P, O, margin = build_run(plat, compiled, config, int(seconds * 1e9))
    t0 = time.process_time()
    raw = run_loop(S, P, O, margin, loop=loop)
    return raw, time.process_time() - t0


def main() -> int:
    plat = load_platform("hikey960")
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=5, period_ms=16, duration_s=SIM_S)) for i in range(50)],
                  calibration=20)
    compiled = compile_workload(wl, plat.nr_cpus)
    out = {"benchmark": "sim", "workload": "EAS RFC energy: 50 tasks, 16 ms, 5 %", "platform": "hikey960",
           "governor": "schedutil", "placement": "eas"}
    for label, model_events in (("", True), ("_no_model_events", False)):
        config = SimConfig(model_events=model_events)
        t0 = time.perf_counter()
        _run(plat, compiled, config, 0.05)            # JIT compile or cache load
        if not label:
            out["first_call_s"] = round(time.perf_counter() - t0, 3)
        # best of REPEAT runs: the CPU time of a run varies with the load of a shared machine
        runs = [_run(plat, compiled, config, SIM_S) for _ in range(REPEAT)]
        raw, cpu = runs[0][0], min(r[1] for r in runs)
        out[f"events{label}"] = int(len(raw.events))
        out[f"cpu_s{label}"] = round(cpu, 3)
        out[f"events_per_s{label}"] = round(len(raw.events) / cpu)
        out[f"sim_s_per_wall_s{label}"] = round(SIM_S / cpu, 1)
    # end to end: simulate() returning the Trace with every DataFrame built (what a user waits for)
    from lisa_eas import simulate
    config = SimConfig()
    simulate(plat, wl, config=SimConfig(duration_s=0.05))
    ends = []
    for _ in range(REPEAT):
        t0 = time.process_time()
        trace = simulate(plat, wl, config=config)
        n_rows = sum(len(trace.df(e)) for e in trace.events)
        ends.append(time.process_time() - t0)
    out["simulate_cpu_s"] = round(min(ends), 3)
    out["simulate_sim_s_per_wall_s"] = round(SIM_S / min(ends), 1)
    out["simulate_dataframe_rows"] = int(n_rows)
    fast, t_fast = min((_run(plat, compiled, config, REF_S) for _ in range(REPEAT)), key=lambda r: r[1])
    t0 = time.process_time()
    # the simulator's known deviations from the kernel computed its way, so 'identical' compares the rest
    ref = run_reference(plat, compiled, config, int(REF_S * 1e9), deviations=tuple(ENGINE_DEVIATIONS))
    t_ref = time.process_time() - t0
    twin, t_twin = _run(plat, compiled, config, REF_S, loop=reference_sim_run())
    out["reference_window_s"] = REF_S
    out["reference_events"] = int(len(ref.events))
    out["reference_identical"] = all(
        np.array_equal(getattr(fast, k), getattr(other, k))
        for other in (ref, twin) for k in ("events", "activations", "eas", "res_busy", "res_idle"))
    out["speedup_vs_reference"] = round(t_ref / t_fast, 1)
    out["speedup_vs_interpreted_kernels"] = round(t_twin / t_fast, 1)
    out["targets"] = {"events_per_s": 1_000_000, "sim_s_per_wall_s": 1000}
    out["targets_met"] = {"events_per_s": out["events_per_s"] >= 1_000_000,
                          "sim_s_per_wall_s": out["sim_s_per_wall_s"] >= 1000}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
