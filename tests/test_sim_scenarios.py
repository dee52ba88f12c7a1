"""Hand-checked simulator scenarios: expected run times per OPP, EAS packing, deadlines, CFS/FIFO."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, Run, Sleep, Timer, periodic, task, workload
from lisa_eas.sim import SimConfig, simulate


def _busy_by_cpu(trace, nr_cpus, t0=0.0):
    """Busy seconds per CPU after ``t0`` from sched_switch."""
    sw = trace.df("sched_switch")
    end = trace.metadata["t_end_s"]
    busy = np.zeros(nr_cpus)
    for c in range(nr_cpus):
        s = sw[sw["__cpu"] == c]
        t = s.index.to_numpy()
        running = (s["next_pid"].to_numpy() != 0)
        nxt = np.append(t[1:], end)
        a = np.maximum(t, t0)
        b = np.maximum(nxt, t0)
        busy[c] = np.sum((b - a)[running])
    return busy


@pytest.mark.parametrize("board, cpu, governor", [("hikey960", 0, "powersave"), ("hikey960", 0, "performance"),
                                                  ("hikey960", 4, "powersave"), ("hikey960", 4, "performance"),
                                                  ("juno_r0", 0, "performance"), ("juno_r0", 1, "powersave")])
def test_run_time_stretches_with_capacity_and_frequency(board, cpu, governor):
    """One pinned task: each 2000 us of work takes ceil(2000 * 1024 / capacity(OPP)) us."""
    plat = load_platform(board)
    pd = plat.domain_of(cpu)
    opp = pd.opps[-1] if governor == "performance" else pd.opps[0]
    ph = Phase(name="p", events=(Run(2000), Sleep(20000)), loop=5)
    wl = workload([task("solo", [ph], cpus=[cpu])], calibration=20)
    tr = simulate(plat, wl, config=SimConfig(governor=governor))
    log = tr.df("lisa_sim_rtapp_log")
    assert len(log) == 5
    expected_us = math.ceil(2000 * 1000 * 1024 / opp.capacity) // 1000
    assert set(log["run_us"]) == {expected_us}, (board, cpu, opp, log["run_us"].tolist())
    assert set(log["perf"]) == {2000}
    sw = tr.df("sched_switch")
    assert set(sw.loc[sw["next_pid"] != 0, "__cpu"]) == {cpu}
    freqs = set(tr.df("cpu_frequency").query("cpu_id == @cpu")["state"])
    assert freqs == {opp.freq_khz}


@pytest.mark.parametrize("board", ["hikey960", "juno_r0"])
def test_eas_packs_small_tasks_on_little_cpus(board):
    """Three 5 % tasks start pinned on the big CPUs, then may run anywhere: EAS moves them to
    the little CPUs (and keeps them there); without EAS they stay where they were."""
    plat = load_platform(board)
    little = min(plat.perf_domains, key=lambda d: d.cpu_capacity_max)
    big = max(plat.perf_domains, key=lambda d: d.cpu_capacity_max)
    start = replace(periodic(duty_cycle_pct=5, period_ms=16, duration_s=0.2, name="on_big")[0], cpus=big.cpus)
    free = replace(periodic(duty_cycle_pct=5, period_ms=16, duration_s=2.0, name="free")[0],
                   cpus=tuple(plat.cpus))
    wl = workload([task(f"small{i}", [start, free]) for i in range(3)], calibration=20)
    eas = simulate(plat, wl, config=SimConfig(placement="eas"))
    busy = _busy_by_cpu(eas, plat.nr_cpus, t0=0.5)
    little_share = busy[list(little.cpus)].sum() / busy.sum()
    print(f"{board}: EAS busy per CPU after 0.5 s {np.round(busy, 3)}; little share {little_share:.3f}")
    assert little_share > 0.97
    dec = eas.df("lisa_sim_eas_decision")
    late = dec[dec.index > 0.5]
    assert len(late) > 200 and late["chosen_cpu"].isin(little.cpus).mean() > 0.97
    base = simulate(plat, wl, config=SimConfig(placement="no-eas"))
    assert not any("wake_cap()" in a for a in base.metadata["approximations"])     # small tasks fit everywhere
    busy_b = _busy_by_cpu(base, plat.nr_cpus, t0=0.5)
    share_b = busy_b[list(little.cpus)].sum() / busy_b.sum()
    print(f"{board}: no-EAS busy per CPU {np.round(busy_b, 3)}; little share {share_b:.3f}")
    assert share_b < 0.05


def test_performance_governor_meets_every_deadline():
    tasks = [task(f"t{i}", periodic(duty_cycle_pct=d, period_ms=16, duration_s=1.0)) for i, d in enumerate((10, 20, 30, 40, 15, 25))]
    wl = workload(tasks, calibration=20)
    tr = simulate("hikey960", wl, config=SimConfig(governor="performance"))
    log = tr.df("lisa_sim_rtapp_log")
    assert len(log) == 6 * 62
    assert (log["slack_us"] >= 0).all()
    assert (log["c_period_us"] == 16000).all()


def test_cfs_shares_one_cpu_fairly_and_fifo_preempts():
    hog = Phase(name="busy", events=(Run(1_000_000),), loop=1)
    wl = workload([task("a", [hog], cpus=[1]), task("b", [hog], cpus=[1])], calibration=20)
    tr = simulate("juno_r0", wl, config=SimConfig(governor="performance", duration_s=0.5))
    sw = tr.df("sched_switch")
    sw1 = sw[sw["__cpu"] == 1]
    t = sw1.index.to_numpy()
    dur = np.diff(np.append(t, 0.5))
    share = {p: dur[sw1["next_pid"].to_numpy() == p].sum() for p in (1000, 1001)}
    print("CFS shares", share)
    assert abs(share[1000] - share[1001]) < 0.02
    # slices follow sched_slice: 6 CPUs -> factor 1 + log2(6) = 3 -> latency 18 ms, 2 tasks -> 9 ms,
    # rounded up to the 4 ms tick
    slices = dur[sw1["next_pid"].to_numpy() != 0][:-1]
    assert np.median(slices) == pytest.approx(0.012, abs=0.0005)
    # a FIFO task waking on CPU 1 preempts the CFS hog immediately and runs to completion
    rt = Phase(name="rt", events=(Timer(10000), Run(1000)), loop=20)
    wl2 = workload([task("hog", [hog], cpus=[1]), task("rt", [rt], cpus=[1], policy="SCHED_FIFO", priority=50)],
                   calibration=20)
    tr2 = simulate("juno_r0", wl2, config=SimConfig(governor="performance", duration_s=0.3))
    log = tr2.df("lisa_sim_rtapp_log")
    rtlog = log[log["task"] == "rt"]
    assert len(rtlog) == 20
    assert (rtlog["wu_lat_us"] == 0).all()
    sw = tr2.df("sched_switch")
    rt_in = sw[(sw["next_comm"] == "rt")]
    assert (rt_in["prev_comm"].isin(["hog", "<idle>"])).all()
    assert (rt_in["next_prio"] == 49).all()


@pytest.mark.parametrize("board", ["hikey960", "juno_r0"])
def test_capacity_aware_wakeup_from_v5_7(board):
    """Without EAS: a task too big for a LITTLE CPU (mostly running there: util > capacity / 1.25),
    pinned on LITTLE CPU 0, is then let free and sleeps 1 ms. At that wake-up its previous CPU
    is idle. At v5.4 and v5.6 wake_cap() clears want_affine and SD_BALANCE_WAKE sends it to
    find_idlest_cpu() (ledger wake_cap-v4.16): the LITTLE group has less spare capacity (v4.x) or
    is misfit (v5.5) -> a big CPU; with the ablation "wake-slow-path" (a kernel without
    SD_BALANCE_WAKE) select_idle_sibling() on prev's LLC takes prev (target idle), as the kernel
    would; from v5.7 (sched_asym_cpucapacity) select_idle_capacity() skips the idle LITTLE CPUs it
    does not fit and wakes it on the first big CPU. The runs before v5.7 count those wake-ups."""
    plat = load_platform(board)
    little = min(plat.perf_domains, key=lambda d: d.cpu_capacity_max)
    big = max(plat.perf_domains, key=lambda d: d.cpu_capacity_max)
    pinned = Phase(name="pinned", events=(Run(3000), Sleep(500)), loop=50, cpus=(0,))
    free = Phase(name="free", events=(Sleep(1000), Run(3000), Sleep(5000)), loop=5, cpus=tuple(plat.cpus))
    wl = workload([task("heavy", [pinned, free])], calibration=20)
    assert 0 in little.cpus
    for era, target, ablate in (("v6.1", min(big.cpus), ()), ("v5.8", min(big.cpus), ()), ("v5.6", big.cpus, ()),
                                ("v5.4", big.cpus, ()), ("v5.4", 0, ("wake-slow-path",))):
        tr = simulate(plat, wl, config=SimConfig(placement="no-eas", era=era, governor="performance", ablate=ablate))
        log = tr.df("lisa_sim_rtapp_log")
        t_free = log.loc[log["phase"] == 1, "start_us"].min() / 1e6
        wakes = tr.df("sched_wakeup")
        woke = wakes[wakes.index > t_free + 0.0005].iloc[0]   # the end of the free phase's 1 ms sleep
        assert abs(woke.name - t_free - 0.001) < 1e-4, (woke.name, t_free)
        tu = tr.df("lisa_sim_task_util")
        util = int(tu[tu.index <= woke.name]["util_avg"].iloc[-1])
        assert util * 1280 > little.cpu_capacity_max * 1024, util      # does not fit a LITTLE CPU
        assert (woke["target_cpu"] in target) if isinstance(target, tuple) else woke["target_cpu"] == target, (era, woke)
        noted = [a for a in tr.metadata["approximations"] if "wake_cap()" in a]
        assert bool(noted) == (era in ("v5.4", "v5.6")), era
        if noted:                                           # the run counts the wake-ups concerned
            assert int(noted[0].split()[0]) >= 1
