"""clinfo in both formats, from real outputs (tests/fixtures/outputs/clinfo/SOURCES.md)."""

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser
from rocmdoctor.parsers.clinfo import parse_clinfo

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs/clinfo"


def sample(name: str) -> str:
    return (OUTPUTS / name).read_text()


def test_oblomov_format_rocm_platform_with_a_gpu_beside_mesa():
    r = parse_clinfo(sample("radeon-vii-clover-and-amdapp.txt"))
    assert [(p["name"], p["devices"]) for p in r["platforms"]] == [
        ("Clover", 0), ("AMD Accelerated Parallel Processing", 1)]
    (gpu,) = r["rocm"]["device_list"]
    assert (gpu["name"], gpu["type"], gpu["board"], gpu["bdf"]) == ("gfx906", "GPU", "AMD Radeon VII", "0000:0d:00.0")
    assert get_parser("clinfo") is parse_clinfo


def test_oblomov_format_rocm_platform_without_devices():
    r = parse_clinfo(sample("gentoo-no-kfd-zero-devices.txt"))
    assert r["rocm"] == {"name": "AMD Accelerated Parallel Processing", "devices": 0, "device_list": []}


def test_amd_format_devices_per_platform_and_decimal_topology():
    r = parse_clinfo(sample("amd-clinfo-gfx90c-and-nvidia.txt"))
    by_name = {p["name"]: p for p in r["platforms"]}
    assert by_name["AMD Accelerated Parallel Processing"]["devices"] == 1
    (gpu,) = r["rocm"]["device_list"]
    assert (gpu["name"], gpu["type"], gpu["board"], gpu["bdf"], gpu["vendor_id"]) == (
        "gfx90c", "GPU", "AMD Radeon(TM) Graphics", "0000:04:00.0", "1002h")
    nvidia = by_name["NVIDIA CUDA"]["device_list"]
    assert len(nvidia) == 1 and nvidia[0]["vendor_id"] == "10deh"
    # listed in the summary, its device section cut from the paste: count unknown, not zero
    assert by_name["Intel(R) OpenCL"]["devices"] is None


def test_decimal_bus_numbers_become_hex():
    text = sample("amd-clinfo-gfx90c-and-nvidia.txt").replace("PCI[ B#4, D#0, F#0 ]", "PCI[ B#195, D#0, F#0 ]")
    assert parse_clinfo(text)["rocm"]["device_list"][0]["bdf"] == "0000:c3:00.0"


@pytest.mark.parametrize("text", ["", "ROCk module is loaded\n", "Number of devices 1\n"])
def test_not_clinfo(text):
    with pytest.raises(ParseError):
        parse_clinfo(text)


def test_grepped_paste_keeps_each_board_and_the_target_the_runtime_reports():
    # ROCm/legacy-rocm-build#5696: `rocm-clinfo | grep -P 'Board|gfx'` with HSA_OVERRIDE_GFX_VERSION=12.0.1 set
    r = parse_clinfo(sample("amd-clinfo-grep-board-gfx-r9700-8060s.txt"))
    assert r["platforms"] == [] and r["rocm"] is None
    assert [(d["board"], d["name"], d["platform"]) for d in r["devices"]] == [
        ("AMD Radeon AI PRO R9700", "gfx1201", None), ("Radeon 8060S Graphics", "gfx1201", None)]


def test_full_output_lists_devices_with_their_platform():
    r = parse_clinfo(sample("radeon-vii-clover-and-amdapp.txt"))
    assert [(d["name"], d["platform"]) for d in r["devices"]] == [("gfx906", "AMD Accelerated Parallel Processing")]
