"""plot_* functions return holoviews objects on real and simulated traces; decimation keeps
every excursion of a million-sample signal with a few thousand points."""
from __future__ import annotations

import numpy as np
import pytest
from analysis_helpers import JUNO_WAKEUP_TXT

from lisa_eas import analysis as A
from lisa_eas.trace import read_trace


def test_downsample_keeps_extremes():
    from lisa_eas.plot import downsample_steps

    rng = np.random.default_rng(0)
    t = np.cumsum(rng.random(1_000_000))
    y = rng.integers(0, 1000, t.size).astype(float)
    y[123_457] = 5000.0
    y[876_543] = -7.0
    td, yd = downsample_steps(t, y, 4000)
    assert td.size <= 4000 and np.all(np.diff(td) > 0)
    assert yd.max() == 5000.0 and yd.min() == -7.0
    assert td[0] == t[0] and td[-1] == t[-1]


def test_plots_are_holoviews_objects():
    import holoviews as hv

    from lisa_eas import plot

    tr = read_trace(JUNO_WAKEUP_TXT, cache=False)
    for obj in (plot.plot_task_placement(tr, tasks=["ramp"]), plot.plot_wakeup_latency(tr),
                plot.plot_task_util(tr, tasks=["ramp"], platform="juno_r0")):
        assert isinstance(obj, hv.core.Dimensioned)
    acts = A.df_rtapp_activations(logs=sorted((JUNO_WAKEUP_TXT.parents[2] / "rtapp" / "live_capture")
                                             .glob("cap-capt-*.log")))
    assert isinstance(plot.plot_rtapp_slack(acts), hv.core.Dimensioned)
    assert hv.render(plot.plot_task_placement(tr), backend="bokeh") is not None


def test_analyses_do_not_import_holoviews():
    import pathlib

    root = pathlib.Path(A.__file__).resolve().parent
    for path in list(root.rglob("*.py")) + [root.parent / "cli" / "_validate.py"]:
        text = path.read_text()
        assert "import holoviews" not in text and "from holoviews" not in text, path
        assert "import bokeh" not in text and "from bokeh" not in text, path


@pytest.mark.parametrize("n", [3])
def test_plot_energy_and_validation_views(n):
    from lisa_eas import SimConfig, plot, simulate
    from lisa_eas.analysis.validate import validate
    from lisa_eas.rtapp import periodic, task, workload

    wl = workload([task(f"t{i}", periodic(10 + 10 * i, 16, duration_s=0.3)) for i in range(n)], calibration=100)
    tr = simulate("juno_r0", wl, config=SimConfig(duration_s=0.3))
    import holoviews as hv

    assert isinstance(plot.plot_energy(A.df_energy(tr, "juno_r0")), hv.core.Dimensioned)
    assert isinstance(plot.plot_cpu_frequency(tr), hv.core.Dimensioned)
    assert isinstance(plot.plot_cpu_util(tr), hv.core.Dimensioned)
    rep = validate(tr, "juno_r0")
    for f in (plot.plot_eas_agreement, plot.plot_eas_regret, plot.plot_schedutil, plot.plot_pelt_error):
        assert isinstance(f(rep), hv.core.Dimensioned)


def test_frequency_steps_run_to_the_end_of_the_trace():
    """A CPU's last frequency holds until the run ends: both frequency plots draw every CPU's step
    curve to the trace's last sched_switch, with the last value set (a Juno r0 run where one
    light task leaves the big CPUs at their first OPP after ~20 ms)."""
    from lisa_eas import SimConfig, plot, simulate
    from lisa_eas.rtapp import periodic, task, workload

    wl = workload([task("t", periodic(20, 16, duration_s=0.5))], calibration=100)
    tr = simulate("juno_r0", wl, config=SimConfig(duration_s=0.5))
    end = float(tr.df("sched_switch").index[-1])
    freq = tr.df("cpu_frequency")
    last = freq.groupby("cpu_id").tail(1)
    assert (last.index.to_numpy() < end - 0.1).any()      # some CPU's last change is long before the end
    want = {int(c): f for c, f in zip(last["cpu_id"], last["state"])}
    for curve in plot.plot_frequency(tr):
        cpu = int(curve.label.removeprefix("CPU"))
        assert curve.data.iloc[-1].tolist() == [end, want[cpu] / 1000.0]
    for cpu, curve in plot.plot_cpu_frequency(tr).items():
        assert curve.data.iloc[-1].tolist() == [end, float(want[int(cpu)])]
