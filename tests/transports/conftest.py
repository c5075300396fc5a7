"""A real OpenSSH test bed, started once per session: one sshd on 127.0.0.1-9, an
impostor sshd with another host key, a black-hole listener and a closed port,
plus an ssh_config naming each of them. Tests never mock the transport.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from rocmdoctor.testing.sshd import (
    FLEET_ADDRESSES, Alias, BlackholeListener, TestSSHD, closed_port, fleet_aliases, keygen,
    known_hosts_entries, require_sshd, write_known_hosts, write_ssh_config,
)

STUB_SUDO = """#!/bin/sh
# Stands in for sudo(8) on the test sshd (the box has no sudo and only root has a shell).
# The refusal text is sudo's own for `sudo -n` when a password would be needed.
[ "$1" = "-n" ] || { echo "stub sudo: rocmdoctor must call sudo -n" >&2; exit 99; }
shift; [ "$1" = "--" ] && shift
case "$*" in *needs-password*) echo "sudo: a password is required" >&2; exit 1;; esac
SUDO_USER=ops exec "$@"
"""


@dataclass
class SSHBed:
    dir: Path
    sshd: TestSSHD
    impostor: TestSSHD
    blackhole: BlackholeListener
    closed_port: int
    identity: Path
    refused_identity: Path
    known_hosts: Path
    config: Path
    rootfs: Path

    def alias(self, name: str, hostname: str = "127.0.0.1", port: int | None = None, *,
              known_hosts: Path | None = None, identity: Path | None = None, **extra: str) -> Alias:
        return Alias(name, hostname, port or self.sshd.port, str(identity or self.identity),
                     str(known_hosts or self.known_hosts), extra=extra)


@pytest.fixture(scope="session")
def ssh_bed(tmp_path_factory: pytest.TempPathFactory) -> SSHBed:
    require_sshd()
    base = tmp_path_factory.mktemp("sshbed")
    identity = base / "id_ed25519"
    refused = base / "id_refused"
    pub = keygen(identity, "rocmdoctor-test-client")
    keygen(refused, "not-authorized")
    stub = base / "stubbin"
    stub.mkdir()
    (stub / "sudo").write_text(STUB_SUDO)
    (stub / "sudo").chmod(0o755)
    path = f"{stub}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    sshd = TestSSHD(base / "sshd", [pub], addresses=("127.0.0.1",) + FLEET_ADDRESSES,
                    options={"SetEnv": f"SHLVL=1 PATH={path}"}).start()
    impostor = TestSSHD(base / "impostor", [pub], addresses=("127.0.0.10",)).start()
    blackhole = BlackholeListener("127.0.0.1", max_lifetime=600)
    rootfs = base / "node042-root"
    (rootfs / "etc").mkdir(parents=True)
    (rootfs / "etc" / "rocmdoctor-node").write_text("node042\n")

    known_hosts = base / "known_hosts"
    # the impostor's address is recorded with the REAL sshd's key: its own key is a changed key
    entries = known_hosts_entries(sshd) + [(f"[127.0.0.10]:{impostor.port}", sshd.host_key_line)]
    write_known_hosts(known_hosts, entries)
    aliases = fleet_aliases(sshd, identity, known_hosts, count=200, rootfs={"node042": str(rootfs)})
    aliases[41].setenv = {"ROCMDOCTOR_ROOTFS": str(rootfs), "RD_NOTE": "it's \"quoted\" $HOME"}
    bed = SSHBed(base, sshd, impostor, blackhole, closed_port(), identity, refused, known_hosts,
                 base / "ssh_config", rootfs)
    aliases += [
        bed.alias("local", "127.0.0.1"),
        bed.alias("closed", "127.0.0.1", bed.closed_port),
        bed.alias("blackhole", "127.0.0.1", blackhole.port, ConnectTimeout="1"),
        bed.alias("impostor", "127.0.0.10", impostor.port),
        bed.alias("badkey", "127.0.0.1", identity=refused),
        bed.alias("jumped", "127.0.0.3", ProxyJump="node001"),
        bed.alias("jump-to-closed", "127.0.0.3", bed.closed_port, ProxyJump="node001"),
        bed.alias("nxdomain", "no-such-node.invalid"),   # RFC 6761: never resolves
        bed.alias("longlabel", "n" * 70 + ".invalid"),   # the resolver's IDNA step raises UnicodeError
        bed.alias("proxycommand", "127.0.0.1", ProxyCommand="nc %h %p"),
    ]
    write_ssh_config(bed.config, aliases)
    yield bed
    blackhole.stop()
    impostor.stop()
    sshd.stop()


@pytest.fixture(autouse=True)
def audit_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "audit.log"
    monkeypatch.setenv("ROCMDOCTOR_AUDIT_LOG", str(path))
    return path


@pytest.fixture
def own_known_hosts(ssh_bed: SSHBed, tmp_path: Path) -> tuple[Path, Path]:
    """A config whose aliases point at the real sshd but record keys in an empty known_hosts."""
    kh = tmp_path / "known_hosts"
    cfg = tmp_path / "ssh_config"
    aliases = [ssh_bed.alias(f"fresh{i}", a, known_hosts=kh) for i, a in enumerate(("127.0.0.1",) + FLEET_ADDRESSES)]
    aliases.append(ssh_bed.alias("fresh-impostor", "127.0.0.10", ssh_bed.impostor.port, known_hosts=kh))
    write_ssh_config(cfg, aliases)
    return cfg, kh


@pytest.fixture(autouse=True)
def _no_user_ssh_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys come from the test bed only, never from a developer's agent."""
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
