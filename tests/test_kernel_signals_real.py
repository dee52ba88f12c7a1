"""compare_kernel_signals on two windows of real runs on this machine (6.18; provenance in
tests/data/runs/KS_SOURCES.md), each holding one way the trace misleads the model's feeding.

* ``ks_untraced_switch_in``: the task, runnable on CPU 1, is switched in by a switch the kernel
  does not trace (after the VM agent's thread) and next seen switching out. Its dequeue's own
  update (3 us before the switch-out record) must be flagged ``trace_gap``: compared with the
  model holding it runnable but not running for the whole span, util_avg was off by 38
  (1810 us of running: 1810 * 1024 / 47742 = 38.8) while runnable_avg was right.
* ``ks_delayed_dequeue``: a record of the sleeping task 117 us before its wake-up's
  ``sched_waking`` is the completion of a delayed dequeue, not the wake-up's enqueue update;
  taken for it, the wake-up moved back by 117 us and runnable_avg was off by 2-3.
* ``ks_wakeup_preempt_clock``: a wake-up preemption's switch, 290 us after the wake-up
  (PREEMPT_NONE: the preempted task was in the kernel), ran on the wake-up's rq clock
  (``rq_clock_skip_update()``): the task switched in accrues running from the wake-up.
  Placed at the switch record, util_avg was low by 6.
* ``ks_tick_before_switch_out``: a tick's record 198 us before a switch-out (a wake-up
  preemption) is not the switch-out's update; taken for it, util_avg was low by 4.
* ``ks_tick_after_wakeup``: a tick between a wake-up and the switch it causes updates the rq
  clock (its record shows it): the switch runs on the tick's clock, not the wake-up's.
* ``ks_wakeup_on_idle``: a task woken on an idle CPU is switched in 7-30 us after its wake-up,
  but on the wake-up's rq clock (the idle task is always queued, so the wake-up's
  ``wakeup_preempt()`` skips ``__schedule()``'s clock update too): placed at the switch
  records, util_avg was low by 2 (3 in the whole run, the fresh-clone CI failure's 2.4).
* ``ks_wakeup_behind_untraced``: the VM agent's thread is woken onto idle CPU 1 and switched in
  with no ``sched_switch``; the task woken there 1 ms later waits behind it, and its switch-in
  is not traced either. The CPU was taken for idle (its last traced switch was to swapper), the
  task for running from its wake-up: util_avg high by up to 54 (p99 45.9 over the run).
* ``ks_wakeup_update_interrupted``: the task's wake-up on idle CPU 1 writes ``sched_waking``,
  its own PELT update 8 us later, then nothing for 155 us (its group's update), then
  ``sched_wakeup``: 161 us between the enqueue's update and the record, beyond
  ``OWN_UPDATE_S``. The task was taken as running from the record: util_avg 3-4 low for ~10
  samples (a live run's p99 3, max 4, on a quiet machine).
* ``ks_dequeue_update_interrupted``: the dequeue to sleep writes its ``sched_util_est_se``
  record and its own PELT update, and its ``sched_switch`` only 161 us later. The update, a
  point of its own, was taken for the "previous update" whose util v6.12+ ``util_est_update()``
  samples: ewma 19 high, decaying over 5 dequeues (a live run's util_est p99 12.5).
* ``ks_shared_stale_clocks``: two tasks sharing CPU 1 (both tasks' records kept). An update of
  the running task on a 130 us old rq clock 28 us before its preemption was taken for the
  switch-out's own update (which crossed no period and wrote no record; the next task's record
  in the same ``__schedule()`` shows the fresh clock): running ended 155 units early, util 3
  low. And a task woken on idle CPU 1 with an enqueue on a 153 us old clock, the other task
  woken by the same timer on a fresh one: the untraced switch out of idle ran on the fresh
  clock, the model had it running from the stale one, util 3 high.
* ``ks_wakeup_behind_invisible``: a task woken in the idle task's context on CPU 1, then nothing
  traced there for 2.3 ms: something ran with no record at all (its wake-up not traced
  either), and the task waited. The timeline took it for running from its wake-up (the CPU
  looked idle); its own next sample says otherwise (util_avg fell, runnable_avg grew): util 49
  high until then.
* ``ks_wakeup_outranked``: the idle task of CPU 1 wakes the task and, 2 us later, the VM agent's
  thread (nice -10) onto it; the agent's thread runs first, untraced, and so does the task's
  switch-in ~2.3 ms later. The timeline took the task for running from its wake-up: util 45 high
  at its dequeue (kernel 149, runnable 215: it ran about half of the 4.3 ms).
* ``ks_dequeue_stale_clock``: a dequeue to sleep on an rq clock 164 us stale that crossed no
  period (no PELT record), its util_est record 2 us before the switch-out: placed at the switch
  record, the task ran 161 units too long (runnable_avg 3 high for ~10 samples).
"""
from __future__ import annotations

