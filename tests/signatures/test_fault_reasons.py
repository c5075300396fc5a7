"""ROCr's memory-fault reasons that come from KFD's RAS event types (runtime.cpp VMFaultHandler,
amdkfd kfd_events.c): "SRAM ECC failure" is KFD's signal after a whole-GPU reset an ECC event caused,
so it is read as the GPU's uncorrectable error, and as the job's own fault where the node's RAS
counters and kernel log show none (ROCm/aiter#2821: a null access with that label, counters at 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocmdoctor.testing.cli import captured_demo, run_cli

# verbatim: ROCm/aiter#2821 (the poster elided the agent handle; the reason is on its own line)
SRAM = "Memory access fault by GPU node-4 (Agent handle: 0x...) on address (nil).\nReason: SRAM ECC failure."
RB = "gpu-hardware-fault"


def _captured(tmp: Path, demo: str) -> Path:
    root = captured_demo(demo, tmp)
    log = root / "files" / "ticket" / "job.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(SRAM + "\n")
    return root


def _first(bundle: Path) -> dict:
    proc = run_cli("triage", "--from", str(bundle), "--runbook", RB, "--log", "/ticket/job.log", "--format", "json")
    (rb,) = [r for r in json.loads(proc.stdout)["runbooks"] if r["runbook_id"] == RB]
    return rb["diagnoses"][0]


@pytest.mark.parametrize("demo,diagnosis", [
    ("hw-ecc-uncorrectable", "uncorrectable-ecc"),       # the node's counters hold uncorrectable errors
    ("healthy-mi300x", "framework-bug-memory-fault"),    # counters and kernel log clean: the label is not ECC
])
def test_sram_ecc_reason_is_read_against_the_nodes_ras_counters(tmp_path: Path, demo: str, diagnosis: str) -> None:
    first = _first(_captured(tmp_path, demo))
    assert first["diagnosis_id"] == diagnosis, first
    assert any("Reason: SRAM ECC failure." in line for line in first["evidence"]), first["evidence"]


def test_explain_names_the_reason_without_a_node() -> None:
    proc = run_cli("explain", "Reason: DRAM ECC failure.")
    assert proc.returncode != 2 and "gpu-hardware-fault / uncorrectable-ecc" in proc.stdout
    assert "poisoned memory" in proc.stdout
