"""A board's OPPs and energy model as plots: capacity, power and EM cost per OPP, efficiency."""
from __future__ import annotations

__all__ = ["plot_energy_model"]


def plot_energy_model(platform, era: str = "v6.9", *, width: int = 440, height: int = 280):
    """Four views of each perf domain of ``platform`` under the Energy Model of ``era``.

    * capacity per OPP (frequency, MHz, on the x axis);
    * power per OPP (the platform's unit);
    * the EM ``cost`` per OPP, as ``em_cpu_energy`` of ``era`` uses it (marked where the EM flags
      the OPP inefficient);
    * the efficiency curve: energy per unit of work (``power / capacity``) against capacity;
      the lowest point of each domain is its most efficient OPP.

    Parameters
    ----------
    platform : Platform or str
    era : str
        Kernel era of the Energy Model (``v5.0`` ... ``v6.9``).

    Returns
    -------
    holoviews.Layout
    """
    import pandas as pd

    from ..energy_model import EnergyModel
    from ..platform import load_platform
    from ._common import hv

    h = hv()
    plat = load_platform(platform) if isinstance(platform, str) else platform
    em = EnergyModel.from_platform(plat, era)
    rows = []
    for pd_, dom in zip(plat.perf_domains, em.domains):
        t = dom.table()
        for o, (_, r) in zip(pd_.opps, t.iterrows()):
            rows.append({"domain": pd_.name, "freq_MHz": o.freq_khz / 1000.0, "capacity": o.capacity,
                         "power": float(o.power_mw), "cost": float(r["cost"]), "inefficient": bool(r["inefficient"]),
                         "power_per_capacity": float(o.power_mw) / max(o.capacity, 1)})
    df = pd.DataFrame(rows)
    unit = plat.perf_domains[0].power_unit if plat.perf_domains else ""

    def per_domain(x, y, title, ylabel, xlabel):
        layers = []
        for name, g in df.groupby("domain", sort=False):
            layers.append(h.Curve(g, x, y, label=name) * h.Scatter(g, x, [y, "inefficient"], label=name).opts(
                size=6, tools=["hover"]))
        return h.Overlay(layers).opts(width=width, height=height, title=title, ylabel=ylabel, xlabel=xlabel,
                                      legend_position="top_left", show_legend=True)

    return h.Layout([
        per_domain("freq_MHz", "capacity", f"{plat.name}: capacity per OPP", "capacity (of 1024)", "frequency (MHz)"),
        per_domain("freq_MHz", "power", f"{plat.name}: power per OPP", f"power ({unit})", "frequency (MHz)"),
        per_domain("freq_MHz", "cost", f"{plat.name}: EM cost per OPP ({em.era_name})", "EM cost", "frequency (MHz)"),
        per_domain("capacity", "power_per_capacity", f"{plat.name}: efficiency (power / capacity)",
                   f"{unit} per unit of capacity", "capacity (of 1024)"),
    ]).cols(2)
