"""amd-smi output for simulated GPUs: `list/static/metric/process --json` and `version`.

amd-smi prints JSON with `json.dumps(..., indent=4)`; key order and value forms
below copy real captures (tests/fixtures/outputs/amd-smi/, sources
in its SOURCES.md). `layout="list"` is the ROCm 6.x top level (a list of GPU
objects), `layout="gpu_data"` the ROCm 7.x `{"gpu_data": [...]}` wrapper.
Numbers amd-smi prints as integers (W, C, MHz, MB) are rounded the same way.
"""

from __future__ import annotations

import json
import zlib
from typing import Any, Sequence

from rocmdoctor.simnode.gpu import MIB, SimGPU

NA = "N/A"
DEFAULT_CPU_NODES = 2            # KFD nodes 0..1 are the two CPU sockets (as in the real rocminfo)


def _vu(value: Any, unit: str) -> Any:
    """amd-smi's measurement form; N/A stays a bare string like the CLI prints it."""
    if value is None:
        return NA
    return {"value": value, "unit": unit}


def _int(x: float | int | None) -> int | None:
    return None if x is None else int(round(x))


def _dump(rows: list[dict[str, Any]], layout: str) -> str:
    if layout not in ("list", "gpu_data"):
        raise ValueError(f"layout must be 'list' or 'gpu_data', not {layout!r}")
    doc: Any = rows if layout == "list" else {"gpu_data": rows}
    return json.dumps(doc, indent=4) + "\n"


def kfd_gpu_id(gpu: SimGPU) -> int:
    """The KFD `gpu_id` of a GPU: stable per BDF, a 16-bit number like real ones (27295, 63484)."""
    return zlib.crc32(gpu.bdf.encode()) & 0xFFFF or 1


# Format: `amd-smi list --json`, ROCm 6.2+ key set (gpu, bdf, uuid, kfd_id, node_id,
# partition_id) as consumed by ROCm device-metrics-exporter and amd/node-scraper;
# values as in the AMD blog's plain `amd-smi list` of an 8x MI300X (see SOURCES.md).
def render_list_json(gpus: Sequence[SimGPU], layout: str = "list",
                     cpu_nodes: int = DEFAULT_CPU_NODES) -> str:
    rows = [{"gpu": g.index, "bdf": g.bdf, "uuid": g.uuid, "kfd_id": kfd_gpu_id(g),
             "node_id": cpu_nodes + g.index, "partition_id": 0} for g in gpus]
    return _dump(rows, layout)


