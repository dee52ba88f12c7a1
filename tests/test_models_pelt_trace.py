"""PELT model against the kernel's own sched_load_se values (Juno r0, kernel 4.11).

The model is driven by each task's run/sleep timeline from sched_switch, its migrations,
and the cluster frequencies from cpu_frequency; it starts from the task's first kernel
sample and is compared with every later sample (no re-synchronisation).

Rules that follow what the 4.11 kernel does (explained, not fitted):

* a sample emitted from another CPU while the task sleeps is the wake-up
  ``sync_entity_load_avg()`` (4.11 ``wake_cap``): the signal is decayed only up to the old
  cfs_rq's ``last_update_time``, which the trace does not carry, so the kernel value must lie
  between the model's value at the sleep start and at the sample; the task is then runnable;
* a wake-up migration syncs the signal to the old CPU's last cfs_rq update (the last
  sched_load_cfs_rq event there) and re-attaches it at the new CPU without decay in between
  (``migrate_task_rq_fair`` sets ``last_update_time = 0``): the ``detached`` state.

Systematic gap: the trace only records frequency *changes*; before the big cluster's first
cpu_frequency event (2084.219 s) its frequency is unknown and taken as f_max. The samples
whose running time falls there are reported separately.
"""
from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from lisa_eas import load_platform
from lisa_eas.models.pelt import pelt_timeline

HERE = Path(__file__).resolve().parent
CSV = HERE / "data" / "pelt" / "juno_r0_sched_load_events.csv"
DAT = Path("/work/shared/data/traces/dat/lisa_juno-r0_sched_load.dat")
FAR = 1 << 62


def _read_rows():
    with open(CSV, newline="") as fh:
        rd = csv.reader(fh)
        next(rd)
        return [(int(r[0]), r[1], int(r[2]), *r[3:]) for r in rd]


def _platform_scales():
    plat = load_platform("juno_r0")
    cap, fmax = {}, {}
    for d in plat.perf_domains:
        for c in d.cpus:
            cap[c], fmax[c] = d.cpu_capacity_max, d.fmax_khz
    return cap, fmax


class Juno:
    def __init__(self, rows):
        self._rows = rows
        self.switch = [(t, int(a), b, int(c)) for t, ev, _, a, b, c, d, e in rows if ev == "sched_switch"]
        self.samples = [(t, int(a), int(b), int(c), int(d), ecpu)
                        for t, ev, ecpu, a, b, c, d, e in rows if ev == "sched_load_se"]
        self.cfs = {}
        for t, ev, _, a, *_ in rows:
            if ev == "sched_load_cfs_rq":
                self.cfs.setdefault(int(a), []).append(t)
        self.migrate = [(t, int(a), int(b), int(c)) for t, ev, _, a, b, c, d, e in rows
                        if ev == "sched_migrate_task"]
        self.freq = sorted((t, int(a), int(b)) for t, ev, _, a, b, *_ in rows if ev == "cpu_frequency")
        self.cap, self.fmax = _platform_scales()
        self.first_freq = {}
        for t, c, _ in self.freq:
            self.first_freq.setdefault(c, t)

    def freq_scale(self, cpu, t):
        f = self.fmax[cpu]
        for ts, c, st in self.freq:
            if ts > t:
                break
            if c == cpu:
                f = st
        return f * 1024 // self.fmax[cpu]

    def task_timeline(self, pid):
        samples = [s for s in self.samples if s[2] == pid]
        if len(samples) < 2:
            return None
        t0 = samples[0][0]
        marks = []
        for ts, prev_pid, prev_state, next_pid in self.switch:
            if next_pid == pid:
                marks.append((ts, 1, "in", None))
            if prev_pid == pid:
                marks.append((ts, 1, "out", prev_state))
        for ts, p, orig, dest in self.migrate:
            if p == pid:
                marks.append((ts, 0, "mig", (orig, dest)))
        for s in samples[1:]:
            marks.append((s[0], 2, "sample", s))
        marks.sort(key=lambda m: (m[0], m[1]))
        # state before the first sample: from the last switch, else from the next one
        before = [m for m in marks if m[0] < t0 and m[2] in ("in", "out")]
        after = [m for m in marks if m[0] >= t0 and m[2] in ("in", "out")]
        if before:
            state = 2 if before[-1][2] == "in" else (1 if before[-1][3].startswith("R") else 0)
        else:
            state = 2 if after and after[0][2] == "out" else 0
        cpu = samples[0][1]
        switch_cpu = {ts: c for ts, c in self._switch_cpus(pid)}
        T, S, C, F = [t0], [state], [self.cap[cpu]], [self.freq_scale(cpu, t0)]
        compare = []
        known = [True]
        sleep_start = None

        def push(t, st, c):
            t = max(t, T[-1])
            T.append(t)
            S.append(st)
            C.append(self.cap[c])
            F.append(self.freq_scale(c, t))
            if st in (1, 2) and t < self.first_freq.get(c, FAR):
                known[0] = False

        if state in (1, 2) and t0 < self.first_freq.get(cpu, FAR):
            known[0] = False
        for ts, _, kind, data in marks:
            if ts < t0:
                continue
            if kind == "in":
                state, cpu = 2, switch_cpu[ts]
                push(ts, state, cpu)
            elif kind == "out":
                state = 1 if data.startswith("R") else 0
                push(ts, state, cpu)
                if state == 0:
                    sleep_start = len(T) - 1
            elif kind == "mig":
                orig, dest = data
                if state == 0:
                    t_sync = max([t for t in self.cfs.get(orig, ()) if t <= ts] or [T[-1]])
                    if t_sync > T[-1]:
                        push(t_sync, 3, cpu)
                    else:
                        S[-1] = 3
                    state, cpu = 1, dest
                else:
                    cpu = dest
                push(ts, state, cpu)
            else:
                remote = data[5] != data[1] and state == 0
                push(ts, state, cpu)
                compare.append((len(T) - 1, data, remote, sleep_start if remote else None, known[0]))
                if remote:
                    state = 1
                    S[-1] = 1
        return samples[0], np.array(T), np.array(S), np.array(C), np.array(F), compare

    def _switch_cpus(self, pid):
        # the CPU a task is switched in on: the event CPU of the sched_switch
        return [(t, c) for t, ev, c, a, b, cc, d, e in self._rows if ev == "sched_switch" and int(cc) == pid]


