"""`lisa-eas run` -> `lisa-eas validate RUN_DIR` on any machine (issue 15, item 2).

The run directory is a real one, recorded on the 2-CPU development VM (no cpufreq, all CPUs
of capacity 1024, no energy model: ``tests/data/runs/local_2cpu_smoke/SOURCES.md``). Its
platform comes from the run's own probe; the checks that cannot apply there say why instead
of printing an agreement figure that means nothing. A simulated run is scored with the
governor and placement it recorded. The schedutil figures are checked on a hand-built trace
whose answers are worked out below by hand.
"""
from __future__ import annotations

import json
import re
import lzma
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lisa_eas import SimConfig, Trace, load_platform, simulate
from lisa_eas.analysis.validate import replay_schedutil, validate
from lisa_eas.cli import main
from lisa_eas.rtapp import periodic, task, workload, write_workload

RUN = Path(__file__).resolve().parent / "data" / "runs" / "local_2cpu_smoke"


@pytest.fixture()
def run_dir(tmp_path) -> Path:
    d = tmp_path / "smoke"
    shutil.copytree(RUN, d, ignore=shutil.ignore_patterns("trace.txt.xz", "SOURCES.md"))
    (d / "trace.txt").write_bytes(lzma.decompress((RUN / "trace.txt.xz").read_bytes()))
    return d


