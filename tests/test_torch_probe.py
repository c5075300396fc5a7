"""A ticket's torch.cuda.is_available() probe under AMD_LOG_LEVEL (parser torch_probe): False with no CLR log line
is a PyTorch that never loaded HIP. Logs verbatim from the corpus: ROCm/hip#3465 (a CUDA-index wheel, no CLR
line) and ROCm/hip#3710 (a ROCm wheel under WSL: CLR's lines, then False)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.torch_probe import parse_torch_probe
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

GNV = Path(__file__).parent / "incidents" / "gpu-not-visible"
SILENT = (GNV / "680m-6500m-torch-false-no-hip-log" / "bundle" / "files" / "ticket" / "job.log").read_text()
LOGGED = (GNV / "wsl-pytorch-wheel-hiperrornodevice" / "bundle" / "files" / "ticket" / "job.log").read_text()


def test_the_probe_and_clrs_lines_are_read() -> None:
    assert parse_torch_probe(SILENT) == {
        "level": 7, "result": "False", "lineno": 1, "clr_lines": 0,
        "line": '$ AMD_LOG_LEVEL=7 python -c "import torch; print(torch.cuda.is_available())" # no extra logs even with AMD_LOG_LEVEL=7'}
    logged = parse_torch_probe(LOGGED)
    assert logged is not None and logged["result"] == "False" and logged["clr_lines"] == 7
    assert parse_torch_probe("$ python -c 'import torch'\nTrue\n") is None


def test_a_silent_runtime_is_a_framework_without_rocm(tmp_path: Path) -> None:
    rb, step = triage_bundle_step(tmp_path, {"files/ticket/job.log": SILENT}, "gpu-not-visible", "torchprobe",
                                  {"log": "/ticket/job.log"})
    assert step.state == State.FAIL and "never loaded HIP" in step.check.message
    assert rb.diagnoses[0].diagnosis_id == "framework-without-rocm"


def test_a_runtime_that_logged_is_a_rocm_build(tmp_path: Path) -> None:
    _, step = triage_bundle_step(tmp_path, {"files/ticket/job.log": LOGGED}, "gpu-not-visible", "torchprobe",
                                 {"log": "/ticket/job.log"})
    assert step.state == State.PASS and "logged 7 line(s)" in step.check.message
