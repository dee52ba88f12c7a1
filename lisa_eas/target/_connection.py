"""The connection seam: one small object over a devlib target.

Everything lisa_eas does on a board goes through :class:`TargetConnection`:
``execute`` (a shell command string whose variable parts the caller quoted with
:func:`shlex.quote`, or ``run`` with an argv list that is quoted here), ``read``,
``write``, ``push``, ``pull``. devlib's exceptions are mapped onto
:class:`~lisa_eas.errors.TransientBoardError` (retry may help: connection lost,
timeout) and :class:`~lisa_eas.errors.PermanentBoardError` (retry will not help:
bad credentials, missing tool, no permission), each naming the cause and the fix.
Passwords and key paths are scrubbed from every message.
"""
from __future__ import annotations

import contextlib
import logging
import os
import shlex
import socket
import time
from pathlib import Path
from typing import Iterator, Sequence

from ..errors import BoardError, ConfigError, PermanentBoardError, TransientBoardError
from ._config import TargetConfig, load_target_config

__all__ = ["TargetConnection", "connect"]

log = logging.getLogger(__name__)


class TargetConnection:
    """A connected board: a devlib target plus the config it came from.

    Create it with :func:`connect`. Use it as a context manager to close it.

    Attributes
    ----------
    config : TargetConfig
        The (secret-free in ``repr``) configuration.
    devlib : devlib.Target
        The underlying devlib target, for anything this seam does not cover.
    """

    def __init__(self, config: TargetConfig, devlib_target) -> None:
        self.config = config
        self.devlib = devlib_target
        self._secrets = _secrets_of(config)

    # ----------------------------------------------------------------- basics
    @property
    def label(self) -> str:
        return self.config.label

    def __repr__(self) -> str:
        return f"<TargetConnection {self.label} ({self.config.kind})>"

    def __enter__(self) -> "TargetConnection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (errors while closing a dead link are ignored)."""
        with contextlib.suppress(Exception):
            self.devlib.disconnect()

    def scrub(self, text: str) -> str:
        """``text`` with the password and key-file path replaced by ``***``."""
        return _scrub(str(text), self._secrets)

    # ------------------------------------------------------------- commands
    def execute(self, command: str, *, timeout: float | None = None, check: bool = True,
                as_root: bool = True, what: str = "", fix: str = "") -> str:
        """Run a shell command on the target and return its output.

        Parameters
        ----------
        command : str
            A shell command line. Every variable part must already be quoted with
            :func:`shlex.quote` (or use :meth:`run`).
        timeout : float, optional
            Seconds; default ``config.command_timeout_s``.
        check : bool
            Raise when the exit code is not 0.
        as_root : bool
            Run as root (the tracefs and cpufreq files need it).
        what, fix : str
            Used in the error message: what was being done and how to fix a failure.
        """
        timeout = self.config.command_timeout_s if timeout is None else timeout
        with self.errors(what or f"running {command.split()[0] if command.split() else command!r}", fix):
            return self.devlib.execute(command, timeout=timeout, check_exit_code=check,
                                       as_root=as_root)

    def run(self, argv: Sequence[str], **kw) -> str:
        """:meth:`execute` with each argument quoted (no word of ``argv`` is shell syntax)."""
        return self.execute(" ".join(shlex.quote(str(a)) for a in argv), **kw)

    def read(self, path: str, *, what: str = "", fix: str = "") -> str:
        """The content of a target file, stripped of trailing white space."""
        return self.execute(f"cat {shlex.quote(path)}", what=what or f"reading {path}", fix=fix).rstrip()

    def try_read(self, path: str) -> str | None:
        """Like :meth:`read` but None when the file is absent or unreadable (never for a lost link)."""
        out = self.execute(f"cat {shlex.quote(path)} 2>/dev/null || echo __LISA_EAS_NOREAD__",
                           what=f"reading {path}")
        return None if out.rstrip().endswith("__LISA_EAS_NOREAD__") else out.rstrip()

    def write(self, path: str, value, *, what: str = "", fix: str = "") -> None:
        """Write ``value`` to a target file (sysfs/tracefs), without reading it back."""
        self.execute(f"printf '%s\\n' {shlex.quote(str(value))} > {shlex.quote(path)}",
                     what=what or f"writing {value!r} to {path}", fix=fix)

    def exists(self, path: str) -> bool:
        return self.execute(f"test -e {shlex.quote(path)} && echo 1 || echo 0").strip() == "1"

    def which(self, name: str) -> str | None:
        """Target path of the executable ``name`` (a name on PATH or a path), or None."""
        if "/" in name:
            ok = self.execute(f"test -x {shlex.quote(name)} && echo 1 || echo 0").strip() == "1"
            return name if ok else None
        out = self.execute(f"command -v {shlex.quote(name)} || true").strip()
        return out.splitlines()[-1] if out else None

    def push(self, local: str | os.PathLike, remote: str, *, timeout: float | None = None) -> None:
        with self.errors(f"copying {Path(local).name} to the target"):
            self.devlib.push(str(local), remote, timeout=timeout or self.config.command_timeout_s)

    def pull(self, remote: str, local: str | os.PathLike, *, timeout: float | None = None) -> None:
        with self.errors(f"copying {remote} from the target"):
            self.devlib.pull(remote, str(local), timeout=timeout or self.config.command_timeout_s)

    def is_alive(self) -> bool:
        """True when a trivial command still round-trips (used to classify failures)."""
        try:
            out = self.devlib.execute("echo alive", timeout=min(10.0, self.config.connect_timeout_s),
                                      as_root=False)
        except Exception:  # noqa: BLE001 - any failure means "not alive"
            return False
        return "alive" in out

    # -------------------------------------------------------------- errors
    @contextlib.contextmanager
    def errors(self, what: str, fix: str = "") -> Iterator[None]:
        """Map devlib/transport exceptions raised in the block into BoardError."""
        try:
            yield
        except BoardError:
            raise
        except Exception as exc:  # noqa: BLE001 - classified below
            raise self._classify(exc, what, fix) from None

    def _classify(self, exc: BaseException, what: str, fix: str) -> BoardError:
        detail = self.scrub(_describe(exc))
        transient = _is_transient(exc)
        if not transient and not self.is_alive():
            transient = True
            fix = ""
        if transient:
            return TransientBoardError(
                f"{self.label}: lost contact while {what}: {detail}. Fix: check that the board is up "
                f"and reachable (network, sshd/adbd), then retry; a run can be finished with "
                f"`lisa-eas run --resume DIR`")
        return PermanentBoardError(f"{self.label}: failed while {what}: {detail}"
                                   + (f". Fix: {fix}" if fix else ""))


