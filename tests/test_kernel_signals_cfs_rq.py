"""compare_cfs_rq's bookkeeping on a hand-made trace (no kernel needed): a root cfs_rq holds the
util of every task attached to it, a migration moves a task's util to the other CPU (a wake-up
migration with the util the kernel synced it to), and a span a task ran in with no traced
switch-in restarts its model from the kernel's record."""
from __future__ import annotations

import numpy as np
from test_kernel_signals_format import _write

from lisa_eas.analysis.validate import compare_cfs_rq
from lisa_eas.trace._ksignals import KS_RECORD


def _sw(t, cpu, pc, pp, ps, nc, np_):
    return (f"  {pc}-{pp} [{cpu:03d}] {t:.6f}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio=120 "
            f"prev_state={ps} ==> next_comm={nc} next_pid={np_} next_prio=120")


def test_root_util_is_the_sum_of_the_attached_tasks_and_migrations_move_it(tmp_path):
    # A runs on CPU 0 from 1.0 s to 2.0 s; B runs on CPU 1 from 1.0 s to 1.5 s, sleeps, and is
    # woken onto CPU 0 at 1.6 s (sched_migrate_task 1 -> 0) where it waits behind A
    lines = [_sw(1.0, 0, "swapper/0", 0, "R", "a", 10), _sw(1.0, 1, "swapper/1", 0, "R", "b", 11),
             _sw(1.5, 1, "b", 11, "S", "swapper/1", 0),
             "  a-10 [000] 1.600000: sched_migrate_task: comm=b pid=11 prio=120 orig_cpu=1 dest_cpu=0",
             "  a-10 [000] 1.600001: sched_wakeup: comm=b pid=11 prio=120 target_cpu=000",
             _sw(2.0, 0, "a", 10, "S", "swapper/0", 0)]
    (tmp_path / "trace.txt").write_text("\n".join(lines) + "\n")
    ts = np.arange(1_010_000_000, 2_000_000_000, 10_000_000)
    r = np.zeros(2 * len(ts), KS_RECORD)
    r["ts"] = np.r_[ts, ts + 1000]
    r["kind"] = 1                              # pelt_cfs
    r["cpu"] = np.r_[np.zeros(len(ts)), np.ones(len(ts))]
    r["pid"] = -1
    r["path"] = b"/"
    r["flags"] = 2                             # the root cfs_rq
    r = r[np.argsort(r["ts"], kind="stable")]
    _write(tmp_path / "kernel_signals.bin", r, summary={"dropped": 0, "status": "complete"})
    from lisa_eas.trace import read_trace

    rows, s = compare_cfs_rq(read_trace(tmp_path), clock="mono", warmup_s=0.3)
    assert s["tasks"] == 2
    assert rows["time"].min() >= 1.3 - 1e-9               # the warm-up is left out
    c0 = rows[rows["cpu"] == 0].set_index("time")["model_util"]
    c1 = rows[rows["cpu"] == 1].set_index("time")["model_util"]

    def at(ser, t):
        return int(ser.iloc[int(np.argmin(np.abs(ser.index.to_numpy() - t)))])
    # worked by hand: 500 ms running from 0 saturates (1024 * (1 - 2**(-500/32)) = 1023.98);
    # A alone on CPU 0 before the migration, B alone on CPU 1 until it leaves
    assert 1000 <= at(c0, 1.49) <= 1024 and 1000 <= at(c1, 1.49) <= 1024
    # B blocked on CPU 1 for 90 ms keeps its decaying util there: 87 whole 1024-us periods,
    # 1022 * 2**(-87/32) = 155, and up to 2 % more in a partial period (the divider is
    # LOAD_AVG_MAX - 1024 + period_contrib)
    assert 150 <= at(c1, 1.59) <= 162
    # after the migration CPU 1 holds nothing, CPU 0 holds A + B (A is saturated either side).
    # B comes with the util sync_entity_load_avg() left it at: decayed only to CPU 1's root's
    # last update before the migration (its record at 1.590001 s; no record of B says it is in
    # a task group), not to the migration: 85 whole PELT periods (1024 x 1024 ns) after its
    # dequeue, 1022 x 2**(-85/32) = 162, then 10 ms waiting on CPU 0 (9 or 10 boundaries):
    # 162 x 2**(-9.5/32) = 132, up to 2 % less in a partial period. Decayed to the migration, as
    # a fresh model does (stale_sync=False), it would be 1022 x 2**(-105/32) = 105.
    assert (c1[c1.index > 1.601] == 0).all()
    jump = at(c0, 1.61) - at(c0, 1.59)
    assert 125 <= jump <= 136
    rows_fresh, _ = compare_cfs_rq(read_trace(tmp_path), clock="mono", warmup_s=0.3, stale_sync=False)
    f0 = rows_fresh[rows_fresh["cpu"] == 0].set_index("time")["model_util"]
    assert 100 <= at(f0, 1.61) - at(f0, 1.59) <= 108


