"""amdgpu not loaded on an OS the installed ROCm release does not support: gpu-not-visible names the OS first
(unsupported-kernel-or-os), with the release read from the install the ticket pastes. Texts are a corpus case's
verbatim evidence; its case.md names the thread."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.results import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

CASE = (Path(__file__).resolve().parent / "incidents" / "gpu-not-visible"
        / "lp-amdai1-ubuntu2310-amdgpu-dkms-2204-rock-not-loaded" / "bundle")
VARS = {"log": "/ticket/dpkg.log", "report": "/ticket/report.md"}


def _files() -> dict[str, str]:
    return {str(p.relative_to(CASE)): p.read_text() for p in CASE.rglob("*") if p.is_file()}


def test_rocm_5_7_1_on_ubuntu_23_10_is_named_before_amdgpu_not_loaded(tmp_path: Path) -> None:
    """nktice/AMD-AI#1: AMD's 22.04 packages (rocm-dkms 5.7.1.50701-98~22.04) on Ubuntu 23.10, and rocminfo's
    "ROCk module is NOT loaded"."""
    rb, step = triage_bundle_step(tmp_path, _files(), "gpu-not-visible", "support", vars=VARS)
    assert step.check is not None and step.check.state == State.WARN
    assert step.check.message.startswith("Ubuntu 23.10 is not a supported OS for ROCm 5.7.1")
    assert any("rocm-dkms:amd64 <none> 5.7.1.50701-98~22.04" in e for e in step.check.evidence)
    ids = [d.diagnosis_id for d in rb.diagnoses]
    assert ids[0] == "unsupported-kernel-or-os" and "amdgpu-not-loaded" in ids
    assert "and amdgpu is not loaded" in rb.diagnoses[0].cause


def test_without_the_release_the_os_is_not_judged(tmp_path: Path) -> None:
    files = {k: v for k, v in _files().items() if not k.endswith("dpkg.log")}
    rb, step = triage_bundle_step(tmp_path, files, "gpu-not-visible", "support", vars={"report": "/ticket/report.md"})
    assert step.check is not None and step.check.state == State.UNKNOWN
    assert "unsupported-kernel-or-os" not in [d.diagnosis_id for d in rb.diagnoses]
