"""Target configuration files (``target_configs/*.yml``) as frozen dataclasses.

A target file says how to reach a board (``kind: local | linux | android``), where
to work on it, where rt-app lives and how to trace. It is read with
``yaml.safe_load`` semantics (no Python object tags), every key is checked, and an
error names the file, the line and the fix.

Secrets (``password``) and key paths (``key_file``) are kept out of ``repr()`` and out
of :meth:`TargetConfig.describe`, which is what logs, exceptions and ``run.json`` use.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from ..errors import ConfigError

__all__ = ["TargetConfig", "TracingConfig", "load_target_config", "target_config_from_dict"]

KINDS = ("local", "linux", "android")
TRACE_CLOCKS = ("mono", "mono_raw", "local", "global", "boot", "perf", "uptime", "counter", "x86-tsc", "tai")
EXTRACT_MODES = ("auto", "trace-cmd", "raw")

#: Events recorded when a config does not list any: enough for the scheduler analyses
#: and the rt-app markers (``print`` needs no enabling: markers are always recorded).
DEFAULT_EVENTS = (
    "sched:sched_switch",
    "sched:sched_wakeup",
    "sched:sched_wakeup_new",
    "sched:sched_waking",
    "sched:sched_migrate_task",
    "sched:sched_process_exit",
    "power:cpu_idle",
    "power:cpu_frequency",
)


#: The kernel signals the BPF collector can record (``kernel_signals`` option).
KERNEL_SIGNALS = ("pelt_se", "pelt_cfs", "pelt_rt", "pelt_dl", "pelt_irq", "util_est_se", "util_est_cfs",
                  "overutilized", "cpu_capacity")
_SIGNALS_KEYS = ("signals", "task_only", "root_only", "pids", "ringbuf_kb", "optional")


@dataclass(frozen=True)
class SignalsConfig:
    """What the kernel-signals collector (BPF on the bare scheduler tracepoints) records.

    Attributes
    ----------
    signals : tuple of str
        Among :data:`KERNEL_SIGNALS` (default: all nine).
    task_only : bool
        ``pelt_se`` / ``util_est_se``: tasks only, no group entities.
    root_only : bool
        ``pelt_cfs`` / ``util_est_cfs``: the CPUs' root cfs_rq only.
    pids : tuple of int
        Only these tasks' entity records (CPU-level signals are then left out).
    ringbuf_kb : int
        BPF ring buffer size (a power of two, KiB); drops are counted per CPU.
    optional : bool
        When the collector cannot run here, go on without it (noted in ``run.json``)
        instead of failing the run.
    """

    signals: tuple[str, ...] = KERNEL_SIGNALS
    task_only: bool = False
    root_only: bool = False
    pids: tuple[int, ...] = ()
    ringbuf_kb: int = 16384
    optional: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"signals": list(self.signals), "task_only": self.task_only, "root_only": self.root_only,
                "pids": list(self.pids), "ringbuf_kb": self.ringbuf_kb, "optional": self.optional}


def signals_config(raw: Any, where: str = "kernel_signals") -> SignalsConfig | None:
    """A :class:`SignalsConfig` from YAML/CLI/API forms: None/False (off), True or ``"all"``
    (every signal), a list or comma-separated string of signal names, a mapping of
    :class:`SignalsConfig` fields, or a SignalsConfig.

    Raises
    ------
    ConfigError
        An unknown signal or option, or a bad value, named with ``where``.
    """
    if raw is None or raw is False:
        return None
    if isinstance(raw, SignalsConfig):
        return raw
    if raw is True:
        return SignalsConfig()
    if isinstance(raw, (str, list, tuple)):
        raw = {"signals": raw}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be true, a list of signals ({', '.join(KERNEL_SIGNALS)}) or a "
                          f"mapping ({', '.join(_SIGNALS_KEYS)}), got {raw!r}")
    unknown = sorted(set(map(str, raw)) - set(_SIGNALS_KEYS))
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]} is not a kernel_signals setting; known: {', '.join(_SIGNALS_KEYS)}")
    kw: dict[str, Any] = {}
    sig = raw.get("signals")
    if sig is not None:
        names = sig.replace(",", " ").split() if isinstance(sig, str) else list(sig)
        if names in (["all"], ["true"]):
            names = list(KERNEL_SIGNALS)
        bad = [n for n in names if n not in KERNEL_SIGNALS]
        if bad or not names:
            raise ConfigError(f"{where}: unknown signal {bad[0] if bad else '(none given)'!r}; known: "
                              f"{', '.join(KERNEL_SIGNALS)} (or 'all')")
        kw["signals"] = tuple(dict.fromkeys(names))
    for key in ("task_only", "root_only", "optional"):
        if raw.get(key) is not None:
            if not isinstance(raw[key], bool):
                raise ConfigError(f"{where}.{key} must be true or false, got {raw[key]!r}")
            kw[key] = raw[key]
    if raw.get("pids") is not None:
        pids = raw["pids"]
        if not isinstance(pids, (list, tuple)) or not all(isinstance(p, int) and p > 0 for p in pids):
            raise ConfigError(f"{where}.pids must be a list of positive integers, got {pids!r}")
        kw["pids"] = tuple(pids)
    if raw.get("ringbuf_kb") is not None:
        rb = raw["ringbuf_kb"]
        if not isinstance(rb, int) or isinstance(rb, bool) or rb < 64 or rb & (rb - 1) or rb > 1 << 21:
            raise ConfigError(f"{where}.ringbuf_kb must be a power of two from 64 to 2097152 (KiB), got {rb!r}")
        kw["ringbuf_kb"] = rb
    return SignalsConfig(**kw)


@dataclass(frozen=True)
class TracingConfig:
    """How the tracefs collector records.

    Attributes
    ----------
    events : tuple of str
        ``system:event`` names (``sched:sched_switch``) or whole systems (``sched:*``).
        Events the kernel lacks are skipped and reported, not fatal.
    buffer_size_kb : int
        Per-CPU ring buffer size. The buffer is a snapshot: size it for the whole run.
    clock : str
        ``trace_clock``; ``mono`` (default) lines the trace up with rt-app's logs.
    instance : str or None
        A tracefs instance name, or None for the top-level buffer. rt-app 1.0 writes its
        markers to the top-level ``trace_marker`` only, so markers need ``None``.
    extract : str
        ``auto`` (``trace-cmd extract`` when the target has it, otherwise raw pages),
        ``trace-cmd`` or ``raw`` (read ``trace_pipe_raw`` and write trace.dat on the host).
    tracefs : str or None
        Where tracefs is mounted on the target; None finds it (``/sys/kernel/tracing``,
        then ``/sys/kernel/debug/tracing``) and mounts it when needed.
    kernel_signals : SignalsConfig or None
        Record the kernel's PELT/util_est/overutilized/capacity signals with the BPF
        collector during runs (YAML: ``kernel_signals: true``, a list of signals, or a
        mapping of :class:`SignalsConfig` fields). None: off.
    """

    events: tuple[str, ...] = DEFAULT_EVENTS
    buffer_size_kb: int = 65536
    clock: str = "mono"
    instance: str | None = None
    extract: str = "auto"
    tracefs: str | None = None
    kernel_signals: SignalsConfig | None = None


@dataclass(frozen=True)
class TargetConfig:
    """One board: how to connect, where to work, rt-app and tracing settings.

    Build it with :func:`load_target_config` (from YAML) or :func:`target_config_from_dict`.
    ``password`` and ``key_file`` are excluded from ``repr`` and from :meth:`describe`.
    """

    kind: str
    name: str = ""
    host: str | None = None
    port: int | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    key_file: str | None = field(default=None, repr=False)
    strict_host_check: bool = True
    adb_serial: str | None = None
    adb_server: str | None = None
    working_directory: str = "/tmp/lisa-eas-target"
    rtapp_path: str = "rt-app"
    rtapp_install: str | None = None
    rtapp_calibration: int | None = None
    platform: str | None = None
    connect_timeout_s: float = 15.0
    command_timeout_s: float = 60.0
    tracing: TracingConfig = TracingConfig()
    source: str = "<dict>"
    #: What translating a LISA target_conf.yml left out (empty for our own files).
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """A short name for messages: ``name`` or ``kind:host:port`` / ``android:serial``."""
        if self.name:
            return self.name
        if self.kind == "linux":
            return f"linux:{self.username}@{self.host}:{self.port}"
        if self.kind == "android":
            return f"android:{self.adb_serial or 'default device'}"
        return "local"

    def describe(self) -> dict[str, Any]:
        """The config as a JSON-able dict WITHOUT secrets (no password, no key path).

        This is what goes into logs, exception messages and ``run.json``.
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ("password", "key_file"):
                continue
            if f.name == "notes":
                v = list(v)
            if f.name == "tracing":
                v = {g.name: (list(getattr(v, g.name)) if g.name == "events" else getattr(v, g.name))
                     for g in fields(v)}
                if v["kernel_signals"] is not None:
                    v["kernel_signals"] = v["kernel_signals"].to_dict()
            out[f.name] = v
        out["auth"] = ("password" if self.password is not None
                       else "key file" if self.key_file is not None else "default")
        return out


