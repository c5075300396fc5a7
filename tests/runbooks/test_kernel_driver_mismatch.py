"""kernel-driver-mismatch end to end on simulated nodes: each root cause is found by its
decisive step with the node's own line as evidence and named by its diagnosis; healthy and
GPU-less nodes stay quiet; unknowns say why; the DKMS fix runs only when approved, changes the
node, and is verified."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.simnode.nodes import healthy_no_gpu
from rocmdoctor.simnode.scenarios import kernel_driver as kd
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.testing.triage_helpers import diagnoses, evidence, steps, triage_node
from rocmdoctor.engine.triage import TriageReport

RUNBOOK = kd.RUNBOOK


@pytest.fixture(scope="module")
def plan():
    return compile_plan(load_catalog(), [RUNBOOK])


def triage(node: SimNode, tmp_path: Path, plan, *, fix: bool = False, approve: bool = True,
           dry_run: bool = False) -> tuple[Path, TriageReport]:
    return triage_node(node, tmp_path, plan, fix=fix, approve=approve, dry_run=dry_run)



# --- each root cause -------------------------------------------------------------------------

def test_dkms_built_for_another_kernel(tmp_path: Path, plan) -> None:
    _, report = triage(kd.dkms_wrong_kernel(), tmp_path, plan)
    s = steps(report)
    assert s["dkms"].state == State.FAIL
    assert s["dkms"].check.message == ("amdgpu/6.8.5-2009582.22.04 is built for 6.5.0-35-generic only; "
                                       "the running kernel is 6.8.0-45-generic")
    assert "dkms status: amdgpu/6.8.5-2009582.22.04, 6.5.0-35-generic, x86_64: installed" in evidence(s["dkms"])
    assert "cat /proc/sys/kernel/osrelease: 6.8.0-45-generic" in evidence(s["dkms"])
    assert s["vermagic"].state == State.FAIL  # no module for the running kernel either
    assert "modinfo: ERROR: Module amdgpu not found." in evidence(s["vermagic"])
    d = diagnoses(report)
    assert "6.8.0-45-generic" in d["dkms-not-built-for-kernel"].cause and d["dkms-not-built-for-kernel"].confidence == "high"
    assert d["dkms-not-built-for-kernel"].cause.endswith("so there is no working amdgpu for the running kernel.")
    assert "no-module-for-kernel" not in d and "vermagic-mismatch" not in d  # DKMS is the root cause
    (plan_,) = d["dkms-not-built-for-kernel"].remediations
    assert plan_.command == "dkms autoinstall -k 6.8.0-45-generic"
    assert plan_.sudo and plan_.risk == "medium" and plan_.verify_check == "kernel.amdgpu_dkms"
    assert plan_.rollback == "dkms remove amdgpu/6.8.5-2009582.22.04 -k 6.8.0-45-generic"
    # the 6.8 HWE kernel is also outside AMD's MI300X support for ROCm 6.2: a second, true finding
    assert s["support"].state == State.WARN and "unsupported-kernel-or-os" in d
    assert report.exit_status == ExitStatus.CRITICAL


def test_dkms_built_for_another_kernel_with_the_in_tree_driver_loaded(tmp_path: Path, plan) -> None:
    # ROCm/legacy-rocm-build#572: RHEL's own amdgpu answers `modinfo` for the new kernel
    node = kd.dkms_wrong_kernel()
    intree = f"/lib/modules/{node.kernel}/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz"
    node.file("/.sim/dkms/modinfo.current", f"filename:       {intree}\nlicense:        GPL and additional rights\n"
              f"intree:         Y\nvermagic:       {node.kernel} SMP mod_unload modversions \n")
    _, report = triage(node, tmp_path, plan)
    s = steps(report)
    assert s["dkms"].state == State.FAIL and s["vermagic"].state == State.PASS
    d = diagnoses(report)["dkms-not-built-for-kernel"]
    assert f"loads the kernel's own in-tree amdgpu ({intree}) instead of ROCm's" in d.cause
    assert f"modinfo amdgpu: filename:       {intree}" in d.evidence
    assert d.remediations[0].command == "dkms autoinstall -k 6.8.0-45-generic"


def test_dkms_built_but_not_installed_is_a_refused_install_not_a_missing_build(tmp_path: Path, plan) -> None:
    """`dkms status` says `built` for the running kernel: DKMS's sanity check kept the kernel's own
    amdgpu.ko (ROCm/legacy-rocm-build#344). "Not rebuilt for this kernel" would send the admin to
    `dkms autoinstall`, which refuses again; the fix is the forced install."""
    _, report = triage(kd.dkms_install_refused(), tmp_path, plan)
    s = steps(report)
    assert s["dkms"].state == State.FAIL
    assert s["dkms"].check.message == "amdgpu/6.8.5-2009582.22.04 for 6.8.0-45-generic is 'built', not installed"
    assert "dkms status: amdgpu/6.8.5-2009582.22.04, 6.8.0-45-generic, x86_64: built" in evidence(s["dkms"])
    d = diagnoses(report)
    assert list(d)[0] == "dkms-install-refused" and "dkms-not-built-for-kernel" not in d
    refused = d["dkms-install-refused"]
    assert refused.confidence == "high"
    assert "DKMS built amdgpu 6.8.5-2009582.22.04 for kernel 6.8.0-45-generic but did not install it" in refused.cause
    assert "(/lib/modules/6.8.0-45-generic/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst)" in refused.cause
    (fix,) = refused.remediations
    assert fix.command == "dkms install --force amdgpu/6.8.5-2009582.22.04 -k 6.8.0-45-generic"
    assert report.exit_status == ExitStatus.CRITICAL


def test_blacklist_newer_than_the_initramfs_keeps_the_kernels_amdgpu(tmp_path: Path, plan) -> None:
    # ROCm/gpu-operator#330: the operator's blacklist file, no update-initramfs, the inbox driver loaded
    node = kd.inbox_loaded_despite_blacklist()
    _, report = triage(node, tmp_path, plan)
    s = steps(report)
    step = s["loadedbuild"]
    assert step.state == State.FAIL
    assert step.check.message.startswith(
        "the kernel's own amdgpu is loaded although /etc/modprobe.d/blacklist-amdgpu.conf blacklists it: that file "
        "changed (2025-09-18 06:20 UTC) after /boot/initrd.img-6.8.0-45-generic was built (2025-08-09 07:20 UTC)")
    ev = evidence(step)
    assert "cat /proc/modules: ttm 118784 1 amdgpu" in ev and "cat /proc/modules: gpu_sched 61440 1 amdgpu" in ev
    assert "cat /sys/module/amdgpu/version: No such file or directory (the kernel's own amdgpu has none)" in ev
    assert "stat /etc/modprobe.d/blacklist-amdgpu.conf: modified 2025-09-18 06:20 UTC" in ev
    assert "stat /boot/initrd.img-6.8.0-45-generic: modified 2025-08-09 07:20 UTC" in ev
    assert "/etc/modprobe.d/blacklist-amdgpu.conf:1: blacklist amdgpu" in ev
    d = diagnoses(report)
    assert set(d) == {"initramfs-loads-in-tree-amdgpu"}
    diag = d["initramfs-loads-in-tree-amdgpu"]
    assert diag.confidence == "high"
    assert "/boot/initrd.img-6.8.0-45-generic was built before /etc/modprobe.d/blacklist-amdgpu.conf" in diag.cause
    (fix,) = diag.remediations
    assert fix.command == "update-initramfs -u -k 6.8.0-45-generic" and fix.sudo and fix.risk == "medium"
    assert report.exit_status == ExitStatus.CRITICAL


def test_dkms_module_newer_than_a_dracut_initramfs(tmp_path: Path, plan) -> None:
    # RHEL layout: amdgpu-dkms installs /lib/modules/K/extra/amdgpu.ko.xz, dracut builds /boot/initramfs-K.img
    node = kd.inbox_loaded_despite_blacklist()
    node.remove("/etc/modprobe.d/blacklist-amdgpu.conf").remove(f"/boot/initrd.img-{node.kernel}")
    node.file(f"/boot/initramfs-{node.kernel}.img", "(initramfs image)\n", mtime=kd._INITRD_BUILT)
    node.file(f"/lib/modules/{node.kernel}/extra/amdgpu.ko.xz", "(module)\n", mtime=kd._INITRD_BUILT + 7200)
    kd._stateful_dkms(node, built_for=[node.kernel], modinfo_now=None)
    _, report = triage(node, tmp_path, plan)
    step = steps(report)["loadedbuild"]
    assert step.state == State.FAIL
    assert step.check.message.startswith(
        f"the kernel's own amdgpu is loaded although amdgpu-dkms 6.8.5-2009582.22.04 is installed for {node.kernel}: "
        f"/lib/modules/{node.kernel}/extra/amdgpu.ko.xz was installed after /boot/initramfs-{node.kernel}.img was built")
    assert f"stat /lib/modules/{node.kernel}/extra/amdgpu.ko.xz: modified 2025-08-09 09:20 UTC" in evidence(step)
    diag = diagnoses(report)["initramfs-loads-in-tree-amdgpu"]
    assert diag.remediations[0].command == f"dracut -f --kver {node.kernel}"


def test_blacklisted_amdgpu_loaded_after_boot_on_purpose_passes(tmp_path: Path, plan) -> None:
    # the initramfs is newer than the blacklist, so it honours it: whoever loaded amdgpu did so after boot
    node = kd.inbox_loaded_despite_blacklist()
    node.file("/etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n", mtime=kd._INITRD_BUILT - 86400)
    _, report = triage(node, tmp_path, plan)
    step = steps(report)["loadedbuild"]
    assert step.state == State.PASS
    assert step.check.message.endswith(
        "blacklists it, but /boot/initrd.img-6.8.0-45-generic is newer, so the initramfs honours it: "
        "amdgpu was loaded on purpose after boot")
    assert "initramfs-loads-in-tree-amdgpu" not in diagnoses(report)
    # AMD's MI300X guide: modprobe.blacklist=amdgpu on the command line (the initramfs honours it), a
    # blacklist file older or newer than the image, amdgpu loaded after boot
    node = kd.inbox_loaded_despite_blacklist()
    node.cmdline += " modprobe.blacklist=amdgpu"
    _, report = triage(node, tmp_path / "cmdline", plan)
    step = steps(report)["loadedbuild"]
    assert step.state == State.PASS and "but so does the kernel command line, which the initramfs honours" in step.check.message


def test_vermagic_of_stale_module(tmp_path: Path, plan) -> None:
    _, report = triage(kd.vermagic_mismatch(), tmp_path, plan)
    s = steps(report)
    assert s["dkms"].state == State.PASS  # dkms believes all is well: only modinfo tells
    assert s["vermagic"].state == State.FAIL
    assert "built for kernel 5.15.0-116-generic, but the running kernel is 5.15.0-119-generic" in s["vermagic"].check.message
    assert "modinfo amdgpu: vermagic:       5.15.0-116-generic SMP mod_unload modversions" in evidence(s["vermagic"])
    d = diagnoses(report)
    assert set(d) == {"vermagic-mismatch"}
    (rem,) = d["vermagic-mismatch"].remediations
    assert rem.command == "dkms install --force amdgpu/6.8.5-2009582.22.04 -k 5.15.0-119-generic"
    assert rem.verify_check == "kernel.amdgpu_vermagic"


def test_symbol_version_mismatch(tmp_path: Path, plan) -> None:
    _, report = triage(kd.symbol_mismatch(), tmp_path, plan)
    s = steps(report)
    assert s["symbols"].state == State.FAIL
    assert s["symbols"].check.message.startswith("the kernel refused amdgpu: built against another kernel")
    assert "module_layout" in s["symbols"].check.message
    assert evidence(s["symbols"]).endswith("] amdgpu: disagrees about version of symbol module_layout")
    assert s["vermagic"].state == State.PASS and s["dkms"].state == State.PASS
    d = diagnoses(report)
    assert set(d) == {"module-symbol-mismatch"}
    assert "module_layout" in d["module-symbol-mismatch"].cause


def test_secure_boot_refusing_the_dkms_module(tmp_path: Path, plan) -> None:
    """ROCm/legacy-rocm-build#4330: the kernel's line names no module; amdgpu not loaded with its
    DKMS build installed for the running kernel ties it to amdgpu."""
    _, report = triage(kd.module_key_rejected(), tmp_path, plan)
    s = steps(report)
    assert s["signing"].state == State.FAIL
    assert s["signing"].check.message.startswith(
        "the kernel refused a module's signature (Loading of module with unavailable key is rejected) and amdgpu is not "
        "loaded although amdgpu-dkms 6.8.5-2009582.22.04 is installed for 5.15.0-119-generic; Secure Boot is enabled "
        "(lockdown: integrity)")
    assert s["dkms"].state == State.PASS and s["symbols"].state == State.PASS
    d = diagnoses(report)
    assert list(d) == ["module-signature-rejected"]
    assert any("mokutil --import /var/lib/dkms/mok.pub" in f for f in d["module-signature-rejected"].follow_up)


def test_refused_signature_with_amdgpu_loaded_only_warns(tmp_path: Path, plan) -> None:
    """Another module (or a second amdgpu build) refused while amdgpu runs: said, not blamed on amdgpu."""
    node = kd.healthy()
    node.add_kernel_log([(7.5, "Loading of module with unavailable key is rejected")])
    _, report = triage(node, tmp_path, plan)
    s = steps(report)
    assert s["signing"].state == State.WARN
    assert "the line does not name the module and amdgpu is loaded" in s["signing"].check.message
    assert "module-signature-rejected" not in diagnoses(report)


def test_missing_firmware_names_the_files(tmp_path: Path, plan) -> None:
    _, report = triage(kd.firmware_missing(), tmp_path, plan)
    s = steps(report)
    assert s["firmware"].state == State.FAIL
    assert s["firmware"].check.message == (
        "amdgpu could not load 5 firmware file(s): amdgpu/psp_13_0_6_sos.bin, amdgpu/smu_13_0_6.bin, "
        "amdgpu/gc_9_4_3_rlc.bin, amdgpu/sdma_4_4_2.bin, amdgpu/vcn_4_0_3.bin (for 8 GPU(s))")
    assert ("amdgpu 0000:05:00.0: Direct firmware load for amdgpu/psp_13_0_6_sos.bin failed with error -2"
            in evidence(s["firmware"]))
    d = diagnoses(report)
    assert set(d) == {"firmware-missing"}
    assert "amdgpu/psp_13_0_6_sos.bin" in d["firmware-missing"].cause
    assert any("amdgpu-dkms-firmware" in f for f in d["firmware-missing"].follow_up)
    assert d["firmware-missing"].remediations == ()  # package choice is the operator's: follow-up only


def test_rocm_userspace_refuses_old_driver(tmp_path: Path, plan) -> None:
    _, report = triage(kd.userspace_too_new(), tmp_path, plan)
    s = steps(report)
    assert s["userspace"].state == State.FAIL
    ev = evidence(s["userspace"])
    assert "rocminfo: HSA Error: Incompatible kernel and userspace, AMD Instinct MI300X disabled. Upgrade amdgpu." in ev
    assert "cat /opt/rocm/.info/version: 6.4.0-1" in ev and "cat /sys/module/amdgpu/version: 6.3.6" in ev
    d = diagnoses(report)
    assert set(d) == {"userspace-driver-mismatch"}
    cause = d["userspace-driver-mismatch"].cause
    assert "ROCm 6.4.0" in cause and "6.3.6" in cause and "ROCm 6.0 kernel driver" in cause
    assert "AMD tested this driver with ROCm 5.6, 5.7, 6.0, 6.1, 6.2 only." in cause


def test_a_driver_without_a_tested_window_in_the_table_is_not_judged(tmp_path: Path, plan) -> None:
    """amdgpu 6.16.13 is ROCm 7.2's KMD (rocminfo of ROCm/legacy-rocm-build#5942); the table has no
    window for it yet: no warning that 'AMD tested only with ROCm ' (an empty list)."""
    node = kd.healthy()
    node.driver_version, node.rocm_version = "6.16.13", "7.2.0"
    _, report = triage(node, tmp_path, plan)
    s = steps(report)["userspace"]
    assert s.state == State.PASS
    assert s.check.message == ("amdgpu driver 6.16.13 is the ROCm 7.2 kernel driver, and rocmdoctor's table holds no "
                               "tested user-space window for it yet: ROCm 7.2.0 vs this driver is not judged")


def test_userspace_outside_tested_window_without_refusal_warns(tmp_path: Path, plan) -> None:
    node = kd.healthy()
    node.driver_version, node.rocm_version = "6.3.6", "6.4.0"
    _, report = triage(node, tmp_path, plan)
    s = steps(report)
    assert s["userspace"].state == State.WARN
    assert s["userspace"].check.message == ("ROCm 6.4.0 user space runs on the amdgpu driver 6.3.6 (the ROCm 6.0 "
                                            "kernel driver), which AMD tested only with ROCm 5.6, 5.7, 6.0, 6.1, 6.2")


def test_kernel_not_supported_for_mi300x(tmp_path: Path, plan) -> None:
    _, report = triage(kd.kernel_unsupported(), tmp_path, plan)
    s = steps(report)
    assert s["support"].state == State.WARN
    msg = s["support"].check.message
    assert "ROCm 6.2.0 does not support MI300X on Ubuntu 22.04.5, 22.04.4 with kernel 6.8 (6.8.0-45-generic)" in msg
    assert "AMD supports only kernel 5.15 there" in msg
    assert "cat /proc/sys/kernel/osrelease: 6.8.0-45-generic" in evidence(s["support"])
    assert "PCI device id(s): 0x74a1 (MI300X, vendor 0x1002)" in evidence(s["support"])
    d = diagnoses(report)
    assert set(d) == {"unsupported-kernel-or-os"}
    assert report.exit_status == ExitStatus.WARNING


def test_os_not_in_matrix_and_kernel_not_in_list(tmp_path: Path, plan) -> None:
    node = kd.healthy()
    node.kernel = "6.2.0-39-generic"  # Ubuntu 22.04.3 HWE: not listed for ROCm 6.2
    _, report = triage(node, tmp_path / "a", plan)
    s = steps(report)["support"]
    assert s.state == State.WARN
    assert s.check.message == ("kernel 6.2.0-39-generic is not supported by ROCm 6.2.0 on Ubuntu 22.04.5, 22.04.4: "
                               "AMD supports kernel 5.15 or 6.5 or 6.8 there")
    node = kd.healthy()
    node.file("/etc/os-release", 'NAME="Fedora Linux"\nVERSION_ID=40\nID=fedora\nPRETTY_NAME="Fedora Linux 40"\n')
    _, report = triage(node, tmp_path / "b", plan)
    s = steps(report)["support"]
    assert s.state == State.WARN and s.check.message.startswith("Fedora Linux 40 is not a supported OS for ROCm 6.2.0")


# --- quiet when nothing is wrong or nothing to compare ----------------------------------------

def test_healthy_mi300x_all_pass(tmp_path: Path, plan) -> None:
    _, report = triage(kd.healthy(), tmp_path, plan)
    s = steps(report)
    # the build log is read only when the DKMS step does not pass, the install log only with --log
    assert s["buildlog"].state == State.SKIPPED and s["buildconsole"].state == State.SKIPPED
    assert "--var log=" in (s["buildconsole"].check.message if s["buildconsole"].check else s["buildconsole"].skipped_because)
    # the simulated node keeps no DKMS make.log (no real one of a passing build to copy), but its `dkms status`
    # names the build and the kernel it is for: ROCm 6.2's driver for a kernel ROCm 6.2 supports
    assert s["buildkernel"].check.evidence == ("dkms status: amdgpu/6.8.5-2009582.22.04 for kernel 5.15.0-119-generic",)
    judged = {k: v for k, v in s.items() if k not in ("buildlog", "buildconsole")}
    assert {k: v.state for k, v in judged.items()} == {k: State.PASS for k in judged}
    assert diagnoses(report) == {}
    assert report.exit_status == ExitStatus.OK and report.round_trips == 1
    assert "amdgpu/6.8.5-2009582.22.04 is installed for the running kernel 5.15.0-119-generic" in s["dkms"].check.message
    assert s["support"].check.message == "ROCm 6.2.0 supports Ubuntu 22.04.5, 22.04.4 with kernel 5.15 (5.15.0-119-generic)"


def test_no_gpu_node_is_quiet(tmp_path: Path, plan) -> None:
    _, report = triage(healthy_no_gpu(), tmp_path, plan)
    s = steps(report)
    assert s["gpus"].state == State.PASS
    assert all(v.state == State.SKIPPED for k, v in s.items() if k != "gpus")
    assert diagnoses(report) == {} and report.exit_status == ExitStatus.OK


def test_in_tree_driver_without_dkms_is_normal(tmp_path: Path, plan) -> None:
    node = kd.inbox_loaded_despite_blacklist().remove("/etc/modprobe.d/blacklist-amdgpu.conf")
    intree = f"/lib/modules/{node.kernel}/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko"
    node.command("modinfo", "amdgpu", stdout=f"filename:       {intree}\nlicense:        GPL and additional rights\n"
                 f"intree:         Y\nname:           amdgpu\nvermagic:       {node.kernel} SMP mod_unload modversions \n")
    _, report = triage(node, tmp_path, plan)
    s = steps(report)
    assert s["dkms"].state == State.PASS
    assert s["dkms"].check.message == f"no DKMS on this node and none needed: amdgpu is the kernel's in-tree driver ({intree})"
    assert s["vermagic"].state == State.PASS and s["userspace"].state == State.PASS
    assert s["loadedbuild"].state == State.PASS
    assert s["loadedbuild"].check.message.startswith(
        "the kernel's own (in-tree) amdgpu is loaded (it holds drm_buddy, drm_ttm_helper, gpu_sched, ttm); "
        "DKMS is not installed and no blacklist asks for another")
    assert report.exit_status == ExitStatus.OK


# --- unknown says why -------------------------------------------------------------------------

def test_dkms_missing_for_a_dkms_module_is_unknown(tmp_path: Path, plan) -> None:
    _, report = triage(kd.healthy().remove_tool("dkms"), tmp_path, plan)
    s = steps(report)["dkms"]
    assert s.state == State.UNKNOWN
    assert "`dkms` is not installed" in s.check.message
    assert "updates/dkms/amdgpu.ko (a DKMS build)" in s.check.message
    assert report.exit_status == ExitStatus.UNKNOWN


def test_unreadable_kernel_log_is_unknown(tmp_path: Path, plan) -> None:
    node = kd.healthy()
    node.command("dmesg", "", stdout="", rc=1, stderr="dmesg: read kernel buffer failed: Operation not permitted\n")
    # what journalctl prints where the journal cannot be read (captured on a host without journal files)
    node.command("journalctl", "-k -b --no-pager", stdout="-- No entries --\n", stderr="No journal files were found.\n")
    _, report = triage(node, tmp_path, plan)
    s = steps(report)
    for sid in ("symbols", "firmware"):
        assert s[sid].state == State.UNKNOWN
        assert s[sid].check.message == (
            "cannot read the kernel log (kernel.dmesg_restrict? try --sudo): `dmesg` failed: dmesg: read kernel "
            "buffer failed: Operation not permitted, and `journalctl -k -b` printed no kernel lines (No journal "
            "files were found.)")


# --- fix: only with approval, changes the node, verified ---------------------------------------

def test_fix_rebuilds_dkms_and_verifies(tmp_path: Path, plan) -> None:
    root, report = triage(kd.dkms_wrong_kernel(), tmp_path, plan, fix=True)
    (outcome,) = [o for o in report.remediations if o.plan.remediation_id == "dkms-autoinstall"]
    assert outcome.result is not None and outcome.result.exit_status == 0
    assert "Autoinstall on 6.8.0-45-generic succeeded for module(s) amdgpu." in outcome.result.stdout
    assert outcome.verify is not None and outcome.verify.state == State.PASS and outcome.fixed
    assert outcome.verify.message == "amdgpu/6.8.5-2009582.22.04 is installed for the running kernel 6.8.0-45-generic"
    status = (root / ".sim/dkms/status").read_text()
    assert "amdgpu/6.8.5-2009582.22.04, 6.8.0-45-generic, x86_64: installed" in status
    assert not (root / ".sim/amdgpu/load-error").exists()  # modprobe amdgpu now works
    audit = [json.loads(line) for line in (tmp_path / "audit.log").read_text().splitlines()]
    assert any(a["command"] == "dkms autoinstall -k 6.8.0-45-generic" and "approved by tester" in a["note"]
               for a in audit)


def test_fix_replaces_stale_module_and_verifies(tmp_path: Path, plan) -> None:
    root, report = triage(kd.vermagic_mismatch(), tmp_path, plan, fix=True)
    (outcome,) = report.remediations
    assert outcome.fixed and outcome.verify.check_id == "kernel.amdgpu_vermagic"
    assert "vermagic:       5.15.0-119-generic" in (root / ".sim/dkms/modinfo.current").read_text()


def test_fix_forces_the_refused_install_and_verifies(tmp_path: Path, plan) -> None:
    root, report = triage(kd.dkms_install_refused(), tmp_path, plan, fix=True)
    (outcome,) = [o for o in report.remediations if o.plan.remediation_id == "dkms-rebuild"]
    assert outcome.result is not None and outcome.result.exit_status == 0 and outcome.fixed
    assert "/lib/modules/6.8.0-45-generic/updates/dkms/amdgpu.ko" in (root / ".sim/dkms/modinfo.current").read_text()
    assert "amdgpu/6.8.5-2009582.22.04, 6.8.0-45-generic, x86_64: installed" in (root / ".sim/dkms/status").read_text()


@pytest.mark.parametrize("mode", ["declined", "dry-run"])
def test_no_approval_or_dry_run_changes_nothing(tmp_path: Path, plan, mode: str) -> None:
    root, report = triage(kd.dkms_wrong_kernel(), tmp_path, plan, fix=True,
                          approve=mode != "declined", dry_run=mode == "dry-run")
    assert all(o.result is None for o in report.remediations)
    reasons = {o.decision.reason for o in report.remediations}
    assert reasons == ({"declined"} if mode == "declined" else {"dry run: printed, not run"})
    assert (root / ".sim/dkms/status").read_text() == "amdgpu/6.8.5-2009582.22.04, 6.5.0-35-generic, x86_64: installed\n"
    assert (root / ".sim/amdgpu/load-error").exists() and not (root / ".sim/dkms/modinfo.current").exists()
    assert report.exit_status == ExitStatus.CRITICAL


# --- the scenarios are the user-visible demos ---------------------------------------------------

def test_every_case_is_found_by_its_step_and_diagnosis(tmp_path: Path, plan) -> None:
    names = [c[0] for c in kd.CASES]
    assert len(names) == len(set(names)) >= 6
    for i, (name, desc, build, step, diag) in enumerate(kd.CASES):
        _, report = triage(build(), tmp_path / str(i), plan)
        assert steps(report)[step].state in (State.FAIL, State.WARN), name
        assert diag in diagnoses(report), name
        assert desc and name == name.lower()


def test_demo_targets_run_through_the_core() -> None:
    from rocmdoctor.engine.core import TriageRequest, triage_target
    from rocmdoctor.simnode.scenarios import SCENARIOS

    for name, desc, _, step, diag in kd.CASES:
        assert SCENARIOS[name].description == desc and SCENARIOS[name].runbooks == (RUNBOOK,)
        assert SCENARIOS[name].expect == {"step": step, "diagnosis": diag, "vars": {}}
    report = triage_target(TriageRequest(target="demo:dkms-wrong-kernel", runbooks=(RUNBOOK,)))
    assert steps(report)["dkms"].state == State.FAIL
    assert "dkms-not-built-for-kernel" in diagnoses(report)


def test_a_ticket_naming_the_distribution_without_its_release_is_not_judged() -> None:
    """ROCm/TransformerEngine#76's issue form says "Ubuntu" and "ROCm 6.2.0": Ubuntu 22.04 and 24.04 are both
    supported there, so which one runs decides, and the ticket does not say (it was read as an unsupported OS)."""
    from rocmdoctor.engine.core import TriageRequest, triage_target

    bundle = Path(__file__).resolve().parents[1] / "incidents/gpu-oom/megatron-te76-ddp-fp8-oom/bundle"
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=(RUNBOOK,),
                                         vars={"log": "/ticket/results.log", "report": "/ticket/report.md"}))
    step = next(s for s in report.runbooks[0].steps if s.check and s.check.check_id == "rocm.os_supported")
    assert step.state == State.UNKNOWN
    assert step.check.message.startswith("Ubuntu, without its release: ROCm 6.2.0 supports Ubuntu 22.04.5")
    assert "unsupported-kernel-or-os" not in [d.diagnosis_id for d in report.runbooks[0].diagnoses]
