"""The Python side of the simulator: platform + compiled workload -> state arrays -> event loop.

``build_run`` packs everything the numba loop needs into three tuples of numpy arrays
(state ``S``, static ``P``, output ``O``; layout in ``lisa_eas/_kernels/sim_state.py``);
``run_loop`` drives the loop, which writes its output straight into the result tables (moved
on to their next free rows whenever it pauses), and returns the raw event tables that
``_output`` turns into a :class:`~lisa_eas.trace.Trace`.
"""
from __future__ import annotations

import math
import mmap
import sys
import threading
from dataclasses import dataclass

import numpy as np

from .._era import ledger_row
from .._kernels import sim_layout as L
from ..energy_model import EnergyModel
from ..errors import LisaEasError, ModelError
from ..platform import Platform
from ._compile import CompiledWorkload
from ._config import SimConfig
from ._fork import fork_placement

_EV_CAP = 1 << 15
_MARGIN_BASE = 512


@dataclass
class RawRun:
    """Raw output of one simulated run (integer tables, times in ns)."""

    events: np.ndarray          # int64[n, E_SIZE]
    activations: np.ndarray     # int64[n, A_SIZE]
    eas: np.ndarray             # int64[n, D_IN_CPUS + D_IN_PER_CPU * nr_cpus]
    res_busy: np.ndarray        # ns per CPU per OPP
    res_idle: np.ndarray        # ns per CPU per idle state
    t_end: int
    iterations: int
    wake_cap_wakeups: int = 0   # wake-ups through the find_idlest_cpu() slow path (or, without it, wake_cap() true)
    output: object = None       # the _Output the tables live in (``release_output``)
    sis_stats: np.ndarray | None = None   # the idle-search statistics (sim_state SS_*)
    newidle_skipped: tuple = (0, 0)       # newidle balances the gate stopped: (on avg_idle, on !rd->overload)


def _cfs_factor(nr_cpus: int) -> int:
    """``get_update_sysctl_factor`` with SCHED_TUNABLESCALING_LOG: ``1 + ilog2(min(ncpus, 8))``."""
    return 1 + int(math.log2(min(nr_cpus, 8)))


