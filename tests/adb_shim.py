"""An ``adb`` executable for the Android tests: the transport seam, not a mock of devlib.

No Android device is available here. devlib's real ``AndroidTarget`` and ``AdbConnection``
build ``adb`` command lines and run them as subprocesses; this shim is installed as
``adb`` on ``PATH``, appends each argv (JSON, one per line) to ``$ADB_SHIM_LOG`` and
plays the device with this machine's own shell:

* ``devices`` lists ``$ADB_SHIM_SERIAL``; ``start-server``/``connect``/``root``/... succeed;
* ``shell CMD`` runs CMD (adb joins its words with spaces) with ``sh -c`` after defining a
  ``getprop`` function answering a few Android properties; ``/data/local/tmp`` (where
  devlib checks the device is alive) is mapped to ``$ADB_SHIM_ROOT/data/local/tmp``;
* ``push``/``pull`` copy files.

So everything devlib sends is recorded exactly, and commands really execute.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

_PROPS = {"sys.boot_completed": "1", "ro.product.cpu.abi": "x86_64", "ro.build.version.sdk": "34",
          "ro.product.model": "lisa_eas adb shim", "ro.build.version.release": "14",
          "ro.product.device": "shim", "ro.hardware": "shim"}


def _getprop_function() -> str:
    cases = " ".join(f"{k}) echo {v};;" for k, v in _PROPS.items())
    listing = "\\n".join(f"[{k}]: [{v}]" for k, v in _PROPS.items())
    return (f'getprop() {{ if [ $# -eq 0 ]; then printf "{listing}\\n"; return; fi; '
            f'case "$1" in {cases} *) echo;; esac; }}')


def _map(path: str) -> str:
    root = os.environ.get("ADB_SHIM_ROOT", "")
    return path.replace("/data/local/tmp", f"{root}/data/local/tmp") if root else path


def main(argv: list[str]) -> int:
    with open(os.environ["ADB_SHIM_LOG"], "a") as log:
        log.write(json.dumps(["adb", *argv[1:]]) + "\n")
    args = argv[1:]
    while args and args[0] in ("-s", "-H", "-P"):
        args = args[2:]
    if not args:
        return 1
    cmd, rest = args[0], args[1:]
    serial = os.environ.get("ADB_SHIM_SERIAL", "emulator-5554")
    if cmd == "devices":
        print(f"List of devices attached\n{serial}\tdevice\n")
        return 0
    if cmd in ("start-server", "kill-server", "wait-for-device", "disconnect", "unroot"):
        return 0
    if cmd == "connect":
        print(f"connected to {rest[0] if rest else serial}")
        return 0
    if cmd == "root":
        print("restarting adbd as root")
        return 0
    if cmd == "shell":
        script = _getprop_function() + "\n" + _map(" ".join(rest))
        return subprocess.run(["sh", "-c", script]).returncode
    if cmd in ("push", "pull"):
        *srcs, dst = rest
        for src in srcs:
            a, b = (src, _map(dst)) if cmd == "push" else (_map(src), dst)
            if os.path.isdir(a):
                shutil.copytree(a, b, dirs_exist_ok=True)
            else:
                shutil.copy(a, b)
        print(f"{len(srcs)} file(s) {cmd}ed")
        return 0
    print(f"adb shim: unsupported command {cmd}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
