"""A Gentoo kernel with amdgpu built in and no CONFIG_DRM_AMDGPU_USERPTR (ROCm/ROCT-Thunk-Interface#44, verbatim in
the corpus): rocminfo's "ROCk module is NOT loaded" (it asks lsmod) does not stand against KFD's own lines in the
kernel log, and "init_user_pages: Failed to get user pages: -1" is amdgpu_ttm.h's -EPERM stub for a kernel built
without user pointers. A module load that failed ("amdgpu: Unknown symbol ...") is not read as amdgpu at work."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.signatures import explain_text
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

CASE = Path(__file__).parent / "incidents" / "gpu-not-visible" / "gentoo-rx570-kernel-without-amdgpu-userptr" / "bundle"
ROCMINFO = (CASE / "commands" / "rocminfo" / "stdout").read_text()
DMESG = (CASE / "commands" / "dmesg" / "stdout").read_text()
# kernel-driver-mismatch/rhel93-rocm6-unknown-symbol-acpi-video (a DKMS module that did not load)
UNKNOWN_SYMBOL = "amdgpu: Unknown symbol acpi_video_register_backlight (err -2)\n"


def test_kfds_own_lines_outweigh_rocminfos_lsmod(tmp_path: Path) -> None:
    _, step = triage_bundle_step(tmp_path, {"commands/rocminfo/stdout": ROCMINFO, "commands/dmesg/stdout": DMESG},
                                 "gpu-not-visible", "module")
    assert step.state == State.PASS
    assert "the kernel log shows amdgpu at work in this boot" in step.check.message
    assert step.check.evidence[1] == "dmesg: [  192.650288] kfd2kgd: init_user_pages: Failed to get user pages: -1"


def test_a_failed_module_load_is_not_amdgpu_at_work(tmp_path: Path) -> None:
    _, step = triage_bundle_step(tmp_path, {"commands/rocminfo/stdout": ROCMINFO,
                                            "commands/dmesg/stdout": UNKNOWN_SYMBOL}, "gpu-not-visible", "module")
    assert step.state == State.WARN and "unconfirmed" in step.check.message


def test_the_eperm_stub_reads_as_a_kernel_without_userptr() -> None:
    found = {m.signature_id: m for m in explain_text(DMESG)}
    m = found["kfd-userptr-not-configured"]
    assert m.diagnosis == "kernel-without-amdgpu-userptr" and m.count == 4
    assert "CONFIG_DRM_AMDGPU_USERPTR" in m.means


def test_another_errno_is_not_the_missing_option() -> None:
    # init_user_pages's printed format with the real function's -EFAULT (-14) for a bad address: not the stub
    assert "kfd-userptr-not-configured" not in {
        m.signature_id for m in explain_text("kfd2kgd: init_user_pages: Failed to get user pages: -14")}


# ROCm/amdgpu#42 (verbatim in the corpus): `lsmod | grep` pasted with only amd_iommu_v2's line, and a kernel log in
# which amdgpu took over the frame buffer: the filtered lsmod does not stand against the driver at work.
IOMMU42 = Path(__file__).parent / "incidents" / "gpu-not-visible" / "iommu-amdgpu42-raven-envy-x360-kfd-iommu-init" / "bundle"


def test_a_filtered_lsmod_does_not_outweigh_amdgpu_in_the_kernel_log(tmp_path: Path) -> None:
    lsmod = (IOMMU42 / "commands" / "lsmod" / "stdout").read_text()
    dmesg = (IOMMU42 / "commands" / "dmesg" / "stdout").read_text()
    _, step = triage_bundle_step(tmp_path, {"commands/lsmod/stdout": lsmod, "commands/dmesg/stdout": dmesg},
                                 "gpu-not-visible", "module")
    assert step.state == State.PASS
    assert "the pasted lsmod was filtered" in step.check.message
    assert step.check.evidence[0] == "lsmod: 1 module(s), no amdgpu"
    assert step.check.evidence[1] == "dmesg: [    1.099495] fb: switching to amdgpudrmfb from VESA VGA"


def test_a_filtered_lsmod_alone_still_only_warns(tmp_path: Path) -> None:
    lsmod = (IOMMU42 / "commands" / "lsmod" / "stdout").read_text()
    _, step = triage_bundle_step(tmp_path, {"commands/lsmod/stdout": lsmod}, "gpu-not-visible", "module")
    assert step.state == State.WARN and "unconfirmed" in step.check.message
