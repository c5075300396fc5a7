"""dkms_build reads real DKMS console output and make.logs: the texts are the corpus cases'
verbatim evidence (tests/incidents/kernel-driver-mismatch/*/case.md names each thread)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.parsers.dkms_build import parse_dkms_build

CASES = Path(__file__).resolve().parents[1] / "incidents" / "kernel-driver-mismatch"


def _read(case: str, path: str) -> str:
    return (CASES / case / "bundle" / path).read_text()


def test_console_names_the_kernel_and_the_make_log() -> None:
    out = parse_dkms_build(_read("amdgpu-dkms-5.18-on-6.5.0-41", "files/ticket/console.log"))
    assert [f["kernel"] for f in out["failures"]] == ["6.5.0-41-generic"]
    assert out["failures"][0]["arch"] == "amd64"
    assert out["failures"][0]["line"].startswith("Error! Bad return status for module build on kernel: 6.5.0-41-generic")
    assert out["module"] == "amdgpu" and out["version"] == "5.18.13-1538762.20.04"
    assert out["make_log"] == "/var/lib/dkms/amdgpu/5.18.13-1538762.20.04/build/make.log"
    assert out["first_error"] is None   # no compiler output in a console log


def test_autoinstall_failure_counts_once_per_kernel() -> None:
    out = parse_dkms_build(_read("amdgpu-dkms-6.7-on-6.8.0-44-autoinstall", "files/ticket/console.log"))
    assert [f["kernel"] for f in out["failures"]] == ["6.8.0-44-generic"]


def test_make_log_with_a_translated_make_still_gives_the_first_error() -> None:
    case = "centos8-stream-dma-resv-seq-missing"
    out = parse_dkms_build(_read(case, "files/var/lib/dkms/amdgpu/5.18.13-1538762.el8/build/make.log"))
    assert out["log_kernel"] == "4.18.0-490.el8.x86_64" and out["version"] == "5.18.13-1538762.el8"
    assert out["first_error"]["msg"].startswith("dma_resv->seq is missing")
    assert out["first_error"]["lineno"] == 3
    assert out["failures"] == []   # a make.log carries no dkms verdict of its own


def test_make_log_cut_before_any_error_has_none() -> None:
    out = parse_dkms_build(_read("amdgpu-dkms-1.8-debian-stretch-4.9", "files/var/lib/dkms/amdgpu/1.8-192/build/make.log"))
    assert out["log_kernel"] == "4.9.0-7-amd64"
    assert out["first_error"] is None and out["errors"] == 0


def test_other_text_is_read_without_error() -> None:
    out = parse_dkms_build("hello\n\x00\xff strange bytes\n")
    assert out["failures"] == [] and out["first_error"] is None


def test_leftover_version_directory_and_the_package_verdict() -> None:
    out = parse_dkms_build(_read("amdgpu-install-6.0.2-leftover-5.18.13-tree", "files/ticket/install.log"))
    assert [(t["module"], t["version"], t["lineno"]) for t in out["stale_trees"]] == [
        ("amdgpu", "5.18.13-1577590.22.04", 3)]
    assert out["stale_trees"][0]["tree"] == "/var/lib/dkms/amdgpu/5.18.13-1577590.22.04"
    # amdgpu-dkms's post-install verdict: a failure for the running kernel, which it does not name
    assert [(f["kernel"], f["module"], f["lineno"]) for f in out["failures"]] == [(None, "amdgpu", 4)]


def test_the_same_leftover_directory_in_two_kernel_hooks_counts_once() -> None:
    out = parse_dkms_build(_read("rock-dkms-2.7-leftover-tree-debian10-kernel-update", "files/ticket/apt-upgrade.log"))
    assert [t["version"] for t in out["stale_trees"]] == ["2.7-27"]
    assert out["failures"] == [] and out["first_error"] is None


def test_install_refused_because_the_kernels_own_module_is_not_older() -> None:
    out = parse_dkms_build(_read("rock-dkms-1.7-not-newer-than-kernel-amdgpu-4.13.0-36", "files/ticket/dkms-install.log"))
    assert [(r["module"], r["version"], r["kernel"], r["existing"], r["lineno"]) for r in out["refused"]] == [
        ("amdgpu", "C502C9F63988A81945CAABD", "4.13.0-36-generic", "D3580B8CE287C145D0DC895", 6)]
    assert out["refused"][0]["line"].endswith("(D3580B8CE287C145D0DC895).")
    assert out["failures"] == []   # the build itself succeeded


def test_a_sanity_line_without_its_refusal_is_not_a_refusal() -> None:
    # dkms's "Good news! ... exactly matches" (a module already in place; verbatim from an
    # ubuntuforums r8168 post, code index id 56967854034) is not the refusal read here, and the
    # refusal's two lines must follow each other
    text = ("Good news! Module version 8.039.00-NAPI for r8168.ko\n"
            "exactly matches what is already found in kernel 3.13.0-44-generic.\n"
            "Error! Module version C502C9F63988A81945CAABD for amdgpu.ko\n\n"
            "Building initial module for 4.13.0-36-generic\n"
            "is not newer than what is already found in kernel 4.13.0-36-generic (D3580B8CE287C145D0DC895).\n")
    assert parse_dkms_build(text)["refused"] == []


def test_dkms3_autoinstall_header_then_a_bad_exit_status_is_a_failed_build() -> None:
    out = parse_dkms_build(_read("amdgpu-dkms-6-19-4-build-fails-ubuntu-26-04-kernel-7-0-0-22", "files/ticket/install.log"))
    assert [(f["kernel"], f["arch"], f["module"]) for f in out["failures"]] == [("7.0.0-22-generic", "x86_64", "amdgpu")]
    assert out["failures"][0]["line"] == "Building module(s).............(bad exit status: 2)"
    assert out["version"] == "6.19.4-2337710.26.04"


def test_a_successful_dkms3_autoinstall_is_no_failure() -> None:
    # dkms-project/dkms run_test.sh's expected autoinstall output, its ${KERNEL_VER} and ${KERNEL_ARCH} filled in
    text = ("Autoinstall of module dkms_test/1.0 for kernel 6.8.0-1-generic (x86_64)\n"
            "Building module(s)... done.\nAutoinstall on 6.8.0-1-generic succeeded for module(s) dkms_test.\n")
    assert parse_dkms_build(text)["failures"] == []


def test_dkms3_bad_exit_then_dkmss_own_verdict_is_one_failure() -> None:
    # dkms 3.x's two lines for one failed build: the first two from ROCm/amdgpu#220's installer console, dkms's
    # verdict in the form the corpus case amdgpu-dkms-5.18-on-6.5.0-41 shows
    text = ("Autoinstall of module amdgpu/6.19.4-2337710.26.04 for kernel 7.0.0-22-generic (x86_64)\n"
            "Building module(s).............(bad exit status: 2)\n"
            "Error! Bad return status for module build on kernel: 7.0.0-22-generic (x86_64)\n")
    (failure,) = parse_dkms_build(text)["failures"]
    assert failure["kernel"] == "7.0.0-22-generic" and failure["line"].startswith("Error! Bad return status")


def test_a_make_log_pasted_without_its_header_names_driver_and_kernel_by_its_paths() -> None:
    """ROCm/amdgpu#95: only the tail of the make.log; rock-dkms's tree amdgpu-3.5/30 is driver "3.5-30" (the
    form `dkms status` gives it), kbuild's "Leaving directory '/usr/lib/modules/K/build'" the kernel."""
    out = parse_dkms_build(_read("dkms-amdgpu-pr95-manjaro-570-kallsyms-lookup-name", "files/ticket/make.log"))
    assert (out["module"], out["version"], out["log_kernel"]) == ("amdgpu", "3.5-30", "5.7.0-3-MANJARO")
    # Ubuntu's headers directory and dkms's own make line name the kernel the same way
    assert parse_dkms_build("make[1]: Entering directory '/usr/src/linux-headers-5.4.0-91-generic'\n")["log_kernel"] \
        == "5.4.0-91-generic"
    assert parse_dkms_build("make -j16 KERNELRELEASE=6.8.0-44-generic -C /lib/modules/6.8.0-44-generic/build "
                            "M=/var/lib/dkms/amdgpu/6.8.5-2041575.22.04/build\n")["log_kernel"] == "6.8.0-44-generic"
    # a header, when there, outranks both
    text = ("DKMS make.log for amdgpu-3.8-30 for kernel 5.9.2-arch1-1 (x86_64)\n"
            "make: Entering directory '/usr/lib/modules/5.8.0-1-MANJARO/build'\n")
    assert (parse_dkms_build(text)["version"], parse_dkms_build(text)["log_kernel"]) == ("3.8-30", "5.9.2-arch1-1")


