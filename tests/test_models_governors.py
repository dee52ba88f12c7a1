"""Legacy governors: defaults, hand-checked behaviour, kernel vs plain-Python twin."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lisa_eas import ModelError
from lisa_eas.models.governors import (InteractiveTunables, OndemandTunables, SchedfreqTunables, interactive,
                                       ondemand, performance, powersave, schedfreq)
from reference import ref_governors

F = [200000, 500000, 800000, 1100000, 1400000, 1700000, 2000000]


def test_defaults_are_the_kernels():
    assert OndemandTunables().up_threshold == 95 and OndemandTunables().sampling_down_factor == 1
    it = InteractiveTunables()
    assert (it.timer_rate_us, it.go_hispeed_load, it.target_load, it.min_sample_time_us,
            it.above_hispeed_delay_us, it.hispeed_freq) == (20000, 99, 90, 80000, 20000, 0)
    st_ = SchedfreqTunables()
    assert st_.capacity_margin == 1280 and st_.throttle_ns == 50_000_000
    assert performance(F) == 2000000 and powersave(F) == 200000


def test_ondemand_jumps_to_max_and_scales_down_proportionally():
    g = np.array([0, 100_000_000])
    df = ondemand(g, [[1], [1]], F, t_end=50_000_000)
    assert (df.freq_khz == 2000000).all() and (df.load == 100).all()
    # 50 % busy in every 10 ms sample: 200000 + 50 * 1800000 // 100 = 1100000 (closest OPP)
    g = np.arange(0, 101) * 5_000_000
    b = (np.arange(101) % 2 == 0).astype(int)
    df = ondemand(g, b, F)
    assert (df.load == 50).all() and (df.freq_khz == 1100000).all()
    # sampling_down_factor: at max, the next sample comes sdf times later
    df = ondemand(np.array([0, 10**9]), [[1], [1]], F, OndemandTunables(sampling_down_factor=3), t_end=100_000_000)
    assert np.diff(df.index.to_numpy()).tolist()[:2] == [30_000_000, 30_000_000]


def test_interactive_goes_hispeed_then_holds_min_sample_time():
    g = np.array([0, 100_000_000, 400_000_000])
    b = np.array([[1], [0], [0]])
    df = interactive(g, b, F)
    f = df.freq_khz.to_numpy()
    assert f[0] == 2000000                      # load 100 >= go_hispeed_load 99 -> hispeed (= max)
    t_drop = df.index[np.argmax(f < 2000000)]
    assert t_drop >= 100_000_000 + 80_000_000 - 20_000_000   # floor held min_sample_time


def test_schedfreq_margin_and_throttle():
    # 1000 * 1.25 > 1024 -> max; requests inside the 50 ms throttle are applied when it expires
    df = schedfreq([0, 1_000_000, 2_000_000, 60_000_000], [0, 0, 1, 0], [100, 800, 200, 50], F, n_cpus=2)
    assert df.index.tolist() == [0, 50_000_000, 100_000_000]
    assert df.freq_khz.tolist() == [500000, 2000000, 500000]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_kernels_match_twin(data):
    m = data.draw(st.integers(1, 3))
    k = data.draw(st.integers(2, 25))
    gaps = data.draw(st.lists(st.integers(1, 30_000_000), min_size=k, max_size=k))
    grid = np.cumsum([0] + gaps[:-1]).astype(np.int64)
    busy = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=m, max_size=m), min_size=k,
                                       max_size=k)))
    t_end = int(grid[-1]) + 50_000_000
    od = OndemandTunables(sampling_rate_us=data.draw(st.sampled_from([4000, 10000, 20000])),
                          up_threshold=data.draw(st.integers(50, 99)),
                          sampling_down_factor=data.draw(st.integers(1, 4)))
    got = ondemand(grid, busy, F, od, t_end=t_end)
    want = ref_governors.ondemand(grid.tolist(), busy.tolist(), int(grid[0]), t_end, F, od.sampling_rate_us,
                                  od.up_threshold, od.sampling_down_factor)
    assert list(zip(got.index, got.freq_khz, got.load)) == want
    # v4.17: the long-idle test on the time elapsed (never true on this free-running grid either)
    got = ondemand(grid, busy, F, od, t_end=t_end, era="v4.17")
    want = ref_governors.ondemand(grid.tolist(), busy.tolist(), int(grid[0]), t_end, F, od.sampling_rate_us,
                                  od.up_threshold, od.sampling_down_factor, (4, 17))
    assert list(zip(got.index, got.freq_khz, got.load)) == want
    # v5.16+: RELATION_CE over the OPPs an EM cost table leaves efficient (some costs drawn flat or falling)
    costs = sorted(data.draw(st.lists(st.integers(1, 100), min_size=len(F), max_size=len(F))))
    costs = [c if not data.draw(st.booleans()) else costs[-1] - c for c in costs]
    got = ondemand(grid, busy, F, od, t_end=t_end, era="v5.16", costs=costs)
    want = ref_governors.ondemand(grid.tolist(), busy.tolist(), int(grid[0]), t_end, F, od.sampling_rate_us,
                                  od.up_threshold, od.sampling_down_factor, (5, 16), costs)
    assert list(zip(got.index, got.freq_khz, got.load)) == want
    it = InteractiveTunables(hispeed_freq=data.draw(st.sampled_from([0, 1100000])),
                             target_load=data.draw(st.integers(50, 95)),
                             go_hispeed_load=data.draw(st.integers(60, 99)))
    got = interactive(grid, busy, F, it, t_end=t_end)
    want = ref_governors.interactive(grid.tolist(), busy.tolist(), int(grid[0]), t_end, F, it.timer_rate_us,
                                     it.go_hispeed_load, it.hispeed_freq, it.target_load, it.min_sample_time_us,
                                     it.above_hispeed_delay_us)
    assert list(zip(got.index, got.freq_khz)) == want
    n = data.draw(st.integers(1, 30))
    times = np.cumsum(data.draw(st.lists(st.integers(0, 40_000_000), min_size=n, max_size=n)))
    cpu = np.array(data.draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n)))
    cfs = np.array(data.draw(st.lists(st.integers(0, 1024), min_size=n, max_size=n)))
    rt = np.array(data.draw(st.lists(st.integers(0, 300), min_size=n, max_size=n)))
    got = schedfreq(times, cpu, cfs, F, rt=rt, n_cpus=m)
    want = ref_governors.schedfreq(times.tolist(), cpu.tolist(), cfs.tolist(), rt.tolist(), [0] * n, m, F, 1280,
                                   50_000_000)
    assert list(zip(got.index, got.freq_khz)) == want


@pytest.mark.parametrize("call, match", [
    (lambda: ondemand([0, 2, 1], [0, 1, 0], F), "grid_ns"),
    (lambda: ondemand([0, 1], [0, 2], F), "busy"),
    (lambda: ondemand([0, 1], [0, 1, 1], F), "busy"),
    (lambda: ondemand([0, 1], [0, 1], [3, 2]), "freqs_khz"),
    (lambda: ondemand([0, 1], [0, 1], F, OndemandTunables(up_threshold=101)), "up_threshold"),
    (lambda: interactive([0, 1], [0, 1], F, InteractiveTunables(timer_rate_us=0)), "timer_rate_us"),
    (lambda: schedfreq([0, 1], [0, 2], [1, 1], F, n_cpus=2), "cpu"),
    (lambda: schedfreq([0, 1], [0, 0], [1, 2000], F), "cfs"),
])
def test_bad_input(call, match):
    with pytest.raises(ModelError, match=match):
        call()


# ------------------------------------------------------------------ per-step entry points


def _steps_kernel_vs_twin(kind, m, ops, tun, od_version=(5, 15)):
    """Drive the kernel's and the twin's per-step functions with the same inputs; return both traces
    (``od_version``: the kernel version whose ondemand long-idle test both use)."""
    from lisa_eas._kernels import governors as kg

    width = {"od": kg.OD_CPU_SIZE, "ia": kg.IA_CPU_SIZE, "sf": kg.SF_CPU_SIZE}[kind]
    pw = {"od": kg.OD_POL_SIZE, "ia": kg.IA_POL_SIZE, "sf": kg.SF_POL_SIZE}[kind]
    cst, pst = np.zeros((m, width), np.int64), np.zeros(pw, np.int64)
    rc, rp = [[0] * width for _ in range(m)], [0] * pw
    fa = np.array(F, np.int64)
    got, want = [], []
    if kind == "od":
        kg.ondemand_init(0, np.zeros(m, np.int64), F[0], cst, pst)
        ref_governors.ondemand_init(0, [0] * m, F[0], rc, rp)
        for now, idle, cur in ops:
            if cur:
                pst[kg.OD_CUR] = rp[0] = cur
            form = kg.OD_LONG_IDLE_IDLE if od_version >= (4, 18) else kg.OD_LONG_IDLE_ELAPSED
            got.append((kg.ondemand_step(now, np.array(idle, np.int64), fa, *tun, cst, pst, None, form), *pst))
            want.append((ref_governors.ondemand_step(now, idle, F, *tun, rc, rp, None, od_version), *rp))
    elif kind == "ia":
        kg.interactive_init(0, np.zeros(m, np.int64), F[0], cst, pst)
        ref_governors.interactive_init(0, [0] * m, F[0], rc, rp)
        for now, busy, cur in ops:
            cur = cur or int(pst[kg.IA_CUR])
            pst[kg.IA_CUR] = rp[0] = cur
            for j in range(m):
                kg.interactive_account(busy[j], cur, cst[j])
                ref_governors.interactive_account(busy[j], cur, rc[j])
            got.append((kg.interactive_step(now, fa, *tun, cst, pst), *pst))
            want.append((ref_governors.interactive_step(now, F, *tun, rc, rp), *rp))
    else:
        kg.schedfreq_init(F[0], cst, pst)
        ref_governors.schedfreq_init(F[0], rc, rp)
        for now, j, cfs, rt, dl in ops:
            got.append((kg.schedfreq_pending(now, tun[1], pst),
                        kg.schedfreq_request(now, j, cfs, rt, dl, fa, tun[0], tun[1], cst, pst), *pst))
            want.append((ref_governors.schedfreq_pending(now, tun[1], rp),
                         ref_governors.schedfreq_request(now, j, cfs, rt, dl, F, tun[0], tun[1], rc, rp), *rp))
    got = [tuple(int(x) for x in g) for g in got]
    return got, want, cst.tolist(), rc


def test_steps_fixed_cases():
    # ondemand: 2 CPUs, 10 ms samples; CPU 1 fully busy -> max, sdf 4 once it was below max
    ops = [(10_000_000, [10_000, 0], 0), (20_000_000, [15_000, 0], 0), (60_000_000, [55_000, 32_000], 0)]
    got, want, c1, c2 = _steps_kernel_vs_twin("od", 2, ops, (10_000, 95, 4))
    assert got == want and c1 == c2
    assert got[0][:3] == (2000000, 2000000, 4)         # load 100 > 95 from 200 MHz: max, rate_mult 4
    assert got[1][:3] == (2000000, 2000000, 4)         # already at max: rate_mult unchanged
    assert got[2][0] == ref_governors.rel_c(F, 200000 + 20 * 1800000 // 100)    # 20 % busy
    # interactive: busy 100 % for one timer -> hispeed (= max)
    got, want, c1, c2 = _steps_kernel_vs_twin("ia", 1, [(20_000_000, [20_000_000], 0), (40_000_000, [20_000_000], 0)],
                                              (99, 2000000, 90, 80_000, 20_000))
    assert got == want and c1 == c2 and got[0][0] == 2000000 and got[1][0] == 2000000   # floor held
    # schedfreq: 600 * 1.25 = 750 -> 750 * 2000000 >> 10 = 1464843 -> RELATION_L 1700000
    got, want, _, _ = _steps_kernel_vs_twin("sf", 2, [(0, 0, 600, 0, 0), (1000, 1, 1000, 0, 0),
                                                      (50_000_000, 0, 0, 0, 0)], (1280, 50_000_000))
    assert got == want
    assert got[0][1] == 1700000 and got[1][1] == -1 and got[2][0] == 50_000_000


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_steps_match_twin(data):
    m = data.draw(st.integers(1, 3))
    n = data.draw(st.integers(1, 30))
    now, idle, busy, ops_od, ops_ia, ops_sf = 0, [0] * m, [0] * m, [], [], []
    for _ in range(n):
        dt = data.draw(st.integers(1, 60_000))          # us
        now += dt * 1000
        for j in range(m):
            b = data.draw(st.integers(0, dt))
            idle[j] += dt - b
            busy[j] += b * 1000 + data.draw(st.integers(0, 999))
        cur = data.draw(st.sampled_from([0] + F))
        ops_od.append((now, list(idle), cur))
        ops_ia.append((now, list(busy), cur))
        ops_sf.append((now, data.draw(st.integers(0, m - 1)), data.draw(st.integers(0, 1024)),
                       data.draw(st.integers(0, 1024)), data.draw(st.integers(0, 200))))
    tun = (data.draw(st.sampled_from([4000, 10000, 20000])), data.draw(st.integers(1, 100)),
           data.draw(st.integers(1, 5)))
    # samples up to 60 ms apart: late samples of busy CPUs, where v4.17 and v4.18 differ
    got, want, c1, c2 = _steps_kernel_vs_twin("od", m, ops_od, tun, data.draw(st.sampled_from([(4, 17), (4, 18)])))
    assert got == want and c1 == c2
    tun = (data.draw(st.integers(1, 100)), data.draw(st.sampled_from([500000, 1100000, 2000000, 2500000])),
           data.draw(st.integers(1, 100)), data.draw(st.integers(0, 100_000)), data.draw(st.integers(0, 50_000)))
    got, want, c1, c2 = _steps_kernel_vs_twin("ia", m, ops_ia, tun)
    assert got == want and c1 == c2
    tun = (data.draw(st.integers(1024, 1600)), data.draw(st.integers(0, 60_000_000)))
    got, want, _, _ = _steps_kernel_vs_twin("sf", m, ops_sf, tun)
    assert got == want
