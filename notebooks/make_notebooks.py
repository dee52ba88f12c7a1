#!/usr/bin/env python3
"""Generate the reproduction and workflow notebooks from the cell sources below.

    python notebooks/make_notebooks.py           # (re)write the notebooks
    python notebooks/make_notebooks.py --check   # exit 1 if a notebook differs from this script

Notebooks are written without outputs (CI executes them: ``make test`` runs
``pytest --nbmake tests notebooks``), with ``metadata.kernelspec`` (python3) and
``language_info``. Edit the cells here, not in the .ipynb files, so changes stay reviewable.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent

_REPRO = {
    "sis_util_scan": ("sis-util-scan", "SIS_UTIL scan depth",
                      "The number of CPUs `select_idle_cpu()` may scan under SIS_UTIL as a function of the "
                      "LLC's sum of util_avg, for 112 and 16 CPUs per LLC, against the rows of commit "
                      "70fb5ccf2ebb. The model is exact integer arithmetic, so every row must match."),
    "sis_efficiency": ("sis-efficiency", "SIS_PROP vs SIS_UTIL search efficiency",
                       "Netperf-RR-like pairs and hackbench-like groups on one 112-CPU LLC, every wake-up through "
                       "the `select_idle_sibling` model under SIS_PROP and SIS_UTIL: se_eff%, dom_eff%, "
                       "fast_rate%, success_rate% beside the SIS_PROP table of commit 70fb5ccf2ebb, and the "
                       "`select_idle_cpu()` time distribution beside the published histogram."),
    "eas_wakeup_speedup": ("eas-wakeup-speedup", "EAS wake-up speed-up (v5.0 vs v5.4)",
                           "Commit eb92692b made the EAS wake-up O(n). The Pixel 3 ramp workload is simulated "
                           "with 8 and 2 perf domains, and every EAS wake-up state is replayed through the v5.0 "
                           "and v5.4 models: work per wake-up and model time."),
    "ramp_boost": ("ramp-boost", "schedutil ramp boost",
                   "The RFC v3 'Make schedutil energy aware' step workload (5 % -> 75 %, pinned on a Pixel 3 "
                   "big CPU) simulated with ramp boost off and on: slack, negative slack, energy overhead."),
    "eas_rfc_energy": ("eas-rfc-energy", "EAS RFC v2 energy, HiKey960 and Juno r0",
                       "10..50 periodic 5 % tasks for 30 s, with and without EAS, simulated on the HiKey960 and "
                       "Juno r0 models with schedutil; energy per row and the saving, where the tasks ended, and "
                       "a sensitivity run with the margin-free v6.1 EAS search. (About a minute on 2 CPUs.)"),
    "schedfreq_governors": ("schedfreq-governors", "sched-freq governor overhead (BKK16-104)",
                            "The 16 rt-app duty-cycle cases on the Exynos 5800 and MT8173 models under each "
                            "governor the simulator has: overhead OH% and overruns, against the slides."),
}


def _nb(cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src)
                for kind, src in cells]
    # Stable ids so regeneration is byte-identical.
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
    return nb


def repro_notebook(name: str, title: str, text: str):
    return _nb([
        ("md", f"# Reproducing: {title}\n\n{text}\n\nThe same as `lisa-eas reproduce {name}` on the command "
               "line (`--format json` for machines, exit code 1 when a check fails)."),
        ("code", f"# Parameters\nEXPERIMENT = \"{name}\"\nWORKERS = None  # local processes; 1 = in this kernel\n"
                 "SCHEDULER = None  # or the address of a Dask scheduler, e.g. \"tcp://10.0.0.1:8786\""),
        ("code", "import holoviews as hv\nfrom lisa_eas import reproduce\nfrom lisa_eas.repro import "
                 "experiment_plots\n\nhv.extension(\"bokeh\")\n"
                 "res = reproduce(EXPERIMENT, workers=WORKERS, scheduler=SCHEDULER)\n"
                 "print(f\"{sum(c.ok for c in res.checks)}/{len(res.checks)} checks ok\")"),
        ("md", "## Published beside reproduced"),
        ("code", "res.to_frame()"),
        ("md", "## The claims, their tolerance, and why a claim is not reproduced"),
        ("code", "res.checks_frame()"),
        ("code", "for note in res.notes:\n    print(\"-\", note)"),
        ("md", "## Plots"),
        ("code", "hv.Layout(experiment_plots(res)).cols(1)"),
        ("md", "## Provenance\n\nWhere every input came from (published file and its hash, platforms, "
               "workloads, simulator configuration, versions)."),
        ("code", "import json\nprint(json.dumps(res.to_dict()[\"provenance\"], indent=1)[:3000])"),
        ("md", "## Outcomes held against the expectation\n\nEach claim's outcome (ok / not ok) is recorded in "
               "`lisa_eas/repro/expected_outcomes.json`. A claim that flips fails this notebook (and CI) until the "
               "change is recorded on purpose with `lisa-eas reproduce all --write-expectations`."),
        ("code", "from lisa_eas.repro import check_expected\n\ncheck_expected(res)"),
    ])


def drive_a_board_notebook():
    return _nb([
        ("md", "# Drive a board: run, trace, analyse, and hold the run against the model\n\n"
               "Connect to the target of `target_configs/local.yml` (this machine, as root, with rt-app and "
               "trace-cmd), run an rt-app workload while tracing, load the trace, run the analyses, then "
               "simulate the same workload on a model of the board and compare measured with modeled. "
               "For a real board use `target_configs/*.yml` of kind `linux` (SSH) or `android` (adb)."),
        ("code", "from pathlib import Path\nimport tempfile\n\n"
                 "CONFIG = next(p for p in (Path(\"../target_configs/local.yml\"), Path(\"target_configs/local.yml\")) "
                 "if p.is_file())\nOUT = Path(tempfile.mkdtemp(prefix=\"drive_a_board_\")) / \"run\"\n"
                 "CONFIG, OUT"),
        ("code", "from lisa_eas.repro._live import can_trace\n\nCAN_TRACE, WHY = can_trace()\n"
                 "print(\"this machine can trace\" if CAN_TRACE else f\"cannot trace here: {WHY}\")"),
        ("md", "## The workload: two rt-app tasks built with the builders"),
        ("code", "from lisa_eas.rtapp import periodic, ramp, task, workload\n\n"
                 "wl = workload([task(\"smk_per\", periodic(16, 25, duration_s=2.0, name=\"dc25\")),\n"
                 "               task(\"smk_rmp\", ramp(10, 50, 20, period_ms=16, step_s=0.64))], calibration=20)\n"
                 "print(wl.to_json()[:600])"),
        ("md", "## Run it on the board, traced"),
        ("code", "from lisa_eas.target import connect, probe, run_workload\n\n"
                 "if CAN_TRACE:\n    with connect(CONFIG) as board:\n        info = probe(board)\n"
                 "        run = run_workload(board, wl, OUT, progress=False)\n"
                 "    print(info.kernel_release, len(info.online_cpus), \"CPUs\")\n    print(run.trace_path)"),
        ("md", "## Load the trace and analyse it"),
        ("code", "import pandas as pd\nfrom lisa_eas import read_trace, read_rtapp_log\n"
                 "from lisa_eas.analysis import df_cpu_residency\n\n"
                 "if CAN_TRACE:\n    trace = read_trace(run.trace_path)\n    print(trace.events)\n"
                 "    measured = pd.concat([read_rtapp_log(p) for p in run.log_paths], ignore_index=True)\n"
                 "    display(df_cpu_residency(trace))\n"
                 "    display(measured.groupby(\"task\")[[\"run_us\", \"slack_us\"]].describe().T)"),
        ("md", "## Simulate the same workload on a model of the board\n\n"
               "This VM has no cpufreq, so its model is a fixed-frequency platform (one OPP; placeholder power, "
               "so no energy figure is compared)."),
        ("code", "from lisa_eas import SimConfig, simulate\nfrom lisa_eas.repro._live import fixed_frequency_platform\n\n"
                 "ncpu = len(info.online_cpus) if CAN_TRACE else 2\n"
                 "plat = info.platform if CAN_TRACE and info.platform.perf_domains else "
                 "fixed_frequency_platform(\"local\", ncpu)\n"
                 "sim = simulate(plat, wl, config=SimConfig(governor=\"performance\", placement=\"no-eas\"))\n"
                 "modeled = sim.df(\"lisa_sim_rtapp_log\")\nmodeled.groupby(\"task\")[[\"run_us\", \"slack_us\"]].mean()"),
        ("md", "## Measured vs modeled"),
        ("code", "rows = []\nfor task_name, g in modeled.groupby(\"task\"):\n"
                 "    row = {\"task\": task_name, \"activations (model)\": len(g), \"mean slack us (model)\": g.slack_us.mean()}\n"
                 "    if CAN_TRACE:\n        m = measured[measured.task.str.startswith(task_name.rsplit(\"-\", 1)[0])]\n"
                 "        row.update({\"activations (board)\": len(m), \"mean slack us (board)\": m.slack_us.mean()})\n"
                 "    rows.append(row)\npd.DataFrame(rows)"),
        ("md", "## Replay the real run against the models, decision by decision"),
        ("code", "from lisa_eas.analysis.validate import validate\n\n"
                 "if CAN_TRACE:\n    report = validate(trace, plat, era=\"v5.4\")\n"
                 "    print({k: v for k, v in report.summary.items() if not isinstance(v, (list, dict))})\n"
                 "    display(report.summary)"),
        ("md", "## Plots: which task ran where"),
        ("code", "import holoviews as hv\nfrom lisa_eas.plot._repro import plot_cpu_timeline\n\n"
                 "hv.extension(\"bokeh\")\nplot_cpu_timeline(trace if CAN_TRACE else sim)"),
    ])


def validate_a_patch_notebook():
    return _nb([
        ("md", "# Validate a patch: two runs, replayed against the model\n\n"
               "A base and a patched kernel ran the same workload; replay both traces against the model of the "
               "patched behaviour and look at the differences that matter: decisions that disagree, the energy "
               "they cost, and the rt-app slack. Here the two runs are simulated (no board with two kernels is "
               "attached): *base* places tasks with the v5.0 EAS wake-up, *patched* with the v5.4 one (commit "
               "eb92692b). With real boards, pass the two `trace.dat` files (or run directories) instead."),
        ("code", "# Parameters\nBOARD = \"juno_r0\"\nN_TASKS = 8\nDURATION_S = 4\nMODEL_ERA = \"v5.4\""),
        ("code", "from lisa_eas import SimConfig, simulate\nfrom lisa_eas.rtapp import identical_tasks, ramp, "
                 "task, workload\n\n"
                 "wl = workload(identical_tasks(N_TASKS, \"small\", ramp(5, 35, 10, period_ms=16, "
                 "step_s=DURATION_S / 4)), calibration=\"CPU1\")\n"
                 "runs = {\"base\": simulate(BOARD, wl, config=SimConfig(placement=\"eas-v5.0\", era=\"v5.0\")),\n"
                 "        \"patched\": simulate(BOARD, wl, config=SimConfig(placement=\"eas\", era=\"v5.4\"))}\n"
                 "{k: round(t.metadata[\"energy\"][\"total\"], 1) for k, t in runs.items()}"),
        ("md", "## Replay both runs against the patched model"),
        ("code", "from lisa_eas.analysis.validate import validate\n\n"
                 "reports = {k: validate(t, BOARD, era=MODEL_ERA) for k, t in runs.items()}\n"
                 "import pandas as pd\n"
                 "pd.DataFrame({k: {kk: vv for kk, vv in r.summary.get(\"eas\", {}).items() "
                 "if not isinstance(vv, (list, dict))} for k, r in reports.items()})"),
        ("md", "## The disagreements of the base run, with their energy gap"),
        ("code", "eas = reports[\"base\"].eas\ndis = eas[~eas[\"agree\"]] if \"agree\" in eas.columns else eas.iloc[:0]\n"
                 "print(len(dis), \"of\", len(eas), \"EAS wake-ups disagree with the\", MODEL_ERA, \"model\")\n"
                 "dis.head(10)"),
        ("md", "## What it costs: energy and slack"),
        ("code", "rows = []\nfor k, t in runs.items():\n    log = t.df(\"lisa_sim_rtapp_log\")\n"
                 "    rows.append({\"run\": k, \"energy\": t.metadata[\"energy\"][\"total\"], "
                 "\"unit\": t.metadata[\"energy\"][\"unit\"],\n"
                 "                 \"mean slack us\": log.slack_us.mean(), \"overruns\": int((log.slack_us < 0).sum())})\n"
                 "diff = pd.DataFrame(rows).set_index(\"run\")\ndiff"),
        ("code", "import holoviews as hv\nfrom lisa_eas.plot._repro import plot_energy_breakdown\n\n"
                 "hv.extension(\"bokeh\")\n"
                 "(plot_energy_breakdown(runs[\"base\"]).relabel(\"base\") + "
                 "plot_energy_breakdown(runs[\"patched\"]).relabel(\"patched\"))"),
        ("md", "## Summary: how closely each run follows the patched model\n\n"
               "The patched run was placed by the very model it is replayed against, so its agreement is the "
               "replay's own consistency (state rebuilt from the trace vs the simulator's internal state); the "
               "base run's extra disagreements are the patch's behavioural change."),
        ("code", "pd.DataFrame({k: {\"EAS agreement %\": r.summary.get(\"eas\", {}).get(\"agreement_pct\"),\n"
                 "                  \"disagreements\": r.summary.get(\"eas\", {}).get(\"disagree\"),\n"
                 "                  \"energy regret\": r.summary.get(\"eas\", {}).get(\"regret_total\")}\n"
                 "              for k, r in reports.items()})"),
        ("md", "## A second patch: the capacity-aware wake-up search (v5.7, b7a331615d25)\n\n"
               "Without EAS (or while overutilized), a v5.4 kernel searches an idle CPU in the waking task's "
               "cluster (its LLC); from v5.7 `select_idle_capacity()` searches every CPU for an idle one the task "
               "fits, from the previous CPU on. The same workload (three 30 % and four 8 % tasks on HiKey960, no "
               "EAS) under both searches: where the tasks ran, their slack, the energy. The v5.4 run also counts "
               "the wake-ups its kernel's `wake_cap()` would have sent to the (unmodelled) `find_idlest_cpu()` "
               "slow path."),
        ("code", "from lisa_eas import load_platform\nfrom lisa_eas.rtapp import periodic\n\n"
                 "BOARD2 = \"hikey960\"\nplat = load_platform(BOARD2)\n"
                 "big = max(plat.perf_domains, key=lambda d: d.cpu_capacity_max)\n"
                 "wl2 = workload([task(f\"mid{i}\", periodic(duty_cycle_pct=30, period_ms=16, duration_s=DURATION_S))\n"
                 "                for i in range(3)]\n"
                 "               + [task(f\"small{i}\", periodic(duty_cycle_pct=8, period_ms=16, duration_s=DURATION_S))\n"
                 "                  for i in range(4)], calibration=20)\n"
                 "rows = []\nfor era in (\"v5.4\", \"v5.10\"):\n"
                 "    t = simulate(BOARD2, wl2, config=SimConfig(placement=\"no-eas\", era=era))\n"
                 "    sw = t.df(\"sched_switch\")\n    ran = sw[sw[\"next_pid\"] != 0]\n"
                 "    log = t.df(\"lisa_sim_rtapp_log\")\n"
                 "    rows.append({\"era\": era, \"switch-ins on big CPUs %\": round(100 * ran[\"__cpu\"].isin(big.cpus).mean(), 1),\n"
                 "                 \"CPUs used\": int(ran[\"__cpu\"].nunique()), \"mean slack us\": round(log.slack_us.mean()),\n"
                 "                 \"overruns\": int((log.slack_us < 0).sum()),\n"
                 "                 \"energy\": round(t.metadata[\"energy\"][\"total\"], 1),\n"
                 "                 \"wake_cap() wake-ups (not modelled)\": t.metadata[\"wake_cap_wakeups\"]})\n"
                 "pd.DataFrame(rows).set_index(\"era\")"),
    ])


def build_all() -> dict[str, object]:
    out = {f"repro_{mod}.ipynb": repro_notebook(*spec) for mod, spec in _REPRO.items()}
    out["drive_a_board.ipynb"] = drive_a_board_notebook()
    out["validate_a_patch.ipynb"] = validate_a_patch_notebook()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args(argv)
    differ = []
    for name, nb in build_all().items():
        text = nbformat.writes(nb) + "\n"
        path = HERE / name
        if args.check:
            if not path.is_file() or path.read_text() != text:
                differ.append(name)
        else:
            path.write_text(text)
    for name in differ:
        print(f"differs: notebooks/{name}", file=sys.stderr)
    if not args.check:
        print(f"wrote {len(build_all())} notebooks under {HERE}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
