"""A PyTorch job on a GPU no PyTorch ROCm wheel carries code for: the GPU read from the app's own device line
(ComfyUI/Fooocus, a get_device_name() session), its target from the product tables, compared with
PYTORCH_ROCM_ARCH in PyTorch's build scripts (data pytorch_rocm_targets)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.catalog.datafiles import load_data
from rocmdoctor.catalog.gpu_facts import torch_wheel_lacks
from rocmdoctor.parsers.stated_env import parse_stated_env
from rocmdoctor.parsers.torch_device_names import parse_torch_device_names
from rocmdoctor.status import State

INCIDENTS = Path(__file__).resolve().parent / "incidents"


def _step(bundle: Path, log: str, **more: str):
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=("gpu-not-visible",),
                                         vars={"log": log, **more}))
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


# The wheel a ticket names, read against the release each later target joined PYTORCH_ROCM_ARCH in (data
# pytorch_rocm_targets `since`).
F5TTS = INCIDENTS / "gpu-not-visible" / "f5tts-radeon8050s-gfx1151-torch251-rocm62-invalid-device-function"
BENIGN_7800XT = INCIDENTS / "gpu-not-visible" / "rx7800xt-venv-amdgpu-ids-missing-warning-benign"


def test_pip_forms_name_the_wheel() -> None:
    # SWivid/F5-TTS#1236's environment field: a requirement line
    line = (F5TTS / "bundle" / "files" / "ticket" / "report.md").read_text().splitlines()[4]
    torch = parse_stated_env(line)["torch"]
    assert (torch["version"], torch["flavor"], torch["form"]) == ("2.5.1+rocm6.2", "rocm", "pip")
    # pip show in pytorch/pytorch#147761's comment; torchvision's tag is not torch's
    shown = parse_stated_env("Name: torch\nVersion: 2.7.0.dev20250301+rocm6.2.4\n")["torch"]
    assert shown["version"] == "2.7.0.dev20250301+rocm6.2.4" and shown["line"] == "Name: torch / Version: 2.7.0.dev20250301+rocm6.2.4"
    assert parse_stated_env("torchvision==0.20.1+rocm6.2\n")["torch"] is None
    # collect_env keeps its own reading (pytorch/pytorch#144203)
    env = parse_stated_env((BENIGN_7800XT / "bundle" / "files" / "ticket" / "collect_env.log").read_text())["torch"]
    assert (env["version"], env["form"]) == ("2.5.1+rocm6.2", "collect_env")


def test_a_wheel_lacks_a_target_only_where_both_sources_say_so() -> None:
    since = load_data("pytorch_rocm_targets")["since"]
    rx7800 = [{"gfx": "gfx1101", "name": "AMD Radeon RX 7800 XT"}]
    strix = [{"gfx": "gfx1151", "name": "Radeon 8060S"}]
    assert [r["needs"] for r in torch_wheel_lacks(rx7800, "2.5.1+rocm6.2", since)] == ["torch 2.6"]
    assert torch_wheel_lacks(rx7800, "2.6.0+rocm6.2.4", since) == []
    assert [r["needs"] for r in torch_wheel_lacks(strix, "2.9.1+rocm6.4", since)] == ["torch 2.10 or a +rocm7.0 build"]
    assert torch_wheel_lacks(strix, "2.9.0+rocm7.0", since) == []        # the ROCm 7.0 build condition
    assert torch_wheel_lacks(strix, "2.10.0+rocm6.4", since) == []       # unconditional from #167299
    # AMD's own wheels (a git suffix) and source builds are not download.pytorch.org's lists
    assert torch_wheel_lacks(strix, "2.4.0+rocm6.3.4.git7cecbf6d", since) == []
    assert torch_wheel_lacks(strix, "2.3.0a0+gitb5c866d", since) == []
    # gfx1030 was on the first lists: nothing to lack
    assert torch_wheel_lacks([{"gfx": "gfx1030", "name": "RX 6800"}], "1.13.1+rocm5.2", since) == []


def test_an_rx7800xt_under_a_torch_251_wheel_has_no_code_object(tmp_path: Path) -> None:
    # pytorch/pytorch#144203's collect_env (PyTorch 2.5.1+rocm6.2; the thread says the GPU is an RX 7800 XT)
    # followed by ComfyUI's device line for that GPU (the format of comfy/model_management.py, as above)
    env = (BENIGN_7800XT / "bundle" / "files" / "ticket" / "collect_env.log").read_text()
    bundle = _log(tmp_path, env + "Device: cuda:0 AMD Radeon RX 7800 XT : native\nSegmentation fault (core dumped)\n")
    rb, step = _step(bundle, "/ticket/job.log")
    assert step.state == State.FAIL
    assert "PyTorch 2.5.1+rocm6.2" in step.check.message and "only from torch 2.6" in step.check.message
    assert "/ticket/job.log:4: PyTorch version: 2.5.1+rocm6.2" in step.check.evidence
    assert "/ticket/job.log:7: Device: cuda:0 AMD Radeon RX 7800 XT : native" in step.check.evidence
    assert rb.diagnoses[0].diagnosis_id == "no-code-object-for-gpu"


def test_a_gpu_stated_without_a_torch_wheel_is_not_pytorchs(tmp_path: Path) -> None:
    # an issue form's GPU field alone says nothing about PyTorch (ROCm/ROCm's form, as stated_env reads it)
    bundle = _log(tmp_path, "### GPU\n\nAMD Radeon RX 6700 XT\n")
    _, step = _step(bundle, "/ticket/job.log")
    assert step.state == State.SKIPPED


def test_a_torch_key_value_line_names_the_build() -> None:
    # SwarmUI's ComfyUI backend check pasted in mcmonkeyprojects/SwarmUI's thread: a CUDA wheel in an AMD machine's venv
    case = INCIDENTS / "gpu-not-visible" / "swarmui-cachyos-requirements-step-replaces-rocm-torch-with-cu130"
    torch = parse_stated_env((case / "bundle" / "files" / "ticket" / "torch-check.txt").read_text())["torch"]
    assert (torch["version"], torch["flavor"], torch["form"]) == ("2.14.0+cu130", "cuda", "stated")
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=("gpu-not-visible",),
                                         vars={"log": "/ticket/torch-check.txt"}))
    rb = report.runbooks[0]
    step = next(s for s in rb.steps if s.step_id == "torchbuild")
    assert step.state == State.FAIL and "stated environment shows PyTorch 2.14.0+cu130, a CUDA build" in step.check.message
    assert "/ticket/torch-check.txt:1: torch: 2.14.0+cu130" in step.check.evidence
    assert rb.diagnoses[0].diagnosis_id == "framework-without-rocm"


def test_the_wheel_a_job_log_prints_is_read_beside_a_report() -> None:
    # mudler/LocalAI's rocm-fish-speech backend: the report names the GPU, the venv check in the log names the wheel
    case = INCIDENTS / "gpu-not-visible" / "localai-rx7900xtx-rocm-fish-speech-backend-cu128-torch"
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=("gpu-not-visible",),
                                         vars={"log": "/ticket/backend-venv-torch-check.log", "report": "/ticket/report.md"}))
    rb = report.runbooks[0]
    step = next(s for s in rb.steps if s.step_id == "torchbuild")
    assert step.state == State.FAIL and "PyTorch 2.8.0+cu128, a CUDA build" in step.check.message
    assert "/ticket/backend-venv-torch-check.log:7: torch version: 2.8.0+cu128" in step.check.evidence
    assert rb.diagnoses[0].diagnosis_id == "framework-without-rocm"


def test_a_bare_product_line_names_the_gpu_the_wheel_lacks() -> None:
    """F5-TTS#1236's environment field lists `arch`, `Radeon 8050S` and the wheel on lines of their own: the product
    line names gfx1151, which torch 2.5.1+rocm6.2 carries no code for. A sentence naming one GPU is read last, as
    such (field gpu_prose), only where no field or line names one."""
    report = (F5TTS / "bundle" / "files" / "ticket" / "report.md").read_text()
    gpus = parse_stated_env(report)["gpus"]
    assert [(g["text"], g["field"]) for g in gpus] == [("Radeon 8050S", "gpu_line")]
    assert [(g["text"], g["field"]) for g in parse_stated_env("I have a Radeon RX 6800 and it fails\n")["gpus"]] == [
        ("Radeon RX 6800", "gpu_prose")]
    assert parse_stated_env("### GPU\n\nRX 6800\n\nRadeon 8050S\n")["gpus"][0]["text"] == "RX 6800"  # a field wins
    _, step = _step(F5TTS / "bundle", "/ticket/f5-tts-infer-gradio.log", report="/ticket/report.md")
    assert step.state == State.WARN and "gfx1151" in step.check.message and "2.5.1+rocm6.2" in step.check.message
