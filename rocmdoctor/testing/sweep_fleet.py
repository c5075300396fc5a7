"""A fleet on loopback for sweep tests and the benchmark: one real sshd, many aliases.

Each alias of the generated ssh_config is either mapped onto a simulated node
(SetEnv ROCMDOCTOR_ROOTFS=<root> plus the node's PATH, so the probe reads the
node's tree and runs its stub tools) or made faulty, for real:

    refused           Port of a closed port on loopback
    timeout           Port of a listener that accepts and never says a word
    host-key-changed  a known_hosts file holding another key for the address
    auth              an IdentityFile the sshd does not authorize
    command-timeout   a node whose `sweeptool` sleeps past the host budget
    dropped           a node whose `sweeptool` kills its own sshd session

Everything binds to 127.0.0.0/8; the black-hole listener stops itself.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from rocmdoctor.simnode.gpu import mi300x_gpus
from rocmdoctor.simnode.node import SimNode, sim_transport
from rocmdoctor.testing.sshd import (
    FLEET_ADDRESSES, Alias, BlackholeListener, TestSSHD, closed_port, keygen, known_hosts_entries,
    write_known_hosts, write_ssh_config,
)

FAULTS = ("refused", "timeout", "host-key-changed", "auth", "command-timeout", "dropped")
CATALOG = Path(__file__).resolve().parents[2] / "tests" / "data" / "sweep_catalog"

#: `sweeptool` bodies ($R is the node root). The drop walks up to the nearest
#: sshd process of this session ("sshd: user@notty") and kills it: the TCP
#: connection dies mid-command exactly as when a node panics or a firewall cuts it.
HANG = "sleep 30"
DROP = r"""p=$PPID
while [ "${p:-1}" -gt 1 ]; do
  case "$(cat /proc/$p/comm 2>/dev/null)" in sshd*) kill -9 "$p"; sleep 5; exit 0;; esac
  p=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$p/status 2>/dev/null)
done
exit 0"""


def sim_nodes() -> dict[str, SimNode]:
    """The node kinds a fleet maps healthy aliases onto, plus the two faulty nodes."""
    def node(name: str, tool: str) -> SimNode:
        return SimNode(name, gpus=mi300x_gpus(8)).stub("sweeptool", tool)

    return {
        "healthy": node("healthy", 'echo "ok"'),
        "no-driver": node("no-driver", 'echo "ok"').unload_amdgpu(),
        "tool-warn": node("tool-warn", 'echo "degraded" >&2; exit 3'),
        "command-timeout": node("hang", HANG),
        "dropped": node("drop", DROP),
    }


@dataclass
class Fleet:
    workdir: Path
    sshd: TestSSHD
    ssh_config: Path
    roots: dict[str, Path]
    kinds: dict[str, str] = field(default_factory=dict)   # alias -> kind
    blackhole: BlackholeListener | None = None

    def hosts(self, kind: str | None = None) -> list[str]:
        return [a for a, k in self.kinds.items() if kind is None or k == kind]

    def stop(self) -> None:
        if self.blackhole is not None:
            self.blackhole.stop()
        self.sshd.stop()


def start_sshd(workdir: Path, identity: Path, addresses: tuple[str, ...] = FLEET_ADDRESSES,
               options: Mapping[str, str] | None = None) -> TestSSHD:
    authorized = keygen(identity, "rocmdoctor-sweep-test")
    return TestSSHD(workdir / "sshd", [authorized], addresses=addresses, options=dict(options or {})).start()


def build_fleet(workdir: Path, count: int, faults: Mapping[str, int] | None = None,
                healthy_kinds: Iterable[str] = ("healthy", "no-driver", "tool-warn"),
                addresses: tuple[str, ...] = FLEET_ADDRESSES, sshd: TestSSHD | None = None,
                sshd_options: Mapping[str, str] | None = None) -> Fleet:
    """node001..nodeNNN; `faults` maps a fault kind to how many hosts get it (spread through the list)."""
    workdir.mkdir(parents=True, exist_ok=True)
    identity = workdir / "id_ed25519"
    sshd = sshd or start_sshd(workdir, identity, addresses, sshd_options)
    known = write_known_hosts(workdir / "known_hosts", known_hosts_entries(sshd, addresses))
    wrong_key = keygen(workdir / "wrong_host_key", "not-the-server")
    bad_known = write_known_hosts(workdir / "known_hosts_wrong",
                                  [(f"[{a}]:{sshd.port}", " ".join(wrong_key.split()[:2])) for a in addresses])
    stranger = workdir / "id_stranger"
    keygen(stranger, "not-authorized")
    nodes = sim_nodes()
    roots = {kind: n.materialize(workdir / "nodes" / kind) for kind, n in nodes.items()}
    env = {kind: dict(sim_transport(root).env) for kind, root in roots.items()}

    names = [f"node{i:03d}" for i in range(1, count + 1)]
    kinds: dict[str, str] = {}
    faulty = [k for k, n in (faults or {}).items() for _ in range(n)]
    if faulty:  # spread faults evenly so every stretch of the sweep meets some
        stride = count / len(faulty)
        for j, kind in enumerate(faulty):
            kinds[names[int(j * stride)]] = kind
    healthy_cycle = itertools.cycle(healthy_kinds)
    blackhole = BlackholeListener("127.0.0.1", max_lifetime=600) if "timeout" in kinds.values() else None
    refused_port = closed_port("127.0.0.1")
    aliases = []
    for i, name in enumerate(names):
        kind = kinds.setdefault(name, next(healthy_cycle))
        addr = addresses[i % len(addresses)]
        alias = Alias(name, addr, sshd.port, str(identity), str(known))
        if kind in roots:
            alias.setenv = {"ROCMDOCTOR_ROOTFS": str(roots[kind]), **env[kind]}
        elif kind == "refused":
            alias.hostname, alias.port = "127.0.0.1", refused_port
        elif kind == "timeout":
            assert blackhole is not None
            alias.hostname, alias.port = "127.0.0.1", blackhole.port
        elif kind == "host-key-changed":
            alias.known_hosts = str(bad_known)
        elif kind == "auth":
            alias.identity_file = str(stranger)
        aliases.append(alias)
    config = write_ssh_config(workdir / "ssh_config", aliases)
    return Fleet(workdir, sshd, config, roots, kinds, blackhole)
