"""PELT and util_est models: kernel tables, known values, invariance, twin comparisons, bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lisa_eas import ModelError
from lisa_eas.models import pelt_config, pelt_tables, pelt_timeline, resample_signal
from reference import ref_pelt, ref_util_est

MS = 1_000_000


def test_tables_are_the_kernels():
    yn, lam = pelt_tables(32)
    assert lam == 47742
    assert [hex(v) for v in yn[:3]] == ["0xffffffff", "0xfa83b2da", "0xf5257d14"]
    assert [hex(v) for v in yn[-2:]] == ["0x85aac367", "0x82cd8698"]
    assert pelt_tables(16)[1] == 24130 and pelt_tables(8)[1] == 12326


def test_decay_load_is_exact_for_large_values():
    from lisa_eas._kernels.pelt import decay_load

    yn, _ = pelt_tables(32)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        val = int(rng.integers(0, 2**62))
        n = int(rng.integers(0, 2100))
        assert decay_load(val, n, yn) == ref_pelt.decay_load(val, n, yn)


def test_running_task_ramps_and_saturates():
    def util_after(ms, **kw):
        return int(pelt_timeline([0, ms * MS], ["running", "sleeping"], **kw).util_avg.iloc[-1])

    vals = [util_after(ms) for ms in (8, 16, 32, 64, 100, 200, 345)]
    assert vals == sorted(vals) and vals[-1] == 1023
    assert 480 <= util_after(32) <= 515                       # half-life: y^32 = 1/2
    assert util_after(32, halflife=16) > util_after(32)       # Android 16 ms half-life ramps faster
    # 4 ms every 16 ms settles around 225 at the end of the sleep
    ts = np.arange(0, 101) * 16 * MS
    ts = np.sort(np.concatenate([ts, ts[:-1] + 4 * MS]))
    st_ = np.where(np.arange(ts.size) % 2 == 0, 2, 0)
    df = pelt_timeline(ts, st_)
    assert 215 <= df.util_avg.iloc[-1] <= 235


def test_time_scaling_invariance_v5_1():
    # v5.1+: running 16 ms at half capacity accrues exactly as 8 ms at full capacity
    half = pelt_timeline([0, 16 * MS], [2, 0], cpu_capacity=512, era="v5.4")
    full = pelt_timeline([0, 8 * MS], [2, 0], cpu_capacity=1024, era="v5.4")
    assert half.util_avg.iloc[-1] == full.util_avg.iloc[-1]
    half = pelt_timeline([0, 16 * MS], [2, 0], freq_scale=512, era="v5.4")
    assert half.util_avg.iloc[-1] == full.util_avg.iloc[-1]
    # <= v5.0 scales the contribution instead: close, not identical in general
    a = pelt_timeline([0, 16 * MS], [2, 0], cpu_capacity=512, era="v4.19").util_avg.iloc[-1]
    b = pelt_timeline([0, 16 * MS], [2, 0], era="v4.19").util_avg.iloc[-1]
    assert abs(a - b // 2) <= 2


def test_saturated_rq_loses_idle_time_v5_1():
    # a task always running at half capacity saturates the rq; its sleep then starts with the
    # lost idle time written off, so the signal decays over the full wall-clock sleep
    ts = [0, 400 * MS, 432 * MS]
    df = pelt_timeline(ts, [2, 0, 0], cpu_capacity=512, era="v5.4")
    assert df.util_avg.iloc[1] >= 1000
    assert 480 <= df.util_avg.iloc[2] <= 520


def test_detached_time_is_neither_accrued_nor_decayed():
    a = pelt_timeline([0, 10 * MS, 20 * MS, 30 * MS], [2, 3, 2, 0])
    b = pelt_timeline([0, 10 * MS, 20 * MS], [2, 2, 0])
    assert a.util_avg.iloc[-1] == b.util_avg.iloc[-1]


def test_util_est_eras_at_first_dequeue():
    from lisa_eas._kernels.util_est import util_est_update

    # ewma 0, enqueued 0, the task dequeues with util_avg 400
    assert util_est_update(0, 0, 400, 400, 1024, 0) == (100, 401)                # v4.17: EWMA, LSB flag
    assert util_est_update(0, 0, 400, 400, 1024, 2) == (401, 401)                # v5.5: fast ramp-up
    assert util_est_update(0, 0, 400, 400, 1024, 3) == (400, 400 | 0x80000000)   # v5.13: MSB flag
    assert util_est_update(0, 0, 400, 400, 1024, 4)[0] == 400 | 0x80000000       # v6.8: one field
    # decreases are smoothed: ewma 400 -> dequeued 200: 400 - (400 - 200) / 4 = 350
    assert util_est_update(400, 0, 200, 200, 1024, 4)[0] == 350 | 0x80000000
    # v6.8: the task waited on the rq (runnable >> util): keep the EWMA
    assert util_est_update(400, 0, 200, 300, 1024, 4)[0] == 400 | 0x80000000
    # within the 1 % margin: nothing stored before v5.13
    assert util_est_update(404, 0, 400, 400, 1024, 1) == (404, 0)
    # util above the CPU's capacity (v5.1+): skip
    assert util_est_update(800, 0, 500, 500, 446, 1) == (800, 0)
    # flag set (util_avg unchanged since enqueue): skip
    assert util_est_update(0, 401, 400, 400, 1024, 0) == (0, 401)


@settings(max_examples=400, deadline=None)
@given(ewma=st.integers(0, 1024), enq=st.integers(0, 1024), flag=st.booleans(), util=st.integers(0, 1024),
       runnable=st.integers(0, 1024), cap=st.sampled_from([446, 462, 1024]), era=st.integers(0, 4))
def test_util_est_kernel_matches_twin(ewma, enq, flag, util, runnable, cap, era):
    from lisa_eas._kernels.util_est import task_util_est_value, util_est_flag, util_est_update

    f = util_est_flag(era)
    if flag:
        if era == 4:
            ewma |= f
        else:
            enq |= f
    assert util_est_update(ewma, enq, util, runnable, cap, era) == \
        ref_util_est.util_est_update(ewma, enq, util, runnable, cap, era)
    assert task_util_est_value(ewma, enq, era) == ref_util_est.task_util_est(ewma, enq, era)


def _twin_era(cfg, yn):
    from lisa_eas._kernels import pelt as kp

    return {"delta_scaling": bool(cfg[kp.CFG_DELTA_SCALING]), "divider_mode": int(cfg[kp.CFG_DIVIDER_MODE]),
            "weight_in_sum": bool(cfg[kp.CFG_WEIGHT_IN_SUM]), "zero_if_unloaded": bool(cfg[kp.CFG_ZERO_IF_UNLOADED]),
            "runnable_scaled": bool(cfg[kp.CFG_RUNNABLE_SCALED]), "load_avg_max": int(cfg[kp.CFG_LOAD_AVG_MAX]),
            "util_est": int(cfg[kp.CFG_UTIL_EST_ERA])}


ERAS = ["v4.11", "v4.12", "v4.13", "v4.14", "v4.17", "v5.0", "v5.4", "v5.10", "v5.15", "v6.1", "v6.9"]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_timeline_kernel_matches_twin(data):
    n = data.draw(st.integers(1, 60))
    gaps = data.draw(st.lists(st.integers(0, 40 * MS), min_size=n - 1, max_size=n - 1))
    ts = np.cumsum([data.draw(st.integers(0, 10**12))] + gaps).astype(np.int64)
    states = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    cap = np.array(data.draw(st.lists(st.sampled_from([160, 446, 462, 1024]), min_size=n, max_size=n)))
    fs = np.array(data.draw(st.lists(st.integers(1, 1024), min_size=n, max_size=n)))
    era = data.draw(st.sampled_from(ERAS))
    halflife = data.draw(st.sampled_from([32, 16, 8]))
    weight = data.draw(st.sampled_from([1024, 335, 3121]))
    ua = data.draw(st.integers(0, 1024))
    la = data.draw(st.integers(0, weight))
    ra = data.draw(st.integers(0, 1024))
    df = pelt_timeline(ts, states, cpu_capacity=cap, freq_scale=fs, era=era, weight=weight, halflife=halflife,
                       util_avg=ua, load_avg=la, runnable_avg=ra)
    yn, lam = pelt_tables(halflife)
    version = tuple(int(x) for x in era[1:].split("."))
    want = ref_pelt.pelt_timeline(ts.tolist(), states.tolist(), cap.tolist(), fs.tolist(), weight,
                                  [ua, la, ra, 0, 0], ref_pelt.era_flags(version, lam), yn)
    got = [tuple(int(x) for x in row) for row in df.to_numpy()]
    assert got == [tuple(int(x) for x in r) for r in want]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_blocked_updates_match_the_twin(data):
    """Points marked ``blocked`` (a waking task's sync_entity_load_avg to its cfs_rq's last
    update: decay only, util_est's flag left alone, possibly up to 1023 ns before the point
    before it) agree with the twin, util_est flag bits included."""
    n = data.draw(st.integers(2, 40))
    gaps = data.draw(st.lists(st.integers(0, 20 * MS), min_size=n - 1, max_size=n - 1))
    states = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    blocked = np.zeros(n, bool)
    for k in range(1, n):
        if states[k - 1] == 0 and data.draw(st.booleans()):
            blocked[k] = True
            gaps[k - 1] = data.draw(st.integers(-1023, 3 * MS))     # possibly before the point before
    ts = np.cumsum([data.draw(st.integers(10**6, 10**12))] + gaps).astype(np.int64)
    era = data.draw(st.sampled_from(["v4.17", "v5.4", "v5.15", "v6.9", "v6.12"]))
    flag = 1 << 31
    ue = [data.draw(st.sampled_from([0, 1, 300, 301, 300 | flag])) for _ in range(2)]
    ua = data.draw(st.integers(0, 1024))
    df = pelt_timeline(ts, states, era=era, util_avg=ua, load_avg=ua, runnable_avg=ua,
                       util_est_ewma=ue[0], util_est_enqueued=ue[1], blocked=blocked)
    yn, lam = pelt_tables(32)
    version = tuple(int(x) for x in era[1:].split("."))
    want = ref_pelt.pelt_timeline(ts.tolist(), states.tolist(), [1024] * n, [1024] * n, 1024,
                                  [ua, ua, ua, ue[0], ue[1]], ref_pelt.era_flags(version, lam), yn,
                                  blocked=blocked.tolist())
    assert [tuple(int(x) for x in row) for row in df.to_numpy()] == [tuple(int(x) for x in r) for r in want]


def test_a_blocked_update_leaves_the_util_est_flag():
    """v6.12+ (flag in util_est's bit 31, util_est_update before the dequeue's update): a task
    whose estimate carries the flag runs to 1 ms (no 1024-us boundary: flag kept, the dequeue
    skips) and sleeps; at 5 ms a wake-up syncs it to its cfs_rq's last update at 4.5 ms
    (blocked: decayed across the boundaries at 1.05 - 4.19 ms, flag kept), the enqueue at 5 ms
    crosses no boundary, so the dequeue at 5.5 ms finds the flag and skips util_est_update: the
    estimate stays 400. Without the blocked mark the 4.5 ms update clears the flag and the
    dequeue lowers the estimate toward the decayed util."""
    flag = 1 << 31
    t = [0, 1 * MS, 4_500_000, 5 * MS, 5_500_000]
    states = [2, 0, 0, 2, 0]
    kw = dict(era="v6.12", util_avg=400, load_avg=400, runnable_avg=400, util_est_ewma=400 | flag)
    kept = pelt_timeline(t, states, blocked=[False, False, True, False, False], **kw)
    # (the dequeue's own update then crosses 5.24 ms and clears the flag, after util_est_update)
    assert kept["util_est_ewma"].tolist()[-2:] == [400 | flag, 400]
    cleared = pelt_timeline(t, states, **kw)
    assert cleared["util_est_ewma"].tolist()[-2] == 400 and cleared["util_est_ewma"].tolist()[-1] < 400


def test_resample_holds_the_last_update():
    df = pelt_timeline([0, 10 * MS, 20 * MS], [2, 0, 0])
    rs = resample_signal(df, [0, 5 * MS, 10 * MS, 15 * MS, 25 * MS])
    assert rs.util_avg.tolist() == [0, 0, df.util_avg.iloc[1], df.util_avg.iloc[1], df.util_avg.iloc[2]]


@pytest.mark.parametrize("kwargs, match", [
    (dict(times_ns=[0, 2, 1], states=[2, 0, 0]), "times_ns.*sorted"),
    (dict(times_ns=[0, 5000, 2000], states=[2, 0, 0], blocked=[0, 0, 1]), "times_ns.*under 1024"),
    (dict(times_ns=[0, 5000, 6000], states=[2, 2, 0], blocked=[0, 0, 1]), "blocked.*sleeping"),
    (dict(times_ns=[0, 5000], states=[2, 0], blocked=[1]), "blocked must be one bool"),
    (dict(times_ns=[-5, 2], states=[2, 0]), "times_ns"),
    (dict(times_ns=[0, 2], states=[2, 7]), "states"),
    (dict(times_ns=[0, 2], states=["running", "dozing"]), "dozing"),
    (dict(times_ns=[0, 2], states=[2]), "states"),
    (dict(times_ns=[0, 2], states=[2, 0], cpu_capacity=2000), "cpu_capacity"),
    (dict(times_ns=[0, 2], states=[2, 0], freq_scale=[1024, 0]), "freq_scale"),
    (dict(times_ns=[0, 2], states=[2, 0], util_avg=1025), "util_avg"),
    (dict(times_ns=[0, 2], states=[2, 0], era="v4.9"), "v4.11"),
    (dict(times_ns=[0, 2], states=[2, 0], era="next"), "kernel version"),
    (dict(times_ns=[0, 2], states=[2, 0], halflife=12), "halflife"),
    (dict(times_ns=[], states=[]), "empty"),
    (dict(times_ns=[0.5, 2], states=[2, 0]), "times_ns"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ModelError, match=match):
        pelt_timeline(**kwargs)


def test_fused_update_equals_the_separate_kernel_steps():
    """update_signal() fuses ___update_load_sum + accumulate_sum + ___update_load_avg; the
    separate kernels (part of the kernel-level API) must give the same state."""
    from lisa_eas._kernels import pelt as kp

    rng = np.random.default_rng(5)
    for era in ("v4.11", "v4.14", "v4.19", "v5.4", "v6.9"):
        cfg = pelt_config(era)
        yn, _ = pelt_tables(32)
        a = np.zeros(kp.SA_SIZE, np.int64)
        b = np.zeros(kp.SA_SIZE, np.int64)
        now = 0
        for _ in range(3000):
            now += int(rng.integers(0, 5 * MS))
            on_rq = int(rng.integers(0, 2))
            running = on_rq * int(rng.integers(0, 2))
            sf, sc, w = int(rng.integers(1, 1025)), int(rng.choice([446, 1024])), 1024
            pa = kp.update_signal(a, now, on_rq, running, w, sf, sc, cfg, yn)
            load = w * on_rq if cfg[kp.CFG_WEIGHT_IN_SUM] else on_rq
            pb = kp.update_load_sum(b, now, load, load, running, sf, sc, cfg, yn)
            if pb:
                kp.update_load_avg(b, w, w, cfg)
            assert pa == pb and (a == b).all(), era


def test_rq_clock_pelt_worked_by_hand():
    """update_rq_clock_pelt on a hand timeline (capacity 512, frequency 512: the clock runs at a
    quarter speed while busy, each step truncated) and update_idle_rq_clock_pelt's sync."""
    from lisa_eas.models import pelt_clock_scaled, rq_clock_pelt

    pts = [0, 1000, 5000, 9000, 20000, 30000]
    busy = [True, True, False, True, True, False]
    # 0 -> 1000 busy: (1000*512 >> 10)*512 >> 10 = 250; idle after 5000: synced to 5000; idle
    # segment -> 9000; 9000 -> 20000 busy: + 2750; goes idle at 30000: synced
    assert rq_clock_pelt(pts, busy, cpu_capacity=512, freq_scale=512).tolist() == [0, 250, 5000, 9000, 11750,
                                                                                    30000]
    # an update at 5000 sees the clock before the switch to idle syncs it: 250 + 1000
    at = rq_clock_pelt(pts, busy, cpu_capacity=512, freq_scale=512, at_ns=[500, 5000, 7000, 25000, 40000])
    assert at.tolist() == [125, 1250, 7000, 13000, 40000]
    # a switch to idle and back at the same instant (20000) still syncs the clock
    wi = [False, False, False, False, True, False]
    assert rq_clock_pelt(pts, busy, cpu_capacity=512, freq_scale=512, went_idle=wi).tolist()[4] == 20000
    assert not pelt_clock_scaled("v5.0") and pelt_clock_scaled("v5.1") and pelt_clock_scaled("v6.9")
    with pytest.raises(ModelError, match="busy has 2 entries for 6 points"):
        rq_clock_pelt(pts, [True, False])
    with pytest.raises(ModelError, match="points_ns must be sorted"):
        rq_clock_pelt([5, 1], [True, True])


