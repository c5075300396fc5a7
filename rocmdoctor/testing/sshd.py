"""A real OpenSSH sshd on loopback for tests and benchmarks, plus fault helpers.

Tests of the SSH transport talk to a real server, never a mock: host key
checks, auth refusals, MaxStartups drops and dead sessions only behave like
production when OpenSSH produces them. Everything binds to 127.0.0.0/8, every
wait is bounded, and every helper stops itself (sshd is killed on stop() and
at interpreter exit; the black-hole listener has a maximum lifetime).
"""

from __future__ import annotations

import atexit
import getpass
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
FLEET_ADDRESSES = tuple(f"127.0.0.{i}" for i in range(2, 10))


def sshd_available() -> bool:
    return os.path.exists(SSHD) and shutil.which("ssh-keygen") is not None


def require_sshd() -> None:
    """The SSH tests need a real OpenSSH server: without one they fail with what to
    install, so a machine that lacks it can never pass by skipping them silently.
    ROCMDOCTOR_ALLOW_NO_SSHD=1 turns the failure into a skip for a deliberate local run."""
    if sshd_available():
        return
    import pytest

    message = ("openssh-server is not installed: run `bash tests/run.sh` as root (it installs it), "
               "or `apt-get install openssh-server`")
    if os.environ.get("ROCMDOCTOR_ALLOW_NO_SSHD") == "1":
        pytest.skip(message)
    pytest.fail(message + "; set ROCMDOCTOR_ALLOW_NO_SSHD=1 to skip the SSH tests instead", pytrace=False)


def keygen(path: Path, comment: str = "rocmdoctor-test") -> str:
    """An ed25519 key pair without passphrase; returns the public key line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
                       check=True, capture_output=True, timeout=30)
    return Path(f"{path}.pub").read_text().strip()


def free_port(addresses: Iterable[str] = ("127.0.0.1",)) -> int:
    """A port free on every address (bounded tries)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            for addr in addresses:
                with socket.socket() as s:
                    s.bind((addr, port))
            return port
        except OSError:
            continue
    raise RuntimeError("no free port on loopback")


def closed_port(address: str = "127.0.0.1") -> int:
    """A port nothing listens on: connecting is refused at once."""
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


@dataclass
class TestSSHD:
    """One sshd listening on `addresses` at one port, with its own host key and authorized keys."""

    workdir: Path
    authorized_keys: list[str]
    addresses: tuple[str, ...] = ("127.0.0.1",)
    options: Mapping[str, str] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    __test__ = False  # not a pytest test class

    def __post_init__(self) -> None:
        self.workdir = Path(self.workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.host_key = self.workdir / "ssh_host_ed25519_key"
        self.host_public_key = keygen(self.host_key, "test-sshd-host")
        self.log_path = self.workdir / "sshd.log"
        self.config_path = self.workdir / "sshd_config"

    @property
    def host_key_line(self) -> str:
        """`type base64` of the host key, as known_hosts stores it."""
        return " ".join(self.host_public_key.split()[:2])

    def _config(self, extra: Mapping[str, str], drop: Iterable[str] = ()) -> str:
        opts = {
            "Port": str(self.port),
            "HostKey": str(self.host_key),
            "PidFile": str(self.workdir / "sshd.pid"),
            "AuthorizedKeysFile": str(self.workdir / "authorized_keys"),
            "PubkeyAuthentication": "yes",
            "PasswordAuthentication": "no",
            "KbdInteractiveAuthentication": "no",
            "PermitRootLogin": "prohibit-password",
            "StrictModes": "no",
            "UsePAM": "no",
            "UseDNS": "no",
            "MaxStartups": "2000",
            "MaxSessions": "200",
            "MaxAuthTries": "20",
            "LoginGraceTime": "30",
            "PrintMotd": "no",
            "PrintLastLog": "no",
            "LogLevel": "VERBOSE",
            "PerSourceMaxStartups": "none",
            # Debian's bash sources ~/.bashrc under sshd unless SHLVL says it is nested;
            # here root's .bashrc runs `pyenv init` (+200 ms per exec), not what we measure
            "SetEnv": "SHLVL=1",
            "PerSourcePenalties": "no",   # OpenSSH >= 9.8 would penalise the refused-key tests
        }
        opts.update(extra)
        for key in drop:
            opts.pop(key, None)
        lines = [f"ListenAddress {a}" for a in self.addresses]
        lines += [f"{k} {v}" for k, v in opts.items()]
        return "\n".join(lines) + "\n"

    def start(self, timeout: float = 15.0) -> "TestSSHD":
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation dir
        (self.workdir / "authorized_keys").write_text("\n".join(self.authorized_keys) + "\n")
        self.port = self.port or free_port(self.addresses)
        self.config_path.write_text(self._config(self.options))
        test = subprocess.run([SSHD, "-t", "-f", str(self.config_path)], capture_output=True, text=True, timeout=30)
        unknown = [k for k in ("PerSourcePenalties", "PerSourceMaxStartups") if k in test.stderr]
        if unknown:  # an older sshd without these options
            self.config_path.write_text(self._config(self.options, drop=unknown))
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.config_path)],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited with {self.proc.returncode}: {self.log_path.read_text()[-800:]}")
            try:
                with socket.create_connection((self.addresses[0], self.port), timeout=0.5) as s:
                    if s.recv(64).startswith(b"SSH-"):
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"sshd did not come up on port {self.port} within {timeout}s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)

    def __enter__(self) -> "TestSSHD":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def exec_sessions(self) -> int:
        """How many exec requests sshd has served (one per round trip)."""
        return self.log_text().count("Starting session: command")


