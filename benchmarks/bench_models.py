"""Benchmark of the numba kernel models against their plain-Python reference twins.

Prints ONE JSON line: per model the time per decision/update in batch mode (ns), the same for
the reference twin measured in this run, and the speed-up; PELT updates per second; and the
JIT compile time (cold, empty cache) and cached start-up time of the kernels.

Targets (issue 3): EAS <= 1 us per decision on an 8-CPU / 8-perf-domain platform in batch,
PELT >= 50 M updates/s, numba >= 50x the reference twin.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from reference import ref_eas, ref_governors, ref_pelt, ref_schedutil, ref_sis  # noqa: E402

from lisa_eas import EnergyModel, load_platform  # noqa: E402
from lisa_eas.platform import platform_from_dict  # noqa: E402


def best_of(fn, repeat=5):
    """Best CPU time of ``repeat`` runs (process CPU time: robust to other load on the machine)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def per_cpu_dvfs(board="pixel3"):
    """The board with one perf domain per CPU (the eb92692b "Test 1" DT hack)."""
    plat = load_platform(board)
    pds = []
    for d in plat.perf_domains:
        for c in d.cpus:
            pds.append({"name": f"{d.name}{c}", "cpus": [c], "cpu_capacity_max": d.cpu_capacity_max,
                        "power_mw_source": "legacy" if d.power_source == "legacy_eas" else "kernel_em",
                        "opps": [{"freq_khz": o.freq_khz, "capacity": o.capacity, "power_mw": o.power_mw}
                                 for o in d.opps]})
    return platform_from_dict({"name": f"{board}_per_cpu", "perf_domains": pds})


def bench_eas(era):
    from lisa_eas._kernels import eas as ke

    plat = per_cpu_dvfs()
    em = EnergyModel.from_platform(plat, era)
    a = em.arrays()
    n, nc = 200_000, plat.nr_cpus
    rng = np.random.default_rng(0)
    ua = rng.integers(0, 400, (n, nc))
    ue = np.zeros((n, nc), np.int64)
    tu = rng.integers(1, 300, n)
    tue = np.zeros(n, np.int64)
    prev = rng.integers(0, nc, n)
    allowed = np.ones((n, nc), np.int64)
    ou = np.zeros(n, np.int64)
    oc, oe, ow = np.empty(n, np.int64), np.empty((n, 3), np.int64), np.empty((n, 2), np.int64)
    code = {"v5.0": ke.EAS_V5_0, "v5.4": ke.EAS_V5_4, "v6.9": ke.EAS_V6_0}[era]

    def run():
        ke.feec_batch(code, a["pd_info"], a["pd_cpus"], a["em_states"], a["em_mode"], a["cap_orig"], a["cap_orig"],
                      ua, ue, tu, tue, prev, allowed, ou, oc, oe, ow)

    run()
    t = best_of(run) / n
    m = 1500
    cap = list(a["cap_orig"])
    label = {"v5.0": "v5.0", "v5.4": "v5.4", "v6.9": "v6.0"}[era]

    def twin():
        for i in range(m):
            ref_eas.feec(label, em, ua[i].tolist(), ue[i].tolist(), int(tu[i]), 0, int(prev[i]), [1] * nc, cap)

    tt = best_of(twin, 2) / m
    return {"ns_per_decision": round(t * 1e9, 1), "twin_ns_per_decision": round(tt * 1e9),
            "speedup_vs_twin": round(tt / t), "pd_evaluations_per_decision": round(float(ow[:, 0].mean()), 1),
            "platform": "pixel3, 8 CPUs, 8 perf domains"}


