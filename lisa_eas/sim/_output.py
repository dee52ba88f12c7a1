"""Raw simulator tables -> the trace schema (one DataFrame per event) -> :class:`~lisa_eas.trace.Trace`.

Kernel events keep the kernel's field names (``sched_switch``, ``sched_wakeup``,
``sched_migrate_task``, ``cpu_frequency``, ``cpu_idle``), rt-app's per-activation
statistics appear as ``print`` markers in LISA's ``rtapp_*`` form (so ``Trace.activations``
works as on a real trace) and as the ``lisa_sim_rtapp_log`` table with the columns of
:func:`lisa_eas.rtapp.read_rtapp_log` (``task`` is the thread's comm here). Model-only events carry a ``lisa_sim_`` prefix;
``lisa_sim_eas_decision`` also records the exact inputs of each ``find_energy_efficient_cpu``
call (:data:`EAS_INPUT_PER_CPU`), so a replay of a simulated trace need not rebuild them.
"""
from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd

__all__ = ["CPU_IDLE_EXIT", "EAS_INPUT_PER_CPU", "PID_BASE", "raw_to_frames"]

#: Per-CPU input columns of ``lisa_sim_eas_decision`` (prefix + CPU number, e.g. ``util_cpu3``): the
#: exact ``find_energy_efficient_cpu`` inputs, with ``in_task_util_avg``, ``in_task_util_est`` and
#: ``in_overutilized``: each CPU's CFS ``util_avg``, ``util_est.enqueued``, ``capacity_of`` and
#: whether the task may run there.
EAS_INPUT_PER_CPU = ("util_cpu", "util_est_cpu", "capacity_cpu", "allowed_cpu")

CPU_IDLE_EXIT = 4294967295      # (u32)-1, as the kernel writes the cpu_idle exit
PID_BASE = 1000                 # simulated thread i gets pid PID_BASE + i


def _frame(t_ns, fields: dict, cpu, pid, comm) -> pd.DataFrame:
    """One event's DataFrame in the trace schema: ``__ts, __cpu, __pid, __comm``, then the
    event's fields, indexed by ``Time``; every column its own contiguous array (no copy into
    consolidated blocks)."""
    t_ns = np.ascontiguousarray(t_ns, dtype=np.int64)
    cols = {"__ts": t_ns, "__cpu": np.ascontiguousarray(cpu, dtype=np.int32),
            "__pid": np.ascontiguousarray(pid, dtype=np.int32), "__comm": comm}
    for name, col in fields.items():
        cols[name] = col if isinstance(col, pd.Categorical) else np.ascontiguousarray(col)
    df = pd.DataFrame(cols, copy=False)
    df.index = pd.Index(t_ns / 1e9, name="Time", copy=False)
    return df


@contextlib.contextmanager
def _no_huge_pages():
    """numpy's advice of transparent huge pages for its large arrays off for the block (then
    as it was): where THP is in ``madvise`` mode with direct compaction (this VM), the first
    touch of such an array costs several times that of ordinary pages (the split of 5.4 M
    event rows: 0.78 s against 0.19 s; see ``_engine._Output`` for the loop's own tables)."""
    try:
        from numpy._core import multiarray as ma
    except ImportError:         # numpy < 2
        from numpy.core import multiarray as ma
    setter = getattr(ma, "_set_madvise_hugepage", None)
    if setter is None:
        yield
        return
    prev = setter(False)
    try:
        yield
    finally:
        setter(prev)


def raw_to_frames(raw, compiled, platform, *, model_events: bool = True,
                  summary: bool = False, release: bool = False) -> dict[str, pd.DataFrame]:
    """The DataFrames of a run (see the module docstring for the events); with ``summary``,
    only the rt-app log (``SimConfig(outputs="summary")``). With ``release``, the output
    memory of ``raw`` goes while the event rows are split by kind (a chunk of rows freed
    once split: :func:`_dropper`), its small rt-app log and EAS tables copied first: the
    event table and its split copy are never held whole at once (at 112 CPUs / 700 tasks /
    10 s: peak RSS 1.32 -> 0.95 GB). Its large arrays are allocated without huge pages
    (:func:`_no_huge_pages`)."""
    with _no_huge_pages():
        return _raw_to_frames(raw, compiled, platform, model_events, summary, release)


