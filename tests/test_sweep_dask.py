"""The sweep runner on a real local Dask cluster gives exactly the in-process results."""
from __future__ import annotations

import pytest

from lisa_eas.repro import Sweep, reproduce

distributed = pytest.importorskip("distributed", reason="dask.distributed is the 'dask' extra")


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as c:
        yield c


def test_dask_sweep_equals_in_process(cluster):
    from lisa_eas.repro.schedfreq_governors import simulate_case

    jobs = [("peach_pi", k, i, g) for k in ("cfs", "rt") for i in (0, 8) for g in ("ondemand", "schedutil")]
    local = Sweep(workers=1).map(simulate_case, jobs)
    remote = Sweep(scheduler=cluster.scheduler_address).map(simulate_case, jobs)
    assert remote == local
    assert [r["job"] for r in remote] == jobs


def test_reproduce_on_dask_equals_in_process(cluster):
    on_dask = reproduce("ramp-boost", scheduler=cluster.scheduler_address)
    in_proc = reproduce("ramp-boost", workers=1)
    assert on_dask.rows == in_proc.rows
    assert [c.to_dict() for c in on_dask.checks] == [c.to_dict() for c in in_proc.checks]
    assert on_dask.provenance["sweep"] == f"dask:{cluster.scheduler_address}"
    assert in_proc.provenance["sweep"] == "in-process"


def test_unreachable_scheduler_is_a_clear_error():
    from lisa_eas.errors import ConfigError

    from lisa_eas.repro.schedfreq_governors import simulate_case

    with pytest.raises(ConfigError, match="cannot reach the Dask scheduler"):
        Sweep(scheduler="tcp://127.0.0.1:9", connect_timeout_s=2).map(simulate_case, [("peach_pi", "cfs", 0, "performance")])
