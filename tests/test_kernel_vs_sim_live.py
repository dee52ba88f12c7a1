"""Live: rt-app on this machine (local target, its kernel's era) against the simulator running the
same workload on the probed platform, side by side (issue 18 section 4).

Under CI (LISA_EAS_CI=1) a missing precondition fails instead of skipping. Run under
`flock /tmp/lisa_live.lock`.
"""
from __future__ import annotations

import pytest
from conftest import require_live
from target_helpers import live_ready

pytestmark = pytest.mark.live

#: two tasks: one pinned to CPU 1, one free; ~1 s
WORKLOAD = {"global": {"duration": -1}, "tasks": {
    "vs_pin": {"loop": 1, "cpus": [1], "phases": {"p": {"loop": 60, "run": 3000,
                                                        "timer": {"ref": "a", "period": 16000}}}},
    "vs_free": {"loop": 1, "phases": {"p": {"loop": 48, "run": 5000, "timer": {"ref": "b", "period": 20000}}}}}}


def test_this_kernel_against_the_simulator(tmp_path, capsys):
    ok, why = live_ready()
    require_live(ok, why)
    from lisa_eas.repro import run_and_simulate
    from lisa_eas.target import connect, target_config_from_dict

    with connect(target_config_from_dict({"kind": "local", "name": "vs-local",
                                          "working_directory": str(tmp_path / "wd")})) as c:
        r = run_and_simulate(c, WORKLOAD, tmp_path / "run", progress=False)
    with capsys.disabled():
        print("\n" + r.to_text())
    t = r.table
    assert r.era.startswith("v") and set(t.index.get_level_values("task")) == {"vs_pin", "vs_free"}

    def m(task, metric):
        return float(t.loc[(task, metric), "measured"]), float(t.loc[(task, metric), "simulated"])

    for task, n in (("vs_pin", 60), ("vs_free", 48)):
        # both run every loop of the workload: the same activations
        assert m(task, "activations") == (n, n), task
        # the work: the simulator runs the loops at the run's fastest activation's ns per loop,
        # so every measured run lasts at least that (5 %: rt-app's per-task loop rounding and
        # clock reads); at most 2x at p50: preemption by the machine's other processes only
        # lengthens a run (measured +1..3 % with 93 % of the CPUs taken by others)
        mr, sr = m(task, "run_us_p50")
        assert 0.95 * sr <= mr <= 2.0 * sr, (task, mr, sr)
        # CPU time the task ran (the timeline's running spans): the same loops, plus what the
        # simulator leaves out (the task's own kernel time, rt-app's logging, cache refills after
        # a preemption): measured 1.07-1.10x idle, 1.36x and 1.61x with a numba compile on both
        # CPUs beside the run (cache refills after each preemption), so 2x
        # A preemption by a thread whose switches are not traced (the VM agent's), switched back
        # without a record, leaves the rest of that span out of runtime_s: runtime_untraced_s
        # bounds it (a CI run, the agent at 0.32 s of 1.76 s, traced vs_free 5.5 % below its loops)
        mt, st = m(task, "runtime_s")
        mu = m(task, "runtime_untraced_s")[0]
        assert 0.95 * st <= mt + mu and mt <= 2.0 * st, (task, mt, mu, st)
        # the simulator runs the workload alone, so a wake-up finds its CPU idle (latency 0) and
        # nothing delays the activation: the machine can only be later, and its slack smaller
        # (up to the 50 us timer slack of a CFS task's hrtimer plus clock reads: 200 us)
        ml, sl = m(task, "wu_lat_us_p50")
        assert sl <= ml + 1.0, (task, ml, sl)
        ms, ss = m(task, "slack_us_p50")
        assert ms <= ss + 200.0, (task, ms, ss)
        assert m(task, "overruns")[1] == 0
    # affinity holds on both. rt-app pins the thread itself once it has started (its thread set-up
    # calls sched_setaffinity), so on the machine the thread may first run on CPU 0 and move before
    # its first activation (once in 1 CI run of 3, twice in another): `migrations` counts from the
    # first activation, so none on either side, and no time on CPU 0 beyond the set-up
    mm, sm = m("vs_pin", "migrations")
    assert mm == 0 and sm == 0, (mm, sm)
    assert m("vs_pin", "cpu0_s")[0] < 0.005 and m("vs_pin", "cpu0_s")[1] == 0
    assert any("other processes took" in d or "work:" in d for d in r.differences)
    # the same from the CLI, on the run directory
    from lisa_eas.cli import main

    rc = main(["vs-sim", str(tmp_path / "run"), "--csv", str(tmp_path / "t.csv"), "--task", "vs_pin"])
    out = capsys.readouterr().out
    assert rc == 0 and "what differs and why" in out and "vs_pin" in out and "vs_free" not in out.split("what")[0]
    assert (tmp_path / "t.csv").read_text().startswith("task,metric,measured,simulated,difference")
