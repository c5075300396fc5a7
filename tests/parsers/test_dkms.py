from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.dkms import parse_dkms_status
from rocmdoctor.simnode.formats.kernel import render_dkms_status


def test_dkms3_rocm_sample():
    (e,) = parse_dkms_status(sample("dkms/dkms3-rocm.txt"))
    assert e == {"module": "amdgpu", "version": "6.10.5-2119913.24.04", "kernel": "6.8.0-55-generic",
                 "arch": "x86_64", "status": "installed", "warnings": [], "message": None,
                 "tree": None, "tree_module": None, "tree_version": None}


def test_dkms2_sample_with_added_built_and_warning():
    es = parse_dkms_status(sample("dkms/dkms2-mixed.txt"))
    assert es[0]["module"] == "8812au" and es[0]["status"] == "added" and es[0]["kernel"] is None
    assert es[6]["status"] == "built"
    warned = es[7]
    assert warned["status"] == "installed" and warned["kernel"] == "4.13.0-32-generic"
    assert warned["warnings"] == ["WARNING! Diff between built and installed module!"]
    assert es[8]["version"] == "4.3.8.12175.20140902+dfsg"


def test_dkms3_added_and_warning_sample():
    es = parse_dkms_status(sample("dkms/dkms3-added-and-warning.txt"))
    assert (es[0]["module"], es[0]["version"], es[0]["status"]) == ("fwts-efi-runtime-dkms", "24.07.00", "added")
    assert es[2]["warnings"] and es[2]["status"] == "installed"


def test_error_lines():
    (e,) = parse_dkms_status(sample("dkms/dkms-broken-tree.txt"))
    assert e["status"] == "error" and e["module"] is None
    assert e["message"].startswith("Could not locate dkms.conf file. File: /var/lib/dkms/amdgpu/")


@pytest.mark.parametrize("style", ["2", "3"])
def test_roundtrip(style):
    entries = [{"module": "amdgpu", "version": "6.8.5-2041575.22.04", "kernel": "6.8.0-45-generic",
                "arch": "x86_64", "status": "installed", "warnings": []},
               {"module": "amdgpu", "version": "6.8.5-2041575.22.04", "kernel": "6.8.0-40-generic",
                "arch": "x86_64", "status": "built", "warnings": ["WARNING! Diff between built and installed module!"]},
               {"module": "amdgpu", "version": "6.10.5", "status": "added", "warnings": []}]
    parsed = parse_dkms_status(render_dkms_status(entries, style=style))
    assert [{k: p[k] for k in ("module", "version", "kernel", "status", "warnings")} for p in parsed] == [
        {k: e.get(k) for k in ("module", "version", "kernel", "status", "warnings")} for e in entries]


def test_not_dkms():
    assert parse_dkms_status("") == []
    with pytest.raises(ParseError):
        parse_dkms_status("dkms: command not found")


def test_error_names_the_stale_version_directory():
    (e,) = parse_dkms_status(sample("dkms/dkms-broken-tree.txt"))
    assert e["tree"] == "/var/lib/dkms/amdgpu/6.7.0-1787201.22.04"
    assert (e["tree_module"], e["tree_version"]) == ("amdgpu", "6.7.0-1787201.22.04")


@pytest.mark.parametrize("path", [
    "/var/lib/dkms/amdgpu/../source/dkms.conf",          # would name /var/lib/dkms itself
    "/var/lib/dkms/amdgpu/$(reboot)/source/dkms.conf",
    "/var/lib/dkms/amdgpu/*/source/dkms.conf",
    " /source/dkms.conf",                                 # dkms prints `File:  does not exist.` too
])
def test_a_path_that_is_not_a_plain_version_directory_names_no_tree(path):
    (e,) = parse_dkms_status(f"Error! Could not locate dkms.conf file.\nFile: {path} does not exist.\n")
    assert e["status"] == "error" and e["tree"] is None and e["tree_version"] is None
