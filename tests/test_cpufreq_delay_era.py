"""schedutil's default rate limit from the cpufreq driver, per era (ledger ``cpufreq_delay-*``),
and the 2016 schedfreq RT average (``rt_avg``). Every expected value is worked out by hand
from the kernel source cited in each test, not from the models."""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas.errors import ModelError
from lisa_eas.models import cpufreq_transition_delay_us


def test_rate_limit_v4_7_uncapped_vs_v4_14_capped():
    """v4.7 sugov_init: rate_limit_us = LATENCY_MULTIPLIER * (transition_latency / NSEC_PER_USEC).
    v4.14 cpufreq_policy_transition_delay_us: min(latency * LATENCY_MULTIPLIER, 10000).
    A driver latency of 140000 ns (140 us): v4.13 -> 140 * 1000 = 140000 us;
    v4.14 -> min(140000, 10000) = 10000 us."""
    assert cpufreq_transition_delay_us("v4.13", 140_000) == 140_000
    assert cpufreq_transition_delay_us("v4.14", 140_000) == 10_000


def test_rate_limit_v4_14_transition_delay_us_wins():
    """v4.14: policy->transition_delay_us, when the driver sets it, is returned before the
    latency rule (v4.7's sugov_init ignored it: 1000 * 5 = 5000 us for 5000 ns of latency)."""
    assert cpufreq_transition_delay_us("v4.13", 5_000, 500) == 5_000
    assert cpufreq_transition_delay_us("v4.14", 5_000, 500) == 500


def test_rate_limit_v6_8_10ms_cap_vs_v6_9_2ms_cap():
    """e13aa799c2a6 (v6.9) lowers the cap from 10000 to 2 * MSEC_PER_SEC us; a755d0e2d41b keeps
    a latency above the cap as is. Latency 5 us: v6.8 -> min(5000, 10000) = 5000;
    v6.9 -> min(5000, 2000) = 2000. Latency 3000 us: v6.8 -> min(3000000, 10000) = 10000;
    v6.9 -> 3000 (> 2000, used as is)."""
    assert cpufreq_transition_delay_us("v6.8", 5_000) == 5_000
    assert cpufreq_transition_delay_us("v6.9", 5_000) == 2_000
    assert cpufreq_transition_delay_us("v6.8", 3_000_000) == 10_000
    assert cpufreq_transition_delay_us("v6.9", 3_000_000) == 3_000


def test_rate_limit_v6_11_vs_v6_12_one_and_a_half_latency():
    """37c6dccd6837 (v6.12): latency + (latency >> 1), no multiplier. Latency 1 us: v6.11 ->
    min(1000, 2000) = 1000; v6.12 -> 1 + 0 = 1. Latency 500 us: v6.11 -> min(500000, 2000) = 2000;
    v6.12 -> 500 + 250 = 750. No latency (qcom-cpufreq-hw sets none): 1000 in every era."""
    assert cpufreq_transition_delay_us("v6.11", 1_000) == 1_000
    assert cpufreq_transition_delay_us("v6.12", 1_000) == 1
    assert cpufreq_transition_delay_us("v6.11", 500_000) == 2_000
    assert cpufreq_transition_delay_us("v6.12", 500_000) == 750
    for era in ("v4.7", "v5.4", "v6.9", "v6.12"):
        assert cpufreq_transition_delay_us(era, 0) == 1_000


def test_rate_limit_refuses_pre_schedutil_eras_and_bad_input():
    with pytest.raises(ModelError, match="v4.7"):
        cpufreq_transition_delay_us("v4.6", 0)
    with pytest.raises(ModelError, match="transition_latency_ns"):
        cpufreq_transition_delay_us("v5.4", -1)


def test_rt_avg_request_by_hand():
    """schedfreq series rt.c sched_rt_update_capacity_req() with sched_time_avg_ms = 50
    (sched_avg_period() = 50 * 1e6 / 2 = 25 ms), age_stamp 0, frequency capacity 512 (half speed).

    An RT task runs 10 ms: rt_avg = 10e6 * 512 = 5.12e9. At t = 10 ms: no period passed;
    used = 5.12e9 / (25e6 + 10e6) = 146 (integer division: 146.28).
    At t = 60 ms: two periods passed (60 - 0 > 25, 60 - 25 > 25; 60 - 50 = 10 is not):
    rt_avg = 5.12e9 / 4 = 1.28e9, age_stamp 50 ms; used = 1.28e9 / (25e6 + 10e6) = 36."""
    from lisa_eas._kernels.governors import (SF_AGE_STAMP, SF_CPU_SIZE, SF_RT_AVG, SF_RT_REQ, rt_avg_accrue,
                                             sched_rt_capacity_req)

    row = np.zeros(SF_CPU_SIZE, np.int64)
    rt_avg_accrue(10_000_000, 512, row)
    assert row[SF_RT_AVG] == 5_120_000_000
    assert sched_rt_capacity_req(10_000_000, 25_000_000, row) == 146 == row[SF_RT_REQ]
    assert sched_rt_capacity_req(60_000_000, 25_000_000, row) == 36
    assert row[SF_AGE_STAMP] == 50_000_000 and row[SF_RT_AVG] == 1_280_000_000


def test_rt_avg_request_saturates_at_capacity_scale():
    """used is capped at SCHED_CAPACITY_SCALE: 40 ms of RT time at full speed accrued, read at
    t = 5 ms with age_stamp 0 (more run time than wall time, as after a clock jump):
    40e6 * 1024 // (25e6 + 5e6) = 1365 -> capped at 1024."""
    from lisa_eas._kernels.governors import SF_CPU_SIZE, rt_avg_accrue, sched_rt_capacity_req

    row = np.zeros(SF_CPU_SIZE, np.int64)
    rt_avg_accrue(40_000_000, 1024, row)
    assert sched_rt_capacity_req(5_000_000, 25_000_000, row) == 1024
