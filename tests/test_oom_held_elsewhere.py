"""PyTorch's OOM message carries the GPU's total, what is free, and what this process's allocator holds; what
others hold is the rest. Others holding more than both the job's own share and its request means the job
would have fit without them (vram-held-by-other-processes); a job that holds most of the GPU itself is too big.
Job logs verbatim from the corpus (threads in each case.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.testing.triage_helpers import triage_bundle_step

OOM = Path(__file__).parent / "incidents" / "gpu-oom"


@pytest.mark.parametrize("case, first", [
    ("strix-halo-evox2-oom-57gib-by-pytorch-780mib-free", "vram-held-by-other-processes"),  # ~70 GiB held by others
    ("gfx1151-vllm-99gib-by-pytorch", "job-needs-more-vram"),                               # the job holds it
])
def test_what_others_hold_decides(tmp_path: Path, case: str, first: str) -> None:
    log = next((OOM / case / "bundle" / "files" / "ticket").glob("*.log"))
    rb, step = triage_bundle_step(tmp_path, {f"files/ticket/{log.name}": log.read_text()}, "gpu-oom", "applog",
                                  {"log": f"/ticket/{log.name}"})
    assert rb.diagnoses[0].diagnosis_id == first
    assert step.check.outputs["held_elsewhere"] == (first == "vram-held-by-other-processes")
