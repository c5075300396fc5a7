"""A sweep result with every kind of host, and hostile strings where a node controls them."""

from __future__ import annotations

import pytest

from rocmdoctor.status import State
from rocmdoctor.fleet.sweep import CheckRow, HostResult, SweepResult

HOSTILE = 'amdgpu "bad" \\ path\nnext line </failure><x a="1"> \x07bell ✖'


def _rows(host_states: list[tuple[str, State, str]]) -> tuple[CheckRow, ...]:
    return tuple(CheckRow("gpu-not-visible", step, f"check.{step}", state, msg) for step, state, msg in host_states)


@pytest.fixture
def sweep() -> SweepResult:
    hosts = (
        HostResult("node001", State.PASS, duration_ms=812, round_trips=1,
                   runbooks=(("gpu-not-visible", State.PASS), ("gpu-oom", State.PASS)),
                   checks=_rows([("pci", State.PASS, "8 AMD GPU(s) on the PCI bus"),
                                 ("module", State.SKIPPED, "condition not met")])),
        HostResult("node002", State.FAIL, message="gpu-not-visible/module: " + HOSTILE, duration_ms=901,
                   round_trips=1, runbooks=(("gpu-not-visible", State.FAIL), ("gpu-oom", State.PASS)),
                   checks=_rows([("pci", State.PASS, "8 AMD GPU(s)"), ("module", State.FAIL, HOSTILE)]),
                   groups=("rack7",)),
        HostResult("node003", State.WARN, message="gpu-oom/vram: 97% used", duration_ms=700, round_trips=1,
                   runbooks=(("gpu-not-visible", State.PASS), ("gpu-oom", State.WARN)),
                   checks=_rows([("pci", State.PASS, "8"), ("vram", State.WARN, "97% used")])),
        HostResult("node004", State.UNKNOWN, reason="host-key-changed",
                   message="node004: HOST KEY CHANGED for [10.0.0.4]:22", duration_ms=40),
        HostResult('we"ird\\host', State.UNKNOWN, reason="timeout", message="no SSH handshake within 8s",
                   duration_ms=8000),
        HostResult("node006", State.UNKNOWN, duration_ms=650, round_trips=1,
                   runbooks=(("gpu-not-visible", State.UNKNOWN),),
                   checks=_rows([("pci", State.UNKNOWN, "/sys/bus/pci: permission denied")])),
    )
    return SweepResult(hosts, ("gpu-not-visible", "gpu-oom"), "2025-01-01T00:00:00+00:00", 12.5, 64, 30.0, 120.0, 3)