# Format: `amd-smi static --json`, key order of the real capture
# fixtures/outputs/amd-smi/static-list-rx6600.json (luckylinux/supermicro-fan-control
# GPU_NOTES.md); MI300X values from the AMD blog (`amd-smi static`, vram block).
def render_static_json(gpus: Sequence[SimGPU], layout: str = "list",
                       driver_version: str = "6.7.0", vbios: str = "113-MI3SRIOV-001") -> str:
    rows = []
    for g in gpus:
        rows.append({
            "gpu": g.index,
            "asic": {
                "market_name": g.market_name,
                "vendor_id": f"0x{g.vendor_id:04x}",
                "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "subvendor_id": f"0x{g.vendor_id:04x}",
                "device_id": f"0x{g.device_id:04x}",
                "rev_id": f"0x{g.revision:02x}",
                "asic_serial": g.serial,
                "oam_id": g.index,
            },
            "bus": {
                "bdf": g.bdf,
                "max_pcie_width": g.pcie_max_width,
                "max_pcie_speed": _vu(_int(g.pcie_max_speed_gts), "GT/s"),
                "pcie_interface_version": f"Gen {_pcie_gen(g.pcie_max_speed_gts)}",
                "slot_type": "OAM",
            },
            "vbios": {"name": "AMD MI300X_HW_SRIOV_CVS_1VF", "build_date": "2023/11/13 21:34",
                      "part_number": vbios, "version": "022.040.003.043.000001"},
            "limit": {
                "max_power": _vu(_int(g.power_cap_w), "W"),
                "min_power": _vu(0, "W"),
                "socket_power": _vu(_int(g.power_cap_w), "W"),
                "slowdown_edge_temperature": NA,
                "slowdown_hotspot_temperature": _vu(_int(g.junction_crit), "C"),
                "slowdown_vram_temperature": _vu(_int(g.mem_crit), "C"),
                "shutdown_edge_temperature": NA,
                "shutdown_hotspot_temperature": _vu(_int(g.junction_emergency), "C"),
                "shutdown_vram_temperature": NA,
            },
            "driver": {"name": "amdgpu", "version": driver_version},
            "board": {"model_number": "102-G30211-0C", "product_serial": g.serial[2:],
                      "fru_id": NA, "product_name": "AMD Instinct MI300X OAM",
                      "manufacturer_name": "AMD"},
            "ras": {"eeprom_version": "0x30000", "parity_schema": "DISABLED",
                    "single_bit_schema": "DISABLED", "double_bit_schema": "DISABLED",
                    "poison_schema": "ENABLED", "ecc_block_state": NA},
            "partition": {"compute_partition": "SPX", "memory_partition": "NPS1"},
            "dpm_policy": NA,
            "xgmi_plpd": NA,
            "process_isolation": "Disabled",
            "numa": {"node": 0 if g.index < 4 else 1, "affinity": 0 if g.index < 4 else 1},
            "vram": {"type": "HBM", "vendor": NA, "size": _vu(g.vram_total // MIB, "MB")},
            "cache_info": [
                _cache(0, ["DATA_CACHE", "SIMD_CACHE"], 32, 1, 1, 304),
                _cache(1, ["DATA_CACHE", "SIMD_CACHE"], 4096, 2, 38, 8),
                _cache(2, ["DATA_CACHE", "SIMD_CACHE"], 262144, 3, 304, 1),
            ],
        })
    return _dump(rows, layout)


def _cache(idx: int, props: list[str], kb: int, level: int, shared: int, inst: int) -> dict[str, Any]:
    return {"cache": idx, "cache_properties": props, "cache_size": _vu(kb, "KB"),
            "cache_level": level, "max_num_cu_shared": shared, "num_cache_instance": inst}


def _pcie_gen(gts: float) -> int:
    return {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}.get(float(gts), 5)


def _clock(clk: Any, lo: Any, hi: Any, sleep: str = "DISABLED") -> dict[str, Any]:
    return {"clk": _vu(clk, "MHz"), "min_clk": _vu(lo, "MHz"), "max_clk": _vu(hi, "MHz"),
            "clk_locked": "DISABLED" if clk is not None else NA,
            "deep_sleep": sleep if clk is not None else NA}


_THROTTLE_KEYS = (   # order of a real ROCm 7.x `amd-smi metric --json` throttle block
    "prochot", "ppt", "socket_thermal", "vr_thermal", "hbm_thermal",
)


def _throttle(g: SimGPU) -> dict[str, Any]:
    """The MI300 violation block; only thermal (TVIOL) and PPT (PVIOL) vary in the model."""
    pct = {"prochot": 0.0, "ppt": g.power_violation_pct, "socket_thermal": g.thermal_violation_pct,
           "vr_thermal": 0.0, "hbm_thermal": 0.0}
    out: dict[str, Any] = {"accumulation_counter": 5612187}
    for k in _THROTTLE_KEYS:
        out[f"{k}_accumulated"] = int(5612187 * pct[k] / 100)
    for extra in ("gfx_clk_below_host_limit", "gfx_clk_below_host_limit_power",
                  "gfx_clk_below_host_limit_thermal", "total_gfx_clk_below_host_limit",
                  "low_utilization"):
        out[f"{extra}_accumulated"] = NA
    for k in _THROTTLE_KEYS:
        out[f"{k}_violation_status"] = "ACTIVE" if pct[k] > 0 else "NOT ACTIVE"
    for extra in ("gfx_clk_below_host_limit", "gfx_clk_below_host_limit_power",
                  "gfx_clk_below_host_limit_thermal", "total_gfx_clk_below_host_limit",
                  "low_utilization"):
        out[f"{extra}_violation_status"] = NA
    for k in _THROTTLE_KEYS:
        value = pct[k]
        out[f"{k}_violation_activity"] = _vu(int(value) if float(value).is_integer() else value, "%")
    for extra in ("gfx_clk_below_host_limit", "gfx_clk_below_host_limit_power",
                  "gfx_clk_below_host_limit_thermal", "total_gfx_clk_below_host_limit",
                  "low_utilization"):
        out[f"{extra}_violation_activity"] = NA
    return out


# Format: `amd-smi metric --json`, key order and value forms of the real capture
# fixtures/outputs/amd-smi/metric-list-rx6600.json (luckylinux/supermicro-fan-control
# GPU_NOTES.md), plus the `throttle` block that ROCm 6.3+ prints for MI300 (key list of a
# real ROCm 7.x capture; see SOURCES.md). MI300X: 8 gfx engines (one per XCD), no edge sensor.
def render_metric_json(gpus: Sequence[SimGPU], layout: str = "list") -> str:
    rows = []
    for g in gpus:
        clocks: dict[str, Any] = {f"gfx_{i}": _clock(g.sclk_mhz, 500, g.sclk_max_mhz) for i in range(8)}
        clocks["mem_0"] = _clock(g.mclk_mhz, 900, 1300)
        for eng, mhz in (("vclk", 29), ("dclk", 22)):
            for i in range(4):
                clocks[f"{eng}_{i}"] = _clock(mhz, 914, 1480, "ENABLED")
        used, total = g.vram_used // MIB, g.vram_total // MIB
        gtt_used, gtt_total = g.gtt_used // MIB, g.gtt_total // MIB
        rows.append({
            "gpu": g.index,
            "usage": {
                "gfx_activity": _vu(g.gfx_activity, "%"),
                "umc_activity": _vu(g.mem_activity, "%"),
                "mm_activity": NA,
                "vcn_activity": [_vu(0, "%")] * 4,
                "jpeg_activity": [_vu(0, "%")] * 32,
            },
            "power": {
                "socket_power": _vu(_int(g.power_w), "W"),
                "gfx_voltage": {"value": NA, "unit": "mV"},
                "soc_voltage": {"value": NA, "unit": "mV"},
                "mem_voltage": {"value": NA, "unit": "mV"},
                "power_management": "ENABLED",
                "throttle_status": g.throttle_status,
            },
            "clock": clocks,
            "temperature": {"edge": _vu(_int(g.edge_temp), "C"),
                            "hotspot": _vu(_int(g.junction_temp), "C"),
                            "mem": _vu(_int(g.mem_temp), "C")},
            "pcie": {
                "width": g.pcie_width,
                "speed": _vu(_int(g.pcie_speed_gts), "GT/s"),
                "bandwidth": NA, "replay_count": 0, "l0_to_recovery_count": 0,
                "replay_roll_over_count": 0, "nak_sent_count": 0, "nak_received_count": 0,
                "current_bandwidth_sent": NA, "current_bandwidth_received": NA,
                "max_packet_size": NA,
            },
            "ecc": {"total_correctable_count": g.ce_errors,
                    "total_uncorrectable_count": g.ue_errors, "total_deferred_count": 0,
                    "cache_correctable_count": 0, "cache_uncorrectable_count": 0},
            "ecc_blocks": NA,
            "fan": {"speed": NA, "max": NA, "rpm": NA, "usage": NA},
            "voltage_curve": NA,
            "overdrive": NA,
            "perf_level": "AMDSMI_DEV_PERF_LEVEL_AUTO",
            "xgmi_err": NA,
            "energy": {"total_energy_consumption": _vu(4316457.5, "J")},
            "mem_usage": {
                "total_vram": _vu(total, "MB"), "used_vram": _vu(used, "MB"),
                "free_vram": _vu(total - used, "MB"),
                "total_visible_vram": _vu(total, "MB"), "used_visible_vram": _vu(used, "MB"),
                "free_visible_vram": _vu(total - used, "MB"),
                "total_gtt": _vu(gtt_total, "MB"), "used_gtt": _vu(gtt_used, "MB"),
                "free_gtt": _vu(gtt_total - gtt_used, "MB"),
            },
            "throttle": _throttle(g),
        })
    return _dump(rows, layout)


# Format: `amd-smi process --json`, the real ROCm 7.2 capture
# fixtures/outputs/amd-smi/process-list-r9700-rocm7.2.json (ROCm/ROCm#5706); an idle GPU
# prints the sentinel `[{"process_info": "No running processes detected"}]`.
def render_process_json(gpus: Sequence[SimGPU], layout: str = "list") -> str:
    rows = []
    for g in gpus:
        plist: list[dict[str, Any]] = []
        for p in g.processes:
            plist.append({"process_info": {
                "name": p.name,
                "pid": p.pid,
                "memory_usage": {"gtt_mem": _vu(p.gtt_bytes, "B"), "cpu_mem": _vu(p.cpu_mem_bytes, "B"),
                                 "vram_mem": _vu(p.vram_bytes, "B")},
                "mem_usage": _vu(p.gtt_bytes + p.cpu_mem_bytes + p.vram_bytes, "B"),
                "usage": {"gfx": _vu(0, "ns"), "enc": _vu(0, "ns")},
                "cu_occupancy": NA,
                "evicted_time": _vu(0, "ms"),
            }})
        rows.append({"gpu": g.index,
                     "process_list": plist or [{"process_info": "No running processes detected"}]})
    return _dump(rows, layout)


# Format: `amd-smi version`, the real line of ROCm 7.0.2 (fixtures/outputs/amd-smi/
# version-rocm7.0.2.txt); defaults are that capture's versions.
def render_version(tool: str = "26.0.2+39589fda", library: str = "26.0.2", rocm: str = "7.0.2",
                   amdgpu: str = "6.14.14", hsmp: str = NA) -> str:
    return (f"AMDSMI Tool: {tool} | AMDSMI Library version: {library} | ROCm version: {rocm} | "
            f"amdgpu version: {amdgpu} | amd_hsmp version: {hsmp}\n")


# Format: `amd-smi version --json`, one-item list with the key set public collectors
# quote from real output (tool, version, amdsmi_library_version, rocm_version,
# amdgpu_version, amd_hsmp_driver_version); see SOURCES.md.
def render_version_json(tool: str = "26.0.2+39589fda", library: str = "26.0.2", rocm: str = "7.0.2",
                        amdgpu: str = "6.14.14", hsmp: str = NA) -> str:
    return json.dumps([{"tool": "AMDSMI Tool", "version": tool, "amdsmi_library_version": library,
                        "rocm_version": rocm, "amdgpu_version": amdgpu,
                        "amd_hsmp_driver_version": hsmp}], indent=4) + "\n"
