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
        ("code", "# The notebook fails (in CI) if the experiment produced nothing to compare.\n"
                 "assert len(res.rows) > 0 and len(res.checks) > 0\n"
                 "assert all(c.ok or c.why for c in res.checks), \"a failing check must say why\""),
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
                 "        run = run_workload(board, wl, OUT, progress=False, kernel_signals={\"optional\": True})\n"
                 "    print(info.kernel_release, len(info.online_cpus), \"CPUs\")\n    print(run.trace_path)"),
        ("md", "## Load the trace and analyse it"),
        ("code", "import pandas as pd\nfrom lisa_eas import read_trace, read_rtapp_log\n"
                 "from lisa_eas.analysis import df_cpu_residency\n\n"
                 "if CAN_TRACE:\n    trace = read_trace(run.trace_path)\n    print(trace.events)\n"
                 "    measured = pd.concat([read_rtapp_log(p) for p in run.log_paths], ignore_index=True)\n"
                 "    display(df_cpu_residency(trace))\n"
                 "    display(measured.groupby(\"task\")[[\"run_us\", \"slack_us\"]].describe().T)"),
        ("md", "## The kernel's own PELT and util_est signals (BPF, no kernel module)\n\n"
               "`kernel_signals=` (or `--kernel-signals`, or `tracing: kernel_signals:` in the target YAML) "
               "attaches a BPF program to the bare scheduler tracepoints while rt-app runs (kernel >= 5.12 "
               "with BTF, root; built by `make setup`). `read_trace(run.out_dir)` then has `sched_pelt_se`, "
               "`sched_util_est_se`, `sched_pelt_cfs`, ... next to the ftrace events, and the analyses use "
               "them. The models, fed only with each task's timeline, are held against them on the kernel's "
               "PELT clock."),
        ("code", "HAVE_SIGNALS = CAN_TRACE and run.kernel_signals_path is not None\n"
                 "print(run.run_info[\"kernel_signals\"] if CAN_TRACE else \"no run\")\n"
                 "if HAVE_SIGNALS:\n    from lisa_eas.analysis import df_task_util\n"
                 "    from lisa_eas.analysis.validate import compare_kernel_signals\n\n"
                 "    ks_trace = read_trace(run.out_dir)\n"
                 "    util = df_task_util(ks_trace)\n"
                 "    print(\"df_task_util source:\", util.attrs[\"source\"])\n"
                 "    era = \"v\" + \".\".join(info.kernel_release.split(\".\")[:2])\n"
                 "    pelt_rows, ue_rows, summary = compare_kernel_signals(ks_trace, tasks=[\"smk_per\", \"smk_rmp\"], era=era)\n"
                 "    display(pd.DataFrame({k: v for k, v in summary.items() if isinstance(v, dict)}).T)"),
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
        ("md", "## Replay the real run against the models, decision by decision\n\n"
               "The run directory says which board recorded it (its probe), so `validate` needs no platform; "
               "checks that cannot apply on this machine (EAS without asymmetric capacities or an energy "
               "model, schedutil without cpufreq) are listed with the reason instead of scored."),
        ("code", "from lisa_eas.analysis.validate import validate\n\n"
                 "if CAN_TRACE:\n    report = validate(run.out_dir)\n"
                 "    print({k: v for k, v in report.summary.items() if not isinstance(v, (list, dict))})\n"
                 "    for na in report.summary[\"not_applicable\"]:\n        print(\"does not apply:\", na[\"check\"], \"-\", na[\"reason\"])\n"
                 "    display(report.summary[\"sis\"])"),
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
        ("md", "## Does EAS still place tasks well? The EAS behaviour suite\n\n"
               "LISA's seven EAS scenarios (OneSmallTask ... EnergyModelWakeMigration, 16 ms periods), built for the "
               "board's CPUs and OPPs, checked against the exact energy-optimal placement (20 % capacity margin), "
               "slack and noise. On a board: `lisa-eas check eas --target T.yml --iterations 3 --out DIR`; here on "
               "the model (`--simulate --platform`). Pixel 3 at v5.0 and v5.4 fails TwoBigThreeSmall: those kernels "
               "move a task only when that saves more than 1/16 of the energy, which keeps a small task on the big "
               "cluster next to the big ones (the model's decisions agree 100 % with the independent EAS replay; "
               "v6.x, without that margin, passes). At v5.0 TwoBigTasks misses the slack limit by one activation: "
               "v5.0's PELT ramps the big tasks' util slowly on the little CPUs they start on."),
        ("code", "from lisa_eas.suite import check_eas\n\n"
                 "suite = {era: check_eas(platform=\"pixel3\", era=era, placement=\"eas-v5.0\" if era == \"v5.0\" "
                 "else \"eas\", progress=False)\n         for era in (\"v5.0\", \"v5.4\", \"v6.9\")}\n"
                 "pd.DataFrame({era: {r.scenario: f\"{r.verdict} ({r.figures.get('energy_excess_pct', float('nan')):+.1f} %)\"\n"
                 "                    for r in res.results} for era, res in suite.items()})"),
        ("md", "## Is B better than A, and am I sure? A/B with bootstrap intervals\n\n"
               "`compare(A_runs, B_runs)` (CLI: `lisa-eas compare A... --vs B... --expect 'energy: B<A'`) gives "
               "per metric the difference of means B - A with a 95 % bootstrap interval, the effect size and a "
               "verdict. On the model the only run-to-run randomness is the seeded start jitter: each thread "
               "starts within 4 ms of its delay. It represents where in their periods the tasks fall relative to "
               "each other; it does not represent a board's noise (interrupts, other tasks, timer slack, cache "
               "and thermal effects), so model intervals are narrower than a board's.\n\n"
               "First v5.0 vs v5.4 EAS on TwoBigThreeSmall (Juno r0): the same energy, the v5.4 run's decisions "
               "agree with the v5.0 model where the two margin rules agree, and v5.4 evaluates fewer perf "
               "domains per wake-up."),
        ("code", "from lisa_eas.suite import build_scenario, compare, run_metrics\n"
                 "from lisa_eas.analysis.validate import validate\n\n"
                 "def model_runs(board, wl, n=5, replay_era=None, **cfg):\n"
                 "    out = []\n"
                 "    for seed in range(n):\n"
                 "        t = simulate(board, wl, config=SimConfig(seed=seed, start_jitter_us=4000, **cfg))\n"
                 "        m = run_metrics(t, board)\n"
                 "        if \"lisa_sim_eas_decision\" in t.events:\n"
                 "            d = t.df(\"lisa_sim_eas_decision\")\n"
                 "            m[\"pd_evaluations_per_wakeup\"] = float(d.pd_evaluations.mean()) if len(d) else 0.0\n"
                 "        if replay_era:\n"
                 "            m[\"eas_agreement_pct\"] = validate(t, board, era=replay_era).summary[\"eas\"][\"agreement_pct\"]\n"
                 "        out.append(m)\n"
                 "    return out\n\n"
                 "wl3 = build_scenario(\"TwoBigThreeSmall\", \"juno_r0\").workload\n"
                 "v50 = model_runs(\"juno_r0\", wl3, replay_era=\"v5.4\", placement=\"eas-v5.0\", era=\"v5.0\")\n"
                 "v54 = model_runs(\"juno_r0\", wl3, replay_era=\"v5.0\", placement=\"eas\", era=\"v5.4\")\n"
                 "c = compare(v50, v54, label_a=\"v5.0\", label_b=\"v5.4\", metrics=[\"energy\", \"overrun_pct\", "
                 "\"migrations\",\n                                 \"pd_evaluations_per_wakeup\", \"eas_agreement_pct\"])\n"
                 "c.table()[[\"mean_a\", \"mean_b\", \"diff_pct\", \"ci_low\", \"ci_high\", \"effect_size\", \"verdict\"]]"),
        ("md", "Then the EAS RFC v2 energy workload (10 tasks of 5 % every 16 ms for 30 s) without (A) and with "
               "(B) EAS on HiKey960 and Juno r0: the published direction is *B uses less energy*, asserted "
               "with `expect`."),
        ("code", "from lisa_eas.repro.workloads import eas_rfc_energy\n\n"
                 "rfc = {}\nfor board in (\"hikey960\", \"juno_r0\"):\n"
                 "    wl4 = eas_rfc_energy(board, 10)\n"
                 "    rfc[board] = compare(model_runs(board, wl4, placement=\"no-eas\", model_events=False),\n"
                 "                         model_runs(board, wl4, placement=\"eas\", model_events=False),\n"
                 "                         metrics=[\"energy\", \"overrun_pct\"], expect=[\"energy: B<A\"],\n"
                 "                         label_a=\"no EAS\", label_b=\"EAS\")\n"
                 "pd.concat({b: c.table()[[\"mean_a\", \"mean_b\", \"diff_pct\", \"ci_low\", \"ci_high\", \"verdict\"]] "
                 "for b, c in rfc.items()})"),
        ("code", "assert all(c.exit_code == 0 for c in rfc.values()), \"EAS did not save energy on the model\"\n"
                 "from lisa_eas.plot import plot_ab_distributions\n"
                 "plot_ab_distributions(rfc[\"hikey960\"], \"energy\") + plot_ab_distributions(rfc[\"juno_r0\"], \"energy\")"),
        ("md", "## A real A/B on this machine: autogroup on vs off\n\n"
               "This VM's kernel is locked down (debugfs `sched/features` cannot be written, even by root), so the "
               "setting changed is a sysctl: `kernel.sched_autogroup_enabled`. An rt-app task (20 % of every 16 ms, "
               "pinned to CPU 1) competes with six busy loops started in a session of their own. With autogroup "
               "(A) the loops are one task group and the rt-app task another, so it gets half the CPU; without (B) "
               "it is one task of seven. N = 5 runs a side, interleaved, the setting restored after every run even "
               "on error (`SchedFeature(\"NAME\", False)` does the same through `sched/features` on boards where "
               "debugfs is writable). The cell takes the live lock (`/tmp/lisa_live.lock`: tracefs is shared) and "
               "needs root, rt-app and tracefs; elsewhere it says why it skips."),
        ("code", "import fcntl, os, shutil, tempfile\nfrom pathlib import Path\n"
                 "from lisa_eas.suite import SysctlSetting, ab_runs\n"
                 "from lisa_eas.target import target_config_from_dict\n\n"
                 "AUTOGROUP = \"/proc/sys/kernel/sched_autogroup_enabled\"\n"
                 "live_ok = (os.geteuid() == 0 and shutil.which(\"rt-app\") and os.path.exists(AUTOGROUP)\n"
                 "           and os.path.exists(\"/sys/kernel/tracing/tracing_on\") and (os.cpu_count() or 1) >= 2)\n"
                 "live = None\n"
                 "if not live_ok:\n"
                 "    print(\"skipped: needs root, rt-app, tracefs, 2 CPUs and CONFIG_SCHED_AUTOGROUP\")\n"
                 "else:\n"
                 "    wd = Path(tempfile.mkdtemp(prefix=\"lisa_ab_\"))\n"
                 "    cfg = target_config_from_dict({\"kind\": \"local\", \"name\": \"ab\", \"working_directory\": str(wd / \"target\"),\n"
                 "                                   \"tracing\": {\"events\": [\"sched:sched_switch\", \"sched:sched_wakeup\"],\n"
                 "                                               \"buffer_size_kb\": 4096}})\n"
                 "    victim = workload([task(\"victim\", periodic(16, 20, 0.6, runtime=True), cpus=(1,))], calibration=100,\n"
                 "                      ftrace=True)\n"
                 "    on, off = [SysctlSetting(AUTOGROUP, \"1\")], [SysctlSetting(AUTOGROUP, \"0\")]\n"
                 "    with open(\"/tmp/lisa_live.lock\", \"w\") as lock:\n"
                 "        fcntl.flock(lock, fcntl.LOCK_EX)\n"
                 "        ra, rb = ab_runs(cfg, victim, wd / \"ab\", side_a=on, side_b=off, n=5, load=6, load_cpus=(1,))\n"
                 "        ra2, rb2 = ab_runs(cfg, victim, wd / \"aa\", side_a=on, side_b=on, n=5, load=6, load_cpus=(1,))\n"
                 "    live = compare(ra, rb, expect=[\"overrun_pct: B>A\"], label_a=\"autogroup on\", label_b=\"autogroup off\",\n"
                 "                   metrics=[\"overrun_pct\", \"slack_mean_us\", \"negative_slack_mean_us\", \"wakeup_latency_p50_us\",\n"
                 "                            \"wakeup_latency_p99_us\"])\n"
                 "    aa = compare(ra2, rb2, metrics=[\"overrun_pct\"], expect=[\"overrun_pct: B=A\"])\n"
                 "    print(\"A/B:\", live.table()[[\"mean_a\", \"mean_b\", \"ci_low\", \"ci_high\", \"effect_size\", \"verdict\"]], sep=\"\\n\")\n"
                 "    print(\"A/A:\", aa.table()[[\"mean_a\", \"mean_b\", \"ci_low\", \"ci_high\", \"verdict\"]], sep=\"\\n\")\n"
                 "    print(\"report:\", live.write(wd / \"report\")[\"html\"])"),
    ])


