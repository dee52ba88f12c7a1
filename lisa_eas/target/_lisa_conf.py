"""LISA's ``target_conf.yml`` (top-level key ``target-conf``) translated into ours.

LISA users keep one YAML file per board. :func:`load_target_config` recognises that layout
and translates it key by key (``keyfile`` -> ``key_file``, ``workdir`` ->
``working_directory``, ``device`` -> ``adb_serial``, ``kind: host`` -> ``kind: local`` ...);
what has no counterpart here (devlib modules, kernel sources, the boot check, tools to
install...) is left out and each omission is written in ``TargetConfig.notes``, which
``lisa-eas target`` prints and ``run.json`` keeps.
"""
from __future__ import annotations

from typing import Any, Mapping

__all__ = ["LISA_TOP_KEY", "is_lisa_target_conf", "translate_lisa_target_conf"]

#: The top-level key of a LISA target configuration file.
LISA_TOP_KEY = "target-conf"

_KINDS = {"linux": "linux", "android": "android", "host": "local"}

# LISA key -> our key (same meaning).
_SAME = {"name": "name", "username": "username", "password": "password", "port": "port",
         "keyfile": "key_file", "strict-host-check": "strict_host_check", "workdir": "working_directory"}

_WHY = {
    "tools": "tools to install: lisa-eas pushes only rt-app (set rtapp_install to a binary for the board)",
    "lazy-platinfo": "lisa-eas probes the board when asked (lisa-eas target probe)",
    "kernel": "kernel sources / modules: lisa-eas loads no kernel module",
    "wait-boot": "no boot check: the board must be up when lisa-eas connects",
    "devlib": "devlib settings (platform class, excluded modules, file transfer, max-async) use "
              "lisa-eas's defaults; give `platform:` to pick a bundled board model",
}


def is_lisa_target_conf(data: Any) -> bool:
    """True when ``data`` (a parsed YAML document) is in LISA's layout."""
    return isinstance(data, Mapping) and LISA_TOP_KEY in data


def translate_lisa_target_conf(data: Mapping[str, Any]) -> tuple[dict, list[str], dict[str, str]]:
    """Our target mapping for a LISA document, the notes on what was left out, and the key map.

    Returns
    -------
    (dict, list of str, dict)
        The mapping for :func:`target_config_from_dict`; one sentence per LISA setting not
        carried over; our key -> the LISA key it came from (for error messages).
    """
    conf = data.get(LISA_TOP_KEY) or {}
    if not isinstance(conf, Mapping):
        conf = {}
    out: dict[str, Any] = {}
    origin: dict[str, str] = {}
    notes = [f"translated from LISA's {LISA_TOP_KEY} layout"]
    kind = conf.get("kind", "linux")
    out["kind"] = _KINDS.get(kind, kind)
    origin["kind"] = "kind"
    for key, value in conf.items():
        key = str(key)
        if key == "kind" or value is None:
            continue
        if key in _SAME:
            out[_SAME[key]] = value
            origin[_SAME[key]] = key
        elif key == "device":
            out["adb_serial"] = value
            origin["adb_serial"] = key
        elif key == "host":
            if out["kind"] == "android":  # LISA: the ADB server's host for an android target
                out["adb_server"] = value
                origin["adb_server"] = key
            else:
                out["host"] = value
                origin["host"] = key
        elif key in _WHY:
            notes.append(f"ignored {LISA_TOP_KEY}.{key}: {_WHY[key]}")
        else:
            notes.append(f"ignored {LISA_TOP_KEY}.{key}: not a setting lisa-eas knows")
    if out["kind"] == "android" and "port" in out:
        notes.append(f"ignored {LISA_TOP_KEY}.port: the ADB server port is part of adb_server here")
        out.pop("port")
    if out["kind"] != "linux":
        for k in ("username", "password", "key_file", "strict_host_check"):
            if k in out:
                notes.append(f"ignored {LISA_TOP_KEY}.{origin[k]}: only used over SSH (kind: linux)")
                out.pop(k)
    for other in data:
        if other != LISA_TOP_KEY:
            notes.append(f"ignored top-level {other}: lisa-eas probes the board (lisa-eas target probe) "
                         "or uses the bundled model named by `platform:`")
    return out, notes, origin
