"""rt-app ``suspend``/``resume`` in the simulator: a thread blocks on a named condition until
another thread's ``resume`` wakes it (rt-app: ``pthread_cond_wait`` / ``pthread_cond_broadcast``
under the condition's mutex, ``src/rt-app.c`` ``run_event``).

Expected runs are worked out by hand from rt-app's semantics (a resume wakes every thread
suspended at that instant and is lost if none is; the resumer keeps running), and each run is
also checked against the independently written reference engine
(``tests/reference/ref_sim_engine_sched.py``), event for event. The workload errors name the
task, the phase and the event.
"""
from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA
from reference.ref_sim_engine import ENGINE_DEVIATIONS, run_reference

from lisa_eas._kernels import sim_state as ss
from lisa_eas.errors import ModelError, WorkloadError
from lisa_eas.platform import load_platform
from lisa_eas.rtapp import Phase, Resume, RunTime, Sleep, Suspend, task, workload, workload_from_json
from lisa_eas.sim import SimConfig, simulate
from lisa_eas.sim._compile import compile_workload
from lisa_eas.sim._engine import build_run, run_loop

LOCAL = load_platform(DATA / "sim" / "local_2cpu.json")
CFG = SimConfig(placement="no-eas", governor="performance")
MS = 1_000_000


def _run(wl, t_end_ns, plat=LOCAL, config=CFG):
    compiled = compile_workload(wl, plat.nr_cpus)
    S, P, O, margin = build_run(plat, compiled, config, int(t_end_ns))
    raw = run_loop(S, P, O, margin)
    ref = run_reference(plat, compiled, config, int(t_end_ns), deviations=tuple(ENGINE_DEVIATIONS))
    for name in ("events", "activations", "res_busy", "res_idle"):
        a, b = getattr(raw, name), getattr(ref, name)
        assert a.shape == b.shape and np.array_equal(a, b), f"{name} differ between the numba and reference engines"
    assert raw.t_end == ref.t_end
    return raw, compiled


def _acts(raw, compiled, comm):
    """(start, end) ns of each logged activation of thread ``comm``."""
    t = [th.comm for th in compiled.threads].index(comm)
    a = raw.activations[raw.activations[:, ss.A_TASK] == t]
    return [(int(r[ss.A_START]), int(r[ss.A_END])) for r in a]


def _ping_pong(n, cpus=(None, None)):
    return workload([
        task("ping", [Phase(name="p", events=(RunTime(2000), Resume("pong"), Suspend("ping")), loop=n)],
             delay_us=1000, cpus=cpus[0]),
        task("pong", [Phase(name="p", events=(Suspend("pong"), RunTime(3000), Resume("ping")), loop=n)],
             cpus=cpus[1]),
    ], calibration=20)


def test_ping_pong_hands_over_every_activation():
    # by hand: ping starts at 1 ms, runs 2 ms, resumes pong (suspended since t = 0) and
    # suspends; pong runs 3 ms and resumes ping: a 5 ms cycle, ping's k-th loop from 1 + 5k ms,
    # pong's k-th from 0 (its first loop starts with the suspend) then 1 + 5k ms; a loop is logged at its
    # end (ping's after its suspend returns); 6 loops end at 31 ms
    raw, compiled = _run(_ping_pong(6), 100 * MS)
    ping, pong = _acts(raw, compiled, "ping"), _acts(raw, compiled, "pong")
    assert [s for s, _ in ping] == [(1 + 5 * k) * MS for k in range(6)]
    assert [e for _, e in ping] == [(1 + 5 * k + 5) * MS for k in range(6)]      # logged when resumed
    assert [s for s, _ in pong] == [0] + [(1 + 5 * k) * MS for k in range(1, 6)]
    assert [e for _, e in pong] == [(1 + 5 * k + 5) * MS for k in range(6)]
    assert raw.t_end == 31 * MS                                                  # both exited


def test_a_resume_nobody_waits_for_is_lost():
    # the resume at 0 comes before the waiter's suspend at 1 ms: the waiter blocks for good
    wl = workload([task("r", [Phase(name="p", events=(Resume("w"), RunTime(500)), loop=1)]),
                   task("w", [Phase(name="p", events=(Suspend("w"), RunTime(1000)), loop=1)], delay_us=1000)],
                  calibration=20)
    raw, compiled = _run(wl, 20 * MS)
    assert len(_acts(raw, compiled, "r")) == 1 and _acts(raw, compiled, "w") == []
    assert raw.t_end == 20 * MS                       # the run goes on to its end, w never exits


