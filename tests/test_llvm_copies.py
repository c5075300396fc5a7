"""Two LLVM releases in one crashed process (ROCm's comgr beside Mesa's or an application's LLVM): read from the
libLLVM sonames a backtrace, maps or ldd names, and from LLVM's own abort message."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.parsers.llvm_copies import parse_llvm_copies
from rocmdoctor.status import State

INCIDENTS = Path(__file__).resolve().parent / "incidents"


def test_the_parser_reads_sonames_of_each_form_and_skips_component_libraries() -> None:
    # ldd's form (AdaptiveCpp/AdaptiveCpp#1403) with the SPIR-V translator, which is not LLVM itself
    ldd = ("\tlibLLVM-17.so.1 => /lib/x86_64-linux-gnu/libLLVM-17.so.1 (0x00007f338789a000)\n"
           "\tlibLLVMSPIRVLib.so.17 => /lib/x86_64-linux-gnu/libLLVMSPIRVLib.so.17 (0x00007f33874da000)\n")
    assert parse_llvm_copies(ldd)["majors"] == [17]
    # two slots named on one line (inode64/inode64-overlay#56)
    both = parse_llvm_copies("with both /usr/lib/llvm/23/lib64/libLLVM.so.23.1 and /usr/lib/llvm/22/lib64/libLLVM.so.22.1")
    assert both["majors"] == [22, 23]
    assert [c["library"] for c in both["copies"]] == ["/usr/lib/llvm/23/lib64/libLLVM.so.23.1",
                                                      "/usr/lib/llvm/22/lib64/libLLVM.so.22.1"]
    assert parse_llvm_copies("no llvm here")["copies"] == []
    # Fedora gdb's debuginfo hint names the packages of the loaded libraries (ROCm/clr#155)
    hint = ("Missing rpms, try: dnf --enablerepo='*debug*' install ocl-icd-debuginfo-2.3.2-7.fc41.x86_64 "
            "lld18-libs-debuginfo-18.1.8-6.fc41.x86_64 clang18-libs-debuginfo-18.1.8-5.fc41.x86_64 "
            "llvm18-libs-debuginfo-18.1.8-4.fc41.x86_64 mesa-libOpenCL-debuginfo-25.0.3-2.fc41.x86_64 "
            "clang-libs-debuginfo-19.1.7-3.fc41.x86_64")
    rpm = parse_llvm_copies(hint)
    assert rpm["majors"] == [18, 19]
    assert [c["library"] for c in rpm["copies"]] == ["clang18-libs-debuginfo-18.1.8-5.fc41.x86_64",
                                                     "clang-libs-debuginfo-19.1.7-3.fc41.x86_64"]


def test_a_backtrace_through_two_llvm_releases_names_the_conflict() -> None:
    case = INCIDENTS / "gpu-not-visible" / "blender-hip-rocm-llvm22-vs-llvm19-segfault"
    report = triage_target(TriageRequest(target="", bundle=str(case / "bundle"), runbooks=("gpu-not-visible",),
                                         vars={"log": "/ticket/blender-crash.log"}))
    rb = report.runbooks[0]
    step = next(s for s in rb.steps if s.step_id == "logllvm")
    assert step.state == State.FAIL
    assert "libLLVM.so.22.0" in step.check.message and "libLLVM.so.19.1" in step.check.message
    assert any("blender-crash.log:12:" in e and "llvm-22.0.0-rocm-lib" in e for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "conflicting-llvm-libraries-in-process"
    assert "LD_PRELOAD" in " ".join(rb.diagnoses[0].follow_up)


def test_one_llvm_release_is_not_a_conflict(tmp_path: Path) -> None:
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "job.log").write_text(
        "\tlibLLVM-17.so.1 => /lib/x86_64-linux-gnu/libLLVM-17.so.1 (0x00007f338789a000)\n")
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("gpu-not-visible",),
                                         vars={"log": "/ticket/job.log"}))
    step = next(s for s in report.runbooks[0].steps if s.step_id == "logllvm")
    assert step.state == State.SKIPPED and "one LLVM release (17)" in step.skipped_because
