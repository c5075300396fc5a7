"""The SSH transport: the same compiled probe as the local transport, over one exec.

One connection per host, opened lazily on first use and kept for the
remediations that may follow; each command is one exec channel. The exec is
driven on the raw paramiko channel rather than through invoke's Runner: we
need a hard per-command deadline that closes the channel (exit 124), stdin
without pty, and no reader threads per command (a sweep runs 64 at a time).

Per-host `root`/`env` come from the ssh_config's `SetEnv` line
(`SetEnv ROCMDOCTOR_ROOTFS=/path K=V`) and are overridden by the constructor's
arguments: this is how test aliases map onto simulated nodes.
"""

from __future__ import annotations

import re
import select
import shlex
import threading
import time
from pathlib import Path
from typing import Any, Mapping

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.results import CommandResult
from rocmdoctor.transports.base import Transport
from rocmdoctor.transports.ssh_config import SSHConfigFile
from rocmdoctor.transports.ssh_connect import SSHContext
from rocmdoctor.transports.ssh_errors import (  # noqa: F401  (re-exported for callers)
    AuthFailed, HostKeyError, HostUnreachable, SSHConfigError, SSHError, SudoPasswordRequired,
)

TIMEOUT_EXIT = 124  # what coreutils `timeout` returns, so callers read one convention
# sudo -n's refusals: classic sudo ("a password is required"; older: "no tty present"),
# sudo-rs / sudo >= 1.9.16 ("interactive authentication is required")
_SUDO_PASSWORD = re.compile(
    r"sudo: (a password is required|a terminal is required|no tty present|interactive authentication is required)")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SSHTransport(Transport):
    """Run commands on one host over SSH; thread-safe, one connection per transport."""

    def __init__(
        self,
        host: str,
        *,
        context: SSHContext | None = None,
        ssh_config: str | Path | SSHConfigFile | None = None,
        accept_new_host_keys: bool = False,
        connect_timeout: float = 10.0,
        root: str | None = None,
        env: Mapping[str, str] | None = None,
        dry_run: bool = False,
        audit: AuditLog | None = None,
        sudo: bool = False,
    ) -> None:
        self.context = context or SSHContext(
            ssh_config, accept_new_host_keys=accept_new_host_keys, connect_timeout=connect_timeout)
        self.settings = self.context.settings(host)
        merged_env = {**self.settings.env, **(env or {})}
        for name in merged_env:
            if not _ENV_NAME.fullmatch(name):
                raise SSHError(host, f"bad environment variable name {name!r} (SetEnv or --env)", reason="config")
        # an empty root means "not given" (front ends pass --rootfs's default ""), so the
        # ssh_config's SetEnv ROCMDOCTOR_ROOTFS still applies
        super().__init__(root=root or self.settings.root, env=merged_env,
                         dry_run=dry_run, audit=audit, sudo=sudo)
        self.host = host
        #: root logins need no sudo, and many root-login sites have none installed
        self.skip_sudo_as_root = True
        self._conn: Any = None
        self._lock = threading.Lock()

    # -- connection ------------------------------------------------------------
    def connect(self) -> None:
        """Open (or reuse) the connection; raises SSHError with a reason code."""
        with self._lock:
            if self._conn is None or not self._conn.is_connected:
                self._conn = self.context.connect(self.settings)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- exec ------------------------------------------------------------------
    def remote_command(self, command: str, *, sudo: bool) -> str:
        """The exact string sent: env exports first, then sudo -n around everything."""
        exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in sorted(self.env.items()))
        full = exports + command
        if sudo and not (self.skip_sudo_as_root and self.settings.user == "root"):
            full = f"sudo -n -- sh -c {shlex.quote(full)}"
        return full

    def _exec(self, command: str, *, timeout: float, stdin: str | None, sudo: bool) -> CommandResult:
        from paramiko import SSHException

        self.connect()
        full = self.remote_command(command, sudo=sudo)
        start = time.monotonic()
        deadline = start + timeout
        chan = self._open_channel(timeout)
        try:
            chan.exec_command(full)
            if stdin is not None:
                chan.settimeout(max(0.1, deadline - time.monotonic()))
                chan.sendall(stdin.encode())
            chan.shutdown_write()  # EOF on stdin, as `ssh -n` gives
            out, err, timed_out = _drain(chan, deadline)
        except (OSError, EOFError, SSHException) as exc:  # socket.timeout on sendall is an OSError
            if time.monotonic() >= deadline:
                out, err, timed_out = b"", b"", True
            else:
                raise self._dropped(f"connection lost while sending the command: {exc}") from None
        finally:
            status = chan.exit_status if chan.exit_status_ready() else -1
            chan.close()
        duration = int((time.monotonic() - start) * 1000)
        if not timed_out and status == -1:
            transport = self._conn.transport if self._conn else None
            if transport is None or not transport.is_active():
                self.close()
                raise self._dropped(f"connection dropped mid-command after {duration / 1000:.1f}s")
            status = 255  # the remote command died of a signal (exit-signal, no exit-status)
        stderr = err.decode("utf-8", "replace")
        if sudo and status == 1 and _SUDO_PASSWORD.search(stderr):
            raise SudoPasswordRequired(
                self.host, f"sudo needs a password for {self.settings.user}; rocmdoctor only uses `sudo -n`",
                "allow the commands in sudoers with NOPASSWD, or connect as a user that needs no sudo")
        return CommandResult(
            command=command, host=self.host, exit_status=TIMEOUT_EXIT if timed_out else status,
            stdout=out.decode("utf-8", "replace"), stderr=stderr, duration_ms=duration, timed_out=timed_out)

    def _open_channel(self, timeout: float) -> Any:
        try:
            return self._conn.transport.open_session(timeout=min(timeout, self.context.connect_timeout))
        except Exception as exc:  # paramiko: SSHException / ChannelException / EOFError
            self.close()
            raise self._dropped(f"could not open a session channel: {exc}") from None

    def _dropped(self, message: str) -> HostUnreachable:
        return HostUnreachable(self.host, message, "the node may have rebooted, or sshd/the network cut the session",
                               reason="dropped")


#: after the exit status, how long to wait for the rest of the output and EOF: OpenSSH sends
#: exit-status when the child exits, which can be before it has read and sent the child's last
#: output (seen: `echo` lost under load in a 64-host test); a background child that keeps stdout
#: open must not hold the command until its deadline
_EOF_GRACE = 2.0


def _drain(chan: Any, deadline: float) -> tuple[bytes, bytes, bool]:
    """Read stdout/stderr until EOF after the exit status, or the deadline passes."""
    out: list[bytes] = []
    err: list[bytes] = []
    grace_end: float | None = None
    while True:
        while chan.recv_ready():
            out.append(chan.recv(65536))
        while chan.recv_stderr_ready():
            err.append(chan.recv_stderr(65536))
        now = time.monotonic()
        if chan.exit_status_ready() or chan.closed:
            if grace_end is None:
                grace_end = min(now + _EOF_GRACE, deadline)
            if chan.closed or chan.eof_received or now >= grace_end:
                while chan.recv_ready():
                    out.append(chan.recv(65536))
                while chan.recv_stderr_ready():
                    err.append(chan.recv_stderr(65536))
                return b"".join(out), b"".join(err), False
        remaining = (grace_end if grace_end is not None else deadline) - now
        if remaining <= 0:
            return b"".join(out), b"".join(err), grace_end is None
        select.select([chan], [], [], min(remaining, 0.5))
