"""Probe a board: CPUs, capacities, cpufreq, idle states, energy model, kernel -> Platform.

One shell round trip reads everything (a board over a slow link answers in one go);
missing pieces are reported in :attr:`TargetInfo.notes` and the probe carries on: a
board without cpufreq (a VM) gets a :class:`~lisa_eas.platform.Platform` with no perf
domains, or the bundled platform named by ``platform:`` in the target config.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..platform import Platform, load_platform, platform_from_dict
from ._connection import TargetConnection

__all__ = ["TargetInfo", "build_platform", "platform_from_target_json", "probe"]

_SYS = "/sys/devices/system/cpu"
_EM = "/sys/kernel/debug/energy_model"
_CONFIG_KEYS = re.compile(
    r"^(CONFIG_(SCHED\w*|ENERGY_MODEL|CPU_FREQ\w*|UCLAMP\w*|FAIR_GROUP_SCHED|CGROUP\w*|PSI|HZ(_\d+)?|"
    r"NO_HZ\w*|PREEMPT\w*|FTRACE|FUNCTION_TRACER|TRACING|CPU_IDLE\w*|ARM_\w*CPUIDLE|SMP|NR_CPUS|"
    r"SECURITY_LOCKDOWN_LSM\w*|LOCK_DOWN\w*|DEBUG_FS\w*|SCHEDSTATS|THERMAL\w*))=(.*)$")


@dataclass(frozen=True)
class TargetInfo:
    """What a probe found on a board.

    Attributes
    ----------
    platform : Platform
        Built from the probe (energy model from debugfs, else cpufreq OPPs without
        power, else no perf domains), or the configured platform when the board cannot
        describe itself (see ``platform_source``).
    notes : tuple of str
        What was missing or unreadable, and what was done instead.
    """

    label: str
    kind: str
    kernel_release: str
    kernel_version: str
    machine: str
    hostname: str
    online_cpus: tuple[int, ...]
    cpu_capacity: Mapping[int, int]
    cpufreq_policies: tuple[Mapping[str, Any], ...]
    idle_states: Mapping[int, tuple[Mapping[str, Any], ...]]
    energy_model: Mapping[str, Any] | None
    kernel_config: Mapping[str, str]
    sched_features: str | None
    platform: Platform
    platform_source: str
    notes: tuple[str, ...] = field(default=())

    @property
    def has_cpufreq(self) -> bool:
        return bool(self.cpufreq_policies)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary (for ``target.json`` and ``run.json``)."""
        return {
            "label": self.label, "kind": self.kind, "kernel_release": self.kernel_release,
            "kernel_version": self.kernel_version, "machine": self.machine, "hostname": self.hostname,
            "online_cpus": list(self.online_cpus),
            "cpu_capacity": {str(k): v for k, v in self.cpu_capacity.items()},
            "cpufreq_policies": [dict(p) for p in self.cpufreq_policies],
            "idle_states": {str(k): [dict(s) for s in v] for k, v in self.idle_states.items()},
            "energy_model": self.energy_model, "kernel_config": dict(self.kernel_config),
            "sched_features": self.sched_features,
            "platform": {"name": self.platform.name, "source": self.platform_source,
                         "nr_cpus": self.platform.nr_cpus, "llc_weight": self.platform.llc_weight,
                         "llc_ids": self.platform.llc_ids().tolist(),
                         "perf_domains": [{"name": d.name, "cpus": list(d.cpus),
                                           "freqs_khz": list(d.freqs_khz),
                                           "cpu_capacity_max": d.cpu_capacity_max,
                                           "power_source": d.power_source} for d in
                                          self.platform.perf_domains]},
            "notes": list(self.notes),
        }


def parse_cpulist(text: str) -> tuple[int, ...]:
    """``"0-3,5"`` -> ``(0, 1, 2, 3, 5)``."""
    out: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return tuple(out)


