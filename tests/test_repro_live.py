"""The live step of `lisa-eas demo`: the smoke workload run on this machine, read back,
validated and held against its simulation."""
from __future__ import annotations

import pytest

from conftest import require_live
from lisa_eas.repro._live import can_trace, fixed_frequency_platform, live_section


@pytest.mark.live
def test_live_section_runs_and_compares(tmp_path):
    ok, why = can_trace()
    require_live(ok, why)
    section, summary = live_section(tmp_path)
    # 2 s of a 16 ms periodic task (125 activations) and a 3-step ramp of 40 each (120)
    assert summary["rt-app activations, logs (measured)"] == 245
    assert summary["rt-app activations, simulated"] == 245
    assert summary["rt-app activations, trace markers"] == 245
    assert "sched_switch" in summary["events"]
    assert (tmp_path / "local_run" / "trace.dat").is_file()
    assert (tmp_path / "local_run" / "validation").is_dir()
    assert len(section.plots) >= 1


def test_fixed_frequency_platform():
    plat = fixed_frequency_platform("vm", 2)
    assert plat.nr_cpus == 2 and len(plat.perf_domains) == 1
    assert plat.cpu_capacity(1) == 1024 and plat.perf_domains[0].has_power
