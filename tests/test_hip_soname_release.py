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
    assert parse_loader_errors("libamdhip64.so.6 => /opt/rocm/lib/libamdhip64.so.6\n") == {"missing": []}


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
