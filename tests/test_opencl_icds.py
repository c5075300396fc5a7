"""ROCm's OpenCL runtime registered by several ICD files (one left by each earlier release): read from the node's
/etc/OpenCL/vendors and from a listing a ticket holds. File contents are what ROCm's postinst writes
(`echo libamdocl64.so > /etc/OpenCL/vendors/amdocl64_<patch>_<release>.icd`, ROCm/clr opencl/packaging) and what
Mesa's mesa.icd holds (`libMesaOpenCL.so.1`, arrayfire/arrayfire#1758)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.parsers.opencl_icds import parse_opencl_icd_file, parse_opencl_icds
from rocmdoctor.status import State

INCIDENTS = Path(__file__).resolve().parent / "incidents"


def _run(bundle: Path, step_id: str, log: str | None = None):
    vars = {"log": log} if log else {}
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=("gpu-not-visible",), vars=vars))
    rb = report.runbooks[0]
    return rb, next(s for s in rb.steps if s.step_id == step_id)


def test_the_parser_reads_each_listing_form() -> None:
    # GNU ls -l of the directory (darktable-org/darktable#19603) and of one file by path, then its cat
    # (arrayfire/arrayfire#1758); a path per line (ROCm/ROCm#3664); ocl-icd's OCL_ICD_DEBUG trace
    # (illinois-scicomp/machine-shop-maintenance#57)
    text = (
        "-rw-r--r-- 1 root root 15 Apr 12  2021 amdocl64_40100.icd\n"
        "-rw-r--r-- 1 root root 15 Sep 30 12:29 amdocl64_70002_sles156_56.icd\n"
        "-rw-r--r-- 1 root root 155 Apr 15 16:35 /etc/OpenCL/vendors/mesa.icd\n"
        "e@host:~/Downloads$ cat /etc/OpenCL/vendors/mesa.icd \n"
        "libMesaOpenCL.so.1\n"
        "/etc/OpenCL/vendors/rusticl.icd\n"
        "ocl-icd(ocl_icd_loader.c:265): _open_driver: Considering file '/etc/OpenCL/vendors//amdocl64_40000.icd'\n"
    )
    files = {f["name"]: f for f in parse_opencl_icds(text)["files"]}
    assert [(n, f["runtime"]) for n, f in files.items()] == [
        ("amdocl64_40100.icd", "rocm"), ("amdocl64_70002_sles156_56.icd", "rocm"), ("mesa.icd", "mesa-clover"),
        ("rusticl.icd", "mesa-rusticl"), ("amdocl64_40000.icd", "rocm")]
    assert files["mesa.icd"]["library"] == "libMesaOpenCL.so.1" and files["mesa.icd"]["lineno"] == 3
    assert parse_opencl_icds("no listing here, nor a .icd word in prose about vendor.icd files")["files"] == []
    assert parse_opencl_icd_file("libamdocl64.so\n") == {"library": "libamdocl64.so", "runtime": "rocm"}


def test_a_ticket_listing_seven_rocm_icd_files_is_diagnosed() -> None:
    case = INCIDENTS / "gpu-not-visible" / "darktable-stale-rocm-icd-files-crash"
    rb, step = _run(case / "bundle", "logopenclicds", "/ticket/opencl-vendors.txt")
    assert step.state == State.FAIL and "7 ICD files" in step.check.message
    assert "/ticket/opencl-vendors.txt:3: -rw-r--r-- 1 root root 15 Apr 12  2021 amdocl64_40100.icd" in step.check.evidence
    assert rb.diagnoses[0].diagnosis_id == "stale-rocm-opencl-icd-files"


def _bundle(tmp_path: Path, icds: dict[str, str]) -> Path:
    vendors = tmp_path / "files" / "etc" / "OpenCL" / "vendors"
    vendors.mkdir(parents=True)
    for name, content in icds.items():
        (vendors / name).write_text(content)
    return tmp_path


def test_two_rocm_icd_files_on_a_node_fail_with_each_file_as_evidence(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, {"amdocl64_60200_66.icd": "libamdocl64.so\n", "amdocl64_70100_20.icd": "libamdocl64.so\n",
                                "mesa.icd": "libMesaOpenCL.so.1\n"})
    rb, step = _run(bundle, "openclicds")
    assert step.state == State.FAIL and "2 ICD files" in step.check.message
    assert step.check.evidence == ("/etc/OpenCL/vendors/amdocl64_60200_66.icd: libamdocl64.so",
                                   "/etc/OpenCL/vendors/amdocl64_70100_20.icd: libamdocl64.so")
    assert rb.diagnoses[0].diagnosis_id == "stale-rocm-opencl-icd-files"


def test_one_rocm_icd_beside_mesas_passes_and_names_both(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, {"amdocl64_70100_20.icd": "libamdocl64.so\n", "mesa.icd": "libMesaOpenCL.so.1\n"})
    _, step = _run(bundle, "openclicds")
    assert step.state == State.PASS
    assert "Mesa's" in step.check.message and "AMD Accelerated Parallel Processing" in step.check.message
