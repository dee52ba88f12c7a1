"""Replay of real traces against the models: the report is coherent (every wake-up
accounted for, totals add up), the CLI writes validation.json / a standalone validation.html,
and bad input gets clear errors."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from analysis_helpers import JUNO_WAKEUP_TXT, LIVE_CAPTURE, PIXEL2_SYSTRACE, oracle_wakeups, unpack

from lisa_eas.analysis.validate import validate
from lisa_eas.errors import ConfigError, MissingTraceEventError
from lisa_eas.trace import read_trace


@pytest.fixture(scope="module")
def juno_load_path(tmp_path_factory):
    return unpack("lisa_juno-r0_sched_load.dat", tmp_path_factory.mktemp("juno"))


def _coherent(rep):
    s = rep.summary
    w = s["wakeups"]
    assert w["accounted"] == w["total"] == len(rep.wakeups)
    assert w["eas"] == s["eas"]["wakeups"] == len(rep.eas)
    assert w["sis"] == s["sis"]["wakeups"] == len(rep.sis)
    assert s["eas"]["agree"] + s["eas"]["disagree"] == s["eas"]["wakeups"]
    assert s["eas"]["agree"] == int(rep.eas["agree"].sum())
    assert s["eas"]["regret_total"] == pytest.approx(float(np.nansum(rep.eas.loc[~rep.eas["agree"], "regret"])))
    assert (rep.eas.loc[rep.eas["agree"], "regret"] == 0).all()
    dis = rep.eas[~rep.eas["agree"]]
    assert np.allclose(dis["regret"], dis["energy_kernel"] - dis["energy_model"], equal_nan=True)


def test_juno_sched_wakeup_text(tmp_path):
    rep = validate(read_trace(JUNO_WAKEUP_TXT, cache=False), "juno_r0", era="v5.4")
    _coherent(rep)
    # every sched_wakeup of the file is one row, with the kernel's target CPU
    oracle = oracle_wakeups(JUNO_WAKEUP_TXT)
    assert len(rep.wakeups) == len(oracle) == 1068
    assert sorted(zip(rep.wakeups["pid"], rep.wakeups["kernel_cpu"])) == sorted((p, c) for _, p, c in oracle)
    assert rep.summary["util_source"].startswith("model")
    assert rep.summary["eas"]["wakeups"] > 500
    assert 0 < rep.summary["eas"]["agreement_pct"] < 100
    assert rep.summary["schedutil"]["available"] is False and rep.summary["pelt"]["available"] is False


def test_juno_sched_load_dat_kernel_signals(juno_load_path):
    rep = validate(juno_load_path, "juno_r0", era="v5.4", pelt_era="v4.11")
    _coherent(rep)
    s = rep.summary
    assert s["wakeups_inferred_from_sched_switch"] is True        # this trace has no sched_wakeup
    assert s["util_source"] == "cpu: sched_load_cfs_rq; task: sched_load_se"
    assert s["pelt"]["available"] and s["pelt"]["samples"] > 50
    assert s["pelt"]["abs_error_p50"] <= 5                         # PELT model vs the kernel's own samples
    assert s["schedutil"]["available"] and set(s["schedutil"]["domains"]) == {"little", "big"}
    assert s["eas"]["agreement_pct"] > 50


def test_pixel2_systrace_replay():
    tr = read_trace(PIXEL2_SYSTRACE, cache=False)
    rep = validate(tr, "pixel3", era="v5.4")       # an 8-CPU SDM845 model for an SD835 trace
    _coherent(rep)
    assert len(rep.wakeups) == len(tr.df("sched_wakeup"))
    su = rep.summary["schedutil"]
    assert su["available"]
    # the SD835's frequencies are not the SDM845 model's OPPs: the report says so
    assert any(d.get("trace_freqs_in_platform_opps") is False for d in su["domains"].values())


def test_cli_writes_json_and_standalone_html(juno_load_path, tmp_path, capsys):
    from lisa_eas.cli import main

    out = tmp_path / "val"
    rc = main(["validate", str(juno_load_path), "--platform", "juno_r0", "--era", "v5.4", "--pelt-era", "v4.11",
               "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "EAS agreement" in text and "validation.html" in text
    data = json.loads((out / "validation.json").read_text())
    assert data["summary"]["wakeups"]["total"] == len(data["wakeups"])
    assert len(data["eas"]) == data["summary"]["eas"]["wakeups"]
    html = (out / "validation.html").read_text()
    assert "<h2>Summary</h2>" in html and "<h3>EAS</h3>" in html
    assert ("Bokeh" in html) == ("data-plot=" in html)          # BokehJS inline when there are plots
    assert not re.search(r"<script[^>]+src=", html)           # every resource inline: no network
    assert not re.search(r"<link[^>]+href=\"https?://", html)
    # a run directory works too
    run = tmp_path / "run"
    run.mkdir()
    (run / "trace.dat").write_bytes(juno_load_path.read_bytes())
    assert main(["validate", str(run), "--platform", "juno_r0", "--out", str(tmp_path / "v2"), "--format",
                 "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["platform"] == "juno_r0"


def test_bad_input(juno_load_path, tmp_path, capsys):
    from lisa_eas.cli import main

    with pytest.raises(ConfigError, match="hikey960.*8 CPUs.*6-CPU"):
        validate(juno_load_path, "hikey960")
    with pytest.raises(MissingTraceEventError) as ei:
        validate(read_trace(LIVE_CAPTURE / "trace_markers.txt", cache=False), "juno_r0")
    assert "sched:sched_switch" in str(ei.value) and "lisa-eas run" in str(ei.value)
    assert main(["validate", str(tmp_path), "--platform", "juno_r0", "--out", str(tmp_path / "o")]) == 2
    assert "not a run directory" in capsys.readouterr().err
