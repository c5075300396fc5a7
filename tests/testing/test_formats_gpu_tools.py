"""Renderers for amd-smi / rocm-smi / rocminfo: same shape as the real captures, and
parse(render(gpus)) gives back the simulated values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rocmdoctor.parsers import get_parser
from rocmdoctor.simnode.formats import amd_smi, rocm_smi, rocminfo
from rocmdoctor.simnode.gpu import MIB, SimGPU, SimProcess, mi300x_gpus

OUT = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def real(tool: str, name: str) -> str:
    return (OUT / tool / name).read_text()


def rows_of(doc):
    return doc["gpu_data"] if isinstance(doc, dict) else doc


def shape(node):
    """Key structure of a JSON value: dict -> {key: shape}, list -> shape of first item."""
    if isinstance(node, dict):
        return {k: shape(v) for k, v in node.items()}
    if isinstance(node, list):
        return [shape(node[0])] if node else []
    return "leaf"


@pytest.fixture
def busy_node() -> list[SimGPU]:
    gpus = mi300x_gpus(8)
    hot = gpus[3]
    hot.junction_temp, hot.mem_temp, hot.power_w = 97.0, 88.0, 741.6
    hot.sclk_mhz, hot.gfx_activity, hot.throttle_status = 612, 100, "THROTTLED"
    hot.thermal_violation_pct, hot.power_violation_pct = 37.5, 12.0
    hot.ue_errors, hot.ce_errors = 2, 5
    hot.vram_used = 150000 * MIB
    hot.processes = [SimProcess(pid=207590, name="pt_main_thread", vram_bytes=7889485824),
                     SimProcess(pid=4242, name="python3", vram_bytes=100 * MIB, alive=False)]
    return gpus


# ---------------------------------------------------------------- structure vs real

def test_metric_has_the_real_keys_in_the_real_order(busy_node):
    sample = json.loads(real("amd-smi", "metric-list-rx6600.json"))[0]
    text = amd_smi.render_metric_json(busy_node)
    mine = json.loads(text)[0]
    assert list(mine)[:len(sample)] == list(sample)         # same keys, same order
    assert list(mine)[len(sample):] == ["throttle"]          # MI300 violation block (ROCm 6.3+)
    for section in ("usage", "power", "temperature", "pcie", "ecc", "energy", "mem_usage"):
        assert list(mine[section]) == list(sample[section]), section
    assert list(mine["clock"]) == list(sample["clock"])
    assert shape(mine["clock"]["gfx_0"]) == shape(sample["clock"]["gfx_0"])
    assert set(mine["fan"]) == set(sample["fan"])
    assert text.startswith('[\n    {\n        "gpu": 0,\n        "usage": {\n            "gfx_activity": {\n                "value": ')


def test_metric_gpu_data_layout(busy_node):
    doc = json.loads(amd_smi.render_metric_json(busy_node[:2], layout="gpu_data"))
    assert list(doc) == ["gpu_data"] and [r["gpu"] for r in doc["gpu_data"]] == [0, 1]
    with pytest.raises(ValueError):
        amd_smi.render_metric_json(busy_node, layout="yaml")


def test_static_matches_real_list_capture_and_mi300x_vram_block(busy_node):
    sample = json.loads(real("amd-smi", "static-list-rx6600.json"))[0]
    mine = json.loads(amd_smi.render_static_json(busy_node))[0]
    assert list(mine) == list(sample)
    for section in ("asic", "bus", "vbios", "limit", "driver", "board", "ras", "partition", "numa"):
        assert list(mine[section]) == list(sample[section]), section
    assert shape(mine["cache_info"]) == shape(sample["cache_info"])
    vram = json.loads(real("amd-smi", "static-vram-jq-mi300x.json"))   # real MI300X fragment
    assert mine["vram"] == vram


def test_process_matches_real_rocm72_capture(busy_node):
    sample = json.loads(real("amd-smi", "process-list-r9700-rocm7.2.json"))
    mine = json.loads(amd_smi.render_process_json(busy_node))
    assert shape(mine[3]) == shape(sample[0])
    assert mine[0]["process_list"] == [{"process_info": "No running processes detected"}]


def test_list_keys():
    mine = json.loads(amd_smi.render_list_json(mi300x_gpus(2)))
    assert [list(r) for r in mine] == [["gpu", "bdf", "uuid", "kfd_id", "node_id", "partition_id"]] * 2


def test_version_line_has_the_real_labels():
    label = lambda s: re.findall(r"([A-Za-z_ ]+):", s)   # noqa: E731
    assert label(amd_smi.render_version()) == label(real("amd-smi", "version-rocm7.0.2.txt"))
    assert amd_smi.render_version() == real("amd-smi", "version-rocm7.0.2.txt")


def test_rocminfo_is_byte_identical_to_the_real_mi300x_host():
    serials = ["8D1457E2C20F59D2", "B4FA34630E85D42A", "E8986800E182538A", "EFF71EDC82169115"]
    bdfs = ["0000:26:00.0", "0000:46:00.0", "0000:65:00.0", "0000:85:00.0"]
    gpus = [SimGPU(index=i, bdf=bdfs[i], serial="0x" + serials[i]) for i in range(4)]
    assert rocminfo.render_rocminfo(gpus) == real("rocminfo", "mi300x-x4.txt")


def test_rocm_smi_json_keys_follow_the_real_capture(busy_node):
    sample = json.loads(real("rocm-smi", "showallinfo-json-jq-rx6600.json"))
    text = rocm_smi.render_rocm_smi_json(busy_node)
    assert text.count("\n") == 1                           # rocm-smi prints one line
    mine = json.loads(text)
    assert list(mine)[-1] == "system" and list(mine["system"]) == list(sample["system"])
    common = [k for k in sample["card0"] if k in mine["card0"]]
    assert len(common) >= 20
    assert [k for k in mine["card0"] if k in sample["card0"]] == common     # same relative order
    assert all(isinstance(v, str) for v in mine["card3"].values())


# ---------------------------------------------------------------- round trips

def test_metric_round_trip(busy_node):
    rows = get_parser("amd_smi_metric")(amd_smi.render_metric_json(busy_node, layout="gpu_data"))
    assert len(rows) == 8
    for g, r in zip(busy_node, rows):
        assert r["gpu"] == g.index
        assert r["gfx_activity_pct"] == g.gfx_activity
        assert r["power_w"] == round(g.power_w)
        assert r["junction_temp_c"] == round(g.junction_temp) and r["mem_temp_c"] == round(g.mem_temp)
        assert r["edge_temp_c"] is None                      # MI300X: no edge sensor
        assert r["gfx_clk_mhz"] == g.sclk_mhz and r["gfx_max_clk_mhz"] == g.sclk_max_mhz
        assert r["mem_clk_mhz"] == g.mclk_mhz
        assert r["vram_used_mb"] == g.vram_used // MIB and r["vram_total_mb"] == g.vram_total // MIB
        assert r["throttle_status"] == g.throttle_status
        assert r["thermal_violation_pct"] == g.thermal_violation_pct
        assert r["power_violation_pct"] == g.power_violation_pct
        assert (r["ecc_ue"], r["ecc_ce"]) == (g.ue_errors, g.ce_errors)
        assert (r["pcie_width"], r["pcie_speed_gts"]) == (g.pcie_width, g.pcie_speed_gts)
    assert rows[3]["thermal_violation_pct"] == 37.5 and rows[3]["throttle_status"] == "THROTTLED"


def test_static_list_process_version_round_trip(busy_node):
    static = get_parser("amd_smi_static")(amd_smi.render_static_json(busy_node, driver_version="6.8.5"))
    assert [(s["gpu"], s["bdf"], s["device_id"], s["vram_total_mb"], s["power_cap_w"], s["driver_version"])
            for s in static] == [(g.index, g.bdf, f"0x{g.device_id:04x}", g.vram_total // MIB, g.power_cap_w,
                                  "6.8.5") for g in busy_node]
    listed = get_parser("amd_smi_list")(amd_smi.render_list_json(busy_node))
    assert [(x["gpu"], x["bdf"], x["uuid"], x["node_id"]) for x in listed] == \
        [(g.index, g.bdf, g.uuid, 2 + g.index) for g in busy_node]
    assert len({x["kfd_id"] for x in listed}) == 8
    procs = get_parser("amd_smi_process")(amd_smi.render_process_json(busy_node))
    assert procs == [{"gpu": 3, "pid": p.pid, "name": p.name, "vram_bytes": p.vram_bytes,
                      "gtt_bytes": p.gtt_bytes, "cpu_bytes": p.cpu_mem_bytes,
                      "mem_bytes": p.vram_bytes + p.gtt_bytes + p.cpu_mem_bytes}
                     for p in busy_node[3].processes]
    v = get_parser("amd_smi_version")(amd_smi.render_version_json(rocm="6.2.4", amdgpu="6.8.5"))
    assert (v["rocm_version"], v["amdgpu_version"], v["amd_hsmp_version"]) == ("6.2.4", "6.8.5", None)


def test_rocminfo_round_trip(busy_node):
    r = get_parser("rocminfo")(rocminfo.render_rocminfo(busy_node))
    assert r["errors"] == [] and r["done"]
    assert [(a["gfx"], a["marketing_name"], a["node"], a["pci_bus"]) for a in r["gpu_agents"]] == \
        [(g.gfx_target, g.market_name, 2 + g.index, g.bdf[5:]) for g in busy_node]
    assert all(a["pool_kb"] * 1024 == g.vram_total for a, g in zip(r["gpu_agents"], busy_node))


def test_rocminfo_failures_round_trip(busy_node):
    r = get_parser("rocminfo")(rocminfo.render_rocminfo_kfd_error())
    assert r["agents"] == [] and r["errors"][0] == "Unable to open /dev/kfd read-write: Cannot allocate memory"
    assert r["errors"][-1].startswith("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES")
    real_errs = get_parser("rocminfo")(real("rocminfo", "kfd-enomem-rocm3.5.txt"))["errors"]
    assert [e.split(":")[0] for e in r["errors"]] == [e.split(":")[0] for e in real_errs]
    denied = get_parser("rocminfo")(rocminfo.render_rocminfo_kfd_error("Permission denied", user="bob"))
    assert "Unable to open /dev/kfd read-write: Permission denied" in denied["errors"]
    assert any('not member of "render" group' in e for e in denied["errors"])
    line = rocminfo.incompatible_line(busy_node[0])
    mixed = get_parser("rocminfo")(rocminfo.render_rocminfo(busy_node[1:], errors=[line]))
    assert mixed["errors"] == [line] and len(mixed["gpu_agents"]) == 7


def test_rocm_smi_round_trip(busy_node):
    rows = get_parser("rocm_smi")(rocm_smi.render_rocm_smi_json(busy_node, driver_version="6.8.5"))
    for g, r in zip(busy_node, rows):
        assert (r["gpu"], r["bdf"], r["gfx"]) == (g.index, g.bdf, g.gfx_target)
        assert (r["junction_temp_c"], r["mem_temp_c"]) == (g.junction_temp, g.mem_temp)
        assert (r["power_w"], r["power_cap_w"]) == (round(g.power_w, 1), g.power_cap_w)
        assert r["gfx_activity_pct"] == g.gfx_activity and r["gfx_clk_mhz"] == g.sclk_mhz
        assert r["vram_used_pct"] == round(100 * g.vram_used / g.vram_total)
        assert r["unique_id"] == g.serial.lower() and r["driver_version"] == "6.8.5"
    assert rows[0]["gfx_clk_level"] == "S" and rows[3]["gfx_clk_level"] == "1"
    assert get_parser("rocm_smi")(rocm_smi.render_rocm_smi_no_data()) == []
