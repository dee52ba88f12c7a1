"""The v4.16 - v4.19 balancer's pure helpers (``sim_lb``): ``nohz_balancer_kick()``'s conditions
(``nohz_kick_wanted``) and the balance intervals, worked by hand from kernel/sched/fair.c of v4.19
(0x88888888/Linux-4.19) and its topology.c ``sd_init``. The kick: on a busy CPU's tick,
with some CPU idle and ``nohz.next_balance`` passed, the idle load balance is kicked when

1. ``rq->nr_running >= 2`` (CFS and RT tasks alike), else
2. ``atomic_read(&sds->nr_busy_cpus) > 1`` for the CPU's LLC (``sd_llc_shared``), else
3. ``rq->cfs.h_nr_running >= 1 && check_cpu_capacity(rq, rq->sd)``, where
   ``check_cpu_capacity`` is ``rq->cpu_capacity * sd->imbalance_pct < rq->cpu_capacity_orig * 100``
   and ``rq->sd`` is the CPU's lowest domain: MC (``imbalance_pct`` 117, ``sd_init`` with
   SD_SHARE_PKG_RESOURCES) when its LLC has more than one CPU, else DIE (125).

``rq->cpu_capacity`` is ``capacity_of``: capacity_orig less the RT utilization (``scale_rt_capacity``).
"""
import pytest

from lisa_eas._kernels.sim_lb import nohz_kick_wanted


@pytest.mark.parametrize("nr, h_nr, busy_llc, llc_weight, cap, cap_orig, kick, why", [
    # 1. two tasks on the runqueue: a CFS task and an RT task count alike
    (2, 1, 1, 4, 446, 446, True, "nr_running 2"),
    (2, 0, 1, 4, 446, 446, True, "two RT tasks: nr_running 2"),
    # 2. one task, but another CPU of its LLC busy too: nr_busy_cpus 2 > 1
    (1, 1, 2, 4, 446, 446, True, "nr_busy_cpus 2"),
    # one CFS task, the only busy CPU of its LLC, full capacity: 446 * 117 = 52182 >= 44600
    (1, 1, 1, 4, 446, 446, False, "alone, full capacity"),
    # 3. Juno r0 LITTLE (capacity_orig 446, LLC of 4 CPUs: rq->sd = MC, 117): 446 * 100 = 44600;
    #    RT util_avg 65 -> capacity 381: 381 * 117 = 44577 < 44600 -> kick
    (1, 1, 1, 4, 381, 446, True, "LITTLE capacity 381 of 446 (MC 117)"),
    #    RT util_avg 64 -> capacity 382: 382 * 117 = 44694 >= 44600 -> no kick
    (1, 1, 1, 4, 382, 446, False, "LITTLE capacity 382 of 446 (MC 117)"),
    #    Juno r0 big (1024, LLC of 2 CPUs: MC 117): 102400; 875 * 117 = 102375 < 102400, 876 * 117 = 102492
    (1, 1, 1, 2, 875, 1024, True, "big capacity 875 (MC 117)"),
    (1, 1, 1, 2, 876, 1024, False, "big capacity 876 (MC 117)"),
    #    a CPU alone in its LLC: rq->sd = DIE, 125: 819 * 125 = 102375 < 102400, 820 * 125 = 102500
    (1, 1, 1, 1, 819, 1024, True, "single-CPU LLC capacity 819 (DIE 125)"),
    (1, 1, 1, 1, 820, 1024, False, "single-CPU LLC capacity 820 (DIE 125); with MC's 117 it would kick"),
    #    the capacity test needs a CFS task: an RT task alone on a pressured CPU kicks nothing
    (1, 0, 1, 4, 100, 446, False, "RT only, h_nr_running 0"),
])
def test_nohz_balancer_kick_conditions(nr, h_nr, busy_llc, llc_weight, cap, cap_orig, kick, why):
    assert nohz_kick_wanted(nr, h_nr, busy_llc, llc_weight, cap, cap_orig) is kick, why


@pytest.mark.parametrize("ms, busy, nr_cpus, want", [
    (4, False, 6, 1), (6, False, 6, 2), (4, True, 6, 32), (6, True, 6, 48), (12, True, 6, 96), (24, True, 6, 150),
])
def test_simulator_balance_interval_in_jiffies(ms, busy, nr_cpus, want):
    """``sim_lb.lb_interval_j`` = ``get_sd_balance_interval`` at HZ 250 (tick 4 ms), the numbers of
    tests/test_ref_lb_v4.py worked from v4.19: ms * busy_factor 32 when busy, msecs_to_jiffies
    rounding up, clamped to HZ * CPUs / 10 = 150 on Juno r0."""
    from lisa_eas._kernels.sim_lb import lb_interval_j
    assert lb_interval_j(ms, busy, 4_000_000, nr_cpus) == want


def test_simulator_balance_interval_after_each_outcome():
    """``sim_lb.lb_interval_after``: min_interval after a move or a failure without the stopper,
    doubled up to 2 * sd_weight after out_balanced or a started stopper, up to 512 ms when every
    task was pinned (load_balance() of v4.19)."""
    from lisa_eas._kernels import sim_lb as L
    assert L.lb_interval_after(L.LBO_MOVED, 8, 4) == 4
    assert L.lb_interval_after(L.LBO_FAILED, 8, 4) == 4
    assert L.lb_interval_after(L.LBO_BALANCED, 4, 4) == 8
    assert L.lb_interval_after(L.LBO_BALANCED, 8, 4) == 8
    assert L.lb_interval_after(L.LBO_ACTIVE, 6, 6) == 12
    assert L.lb_interval_after(L.LBO_PINNED, 8, 4) == 16
    assert L.lb_interval_after(L.LBO_PINNED, 256, 4) == 512
    assert L.lb_interval_after(L.LBO_PINNED, 512, 4) == 512
