"""A runbook diagnosis marked `context` (a condition such as the GPU being off AMD's list) yields to the
specific cause a log line names."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.core import TriageRequest, triage_target

INCIDENTS = Path(__file__).resolve().parent / "incidents"


@pytest.mark.parametrize("runbook", ["gpu-not-visible", "wrong-results", "gpu-oom", "gpu-hardware-fault"])
def test_unsupported_gpu_is_declared_a_condition(runbook: str) -> None:
    rb = load_catalog().runbooks[runbook]
    assert [d.context for d in rb.diagnoses if d.id == "unsupported-gpu"] == [True]
    # rocminfo's ENOMEM on /dev/kfd is the other one: a consequence whose reason the kernel log names
    others = [(d.id, d.step) for d in rb.diagnoses if d.context and d.id != "unsupported-gpu"]
    assert others == ([("gpu-missing-from-kfd", "rocminfo")] if runbook == "gpu-not-visible" else [])


def test_rocminfo_enomem_yields_to_the_kernel_logs_reason() -> None:
    """ROCm/ROCm#1318 (in the corpus): rocminfo's "Unable to open /dev/kfd read-write: Cannot allocate memory" beside
    the kernel's "DID 7340 is missing in supported_devices": the kernel line's cause (an ASIC this KFD does not
    support) comes first, the ENOMEM reading (KFD has no usable GPU, reasons left open) after it."""
    made = _diagnoses(INCIDENTS / "gpu-not-visible" / "navi14-rx5500-did-7340-missing-in-kfd", "gpu-not-visible")
    assert [d.diagnosis_id for d in made][:2] == ["asic-not-supported-by-kfd", "gpu-missing-from-kfd"]
    assert any("DID 7340 is missing in supported_devices" in e for e in made[0].evidence)
    assert any("Cannot allocate memory" in e for e in made[1].evidence)


def _diagnoses(case: Path, runbook: str):  # type: ignore[no-untyped-def]
    vars_ = yaml.safe_load((case / "expect.yaml").read_text()).get("vars") or {}
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=(runbook,), vars=vars_))
    return report.runbooks[0].diagnoses


def test_a_symptom_runbook_names_a_gpu_its_release_does_not_list() -> None:
    # ROCm/tensorflow-upstream#1238 (in the corpus): NaN losses on an RX 580 (gfx803) under ROCm 4.0, whose list
    # no longer holds gfx803; the ticket's stated environment is the only evidence of the GPU and the release
    (made,) = _diagnoses(INCIDENTS / "wrong-results" / "rx580-rocm40-tf-rocm240-val-loss-nan-gfx803", "wrong-results")
    assert made.diagnosis_id == "unsupported-gpu" and made.confidence == "low"
    assert "gfx803 (AMD Radeon RX-580 4GB) is not on ROCm 4.0's list" in made.cause
    assert "the ticket states: - ROCm version: 4.0" in made.evidence


def test_a_generic_line_reading_goes_before_the_condition() -> None:
    # CTranslate2's illegal-address line is a fallback (generic) reading, the GPU off ROCm 7.2's list a condition:
    # the job's own failure is read first and the condition follows it as context (the thread's cause was the
    # library's stream-ordered allocator, not the GPU)
    made = _diagnoses(INCIDENTS / "gpu-hardware-fault" / "ctranslate2-rx6600-gfx1032-hipmallocasync-illegal-memory-access",
                      "gpu-hardware-fault")
    assert [d.diagnosis_id for d in made] == ["framework-bug-memory-fault", "unsupported-gpu"]
    assert any("illegal memory access" in e for e in made[0].evidence)


def test_the_lines_own_cause_goes_before_the_gpu_being_off_the_list() -> None:
    # Debian CI on a Steam Deck (gfx1033): ROCr's addrlib assertion, on a GPU no ROCm release lists
    case = INCIDENTS / "gpu-not-visible" / "debian-ci-steamdeck-gfx1033-rocr-addrlib-chip-revision-assert"
    vars_ = yaml.safe_load((case / "expect.yaml").read_text()).get("vars") or {}
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=("gpu-not-visible",), vars=vars_))
    made = [d.diagnosis_id for d in report.runbooks[0].diagnoses]
    assert made[:2] == ["rocr-addrlib-unknown-chip-revision", "unsupported-gpu"]
    unsupported = report.runbooks[0].diagnoses[1]
    assert "gfx1033" in unsupported.cause


def test_a_context_flag_that_is_not_a_boolean_is_refused(tmp_path: Path) -> None:
    from rocmdoctor.errors import RocmdoctorError

    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "x.yaml").write_text(
        "id: x\ntitle: X\nsteps:\n  - id: module\n    check: amdgpu.module_loaded\n"
        "diagnoses:\n  - id: y\n    step: module\n    when: \"steps.module.state == 'fail'\"\n    cause: c\n    context: maybe\n")
    try:
        load_catalog((str(tmp_path),))
    except RocmdoctorError as exc:
        assert "x.yaml:11" in str(exc) and "'context'" in str(exc)
    else:
        raise AssertionError("a non-boolean context was accepted")
