"""Slurm drain/resume as LBNL NHC does it, against a fake sinfo/scontrol that records argv."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.fleet.slurm_drain import PREFIX, SlurmDrainer, apply, drain_reason
from rocmdoctor.status import State
from rocmdoctor.testing.fake_slurm import FakeSlurm


@pytest.fixture
def slurm(tmp_path: Path) -> FakeSlurm:
    return FakeSlurm(tmp_path / "slurm")


def _drainer(slurm: FakeSlurm, tmp_path: Path, timeout: float = 5.0) -> SlurmDrainer:
    return SlurmDrainer(audit=AuditLog(tmp_path / "audit.log"), timeout=timeout,
                        sinfo=str(slurm.bin / "sinfo"), scontrol=str(slurm.bin / "scontrol"))


def test_drain_passes_reason_as_one_argument_and_audits(slurm: FakeSlurm, tmp_path: Path) -> None:
    slurm.node("gpu07")
    hostile = 'amdgpu "gone"; $(reboot) `id`\n next'
    reason = drain_reason(State.FAIL, hostile)
    assert reason == f'{PREFIX} [node_problem] fail: amdgpu "gone"; $(reboot) `id` next'
    action = _drainer(slurm, tmp_path).drain("gpu07", reason)
    assert action.action == "drain" and action.exit_status == 0
    assert slurm.calls()[-1][1:] == ["update", "NodeName=gpu07", "State=DRAIN", f"Reason={reason}"]
    assert slurm.state("gpu07") == ("drained", reason)
    audit = [json.loads(line) for line in (tmp_path / "audit.log").read_text().splitlines()]
    assert audit[-1]["host"] == "gpu07" and audit[-1]["exit_status"] == 0
    assert audit[-1]["command"].endswith("""update NodeName=gpu07 State=DRAIN 'Reason=rocmdoctor: [node_problem] fail: amdgpu "gone"; $(reboot) `id` next'""")
    assert audit[0]["command"].endswith("sinfo --noheader --Node --nodes=gpu07 '--format=%T|%E'")


def test_an_operators_drain_is_never_touched(slurm: FakeSlurm, tmp_path: Path) -> None:
    slurm.node("gpu08", "drained", "replace DIMM B3 [ops@2025-01-02T10:00:00]").node("gpu09", "down*")
    d = _drainer(slurm, tmp_path)
    assert d.drain("gpu08", drain_reason(State.FAIL, "x")).action == "skip"
    assert d.resume("gpu08").action == "skip"
    assert d.drain("gpu09", drain_reason(State.FAIL, "x")).action == "skip"
    assert slurm.state("gpu08") == ("drained", "replace DIMM B3 [ops@2025-01-02T10:00:00]")
    assert not [c for c in slurm.calls() if c[0] == "scontrol"]


def test_an_operators_note_is_kept_and_then_not_resumed(slurm: FakeSlurm, tmp_path: Path) -> None:
    slurm.node("gpu10", "idle", "watch fan 3")
    d = _drainer(slurm, tmp_path)
    assert d.drain("gpu10", drain_reason(State.FAIL, "amdgpu not loaded")).action == "drain"
    state, reason = slurm.state("gpu10")
    assert state == "drained" and reason.startswith("watch fan 3; rocmdoctor:")
    assert d.resume("gpu10").action == "skip" and slurm.state("gpu10")[0] == "drained"


def test_resume_only_what_rocmdoctor_drained(slurm: FakeSlurm, tmp_path: Path) -> None:
    slurm.node("gpu11", "drained", f"{PREFIX} [node_problem] fail: amdgpu not loaded").node("gpu12")
    d = _drainer(slurm, tmp_path)
    assert d.resume("gpu11").action == "resume"
    assert slurm.calls()[-1][1:] == ["update", "NodeName=gpu11", "State=RESUME"]
    assert slurm.state("gpu11") == ("idle", None)
    assert d.resume("gpu12").action == "skip"


@pytest.mark.serial
def test_a_hung_slurmctld_costs_the_timeout_not_the_health_check(slurm: FakeSlurm, tmp_path: Path) -> None:
    slurm.node("gpu13")
    slurm.hang()
    start = time.monotonic()
    action = _drainer(slurm, tmp_path, timeout=0.5).drain("gpu13", drain_reason(State.FAIL, "x"))
    assert time.monotonic() - start < 3
    assert action.action == "error" and "timed out after 0.5s" in action.message
    entry = json.loads((tmp_path / "audit.log").read_text().splitlines()[-1])
    assert entry["exit_status"] is None and "timed out" in entry["note"]


def test_unknown_node_and_missing_tool_are_errors(slurm: FakeSlurm, tmp_path: Path) -> None:
    assert "no node 'ghost'" in _drainer(slurm, tmp_path).drain("ghost", "r").message
    d = SlurmDrainer(audit=AuditLog(tmp_path / "a.log"), sinfo=str(tmp_path / "nope"))
    assert "cannot run" in d.drain("gpu1", "r").message


def test_apply_levels_and_unreachable_hosts(slurm: FakeSlurm, tmp_path: Path) -> None:
    for n in ("a", "b", "c", "d"):
        slurm.node(n)
    slurm.node("e", "drained", f"{PREFIX} [node_problem] fail: old")
    rows = [("a", State.FAIL, "f", True), ("b", State.WARN, "w", True), ("c", State.UNKNOWN, "u", True),
            ("d", State.FAIL, "timeout: unreachable", False), ("e", State.PASS, "", True)]
    acts = {a.node: a.action for a in apply(_drainer(slurm, tmp_path), rows, drain_on="critical", resume=False)}
    assert acts == {"a": "drain"}
    acts = {a.node: a.action for a in apply(_drainer(slurm, tmp_path), rows, drain_on="warning", resume=True)}
    assert acts == {"a": "drain", "b": "drain", "e": "resume"}
    assert slurm.state("d") == ("idle", None) and slurm.state("c") == ("idle", None)
