"""Status codes by name and meaning (rocmdoctor/catalog/status_codes.py): the tables are the
headers' own (tools/gen_status_codes.py), every form a code takes in text reads its real
example, and a code shows up named in explain, in a signature's evidence and in a triage."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from rocmdoctor.catalog.datafiles import DATA_DIR, load_data
from rocmdoctor.catalog.status_codes import NUMBERINGS, code_names, read_codes, with_codes
from rocmdoctor.cli.main import full_app
from rocmdoctor.engine.signatures import explain_text

FORMS = load_data("code_forms")["forms"]


@pytest.mark.parametrize("numbering", NUMBERINGS)
def test_each_table_names_its_header_and_holds_the_codes_the_header_defines(numbering: str) -> None:
    doc = yaml.safe_load((DATA_DIR / f"codes_{numbering}.yaml").read_text())
    assert doc["sources"] and all(s["repo"] and s["file"] for s in doc["sources"])
    by_name = {c["name"]: c["value"] for c in doc["codes"]}
    # one value per numbering, spot-checked against the header text (hsa.h 0x1008, hip_runtime_api.h 209, ...)
    known = {"hsa_status": ("HSA_STATUS_ERROR_OUT_OF_RESOURCES", 0x1008), "hip_error": ("hipErrorNoBinaryForGpu", 209),
             "hip_error_legacy": ("hipErrorInvalidDevice", 1010),
             "amdsmi_status": ("AMDSMI_STATUS_NO_PERM", 10), "rsmi_status": ("RSMI_STATUS_INIT_ERROR", 8),
             "opencl": ("CL_OUT_OF_RESOURCES", -5), "errno": ("ENOMEM", 12)}[numbering]
    assert by_name[known[0]] == known[1]
    assert len(set(by_name.values())) == len(by_name), "one entry per value; aliases live under aliases:"


@pytest.mark.parametrize("form", FORMS, ids=[f"{f['numbering']}:{f['example'][:40]}" for f in FORMS])
def test_every_form_reads_its_real_example(form: dict) -> None:
    readings = [r for r in read_codes(form["example"]) if r.numbering == form["numbering"]]
    assert readings, f"{form['example']!r} read no {form['numbering']} code"
    assert form["source"]


@pytest.mark.parametrize("line, name, value", [
    ("hsa api call failure at line 900, file: /home/jenkins/jenkins-root/workspace/compute-rocm-rel-2.0/rocminfo/rocminfo.cc. Call retured 4104",
     "HSA_STATUS_ERROR_OUT_OF_RESOURCES", 0x1008),
    ("[    5.408787] amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -12", "ENOMEM", 12),
    ("ERROR: clGetPlatformIDs(-1001)", "CL_PLATFORM_NOT_FOUND_KHR", -1001),
    ("ERROR:root:ROCm SMI returned 8 (the expected value is 0)", "RSMI_STATUS_INIT_ERROR", 8),
    ("RuntimeError: HIP error: invalid device function", "hipErrorInvalidDeviceFunction", 98),
    ('checkHipErrors() HIP API error = 0100 "no ROCm-capable device is detected" from file <x>, line 192.', "hipErrorNoDevice", 100),
    # HIP before ROCm 3.1 numbered its runtime errors from 1001 (ROCm/tensorflow-upstream#82)
    ("E tensorflow/stream_executor/rocm/rocm_driver.cc:601] failed to allocate 7.35G (7889485824 bytes) from device: hipError_t(1002)",
     "hipErrorMemoryAllocation", 1002),
])
def test_a_code_written_as_a_number_or_message_is_named(line: str, name: str, value: int) -> None:
    (reading,) = [r for r in read_codes(line) if r.name == name]
    assert reading.value == value and reading.meaning and reading.header
    assert name in reading.describe()
    assert name in code_names(line)  # what a signature keyed on the symbol also reads


def test_an_old_hip_number_beside_its_name_is_read_in_the_old_numbering() -> None:
    """ROCm/hip#337's sample prints the name with HIP 2.x's number: today's value (101) is not reported beside it."""
    (reading,) = read_codes("      error: 'hipErrorInvalidDevice'(1010) at square.cpp:60")
    assert (reading.numbering, reading.name, reading.value) == ("hip_error_legacy", "hipErrorInvalidDevice", 1010)
    assert "before ROCm 3.1" in reading.describe()


def test_numbers_no_table_holds_are_not_codes() -> None:
    assert read_codes("[ 12.345678] amdgpu: ring gfx_0.0.0 timeout, signaled seq=1234, emitted seq=1236") == ()
    assert read_codes("ERROR: clGetPlatformIDs(-7777)") == ()
    assert read_codes("amdgpu: failed with error -999") == ()


def test_evidence_lines_get_their_codes_named_once() -> None:
    line = "amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -12"
    out = with_codes((line, line))
    assert out[0] == line and out[1].startswith("  code: -12 = ENOMEM") and "Out of memory" in out[1]
    assert len(out) == 3  # the second copy of the line does not repeat the code


def test_a_signature_keyed_on_the_symbol_reads_the_number_and_names_it() -> None:
    (m,) = [m for m in explain_text("Call returned 4104") if m.signature_id == "hsa-out-of-resources"]
    assert any("HSA_STATUS_ERROR_OUT_OF_RESOURCES" in c and "hsa.h" in c for c in m.codes)


def test_explain_names_a_bare_code_without_a_signature() -> None:
    cli, app = CliRunner().invoke, full_app()
    r = cli(app, ["explain", "ERROR:root:ROCm SMI returned 8 (the expected value is 0)"])
    assert r.exit_code == 0
    assert "8 = RSMI_STATUS_INIT_ERROR" in r.output and "rocm_smi.h" in r.output
    r = cli(app, ["explain", "-f", "json", "ERROR: clGetPlatformIDs(-1001)"])
    doc = json.loads(r.output)
    assert doc["codes"][0]["name"] == "CL_PLATFORM_NOT_FOUND_KHR" and doc["codes"][0]["header"].endswith("cl_ext.h")


def test_a_message_two_codes_share_names_both() -> None:
    """CLR's hipGetErrorString prints "device kernel image is invalid" for hipErrorInvalidImage (200) and for
    hipErrorInvalidSource (300): the line names both rather than the last one the table lists."""
    line = "[pk_module] hipModuleLoadData: device kernel image is invalid"   # kryptex/krig-miner#2
    assert [(r.name, r.value) for r in read_codes(line)] == [("hipErrorInvalidImage", 200), ("hipErrorInvalidSource", 300)]