def _raw_to_frames(raw, compiled, platform, model_events, summary, release):
    from .._kernels import sim_state as ss

    nt = compiled.nr_threads
    comms = [th.comm for th in compiled.threads]
    # index nt is "no task" (the idle task)
    comm_cats = pd.Index(list(dict.fromkeys(comms + ["<idle>"])))
    code_of = np.array([comm_cats.get_loc(c) for c in comms + ["<idle>"]], np.int32)
    comm_dtype = pd.Categorical.from_codes(code_of[:0], categories=comm_cats).dtype
    # per-task lookup tables, entry nt (also reached by index -1) for "no task"
    pid_lut = np.append(np.arange(PID_BASE, PID_BASE + nt, dtype=np.int32), np.int32(0))
    prio_task = np.where(compiled.policy0 == ss.POLICY_FIFO, 99 - compiled.prio0, 120).astype(np.int32)
    prio_lut = np.append(prio_task[:nt], np.int32(120)).astype(np.int32)

    def lut_index(task_idx):
        """``task_idx`` as an index into the tables: -1 (no task) reaches entry nt by wrapping;
        any other negative value is mapped there explicitly."""
        task_idx = np.asarray(task_idx)
        if len(task_idx) and task_idx.min() < -1:
            return np.where(task_idx < 0, nt, task_idx)
        return task_idx

    def comm_of(task_idx):
        return pd.Categorical.from_codes(code_of[lut_index(task_idx)], dtype=comm_dtype, validate=False)

    def pid_of(task_idx):
        return pid_lut[lut_index(task_idx)]

    def prio_of(task_idx):
        return prio_lut[lut_index(task_idx)]

    def no_task(n):
        return pd.Categorical.from_codes(np.full(n, code_of[nt], np.int32), dtype=comm_dtype, validate=False)

    if summary:
        return _rtapp_frames(raw, compiled, comm_of, pid_of, log_only=True)
    rows_of = _rows_by_kind(raw.events, ss.E_KIND, _dropper(raw) if release else None)
    if release:       # the output map goes (not kept for a next run: its event pages are freed already)
        raw.activations, raw.eas = raw.activations.copy(), raw.eas.copy()
        raw.events, raw.output = raw.events[:0].copy(), None
    frames: dict[str, pd.DataFrame] = {}

    sel = rows_of(ss.EV_SWITCH)
    prev, nxt = sel[:, ss.E_A], sel[:, ss.E_C]
    prev_pid, prev_comm = pid_of(prev), comm_of(prev)
    frames["sched_switch"] = _frame(sel[:, ss.E_TIME], {
        "prev_comm": prev_comm, "prev_pid": prev_pid, "prev_prio": prio_of(prev),
        "prev_state": sel[:, ss.E_B].astype(np.int64),
        "next_comm": comm_of(nxt), "next_pid": pid_of(nxt), "next_prio": prio_of(nxt)},
        sel[:, ss.E_CPU], prev_pid, prev_comm)

    sel = rows_of(ss.EV_WAKEUP)
    p, cur = sel[:, ss.E_A], sel[:, ss.E_C]
    frames["sched_wakeup"] = _frame(sel[:, ss.E_TIME], {
        "comm": comm_of(p), "pid": pid_of(p), "prio": prio_of(p), "target_cpu": sel[:, ss.E_B].astype(np.int32)},
        sel[:, ss.E_CPU], pid_of(cur), comm_of(cur))

    sel = rows_of(ss.EV_MIGRATE)
    p = sel[:, ss.E_A]
    p_comm, p_pid = comm_of(p), pid_of(p)
    frames["sched_migrate_task"] = _frame(sel[:, ss.E_TIME], {
        "comm": p_comm, "pid": p_pid, "prio": prio_of(p),
        "orig_cpu": sel[:, ss.E_B].astype(np.int32), "dest_cpu": sel[:, ss.E_CPU].astype(np.int32)},
        sel[:, ss.E_CPU], p_pid, p_comm)

    sel = rows_of(ss.EV_FREQ)
    frames["cpu_frequency"] = _frame(sel[:, ss.E_TIME], {
        "state": sel[:, ss.E_A].astype(np.uint32), "cpu_id": sel[:, ss.E_CPU].astype(np.uint32)},
        sel[:, ss.E_CPU], np.zeros(len(sel), np.int32), no_task(len(sel)))

    sel = rows_of(ss.EV_IDLE)
    st = sel[:, ss.E_A]
    frames["cpu_idle"] = _frame(sel[:, ss.E_TIME], {
        "state": np.where(st < 0, CPU_IDLE_EXIT, st).astype(np.uint32),
        "cpu_id": sel[:, ss.E_CPU].astype(np.uint32)},
        sel[:, ss.E_CPU], np.zeros(len(sel), np.int32), no_task(len(sel)))

    frames.update(_rtapp_frames(raw, compiled, comm_of, pid_of))

    if model_events:
        sel = rows_of(ss.EV_TASK_UTIL)
        p = sel[:, ss.E_A]
        p_comm, p_pid = comm_of(p), pid_of(p)
        frames["lisa_sim_task_util"] = _frame(sel[:, ss.E_TIME], {
            "comm": p_comm, "pid": p_pid, "cpu": sel[:, ss.E_CPU].astype(np.int32),
            "util_avg": sel[:, ss.E_B], "util_est_ewma": sel[:, ss.E_C], "util_est_enqueued": sel[:, ss.E_D],
            "load_avg": sel[:, ss.E_E]},
            sel[:, ss.E_CPU], p_pid, p_comm)
        sel = rows_of(ss.EV_TASK_SYNC)
        p = sel[:, ss.E_A]
        p_comm, p_pid = comm_of(p), pid_of(p)
        frames["lisa_sim_task_sync"] = _frame(sel[:, ss.E_TIME], {
            "comm": p_comm, "pid": p_pid, "cpu": sel[:, ss.E_CPU].astype(np.int32),
            "pelt_time": sel[:, ss.E_B]},
            sel[:, ss.E_CPU], p_pid, p_comm)
        sel = rows_of(ss.EV_CPU_UTIL)
        frames["lisa_sim_cpu_util"] = _frame(sel[:, ss.E_TIME], {
            "cpu": sel[:, ss.E_CPU].astype(np.int32), "util_avg": sel[:, ss.E_A],
            "util_est_enqueued": sel[:, ss.E_B], "capacity_curr": sel[:, ss.E_C],
            "nr_running": sel[:, ss.E_D], "rt_util_avg": sel[:, ss.E_E]},
            sel[:, ss.E_CPU], np.zeros(len(sel), np.int32), no_task(len(sel)))
        sel = rows_of(ss.EV_OVERUTIL)
        frames["lisa_sim_overutilized"] = _frame(sel[:, ss.E_TIME], {
            "overutilized": sel[:, ss.E_A].astype(np.int32)},
            np.full(len(sel), -1), np.zeros(len(sel), np.int32), no_task(len(sel)))
        d = _columns(raw.eas).T           # each column contiguous
        p = d[:, ss.D_TASK]
        h = ss.D_HEAD
        p_comm, p_pid = comm_of(p), pid_of(p)
        cols = {
            "comm": p_comm, "pid": p_pid, "prev_cpu": d[:, ss.D_PREV].astype(np.int32),
            "chosen_cpu": d[:, ss.D_CHOSEN].astype(np.int32), "task_util": d[:, ss.D_TASK_UTIL],
            "prev_energy": d[:, h], "best_energy": d[:, h + 1], "base_energy": d[:, h + 2],
            "pd_evaluations": d[:, h + 3], "cpu_util_computations": d[:, h + 4],
            "in_task_util_avg": d[:, ss.D_IN_TASK_UTIL], "in_task_util_est": d[:, ss.D_IN_TASK_UTIL_EST],
            "in_overutilized": d[:, ss.D_IN_OVERUTIL].astype(np.int32)}
        nc = platform.nr_cpus
        for b, name in enumerate(EAS_INPUT_PER_CPU):
            for c in range(nc):
                col = d[:, ss.D_IN_CPUS + b * nc + c]
                cols[f"{name}{c}"] = col.astype(bool) if name == "allowed_cpu" else col
        frames["lisa_sim_eas_decision"] = _frame(d[:, ss.D_TIME], cols, d[:, ss.D_CHOSEN], p_pid, p_comm)
    return frames


