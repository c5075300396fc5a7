"""Turn a TARGET argument into a transport.

`local` is this machine (optionally `--rootfs DIR`), `demo:NAME` a built-in
simulated incident node, anything else a host reached over SSH.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.errors import TargetError
from rocmdoctor.transports.base import Transport


@dataclass(frozen=True)
class TargetOptions:
    rootfs: str = ""
    dry_run: bool = False
    sudo: bool = False
    ssh_config: str | None = None
    accept_new_host_keys: bool = False
    connect_timeout: float = 10.0
    env: dict[str, str] = field(default_factory=dict)
    audit_log: str | None = None


def open_target(target: str, opts: TargetOptions) -> Transport:
    audit = AuditLog(Path(opts.audit_log)) if opts.audit_log else AuditLog()
    if target == "local":
        from rocmdoctor.transports.local import LocalTransport

        if opts.rootfs and not Path(opts.rootfs).is_dir():
            raise TargetError(f"--rootfs {opts.rootfs}: not a directory",
                              "point it at the host's root mounted in this container, e.g. /host")
        return LocalTransport(root=opts.rootfs, env=opts.env, dry_run=opts.dry_run, audit=audit, sudo=opts.sudo)
    if target.startswith("demo:"):
        from rocmdoctor.simnode.demo import open_demo

        return open_demo(target[5:], dry_run=opts.dry_run, audit=audit)
    return _open_ssh(target, opts, audit)


def _open_ssh(target: str, opts: TargetOptions, audit: AuditLog) -> Transport:
    try:
        from rocmdoctor.transports.ssh import SSHTransport
    except ImportError as exc:  # the SSH transport is optional at import time only
        raise TargetError(f"{target}: SSH transport unavailable ({exc})", "pip install fabric paramiko") from None
    return SSHTransport(  # type: ignore[call-arg]
        target, ssh_config=opts.ssh_config, accept_new_host_keys=opts.accept_new_host_keys,
        connect_timeout=opts.connect_timeout, root=opts.rootfs, env=opts.env, dry_run=opts.dry_run,
        audit=audit, sudo=opts.sudo,
    )