def _errors(rows, era="v4.11"):
    juno = Juno(rows)
    out = []
    for pid in sorted({s[2] for s in juno.samples}):
        tl = juno.task_timeline(pid)
        if tl is None:
            continue
        first, T, S, C, F, compare = tl
        df = pelt_timeline(T, S, cpu_capacity=C, freq_scale=F, era=era, util_avg=min(first[4], 1024),
                           load_avg=min(first[3], 1024))
        util = df["util_avg"].to_numpy()
        load = df["load_avg"].to_numpy()
        for i, s, remote, ss, known in compare:
            if remote and ss is not None:
                lo, hi = sorted((util[i], util[ss]))
                err = 0 if lo <= s[4] <= hi else min(abs(s[4] - lo), abs(s[4] - hi))
                lo, hi = sorted((load[i], load[ss]))
                lerr = 0 if lo <= s[3] <= hi else min(abs(s[3] - lo), abs(s[3] - hi))
            else:
                err = int(util[i]) - s[4]
                lerr = int(load[i]) - s[3]
            out.append((pid, s[0], remote, known, err, lerr))
    return out


@pytest.fixture(scope="module")
def rows():
    return _read_rows()


def test_committed_extract_matches_trace_cmd(rows):
    if shutil.which("trace-cmd") is None or not DAT.exists():
        pytest.skip("trace-cmd or the shared trace is not available; the committed extract is used")
    sys.path.insert(0, str(CSV.parent))
    try:
        import extract_juno_sched_load as ex
    finally:
        sys.path.pop(0)
    fresh = ex.parse_report(ex.trace_cmd_report(str(DAT)))
    as_text = [tuple(str(x) for x in r) for r in fresh]
    assert as_text == [tuple(str(x) for x in r) for r in rows]


def test_pelt_matches_kernel_4_11_samples(rows):
    errs = _errors(rows, "v4.11")
    err = np.array([abs(e[4]) for e in errs])
    known = np.array([e[3] for e in errs])
    remote = np.array([e[2] for e in errs])
    p = lambda a: ", ".join(f"p{q}={np.percentile(a, q):.1f}" for q in (50, 90, 95, 99, 100))  # noqa: E731
    print(f"\nPELT vs kernel 4.11 util_avg (Juno r0), |model - kernel| in capacity units (1024 = 100%):")
    print(f"  inputs all in the trace : n={known.sum():3d}  {p(err[known])}")
    print(f"  incl. unknown big freq  : n={len(err):3d}  {p(err)}")
    print(f"  wake-up sync samples    : n={remote.sum():3d}  {p(err[remote])}")
    lerr = np.array([abs(e[5]) for e in errs])
    print(f"  load_avg (inputs known) : n={known.sum():3d}  {p(lerr[known])}  (wake-up times are not in "
          f"the trace: no sched_wakeup events, so runnable-but-waiting time before a switch-in is missed)")
    assert len(err) >= 100
    assert known.sum() >= 70
    assert np.percentile(err[known], 95) <= 10.24       # <= 1% of 1024
    assert err[known].max() <= 12
    assert np.percentile(err, 50) <= 2


def test_4_11_divider_fits_better_than_later_eras(rows):
    """The 4.11 kernel divides by LOAD_AVG_MAX; the v4.13 divider (LOAD_AVG_MAX - 1024 +
    period_contrib) fits its samples worse. (These samples cannot tell v4.11's old update from
    v4.12's accumulate_sum, which share the divider: ``test_era_rows`` pins that change.)"""
    e411 = np.array([abs(e[4]) for e in _errors(rows, "v4.11") if e[3]])
    e413 = np.array([abs(e[4]) for e in _errors(rows, "v4.13") if e[3]])
    assert e411.sum() < e413.sum()
