"""A ticket about wrong numbers, read against the release notes' documented wrong-result bugs (data
known_wrong_results): the release and GPU the ticket states stand in for /opt/rocm/.info/version and the KFD
topology, and the job's log naming the library (here `ldd` output) stands in for /proc/PID/maps."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.catalog.gpu_facts import gfx_version_number
from rocmdoctor.catalog.release_bugs import documented_wrong_results, log_line_naming
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import triage_bundle_step

# GitHub issue-form fields as rendered (ROCm/ROCm's bug template: "### GPU", "### ROCm Version")
REPORT = "### Operating System\n\nUbuntu 22.04.4 LTS\n\n### GPU\n\nAMD Instinct MI210\n\n### ROCm Version\n\nROCm {rocm}\n"
# ldd's output format (glibc): "\tSONAME => PATH (ADDRESS)"
LDD = ("\tlibamdhip64.so.6 => /opt/rocm/lib/libamdhip64.so.6 (0x00007f3c1a000000)\n"
       "\t{lib} => /opt/rocm/lib/{lib} (0x00007f3c19e00000)\n")


def _triage(tmp_path: Path, rocm: str, lib: str):  # type: ignore[no-untyped-def]
    files = {"files/ticket/report.md": REPORT.format(rocm=rocm), "files/ticket/ldd.log": LDD.format(lib=lib)}
    return triage_bundle_step(tmp_path, files, "wrong-results", "known_stated",
                              vars={"log": "/ticket/ldd.log", "report": "/ticket/report.md"})


def test_a_stated_release_with_a_documented_bug_in_a_library_the_log_names_warns(tmp_path: Path) -> None:
    rb, step = _triage(tmp_path, "6.2.0", "librocsparse.so.1")
    assert step.state == State.WARN
    assert "ROCm 6.2.0" in step.check.message and "rocSPARSE (librocsparse)" in step.check.message
    assert "bsrgemm" in step.check.message
    assert any(e.startswith("the ticket states") and "6.2.0" in e for e in step.check.evidence)
    assert any(e.startswith("/ticket/ldd.log:2:") and "librocsparse.so.1" in e for e in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "known-bad-combination"


def test_the_release_with_the_fix_does_not_warn(tmp_path: Path) -> None:
    _, step = _triage(tmp_path, "6.3.0", "librocsparse.so.1")
    assert step.state == State.PASS


def test_a_log_that_names_no_affected_library_does_not_warn(tmp_path: Path) -> None:
    _, step = _triage(tmp_path, "6.2.0", "librocblas.so.4")
    assert step.state == State.PASS and "none in a library" in step.check.message


def test_library_names_are_matched_as_words_and_gfx_names_as_kfd_numbers() -> None:
    assert log_line_naming("x\nusing rocSPARSE 3.2\n", ["librocsparse"]) == {"lineno": 2, "line": "using rocSPARSE 3.2", "name": "rocSPARSE"}
    assert log_line_naming("hiprocsparsex\n", ["librocsparse"]) is None
    assert log_line_naming("anything", []) is None
    assert [gfx_version_number(g) for g in ("gfx90a", "gfx942", "gfx1100", "gfx1201", "gfx11-generic")] == [90010, 90402, 110000, 120001, None]


def test_a_series_bug_with_a_fix_release_applies_only_before_the_fix() -> None:
    from rocmdoctor.catalog.datafiles import load_data

    issues = load_data("known_wrong_results")["issues"]
    hip_graph = [i for i in issues if i["component"] == "HIP runtime"]
    assert hip_graph and hip_graph[0]["series"] == ["5.2"] and hip_graph[0]["before"] == "5.2.3"
    assert documented_wrong_results(hip_graph, "5.2.0", [], 1) == hip_graph
    assert documented_wrong_results(hip_graph, "5.2.3", [], 1) == []
    assert documented_wrong_results(hip_graph, "5.1.3", [], 1) == []
