"""``ramp-boost``: schedutil ramp boost (RFC v3 "Make schedutil energy aware"), Pixel 3.

Published (Raillard, 14 Oct 2019, in the v3 thread, quoting the figures he posted on the v2 of the
series in Aug 2019): one rt-app task pinned on a big CPU, 0.3 s at 5 % then
0.3 s at 75 % (16 ms period), 20 cycles; without / with ramp boost: average slack, average
negative slack (1.75x smaller with boost) and the boost's energy overhead (+3.04 %).

Reproduced: the same workload simulated on the Pixel 3 model with schedutil, ramp boost off
and on (:class:`lisa_eas.sim.SimConfig` ``governor_tunables={"ramp_boost": 0|1}``); slack from
the simulated rt-app log rows, energy from the simulator's energy-model integration.
"""
from __future__ import annotations

from ._claims import ExperimentResult, check_close, check_that
from ._registry import published_csv, published_provenance
from ..sim._warm import warm_up_simulator
from ._sweep import Sweep

TITLE = ("schedutil ramp boost off/on, Pixel 3, 5 % -> 75 % step pinned on a big CPU (figures from the RFC v2 "
         "experiment, Aug 2019, quoted in the v3 thread, Oct 2019; modelled with v3's rule)")
FILE = "ramp_boost_slack.csv"


#: The Pixel 3's cpufreq driver (``drivers/cpufreq/qcom-cpufreq-hw.c``, sdm845 "qcom,cpufreq-hw",
#: read in a v5.15-era tree): ``qcom_cpufreq_hw_cpu_init()`` sets neither
#: ``cpuinfo.transition_latency`` nor ``transition_delay_us`` and, without an OPP table in the
#: DT, fast-switches (``qcom_cpufreq_hw_fast_switch`` writes the OPP index to the OSM's
#: perf-state register from the scheduler's update): the kernel sees no transition latency.
PIXEL3_TRANSITION_LATENCY_NS = 0
#: The kernel whose schedutil the RFC patched (v5.4 merge window, the simulator's default era).
ERA = "v5.4"
#: On/off experiments of the negative-slack claim: (label, SimConfig changes).
EXPERIMENTS = (("util_est fast ramp-up on (v5.5 util_est_dequeue, b8c96361402a)", {"era": "v5.5"}),
               ("util_est off", {"util_est": False}),
               ("EM costs non-decreasing in frequency (Qualcomm msm-4.9 SDM845 table, the platform file's "
                "caf_msm49_cpu_power) instead of the Pixel kernel's legacy busy costs", {"em": "caf_msm49_cpu_power"}),
               ("EM from power measured on an SDM845 phone (freqbench_measured_mw)", {"em": "freqbench_measured_mw"}))


def pixel3_with_em(column: str):
    """The Pixel 3 platform with each perf domain's EM power taken from the OPPs' ``extra[column]``
    (a comparison table the platform file carries with its provenance); a domain lacking the
    column at some OPP keeps its own table. For the EM cause experiment only."""
    from dataclasses import replace

    from ..platform import load_platform

    plat = load_platform("pixel3")
    doms = []
    for pd in plat.perf_domains:
        vals = [o.extra.get(column) for o in pd.opps]
        if all(v is not None for v in vals):
            pd = replace(pd, opps=tuple(replace(o, power_mw=float(v)) for o, v in zip(pd.opps, vals)))
        doms.append(pd)
    return replace(plat, perf_domains=tuple(doms))


def simulate_step(ramp_boost: int, **changes) -> dict:
    """Simulate the step workload with ramp boost off (0) or on (1); return the metrics.
    ``changes`` replace :class:`~lisa_eas.sim.SimConfig` fields (on/off experiments)."""
    from ..analysis import ramp_boost_energy_overhead
    from ..models import cpufreq_transition_delay_us
    from ..sim import SimConfig, simulate
    from .workloads import biggest_cpu, ramp_boost_step

    era = changes.pop("era", ERA)
    em = changes.pop("em", None)
    # schedutil's rate_limit_us as the kernel derives it from the driver (ledger cpufreq_delay-v4.14: 1000 us)
    rate = cpufreq_transition_delay_us(era, PIXEL3_TRANSITION_LATENCY_NS)
    config = SimConfig(governor="schedutil", placement="eas", era=era,
                       transition_latency_us=PIXEL3_TRANSITION_LATENCY_NS // 1000,
                       governor_tunables={"ramp_boost": ramp_boost, "rate_limit_us": rate}, **changes)
    tr = simulate("pixel3" if em is None else pixel3_with_em(em), ramp_boost_step(), config=config)
    log = tr.df("lisa_sim_rtapp_log")
    slack = log["slack_us"].astype(float)
    neg = slack[slack < 0]
    freq = tr.df("cpu_frequency")
    energy = tr.metadata["energy"]
    # The RFC's definition (continuous OPP space, single-CPU policy) on the CPU the task is pinned to.
    rfc = ramp_boost_energy_overhead(tr)
    return {"rfc_overhead_pct": float(rfc.loc[biggest_cpu("pixel3"), "overhead_pct"]),"ramp_boost": ramp_boost, "activations": int(len(log)), "avg_slack_us": float(slack.mean()),
            "avg_negative_slack_us": float(neg.mean()) if len(neg) else 0.0, "overruns": int(len(neg)),
            "energy": float(energy["total"]), "energy_unit": energy["unit"],
            "freq_changes": int(len(freq)), "config": config.to_dict(),
            "approximations": list(tr.metadata.get("approximations", ())),
            "series": {"time_s": log.index.to_numpy().tolist(), "slack_us": slack.to_numpy().tolist()}}