def test_idle_signal_steps_match_twin():
    """update_load_sum / update_load_avg on signals that go idle (nothing added: an rt_rq
    without rt tasks, a cfs_rq left empty long enough for its sums to decay to 0) and come
    back, against the twin, field by field at every step: the kernels skip the decay of a sum
    at 0, the segments when nothing is added and the divisions of an all-zero signal."""
    from lisa_eas._kernels import pelt as kp

    rng = np.random.default_rng(16)
    for era in ("v4.12", "v4.14", "v4.19", "v5.4", "v5.10", "v6.9"):
        cfg = pelt_config(era)
        yn, lam = pelt_tables(32)
        flags = ref_pelt.era_flags(tuple(int(x) for x in era[1:].split(".")), lam)
        a = np.zeros(kp.SA_SIZE, np.int64)
        b = ref_pelt.SchedAvg()
        now = 0
        idle_steps = 0
        for step in range(2000):
            idle = rng.random() < 0.6
            now += int(rng.integers(0, 3000 * MS)) if idle and rng.random() < 0.1 else int(rng.integers(0, 5 * MS))
            nr = 0 if idle else int(rng.integers(1, 4))
            load = nr * 1024 if cfg[kp.CFG_WEIGHT_IN_SUM] else nr
            running = 0 if idle else int(rng.integers(0, 2))
            sf, sc = int(rng.integers(1, 1025)), int(rng.choice([446, 1024]))
            pa = kp.update_load_sum(a, now, load, load, running, sf, sc, cfg, yn)
            pb = ref_pelt.update_load_sum(b, now, load, load, running, sf, sc, flags, yn)
            if pa:
                kp.update_load_avg(a, 1024, 1024, cfg)
            if pb:
                ref_pelt.update_load_avg(b, 1024, flags)
            want = (b.load_sum, b.runnable_sum, b.util_sum, b.period_contrib, b.last_update_time,
                    b.load_avg, b.runnable_avg, b.util_avg)
            got = tuple(int(a[k]) for k in (kp.SA_LOAD_SUM, kp.SA_RUNNABLE_SUM, kp.SA_UTIL_SUM,
                                            kp.SA_PERIOD_CONTRIB, kp.SA_LAST_UPDATE, kp.SA_LOAD_AVG,
                                            kp.SA_RUNNABLE_AVG, kp.SA_UTIL_AVG))
            assert pa == pb and got == want, (era, step)
            idle_steps += bool(pa) and got[:3] == (0, 0, 0)
        assert idle_steps > 50, (era, idle_steps)      # the all-zero path was taken
