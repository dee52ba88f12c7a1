"""Prepare a board for a quiet, repeatable run, and put it back afterwards.

* :func:`pin_frequencies` — per cpufreq policy, a governor and a fixed frequency
  (``userspace`` + ``scaling_setspeed`` when offered, otherwise ``scaling_min_freq =
  scaling_max_freq``). Boards without cpufreq are reported and left alone.
* :func:`freeze_userspace` — move user-space tasks (all but a keep-list) into a cgroup
  freezer group and freeze it (cgroup v1 ``freezer.state`` or v2 ``cgroup.freeze``).

Each returns a :class:`Preparation` whose :meth:`~Preparation.restore` undoes exactly
what was done (governors, limits, thawing and moving the tasks back).
"""
from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass, field

from ..errors import PermanentBoardError
from ._connection import TargetConnection
from ._probe import TargetInfo

__all__ = ["DEFAULT_KEEP", "Preparation", "freeze_userspace", "pin_frequencies"]

log = logging.getLogger(__name__)

#: Task names never frozen: init, the login/adb daemons that carry the connection, the
#: shells and the tools of the run itself.
DEFAULT_KEEP = ("init", "systemd", "systemd-journal", "sshd", "sshd-session", "adbd", "sh", "bash",
                "dash", "busybox", "rt-app", "trace-cmd", "python", "python3", "logd", "servicemanager",
                "hwservicemanager", "ueventd", "watchdogd", "kthreadd")

_GROUP = "lisa_eas_frozen"


@dataclass
class Preparation:
    """What a preparation step changed, and how to undo it."""

    conn: TargetConnection
    restore_commands: list[str] = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def restore(self) -> None:
        """Undo the changes (in reverse order); safe to call twice."""
        cmds, self.restore_commands = self.restore_commands, []
        if cmds:
            self.conn.execute("; ".join(f"{{ {c}; }} 2>/dev/null" for c in reversed(cmds)) + "; true",
                              what="restoring the board's settings")

    def __enter__(self) -> "Preparation":
        return self

    def __exit__(self, *exc) -> None:
        self.restore()


def pin_frequencies(conn: TargetConnection, info: TargetInfo, freq_khz: int | str = "max") -> Preparation:
    """Pin every cpufreq policy to one frequency.

    Parameters
    ----------
    conn : TargetConnection
    info : TargetInfo
        From :func:`~lisa_eas.target.probe` (lists the policies and their OPPs).
    freq_khz : int or "max" or "min"
        The frequency; an int must be one of the policy's OPPs.

    Returns
    -------
    Preparation
        ``summary`` maps policy -> pinned frequency; ``notes`` says when the board
        has no cpufreq (nothing is done then).
    """
    prep = Preparation(conn)
    if not info.cpufreq_policies:
        prep.notes.append("no cpufreq on this board: frequency pinning skipped")
        return prep
    cmds = []
    for pol in info.cpufreq_policies:
        d, freqs = pol["path"], pol["frequencies_khz"]
        if freq_khz == "max":
            f = max(freqs)
        elif freq_khz == "min":
            f = min(freqs)
        elif isinstance(freq_khz, int) and freq_khz in freqs:
            f = freq_khz
        else:
            raise PermanentBoardError(f"{conn.label}: {pol['policy']} has no OPP {freq_khz!r} kHz "
                                      f"(OPPs: {freqs}). Fix: pick one of them, 'max' or 'min'")
        q = lambda name: shlex.quote(f"{d}/{name}")  # noqa: E731
        lo, hi = pol.get("min_khz"), pol.get("max_khz")
        if pol["governor"]:
            prep.restore_commands.append(f"printf '%s\\n' {shlex.quote(pol['governor'])} > {q('scaling_governor')}")
        if lo is not None and hi is not None:
            # widen first so any order of min/max writes is accepted, then the saved limits
            prep.restore_commands.append(
                f"printf '%s\\n' {max(freqs)} > {q('scaling_max_freq')}; "
                f"printf '%s\\n' {lo} > {q('scaling_min_freq')}; printf '%s\\n' {hi} > {q('scaling_max_freq')}")
        if "userspace" in pol["governors"]:
            cmds.append(f"printf 'userspace\\n' > {q('scaling_governor')} && "
                        f"printf '%s\\n' {f} > {q('scaling_setspeed')}")
        else:
            cmds.append(f"printf '%s\\n' {max(freqs)} > {q('scaling_max_freq')} && "
                        f"printf '%s\\n' {f} > {q('scaling_min_freq')} && "
                        f"printf '%s\\n' {f} > {q('scaling_max_freq')}")
        prep.summary[pol["policy"]] = f
    try:
        conn.execute(" && ".join(cmds), what="pinning CPU frequencies",
                     fix="run as root; some boards' firmware refuses userspace frequency control")
    except BaseException:
        prep.restore()
        raise
    return prep


