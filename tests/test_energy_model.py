"""The kernel EM tables and em_cpu_energy per era, against numbers worked by hand."""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas import EnergyModel, ModelError, PlatformError, load_platform
from lisa_eas.energy_model import EM_ERAS
from lisa_eas.platform import platform_from_dict


def _little(era):
    return EnergyModel.from_platform("hikey960", era).domains[0]


def test_hikey960_little_v5_0_costs_by_hand():
    d = _little("v5.0")
    assert d.era == (5, 0) and d.power_unit == "mW"
    # integer mW: floor(28.728)=28, 70, 124, 187, 245
    assert d.power.tolist() == [28, 70, 124, 187, 245]
    # cost = fmax * power / f: 1844000*28/533000 = 96.87 -> 96; *70/999000 = 129.2 -> 129;
    # *124/1402000 = 163.09 -> 163; *187/1709000 = 201.77 -> 201; 245
    assert d.cost.tolist() == [96, 129, 163, 201, 245]
    assert not d.inefficient.any()


def test_juno_r0_big_v5_0_costs_by_hand():
    big = EnergyModel.from_platform("juno_r0", "v5.4").domains[1]
    assert big.era == (5, 0)  # v5.4 uses the v5.0 EM
    # 1100000*160/450000 = 391.1; *239/625000 = 420.6; *343/800000 = 471.6; *454/950000 = 525.7
    assert big.cost.tolist() == [391, 420, 471, 525, 583]


def test_hikey960_little_v6_9_performance_and_cost_by_hand():
    d = _little("v6.9")
    assert d.power_unit == "uW"
    assert d.power.tolist() == [28728, 70329, 124918, 187990, 245436]
    # performance = 462 * f / 1844000
    assert d.performance.tolist() == [133, 250, 351, 428, 462]
    # cost = 10 * power / performance: 287280/133 = 2160; 703290/250 = 2813.2; 1249180/351 = 3558.9;
    # 1879900/428 = 4392.3; 2454360/462 = 5312.5
    assert d.cost.tolist() == [2160, 2813, 3558, 4392, 5312]


def test_em_cpu_energy_per_era_by_hand():
    # HiKey960 little, max_util 300, sum_util 500 (scale_cpu 462)
    # v5.0: freq = (1844000 + 461000) * 300 / 462 = 1496753 -> 1709000 kHz (cost 201); 201*500/462 = 217.5
    assert _little("v5.0").cpu_energy(300, 500) == 217
    assert _little("v5.0").state_index(300) == 3
    # v5.14: max_util = min(300 + 75, 462) = 375; freq = 1844000*375/462 = 1496753 -> same state
    assert _little("v5.14").cpu_energy(300, 500) == 217
    # thermal cap: allowed_cpu_cap 300 -> max_util 300 -> freq 1197402 -> 1402000 (cost 163) -> 176.4
    assert _little("v5.14").cpu_energy(300, 500, allowed_cpu_cap=300) == 176
    # v5.15: power x1000: cost(1709000) = 1844000*187000/1709000 = 201771.8 -> 201771; *500/462 = 218366.9
    assert _little("v5.15").cpu_energy(300, 500) == 218366
    # v6.8: no headroom inside: freq = 1844000*300/462 = 1197402 -> 1402000; uW cost
    # 1844000*124918/1402000 = 164300.1 -> 164300; *500/462 = 177813.9
    assert _little("v6.8").cpu_energy(300, 500) == 177813
    # v6.9: first performance >= 300 is 351 (cost 3558): 3558 * 500 = 1779000 (no division)
    assert _little("v6.9").cpu_energy(300, 500) == 1779000
    # above every state: the top state
    assert _little("v5.0").state_index(1024) == 4
    for era in ("v5.0", "v6.9"):
        assert _little(era).cpu_energy(300, 0) == 0


def test_inefficient_states_flagged_and_skipped():
    plat = platform_from_dict({
        "name": "toy", "perf_domains": [{
            "name": "pd", "cpus": [0], "cpu_capacity_max": 1024, "power_mw_source": "kernel_em",
            "opps": [
                {"freq_khz": 500000, "capacity": 512, "power_mw": 100.0},
                {"freq_khz": 750000, "capacity": 768, "power_mw": 200.0},
                {"freq_khz": 1000000, "capacity": 1024, "power_mw": 240.0},
            ]}]})
    # v5.16 (power x1000): costs 1e6*100000/5e5 = 200000, 1e6*200000/7.5e5 = 266666, 240000.
    # Scanning from the top: 240000 kept, 266666 >= 240000 -> INEFFICIENT, 200000 kept.
    em = EnergyModel.from_platform(plat, "v5.16").domains[0]
    assert em.cost.tolist() == [200000, 266666, 240000]
    assert em.inefficient.tolist() == [False, True, False]
    # max_util 500 -> +25% = 625 -> freq 610351 -> state 1 is inefficient -> state 2
    assert em.state_index(500) == 2
    keep = EnergyModel.from_platform(plat, "v5.16", skip_inefficiencies=False).domains[0]
    assert keep.state_index(500) == 1
    # before v5.16 nothing is flagged
    assert not EnergyModel.from_platform(plat, "v5.15").domains[0].inefficient.any()


def test_pixel3_legacy_table_marks_its_non_monotonic_states():
    em = EnergyModel.from_platform("pixel3", "v6.9")
    assert em.domains[1].power_unit == "bogo-watt x1000"
    assert em.domains[1].inefficient.any()
    assert not em.domains[1].inefficient[-1]


def test_no_em_without_power_and_the_hypothetical_column():
    with pytest.raises(PlatformError, match="power_mw_if_exynos5422_dpc"):
        EnergyModel.from_platform("peach_pi")
    em = EnergyModel.from_platform("peach_pi", "v5.0", power_column="power_mw_if_exynos5422_dpc")
    assert em.domains[0].cost[-1] == em.domains[0].power[-1]
    with pytest.raises(PlatformError, match="no perf domains"):
        EnergyModel.from_platform("x86_llc112")


def test_eras_and_bad_arguments():
    assert EnergyModel.from_platform("tc2", "6.12.3").era == (6, 9)
    assert EnergyModel.from_platform("tc2", (5, 17)).era == (5, 16)
    assert EnergyModel.from_platform("tc2", "v5.0").era_name == "v5.0"
    with pytest.raises(ModelError, match="before v5.0"):
        EnergyModel.from_platform("tc2", "v4.19")
    with pytest.raises(ModelError, match="not a kernel version"):
        EnergyModel.from_platform("tc2", "newest")
    d = _little("v6.9")
    with pytest.raises(ModelError, match="max_util must be within 0..1024"):
        d.cpu_energy(2000, 10)
    with pytest.raises(ModelError, match="sum_util"):
        d.cpu_energy(10, -1)
    with pytest.raises(ModelError, match="max_util must be an integer"):
        d.cpu_energy(1.5, 10)
    with pytest.raises(ModelError, match="CPU 8"):
        EnergyModel.from_platform("hikey960").domain_of(8)
    assert isinstance(ModelError("x"), ValueError)


@pytest.mark.parametrize("era", ["v%d.%d" % e for e in EM_ERAS])
def test_energy_grows_with_busy_time_every_board(era):
    for name in ("hikey960", "juno_r0", "juno_r2", "mt8173_evb", "tc2", "pixel3"):
        em = EnergyModel.from_platform(load_platform(name), era)
        for d in em.domains:
            e = [d.cpu_energy(d.scale_cpu // 2, s) for s in range(0, 2048, 97)]
            assert np.all(np.diff(e) >= 0)