def _rtapp_frames(raw, compiled, comm_of, pid_of, log_only: bool = False) -> dict[str, pd.DataFrame]:
    """rt-app's per-loop statistics: the log-file table and (unless ``log_only``) the ``print`` markers."""
    from .._kernels import sim_state as ss

    raw_a = raw.activations
    order = _order_by(raw_a[:, ss.A_END], raw_a[:, ss.A_TASK])
    us = 1000
    if log_only:
        # the same rows in the same order as below, without the reordered copy of the whole
        # table the print markers need (only the start column is gathered)
        st = raw_a[order, ss.A_START]
        t0 = st.min() // us if len(st) else 0
        return {"lisa_sim_rtapp_log": _log_frame(raw_a[order[np.argsort(st / 1e9, kind="stable")]], t0,
                                                 comm_of, pid_of)}
    a = raw_a[order]
    p = a[:, ss.A_TASK]
    start_us = a[:, ss.A_START] // us
    end_us = a[:, ss.A_END] // us
    t0 = a[:, ss.A_START].min() // us if len(a) else 0
    period = end_us - start_us
    run = a[:, ss.A_RUN] // us
    # the log's rows in the order ``Trace.from_dataframes`` would sort them into (stable, by
    # the time index), so that it need not re-sort the frame
    by_start = np.argsort(a[:, ss.A_START] / 1e9, kind="stable")
    log = _log_frame(raw_a[order[by_start]], t0, comm_of, pid_of)
    # print markers (LISA form): one rtapp_loop start/end pair and one rtapp_stats per loop,
    # a categorical like the trace reader's: each distinct text formatted once
    keys, key_code = _distinct_rows(a[:, ss.A_PHASE], a[:, ss.A_PHASE_LOOP])
    starts = [f"rtapp_loop: event=start thread_loop=0 phase={ph} phase_loop={pl}" for ph, pl in keys]
    ends = [s.replace("event=start", "event=end") for s in starts]
    vals, stat_code = _distinct_rows(period, run, a[:, ss.A_WULAT] // us,
                                     a[:, ss.A_SLACK] // us, a[:, ss.A_CPERIOD] // us,
                                     a[:, ss.A_CDUR] // us)
    stats = [f"rtapp_stats: period={pe} run={r} wu_lat={w} slack={s} c_period={cp} c_run={cr}"
             for pe, r, w, s, cp, cr in vals]
    t = np.concatenate([a[:, ss.A_START], a[:, ss.A_END], a[:, ss.A_END]])
    who = np.concatenate([p, p, p])
    cpu = np.concatenate([a[:, ss.A_CPU]] * 3)
    codes = np.concatenate([key_code, key_code + len(starts), stat_code + 2 * len(starts)])
    # at equal times: the previous iteration's end, its stats, then the next start
    seq = np.concatenate([np.full(len(a), 2), np.zeros(len(a)), np.ones(len(a))])
    o = np.lexsort((seq, t))
    buf = pd.Categorical.from_codes(codes[o].astype(np.int32),
                                    categories=pd.Index(starts + ends + stats, dtype=str))
    pr = _frame(t[o], {"ip": np.zeros(len(o), np.uint64), "buf": buf},
                cpu[o], pid_of(who[o]), comm_of(who[o]))
    return {"lisa_sim_rtapp_log": log, "print": pr}


def _log_frame(a, t0, comm_of, pid_of) -> pd.DataFrame:
    """The ``lisa_sim_rtapp_log`` frame of the activation rows ``a`` (in that order); ``t0``:
    the first start, in us."""
    from .._kernels import sim_state as ss

    a = _columns(a).T       # each column contiguous (one blocked pass instead of a strided one per column)
    p = a[:, ss.A_TASK]
    us = 1000
    start_us = a[:, ss.A_START] // us
    end_us = a[:, ss.A_END] // us
    period = end_us - start_us
    run = a[:, ss.A_RUN] // us
    p_comm, p_pid = comm_of(p), pid_of(p)
    return _frame(a[:, ss.A_START].copy(), {      # a copy: the frame keeps no view of the transposed table
        "task": p_comm, "thread_idx": p.astype(np.int64), "perf": a[:, ss.A_PERF] // us,
        "run_us": run, "period_us": period, "start_us": start_us, "end_us": end_us,
        "rel_start_us": start_us - t0, "slack_us": a[:, ss.A_SLACK] // us,
        "c_duration_us": a[:, ss.A_CDUR] // us, "c_period_us": a[:, ss.A_CPERIOD] // us,
        "wu_lat_us": a[:, ss.A_WULAT] // us, "overrun": a[:, ss.A_SLACK] < 0,
        "duty_cycle": np.where(period > 0, run / np.maximum(period, 1), np.nan),
        "phase": a[:, ss.A_PHASE].astype(np.int64), "phase_loop": a[:, ss.A_PHASE_LOOP].astype(np.int64),
        "cpu": a[:, ss.A_CPU].astype(np.int64)},
        a[:, ss.A_CPU], p_pid, p_comm)


def _order_by(primary: np.ndarray, secondary: np.ndarray) -> np.ndarray:
    """``np.lexsort((secondary, primary))`` of two non-negative integer columns; as one stable
    sort of the key ``primary * m + secondary`` (``m``: above every secondary value) when it
    fits in 63 bits: the rows come nearly sorted by ``primary`` (the loop's activation log),
    which a stable sort of one key takes in about one pass."""
    if len(primary) and min(primary.min(), secondary.min()) >= 0:
        m = int(secondary.max()) + 1
        if int(primary.max()) < ((1 << 63) - m) // m:
            return np.argsort(primary * m + secondary, kind="stable")
    return np.lexsort((secondary, primary))


def _columns(t: np.ndarray) -> np.ndarray:
    """The (w, n) transpose of the row-major (n, w) table ``t`` (each column contiguous),
    copied a block of rows at a time (a block stays in cache; a column-by-column gather
    over the whole table would read all of it once per column)."""
    n, w = t.shape
    out = np.empty((w, n), t.dtype)
    step = 256
    for i in range(0, n, step):
        out[:, i:i + step] = t[i:i + step].T
    return out


def _dropper(raw):
    """For a run whose event table lives in an output memory map: a function freeing the
    pages wholly inside event rows ``lo:hi`` (``MADV_DONTNEED``: the rows read as zeros
    afterwards); None otherwise."""
    import mmap
    out = getattr(raw, "output", None)
    buf = getattr(out, "buf", None)
    if buf is None or not hasattr(mmap, "MADV_DONTNEED"):
        return None
    base, w8, page = out.base[0] * 8, out.width[0] * 8, mmap.PAGESIZE

    def drop(lo: int, hi: int) -> None:
        a = -(-(base + lo * w8) // page) * page
        b = (base + hi * w8) // page * page
        if b > a:
            try:
                buf.madvise(mmap.MADV_DONTNEED, a, b - a)
            except (OSError, ValueError):
                return
            out.faulted[a // page:b // page] = False
    return drop


_SPLIT_CHUNK_ROWS = 1 << 20


def _rows_by_kind(ev: np.ndarray, kind_col: int, drop=None):
    """``rows_of(kind)``: the rows of ``ev`` of that kind in their order, as a column-major
    array (each column contiguous), from one pass over the rows (``sim_split``). With
    ``drop`` (:func:`_dropper`), the rows are split a chunk at a time and each chunk's memory
    freed once split: the table and its split copy are not held whole at once."""
    from .._kernels.sim_split import split_rows_by_kind
    kind = np.ascontiguousarray(ev[:, kind_col])     # one strided pass, then contiguous ones
    nkinds = int(kind.max()) + 1 if len(kind) else 0
    if len(kind) and kind.min() < 0:
        raise ValueError("negative event kind")
    start = np.zeros(nkinds + 1, np.int64)
    np.cumsum(np.bincount(kind, minlength=nkinds), out=start[1:])
    cols = np.empty((ev.shape[1], len(ev)), ev.dtype)
    if len(ev) and drop is None:
        split_rows_by_kind(ev, kind_col, start, cols)
    elif len(ev):
        fill = start.copy()           # each kind's next free column, then the total
        for lo in range(0, len(ev), _SPLIT_CHUNK_ROWS):
            hi = min(lo + _SPLIT_CHUNK_ROWS, len(ev))
            split_rows_by_kind(ev[lo:hi], kind_col, fill, cols)
            fill[:-1] += np.bincount(kind[lo:hi], minlength=nkinds)
            drop(lo, hi)

    width, dtype = ev.shape[1], ev.dtype       # (the closure keeps no reference to ``ev``)

    def rows_of(k: int) -> np.ndarray:
        if k >= nkinds:
            return np.zeros((0, width), dtype)
        return cols[:, start[k]:start[k + 1]].T
    return rows_of


def _distinct_rows(*columns) -> tuple[list, np.ndarray]:
    """The distinct rows of the integer ``columns`` (as lists, sorted) and each row's index
    in them.

    Each row as one integer key, the mixed-radix number of its columns' ranks (the first
    column most significant: the keys sort as the rows do), then the keys factorized: hashed,
    only the distinct values sorted; ``_distinct_rows_lexsort`` (the same result from a sort
    of every row) when the key would not fit in 62 bits."""
    n = len(columns[0])
    if not n:
        return [], np.zeros(0, np.int64)
    key = np.zeros(n, np.int64)
    size = 1
    for col in columns:
        rank, values = pd.factorize(col, sort=True)
        size *= max(len(values), 1)
        if size > 1 << 62:
            return _distinct_rows_lexsort(*columns)
        key *= len(values)
        key += rank
    code, distinct = pd.factorize(key, sort=True)
    first = np.empty(len(distinct), np.int64)          # each distinct row's first occurrence
    first[code[::-1]] = np.arange(n - 1, -1, -1)
    return np.stack([col[first] for col in columns], axis=1).tolist(), code.astype(np.int64)


def _distinct_rows_lexsort(*columns) -> tuple[list, np.ndarray]:
    """``_distinct_rows`` from a lexicographic sort of the rows."""
    n = len(columns[0])
    if not n:
        return [], np.zeros(0, np.int64)
    order = np.lexsort(columns[::-1])
    first = np.zeros(n, bool)
    first[0] = True
    for col in columns:
        c = col[order]
        first[1:] |= c[1:] != c[:-1]
    code = np.empty(n, np.int64)
    code[order] = np.cumsum(first) - 1
    rows = np.stack([col[order[first]] for col in columns], axis=1)
    return rows.tolist(), code
