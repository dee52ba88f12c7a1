"""The delayed-dequeue load split of compare_kernel_signals (no kernel needed).

For a task entity ``load_sum`` accrues ``!!se->on_rq`` and ``runnable_sum`` accrues
``se_runnable(se)`` (0 for a ``sched_delayed`` entity from v6.12, fc1892becd56), so
``load_avg == runnable_avg * se_weight / 1024`` to rounding unless the task was queued but
delayed. Hand values: nice 0 (se_weight 1024, scale_load 1024 << 10): load 232 / runnable 232
has no delayed load; load 762 / runnable 72 carries 690; a rounding difference of 2 is none.
nice 5 (se_weight 335): runnable 300 gives load 300 * 335 // 1024 = 98; 98 has none, 150 has 52.
"""
from __future__ import annotations

import pandas as pd

from lisa_eas.analysis.validate._kernel_signals import _delayed_load


def test_delayed_load_is_load_beyond_runnable_times_weight():
    se = pd.DataFrame({"load": [232, 762, 74, 98, 150], "runnable": [232, 72, 72, 300, 300],
                       "weight": [1024 << 10] * 3 + [335 << 10] * 2})
    assert _delayed_load(se).tolist() == [0, 690, 0, 0, 52]