def bench_pelt():
    from lisa_eas._kernels import pelt as kp
    from lisa_eas.models.pelt import pelt_config, pelt_tables

    cfg = pelt_config("v6.9")
    yn, _ = pelt_tables(32)
    # a simulator-like load: 4096 entities (state cache-resident), each updated 256 times,
    # 0.1-8 ms apart (most updates cross at least one 1024-us period)
    m, rounds = 4096, 256
    sa = np.zeros((m, kp.SA_SIZE), np.int64)
    rng = np.random.default_rng(1)
    steps = rng.integers(100_000, 8_000_000, (rounds, m))
    now_all = np.cumsum(steps, axis=0)
    on_rq = rng.integers(0, 2, (rounds, m))
    running = on_rq * rng.integers(0, 2, (rounds, m))
    sf = np.full(m, 1024, np.int64)
    sc = rng.choice([446, 1024], m)

    def run():
        sa[:] = 0
        for r in range(rounds):
            kp.pelt_batch_updates(sa, now_all[r], on_rq[r], running[r], 1024, sf, sc, cfg, yn)

    run()
    t = best_of(run) / (m * rounds)
    # timeline form (what pelt_timeline runs): one update per segment
    n = 1_000_000
    ts = np.cumsum(rng.integers(50_000, 5_000_000, n))
    st = rng.integers(0, 3, n)
    capv = np.full(n, 1024, np.int64)
    out = np.empty((n, 6), np.int64)
    init = np.zeros(5, np.int64)

    def run_tl():
        kp.pelt_timeline(ts, st, np.zeros(ts.size, np.uint8), capv, capv, 1024, init, cfg, yn, out)

    run_tl()
    ttl = best_of(run_tl) / n
    from lisa_eas.models.pelt import pelt_config as pc
    from tests_twin_era import twin_era  # noqa: F401  (defined below via sys.modules)
    k = 50_000
    era = twin_era(pc("v6.9"))

    def twin():
        ref_pelt.pelt_timeline(ts[:k].tolist(), st[:k].tolist(), capv[:k].tolist(), capv[:k].tolist(), 1024,
                               [0, 0, 0, 0, 0], era, yn)

    tt = best_of(twin, 2) / k
    return {"ns_per_update": round(t * 1e9, 2), "updates_per_s": round(1 / t), "timeline_ns_per_update":
            round(ttl * 1e9, 2), "timeline_updates_per_s": round(1 / ttl), "twin_ns_per_update": round(tt * 1e9),
            "speedup_vs_twin": round(tt / ttl)}


def _twin_era(cfg):
    from lisa_eas._kernels import pelt as kp

    return {"delta_scaling": bool(cfg[kp.CFG_DELTA_SCALING]), "divider_mode": int(cfg[kp.CFG_DIVIDER_MODE]),
            "weight_in_sum": bool(cfg[kp.CFG_WEIGHT_IN_SUM]), "zero_if_unloaded": bool(cfg[kp.CFG_ZERO_IF_UNLOADED]),
            "runnable_scaled": bool(cfg[kp.CFG_RUNNABLE_SCALED]), "load_avg_max": int(cfg[kp.CFG_LOAD_AVG_MAX]),
            "util_est": int(cfg[kp.CFG_UTIL_EST_ERA])}


def bench_sis():
    from lisa_eas._kernels import sis as ks

    nc, n = 112, 100_000
    rng = np.random.default_rng(2)
    idle = (rng.random((n, nc)) < 0.1).astype(np.int64)
    allowed = np.ones((n, nc), np.int64)
    target = rng.integers(0, nc, n)
    prev = rng.integers(0, nc, n)
    recent = rng.integers(0, nc, n)
    hic = np.zeros(n, np.int64)
    nr = np.array([ks.sis_util_nr_idle_scan(int(s), nc, 117) for s in rng.integers(0, nc * 1024, n)])
    llc = np.zeros(nc, np.int64)
    core = np.arange(nc, dtype=np.int64)
    oc, orr = np.empty(n, np.int64), np.empty((n, 2), np.int64)

    def run():
        ks.sis_batch(ks.SIS_V5_15, True, idle, allowed, target, prev, recent, hic, nr, llc, core, False, oc, orr)

    run()
    t = best_of(run) / n
    m = 3000

    def twin():
        for i in range(m):
            ref_sis.select_idle_sibling(1, True, idle[i], allowed[i], int(target[i]), int(prev[i]), int(recent[i]), 0,
                                        int(nr[i]), llc, core, False)

    tt = best_of(twin, 2) / m
    return {"ns_per_decision": round(t * 1e9, 1), "twin_ns_per_decision": round(tt * 1e9),
            "speedup_vs_twin": round(tt / t), "platform": "one LLC of 112 CPUs, 10% idle, SIS_UTIL"}


