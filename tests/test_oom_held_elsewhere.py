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


def test_free_memory_no_node_has_is_the_runtimes_query_going_wrong(tmp_path: Path) -> None:
    """pytorch/pytorch#105280 (in the corpus): 131065.27 GiB "free" on a 31.98 GiB GPU, the ROCm 5.6 user space on an
    older KFD. An APU's free above its carve-out (shared system memory) stays below that bound."""
    case = OOM / "pytorch-ci-rocm5.6-userspace-old-kfd-oom-free-above-total"
    log = (case / "bundle" / "files" / "ticket" / "job.log").read_text()
    rb, step = triage_bundle_step(tmp_path, {"files/ticket/job.log": log}, "gpu-oom", "applog", {"log": "/ticket/job.log"})
    assert step.check.outputs["free_impossible"] is True
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "userspace-driver-mismatch"
    assert "has 32.0 GiB in all but 128.0 TiB \"free\"" in first.cause
    assert any("131065.27 GiB is free" in e for e in first.evidence)
    assert "job-needs-more-vram" not in [d.diagnosis_id for d in rb.diagnoses]
    apu = OOM / "strix-halo-evox2-oom-57gib-by-pytorch-780mib-free"
    apu_log = next((apu / "bundle" / "files" / "ticket").glob("*.log"))
    _, apu_step = triage_bundle_step(tmp_path / "apu", {f"files/ticket/{apu_log.name}": apu_log.read_text()}, "gpu-oom",
                                     "applog", {"log": f"/ticket/{apu_log.name}"})
    assert apu_step.check.outputs["free_impossible"] is False