class BlackholeListener:
    """Accepts TCP connections and never says a word (a hung sshd or a stuck middlebox).

    Self-stopping: closes everything after `max_lifetime` seconds even if the
    test forgets to.
    """

    def __init__(self, address: str = "127.0.0.1", max_lifetime: float = 120.0) -> None:
        self._sock = socket.socket()
        self._sock.bind((address, 0))
        self._sock.listen(128)
        self._sock.settimeout(0.2)
        self.address = address
        self.port = self._sock.getsockname()[1]
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._deadline = time.monotonic() + max_lifetime
        self._thread = threading.Thread(target=self._serve, name="blackhole", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set() and time.monotonic() < self._deadline:
            try:
                conn, _ = self._sock.accept()
                self._held.append(conn)
            except OSError:
                continue
        self._close_all()

    def _close_all(self) -> None:
        for c in self._held:
            c.close()
        self._held.clear()
        self._sock.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def __enter__(self) -> "BlackholeListener":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class Alias:
    """One Host block of a generated ssh_config."""

    name: str
    hostname: str
    port: int
    identity_file: str
    known_hosts: str
    user: str = field(default_factory=getpass.getuser)
    setenv: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, str] = field(default_factory=dict)

    def block(self) -> str:
        lines = [f"Host {self.name}", f"  HostName {self.hostname}", f"  Port {self.port}",
                 f"  User {self.user}", f"  IdentityFile {self.identity_file}", "  IdentitiesOnly yes",
                 f"  UserKnownHostsFile {self.known_hosts}", "  StrictHostKeyChecking yes", "  BatchMode yes"]
        if self.setenv:
            # one line: OpenSSH (and rocmdoctor) use only the first SetEnv line that applies
            lines.append("  SetEnv " + " ".join(_config_quote(f"{k}={v}") for k, v in self.setenv.items()))
        lines += [f"  {k} {v}" for k, v in self.extra.items()]
        return "\n".join(lines) + "\n"


def _config_quote(value: str) -> str:
    """ssh_config argument quoting: double quotes, backslash escapes for `"` and `\\`."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fleet_aliases(sshd: TestSSHD, identity_file: Path, known_hosts: Path, count: int = 200,
                  rootfs: Mapping[str, str] | None = None, addresses: tuple[str, ...] = FLEET_ADDRESSES,
                  ) -> list[Alias]:
    """node001..nodeNNN spread round-robin over `addresses`; `rootfs` maps alias -> simulated root."""
    aliases = []
    for i in range(1, count + 1):
        name = f"node{i:03d}"
        env = {"ROCMDOCTOR_ROOTFS": rootfs[name]} if rootfs and name in rootfs else {}
        aliases.append(Alias(name, addresses[(i - 1) % len(addresses)], sshd.port,
                             str(identity_file), str(known_hosts), setenv=env))
    return aliases


def write_ssh_config(path: Path, aliases: Iterable[Alias]) -> Path:
    path.write_text("\n".join(a.block() for a in aliases))
    return path


def write_known_hosts(path: Path, entries: Iterable[tuple[str, str]]) -> Path:
    """entries: (known_hosts name e.g. `[127.0.0.2]:2222`, `type base64`)."""
    path.write_text("".join(f"{name} {key}\n" for name, key in entries))
    os.chmod(path, 0o600)
    return path


def known_hosts_entries(sshd: TestSSHD, addresses: Iterable[str] | None = None) -> list[tuple[str, str]]:
    return [(f"[{a}]:{sshd.port}", sshd.host_key_line) for a in (addresses or sshd.addresses)]


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
