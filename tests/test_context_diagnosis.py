"""A runbook diagnosis marked `context` (a condition such as the GPU being off AMD's list) yields to the
specific cause a log line names."""

from __future__ import annotations

from pathlib import Path

import yaml

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.core import TriageRequest, triage_target

INCIDENTS = Path(__file__).resolve().parent / "incidents"


def test_unsupported_gpu_is_declared_a_condition() -> None:
    rb = load_catalog().runbooks["gpu-not-visible"]
    assert [d.context for d in rb.diagnoses if d.id == "unsupported-gpu"] == [True]
    assert not any(d.context for d in rb.diagnoses if d.id != "unsupported-gpu")


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
