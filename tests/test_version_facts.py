"""Version facts from where they are published (issue 41, item 4): a DKMS build's own header names
the driver and the kernel; the driver names its ROCm release and AMD's compatibility matrix the
kernels that release supports, so the verdict names the releases involved."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State

# the header line of a real make.log (ROCm/legacy-rocm-build#5624, in the corpus) and DKMS 2's form
HEADER_3 = "DKMS (dkms-3.2.0) make.log for amdgpu/{v} for kernel {k} (x86_64)\n"


def _step(tmp_path: Path, version: str, kernel: str):  # type: ignore[no-untyped-def]
    log = tmp_path / "files" / "var" / "lib" / "dkms" / "amdgpu" / version / "build" / "make.log"
    log.parent.mkdir(parents=True)
    log.write_text(HEADER_3.format(v=version, k=kernel))
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("kernel-driver-mismatch",)))
    rb = report.runbooks[0]
    return rb, next(s for s in rb.steps if s.step_id == "buildkernel")


def test_a_build_for_a_newer_kernel_than_its_release_supports_names_both_releases(tmp_path: Path) -> None:
    rb, step = _step(tmp_path, "6.12.12-2202139.24.04", "6.17.0-6-generic")
    assert step.state == State.WARN
    assert "ROCm 6.4's driver" in step.check.message and "Ubuntu 24.04" in step.check.message
    assert "6.8, 6.11" in step.check.message and "6.17.0-6-generic" in step.check.message
    assert any("compat-matrix-6.4.3" in e for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "unsupported-kernel-or-os"


def test_a_build_for_a_supported_kernel_passes(tmp_path: Path) -> None:
    _, step = _step(tmp_path, "6.12.12-2202139.24.04", "6.8.0-45-generic")
    assert step.state == State.PASS and "which ROCm 6.4 supports on Ubuntu 24.04" in step.check.message


@pytest.mark.parametrize("version, says", [
    ("6.16.13-2278356.24.04", "ROCm 7.2, whose compatibility matrix rocmdoctor's table does not hold yet"),
    ("9.9.9-1.24.04", "does not name the ROCm release"),
])
def test_a_release_the_table_lacks_is_unknown_not_a_guess(tmp_path: Path, version: str, says: str) -> None:
    _, step = _step(tmp_path, version, "6.18.7-061807-generic")
    assert step.state == State.UNKNOWN and says in step.check.message
