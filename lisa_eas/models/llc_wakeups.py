"""The one-LLC wake-up model (``select_idle_sibling`` under SIS_PROP or SIS_UTIL), its public face.

The numba kernel and the model's description are in :mod:`lisa_eas._kernels.llc_wakeups`; the
``sis-efficiency`` reproduction (:mod:`lisa_eas.repro.sis_efficiency`) drives it through
:func:`llc_params` and :func:`run_llc_wakeups`, which name the kernel's parameter and counter
slots so that no caller indexes them by number.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError

__all__ = ["LLC_COUNTERS", "LLC_HIST_BUCKETS", "llc_params", "run_llc_wakeups"]

#: counter names of :func:`run_llc_wakeups` (the kernel's ``S_*`` slots, lower-cased)
LLC_COUNTERS = ("searches", "fast", "dom_searches", "dom_scanned", "dom_found", "found", "busy_ns", "counted_ns",
                "depth_sum", "sum_util_sum", "util_ticks", "events", "queued", "target", "prev", "recent",
                "wake_noop")

#: buckets of the select_idle_cpu() time histogram (log2 of us: [0,1), [1,2), [2,4), ...)
LLC_HIST_BUCKETS = 24


def llc_params(*, sim_ns: int, warmup_ns: int, scan_rq_ns: int, scan_base_ns: int, lb_interval_ns: int,
               jiffy_ns: int, max_idle_balance_cost_ns: int, imbalance_pct: int) -> np.ndarray:
    """The kernel's parameter row; SIS_UTIL's per-window decay is y^window_ms with y^32 = 1/2."""
    from .._kernels import llc_wakeups as k

    if lb_interval_ns <= 0 or sim_ns <= 0:
        raise ModelError(f"llc_params: sim_ns and lb_interval_ns must be > 0, got {sim_ns}, {lb_interval_ns}")
    p = np.zeros(k.N_PARAMS, np.int64)
    p[k.P_SIM_NS], p[k.P_WARMUP_NS] = sim_ns, warmup_ns
    p[k.P_SCAN_RQ_NS], p[k.P_SCAN_BASE_NS] = scan_rq_ns, scan_base_ns
    p[k.P_LB_INTERVAL_NS], p[k.P_JIFFY_NS] = lb_interval_ns, jiffy_ns
    p[k.P_DECAY_Q32] = int(round(0.5 ** (lb_interval_ns / 1e6 / 32) * 2 ** 32))
    p[k.P_MAX_IDLE_BALANCE_COST] = max_idle_balance_cost_ns
    p[k.P_IMBALANCE_PCT] = imbalance_pct
    return p


def run_llc_wakeups(util_mode: int, n_cpus: int, workload: dict, jitter, params) -> tuple[dict, np.ndarray]:
    """Run the model once.

    Parameters
    ----------
    util_mode : {0, 1}
        0 SIS_PROP, 1 SIS_UTIL.
    n_cpus : int
        CPUs of the LLC.
    workload : dict
        ``run_ns``, ``tail_ns``, ``wake_ptr``, ``wake_idx``, ``init_cpu`` (int64 arrays), ``init_runnable``
        (uint8).
    jitter : int64 array
        Burst-length jitters (1/1024).
    params : int64 array
        :func:`llc_params`.

    Returns
    -------
    (dict, numpy.ndarray)
        The counters by name (:data:`LLC_COUNTERS`) and the select_idle_cpu() time histogram.
    """
    from .._kernels import llc_wakeups as k

    if util_mode not in (0, 1):
        raise ModelError(f"run_llc_wakeups: util_mode must be 0 (SIS_PROP) or 1 (SIS_UTIL), got {util_mode!r}")
    st = np.zeros(k.N_STATS, np.int64)
    hist = np.zeros(k.N_HIST, np.int64)
    w = workload
    k.llc_wakeups(util_mode, n_cpus, w["run_ns"], w["tail_ns"], w["wake_ptr"], w["wake_idx"], w["init_cpu"],
                  w["init_runnable"], jitter, params, st, hist)
    return dict(zip(LLC_COUNTERS, (int(v) for v in st))), hist
