"""Plot helpers: lazy holoviews setup and decimation of long step signals."""
from __future__ import annotations

import numpy as np

__all__ = ["hv", "downsample_steps", "embed_components", "MAX_POINTS"]

#: Points kept per curve by default (per-bucket first/last/min/max, so spikes survive).
MAX_POINTS = 4000


def hv():
    """holoviews with the bokeh backend loaded (done on first use, not at import).

    The backend is loaded without ``holoviews.extension``, which in a notebook would emit
    BokehJS from a CDN: a notebook calls ``hv.extension("bokeh", inline=True)`` itself.
    """
    import holoviews

    if "bokeh" not in holoviews.Store.renderers or holoviews.Store.current_backend != "bokeh":
        holoviews.renderer("bokeh")
        holoviews.Store.set_current_backend("bokeh")
    return holoviews


def embed_components(plots):
    """Embed holoviews objects in a page of one's own: ``(resources, script, divs)``.

    Parameters
    ----------
    plots : mapping of str to holoviews object
        Element id -> plot.

    Returns
    -------
    tuple of (str, str, dict)
        BokehJS inline (no network), the script building every plot, and the ``<div>`` of
        each plot by id.
    """
    from bokeh.embed import components
    from bokeh.resources import INLINE

    renderer = hv().renderer("bokeh")
    models = {pid: renderer.get_plot(p).state for pid, p in plots.items()}
    script, divs = components(models) if models else ("", {})
    return INLINE.render(), script, divs


def downsample_steps(t, y, max_points: int = MAX_POINTS):
    """Keep at most ~``max_points`` samples of the step signal ``y(t)``.

    The time span is cut in ``max_points // 4`` buckets; each keeps its first, last,
    minimum and maximum sample, so every excursion stays visible at screen resolution
    while millions of events become a few thousand (no datashader needed).
    """
    t = np.asarray(t, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = t.size
    if n <= max_points:
        return t, y
    nb = max(max_points // 4, 1)
    lo, hi = t[0], t[-1]
    b = np.minimum(((t - lo) / max(hi - lo, 1e-12) * nb).astype(np.int64), nb - 1)
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    ends = np.r_[starts[1:], n] - 1
    order_min = np.lexsort((np.arange(n), y, b))
    order_max = np.lexsort((np.arange(n), -y, b))
    # b is non-decreasing in time, so each bucket starts at the same position in both orders
    idx_min = order_min[starts]
    idx_max = order_max[starts]
    keep = np.unique(np.concatenate([starts, ends, idx_min, idx_max]))
    return t[keep], y[keep]


def trace_end(trace, df) -> float:
    """The time a step curve of ``df`` (a trace frame indexed by time) is drawn to: the trace's
    last ``sched_switch`` when it is later than ``df``'s last row. A frequency holds until it
    changes, so the last value set is still the CPU's frequency at the end of the run."""
    end = float(df.index[-1]) if len(df) else float("nan")
    if "sched_switch" in trace:
        sw = trace.df("sched_switch").index
        if len(sw) and not float(sw[-1]) <= end:
            end = float(sw[-1])
    return end


def hold_to(t, y, end: float):
    """The step signal ``y(t)`` with its last value repeated at ``end`` when ``end`` is later."""
    t = np.asarray(t, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if t.size and t[-1] < end:
        return np.append(t, end), np.append(y, y[-1])
    return t, y