def probe(conn: TargetConnection) -> TargetInfo:
    """Read the board's CPU topology, cpufreq, idle states, energy model and kernel.

    Parameters
    ----------
    conn : TargetConnection

    Returns
    -------
    TargetInfo
        Including a :class:`~lisa_eas.platform.Platform` (same class as the bundled boards).
    """
    script = (
        'p() { for f in "$@"; do [ -f "$f" ] && { printf "@@%s\\n" "$f"; cat "$f" 2>&1; }; done; }; '
        "printf '@@uname\\n'; uname -r; uname -v; uname -m; uname -n; "
        f"p {_SYS}/online {_SYS}/cpu*/cpu_capacity {_SYS}/cpu*/topology/cluster_cpus_list "
        f"{_SYS}/cpu*/cache/index*/level {_SYS}/cpu*/cache/index*/type {_SYS}/cpu*/cache/index*/shared_cpu_list "
        f"{_SYS}/cpu*/cpuidle/state*/name "
        f"{_SYS}/cpu*/cpuidle/state*/latency {_SYS}/cpu*/cpuidle/state*/residency "
        f"{_SYS}/cpu*/cpuidle/state*/disable; "
        f"for d in {_SYS}/cpufreq/policy*; do [ -d \"$d\" ] && p \"$d\"/related_cpus "
        "\"$d\"/scaling_governor \"$d\"/scaling_available_governors \"$d\"/scaling_available_frequencies "
        "\"$d\"/cpuinfo_min_freq \"$d\"/cpuinfo_max_freq \"$d\"/scaling_min_freq \"$d\"/scaling_max_freq "
        "\"$d\"/scaling_cur_freq \"$d\"/scaling_setspeed; done; "
        f"for d in {_EM}/*; do [ -d \"$d\" ] && p \"$d\"/cpus \"$d\"/flags \"$d\"/*/frequency \"$d\"/*/power "
        "\"$d\"/*/cost \"$d\"/*/performance \"$d\"/*/inefficient; done; "
        "p /sys/kernel/debug/sched/features /sys/kernel/debug/sched_features; "
        "printf '@@kconfig\\n'; { zcat /proc/config.gz 2>/dev/null || cat \"/boot/config-$(uname -r)\" "
        "2>/dev/null; } | grep -E '^CONFIG_' || true")
    out = conn.execute(script, what="probing the board (sysfs, cpufreq, energy model)")
    files: dict[str, str] = {}
    key = None
    for line in out.splitlines():
        if line.startswith("@@"):
            key = line[2:]
            files[key] = ""
        elif key is not None:
            files[key] += line + "\n"
    return _build(conn, files)


def _build(conn: TargetConnection, files: dict[str, str]) -> TargetInfo:
    notes: list[str] = []
    un = files.get("uname", "").splitlines() + ["", "", "", ""]
    online = parse_cpulist(files.get(f"{_SYS}/online", "0").strip() or "0")
    caps: dict[int, int] = {}
    idle: dict[int, list[dict]] = {}
    for path, text in files.items():
        m = re.fullmatch(rf"{_SYS}/cpu(\d+)/cpu_capacity", path)
        if m and text.strip().isdigit():
            caps[int(m.group(1))] = int(text)
        m = re.fullmatch(rf"{_SYS}/cpu(\d+)/cpuidle/state(\d+)/(name|latency|residency|disable)", path)
        if m:
            cpu, st, what = int(m.group(1)), int(m.group(2)), m.group(3)
            states = idle.setdefault(cpu, [])
            while len(states) <= st:
                states.append({"index": len(states)})
            v = text.strip()
            states[st][what] = int(v) if v.lstrip("-").isdigit() else v
    if not caps:
        notes.append("no cpu_capacity in sysfs: every CPU taken as capacity 1024")
        caps = {c: 1024 for c in online}
    policies = []
    for path in sorted(p for p in files if re.fullmatch(rf"{_SYS}/cpufreq/policy\d+/related_cpus", p)):
        d = path.rsplit("/", 1)[0]
        get = lambda n: files.get(f"{d}/{n}", "").strip()  # noqa: E731
        freqs = sorted(int(f) for f in get("scaling_available_frequencies").split() if f.isdigit())
        pol = {"policy": d.rsplit("/", 1)[1], "path": d, "cpus": list(parse_cpulist(get("related_cpus"))),
               "governor": get("scaling_governor"),
               "governors": get("scaling_available_governors").split(),
               "frequencies_khz": freqs or [int(x) for x in (get("cpuinfo_min_freq"), get("cpuinfo_max_freq"))
                                            if x.isdigit()],
               "min_khz": _int(get("scaling_min_freq")), "max_khz": _int(get("scaling_max_freq")),
               "cur_khz": _int(get("scaling_cur_freq"))}
        if not freqs:
            notes.append(f"{pol['policy']}: no scaling_available_frequencies; OPPs are only the "
                         f"cpuinfo min/max")
        policies.append(pol)
    if not policies:
        notes.append("no cpufreq policies (no CPU frequency scaling, e.g. a VM): frequency pinning "
                     "is skipped and the platform has no OPP tables")
    em = _energy_model(files)
    feats = None
    for p in ("/sys/kernel/debug/sched/features", "/sys/kernel/debug/sched_features"):
        if p in files:
            text = files[p].strip()
            if "not permitted" in text or "denied" in text:
                notes.append(f"{p} is not readable ({text.splitlines()[0]}; kernel lockdown restricts "
                             f"debugfs)")
            else:
                feats = text
            break
    else:
        notes.append("sched features not readable (debugfs not mounted or no sched/features)")
    kconfig = {}
    for line in files.get("kconfig", "").splitlines():
        m = _CONFIG_KEYS.match(line)
        if m:
            kconfig[m.group(1)] = m.group(4)
    if not files.get("kconfig", "").strip():
        notes.append("kernel config not readable (no /proc/config.gz nor /boot/config-*)")
    llc_groups = _llc_groups(files, online, notes)
    platform, source = build_platform(conn.label, online, caps, policies, em, llc_groups,
                                      conn.config.platform, notes)
    return TargetInfo(
        label=conn.label, kind=conn.config.kind, kernel_release=un[0].strip(), kernel_version=un[1].strip(),
        machine=un[2].strip(), hostname=un[3].strip(), online_cpus=online, cpu_capacity=caps,
        cpufreq_policies=tuple(policies), idle_states={k: tuple(v) for k, v in idle.items()},
        energy_model=em, kernel_config=kconfig, sched_features=feats, platform=platform,
        platform_source=source, notes=tuple(notes))


