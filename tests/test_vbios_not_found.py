"""amdgpu's "Unable to locate a BIOS ROM" (amdgpu_bios.c amdgpu_get_bios: no method found the video BIOS) names why
the probe then failed with -22, ahead of the generic probe failure. Kernel log verbatim from the corpus
(isc30/ryzen-gpu-passthrough-proxmox#117: a Radeon 680M passed to an Ubuntu guest)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

DMESG = (Path(__file__).parent / "incidents" / "gpu-not-visible" / "proxmox-ubuntu-guest-680m-no-vbios-rom" / "bundle"
         / "commands" / "dmesg" / "stdout").read_text()


def test_no_video_bios_is_named_before_the_probe_failure(tmp_path: Path) -> None:
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": DMESG}, "gpu-not-visible", "kernel_log")
    assert step.state == State.FAIL
    assert "after it found no video BIOS for the GPU (amdgpu: Unable to locate a BIOS ROM)" in step.check.message
    assert "amdgpu: Unable to locate a BIOS ROM" in step.check.evidence[0]
    ids = [d.diagnosis_id for d in rb.diagnoses]
    assert ids[0] == "vbios-not-found" and "probe-failure" not in ids
    assert "romfile=" in rb.diagnoses[0].cause
