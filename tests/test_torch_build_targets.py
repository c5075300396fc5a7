"""A PyTorch job on a GPU no PyTorch ROCm wheel carries code for: the GPU read from the app's own device line
(ComfyUI/Fooocus, a get_device_name() session), its target from the product tables, compared with
PYTORCH_ROCM_ARCH in PyTorch's build scripts (data pytorch_rocm_targets)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.parsers.torch_device_names import parse_torch_device_names
from rocmdoctor.status import State

INCIDENTS = Path(__file__).resolve().parent / "incidents"


def _step(bundle: Path, log: str):
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=("gpu-not-visible",), vars={"log": log}))
    rb = report.runbooks[0]
    return rb, next(s for s in rb.steps if s.step_id == "torchtargets")


def test_the_parser_reads_each_device_line_form() -> None:
    # Fooocus 2.5.5 (lllyasviel/Fooocus#1288), ComfyUI's get_torch_device_name() format
    comfy = parse_torch_device_names("Total VRAM 8176 MB, total RAM 31951 MB\nDevice: cuda:0 AMD Radeon RX 6600 : native\n")
    assert [(g["text"], g["lineno"]) for g in comfy["gpus"]] == [("AMD Radeon RX 6600", 2)]
    assert comfy["crash"] is None
    crashed = parse_torch_device_names("Device: cuda:0 AMD Radeon RX 6600 : native\nSegmentation fault (core dumped)\n")
    assert crashed["crash"] == {"lineno": 2, "line": "Segmentation fault (core dumped)"}
    # a REPL session, the name on the next line (ROCm/legacy-rocm-build#2961)
    repl = parse_torch_device_names(">>> torch.cuda.get_device_name(0)\n'AMD Radeon Graphics'\n")
    assert [(g["text"], g["lineno"]) for g in repl["gpus"]] == [("AMD Radeon Graphics", 2)]
    assert parse_torch_device_names("export HSA_OVERRIDE_GFX_VERSION=10.3.0\n")["override"]["value"] == "10.3.0"
    assert parse_torch_device_names("Device: cpu\n") == {"gpus": [], "override": None, "crash": None}


def test_an_rx570_in_the_pytorch_container_that_segfaults_has_no_code_object() -> None:
    case = INCIDENTS / "gpu-not-visible" / "rx570-rocm-pytorch-container-segfault"
    rb, step = _step(case / "bundle", "/ticket/job.log")
    assert step.state == State.FAIL
    assert "Radeon RX 570 Series (gfx803)" in step.check.message and "the job crashed" in step.check.message
    assert any(e.startswith("/ticket/job.log:8:") and "Radeon RX 570 Series" in e for e in step.check.evidence)
    assert "/ticket/job.log:13: Segmentation fault (core dumped)" in step.check.evidence
    assert rb.diagnoses[0].diagnosis_id == "no-code-object-for-gpu"
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in " ".join(rb.diagnoses[0].follow_up)


def test_a_log_cut_before_the_crash_warns(tmp_path: Path) -> None:
    case = INCIDENTS / "gpu-not-visible" / "fooocus-rx6600xt-gfx1032-segfault-until-gfx-override-1030"
    rb, step = _step(case / "bundle", "/ticket/fooocus.log")
    assert step.state == State.WARN and "(gfx1032)" in step.check.message and "shows no crash" in step.check.message


def _log(tmp_path: Path, text: str) -> Path:
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "job.log").write_text(text)
    return tmp_path


def test_a_gpu_the_wheels_are_built_for_passes(tmp_path: Path) -> None:
    # the same Fooocus line with a product on PyTorch's list (RX 7900 XTX, gfx1100)
    bundle = _log(tmp_path, "Device: cuda:0 AMD Radeon RX 7900 XTX : native\nSegmentation fault (core dumped)\n")
    _, step = _step(bundle, "/ticket/job.log")
    assert step.state == State.PASS and "gfx1100" in step.check.message


def test_an_override_in_the_log_means_another_target(tmp_path: Path) -> None:
    bundle = _log(tmp_path, "export HSA_OVERRIDE_GFX_VERSION=10.3.0\nDevice: cuda:0 AMD Radeon RX 6600 : native\n")
    _, step = _step(bundle, "/ticket/job.log")
    assert step.state == State.SKIPPED and "10.3.0" in step.skipped_because
