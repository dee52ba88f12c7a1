"""The simulator's flat arrays, declared once by name (numba constants).

The event loop passes three flat ``int64`` arrays (``sim_views``): ``S`` the mutable state,
``P`` the static data, ``O`` the output buffers. Each starts with a header of 4 words per
slot: ``(offset, dim0, dim1, dim2)`` of the array packed in that slot
(``lisa_eas.sim._engine.pack``). The slot order is declared here, once, and
``lisa_eas.sim._engine`` packs the arrays by these names; every header word has a generated
constant, read as ``S[S_TASKS]`` (offset of the task table), ``S[S_TASK_PELT_W]`` (its row
width), ``P[P_PD_FREQ_N]`` (its first dimension), so that no code reads a header word by
number. Module-level integers are compile-time constants for numba: the generated code is the
one the literal offsets gave.

For slot ``NAME`` of array ``X``: ``X_NAME`` = the offset word, ``X_NAME_N`` = dim0,
``X_NAME_W`` = dim1 (the row width of a 2-D table), ``X_NAME_W2`` = dim2.
"""
from __future__ import annotations

from .sim_state import G_NFIELDS as _G_NFIELDS
from .sim_views import HEADER_WORDS as _HEADER_WORDS

#: slots of the state ``S``: name, what the packed array holds
S_SLOTS = (
    ("GLOBALS", "global scalars (sim_state G_*)"),
    ("CONFIG", "run configuration (sim_state K_*)"),
    ("TASKS", "task table, rows of T_NFIELDS"),
    ("CPUS", "CPU table, rows of C_NFIELDS"),
    ("DOMAINS", "perf-domain table, rows of P_NFIELDS"),
    ("TASK_PELT", "each task's PELT signal (pelt SA_*)"),
    ("CFS_PELT", "each CPU's cfs_rq PELT signal"),
    ("RT_PELT", "each CPU's rt_rq PELT signal"),
    ("TIMERS", "rt-app timers"),
    ("SU_CPU", "schedutil per-CPU state [domain, cpu, CS_*]"),
    ("RES_BUSY", "busy residency per CPU and OPP (ns)"),
    ("RES_IDLE", "idle residency per CPU and idle state (ns)"),
    ("SU_POLICY", "schedutil policy state per domain (PS_*)"),
    ("SCRATCH", "scratch rows (sim_models SC_*)"),
    ("IDLE_STATS", "idle statistics per CPU (AI_*)"),
    ("GOV_POLICY", "legacy-governor policy state per domain"),
    ("GOV_CPU", "legacy-governor per-CPU state [domain, cpu, *]"),
    ("WAKE_HEAP", "heap of the sleeping tasks by wake-up time"),
    ("HEAP_POS", "each task's position in the heap"),
    ("RQ_TASKS", "each runqueue's queued tasks"),
    ("CPU_TIMES", "tournament trees of the CPUs by next op boundary and next tick (sim_index)"),
    ("CONDS", "rt-app suspend/resume conditions: (first, last) suspended task, -1: none"),
    ("COND_NEXT", "each task's successor in its condition's list of suspended tasks"),
    ("SIS_STATS", "idle-search statistics (sim_state SS_*)"),
    ("CPU_SETS", "sets and counts kept up to date incrementally (sim_index CS_*)"),
    ("THERMAL_PELT", "each CPU's thermal pressure PELT signal: thermal_load_avg (v5.7 - v6.9, sim_models)"),
)

#: slots of the static data ``P``
P_SLOTS = (
    ("CPU_PD", "CPU -> perf domain"),
    ("CPU_CAP", "CPU original capacity"),
    ("PD_NOPP", "OPP count per domain"),
    ("PD_FREQ", "OPP frequencies per domain (kHz)"),
    ("PD_CAP", "OPP capacities per domain"),
    ("PD_CPUS", "CPUs of each domain"),
    ("PD_NCPU", "CPU count per domain"),
    ("IDLE_RESID", "idle-state target residencies per domain"),
    ("IDLE_NSTATES", "idle-state count per domain"),
    ("PELT_CFG", "PELT configuration (pelt CFG_*)"),
    ("PELT_YN", "PELT decay table (y^n in 2^32)"),
    ("PROG", "compiled rt-app program rows"),
    ("MASKS", "affinity masks"),
    ("EM_PD_INFO", "EM perf-domain rows (eas PD_*)"),
    ("EM_PD_CPUS", "EM CPUs by perf domain"),
    ("EM_STATES", "EM performance states (eas ST_*)"),
    ("PD_COST", "EM cost per domain and OPP"),
    ("LLC_ID", "LLC id per CPU"),
    ("CORE_ID", "core id per CPU"),
    ("MODEL_PARAMS", "model parameters (sim_models M_*)"),
    ("FREQ_SCALE", "arch_scale_freq_capacity per domain and OPP"),
    ("PD_INEFF", "OPPs the EM flags inefficient per domain (v5.16+ cpufreq; zeros: none)"),
    ("TASK_UCLAMP", "each task's requested (uclamp_min, uclamp_max); -1: not set (sim_models)"),
    ("THERMAL", "thermal cap schedule rows (sim_models TH_*), by time; no rows: no cap"),
)

#: slots of the output buffers ``O``
O_SLOTS = (
    ("EVENTS", "event rows (E_*)"),
    ("ACTIVATIONS", "rt-app log rows (A_*)"),
    ("EAS_LOG", "EAS decision rows (D_*)"),
    ("COUNTERS", "row counts (N_*)"),
)


def _generate(prefix: str, slots) -> dict:
    out = {}
    for k, (name, _) in enumerate(slots):
        base = f"{prefix}_{name}"
        out[base] = 4 * k
        out[base + "_N"] = 4 * k + 1
        out[base + "_W"] = 4 * k + 2
        out[base + "_W2"] = 4 * k + 3
    return out


LAYOUT = {**_generate("S", S_SLOTS), **_generate("P", P_SLOTS), **_generate("O", O_SLOTS)}
globals().update(LAYOUT)

# The first two slots of ``S`` have a fixed size (``sim_state.G_NFIELDS`` globals, ``K_SIZE``
# configuration words) and come right after the header, so their offsets are compile-time
# constants: the loop reads ``S[S_GLOBALS_AT + G_NOW]``, not ``S[S[S_GLOBALS] + G_NOW]`` (a load
# of the offset first, repeated after every store to ``S``: the compiler cannot tell that a
# store does not change the header). ``lisa_eas.sim._engine.pack_slots`` checks them.
S_GLOBALS_AT = _HEADER_WORDS
S_CONFIG_AT = S_GLOBALS_AT + _G_NFIELDS
S_FIXED_AT = {"GLOBALS": S_GLOBALS_AT, "CONFIG": S_CONFIG_AT}

__all__ = ["LAYOUT", "O_SLOTS", "P_SLOTS", "S_CONFIG_AT", "S_FIXED_AT", "S_GLOBALS_AT", "S_SLOTS", *LAYOUT]