def freeze_userspace(conn: TargetConnection, keep: tuple[str, ...] = DEFAULT_KEEP,
                     pids: tuple[int, ...] | None = None) -> Preparation:
    """Freeze user-space tasks (all but ``keep``) in a cgroup freezer group.

    Parameters
    ----------
    conn : TargetConnection
    keep : tuple of str
        Task names (``/proc/PID/comm``) left running. The shell running the command and
        its ancestors (the connection) are always kept, as are kernel threads.
    pids : tuple of int, optional
        Only consider these PIDs (freeze one application, or a test's own process).

    Returns
    -------
    Preparation
        ``summary["frozen"]`` lists the frozen PIDs; ``restore()`` thaws them and moves
        them back to their original groups.
    """
    mounts = conn.execute("cat /proc/mounts", what="finding the cgroup freezer")
    v1 = v2 = None
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] == "cgroup" and "freezer" in parts[3].split(","):
            v1 = parts[1]
        elif len(parts) >= 3 and parts[2] == "cgroup2" and v2 is None:
            v2 = parts[1]
    root = v1 or v2
    if root is None:
        raise PermanentBoardError(f"{conn.label}: no cgroup freezer is mounted. Fix: mount -t cgroup -o "
                                  f"freezer freezer /sys/fs/cgroup/freezer (v1) or mount cgroup2")
    want = " ".join(str(int(p)) for p in pids) if pids is not None else ""
    # One pass on the target: the keep-chain (this shell and its ancestors), then each
    # user-space task with its current group in the freezer hierarchy.
    script = (
        "p=$$; chain=\" $$ \"; while [ \"$p\" -gt 1 ] 2>/dev/null; do "
        "p=$(awk '{print $4}' /proc/$p/stat 2>/dev/null || echo 1); chain=\"$chain$p \"; done; "
        f"for d in {('/proc/' + ' /proc/'.join(want.split())) if want else '/proc/[0-9]*'}; do "
        "pid=${d#/proc/}; [ -r \"$d/cmdline\" ] || continue; "
        "[ -e \"$d/exe\" ] || continue; case \"$chain\" in *\" $pid \"*) continue;; esac; "
        "cg=$(grep -E '" + (":freezer:" if v1 else "^0::") + "' \"$d/cgroup\" 2>/dev/null | "
        "head -n1 | cut -d: -f3-); printf '%s\\t%s\\t%s\\n' \"$pid\" \"$cg\" \"$(cat \"$d/comm\")\"; done")
    out = conn.execute(script, what="listing user-space tasks")
    keep_set = set(keep)
    tasks = []
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or not parts[0].isdigit() or parts[2] in keep_set:
            continue
        if parts[1].startswith("/" + _GROUP):
            continue
        tasks.append((int(parts[0]), parts[1] or "/", parts[2]))
    prep = Preparation(conn)
    group = f"{root}/{_GROUP}"
    qg = shlex.quote(group)
    procs = "cgroup.procs"
    freeze_cmd = (f"printf 'FROZEN\\n' > {qg}/freezer.state" if v1 else f"printf '1\\n' > {qg}/cgroup.freeze")
    thaw_cmd = (f"printf 'THAWED\\n' > {qg}/freezer.state" if v1 else f"printf '0\\n' > {qg}/cgroup.freeze")
    prep.restore_commands.append(f"rmdir {qg}")
    for pid, cg, _ in tasks:
        dest = shlex.quote(f"{root}{cg.rstrip('/')}/{procs}" if cg != "/" else f"{root}/{procs}")
        prep.restore_commands.append(f"printf '%s\\n' {pid} > {dest}")
    prep.restore_commands.append(thaw_cmd)
    moves = "; ".join(f"printf '%s\\n' {pid} > {qg}/{procs} 2>/dev/null" for pid, _, _ in tasks)
    try:
        conn.execute(f"mkdir -p {qg} && {{ {moves or 'true'}; }} ; {freeze_cmd}",
                     what="freezing user-space tasks", fix="run as root with the cgroup freezer mounted")
    except BaseException:
        prep.restore()
        raise
    prep.summary = {"frozen": [p for p, _, _ in tasks], "cgroup": group, "version": 1 if v1 else 2,
                    "kept": sorted(keep_set)}
    log.info("%s: froze %d user-space tasks", conn.label, len(tasks))
    return prep
