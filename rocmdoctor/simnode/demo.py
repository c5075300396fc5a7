"""Built-in simulated incident nodes, so anyone can see rocmdoctor work
without an AMD GPU. Each run materialises a fresh copy of the node, so a
`--fix` changes only that copy.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.errors import TargetError
from rocmdoctor.paths import cache_dir
from rocmdoctor.transports.base import Transport


def demo_names() -> dict[str, str]:
    from rocmdoctor.simnode.scenarios import SCENARIOS

    return {name: s.description for name, s in sorted(SCENARIOS.items())}


def demo_vars(target: str) -> dict[str, str]:
    """Variables a demo node needs to show its fault (e.g. expect_gpus, container),
    applied automatically; --var on the command line still wins."""
    if not target.startswith("demo:"):
        return {}
    from rocmdoctor.simnode.scenarios import SCENARIOS

    scenario = SCENARIOS.get(target[5:])
    if scenario is None:
        return {}
    return {k: str(v) for k, v in dict(scenario.expect.get("vars", {})).items()}


def materialize_demo(name: str) -> Path:
    from rocmdoctor.simnode.scenarios import SCENARIOS

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
    """Demo copies live under the cache dir; copies older than an hour are pruned, so
    repeated demos do not pile up, while the node of a run just made can still be read."""
    import shutil

    base = cache_dir() / "demo"
    base.mkdir(parents=True, exist_ok=True)
    cutoff = time.time() - 3600
    for old in base.iterdir():
        try:
            if old.is_dir() and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
    return base


def open_demo(name: str, *, dry_run: bool = False, audit: AuditLog | None = None) -> Transport:
    """A transport to a fresh copy of the demo node (so --fix changes only that copy)."""
    from rocmdoctor.simnode.node import sim_transport

    directory = materialize_demo(name)
    transport = sim_transport(directory, dry_run=dry_run, audit=audit)
    transport.host = f"demo:{name}"
    return transport
