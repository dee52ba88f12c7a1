"""Scheduler semantics of the simulator that a review found wrong, checked on purpose-built runs.

Each test builds a small scenario where the behaviour shows, checks it on the numba engine
(its output, or its state when the run is stopped at the instant of interest) and checks
that the independently written reference engine (``tests/reference/ref_sim_engine.py``)
gives the identical run:

* the EAS decision log's work counters are per decision (``find_energy_efficient_cpu``'s
  work for that wake-up, as ``lisa_eas.models.eas`` reports it), not running totals;
* a CPU going idle after being saturated accrues ``lost_idle_time``
  (``update_idle_rq_clock_pelt``, v5.1+), so the PELT signals keep matching the PELT model;
* util_est stays 0 when it is off or predates the era (< v4.17);
* a misfit migration (active balance) lets the source CPU go idle through the normal path
  (newidle balance, idle stamp, schedutil's went-idle flag);
* an rt pull takes the destination CPU out of idle (``cpu_idle`` exit, ``avg_idle``) first;
* a platform without perf domains is refused by the engine with a ``ModelError`` (``simulate``
  plans a fixed-frequency domain for it);
* a task migrated at its wake-up keeps util_est's UTIL_AVG_UNCHANGED flag (the wake-up's
  ``sync_entity_load_avg`` does not clear it and the attach does no entity update), so its
  next dequeue skips ``util_est_update`` unless an update crossed a period in between; that
  sync takes the task only to its old cfs_rq's last update (no clock of prev is updated at a
  wake-up), so it is attached with the util it had there.
"""
from __future__ import annotations

import numpy as np
import pytest
from reference.ref_sim_engine import ENGINE_DEVIATIONS, run_reference

from lisa_eas._kernels import sim_state as ss
from lisa_eas._kernels.schedutil import CS_WENT_IDLE
from lisa_eas._kernels.sim_models import AI_AVG_IDLE, AI_IDLE_STAMP
from lisa_eas.errors import ModelError
from lisa_eas.models.eas import find_energy_efficient_cpu
from lisa_eas.models.pelt import pelt_timeline
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, Run, RunTime, Sleep, periodic, task, workload
from lisa_eas.sim import SimConfig, simulate
from lisa_eas.sim._compile import compile_workload
from lisa_eas.sim._engine import build_run, run_loop
from lisa_eas.sim._output import PID_BASE

HIKEY = load_platform("hikey960")
LITTLE, BIG = 0, 4                  # HiKey960: CPUs 0-3 little, 4-7 big


def _run(wl, config, t_end_ns, plat=HIKEY):
    """The numba engine's raw run and final state, and the reference engine's raw run."""
    compiled = compile_workload(wl, plat.nr_cpus)
    S, P, O, margin = build_run(plat, compiled, config, int(t_end_ns))
    raw = run_loop(S, P, O, margin)
    # the steps where the simulator is known to differ from the kernel computed its way
    # (reference.ref_sim_engine.ENGINE_DEVIATIONS, held in test_sim_reference_engine.py)
    return raw, S, run_reference(plat, compiled, config, int(t_end_ns), deviations=tuple(ENGINE_DEVIATIONS))


def _same(fast, ref):
    for name in ("events", "activations", "eas", "res_busy", "res_idle"):
        a, b = getattr(fast, name), getattr(ref, name)
        assert a.shape == b.shape and np.array_equal(a, b), f"{name} differ between the numba and reference engines"
    assert fast.t_end == ref.t_end


def _cpu(S, c, field):
    return int(S[S[12] + c * ss.C_NFIELDS + field])


def _idle_stat(S, c, field):
    return int(S[S[56] + c * S[58] + field])


# ---------------------------------------------------------------- 1. EAS work counters per decision
def _eas_trace(placement):
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=5 + 3 * (i % 5), period_ms=16, duration_s=0.3))
                   for i in range(10)], calibration=20)
    return simulate(HIKEY, wl, config=SimConfig(placement=placement, era="v5.4"))


