"""The delayed-dequeue load split of compare_kernel_signals (no kernel needed).

For a task entity ``load_sum`` accrues ``!!se->on_rq`` and ``runnable_sum`` accrues
``se_runnable(se)`` (0 for a ``sched_delayed`` entity from v6.12, fc1892becd56), so
``load_avg == runnable_avg * se_weight / 1024`` to rounding unless the task was queued but
delayed. At nice 0 the rounding is one-sided: both sums accrue the same contrib
(``load_sum += contrib``, ``runnable_sum += contrib << 10``) and ``decay_load()`` floors each, so
``runnable_sum >= load_sum << 10`` and ``1024 * load_sum / divider <= runnable_sum / divider``:
load never exceeds runnable without delayed time. Hand values: nice 0 (se_weight 1024,
scale_load 1024 << 10): load 232 / runnable 232 has no delayed load; load 762 / runnable 72
carries 690; load 74 / runnable 72 carries 2; load 71 / runnable 72 (floor) none. nice 5
(se_weight 335): runnable 300 gives load 300 * 335 // 1024 = 98; 98 and 99 (the product's
rounding, up to ceil(335 / 1024) = 1) have none, 150 has 52.
"""
from __future__ import annotations

import pandas as pd

from lisa_eas.analysis.validate._kernel_signals import _delayed_load


def test_delayed_load_is_load_beyond_runnable_times_weight():
    se = pd.DataFrame({"load": [232, 762, 74, 71, 98, 99, 150], "runnable": [232, 72, 72, 72, 300, 300, 300],
                       "weight": [1024 << 10] * 4 + [335 << 10] * 3})
    assert _delayed_load(se).tolist() == [0, 690, 2, 0, 0, 0, 52]
