"""The optional inputs a modern kernel decides with (RT/DL/IRQ pressure, thermal pressure,
runnable boosting, RT in schedutil): absent by default (results unchanged), per era when given.
Expected values are worked out by hand from kernel/sched/fair.c and cpufreq_schedutil.c of the
cited versions (juno_r0 big: CPUs 1, 2, cap 1024, OPPs 450..1100 MHz costs 391, 420, 471, 525,
583; LITTLE: CPUs 0, 3, 4, 5, cap 446, 450..850 MHz costs 79, 85, 95, 106, 119)."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from lisa_eas import ModelError
from lisa_eas.models import find_energy_efficient_cpu


def test_absent_inputs_change_nothing():
    rng = np.random.default_rng(4)
    ua = rng.integers(0, 600, (200, 6))
    tu = rng.integers(1, 400, 200)
    prev = rng.integers(0, 6, 200)
    for era in ("v5.0", "v5.4", "v5.14", "v6.1", "v6.8", "v6.9"):
        a = find_energy_efficient_cpu("juno_r0", ua, tu, prev, era=era)
        b = find_energy_efficient_cpu("juno_r0", ua, tu, prev, era=era, util_rt=np.zeros((200, 6), int),
                                      thermal_pressure=np.zeros(6, int), runnable_avg=np.zeros(6, int))
        assert np.array_equal(a.cpu, b.cpu) and np.array_equal(a.pd_evaluations, b.pd_evaluations)
        assert np.allclose(a.prev_energy, b.prev_energy, equal_nan=True)


def test_rt_pressure_in_compute_energy_v5_4():
    """v5.4 compute_energy(): sum_util += schedutil_cpu_util(ENERGY_UTIL) = cfs + rt (+ dl);
    max_util from FREQUENCY_UTIL. juno_r0 util [0, 100, 0, 0, 0, 0] (the task's 100 on prev 1),
    task 100, prev 1, RT 300 on CPU 1:
    big base: CPU 1 0 + 300 -> freq 1.25 * 1100000 * 300 / 1024 = 402832 -> 450000 (391):
    391 * 300 / 1024 = 114. prev: 400 -> 537109 -> 625000 (420): 420 * 400 / 1024 = 164,
    delta 50 (without RT: 38, base 0). CPU 2 ties prev's spare capacity: not costed.
    LITTLE CPU 0: 100 -> 238228 -> 450000 (79): 79 * 100 / 446 = 17. 33 > (50 + 114) >> 4 -> 0."""
    rt = [0, 300, 0, 0, 0, 0]
    u = [0, 100, 0, 0, 0, 0]
    d = find_energy_efficient_cpu("juno_r0", u, 100, 1, era="v5.4", util_rt=rt)
    assert d.cpu[0] == 0
    assert (d.prev_energy[0], d.best_energy[0], d.base_energy[0]) == (50, 17, 114)
    d0 = find_energy_efficient_cpu("juno_r0", u, 100, 1, era="v5.4")
    assert (d0.prev_energy[0], d0.base_energy[0]) == (38, 0)


def test_thermal_pressure_caps_the_em_from_v5_14():
    """v5.14 compute_energy(): em_cpu_energy(pd, max_util, sum_util, cpu_cap - thermal pressure).
    juno_r0 [0, 568, 0, 472, 584, 0], task 360, prev 1 (v5.14 picks CPU 2, test_era_rows).
    Thermal pressure 624 on the big CPUs (allowed cap 400): prev: min(710, 400) -> 429687 ->
    450000 (391): 391 * 568 / 1024 = 216, base 79, delta 137; CPU 2: min(450, 400) -> the same
    OPP and busy time -> 137, not below 137 -> prev 1."""
    u = [0, 568, 0, 472, 584, 0]
    th = [0, 624, 624, 0, 0, 0]
    d = find_energy_efficient_cpu("juno_r0", u, 360, 1, era="v5.14", thermal_pressure=th)
    assert d.cpu[0] == 1 and d.prev_energy[0] == 137 and d.best_energy[0] == 137
    assert find_energy_efficient_cpu("juno_r0", u, 360, 1, era="v5.14").cpu[0] == 2
    # before v5.14 the EM has no allowed_cpu_cap: the input changes nothing
    a = find_energy_efficient_cpu("juno_r0", u, 360, 1, era="v5.13", thermal_pressure=th)
    b = find_energy_efficient_cpu("juno_r0", u, 360, 1, era="v5.13")
    assert (a.cpu[0], a.prev_energy[0]) == (b.cpu[0], b.prev_energy[0])


def test_runnable_boosting_from_v6_5():
    """v6.5 eenv_pd_max_util(): cpu_util(cpu, p, dst, 1) = max(util_avg, runnable_avg) +- task.
    juno_r0 util [0, 100, 0, 0, 0, 0], runnable_avg 600 on CPU 1, task 100, prev 1; v6.x costs
    are in uW x1000 (big 392008, 421217, 472230, 526156, 583000; LITTLE 80015 at 450 MHz):
    prev: max util 600 -> 750 -> 805664 -> 950000 (526156), busy 100: 526156 * 100 / 1024 =
    51382, base 0 (busy 0). v6.4: max util 100 -> 125 -> 134277 -> 450000: 392008 * 100 / 1024
    = 38282. LITTLE CPU 0: 80015 * 100 / 446 = 17940 -> CPU 0 in both."""
    u = [0, 100, 0, 0, 0, 0]
    r = [0, 600, 0, 0, 0, 0]
    a = find_energy_efficient_cpu("juno_r0", u, 100, 1, era="v6.5", runnable_avg=r)
    b = find_energy_efficient_cpu("juno_r0", u, 100, 1, era="v6.4", runnable_avg=r)
    assert (a.cpu[0], a.prev_energy[0], a.best_energy[0]) == (0, 51382, 17940)
    assert (b.cpu[0], b.prev_energy[0], b.best_energy[0]) == (0, 38282, 17940)


@pytest.mark.parametrize("kwargs, match", [
    (dict(util_rt=[0, 0, 0, 0, 0, 2000]), "util_rt"),
    (dict(util_irq=[-1, 0, 0, 0, 0, 0]), "util_irq"),
    (dict(runnable_avg=[0] * 5, era="v6.6"), "runnable_avg"),
    (dict(thermal_pressure=[0, 1024, 0, 0, 0, 0], era="v6.1"), "thermal_pressure"),
])
def test_bad_inputs_name_the_input(kwargs, match):
    kw = dict(era="v5.4")
    kw.update(kwargs)
    with pytest.raises(ModelError, match=match):
        find_energy_efficient_cpu("juno_r0", [0] * 6, 100, 1, **kw)


def test_schedutil_runnable_boosting_from_v6_5():
    """v6.5 sugov_get_util(): cpu_util_cfs_boost() = max(util_avg, runnable_avg, util_est). tc2 big
    (500..1200 MHz, cap 1024), util 100, runnable 400, no EM costs given (RELATION_L):
    v6.5: 400 + 100 = 500 -> 1200000 * 500 / 1024 = 585937 -> 600000; v6.4: 100 + 25 = 125 ->
    146484 -> 500000."""
    from lisa_eas.models import schedutil_run, schedutil_tables

    f, _, cap = schedutil_tables("tc2", "big", era="v6.4")
    assert schedutil_run([0], [100], f, capacity=cap, era="v6.5", runnable_avg=[400]).tolist() == [600000]
    assert schedutil_run([0], [100], f, capacity=cap, era="v6.4", runnable_avg=[400]).tolist() == [500000]
    with pytest.raises(ModelError, match="runnable_avg"):
        schedutil_run([0], [100], f, capacity=cap, era="v6.5", runnable_avg=[400, 1])


@pytest.mark.parametrize("era", ["v5.0", "v5.4", "v5.14", "v6.1", "v6.2", "v6.6", "v6.8", "v6.9"])
def test_inputs_kernel_matches_twin(era):
    """The numba kernel with RT/DL/IRQ, thermal pressure and runnable_avg against ref_eas, which
    applies them with its own era rules and its own Energy Model."""
    from lisa_eas import load_platform
    from reference import ref_eas

    plat = load_platform("hikey960")
    n_cpus = plat.nr_cpus
    cap = [0] * n_cpus
    for pd in plat.perf_domains:
        for c in pd.cpus:
            cap[c] = pd.cpu_capacity_max
    rng = np.random.default_rng(zlib.crc32(repr(era).encode()))     # stable across processes (not hash())
    n = 150
    ua = rng.integers(0, 500, (n, n_cpus))
    ue = rng.integers(0, 500, (n, n_cpus)) * rng.integers(0, 2, (n, n_cpus))
    tu = rng.integers(0, 400, n)
    tue = rng.integers(0, 400, n)
    prev = rng.integers(0, n_cpus, n)
    xs = {"rt": rng.integers(0, 300, (n, n_cpus)), "dl": rng.integers(0, 100, (n, n_cpus)),
          "bw_dl": rng.integers(0, 60, (n, n_cpus)), "irq": rng.integers(0, 80, (n, n_cpus)),
          "thermal": rng.integers(0, 300, (n, n_cpus)), "runnable": rng.integers(0, 900, (n, n_cpus))}
    r = find_energy_efficient_cpu(plat, ua, tu, prev, util_est=ue, task_util_est=tue, era=era, util_rt=xs["rt"],
                                  util_dl=xs["dl"], bw_dl=xs["bw_dl"], util_irq=xs["irq"],
                                  thermal_pressure=xs["thermal"], runnable_avg=xs["runnable"])
    version = tuple(int(v) for v in era[1:].split("."))
    for i in range(n):
        cpu, energies, evals, calls = ref_eas.feec_version(
            version, plat, ua[i], ue[i], int(tu[i]), int(tue[i]), int(prev[i]), [True] * n_cpus, cap,
            inputs={k: v[i] for k, v in xs.items()})
        assert r.cpu[i] == cpu, i
        for g, e in zip((r.prev_energy[i], r.best_energy[i]), energies[:2]):
            assert (np.isnan(g) and e is None) or g == e, i
        assert r.pd_evaluations[i] == evals, i
