"""Firmware-reported (APEI GHES) PCIe error records, from ROCm/legacy-rocm-build#1493's kernel log."""

from __future__ import annotations

from rocmdoctor.parsers.pcie_cper import error_names, parse_pcie_cper
from rocmdoctor.simnode.formats.kernel_lines import GHES_COMPLETER_ABORT


def _log(lines: list[str]) -> str:
    return "".join(f"[  340.{i:06d}] {m}\n" for i, m in enumerate(lines))


def test_one_record_per_pcie_section_with_the_devices_own_lines():
    [rec] = parse_pcie_cper(_log([m for m, _ in GHES_COMPLETER_ABORT]))
    assert (rec["bdf"], rec["vendor"], rec["device"]) == ("0000:83:00.0", "1002", "738c")
    assert (rec["severity"], rec["type"], rec["uncor_status"]) == ("fatal", "fatal", "0x00008000")
    assert rec["errors"] == ["Completer Abort"]
    assert (rec["layer"], rec["agent"], rec["driver"]) == ("Transaction Layer", "Completer ID", "amdgpu")
    assert rec["lines"][0].endswith("Error 0, type: fatal")
    assert rec["lines"][-1].endswith("aer_layer=Transaction Layer, aer_agent=Completer ID")


def test_other_sections_and_plain_logs_give_no_record():
    memory = ["{1}[Hardware Error]: event severity: corrected", "{1}[Hardware Error]:  Error 0, type: corrected",
              "{1}[Hardware Error]:   section_type: memory error"]
    assert parse_pcie_cper(_log(memory)) == []
    assert parse_pcie_cper(_log(["[drm] amdgpu kernel modesetting enabled."])) == []


def test_status_bits_are_named_as_the_kernel_names_them():
    assert error_names("0x00100000") == ["Unsupported Request"]      # the W6800 record later in #1493
    assert error_names("0x00048000") == ["Completer Abort", "Malformed TLP"]
