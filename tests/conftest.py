"""Shared fixtures: every test is isolated from the user's home, and simulated nodes are cheap."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterator

import pytest

from rocmdoctor.simnode.node import SimNode


@pytest.fixture(autouse=True)
def audit_log(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The audit log and all XDG dirs point into a per-test temp dir, so no test writes to ~.

    The dir is removed after the test: the plan cache and demo nodes it collects came to ~7 MB a
    test, and pytest's three kept runs filled a shared CI disk (76 GB) until a run failed."""
    base = tmp_path_factory.mktemp("home")
    for var, sub in (("XDG_STATE_HOME", "state"), ("XDG_DATA_HOME", "data"),
                     ("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config")):
        monkeypatch.setenv(var, str(base / sub))
    log = base / "audit.log"
    monkeypatch.setenv("ROCMDOCTOR_AUDIT_LOG", str(log))
    yield log
    shutil.rmtree(base, ignore_errors=True)


def _fast_tmp() -> str | None:
    """tmpfs if there is one: creating the ~600 files of a node is 50x faster there than on ext4."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


@pytest.fixture
def sim_node(tmp_path: Path) -> Iterator[Callable[..., Path]]:
    """Factory: `root = sim_node(node)` materializes a SimNode (default: healthy 8x MI300X)
    into a fresh directory and returns its root; everything is removed after the test."""
    base = Path(tempfile.mkdtemp(prefix="rocmdoctor-sim-", dir=_fast_tmp() or str(tmp_path)))
    count = 0

    def make(node: SimNode | None = None) -> Path:
        nonlocal count
        if node is None:
            from rocmdoctor.simnode.nodes import healthy_mi300x

            node = healthy_mi300x()
        count += 1
        return node.materialize(base / f"{count:03d}-{node.name}")

    yield make
    shutil.rmtree(base, ignore_errors=True)