def build_run(platform: Platform, compiled: CompiledWorkload, config: SimConfig, t_end_ns: int):
    """The (S, P, O) arrays of a run, initial state included.

    In steps: the platform's tables (``_platform_tables``), the energy model's arrays
    (``_energy_arrays``), the model parameters (``_model_params``) and PELT configuration make
    the static data ``P``; the run configuration ``K`` (``_run_config``); the initial tasks
    with their PELT signals (``_initial_tasks``), CPUs and perf domains (``_initial_domains``)
    and the other state tables make ``S``; then the output buffers ``O``. Each array is packed
    in the slot ``sim_layout`` declares for it.
    """
    from .._kernels import sim_models as sm
    from .._kernels import sim_state as ss
    from .._kernels.pelt import SA_SIZE
    from .._kernels.schedutil import CS_SIZE, PS_SIZE
    from ..models.pelt import pelt_config, pelt_tables

    if not platform.perf_domains:      # the same check (and message) as ``lisa_eas.simulate``
        raise ModelError(f"platform {platform.name!r} has no perf domains (no OPPs); the simulator needs them")
    nc = platform.nr_cpus
    era = config.era_tuple
    pt = _platform_tables(platform)
    nd, kmax, mmax, smax = pt["nd"], pt["kmax"], pt["mmax"], pt["smax"]
    em = _energy_arrays(platform, config, nd, kmax)
    mp = _model_params(platform, config, em["em_mode"], pt["cpu_capmax"])
    cfg = pelt_config(config.era if era >= (4, 11) else "v4.11", config.pelt_halflife_ms, config.util_est)
    yn_inv, _ = pelt_tables(config.pelt_halflife_ms)
    pd_freq, pd_nopp = pt["pd_freq"], pt["pd_nopp"]
    # arch_scale_freq_capacity per domain and OPP: current / max frequency in 1/1024
    freq_scale = np.array([[(int(pd_freq[d, k]) << 10) // int(pd_freq[d, pd_nopp[d] - 1]) for k in range(kmax)]
                           for d in range(nd)], np.int64).reshape(nd, kmax)
    llc_id = platform.llc_ids()
    P = dict(CPU_PD=pt["cpu_pd"], CPU_CAP=pt["cpu_capmax"], PD_NOPP=pd_nopp, PD_FREQ=pd_freq, PD_CAP=pt["pd_cap"],
             PD_CPUS=pt["pd_cpus"], PD_NCPU=pt["pd_ncpu"], IDLE_RESID=pt["idle_resid"],
             IDLE_NSTATES=pt["idle_nstates"], PELT_CFG=cfg, PELT_YN=np.asarray(yn_inv, np.int64),
             PROG=compiled.prog, MASKS=compiled.masks, EM_PD_INFO=em["pd_info"], EM_PD_CPUS=em["pd_cpus"],
             EM_STATES=em["em_states"], PD_COST=em["pd_cost"], LLC_ID=llc_id,
             CORE_ID=np.arange(nc, dtype=np.int64), MODEL_PARAMS=mp, FREQ_SCALE=freq_scale,
             PD_INEFF=_inefficient_opps(platform, config, em["pd_cost"], pd_nopp),
             **_input_arrays(platform, config, compiled, pt, mp))
    K = _run_config(config, nc, cfg)

    nt = compiled.nr_threads
    G = np.zeros(ss.G_NFIELDS, np.int64)
    G[ss.G_T_END] = t_end_ns
    G[ss.G_NEXT_LB] = K[ss.K_LB_NS]
    G[ss.G_WAKE_DIRTY] = 1
    TK, tsa, csa, rsa = _initial_tasks(compiled, config, cfg, pt["cpu_capmax"], nc,
                                       fork=fork_placement(platform, compiled, config, pt["cpu_capmax"]))
    CP = np.zeros((nc, ss.C_NFIELDS), np.int64)
    CP[:, ss.C_CURR] = -1
    CP[:, ss.C_NEXT_TICK] = ss.INF_TIME
    CP[:, ss.C_NEXT_EVENT] = ss.INF_TIME
    PD = _initial_domains(config, K, pd_nopp)
    gov_cs = np.zeros((nd, mmax, CS_SIZE), np.int64)
    gov_ps = np.zeros((nd, PS_SIZE), np.int64)
    for d in range(nd):
        gov_ps[d, 1] = pd_freq[d, PD[d, ss.P_OPP]]     # next_freq = the current frequency
    idle_stats = np.zeros((nc, sm.AI_WIDTH), np.int64)
    idle_stats[:, sm.AI_AVG_IDLE] = 2 * 500_000
    # sched_init(): wake_avg_idle = avg_idle, wake_stamp = jiffies (0); sd->avg_scan_cost starts at 0
    idle_stats[:, sm.AI_WAKE_AVG_IDLE] = 2 * 500_000
    idle_stats[:, sm.AI_NR_SCAN] = np.bincount(llc_id)[llc_id]      # sd_llc_size: scan the whole LLC at first
    gov_pol, gov_cpu = _governor_state(config, PD, pd_freq, pt["pd_ncpu"], mmax)
    # the loop's indexes, built by the loop itself from the task table (G_WAKE_DIRTY): the heap of
    # sleeping tasks by wake-up time, each task's position in it, each runqueue's queued tasks
    S = pack_slots(L.S_SLOTS, dict(
        GLOBALS=G, CONFIG=K, TASKS=TK, CPUS=CP, DOMAINS=PD, TASK_PELT=tsa, CFS_PELT=csa, RT_PELT=rsa,
        TIMERS=np.zeros((max(compiled.nr_timer_slots, 1), 2), np.int64), SU_CPU=gov_cs,
        RES_BUSY=np.zeros((nc, kmax), np.int64), RES_IDLE=np.zeros((nc, smax), np.int64), SU_POLICY=gov_ps,
        SCRATCH=np.zeros((sm.SC_ROWS, max(nc, mmax, 8)), np.int64), IDLE_STATS=idle_stats, GOV_POLICY=gov_pol,
        GOV_CPU=gov_cpu, WAKE_HEAP=np.zeros(max(nt, 1), np.int64), HEAP_POS=np.full(max(nt, 1), -1, np.int64),
        RQ_TASKS=_rq_tasks(nc, nt),
        CPU_TIMES=np.zeros((2, 2 * (1 << max(nc - 1, 0).bit_length())), np.int64),
        CONDS=np.full((max(getattr(compiled, "nr_conds", 0), 1), 2), -1, np.int64),
        COND_NEXT=np.full(max(nt, 1), -1, np.int64), SIS_STATS=_sis_stats(config, nc),
        CPU_SETS=np.zeros((4, max(nc, 4)), np.int64), THERMAL_PELT=np.zeros((nc, SA_SIZE), np.int64)))
    for name, at in L.S_FIXED_AT.items():     # the loop reads these slots at constant offsets
        if int(S[getattr(L, f"S_{name}")]) != at:
            raise RuntimeError(f"state slot {name} packed at {int(S[getattr(L, f'S_{name}')])}, the loop reads it at {at}")
    margin = _MARGIN_BASE + 32 * (nc + nt)
    summary = config.outputs == "summary"
    counters = np.zeros(ss.N_SIZE, np.int64)
    counters[ss.N_SUMMARY] = int(summary)
    # the summary output writes no event or EAS rows (the loop skips them): buffers of the least
    # size the loop runs with (the t = 0 events, then the free rows it checks for)
    ev_rows = margin + 2 * nc + 8 if summary else max(_EV_CAP, 4 * margin)
    eas_rows = nt + 8 if summary else max(4096, 4 * (nt + 1))
    O = pack_slots(L.O_SLOTS, dict(
        EVENTS=np.zeros((ev_rows, ss.E_SIZE), np.int64),
        ACTIVATIONS=np.zeros((max(4096, 4 * (nt + 1)), ss.A_SIZE), np.int64),
        EAS_LOG=np.zeros((eas_rows, ss.D_IN_CPUS + ss.D_IN_PER_CPU * nc), np.int64),
        COUNTERS=counters))
    return S, pack_slots(L.P_SLOTS, P), O, margin


def _rq_tasks(nc: int, nt: int) -> np.ndarray:
    """Each CPU's queued-task list (count, then task ids); the first slot keeps the last task that
    left an emptied runqueue (its uclamp_max stays the rq's, ``sim_capacity.rq_uclamp``): -1 before any."""
    a = np.zeros((nc, nt + 1), np.int64)
    if nt:
        a[:, 1] = -1
    return a


def _input_arrays(platform: Platform, config: SimConfig, compiled: CompiledWorkload, pt: dict, mp) -> dict:
    """The optional decision inputs (issue 17): the tasks' clamps and the thermal cap schedule
    as static arrays, and their era flags in the model parameters ``mp`` (``sim_models.M_*``).
    Absent inputs leave every flag 0 and the schedule empty: the run is the one without them."""
    from .._kernels import sim_models as sm
    era = config.era_tuple
    nt = compiled.nr_threads
    uc = compiled.uclamp if compiled.uclamp is not None else np.full((nt, 2), -1, np.int64)
    uc = np.asarray(uc, np.int64).reshape(nt, 2)
    if (uc >= 0).any():
        if era < (5, 3):
            raise ModelError(f"the workload sets uclamp (util_min / util_max), which kernels before v5.3 do not have; "
                             f"SimConfig.era is {config.era!r}: use v5.3 or later, or remove the clamps")
        mp[sm.M_UCLAMP] = 2 if era >= (5, 14) else 1     # uclamp_is_used() (ledger uclamp-v5.3, uclamp-v5.14)
        if era < (5, 6) and config.placement == "eas":
            from ..models.eas import uclamp_eas_form
            mp[sm.M_EXTRA_UCLAMP] = uclamp_eas_form(era)   # the clamps in the energy estimate only (ledger uclamp-v5.3)
        if era >= (5, 6):
            from ..models.eas import uclamp_fit_form
            mp[sm.M_MISFIT_UCLAMP] = uclamp_fit_form(era)     # ledger uclamp-v5.6 / v6.2 / v6.3
            if config.placement == "eas":
                # the clamps in feec's candidate fit, its form by era (ledger uclamp-v5.6 / v6.2 / v6.3 / v6.7)
                mp[sm.M_EXTRA_UCLAMP] = uclamp_fit_form(era)
    rows = []
    nd = int(pt["nd"])
    for i, (t, target, cap) in enumerate(config.thermal_caps):
        if isinstance(target, str):
            d = int(target[2:])
            if d >= nd:
                raise ModelError(f"SimConfig.thermal_caps[{i}]: perf domain {target!r} does not exist on "
                                 f"platform {platform.name!r} (pd0..pd{nd - 1})")
        else:
            if target >= platform.nr_cpus:
                raise ModelError(f"SimConfig.thermal_caps[{i}]: CPU {target} does not exist on platform "
                                 f"{platform.name!r} ({platform.nr_cpus} CPUs)")
            d = int(pt["cpu_pd"][target])
        nopp = int(pt["pd_nopp"][d])
        fmax = int(pt["pd_freq"][d, nopp - 1])
        capmax = int(pt["cpu_capmax"][int(pt["pd_cpus"][d, 0])])
        opp = 0
        for k in range(nopp):           # the highest OPP whose capacity fits under the cap
            if int(pt["pd_freq"][d, k]) * capmax // fmax <= cap:
                opp = k
        pressure = capmax - int(pt["pd_freq"][d, opp]) * capmax // fmax
        rows.append((int(round(t * 1e9)), d, opp, pressure))
    if rows:
        if era >= (5, 7):
            mp[sm.M_THERMAL_CAPOF] = 1      # ledger thermal-v5.7
        if (5, 7) <= era < (6, 10):
            mp[sm.M_THERMAL_AVG] = 1        # thermal_load_avg (ledger thermal-v5.7; v6.10+: thermal-v6.10)
            mp[sm.M_THERMAL_SHIFT] = config.thermal_decay_shift     # rq_clock_thermal (ledger thermal-v5.7)
        if era >= (5, 14) and config.placement != "no-eas":
            mp[sm.M_EXTRA_THERMAL] = 1      # ledger em-v5.14 (allowed_cpu_cap)
    if config.rt_pressure and config.placement != "no-eas":
        mp[sm.M_EXTRA_RT] = 1
    if config.runnable_boost and era >= (6, 5):
        mp[sm.M_RUNNABLE_BOOST] = 1         # ledger schedutil-v6.5 / eas-v6.5
    mp[sm.M_EXTRA] = int(bool(mp[sm.M_EXTRA_RT] or mp[sm.M_EXTRA_THERMAL] or mp[sm.M_RUNNABLE_BOOST]
                              or mp[sm.M_EXTRA_UCLAMP]))
    return dict(TASK_UCLAMP=uc, THERMAL=np.array(rows, np.int64).reshape(-1, sm.TH_SIZE))


def _platform_tables(platform: Platform) -> dict:
    """Per-CPU and per-perf-domain tables of the platform (OPPs, capacities, CPUs, idle states)."""
    from ..models.cpuidle import menu_thresholds

    nc = platform.nr_cpus
    pds = platform.perf_domains
    nd = len(pds)
    kmax = max(len(d.opps) for d in pds)
    mmax = max(len(d.cpus) for d in pds)
    smax = max(max(len(d.idle_states), 1) for d in pds)
    t = dict(nd=nd, kmax=kmax, mmax=mmax, smax=smax,
             cpu_pd=np.zeros(nc, np.int64), cpu_capmax=np.zeros(nc, np.int64), pd_nopp=np.zeros(nd, np.int64),
             pd_freq=np.zeros((nd, kmax), np.int64), pd_cap=np.zeros((nd, kmax), np.int64),
             pd_cpus=np.full((nd, mmax), -1, np.int64), pd_ncpu=np.zeros(nd, np.int64),
             idle_resid=np.zeros((nd, smax), np.int64), idle_nstates=np.ones(nd, np.int64))
    for d, pd in enumerate(pds):
        n = len(pd.opps)
        t["pd_nopp"][d] = n
        t["pd_freq"][d, :n] = [o.freq_khz for o in pd.opps]
        t["pd_freq"][d, n:] = pd.opps[-1].freq_khz
        t["pd_cap"][d, :n] = [o.capacity for o in pd.opps]
        t["pd_cap"][d, n:] = pd.opps[-1].capacity
        cpus = sorted(pd.cpus)
        t["pd_cpus"][d, :len(cpus)] = cpus
        t["pd_ncpu"][d] = len(cpus)
        for c in cpus:
            t["cpu_pd"][c] = d
            t["cpu_capmax"][c] = pd.cpu_capacity_max
        if pd.idle_states:
            t["idle_nstates"][d] = len(pd.idle_states)
            # menu_select(): target residency and exit latency against the predicted idle, one threshold
            t["idle_resid"][d, :len(pd.idle_states)] = menu_thresholds(pd.idle_states)
    return t


def _energy_arrays(platform: Platform, config: SimConfig, nd: int, kmax: int) -> dict:
    """The energy model's arrays for ``eas.feec`` and the ramp boost (zeros when not needed)."""
    need_em = config.placement != "no-eas" or (config.governor == "schedutil" and config.tunable("ramp_boost"))
    pd_cost = np.zeros((nd, kmax), np.int64)
    if not need_em:
        return dict(pd_info=np.zeros((1, 6), np.int64), pd_cpus=np.zeros(1, np.int64),
                    em_states=np.zeros((1, 4), np.int64), em_mode=0, pd_cost=pd_cost)
    try:
        em = EnergyModel.from_platform(platform, config.era if config.era_tuple >= (5, 0) else "v5.0")
    except Exception as exc:
        raise ModelError(f"placement {config.placement!r} needs the energy model of platform "
                         f"{platform.name!r}, which cannot be built: {exc}; use placement='no-eas'") from exc
    arr = em.arrays()
    for d, dom in enumerate(em.domains):
        pd_cost[d, :dom.nr_states] = dom.cost
    return dict(pd_info=arr["pd_info"], pd_cpus=arr["pd_cpus"], em_states=arr["em_states"], em_mode=arr["em_mode"],
                pd_cost=pd_cost)


def _inefficient_opps(platform: Platform, config: SimConfig, pd_cost, pd_nopp) -> np.ndarray:
    """The OPPs cpufreq skips as inefficient, per perf domain (int64[nd, kmax], 1: skipped).

    From v5.16 (ledger schedutil-v5.16, ondemand-v5.16) the Energy Model flags the OPPs whose
    cost is not below a faster one's (``em_compute_costs``, :func:`lisa_eas.models.schedutil.
    opp_inefficient`) and schedutil (RELATION_LE) and ondemand (RELATION_CE) skip them. The EM
    is the driver's, registered whether EAS runs or not; a platform without one (or an era
    before v5.16, or another governor) has no flags, which resolves exactly as RELATION_L / C."""
    from ..models.schedutil import opp_inefficient
    out = np.zeros(pd_cost.shape, np.int64)
    if config.era_tuple < (5, 16) or config.governor not in ("schedutil", "ondemand"):
        return out
    try:
        em = EnergyModel.from_platform(platform, config.era)
    except LisaEasError:       # no EM for this platform: cpufreq has no inefficiency flags
        return out
    for d, dom in enumerate(em.domains):
        if d < out.shape[0] and dom.nr_states == int(pd_nopp[d]):
            out[d, :dom.nr_states] = opp_inefficient(np.asarray(dom.cost, np.int64))
    return out


def _model_params(platform: Platform, config: SimConfig, em_mode: int, cpu_capmax) -> np.ndarray:
    """The decision models' era codes and tunables (``sim_models.M_*``), each code from the
    models' own mapping (``models.eas.eas_kernel_era``, ``models.sis.sis_kernel_mode``,
    ``models.schedutil.schedutil_kernel_era``), so that the simulator runs the form the models
    run for the same kernel version."""
    from .._kernels import sim_models as sm
    from .._kernels.wake_affine import WA_V4_14, WA_V5_11
    from ..models.wakeup import die_imbalance_pct
    from ..models.eas import eas_kernel_era
    from ..models.schedutil import schedutil_kernel_era
    from ..models.sis import asym_kernel_mode, sis_kernel_mode

    era = config.era_tuple

    def wake_affine_kernel_era(v):
        return WA_V5_11 if v >= (5, 11) else WA_V4_14      # ledger wakeup-v5.11 (v4.14 form before it)

    mp = np.zeros(sm.M_SIZE, np.int64)
    mp[sm.M_EM_MODE] = em_mode
    # placement "eas-v5.0" is the v5.0 find_energy_efficient_cpu whatever the era; "eas" is the
    # era's own form from v5.0 (ledger eas-*), the April 2018 RFC v2 from v4.16 to v4.20 (ledger
    # eas-v4.16: 4.16-rc6 + the RFC); before v4.16 (no EAS posted for it) it stays the v5.4 form
    mp[sm.M_EAS_ERA] = (eas_kernel_era((5, 0)) if config.placement == "eas-v5.0"
                        else eas_kernel_era(era if era >= (4, 16) else (5, 4)))
    # cpu_overutilized: the v5.0 test (1280/1024) for eras before v5.0 too
    mp[sm.M_EAS_OVERUTIL_ERA] = eas_kernel_era(max(era, (5, 0)))
    mp[sm.M_EAS_IGNORE_OU] = int("eas-overutilized" in config.ablate)
    mp[sm.M_SIS_MODE] = sis_kernel_mode(max(era, (4, 9)))
    su_era = max(era, (5, 0))                # schedutil before v5.0: the v5.0 formula
    mp[sm.M_SU_ERA] = schedutil_kernel_era(su_era)
    mp[sm.M_SU_LIMITS_CHECK] = int(su_era >= (6, 9))        # ledger schedutil-v6.9
    mp[sm.M_SU_RESTORE_CACHED] = int(su_era >= (5, 11))     # ledger schedutil-v5.11
    mp[sm.M_IMBALANCE_PCT] = platform.imbalance_pct
    mp[sm.M_LLC_WEIGHT] = platform.llc_weight
    mp[sm.M_SIS_SCAN_COST] = config.sis_scan_cost_ns
    # sched_asym_cpucapacity: CPUs of different capacity_orig; from v5.7 select_idle_sibling()
    # searches them all by capacity (select_idle_capacity), from v5.10 after the target/prev checks,
    # with util_fits_cpu from v6.2 and from target + 1 in v6.3 (ledger sis-v5.7 .. sis-v6.3)
    asym = len(set(cpu_capmax.tolist())) > 1
    if era < (5, 7) or not asym:
        mp[sm.M_ASYM_MODE] = -1
    else:
        mp[sm.M_ASYM_MODE] = asym_kernel_mode(era)
    # before v5.7 wake_cap() (v4.10+) clears want_affine; with SD_BALANCE_WAKE on the asymmetric domain
    # (v4.20+ flag detection; eras v4.16 - v4.19: the EAS RFC's base kernel, which set the flag at DIE)
    # the wake-up takes the find_idlest_cpu() slow path (ledger wake_cap-v4.16, wake_cap-v5.7); the
    # ablation "wake-slow-path" (and eras before v4.16) keep the fast path on prev, counted
    mp[sm.M_WAKE_CAP] = 0
    if asym and (4, 10) <= era < (5, 7):
        mp[sm.M_WAKE_CAP] = sm.WAKE_CAP_FAST
        if era >= (4, 16) and "wake-slow-path" not in config.ablate:
            mp[sm.M_WAKE_CAP] = sm.WAKE_SLOW_V5_5 if era >= (5, 5) else sm.WAKE_SLOW_V4
    mp[sm.M_WAKE_CAP_UTIL_AVG] = int(era < (4, 20))        # task_util(p) before task_fits_capacity
    mp[sm.M_MAX_CAP] = int(cpu_capmax.max())
    # the wake-up path's eras (ledger sis-v5.14, wakeup-*)
    mp[sm.M_SIS_PROP_ERA] = 2 if era >= (5, 14) else 1 if era >= (5, 7) else 0
    if "sis-prop-wake-avg-idle" in config.ablate and era >= (5, 14):
        mp[sm.M_SIS_PROP_ERA] = 1           # ablation: the v5.7 - v5.13 depth (avg_idle / 512, no aging)
    # the newidle balance's early exit (ledger newidle-v4.14, newidle-v5.16; ablation "newidle-gate": none)
    # and the misfit term of rd->overload at the root-level balance (ledger newidle-v4.20)
    mp[sm.M_NEWIDLE_GATE] = (sm.NEWIDLE_UNGATED if "newidle-gate" in config.ablate
                             else sm.NEWIDLE_GATE_V5_16 if era >= (5, 16) else sm.NEWIDLE_GATE_V4_14)
    mp[sm.M_OVERLOAD_MISFIT] = int(asym and era >= (4, 20))
    # the load balance's CFS pull (ledger lb-v4.16): the v4.16 - v4.19 load_balance() (SD_ASYM_CPUCAPACITY
    # at DIE on an asymmetric platform: the EAS RFC's base kernel set it), else the simplified pull
    if (4, 16) <= era < (4, 20) and "lb-v4" not in config.ablate:
        mp[sm.M_LB_FORM] = sm.LB_V4_ASYM if asym else sm.LB_V4
    mp[sm.M_WAKER_AT_PREV] = int("resume-waker" in config.ablate)
    mp[sm.M_ATTACH_KEEPS_SUM] = int("pelt-attach-reset" in config.ablate)
    mp[sm.M_RECENT_ERA] = 2 if era >= (5, 15) else 1 if era >= (4, 16) else 0
    mp[sm.M_WA_ERA] = wake_affine_kernel_era(era)
    mp[sm.M_WA_LOAD] = int(era >= (5, 5))
    mp[sm.M_DIE_PCT] = die_imbalance_pct(config.era)      # ledger topology-v5.10
    mp[sm.M_MISFIT_MIGRATE] = int(era >= (4, 20))     # ledger lb-v4.20: no misfit migration before
    if config.governor == "ondemand":
        mp[sm.M_OD_UP_THRESHOLD] = config.tunable("up_threshold")
        mp[sm.M_OD_SAMPLING_US] = config.tunable("sampling_rate_us")
        mp[sm.M_OD_DOWN_FACTOR] = config.tunable("sampling_down_factor")
        mp[sm.M_OD_RT_STARVES] = config.tunable("work_starved_by_rt")
        mp[sm.M_OD_IDLE_DEFERS] = config.tunable("idle_defers_sample")
        mp[sm.M_OD_LONG_IDLE] = ondemand_long_idle(config)
    elif config.governor == "interactive":
        mp[sm.M_IA_GO_HISPEED] = config.tunable("go_hispeed_load")
        mp[sm.M_IA_HISPEED_KHZ] = config.tunable("hispeed_freq")
        mp[sm.M_IA_TARGET_LOAD] = config.tunable("target_load")
        mp[sm.M_IA_MIN_SAMPLE_US] = config.tunable("min_sample_time_us")
        mp[sm.M_IA_ABOVE_HS_DELAY_US] = config.tunable("above_hispeed_delay_us")
    elif config.governor == "schedfreq":
        mp[sm.M_SF_MARGIN] = config.tunable("capacity_margin")
        mp[sm.M_SF_THROTTLE_NS] = config.tunable("throttle_us") * 1000
        mp[sm.M_SF_AVG_PERIOD_NS] = config.tunable("sched_time_avg_ms") * 1000000 // 2    # sched_avg_period()
    return mp


def ondemand_long_idle(config: SimConfig) -> int:
    """ondemand's long-idle test (``governors.OD_LONG_IDLE_*``): the ``long_idle_test`` tunable's, or
    (0) the era's: the time elapsed since the last sample before v4.18 (ledger ondemand-v4.14), the
    idle time from v4.18 (7592019634f8, ledger ondemand-v4.18)."""
    from .._kernels import governors as kg
    t = config.tunable("long_idle_test")
    if t == 0:
        return kg.OD_LONG_IDLE_IDLE if config.era_tuple >= (4, 18) else kg.OD_LONG_IDLE_ELAPSED
    return kg.OD_LONG_IDLE_ELAPSED if t == 1 else kg.OD_LONG_IDLE_IDLE


def _run_config(config: SimConfig, nc: int, cfg) -> np.ndarray:
    """The run configuration vector ``K`` (``sim_state.K_*``)."""
    from .._kernels import sim_state as ss
    from .._kernels.pelt import CFG_UTIL_EST_ERA
    factor = _cfs_factor(nc)
    K = np.zeros(ss.K_SIZE, np.int64)
    K[ss.K_TICK_NS] = 1_000_000_000 // config.tick_hz
    K[ss.K_LATENCY_NS] = int(config.sched_latency_ms * 1e6) * factor
    K[ss.K_MIN_GRAN_NS] = int(config.min_granularity_ms * 1e6) * factor
    K[ss.K_WAKEUP_GRAN_NS] = int(config.wakeup_granularity_ms * 1e6) * factor
    K[ss.K_LB_NS] = int(config.balance_interval_ms * 1e6)
    K[ss.K_PLACEMENT] = {"eas": ss.PLACE_EAS, "eas-v5.0": ss.PLACE_EAS_V50, "no-eas": ss.PLACE_NO_EAS}[config.placement]
    K[ss.K_SIS] = ss.SIS_UTIL if config.sis == "util" else ss.SIS_PROP
    K[ss.K_GOV] = {"performance": ss.GOV_PERFORMANCE, "powersave": ss.GOV_POWERSAVE,
                   "schedutil": ss.GOV_SCHEDUTIL, "ondemand": ss.GOV_ONDEMAND,
                   "interactive": ss.GOV_INTERACTIVE, "schedfreq": ss.GOV_SCHEDFREQ}[config.governor]
    K[ss.K_RATE_LIMIT_NS] = config.tunable("rate_limit_us") * 1000 if config.governor == "schedutil" else 0
    K[ss.K_TRANS_LAT_NS] = config.transition_latency_us * 1000
    K[ss.K_MODEL_EVENTS] = int(config.model_events and config.outputs == "full")
    K[ss.K_DELTA_SCALING] = int(cfg[0])
    K[ss.K_UE_ERA] = max(int(cfg[CFG_UTIL_EST_ERA]), 0)
    K[ss.K_UTIL_EST] = int(cfg[CFG_UTIL_EST_ERA] >= 0)
    K[ss.K_RAMP_BOOST] = config.tunable("ramp_boost") if config.governor == "schedutil" else 0
    K[ss.K_SAMPLE_NS] = (config.tunable("sampling_rate_us") * 1000 if config.governor == "ondemand" else
                         config.tunable("timer_rate_us") * 1000 if config.governor == "interactive" else 0)
    K[ss.K_NR_CPUS] = nc
    K[ss.K_EEVDF] = int(config.era_tuple >= ledger_row("cfs-v6.6").version)     # ledger cfs-v6.6
    return K


def _initial_tasks(compiled: CompiledWorkload, config: SimConfig, cfg, cpu_capmax, nc: int, fork=None):
    """The task table and the task / cfs_rq / rt_rq PELT signals at t = 0: each thread asleep on
    the CPU its fork placed it on (``fork``: CPUs and util_avg of :func:`._fork.fork_placement`; the
    first allowed CPU when that one is outside its mask; without ``fork``, the ablation: its
    allowed CPUs in turn, with half the CPU's spare capacity) until its start, each CFS task
    with the util_avg of ``post_init_entity_util_avg`` attached to that CPU's cfs_rq."""
    from .._kernels import sim_state as ss
    from .._kernels.pelt import CFG_DIVIDER_MODE, CFG_LOAD_AVG_MAX, SA_SIZE, SA_UTIL_AVG, SA_UTIL_SUM
    nt = compiled.nr_threads
    TK = np.zeros((nt, ss.T_NFIELDS), np.int64)
    rng = np.random.default_rng(config.seed)
    jitter = (rng.integers(0, config.start_jitter_us + 1, size=nt) * 1000) if config.start_jitter_us else np.zeros(nt, np.int64)
    tsa = np.zeros((nt, SA_SIZE), np.int64)
    csa = np.zeros((nc, SA_SIZE), np.int64)
    rsa = np.zeros((nc, SA_SIZE), np.int64)
    # the sums of a signal at period_contrib 0: util_sum = util_avg * divider, the divider
    # being LOAD_AVG_MAX up to v4.11 (post_init_entity_util_avg) and LOAD_AVG_MAX - 1024 +
    # period_contrib from v4.12 (attach_entity_load_avg)
    divider = int(cfg[CFG_LOAD_AVG_MAX]) - (1024 if cfg[CFG_DIVIDER_MODE] else 0)
    for t in range(nt):
        mask = compiled.masks[compiled.mask0[t]]
        allowed = np.flatnonzero(mask)
        cpu = int(allowed[t % len(allowed)]) if fork is None else int(fork[0][t])
        if not mask[cpu]:
            cpu = int(allowed[0])       # rt-app's set_thread_affinity: cpumask_any_and(valid, new_mask)
        TK[t, ss.T_STATE] = ss.TS_SLEEPING
        TK[t, ss.T_CPU] = cpu
        TK[t, ss.T_PC] = compiled.pc0[t]
        TK[t, ss.T_WAKE_AT] = compiled.delay_ns[t] + int(jitter[t])
        TK[t, ss.T_POLICY] = compiled.policy0[t]
        TK[t, ss.T_PRIO] = compiled.prio0[t]
        TK[t, ss.T_MASK] = compiled.mask0[t]
        TK[t, ss.T_UE_CPU] = -1
        TK[t, ss.T_TIMER_DUE] = -1
        # wake_up_new_task(): p->recent_used_cpu = task_cpu(p), the parent's CPU (v4.16+; unused before)
        TK[t, ss.T_RECENT] = cpu if fork is None else compiled.parent_cpu
        if compiled.policy0[t] == ss.POLICY_CFS:
            # post_init_entity_util_avg(); a SCHED_FIFO thread's (forked as CFS) leaves with switched_from_fair
            u = int(cpu_capmax[cpu] - csa[cpu, SA_UTIL_AVG]) // 2 if fork is None else int(fork[1][t])
            tsa[t, SA_UTIL_AVG] = u
            tsa[t, SA_UTIL_SUM] = u * divider
            csa[cpu, SA_UTIL_AVG] += u
            csa[cpu, SA_UTIL_SUM] += u * divider
    return TK, tsa, csa, rsa


def _initial_domains(config: SimConfig, K, pd_nopp) -> np.ndarray:
    """The perf-domain table at t = 0 (lowest OPP, the top one under performance)."""
    from .._kernels import sim_state as ss
    PD = np.zeros((len(pd_nopp), ss.P_NFIELDS), np.int64)
    if config.governor == "performance":
        PD[:, ss.P_OPP] = pd_nopp - 1
    PD[:, ss.P_PENDING_OPP] = -1
    PD[:, ss.P_PENDING_AT] = ss.INF_TIME
    PD[:, ss.P_NEXT_SAMPLE] = K[ss.K_SAMPLE_NS] if K[ss.K_SAMPLE_NS] > 0 else ss.INF_TIME
    PD[:, ss.P_REQ_OPP] = PD[:, ss.P_OPP]
    return PD


def _governor_state(config: SimConfig, PD, pd_freq, pd_ncpu, mmax):
    """Initial per-policy / per-CPU state of the legacy governors (``governors.*_init`` at t = 0)."""
    from .._kernels import governors as kg
    from .._kernels import sim_models as sm
    from .._kernels import sim_state as ss
    nd = PD.shape[0]
    gov_pol = np.zeros((nd, sm.GOV_POL_WIDTH), np.int64)
    gov_cpu = np.zeros((nd, mmax, sm.GOV_CPU_WIDTH), np.int64)
    for d in range(nd):
        m = int(pd_ncpu[d])
        f0 = int(pd_freq[d, PD[d, ss.P_OPP]])
        zeros = np.zeros(m, np.int64)      # no busy / idle time at t = 0
        if config.governor == "ondemand":
            kg.ondemand_init(0, zeros, f0, gov_cpu[d, :m], gov_pol[d])
        elif config.governor == "interactive":
            kg.interactive_init(0, zeros, f0, gov_cpu[d, :m], gov_pol[d])
        elif config.governor == "schedfreq":
            kg.schedfreq_init(f0, gov_cpu[d, :m], gov_pol[d])
    return gov_pol, gov_cpu


def pack(arrays) -> np.ndarray:
    """Arrays -> one flat int64 array with the header ``lisa_eas._kernels.sim_views`` reads."""
    from .._kernels.sim_views import HEADER_SLOTS, HEADER_WORDS
    if len(arrays) > HEADER_SLOTS:
        raise ValueError("too many arrays to pack")
    total = HEADER_WORDS + sum(int(np.asarray(a).size) for a in arrays)
    flat = np.zeros(total, np.int64)
    off = HEADER_WORDS
    for k, a in enumerate(arrays):
        a = np.asarray(a)
        flat[4 * k] = off
        flat[4 * k + 1:4 * k + 1 + a.ndim] = a.shape
        flat[off:off + a.size] = a.astype(np.int64, copy=False).ravel()
        off += a.size
    return flat


def _sis_stats(config: SimConfig, nc: int) -> np.ndarray:
    """The idle-search statistics (``sim_state.SS_*``), counted from ``config.stats_from_s``."""
    from .._kernels import sim_state as ss

    st = np.zeros(ss.SS_HIST + nc + 1, np.int64)
    st[ss.SS_FROM] = int(round(config.stats_from_s * 1e9))
    return st


def sis_stats_dict(st: np.ndarray) -> dict:
    """``RawRun.sis_stats`` by name: Mel Gorman's SIS schedstat counters and the histogram of
    runqueues examined per select_idle_cpu() call (index = runqueues)."""
    from .._kernels import sim_state as ss

    return {"from_s": int(st[ss.SS_FROM]) / 1e9, "searches": int(st[ss.SS_SEARCHES]), "fast": int(st[ss.SS_FAST]),
            "dom_searches": int(st[ss.SS_DOM_SEARCHES]), "dom_scanned": int(st[ss.SS_DOM_SCANNED]),
            "dom_found": int(st[ss.SS_DOM_FOUND]), "found": int(st[ss.SS_FOUND]),
            "rqs_scanned_hist": [int(x) for x in st[ss.SS_HIST:]]}


def pack_slots(slots, arrays: dict) -> np.ndarray:
    """Pack ``arrays`` (slot name -> array) in the order ``slots`` (``sim_layout``) declares."""
    names = [name for name, _ in slots]
    if set(arrays) != set(names):
        raise ValueError(f"slots {sorted(set(names) ^ set(arrays))} are missing or undeclared")
    return pack([arrays[name] for name in names])


def view(flat: np.ndarray, k: int) -> np.ndarray:
    """Slot ``k`` of a packed array as an array of its original shape (a view)."""
    o = int(flat[4 * k])
    dims = [int(d) for d in flat[4 * k + 1:4 * k + 4] if d > 0]
    n = int(np.prod(dims)) if dims else 0
    return flat[o:o + n].reshape(dims)


def initial_events(S, P, O):
    """The state at t = 0 as events: every CPU idle in its domain's deepest idle state, every
    domain at its OPP. Before the workload starts no timer is armed on an idle CPU, so the idle
    governor (``menu_select()``, drivers/cpuidle/governors/menu.c: the next timer event, here none,
    bounds the predicted idle time) picks the deepest state; a CPU the workload never uses stays
    there (its cluster can power down), as it would on the board."""
    from .._kernels import sim_state as ss
    ev, cnt = view(O, L.O_EVENTS // 4), view(O, L.O_COUNTERS // 4)
    CP, PD = view(S, L.S_CPUS // 4), view(S, L.S_DOMAINS // 4)
    cpu_pd, pd_freq = view(P, L.P_CPU_PD // 4), view(P, L.P_PD_FREQ // 4)
    nstates = view(P, L.P_IDLE_NSTATES // 4)
    n = 0
    for c in range(CP.shape[0]):
        deepest = max(int(nstates[cpu_pd[c]]) - 1, 0)
        ev[n, :] = (0, ss.EV_FREQ, c, pd_freq[cpu_pd[c], PD[cpu_pd[c], ss.P_OPP]], 0, 0, 0, 0)
        ev[n + 1, :] = (0, ss.EV_IDLE, c, deepest, 0, 0, 0, 0)
        CP[c, ss.C_IDLE_STATE] = deepest
        n += 2
    cnt[ss.N_EV] = n


_MADV_POPULATE_WRITE = 23     # Linux >= 5.14: fault a range in, writable, in one call
_WINDOW_BYTES = 1 << 20       # each table's share of the output written between two returns of the loop
_MAP_MIN_BYTES = 4 << 20
_MAP_STEP_BYTES = 64 << 20
_EST_MAX_BYTES = 2 << 30     # the most address space an extrapolated table size takes (8 B words)
_SPARE_MAX_BYTES = 256 << 20  # the most memory faulted in that an output map kept for the next run holds
_SPARE = threading.local()    # .out: (map, pages faulted in) released by this thread's last run


def release_output(raw: RawRun) -> None:
    """Hand the output memory of ``raw`` on to this thread's next run (its tables are dropped).

    For a caller that has copied out what it needs (``simulate`` in summary mode): a sweep's
    next run then writes its tables into memory already faulted in, instead of faulting in a
    fresh map (measured: ~3 ms of the ~0.09 s summary run of the EAS RFC benchmark). One map
    is kept per thread, with up to 256 MB of it faulted in; :func:`drop_spare_output` frees it."""
    out, raw.output = raw.output, None
    raw.events = raw.activations = raw.eas = np.zeros((0, 0), np.int64)
    if out is None or out.buf is None or int(out.faulted.sum()) * mmap.PAGESIZE > _SPARE_MAX_BYTES:
        return
    _SPARE.out = (out.buf, out.faulted)


def drop_spare_output() -> None:
    """Free the output map kept by :func:`release_output` (the next run starts cold)."""
    _SPARE.out = None


def _take_spare(nbytes: int):
    """This thread's spare output map if it holds ``nbytes`` (then no longer spare), else None."""
    spare = getattr(_SPARE, "out", None)
    if spare is None or len(spare[0]) < nbytes:
        return None
    _SPARE.out = None
    return spare


class _Output:
    """The output of a run, written by the loop straight into the result tables.

    The loop writes each output table (events, activations, EAS decisions) through a slot of
    the flat output array ``O`` (offset, rows: ``lisa_eas._kernels.sim_views``) and returns
    when one is nearly full. The first return (the small buffers of ``build_run``) gives the
    rates: the tables are then laid out, sized for the whole run (the rate so far
    extrapolated to the end, x1.5: room never written costs address space only), in one flat
    array with the same header, and at each return each slot is pointed at the free rows
    that follow the rows already written (a window of about ``_WINDOW_BYTES``, small enough
    to be still in cache when the loop writes it after the populate call below): the rows
    are written once, in place, with no copy out of a loop buffer (re-laid out by 1.5x when
    an estimate falls short). Measured on the EAS RFC energy benchmark: 0.031 s for the
    output against 0.049 s when the loop's buffers were drained into the tables.

    Fresh memory is costly to touch (page faults), so a flat array of 4 MB or more lives in
    an anonymous memory map whose windows are faulted in with one
    ``madvise(MADV_POPULATE_WRITE)`` each before the loop writes them: numpy advises the
    kernel to back such arrays with transparent huge pages (``MADV_HUGEPAGE``), and where
    THP is in ``madvise`` mode with direct compaction their first touch costs several times
    that of ordinary pages; page by page, the faults of ordinary pages cost about as much
    again as the populate call (measured on the development VM: 110 MB of output tables of
    a 30 s EAS run with model events filled in 0.12 s against 0.06 s, and 0.3 s as numpy
    arrays)."""

    def __init__(self, O, min_rows: tuple):
        from .._kernels import sim_state as ss
        self.O = O
        self.min_rows = min_rows            # free rows each window needs for the loop to advance
        self.slots = (0, 1, 2)
        self.counters = (ss.N_EV, ss.N_ACT, ss.N_EAS)
        self.width = [int(O[4 * k + 2]) for k in self.slots]
        self.base = [int(O[4 * k]) for k in self.slots]      # first row of each table (word offset)
        self.cap = [int(O[4 * k + 1]) for k in self.slots]   # rows of each table
        self.n = [0, 0, 0]                                   # rows written
        self.map = None
        self.buf = None                                      # the memory map of O, if any
        self.faulted = None                                  # its pages faulted in (bool per page)
        self.populated = [0, 0, 0]                           # rows faulted in

    def collect(self) -> None:
        """Account the rows the loop wrote since the last call (counters back to 0)."""
        O = self.O
        cnt = int(O[4 * 3])
        for i in range(3):
            self.n[i] += int(O[cnt + self.counters[i]])
            O[cnt + self.counters[i]] = 0

    def layout(self, expect) -> None:
        """Lay the tables out again with room for ``expect[i]`` rows each (the rows written so
        far copied over), in a new flat array."""
        from .._kernels import sim_state as ss
        from .._kernels.sim_views import HEADER_WORDS
        old, old_base = self.O, self.base
        cap = [max(int(e), n) for e, n in zip(expect, self.n)]
        total = HEADER_WORDS + sum(c * w for c, w in zip(cap, self.width)) + ss.N_SIZE
        nbytes = total * 8
        if nbytes < _MAP_MIN_BYTES or not hasattr(mmap, "MAP_ANONYMOUS"):
            O, buf = np.zeros(total, np.int64), None
        else:
            # a released map (a sweep's previous run) when one is large enough: its pages are
            # faulted in already, and every row the tables expose is written before it is read
            # (the map's size rounded up to 64 MB, address space only: the runs of a sweep, whose
            # estimates differ a little, then find the previous run's map large enough)
            nbytes = -(-nbytes // _MAP_STEP_BYTES) * _MAP_STEP_BYTES
            buf, faulted = _take_spare(nbytes) or (None, None)
            if buf is None:
                buf = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
                faulted = np.zeros(-(-nbytes // mmap.PAGESIZE), bool)
            O = np.frombuffer(buf, np.int64, count=total)
        # the header, the counters slot at the end (N_SIZE words: the row counts, collected and
        # so 0 here, and the summary flag)
        O[:HEADER_WORDS] = old[:HEADER_WORDS]
        off = HEADER_WORDS
        base = []
        for i in range(3):
            base.append(off)
            off += cap[i] * self.width[i]
        O[4 * 3] = off
        old_cnt = int(old[4 * 3])
        O[off:off + ss.N_SIZE] = old[old_cnt:old_cnt + ss.N_SIZE]
        self.O, self.base, self.cap, self.map = O, base, cap, buf
        self.buf, self.faulted = buf, (faulted if buf is not None else None)
        self.populated = [0, 0, 0]
        for i in range(3):
            rows = self.n[i] * self.width[i]
            self._populate(i, self.n[i])
            O[base[i]:base[i] + rows] = old[old_base[i]:old_base[i] + rows]

    def _populate(self, i: int, stop: int) -> None:
        """Fault rows ``populated[i]:stop`` of table ``i`` in with one call (best effort)."""
        buf = self.map
        start = self.populated[i]
        if stop > start:
            self.populated[i] = stop
        if buf is None or stop <= start or not sys.platform.startswith("linux"):
            return
        w8 = self.width[i] * 8
        p0 = (self.base[i] * 8 + start * w8) // mmap.PAGESIZE
        p1 = -(-(self.base[i] * 8 + stop * w8) // mmap.PAGESIZE)
        todo = np.flatnonzero(~self.faulted[p0:p1])       # pages of a reused map may be in already
        if not len(todo):
            return
        lo, hi = p0 + int(todo[0]), p0 + int(todo[-1]) + 1
        self.faulted[lo:hi] = True
        lo, hi = lo * mmap.PAGESIZE, min(hi * mmap.PAGESIZE, len(buf))
        try:
            buf.madvise(_MADV_POPULATE_WRITE, lo, hi - lo)
        except (OSError, ValueError):
            self.map = None             # not supported here: plain page faults from now on

    def windows(self) -> bool:
        """Point each slot at the free rows after its table's written rows (False: a table is
        too full for the loop to advance)."""
        O = self.O
        if any(self.cap[i] - self.n[i] < self.min_rows[i] for i in range(3)):
            return False
        for i, k in enumerate(self.slots):
            w = self.width[i]
            rows = min(self.cap[i] - self.n[i], max(_WINDOW_BYTES // (8 * w), 2 * self.min_rows[i]))
            O[4 * k] = self.base[i] + self.n[i] * w
            O[4 * k + 1] = rows
            self._populate(i, self.n[i] + rows)
        return True

    def tables(self):
        return [self.O[b:b + n * w].reshape(n, w) for b, n, w in zip(self.base, self.n, self.width)]


def run_loop(S, P, O, margin, loop=None, *, known_end: bool = False) -> RawRun:
    """Drive the event loop to the end, its output written into the result tables; ``loop``
    defaults to the numba kernel (the plain-Python reference engine passes its own);
    ``known_end``: the run lasts until its end time (not until its tasks exit), so the rates
    extrapolated to it size the tables."""
    from .._kernels import sim_state as ss
    if loop is None:
        from .._kernels.sim_loop import sim_run as loop
    initial_events(S, P, O)
    G = view(S, L.S_GLOBALS // 4)
    nt = int(S[4 * 2 + 1])
    out = _Output(O, (margin + 1, nt + 2, nt + 2))
    first = True
    while True:
        loop(S, P, out.O, margin)
        done = G[ss.G_STATUS] == 2
        out.collect()
        if done:
            break
        G[ss.G_ITER] += 1
        if first or not out.windows():
            # expected final sizes: the rate so far extrapolated to the end of the run (x1.5),
            # bounded (a run that ends when its tasks exit has a far end time: 8x the rows so
            # far, at least 4 M rows; with ``known_end``, at least _EST_MAX_BYTES of address
            # space: a large run of known length is not laid out again and copied at 4 M rows);
            # at least 1.5x the current size when a table outgrew its estimate
            now, end = max(int(G[ss.G_NOW]), 1), max(int(G[ss.G_T_END]), 1)
            expect = []
            for i in range(3):
                n = out.n[i]
                floor = _EST_MAX_BYTES // (8 * out.width[i]) if known_end else 1 << 22
                est = min(int(n * (end / now) * 1.5), max(8 * n, floor)) + 2 * out.min_rows[i]
                if not first:
                    est = max(est, int(out.cap[i] * 1.5))
                expect.append(est)
            out.layout(expect)
            first = False
            if not out.windows():
                raise AssertionError("output layout too small")     # cannot happen: need rows reserved
    events, activations, eas = out.tables()
    return RawRun(events=events, activations=activations, eas=eas, res_busy=view(S, L.S_RES_BUSY // 4).copy(),
                  res_idle=view(S, L.S_RES_IDLE // 4).copy(), t_end=int(G[ss.G_NOW]), iterations=int(G[ss.G_ITER]),
                  wake_cap_wakeups=int(G[ss.G_WAKE_CAP]), output=out,
                  sis_stats=view(S, L.S_SIS_STATS // 4).copy(),
                  newidle_skipped=(int(G[ss.G_NEWIDLE_SKIP_AVG_IDLE]), int(G[ss.G_NEWIDLE_SKIP_OVERLOAD])))