def load_target_config(path: str | os.PathLike) -> TargetConfig:
    """Read a target YAML file (``target_configs/local.yml``) into a :class:`TargetConfig`.

    Parameters
    ----------
    path : str or path-like
        The YAML file. ``key_file`` and ``rtapp_install`` paths in it are resolved
        relative to the file's directory; ``~`` is expanded.

    Returns
    -------
    TargetConfig

    Raises
    ------
    ConfigError
        Unreadable file, invalid YAML (with line and column), unknown key (with the
        known ones), wrong type or value (with the field and the fix).
    """
    import yaml

    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read target config ({exc.strerror}); "
                          f"give the path of a YAML file like target_configs/local.yml") from exc
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ConfigError(f"{where}: invalid YAML ({getattr(exc, 'problem', None) or exc})") from exc
    from ._lisa_conf import LISA_TOP_KEY, is_lisa_target_conf, translate_lisa_target_conf

    if is_lisa_target_conf(data):  # LISA's target_conf.yml: translated, with notes
        ours, notes, origin = translate_lisa_target_conf(data)
        lines = {}
        for k, v in node.value if isinstance(node, yaml.MappingNode) else ():
            if str(k.value) == LISA_TOP_KEY and isinstance(v, yaml.MappingNode):
                at = {str(k2.value): k2.start_mark.line + 1 for k2, _ in v.value}
                lines = {key: at[lisa] for key, lisa in origin.items() if lisa in at}
        cfg = target_config_from_dict(ours, source=f"{path} (LISA {LISA_TOP_KEY})", base_dir=path.parent,
                                      lines=lines)
        return replace(cfg, notes=tuple(notes))
    lines = {}
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            lines[str(k.value)] = k.start_mark.line + 1
            if str(k.value) == "tracing" and isinstance(v, yaml.MappingNode):
                for k2, _ in v.value:
                    lines[f"tracing.{k2.value}"] = k2.start_mark.line + 1
    return target_config_from_dict(data, source=str(path), base_dir=path.parent, lines=lines)


