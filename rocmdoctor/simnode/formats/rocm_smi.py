"""`rocm-smi --showallinfo --json` for simulated GPUs (the fallback when amd-smi is absent).

rocm-smi prints `json.dumps(data)` on one line (default separators), as in the
real MI250 capture pasted in wandb/wandb#5449; key names and order follow the
real `--showallinfo --json` capture in fixtures/outputs/rocm-smi/ (RX 6600,
luckylinux/supermicro-fan-control GPU_NOTES.md) with the MI300X-only labels and
values of a real 4x MI300X `rocm-smi -a` (thamada/nvidia-smi@b09ef13
gls/MI300X_x4_smi.py): junction/memory sensors, socket power, SPX/NPS1.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from rocmdoctor.simnode.gpu import SimGPU

# firmware lines of the real MI300X `rocm-smi -a` (the ones it can read)
_FIRMWARE = (
    ("MEC firmware version", "138"), ("MEC2 firmware version", "138"),
    ("RLC firmware version", "63"), ("SDMA firmware version", "19"),
    ("SDMA2 firmware version", "19"), ("SMC firmware version", "00.85.91.00"),
    ("SOS firmware version", "0x0036024b"), ("TA RAS firmware version", "32.00.00.12"),
    ("TA XGMI firmware version", "32.00.01.19"), ("VCN firmware version", "0x0611300c"),
)


def _f1(x: float | int) -> str:
    return f"{float(x):.1f}"


def _card(g: SimGPU, cpu_nodes: int) -> dict[str, Any]:
    unique = g.serial.lower()
    card: dict[str, Any] = {
        "Device Name": g.market_name,
        "Device ID": f"0x{g.device_id:04x}",
        "Device Rev": f"0x{g.revision:02x}",
        "Subsystem ID": f"0x{g.subsystem_device_id:04x}",
        "GUID": str(47056 + g.index),
        "Unique ID": unique,
        "VBIOS version": "113-MI3SRIOV-001",
        "Temperature (Sensor junction) (C)": _f1(g.junction_temp),
        "Temperature (Sensor memory) (C)": _f1(g.mem_temp),
        "fclk clock speed:": "(1300Mhz)",
        "fclk clock level:": "0",
        "mclk clock speed:": f"({g.mclk_mhz}Mhz)",
        "mclk clock level:": "0",
        "sclk clock speed:": f"({g.sclk_mhz}Mhz)",
        "sclk clock level:": "S" if g.sclk_mhz < 500 else "1",
        "socclk clock speed:": "(30Mhz)",
        "socclk clock level:": "S",
        "Performance Level": "auto",
        "Max Graphics Package Power (W)": _f1(g.power_cap_w),
        "Current Socket Graphics Package Power (W)": _f1(g.power_w),
        "GPU use (%)": str(g.gfx_activity),
        "GFX Activity": "50288",
        "GPU Memory Allocated (VRAM%)": str(round(100 * g.vram_used / g.vram_total)),
        "Memory Activity": "0",
        "Avg. Memory Bandwidth": "0",
        "GPU memory vendor": "samsung",
        "PCIe Replay Count": "0",
        "Serial Number": str(692347006052 + g.index),
        "PCI Bus": g.bdf.upper(),
    }
    card.update(dict(_FIRMWARE))
    card.update({
        "Card Series": f"{g.market_name} OAM",
        "Card Model": f"0x{g.device_id:04x}",
        "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
        "Card SKU": "MI3SRIOV",
        "Node ID": str(cpu_nodes + g.index),
        "GFX Version": g.gfx_target,
        "Energy counter": "5104503354501",
        "Accumulated Energy (uJ)": "78098902297472.05",
        "Compute Partition": "SPX",
        "Memory Partition": "NPS1",
    })
    return card


# Format: `rocm-smi --showallinfo --json` (== `rocm-smi -a --json`), one line, see module doc.
def render_rocm_smi_json(gpus: Sequence[SimGPU], driver_version: str = "6.7.0",
                         cpu_nodes: int = 2) -> str:
    doc: dict[str, Any] = {f"card{g.index}": _card(g, cpu_nodes) for g in gpus}
    doc["system"] = {"Driver version": driver_version}
    return json.dumps(doc) + "\n"


# Format: what rocm-smi prints with --json when no card answered (ROCm/legacy-rocm-build#4374).
def render_rocm_smi_no_data() -> str:
    return "WARNING: No JSON data to report\n"
