"""The rows of ``extra``: the optional per-CPU inputs of one wake-up's energy-aware decision.

``extra`` is int64[X_SIZE, n_cpus] (or None: CFS only, no clamps, no pressure); the kernels of
:mod:`lisa_eas._kernels.eas` and :mod:`lisa_eas._kernels.fits` read it by these row indices.
"""
from __future__ import annotations

X_RT = 0          # cpu_util_rt(rq)
X_DL = 1          # cpu_util_dl(rq)
X_BW_DL = 2       # cpu_bw_dl(rq)
X_IRQ = 3         # cpu_util_irq(rq)
X_THERMAL = 4     # arch_scale_thermal_pressure(cpu) (hw pressure from v6.10)
X_RUNNABLE = 5    # cfs_rq->avg.runnable_avg (runnable boosting, v6.5+; 0 before)
X_UC_ON = 6       # uclamp in the candidates' fit (uclamp_is_used()): the fit's form UC_* (0: no clamps)
X_UC_RQ_MIN = 7   # uclamp_rq_get(rq, UCLAMP_MIN)
X_UC_RQ_MAX = 8   # uclamp_rq_get(rq, UCLAMP_MAX) (an idle rq: the uclamp_max kept from its last task)
X_UC_P_MIN = 9    # uclamp_eff_value(p, UCLAMP_MIN) (the same in every column)
X_UC_P_MAX = 10   # uclamp_eff_value(p, UCLAMP_MAX)
X_THERMAL_AVG = 11  # thermal_load_avg(rq): v6.2's capacity inversion (update_cpu_capacity) reads the average
X_UC_IDLE = 12    # 1: the rq is idle (UCLAMP_FLAG_IDLE) and the era's uclamp_rq_util_with(rq, util, p) then takes the
                  # waking task's clamps alone (v5.14+, 3e1493f46390, ledger uclamp-v5.14); 0: max-aggregated
X_SIZE = 13
