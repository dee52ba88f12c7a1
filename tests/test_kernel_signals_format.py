"""The kernel-signals file format and the event names (no kernel needed)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from lisa_eas.errors import TraceError
from lisa_eas.trace import read_trace
from lisa_eas.trace._ksignals import HEADER_SIZE, KS_RECORD, MAGIC


def _write(path, recs: np.ndarray, torn: bytes = b"", summary: dict | None = None):
    head = bytearray(HEADER_SIZE)
    head[:8] = MAGIC
    head[8:24] = np.array([1, KS_RECORD.itemsize, 2, 0], "<u4").tobytes()
    head[24:40] = np.array([10**9, 0], "<u8").tobytes()
    path.write_bytes(bytes(head) + recs.tobytes() + torn)
    if summary is not None:
        (path.parent / (path.name + ".json")).write_text(json.dumps(summary))


def _recs():
    r = np.zeros(4, KS_RECORD)
    r["ts"] = [1_000_000_000, 1_000_100_000, 1_000_200_000, 1_000_300_000]
    r["kind"] = [0, 5, 1, 7]        # pelt_se, util_est_se, pelt_cfs, overutilized
    r["cpu"] = [1, 1, 0, 0]
    r["pid"] = [42, 42, -1, -1]
    r["comm"][:2] = b"rt-app"
    r["path"] = [b"(null)", b"(null)", b"/", b""]
    r["flags"] = [1, 1, 2, 0]
    r["util_avg"] = [300, 301, 800, 0]
    r["load_avg"] = [310, 0, 900, 0]
    r["runnable_avg"] = [320, 0, 950, 0]
    r["last_update_time"] = [5_000_000, 5_100_000, 5_200_000, 0]
    r["util_est"] = [0, 0x80000000 | 250, 0, 0]     # v6.8+: one field, UTIL_AVG_UNCHANGED in bit 31
    r["value"] = [0, 0, 0, 1]
    r["value2"] = [0, 0, 0, 0b11]
    return r


def test_events_fields_and_clock(tmp_path):
    _write(tmp_path / "kernel_signals.bin", _recs(), summary={"dropped": 0, "status": "complete"})
    t = read_trace(tmp_path)
    assert set(t.events) == {"sched_pelt_se", "sched_util_est_se", "sched_pelt_cfs", "sched_overutilized"}
    se = t.df("sched_pelt_se")
    assert se.index[0] == pytest.approx(1.0)                 # seconds of CLOCK_MONOTONIC
    row = se.iloc[0]
    assert (row["cpu"], str(row["comm"]), row["pid"], row["load"], row["runnable"], row["util"],
            row["update_time"], str(row["path"])) == (1, "rt-app", 42, 310, 320, 300, 5_000_000, "(null)")
    ue = t.df("sched_util_est_se").iloc[0]
    assert (ue["ewma"], ue["enqueued"], ue["util"]) == (250, 250, 301)
    cfs = t.df("sched_pelt_cfs").iloc[0]
    assert str(cfs["path"]) == "/" and cfs["is_root"]
    ou = t.df("sched_overutilized").iloc[0]
    assert ou["overutilized"] == 1 and str(ou["span"]) == "0-1"


def test_util_est_pair_before_v6_8(tmp_path):
    r = _recs()[1:2].copy()
    r["flags"] = 1 | 0x4                                   # KS_F_UE_PAIR: {enqueued (low), ewma (high)}
    r["util_est"] = (200 << 32) | 0x80000000 | 180
    _write(tmp_path / "kernel_signals.bin", r)
    ue = read_trace(tmp_path).df("sched_util_est_se").iloc[0]
    assert (ue["enqueued"], ue["ewma"]) == (180, 200)


def test_torn_record_and_drops_are_reported(tmp_path):
    _write(tmp_path / "kernel_signals.bin", _recs(), torn=b"\x01" * 50,
           summary={"dropped": 7, "dropped_per_cpu": [7, 0], "status": "running"})
    t = read_trace(tmp_path)
    assert len(t.df("sched_pelt_se")) == 1
    assert t.skipped.count("kernel_signals_torn_record") == 1
    assert t.skipped.count("kernel_signals_dropped") == 7
    assert t.metadata["kernel_signals"]["status"] == "running"


def test_not_a_signals_file(tmp_path):
    (tmp_path / "kernel_signals.bin").write_bytes(b"x" * 100)
    with pytest.raises(TraceError, match="not a kernel-signals file"):
        read_trace(tmp_path)


def test_lisa_module_events_read_under_the_same_names(tmp_path):
    p = tmp_path / "trace.txt"
    p.write_text(
        "  rt-app-42  [001]  100.000100: lisa__sched_pelt_se: cpu=1 path=(null) comm=rt-app pid=42 load=310 "
        "runnable=320 util=300 update_time=99000000\n"
        "  rt-app-42  [001]  100.000200: sched_switch: prev_comm=rt-app prev_pid=42 prev_prio=120 prev_state=S "
        "==> next_comm=swapper/1 next_pid=0 next_prio=120\n")
    t = read_trace(p, cache=False)
    assert "sched_pelt_se" in t.events and "lisa__sched_pelt_se" not in t.events
    assert int(t.df("sched_pelt_se")["util"].iloc[0]) == 300
    t2 = read_trace(p, events=["sched_pelt_se"], cache=False)
    assert t2.events == ("sched_pelt_se",)
