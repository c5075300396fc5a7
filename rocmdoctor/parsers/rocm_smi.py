"""`rocm-smi --showallinfo --json` (same as `rocm-smi -a --json`): per-card readings.

rocm-smi prints one JSON object on one line: `{"card0": {label: "string"}, ...,
"system": {"Driver version": ...}}`. Keys are the same labels as its text mode
(`Temperature (Sensor junction) (C)`, `Current Socket Graphics Package Power (W)`,
`sclk clock speed:` = `"(137Mhz)"`), every value a string, "N/A" when absent;
labels differ by GPU (junction/memory sensors on MI300, edge on Radeon) and
release (`GPU memory use (%)` vs `GPU Memory Allocated (VRAM%)`). Cards with no
data give `WARNING: No JSON data to report` instead of JSON.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser
from rocmdoctor.parsers.amd_smi import load_json_doc

_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def _num(raw: Any) -> float | int | None:
    """First number in a rocm-smi value string (`"35.0"`, `"(900Mhz)"`); None for N/A."""
    if raw is None:
        return None
    m = _NUM.search(str(raw))
    if not m:
        return None
    text = m.group(0)
    return float(text) if "." in text else int(text)


def _first(card: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in card and str(card[key]).strip().upper() not in ("N/A", ""):
            return card[key]
    return None


def _text(raw: Any) -> str | None:
    return None if raw is None else str(raw).strip()


@parser("rocm_smi")
def parse_rocm_smi(text: str) -> list[dict[str, Any]]:
    """Per card of `rocm-smi --showallinfo --json`, in the amd_smi_metric shape where fields exist.

    Returns `[{card, gpu, device_id, unique_id, serial, bdf, market_name, gfx,
    junction_temp_c, edge_temp_c, mem_temp_c, power_w, power_cap_w,
    gfx_activity_pct, vram_used_pct, vram_used_mb, vram_total_mb, gfx_clk_mhz,
    gfx_clk_level, mem_clk_mhz, perf_level, pcie_replay_count,
    compute_partition, memory_partition, driver_version}]`; `bdf` lower-case;
    `gfx_clk_level` is `"S"` in deep sleep. `WARNING: No JSON data to report`
    gives []. Raises ParseError on anything that is not that JSON.
    """
    if "No JSON data to report" in text and "{" not in text:
        return []
    doc = load_json_doc(text, "rocm-smi")
    if not isinstance(doc, dict):
        raise ParseError("rocm-smi --json: expected an object of cards")
    system = doc.get("system") if isinstance(doc.get("system"), dict) else {}
    driver = _text(system.get("Driver version"))
    out = []
    cards = sorted((k for k in doc if re.fullmatch(r"card\d+", k)), key=lambda k: int(k[4:]))
    for key in cards:
        c = doc[key]
        if not isinstance(c, dict):
            raise ParseError(f"rocm-smi --json: {key} is not an object")
        vram_total_b = _num(_first(c, "VRAM Total Memory (B)"))
        vram_used_b = _num(_first(c, "VRAM Total Used Memory (B)"))
        level = _first(c, "sclk clock level:")
        bdf = _text(_first(c, "PCI Bus"))
        out.append({
            "card": key,
            "gpu": int(key[4:]),
            "device_id": (_text(_first(c, "Device ID", "Card Model")) or "").lower() or None,
            "unique_id": _text(_first(c, "Unique ID")),
            "serial": _text(_first(c, "Serial Number")),
            "bdf": bdf.lower() if bdf else None,
            "market_name": _text(_first(c, "Card Series", "Device Name")),
            "gfx": _text(_first(c, "GFX Version")),
            "junction_temp_c": _num(_first(c, "Temperature (Sensor junction) (C)")),
            "edge_temp_c": _num(_first(c, "Temperature (Sensor edge) (C)")),
            "mem_temp_c": _num(_first(c, "Temperature (Sensor memory) (C)")),
            "power_w": _num(_first(c, "Current Socket Graphics Package Power (W)",
                                   "Average Graphics Package Power (W)")),
            "power_cap_w": _num(_first(c, "Max Graphics Package Power (W)")),
            "gfx_activity_pct": _num(_first(c, "GPU use (%)")),
            "vram_used_pct": _num(_first(c, "GPU Memory Allocated (VRAM%)", "GPU memory use (%)")),
            "vram_used_mb": None if vram_used_b is None else vram_used_b // (1024 * 1024),
            "vram_total_mb": None if vram_total_b is None else vram_total_b // (1024 * 1024),
            "gfx_clk_mhz": _num(_first(c, "sclk clock speed:")),
            "gfx_clk_level": _text(level),
            "mem_clk_mhz": _num(_first(c, "mclk clock speed:")),
            "perf_level": _text(_first(c, "Performance Level")),
            "pcie_replay_count": _num(_first(c, "PCIe Replay Count")),
            "compute_partition": _text(_first(c, "Compute Partition")),
            "memory_partition": _text(_first(c, "Memory Partition")),
            "driver_version": driver,
        })
    return out
