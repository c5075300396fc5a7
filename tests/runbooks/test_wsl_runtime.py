"""ROCm's WSL build of rocminfo: recognised from its own words (a ticket often holds nothing else),
its refusal ("ROCR: unsupported GPU", "No WDDM adapters found") named as a GPU or driver that ROCm
on WSL does not support, and run at all on a live WSL guest, which has no PCI GPU of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.testing.triage_helpers import diagnoses, evidence, steps

RUNBOOK = "gpu-not-visible"
INCIDENTS = Path(__file__).parents[1] / "incidents" / "gpu-not-visible"


def _bundle(tmp_path: Path, rocminfo: str) -> str:
    d = tmp_path / "commands" / "rocminfo"
    d.mkdir(parents=True)
    (d / "stdout").write_text(rocminfo)
    return str(tmp_path)


def test_live_wsl_guest_runs_rocminfo_and_names_the_unsupported_gpu() -> None:
    report = triage_target(TriageRequest(target="demo:wsl-gpu-unsupported", runbooks=(RUNBOOK,)))
    s = steps(report)
    assert s["gpus"].state == State.PASS and s["platform"].state == State.WARN
    assert s["rocminfo"].state == State.FAIL
    assert s["rocminfo"].check.message == ("rocminfo runs under WSL and lists no GPU: ROCm's WSL runtime does not "
                                           "support this GPU (ROCR: unsupported GPU)")
    assert "rocminfo: WSL environment detected." in evidence(s["rocminfo"])
    first = report.runbooks[0].diagnoses[0]
    assert first.diagnosis_id == "wsl-gpu-not-supported"
    assert "not supported for ROCm + WSL" in first.cause
    assert any("wsl_compatibility" in f for f in first.follow_up)
    assert report.exit_status == ExitStatus.CRITICAL


@pytest.mark.parametrize("case,platform_line", [
    ("wsl-rx7600xt-rocr-unsupported-gpu", "rocminfo: WSL environment detected."),
    ("wsl-rx7800xt-older-wsl-build-unsupported-gpu",
     "rocminfo: hsa api call failure at: ./sources/wsl/tools/rocminfo/rocminfo.cc:1087"),
])
def test_a_tickets_rocminfo_alone_tells_wsl(case: str, platform_line: str) -> None:
    report = triage_target(TriageRequest(target="", bundle=str(INCIDENTS / case / "bundle"), runbooks=(RUNBOOK,)))
    s = steps(report)
    assert s["platform"].state == State.WARN and platform_line in evidence(s["platform"])
    assert list(diagnoses(report))[:2] == ["wsl-gpu-not-supported", "wsl-no-amdgpu"]


def test_no_wddm_adapter_is_said_as_the_windows_side(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#5900's rocminfo: Windows exposes no GPU to WSL."""
    report = triage_target(TriageRequest(target="", runbooks=(RUNBOOK,), bundle=_bundle(tmp_path, (
        "WSL environment detected.\npid:6895 tid:0x76bf09cbb100 [topology_sysfs_get_system_props] No WDDM adapters "
        "found.\nhsa_init Failed, possibly no supported GPU devices\n"))))
    d = diagnoses(report)["wsl-gpu-not-supported"]
    assert "the Windows driver exposes no GPU adapter to WSL (No WDDM adapters found.)" in d.cause
    assert "Windows exposes no GPU adapter to this WSL distribution" in d.cause


def test_a_native_rocminfo_failure_is_not_called_wsl(tmp_path: Path) -> None:
    report = triage_target(TriageRequest(target="", runbooks=(RUNBOOK,), bundle=_bundle(tmp_path, (
        "ROCk module is loaded\nhsa api call failure at: /src/rocminfo/rocminfo.cc:1142\nCall returned "
        "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n"))))
    assert steps(report)["platform"].state == State.UNKNOWN
    assert "wsl-gpu-not-supported" not in diagnoses(report) and "wsl-no-amdgpu" not in diagnoses(report)


def test_a_working_wsl_rocminfo_passes_and_is_not_called_unsupported() -> None:
    """ROCm/amdsmi#75: ROCm's WSL build lists the RX 7900 XTX; amd-smi's failure there is a tool limit."""
    report = triage_target(TriageRequest(target="", bundle=str(INCIDENTS / "wsl-amd-smi-not-supported" / "bundle"),
                                         runbooks=(RUNBOOK,), vars={"log": "/ticket/amd-smi.txt"}))
    s = steps(report)
    assert s["rocminfo"].state == State.PASS
    assert s["rocminfo"].check.message == "rocminfo runs under WSL (through the Windows driver) and lists 1 GPU agent(s)"
    assert "wsl-gpu-not-supported" not in diagnoses(report)
    assert report.exit_status != ExitStatus.CRITICAL


def test_a_tickets_log_naming_a_wsl_kernel_tells_wsl() -> None:
    """A ticket with only a console log: modprobe names /lib/modules/<release>, Microsoft's WSL kernel
    (harakas/amd_igpu_yolo_v8#1, the corpus case), so "ROCk module is NOT loaded" is WSL, not a missing driver."""
    case = INCIDENTS / "amd-igpu-yolo-docker-wsl2-rock-not-loaded" / "bundle"
    report = triage_target(TriageRequest(target="", bundle=str(case), runbooks=(RUNBOOK,),
                                         vars={"log": "/ticket/console.log"}))
    s = steps(report)
    assert s["platform"].state == State.WARN
    assert "the ticket's log names the kernel 5.15.133.1-microsoft-standard-WSL2" in s["platform"].check.message
    assert ("/ticket/console.log: modprobe: FATAL: Module amdgpu not found in directory "
            "/lib/modules/5.15.133.1-microsoft-standard-WSL2") in evidence(s["platform"])
    first = report.runbooks[0].diagnoses[0]
    assert first.diagnosis_id == "wsl-no-amdgpu", [d.diagnosis_id for d in report.runbooks[0].diagnoses]


def test_a_native_kernel_in_a_tickets_log_is_not_wsl(tmp_path: Path) -> None:
    log = tmp_path / "files" / "ticket" / "console.log"
    log.parent.mkdir(parents=True)
    log.write_text("modprobe: FATAL: Module amdgpu not found in directory /lib/modules/6.8.0-45-generic\n")
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=(RUNBOOK,),
                                         vars={"log": "/ticket/console.log"}))
    assert steps(report)["platform"].state != State.WARN
    assert "wsl-no-amdgpu" not in diagnoses(report)
