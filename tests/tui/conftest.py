"""Fixtures for the TUI tests: simulated nodes, a session on them, and an
isolated XDG tree so nothing lands in the real home directory."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.engine.core import TriageRequest
from rocmdoctor.testing.incident import CATALOG, amdgpu_unloaded_node
from rocmdoctor.simnode.node import sim_transport


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    monkeypatch.delenv("ROCMDOCTOR_INCIDENTS_DIR", raising=False)


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Input

    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None, raising=False)


@pytest.fixture
def make_session(tmp_path: Path) -> Callable[..., object]:
    from rocmdoctor.tui.session import IncidentSession

    def make(runbooks: tuple[str, ...] = ("incident_test_gpu",), slow_seconds: float = 0, **kw: object):  # type: ignore[no-untyped-def]
        root = amdgpu_unloaded_node(tmp_path / "nodes", slow_seconds=slow_seconds)
        request = TriageRequest("gpu-07", runbooks=runbooks, paths=(str(CATALOG),))
        opener = kw.pop("open_transport", None) or (
            lambda r: sim_transport(root, audit=AuditLog(tmp_path / "audit.log")))
        session = IncidentSession(request, incidents_dir=str(tmp_path / "incidents"), open_transport=opener)
        session.node_root = root  # type: ignore[attr-defined]
        return session

    return make

