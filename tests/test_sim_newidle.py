"""The newidle balance's early exit per era (ledger newidle-v4.14, newidle-v4.20, newidle-v5.16),
run through the simulator on scenes of two pinned tasks and one that may move, on HiKey960's
little CPUs 0 and 1 (placement no-eas, so the overutilized flag does not gate the pull; the
performance governor, so the run times do not move with the OPP).

The kernel's code the expected answers are worked from:

* ``idle_balance()`` (v4.x) / ``newidle_balance()`` up to v5.15 (read in a v5.15.202 tree):
  ``if (this_rq->avg_idle < sysctl_sched_migration_cost || !READ_ONCE(this_rq->rd->overload))
  goto out;`` with ``sysctl_sched_migration_cost`` = 500000 ns;
* ``newidle_balance()`` from c5b0a7eefc70 (v5.16; read in a v6.1.113 tree):
  ``if (!READ_ONCE(this_rq->rd->overload) || (sd && this_rq->avg_idle < sd->max_newidle_lb_cost))
  goto out;`` (``max_newidle_lb_cost`` is 0 in the simulator: it charges no time to balancing);
* ``rq->avg_idle``: 2 * 500000 at boot, then at each wake-up of the idle CPU
  ``avg_idle += (sample - avg_idle) / 8`` (``update_avg``), ``sample`` the idle period;
* ``add_nr_running()``: ``if (prev_nr < 2 && rq->nr_running >= 2) rd->overload = 1``; the
  root-level ``update_sd_lb_stats()`` rewrites it: a CPU with ``nr_running > 1``, from v4.20
  (757ffdd705ee) also a misfit task (``rq->misfit_task_load``, asymmetric capacities).
"""
from __future__ import annotations

import dataclasses

from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim import SimConfig, simulate

MS = 1_000_000


def _moving_scene():
    """a: always running, pinned to CPU 0; c: 200 us of every 500 us (wall time), pinned to CPU 1;
    b: 2 ms pinned to CPU 0, then always running, allowed on CPUs 0 and 1."""
    a = task("a", periodic(period_ms=100, duty_cycle_pct=100, duration_s=0.1, name="busy"), cpus=[0])
    c = task("c", periodic(period_ms=0.5, duty_cycle_pct=40, duration_s=0.1, runtime=True, name="short"), cpus=[1])
    pinned = dataclasses.replace(periodic(period_ms=2, duty_cycle_pct=100, duration_s=0.002, runtime=True,
                                          name="pinned")[0], cpus=(0,))
    free = dataclasses.replace(periodic(period_ms=98, duty_cycle_pct=100, duration_s=0.098, runtime=True,
                                        name="free")[0], cpus=(0, 1))
    return workload([a, c, task("b", (pinned, free))], calibration=20)


def _run(wl, era, *, ablate=(), balance_interval_ms=4.0):
    cfg = SimConfig(era=era, placement="no-eas", governor="performance", balance_interval_ms=balance_interval_ms,
                    duration_s=0.1, ablate=ablate)
    return simulate("hikey960", wl, config=cfg)


def _migrations(tr):
    m = tr.df_event("sched_migrate_task")
    return [(int(ts), r.comm, int(r.orig_cpu), int(r.dest_cpu)) for ts, r in zip(m["__ts"], m.itertuples())]


def _idle_entries(tr, cpu, after_ns=0):
    """CPU ``cpu``'s switches to idle after ``after_ns`` when its task went to sleep (the tasks'
    exits end the run: no balance follows them)."""
    sw = tr.df_event("sched_switch")
    return int(((sw["__cpu"] == cpu) & (sw["next_comm"] == "<idle>") & (sw["__ts"] > after_ns)
                & (sw["prev_state"] == 1)).sum())


