"""Three silent or wrong results on damaged or odd traces (issue 15, item 5), built from the
bundled real traces: legacy systrace's trailing dummy line, a systrace HTML cut before its
closing tags, a trace.dat whose header page size is corrupted."""
from __future__ import annotations

import lzma
import struct
from pathlib import Path

import pytest
from analysis_helpers import PIXEL2_SYSTRACE, TRACES

from lisa_eas import read_trace
from lisa_eas.errors import TraceError
from lisa_eas.cli import main

LEGACY = TRACES / "systrace" / "trappy_legacy_systrace_excerpt.html"
# The suffix legacy systrace writes after the data (catapult's systrace.py html_suffix): a
# fake clock-sync line stamped 0.0, JS-escaped like every data line.
DUMMY = "           dummy-0000  [000] 0.0: 0: trace_event_clock_sync: parent_ts=0.0\\n\";\n"


def _legacy_with_dummy(tmp_path) -> Path:
    """The bundled legacy excerpt as systrace wrote it: each data line JS-escaped (``\\n\\``
    at its end), then the dummy suffix line."""
    src = LEGACY.read_text()
    head = 'var linuxPerfData = "\\\n'
    a = src.index(head) + len(head)
    b = src.index("  </script>")
    body = "".join(line + "\\n\\\n" for line in src[a:b].rstrip("\n").split("\n"))
    p = tmp_path / "legacy.html"
    p.write_text(src[:a] + body + DUMMY + src[b:])
    return p


def test_legacy_dummy_line_dropped_and_counted(tmp_path, capsys):
    p = _legacy_with_dummy(tmp_path)
    tr = read_trace(p, cache=False)
    lo, hi = tr.time_range
    assert lo == pytest.approx(7480.992787) and hi == pytest.approx(7480.993259)   # not 0.0
    assert "0" not in tr.events and sum(len(tr.df(e)) for e in tr.events) == 15
    assert tr.skipped.count("systrace_dummy_line") == 1 and tr.skipped.total == 1
    assert main(["trace", "info", str(p), "--no-cache"]) == 0
    assert "(0.000472 s)" in capsys.readouterr().out


def test_systrace_html_without_closing_tags(tmp_path):
    raw = PIXEL2_SYSTRACE.read_text()
    full = read_trace(PIXEL2_SYSTRACE, cache=False)
    start = raw.index('class="trace-data"')
    cut = raw.index("</script>", start) - 20_000         # mid-way through the ftrace block
    p = tmp_path / "cut.html"
    p.write_text(raw[:cut])
    tr = read_trace(p, cache=False)
    n_full = sum(len(full.df(e)) for e in full.events)
    n_cut = sum(len(tr.df(e)) for e in tr.events)
    assert 0.8 * n_full < n_cut < n_full
    assert tr.skipped.count("truncated_html") == 1
    assert "cut short" in tr.skipped.as_dict()["truncated_html"]["detail"]
    # the legacy container cut the same way; nothing else is wrong in it, so strict mode
    # raises on the truncation itself, at the line where the data starts
    legacy = _legacy_with_dummy(tmp_path).read_text()
    q = tmp_path / "legacy_cut.html"
    q.write_text(legacy[:legacy.index("sched_load_avg_cpu: cpu=2")])
    lt = read_trace(q, cache=False)
    assert lt.skipped.count("truncated_html") == 1 and len(lt.df("sched_switch")) == 2   # of 3
    with pytest.raises(TraceError, match=r"line \d+: truncated_html"):
        read_trace(q, cache=False, strict=True)


@pytest.mark.parametrize("bad", [8192, 65536, 2048, 1000])
def test_dat_with_corrupted_header_page_size(tmp_path, bad):
    raw = lzma.decompress((TRACES / "dat" / "trappy_juno_sched_switch.dat.xz").read_bytes())
    end_ver = raw.index(b"\0", 10)            # "\x17\x08\x44tracing" + version + NUL
    off = end_ver + 1 + 2                      # endian, long size, then the u32 page size
    assert struct.unpack_from("<I", raw, off)[0] == 4096
    good = tmp_path / "good.dat"
    good.write_bytes(raw)
    damaged = bytearray(raw)
    struct.pack_into("<I", damaged, off, bad)
    p = tmp_path / f"ps{bad}.dat"
    p.write_bytes(bytes(damaged))
    ref = read_trace(good, cache=False)
    tr = read_trace(p, cache=False)
    # every event is still read, and the damage is reported (today: most events silently lost)
    assert {e: len(tr.df(e)) for e in tr.events} == {e: len(ref.df(e)) for e in ref.events}
    e = tr.skipped.as_dict()["page_size_mismatch"]
    assert e["first"] == off and f"pages of {bad} bytes" in e["detail"]
    with pytest.raises(TraceError, match=f"byte offset {off}: page_size_mismatch"):
        read_trace(p, cache=False, strict=True)


@pytest.mark.parametrize("size", [8176, 2032])
def test_dat_with_corrupted_header_page_layout(tmp_path, size):
    """The other way round: the file header's page size (4096) is right and the header_page
    text is damaged (``data`` size 4080 -> 8176 or 2032, same length): the page size whose
    pages are sound is kept, every event read, the disagreement reported."""
    raw = lzma.decompress((TRACES / "dat" / "trappy_juno_sched_switch.dat.xz").read_bytes())
    assert raw.count(b"size:4080;") == 1
    good = tmp_path / "good.dat"
    good.write_bytes(raw)
    p = tmp_path / f"hp{size}.dat"
    p.write_bytes(raw.replace(b"size:4080;", f"size:{size};".encode()))
    ref, tr = read_trace(good, cache=False), read_trace(p, cache=False)
    assert {e: len(tr.df(e)) for e in tr.events} == {e: len(ref.df(e)) for e in ref.events}
    assert "decoded with 4096" in tr.skipped.as_dict()["page_size_mismatch"]["detail"]
