"""Built-in simulated incident nodes, so anyone can see rocmdoctor work
without an AMD GPU. Each run materialises a fresh copy of the node, so a
`--fix` changes only that copy.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from rocmdoctor.audit import AuditLog
from rocmdoctor.errors import TargetError
from rocmdoctor.paths import cache_dir
from rocmdoctor.transports.base import Transport


def demo_names() -> dict[str, str]:
    from rocmdoctor.testing.scenarios import SCENARIOS

    return {name: s.description for name, s in sorted(SCENARIOS.items())}


def demo_vars(target: str) -> dict[str, str]:
    """Variables a demo node needs to show its fault (e.g. expect_gpus, container),
    applied automatically; --var on the command line still wins."""
    if not target.startswith("demo:"):
        return {}
    from rocmdoctor.testing.scenarios import SCENARIOS

    scenario = SCENARIOS.get(target[5:])
    if scenario is None:
        return {}
    return {k: str(v) for k, v in dict(scenario.expect.get("vars", {})).items()}


def materialize_demo(name: str) -> Path:
    from rocmdoctor.testing.scenarios import SCENARIOS

    scenario = SCENARIOS.get(name)
    if scenario is None:
        import difflib

        close = difflib.get_close_matches(name, list(SCENARIOS), n=1)
        hint = f"did you mean demo:{close[0]}?" if close else "list them with `rocmdoctor demo list`"
        raise TargetError(f"unknown demo node '{name}'", hint)
    base = _demo_base()
    directory = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=base))
    scenario.build().materialize(directory)
    return directory


def _demo_base() -> Path:
    """tmpfs when there is one: a node is ~600 small files, written 10x faster there."""
    import os

    shm = Path("/dev/shm")
    base = shm / f"rocmdoctor-demo-{os.getuid()}" if shm.is_dir() and os.access(shm, os.W_OK) else cache_dir() / "demo"
    base.mkdir(parents=True, exist_ok=True)
    return base


def open_demo(name: str, *, dry_run: bool = False, audit: AuditLog | None = None, keep: bool = False) -> Transport:
    """A transport to a fresh copy of the demo node, removed again when the transport closes."""
    import shutil

    from rocmdoctor.testing.simnode import sim_transport

    directory = materialize_demo(name)
    transport = sim_transport(directory, dry_run=dry_run, audit=audit)
    transport.host = f"demo:{name}"
    if not keep:
        transport.on_close.append(lambda: shutil.rmtree(directory, ignore_errors=True))
    return transport
