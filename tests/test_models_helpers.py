"""The models' helpers that the analyses and reproductions call instead of the private kernels
(``tests/test_layers.py`` keeps them out of ``lisa_eas._kernels``); values worked by hand from
the kernel source."""
from __future__ import annotations

import numpy as np
import pytest

from lisa_eas.errors import ModelError


def test_rd_overutilized_rows_takes_the_era_form():
    """util * 1280 == capacity * 1024 (1024 on a CPU of capacity 1280): v5.0 ``cap * 1024 <
    util * 1280`` is false, v5.4+ ``!fits_capacity`` (``util * 1280 < cap * 1024`` false) true."""
    from lisa_eas.models.eas import rd_overutilized_rows

    rows = np.array([[1024, 0], [0, 100], [1023, 0]])
    cap = np.array([1280, 1024])
    assert rd_overutilized_rows(rows, cap, "v5.0").tolist() == [0, 0, 0]
    assert rd_overutilized_rows(rows, cap, "v5.4").tolist() == [1, 0, 0]
    assert rd_overutilized_rows(rows, cap, "v4.19").tolist() == [0, 0, 0]
    with pytest.raises(ModelError, match="cpu_util"):
        rd_overutilized_rows(rows, cap[:1], "v5.4")


def test_ramp_boost_series():
    """RFC v3 sugov_cpu_ramp_boost_update: boost = util_avg - util_est while util_est is unchanged
    and util_avg does not fall and exceeds it."""
    from lisa_eas.models.schedutil import ramp_boost_series

    assert ramp_boost_series([100, 100, 100, 100, 90], [50, 150, 140, 160, 170]).tolist() == [0, 50, 0, 60, 0]
    with pytest.raises(ModelError, match="one length"):
        ramp_boost_series([1, 2], [1])


def test_task_util_est_values_by_era():
    """v4.17-v5.12: max(ewma, enqueued) with the LSB flag kept; v5.13+: the MSB flag masked off
    enqueued (max of the two); v6.8+: ewma alone."""
    from lisa_eas.models.pelt import task_util_est_values

    ewma, enq = [100, 200], [200, 100]
    assert task_util_est_values(ewma, enq, "v5.4").tolist() == [201, 201]
    assert task_util_est_values(ewma, [200 | 0x80000000, 100], "v5.15").tolist() == [200, 200]
    assert task_util_est_values(ewma, enq, "v6.9").tolist() == [100, 200]
