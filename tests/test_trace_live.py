"""Record a trace on this machine (tracefs + trace-cmd extract), read it as v7 and v6.

The recording uses a private tracefs instance so that it neither disturbs nor is disturbed
by anything else using the top-level buffer; it is left off, empty and removed afterwards.
"""
from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_live
from target_helpers import live_ready
from lisa_eas import read_trace
from test_trace_dat import compare_with_report, compare_with_trappy
from trace_oracles import convert, report_text

pytestmark = pytest.mark.live
TRACEFS = Path("/sys/kernel/tracing")
INSTANCE = "lisa_eas_trace_test"
EVENTS = "sched:* power:cpu_idle power:cpu_frequency"
WORKLOAD = r"""
import os, time
import sys
fd = os.open(sys.argv[1], os.O_WRONLY)
for i in range(20):
    os.write(fd, f"[0] begins loop 0 phase 0 step {i}\n".encode())
    end = time.monotonic() + 0.004
    while time.monotonic() < end:
        pass
    os.write(fd, f"[0] end loop 0 phase 0 step {i}\n".encode())
    time.sleep(0.004)
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
"""


def _write(path: Path, value: str, append: bool = False) -> None:
    fd = os.open(path, os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, (value + "\n").encode())
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    ok, why = live_ready(tools=("trace-cmd",))
    require_live(ok and (TRACEFS / "set_event").exists(), why or f"tracefs is not at {TRACEFS}")
    out = tmp_path_factory.mktemp("live")
    inst = TRACEFS / "instances" / INSTANCE
    if inst.exists():
        inst.rmdir()
    inst.mkdir()
    try:
        _write(inst / "tracing_on", "0")
        _write(inst / "trace_clock", "mono")
        _write(inst / "buffer_size_kb", "4096")
        for ev in EVENTS.split():
            try:
                _write(inst / "set_event", ev, append=True)   # append mode adds to the set
            except OSError:
                pass   # power:cpu_frequency may not exist
        _write(inst / "tracing_on", "1")
        subprocess.run([sys.executable, "-c", WORKLOAD, str(inst / "trace_marker")], check=True,
                       timeout=60)
        _write(inst / "tracing_on", "0")
        v7 = out / "live_v7_zstd.dat"
        subprocess.run(["trace-cmd", "extract", "-B", INSTANCE, "-o", str(v7)], check=True,
                       capture_output=True, timeout=120)
    finally:
        if inst.exists():       # trace-cmd extract -B removes the instance itself
            _write(inst / "tracing_on", "0")
            _write(inst / "set_event", "")
            inst.rmdir()
    files = {"v7zstd": v7,
             "v6": convert(v7, out / "live_v6.dat", 6, "none"),
             "v7none": convert(v7, out / "live_v7.dat", 7, "none")}
    # trace-cmd convert writes the top-level buffer's trace_clock into the v6 file, not the
    # instance's: what the v6 file says is whatever the top level was set to at that time
    top = re.search(r"\[(\S+)\]", (TRACEFS / "trace_clock").read_text()).group(1)
    return files, top


def test_instance_removed(recorded):
    assert not (TRACEFS / "instances" / INSTANCE).exists()


@pytest.mark.parametrize("variant", ["v7zstd", "v6", "v7none"])
def test_recorded_trace_equals_trace_cmd(recorded, variant):
    files, top_clock = recorded
    path = files[variant]
    trace = read_trace(path, cache=False, buffer=INSTANCE)
    assert trace.metadata["format"] == ("trace.dat v6" if variant == "v6" else "trace.dat v7")
    assert trace.metadata["buffer"] == INSTANCE
    if variant == "v6":      # v7 BUFFER options carry the top-level clock name (trace-cmd 3.1)
        assert trace.metadata["clock"] == top_clock
    assert trace.metadata["cpus"] == os.cpu_count()
    assert trace.metadata["kernel_version"] == platform.release()
    assert {"sched_switch", "sched_wakeup", "print", "sched_process_fork"} <= set(trace.events)
    prints = trace.df("print")
    assert sum(str(b).startswith("[0] begins loop 0 phase 0 step") for b in prints["buf"]) == 20
    assert compare_with_report(trace, path, INSTANCE) > 100
    assert trace.skipped.total == 0


def test_recorded_trace_equals_trappy(recorded, tmp_path):
    # the file also holds the (foreign) top-level buffer: trappy gets the instance's lines
    path = tmp_path / "live.txt"
    path.write_text("cpus=%d\n" % os.cpu_count() + report_text(recorded[0]["v6"], True, INSTANCE))
    trace = read_trace(recorded[0]["v6"], cache=False, buffer=INSTANCE)
    # cpu_idle only appears if a CPU went idle during the run (not on a busy machine)
    events = [e for e in ("sched_switch", "sched_wakeup", "cpu_idle") if e in trace.events]
    assert events[:2] == ["sched_switch", "sched_wakeup"]
    assert compare_with_trappy(trace, path, events) >= 8


def test_v6_and_v7_decode_identically(recorded):
    import pandas as pd
    a = read_trace(recorded[0]["v6"], cache=False, buffer=INSTANCE)
    b = read_trace(recorded[0]["v7zstd"], cache=False, buffer=INSTANCE)
    assert a.events == b.events
    for e in a.events:
        pd.testing.assert_frame_equal(a.df(e), b.df(e))


def test_activations_from_recorded_markers(recorded):
    acts = read_trace(recorded[0]["v7zstd"], cache=False, buffer=INSTANCE).activations
    assert len(acts) == 20
    assert list(acts["phase_loop"]) == list(range(20))
    # each iteration busy-loops 4 ms between its two markers
    assert (acts["duration"] >= 0.004).all() and (acts["duration"] < 0.1).all()
