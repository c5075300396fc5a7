"""amd-smi parsers against verbatim real captures and the value forms seen across releases."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser, parser_names

FIX = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs/amd-smi"


def read(name: str) -> str:
    return (FIX / name).read_text()


def test_registered_with_one_line_summaries():
    names = parser_names()
    for name in ("amd_smi_list", "amd_smi_static", "amd_smi_metric", "amd_smi_process", "amd_smi_version"):
        assert names[name] and "\n" not in names[name]


def test_metric_real_list_form_rx6600():
    rows = get_parser("amd_smi_metric")(read("metric-list-rx6600.json"))
    assert len(rows) == 1
    r = rows[0]
    assert (r["gpu"], r["gfx_activity_pct"], r["power_w"], r["throttle_status"]) == (0, 1, 6, "UNTHROTTLED")
    assert (r["edge_temp_c"], r["junction_temp_c"], r["mem_temp_c"]) == (36, 37, 32)
    assert (r["gfx_clk_mhz"], r["gfx_max_clk_mhz"], r["mem_clk_mhz"]) == (800, 2750, 541)
    assert (r["vram_used_mb"], r["vram_total_mb"], r["gtt_used_mb"]) == (202, 8176, 65)
    assert (r["ecc_ue"], r["ecc_ce"], r["pcie_width"], r["pcie_speed_gts"]) == (0, 0, 8, 16)
    # fields this release/GPU prints as N/A, or not at all, are None
    assert r["pcie_replay_count"] is None and r["thermal_violation_pct"] is None
    assert r["power_cap_w"] is None


def test_static_real_list_form_rx6600():
    (r,) = get_parser("amd_smi_static")(read("static-list-rx6600.json"))
    assert r["bdf"] == "0000:0b:00.0" and r["device_id"] == "0x73ff"
    assert r["driver_version"] == "7.0.0-3-pve" and r["vram_total_mb"] == 8176
    assert r["power_cap_w"] == 100 and r["shutdown_hotspot_c"] == 115
    assert r["serial"] is None and r["oam_id"] is None       # "N/A" in the capture


def test_static_real_gpu_data_form_mi210():
    (r,) = get_parser("amd_smi_static")(read("static-gpu_data-mi210.json"))
    assert r["market_name"] == "AMD Instinct MI210" and r["gfx_target"] == "gfx90a"
    assert r["vram_total_mb"] == 65520 and r["power_cap_w"] == 300
    assert r["bdf"] is None                                   # AMD's sample has no bus.bdf


def test_static_real_vram_fragment_units():
    from rocmdoctor.parsers.amd_smi import measure
    import json
    vram = json.loads(read("static-vram-jq-mi300x.json"))
    assert measure(vram["size"], "MB") == 196592
    assert measure(vram["size"], "B") == 196592 * 1024 * 1024


def test_process_real_rocm72_list():
    rows = get_parser("amd_smi_process")(read("process-list-r9700-rocm7.2.json"))
    assert len(rows) == 8 and {r["gpu"] for r in rows} == {0, 1}
    big = [r for r in rows if r["pid"] == 213952 and r["gpu"] == 0][0]
    assert big == {"gpu": 0, "pid": 213952, "name": "/usr/bin/python3.12", "vram_bytes": 21008920000,
                   "gtt_bytes": 8268000, "cpu_bytes": 0, "mem_bytes": 21589852160}


def test_process_idle_sentinel_gives_no_rows():
    text = '[{"gpu": 0, "process_list": [{"process_info": "No running processes detected"}]}]'
    assert get_parser("amd_smi_process")(text) == []


def test_process_rocm60_bare_and_string_values():
    text = ('{"gpu_data": [{"gpu": 3, "process_list": [{"process_info": {"name": "python", "pid": 7,'
            ' "memory_usage": {"gtt_mem": "2.0 MB", "cpu_mem": 0, "vram_mem": 7889485824},'
            ' "mem_usage": "N/A"}}]}]}')
    (r,) = get_parser("amd_smi_process")(text)
    assert (r["gpu"], r["pid"], r["vram_bytes"], r["gtt_bytes"], r["mem_bytes"]) == (3, 7, 7889485824, 2097152, None)


def test_version_real_lines():
    v = get_parser("amd_smi_version")(read("version-rocm7.0.2.txt"))
    assert v == {"tool_version": "26.0.2+39589fda", "amdsmi_library": "26.0.2", "rocm_version": "7.0.2",
                 "amdgpu_version": "6.14.14", "amd_hsmp_version": None}
    v = get_parser("amd_smi_version")(read("version-changelog-6.3.txt"))
    assert v["rocm_version"] is None and v["amd_hsmp_version"] == "2.2"


def test_warning_lines_before_json_are_skipped():
    text = ("/usr/lib/python3.14/site-packages/amdsmi/amdsmi_interface.py:3569: SyntaxWarning: 'return' in a 'finally' block\n"
            "  return return_dictionary\n"
            '[{"gpu": 0, "bdf": "0000:05:00.0", "uuid": "afff74a1-0000-1000-8054-e92b0a5d57c8"}]\n')
    (r,) = get_parser("amd_smi_list")(text)
    assert r == {"gpu": 0, "bdf": "0000:05:00.0", "uuid": "afff74a1-0000-1000-8054-e92b0a5d57c8",
                 "kfd_id": None, "node_id": None, "partition_id": None}


def test_metric_bare_numbers_and_na_dicts():
    text = ('[{"gpu": 1, "usage": {"gfx_activity": 73}, "power": {"socket_power": "142 W"},'
            ' "temperature": {"edge": "N/A", "hotspot": {"value": "N/A", "unit": "C"}, "mem": 58},'
            ' "mem_usage": {"used_vram": {"value": 48, "unit": "GB"}}}]')
    (r,) = get_parser("amd_smi_metric")(text)
    assert (r["gfx_activity_pct"], r["power_w"], r["edge_temp_c"], r["junction_temp_c"], r["mem_temp_c"]) == (73, 142, None, None, 58)
    assert r["vram_used_mb"] == 48 * 1024


@pytest.mark.parametrize("name", ["amd_smi_list", "amd_smi_static", "amd_smi_metric", "amd_smi_process"])
@pytest.mark.parametrize("text", ["", "Traceback (most recent call last):\n  boom\n", "[{\"gpu\": 0,", '"just a string"'])
def test_garbage_is_a_parse_error(name, text):
    with pytest.raises(ParseError):
        get_parser(name)(text)


def test_version_garbage():
    with pytest.raises(ParseError):
        get_parser("amd_smi_version")("amd-smi: command not found\n")