# --------------------------------------------------------------------------- connect

def connect(config: TargetConfig | str | os.PathLike, *, timeout: float | None = None) -> TargetConnection:
    """Connect to the board a target config describes.

    Parameters
    ----------
    config : TargetConfig or path
        A config object, or the path of a ``target_configs/*.yml`` file.
    timeout : float, optional
        Connection timeout in seconds (default ``config.connect_timeout_s``).

    Returns
    -------
    TargetConnection

    Raises
    ------
    PermanentBoardError
        Wrong credentials, host key rejected, devlib missing, not root.
    TransientBoardError
        Host unreachable, connection refused or timed out.
    """
    if not isinstance(config, TargetConfig):
        config = load_target_config(config)
    timeout = config.connect_timeout_s if timeout is None else timeout
    secrets = _secrets_of(config)
    if config.key_file is not None and not Path(config.key_file).is_file():
        # name the setting, not the path (key paths stay out of messages)
        raise PermanentBoardError(f"{config.label}: the SSH key file given as 'key_file' does not exist. "
                                  f"Fix: correct 'key_file' in {config.source} (relative paths are "
                                  f"relative to the config file)")
    try:
        import devlib  # noqa: F401
    except ImportError as exc:
        raise PermanentBoardError("driving a board needs devlib; fix: pip install 'lisa_eas[target]'") from exc
    start = time.monotonic()
    try:
        target = _make_devlib_target(config, timeout)
    except BoardError:
        raise
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - classified below
        raise _connect_error(config, exc, secrets, time.monotonic() - start) from None
    conn = TargetConnection(config, target)
    log.debug("connected to %s in %.2f s", config.label, time.monotonic() - start)
    return conn


def _make_devlib_target(config: TargetConfig, timeout: float):
    from devlib import AndroidTarget, LinuxTarget, LocalLinuxTarget

    wd = config.working_directory.rstrip("/") or "/"
    common = dict(working_directory=f"{wd}/devlib", executables_directory=f"{wd}/devlib/bin",
                  load_default_modules=False, modules=[], connect=False)
    if config.kind == "local":
        target = LocalLinuxTarget(connection_settings={"unrooted": os.geteuid() != 0}, **common)
    elif config.kind == "linux":
        settings = {"host": config.host, "port": config.port, "username": config.username,
                    "strict_host_check": config.strict_host_check}
        if config.password is not None:
            settings["password"] = config.password
        if config.key_file is not None:
            settings["keyfile"] = config.key_file
        target = LinuxTarget(connection_settings=settings, **common)
    else:
        settings = {"device": config.adb_serial, "connection_attempts": 1}
        if config.adb_server is not None:
            settings["adb_server"] = config.adb_server
        target = AndroidTarget(connection_settings=settings, **common)
    target.connect(timeout=timeout)
    return target


