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


def test_a_gpu_the_radeon_driver_failed_is_not_read_as_amdgpu_s_probe(tmp_path: Path) -> None:
    """ROCm/legacy-rocm-build#96 (a Mac Pro's FirePro D700, Tahiti), its kernel log verbatim in the corpus: radeon, not
    amdgpu, claimed the GPU and failed; the step names radeon and the runbook says amdgpu never had it."""
    dmesg = (Path(__file__).parent / "incidents" / "gpu-not-visible" / "gcn1-rocm96-macpro-d700-tahiti-rocm14" /
             "bundle" / "commands" / "dmesg" / "stdout").read_text()
    rb, step = triage_bundle_step(tmp_path, {"commands/dmesg/stdout": dmesg}, "gpu-not-visible", "kernel_log")
    assert step.state == State.FAIL and step.check.outputs["radeon_only"] is True
    assert step.check.message.startswith("radeon failed to initialise 0000:06:00.0: radeon 0000:06:00.0: Fatal error")
    assert "[ 2.623225] radeon 0000:06:00.0: Fatal error during GPU init" in step.check.evidence[0]
    assert [d.diagnosis_id for d in rb.diagnoses][:1] == ["drm-device-not-driven-by-amdgpu"]
    assert "probe-failure" not in [d.diagnosis_id for d in rb.diagnoses]
