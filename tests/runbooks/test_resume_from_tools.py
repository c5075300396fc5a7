"""A GPU that did not come back from runtime power-down, read from the tools alone (no kernel line): rocm-smi's
blank sensor reads (amdgpu_pm.c refuses them for a GPU that is not active) beside the runtime's
HSA_STATUS_ERROR_OUT_OF_RESOURCES. rocm-smi's blank reads alone are an idle GPU and stay benign."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State

CORPUS = Path(__file__).parents[1] / "incidents" / "gpu-not-visible"


def _report(case: str):  # type: ignore[no-untyped-def]
    return triage_target(TriageRequest(target="", bundle=str(CORPUS / case / "bundle"), runbooks=("gpu-not-visible",))).runbooks[0]


def test_blank_sensors_beside_out_of_resources_is_a_failed_wake() -> None:
    rb = _report("therock-ci-shark38-gfx1100-slot1-bad-state-until-reboot")   # ROCm/TheRock CI node, AMD: reboot fixed it
    step = next(s for s in rb.steps if s.step_id == "rocminfo")
    assert step.check.outputs["unwoken"] is True
    assert step.check.outputs["smi_line"] == 'Expected integer value from monitor, but got ""'
    d = rb.diagnoses[0]
    assert d.diagnosis_id == "gpu-resume-failed"
    assert "the GPU did not come back when the runtime woke it" in d.cause
    assert any("HSA_STATUS_ERROR_OUT_OF_RESOURCES" in e for e in d.evidence)


def test_blank_sensors_alone_are_an_idle_gpu() -> None:
    rb = _report("w7900-node2-rocm-smi-na-runtime-suspended")
    assert "gpu-resume-failed" not in [d.diagnosis_id for d in rb.diagnoses]
    assert rb.state != State.FAIL
