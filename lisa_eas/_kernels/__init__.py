"""Numba kernels of the scheduler/cpufreq models: ``@njit(cache=True)`` functions over scalars
and int64 arrays, composable from other njit code (the simulator's event loop calls them).

Nothing compiles at import: each function compiles on its first call and is cached on disk
(``__pycache__``), so later processes load it in milliseconds. The public, validating API is
:mod:`lisa_eas.models`; these kernels trust their inputs.

Conventions: all values are int64 (kernel integer arithmetic, truncating division, logical
shifts on non-negative values); time is in ns; utilization/capacity in 0..1024; frequencies
in kHz; booleans are 0/1 integers. Mutable state lives in small int64 arrays whose layout is
given by module constants (``SA_*``, ``CS_*``, ``PS_*``), so a caller can keep one row per
entity/CPU/policy in a 2-D array and pass row views.

Modules and entry points
------------------------
``pelt`` (kernel/sched/pelt.c)
    ``decay_load(val, n, yn_inv)``; ``accumulate_sum(sa, delta_us, load, runnable, running,
    scale_freq, scale_cpu, cfg, yn_inv)``; ``update_load_sum(sa, now_ns, ...)``;
    ``update_load_avg(sa, weight, runnable_weight, cfg)``; ``update_signal(sa, now_ns, on_rq,
    running, weight, scale_freq, scale_cpu, cfg, yn_inv) -> periods`` (one entity update);
    ``clock_pelt_advance(clock_pelt, delta_ns, scale_cpu, scale_freq)`` and
    ``idle_lost_time(util_sum, clock_task, clock_pelt, load_avg_max)`` (v5.1+ PELT clock);
    ``pelt_timeline(ts, state, scale_cpu, scale_freq, weight, init, cfg, yn_inv, out)``;
    ``pelt_batch_updates(sa_all, now, on_rq, running, ...)``. ``sa`` is int64[SA_SIZE];
    ``cfg`` (int64[CFG_SIZE]) and ``yn_inv`` come from ``lisa_eas.models.pelt.pelt_config``
    and ``pelt_tables``.
``util_est`` (fair.c util_est_update / util_est_dequeue)
    ``util_est_update(ewma, enqueued, task_util, task_runnable, cpu_capacity, era) ->
    (ewma, enqueued)``; ``task_util_est_clear_flag``; ``task_util_est_value``. Era codes
    ``UE_V4_17 .. UE_V6_12``.
``eas`` (fair.c find_energy_efficient_cpu / compute_energy, energy_model.h em_cpu_energy)
    ``feec(era, pd_info, pd_cpus, em_states, em_mode, cap_orig, cap_of, util_avg, util_est,
    task_util, task_ue, prev_cpu, allowed, overutilized, work, energies) -> cpu`` for one
    wake-up (per-CPU int64[n_cpus] arrays; ``work`` int64[2] accumulates (perf-domain
    energy evaluations, CPU-util computations); ``energies`` int64[3] receives the compared
    energies, ``NO_ENERGY`` when not computed); ``feec_batch(...)`` for many;
    ``em_cpu_energy(pd_info, em_states, em_mode, pd, max_util, sum_util, allowed_cap)``;
    ``cpu_util_next``, ``fits_capacity``, ``cpu_overutilized(util, cap, era)``,
    ``rd_overutilized``. Platform arrays from ``EnergyModel.arrays()``; eras ``EAS_RFC_V2`` (the
    April 2018 RFC v2, ``feec_rfc2``), ``EAS_V5_0``,
    ``EAS_V5_4``, ``EAS_V5_14``, ``EAS_V6_0``, ``EAS_V6_2``; optional ``extra`` (``X_*`` rows: RT/DL/IRQ,
    thermal pressure, runnable_avg, the rq and task clamps with the uclamp fit's form ``UC_*``);
    the fit tests below are re-exported here.
``fits`` (fair.c fits_capacity / uclamp_task_util / util_fits_cpu; ``extra_rows`` has the ``X_*`` rows)
    ``fits_capacity(util, capacity)``; ``uclamp_task_util(util, p_min, p_max)`` (v5.6 - v6.1);
    ``util_fits_cpu(util, uclamp_min, uclamp_max, capacity, capacity_orig, thermal, form)`` (v6.2+,
    forms ``UC_*``) and ``util_fits_cpu_v62(..., inverted)`` with v6.2's capacity inversion
    (``capacity_inverted(cpu, capacity_orig, thermal_avg, pd_of)``, ``capacity_inverted_pd``);
    feec's ``uclamp_fits``, ``fits_v62`` and ``feec_exits_early``; ``uclamp_bounds(extra, cpu)``
    (the max-aggregated rq and task clamps), ``clamp_rq_util``; ``cpu_overutilized_uclamp(...)``.
``meter`` (the legacy EAS energy model's sched_group_energy, as a meter reads it)
    ``integrate_cluster(t, kind, slot, val, t_start, t_end, n_cpus, cpu_busy, cpu_idle,
    cluster_busy, cluster_idle, init_state, out)``: one cluster's CPU and cluster power over a
    merged OPP / idle-state timeline (``M_*`` slots of ``out``).
``sis`` (fair.c select_idle_sibling / select_idle_cpu / update_idle_cpu_scan)
    ``sis_util_nr_idle_scan(sum_util, llc_weight, imbalance_pct)``;
    ``sis_prop_nr(avg_idle, avg_scan_cost, span_weight, era)``;
    ``select_idle_sibling(mode, util_mode, idle, allowed, target, prev, recent,
    has_idle_core, nr_param, llc_id, core_id, smt, result) -> cpu`` (``result`` int64[2] gets
    (path, runqueues scanned), and ``result[2]``, when present, whether the SIS depth ran out);
    ``update_avg(avg, sample, trunc)``, ``wake_avg_idle_age(wake_avg_idle, wake_stamp, jiffies)``;
    ``sis_batch(...)``. Modes ``SIS_V4_0``, ``SIS_V4``, ``SIS_V5_12``,
    ``SIS_V5_12_14``, ``SIS_V5_15`` (``models.sis.sis_kernel_mode(version)``; the simulator uses the
    same mapping).
    Asymmetric capacity (v5.7+): ``select_idle_capacity(mode, idle, allowed, capacity,
    capacity_orig, thermal, thermal_avg, pd_of, task_util, p_min, p_max, target, result)``;
    ``select_idle_sibling_asym(mode, ..., target, prev, recent, llc_id, result)``;
    ``sis_asym_batch(...)``. Modes ``ASYM_V5_7``, ``ASYM_V5_10``, ``ASYM_V6_2``, ``ASYM_V6_3``
    (``models.sis.asym_kernel_mode(version)``).
``wake_affine`` (fair.c wake_affine / wake_affine_idle / wake_affine_weight, v4.14+)
    ``wake_affine(mode, this_idle, prev_idle, share_cache, sync, this_nr_running, this_load,
    prev_load, task_load, current_load, capacity_this, capacity_prev, imbalance_pct)`` ->
    ``WA_THIS`` / ``WA_PREV``; modes ``WA_V4_14``, ``WA_V5_11``.
``schedutil`` (cpufreq_schedutil.c, RFC v3 ramp boost)
    ``effective_cpu_util(cfs, rt, dl, bw_dl, irq, scale, type, rt_runnable)``;
    ``effective_cpu_util_uclamp(..., uclamp_used, uclamp_min, uclamp_max)`` (v5.3 - v6.7,
    ``uclamp_rq_util_with``); ``effective_cpu_util_v68(..., minmax)`` and
    ``sugov_effective_cpu_perf(actual, lo, hi)`` (v6.8+);
    ``resolve_freq(freqs, target, fmin, fmax)``; ``raw_next_freq(util, max_cap, freq_ref,
    era)``; ``get_next_freq(ps, util, max_cap, freq_ref, freqs, fmin, fmax, era, boost,
    costs)``; ``iowait_boost`` / ``iowait_apply`` / ``ramp_boost_update`` on a CPU state row
    (int64[CS_SIZE]); ``em_pd_get_higher_freq(freqs, costs, min_freq, margin)``;
    ``sugov_update(cs_all, ps, cpu, time, iowait, went_idle, util_avg, util_est, max_cap,
    freq_ref, freqs, fmin, fmax, era, rate_limit_ns, tick_ns, use_iowait, use_ramp_boost,
    costs) -> next_freq`` (one ``cpufreq_update_util`` call; policy state int64[PS_SIZE]);
    ``sugov_run(...)`` over a sequence. Formula eras ``SU_V5_0``, ``SU_V5_14``, ``SU_V6_8``;
    flags ``ineff`` (RELATION_LE, v5.16), ``limits_check`` (v6.9), ``restore_cached`` (v5.11), ``util_rt``.
``governors`` (cpufreq_ondemand.c + cpufreq_governor.c, AOSP cpufreq_interactive.c,
cpufreq_sched.c)
    ``ondemand_run``, ``interactive_run``, ``schedfreq_run`` over a busy timeline or request
    sequence; ``choose_freq``, ``relation_l``/``relation_h``/``relation_c``,
    ``cumulative_busy``/``busy_at``.
"""
from .._numba_cache import install as _install_cache_stamp

# numba caches each function by its own file; a kernel inlines others and reads their constants,
# so any edit here recompiles this package's kernels (lisa_eas._numba_cache)
_install_cache_stamp()
