"""Bundled platforms load, and their derived values equal the provenance formulas worked by hand."""
from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import pytest

from lisa_eas import PlatformError, list_platforms, load_platform
from lisa_eas.platform import platform_from_dict

BOARDS = ["hikey960", "juno_r0", "juno_r2", "mt8173_evb", "peach_pi", "pixel3", "pixel7pro", "tc2",
          "x86_llc112"]


def test_every_bundled_board_is_listed_and_loads():
    assert list_platforms() == sorted(BOARDS)
    for name in BOARDS:
        p = load_platform(name)
        assert p.name == name
        assert p.provenance, f"{name} lost its provenance"
        assert p.nr_cpus == len(p.cpus)


def test_power_source_and_unit_are_visible():
    assert {d.power_source for d in load_platform("hikey960").perf_domains} == {"kernel_em"}
    assert load_platform("hikey960").perf_domains[0].power_unit == "mW"
    pixel3 = load_platform("pixel3")
    assert pixel3.power_sources == ("legacy_eas",)
    assert pixel3.perf_domains[0].power_unit == "bogo-watt"
    peach = load_platform("peach_pi")
    assert peach.power_sources == ("none",)
    assert not peach.perf_domains[0].has_power
    assert "power_mw_if_exynos5422_dpc" in peach.perf_domains[0].opps[0].extra


def test_hikey960_capacity_and_power_by_hand():
    # topology_normalize_cpu_scale: floor(dmips * fmax * 1024 / max(dmips * fmax))
    # little: 592 * 1844 MHz vs big 1024 * 2362 MHz -> floor(592*1844000/2362000) = floor(462.17) = 462
    p = load_platform("hikey960")
    little, big = p.perf_domains
    assert little.cpus == (0, 1, 2, 3) and big.cpus == (4, 5, 6, 7)
    assert little.cpu_capacity_max == 462 and big.cpu_capacity_max == 1024
    assert [p.cpu_capacity(c) for c in p.cpus] == [462] * 4 + [1024] * 4
    # per-OPP capacity floor(462 * f / 1844000): 533 MHz -> 133.5 -> 133, 999 -> 250.3 -> 250, ...
    assert [o.capacity for o in little.opps] == [133, 250, 351, 428, 462]
    # floor(1024 * f / 2362000): 903 -> 391.5, 1421 -> 616.0, 1805 -> 782.5, 2112 -> 915.6
    assert [o.capacity for o in big.opps] == [391, 616, 782, 915, 1024]
    # _get_power (v5.19+, uW): dpc * mV^2 * MHz / 1e6, truncated; file keeps uW / 1000.
    # little 533 MHz, 700 mV, dpc 110: 110 * 490000 * 533 / 1e6 = 28728.7 -> 28728 uW
    assert little.opps[0].power_mw == pytest.approx(28.728)
    # big 2362 MHz, 1100 mV, dpc 550: 550 * 1210000 * 2362 / 1e6 = 1571911.0 uW
    assert big.opps[-1].power_mw == pytest.approx(1571.911)


def test_juno_r0_capacity_and_power_by_hand():
    p = load_platform("juno_r0")
    little, big = p.perf_domains
    assert little.cpus == (0, 3, 4, 5) and big.cpus == (1, 2)
    # floor(578 * 850 / 1100) = floor(446.6) = 446 (matches LISA's measured capacity)
    assert little.cpu_capacity_max == 446
    assert [o.capacity for o in little.opps] == [236, 301, 367, 406, 446]
    assert [o.capacity for o in big.opps] == [418, 581, 744, 884, 1024]
    # 450 MHz, 820 mV, dpc 140: 140 * 672400 * 450 / 1e6 = 42361.2 -> 42361 uW
    assert little.opps[0].power_mw == pytest.approx(42.361)
    assert p.domain_of(2).name == "big"
    with pytest.raises(PlatformError, match="CPU 9"):
        p.domain_of(9)


def test_llc_only_platform():
    p = load_platform("x86_llc112")
    assert p.nr_cpus == 112 and p.llc_weight == 112 and p.imbalance_pct == 117
    assert p.perf_domains == ()
    assert p.cpu_capacity(5) == 1024


@pytest.mark.parametrize("board, groups", [
    ("hikey960", [[0, 1, 2, 3], [4, 5, 6, 7]]), ("juno_r0", [[0, 3, 4, 5], [1, 2]]), ("tc2", [[0, 1], [2, 3, 4]]),
    ("mt8173_evb", [[0, 1], [2, 3]]), ("peach_pi", [[0, 1, 2, 3], [4, 5, 6, 7]]), ("pixel3", [list(range(8))])])
def test_llc_groups_follow_the_clusters(board, groups):
    """big.LITTLE boards whose clusters each have their own L2: one LLC (sd_llc) per cluster;
    Pixel 3 (SDM845, a DynamIQ cluster sharing its L3): one LLC."""
    p = load_platform(board)
    assert [list(g) for g in p.llc_groups] == groups
    ids = p.llc_ids()
    for k, g in enumerate(groups):
        assert (ids[g] == k).all()
        assert all(p.llc_size(c) == len(g) for c in g)
    assert p.llc_weight == max(len(g) for g in groups)
    assert any("llc_groups" in pr.get("what", "") for pr in p.provenance)


