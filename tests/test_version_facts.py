"""Version facts from where they are published (issue 41, item 4): a DKMS build's own header names
the driver and the kernel; the driver names its ROCm release and AMD's compatibility matrix the
kernels that release supports, so the verdict names the releases involved."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

# the header line of a real make.log (ROCm/legacy-rocm-build#5624, in the corpus) and DKMS 2's form
HEADER_3 = "DKMS (dkms-3.2.0) make.log for amdgpu/{v} for kernel {k} (x86_64)\n"


def _step(tmp_path: Path, version: str, kernel: str):  # type: ignore[no-untyped-def]
    log = tmp_path / "files" / "var" / "lib" / "dkms" / "amdgpu" / version / "build" / "make.log"
    log.parent.mkdir(parents=True)
    log.write_text(HEADER_3.format(v=version, k=kernel))
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("kernel-driver-mismatch",)))
    rb = report.runbooks[0]
    return rb, next(s for s in rb.steps if s.step_id == "buildkernel")


def test_a_build_for_a_newer_kernel_than_its_release_supports_names_both_releases(tmp_path: Path) -> None:
    rb, step = _step(tmp_path, "6.12.12-2202139.24.04", "6.17.0-6-generic")
    assert step.state == State.WARN
    assert "ROCm 6.4's driver" in step.check.message and "Ubuntu 24.04" in step.check.message
    assert "6.8, 6.11" in step.check.message and "6.17.0-6-generic" in step.check.message
    assert any("compat-matrix-6.4.3" in e for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "unsupported-kernel-or-os"


def test_a_build_for_a_supported_kernel_passes(tmp_path: Path) -> None:
    _, step = _step(tmp_path, "6.12.12-2202139.24.04", "6.8.0-45-generic")
    assert step.state == State.PASS and "which ROCm 6.4 supports on Ubuntu 24.04" in step.check.message


@pytest.mark.parametrize("version, says", [
    # ROCm 7.2's matrix lists operating systems but no kernel table (rocm_supported_kernels.yaml, "7.2")
    ("6.16.13-2278356.24.04", "ships with ROCm 7.2, whose compatibility matrix (compat-matrix-7.2.3) names no kernel"),
    ("9.9.9-1.24.04", "does not name the ROCm release"),
])
def test_a_release_or_kernel_list_the_table_lacks_is_unknown_not_a_guess(tmp_path: Path, version: str, says: str) -> None:
    _, step = _step(tmp_path, version, "6.18.7-061807-generic")
    assert step.state == State.UNKNOWN and says in step.check.message


# `dkms status` and `uname -a` as a ticket pastes them (ROCm/ROCm#602, in the corpus); a ROCm 1.x-4.x
# rock-dkms version names its series itself ("1.9-307" -> 1.9)
DKMS_19 = "amdgpu, 1.9-307: added\n"
UNAME = "Linux wukong {k} #165-Ubuntu SMP Wed Oct 24 10:58:50 UTC 2018 x86_64 x86_64 x86_64 GNU/Linux\n"


def _support(tmp_path: Path, dkms: str, kernel: str, os_release: str | None = None):  # type: ignore[no-untyped-def]
    for cmd, out in (("dkms status", dkms), ("uname -a", UNAME.format(k=kernel))):
        d = tmp_path / "commands" / cmd
        d.mkdir(parents=True)
        (d / "stdout").write_text(out)
    if os_release:
        f = tmp_path / "files" / "etc" / "os-release"
        f.parent.mkdir(parents=True)
        f.write_text(os_release)
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("kernel-driver-mismatch",)))
    return next(s for s in report.runbooks[0].steps if s.step_id == "support")


def test_old_rock_dkms_release_and_a_kernel_below_its_open_range(tmp_path: Path) -> None:
    step = _support(tmp_path, DKMS_19, "4.4.0-139-generic")
    assert step.state == State.WARN
    assert "kernel 4.4.0-139-generic is older than ROCm 1.9 supports" in step.check.message
    assert "4.13 or newer" in step.check.message
    assert "dkms status: amdgpu 1.9-307 (the ROCm 1.9 driver)" in step.check.evidence
    assert any(e.startswith("uname -a: Linux wukong 4.4.0-139-generic") for e in step.check.evidence)


def test_a_kernel_in_the_open_range_passes(tmp_path: Path) -> None:
    step = _support(tmp_path, DKMS_19, "4.15.0-33-generic", 'ID=ubuntu\nVERSION_ID="18.04"\nPRETTY_NAME="Ubuntu 18.04.1 LTS"\n')
    assert step.state == State.PASS and "ROCm 1.9 supports Ubuntu 18.04" in step.check.message


def test_a_closed_kernel_range_warns_outside_it(tmp_path: Path) -> None:
    """ROCm 2.2's README: "kernels 4.13-4.15"; a 4.18 kernel is outside (ROCm/ROCm#731's answer)."""
    step = _support(tmp_path, "amdgpu, 2.2-31, 4.18.0-16-generic, x86_64: installed\n", "4.18.0-16-generic",
                    'ID=ubuntu\nVERSION_ID="18.04"\nPRETTY_NAME="Ubuntu 18.04.2 LTS"\n')
    assert step.state == State.WARN and "AMD supports kernel 4.13 or 4.14 or 4.15" in step.check.message


# Which GPUs a release supports (data rocm_supported_gpus, from AMD's system requirements and matrices):
# a real rocminfo of four MI300X (gfx942; tests/fixtures/outputs/rocminfo/SOURCES.md) under two releases.
# MI300X first appears in ROCm 6.0's list; 5.7's lists gfx90a, gfx908, gfx906, gfx1030.
ROCMINFO_MI300X = Path(__file__).parent / "fixtures" / "outputs" / "rocminfo" / "mi300x-x4.txt"


def _gpu_support(tmp_path: Path, version: str):  # type: ignore[no-untyped-def]
    files = {"commands/rocminfo/stdout": ROCMINFO_MI300X.read_text(), "files/opt/rocm/.info/version": version + "\n"}
    return triage_bundle_step(tmp_path, files, "gpu-not-visible", "gpu_support")


def test_a_gpu_its_release_does_not_list_is_named_with_the_release_and_its_list(tmp_path: Path) -> None:
    rb, step = _gpu_support(tmp_path, "5.7.0-63")
    assert step.state == State.WARN
    assert step.check.message.startswith("gfx942 (AMD Instinct MI300X) is not on ROCm 5.7.0's list of supported GPUs")
    assert "gfx90a, gfx908, gfx906, gfx1030" in step.check.message
    assert "cat /opt/rocm/.info/version: 5.7.0-63" in step.check.evidence
    assert any(e.startswith("ROCm 5.7 supported GPUs (") for e in step.check.evidence)
    assert "unsupported-gpu" in [d.diagnosis_id for d in rb.diagnoses]


@pytest.mark.parametrize("version, key", [("6.0.0-91", "6.0"), ("6.4.1-21", "6.4.1"), ("6.4.3-1", "6.4.2")])
def test_a_listed_gpu_passes_under_the_list_of_its_point_release(tmp_path: Path, version: str, key: str) -> None:
    _, step = _gpu_support(tmp_path, version)
    assert step.state == State.PASS and step.check.message.startswith(f"ROCm {version.split('-')[0]} supports gfx942")
    assert any(e.startswith(f"ROCm {key} supported GPUs (") for e in step.check.evidence)


def test_amd_smi_static_names_the_target_where_a_ticket_has_no_rocminfo(tmp_path: Path) -> None:
    """AMD's own `amd-smi static --json` sample of an MI210 (gfx90a): ROCm 4.5's README lists gfx900, gfx906 and
    gfx908 only (the MI200 series arrived with ROCm 5.0)."""
    static = Path(__file__).parent / "fixtures" / "outputs" / "amd-smi" / "static-gpu_data-mi210.json"
    (tmp_path / "commands" / "amd-smi static --json").mkdir(parents=True)
    (tmp_path / "commands" / "amd-smi static --json" / "stdout").write_text(static.read_text())
    f = tmp_path / "files" / "opt" / "rocm" / ".info" / "version"
    f.parent.mkdir(parents=True)
    f.write_text("4.5.2-164\n")
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("gpu-not-visible",)))
    step = next(s for s in report.runbooks[0].steps if s.step_id == "gpu_support")
    assert step.state == State.WARN
    assert step.check.message.startswith("gfx90a (") and "not on ROCm 4.5.2's list of supported GPUs (gfx900, gfx906, gfx908" in step.check.message
    assert any(e.startswith("amd-smi static: gfx90a") for e in step.check.evidence)


def test_dkms_status_alone_names_the_build_and_its_kernel(tmp_path: Path) -> None:
    """A ticket's `dkms status` line without a make.log (ROCm/ROCm#5102, in the corpus): ROCm 6.4.1's driver built
    for the 6.14 HWE kernel, which ROCm 6.4 does not support on Ubuntu 24.04 (6.8, 6.11)."""
    rb, step = triage_bundle_step(tmp_path, {"commands/dkms status/stdout": "amdgpu/6.12.12-2187269.24.04, 6.14.0-24-generic, x86_64: installed\n"},
                                  "kernel-driver-mismatch", "buildkernel")
    assert step.state == State.WARN
    assert "built for kernel 6.14.0-24-generic, newer than any kernel ROCm 6.4 supports on Ubuntu 24.04" in step.check.message
    assert step.check.evidence[0] == "dkms status: amdgpu/6.12.12-2187269.24.04 for kernel 6.14.0-24-generic"
    assert rb.diagnoses[0].diagnosis_id == "unsupported-kernel-or-os"


def test_a_build_without_its_os_names_where_the_kernel_is_supported(tmp_path: Path) -> None:
    # `dkms status` as ROCm/ROCm#1663 pasted it (in the corpus): ROCm 4.5's amdgpu-dkms 5.11.32 for the 5.4 kernel,
    # no /etc/os-release; ROCm 4.5's README lists 5.4 only for Ubuntu 18.04.5
    d = tmp_path / "commands" / "dkms status"
    d.mkdir(parents=True)
    (d / "stdout").write_text("amdgpu, 5.11.32-1350682, 5.4.0-97-generic, x86_64: installed\n")
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("kernel-driver-mismatch",)))
    step = next(s for s in report.runbooks[0].steps if s.step_id == "buildkernel")
    assert step.state == State.PASS
    assert "amdgpu-dkms 5.11.32 (ROCm 4.5)" in step.check.message
    assert "supports on Ubuntu 18.04.5 (the operating system is not in the evidence" in step.check.message
    assert step.check.evidence == ("dkms status: amdgpu/5.11.32-1350682 for kernel 5.4.0-97-generic",)


def test_a_ticket_without_the_release_is_not_a_node_without_rocm(tmp_path: Path) -> None:
    """A bundle with no /opt/rocm/.info/version says nothing about whether ROCm is installed (the file was not
    pasted): the release is unknown, not absent."""
    step = _support(tmp_path, "", "4.18.0-16-generic")
    assert step.state == State.UNKNOWN
    assert step.check.message.startswith("`cat /opt/rocm/.info/version`: not in bundle")
    assert "the ROCm release is not in the evidence" in step.check.message


def test_a_node_without_the_release_file_has_no_rocm_to_judge(tmp_path: Path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.scenarios import kernel_driver as kd
    from rocmdoctor.testing.triage_helpers import steps, triage_node

    node = kd.healthy().remove("/opt/rocm/.info/version").remove_tool("dkms")
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), [kd.RUNBOOK]))
    support = steps(report)["support"]
    assert support.state == State.PASS and support.check.message.startswith("ROCm is not installed on the host")
