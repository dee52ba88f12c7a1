"""The published experiments' rt-app workloads, built with the :mod:`lisa_eas.rtapp` builders.

``workloads/generate.py`` writes these to the files under ``workloads/``;
``tests/test_rtapp_workloads.py`` checks the committed files equal what these build. Built
in code so an installed package needs no file from the source tree.
"""
from __future__ import annotations

from functools import lru_cache

__all__ = ["SCHEDFREQ_CASES", "biggest_cpu", "eas_rfc_energy", "eas_speedup_ramp", "ramp_boost_step", "smoke_local",
           "schedfreq_case"]

#: The 16 sched-freq cases (busy ms, idle ms, loops), Muckle, Linaro Connect BKK16-104 (2016).
SCHEDFREQ_CASES = (
    (1, 100, 100), (10, 1000, 10), (1, 10, 1000), (10, 100, 100), (100, 1000, 10),
    (6, 33, 300), (66, 333, 30), (4, 10, 1000), (40, 100, 100), (400, 1000, 10),
    (5, 9, 1000), (50, 90, 100), (500, 900, 10), (9, 12, 1000), (90, 120, 100),
    (900, 1200, 10),
)


@lru_cache(maxsize=None)
def biggest_cpu(board: str) -> int:
    """Lowest-numbered CPU of the highest capacity on ``board``."""
    from ..platform import load_platform

    plat = load_platform(board)
    return min(range(plat.nr_cpus), key=lambda c: (-plat.cpu_capacity(c), c))


def eas_speedup_ramp():
    """eb92692b: one periodic task, 16 ms period, 70 % -> 10 % in 5 % steps of 500 ms."""
    from ..rtapp import ramp, task, workload

    return workload([task("ramp", ramp(70, 10, -5, period_ms=16, step_s=0.5))],
                    calibration=f"CPU{biggest_cpu('pixel3')}")


def ramp_boost_step():
    """Ramp-boost RFC: one task pinned on a big CPU, 0.3 s at 5 % then 0.3 s at 75 %, 20 cycles."""
    from ..rtapp import step, task, workload

    cpu = biggest_cpu("pixel3")
    return workload([task("step", step(5, 75, period_ms=16, low_s=0.3), loop=20, cpus=(cpu,))],
                    calibration=f"CPU{cpu}")


def eas_rfc_energy(board: str, n: int):
    """EAS RFC v2: N periodic tasks, 16 ms period, 5 % duty cycle, 30 s."""
    from ..rtapp import identical_tasks, periodic, workload

    return workload(identical_tasks(n, "small", periodic(16, 5, duration_s=30)),
                    calibration=f"CPU{biggest_cpu(board)}")


def schedfreq_case(busy_ms: int, idle_ms: int, loops: int, rt: bool, warmup_ms: int = 0):
    """BKK16-104: ``busy_ms`` of work then a timer of busy + idle, ``loops`` times; FIFO if ``rt``.

    ``warmup_ms`` > 0 (on/off experiments only): a SCHED_OTHER task ``warm`` first runs flat out
    for ``warmup_ms`` on the CPU task ``sf`` is started on (the biggest), and ``sf`` starts when it
    ends, so the first activation meets a policy a governor has just seen busy instead of an
    idle one. Its log rows carry ``task == "warm"``."""
    from ..rtapp import Policy, periodic, task, workload

    period = busy_ms + idle_ms
    phases = periodic(period, 100.0 * busy_ms / period, loops=loops, name="busy_idle")
    cpu = biggest_cpu("peach_pi")
    if warmup_ms <= 0:
        t = task("sf", phases, policy=Policy.FIFO if rt else None)
        return workload([t], calibration=f"CPU{cpu}")
    t = task("sf", phases, policy=Policy.FIFO if rt else None, delay_us=warmup_ms * 1000)
    warm = task("warm", periodic(warmup_ms, 100.0, loops=1, name="warm"), cpus=(cpu,))
    return workload([warm, t], calibration=f"CPU{cpu}")


def smoke_local():
    """The local smoke workload (``workloads/smoke_local.json``): ~2 s on a small machine."""
    from ..rtapp import periodic, ramp, task, workload

    per = periodic(16, 25, duration_s=2.0, name="dc25")
    rmp = ramp(10, 50, 20, period_ms=16, step_s=0.64)
    return workload([task("smk_per", per), task("smk_rmp", rmp)], calibration=20)
