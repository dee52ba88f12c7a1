"""The wake-up path around the idle search: ``wake_affine()`` (WA_IDLE / WA_WEIGHT), the
``recent_used_cpu`` rule, and SIS_PROP's ``avg_idle`` / ``wake_avg_idle`` / ``avg_scan_cost``
book-keeping, each in the form of a kernel era (ledger rows ``wakeup-*`` and ``sis-v5.14``).

The numba kernels are in :mod:`lisa_eas._kernels.wake_affine` and :mod:`lisa_eas._kernels.sis`;
the simulator (:mod:`lisa_eas.sim`) runs the same ones.
"""
from __future__ import annotations

from dataclasses import dataclass

from .._era import eras_of, ledger_row, parse_kernel_version
from ..errors import ModelError
from ._validate import era_of, int_scalar

__all__ = ["WAKEUP_ERAS", "RqLoad", "avg_idle_update", "die_imbalance_pct", "recent_used_cpu_after", "sis_prop_account",
           "wake_affine"]

#: Rows ``wakeup-*`` of the era ledger.
WAKEUP_ERAS: tuple[tuple[int, int], ...] = eras_of("wakeup")
_WHAT = "wake_affine()'s WA_IDLE / WA_WEIGHT form (ledger wakeup-v4.14)"


def die_imbalance_pct(era) -> int:
    """``sd_init()``'s ``imbalance_pct`` of the domain above the LLC (DIE, the cross-cluster one of
    a big.LITTLE board): 125 up to v5.9, 117 from v5.10 (ledger ``topology-v5.10``, 2208cdaa56c9
    "sched/fair: Reduce minimal imbalance threshold": every level but SMT gets MC's 117). Read by
    ``wake_affine_weight()`` when the two CPUs share no LLC and by ``find_idlest_group()`` at DIE.

    Examples
    --------
    >>> die_imbalance_pct("v5.9"), die_imbalance_pct("v5.10")
    (125, 117)
    """
    v = parse_kernel_version(era)
    return 117 if v >= ledger_row("topology-v5.10").version else 125


@dataclass(frozen=True)
class RqLoad:
    """What ``wake_affine()`` reads of one runqueue.

    Parameters
    ----------
    idle : bool
        ``available_idle_cpu()``: nothing runs or waits there.
    nr_running : int
        ``rq->nr_running``.
    runnable_load_avg : int
        The root cfs_rq's ``runnable_load_avg`` (the load compared before v5.5).
    load_avg : int
        The root cfs_rq's ``load_avg``, blocked load included (compared from v5.5).
    capacity : int
        ``capacity_of(cpu)``.
    """

    idle: bool
    nr_running: int
    runnable_load_avg: int
    load_avg: int
    capacity: int = 1024


def wake_affine(this: RqLoad, prev: RqLoad, task_load: int, era, *, current_load: int = 0, sync: bool = False,
                share_cache: bool = True, imbalance_pct: int = 117) -> str:
    """``wake_affine(sd, p, this_cpu, prev_cpu, sync)``: ``"this"`` or ``"prev"``.

    ``select_task_rq_fair()`` calls it when the wake-up is done on another CPU than the task's
    previous one (``this_cpu != prev_cpu``) and ``want_affine`` holds; its answer is the idle
    search's target. ``task_load`` / ``current_load``: the wakee's and the waker's
    ``task_h_load`` (their ``load_avg`` without group scheduling); ``imbalance_pct`` the lowest
    domain spanning both CPUs' (117 for an LLC; above it :func:`die_imbalance_pct`: 125, 117 from
    v5.10).

    Examples
    --------
    >>> busy = RqLoad(idle=False, nr_running=1, runnable_load_avg=100, load_avg=100)
    >>> idle_prev = RqLoad(idle=True, nr_running=0, runnable_load_avg=0, load_avg=900)
    >>> wake_affine(busy, idle_prev, 50, "v5.10"), wake_affine(busy, idle_prev, 50, "v5.11")
    ('this', 'prev')
    """
    from .._kernels import wake_affine as kw

    v = era_of(era, WAKEUP_ERAS, _WHAT)
    for name, rq in (("this", this), ("prev", prev)):
        if not isinstance(rq, RqLoad):
            raise ModelError(f"wake_affine: {name} must be an RqLoad, got {type(rq).__name__}")
        for f in ("nr_running", "runnable_load_avg", "load_avg"):
            int_scalar(getattr(rq, f), f"{name}.{f}", lo=0)
        int_scalar(rq.capacity, f"{name}.capacity", lo=1, hi=1 << 20)
    task_load = int_scalar(task_load, "task_load", lo=0)
    current_load = int_scalar(current_load, "current_load", lo=0)
    imbalance_pct = int_scalar(imbalance_pct, "imbalance_pct", lo=100, hi=1000)
    new_load = v >= (5, 5)              # ledger wakeup-v5.5
    tl = this.load_avg if new_load else this.runnable_load_avg
    pl = prev.load_avg if new_load else prev.runnable_load_avg
    mode = kw.WA_V5_11 if v >= (5, 11) else kw.WA_V4_14       # ledger wakeup-v5.11
    r = kw.wake_affine(mode, bool(this.idle), bool(prev.idle), bool(share_cache), bool(sync), this.nr_running, tl,
                       pl, task_load, current_load, this.capacity, prev.capacity, imbalance_pct)
    return "this" if r == kw.WA_THIS else "prev"