_TOP_KEYS = {f.name for f in fields(TargetConfig)} - {"source", "notes"}
_TRACING_KEYS = {f.name for f in fields(TracingConfig)}


def target_config_from_dict(data: Mapping[str, Any], *, source: str = "<dict>",
                            base_dir: str | os.PathLike | None = None,
                            lines: Mapping[str, int] | None = None) -> TargetConfig:
    """Validate a mapping (the YAML layout) and build a :class:`TargetConfig`.

    Parameters
    ----------
    data : mapping
        Keys as in ``target_configs/*.yml``.
    source : str
        Name used in error messages (the file path).
    base_dir : path-like, optional
        Directory that relative ``key_file`` / ``rtapp_install`` paths are relative to.
    lines : mapping, optional
        Key -> line number, for error messages.
    """
    lines = lines or {}

    def where(key: str) -> str:
        line = lines.get(key)
        return f"{source}:{line}: '{key}'" if line else f"{source}: '{key}'"

    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: the top level must be a mapping of keys (kind: local, ...), "
                          f"got {type(data).__name__}")
    unknown = sorted(set(map(str, data)) - _TOP_KEYS)
    if unknown:
        raise ConfigError(f"{where(unknown[0])} is not a target setting; known keys: "
                          f"{', '.join(sorted(_TOP_KEYS))}")
    kind = data.get("kind")
    if kind not in KINDS:
        raise ConfigError(f"{where('kind')} must be one of {', '.join(KINDS)}, got {kind!r}")

    def get(key, typ, default=None, *, check=None, hint=""):
        if key not in data or data[key] is None:
            return default
        val = data[key]
        if typ is float and isinstance(val, int) and not isinstance(val, bool):
            val = float(val)
        if not isinstance(val, typ) or (typ is not bool and isinstance(val, bool)):
            raise ConfigError(f"{where(key)} must be {typ.__name__}, got {val!r}{hint}")
        if check is not None and not check(val):
            raise ConfigError(f"{where(key)} has an invalid value {val!r}{hint}")
        return val

    def path_of(key):
        val = get(key, str)
        if val is None:
            return None
        p = Path(os.path.expanduser(val))
        if not p.is_absolute() and base_dir is not None:
            p = Path(base_dir) / p
        return str(p)

    kw: dict[str, Any] = dict(
        kind=kind,
        name=get("name", str, ""),
        host=get("host", str),
        port=get("port", int, check=lambda v: 0 < v < 65536, hint="; a TCP port is 1..65535"),
        username=get("username", str),
        password=get("password", str),
        key_file=path_of("key_file"),
        strict_host_check=get("strict_host_check", bool, True),
        adb_serial=get("adb_serial", str),
        adb_server=get("adb_server", str),
        working_directory=get("working_directory", str,
                              "/data/local/tmp/lisa-eas-target" if kind == "android" else "/tmp/lisa-eas-target",
                              check=lambda v: v.startswith("/"), hint="; give an absolute path"),
        rtapp_path=get("rtapp_path", str, "rt-app", check=bool),
        rtapp_install=path_of("rtapp_install"),
        rtapp_calibration=get("rtapp_calibration", int, check=lambda v: v > 0,
                              hint="; rt-app's calibration is ns per loop (pLoad), > 0"),
        platform=get("platform", str),
        connect_timeout_s=get("connect_timeout_s", float, 15.0, check=lambda v: v > 0),
        command_timeout_s=get("command_timeout_s", float, 60.0, check=lambda v: v > 0),
        source=source,
    )
    if "tracing" in data and data["tracing"] is not None:
        kw["tracing"] = _tracing(data["tracing"], where)
    if kind == "linux":
        if not kw["host"]:
            raise ConfigError(f"{where('host')} is required for kind: linux (the board's address)")
        kw["port"] = kw["port"] or 22
        kw["username"] = kw["username"] or "root"
        if kw["password"] is not None and kw["key_file"] is not None:
            raise ConfigError(f"{where('password')}: give either password or key_file, not both")
    else:
        for key in ("host", "port", "username", "password", "key_file"):
            if data.get(key) is not None:
                raise ConfigError(f"{where(key)} only applies to kind: linux (SSH); remove it or "
                                  f"change 'kind'")
    if kind != "android":
        for key in ("adb_serial", "adb_server"):
            if data.get(key) is not None:
                raise ConfigError(f"{where(key)} only applies to kind: android; remove it or change 'kind'")
    return TargetConfig(**kw)


