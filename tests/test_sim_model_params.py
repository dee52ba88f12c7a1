"""The simulator's model-parameter slots (``sim_models.M_*``, read by name in the numba loop) are a
table of distinct indices below ``M_SIZE``; one slot (``M_ATTACH_KEEPS_SUM``) lives in ``sim_sched``
because ``sim_models`` imports that module. Branches that append slots meet here: a duplicate index
would make two switches share one value silently."""
from __future__ import annotations

import pytest


def test_model_param_slots_are_distinct_and_in_range():
    from lisa_eas._kernels import sim_models, sim_sched

    slots = {k: v for k, v in vars(sim_models).items() if k.startswith("M_") and k != "M_SIZE" and isinstance(v, int)}
    slots["M_ATTACH_KEEPS_SUM"] = sim_sched.M_ATTACH_KEEPS_SUM
    by_index: dict[int, list[str]] = {}
    for k, v in slots.items():
        by_index.setdefault(v, []).append(k)
    shared = {i: ks for i, ks in by_index.items() if len(ks) > 1}
    assert not shared, shared
    assert sorted(by_index) == list(range(sim_models.M_SIZE)), (sorted(by_index), sim_models.M_SIZE)


@pytest.mark.parametrize("era, gate, misfit", [("v4.14", 1, 0), ("v4.19", 1, 0), ("v4.20", 1, 1),
                                               ("v5.15", 1, 1), ("v5.16", 2, 1), ("v6.10", 2, 1)])
def test_newidle_gate_slots_per_era(era, gate, misfit):
    """The newidle gate's era codes (ledger newidle-v4.14, newidle-v4.20, newidle-v5.16) and its ablation."""
    import numpy as np

    from lisa_eas._kernels import sim_models as sm
    from lisa_eas.platform import load_platform
    from lisa_eas.sim._engine import _model_params

    plat = load_platform("hikey960")
    caps = np.array([462, 462, 462, 462, 1024, 1024, 1024, 1024])
    from lisa_eas.sim import SimConfig

    mp = _model_params(plat, SimConfig(era=era), 0, caps)
    assert (mp[sm.M_NEWIDLE_GATE], mp[sm.M_OVERLOAD_MISFIT]) == (gate, misfit)
    abl = _model_params(plat, SimConfig(era=era, ablate=("newidle-gate",)), 0, caps)
    assert abl[sm.M_NEWIDLE_GATE] == sm.NEWIDLE_UNGATED
    sym = _model_params(plat, SimConfig(era=era), 0, np.full(8, 1024))
    assert sym[sm.M_OVERLOAD_MISFIT] == 0          # misfit needs sched_asym_cpucapacity