def _connect_error(config: TargetConfig, exc: BaseException, secrets, elapsed: float) -> BoardError:
    detail = _scrub(_describe(exc), secrets)
    low = detail.lower()
    where = config.label
    if config.kind == "linux":
        if "authenticat" in low or "password" in low and "incorrect" in low:
            return PermanentBoardError(
                f"{where}: the SSH server refused the login of {config.username!r} ({detail}). "
                f"Fix: check 'username' and 'password' or 'key_file' in {config.source}")
        if "host key" in low or "not found in known_hosts" in low:
            return PermanentBoardError(
                f"{where}: the SSH host key is not trusted ({detail}). Fix: add the board to "
                f"~/.ssh/known_hosts (ssh-keyscan -p {config.port} {config.host}), or set "
                f"'strict_host_check: false' in {config.source} on a trusted network")
        if _is_transient(exc) or isinstance(exc, OSError):
            return TransientBoardError(
                f"{where}: cannot reach the SSH server after {elapsed:.1f} s ({detail}). Fix: check "
                f"that the board is powered and on the network, that sshd listens on port "
                f"{config.port}, and 'host'/'port' in {config.source}")
    if config.kind == "android":
        if "adb" in low and ("not in path" in low or "android_home" in low):
            return PermanentBoardError(
                f"{where}: adb is not installed on this host ({detail}). Fix: install the Android "
                f"platform tools (Debian: apt install adb) or put adb on PATH")
        if "aapt" in low:
            return PermanentBoardError(
                f"{where}: devlib needs the Android build tool aapt on this host ({detail}). Fix: "
                f"install it (Debian: apt install aapt) or set ANDROID_HOME to an Android SDK")
        return TransientBoardError(
            f"{where}: cannot talk to the device over adb ({detail}). Fix: check `adb devices` "
            f"lists {config.adb_serial or 'exactly one device'} as 'device' (authorised), or fix "
            f"'adb_serial' in {config.source}")
    if "shell seems to not be functional" in low:
        return PermanentBoardError(
            f"{where}: the target's shell writes to stderr on every command ({detail}). Fix: make the "
            f"login shell's start-up files (~/.bashrc, /etc/profile.d/*) print nothing for "
            f"non-interactive shells")
    if "sudo" in low:
        return PermanentBoardError(
            f"{where}: lisa_eas needs root on the target to drive tracefs ({detail}). Fix: run as "
            f"root (or with passwordless sudo)")
    cls = TransientBoardError if _is_transient(exc) else PermanentBoardError
    return cls(f"{where}: cannot connect ({detail}). Fix: check the target config {config.source}")


# --------------------------------------------------------------------------- helpers

def _secrets_of(config: TargetConfig) -> tuple[str, ...]:
    out = []
    if config.password:
        out.append(config.password)
    if config.key_file:
        out += [config.key_file, os.path.basename(config.key_file)]
    return tuple(s for s in out if s)


def _scrub(text: str, secrets: Sequence[str]) -> str:
    for s in sorted(secrets, key=len, reverse=True):
        text = text.replace(s, "***")
    return text


def _describe(exc: BaseException) -> str:
    from devlib.exception import TargetCalledProcessError

    if isinstance(exc, TargetCalledProcessError):
        out = exc.output.decode(errors="replace") if isinstance(exc.output, bytes) else (exc.output or "")
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        text = " ".join((err or out).split())[:400]
        return f"exit code {exc.returncode}" + (f": {text}" if text else "")
    text = " ".join(str(exc).split())[:400]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _is_transient(exc: BaseException) -> bool:
    try:
        from devlib.exception import DevlibTransientError, TargetNotRespondingError
    except ImportError:  # pragma: no cover
        DevlibTransientError = TargetNotRespondingError = ()  # type: ignore[assignment]
    if isinstance(exc, (DevlibTransientError, TargetNotRespondingError, socket.timeout, TimeoutError,
                        ConnectionError, EOFError)):
        return True
    try:
        import paramiko

        if isinstance(exc, (paramiko.ssh_exception.NoValidConnectionsError,)):
            return True
        if isinstance(exc, paramiko.SSHException) and not isinstance(
                exc, paramiko.AuthenticationException):
            return True
    except ImportError:  # pragma: no cover
        pass
    return False
