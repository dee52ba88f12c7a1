"""Hand-checked legacy governors in the closed-loop simulator: ondemand, interactive, schedfreq.

One task pinned to HiKey960's CPU 4 (big cluster, OPPs 903/1421/1805/2112/2362 MHz), the
other CPUs of the cluster idle, so the policy follows that CPU alone. ``runtime`` events are
wall time, so the busy timeline is known exactly whatever the frequency.
"""
from __future__ import annotations

import numpy as np
import pytest
from reference import ref_governors

from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, Run, RunTime, Sleep, Timer, task, workload
from lisa_eas.sim import SimConfig, simulate

PLAT = load_platform("hikey960")
BIG = [o.freq_khz for o in PLAT.domain_of(4).opps]
FMIN, FMAX = BIG[0], BIG[-1]
MS = 1_000_000


def _freq_changes(trace, cpu=4):
    """(time ns, kHz) of each frequency change of ``cpu`` (the initial frequency left out)."""
    f = trace.df("cpu_frequency")
    f = f[f["cpu_id"] == cpu].iloc[1:]
    return list(zip(f["__ts"].tolist(), f["state"].tolist()))


def _one_task(events, policy=None, duration_s=0.3, loop=1):
    ph = Phase(name="p", events=tuple(events), loop=loop)
    return workload([task("solo", [ph], cpus=[4], policy=policy, priority=10 if policy else None)],
                    calibration=20)


def _sim(wl, governor, duration_s=0.3, **tunables):
    return simulate(PLAT, wl, config=SimConfig(governor=governor, placement="no-eas", duration_s=duration_s,
                                               governor_tunables=tunables))


