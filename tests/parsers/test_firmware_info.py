"""amdgpu_firmware_info from real pastes (tests/fixtures/outputs/amdgpu_firmware_info/SOURCES.md)."""

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser
from rocmdoctor.parsers.firmware_info import parse_firmware_info

HERE = Path(__file__).resolve().parents[1] / "fixtures/outputs/amdgpu_firmware_info"


def test_strix_halo_paste_indented_with_smc_program() -> None:
    r = parse_firmware_info((HERE / "strix-halo-mes-0x83").read_text())
    assert r["firmware"]["MES"] == {"feature": "1", "version": 0x83, "hex": "0x00000083"}
    assert r["firmware"]["MES_KIQ"]["version"] == 0x6F
    assert r["firmware"]["SMC"]["hex"] == "0x0a640200"
    assert r["firmware"]["TA RAS"]["feature"] == "0x00000000"
    assert r["vbios"] == "113-STRXLGEN-001" and len(r["firmware"]) == 31
    assert get_parser("amdgpu_firmware_info") is parse_firmware_info


def test_grep_mes_subset_and_other_gpu() -> None:
    # `grep MES` of the file, as ROCm/ROCm#5724 pastes it
    r = parse_firmware_info("MES_KIQ feature version: 6, firmware version: 0x0000006f\n"
                            "MES feature version: 1, firmware version: 0x00000083\n")
    assert set(r["firmware"]) == {"MES_KIQ", "MES"} and r["vbios"] is None
    assert parse_firmware_info((HERE / "phoenix-mes-0x80").read_text())["firmware"]["MES"]["version"] == 0x80


def test_other_text_is_refused() -> None:
    with pytest.raises(ParseError, match="not amdgpu_firmware_info"):
        parse_firmware_info("cat: /sys/kernel/debug/dri/1/amdgpu_firmware_info: Permission denied\n")