def test_validate_run_dir_without_platform_on_a_vm(run_dir, capsys):
    rc = main(["validate", str(run_dir)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "probed:local (recorded by the run)" in out
    assert "EAS agreement" not in out
    assert ("does not apply: eas: EAS is not active on this kernel: all CPUs have capacity 1024 and no energy "
            "model is registered") in out
    assert "does not apply: schedutil: this machine has no cpufreq" in out
    rep = json.loads((run_dir / "validation" / "validation.json").read_text())
    s = rep["summary"]
    # every CFS wake-up with a previous CPU is an idle-CPU search wake-up when EAS is off
    assert s["wakeups"]["eas"] == 0 and s["wakeups"]["sis"] > 400
    assert s["wakeups"]["accounted"] == s["wakeups"]["total"]
    assert s["eas"]["applicable"] is False and s["schedutil"]["available"] is False
    assert {n["check"] for n in s["not_applicable"]} == {"eas", "schedutil", "pelt"}
    html = (run_dir / "validation" / "validation.html").read_text()
    body = html[html.rfind("</head>"):]
    assert "Does not apply" in body and "EAS is not active on this kernel" in body


def test_validate_run_dir_python_api(run_dir):
    rep = validate(run_dir)          # platform from the probe, era from the trace's kernel
    assert rep.summary["platform"] == "probed:local"
    assert rep.summary["era"] == "v6.18" and rep.summary["sis"]["feature"] == "util"
    assert rep.eas.empty and len(rep.sis) == rep.summary["wakeups"]["sis"]


def test_validate_needs_a_platform_for_a_bare_trace(run_dir, tmp_path, capsys):
    bare = tmp_path / "bare.txt"
    shutil.copy(run_dir / "trace.txt", bare)
    assert main(["validate", str(bare)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Give --platform" in err


def _sim_dir(tmp_path, governor, placement):
    wl = workload([task(f"t{i}", periodic(16, 20, duration_s=0.5)) for i in range(3)], calibration=100)
    wpath = tmp_path / "w.json"
    write_workload(wl, wpath)
    out = tmp_path / f"sim_{governor}_{placement}"
    assert main(["simulate", "--platform", "hikey960", "--workload", str(wpath), "--governor", governor,
                 "--placement", placement, "--out", str(out)]) == 0
    return out


def test_simulated_run_scored_with_its_own_governor_and_placement(tmp_path, capsys):
    out = _sim_dir(tmp_path, "performance", "no-eas")
    capsys.readouterr()
    assert main(["validate", str(out)]) == 0
    text = capsys.readouterr().out
    assert "hikey960 (recorded by the run)" in text
    assert "does not apply: schedutil: the simulated run used the performance governor" in text
    assert "does not apply: eas: the simulated run used placement 'no-eas'" in text
    assert "schedutil little" not in text and "EAS agreement" not in text
    s = json.loads((out / "validation" / "validation.json").read_text())["summary"]
    assert s["wakeups"]["eas"] == 0 and s["sis"]["agreement_pct"] == 100.0


def test_simulated_schedutil_eas_run_keeps_its_checks(tmp_path, capsys):
    out = _sim_dir(tmp_path, "schedutil", "eas")
    capsys.readouterr()
    assert main(["validate", str(out)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"EAS agreement +100.0%", text)
    assert "of the time at the model's frequency" in text
    assert "does not apply: eas" not in text and "does not apply: schedutil" not in text


def _freq_trace(times, freqs, cpu=0, switches=((0.0, 1, 100), (10.0, 0, 0))):
    """cpu_frequency events of ``cpu``; ``switches`` (time, cpu, next_pid): by default a task
    runs on CPU 1 from 0 s and CPU 0 switches to idle at 10 s (the trace's end)."""
    df = pd.DataFrame({"__cpu": np.int32(cpu), "__pid": np.int32(0), "__comm": "swapper",
                       "cpu_id": np.uint32(cpu), "state": np.asarray(freqs, np.uint32)},
                      index=pd.Index(np.asarray(times, float), name="Time"))
    switches = [tuple(x) + (0,) * (4 - len(x)) for x in switches]      # prev_pid 0 unless given
    t, c, p, pp = (np.array(x) for x in zip(*switches))
    n = len(t)
    sw = pd.DataFrame({"__cpu": c.astype(np.int32), "__pid": np.zeros(n, np.int32), "__comm": ["swapper"] * n,
                       "prev_comm": ["swapper"] * n, "prev_pid": pp.astype(np.int32),
                       "prev_prio": np.full(n, 120, np.int32), "prev_state": np.zeros(n, np.int64),
                       "next_comm": ["swapper" if x == 0 else "task" for x in p], "next_pid": p.astype(np.int32),
                       "next_prio": np.full(n, 120, np.int32)},
                      index=pd.Index(t.astype(float), name="Time"))
    return Trace.from_dataframes({"cpu_frequency": df, "sched_switch": sw}, {"cpus": 8})


def test_schedutil_figures_per_request_and_time_weighted():
    """HiKey960's little domain (CPUs 0-3) with util 0 all along: schedutil's answer is the
    lowest OPP, 533 MHz, at every instant (next_freq = 1.25 * fmax * 0 / cap -> lowest OPP).
    Util is known from just before 0 s; the trace sits at 533 MHz from 0 to 10 s (its last event) except a
    blip to 999 MHz from 5.00 to 5.05 s (three requests: 533, 999, 533); a task runs on CPU 1 all
    along (the domain is busy: the residency counts all 10 s). By hand: 2 of the 3
    requests equal the model's answer (66.7 %); the trace ran at the model's frequency 9.95 of
    the 10 s (99.5 %), above it the other 0.05 s (0.5 %), never below it."""
    plat = load_platform("hikey960")
    little = plat.perf_domains[0]
    assert little.cpus == (0, 1, 2, 3) and little.freqs_khz[0] == 533000 and 999000 in little.freqs_khz
    tr = _freq_trace([0.0, 5.0, 5.05], [533000, 999000, 533000])
    cu = pd.DataFrame({"cpu": np.arange(4), "util": np.zeros(4, np.int64)},
                      index=pd.Index(np.full(4, -0.001), name="Time"))
    df, s = replay_schedutil(tr, plat, cu, era="v5.4")
    d = s["domains"]["little"]
    assert d["requests"] == 3 and d["requests_agree"] == 2
    assert d["request_agreement_pct"] == pytest.approx(200 / 3)
    assert d["time_at_model_freq_pct"] == pytest.approx(99.5)
    assert d["over_provisioned_pct"] == pytest.approx(0.5) and d["under_provisioned_pct"] == 0.0
    assert "agreement_pct" not in d      # no unnamed headline figure


def test_schedutil_residency_counts_only_time_the_domain_runs_a_task():
    """While every CPU of a domain is idle, schedutil gets no update and makes no request: the
    frequency it left is not held against the model's answer. HiKey960 little (CPUs 0-3), util 0
    all along (model: 533 MHz). The trace: 533 MHz at 0 s, 999 MHz at 1 s, 533 MHz at 9 s; a
    task runs on CPU 1 from 0 to 2 s and on CPU 2 from 8 s to the end (10 s); the domain is
    idle from 2 to 8 s. By hand: compared 0-2 s and 8-10 s (4 s; 6 s idle left out); at the
    model's frequency 0-1 s and 9-10 s (2 s, 50 %), above it 1-2 s and 8-9 s (2 s, 50 %).
    (Over all 10 s it would read 20 % at the model's frequency, 80 % above.)"""
    plat = load_platform("hikey960")
    tr = _freq_trace([0.0, 1.0, 9.0], [533000, 999000, 533000],
                     switches=((0.0, 1, 100), (2.0, 1, 0), (8.0, 2, 101), (10.0, 0, 0)))
    cu = pd.DataFrame({"cpu": np.arange(4), "util": np.zeros(4, np.int64)},
                      index=pd.Index(np.full(4, -0.001), name="Time"))
    _, s = replay_schedutil(tr, plat, cu, era="v5.4")
    d = s["domains"]["little"]
    assert d["compared_s"] == pytest.approx(4.0) and d["idle_excluded_s"] == pytest.approx(6.0)
    assert d["time_at_model_freq_pct"] == pytest.approx(50.0)
    assert d["over_provisioned_pct"] == pytest.approx(50.0) and d["under_provisioned_pct"] == 0.0
    assert "idle" in s["residency_scope"]
    # a CPU whose first switch leaves a task (prev_pid 55 on CPU 3 at 9 s) ran it before: the
    # domain is busy from the start to 9 s as well, so all 10 s are compared (1-9 s, 8 s, above the model)
    tr = _freq_trace([0.0, 1.0, 9.0], [533000, 999000, 533000],
                     switches=((0.0, 1, 100), (2.0, 1, 0), (8.0, 2, 101), (9.0, 3, 0, 55), (10.0, 0, 0)))
    d = replay_schedutil(tr, plat, cu, era="v5.4")[1]["domains"]["little"]
    assert d["compared_s"] == pytest.approx(10.0) and d["idle_excluded_s"] == pytest.approx(0.0)
    assert d["over_provisioned_pct"] == pytest.approx(80.0)


def test_schedutil_requests_before_the_first_util_sample_are_not_compared():
    """A request the trace makes before any util sample of the domain has no model answer: it
    was shown as a 0 MHz model point and counted as a disagreement. HiKey960 little domain,
    util 0 known from 1.0 s (model: 533 MHz); requests at 0.0 s (999 MHz, before util) and
    at 2.0 s (533 MHz). By hand: 1 request compared, it agrees (100 %); 1 request before util;
    no row of the table has a model frequency below the domain's lowest OPP."""
    plat = load_platform("hikey960")
    tr = _freq_trace([0.0, 2.0, 3.0], [999000, 533000, 533000])
    cu = pd.DataFrame({"cpu": np.arange(4), "util": np.zeros(4, np.int64)},
                      index=pd.Index(np.full(4, 1.0), name="Time"))
    df, s = replay_schedutil(tr, plat, cu, era="v5.4")
    d = s["domains"]["little"]
    assert d["requests"] == 1 and d["requests_agree"] == 1 and d["requests_before_util"] == 1
    assert d["request_agreement_pct"] == 100.0
    assert (df["model_freq"] >= 533000).all() and len(df) == 1


def test_schedutil_request_is_held_against_the_util_sample_of_the_same_instant():
    """The update that makes a request carries the request's timestamp (the simulator and the
    kernel emit the util sample and the cpu_frequency event in one path). HiKey960 little
    (CPUs 0-3, top OPP 1844 MHz): util 0 at 1.0 s (model: lowest OPP, 533 MHz), util 1024 on
    CPU 0 at 2.0 s (model: 1.25 * 1844 MHz * 1024 / 1024, above the top, so 1844 MHz); requests
    at 1.0 s (533 MHz) and at 2.0 s (1844 MHz). By hand: both agree with the sample of their own
    instant (the sample before 2.0 s would have answered 533 MHz)."""
    plat = load_platform("hikey960")
    little = plat.perf_domains[0]
    top = max(little.freqs_khz)
    assert top == 1844000
    tr = _freq_trace([1.0, 2.0, 3.0], [533000, top, top])
    cu = pd.DataFrame({"cpu": np.r_[np.arange(4), 0], "util": np.r_[np.zeros(4, np.int64), 1024]},
                      index=pd.Index(np.r_[np.full(4, 1.0), 2.0], name="Time"))
    df, s = replay_schedutil(tr, plat, cu, era="v5.4")
    d = s["domains"]["little"]
    assert d["requests"] == 2 and d["requests_agree"] == 2
    assert list(df["model_freq"]) == [533000, top]


def test_validate_notes_an_interrupted_run(run_dir, capsys):
    info = json.loads((run_dir / "run.json").read_text())
    info["status"] = "interrupted"
    (run_dir / "run.json").write_text(json.dumps(info))
    assert main(["validate", str(run_dir)]) == 0
    assert "note: this run was interrupted; its trace stops at the interrupt" in capsys.readouterr().out
