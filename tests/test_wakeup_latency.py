"""df_wakeup_latency on a hand-built trace: a wake-up is paired with the task's next switch-in
only when the task does not switch out first (a switch-in the kernel did not trace, or a wake-up
of a task still running)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lisa_eas.analysis import df_wakeup_latency
from lisa_eas.trace import Trace


def _trace():
    # task 7 on CPU 0: woken at 1.0 and switched in 1 ms later; woken at 2.0 and switched in
    # without a trace record (it runs: its switch-out at 2.005 is traced); woken at 3.0 and
    # switched in 200 us later
    sw = [(1.001, 0, "a", 7, 1), (1.003, 7, "a", 0, 1), (2.005, 7, "a", 0, 1), (3.0002, 0, "a", 7, 1)]
    swdf = pd.DataFrame({"__cpu": 0, "__pid": [r[1] for r in sw], "__comm": "x",
                         "prev_comm": ["<idle>" if r[1] == 0 else "a" for r in sw],
                         "prev_pid": [r[1] for r in sw], "prev_prio": 120,
                         "prev_state": [0 if r[1] == 0 else 1 for r in sw],
                         "next_comm": ["<idle>" if r[3] == 0 else "a" for r in sw],
                         "next_pid": [r[3] for r in sw], "next_prio": 120},
                        index=pd.Index([r[0] for r in sw], name="Time"))
    wk = pd.DataFrame({"__cpu": 1, "__pid": 9, "__comm": "waker", "comm": "a", "pid": 7, "prio": 120,
                       "target_cpu": 0}, index=pd.Index([1.0, 2.0, 3.0], name="Time"))
    return Trace.from_dataframes({"sched_switch": swdf, "sched_wakeup": wk})


def test_a_wakeup_whose_switch_in_is_untraced_has_no_latency():
    lat = df_wakeup_latency(_trace())
    # pairing the 2.0 wake-up with the 3.0002 switch-in would report ~1,000,200 us
    assert np.allclose(lat["latency_us"].to_numpy(), [1000.0, 200.0], atol=1e-3)
    assert list(lat.index) == [1.0, 3.0]
    assert lat.attrs["unpaired"] == 1
    assert (lat["cpu"] == 0).all()