def _tracing(raw: Any, where) -> TracingConfig:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where('tracing')} must be a mapping (events, buffer_size_kb, clock, "
                          f"instance, extract, tracefs)")
    unknown = sorted(set(map(str, raw)) - _TRACING_KEYS)
    if unknown:
        raise ConfigError(f"{where('tracing.' + unknown[0])} is not a tracing setting; known: "
                          f"{', '.join(sorted(_TRACING_KEYS))}")
    kw: dict[str, Any] = {}
    if raw.get("events") is not None:
        ev = raw["events"]
        if isinstance(ev, str):
            ev = ev.split()
        if not isinstance(ev, list) or not all(isinstance(e, str) and _valid_event(e) for e in ev):
            raise ConfigError(f"{where('tracing.events')} must be a list of 'system:event' names "
                              f"(sched:sched_switch, sched:*), got {raw['events']!r}")
        kw["events"] = tuple(ev)
    if raw.get("buffer_size_kb") is not None:
        b = raw["buffer_size_kb"]
        if not isinstance(b, int) or isinstance(b, bool) or b < 4:
            raise ConfigError(f"{where('tracing.buffer_size_kb')} must be an integer >= 4 (KiB per CPU), "
                              f"got {b!r}")
        kw["buffer_size_kb"] = b
    if raw.get("clock") is not None:
        if raw["clock"] not in TRACE_CLOCKS:
            raise ConfigError(f"{where('tracing.clock')} must be one of {', '.join(TRACE_CLOCKS)}, "
                              f"got {raw['clock']!r} (mono lines traces up with rt-app logs)")
        kw["clock"] = raw["clock"]
    if raw.get("instance") is not None:
        inst = raw["instance"]
        if not isinstance(inst, str) or not inst or "/" in inst or inst in (".", ".."):
            raise ConfigError(f"{where('tracing.instance')} must be a plain directory name, got {inst!r}")
        kw["instance"] = inst
    if raw.get("extract") is not None:
        if raw["extract"] not in EXTRACT_MODES:
            raise ConfigError(f"{where('tracing.extract')} must be one of {', '.join(EXTRACT_MODES)}, "
                              f"got {raw['extract']!r}")
        kw["extract"] = raw["extract"]
    if raw.get("tracefs") is not None:
        tfs = raw["tracefs"]
        if not isinstance(tfs, str) or not tfs.startswith("/"):
            raise ConfigError(f"{where('tracing.tracefs')} must be an absolute target path, got {tfs!r}")
        kw["tracefs"] = tfs.rstrip("/") or "/"
    if raw.get("kernel_signals") is not None:
        kw["kernel_signals"] = signals_config(raw["kernel_signals"], where("tracing.kernel_signals"))
    return TracingConfig(**kw)


def _valid_event(name: str) -> bool:
    sys_, sep, ev = name.partition(":")
    ok = lambda s: bool(s) and all(c.isalnum() or c in "_*" for c in s)  # noqa: E731
    return bool(sep) and ok(sys_) and ok(ev)
