"""The simulator's meter figure against an independent twin (tests/reference/ref_meter.py).

``simulate()`` puts :func:`lisa_eas.sim._meter.meter_energy` (the numba integral of
``lisa_eas/_kernels/meter.py`` over tables built from the ``Platform``) in
``metadata["energy"]["meter"]``. The twin reads the platform JSON itself, builds its own
tables and integrates the same Trace's ``cpu_frequency`` / ``cpu_idle`` events naively (per
event, per CPU, in Python). Both sum the same products of power and integer nanoseconds in a
different order, so they agree to float rounding: relative 1e-9 (a float64 sum of a few
thousand terms keeps ~1e-13 relative error; 1e-9 leaves margin, yet on a part of ~20 mW*s it is
2e-8 mW*s, 20 ns of a 1 mW state: a state misattributed for any scheduler event's duration
shows).

The runs cover Juno r0 (idle-state powers in the DT states, WFI among them) and HiKey960
(legacy idle-cost arrays mapped onto the DT states), light loads that leave whole clusters in
their cluster state and heavier loads that keep them active, and checks that each run
exercised what it is meant to (cluster power-down time, busy time on each cluster, more than
one OPP).
"""
from __future__ import annotations

import pytest
from reference.ref_meter import twin_meter

from lisa_eas.rtapp import periodic, task, workload
from lisa_eas.sim import SimConfig, simulate

PARTS = ("cpu_busy", "cpu_idle", "cluster_active", "cluster_idle", "total", "cluster_down_s")


def _wl(n, duty, period_ms, seconds):
    return workload([task(f"t{i}", periodic(duty_cycle_pct=duty + 3 * (i % 4), period_ms=period_ms,
                                            duration_s=seconds)) for i in range(n)], calibration=20)


RUNS = {
    # light: two small tasks; clusters sleep between activations
    "juno_r0-light": ("juno_r0", _wl(2, 5, 16, 1.0), SimConfig(duration_s=1.0)),
    # heavy: six tasks up to ~30 %, both clusters active, several OPPs
    "juno_r0-heavy": ("juno_r0", _wl(6, 20, 8, 1.0), SimConfig(duration_s=1.0)),
    # no EAS, ondemand: a different OPP / idle pattern on the same board
    "juno_r0-ondemand": ("juno_r0", _wl(4, 10, 16, 1.0),
                         SimConfig(duration_s=1.0, placement="no-eas", governor="ondemand")),
    "hikey960-light": ("hikey960", _wl(3, 5, 16, 1.0), SimConfig(duration_s=1.0)),
    "hikey960-heavy": ("hikey960", _wl(10, 25, 16, 1.0), SimConfig(duration_s=1.0)),
}


@pytest.fixture(scope="module")
def runs():
    return {name: simulate(board, wl, config=cfg) for name, (board, wl, cfg) in RUNS.items()}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_simulator_meter_equals_the_twin(runs, name):
    board = RUNS[name][0]
    tr = runs[name]
    sim = tr.metadata["energy"]["meter"]
    twin = twin_meter(tr.df("cpu_frequency"), tr.df("cpu_idle"), board,
                      t_end_ns=int(round(tr.metadata["t_end_s"] * 1e9)))
    assert set(sim["per_domain"]) == set(twin["per_domain"])
    for dom, got in sim["per_domain"].items():
        for part in PARTS:
            assert got[part] == pytest.approx(twin["per_domain"][dom][part], rel=1e-9, abs=1e-12), (dom, part)
    assert sim["total"] == pytest.approx(twin["total"], rel=1e-9)
    assert sim["covered"] == pytest.approx(twin["covered"], rel=1e-9)


def test_the_runs_exercise_each_part_of_the_model(runs):
    """Not a comparison that could pass on empty runs: each light run has a cluster powered down
    for part of the time and active for another part; each heavy run keeps the big cluster busy
    at more than one OPP; the Juno runs charge idle-state power."""
    for name, tr in runs.items():
        board = RUNS[name][0]
        m = tr.metadata["energy"]["meter"]["per_domain"]
        freqs = tr.df("cpu_frequency")
        if name.endswith("light"):
            assert any(d["cluster_down_s"] > 0.05 and d["cluster_active"] > 0 for d in m.values()), name
        if name.endswith("heavy"):
            big = m["big"]
            assert big["cpu_busy"] > 0 and big["cluster_active"] > 0, name
            big_cpus = {"juno_r0": {1, 2}, "hikey960": {4, 5, 6, 7}}[board]
            assert freqs[freqs["cpu_id"].isin(big_cpus)]["state"].nunique() > 1, name
        if board == "juno_r0":      # WFI and cpu-sleep draw power on Juno (HiKey960's cpu-sleep: 0)
            assert sum(d["cpu_idle"] + d["cluster_idle"] for d in m.values()) > 0, name
    # a cluster the workload never uses stays in its cluster state from t = 0
    assert runs["hikey960-light"].metadata["energy"]["meter"]["per_domain"]["big"]["cluster_down_s"] > 0.9


def test_the_twin_catches_a_wrong_idle_state_power(runs):
    """Mutation check: the twin with HiKey960's big cluster-sleep powered like cpu-sleep (the
    arrays aligned from the front instead of the deep end) disagrees with the simulator on a run
    whose big cluster powers down."""
    import reference.ref_meter as rm

    tr = runs["hikey960-light"]
    sim = tr.metadata["energy"]["meter"]["per_domain"]["big"]
    assert sim["cluster_down_s"] > 0.05
    real = rm.load_tables

    def front_aligned(board):
        t = real(board)
        for d in t["domains"]:
            d["cluster_idle"] = [d["cluster_idle"][0]] * len(d["cluster_idle"])
        return t

    rm.load_tables = front_aligned
    try:
        twin = rm.twin_meter(tr.df("cpu_frequency"), tr.df("cpu_idle"), "hikey960",
                             t_end_ns=int(round(tr.metadata["t_end_s"] * 1e9)))
    finally:
        rm.load_tables = real
    assert twin["per_domain"]["big"]["cluster_idle"] > 1.01 * sim["cluster_idle"]
