"""A loader error for the HIP runtime's soname (libamdhip64.so.N): N is the ROCm major the asking binary was
built against (CLR's SOVERSION is HIP's major, data rocm_sonames), read against the release the job runs."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.parsers.loader_errors import parse_loader_errors
from rocmdoctor.status import State

INCIDENTS = Path(__file__).resolve().parent / "incidents" / "gpu-not-visible"


def _step(bundle: Path, **vars: str):
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=("gpu-not-visible",), vars=vars))
    rb = report.runbooks[0]
    return rb, next(s for s in rb.steps if s.step_id == "hipsoname")


def test_the_parser_reads_glibc_and_python_forms() -> None:
    text = ("rocminfo: error while loading shared libraries: libhsakmt.so.1: cannot open shared object file: No such "
            "file or directory\n"
            "ImportError: libamdhip64.so.5: cannot open shared object file: No such file or directory\n"
            "OSError: /opt/rocm-6.2.0/lib/libhiprtc.so: cannot open shared object file: No such file or directory\n"
            "ImportError: libamdhip64.so.5: cannot open shared object file: No such file or directory\n")
    missing = parse_loader_errors(text)["missing"]
    assert [(m["lib"], m["base"], m["major"], m["path"], m["lineno"]) for m in missing] == [
        ("libhsakmt.so.1", "libhsakmt", 1, None, 1), ("libamdhip64.so.5", "libamdhip64", 5, None, 2),
        ("libhiprtc.so", "libhiprtc", None, "/opt/rocm-6.2.0/lib", 3)]
    assert parse_loader_errors("libamdhip64.so.6 => /opt/rocm/lib/libamdhip64.so.6\n")["missing"] == []


def test_an_extension_built_for_rocm6_in_a_rocm7_pytorch_process() -> None:
    """torch_geometric's warnings quote the loader error; the same log's collect_env names PyTorch 2.8.0+rocm7.0.0."""
    rb, step = _step(INCIDENTS / "rx9070xt-rocm70-docker-pyg-wheels-need-libamdhip64-so6" / "bundle",
                     log="/ticket/pyg-import.log")
    assert step.state == State.FAIL
    assert "libamdhip64.so.6, the HIP runtime of ROCm 6.x" in step.check.message
    assert "runs ROCm 7.0.0 (PyTorch 2.8.0+rocm7.0.0" in step.check.message
    assert any(e.startswith("/ticket/pyg-import.log:") and "libamdhip64.so.6: cannot open" in e
               for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "rocm-wheel-for-other-rocm-release"


def test_the_soname_of_the_running_release_is_a_missing_path_not_another_release(tmp_path: Path) -> None:
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "job.log").write_text(
        "PyTorch version: 2.5.1+rocm6.2\n"
        "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory\n")
    rb, step = _step(tmp_path, log="/ticket/job.log")
    assert step.state == State.PASS and "is ROCm 6's, the release that runs (6.2)" in step.check.message
    assert "rocm-wheel-for-other-rocm-release" not in [d.diagnosis_id for d in rb.diagnoses]


def test_without_the_running_release_it_stays_unknown_with_the_command() -> None:
    rb, step = _step(INCIDENTS / "graphml-pygrocm-mi300x-rocm62-wheels-need-libamdhip64-so5" / "bundle",
                     log="/ticket/import.log")
    assert step.state == State.UNKNOWN and "cat /opt/rocm/.info/version" in step.check.message


def test_a_line_only_the_report_holds_is_quoted_with_the_reports_name(tmp_path: Path) -> None:
    """The loader line pasted in the issue form, not in the job's log: the evidence names the report."""
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "job.log").write_text("PyTorch version: 2.8.0+rocm7.0.0\n")
    (tmp_path / "files" / "ticket" / "report.md").write_text(
        "### Error\n"
        "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory\n")
    rb, step = _step(tmp_path, log="/ticket/job.log", report="/ticket/report.md")
    assert step.state == State.FAIL
    assert step.check.evidence[0].strip() == (
        "/ticket/report.md:2: ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory")


def test_a_loader_error_for_another_library_is_not_quoted_as_the_hip_runtimes(tmp_path: Path) -> None:
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "job.log").write_text(
        "PyTorch version: 2.8.0+rocm7.0.0\n"
        "rocminfo: error while loading shared libraries: libhsakmt.so.1: cannot open shared object file: No such "
        "file or directory\n"
        "ImportError: libamdhip64.so.7: cannot open shared object file: No such file or directory\n")
    rb, step = _step(tmp_path, log="/ticket/job.log")
    assert step.state == State.PASS and step.check.message.startswith("libamdhip64.so.7 is ROCm 7's")
    assert [e.strip() for e in step.check.evidence] == [
        "/ticket/job.log:3: ImportError: libamdhip64.so.7: cannot open shared object file: No such file or directory"]


ORT = INCIDENTS / "libver-ort118-rocm-provider-needs-rocblas3-and-4" / "bundle"


def test_the_parser_reads_an_ldd_listing() -> None:
    """microsoft/onnxruntime#20929: ldd on the ROCm execution provider (glibc rtld's trace-mode lines)."""
    got = parse_loader_errors((ORT / "files" / "ticket" / "ldd.log").read_text())
    assert [(m["lib"], m["major"], m["lineno"]) for m in got["missing"]] == [("librocblas.so.3", 3, 2)]
    assert [(r["lib"], r["major"], r["path"]) for r in got["resolved"]] == [
        ("librocblas.so.4", 4, "/opt/rocm/lib/librocblas.so.4")]


def test_a_rocblas_soname_of_another_release_beside_the_installed_one() -> None:
    """ONNX Runtime 1.18.0's ROCm provider asks for librocblas.so.3 (rocBLAS 3.x, ROCm 5.6-5.7) on a node whose
    /opt/rocm/lib has librocblas.so.4 (ROCm 6.x): "The GitHub release is still using ROCm 5.6"."""
    rb, step = _step(ORT, log="/ticket/ldd.log", report="/ticket/report.md")
    assert step.state == State.FAIL
    assert step.check.message.startswith(
        "the job asks for librocblas.so.3, the rocBLAS soname ROCm 5.6.0 to 5.7.1 ship, while the loader finds "
        "librocblas.so.4 at /opt/rocm/lib/librocblas.so.4")
    assert step.check.evidence[:2] == ("/ticket/ldd.log:2: librocblas.so.3 => not found",
                                       "/ticket/ldd.log:3: librocblas.so.4 => /opt/rocm/lib/librocblas.so.4 (0x00001519fb7df000)")
    assert rb.diagnoses[0].diagnosis_id == "rocm-wheel-for-other-rocm-release"


def test_a_rocblas_soname_against_the_running_release(tmp_path: Path) -> None:
    """The same missing soname with the node's release instead of the found library: ROCm 6.1.2 ships .so.4; a
    release past the table's last read (7.0) is not judged."""
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "opt" / "rocm" / ".info").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "job.log").write_text(
        "ImportError: librocblas.so.0: cannot open shared object file: No such file or directory\n")
    (tmp_path / "files" / "opt" / "rocm" / ".info" / "version").write_text("6.1.2-119\n")
    _, step = _step(tmp_path, log="/ticket/job.log")
    assert step.state == State.FAIL
    assert "asks for librocblas.so.0, the rocBLAS soname ROCm 3.3.0 to 5.5.1 ship, while ROCm 6.1.2 ships librocblas.so.4" in step.check.message
    (tmp_path / "files" / "opt" / "rocm" / ".info" / "version").write_text("7.0.0-38\n")
    _, step = _step(tmp_path, log="/ticket/job.log")
    assert step.state == State.SKIPPED
