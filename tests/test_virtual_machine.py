"""A virtual machine guest: no GPU passed through, or a GFX8 GPU behind a virtual root port (issue 41: the
evidence a ticket holds decides, read from lshw, lspci and the kernel's hypervisor line)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.lshw import parse_lshw_display
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

OUT = Path(__file__).parent / "fixtures" / "outputs"


def read(rel: str) -> str:
    return (OUT / rel).read_text()


def test_lshw_display_nodes() -> None:
    vmware = parse_lshw_display(read("lshw/vmware-guest-display-1626.txt"))["devices"]
    assert [(d["vendor"], d["product"], d["bdf"], d["driver"], d["claimed"]) for d in vmware] == [
        ("VMware", "SVGA II Adapter", "0000:00:0f.0", "vmwgfx", True)]
    hyperv = parse_lshw_display(read("lshw/hyperv-guest-mi25-unclaimed-1638.txt"))["devices"]
    assert [(d["product"], d["bdf"], d["claimed"]) for d in hyperv] == [
        ("Hyper-V virtual VGA", "0000:00:08.0", True), ("Vega 10 [Radeon Instinct MI25 MxGPU]", "af8c:00:00.0", False)]
    assert hyperv[1]["vendor"] == "Advanced Micro Devices, Inc. [AMD/ATI]" and hyperv[1]["driver"] is None


def test_any_other_log_is_no_lshw() -> None:
    assert parse_lshw_display(read("vm-guest/dmesg-head-vmware-1626.txt")) == {"devices": []}


def test_a_guest_without_an_amd_gpu_was_given_none(tmp_path: Path) -> None:
    files = {"files/ticket/lshw.txt": read("lshw/vmware-guest-display-1626.txt")}
    rb, vm = triage_bundle_step(tmp_path, files, "gpu-not-visible", "vm", vars={"log": "/ticket/lshw.txt"})
    assert vm.check.state == State.FAIL
    assert "lshw -C display: SVGA II Adapter (vendor VMware)" in vm.check.message
    assert "did not pass a GPU through" in vm.check.message
    assert rb.diagnoses[0].diagnosis_id == "gpu-not-passed-to-vm"
    assert any("SVGA II Adapter" in e for e in vm.check.evidence)


def test_the_kernel_names_the_hypervisor(tmp_path: Path) -> None:
    files = {"commands/dmesg/stdout": read("vm-guest/dmesg-head-vmware-1626.txt"),
             "commands/lspci -n -D/stdout": read("vm-guest/lspci-esxi-rx460-307.txt")}
    _, vm = triage_bundle_step(tmp_path, files, "gpu-not-visible", "vm")
    assert "dmesg: Hypervisor detected: VMware" in vm.check.message


def test_a_gfx8_gpu_behind_a_virtual_root_port(tmp_path: Path) -> None:
    files = {"commands/lspci -n -D/stdout": read("vm-guest/lspci-esxi-rx460-307.txt")}
    rb, vm = triage_bundle_step(tmp_path, files, "gpu-not-visible", "vm")
    assert vm.check.state == State.WARN
    assert vm.check.outputs["needs_atomics"][0]["gfx"] == "gfx803"
    assert "VMware" in vm.check.message and "atomics" in vm.check.message
    assert rb.diagnoses[0].diagnosis_id == "pcie-atomics-unsupported"


def test_bare_metal_says_so(tmp_path: Path) -> None:
    """`systemd-detect-virt --vm` prints `none` on bare metal (systemd-detect-virt(1))."""
    files = {"commands/systemd-detect-virt --vm/stdout": "none\n"}
    _, vm = triage_bundle_step(tmp_path, files, "gpu-not-visible", "vm")
    assert vm.check.state == State.PASS and "not a virtual machine" in vm.check.message


def test_nothing_to_tell_by_is_unknown(tmp_path: Path) -> None:
    files = {"files/ticket/job.log": "RuntimeError: No HIP GPUs are available\n"}
    _, vm = triage_bundle_step(tmp_path, files, "gpu-not-visible", "vm", vars={"log": "/ticket/job.log"})
    assert vm.check.state == State.UNKNOWN and "systemd-detect-virt --vm" in vm.check.message