def run(sweep: Sweep) -> ExperimentResult:
    pub = published_csv(FILE)
    off_pub = pub[pub["ramp_boost"] == "off"]
    on_pub = pub[pub["ramp_boost"] == "on"]
    p_slack = (float(off_pub.avg_slack_us.mean()), float(on_pub.avg_slack_us.mean()))
    p_neg = (float(off_pub.avg_negative_slack_us.mean()), float(on_pub.avg_negative_slack_us.mean()))
    p_energy = float(on_pub.boost_energy_overhead_pct.mean())
    off, on = sweep.map(simulate_step, [0, 1], warm=warm_up_simulator)
    exp_lines = []
    em_ratio = {}
    for label, changes in EXPERIMENTS:
        e_off, e_on = simulate_step(0, **changes), simulate_step(1, **changes)
        ratio = e_off["avg_negative_slack_us"] / e_on["avg_negative_slack_us"] if e_on["avg_negative_slack_us"] \
            else float("inf")
        if "em" in changes:
            em_ratio[changes["em"]] = (ratio, e_on)
        exp_lines.append(f"{label}: negative slack {e_off['avg_negative_slack_us']:.0f} -> "
                         f"{e_on['avg_negative_slack_us']:.0f} us ({e_off['overruns']} -> {e_on['overruns']} late "
                         f"activations), ratio {ratio:.2f}")
    r_overhead = on["rfc_overhead_pct"]
    discrete_overhead = 100.0 * (on["energy"] / off["energy"] - 1.0)
    rows = []
    for label, pub_rows, sim in (("off", off_pub, off), ("on", on_pub, on)):
        rows.append({"ramp_boost": label,
                     "published_avg_slack_us": round(float(pub_rows.avg_slack_us.mean()), 2),
                     "reproduced_avg_slack_us": round(sim["avg_slack_us"], 2),
                     "published_avg_negative_slack_us": round(float(pub_rows.avg_negative_slack_us.mean()), 2),
                     "reproduced_avg_negative_slack_us": round(sim["avg_negative_slack_us"], 2),
                     "reproduced_overruns": sim["overruns"], "activations": sim["activations"],
                     "published_energy_overhead_pct": None if label == "off" else round(p_energy, 2),
                     "reproduced_energy_overhead_pct": None if label == "off" else round(r_overhead, 2),
                     "model_energy": round(sim["energy"], 2),
                     "discrete_opp_energy_overhead_pct": None if label == "off" else round(discrete_overhead, 2)})
    p_ratio = p_neg[0] / p_neg[1]
    r_ratio = off["avg_negative_slack_us"] / on["avg_negative_slack_us"] if on["avg_negative_slack_us"] else float("inf")
    checks = [
        check_that("ramp boost raises the average slack (6602.76 -> 7144.18 us)",
                   f"{p_slack[0]:.0f} -> {p_slack[1]:.0f} us", f"{off['avg_slack_us']:.0f} -> {on['avg_slack_us']:.0f} us",
                   on["avg_slack_us"] > off["avg_slack_us"], tolerance="direction only",
                   why="the simulated boost does not raise the average slack"),
        # The published ratio is a mean over 10 runs on a phone; the model's count of late
        # activations per cycle is small and quantised (a handful of 16 ms activations during
        # the ramp), so a factor within 1.75/1.5 .. 1.75*1.5 is accepted as the same effect.
        check_close("average negative slack shrinks about 1.75x with ramp boost", round(p_ratio, 2),
                    round(r_ratio, 2), rel=0.5,
                    justification="few late activations per cycle make the ratio coarse; the Pixel 3 OPP "
                                  "and power tables are the Pixel kernel's legacy ones",
                    why=f"the model misses {off['overruns'] / 20:.0f} activations per cycle without boost and "
                        f"{on['overruns'] / 20:.0f} with it: the modelled boost removes most of the lag rather than "
                        "halving it. Cause (experiment in the notes): the RFC's em_pd_get_higher_freq() picks the "
                        "highest OPP whose EM cost is within the margin of the requested one, and the Pixel 3 EM "
                        "here is the Pixel kernel's legacy busy-cost table, whose cost is not monotonic in "
                        "frequency (825.6 MHz costs more than 2553.6 MHz), so even a zero margin jumps to 2553.6 "
                        "MHz; the RFC's test kernel built its EM from the DT's dynamic-power-coefficient and the "
                        "OSM LUT voltages (dev_pm_opp_of_register_em: cost = fmax * dpc * V^2, non-decreasing "
                        "with frequency), whose voltages are in no public source. With the Qualcomm msm-4.9 "
                        f"SDM845 table (cost non-decreasing) the ratio is {em_ratio['caf_msm49_cpu_power'][0]:.2f}; "
                        "with power measured on another SDM845 phone (freqbench, itself slightly non-monotonic) "
                        f"{em_ratio['freqbench_measured_mw'][0]:.2f}. Not the rate limit or a transition latency "
                        "(the Pixel 3 driver states none: 1000 us rate limit, fast switch, as simulated); "
                        "util_est's fast ramp-up and util_est itself switched on/off do not bring the ratio near "
                        "1.75"),
        # Same definition as the RFC (lisa_eas.analysis.ramp_boost_energy_overhead: the busy-time
        # weighted boost margin b/1024, continuous OPP space, single-CPU policy) on the simulated
        # boost-on run. The published 10 runs spread 2.97..3.07 %, but the boost margin follows
        # util_avg - util_est.enqueued during each ramp, which depends on the PELT/util_est
        # details of the kernel: +-2 points.
        check_close("ramp boost costs about 3 % more energy (RFC definition: continuous OPPs)", round(p_energy, 2),
                    round(r_overhead, 2), abs_=2.0,
                    justification="same definition; the boost margin follows the PELT/util_est ramp of the "
                                  "modelled kernel",
                    why="the modelled boost margin during the 5 % -> 75 % ramps differs from the phone's"),
    ]
    notes = (
        "Simulated once per setting (the simulator is deterministic); the published values are means over "
        "10 phone runs. Full published duration: 20 cycles of 0.6 s.",
        "reproduced_energy_overhead_pct follows the RFC's definition (continuous OPP space, single-CPU policy: "
        "the busy-time weighted boost margin, lisa_eas.analysis.ramp_boost_energy_overhead) on the boost-on run. "
        f"discrete_opp_energy_overhead_pct is the ratio of the simulator's CPU energy ({off['energy_unit']}, "
        "Pixel 3 legacy busy-cost tables over the real OPPs of the 4-CPU big policy) with and without boost; "
        "the RFC notes that discrete OPPs lower and multi-CPU policies raise the figure. Not checked.",
        "Frequency transitions as the kernel sees them on the Pixel 3: qcom-cpufreq-hw states no transition "
        "latency (fast switch), so schedutil's rate_limit_us is cpufreq_policy_transition_delay_us() = 1000 us "
        "(ledger cpufreq_delay-v4.14) and the frequency changes at the request.",
        "The published figures were first posted on 9 Aug 2019 in the v2 thread, before v3 (11 Oct 2019) added "
        "'util_avg >= sg_cpu->util_avg' to sugov_cpu_ramp_boost_update(); the model runs v3's rule. For this "
        "workload the two differ only at cpufreq updates of an idle CPU (blocked-load decay with util_est.enqueued "
        "0 stable), whose boost would matter to other CPUs of the policy only; the pinned task's ramps see the "
        "same boost under both.",
        "On/off experiments of the negative-slack ratio (published 1.75, this run "
        f"{r_ratio:.2f}): " + "; ".join(exp_lines) + ".",
        "Simulator approximations: " + "; ".join(sorted(set(off["approximations"]))) if off["approximations"]
        else "No simulator approximations were needed for this workload.",
    )
    return ExperimentResult(
        name="ramp-boost", title=TITLE, columns=tuple(rows[0]), rows=tuple(rows), checks=tuple(checks), notes=notes,
        provenance={"published": published_provenance(FILE), "platform": "lisa_eas/platforms/pixel3.json",
                    "workload": "ramp_boost_step (workloads/ramp_boost_step.json)",
                    "simulations": [{"config": s["config"], "freq_changes": s["freq_changes"]} for s in (off, on)]},
        series={"slack": {"off": off["series"], "on": on["series"]},
                "slack_us": {"label": ["avg slack, boost off", "avg slack, boost on", "avg negative slack, boost off",
                                   "avg negative slack, boost on"],
                         "published": [p_slack[0], p_slack[1], p_neg[0], p_neg[1]],
                         "reproduced": [off["avg_slack_us"], on["avg_slack_us"], off["avg_negative_slack_us"],
                                        on["avg_negative_slack_us"]]}})
