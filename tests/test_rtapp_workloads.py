"""The published experiments as rt-app files: regeneration matches, and each file says what
the publication describes."""
from __future__ import annotations

import importlib.util

import pytest
from conftest import REPO

from lisa_eas.rtapp import Policy, read_workload

WL = REPO / "workloads"


def _generator():
    spec = importlib.util.spec_from_file_location("wl_generate", WL / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_regeneration_matches_committed_files():
    files = _generator().build_all()
    assert len(files) == 3 + 10 + 32
    for rel, text in files.items():
        p = WL / rel
        assert p.is_file(), f"workloads/{rel} missing: run python workloads/generate.py"
        assert p.read_text() == text, f"workloads/{rel} differs: run python workloads/generate.py"
    committed = {p.relative_to(WL).as_posix() for p in WL.rglob("*.json")}
    assert committed == set(files), "stale files under workloads/"


def test_every_committed_file_reads_back_without_warnings():
    for p in WL.rglob("*.json"):
        wl = read_workload(p, strict=True)
        assert not wl.rtapp1_warnings(), p
        assert wl.global_settings.log_size is None  # rt-app 1.0 bug with "file"


def test_eas_speedup_ramp():
    wl = read_workload(WL / "eas_speedup_ramp.json")
    (t,) = wl.tasks
    duties = [round(p.duty_cycle * 100) for p in t.phases]
    assert duties == list(range(70, 5, -5))  # 70 % -> 10 % in 5 % steps
    assert {p.timer_period_us for p in t.phases} == {16000}
    assert {p.loop for p in t.phases} == {31}  # floor(500 ms / 16 ms)
    assert wl.global_settings.calibration == "CPU4"  # a big CPU of the Pixel 3


def test_ramp_boost_step():
    wl = read_workload(WL / "ramp_boost_step.json")
    (t,) = wl.tasks
    assert t.cpus == (4,) and t.loop == 20  # pinned on a big Pixel 3 CPU, 20 cycles
    assert [round(p.duty_cycle * 100) for p in t.phases] == [5, 75]
    assert [p.duration_us for p in t.phases] == [288000, 288000]  # 18 x 16 ms of each 0.3 s
    assert wl.duration_s == pytest.approx(20 * 0.576)


@pytest.mark.parametrize("board, cpu", [("hikey960", "CPU4"), ("juno_r0", "CPU1")])
@pytest.mark.parametrize("n", [10, 20, 30, 40, 50])
def test_eas_rfc_energy(board, cpu, n):
    wl = read_workload(WL / "eas_rfc_energy" / f"{board}_n{n}.json")
    (t,) = wl.tasks
    (ph,) = t.phases
    assert t.instances == n and ph.duty_cycle == pytest.approx(0.05)
    assert ph.timer_period_us == 16000 and ph.duration_us == 30_000_000
    assert wl.global_settings.calibration == cpu  # the board's biggest CPU


def test_schedfreq_cases():
    cases = _generator().SCHEDFREQ_CASES
    assert len(cases) == 16
    for i, (busy, idle, loops) in enumerate(cases, 1):
        for kind, policy in (("cfs", None), ("rt", Policy.FIFO)):
            wl = read_workload(WL / "schedfreq" / f"case{i:02d}_{kind}.json")
            (t,) = wl.tasks
            (ph,) = t.phases
            assert t.policy is policy
            assert (ph.busy_us, ph.timer_period_us, ph.loop) == (busy * 1000, (busy + idle) * 1000, loops)
    # published durations: case 1 = 10.1 s, case 16 = 21 s
    assert read_workload(WL / "schedfreq" / "case01_cfs.json").duration_s == pytest.approx(10.1)
    assert read_workload(WL / "schedfreq" / "case16_rt.json").duration_s == pytest.approx(21.0)


def test_schedfreq_case_warmup():
    from lisa_eas.repro.workloads import biggest_cpu, schedfreq_case

    wl = schedfreq_case(40, 100, 100, rt=True, warmup_ms=50)
    warm, sf = wl.tasks
    assert (warm.name, sf.name) == ("warm", "sf")
    assert warm.policy is None and tuple(warm.cpus) == (biggest_cpu("peach_pi"),)
    (ph,) = warm.phases
    assert (ph.busy_us, ph.timer_period_us, ph.loop) == (50_000, 50_000, 1)
    assert sf.policy is Policy.FIFO and sf.delay_us == 50_000
    assert schedfreq_case(40, 100, 100, rt=True) == schedfreq_case(40, 100, 100, rt=True, warmup_ms=0)


def test_smoke_local_is_short_and_numeric():
    wl = read_workload(WL / "smoke_local.json")
    assert isinstance(wl.global_settings.calibration, int)
    assert 1.5 <= wl.duration_s <= 2.5 and len(wl.tasks) == 2
