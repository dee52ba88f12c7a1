"""A real OpenSSH server on 127.0.0.1 for the remote-target tests.

``SshServer(tmpdir).start()`` writes an ``sshd_config`` in ``tmpdir``, generates a host key
and a user key with ``ssh-keygen``, and runs ``/usr/sbin/sshd -D -f CONFIG -p PORT -o
ListenAddress=127.0.0.1`` on a free port (root login by key; password authentication
is on too, so a wrong password is refused by sshd itself). Needs root (CI runs as root).
Only processes this helper started are signalled, by PID.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

SSHD = "/usr/sbin/sshd"


def sshd_available() -> tuple[bool, str]:
    """(usable, reason) — sshd and ssh-keygen installed and we are root."""
    if not os.path.exists(SSHD):
        return False, "openssh-server is not installed (apt install openssh-server)"
    if not shutil.which("ssh-keygen"):
        return False, "ssh-keygen is not installed"
    if os.geteuid() != 0:
        return False, "the sshd fixture logs in as root and needs to run as root"
    return True, ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SshServer:
    """An sshd on 127.0.0.1:``port`` with its own keys in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        self.port = free_port()
        self.key_file = self.dir / "id_ed25519"
        self.host_key = self.dir / "ssh_host_ed25519_key"
        self.config = self.dir / "sshd_config"
        self.proc: subprocess.Popen | None = None

    def _keys(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "home").mkdir(exist_ok=True)
        for path in (self.host_key, self.key_file):
            if not path.exists():
                subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
                               check=True, timeout=30)
        (self.dir / "authorized_keys").write_text(Path(f"{self.key_file}.pub").read_text())
        os.chmod(self.dir / "authorized_keys", 0o600)
        self.config.write_text("\n".join([
            f"HostKey {self.host_key}",
            f"PidFile {self.dir / 'sshd.pid'}",
            f"AuthorizedKeysFile {self.dir / 'authorized_keys'}",
            "PermitRootLogin yes",
            "PubkeyAuthentication yes",
            "PasswordAuthentication yes",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            "MaxStartups 50",
            "MaxSessions 50",
            "LoginGraceTime 20",
            "LogLevel ERROR",
            "Subsystem sftp internal-sftp",
            # a clean HOME: the sessions do not run this machine's root start-up files
            # (~/.bashrc may print, e.g. pyenv messages, which devlib rejects as a broken shell)
            f"SetEnv HOME={self.dir / 'home'}",
            ""]))

    def start(self) -> "SshServer":
        self._keys()
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege-separation directory
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(self.config), "-p", str(self.port),
             "-o", "ListenAddress=127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=open(self.dir / "sshd.log", "ab"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited with {self.proc.returncode}: "
                                   f"{(self.dir / 'sshd.log').read_text()[-500:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise RuntimeError("sshd did not start listening within 10 s")

    def _descendants(self) -> list[int]:
        """PIDs of the session processes this sshd forked (by walking /proc parent links)."""
        if self.proc is None:
            return []
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        out, frontier = [], {self.proc.pid}
        while frontier:
            children = {p for p, pp in parents.items() if pp in frontier}
            out += sorted(children)
            frontier = children
        return out

    def kill(self) -> None:
        """Stop sshd and every session it serves at once (an abrupt link loss)."""
        if self.proc is None:
            return
        for pid in self._descendants() + [self.proc.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=10)
        self.proc = None

    def target_config(self, **extra) -> dict:
        cfg = {"kind": "linux", "name": "sshd-loopback", "host": "127.0.0.1", "port": self.port,
               "username": "root", "key_file": str(self.key_file), "strict_host_check": False,
               "connect_timeout_s": 10, "working_directory": str(self.dir / "target")}
        cfg.update(extra)
        return cfg