def test_llc_weight_gives_consecutive_groups():
    d = _juno()
    del d["llc_groups"]
    d["llc_weight"] = 3
    p = platform_from_dict(d)
    assert p.llc_ids().tolist() == [0, 0, 0, 1, 1, 1] and p.llc_groups == ()
    del d["llc_weight"]
    assert platform_from_dict(d).llc_ids().tolist() == [0] * 6


@pytest.mark.parametrize("groups, match", [
    ([[0, 3, 4, 5], [1]], r"CPUs \[2\] are missing"), ([[0, 3, 4, 5], [1, 2, 3]], r"CPUs \[3\] appear twice"),
    ([[0, 3, 4, 5], [1, 2, 6]], "6 is not a CPU"), ([[0, 1, 2, 3, 4, 5], []], "non-empty"),
    ("cluster", "non-empty list"), ([[0, 3, 4, 5], [1, True]], "True is not a CPU")])
def test_bad_llc_groups(groups, match):
    d = _juno()
    d["llc_groups"] = groups
    with pytest.raises(PlatformError, match="juno.json: 'llc_groups'.*" + match):
        platform_from_dict(d, source="juno.json")
    d = _juno()
    d["llc_weight"] = 2
    with pytest.raises(PlatformError, match="not both"):
        platform_from_dict(d)


def test_load_by_path(tmp_path):
    src = Path(__file__).resolve().parents[1] / "lisa_eas" / "platforms" / "tc2.json"
    dst = tmp_path / "my_board.json"
    dst.write_text(src.read_text())
    assert load_platform(dst).name == "tc2"
    assert load_platform(str(dst)).nr_cpus == 5


# ---------------------------------------------------------------- bad input

def _juno() -> dict:
    src = Path(__file__).resolve().parents[1] / "lisa_eas" / "platforms" / "juno_r0.json"
    return json.loads(src.read_text())


def test_unknown_board_lists_known_ones():
    with pytest.raises(PlatformError) as exc:
        load_platform("hikey970")
    assert "hikey970" in str(exc.value) and "hikey960" in str(exc.value) and "juno_r0" in str(exc.value)


def test_frequencies_must_increase():
    d = _juno()
    opps = d["perf_domains"][1]["opps"]
    opps[2]["freq_khz"] = opps[1]["freq_khz"]
    with pytest.raises(PlatformError, match=r"perf_domains\[1\] \('big'\) opps\[2\]: frequencies must increase"):
        platform_from_dict(d, source="juno.json")


def test_capacity_above_1024():
    d = _juno()
    d["perf_domains"][1]["opps"][-1]["capacity"] = 1100
    with pytest.raises(PlatformError, match=r"opps\[4\]: 'capacity' 1100 must be within 1..1024"):
        platform_from_dict(d)
    d = _juno()
    d["perf_domains"][1]["cpu_capacity_max"] = 2048
    with pytest.raises(PlatformError, match="'cpu_capacity_max' 2048"):
        platform_from_dict(d)


def test_missing_power_where_the_em_needs_it():
    d = _juno()
    d["perf_domains"][0]["opps"][3]["power_mw"] = None
    with pytest.raises(PlatformError, match=r"\('little'\) opps\[3\]: 'power_mw' is missing"):
        platform_from_dict(d)


def test_cpu_in_two_domains_and_holes():
    d = _juno()
    d["perf_domains"][1]["cpus"] = [1, 2, 3]
    with pytest.raises(PlatformError, match="CPU 3 is in two perf domains"):
        platform_from_dict(d)
    d = _juno()
    d["perf_domains"][1]["cpus"] = [1, 7]
    with pytest.raises(PlatformError, match=r"CPUs \[2, 6\] are in no perf domain"):
        platform_from_dict(d)


def test_wrong_types_and_missing_fields():
    d = _juno()
    d["perf_domains"][0]["opps"][0]["freq_khz"] = "450MHz"
    with pytest.raises(PlatformError, match="'freq_khz' must be int"):
        platform_from_dict(d)
    d = _juno()
    del d["perf_domains"][0]["cpu_capacity_max"]
    with pytest.raises(PlatformError, match="missing field 'cpu_capacity_max'"):
        platform_from_dict(d)
    d = _juno()
    d["perf_domains"][0]["power_mw_source"] = "measured"
    with pytest.raises(PlatformError, match="'power_mw_source' 'measured' is not understood"):
        platform_from_dict(d)


def test_invalid_json_names_line(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{\n "name": "x",\n "perf_domains": [\n}\n')
    with pytest.raises(PlatformError, match=r"broken.json:4:1: invalid JSON"):
        load_platform(bad)
    with pytest.raises(PlatformError, match="cannot read platform file"):
        load_platform(tmp_path / "absent.json")


def test_platform_is_frozen():
    p = load_platform("juno_r0")
    with pytest.raises(Exception):
        p.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.perf_domains[0].opps[0].extra["x"] = 1  # type: ignore[index]
    assert copy.deepcopy(p) == p
    assert pickle.loads(pickle.dumps(p)) == p
