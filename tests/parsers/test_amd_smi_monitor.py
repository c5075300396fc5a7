"""`amd-smi monitor` views as AMD's changelog shows them (tests/fixtures/outputs/amd-smi-monitor/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.amd_smi_monitor import parse_amd_smi_monitor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "outputs" / "amd-smi-monitor"


def _parse(name: str) -> dict:
    return parse_amd_smi_monitor((FIXTURES / name).read_text())


def test_ptumv_eight_mi300x() -> None:
    r = _parse("monitor-ptumv-mi300x.txt")
    assert [g["gpu"] for g in r["gpus"]] == list(range(8))
    g4 = r["gpus"][4]
    assert (g4["power_w"], g4["gpu_temp"], g4["mem_temp"], g4["vram_used_mb"], g4["vram_total_mb"]) == (178, 32, 32, 284, 196300)
    assert r["readings"][:2] == [{"gpu": 0, "label": "hotspot", "temp": 32, "fan_pct": None}, {"gpu": 0, "label": "mem", "temp": 33, "fan_pct": None}]


def test_all_columns_with_na_and_the_process_table_after_them() -> None:
    r = _parse("monitor-q-process-table.txt")
    assert len(r["gpus"]) == 1                                   # the PROCESS INFO rows are not GPUs
    g = r["gpus"][0]
    assert (g["gpu_temp"], g["mem_temp"], g["gfx_util"], g["double_ecc"], g["pcie_replay"]) == (103, 84, 99, 0, 0)
    assert g["raw"]["ENC_UTIL"] == "N/A" and g["raw"]["PCIE_BW"] == "N/A Mb/s"


def test_violation_and_pcie_views_have_no_temperatures() -> None:
    v = _parse("monitor-violation.txt")
    assert len(v["gpus"]) == 16 and v["gpus"][15]["thermal_violation_pct"] == 0 and v["readings"] == []
    assert _parse("monitor-pcie.txt")["gpus"][0]["raw"] == {"PCIE_BW": "26 Mb/s"}


def test_other_text_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no `amd-smi monitor` table"):
        parse_amd_smi_monitor("GPU: 0\n    ASIC:\n        MARKET_NAME: MI300X\n")
