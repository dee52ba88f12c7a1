"""The report's charts say what their legend says: bars coloured by source, discrete CPU axes."""
from __future__ import annotations

import numpy as np

from lisa_eas.plot import plot_cpu_timeline, plot_published_vs_reproduced
from lisa_eas.plot._repro import SOURCE_COLORS
from lisa_eas.repro import ExperimentResult


def _state(plot):
    import holoviews as hv

    return hv.renderer("bokeh").get_plot(plot).state


def test_bars_coloured_by_source_not_by_row():
    # The eas-wakeup-speedup figures that a row-coloured chart mislabelled.
    res = ExperimentResult(name="x", title="x", columns=("a",), rows=({"a": 1},), checks=(),
                           series={"speedup_pct": {"label": ["8 PDs", "2 PDs"], "published": [52.9, 22.8],
                                                   "reproduced": [65.8, 6.4]}})
    fig = _state(plot_published_vs_reproduced(res))
    (bars,) = [r for r in fig.renderers if "source" in r.data_source.data]
    data = bars.data_source.data
    got = {(tuple(f)[0], s): v for f, s, v in zip(data["xoffsets"], data["source"], data["speedup_pct"])}
    assert got == {("8 PDs", "published"): 52.9, ("2 PDs", "published"): 22.8,
                   ("8 PDs", "reproduced"): 65.8, ("2 PDs", "reproduced"): 6.4}
    mapper = bars.glyph.fill_color.transform
    colour = dict(zip(mapper.factors, mapper.palette))
    # every bar's colour is its source's colour
    for s, c in zip(data["source"], data["color"]):
        assert colour[c] == SOURCE_COLORS[s]
    # the legend has one entry per source, drawn from the same colour column
    (legend,) = fig.legend
    assert len(legend.items) == 1 and legend.items[0].label.field == "color"
    assert sorted(set(data["color"])) == ["published", "reproduced"]


def test_sixty_rows_stay_readable():
    labels = [f"row {i}" for i in range(60)]
    res = ExperimentResult(name="x", title="x", columns=("a",), rows=({"a": 1},), checks=(),
                           series={"v": {"label": labels, "published": list(range(60)),
                                         "reproduced": list(range(60))}})
    fig = _state(plot_published_vs_reproduced(res))
    # horizontal bars, one line per row: at least 20 px per row, labels written horizontally
    assert fig.height >= 20 * 60
    assert fig.yaxis[0].group_label_orientation == "horizontal"


def test_cpu_timeline_axis_is_discrete_with_task_legend():
    from lisa_eas import SimConfig, simulate
    from lisa_eas.rtapp import periodic, task, workload

    wl = workload([task("a", periodic(4, 10, duration_s=0.2)), task("b", periodic(6, 10, duration_s=0.2))],
                  calibration=20)
    tr = simulate("juno_r0", wl, config=SimConfig(governor="performance", placement="no-eas"))
    fig = _state(plot_cpu_timeline(tr))
    ticks = fig.yaxis[0].major_label_overrides
    assert ticks and all(v.startswith("CPU") for v in ticks.values())
    assert set(np.asarray(list(ticks)).astype(float)) <= set(float(c) for c in range(6))
    labels = {item.label["value"] for lg in fig.legend for item in lg.items}
    assert {"a", "b"} <= {lab.split("-")[0] for lab in labels} or len(labels) >= 2
