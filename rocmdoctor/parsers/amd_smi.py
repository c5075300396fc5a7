"""amd-smi `--json` output (list, static, metric, process) and `amd-smi version`.

amd-smi's JSON changed across releases and GPUs, so every reader here accepts
all the shapes seen in real captures (fixtures under
tests/fixtures/outputs/amd-smi/, sources in SOURCES.md there):

- top level: a list of per-GPU objects (ROCm 6.x) or `{"gpu_data": [...]}` (ROCm 7.x);
- a measurement: `{"value": 42, "unit": "C"}`, a bare number, a string with a
  unit (`"42 C"`), or `"N/A"` (also `{"value": "N/A", "unit": "mV"}`);
- warnings printed before the JSON (`WARNING: ...`, Python SyntaxWarnings).

Every measurement normalises to a number in a fixed unit (MB, W, C, MHz, %,
bytes) or None when the tool said N/A, so rules compare plain numbers.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_NUM_UNIT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z%/°]*)\s*$")
# factor to the unit each reader asks for
_SCALE = {
    ("B", "B"): 1, ("KB", "B"): 1024, ("MB", "B"): 1024 ** 2, ("GB", "B"): 1024 ** 3,
    ("B", "MB"): 1 / 1024 ** 2, ("KB", "MB"): 1 / 1024, ("MB", "MB"): 1, ("GB", "MB"): 1024,
    ("mW", "W"): 1 / 1000, ("uW", "W"): 1 / 1e6, ("W", "W"): 1,
    ("GHz", "MHz"): 1000, ("MHz", "MHz"): 1, ("KHz", "MHz"): 1 / 1000,
}


def load_json_doc(text: str, tool: str) -> Any:
    """The JSON document in `text`, skipping any warning lines printed before it."""
    if not text.strip():
        raise ParseError(f"{tool} printed nothing")
    start = None
    for m in re.finditer(r"^[\[{]", text, re.MULTILINE):
        start = m.start()
        break
    if start is None:
        raise ParseError(f"{tool} output has no JSON document: {text.strip()[:80]!r}")
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except json.JSONDecodeError as exc:
        raise ParseError(f"{tool} output is not valid JSON: {exc.msg} at line {exc.lineno}") from None


def gpu_rows(doc: Any, tool: str) -> list[dict[str, Any]]:
    """Per-GPU objects of either top-level shape (list, or `{"gpu_data": [...]}`)."""
    if isinstance(doc, dict) and isinstance(doc.get("gpu_data"), list):
        doc = doc["gpu_data"]
    elif isinstance(doc, dict) and "gpu" in doc:
        doc = [doc]
    if not isinstance(doc, list) or not all(isinstance(r, dict) for r in doc):
        raise ParseError(f"{tool}: expected a list of GPU objects or {{\"gpu_data\": [...]}}")
    return doc


def measure(raw: Any, unit: str | None = None) -> float | int | None:
    """A number from any real measurement form, converted to `unit`; None for N/A."""
    src_unit = ""
    if isinstance(raw, dict):
        src_unit = str(raw.get("unit") or "")
        raw = raw.get("value")
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, str):
        m = _NUM_UNIT.match(raw)
        if not m:
            return None                        # "N/A", "", "UNKNOWN"
        raw = float(m.group(1)) if "." in m.group(1) else int(m.group(1))
        src_unit = src_unit or m.group(2)
    if not isinstance(raw, (int, float)):
        return None
    if unit and src_unit and (src_unit, unit) in _SCALE:
        factor = _SCALE[(src_unit, unit)]
        if factor != 1:
            value = raw * factor
            return int(value) if float(value).is_integer() else value
    return raw


def text_or_none(raw: Any) -> str | None:
    if raw is None or (isinstance(raw, str) and raw.strip().upper() in ("N/A", "NA", "")):
        return None
    return str(raw)


def _get(row: dict[str, Any], *path: str) -> Any:
    node: Any = row
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


@parser("amd_smi_list")
def parse_amd_smi_list(text: str) -> list[dict[str, Any]]:
    """GPUs of `amd-smi list --json`: `[{gpu, bdf, uuid, kfd_id, node_id, partition_id}]`.

    `bdf` is lower-case `0000:05:00.0`; ids absent in older releases are None.
    An empty list means amd-smi saw no GPU. Raises ParseError on non-JSON.
    """
    rows = gpu_rows(load_json_doc(text, "amd-smi list"), "amd-smi list")
    return [{
        "gpu": r.get("gpu"),
        "bdf": (text_or_none(r.get("bdf")) or "").lower() or None,
        "uuid": text_or_none(r.get("uuid")),
        "kfd_id": measure(r.get("kfd_id")),
        "node_id": measure(r.get("node_id")),
        "partition_id": measure(r.get("partition_id")),
    } for r in rows]


@parser("amd_smi_static")
def parse_amd_smi_static(text: str) -> list[dict[str, Any]]:
    """Per GPU of `amd-smi static --json`: identity, driver, VRAM size, power cap, limits.

    Returns `[{gpu, bdf, market_name, vendor_id, device_id, rev_id, serial, oam_id,
    gfx_target, max_pcie_width, max_pcie_speed_gts, driver_name, driver_version,
    vbios_version, vram_type, vram_vendor, vram_total_mb, power_cap_w,
    slowdown_hotspot_c, shutdown_hotspot_c, slowdown_vram_c, shutdown_vram_c,
    compute_partition, memory_partition, numa_node}]`; ids are lower-case hex
    strings (`"0x74a1"`), missing or N/A values are None.
    """
    rows = gpu_rows(load_json_doc(text, "amd-smi static"), "amd-smi static")
    out = []
    for r in rows:
        vbios = r.get("vbios") if isinstance(r.get("vbios"), dict) else {}
        ifwi = r.get("ifwi") if isinstance(r.get("ifwi"), dict) else {}
        out.append({
            "gpu": r.get("gpu"),
            "bdf": (text_or_none(_get(r, "bus", "bdf")) or "").lower() or None,
            "market_name": text_or_none(_get(r, "asic", "market_name")),
            "vendor_id": (text_or_none(_get(r, "asic", "vendor_id")) or "").lower() or None,
            "device_id": (text_or_none(_get(r, "asic", "device_id")) or "").lower() or None,
            "rev_id": text_or_none(_get(r, "asic", "rev_id")),
            "serial": text_or_none(_get(r, "asic", "asic_serial")),
            "oam_id": measure(_get(r, "asic", "oam_id")),
            "gfx_target": text_or_none(_get(r, "asic", "target_graphics_version")),
            "max_pcie_width": measure(_get(r, "bus", "max_pcie_width")),
            "max_pcie_speed_gts": measure(_get(r, "bus", "max_pcie_speed")),
            "driver_name": text_or_none(_get(r, "driver", "name")),
            "driver_version": text_or_none(_get(r, "driver", "version")),
            "vbios_version": text_or_none(vbios.get("version") or ifwi.get("version")),
            "vram_type": text_or_none(_get(r, "vram", "type")),
            "vram_vendor": text_or_none(_get(r, "vram", "vendor")),
            "vram_total_mb": measure(_get(r, "vram", "size"), "MB"),
            "power_cap_w": measure(_get(r, "limit", "socket_power")
                                   or _get(r, "limit", "ppt0", "socket_power_limit"), "W"),
            "slowdown_hotspot_c": measure(_get(r, "limit", "slowdown_hotspot_temperature")),
            "shutdown_hotspot_c": measure(_get(r, "limit", "shutdown_hotspot_temperature")),
            "slowdown_vram_c": measure(_get(r, "limit", "slowdown_vram_temperature")),
            "shutdown_vram_c": measure(_get(r, "limit", "shutdown_vram_temperature")),
            "compute_partition": text_or_none(_get(r, "partition", "compute_partition")),
            "memory_partition": text_or_none(_get(r, "partition", "memory_partition")),
            "numa_node": measure(_get(r, "numa", "node")),
        })
    return out


def _gfx_clocks(clock: Any) -> list[tuple[float | int | None, float | int | None]]:
    """(clk, max_clk) of every `gfx_N` engine (MI300X has one per XCD), in order."""
    if not isinstance(clock, dict):
        return []
    keys = sorted((k for k in clock if re.fullmatch(r"gfx_\d+", k)), key=lambda k: int(k[4:]))
    if not keys and isinstance(clock.get("gfx"), dict):        # ROCm 6.0: one "gfx" block
        keys = ["gfx"]
    return [(measure(_get(clock, k, "clk"), "MHz"), measure(_get(clock, k, "max_clk"), "MHz"))
            for k in keys]


@parser("amd_smi_metric")
def parse_amd_smi_metric(text: str) -> list[dict[str, Any]]:
    """Per GPU of `amd-smi metric --json`: activity, power, temperatures, clocks, VRAM, ECC, violations.

    Returns `[{gpu, gfx_activity_pct, umc_activity_pct, power_w, power_cap_w,
    throttle_status, junction_temp_c, edge_temp_c, mem_temp_c, gfx_clk_mhz,
    gfx_clks_mhz, gfx_max_clk_mhz, mem_clk_mhz, vram_used_mb, vram_total_mb,
    gtt_used_mb, gtt_total_mb, ecc_ue, ecc_ce, ecc_deferred, pcie_width,
    pcie_speed_gts, pcie_replay_count, perf_level, thermal_violation_pct,
    power_violation_pct, prochot_violation_pct, hbm_violation_pct,
    vr_violation_pct}]`. `junction_temp_c` is amd-smi's `hotspot`; `gfx_clk_mhz`
    is the highest live clock over the gfx engines; violation percentages come
    from the `throttle` block (MI300 and later, ROCm 6.3+). N/A -> None.
    """
    rows = gpu_rows(load_json_doc(text, "amd-smi metric"), "amd-smi metric")
    out = []
    for r in rows:
        clocks = _gfx_clocks(r.get("clock"))
        live = [c for c, _ in clocks if c is not None]
        maxes = [m for _, m in clocks if m]
        power = r.get("power") if isinstance(r.get("power"), dict) else {}
        thr = r.get("throttle") if isinstance(r.get("throttle"), dict) else {}
        out.append({
            "gpu": r.get("gpu"),
            "gfx_activity_pct": measure(_get(r, "usage", "gfx_activity")),
            "umc_activity_pct": measure(_get(r, "usage", "umc_activity")),
            "power_w": measure(power.get("socket_power") or power.get("average_socket_power")
                               or power.get("current_socket_power"), "W"),
            "power_cap_w": measure(power.get("power_cap") or power.get("socket_power_limit"), "W"),
            "throttle_status": text_or_none(power.get("throttle_status")),
            "junction_temp_c": measure(_get(r, "temperature", "hotspot")),
            "edge_temp_c": measure(_get(r, "temperature", "edge")),
            "mem_temp_c": measure(_get(r, "temperature", "mem")),
            "gfx_clk_mhz": max(live) if live else None,
            "gfx_clks_mhz": live,
            "gfx_max_clk_mhz": max(maxes) if maxes else None,
            "mem_clk_mhz": measure(_get(r, "clock", "mem_0", "clk"), "MHz"),
            "vram_used_mb": measure(_get(r, "mem_usage", "used_vram"), "MB"),
            "vram_total_mb": measure(_get(r, "mem_usage", "total_vram"), "MB"),
            "gtt_used_mb": measure(_get(r, "mem_usage", "used_gtt"), "MB"),
            "gtt_total_mb": measure(_get(r, "mem_usage", "total_gtt"), "MB"),
            "ecc_ue": measure(_get(r, "ecc", "total_uncorrectable_count")),
            "ecc_ce": measure(_get(r, "ecc", "total_correctable_count")),
            "ecc_deferred": measure(_get(r, "ecc", "total_deferred_count")),
            "pcie_width": measure(_get(r, "pcie", "width")),
            "pcie_speed_gts": measure(_get(r, "pcie", "speed")),
            "pcie_replay_count": measure(_get(r, "pcie", "replay_count")),
            "perf_level": text_or_none(r.get("perf_level")),
            "thermal_violation_pct": measure(thr.get("socket_thermal_violation_activity")),
            "power_violation_pct": measure(thr.get("ppt_violation_activity")),
            "prochot_violation_pct": measure(thr.get("prochot_violation_activity")),
            "hbm_violation_pct": measure(thr.get("hbm_thermal_violation_activity")),
            "vr_violation_pct": measure(thr.get("vr_thermal_violation_activity")),
        })
    return out


@parser("amd_smi_process")
def parse_amd_smi_process(text: str) -> list[dict[str, Any]]:
    """Processes per GPU of `amd-smi process --json`: `[{gpu, pid, name, vram_bytes, gtt_bytes, cpu_bytes, mem_bytes}]`.

    One row per (GPU, process); a GPU reporting "No running processes detected"
    contributes no row. Memory is in bytes (None when N/A); `name` may be a
    full path (ROCm 7) or a thread name (`pt_main_thread`).
    """
    rows = gpu_rows(load_json_doc(text, "amd-smi process"), "amd-smi process")
    out = []
    for r in rows:
        plist = r.get("process_list")
        if plist is None and "process_info" in r:               # ROCm 6.0: flat entries
            plist = [r]
        for entry in plist or []:
            info = entry.get("process_info") if isinstance(entry, dict) else None
            if not isinstance(info, dict):
                continue                       # "No running processes detected"
            mem = info.get("memory_usage") if isinstance(info.get("memory_usage"), dict) else {}
            out.append({
                "gpu": r.get("gpu"),
                "pid": measure(info.get("pid")),
                "name": text_or_none(info.get("name")),
                "vram_bytes": measure(mem.get("vram_mem"), "B"),
                "gtt_bytes": measure(mem.get("gtt_mem"), "B"),
                "cpu_bytes": measure(mem.get("cpu_mem"), "B"),
                "mem_bytes": measure(info.get("mem_usage"), "B"),
            })
    return out


_VERSION_FIELDS = {
    "amdsmi tool": "tool_version", "amdsmi library version": "amdsmi_library",
    "rocm version": "rocm_version", "amdgpu version": "amdgpu_version",
    "amd_hsmp version": "amd_hsmp_version",
}
_VERSION_JSON = {
    "version": "tool_version", "amdsmi_library_version": "amdsmi_library",
    "rocm_version": "rocm_version", "amdgpu_version": "amdgpu_version",
    "amd_hsmp_driver_version": "amd_hsmp_version",
}


@parser("amd_smi_version")
def parse_amd_smi_version(text: str) -> dict[str, str | None]:
    """`amd-smi version` (text or `--json`): `{tool_version, amdsmi_library, rocm_version, amdgpu_version, amd_hsmp_version}`.

    Reads the `AMDSMI Tool: X | AMDSMI Library version: Y | ROCm version: Z | ...`
    line and the one-item JSON list. Fields the release does not print, or
    prints as N/A, are None.
    """
    out: dict[str, str | None] = {v: None for v in _VERSION_FIELDS.values()}
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        doc = load_json_doc(text, "amd-smi version")
        row = doc[0] if isinstance(doc, list) and doc else doc
        if not isinstance(row, dict):
            raise ParseError("amd-smi version --json: expected one object")
        for key, name in _VERSION_JSON.items():
            out[name] = text_or_none(row.get(key))
        return out
    line = next((ln for ln in stripped.splitlines() if ln.startswith("AMDSMI Tool")), None)
    if line is None:
        raise ParseError(f"not `amd-smi version` output: {stripped[:80]!r}")
    for part in line.split("|"):
        label, _, value = part.partition(":")
        name = _VERSION_FIELDS.get(label.strip().lower())
        if name:
            out[name] = text_or_none(value.strip())
    return out
