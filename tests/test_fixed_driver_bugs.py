"""amdgpu bugs a later kernel fixed, read from the kernel log (data amdgpu_fixed_bugs, from the kernel CVE
team's records): the verdict names the bug, the release that fixed it and the node's own release."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.catalog.datafiles import load_data
from rocmdoctor.catalog.known_bugs import kernel_fix_status, known_bug_matches
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

FIXTURES = Path(__file__).parent / "fixtures" / "outputs" / "kernel-log"
# the oops CVE-2026-23163's fixing commit quotes (Renoir, retry faults on): fixed in 6.6.123, 6.12.69, 6.18.9, 6.19
OOPS = (FIXTURES / "cve-2026-23163-renoir-ih1-null-deref.txt").read_text()
CORPUS = Path(__file__).parent / "incidents"


def _step(tmp_path: Path, dmesg: str, release: str | None):  # type: ignore[no-untyped-def]
    files = {"commands/dmesg/stdout": dmesg}
    if release is not None:
        files["files/proc/sys/kernel/osrelease"] = release + "\n"
    return triage_bundle_step(tmp_path, files, "gpu-hardware-fault", "driver_bug")


def test_an_oops_of_a_fixed_bug_on_an_older_stable_kernel_names_the_fix(tmp_path: Path) -> None:
    rb, step = _step(tmp_path, OOPS, "6.12.40")
    assert step.state == State.FAIL
    assert step.check.message == (
        "the kernel log shows drm/amdgpu: fix NULL pointer dereference in amdgpu_gmc_filter_faults_remove "
        "(raven-renoir-svm-retry-fault-ih1-null-deref), an amdgpu bug fixed in kernel 6.12.69; this node runs "
        "6.12.40, which does not carry the fix")
    assert step.check.evidence[:5] == (
        "dmesg: BUG: kernel NULL pointer dereference, address: 0000000000000004",
        "dmesg: RIP: 0010:amdgpu_ih_decode_iv_ts_helper+0x22/0x40 [amdgpu]",
        "dmesg: amdgpu_gmc_filter_faults_remove+0x60/0x130 [amdgpu]",
        "dmesg: svm_range_restore_pages+0xae5/0x11c0 [amdgpu]",
        "/proc/sys/kernel/osrelease: 6.12.40")
    assert step.check.evidence[5].startswith("Issue introduced in 6.4 with commit dd299441654f")
    assert rb.diagnoses[0].diagnosis_id == "amdgpu-driver-bug-fixed-in-newer-kernel"


@pytest.mark.parametrize("release, state, words", [
    ("6.12.69", State.PASS, "6.12.69 carries its fix (6.12.69)"),
    ("6.19.2", State.PASS, "6.19.2 carries its fix (6.19)"),
    ("6.3.7", State.PASS, "6.3.7 is older than the bug (6.4.0)"),
    ("6.16.3", State.FAIL, "fixed in kernel 6.19; this node runs 6.16.3"),   # a series with no stable fix
    ("6.8.0-45-generic", State.WARN, "distribution build 6.8.0-45-generic"),
    (None, State.WARN, "the running kernel release is not in the evidence"),
])
def test_the_running_release_decides(tmp_path: Path, release: str | None, state: State, words: str) -> None:
    _, step = _step(tmp_path, OOPS, release)
    assert step.state == state and words in step.check.message


def test_stable_and_distribution_release_strings() -> None:
    status = kernel_fix_status("6.18.8-arch1-1", ["6.6.123", "6.12.69", "6.18.9", "6.19"], ["6.4"])
    assert status == {"status": "affected", "fix": "6.18.9"}
    assert kernel_fix_status("5.14.0-427.el9.x86_64", ["6.19"], ["6.4"])["status"] == "distribution"


def test_a_bug_is_known_by_its_crash_site() -> None:
    """The same interrupt-path frames and a NULL dereference, but another crash site: not this bug."""
    bugs = [b for b in load_data("amdgpu_fixed_bugs")["regressions"] if b["id"] == "raven-renoir-svm-retry-fault-ih1-null-deref"]
    other = OOPS.replace("amdgpu_ih_decode_iv_ts_helper", "amdgpu_vm_handle_fault").replace("amdgpu_gmc_filter_faults_remove", "x")
    assert known_bug_matches(OOPS, bugs) and not known_bug_matches(other, bugs)


# corpus logs that are a fixed bug's own report: the fix's patch mail quotes this trace (amd-gfx, 2024-11-04, "drm/amdgpu:
# set the right AMDGPU sg segment limitation", CVE-2024-56594)
THE_BUGS_OWN_REPORTS = {"gpu-hardware-fault/drmamd-prike-rocminfo-dma-debug-sg-segment": ["cve-2024-56594"]}


def test_no_corpus_kernel_log_is_taken_for_a_known_bug() -> None:
    """Generic oops lines (a NULL dereference, refcount underflow) never match alone: none of the corpus's real
    kernel logs, many with oopses and GPU resets, is read as one of the fixed bugs, except the trace a fix's own
    patch mail quotes, which is read as that fix."""
    bugs = load_data("amdgpu_fixed_bugs")["regressions"]
    logs = [p for p in CORPUS.glob("*/*/bundle/commands/dmesg*/stdout")]
    assert len(logs) > 90
    matched = {"/".join(p.relative_to(CORPUS).parts[:2]): [b["id"] for b in found] for p in logs
               if (found := known_bug_matches(p.read_text(errors="replace"), bugs))}
    assert matched == THE_BUGS_OWN_REPORTS


def test_a_bug_tied_to_gpu_targets_needs_one_of_them(tmp_path: Path) -> None:
    bugs = [b for b in load_data("amdgpu_fixed_bugs")["regressions"] if b.get("targets")]
    assert bugs and all(b["lines"] for b in bugs)
    text = "\n".join(bugs[0]["lines"])
    assert known_bug_matches(text, bugs)                      # the lines alone match the entry...
    _, step = _step(tmp_path, text, "6.19.2")
    assert step.state == State.PASS and step.check.message.startswith("no line of the")   # ...but no GPU of its targets here


def test_every_entry_is_found_by_its_own_lines() -> None:
    bugs = load_data("amdgpu_fixed_bugs")["regressions"]
    assert len(bugs) >= 60
    assert [b["id"] for b in bugs if not known_bug_matches("\n".join(b["lines"]), [b])] == []
    assert all(b["fixed_in"] and b.get("sources") for b in bugs)


# nixpkgs#240017: NixOS 5.15.118, a NULL pointer dereference in amdgpu_bo_vm_destroy (no CVE record quotes it)
X399 = (CORPUS / "gpu-hardware-fault" / "x399-kernel-5-15-118-amdgpu-bo-vm-destroy-null-deref" / "bundle" / "commands"
        / "dmesg" / "stdout").read_text()
# CVE-2024-26937: i915's BUG_ON in __engine_park, another GPU driver's oops
I915 = (FIXTURES / "cve-2024-26937-i915-kernel-bug.txt").read_text()


def test_an_oops_in_amdgpu_no_known_bug_matches_is_still_a_driver_bug(tmp_path: Path) -> None:
    rb, step = _step(tmp_path, X399, None)
    assert step.state == State.WARN
    assert step.check.message == (
        "the kernel stopped inside amdgpu's own code (kernel NULL pointer dereference at amdgpu_bo_vm_destroy in "
        "module amdgpu) on kernel 5.15.118: a driver bug, not one of the "
        f"{len(load_data('amdgpu_fixed_bugs')['regressions'])} known fixed ones, so which release fixes it is not "
        "known here")
    assert step.check.evidence == (
        "dmesg: Jun 26 17:10:51 xxx kernel: BUG: kernel NULL pointer dereference, address: 00000000000002b0",
        "dmesg: Jun 26 17:10:51 xxx kernel: RIP: 0010:amdgpu_bo_vm_destroy+0x15/0x90 [amdgpu]",
        "the oops line: 5.15.118")
    diag = rb.diagnoses[0]
    assert (diag.diagnosis_id, diag.confidence) == ("amdgpu-driver-bug-fixed-in-newer-kernel", "medium")
    assert any("amdgpu_bo_vm_destroy" in f for f in diag.follow_up)


def test_another_drivers_oops_is_not_read_as_amdgpus(tmp_path: Path) -> None:
    _, step = _step(tmp_path, I915, "6.8.0")
    assert step.state == State.PASS
    assert step.check.message.startswith("no line of the")


def test_a_kernel_bug_in_an_amdgpu_dkms_source_file_names_the_file() -> None:
    from rocmdoctor.catalog.known_bugs import amdgpu_oops

    log = (CORPUS / "gpu-hardware-fault" / "setonix-mi250x-amdgpu-svm-kernel-bug-kills-node" / "bundle" / "commands"
           / "dmesg" / "stdout").read_text()
    oops = amdgpu_oops(log)
    assert oops is not None
    assert (oops["kind"], oops["site"], oops["file"]) == (
        "kernel BUG", "svm_migrate_copy_to_vram.isra.18", "/tmp/amd.2l5fjPEG/amd/amdgpu/amdgpu_res_cursor.h:65")


def test_a_crash_in_a_drm_helper_amdgpu_called_is_amdgpus_oops() -> None:
    # amd-gfx, 2021: clinfo freeing a KFD BO that amdgpu made without GEM functions; RIP in drm's helper,
    # the first reliable frame (after two '? ' guesses) amdgpu's ioctl
    from rocmdoctor.catalog.known_bugs import amdgpu_oops

    log = (CORPUS / "gpu-hardware-fault" / "celadon-rn-clinfo-kfd-free-bo-null-gem-funcs" / "bundle" / "commands"
           / "dmesg" / "stdout").read_text()
    oops = amdgpu_oops(log)
    assert oops is not None
    assert (oops["site"], oops["module"]) == ("drm_gem_object_free called from kfd_ioctl_free_memory_of_gpu", "amdgpu")
    assert oops["lines"][1].endswith("RIP: 0010:drm_gem_object_free+0xc/0x22 [drm]")
    # a drm helper whose caller is not amdgpu (the i915 fixture) stays another driver's oops
    assert amdgpu_oops(I915) is None


def test_a_pre_4_17_kernel_names_the_crash_site_on_its_ip_line() -> None:
    # ROCm/legacy-rocm-build#446 (a 4.15-era ROCm DKMS driver): the paste ends before RIP; show_fault_oops printed
    # "IP: sym+off/len [module]" right after the header on kernels before 4.17
    from rocmdoctor.catalog.known_bugs import amdgpu_oops

    log = (CORPUS / "gpu-hardware-fault" / "aw2-rocmbuild446-switcheroo-kfd-restore-oops" / "bundle" / "commands"
           / "dmesg" / "stdout").read_text()
    oops = amdgpu_oops(log)
    assert oops is not None
    assert (oops["site"], oops["module"]) == ("amdgpu_amdkfd_gpuvm_restore_process_bos", "amdgpu")
    assert oops["lines"][1].endswith("IP: amdgpu_amdkfd_gpuvm_restore_process_bos+0x70/0x4b0 [amdgpu]")


def test_a_shared_driver_caller_is_not_the_known_bug_when_the_crash_is_elsewhere(tmp_path: Path) -> None:
    # amd-gfx, 2021 (kernel 5.11): its trace goes through amdgpu_amdkfd_gpuvm_alloc_memory_of_gpu and
    # kfd_ioctl like CVE-2026-31765's, which crashed in __mutex_lock; this one crashed in
    # amdgpu_ttm_backend_unbind, so it is not that bug, and its oops is read as the driver's own
    from rocmdoctor.catalog.known_bugs import known_bug_matches

    log = (CORPUS / "gpu-hardware-fault" / "x99-kfdtest-userptr-unbind-null-deref-after-leak-fix" / "bundle"
           / "commands" / "dmesg" / "stdout").read_text()
    assert known_bug_matches(log, load_data("amdgpu_fixed_bugs")["regressions"]) == []
    _, step = _step(tmp_path, log, None)
    assert step.state == State.WARN
    assert "amdgpu_ttm_backend_unbind in module amdgpu" in step.check.message
    assert "5.11.0-kfd-fkuehlin" in step.check.message
