"""The v6.12 util_est ordering (util_est_update() before dequeue_entities(), b55945c500c5,
v6.12-rc5; ledger row util_est-v6.12) as an era row.

State: a nice-0 task alone on a 1024-capacity CPU at full frequency, util_avg 0 and
util_est 0, runs from t=0, is updated at t=1024*1024 ns (a tick) and dequeued to sleep at
2*1024*1024 ns. Worked out by hand from kernel/sched/pelt.c (accumulate_sum,
__accumulate_pelt_segments, decay_load with runnable_avg_yN_inv[1] = 0xfa83b2da,
LOAD_AVG_MAX = 47742, get_pelt_divider = LOAD_AVG_MAX - 1024 + period_contrib):

* first update: one period, contrib = decay_load(1024, 1) + (47742 - decay_load(47742, 1)
  - 1024) = 1002 + 0; util_sum = 1002 << 10 = 1026048; util_avg = 1026048 // 46718 = 21;
* dequeue: util_sum = decay_load(1026048, 1) + 1026048 = 2030109; util_avg = 2030109 // 46718 = 43.

util_est_update (v6.8 rule, ewma 0 <= dequeued: ewma = dequeued | UTIL_AVG_UNCHANGED):
v6.11 (after the dequeue's update) takes 43 and keeps the flag; v6.12+ (before it) takes
21, then the dequeue's own update crosses a period boundary and cfs_se_util_change()
clears the flag: 21 without it.
"""
from __future__ import annotations

from lisa_eas.models import pelt_timeline
from lisa_eas.models.pelt import UTIL_EST_ERAS

T = 1024 * 1024
FLAG = 0x80000000


def _by_hand():
    y1, lam = 0xFA83B2DA, 47742

    def decay(v):
        return (v * y1) >> 32

    contrib = decay(1024) + (lam - decay(lam) - 1024)
    us1 = contrib << 10
    us2 = decay(us1) + (contrib << 10)
    return us1 // (lam - 1024), us2 // (lam - 1024)


def test_hand_values():
    assert _by_hand() == (21, 43)


def test_v6_12_is_an_era_row():
    assert (6, 12) in UTIL_EST_ERAS


def test_util_est_samples_before_or_after_the_dequeue_update():
    u_tick, u_dequeue = _by_hand()
    before = pelt_timeline([0, T, 2 * T, 3 * T], [2, 2, 0, 0], era="v6.11")
    after = pelt_timeline([0, T, 2 * T, 3 * T], [2, 2, 0, 0], era="v6.12")
    assert before["util_avg"].tolist()[:3] == [0, u_tick, u_dequeue]
    assert after["util_avg"].tolist()[:3] == [0, u_tick, u_dequeue]
    assert before["util_est_ewma"].iloc[2] == u_dequeue | FLAG
    assert after["util_est_ewma"].iloc[2] == u_tick


def test_util_est_step_by_hand():
    """util_est_update() of v6.8+ (50181c0cff31), values from kernel/sched/fair.c by hand:
    ewma 200, dequeued 100: diff 100 >= UTIL_EST_MARGIN (10), 100 + 10 >= runnable 100, so
    ewma = (200 * 4 - 100) >> 2 = 175, flag set; with runnable 150 the task waited
    (100 + 10 < 150): ewma kept (200), flag set; a set flag: no update at all; dequeued above
    ewma: ewma = dequeued."""
    from lisa_eas.models import util_est_step

    assert util_est_step(200, 100, 100, era="v6.18") == (175 | FLAG, 0)
    assert util_est_step(200, 100, 150, era="v6.18") == (200 | FLAG, 0)
    assert util_est_step(200 | FLAG, 100, 100, era="v6.18") == (200 | FLAG, 0)
    assert util_est_step(200, 230, 230, era="v6.12") == (230 | FLAG, 0)
    # the same sample at v6.11 and v6.12: the rule is v6.8's in both (only the sample point moved)
    assert util_est_step(200, 100, 100, era="v6.11") == util_est_step(200, 100, 100, era="v6.12")
