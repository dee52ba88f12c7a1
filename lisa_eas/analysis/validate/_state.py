"""Rebuild what the kernel saw at each wake-up of a trace: per-CPU util and util_est, the
waking task's util and util_est, its previous CPU, the CPU the kernel picked, idleness and
the overutilized flag.

Signals come from the trace's own PELT events where it has them (kernel tracepoints or the
simulator's model-only events, taken just *before* the wake-up), else from the PELT model
fed with the trace's timeline (:func:`lisa_eas.analysis.model_task_util`). A simulated trace
also logs, in ``lisa_sim_eas_decision``, the exact inputs of every ``find_energy_efficient_cpu``
call; those wake-ups take the logged inputs instead (``inputs`` = ``logged``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import ConfigError
from .._common import need_any, running_intervals, wakeup_events
from .._load import kernel_cpu_util, kernel_task_util, model_task_util

__all__ = ["WakeupState", "rebuild_wakeups"]

#: Why a wake-up was not replayed (every wake-up gets exactly one category).
CATEGORIES = ("eas", "sis", "rt", "no_prev_cpu", "new_task")


@dataclass(frozen=True)
class WakeupState:
    """Per wake-up inputs of the models (arrays of length n; per-CPU arrays n x n_cpus).

    ``category``: ``eas`` (CFS, not overutilized: EAS replay), ``sis`` (CFS while
    overutilized, or any CFS wake-up where EAS is not active: idle-CPU search replay),
    ``rt`` (RT/DL task, not replayed), ``no_prev_cpu``
    (the task never ran before in the trace), ``new_task`` (``sched_wakeup_new``: fork
    balancing, not modelled).
    """

    wakeups: pd.DataFrame          # time, pid, comm, prev_cpu, kernel_cpu, category, inferred
    util_avg: np.ndarray
    util_est: np.ndarray
    task_util: np.ndarray
    task_util_est: np.ndarray
    idle: np.ndarray
    overutilized: np.ndarray
    util_source: str
    overutilized_source: str
    capacity: np.ndarray           # capacity_of per CPU (original capacity unless logged)
    allowed: np.ndarray            # bool, the task's affinity (all CPUs unless logged)
    inputs: np.ndarray             # per wake-up: "logged", "kernel_pelt" or "pelt_model"
    #: the optional decision inputs (issue 17) read from the trace: name (``util_rt``, ``util_dl``,
    #: ``util_irq``, ``runnable_avg``; the ``find_energy_efficient_cpu`` keywords) -> n x n_cpus
    #: array, each CPU's last value before the wake-up; only those the trace records
    cpu_inputs: dict = None
    #: where each input came from: the event, or "absent" and why (for the replay's metadata)
    input_sources: dict = None


def _wakeups(trace) -> tuple[pd.DataFrame, bool]:
    """Wake-ups with the CPU the kernel chose; inferred from sched_switch without sched_wakeup."""
    iv = running_intervals(trace)
    tasks_iv = iv[iv["pid"] > 0].sort_values(["pid", "start"], kind="stable")
    if "sched_wakeup" in trace.events or "sched_wakeup_new" in trace.events:
        wk = wakeup_events(trace)
        wk["kernel_cpu"] = wk["target_cpu"]
        inferred = False
    else:
        # a task switched in after it slept: its wake-up placed it on the CPU it runs on
        g = tasks_iv.groupby("pid")
        prev_end_runnable = g["end_runnable"].shift(1)
        after_sleep = prev_end_runnable.eq(False).to_numpy()
        sel = tasks_iv[after_sleep]
        wk = pd.DataFrame({"time": sel["start"].to_numpy(), "pid": sel["pid"].to_numpy(),
                           "comm": sel["comm"].to_numpy(), "target_cpu": sel["cpu"].to_numpy(), "new": False,
                           "waker_cpu": sel["cpu"].to_numpy(), "prio": 120, "kernel_cpu": sel["cpu"].to_numpy()})
        sw = trace.df("sched_switch")
        pr = pd.DataFrame({"pid": sw["next_pid"].to_numpy(np.int64), "prio": sw["next_prio"].to_numpy(np.int64)})
        pr = pr.drop_duplicates("pid", keep="last").set_index("pid")["prio"]
        wk["prio"] = pr.reindex(wk["pid"]).fillna(120).to_numpy(np.int64)
        inferred = True
    # previous CPU: where the task last ran before the wake-up
    ends = pd.DataFrame({"pid": tasks_iv["pid"].to_numpy(), "t": tasks_iv["start"].to_numpy(),
                         "cpu": tasks_iv["cpu"].to_numpy()}).sort_values("t", kind="stable")
    wk = wk.sort_values("time", kind="stable").reset_index(drop=True)
    m = pd.merge_asof(wk[["time", "pid"]], ends, left_on="time", right_on="t", by="pid",
                      direction="backward", allow_exact_matches=False)
    wk["prev_cpu"] = m["cpu"].fillna(-1).astype(np.int64).to_numpy()
    return wk, inferred


def _last_before(t_ev, values, t_q, strict=True):
    k = np.searchsorted(t_ev, t_q, side="left" if strict else "right") - 1
    ok = k >= 0
    return np.where(ok, values[np.maximum(k, 0)] if len(values) else 0, 0), ok


def rebuild_wakeups(trace, platform, *, era: str = "v5.4", pelt_era: str | None = None,
                    pelt: str = "auto", inputs: str = "auto", eas_active: bool = True) -> WakeupState:
    """The model inputs at every wake-up of ``trace`` on ``platform``.

    Parameters
    ----------
    era : str
        Era of the overutilized rule (when the trace does not record the flag).
    pelt_era : str, optional
        Era of the PELT/util_est model (default ``era``).
    pelt : {"auto", "kernel", "model"}
        Where util signals come from (``auto``: kernel/simulator events when present).
    inputs : {"auto", "rebuilt"}
        ``auto``: wake-ups the simulator logged with their exact EAS inputs
        (``lisa_sim_eas_decision``) use them; ``rebuilt``: always rebuild from the signals.
    eas_active : bool
        False when EAS cannot have placed any wake-up (symmetric capacities, no energy model,
        a simulated no-EAS run): every CFS wake-up with a previous CPU is then ``sis``.
    """
    if inputs not in ("auto", "rebuilt"):
        raise ConfigError(f"inputs must be 'auto' or 'rebuilt', got {inputs!r}")
    pelt_era = pelt_era or era
    need_any(trace, "sched_switch")
    wk, inferred = _wakeups(trace)
    n_cpus = platform.nr_cpus
    n = len(wk)
    t = wk["time"].to_numpy(np.float64)
    ua = np.zeros((n, n_cpus), np.int64)
    ue = np.zeros((n, n_cpus), np.int64)
    tu = np.zeros(n, np.int64)
    tue = np.zeros(n, np.int64)
    kc = kernel_cpu_util(trace) if pelt in ("auto", "kernel") else None
    kt = kernel_task_util(trace) if pelt in ("auto", "kernel") else None
    need_model = kc is None or kt is None
    model = model_task_util(trace, platform=platform, era=pelt_era, at=t) if need_model else None
    source = []
    if kc is not None:
        source.append(f"cpu: {kc.attrs['source']}")
        for c in range(n_cpus):
            g = kc[kc["cpu"] == c]
            ua[:, c], _ = _last_before(g.index.to_numpy(), g["util"].to_numpy(), t)
            if "util_est_enqueued" in g.columns:
                ue[:, c], _ = _last_before(g.index.to_numpy(), g["util_est_enqueued"].to_numpy(), t)
    if kt is not None:
        source.append(f"task: {kt.attrs['source']}")
        for pid, idx in wk.groupby("pid").indices.items():
            g = kt[kt["pid"].to_numpy() == pid]
            if len(g):
                tu[idx], _ = _last_before(g.index.to_numpy(), g["util"].to_numpy(), t[idx], strict=False)
                if "util_est_ewma" in g.columns:
                    from ...models.pelt import task_util_est_values
                    ew, _ = _last_before(g.index.to_numpy(), g["util_est_ewma"].to_numpy(), t[idx], strict=False)
                    en, _ = _last_before(g.index.to_numpy(), g["util_est_enqueued"].to_numpy(), t[idx], strict=False)
                    tue[idx] = task_util_est_values(ew, en, pelt_era)
    if model is not None:
        source.append("model (PELT fed with sched_switch/sched_wakeup)")
        mt = model.reset_index()
        for pid, g in mt.groupby("pid"):
            gt = g["Time"].to_numpy()
            idx = wk.index[wk["pid"].to_numpy() == pid].to_numpy()
            if kt is None and len(idx):
                tu[idx], _ = _last_before(gt, g["util"].to_numpy(), t[idx], strict=False)
                tue[idx], _ = _last_before(gt, np.maximum(g["util_est_ewma"].to_numpy(),
                                                          g["util_est_enqueued"].to_numpy()), t[idx], strict=False)
            if kc is None:
                # the task's contribution to the CPU it is attached to (blocked included)
                k = np.searchsorted(gt, t, side="left") - 1
                ok = k >= 0
                cpu = g["cpu"].to_numpy()[np.maximum(k, 0)]
                util = g["util"].to_numpy()[np.maximum(k, 0)]
                state = g["state"].to_numpy()[np.maximum(k, 0)]
                uest = np.maximum(g["util_est_ewma"].to_numpy(), g["util_est_enqueued"].to_numpy())[np.maximum(k, 0)]
                ok &= (cpu >= 0) & (cpu < n_cpus)
                rows = np.flatnonzero(ok)
                np.add.at(ua, (rows, cpu[ok]), util[ok])
                enq = ok & (state >= 1)
                np.add.at(ue, (np.flatnonzero(enq), cpu[enq]), uest[enq])
    ua = np.minimum(ua, 1024)
    ue = np.minimum(ue, 1024)
    tu = np.minimum(tu, 1024)
    tue = np.minimum(tue, 1024)
    # idleness of each CPU just before the wake-up (the idle task running)
    iv = running_intervals(trace)
    idle = np.ones((n, n_cpus), np.int64)
    for c in range(n_cpus):
        g = iv[iv["cpu"] == c]
        v, ok = _last_before(g["start"].to_numpy(), (g["pid"].to_numpy() == 0).astype(np.int64), t)
        idle[:, c] = np.where(ok, v, 1)
    # overutilized
    ou_src = None
    for e in ("sched_overutilized", "lisa_sim_overutilized"):
        if e in trace.events:
            df = trace.df(e)
            ou, _ = _last_before(df.index.to_numpy(np.float64), np.asarray(df["overutilized"], np.int64), t)
            ou_src = e
            break
    else:
        from ...models.eas import EAS_ERAS, rd_overutilized_rows
        from ..._era import select_era

        v = select_era(era, EAS_ERAS, "overutilized")       # an era before EAS: the error names it
        cap = np.array([platform.cpu_capacity(c) for c in range(n_cpus)], np.int64)
        cpu_util = np.minimum(np.maximum(ua, ue), cap[None, :])
        ou = rd_overutilized_rows(cpu_util.reshape(n, n_cpus), cap, v)
        ou_src = "model (cpu_overutilized on the rebuilt per-CPU util)"
    cap = np.array([platform.cpu_capacity(c) for c in range(n_cpus)], np.int64)
    capacity = np.repeat(cap[None, :], n, axis=0)
    cpu_inputs, input_sources = trace_cpu_inputs(trace, n_cpus, t)
    from ..._era import parse_kernel_version

    if ("uclamp_max" in cpu_inputs or "uclamp_min" in cpu_inputs) and parse_kernel_version(era) >= (5, 3):
        # an idle rq (UCLAMP_FLAG_IDLE) keeps its last task's uclamp_max (e496187da710): the models take
        # it as uclamp_idle_max with rq clamps (0, 0), and per era (ledger uclamp-v5.14) whether the
        # waking task's clamps are max-aggregated with it
        idle_b = idle.astype(bool)
        if "uclamp_max" in cpu_inputs:
            cpu_inputs["uclamp_idle_max"] = np.where(idle_b, cpu_inputs["uclamp_max"], 1024)
        for k in ("uclamp_min", "uclamp_max"):
            if k in cpu_inputs:
                cpu_inputs[k] = np.where(idle_b, 0, cpu_inputs[k])
    if "capacity" in cpu_inputs:
        capacity = np.where(cpu_inputs.pop("capacity_known"), cpu_inputs.pop("capacity"), capacity)
    allowed = np.ones((n, n_cpus), bool)
    src = np.full(n, "kernel_pelt" if kc is not None and kt is not None else "pelt_model", dtype=object)
    logged = np.zeros(n, bool)
    if inputs == "auto" and pelt == "auto":
        logged = _apply_logged(trace, wk, n_cpus, ua, ue, tu, tue, capacity, allowed, ou)
        src[logged] = "logged"
        if logged.any():
            source.append("EAS wake-ups logged by the simulator: the exact find_energy_efficient_cpu inputs")
    cfs = wk["prio"].to_numpy() >= 100
    cat = np.where(~cfs, "rt", np.where(wk["new"].to_numpy(), "new_task",
                                        np.where(wk["prev_cpu"].to_numpy() < 0, "no_prev_cpu",
                                                 np.where(ou.astype(bool) | (not eas_active), "sis", "eas"))))
    if eas_active:
        cat[logged] = "eas"
    out = pd.DataFrame({"time": t, "pid": wk["pid"].to_numpy(), "comm": wk["comm"].to_numpy(),
                        "prev_cpu": wk["prev_cpu"].to_numpy(), "kernel_cpu": wk["kernel_cpu"].to_numpy(np.int64),
                        "waker_cpu": wk["waker_cpu"].to_numpy(np.int64), "category": cat, "inferred": inferred})
    return WakeupState(out, ua, ue, tu, tue, idle, ou.astype(bool), "; ".join(source), ou_src, capacity, allowed,
                       src.astype(str), cpu_inputs, input_sources)


#: The optional inputs the replay reads, the event (and field) each comes from.
_INPUT_EVENTS = (("util_rt", "sched_pelt_rt", "util"), ("util_dl", "sched_pelt_dl", "util"),
                 ("util_irq", "sched_pelt_irq", "util"), ("runnable_avg", "sched_pelt_cfs", "runnable"),
                 ("capacity", "sched_cpu_capacity", "capacity"),
                 # LISA's module (lisa__uclamp_util_cfs, read without the prefix; sched_tp's uclamp_util_cfs):
                 # the root cfs_rq's rq->uclamp[UCLAMP_MIN/MAX].value at each PELT update of that cfs_rq
                 ("uclamp_min", "uclamp_util_cfs", "uclamp_min"), ("uclamp_max", "uclamp_util_cfs", "uclamp_max"))


def trace_cpu_inputs(trace, n_cpus: int, t: np.ndarray) -> tuple[dict, dict]:
    """Each CPU's RT / DL / IRQ utilization, root cfs_rq ``runnable_avg`` and ``capacity_of``
    just before each time of ``t``, from the kernel-signals collector's (or LISA module's)
    ``sched_pelt_rt`` / ``sched_pelt_dl`` / ``sched_pelt_irq`` / ``sched_pelt_cfs`` /
    ``sched_cpu_capacity`` events; with where each came from, or ``"absent: ..."``.

    Bad values (negative, or a utilization above 1024) raise ``ModelError`` naming the event
    and field. The rq clamps come from LISA's ``uclamp_util_cfs`` (``uclamp_min`` / ``uclamp_max``
    of the root cfs_rq's rq); the waking task's own clamps have no event (LISA's
    ``uclamp_util_se`` carries the rq's values too) and stay at their defaults (0, 1024). The
    thermal pressure has no event of its own: it is reported absent (``sched_cpu_capacity`` gives
    ``capacity_of``, which has the thermal pressure in it from v5.7, and the replay uses it as
    such)."""
    from ...errors import ModelError

    out: dict = {}
    src: dict = {}
    n = len(t)
    for name, event, field in _INPUT_EVENTS:
        if event not in trace.events:
            src[name] = f"absent: the trace has no {event} events (kernel-signals collector or LISA module)"
            continue
        df = trace.df(event)
        if field not in df.columns or "cpu" not in df.columns:
            src[name] = f"absent: {event} has no {field!r} field"
            continue
        if event == "sched_pelt_cfs" and "path" in df.columns:
            df = df[df["path"].astype(str) == "/"]
        vals = pd.to_numeric(df[field], errors="coerce").to_numpy(np.float64)
        hi = None if name in ("capacity", "runnable_avg") else 1024
        bad = ~np.isfinite(vals) | (vals < 0) | ((vals > hi) if hi is not None else False)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ModelError(f"{event}.{field} = {df[field].iloc[k]!r} at {df.index[k]} (cpu {df['cpu'].iloc[k]}) "
                             f"is not a {'capacity' if hi is None else 'utilization within 0..1024'}; "
                             f"the trace's {name} input is corrupt")
        if name == "runnable_avg":
            vals = np.minimum(vals, 1024)     # a cfs_rq's runnable_avg exceeds 1024 with several runnable tasks
        arr = np.zeros((n, n_cpus), np.int64)
        known = np.zeros((n, n_cpus), bool)
        cpus = df["cpu"].to_numpy(np.int64)
        times = df.index.to_numpy(np.float64)
        for c in range(n_cpus):
            sel = cpus == c
            arr[:, c], known[:, c] = _last_before(times[sel], vals[sel].astype(np.int64), t)
        if not known.any():
            src[name] = f"absent: no {event} record before any wake-up"
            continue
        out[name] = arr
        if name == "capacity":
            out["capacity_known"] = known
        src[name] = f"{event}.{field}"
    if "uclamp_min" in out or "uclamp_max" in out:
        src["uclamp"] = ("rq clamps from uclamp_util_cfs.uclamp_min / uclamp_max; the waking task's own clamps "
                         "are absent (no event gives them: taken as 0 and 1024)")
    else:
        src["uclamp"] = ("absent: no uclamp_util_cfs events (LISA module) give the rq clamps; "
                         "the replay decides without clamps")
    src["thermal_pressure"] = ("absent: no event gives arch_scale_thermal_pressure alone; capacity_of "
                               "(sched_cpu_capacity) includes it" if "capacity" in out else
                               "absent: no sched_cpu_capacity events")
    return out, src


def _apply_logged(trace, wk, n_cpus, ua, ue, tu, tue, capacity, allowed, ou) -> np.ndarray:
    """Overwrite (in place) the inputs of the wake-ups the simulator logged in
    ``lisa_sim_eas_decision`` with the values it passed to ``find_energy_efficient_cpu``
    (prev_cpu in ``wk`` too); returns the mask of those wake-ups."""
    n = len(wk)
    if "lisa_sim_eas_decision" not in trace.events:
        return np.zeros(n, bool)
    dec = trace.df("lisa_sim_eas_decision")
    cols = [f"{b}{c}" for b in ("util_cpu", "util_est_cpu", "capacity_cpu", "allowed_cpu") for c in range(n_cpus)]
    if any(c not in dec.columns for c in cols + ["in_task_util_avg", "in_task_util_est", "in_overutilized"]):
        return np.zeros(n, bool)
    key = pd.DataFrame({"time": dec.index.to_numpy(np.float64), "pid": dec["pid"].to_numpy(np.int64),
                        "row": np.arange(len(dec))})
    m = wk[["time", "pid"]].astype({"time": np.float64, "pid": np.int64}).merge(key, on=["time", "pid"], how="left")
    hit = m["row"].notna().to_numpy()
    r = m["row"].to_numpy()[hit].astype(np.int64)
    i = np.flatnonzero(hit)

    def block(prefix):
        return np.column_stack([dec[f"{prefix}{c}"].to_numpy(np.int64)[r] for c in range(n_cpus)]) \
            if len(r) else np.zeros((0, n_cpus), np.int64)

    ua[i] = block("util_cpu")
    ue[i] = block("util_est_cpu")
    capacity[i] = block("capacity_cpu")
    allowed[i] = block("allowed_cpu").astype(bool)
    tu[i] = dec["in_task_util_avg"].to_numpy(np.int64)[r]
    tue[i] = dec["in_task_util_est"].to_numpy(np.int64)[r]
    ou[i] = dec["in_overutilized"].to_numpy(np.int64)[r]
    prev = wk["prev_cpu"].to_numpy(np.int64).copy()
    prev[i] = dec["prev_cpu"].to_numpy(np.int64)[r]
    wk["prev_cpu"] = prev
    return hit
