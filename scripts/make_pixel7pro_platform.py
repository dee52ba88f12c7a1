"""Regenerate lisa_eas/platforms/pixel7pro.json: the Pixel 7 Pro (Google Tensor G2, gs201).

Topology, capacity-dmips-mhz and idle-state latencies from the gs201 device tree; OPPs from
the trace's cpu_info; power fitted by lisa_eas.analysis.fit_energy_model to the ODPM rails of
the Pixel 7 Pro trace in tests/data/traces/perfetto (see its SOURCES.md).

Usage: python scripts/make_pixel7pro_platform.py
"""
from __future__ import annotations

import json
import lzma
import tempfile
from pathlib import Path

from lisa_eas import read_trace
from lisa_eas.analysis import fit_energy_model

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "tests/data/traces/perfetto/spirals_pixel7pro_cheetah_compact_sched_power_rails.perfetto-trace.xz"
OUT = ROOT / "lisa_eas/platforms/pixel7pro.json"
DT = {"repo": "kerneltoast/android_kernel_google_gs201",
      "path": "arch/arm64/boot/dts/google/gs201-cpu.dtsi",
      "commit": "0350bf2ee23634df0f07e45c5554db9c2985586c",
      "what": "gs201 CPU DT: cpu-map (cluster0 cpu0-3, cluster1 cpu4-5, cluster2 cpu6-7), "
              "capacity-dmips-mhz 260/880/997, dynamic-power-coefficient 89/513/757 (no OPP "
              "voltages: they are in the ECT firmware, so no kernel EM can be derived), idle "
              "states ANANKE/HERCULES/HERA_CPU_SLEEP (Arm codenames of Cortex-A55/A78/X1) with "
              "their entry/exit latencies and min residencies"}
TRACE_SRC = {"repo": "Zetos11/PerfettoTraceScript", "path": "ScriptV1/out/out.proto",
             "commit": "5085f55c789c82eca2bc413dcc48a38bad20f018",
             "what": "Perfetto trace of a Pixel 7 Pro (cheetah, Android 13, kernel 5.10.107 GKI): "
                     "cpu_info OPP tables, cpu_idle/cpu_frequency residency and the ODPM rails "
                     "S4M_VDD_CPUCL0/S3M_VDD_CPUCL1/S2M_VDD_CPUCL2 the power is fitted to"}
IDLE = [{"name": "c2", "entry_latency_us": 70, "exit_latency_us": 160, "min_residency_us": 2000},
        {"name": "c2", "entry_latency_us": 150, "exit_latency_us": 190, "min_residency_us": 2500},
        {"name": "c2", "entry_latency_us": 235, "exit_latency_us": 220, "min_residency_us": 3500}]
CORES = [("little", "cortex-a55", 89), ("mid", "cortex-a78", 513), ("big", "cortex-x1", 757)]


def build() -> dict:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "pixel7pro.perfetto-trace"
        p.write_bytes(lzma.decompress(TRACE.read_bytes()))
        trace = read_trace(p, cache=False)
        fit = fit_energy_model(trace, capacity_dmips_mhz=[260, 880, 997], name="pixel7pro",
                               description="Google Pixel 7 Pro (cheetah, Google Tensor G2 / "
                                           "gs201): 4x Cortex-A55 (cpu0-3) + 2x Cortex-A78 "
                                           "(cpu4-5) + 2x Cortex-X1 (cpu6-7), three cpufreq "
                                           "domains (exynos-acme)",
                               provenance=[DT, TRACE_SRC])
    plat = fit.platform
    plat["provenance"] = plat["provenance"][1:]          # the local temp path entry
    for pd_, (name, core, dpc), idle in zip(plat["perf_domains"], CORES, IDLE):
        pd_["name"] = name
        pd_["core_type"] = core
        pd_["dynamic_power_coefficient"] = dpc
        wfi, c2 = pd_["idle_states"][:2]
        pd_["idle_states"] = [{"name": "wfi", "power_mw": wfi["power_mw"]},
                              {**idle, "power_mw": c2["power_mw"]}]
    plat["llc_groups"] = [list(range(8))]
    plat["notes"] = (
        "Capacities DERIVED from the DT capacity-dmips-mhz and the trace's top OPPs: "
        "cpu_capacity_max = floor(dmips * fmax * 1024 / max(dmips * fmax)), per-OPP capacity = "
        "floor(cpu_capacity_max * f / fmax). Power FITTED to the trace's ODPM rails (see 'fit'); "
        "cpu_idle state 0 = WFI, 1 = the DT 'c2' state; by the fit's convention the deepest state "
        "(c2) is 0 mW and static_power_mw holds the domain's CPUs x its power. The little domain (18.6 busy CPU-s in "
        "60 s) is fitted per OPP; the mid and big domains were busy 0.6 and 0.06 CPU-s, so their "
        "OPP power comes from the parametric curve a*f + b*f^3 fitted to little data: treat them "
        "as rough (held-out errors in 'fit'). The CL0 rail also feeds the shared DSU/L3, which "
        "the little domain's power absorbs. llc_groups: one LLC, assuming the DynamIQ L3 of "
        "gs201 is shared by all 8 CPUs (the vendor cpu-map lists the 3 frequency domains as "
        "clusters). " + plat["notes"])
    return plat


if __name__ == "__main__":
    OUT.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {OUT}")