def perfetto_and_power_notebook():
    return _nb([
        ("md", "# Perfetto traces, power rails and a fitted energy model\n\n"
               "A 60 s Perfetto trace of a Pixel 7 Pro (Tensor G2, kernel 5.10 GKI; recorded by others, see "
               "`tests/data/traces/perfetto/SOURCES.md`) read offline into the same schema as a trace.dat; "
               "its frequency and idle residency; the energy its on-device power meter (ODPM) measured per "
               "CPU cluster; an energy model fitted to it and checked on a held-out window; and a simulated "
               "run written back as a Perfetto trace for ui.perfetto.dev."),
        ("code", "import lzma, tempfile\nfrom pathlib import Path\n\nimport holoviews as hv\n"
                 "from lisa_eas import read_trace\n\nhv.extension(\"bokeh\", inline=True)\n"
                 "SRC = Path(\"../tests/data/traces/perfetto/"
                 "spirals_pixel7pro_cheetah_compact_sched_power_rails.perfetto-trace.xz\")\n"
                 "work = Path(tempfile.mkdtemp())\npath = work / \"pixel7pro.perfetto-trace\"\n"
                 "path.write_bytes(lzma.decompress(SRC.read_bytes()))\n"
                 "trace = read_trace(path, cache=False)\n"
                 "{k: trace.metadata[k] for k in (\"format\", \"kernel_version\", \"cpus\", \"clock\", "
                 "\"lost_events\")}"),
        ("code", "trace.metadata[\"event_counts\"]"),
        ("code", "trace.df(\"sched_switch\").head()   # compact_sched records, trace.dat columns and dtypes"),
        ("md", "## Frequency and idle residency\n\nThe bundled `pixel7pro` board gives the perf domains "
               "(topology and capacities from the gs201 device tree)."),
        ("code", "from lisa_eas.analysis import df_frequency_residency\n\n"
                 "res = df_frequency_residency(trace, \"pixel7pro\", per=\"domain\")\nres.head(12)"),
        ("code", "idle = trace.df(\"cpu_idle\")\n"
                 "idle.groupby([\"cpu_id\", \"state\"]).size().unstack(fill_value=0)"),
        ("md", "## Measured power per cluster"),
        ("code", "from lisa_eas.analysis import df_power_rails\nfrom lisa_eas.plot import plot_power_rails\n\n"
                 "CPU_RAILS = [\"S4M_VDD_CPUCL0\", \"S3M_VDD_CPUCL1\", \"S2M_VDD_CPUCL2\"]\n"
                 "plot_power_rails(trace, CPU_RAILS)"),
        ("md", "## Fit an energy model to the rails\n\nActive power per OPP (non-decreasing), idle-state and "
               "static power per cluster, fitted on the first 70 % and checked on the rest. The mid and big "
               "clusters were hardly used in this trace, so their fit is rough: the summary says so."),
        ("code", "from lisa_eas.analysis import fit_energy_model\n\n"
                 "fit = fit_energy_model(trace, capacity_dmips_mhz=[260, 880, 997], name=\"my_pixel7pro\")\n"
                 "fit.summary[[\"rail\", \"busy_s\", \"mean_power_mw\", \"train_error_pct\", "
                 "\"heldout_error_pct\", \"observed_opps\"]]"),
        ("code", "from lisa_eas.plot import plot_rail_fit, plot_fitted_power\n\nplot_rail_fit(fit)"),
        ("code", "plot_fitted_power(fit.to_platform())"),
        ("code", "from lisa_eas.analysis import df_rail_vs_model\n\n"
                 "df_rail_vs_model(trace, fit.to_platform())   # whole window, measured vs model"),
        ("md", "## A simulated run, written as a Perfetto trace\n\nThe fitted board simulates like any "
               "other; `to_perfetto` writes the run (compact sched, frequency, idle, markers, model signals as "
               "counter tracks, EAS decisions as slices) and reading it back gives the same DataFrames."),
        ("code", "from lisa_eas import SimConfig, simulate\n\n"
                 "run = simulate(fit.to_platform(), \"../workloads/eas_speedup_ramp.json\",\n"
                 "               config=SimConfig(governor=\"schedutil\", placement=\"eas\", duration_s=0.5))\n"
                 "out = run.to_perfetto(work / \"sim.perfetto-trace\")\n"
                 "back = read_trace(out, cache=False)\n"
                 "print(out.stat().st_size, \"bytes;\", back.metadata[\"event_counts\"][\"sched_switch\"], "
                 "\"switches\")\n"
                 "back.df(\"sched_switch\").equals(run.df(\"sched_switch\"))"),
    ])


def build_all() -> dict[str, object]:
    out = {f"repro_{mod}.ipynb": repro_notebook(*spec) for mod, spec in _REPRO.items()}
    out["drive_a_board.ipynb"] = drive_a_board_notebook()
    out["validate_a_patch.ipynb"] = validate_a_patch_notebook()
    out["perfetto_and_power.ipynb"] = perfetto_and_power_notebook()
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