def avg_idle_update(avg_idle_ns: int, idle_ns: int, era) -> int:
    """``ttwu_do_wakeup()``'s ``update_avg(&rq->avg_idle, idle time)`` (before the cap at twice
    ``max_idle_balance_cost``): ``>> 3`` up to v5.6, signed ``/ 8`` from v5.7 (ledger wakeup-v5.7).

    >>> avg_idle_update(1_024_000, 1_023_999, "v5.6"), avg_idle_update(1_024_000, 1_023_999, "v5.7")
    (1023999, 1024000)
    """
    from .._kernels.sis import update_avg

    v = era_of(era, WAKEUP_ERAS, _WHAT)
    return int(update_avg(int_scalar(avg_idle_ns, "avg_idle_ns", lo=0), int_scalar(idle_ns, "idle_ns", lo=0),
                          v >= (5, 7)))


def recent_used_cpu_after(path: str, prev: int, recent_used_cpu: int, era) -> int:
    """``p->recent_used_cpu`` after ``select_idle_sibling()`` returned by rule ``path`` (a name of
    :data:`lisa_eas.models.SIS_PATHS`) for a task whose previous CPU is ``prev``: unchanged
    unless the recent CPU won (then prev) in v4.16 - v5.14; prev whenever the target and prev
    checks failed from v5.15 (ledger wakeup-v4.16, wakeup-v5.15). -1 before v4.16 (no such field).

    The v5.7 - v5.9 asymmetric-capacity path returns before the recent check (keep the value).

    >>> recent_used_cpu_after("idle_cpu", 2, 5, "v5.14"), recent_used_cpu_after("idle_cpu", 2, 5, "v5.15")
    (5, 2)
    """
    from .sis import SIS_PATHS

    v = era_of(era, WAKEUP_ERAS, _WHAT)
    if path not in SIS_PATHS:
        raise ModelError(f"recent_used_cpu_after: path {path!r} is not one of {SIS_PATHS}")
    prev = int_scalar(prev, "prev", lo=0)
    recent_used_cpu = int_scalar(recent_used_cpu, "recent_used_cpu", lo=-1)
    if v < (4, 16):
        return -1
    if v >= (5, 15):
        return recent_used_cpu if path in ("target", "prev") else prev
    return prev if path == "recent_used_cpu" else recent_used_cpu


def sis_prop_account(wake_avg_idle_ns: int, avg_scan_cost_ns: int, scan_ns: int, ran_out: bool, era) -> tuple[int, int]:
    """``select_idle_cpu()``'s SIS_PROP accounting after a scan that took ``scan_ns``: the new
    ``(wake_avg_idle, avg_scan_cost)`` of the waking CPU. Nothing when the scan ran out of depth
    (``return -1`` comes first, every era); ``wake_avg_idle`` is reduced by the time from v5.14
    (ledger sis-v5.14), ``avg_scan_cost`` moves by the signed eighth of the difference.

    >>> sis_prop_account(10_000, 4_000, 2_000, False, "v5.15")
    (8000, 3750)
    """
    from .._era import parse_kernel_version
    from .._kernels.sis import update_avg

    era_of(era, WAKEUP_ERAS, _WHAT)
    v = parse_kernel_version(era)          # sis-v5.14 is a row of the "sis" area
    w = int_scalar(wake_avg_idle_ns, "wake_avg_idle_ns", lo=0)
    c = int_scalar(avg_scan_cost_ns, "avg_scan_cost_ns", lo=0)
    t = int_scalar(scan_ns, "scan_ns", lo=0)
    if ran_out:
        return w, c
    if v >= (5, 14):
        w -= min(w, t)
    return w, int(update_avg(c, t, True))
