"""The simulator's model-parameter slots (``sim_models.M_*``, read by name in the numba loop) are a
table of distinct indices below ``M_SIZE``; one slot (``M_ATTACH_KEEPS_SUM``) lives in ``sim_sched``
because ``sim_models`` imports that module. Branches that append slots meet here: a duplicate index
would make two switches share one value silently."""
from __future__ import annotations


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