def _replay(dec, era):
    """``lisa_eas.models.eas`` on the logged inputs of each decision."""
    nc = HIKEY.nr_cpus

    def per_cpu(prefix):
        return dec[[f"{prefix}{c}" for c in range(nc)]].to_numpy().astype(np.int64)

    return find_energy_efficient_cpu(HIKEY, per_cpu("util_cpu"), dec["in_task_util_avg"].to_numpy(),
                                     dec["prev_cpu"].to_numpy(), util_est=per_cpu("util_est_cpu"),
                                     task_util_est=dec["in_task_util_est"].to_numpy(),
                                     allowed=per_cpu("allowed_cpu").astype(bool), capacity=per_cpu("capacity_cpu")[0],
                                     overutilized=dec["in_overutilized"].to_numpy().astype(bool), era=era)


def test_eas_work_counters_are_per_decision():
    nr_pd = len(HIKEY.perf_domains)
    pd_cpus = [len(d.cpus) for d in HIKEY.perf_domains]
    work = {}
    for placement, era in (("eas", "v5.4"), ("eas-v5.0", "v5.0")):
        dec = _eas_trace(placement).df("lisa_sim_eas_decision")
        assert len(dec) > 100
        ev, calls = dec["pd_evaluations"].to_numpy(), dec["cpu_util_computations"].to_numpy()
        # the work of each call equals the model's for the same inputs (where capacity_of is
        # the same for every decision, which holds without rt tasks)
        cap = dec[[f"capacity_cpu{c}" for c in range(HIKEY.nr_cpus)]].to_numpy()
        assert (cap == cap[0]).all()
        model = _replay(dec, era)
        np.testing.assert_array_equal(model.cpu, dec["chosen_cpu"].to_numpy())
        np.testing.assert_array_equal(model.pd_evaluations, ev)
        np.testing.assert_array_equal(model.cpu_util_computations, calls)
        work[era] = (ev, calls)
    nc = HIKEY.nr_cpus
    ev, calls = work["v5.4"]
    # v5.4 (O(n)): per perf domain one base energy, at most one for prev and one for the CPU of
    # max spare capacity; each evaluation computes one cpu_util per CPU of the domain, after the
    # scan for the CPU of max spare capacity (one per CPU)
    assert (ev >= nr_pd).all() and (ev <= 3 * nr_pd).all()
    assert (calls <= nc + 3 * sum(pd_cpus)).all()
    # v5.0 (O(n^2)): compute_energy() over every domain for prev and each candidate
    ev50, calls50 = work["v5.0"]
    assert (ev50 % nr_pd == 0).all() and (ev50 <= nr_pd * (1 + nr_pd)).all()
    assert (calls50 == nc + (ev50 // nr_pd) * nc).all()
    # small counts per decision, never running totals
    assert calls.max() <= 4 * nc and calls50.max() <= (2 + nr_pd) * nc


# ---------------------------------------------------------------- 2. lost idle time
def _flat_out_then_sleep():
    return workload([task("sat", [Phase(name="s", events=(RunTime(1_000_000), Sleep(300_000)), loop=2)],
                          cpus=[BIG])], calibration=20)


def _task_states(trace, pid, times):
    """State (0 sleeping, 1 runnable, 2 running) of ``pid`` after each of ``times``."""
    sw = trace.df("sched_switch")
    wk = trace.df("sched_wakeup")
    ev = []
    for t, nxt, prv, pst in zip(sw["__ts"], sw["next_pid"], sw["prev_pid"], sw["prev_state"]):
        if nxt == pid:
            ev.append((t, 1, 2))
        elif prv == pid:
            ev.append((t, 1, 0 if pst else 1))
    ev += [(t, 0, 1) for t in wk.loc[wk["pid"] == pid, "__ts"]]
    ev.sort()
    et = np.array([e[0] for e in ev])
    es = np.array([e[2] for e in ev])
    idx = np.searchsorted(et, times, side="right") - 1
    return np.where(idx >= 0, es[np.maximum(idx, 0)], 0)


@pytest.mark.parametrize("governor, saturated", [("powersave", True), ("performance", False)])
def test_lost_idle_time_of_a_saturated_cpu(governor, saturated):
    cfg = SimConfig(governor=governor, placement="no-eas", era="v5.4")
    # the task's signals equal the PELT model's (which accounts the lost idle time) on its timeline
    trace = simulate(HIKEY, _flat_out_then_sleep(), config=cfg)
    pd = HIKEY.domain_of(BIG)
    opp = pd.opps[0] if governor == "powersave" else pd.opps[-1]
    tu = trace.df("lisa_sim_task_util")
    times = tu["__ts"].to_numpy()
    states = _task_states(trace, PID_BASE, times)
    model = pelt_timeline(np.concatenate([[0], times]), np.concatenate([[0], states]),
                          cpu_capacity=pd.cpu_capacity_max, freq_scale=opp.freq_khz * 1024 // pd.fmax_khz,
                          era="v5.4", util_avg=int(tu["util_avg"].iloc[0]))
    keep = times < times[-1]
    assert keep.sum() > 500
    cols = ["util_avg", "util_est_ewma", "util_est_enqueued"]
    np.testing.assert_array_equal(tu[cols].to_numpy()[keep], model[cols].to_numpy()[1:][keep])
    # the lost time itself, in the numba engine's state; the reference engine agrees
    raw, S, ref = _run(_flat_out_then_sleep(), cfg, 3e9)
    _same(raw, ref)
    lost = _cpu(S, BIG, ss.C_LOST_IDLE)
    if saturated:
        # at the lowest OPP the PELT clock runs at (f_min / f_max) of wall time while busy: the
        # difference is lost at each of the two idle entries after a saturated second
        scale = pd.opps[0].freq_khz * 1024 // pd.fmax_khz
        assert 2 * 0.9e9 * (1024 - scale) / 1024 < lost < 2 * 1.0001e9 * (1024 - scale) / 1024
    else:
        assert lost == 0
    assert all(_cpu(S, c, ss.C_LOST_IDLE) == 0 for c in range(HIKEY.nr_cpus) if c != BIG)


def test_no_lost_idle_time_with_delta_scaling():
    raw, S, ref = _run(_flat_out_then_sleep(), SimConfig(governor="powersave", placement="no-eas", era="v5.0"), 3e9)
    _same(raw, ref)
    assert _cpu(S, BIG, ss.C_LOST_IDLE) == 0


# ---------------------------------------------------------------- 3. util_est off
@pytest.mark.parametrize("config", [SimConfig(util_est=False), SimConfig(era="v4.14", placement="no-eas")],
                         ids=["util_est-off", "v4.14"])
def test_util_est_stays_zero_without_util_est(config):
    wl = workload([task(f"t{i}", periodic(duty_cycle_pct=10 + 20 * i, period_ms=16, duration_s=0.3))
                   for i in range(3)], calibration=20)
    raw, _, ref = _run(wl, config, 0.3e9)
    _same(raw, ref)
    trace = simulate(HIKEY, wl, config=config)
    tu = trace.df("lisa_sim_task_util")
    assert len(tu) > 100 and tu["util_avg"].max() > 100
    assert (tu["util_est_ewma"] == 0).all() and (tu["util_est_enqueued"] == 0).all()
    assert (trace.df("lisa_sim_cpu_util")["util_est_enqueued"] == 0).all()
    # with util_est on, the same workload has estimates
    on = simulate(HIKEY, wl, config=SimConfig()).df("lisa_sim_task_util")
    assert on["util_est_ewma"].max() > 100


# ---------------------------------------------------------------- 4. misfit migration
def _misfit_workload():
    """A task grows on a little CPU (pinned), then may go anywhere: the balancer's misfit path
    moves it to an idle big CPU while it runs."""
    return workload([task("h", [Phase(name="p", events=(Run(100_000),), loop=1, cpus=(LITTLE,)),
                                Phase(name="q", events=(RunTime(200_000),), loop=1, cpus=tuple(range(8)))])],
                    calibration=20)


def test_misfit_migration_source_goes_idle_through_the_normal_path():
    cfg = SimConfig(placement="no-eas")
    raw, _, ref = _run(_misfit_workload(), cfg, 0.5e9)
    _same(raw, ref)
    ev = raw.events
    mig = ev[(ev[:, ss.E_KIND] == ss.EV_MIGRATE) & (ev[:, ss.E_C] == 2)]
    assert len(mig) == 1
    tm, dst, src = int(mig[0, ss.E_TIME]), int(mig[0, ss.E_CPU]), int(mig[0, ss.E_B])
    assert src == LITTLE and dst >= BIG
    at = ev[ev[:, ss.E_TIME] == tm]
    # the source switches to idle and enters an idle state at the migration time
    assert ((at[:, ss.E_KIND] == ss.EV_SWITCH) & (at[:, ss.E_CPU] == src) & (at[:, ss.E_C] == -1)).any()
    assert ((at[:, ss.E_KIND] == ss.EV_IDLE) & (at[:, ss.E_CPU] == src) & (at[:, ss.E_A] >= 0)).any()
    # stopped right after the balance at tm: went_idle ran (idle stamp, schedutil's flag)
    _, S, _ = _run(_misfit_workload(), cfg, tm)
    assert _idle_stat(S, src, AI_IDLE_STAMP) == tm
    assert _cpu(S, src, ss.C_CURR) == -1
    d = HIKEY.perf_domains.index(HIKEY.domain_of(src))
    j = list(HIKEY.domain_of(src).cpus).index(src)
    assert S[S[36] + (d * S[38] + j) * S[39] + CS_WENT_IDLE] == 1


# ---------------------------------------------------------------- 5. rt pull out of idle
def _rt_workload():
    """A low-priority FIFO task allowed on CPUs 0-1, preempted there by pinned higher-priority
    FIFO tasks: it waits while the other CPU idles, until the balancer pulls it."""
    b = task("b", [Phase(name="b", events=(RunTime(30000), Sleep(10000)), loop=-1)], cpus=[0, 1],
             policy="SCHED_FIFO", priority=10)
    a = task("a", [Phase(name="a", events=(RunTime(5000), Sleep(13000)), loop=-1)], cpus=[0],
             policy="SCHED_FIFO", priority=50)
    c = task("c", [Phase(name="c", events=(RunTime(4000), Sleep(17000)), loop=-1)], cpus=[1],
             policy="SCHED_FIFO", priority=50)
    return workload([b, a, c], calibration=20)


def test_rt_pull_takes_the_destination_out_of_idle_first():
    cfg = SimConfig(placement="no-eas")
    raw, _, ref = _run(_rt_workload(), cfg, 0.3e9)
    _same(raw, ref)
    ev = raw.events
    rows = np.flatnonzero((ev[:, ss.E_KIND] == ss.EV_MIGRATE) & (ev[:, ss.E_C] == 1) & (ev[:, ss.E_A] == 0))

    def dst_was_idle(i):          # dst had switched to idle before (periodic balance, not newidle)
        sw = ev[:i][(ev[:i, ss.E_KIND] == ss.EV_SWITCH) & (ev[:i, ss.E_CPU] == ev[i, ss.E_CPU])]
        return sw[-1, ss.E_C] == -1 and sw[-1, ss.E_TIME] < ev[i, ss.E_TIME]

    from_idle = [i for i in rows if dst_was_idle(i)]
    assert len(from_idle) >= 3
    for i in from_idle:
        t, dst = ev[i, ss.E_TIME], ev[i, ss.E_CPU]
        before = ev[:i]
        exits = before[(before[:, ss.E_KIND] == ss.EV_IDLE) & (before[:, ss.E_CPU] == dst)]
        assert exits[-1, ss.E_TIME] == t and exits[-1, ss.E_A] == -1, "cpu_idle exit of dst before the pull"
    # avg_idle of dst is updated at the pull (exit_idle), from its value just before
    t = int(ev[from_idle[0], ss.E_TIME])
    dst = int(ev[from_idle[0], ss.E_CPU])
    _, s0, _ = _run(_rt_workload(), cfg, t - 1)
    _, s1, _ = _run(_rt_workload(), cfg, t)
    avg, stamp = _idle_stat(s0, dst, AI_AVG_IDLE), _idle_stat(s0, dst, AI_IDLE_STAMP)
    assert _cpu(s0, dst, ss.C_CURR) == -1
    assert _idle_stat(s1, dst, AI_AVG_IDLE) == min(avg + ((t - stamp - avg) >> 3), 1_000_000)


# ---------------------------------------------------------------- 6. no perf domains
def test_platform_without_perf_domains_needs_the_fixed_frequency_plan():
    """The engine itself refuses a board without perf domains; ``simulate`` runs it through
    ``sim._fixed.plan_platform`` (tests/test_sim_fixed_platform.py)."""
    plat = load_platform("x86_llc112")
    assert not plat.perf_domains
    wl = workload([task("t", periodic(duty_cycle_pct=10, period_ms=16, duration_s=0.1))], calibration=20)
    compiled = compile_workload(wl, plat.nr_cpus)
    for call in (lambda: build_run(plat, compiled, SimConfig(), 10**8),
                 lambda: run_reference(plat, compiled, SimConfig(), 10**8)):
        with pytest.raises(ModelError, match=r"'x86_llc112' has no perf domains \(no OPPs\)"):
            call()
    assert simulate(plat, wl).metadata["platform_model"]["frequency"].startswith("fixed")


# ---------------------------------------------------------------- 7. util_est after a wake-up migration
def _migrating_wakeup_workload():
    """``a`` (HiKey960's little CPUs 0-1) runs 300 us every 10 ms. Its util (417 at 10 ms) does
    not fit a little CPU (1280/1024 margin), so its wake-ups take select_idle_capacity(), which
    scans from prev + 1: it moves 1 -> 0 at 10 ms and 0 -> 1 at 20 ms. ``b``, pinned on CPU 0,
    is busy from 25 ms on, so at 30 ms ``a`` stays on CPU 1."""
    a = task("a", [Phase(name="a", events=(RunTime(300), Sleep(9700)), loop=8)], cpus=[0, 1])
    b = task("b", [Phase(name="b", events=(Sleep(25000), RunTime(60000)), loop=1)], cpus=[0])
    return workload([a, b], calibration=20)


@pytest.mark.parametrize("era", ["v6.18", "v6.6"])
def test_a_wakeup_migration_keeps_the_util_est_flag(era):
    raw, _, ref = _run(_migrating_wakeup_workload(), SimConfig(placement="no-eas", era=era), 0.1e9)
    _same(raw, ref)
    ev = raw.events
    mig = ev[(ev[:, ss.E_KIND] == ss.EV_MIGRATE) & (ev[:, ss.E_A] == 0) & (ev[:, ss.E_TIME] > 0)]
    # a's wake-ups at 10 ms (CPU 1 -> 0) and 20 ms (0 -> 1) move it; at 30 ms it stays on CPU 1
    assert [(int(r[ss.E_TIME]), int(r[ss.E_B]), int(r[ss.E_CPU]), int(r[ss.E_C])) for r in mig] == \
        [(10_000_000, 1, 0, 0), (20_000_000, 0, 1, 0)]
    tu = ev[(ev[:, ss.E_KIND] == ss.EV_TASK_UTIL) & (ev[:, ss.E_A] == 0)]
    cu = ev[ev[:, ss.E_KIND] == ss.EV_CPU_UTIL]
    sy = ev[(ev[:, ss.E_KIND] == ss.EV_TASK_SYNC) & (ev[:, ss.E_A] == 0) & (ev[:, ss.E_TIME] <= 30_000_000)]

    def last(t, col):
        return int(tu[tu[:, ss.E_TIME] == t][-1, col])
    est = {t: last(t, ss.E_C) & 0x7FFFFFFF for t in (300_000, 10_300_000, 20_300_000, 30_300_000)}
    # Worked from kernel/sched/fair.c: select_idle_capacity() and migrate_task_rq_fair() call
    # sync_entity_load_avg(), which decays the sleeping task only to cfs_rq_last_update_time() of
    # the cfs_rq it slept on; try_to_wake_up() updates no clock of prev. CPU 1, idle since a's
    # dequeue at 0.3 ms, was last updated by the blocked-load update of the balance pass at 8 ms:
    # its last_update_time advanced in whole 1024-ns steps from 0, to 7812 * 1024 ns; a is that
    # cfs_rq's only task, so both signals decayed over the same periods from the same sum, and a
    # is attached to CPU 0 with the util its cfs_rq showed at 8 ms: 434 (decayed to 10 ms it would
    # be 417). Likewise at 20 ms, to CPU 0's last update at 16 ms (15625 * 1024 ns), and at 30 ms
    # to CPU 1's at 28 ms.
    assert [(int(r[ss.E_TIME]), int(r[ss.E_CPU]), int(r[ss.E_B])) for r in sy] == \
        [(10_000_000, 1, 7812 * 1024), (20_000_000, 0, 15625 * 1024), (30_000_000, 1, 27999232)]
    cpu1_8ms = cu[(cu[:, ss.E_TIME] == 8_000_000) & (cu[:, ss.E_CPU] == 1)]
    assert int(cpu1_8ms[-1, ss.E_A]) == last(10_000_000, ss.E_B) == 434
    # 300 us of running after each migration crossed no period boundary (util_avg unchanged from
    # the enqueue to the dequeue)
    assert last(10_000_000, ss.E_B) == last(10_300_000, ss.E_B)
    # Worked by hand from kernel/sched/fair.c and pelt.c (v4.17+): the wake-up's
    # sync_entity_load_avg is __update_load_avg_blocked_se (no cfs_se_util_change) and the enqueue
    # on the new CPU attaches the entity with no update, so UTIL_AVG_UNCHANGED, set by the
    # estimate at 0.3 ms (512), still stands at the dequeues at 10.3 and 20.3 ms: util_est_update
    # returns early, the estimate stays 512 (updating there: ((512 << 2) - (512 - 434)) >> 2 = 492)
    assert est[300_000] == est[10_300_000] == est[20_300_000] == 512
    # woken on its previous CPU at 30 ms: the sync to 28 ms is blocked, then the enqueue's
    # __update_load_avg_se ages 28 -> 30 ms, crosses a period and clears the flag; at 30.3 ms
    # util_avg is 315: ((512 << 2) - (512 - 315)) >> 2 = 462
    assert last(30_300_000, ss.E_B) == 315
    assert est[30_300_000] == ((512 << 2) - (512 - 315)) >> 2 == 462


def test_a_migrated_tasks_util_stays_on_its_old_cfs_rq_until_that_updates():
    """kernel/sched/fair.c: remove_entity_load_avg() only adds the task's util to
    ``cfs_rq->removed``; update_cfs_rq_load_avg() takes it out at that cfs_rq's next update,
    before its decay (at any delta). In the scene above, stopped at 9 ms (the run's end brings
    every runqueue to 9 ms), a sleeps on idle CPU 1, the cfs_rq's only task; synced to that
    cfs_rq's last update, a shows the cfs_rq's own 425. The engine's remove_task_avg (as a wake-up
    migration calls it) leaves the cfs_rq at 425 with 425 pending (a reader in between counts a
    on CPU 1 too); the next update, here at 9 ms (delta 0), takes 425 off first: 0. Taking it at
    once, as the simulator did, left 0 at the removal."""
    from lisa_eas._kernels.pelt import SA_UTIL_AVG
    from lisa_eas._kernels.sim_layout import S_CFS_PELT, S_CFS_PELT_W, S_TASK_PELT, S_TASK_PELT_W
    from lisa_eas._kernels.sim_sched import remove_task_avg, sync_entity_load_avg, update_rq_avgs

    compiled = compile_workload(_migrating_wakeup_workload(), HIKEY.nr_cpus)
    S, P, O, margin = build_run(HIKEY, compiled, SimConfig(placement="no-eas", era="v6.18"), 9_000_000)
    run_loop(S, P, O, margin)

    def cfs_util(c):
        return int(S[S[S_CFS_PELT] + c * S[S_CFS_PELT_W] + SA_UTIL_AVG])
    sync_entity_load_avg(0, S, P)         # as the wake-up's remove_entity_load_avg does
    assert int(S[S[S_TASK_PELT] + 0 * S[S_TASK_PELT_W] + SA_UTIL_AVG]) == cfs_util(1) == 425
    remove_task_avg(0, 1, S, P)
    assert cfs_util(1) == 425 and (_cpu(S, 1, ss.C_REMOVED_UTIL), _cpu(S, 1, ss.C_REMOVED_NR)) == (425, 1)
    update_rq_avgs(1, 9_000_000, S, P)
    assert cfs_util(1) == 0 and (_cpu(S, 1, ss.C_REMOVED_UTIL), _cpu(S, 1, ss.C_REMOVED_NR)) == (0, 0)


def test_a_frequency_change_leaves_an_idle_runqueue_as_last_updated():
    """A frequency change updates no runqueue in the kernel (cpufreq_driver_fast_switch /
    the schedutil kthread touch no rq clock); the engine brings a busy CPU up to date to
    integrate its busy time at the frequency it ran at, and must leave an idle one as it was:
    its blocked util is read by placement and schedutil meanwhile. In the scene above, stopped at
    25.1 ms, b runs on CPU 0 and CPU 1 is idle (a asleep). A frequency change of the LITTLE
    domain at 25.5 ms advances CPU 0's cfs_rq and leaves CPU 1's last_update_time and util_avg
    as they were (the engine used to decay it to 25.5 ms)."""
    from lisa_eas._kernels.pelt import SA_LAST_UPDATE, SA_UTIL_AVG
    from lisa_eas._kernels.sim_governor import apply_opp
    from lisa_eas._kernels.sim_layout import S_CFS_PELT, S_CFS_PELT_W, S_DOMAINS

    compiled = compile_workload(_migrating_wakeup_workload(), HIKEY.nr_cpus)
    S, P, O, margin = build_run(HIKEY, compiled, SimConfig(placement="no-eas", era="v6.18"), 25_100_000)
    run_loop(S, P, O, margin)
    assert _cpu(S, 0, ss.C_CURR) == 1 and _cpu(S, 1, ss.C_CURR) == -1

    def cfs(c, field):
        return int(S[S[S_CFS_PELT] + c * S[S_CFS_PELT_W] + field])
    before = [(cfs(c, SA_LAST_UPDATE), cfs(c, SA_UTIL_AVG)) for c in (0, 1)]
    opp = int(S[S[S_DOMAINS] + 0 * ss.P_NFIELDS + ss.P_OPP])
    apply_opp(0, 0 if opp else 1, 25_500_000, S, P, O)
    assert (cfs(1, SA_LAST_UPDATE), cfs(1, SA_UTIL_AVG)) == before[1]
    assert cfs(0, SA_LAST_UPDATE) > before[0][0]