def _llc_groups(files: dict[str, str], online: tuple[int, ...], notes: list[str]) -> list[list[int]]:
    """Each online CPU's last-level cache siblings (cacheinfo: the shared_cpu_list of its
    highest-level unified cache, what the kernel's ``llc_sibling`` and so ``sd_llc`` follow),
    as groups of CPUs; one group of every online CPU when cacheinfo says nothing usable."""
    best: dict[int, tuple[int, str]] = {}
    for path, text in files.items():
        m = re.fullmatch(rf"{_SYS}/cpu(\d+)/cache/(index\d+)/level", path)
        if not m or not text.strip().isdigit():
            continue
        cpu, index = int(m.group(1)), m.group(2)
        kind = files.get(f"{_SYS}/cpu{cpu}/cache/{index}/type", "").strip()
        if kind in ("Unified", "") and int(text) > best.get(cpu, (0, ""))[0]:
            best[cpu] = (int(text), index)
    groups: dict[tuple[int, ...], None] = {}
    for cpu in online:
        if cpu not in best:
            break
        shared = files.get(f"{_SYS}/cpu{cpu}/cache/{best[cpu][1]}/shared_cpu_list", "").strip()
        groups[tuple(c for c in parse_cpulist(shared or str(cpu)) if c in online)] = None
    flat = sorted(c for g in groups for c in g)
    if len(best) < len(online) or flat != sorted(online):
        notes.append("last-level cache siblings not readable from cacheinfo: one LLC of every online CPU assumed")
        return [list(online)]
    return [list(g) for g in groups]


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _energy_model(files: dict[str, str]) -> dict | None:
    pds: dict[str, dict] = {}
    for path, text in files.items():
        if not path.startswith(_EM + "/"):
            continue
        parts = path[len(_EM) + 1:].split("/")
        pd = pds.setdefault(parts[0], {"states": {}})
        v = text.strip()
        if len(parts) == 2:
            pd[parts[1]] = v
        elif len(parts) == 3 and v.lstrip("-").isdigit():
            pd["states"].setdefault(parts[1], {})[parts[2]] = int(v)
    return pds or None