def test_ondemand_jumps_to_max_above_up_threshold_then_scales_with_load():
    # busy 0..25 ms. Samples every 10 ms: 100 % (> 95) at 10 and 20 ms -> max; 50 % at 30 ms ->
    # fmin + 50 % of the range, closest OPP; 0 % at 40 ms -> fmin. The samples at 30 and 40 ms
    # fall while the policy is idle: the kernel takes none then (test_ondemand_idle_defers_sample_
    # switch), so these load arithmetic checks run on the free-running grid (idle_defers_sample 0)
    tr = _sim(_one_task([RunTime(25_000), Sleep(500_000)]), "ondemand", idle_defers_sample=0)
    mid = ref_governors.rel_c(BIG, FMIN + 50 * (FMAX - FMIN) // 100)
    assert _freq_changes(tr) == [(10 * MS, FMAX), (30 * MS, mid), (40 * MS, FMIN)]
    # sampling_down_factor 4: after the jump to max the next sample is 40 ms later (at 50 ms):
    # busy 15 of 40 ms -> load 37
    tr = _sim(_one_task([RunTime(25_000), Sleep(500_000)]), "ondemand", sampling_down_factor=4,
              idle_defers_sample=0)
    low = ref_governors.rel_c(BIG, FMIN + 37 * (FMAX - FMIN) // 100)
    assert _freq_changes(tr)[:2] == [(10 * MS, FMAX), (50 * MS, low)]
    # up_threshold 60: a 50 % load does not jump; it asks for fmin + 50 %
    tr = _sim(_one_task([RunTime(5_000), Sleep(5_000)], loop=30), "ondemand", up_threshold=60)
    assert _freq_changes(tr)[0] == (10 * MS, mid)


def test_interactive_goes_to_hispeed_and_holds_min_sample_time():
    # busy 0..30 ms, 20 ms timers: load 100 % >= go_hispeed_load 99 at 20 ms -> hispeed_freq
    # (= max); at 40/60/80 ms the load is lower but the floor is held for min_sample_time
    # (80 ms from 20 ms), so the frequency drops to fmin at 100 ms.
    tr = _sim(_one_task([RunTime(30_000), Sleep(500_000)]), "interactive")
    assert _freq_changes(tr) == [(20 * MS, FMAX), (100 * MS, FMIN)]
    # min_sample_time 0: at 40 ms the load (10 of 20 ms at max) gives choose_freq's pick
    tr = _sim(_one_task([RunTime(30_000), Sleep(500_000)]), "interactive", min_sample_time_us=0)
    loadadjfreq = (10_000 * FMAX // 20_000) * 100
    pick = ref_governors.choose_freq(BIG, FMAX, loadadjfreq, 90)
    assert _freq_changes(tr)[:2] == [(20 * MS, FMAX), (40 * MS, pick)]
    # hispeed_freq 1805000: the first jump goes there, and above_hispeed_delay (20 ms) gates
    # going higher: the next timer (40 ms, still 100 % busy) may then raise it
    tr = _sim(_one_task([RunTime(60_000), Sleep(500_000)]), "interactive", hispeed_freq=1805000)
    ch = _freq_changes(tr)
    assert ch[0] == (20 * MS, 1805000) and ch[1][0] == 40 * MS and ch[1][1] > 1805000


def _margined_pick(util, ue, rt, cap=1024):
    """schedfreq's pick for one active CPU: (cfs + rt) * 1.25, x policy.max >> 10, RELATION_L."""
    cfs = min(max(util, ue), cap) * 1024 // cap
    total = (cfs + min(rt * 1024 // cap, 1024)) * 1280 // 1024
    return ref_governors.rel_l(BIG, total * FMAX >> 10)


@pytest.mark.parametrize("policy", [None, "SCHED_FIFO"])
def test_schedfreq_requests_margined_capacity_and_is_throttled(policy):
    # a 40 % task: 4 ms of work (at capacity 1024) every 10 ms; at fmin it needs 10.5 ms
    # RT: the slides' sched_time_avg_ms 50 (with the kernel default 1000 the RT request stays
    # below FMIN's capacity for the whole 0.6 s, see test_schedfreq_rt_request_follows_sched_time_avg_ms)
    tun = {"sched_time_avg_ms": 50} if policy else {}
    tr = _sim(_one_task([Run(4_000), Timer(10_000)], policy=policy, loop=60), "schedfreq", duration_s=0.6, **tun)
    ch = _freq_changes(tr)
    if policy is not None:
        # the RT request is the 2016 series' rt_avg (sched_rt_update_capacity_req, refreshed at
        # ticks): at FMIN the task needs 10.5 ms per 10 ms period, so it runs without a break and
        # the request builds up as in test_schedfreq_rt_request_follows_sched_time_avg_ms: first
        # change at 68 ms to 1421 MHz. There it needs 4 * 2362 / 1421 = 6.6 ms per 10 ms at
        # arch_scale_freq_capacity 616: rt_avg settles near 0.66 * 616 = 407 -> x1.25 = 509 ->
        # 1174 MHz -> RELATION_L 1421 MHz again: no further change.
        assert ch == [(68 * MS, 1421000)]
        return
    assert len(ch) >= 3
    t = np.array([c[0] for c in ch])
    # throttled: two changes at least throttle_us (50 ms) apart
    assert (np.diff(t) >= 50 * MS).all()
    # each change made at a scheduler update (not a latched one) picks the margined request of
    # the CPU's utilization at that update
    cu = tr.df("lisa_sim_cpu_util")
    cu = cu[cu["cpu"] == 4]
    checked = 0
    for k, (ts, f) in enumerate(ch):
        if k and ts == ch[k - 1][0] + 50 * MS:
            continue            # a request latched by the throttle, applied when it expired
        rows = cu[cu["__ts"] == ts]
        picks = {_margined_pick(r.util_avg, r.util_est_enqueued, r.rt_util_avg) for r in rows.itertuples()}
        assert f in picks, (ts, f, rows)
        checked += 1
    assert checked >= 2
    if policy is None:
        # a new CFS task starts with half the CPU's capacity: 512 * 1.25 = 640 -> 1476 MHz -> 1805 MHz
        assert ch[0] == (0, 1805000)
        # then settles at 40 % * 1.25 = 50 % of the capacity: 1181 MHz -> RELATION_L 1421 MHz
        assert [f for t_, f in ch if t_ <= 300 * MS][-1] == 1421000


def test_schedfreq_throttle_tunable():
    tr = _sim(_one_task([Run(4_000), Timer(10_000)], loop=60), "schedfreq", duration_s=0.6, throttle_us=10_000)
    t = np.array([c[0] for c in _freq_changes(tr)])
    assert (np.diff(t) >= 10 * MS).all() and (np.diff(t) < 50 * MS).any()


@pytest.mark.parametrize("governor", ["ondemand", "interactive"])
def test_sampling_governors_see_rt_busy_time_like_cfs(governor):
    """ondemand and interactive measure CPU busy time, whatever the scheduling class (ondemand's
    work item starvation by the RT task switched off: ``work_starved_by_rt`` 0). ondemand's
    sleeps are 15 ms: its sample held while the CPU is idle runs at the wake-up (of a CFS or an
    RT task alike) and sees 15 ms idle of 20 (load 25: the frequency drops), not the more than 2
    sampling periods of idle after which ``dbs_update()`` reuses the previous load (100)."""
    tun = {"work_starved_by_rt": 0} if governor == "ondemand" else {}
    sleep = 15_000 if governor == "ondemand" else 60_000
    cfs = _sim(_one_task([RunTime(45_000), Sleep(sleep)], loop=4), governor, duration_s=0.5, **tun)
    rt = _sim(_one_task([RunTime(45_000), Sleep(sleep)], policy="SCHED_FIFO", loop=4), governor, duration_s=0.5,
              **tun)
    assert _freq_changes(cfs) == _freq_changes(rt) and len(_freq_changes(cfs)) >= 2


def test_ondemand_sample_waits_for_the_rt_task_to_leave_its_cpu():
    """v4.5 cpufreq_governor.c: dbs_timer_handler() (a deferrable timer) queue_work(system_wq)s
    the sample on its own CPU; dbs_work_handler() runs in a SCHED_NORMAL kworker, which a
    SCHED_FIFO task on that CPU keeps off it (v4.6+: dbs_irq_work -> schedule_work_on(this CPU)).

    A FIFO task busy 0-45 ms (wall time), asleep 62 ms, busy again 107-152 ms; sampling 10 ms.
    The samples due at 10..40 ms wait; the work runs when the task blocks at 45 ms: elapsed
    45000 us, idle 0 -> load 100 > 95 -> FMAX. 55 ms: idle 10 ms of 10 -> load 0 -> FMIN.
    Samples 65..105 ms see an idle CPU (FMIN, no change); 115 ms waits for the block at 152 ms:
    elapsed 152 - 105 = 47000 us, idle 2000 (105-107 ms) -> load 100 * 45000 // 47000 = 95, not
    above 95 -> FMIN + 95 % of (FMAX - FMIN) = 2289050 kHz -> closest OPP 2362000 (FMAX).
    Without the starvation the first sample (10 ms, load 100) already goes to FMAX.

    The samples at 55..105 ms fall on an idle CPU, which the kernel's deferrable timer (v4.5) /
    update hook (v4.6+) does not sample (``idle_defers_sample``, the default): the arithmetic
    above runs on the free-running grid (``idle_defers_sample`` 0), to hold the starvation alone.
    With the default: 45 ms -> FMAX as above; 55 ms held (idle); the wake-up at 107 ms queues the
    work, which the FIFO task starves until it blocks at 152 ms: elapsed 107000 us, idle 62000 >
    2 * 10000 with prev_load 100 -> load 100 reused once -> FMAX, no change."""
    wl = _one_task([RunTime(45_000), Sleep(62_000)], policy="SCHED_FIFO", loop=2)
    assert _freq_changes(_sim(wl, "ondemand", duration_s=0.2)) == [(45 * MS, FMAX)]
    ch = _freq_changes(_sim(wl, "ondemand", duration_s=0.2, idle_defers_sample=0))
    assert ch[:3] == [(45 * MS, FMAX), (55 * MS, FMIN), (152 * MS, FMAX)]
    assert ref_governors.rel_c(BIG, FMIN + 95 * (FMAX - FMIN) // 100) == FMAX
    off = _freq_changes(_sim(wl, "ondemand", duration_s=0.2, work_starved_by_rt=0))
    assert off[0] == (10 * MS, FMAX)


def test_ondemand_idle_defers_sample_switch():
    """``idle_defers_sample`` (default 1): no sample while the policy is idle, as the
    kernel's deferrable timers (v4.5) and update hooks (v4.6+). Busy 0-25 ms, asleep until
    525 ms: 10 ms (load 100) -> FMAX; 20 ms -> FMAX; 30 ms: idle, held. The CPU wakes at 525 ms:
    elapsed 505000 us, idle 500000 > 2 * sampling_rate with prev_load 100 -> dbs_update() reuses
    prev_load (100) once -> FMAX, no change; the samples at 535 and 545 ms see the busy CPU
    (load 100). On the free-running grid the same run drops to FMIN at 40 ms."""
    wl = _one_task([RunTime(25_000), Sleep(500_000)], loop=2)
    assert _freq_changes(_sim(wl, "ondemand", duration_s=0.56)) == [(10 * MS, FMAX)]
    assert _freq_changes(_sim(wl, "ondemand", duration_s=0.56, idle_defers_sample=1)) == [(10 * MS, FMAX)]
    assert (40 * MS, FMIN) in _freq_changes(_sim(wl, "ondemand", duration_s=0.56, idle_defers_sample=0))


def test_schedfreq_rt_request_follows_sched_time_avg_ms():
    """The RT request's average period (schedfreq series rt.c sched_rt_update_capacity_req(),
    refreshed at each tick): an RT task busy from 0 to 200 ms at FMIN (arch_scale_freq_capacity
    903000 * 1024 // 2362000 = 391), ticks every 4 ms.

    sched_time_avg_ms 50 (the BKK16 slides: 25 ms periods): rt_avg halves at the ticks after 25
    and 50 ms: at 52 ms rt_avg = (28e6 * 391 / 2 + 24e6 * 391) / 2 = 7.43e9, age 50 ms; at 64 ms
    used = (7.43e9 + 12e6 * 391) // 39e6 = 310 -> x1.25 = 388 -> 388 * 2362000 >> 10 = 894980 kHz
    <= FMIN, no change; at 68 ms used = 13.69e9 // 43e6 = 318 -> 397 -> 915742 kHz -> 1421 MHz.
    The kernel default 1000 (500 ms periods): at 200 ms used = 200e6 * 391 // 700e6 = 111 ->
    139 -> 320615 kHz: FMIN for the whole run."""
    wl = _one_task([RunTime(200_000), Sleep(10_000)], policy="SCHED_FIFO", loop=1)
    fast = _freq_changes(_sim(wl, "schedfreq", duration_s=0.2, sched_time_avg_ms=50))
    slow = _freq_changes(_sim(wl, "schedfreq", duration_s=0.2))
    assert fast[0] == (68 * MS, 1421000)
    assert slow == []


@pytest.mark.parametrize("governor", ["ondemand", "interactive", "schedfreq"])
def test_work_completes_and_runs_faster_than_powersave(governor):
    """A run-based (frequency-stretched) periodic task: all activations log their work; a governor
    that raises the frequency finishes each activation's work sooner than powersave does."""
    wl = _one_task([Run(6_000), Sleep(1_000)], loop=25)
    tr = _sim(wl, governor, duration_s=1.0)
    ps = _sim(wl, "powersave", duration_s=1.0)
    log, log_ps = tr.df("lisa_sim_rtapp_log"), ps.df("lisa_sim_rtapp_log")
    assert len(log) == len(log_ps) == 25 and (log["perf"] == 6000).all()
    assert log["run_us"].mean() < log_ps["run_us"].mean()
