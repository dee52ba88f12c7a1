"""Invariants of simulated runs on random workloads, and PELT against the models."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lisa_eas.models.pelt import pelt_timeline
from pelt_sync_points import insert_syncs
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, Run, RunTime, Sleep, Timer, periodic, task, workload
from lisa_eas.sim import GOVERNORS, SimConfig, simulate
from lisa_eas.sim._energy import energy_from_trace
from lisa_eas.sim._output import PID_BASE

BOARDS = {b: load_platform(b) for b in ("hikey960", "juno_r0")}


@st.composite
def random_workload(draw):
    board = draw(st.sampled_from(sorted(BOARDS)))
    plat = BOARDS[board]
    n = draw(st.integers(1, 6))
    tasks = []
    for i in range(n):
        events = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["run", "runtime", "sleep", "timer"]))
            us = draw(st.integers(50, 6000))
            events.append({"run": Run, "runtime": RunTime, "sleep": Sleep}[kind](us) if kind != "timer"
                          else Timer(us + 2000, mode=draw(st.sampled_from([None, "absolute"]))))
        if not any(isinstance(e, (Run, RunTime)) for e in events):
            events.append(Run(draw(st.integers(100, 3000))))
        cpus = draw(st.one_of(st.none(), st.lists(st.sampled_from(plat.cpus), min_size=1, max_size=3,
                                                  unique=True)))
        fifo = draw(st.booleans()) and i == 0
        tasks.append(task(f"r{i}", [Phase(name="p", events=tuple(events), loop=draw(st.integers(1, 25)))],
                          cpus=cpus, policy="SCHED_FIFO" if fifo else None, priority=10 if fifo else None,
                          delay_us=draw(st.integers(0, 3000))))
    config = SimConfig(placement=draw(st.sampled_from(["eas", "eas-v5.0", "no-eas"])),
                       sis=draw(st.sampled_from(["util", "prop"])),
                       governor=draw(st.sampled_from(list(GOVERNORS))),
                       transition_latency_us=draw(st.sampled_from([0, 500])))
    return board, workload(tasks, calibration=20), config


def _running_intervals(trace):
    """(cpu, pid, start, end) of every stretch a task runs, from sched_switch."""
    sw = trace.df("sched_switch")
    end = trace.metadata["t_end_s"]
    out = []
    for c in sorted(set(sw["__cpu"])):
        s = sw[sw["__cpu"] == c]
        prev_next = 0
        t = s.index.to_numpy()
        nxt = s["next_pid"].to_numpy()
        prv = s["prev_pid"].to_numpy()
        for k in range(len(s)):
            # the task switched out is the one switched in before (one task per CPU at a time)
            assert prv[k] == prev_next, f"CPU {c} at {t[k]}: prev_pid {prv[k]} but {prev_next} was running"
            prev_next = nxt[k]
            if nxt[k] != 0:
                out.append((c, nxt[k], t[k], t[k + 1] if k + 1 < len(s) else end))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_workload())
def test_invariants_on_random_workloads(case):
    board, wl, config = case
    plat = BOARDS[board]
    trace = simulate(plat, wl, config=config)
    threads = trace.metadata["threads"]
    intervals = _running_intervals(trace)
    # a task never runs on two CPUs at once
    by_pid: dict = {}
    for c, pid, a, b in intervals:
        by_pid.setdefault(pid, []).append((a, b, c))
    for pid, iv in by_pid.items():
        iv.sort()
        for (a0, b0, _), (a1, _, _) in zip(iv, iv[1:]):
            assert a1 >= b0 - 1e-12, f"pid {pid} runs twice at {a1}"
    # affinity
    for t, th in zip(wl.tasks, threads):
        allowed = set(t.cpus) if t.cpus is not None else set(plat.cpus)
        ran = {c for c, pid, _, _ in intervals if pid == PID_BASE + threads.index(th)}
        assert ran <= allowed, (th, ran, allowed)
    # all requested work completes (the run ends when every task has exited)
    log = trace.df("lisa_sim_rtapp_log")
    for t, th in zip(wl.tasks, threads):
        rows = log[log["task"] == th]
        assert len(rows) == t.phases[0].loops
        ph = t.phases[0]
        work = sum(e.us for e in ph.events if isinstance(e, Run))
        if not any(isinstance(e, RunTime) for e in ph.events):
            assert (rows["perf"] == work).all()
        assert (rows["c_duration_us"] == ph.busy_us).all()
    # energy from the residency counters equals the integral of power over the trace
    e_res = trace.metadata["energy"]
    e_tr = energy_from_trace(trace, plat, t_end=trace.metadata["t_end_s"])
    assert e_tr["total"] == pytest.approx(e_res["total"], rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(e_tr["per_cpu"], e_res["per_cpu"], rtol=1e-9, atol=1e-9)


def _task_states(trace, pid, times):
    """State (0 sleeping, 1 runnable, 2 running) of ``pid`` after each of ``times``."""
    sw = trace.df("sched_switch")
    wk = trace.df("sched_wakeup")
    ev = []
    for k, (t, nxt, prv, pst) in enumerate(zip(sw["__ts"], sw["next_pid"], sw["prev_pid"], sw["prev_state"])):
        if nxt == pid:
            ev.append((t, 1, k, 2))
        elif prv == pid:
            ev.append((t, 1, k, 0 if pst else 1))
    for k, t in enumerate(wk.loc[wk["pid"] == pid, "__ts"]):
        ev.append((t, 0, k, 1))
    ev.sort()
    et = np.array([e[0] for e in ev])
    es = np.array([e[3] for e in ev])
    idx = np.searchsorted(et, times, side="right") - 1
    return np.where(idx >= 0, es[np.maximum(idx, 0)], 0)


@pytest.mark.parametrize("board, cpu, governor, era", [("hikey960", 0, "performance", "v5.4"),
                                                        ("hikey960", 2, "powersave", "v6.9"),
                                                        ("juno_r0", 1, "performance", "v5.0")])
def test_pelt_signals_equal_the_models_on_the_simulated_timeline(board, cpu, governor, era):
    plat = load_platform(board)
    pd = plat.domain_of(cpu)
    opp = pd.opps[-1] if governor == "performance" else pd.opps[0]
    phases = [periodic(duty_cycle_pct=d, period_ms=16, duration_s=0.4, name=f"p{d}")[0] for d in (10, 40, 5)]
    wl = workload([task("solo", phases, cpus=[cpu])], calibration=20)
    trace = simulate(plat, wl, config=SimConfig(governor=governor, era=era, placement="no-eas"))
    tu = trace.df("lisa_sim_task_util")
    times = tu["__ts"].to_numpy()
    states = _task_states(trace, PID_BASE, times)
    init = int(tu["util_avg"].iloc[0])
    pts = np.concatenate([[0], times])
    # the CPU runs at one OPP and the task alone: the PELT clock (v5.1+) is the rq's task clock
    # scaled while busy, which pelt_timeline rebuilds from the wall times; a wake-up's
    # sync_entity_load_avg (a blocked update at the cfs_rq's last update, idle: task clock)
    # is a point of its own (pelt_sync_points)
    axis, st_, blocked, given = insert_syncs(trace, PID_BASE, pts, pts, np.concatenate([[0], states]))
    assert era == "v5.0" or blocked.sum() > 20, "the little CPU's wake-ups should sync the task"
    model = pelt_timeline(axis, st_, cpu_capacity=pd.cpu_capacity_max, freq_scale=opp.freq_khz * 1024 // pd.fmax_khz,
                          era=era, util_avg=init, blocked=blocked)
    sim = tu[["util_avg", "util_est_ewma", "util_est_enqueued"]].to_numpy()
    mod = model[["util_avg", "util_est_ewma", "util_est_enqueued"]].to_numpy()[given][1:]
    # the rows at the very end are the zero-length last activation and the exit, where the
    # state timeline (one state per instant) cannot say the task ran; compare up to there
    keep = times < times[-1]
    assert keep.sum() > 200
    np.testing.assert_array_equal(sim[keep], mod[keep])
