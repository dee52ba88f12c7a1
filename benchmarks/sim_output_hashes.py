"""Hashes of the simulator's outputs over a matrix of configurations, to prove a speed change
output-identical (no timing: a correctness check, not a benchmark).

About 30 runs: boards (HiKey960, Juno r0, Pixel 3, Pixel 7 Pro, TC2, x86), kernel eras
(v4.14 .. v6.9), governors (schedutil, ondemand, performance, interactive, powersave,
schedfreq), EAS on / off / v5.0, util_est on / off, SIS_PROP, a thermal cap schedule, RT tasks
with affinity changes and suspend/resume, in the full and the summary output. For each run:
the SHA-256 of every output table (columns, dtypes and values) and of the metadata (as JSON;
keys holding wall-clock figures dropped). Prints one JSON object ``{run: {table: hash}}``;
``--out FILE`` writes it, ``--compare FILE`` exits 1 when any hash differs (listing them).

Usage (same script, two trees)::

    .venv/bin/python benchmarks/sim_output_hashes.py --out /tmp/base.json      # at the base commit
    .venv/bin/python benchmarks/sim_output_hashes.py --compare /tmp/base.json  # after the change
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np
import pandas as pd

from lisa_eas.platform import load_platform
from lisa_eas.rtapp import periodic, ramp, step, task, workload
from lisa_eas.sim import SimConfig, simulate

#: metadata keys whose values are wall-clock measurements (differ run to run)
_VOLATILE = ("wall", "elapsed", "seconds_taken", "host", "created", "date")


def _workloads():
    mix = workload([task(f"p{i}", periodic(duty_cycle_pct=5 + 7 * i, period_ms=16, duration_s=1.5))
                    for i in range(6)]
                   + [task("rt", periodic(duty_cycle_pct=20, period_ms=10, duration_s=1.5), policy="SCHED_FIFO",
                           priority=10),
                      task("pin", step(10, 60, period_ms=8, low_s=0.7), cpus=[0, 1]),
                      task("ramp", ramp(10, 70, 20, period_ms=16, step_s=0.35))],
                   calibration=20)
    bench = workload([task(f"t{i}", periodic(duty_cycle_pct=5, period_ms=16, duration_s=1.0)) for i in range(50)],
                     calibration=20)
    return {"mix": mix, "bench50": bench}


def _matrix():
    runs = []
    base = dict(duration_s=1.5)
    for board in ("hikey960", "juno_r0", "pixel3", "pixel7pro", "tc2", "x86_llc112"):
        runs.append((f"{board}-default", board, "mix", {}))
    for era in ("v4.14", "v4.17", "v5.0", "v5.4", "v5.7", "v5.14", "v6.0", "v6.2", "v6.5", "v6.8", "v6.9"):
        runs.append((f"hikey960-{era}", "hikey960", "mix", {"era": era}))
    for gov in ("ondemand", "performance", "interactive", "powersave", "schedfreq"):
        runs.append((f"juno_r0-{gov}", "juno_r0", "mix", {"governor": gov}))
    runs += [
        ("hikey960-noeas", "hikey960", "mix", {"placement": "no-eas"}),
        ("hikey960-eas50", "hikey960", "mix", {"placement": "eas-v5.0", "era": "v5.0"}),
        ("pixel3-noue-v5.4", "pixel3", "mix", {"util_est": False}),
        ("pixel3-prop-v5.10", "pixel3", "mix", {"sis": "prop", "era": "v5.10"}),
        ("hikey960-thermal-v5.14", "hikey960", "mix",
         {"era": "v5.14", "thermal_caps": ((0.3, 4, 600), (0.9, "pd1", 1024), (1.1, 0, 200))}),
        ("pixel7pro-thermal-rt-boost-v6.6", "pixel7pro", "mix",
         {"era": "v6.6", "thermal_caps": ((0.2, "pd2", 500),), "rt_pressure": True, "runnable_boost": True}),
        ("x86-noeas-prop-v6.1", "x86_llc112", "mix", {"placement": "no-eas", "sis": "prop", "era": "v6.1"}),
        ("hikey960-bench50", "hikey960", "bench50", {}),
        ("juno_r0-bench50-v6.9-ondemand", "juno_r0", "bench50", {"era": "v6.9", "governor": "ondemand"}),
    ]
    return [(name, board, wl, {**base, **kw}) for name, board, wl, kw in runs]


def _hash_frame(df: pd.DataFrame) -> str:
    h = hashlib.sha256()
    h.update(repr(list(df.columns)).encode())
    h.update(repr([str(t) for t in df.dtypes]).encode())
    h.update(repr(len(df)).encode())
    if len(df):
        h.update(pd.util.hash_pandas_object(df, index=True).to_numpy().tobytes())
    return h.hexdigest()[:16]


def _clean(obj):
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items() if not any(s in str(k).lower() for s in _VOLATILE)}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, pd.DataFrame):
        return {"frame": _hash_frame(obj)}
    if isinstance(obj, np.ndarray):
        return {"array": hashlib.sha256(obj.tobytes()).hexdigest()[:16], "dtype": str(obj.dtype)}
    if isinstance(obj, (np.integer, np.floating)):
        return obj.item()
    return obj


def run_all() -> dict:
    wls = _workloads()
    out = {}
    for name, board, wl, kw in _matrix():
        plat = load_platform(board)
        for outputs in ("full", "summary"):
            key = f"{name}/{outputs}"
            try:
                tr = simulate(plat, wls[wl], config=SimConfig(outputs=outputs, **kw))
            except Exception as exc:  # noqa: BLE001 - an error is an output too
                out[key] = {"error": f"{type(exc).__name__}: {exc}"}
                continue
            res = {ev: _hash_frame(tr.df(ev)) for ev in tr.events}
            meta = json.dumps(_clean(dict(tr.metadata)), sort_keys=True, default=str)
            res["metadata"] = hashlib.sha256(meta.encode()).hexdigest()[:16]
            out[key] = res
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--compare")
    args = ap.parse_args()
    res = run_all()
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(res, fh, indent=1, sort_keys=True)
    if args.compare:
        with open(args.compare) as fh:
            ref = json.load(fh)
        diff = [f"{run}/{t}" for run in sorted(set(ref) | set(res))
                for t in sorted(set(ref.get(run, {})) | set(res.get(run, {})))
                if ref.get(run, {}).get(t) != res.get(run, {}).get(t)]
        n = sum(len(v) for v in res.values())
        print(json.dumps({"runs": len(res), "hashes": n, "differ": diff}))
        return 1 if diff else 0
    if not args.out:
        print(json.dumps(res, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