import lzma
import shutil
from pathlib import Path

import pytest

from lisa_eas.analysis.validate import compare_kernel_signals
from lisa_eas.analysis.validate._switch_clock import switch_clock_times
from lisa_eas.trace import read_trace

DATA = Path(__file__).parent / "data" / "runs"


def _run(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    for f in ("kernel_signals.bin", "kernel_signals.bin.json"):
        shutil.copy(DATA / name / f, d / f)
    (d / "trace.txt").write_bytes(lzma.decompress((DATA / name / "trace.txt.xz").read_bytes()))
    return read_trace(d, cache=False)


def test_untraced_switch_in_span_is_flagged_from_its_start(tmp_path):
    rows, _, s = compare_kernel_signals(_run(tmp_path, "ks_untraced_switch_in"), tasks=["ks_per"], clock="pelt")
    gap = rows[rows["trace_gap"]]
    # the dequeue's own update at 22109.529523 is in the flagged span, and it is the one the
    # model cannot know (util off by ~38 there, runnable right)
    at = gap[(gap["time"] - 22109.529523).abs() < 1e-6]
    assert len(at) == 1
    assert abs(int(at["model_util"].iloc[0]) - int(at["kernel_util"].iloc[0])) > 30
    assert abs(int(at["model_runnable"].iloc[0]) - int(at["kernel_runnable"].iloc[0])) <= 1
    assert s["util"]["n"] >= 15 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_record_before_the_wakeups_waking_is_not_its_update(tmp_path):
    rows, _, s = compare_kernel_signals(_run(tmp_path, "ks_delayed_dequeue"), tasks=["ks_per"], clock="pelt")
    # the delayed-dequeue completion record: load above runnable (the kernel's own delayed time)
    dd = rows[(rows["time"] - 22626.536116).abs() < 1e-6]
    assert len(dd) == 1 and int(dd["kernel_delayed_load"].iloc[0]) > 100
    assert s["runnable"]["n"] >= 25 and s["runnable"]["max"] <= 1 and s["util"]["max"] <= 1
    assert s["load_beyond_delayed"]["max"] <= 1


@pytest.mark.parametrize("name", ["ks_untraced_switch_in", "ks_delayed_dequeue", "ks_wakeup_preempt_clock",
                                  "ks_tick_before_switch_out", "ks_tick_after_wakeup", "ks_wakeup_on_idle",
                                  "ks_wakeup_behind_untraced", "ks_wakeup_update_interrupted",
                                  "ks_dequeue_update_interrupted", "ks_shared_stale_clocks",
                                  "ks_wakeup_behind_invisible", "ks_dequeue_stale_clock",
                                  "ks_migrated_first_sleep", "ks_migrated_sleep_at_start",
                                  "ks_wakeup_outranked"])
def test_windows_read_back(tmp_path, name):
    t = _run(tmp_path, name)
    assert {"sched_switch", "sched_wakeup", "sched_waking", "sched_pelt_se", "sched_util_est_se"} <= set(t.events)


# runnable_avg_yN_inv[1], [2] (kernel/sched/sched-pelt.h) and LOAD_AVG_MAX, for the hand-worked sums
_Y = {1: 0xfa83b2da, 2: 0xf5257d14, 3: 0xefe4b99a, 12: 0xc5672a10}
_LAM = 47742


def _decay(v, n):
    return (v * _Y[n]) >> 32


def _clock_of(trace, cpu, t):
    sw = switch_clock_times(trace)
    k = (cpu, int(round(t * 1e9)))
    return sw.get(k)


def test_a_wakeup_preemption_switch_runs_on_the_wakeups_rq_clock(tmp_path):
    t = _run(tmp_path, "ks_wakeup_preempt_clock")
    # ks_per woken on CPU 1 at 34430.860246 (its enqueue record 34430.860243: util_sum 5491846,
    # period_contrib 966); python-2542, preempted, leaves the CPU only at 34430.860536
    assert _clock_of(t, 1, 34430.860536) == pytest.approx(34430.860246, abs=1e-6)
    # Hand-worked (kernel/sched/pelt.c accumulate_sum, v6.18): the dequeue record 2056192 ns of
    # PELT clock later (2008 units of 1024 ns; + 966 = 2974: 2 periods, 926 left) holds
    # util_sum 7288577 = decay(5491846, 2) + (decay(1024 - 966, 2) + LOAD_AVG_MAX
    # - decay(LOAD_AVG_MAX, 2) - 1024 + 926) << 10: running for the whole span, from the
    # wake-up's clock; running from the switch record instead (283 units later) gives 147.
    full = _decay(5491846, 2) + ((_decay(58, 2) + _LAM - _decay(_LAM, 2) - 1024 + 926) << 10)
    assert full == 7288577 and full // (_LAM - 1024 + 926) == 152
    s1 = _decay(5491846, 1)                  # the switch's own update: 283 + 966 units, 1 period, 225 left
    late = _decay(s1, 1) + ((_decay(1024 - 225, 1) + _LAM - _decay(_LAM, 1) - 1024 + 926) << 10)
    assert late // (_LAM - 1024 + 926) == 147
    rows, _, s = compare_kernel_signals(t, tasks=["ks_per"], clock="pelt")
    at = rows[(rows["time"] - 34430.862301).abs() < 1e-6]
    assert len(at) == 1 and int(at["kernel_util"].iloc[0]) == 152
    assert abs(int(at["model_util"].iloc[0]) - 152) <= 1          # the model fed at the switch record: 146
    assert s["util"]["n"] >= 30 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_tick_record_before_a_switch_out_is_not_its_update(tmp_path):
    t = _run(tmp_path, "ks_tick_before_switch_out")
    se = t.df("sched_pelt_se")
    # ks_mig's record at 34219.616010 (a tick) is 198 us before its switch-out at 34219.616208,
    # a preemption by memfd:sealed-91 woken at 34219.616202: the switch-out ran on that
    # wake-up's clock, 192 us after the tick
    tick = se[(se.index.to_numpy() - 34219.616010).__abs__() < 1e-6]
    assert len(tick) == 1
    assert _clock_of(t, 0, 34219.616208) == pytest.approx(34219.616202, abs=1e-6)
    rows, _, s = compare_kernel_signals(t, tasks=["ks_mig"], clock="pelt")
    # the next record (34219.624036, the switch-in's update) was off by 4 with the switch-out
    # moved back to the tick: 191 us of running, 191 * 1024 / 47742 = 4.1
    nxt = rows[(rows["time"] - 34219.624036).abs() < 1e-6]
    assert len(nxt) == 1 and abs(int(nxt["model_util"].iloc[0]) - int(nxt["kernel_util"].iloc[0])) <= 1
    assert s["util"]["n"] >= 25 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_tick_between_wakeup_and_switch_moves_the_switchs_clock(tmp_path):
    t = _run(tmp_path, "ks_tick_after_wakeup")
    # ks_per woken on CPU 1 at 34501.567809; python-29503's tick record at 34501.568014 shows
    # the rq clock updated 204 us later; the switch at 34501.568026 runs on that clock (the
    # skip spares only __schedule()'s own update): with the wake-up's clock the model's util
    # was high by 4 after it, and after a switch on a remote wake-up's clock at 34501.604068
    # (the tick and a load balance updated the clock since) low by 18-21
    c = _clock_of(t, 1, 34501.568026)
    assert c is not None and 34501.568005 < c < 34501.568026
    assert 34501.604040 < _clock_of(t, 1, 34501.604068) < 34501.604068
    _, _, s = compare_kernel_signals(t, tasks=["ks_per"], clock="pelt")
    assert s["util"]["n"] >= 20 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_switch_out_of_idle_runs_on_the_wakeups_rq_clock(tmp_path, monkeypatch):
    import lisa_eas.analysis.validate._switch_clock as switch_clock

    t = _run(tmp_path, "ks_wakeup_on_idle")
    # ks_mig woken on idle CPU 0 at 46425.509304 (its enqueue record 46425.509291: util_sum
    # 4382653, period_contrib 827, last_update_time 46387229944832); swapper/0 hands over at
    # 46425.509334, 30 us later, on the wake-up's rq clock
    assert _clock_of(t, 0, 46425.509334) == pytest.approx(46425.509304, abs=1e-6)
    # Hand-worked (kernel/sched/pelt.c accumulate_sum, v6.18): the dequeue record at
    # 46425.511053 (PELT clock clock_pelt - lost_idle_time = 46387231710692) is 1724 units after
    # A's last_update_time; + 827 = 2551: 2 periods, 503 left. Running from the wake-up's clock:
    full = _decay(4382653, 2) + ((_decay(1024 - 827, 2) + _LAM - _decay(_LAM, 2) - 1024 + 503) << 10)
    assert full == 5929450 and full // (_LAM - 1024 + 503) == 125          # the kernel's sums and util_avg
    # running from the switch record (42.6 us of PELT clock after A: the pick's update, 42 units,
    # no period crossed, period_contrib 869), runnable but not running before it:
    late = _decay(4382653, 2) + ((_decay(1024 - 869, 2) + _LAM - _decay(_LAM, 2) - 1024 + 503) << 10)
    assert late == 5888490 and late // (_LAM - 1024 + 503) == 124
    rows, _, s = compare_kernel_signals(t, tasks=["ks_mig"], clock="pelt")
    at = rows[(rows["time"] - 46425.511053).abs() < 1e-6]
    assert len(at) == 1 and int(at["kernel_util"].iloc[0]) == 125 == int(at["model_util"].iloc[0])
    assert s["util"]["n"] >= 25 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1
    # the switches out of idle placed at their records, as before: the window's 15 wake-ups on
    # the idle CPU each leave 7-30 us of running out (0.15-0.65 of util_avg), which accumulate
    # at 16 ms periods, and the model falls 2 low
    monkeypatch.setattr(switch_clock, "IDLE_PREV", False)
    _, _, old = compare_kernel_signals(t, tasks=["ks_mig"], clock="pelt")
    assert old["util"]["max"] >= 2 and old["util"]["p50"] >= 1


def _assert_waited_then_ran_untraced(tl, pid, t_wake, t_out):
    """The task's wake-up row is runnable (not running from the wake-up) and the switch-out that
    ends the span is flagged ``untraced_switch_in`` (it ran there, when is unknown)."""
    from lisa_eas.analysis._common import STATE_RUNNABLE

    rows = tl[tl["pid"] == pid]
    woke = rows[(rows["time"] - t_wake).abs() < 1e-6]
    out = rows[(rows["time"] - t_out).abs() < 1e-6]
    assert len(woke) == 1 and int(woke["state"].iloc[0]) == STATE_RUNNABLE
    assert len(out) == 1 and bool(out["untraced_switch_in"].iloc[0])


def test_a_wakeup_behind_an_untraced_switch_in_is_not_taken_as_running(tmp_path):
    from lisa_eas.analysis._common import task_timeline

    t = _run(tmp_path, "ks_wakeup_behind_untraced")
    tl = task_timeline(t)
    # CPU 1's last traced switch is to swapper/1 (46977.676027); tokio-rt-worker (pid 75) is
    # woken onto it at 46977.679582 and runs with no sched_switch into it; ks_mig (pid 9612),
    # woken onto it at 46977.680526, is next seen switching out at 46977.685321
    _assert_waited_then_ran_untraced(tl, 9612, 46977.680526, 46977.685321)
    rows, _, s = compare_kernel_signals(t, tasks=["ks_mig"], clock="pelt")
    # the kernel's util at 46977.684016 is 109 with runnable 182: it had run little of its
    # runnable time; the model running it from the wake-up had 163. Flagged now, not compared.
    at = rows[(rows["time"] - 46977.684016).abs() < 1e-6]
    assert len(at) == 1 and bool(at["trace_gap"].iloc[0])
    assert s["util"]["n"] >= 12 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_wakeup_outranked_on_the_idle_cpu_is_not_taken_as_running(tmp_path):
    from lisa_eas.analysis._common import task_timeline

    t = _run(tmp_path, "ks_wakeup_outranked")
    tl = task_timeline(t)
    # CPU 1's last traced switch is to swapper/1 (51319.373239); its idle task wakes ks_sh1 (pid
    # 30673, prio 120) at 51319.377773 and tokio-rt-worker (prio 110) at 51319.377775; ks_sh1 is
    # next seen switching out at 51319.382076
    _assert_waited_then_ran_untraced(tl, 30673, 51319.377773, 51319.382076)
    # its own prints start 2.3 ms after the wake-up: it was not running before
    prints = t.df("print")
    first = prints[(prints["__pid"].to_numpy() == 30673) & (prints.index.to_numpy() > 51319.377773)].index[0]
    assert first == pytest.approx(51319.380056, abs=1e-6)
    rows, _, s = compare_kernel_signals(t, tasks=["ks_sh1"], clock="pelt")
    # the dequeue's sample: kernel util 149 with runnable 215 (4.30 ms runnable, about half of it
    # running: the model running it from the wake-up had 194). Flagged now, not compared.
    at = rows[(rows["time"] - 51319.382074).abs() < 1e-6]
    assert len(at) == 1 and int(at["kernel_util"].iloc[0]) == 149 and bool(at["trace_gap"].iloc[0])
    assert s["util"]["n"] >= 12 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_an_equal_priority_wakeup_after_the_task_does_not_outrank_it(tmp_path):
    """The first of two nice-0 tasks woken together on idle CPU 1 runs first (the same window as
    the stale-clock test): the rule above is about a higher-priority task only."""
    from lisa_eas.analysis._common import STATE_RUNNING, task_timeline

    t = _run(tmp_path, "ks_shared_stale_clocks")
    tl = task_timeline(t)
    sh2 = tl[tl["pid"] == 26896]
    woke = sh2[(sh2["time"] > 12958.25707) & (sh2["time"] < 12958.2573)]
    assert len(woke) == 1 and int(woke["state"].iloc[0]) == STATE_RUNNING


def test_replay_script_reproduces_the_kernels_sums_from_the_wakeup(tmp_path):
    """scripts/ks_replay_sums.py (v6.18 accumulate_sum by hand, no lisa_eas model) on the idle
    window: every dequeue after a wake-up on the idle CPU is reproduced to the unit from the
    wake-up's clock, none from the switch record."""
    import subprocess
    import sys

    _run(tmp_path, "ks_wakeup_on_idle")
    script = Path(__file__).parent.parent / "scripts" / "ks_replay_sums.py"
    r = subprocess.run([sys.executable, str(script), str(tmp_path / "ks_wakeup_on_idle"), "ks_mig"],
                       capture_output=True, text=True, check=True)
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("14 spans: B's util_sum reproduced exactly from the wake-up's clock in 14, "
                           "from the switch record in 0"), last


def test_a_wakeup_update_between_waking_and_wakeup_is_the_wakeups_own(tmp_path):
    t = _run(tmp_path, "ks_wakeup_update_interrupted")
    # ks_per (pid 29451) woken on idle CPU 1: sched_waking 10849.278242, its sched_pelt_se record
    # A at 10849.278250 (util_sum 7322426, period_contrib 27, last_update_time 10845752945664),
    # sched_wakeup 10849.278411 (161 us, 157 units of 1024 ns, after A); its switch-in (out of
    # idle) is not traced. Hand-worked (kernel/sched/pelt.c accumulate_sum, v6.18): the tick
    # record B at 10849.280013 (last_update_time 10845754715136) is 1728 units after A; + 27 =
    # 1755: 1 period, 731 left. Running from A (the enqueue's rq clock):
    full = _decay(7322426, 1) + ((_decay(1024 - 27, 1) + _LAM - _decay(_LAM, 1) - 1024 + 731) << 10)
    assert full == 8912465 and full // (_LAM - 1024 + 731) == 187        # B's util_sum and util_avg
    # running from the sched_wakeup record (157 units later, no period crossed: period_contrib 184):
    late = _decay(7322426, 1) + ((_decay(1024 - 184, 1) + _LAM - _decay(_LAM, 1) - 1024 + 731) << 10)
    assert late // (_LAM - 1024 + 731) == 184
    rows, _, s = compare_kernel_signals(t, tasks=["ks_per"], clock="pelt")
    at = rows[(rows["time"] - 10849.280013).abs() < 1e-6]
    assert len(at) == 1 and int(at["kernel_util"].iloc[0]) == 187
    assert abs(int(at["model_util"].iloc[0]) - 187) <= 1        # taken from the record: 183
    assert s["util"]["n"] >= 25 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_dequeue_update_after_its_util_est_record_is_the_dequeues_own(tmp_path):
    t = _run(tmp_path, "ks_dequeue_update_interrupted")
    # ks_per (pid 32053) on CPU 1: a tick record at 11016.052014 (util_avg 210), then the dequeue
    # to sleep: its sched_util_est_se record and its own sched_pelt_se record (util_avg 231) at
    # 11016.053268, its sched_switch at 11016.053429, 161 us later (> OWN_UPDATE_S). Hand-worked
    # (kernel/sched/fair.c util_est_update(), v6.18, called in dequeue_task_fair() before
    # dequeue_entities() updates the entity): ewma 212 (the previous record, 11016.037534),
    # dequeued = task_util() = 210, the tick's; 212 > 210 and 212 - 210 = 2 < UTIL_EST_MARGIN
    # (SCHED_CAPACITY_SCALE / 100 = 10): the EWMA is kept, 212 (the record says 212, util 210).
    # Sampling the dequeue's own update instead: 212 <= 231, so ewma = 231.
    rows, ue, s = compare_kernel_signals(t, tasks=["ks_per"], clock="pelt")
    at = ue[(ue["time"] - 11016.053268).abs() < 1e-6]
    assert len(at) == 1 and int(at["kernel_ewma"].iloc[0]) == 212 and int(at["kernel_util"].iloc[0]) == 210
    assert int(at["model_util"].iloc[0]) == 210                   # the sampled util: the tick's (was 231)
    assert int(at["step_ewma"].iloc[0]) == 212 and int(at["model_ewma"].iloc[0]) == 212
    assert s["util_est_ewma"]["n"] >= 8 and s["util_est_ewma"]["max"] <= 1 and s["util"]["max"] <= 1


def test_a_record_on_a_stale_clock_before_a_switch_is_not_its_update(tmp_path):
    t = _run(tmp_path, "ks_shared_stale_clocks")
    # ks_sh2 (pid 26896) running on CPU 1: its record A at 12958.180150 (util_sum 9567508,
    # period_contrib 762, last_update_time 12954326788096) was written on an rq clock ~130 us
    # old; it is preempted by ks_sh1 at 12958.180178, and ks_sh1's record in that __schedule()
    # (12958.180176) shows the switch's PELT clock, 12954326946816: 155 units after A, no period
    # crossed (762 + 155 = 917), so ks_sh2's put_prev update wrote no record. Hand-worked
    # (kernel/sched/pelt.c accumulate_sum, v6.18): running 155 units, then runnable to its
    # switch-in record B at 12958.182218 (last_update_time 12954328984576: 1990 units, + 917 =
    # 2907: 2 periods, 859 left)
    full = _decay(9567508 + (155 << 10), 2)
    assert full == 9313867 and full // (_LAM - 1024 + 859) == 195        # B's util_sum and util_avg
    assert _decay(9567508, 2) // (_LAM - 1024 + 859) == 192              # running ended at A's clock
    rows, _, s = compare_kernel_signals(t, tasks=["ks_sh1", "ks_sh2"], clock="pelt")
    at = rows[((rows["time"] - 12958.182218).abs() < 1e-6) & (rows["pid"] == 26896)]
    assert len(at) == 1 and int(at["kernel_util"].iloc[0]) == 195
    assert abs(int(at["model_util"].iloc[0]) - 195) <= 1
    assert s["util"]["n"] >= 30 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_switch_out_of_idle_runs_on_the_latest_wakeups_clock(tmp_path):
    t = _run(tmp_path, "ks_shared_stale_clocks")
    # One timer wakes both tasks on idle CPU 1: ks_sh2's sched_waking at 12958.257077, its
    # enqueue record C at 12958.257230 on a clock 153 us old (util_sum 7070777, period_contrib
    # 242, last_update_time 12954403850240), ks_sh1's enqueue record at 12958.257236 on a fresh
    # one (12954404006912: 153 units later); ks_sh2's switch-in, out of idle, is not traced and
    # reuses the latest rq clock (rq_clock_skip_update). Hand-worked (accumulate_sum, v6.18):
    # runnable 153 units (242 + 153 = 395), then running to the tick record at 12958.260013
    # (last_update_time 12954406782976: 2711 units, + 395 = 3106: 3 periods, 34 left)
    full = _decay(7070777, 3) + ((_decay(1024 - 395, 3) + _LAM - _decay(_LAM, 3) - 1024 + 34) << 10)
    assert full == 9291382 and full // (_LAM - 1024 + 34) == 198        # the tick's util_sum and util_avg
    stale = _decay(7070777, 3) + ((_decay(1024 - 242, 3) + _LAM - _decay(_LAM, 3) - 1024 + 34) << 10)
    assert stale // (_LAM - 1024 + 34) == 201                            # running from C's clock
    rows, _, s = compare_kernel_signals(t, tasks=["ks_sh1", "ks_sh2"], clock="pelt")
    at = rows[((rows["time"] - 12958.260013).abs() < 1e-6) & (rows["pid"] == 26896)]
    assert len(at) == 1 and int(at["kernel_util"].iloc[0]) == 198
    assert abs(int(at["model_util"].iloc[0]) - 198) <= 1


def test_a_wakeup_the_tasks_own_samples_show_it_waited_through_is_not_running(tmp_path):
    from lisa_eas.analysis._common import STATE_RUNNING, task_timeline

    t = _run(tmp_path, "ks_wakeup_behind_invisible")
    # ks_sh2 (pid 30759) woken on CPU 1 at 13287.658998 in the idle task's context (the CPU
    # looked idle: the timeline runs it from the wake-up); nothing else is traced on CPU 1 until
    # its preemption at 13287.664039. Its own records: 13287.658997 (the enqueue) util_avg 141,
    # runnable_avg 157; 13287.661344 util_avg 134, runnable_avg 198. util_sum accrues only while
    # running and runnable_sum while on the runqueue (kernel/sched/pelt.c accumulate_sum): util
    # fell and runnable grew, so it waited for part of that span, behind something untraced
    tl = task_timeline(t)
    row = tl[(tl["pid"] == 30759) & ((tl["time"] - 13287.658998).abs() < 1e-6)]
    assert len(row) == 1 and int(row["state"].iloc[0]) == STATE_RUNNING    # the timeline's inference
    se = t.df("sched_pelt_se")
    a = se[(se["pid"] == 30759) & ((se.index.to_numpy() - 13287.658997) ** 2 < 1e-12)]
    b = se[(se["pid"] == 30759) & ((se.index.to_numpy() - 13287.661344) ** 2 < 1e-12)]
    assert (int(a["util"].iloc[0]), int(a["runnable"].iloc[0])) == (141, 157)
    assert (int(b["util"].iloc[0]), int(b["runnable"].iloc[0])) == (134, 198)
    rows, _, s = compare_kernel_signals(t, tasks=["ks_sh1", "ks_sh2"], clock="pelt")
    # the span is one whose switch-in was not traced: its samples are flagged, not compared (the
    # model running the task from the wake-up had 183 and 228 for the kernel's 134 and 182)
    at = rows[(rows["pid"] == 30759) & (rows["time"] > 13287.6590) & (rows["time"] < 13287.6645)]
    assert len(at) == 2 and at["trace_gap"].all()
    assert s["util"]["n"] >= 40 and s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_a_dequeue_without_a_pelt_record_is_on_its_util_est_records_clock(tmp_path):
    t = _run(tmp_path, "ks_dequeue_stale_clock")
    # ks_mig (pid 895) on CPU 1: a tick record T at 13514.256014 (util_sum 9036354, runnable_sum
    # 10837873, period_contrib 143, last_update_time 13510396492800); its dequeue to sleep writes
    # its sched_util_est_se record at 13514.256814 with clock_pelt 13510397129400 (lost_idle_time
    # 0; the rq clock 164 us behind the record's time) and no PELT record (143 + 621 < 1024); the
    # switch-out record is at 13514.256816. Hand-worked (accumulate_sum, v6.18): running
    # (13510397129400 - 13510396492800) >> 10 = 621 units, then asleep to the wake-up's enqueue
    # record W at 13514.269400 (last_update_time 13510409877504: 13071 units from T, + 143 =
    # 13214: 12 periods, 926 left)
    assert (13510397129400 - 13510396492800) >> 10 == 621
    util_sum = _decay(9036354 + (621 << 10), 12)
    runnable_sum = _decay(10837873 + (621 << 10), 12)
    assert (util_sum, runnable_sum) == (7458330, 8847491)                # W's sums, to the unit
    assert (util_sum // (_LAM - 1024 + 926), runnable_sum // (_LAM - 1024 + 926)) == (156, 185)
    # running to the switch record (~783 units) instead: runnable_avg 188
    assert _decay(10837873 + (783 << 10), 12) // (_LAM - 1024 + 926) == 188
    rows, _, s = compare_kernel_signals(t, tasks=["ks_mig"], clock="pelt")
    at = rows[(rows["time"] - 13514.269400).abs() < 1e-6]
    assert len(at) == 1 and int(at["kernel_runnable"].iloc[0]) == 185
    assert abs(int(at["model_runnable"].iloc[0]) - 185) <= 1 and abs(int(at["model_util"].iloc[0]) - 156) <= 1
    assert s["util"]["max"] <= 1 and s["runnable"]["max"] <= 1


def test_the_first_sleep_after_a_wakeup_migration_keeps_the_unchanged_flag(tmp_path):
    t = _run(tmp_path, "ks_migrated_first_sleep")
    # ks_per (pid 4963), just forked on CPU 0, sleeps in D at 13694.109135 while migration/0 moves
    # it to CPU 1; its util_est_update() there wrote ewma 294 with UTIL_AVG_UNCHANGED (bit 31)
    ue = t.df("sched_util_est_se")
    assert int(ue["util_est_raw"].iloc[0]) == 0x80000000 | 294
    # woken on CPU 1 at 13694.109173 (attach_entity_load_avg: no entity update), it runs 2.8 ms
    # (no tick) and is dequeued at 13694.111999 (the root's util_est drops by its 294 there), its
    # switch-out record 154 us later; the dequeue's own PELT record (util 335) comes after
    # util_est_update() (v6.12+ dequeue_task_fair order)
    uc = t.df("sched_util_est_cfs")
    drop = uc[(uc.index.to_numpy() > 13694.1118) & (uc.index.to_numpy() < 13694.1121)]
    assert drop["enqueued"].tolist() == [0]
    se = t.df("sched_pelt_se")
    assert se[(se.index.to_numpy() > 13694.1092) & (se.index.to_numpy() < 13694.1122)]["util"].tolist() == [335]
    # Hand-worked (util_est_update, kernel/sched/fair.c v6.18): the flag is still set there, so it
    # returns early (no record: the next one is at 13694.128213); at that next dequeue
    # dequeued = task_util >= 294, so ewma = dequeued (the kernel's 295, the model's util there).
    # Updating at the first sleep instead (util 335 >= 294: ewma 335) then gives, with util 298,
    # ((335 << 2) - (335 - 298)) >> 2 = 325
    assert ((335 << 2) - (335 - 298)) >> 2 == 325
    assert ue.index[1] == pytest.approx(13694.128213, abs=1e-6) and int(ue["ewma"].iloc[1]) == 295
    _, u, s = compare_kernel_signals(t, tasks=["ks_per"], clock="pelt")
    first = u.iloc[0]
    assert first["time"] == pytest.approx(13694.128213, abs=1e-6)
    assert int(first["model_ewma"]) == int(first["model_util"]) and abs(int(first["model_ewma"]) - 295) <= 3
    assert s["util_est_ewma"]["max"] <= 3 and s["util"]["max"] <= 3


def test_the_update_after_a_skipped_first_sleep_at_the_start_is_not_skipped(tmp_path):
    t = _run(tmp_path, "ks_migrated_sleep_at_start")
    # ks_per (pid 25732): ewma 291 with the flag at its D-sleep on CPU 0 (27960.956911); woken on
    # CPU 1, dequeued at 27960.959596 (the root's util_est drops to 0), its own PELT record 2 us
    # later is the stay's first sample and its switch-out (27960.959601) is that sample's event:
    # the kernel skipped that update (no record), so 291 stands; the next wake-up's enqueue record
    # (27960.972965, util 250) clears the flag, and at the next dequeue (v6.12+: sampling the
    # previous update) the kernel writes ((291 << 2) - (291 - 250)) >> 2 = 280
    ue = t.df("sched_util_est_se")
    assert int(ue["util_est_raw"].iloc[0]) == 0x80000000 | 291
    assert ue.index[1] == pytest.approx(27960.975629, abs=1e-6) and int(ue["ewma"].iloc[1]) == 280
    assert ((291 << 2) - (291 - 250)) >> 2 == 280
    _, u, s = compare_kernel_signals(t, tasks=["ks_per"], clock="pelt")
    first = u.iloc[0]
    # skipping the stay's first sleep must not skip this one too (it gave 291)
    assert first["time"] == pytest.approx(27960.975629, abs=1e-6) and int(first["model_ewma"]) == 280
    assert s["util_est_ewma"]["max"] <= 1 and s["util"]["max"] <= 1
