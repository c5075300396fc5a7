"""rocm-smi --showallinfo --json parser on the real capture and the MI300X labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

FIX = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs/rocm-smi"
parse = get_parser("rocm_smi")


def test_real_rx6600_capture():
    (c,) = parse((FIX / "showallinfo-json-jq-rx6600.json").read_text())
    assert c["card"] == "card0" and c["gpu"] == 0
    assert c["bdf"] == "0000:0b:00.0" and c["device_id"] == "0x73ff" and c["gfx"] == "gfx1032"
    assert c["gfx_activity_pct"] == 0 and c["vram_used_pct"] == 1
    assert c["driver_version"] == "7.0.0-3-pve" and c["perf_level"] == "unknown"
    assert c["unique_id"] is None and c["serial"] is None          # "N/A" in the capture
    assert c["junction_temp_c"] is None and c["power_w"] is None   # not printed by this run


def test_mi300x_labels_from_real_rocm_smi_a():
    # label/value forms of the real 4x MI300X `rocm-smi -a` (shared/reference/real-outputs)
    card = {"Temperature (Sensor junction) (C)": "35.0", "Temperature (Sensor memory) (C)": "33.0",
            "Max Graphics Package Power (W)": "750.0",
            "Current Socket Graphics Package Power (W)": "133.0", "GPU use (%)": "0",
            "GPU memory use (%)": "0", "sclk clock speed:": "(137Mhz)", "sclk clock level:": "S",
            "mclk clock speed:": "(900Mhz)", "PCI Bus": "0000:26:00.0", "Compute Partition": "SPX"}
    (c,) = parse(json.dumps({"card0": card, "system": {"Driver version": "6.7.0"}}))
    assert (c["junction_temp_c"], c["mem_temp_c"], c["power_w"], c["power_cap_w"]) == (35.0, 33.0, 133.0, 750.0)
    assert (c["gfx_clk_mhz"], c["gfx_clk_level"], c["mem_clk_mhz"]) == (137, "S", 900)
    assert c["vram_used_pct"] == 0 and c["compute_partition"] == "SPX" and c["driver_version"] == "6.7.0"


def test_cards_sorted_numerically_and_meminfo_bytes():
    doc = {"card10": {"VRAM Total Memory (B)": "205822885888", "VRAM Total Used Memory (B)": "296747008"},
           "card2": {}}
    rows = parse(json.dumps(doc))
    assert [r["gpu"] for r in rows] == [2, 10]
    assert (rows[1]["vram_total_mb"], rows[1]["vram_used_mb"]) == (196288, 283)


def test_no_json_data_warning():
    assert parse("WARNING: No JSON data to report\n") == []


@pytest.mark.parametrize("text", ["", "ERROR: GPU[0] : Unable to read\n", "[1, 2]"])
def test_garbage(text):
    with pytest.raises(ParseError):
        parse(text)