def test_newidle_v5_15_skips_on_avg_idle_v5_16_pulls():
    """Ledger newidle-v5.16, worked by hand. No periodic balance runs (interval 10 s), so
    rd->overload, set when a and b were both queued on CPU 0 (add_nr_running: 2 tasks), is never
    cleared. b runs 16 - 32 ms on CPU 0 (CFS slices with a), widens its affinity to {0, 1} at
    18 ms, and waits on CPU 0 from 32 ms, when a preempts it. c's next sleep, at 32.2 ms, is
    CPU 1's newidle balance. Its avg_idle by then: 1000000 ns at boot, then every 500 us a 300 us
    sample: 300000 + 700000 * (7/8)^k, under 500000 from k = 10 (5 ms) on; about 300200 ns after
    the ~60 wake-ups before 32 ms.

    * v5.15: avg_idle (~300 us) < sysctl_sched_migration_cost (500 us): goto out, no pull; b never
      sleeps and no periodic balance runs, so b stays on CPU 0 for the whole run;
    * v5.16: rd->overload is 1 and avg_idle >= max_newidle_lb_cost (0): load_balance pulls the
      waiting b to CPU 1 at 32.2 ms.
    """
    wl = _moving_scene()
    old = _run(wl, "v5.15", balance_interval_ms=10_000.0)
    new = _run(wl, "v5.16", balance_interval_ms=10_000.0)
    assert _migrations(old) == []
    assert old.metadata["newidle_skipped"]["avg_idle"] > 0
    assert old.metadata["newidle_skipped"]["overload"] == 0           # rd->overload stays set
    assert _migrations(new) == [(32_200_000, "b", 0, 1)]
    assert "newidle_skipped" not in new.metadata                      # overload set: never stopped
    # the ablation puts the ungated pull back: v5.15 then pulls b as v5.16 does
    abl = _run(wl, "v5.15", ablate=("newidle-gate",), balance_interval_ms=10_000.0)
    assert _migrations(abl) == [(32_200_000, "b", 0, 1)]
    assert "newidle_skipped" not in abl.metadata


def test_no_overload_no_newidle_pull():
    """Ledger newidle-v4.14: a (20 % of 10 ms, CPU 0) and c (10 % of 500 us, CPU 1) never share a
    runqueue, so no runqueue reaches 2 tasks after the threads' start; the root-level balance
    (every 4 ms) writes rd->overload = 0 (no CPU with nr_running > 1, no misfit: a's util stays far
    under the little CPUs' 80 % fit), and from then on every newidle balance stops on
    !rd->overload (v5.16: the only test; v5.15: after the avg_idle one)."""
    a = task("a", periodic(period_ms=10, duty_cycle_pct=20, duration_s=0.1, runtime=True, name="a"), cpus=[0])
    c = task("c", periodic(period_ms=0.5, duty_cycle_pct=10, duration_s=0.1, runtime=True, name="c"), cpus=[1])
    wl = workload([a, c], calibration=20)
    for era in ("v5.15", "v5.16"):
        tr = _run(wl, era)
        assert _migrations(tr) == []
        stopped = tr.metadata["newidle_skipped"]
        later = _idle_entries(tr, 0, 8 * MS) + _idle_entries(tr, 1, 8 * MS)
        assert later > 100
        if era == "v5.16":
            assert stopped == {"avg_idle": 0, "overload": stopped["overload"]}
            assert stopped["overload"] >= later
        else:
            assert stopped["avg_idle"] + stopped["overload"] >= later
            assert stopped["overload"] > 0
    assert "newidle_skipped" not in _run(wl, "v5.16", ablate=("newidle-gate",)).metadata


def test_misfit_sets_overload_from_v4_20():
    """Ledger newidle-v4.20: a runs all the time on little CPU 0 (its util passes 80 % of the little
    capacity: a misfit task), c runs 10 % of 2 ms on CPU 1 (1.8 ms idle periods: avg_idle stays at
    or above 500 us, the avg_idle test never stops the balance). No runqueue holds 2 tasks.

    * v4.19: the root-level balance writes rd->overload = 0 (no CPU with nr_running > 1):
      CPU 1's newidle balances stop on !rd->overload;
    * v4.20: update_sg_lb_stats sets SG_OVERLOAD for the misfit task: rd->overload = 1 at each
      pass, the newidle balances go on (and find nothing to pull: a is pinned and running)."""
    a = task("a", periodic(period_ms=100, duty_cycle_pct=100, duration_s=0.1, name="busy"), cpus=[0])
    c = task("c", periodic(period_ms=2, duty_cycle_pct=10, duration_s=0.1, runtime=True, name="c"), cpus=[1])
    wl = workload([a, c], calibration=20)
    old, new = _run(wl, "v4.19"), _run(wl, "v4.20")
    assert _migrations(old) == _migrations(new) == []
    later = _idle_entries(old, 1, 20 * MS)
    assert later > 30
    assert old.metadata["newidle_skipped"]["avg_idle"] == 0
    assert old.metadata["newidle_skipped"]["overload"] >= later
    assert new.metadata.get("newidle_skipped", {"overload": 0})["overload"] <= _idle_entries(new, 1) - later
