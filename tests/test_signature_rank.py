"""Two signature readings of one line keep the order the catalogue ranks them in (confidence, line, the more
specific first) when they become a runbook's diagnoses; only a runbook's own diagnosis resting on that line, or a
signature's declared `cause_of`, moves one ahead. explain ranks from the same triage, so it agrees."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import explain_report
from rocmdoctor.engine.signatures import explain_text

# yaksa's init hook quoting HIP's words (the signature's real sample, pmodels/yaksa#262)
YAKSA = ("HIP Error (yaksuri_hip_init_hook:src/backend/hip/hooks/yaksuri_hip_init_hooks.c,111): "
         "no ROCm-capable device is detected")
# tensorflow-rocm 2.14.0.600's glued target list (ROCm/tensorflow-upstream#2434), the corpus case's line verbatim
_CASE = Path(__file__).resolve().parent / "incidents" / "gpu-not-visible" / "tf-rocm-2.14-gfx1100-ignored-gfx1030gfx1100-typo"
TF = next(ln for f in sorted((_CASE / "bundle" / "files" / "ticket").iterdir())
          for ln in f.read_text().splitlines() if "gfx1030gfx1100" in ln)


def _first(text: str) -> list[str]:
    rb = next(r for r in explain_report(text).runbooks if r.runbook_id == "gpu-not-visible")
    return [d.diagnosis_id for d in rb.diagnoses]


def test_the_more_specific_reading_of_a_line_stays_first() -> None:
    ranked = [m.signature_id for m in explain_text(YAKSA)]
    assert ranked[:2] == ["yaksa-hip-init-hook-failed", "hip-no-rocm-capable-device"]
    # the bare HIP text under it is a symptom (leaves_open): it adds no second cause
    assert _first(YAKSA) == ["yaksa-hip-backend-fails-without-gpu"]


def test_a_rocm_tool_missing_its_own_library_has_one_reading() -> None:
    line = "rocminfo: error while loading shared libraries: libhsakmt.so.1: cannot open shared object file: No such file or directory"
    assert [m.signature_id for m in explain_text(line)] == ["rocm-own-tool-library-missing"]
    assert _first(line)[0] == "rocm-package-missing-dependency"


def test_a_declared_cause_goes_ahead_of_the_reading_it_explains() -> None:
    assert [m.signature_id for m in explain_text(TF)][0] == "tf-gpu-unsupported-gfx"   # equally sure, more literal
    assert _first(TF)[:2] == ["framework-build-rejects-supported-gpu", "no-code-object-for-gpu"]
