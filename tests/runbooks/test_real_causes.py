"""Root causes first seen in real threads, reproduced on simulated nodes that carry the threads'
own lines: the expected diagnosis comes first in its runbook, quoting the deciding line."""

from __future__ import annotations

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.scenarios import SCENARIOS, real_causes
from rocmdoctor.status import State

CASES = [(c[0], "gpu-not-visible") for c in real_causes.GPU_NOT_VISIBLE] + \
        [(c[0], "kernel-driver-mismatch") for c in real_causes.KERNEL_DRIVER] + \
        [(c[0], "thermal-throttling") for c in real_causes.THERMAL] + \
        [(c[0], "container-mount-failure") for c in real_causes.CONTAINER]

DECIDING = {
    "kfd-asic-not-supported": "kfd kfd: amdgpu: PITCAIRN  not supported in kfd",
    "kfd-pci-rejects-atomics": "kfd kfd: skipped device 1002:699f, PCI rejects atomics",
    "dkms-build-failed": "Error! Bad return status for module build on kernel: 6.14.0-24-generic (x86_64)",
    "missing-dependency-module": "amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)",
    "fan-curve-too-quiet": "rocm-smi GPU 0: edge +94.0 C, fan 40.0 %",
    "container-host-driver-missing": "cat /proc/modules: no line starting with 'amdgpu '",
    "container-rootless-nogroup": "Unable to open /dev/kfd read-write: Permission denied",
    "container-kfd-einval": "Unable to open /dev/kfd read-write: Invalid argument",
    "pci-bar-exhausted": "amdgpu 0000:0d:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]",
}


@pytest.mark.parametrize("name,runbook", CASES)
def test_first_diagnosis_and_its_line(name: str, runbook: str) -> None:
    expect = SCENARIOS[name].expect
    report = triage_target(TriageRequest(target=f"demo:{name}", runbooks=(runbook,)))
    rb = next(r for r in report.runbooks if r.runbook_id == runbook)
    assert rb.state in (State.FAIL, State.WARN)
    first = rb.diagnoses[0]
    assert first.diagnosis_id == expect["diagnosis"], [d.diagnosis_id for d in rb.diagnoses]
    assert any(DECIDING[name] in line for line in first.evidence), first.evidence


def test_kfd_refusal_is_not_called_a_memory_shortage() -> None:
    report = triage_target(TriageRequest(target="demo:kfd-asic-not-supported", runbooks=("gpu-not-visible",)))
    steps = {s.step_id: s for s in report.runbooks[0].steps}
    assert "not a memory shortage" in steps["rocminfo"].check.message
    assert "gpu-oom" not in {rb.runbook_id for rb in report.runbooks}


def test_failed_build_names_the_kernel_and_the_supported_ones() -> None:
    report = triage_target(TriageRequest(target="demo:dkms-build-failed", runbooks=("kernel-driver-mismatch",),
                                         vars={"log": "/root/amdgpu-install.log"}))
    steps = {s.step_id: s for rb in report.runbooks for s in rb.steps}
    assert steps["buildconsole"].check.message.startswith(
        "DKMS could not build amdgpu 6.12.12-2164967.24.04 for kernel 6.14.0-24-generic")
    assert steps["support"].check.message.endswith("AMD supports kernel 6.8 or 6.11 there")
