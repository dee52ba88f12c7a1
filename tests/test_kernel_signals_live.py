"""Live tests: the kernel's own PELT/util_est signals through the BPF collector (no module),
for real on this machine (and over the loopback sshd), and the models held against them.

Under CI (LISA_EAS_CI=1) a missing precondition (not root, collector not built by
`make setup`, no BTF) fails instead of skipping. Run under `flock /tmp/lisa_live.lock`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import IN_CI, REPO, require_live
from target_helpers import TRACEFS, live_ready

from lisa_eas.errors import ConfigError, PermanentBoardError
from lisa_eas.target import (KernelSignals, connect, loader_path, record_signals, run_workload,
                             signals_config, target_config_from_dict)
from lisa_eas.trace import read_trace

pytestmark = pytest.mark.live

TASK_EVENTS = ("sched_pelt_se", "sched_pelt_cfs", "sched_util_est_se", "sched_util_est_cfs", "sched_cpu_capacity")


def _ready() -> tuple[bool, str]:
    ok, why = live_ready()
    if not ok:
        return ok, why
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return False, "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
    try:
        loader_path()
    except PermanentBoardError as exc:
        return False, str(exc)
    return True, ""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    ok, why = _ready()
    require_live(ok, why)
    wd = tmp_path_factory.mktemp("ks-target")
    with connect(target_config_from_dict({"kind": "local", "name": "ks-local", "working_directory": str(wd)})) as c:
        yield c


def _tracing_snapshot() -> dict:
    out = {}
    for name in ("tracing_on", "set_event", "current_tracer", "trace_clock", "buffer_size_kb"):
        p = Path(TRACEFS) / name
        out[name] = p.read_text() if p.exists() else None
    inst = Path(TRACEFS) / "instances"
    out["instances"] = sorted(os.listdir(inst)) if inst.is_dir() else []
    return out


def _periodic(name, run_us, period_us, loops, cpus):
    return {"loop": 1, "cpus": cpus, "phases": {"p": {"loop": loops, "run": run_us,
                                                      "timer": {"ref": name, "period": period_us}}}}


def _wl(tasks: dict) -> dict:
    return {"global": {"duration": -1, "calibration": 20}, "tasks": tasks}


# ----------------------------------------------------------------------------- collector

def test_signals_record_cli_standalone_leaves_tracing_as_found(board, tmp_path, capsys):
    from lisa_eas.cli import main

    before = _tracing_snapshot()
    out = tmp_path / "sig"
    busy = subprocess.Popen(["sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
    rc = main(["signals", "record", "--duration", "1", "--out", str(out)])
    busy.wait()
    assert rc == 0
    assert "records" in capsys.readouterr().out
    assert _tracing_snapshot() == before            # no event enabled, no instance, nothing changed
    summary = json.loads((out / "kernel_signals.bin.json").read_text())
    assert summary["dropped"] == 0 and summary["written"] == summary["received"] > 100
    assert len(summary["dropped_per_cpu"]) == os.cpu_count()
    trace = read_trace(out)
    for e in TASK_EVENTS:
        assert e in trace.events, e
    se = trace.df("sched_pelt_se")
    tasks = se[se["pid"] > 0]
    assert set(["cpu", "path", "comm", "pid", "load", "runnable", "util", "update_time"]) <= set(se.columns)
    assert (tasks["util"] <= 1024).all() and (tasks["runnable"] <= 1024).all()
    root = trace.df("sched_pelt_cfs")
    assert (root[root["is_root"]]["path"].astype(str) == "/").all()
    ue = trace.df("sched_util_est_se")
    assert set(["cpu", "path", "comm", "pid", "enqueued", "ewma", "util"]) <= set(ue.columns)
    # bpf_ktime_get_ns is CLOCK_MONOTONIC: the records fall inside the recording window
    mono0 = summary["mono_start_ns"] / 1e9
    assert mono0 - 0.5 < se.index[0] and se.index[-1] < summary["mono_now_ns"] / 1e9 + 0.5


def test_options_task_only_root_only_pid_filter(board, tmp_path):
    me = os.getpid()
    info = record_signals(board, 0.5, tmp_path / "a", {"signals": ["pelt_se", "pelt_cfs"], "task_only": True,
                                                       "root_only": True})
    assert info["dropped"] == 0
    t = read_trace(tmp_path / "a")
    assert set(t.events) <= {"sched_pelt_se", "sched_pelt_cfs"}
    assert (t.df("sched_pelt_se")["pid"] > 0).all()
    assert t.df("sched_pelt_cfs")["is_root"].all()
    # busy until killed: a loop of fixed length can end before the collector attaches
    busy = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        record_signals(board, 0.5, tmp_path / "b", {"signals": ["pelt_se"], "pids": [busy.pid]})
    finally:
        busy.kill()
        busy.wait()
    se = read_trace(tmp_path / "b").df("sched_pelt_se")
    assert len(se) > 0 and set(se["pid"]) == {busy.pid} and me not in set(se["pid"])


def test_collector_killed_keeps_what_it_wrote(board, tmp_path):
    out = tmp_path / "kill"
    out.mkdir()
    proc = subprocess.Popen([str(loader_path()), "--out", str(out / "kernel_signals.bin"), "--summary",
                             str(out / "kernel_signals.bin.json"), "--drain-ms", "20"])
    try:
        for _ in range(100):
            if (out / "kernel_signals.bin.json").exists():
                break
            subprocess.run(["sleep", "0.05"])
        subprocess.run(["sleep", "0.5"])
    finally:
        proc.kill()
        proc.wait()
    trace = read_trace(out)
    assert len(trace.df("sched_pelt_se")) > 0
    assert trace.metadata["kernel_signals"]["status"] == "running"   # never finished: not "complete"


# ----------------------------------------------------------------------------- faults

def test_not_root_is_one_clear_error(board, tmp_path):
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) not installed")
    loader = tmp_path / "lisa-eas-signals"
    shutil.copy(loader_path(), loader)
    loader.chmod(0o755)
    tmp_path.chmod(0o777)
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                        str(loader), "--out", str(tmp_path / "x.bin")], capture_output=True, text=True)
    assert r.returncode == 3
    assert r.stderr.count("error:") == 1
    assert "not_root" in r.stderr and "Fix: run as root" in r.stderr
    err = KernelSignals(board).error(r.stderr)
    assert isinstance(err, PermanentBoardError) and "run as root" in str(err)


def test_other_architecture_and_unbuilt_collector_are_clear_errors(board, monkeypatch):
    import lisa_eas.target._signals as sig

    monkeypatch.setattr(sig, "_host_machine", lambda: "aarch64")   # this host pretends to be an arm64 box
    with pytest.raises(PermanentBoardError, match=r"built for aarch64 .* target is x86_64|built for aarch64"):
        KernelSignals(board).check()
    monkeypatch.undo()
    monkeypatch.setenv("LISA_EAS_SIGNALS_LOADER", "/nonexistent/lisa-eas-signals")
    with pytest.raises(PermanentBoardError, match="make setup"):
        KernelSignals(board).check()


def test_optional_collector_unavailable_run_goes_on(board, tmp_path, monkeypatch):
    import lisa_eas.target._signals as sig

    monkeypatch.setattr(sig, "_host_machine", lambda: "riscv64")
    res = run_workload(board, _wl({"ks_opt": _periodic("o", 2000, 16000, 20, [1])}), tmp_path / "run",
                       kernel_signals={"optional": True}, progress=False)
    ks = res.run_info["kernel_signals"]
    assert ks["status"] == "unavailable" and "built for riscv64" in ks["error"]
    assert res.kernel_signals_path is None and res.run_info["status"] == "complete"
    with pytest.raises(PermanentBoardError, match="built for riscv64"):
        run_workload(board, _wl({"ks_opt": _periodic("o", 2000, 16000, 20, [1])}), tmp_path / "run2",
                     kernel_signals=True, progress=False)


def test_bad_options_name_the_option():
    with pytest.raises(ConfigError, match="unknown signal 'pelt_xx'"):
        signals_config(["pelt_xx"])
    with pytest.raises(ConfigError, match="ringbuf_kb must be a power of two"):
        signals_config({"ringbuf_kb": 1000})
    with pytest.raises(ConfigError, match="kernel_signals.colour is not"):
        signals_config({"colour": 1})
    cfg = target_config_from_dict({"kind": "local", "tracing": {"kernel_signals": ["pelt_se", "util_est_se"]}})
    assert cfg.tracing.kernel_signals.signals == ("pelt_se", "util_est_se")


# ----------------------------------------------------------------------------- in runs, vs the models

def _errors(trace, tasks, clock, era="v6.18"):
    from lisa_eas.analysis.validate import compare_kernel_signals

    return compare_kernel_signals(trace, tasks=tasks, clock=clock, era=era)[2]


def _explain(trace, tasks, n=5, run_dir=None, what="util"):
    """Print the worst ``what`` samples (``util``, ``runnable``, or ``load``: its error beyond
    the kernel's delayed load) and the scheduler events around each: CI runs on another
    machine, so what its log shows is all the next reader has of a failing run. ``run_dir`` is
    also copied to ``$LISA_EAS_KS_KEEP`` (default ``results/kept_live_runs/`` of the checkout:
    pytest keeps only its last three temporary directories, a later session deletes it)."""
    import time as _time

    from lisa_eas.analysis.validate import compare_kernel_signals

    if run_dir is not None:
        base = Path(os.environ.get("LISA_EAS_KS_KEEP") or REPO / "results" / "kept_live_runs")
        keep = base / f"{Path(run_dir).name}-{_time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        shutil.copytree(run_dir, keep, ignore=shutil.ignore_patterns(".*"))
        print(f"\nkept the run directory in {keep}")

    rows = compare_kernel_signals(trace, tasks=tasks, clock="pelt")[0]
    rows = rows[~rows["trace_gap"].astype(bool)]
    err = (rows[f"model_{what}"] - rows[f"kernel_{what}"]).abs()
    if what == "load":
        err = (err - rows["kernel_delayed_load"]).clip(lower=0)
    sw = trace.df("sched_switch")
    wk = trace.df("sched_wakeup") if "sched_wakeup" in trace.events else sw.iloc[:0]
    # printed to the test's captured output: a failure's report carries it
    print(f"\nworst {what} samples of {tasks} (PELT clock), with the events 5 ms before each:")
    for i in err.sort_values(ascending=False).index[:n]:
        r = rows.loc[i]
        t = float(r["time"])
        print(f"  t={t:.6f} pid={int(r['pid'])} cpu={int(r['cpu'])} util k/m={r['kernel_util']}/{r['model_util']} "
              f"runnable k/m={r['kernel_runnable']}/{r['model_runnable']} load k/m={r['kernel_load']}/"
              f"{r['model_load']} (delayed {r['kernel_delayed_load']})")
        for name, df, cols in (("switch", sw, ["__cpu", "prev_comm", "prev_pid", "prev_state", "next_comm",
                                                "next_pid"]),
                               ("wakeup", wk, ["__cpu", "comm", "pid", "target_cpu"])):
            w = df[(df.index > t - 0.005) & (df.index <= t + 0.0005)]
            for ts, e in w[[c for c in cols if c in w.columns]].iterrows():
                print(f"    {name} {ts:.6f} " + " ".join(str(v) for v in e.to_numpy()))


def _explain_util_est(trace, tasks, n=3):
    """Print the worst util_est samples (free-running EWMA against the kernel's) and, per sample,
    the task's PELT records and the scheduler events on its CPU in the 20 ms before it: what a
    CI log has of a failing run."""
    from lisa_eas.analysis.validate import compare_kernel_signals

    ue = compare_kernel_signals(trace, tasks=tasks, clock="pelt")[1]
    if ue is None or not len(ue):
        return
    ue = ue[~ue["trace_gap"].astype(bool)]
    err = (ue["model_ewma"] - ue["kernel_ewma"]).abs()
    se = trace.df("sched_pelt_se")
    sw = trace.df("sched_switch")
    wk = trace.df("sched_wakeup") if "sched_wakeup" in trace.events else sw.iloc[:0]
    # printed to the test's captured output: a failure's report carries it
    print(f"\nworst util_est samples of {tasks} (PELT clock), with the 20 ms before each:")
    for i in err.sort_values(ascending=False).index[:n]:
        r = ue.loc[i]
        t, pid = float(r["time"]), int(r["pid"])
        print(f"  t={t:.6f} pid={pid} ewma k/m={r['kernel_ewma']}/{r['model_ewma']} step={r['step_ewma']} "
              f"util k/m={r['kernel_util']}/{r['model_util']} model runnable={r['model_runnable']}")
        win = (t - 0.02, t + 0.0005)
        mine = se[(se.index > win[0]) & (se.index <= win[1])]
        cpu = int(mine[mine["pid"] == pid]["cpu"].iloc[-1]) if (mine["pid"] == pid).any() else -1
        for ts, e in mine[(mine["pid"] == pid) | ((mine["cpu"] == cpu) & (mine["pid"] > 0))].iterrows():
            print(f"    pelt_se {ts:.6f} {e['comm']} {e['pid']} cpu={e['cpu']} util={e['util']} "
                  f"runnable={e['runnable']} upd={e['update_time']}")
        for name, df, cols in (("switch", sw, ["__cpu", "prev_comm", "prev_pid", "prev_state", "next_comm",
                                                "next_pid"]),
                               ("wakeup", wk, ["__cpu", "__pid", "comm", "pid", "target_cpu"])):
            w = df[(df.index > win[0]) & (df.index <= win[1])]
            w = w[(w["__cpu"] == cpu) | (w["target_cpu"] == cpu)] if "target_cpu" in w.columns else \
                w[w["__cpu"] == cpu]
            for ts, e in w[[c for c in cols if c in w.columns]].iterrows():
                print(f"    {name} {ts:.6f} " + " ".join(str(v) for v in e.to_numpy()))


def _periodic_checks(pelt) -> list[str]:
    """The judged bounds of the periodic run: the ones it misses."""
    # util_avg: the target. (It was held to 32 while one fresh CI run in four had 1-2 % of
    # its samples off by 22-27: the dequeue's own update at the end of a span with an untraced
    # switch-in, after the VM agent's thread ran on the task's CPU, was compared; see
    # docs/guide/boards_live.md "untraced switches". Then to 48 after a fresh-clone run measured
    # 41.2, whose trace was not kept. Two feeding faults found since on recorded runs, each
    # confirmed against the kernel's own sums: a switch after a wake-up preemption runs on the
    # wake-up's rq clock (PREEMPT_NONE: the wait grows with the preempted task's time in the
    # kernel; ~2 ms would give 41), and a tick's record up to 200 us before a switch-out was
    # taken for its update: errors of 4-14 here. Fed as the kernel does, every recorded run
    # measured p99 1, max 1: "Stale rq clocks", "Wake-up preemption clocks".)
    # The flagged samples stay few.
    # util_est (v6.12+: sampled at the entity's previous PELT update). The model's own estimate
    # (free-running from the start sample) and one util_est_update() from the kernel's previous
    # estimate on the model's sampled util/runnable: both within the target. (The
    # collector's branch measured p99 0 only because its runs made the task wait at every
    # activation, so every update was skipped; the 7-14 on quiet runs came from the model's
    # start: the boundary state without the start sample's partial period was sampled, and the
    # error latched; see docs/guide/boards_live.md.)
    # load_avg: on the samples with no v6.12 delayed-dequeue time in them (the kernel's own
    # load == runnable * weight / 1024) within the target; on every sample, the error beyond
    # the delayed load the kernel itself carries (load - runnable * weight / 1024) too
    checks = [("util p99", pelt["util"]["p99"], 2), ("runnable p99", pelt["runnable"]["p99"], 2),
              ("util p50", pelt["util"]["p50"], 1),
              ("trace_gap samples", pelt["trace_gap_samples"], 0.1 * pelt["util"]["n"]),
              ("util_est_ewma p99", pelt["util_est_ewma"]["p99"], 4),
              ("util_est_step p99", pelt["util_est_step"]["p99"], 4),
              ("load p99", pelt["load"]["p99"], 2), ("load_beyond_delayed p99", pelt["load_beyond_delayed"]["p99"], 2)]
    return [f"{name} {v:.1f} > {lim:g}" for name, v, lim in checks if v > lim]


#: a periodic run that misses a bound while other processes took at least this share of the
#: CPUs (%) is repeated, up to ATTEMPTS runs in all
DISTURBED_PCT = 5.0
ATTEMPTS = 3


def test_run_with_kernel_signals_and_models_against_the_kernel(board, tmp_path, capsys):
    """A 4 ms / 16 ms task pinned to CPU 1: the untuned models on the kernel's PELT clock.

    A run is a measurement on a shared VM whose agent threads switch without ``sched_switch``
    records (docs/guide/boards_live.md "untraced switches"): when a run misses a bound while
    other processes took >= DISTURBED_PCT % of the CPUs, the miss and its diagnosis (the worst
    samples with their events) are printed and the run is repeated, up to ATTEMPTS runs; the
    last run is judged. A miss on a run the machine left alone fails at once. (A CI run on
    2026-11-26 measured util_est_ewma p99 28.3 with the agent at 0.32 s of 1.76 s, 12.5 % with
    python; util and runnable were within their bounds; its trace was not kept.)"""
    for attempt in range(1, ATTEMPTS + 1):
        before = _tracing_snapshot()
        out = tmp_path / f"periodic{attempt}"
        res = run_workload(board, _wl({"ks_per": _periodic("a", 4000, 16000, 110, [1])}), out,
                           kernel_signals=True, progress=False)
        assert _tracing_snapshot()["set_event"] == before["set_event"]
        assert res.kernel_signals_path is not None
        ks = res.run_info["kernel_signals"]
        assert ks["status"] in ("stopped", "complete") and ks["dropped"] == 0 and ks["records"] > 1000
        trace = read_trace(out)
        assert "sched_switch" in trace.events and "sched_pelt_se" in trace.events
        from lisa_eas.analysis import df_task_util

        assert df_task_util(trace).attrs["source"] == "sched_pelt_se"      # the kernel's signal is preferred
        pelt = _errors(trace, ["ks_per"], "pelt")
        mono = _errors(trace, ["ks_per"], "mono")
        old = _errors(trace, ["ks_per"], "pelt", era="v6.11")
        other = (res.run_info.get("tracing") or {}).get("other_processes") or {}
        share = other.get("share_pct") or 0.0
        with capsys.disabled():
            print(f"\nperiodic run {attempt}: {other.get('warning') or f'other processes {share:.1f} %'}")
            for name, s in (("pelt", pelt), ("mono", mono), ("pelt v6.11", old)):
                print(f"periodic {name}: " + ", ".join(f"{k} p50/p99/max {v['p50']}/{v['p99']:.1f}/{v['max']}"
                                                       for k, v in s.items() if isinstance(v, dict) and v["n"])
                      + f"; {s['trace_gap_samples']} samples flagged trace_gap")
        assert pelt["util"]["n"] > 80 and pelt["util_est_ewma"]["n"] > 30
        if share > 25.0 and not IN_CI:
            # Other processes took the CPUs (a shared developer machine): the task is preempted and
            # the kernel updates its signals at events this trace does not place (ticks, other
            # tasks' switches), so the run does not measure the model. Like the EAS suite's noisy
            # runs, this is reported, not judged, on a developer machine; CI (LISA_EAS_CI=1, a
            # machine of its own) always judges it, so a noisy CI run fails rather than passes quietly.
            pytest.xfail(f"noisy run: other processes took {share:.0f} % of the CPU time; util_est p99 "
                         f"{pelt['util_est_ewma']['p99']:.0f}, util p99 {pelt['util']['p99']:.0f}")
        missed = _periodic_checks(pelt)
        if not missed:
            break
        # printed to the test's captured output: a failure's report carries it
        print(f"periodic run {attempt} missed: {'; '.join(missed)} (other processes {share:.1f} %: "
              f"{other.get('top')})")
        _explain(trace, ["ks_per"], n=5 if pelt["util"]["p99"] > 2 else 0, run_dir=out)
        if pelt["util_est_ewma"]["p99"] > 4 or pelt["util_est_step"]["p99"] > 4:
            _explain_util_est(trace, ["ks_per"])
        if share < DISTURBED_PCT or attempt == ATTEMPTS:
            break
    assert not missed, (missed, f"other processes {share:.1f} %", f"run {attempt} of {ATTEMPTS}")


def test_shared_cpu_and_migration_runs(board, tmp_path, capsys):
    """Two tasks sharing CPU 1, then one task migrating between the CPUs every 20 activations."""
    tasks = {"ks_sh1": _periodic("d", 3000, 16000, 80, [1]), "ks_sh2": _periodic("e", 5000, 20000, 64, [1])}
    r1 = run_workload(board, _wl(tasks), tmp_path / "shared", kernel_signals=["pelt_se", "util_est_se"],
                      progress=False)
    mig = {"ks_mig": {"loop": 1, "phases": {f"m{i}": {"loop": 20, "cpus": [i % 2], "run": 4000,
                                                      "timer": {"ref": "f", "period": 16000}} for i in range(4)}}}
    r2 = run_workload(board, _wl(mig), tmp_path / "migrate", kernel_signals=True, progress=False)
    t1, t2 = read_trace(r1.out_dir), read_trace(r2.out_dir)
    s1 = _errors(t1, list(tasks), "pelt")
    s2 = _errors(t2, ["ks_mig"], "pelt")
    with capsys.disabled():
        for name, s in (("shared", s1), ("migrate", s2)):
            print(f"\n{name} pelt: " + ", ".join(f"{k} p50/p99/max {v['p50']}/{v['p99']:.1f}/{v['max']}"
                                                  for k, v in s.items() if isinstance(v, dict) and v["n"]))
    assert s1["tasks"] == 2 and s2["tasks"] == 1
    # the targets on a shared CPU and across migrations. (runnable was held to 8 and 12
    # while it measured up to 6: a sample of a sleeping task before its wake-up's sched_waking,
    # the completion of a delayed dequeue, was taken for the wake-up's own update. Measured since
    # on 4 runs each, 2 with a busy loop on CPU 1: util, runnable p99 1, max 1-2.) The migrating
    # run's util p99 3 (max 3-4) on two fresh-clone CI runs was a tick's record ~200 us before a
    # wake-up preemption's switch-out taken for the switch-out's update (the end of the running
    # span moved back to the tick; the kernel's sums say it ran to the wake-up's rq clock):
    # docs/guide/boards_live.md "Stale rq clocks". Held to the target since. (A fresh-clone run
    # on 2026-11-26 measured shared util p99 25.8, max 46: a task woken by the VM agent's thread
    # running on CPU 1 was taken as running from its wake-up, across another task's traced run;
    # tests/test_timeline_untraced_idle.py holds that event sequence. A fresh-clone run on
    # 2026-11-27 measured p99 24.2: the idle task woke ks_sh1 and then the agent's nice -10
    # thread, which ran first untraced; ks_wakeup_outranked holds it.)
    for t, s, names, d in ((t1, s1, list(tasks), r1.out_dir), (t2, s2, ["ks_mig"], r2.out_dir)):
        bad = [m for m in ("util", "runnable", "load_beyond_delayed") if s[m]["p99"] > 2]
        for k, m in enumerate(bad):
            _explain(t, names, run_dir=d if k == 0 else None, what=m.removesuffix("_beyond_delayed"))
    assert s1["runnable"]["p99"] <= 2 and s1["util"]["p99"] <= 2
    # The migrating run's util was held to 4 for a while: three fresh-clone CI runs measured p99
    # 2.0 / 2.0 / 2.4 (max 2 / 2 / 3), the model 2-3 low at dequeues after wake-ups on an idle
    # CPU 0. A switch out of the idle task runs on the wake-up's rq clock (the idle task is
    # always queued, so the wake-up's wakeup_preempt() skips __schedule()'s clock update): the
    # task accrues running from its wake-up, 6-30 us before the switch record, and at 16 ms
    # periods those add up. The kernel's own sums say so: 165 of 166 such spans in 10 recorded runs
    # are reproduced exactly from the wake-up's clock (scripts/ks_replay_sums.py;
    # tests/data/runs/ks_wakeup_on_idle). Fed that way, and with a wake-up behind the VM agent's
    # untraced switch-in no longer taken as running (one run here: p99 45.9, max 54;
    # ks_wakeup_behind_untraced), measured on this machine: 32 judged runs of this test (5 more
    # stopped by rt-app's "Cannot write mark_fd" while tracefs was in other use) and the
    # migrating run alone 16 more times: migrating util p99 1 (one 1.6), max 1-2 on all 48;
    # 10 of them had wake-ups on an idle CPU (5-31 each; the CPUs here are mostly kept busy by
    # other users): p99 1, max 1 on each, where the old comparison (8f8ca80) measured p99 2.0 /
    # max 3, 2.0 / 2, 1.3 / 2, 1.3 / 2 on four of the same recordings and 45.9 / 54 on a fifth.
    assert s2["runnable"]["p99"] <= 2 and s2["util"]["p99"] <= 2
    # load_avg on a shared CPU: the sleeping task is kept queued (sched_delayed) until picked,
    # so nearly every sample carries delayed load (measured: 634 of 647, load error p99 310);
    # beyond that delayed load, which the kernel's own samples give, the model holds to 2
    assert s1["delayed_samples"] > 0
    assert s1["load_beyond_delayed"]["p99"] <= 2 and s2["load_beyond_delayed"]["p99"] <= 2
    # a migration re-phases the entity (attach_entity_load_avg); each stay is compared from its
    # first sample
    assert s2["util"]["p50"] <= 1


def test_root_cfs_rq_util_against_the_sum_of_every_task(board, tmp_path, capsys):
    """Each CPU's root cfs_rq util_avg vs the sum of every CFS task's model (all the machine's
    tasks, not only rt-app's), on the PELT clock and on mono.

    Bounds, and why: each task's model is within 2 at p99 on its own (the tests above) and only
    the tasks that ran in the last periods carry a phase error, so the sum's median is held to
    16: 2 for each of up to 8 such tasks (this VM: 4-5 at most; one CI run summing 27 tasks of a
    busier machine measured 9, with the kernel's root ~15 above the summed models on average, a
    bias since traced to tasks' spans with no traced switch-in, now set apart, and partly
    unexplained under load; a broken task model moves the median by tens to hundreds). The tail is not explained yet: p99 measured 28-201 over runs (an
    untraced switch placed to within a tick moves one task's util by up to 85; autogroup group
    entities propagate their children one update late, not modelled), so it is printed, not
    judged, beyond a bound that only the whole-machine sum meets: p99 < 512 (summing rt-app's
    tasks alone gave ~1100); the kernel's group entities differ from their own cfs_rq by p99
    190-200, max 267-512 (``group_lag``, kernel against kernel), the size of the tail, and the
    tail is held to that. Samples within 200 us of an attach/detach (migration, fork, exit)
    are reported apart: the kernel writes the root both before and after it, a few us before
    the event's record."""
    from lisa_eas.analysis.validate import compare_cfs_rq

    tasks = {"ks_ra": _periodic("g", 4000, 16000, 60, [1]), "ks_rb": _periodic("h", 3000, 20000, 48, [0]),
             "ks_rm": {"loop": 1, "phases": {f"m{i}": {"loop": 15, "cpus": [i % 2], "run": 5000,
                                                       "timer": {"ref": "k", "period": 16000}} for i in range(4)}}}
    res = run_workload(board, _wl(tasks), tmp_path / "cfsrq", kernel_signals=["pelt_se", "pelt_cfs"],
                       progress=False)
    trace = read_trace(res.out_dir)
    out = {clock: compare_cfs_rq(trace, clock=clock) for clock in ("pelt", "mono")}
    with capsys.disabled():
        for clock, (_, s) in out.items():
            u, a = s["util"], s["util_all"]
            g = s["group_lag"]
            print(f"\ncfs_rq {clock}: {s['tasks']} tasks, p50/p99/max {u['p50']}/{u['p99']:.1f}/{u['max']} "
                  f"over {u['n']} samples; with the {s['at_attach_samples']} at an attach/detach "
                  f"{a['p50']}/{a['p99']:.1f}/{a['max']}; {s['untraced_samples']} in spans with no traced "
                  f"switch-in; mean (model - kernel) {u['mean']:.1f}; kernel group entity vs its cfs_rq "
                  f"p50/p99/max {g['p50']}/{g['p99']}/{g['max']} over {g['n']} pairs")
    for clock, (rows, s) in out.items():
        clock = f"{clock}: util {s['util']}, group lag {s['group_lag']}"      # what a failure prints
        assert s["tasks"] > 3, clock                        # more than rt-app's tasks are summed
        assert s["util"]["n"] > 200 and s["at_attach_samples"] < 0.4 * s["util_all"]["n"], clock
        assert set(rows["cpu"]) == {0, 1}, clock
        assert s["util"]["p50"] <= 16, clock
        assert s["util"]["p99"] < 512, clock
        # the tail is the kernel's own group entities (autogroups): the root holds each group
        # entity's util, which differs from its cfs_rq's (what the summed task models give) by
        # up to the kernel-vs-kernel group lag; beyond that, one untraced switch (<= 85)
        g = s["group_lag"]
        assert s["util"]["p99"] <= max(g["max"] or 0.0, 85.0) + 8, clock


# ----------------------------------------------------------------------------- over SSH

def test_kernel_signals_over_ssh(tmp_path):
    from sshd import SshServer, sshd_available

    ok, why = sshd_available()
    require_live(ok, why)
    ok, why = _ready()
    require_live(ok, why)
    server = SshServer(tmp_path / "sshd").start()
    try:
        cfg = tmp_path / "ssh.yml"
        cfg.write_text(yaml.safe_dump(server.target_config(tracing={"kernel_signals": ["pelt_se", "util_est_se"]})))
        res = run_workload(cfg, _wl({"ks_ssh": _periodic("s", 4000, 16000, 40, [1])}), tmp_path / "run",
                           progress=False)
    finally:
        server.kill()
    assert res.run_info["kernel_signals"]["dropped"] == 0
    trace = read_trace(res.out_dir)
    se = trace.df("sched_pelt_se")
    assert (se["comm"].astype(str) == "ks_ssh").sum() > 20
    assert set(trace.events) >= {"sched_pelt_se", "sched_util_est_se", "sched_switch"}


def test_cli_run_with_kernel_signals_and_bad_signal(board, tmp_path, capsys):
    from lisa_eas.cli import main

    wl = tmp_path / "wl.json"
    wl.write_text(json.dumps(_wl({"ks_cli": _periodic("c", 3000, 16000, 30, [1])})))
    cfg = tmp_path / "t.yml"
    cfg.write_text(yaml.safe_dump({"kind": "local", "name": "ks-cli", "working_directory": str(tmp_path / "wd")}))
    rc = main(["run", "--target", str(cfg), "--workload", str(wl), "--out", str(tmp_path / "run"),
               "--kernel-signals", "pelt_se,util_est_se", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0 and "signals: " in out and "dropped 0" in out
    assert set(read_trace(tmp_path / "run").events) >= {"sched_pelt_se", "sched_util_est_se", "sched_switch"}
    rc = main(["signals", "record", "--duration", "1", "--out", str(tmp_path / "x"), "--signals", "pelt_xx"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "unknown signal 'pelt_xx'" in err