def build_platform(label: str, online, caps: dict[int, int], policies, em: dict | None, llc_groups,
                   configured: str | None, notes: list[str]) -> tuple[Platform, str]:
    """The :class:`Platform` a probe describes, and where it came from: the debugfs energy
    model, else the cpufreq OPPs (no power), else no perf domains; the configured platform
    when the board has no energy model and the target config names one. Appends to ``notes``."""
    name = f"probed:{label}"
    domains = []
    if em:
        for pd_name, pd in sorted(em.items()):
            cpus = list(parse_cpulist(pd.get("cpus", "")))
            states = sorted((s for s in pd["states"].values() if "frequency" in s),
                            key=lambda s: s["frequency"])
            if not cpus or not states:
                continue
            cap_max = max(caps.get(c, 1024) for c in cpus)
            fmax = states[-1]["frequency"]
            micro = "micro" in pd.get("flags", "").lower() or pd.get("flags", "").strip() in ("1", "0x1")
            opps = [{"freq_khz": s["frequency"],
                     "capacity": max(1, s.get("performance") or cap_max * s["frequency"] // fmax),
                     "power_mw": s["power"] / 1000 if micro else s["power"]} for s in states]
            domains.append({"name": pd_name, "cpus": cpus, "cpu_capacity_max": cap_max, "opps": opps,
                            "power_mw_source": "kernel_em (probed from /sys/kernel/debug/energy_model)"})
        source = "probed: energy model from debugfs"
    elif policies:
        for pol in policies:
            cpus = pol["cpus"]
            freqs = pol["frequencies_khz"]
            if not cpus or not freqs:
                continue
            cap_max = max(caps.get(c, 1024) for c in cpus)
            opps = [{"freq_khz": f, "capacity": max(1, cap_max * f // freqs[-1])} for f in freqs]
            domains.append({"name": pol["policy"], "cpus": cpus, "cpu_capacity_max": cap_max,
                            "opps": opps, "power_mw_source": None})
        notes.append("no energy model in debugfs: OPP capacities are linear in frequency, no power")
        source = "probed: cpufreq OPPs, no energy model"
    else:
        source = "probed: no cpufreq, no perf domains"
    if configured and not em:
        notes.append(f"using the configured platform {configured!r} (the board does not describe "
                     f"its energy model)")
        return load_platform(configured), f"config: {configured}"
    nr = max(online) + 1 if online else 1
    covered = {c for d in domains for c in d["cpus"]}
    if domains and covered != set(range(nr)):
        notes.append(f"perf domains cover CPUs {sorted(covered)} of 0..{nr - 1} (offline CPUs?); "
                     f"platform built without perf domains")
        domains = []
    data = {"name": name, "description": f"probed from {label}", "perf_domains": domains}
    if domains and sorted(c for g in llc_groups for c in g) == list(range(nr)):
        data["llc_groups"] = llc_groups
    else:                                  # no perf domains, or offline CPUs: one LLC
        data["llc_weight"] = nr
    return platform_from_dict(data, source=f"probe of {label}"), source


def platform_from_target_json(path) -> Platform:
    """The probed :class:`Platform` of a ``lisa-eas run`` directory, rebuilt from its
    ``target.json`` (the probe's cpufreq policies, CPU capacities, energy model and LLC ids)
    exactly as :func:`probe` built it during the run.

    Raises
    ------
    PlatformError
        The file is missing, not JSON, or not a probe summary.
    """
    import json
    from pathlib import Path

    from ..errors import PlatformError

    path = Path(path)
    try:
        d = json.loads(path.read_text())
    except OSError as exc:
        raise PlatformError(f"{path}: cannot read the run's probe ({exc.strerror}); give --platform") from None
    except ValueError as exc:
        raise PlatformError(f"{path}: not JSON ({exc}); give --platform") from None
    if not isinstance(d, dict) or "online_cpus" not in d or "cpu_capacity" not in d:
        raise PlatformError(f"{path}: not the probe summary `lisa-eas run` writes (no online_cpus / "
                            f"cpu_capacity); give --platform")
    online = tuple(int(c) for c in d["online_cpus"])
    caps = {int(k): int(v) for k, v in (d.get("cpu_capacity") or {}).items()}
    ids = (d.get("platform") or {}).get("llc_ids") or []
    groups: dict[int, list[int]] = {}
    for cpu, k in enumerate(ids):
        groups.setdefault(int(k), []).append(cpu)
    source = str((d.get("platform") or {}).get("source", ""))
    configured = source[len("config: "):] if source.startswith("config: ") else None
    plat, _ = build_platform(str(d.get("label", "target")), online, caps, list(d.get("cpufreq_policies") or []),
                             d.get("energy_model"), list(groups.values()), configured, [])
    return plat