def test_a_resume_wakes_every_waiter():
    # three instances of w suspend on "w" at t = 0; r resumes "w" once at 1 ms: all three run
    wl = workload([task("w", [Phase(name="p", events=(Suspend("w"), RunTime(1000)), loop=1)], instance=3),
                   task("r", [Phase(name="p", events=(Sleep(1000), Resume("w")), loop=1)])], calibration=20)
    raw, compiled = _run(wl, 50 * MS)
    for k in range(3):
        ((start, end),) = _acts(raw, compiled, f"w-{k}")
        assert start == 0 and end >= 2 * MS          # woken at 1 ms, 1 ms of runtime (2 CPUs, 3 threads)
    ends = sorted(e for k in range(3) for _, e in _acts(raw, compiled, f"w-{k}"))
    assert ends[:2] == [2 * MS, 2 * MS] and ends[2] > 2 * MS


def test_a_wakee_on_the_resumers_cpu_waits_for_its_next_op():
    # both threads on CPU 0: pong, woken by ping's resume, cannot preempt ping in the middle of
    # the resume; ping's following suspend gives it the CPU at the same instant
    raw, compiled = _run(_ping_pong(4, cpus=((0,), (0,))), 100 * MS)
    ping, pong = _acts(raw, compiled, "ping"), _acts(raw, compiled, "pong")
    assert [s for s, _ in ping] == [(1 + 5 * k) * MS for k in range(4)]
    assert [e for _, e in pong] == [(1 + 5 * k + 5) * MS for k in range(4)]
    ev = raw.events
    sw = ev[(ev[:, ss.E_KIND] == ss.EV_SWITCH) & (ev[:, ss.E_CPU] == 0)]
    pid = {th.comm: i for i, th in enumerate(compiled.threads)}
    # every switch from ping to pong happens at ping's suspend, ping asleep (prev_state 1)
    hand = sw[(sw[:, ss.E_A] == pid["ping"]) & (sw[:, ss.E_C] == pid["pong"])]
    assert len(hand) == 4 and set(hand[:, ss.E_B].tolist()) == {ss.PREV_STATE_SLEEP}
    assert hand[:, ss.E_TIME].tolist() == [(1 + 5 * k + 2) * MS for k in range(4)]


def test_simulate_counts_the_idle_search_after_the_warm_up():
    tr = simulate(LOCAL, _ping_pong(20), config=CFG.replace(stats_from_s=0.05))
    st = tr.metadata["sis_stats"]
    # every wake-up of the run's second half went through select_idle_sibling on a 2-CPU LLC
    # with one CPU idle: found at once (target or prev) or by a scan of the other runqueue
    assert st["from_s"] == 0.05 and 0 < st["searches"] < 40 and st["found"] == st["searches"]
    assert st["dom_scanned"] == sum(k * n for k, n in enumerate(st["rqs_scanned_hist"]))


def test_workload_errors_name_the_event():
    only_resume = workload([task("a", [Phase(name="p1", events=(RunTime(10), Resume("b")), loop=1)])])
    with pytest.raises(ModelError, match=r"task 'a', phase 'p1': 'resume' 'b': no thread suspends on 'b'"):
        compile_workload(only_resume, 2)
    only_suspend = workload([task("a", [Phase(name="p1", events=(Suspend("a"), RunTime(10)), loop=1)])])
    with pytest.raises(ModelError, match=r"'suspend' 'a': no thread resumes 'a', so it blocks forever"):
        compile_workload(only_suspend, 2)
    spin = workload([task("a", [Phase(name="p", events=(Resume("b"), Suspend("a")), loop=-1)], loop=-1),
                     task("b", [Phase(name="p", events=(Suspend("b"), Resume("a")), loop=-1)], loop=-1)])
    with pytest.raises(ModelError, match="takes no time and loops forever"):
        compile_workload(spin, 2)
    assert only_resume.rtapp1_warnings() == ["task 'a', phase 'p1': resume 'b': no thread suspends on it, the "
                                             "resume wakes nobody"]
    with pytest.raises(WorkloadError, match="resume without a name"):
        workload_from_json('{"tasks": {"a": {"run": 10, "resume": ""}}}')


def test_suspend_resume_read_and_written_back():
    text = '{"tasks": {"a": {"loop": 3, "run": 10, "resume": "b", "suspend": ""}, ' \
           '"b": {"loop": 3, "suspend": "b", "run": 20, "resume": "a"}}, "global": {"calibration": 20}}'
    wl = workload_from_json(text)
    assert wl.task("a").phases[0].events[1:] == (Resume("b"), Suspend("a"))     # a bare suspend: the task's name
    again = workload_from_json(wl.to_json())
    assert again == wl
    assert compile_workload(wl, 2).cond_names == ("b", "a")