def test_group_lag_pairs_a_group_entity_with_its_cfs_rq_just_before(tmp_path):
    """group_lag, kernel against kernel: walking up from a task, update_load_avg() writes the
    group cfs_rq's record, then the group entity's (before propagation). Hand-made: on CPU 0 a
    group cfs_rq at util 300 then its entity at 180 (5 us later: lag 120), then 200 / 200 (lag 0);
    on CPU 1 an entity record 1 ms after the last cfs_rq record (not the same walk: not paired)."""
    from lisa_eas.analysis.validate._cfs_rq import group_lag
    from lisa_eas.trace import read_trace

    (tmp_path / "trace.txt").write_text(_sw(1.0, 0, "swapper/0", 0, "R", "a", 10) + "\n")
    r = np.zeros(5, KS_RECORD)
    r["ts"] = [1_100_000_000, 1_100_005_000, 1_200_000_000, 1_200_005_000, 1_301_000_000]
    r["kind"] = [1, 0, 1, 0, 0]                 # pelt_cfs (group), pelt_se (group entity)
    r["cpu"] = [0, 0, 0, 0, 1]
    r["pid"] = -1
    r["path"] = b"autogroup"
    r["util_avg"] = [300, 180, 200, 200, 500]
    _write(tmp_path / "kernel_signals.bin", r, summary={"dropped": 0, "status": "complete"})
    g = group_lag(read_trace(tmp_path))
    assert g["n"] == 2 and g["max"] == 120 and g["mean"] == -60


def test_a_span_with_no_traced_switch_in_restarts_the_task_from_the_kernel_record_ending_it(tmp_path):
    # A runs on CPU 0 from 1.0 s, is preempted by B at 1.2 s; B sleeps at 1.5 s with no traced
    # switch to A, and A's own switch-out (to sleep) comes at 1.6 s: A ran somewhere in
    # 1.2 - 1.6 s, for how long the trace does not say. The kernel's record of A 10 us before
    # that switch-out (its dequeue's update) says util 700.
    lines = [_sw(1.0, 0, "swapper/0", 0, "R", "a", 10),
             "  a-10 [000] 1.199999: sched_wakeup: comm=b pid=11 prio=120 target_cpu=000",
             _sw(1.2, 0, "a", 10, "R", "b", 11),
             _sw(1.5, 0, "b", 11, "S", "swapper/0", 0),
             _sw(1.6, 0, "a", 10, "S", "swapper/0", 0),
             _sw(1.9, 0, "swapper/0", 0, "R", "swapper/0", 0)]
    (tmp_path / "trace.txt").write_text("\n".join(lines) + "\n")
    ts = np.arange(1_010_000_000, 1_900_000_000, 10_000_000)
    r = np.zeros(len(ts) + 2, KS_RECORD)
    r["ts"][:len(ts)] = ts
    r["kind"][:len(ts)] = 1                    # pelt_cfs, the root of CPU 0
    r["pid"][:len(ts)] = -1
    r["path"][:len(ts)] = b"/"
    r["flags"][:len(ts)] = 2
    r["ts"][len(ts):] = [1_000_000_000, 1_599_990_000]      # A's records (pelt_se)
    r["kind"][len(ts):] = 0
    r["pid"][len(ts):] = 10
    r["comm"][len(ts):] = b"a"
    r["path"][len(ts):] = b"(null)"
    r["flags"][len(ts):] = 1
    r["util_avg"][len(ts):] = [0, 700]
    r = r[np.argsort(r["ts"], kind="stable")]
    _write(tmp_path / "kernel_signals.bin", r, summary={"dropped": 0, "status": "complete"})
    from lisa_eas.trace import read_trace

    rows, s = compare_cfs_rq(read_trace(tmp_path), clock="mono", warmup_s=0.1)
    t = rows["time"].to_numpy()
    # the root samples in the span (from A's preemption to its record) hold an unknown part of
    # A's util: flagged, not judged
    assert rows["untraced"].to_numpy().tolist() == ((t >= 1.2) & (t < 1.59999)).tolist()
    assert s["untraced_samples"] == int(((t >= 1.2) & (t < 1.59999)).sum())
    m = rows.set_index("time")["model_util"]
    # worked by hand at 1.70 s (a PELT period is 1024 x 1024 ns): A restarts from the kernel's
    # 700 at 1.59999 s (its sums taken as 700 x (LOAD_AVG_MAX - 1024), period_contrib 0) and
    # sleeps 100.01 ms, 95 whole periods and 0.37 of one: 700 x 2**(-95/32) x 46718 / (46718 +
    # 379) = 88.6; B ran 300 ms (286 periods: 1024 x (1 - 2**(-286/32)) = 1022) and sleeps 200 ms,
    # 190 whole periods: 1022 x 2**(-190/32) = 16.6. The sum 105. Modelled as runnable through
    # the span (the code before), A would have decayed from 1.2 s to 1.7 s (476 periods) to 0:
    # the sum 16.
    assert 102 <= int(m.loc[np.isclose(m.index, 1.70)].iloc[0]) <= 106
