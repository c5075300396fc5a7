"""The build targets a ticket pastes against the target the runtime looks for (parser build_targets, check
runtime.build_targets_stated). Texts are corpus cases' verbatim evidence; each case.md names its thread."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.build_targets import parse_build_targets
from rocmdoctor.results import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

CASES = Path(__file__).resolve().parent / "incidents" / "gpu-not-visible"
TYPO = CASES / "llamahip-4762-rx6700s-gfx1032-build-vs-override" / "bundle" / "files" / "ticket"


def _case_line(case: str, path: str, needle: str) -> str:
    return next(line for line in (CASES / case / "bundle" / path).read_text().splitlines() if needle in line)


def test_settings_are_read_in_the_forms_tickets_paste_them() -> None:
    cmake = _case_line("llamacpp-win-hipsdk-gfx1103-override-ignored", "files/ticket/report.md", "cmake -G Ninja")
    got = parse_build_targets(cmake)["settings"]
    assert [(s["var"], s["targets"], s["invalid"]) for s in got] == [("AMDGPU_TARGETS", ["gfx1100"], [])]
    # hipcc's flag with its feature suffixes: the target is gfx90a
    hipcc = _case_line("occa-frontier-rocm-cfg-breaks-hipcc-genco", "files/ticket/occa-addvectors.log", "--genco")
    assert parse_build_targets(hipcc)["targets"] == ["gfx90a"]
    # a quoted or ;-separated PyTorch list; native, generic targets and shell references say nothing checkable
    assert parse_build_targets("PYTORCH_ROCM_ARCH='gfx1151'")["targets"] == ["gfx1151"]
    assert parse_build_targets("PYTORCH_ROCM_ARCH=gfx90a;gfx942;gfx1100")["targets"] == ["gfx1100", "gfx90a", "gfx942"]
    for text in ("--offload-arch=native", "-DGPU_TARGETS=gfx11-generic", "AMDGPU_TARGETS=$GPU_TARGETS"):
        assert parse_build_targets(text)["settings"] == []


def test_a_typo_names_no_target_and_the_override_is_read_beside_it() -> None:
    got = parse_build_targets((TYPO / "report.md").read_text())
    assert got["targets"] == [] and got["invalid"] == ["gxf1032"]
    assert got["override"]["value"] == "10.3.0" and got["override"]["lineno"] == 3


def test_a_build_for_no_target_is_no_code_for_the_gpu(tmp_path: Path) -> None:
    """llama.cpp#4762: AMDGPU_TARGETS=gxf1032 and HSA_OVERRIDE_GFX_VERSION=10.3.0, "invalid device function"."""
    files = {f"files/ticket/{p.name}": p.read_text() for p in TYPO.iterdir()}
    rb, step = triage_bundle_step(tmp_path, files, "gpu-not-visible", "buildtargets",
                                  vars={"log": "/ticket/main.log", "report": "/ticket/report.md"})
    assert step.check is not None and step.check.state == State.FAIL
    assert '"gxf1032" is not a GPU target' in step.check.message
    assert "looks for gfx1030: HSA_OVERRIDE_GFX_VERSION=10.3.0 forces it" in step.check.message
    assert any("AMDGPU_TARGETS=gxf1032" in e for e in step.check.evidence)
    assert any("export HSA_OVERRIDE_GFX_VERSION=10.3.0" in e for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "no-code-object-for-gpu"


def test_a_build_for_one_target_does_not_run_under_an_override_to_another(tmp_path: Path) -> None:
    cmake = _case_line("llamacpp-win-hipsdk-gfx1103-override-ignored", "files/ticket/report.md", "cmake -G Ninja")
    files = {"files/ticket/build.log": cmake + "\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n"}
    rb, step = triage_bundle_step(tmp_path, files, "gpu-not-visible", "buildtargets", vars={"log": "/ticket/build.log"})
    assert step.check is not None and step.check.state == State.FAIL
    assert step.check.message.startswith("the build targets gfx1100, but the runtime looks for gfx1030")
    # the same build on the GPU it names passes; with no GPU and no override the target is unknown
    files = {"files/ticket/build.log": cmake + "\n", "files/ticket/report.md": "### GPU\n\nAMD Radeon RX 7900 XTX\n"}
    _, step = triage_bundle_step(tmp_path / "b", files, "gpu-not-visible", "buildtargets",
                                 vars={"log": "/ticket/build.log", "report": "/ticket/report.md"})
    assert step.check is not None and step.check.state == State.PASS and "include gfx1100" in step.check.message
    _, step = triage_bundle_step(tmp_path / "c", {"files/ticket/build.log": cmake + "\n"}, "gpu-not-visible",
                                 "buildtargets", vars={"log": "/ticket/build.log"})
    assert step.check is not None and step.check.state == State.UNKNOWN


def test_an_override_that_is_no_version_is_read_as_set_and_invalid(tmp_path: Path) -> None:
    """thu-pacman/chitu#118 (Hygon Z100): `export HSA_OVERRIDE_GFX_VERSION=gx906`; the thunk's sscanf("%u.%u.%u")
    rejects it and the GPU's node fails. Shell expansions, placeholders and ollama's empty env dump are not values."""
    report = (CASES / "dcu-chitu118-z100-override-gx906" / "bundle" / "files" / "ticket" / "report.md").read_text()
    got = parse_build_targets(report)["override"]
    assert (got["value"], got["line"]) == ("gx906", "export HSA_OVERRIDE_GFX_VERSION=gx906")
    for text in ("HSA_OVERRIDE_GFX_VERSION=${V:-10.3.0}", "HSA_OVERRIDE_GFX_VERSION:", "HSA_OVERRIDE_GFX_VERSION=<ver>"):
        assert parse_build_targets(text)["override"] is None
    _, step = triage_bundle_step(tmp_path, {"files/ticket/report.md": report}, "gpu-not-visible", "override",
                                 vars={"report": "/ticket/report.md"})
    assert step.state == State.FAIL and 'set to "gx906", not MAJOR.MINOR.STEPPING' in step.check.message
    assert step.check.evidence == ("/ticket/report.md:5: export HSA_OVERRIDE_GFX_VERSION=gx906",)
