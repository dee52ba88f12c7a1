"""The probe's LLC groups, from the cacheinfo files a board exposes (no board needed)."""
from __future__ import annotations

from lisa_eas.target._probe import _llc_groups

SYS = "/sys/devices/system/cpu"


def _cache(files, cpu, index, level, kind, shared):
    files[f"{SYS}/cpu{cpu}/cache/{index}/level"] = f"{level}\n"
    files[f"{SYS}/cpu{cpu}/cache/{index}/type"] = f"{kind}\n"
    files[f"{SYS}/cpu{cpu}/cache/{index}/shared_cpu_list"] = f"{shared}\n"


def _big_little(l3=None):
    """Two clusters of two CPUs with an L2 each (HiKey960-like), optionally an L3 shared by all."""
    files = {}
    for cpu in range(4):
        _cache(files, cpu, "index0", 1, "Data", str(cpu))
        _cache(files, cpu, "index1", 1, "Instruction", str(cpu))
        _cache(files, cpu, "index2", 2, "Unified", "0-1" if cpu < 2 else "2-3")
        if l3:
            _cache(files, cpu, "index3", 3, "Unified", l3)
    return files


def test_per_cluster_l2_gives_one_llc_per_cluster():
    notes = []
    assert _llc_groups(_big_little(), (0, 1, 2, 3), notes) == [[0, 1], [2, 3]] and notes == []


def test_a_shared_l3_gives_one_llc():
    notes = []
    assert _llc_groups(_big_little(l3="0-3"), (0, 1, 2, 3), notes) == [[0, 1, 2, 3]] and notes == []


def test_missing_or_inconsistent_cacheinfo_falls_back_to_one_llc_with_a_note():
    notes = []
    assert _llc_groups({}, (0, 1), notes) == [[0, 1]] and "not readable" in notes[0]
    files = _big_little()
    _cache(files, 0, "index3", 3, "Unified", "0-3")         # only CPU 0 claims an L3
    notes = []
    assert _llc_groups(files, (0, 1, 2, 3), notes) == [[0, 1, 2, 3]] and notes


def test_offline_cpus_are_left_out():
    files = _big_little()
    assert _llc_groups(files, (0, 2, 3), []) == [[0], [2, 3]]
