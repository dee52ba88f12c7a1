"""Where rt-app's threads start: the fork balance of its ``pthread_create`` loop
(:mod:`lisa_eas._kernels.fork`, ledger ``fork-v4.14``, ``fork-v5.5``) from a main thread whose
runnable load the era's PELT arithmetic gives (:func:`parent_load`)."""
from __future__ import annotations

import functools

import numpy as np

from ..platform import Platform
from ._compile import CompiledWorkload
from ._config import SimConfig

__all__ = ["PARENT_RUN_NS", "fork_placement", "parent_load"]


def fork_placement(platform: Platform, compiled: CompiledWorkload, config: SimConfig, cpu_capmax):
    """Each thread's CPU and initial util_avg as rt-app's ``pthread_create`` loop leaves them
    (:mod:`lisa_eas._kernels.fork`; ledger ``fork-v4.14``, ``fork-v5.5``), or None under the
    ``"fork-placement"`` ablation."""
    from .._kernels import fork as kf
    from ..models.wakeup import die_imbalance_pct
    if "fork-placement" in config.ablate:
        return None
    form = kf.FORK_V5_5 if config.era_tuple >= (5, 5) else kf.FORK_V4_14
    has_idle = all(pd.idle_states for pd in platform.perf_domains)
    return kf.fork_threads(cpu_capmax.tolist(), platform.llc_ids().tolist(), compiled.parent_cpu, has_idle,
                           form, compiled.nr_threads, parent_load=parent_load(config),
                           pct_die=die_imbalance_pct(config.era))


#: How long rt-app's main thread has run, always runnable, when it creates the threads: rt-app's
#: own calibration loop (``"calibration": "CPU<n>"``) runs for seconds; with a numeric calibration
#: the thread is younger but its load reaches the same value within ~5 ms (see :func:`parent_load`).
PARENT_RUN_NS = 1_000_000_000


def parent_load(config: SimConfig) -> int:
    """The runnable ``load_avg`` of rt-app's main thread at its ``pthread_create`` loop.

    The kernel's own arithmetic, not an assumed 1024: the thread is attached with ``load_avg`` =
    ``NICE_0_LOAD`` (``init_entity_runnable_average``; from v4.15 ``attach_entity_load_avg`` sets
    ``load_sum`` to match it) and then runs without a break at the top OPP (the most favourable
    case: v4.15 - v5.0 scale the load by frequency, so a lower OPP gives less), its PELT updated
    at each tick (``entity_tick``), for :data:`PARENT_RUN_NS`; the value is that of the last
    update, computed by the models' PELT kernel (:func:`lisa_eas.models.pelt_timeline`, the
    era's arithmetic). At HZ=250: 1024 for v4.11 - v4.14, 1023 from v4.15 at every tick once
    the thread is ~5 ms old (1024 only before); at HZ=1000 the value alternates between 1023
    and 1024 from one update to the next, and the one at :data:`PARENT_RUN_NS` is used. On
    HiKey960 this decides the v4.x fork balance (1024 scaled by the big cluster's capacity is
    exactly DIE's ``imbalance``; below it, the blocked load rule keeps most clones on the big
    cluster: ledger ``fork-v4.14``). Ablation ``"parent-load-nice0"``: exactly ``NICE_0_LOAD``.
    """
    if "parent-load-nice0" in config.ablate:
        return 1024
    return _running_load(config.era if config.era_tuple >= (4, 11) else "v4.11", config.tick_hz,
                         config.pelt_halflife_ms)


@functools.lru_cache(maxsize=None)
def _running_load(era: str, tick_hz: int, halflife: int) -> int:
    """load_avg of a task attached with 1024 after :data:`PARENT_RUN_NS` always running at the
    top OPP, updated each tick (asked once per run by the fork placement and once by the run's
    approximations: computed once per era, HZ and half-life)."""
    from ..models.pelt import pelt_timeline
    tick = 1_000_000_000 // tick_hz
    t = np.unique(np.r_[np.arange(0, PARENT_RUN_NS, tick), PARENT_RUN_NS])
    df = pelt_timeline(t, np.full(len(t), 2), era=era, halflife=halflife, load_avg=1024)
    return int(df["load_avg"].iloc[-1])
