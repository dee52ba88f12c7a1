"""schedutil model: formula, headroom, rate limit, busy hold, iowait boost, ramp boost, twin."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lisa_eas import ModelError
from lisa_eas.models.schedutil import (effective_cpu_util, em_pd_get_higher_freq, schedutil_next_freq,
                                       schedutil_run, schedutil_tables)
from reference import ref_schedutil

HIKEY_BIG = schedutil_tables("hikey960", "big", "v5.4")      # 903..2362 MHz, monotone costs


def test_next_freq_formula_and_tipping_point():
    f, _, cap = HIKEY_BIG
    # v5.4: (2362000 + 2362000/4) * 400 / 1024 = 1153320 -> lowest OPP >= : 1421000
    assert schedutil_next_freq(400, f, capacity=cap, era="v5.4") == 1421000
    # 1.25 headroom: f_max as soon as util >= 0.8 * capacity
    assert schedutil_next_freq(820, f, capacity=cap, era="v5.4") == 2362000
    assert schedutil_next_freq(810, f, capacity=cap, era="v5.4") == 2362000      # 2989687 > fmax
    assert schedutil_next_freq(0, f, capacity=cap) == 903000
    # policy limits clamp before resolving
    assert schedutil_next_freq(820, f, capacity=cap, fmax=1805000) == 1805000
    assert schedutil_next_freq(10, f, capacity=cap, fmin=1421000) == 1421000
    # v5.0 vs v5.14 integer order: (f + f/4) * u / max  vs  f * (u + u/4) / max
    # util 3: (1000 + 250) * 3 // 1024 = 3, but 1000 * (3 + 0) // 1024 = 2
    fr = np.array([2, 3, 1000])
    assert schedutil_next_freq(3, fr, era="v5.0") == 3
    assert schedutil_next_freq(3, fr, era="v5.14") == 2


def test_effective_cpu_util():
    assert effective_cpu_util(300) == 300
    assert effective_cpu_util(300, 100) == 400
    assert effective_cpu_util(300, rt_runnable=True) == 1024
    assert effective_cpu_util(300, util_dl=800) == 1024                  # cfs+rt+dl saturates
    assert effective_cpu_util(300, util_dl=100, bw_dl=50) == 350         # frequency: bw_dl, not util_dl
    assert effective_cpu_util(300, util_dl=100, bw_dl=50, util_type="energy") == 400
    assert effective_cpu_util(400, irq=256) == 256 + 400 * 768 // 1024   # scale_irq_capacity + irq
    assert effective_cpu_util(10, irq=1024) == 1024


def test_em_pd_get_higher_freq():
    f, c, _ = HIKEY_BIG                                   # costs 635 831 1052 1298 1571
    assert em_pd_get_higher_freq(f, c, 1153320, 0) == 1421000
    # boost 120 -> budget 831 + 831*120//1024 = 928 -> still 1421000; 300 -> 1074 -> 1805000
    assert em_pd_get_higher_freq(f, c, 1153320, 120) == 1421000
    assert em_pd_get_higher_freq(f, c, 1153320, 300) == 1805000
    # boost 0 skips an inefficient OPP (a higher one that costs no more)
    assert em_pd_get_higher_freq([1, 2, 3], [10, 12, 11], 2, 0) == 3
    # above every OPP: min_freq comes back unchanged
    assert em_pd_get_higher_freq(f, c, 9_999_999, 100) == 9_999_999


def test_ramp_boost_raises_frequency_while_util_ramps_above_util_est():
    f, c, cap = HIKEY_BIG
    t = np.arange(10) * 2_000_000
    ue = np.full(10, 200)
    ua = 200 + 45 * np.arange(10)                         # 200 .. 605
    plain = schedutil_run(t, ua, f, util_est=ue, capacity=cap, era="v5.4")
    boosted = schedutil_run(t, ua, f, util_est=ue, capacity=cap, era="v5.4", ramp_boost=True, costs=c)
    assert (boosted >= plain).all() and (boosted > plain).any()
    # once util_est catches up (new activation), no boost
    same = schedutil_run(t, ua, f, util_est=ua, capacity=cap, era="v5.4", ramp_boost=True, costs=c)
    assert (same == schedutil_run(t, ua, f, util_est=ua, capacity=cap, era="v5.4")).all()


def test_rate_limit_and_busy_hold():
    f, _, cap = HIKEY_BIG
    t = np.arange(6) * 400_000                              # every 0.4 ms
    ua = np.array([100, 900, 900, 900, 900, 900])
    out = schedutil_run(t, ua, f, capacity=cap, rate_limit_us=1000)
    assert out[0] == 903000 and out[1] == 903000 and out[2] == 903000   # 0.8 ms after the last change
    assert out[3] == 2362000                                           # 1.2 ms >= 1 ms
    # busy hold: a single-CPU policy keeps the frequency when the CPU did not idle
    t = np.arange(4) * 2_000_000
    ua = np.array([900, 100, 100, 100])
    held = schedutil_run(t, ua, f, capacity=cap, went_idle=[1, 0, 0, 1])
    assert held.tolist() == [2362000, 2362000, 2362000, 903000]
    # shared policy: max over its CPUs, no hold
    ua2 = np.array([[900, 0], [100, 100], [100, 450], [100, 100]])
    shared = schedutil_run(t, ua2, f, capacity=cap, cpu=[0, 1, 0, 1], went_idle=[0, 0, 0, 0])
    assert shared.tolist() == [2362000, 903000, 1421000, 903000]


def test_iowait_boost_doubles_then_decays():
    f = np.arange(1, 11) * 100_000                          # 100 .. 1000 MHz
    t = np.arange(8) * 1_000_000
    io = [1, 1, 1, 1, 0, 0, 0, 0]
    out = schedutil_run(t, np.zeros(8, int), f, iowait=io, era="v5.4", rate_limit_us=0)
    # boost 128, 256, 512, 1024 then halving: 512, 256, 128, 0 (x1.25 headroom, RELATION_L)
    expect = [f[f >= min(1_250_000 * b // 1024, f[-1])][0] for b in (128, 256, 512, 1024, 512, 256, 128, 0)]
    assert out.tolist() == expect


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_kernel_matches_twin(data):

    n = data.draw(st.integers(1, 40))
    m = data.draw(st.integers(1, 3))
    gaps = data.draw(st.lists(st.integers(0, 6_000_000), min_size=n, max_size=n))
    times = np.cumsum(gaps)
    ua = np.array(data.draw(st.lists(st.lists(st.integers(0, 1024), min_size=m, max_size=m), min_size=n,
                                     max_size=n)))
    ue = np.array(data.draw(st.lists(st.lists(st.integers(0, 1024), min_size=m, max_size=m), min_size=n,
                                     max_size=n)))
    cpu = np.array(data.draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n)))
    io = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    wi = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    era = data.draw(st.sampled_from(["v5.0", "v5.10", "v5.11", "v5.14", "v5.16", "v6.8", "v6.9"]))
    rb = data.draw(st.booleans())
    board, dom = data.draw(st.sampled_from([("hikey960", "big"), ("pixel3", "little"), ("juno_r0", "little")]))
    f, c, cap = schedutil_tables(board, dom, "v5.4")
    ua, ue = np.minimum(ua, cap), np.minimum(ue, cap)
    rate = data.draw(st.sampled_from([0, 500, 1000, 10000]))
    got = schedutil_run(times, ua, f, util_est=ue, cpu=cpu, capacity=cap, era=era, rate_limit_us=rate, iowait=io,
                        went_idle=wi, ramp_boost=rb, costs=c)
    code = tuple(int(x) for x in era[1:].split("."))       # the twin's own era handling
    want = ref_schedutil.run(times.tolist(), cpu.tolist(), io.tolist(), wi.tolist(), ua.tolist(), ue.tolist(), cap,
                             f.tolist(), int(f[0]), int(f[-1]), code, rate * 1000, 4_000_000, True, rb, c.tolist())
    assert got.tolist() == want


@pytest.mark.parametrize("call, match", [
    (lambda: schedutil_next_freq(2000, [1, 2]), "util"),
    (lambda: schedutil_next_freq(10, [2, 1]), "freqs_khz"),
    (lambda: schedutil_next_freq(10, [1, 2], era="v4.9"), "v5.0"),
    (lambda: schedutil_next_freq(10, [1, 2], ramp_boost=10), "costs"),
    (lambda: schedutil_run([2, 1], [1, 1], [1, 2]), "times_ns"),
    (lambda: schedutil_run([-1, 1], [1, 1], [1, 2]), "times_ns"),
    (lambda: schedutil_run([1, 2], [1, 1025], [1, 2]), "util_avg"),
    (lambda: schedutil_run([1, 2], [[1, 1], [1, 1]], [1, 2], cpu=[0, 2]), "cpu"),
    (lambda: effective_cpu_util(10, util_type="power"), "util_type"),
    (lambda: schedutil_tables("hikey960", "medium"), "medium"),
])
def test_bad_input(call, match):
    with pytest.raises(ModelError, match=match):
        call()


def test_uclamp_in_effective_util_and_perf():
    from lisa_eas.models.schedutil import effective_cpu_perf

    # v5.3 - v6.7: FREQUENCY util clamped into [uclamp_min, uclamp_max]; RT no longer forces max
    assert effective_cpu_util(100, uclamp_min=300) == 300
    assert effective_cpu_util(900, uclamp_max=512) == 512
    assert effective_cpu_util(100, rt_runnable=True, uclamp_min=0, uclamp_max=1024) == 100
    assert effective_cpu_util(100, util_type="energy", uclamp_min=300) == 100     # energy ignores clamps
    # v6.8+: headroom then [floor, ceiling]
    assert effective_cpu_perf(400) == 500
    assert effective_cpu_perf(400, uclamp_max=450) == 450
    assert effective_cpu_perf(100, uclamp_min=600) == 600
    assert effective_cpu_perf(100, rt_runnable=True) == 1024
    assert effective_cpu_perf(100, bw_dl=300) == 300


@settings(max_examples=300, deadline=None)
@given(cfs=st.integers(0, 1024), rt=st.integers(0, 400), dl=st.integers(0, 400), bw=st.integers(0, 400),
       irq=st.integers(0, 1024), scale=st.sampled_from([446, 1024]), freq=st.booleans(), rtr=st.booleans(),
       lo=st.one_of(st.none(), st.integers(0, 1024)), hi=st.one_of(st.none(), st.integers(0, 1024)))
def test_effective_util_matches_twin(cfs, rt, dl, bw, irq, scale, freq, rtr, lo, hi):
    from lisa_eas.models.schedutil import effective_cpu_perf

    cfs, rt, dl, bw, irq = (min(v, scale) for v in (cfs, rt, dl, bw, irq))
    used = lo is not None or hi is not None
    l_, h_ = (0 if lo is None else lo), (1024 if hi is None else hi)
    got = effective_cpu_util(cfs, rt, dl, bw, irq, scale=scale, util_type="frequency" if freq else "energy",
                             rt_runnable=rtr, uclamp_min=lo, uclamp_max=hi)
    assert got == ref_schedutil.effective_cpu_util_uclamp(cfs, rt, dl, bw, irq, scale, freq, rtr, used, l_, h_)
    got = effective_cpu_perf(cfs, rt, dl, bw, irq, scale=scale, rt_runnable=rtr, uclamp_min=lo, uclamp_max=hi)
    assert got == ref_schedutil.effective_cpu_perf_v68(cfs, rt, dl, bw, irq, scale, rtr, used, l_, h_)


def test_uclamp_max_caps_a_saturated_cpu_v6_8():
    from lisa_eas.models.schedutil import effective_cpu_perf

    assert effective_cpu_perf(1024, uclamp_max=300) == 300
