"""Errors of the SSH transport, each with a short `reason` code.

A sweep reports an unreachable host as UNKNOWN with `reason`, so the codes are
a stable vocabulary: refused, timeout, dns, unreachable, dropped, protocol,
auth, host-key-unknown, host-key-changed, sudo-password, config. The message is one
line naming the host; the hint says what to do. No paramiko import here, so
front ends can catch these without loading the SSH stack.
"""

from __future__ import annotations

from rocmdoctor.errors import RocmdoctorError, TargetError
from rocmdoctor.status import ExitStatus


class SSHError(TargetError):
    """Base of every SSH failure; `reason` is the short code a sweep reports."""

    reason = "error"

    def __init__(self, host: str, message: str, hint: str = "", *, reason: str | None = None) -> None:
        self.host = host
        if reason is not None:
            self.reason = reason
        super().__init__(f"{host}: {message}", hint)


class HostUnreachable(SSHError):
    """No SSH session could be set up or kept: refused, timeout, dns, unreachable, dropped."""

    reason = "unreachable"


class AuthFailed(SSHError):
    reason = "auth"


class HostKeyError(SSHError):
    """The host key is unknown (and accept-new is off) or differs from known_hosts."""

    reason = "host-key-unknown"


class SudoPasswordRequired(SSHError):
    reason = "sudo-password"


class SSHConfigError(RocmdoctorError):
    """A malformed ssh_config, located by file and line."""

    exit_status = ExitStatus.USAGE
    reason = "config"

    def __init__(self, path: str, line: int | None, message: str, hint: str = "") -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}", hint)