def bench_schedutil():
    from lisa_eas._kernels import schedutil as ku
    from lisa_eas.models.schedutil import schedutil_tables

    f, c, cap = schedutil_tables("pixel3", "big", "v5.4")
    n, mcpu = 1_000_000, 4
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.integers(10_000, 2_000_000, n))
    cpu = rng.integers(0, mcpu, n)
    ua = rng.integers(0, cap, (n, mcpu))
    ue = rng.integers(0, cap, (n, mcpu))
    io = rng.integers(0, 2, n)
    wi = rng.integers(0, 2, n)
    out = np.empty(n, np.int64)

    def run():
        ku.sugov_run(times, cpu, io, wi, ua, ue, cap, int(f[-1]), f, int(f[0]), int(f[-1]), ku.SU_V5_14, 1_000_000,
                     4_000_000, True, True, c, out)

    run()
    t = best_of(run) / n
    k = 20_000

    def twin():
        ref_schedutil.run(times[:k].tolist(), cpu[:k].tolist(), io[:k].tolist(), wi[:k].tolist(), ua[:k].tolist(),
                          ue[:k].tolist(), cap, f.tolist(), int(f[0]), int(f[-1]), 1, 1_000_000, 4_000_000, True,
                          True, c.tolist())

    tt = best_of(twin, 2) / k
    return {"ns_per_update": round(t * 1e9, 1), "twin_ns_per_update": round(tt * 1e9),
            "speedup_vs_twin": round(tt / t), "policy": "pixel3 big, 4 CPUs shared, iowait + ramp boost"}


def bench_ondemand():
    from lisa_eas._kernels import governors as kg

    rng = np.random.default_rng(4)
    k, m = 20_000, 4
    grid = np.cumsum(rng.integers(100_000, 5_000_000, k)).astype(np.int64)
    busy = rng.integers(0, 2, (k, m)).astype(np.uint8)
    freqs = np.array([300000, 600000, 900000, 1200000, 1500000, 1800000], np.int64)
    cap = (int(grid[-1]) - int(grid[0])) // 10_000_000 + 2
    bufs = [np.empty(cap, np.int64) for _ in range(3)]
    res = [0]

    def run():
        res[0] = kg.ondemand_run(grid, busy, int(grid[0]), int(grid[-1]), freqs, 10_000, 95, 1, *bufs)

    run()
    t = best_of(run) / max(1, res[0])
    kk = 400
    g2, b2 = grid[:kk].tolist(), busy[:kk].tolist()

    def twin():
        return ref_governors.ondemand(g2, b2, g2[0], g2[-1], freqs.tolist(), 10_000, 95, 1)

    t0 = time.process_time()
    samples = len(twin())
    tt = (time.process_time() - t0) / max(1, samples)
    return {"ns_per_sample": round(t * 1e9, 1), "twin_ns_per_sample": round(tt * 1e9),
            "speedup_vs_twin": round(tt / t), "note": "4 CPUs, 10 ms sampling; the twin rescans the timeline"}


_JIT_SNIPPET = r"""
import time, numpy as np
t0 = time.perf_counter()
from lisa_eas.models import find_energy_efficient_cpu, pelt_timeline, select_idle_sibling, schedutil_next_freq
from lisa_eas.models import ondemand
find_energy_efficient_cpu("hikey960", [0] * 8, 100, 0, era="v5.0")
find_energy_efficient_cpu("hikey960", [0] * 8, 100, 0, era="v5.4")
pelt_timeline([0, 10**7], [2, 0])
select_idle_sibling([0, 1], 0, 0, nr_idle_scan=1)
schedutil_next_freq(100, [1, 2])
ondemand([0, 10**8], [1, 0], [1, 2])
print(time.perf_counter() - t0)
"""


def jit_times():
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        cold = float(subprocess.run([sys.executable, "-c", _JIT_SNIPPET], env=env, capture_output=True, text=True,
                                    check=True, cwd=ROOT).stdout.strip().splitlines()[-1])
        warm = float(subprocess.run([sys.executable, "-c", _JIT_SNIPPET], env=env, capture_output=True, text=True,
                                    check=True, cwd=ROOT).stdout.strip().splitlines()[-1])
    return {"cold_compile_s": round(cold, 2), "cached_first_call_s": round(warm, 2)}


def main() -> int:
    sys.modules["tests_twin_era"] = type(sys)("tests_twin_era")
    sys.modules["tests_twin_era"].twin_era = _twin_era
    result = {
        "bench": "models",
        "eas_v5.0": bench_eas("v5.0"),
        "eas_v5.4": bench_eas("v5.4"),
        "eas_v6.9": bench_eas("v6.9"),
        "pelt": bench_pelt(),
        "sis_util": bench_sis(),
        "schedutil": bench_schedutil(),
        "ondemand": bench_ondemand(),
        "jit": jit_times(),
    }
    e = result["eas_v5.4"]
    result["targets"] = {
        "eas_le_1us_per_decision_8cpu_8pd": e["ns_per_decision"] <= 1000,
        "pelt_ge_50M_updates_per_s": result["pelt"]["updates_per_s"] >= 50e6,
        "numba_ge_50x_twin": all(v["speedup_vs_twin"] >= 50 for k, v in result.items()
                                 if isinstance(v, dict) and "speedup_vs_twin" in v),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