def test_a_pasted_make_log_is_held_to_its_releases_kernels(tmp_path: Path) -> None:
    """The pasted make.log alone names ROCm 3.5's driver built for kernel 5.7: newer than any kernel ROCm 3.5
    supports (its README's list), said with both numbers."""
    from rocmdoctor.results import State
    from rocmdoctor.testing.triage_helpers import triage_bundle_step

    files = {"files/ticket/make.log": _read("dkms-amdgpu-pr95-manjaro-570-kallsyms-lookup-name", "files/ticket/make.log")}
    rb, step = triage_bundle_step(tmp_path, files, "kernel-driver-mismatch", "buildkernel", vars={"log": "/ticket/make.log"})
    assert step.check is not None and step.check.state == State.WARN
    assert "amdgpu-dkms 3.5-30 is ROCm 3.5's driver" in step.check.message and "5.7.0-3-MANJARO" in step.check.message
    assert "DKMS make.log /ticket/make.log: amdgpu/3.5-30 for kernel 5.7.0-3-MANJARO" in step.check.evidence
    assert "unsupported-kernel-or-os" in [d.diagnosis_id for d in rb.diagnoses]


def test_a_make_log_pasted_from_bat_is_read_through_its_gutter() -> None:
    """ROCm/legacy-rocm-build#1125: the make.log as bat shows it, line numbers and `│`, long lines wrapped."""
    out = parse_dkms_build(_read("dkms-1125-parrot-5-10-0-21-amdgpu-dkms-5-11-modpost-migrate-vma", "files/ticket/make.log"))
    assert out["first_error"]["msg"].startswith('"migrate_vma_finalize" [/var/lib/dkms/amdgpu/5.11.19.98-1290604/')
    assert out["first_error"]["lineno"] == 7 and out["errors"] == 3 and out["amd_tree"]
    assert out["version"] == "5.11.19.98-1290604"
    assert out["gcc_mismatch"] is None   # its line wraps before "GCC version N": not read as half a line
