"""`amd-smi` with no arguments (ROCm 6.4+): the default table, two rows per GPU.

Real form (ROCm/amdsmi#110, Strix Halo, amd-smi 26.1.0):

    +------------------------------------------------------------------------------+
    | AMD-SMI 26.1.0+e94df3ed      amdgpu version: Linuxver ROCm version: 6.4.1    |
    | Platform: Linux Baremetal                                                    |
    |-------------------------------------+----------------------------------------|
    | BDF                        GPU-Name | Mem-Uti   Temp   UEC       Power-Usage |
    | GPU  HIP-ID  OAM-ID  Partition-Mode | GFX-Uti    Fan               Mem-Usage |
    |=====================================+========================================|
    | 0000:c2:00.0  Radeon 8050S Graphics | N/A      29 °C   0                14 W |
    |   0       0     N/A             N/A | 7 %        N/A            3056/8192 MB |

A GPU's first row starts with its PCI address, the second with its index; each half is read
by its values' units (°C, W, %, MB), N/A where the GPU has no such reading. amd-smi 26.2 on
Instinct prints the power as use/cap (ROCm/rocm-systems#8263, MI325X):

    | 0000:05:00.0    AMD Instinct MI325X | 0 %      27 °C   0          135/1000 W |
    |   0       1       6        SPX/NPS1 | 0 %        N/A         46111/262128 MB |

Tickets paste those rows without the header; rows in this form are read without it. The
process table that may follow is not read here (`amd-smi process --json` is).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_BDF_ROW = re.compile(r"^\|\s*(?P<bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d)\s+(?P<name>.*?)\s*\|(?P<right>.*)\|\s*$")
_IDX_ROW = re.compile(r"^\|\s*(?P<gpu>\d+)\s+(?P<hip>\S+)\s+(?P<oam>\S+)\s+(?P<mode>\S+)\s*\|(?P<right>.*)\|\s*$")
_TEMP = re.compile(r"(\d+(?:\.\d+)?)\s*°C")
_POWER = re.compile(r"(\d+(?:\.\d+)?)(?:/\d+(?:\.\d+)?)?\s*W\b")
_PCT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_MEM = re.compile(r"(\d+)/(\d+)\s*MB")
_RIGHT1 = re.compile(r"^\s*(?P<memu>N/A|\d+(?:\.\d+)?\s*%)\s+(?P<temp>N/A|\d+(?:\.\d+)?\s*°C)\s+(?P<uec>N/A|\d+)\s+"
                     r"(?P<power>N/A|\d+(?:\.\d+)?\s*W|\d+(?:\.\d+)?/\d+(?:\.\d+)?\s*W)\s*$")
_POWER_CAP = re.compile(r"/(\d+(?:\.\d+)?)\s*W\b")


def _num(m: re.Match[str] | None) -> float | None:
    return float(m.group(1)) if m else None


@parser("amd_smi_table")
def parse_amd_smi_table(text: str) -> dict[str, Any]:
    """`amd-smi` default view: `{gpus: [{bdf, name, gpu, temp_c, power_w, power_cap_w, mem_util_pct,
    gfx_util_pct, uec, mem_used_mb, mem_total_mb}], readings: [{gpu, label, temp}]}`; `power_cap_w` is
    None where the table prints no cap. Raises ParseError on text with neither the `AMD-SMI`
    header nor a GPU row."""
    lines = text.splitlines()
    if not any("AMD-SMI" in ln for ln in lines[:10]) and not any(_BDF_ROW.match(ln.strip()) for ln in lines):
        raise ParseError("no `AMD-SMI` header and no GPU row: not amd-smi's default table")
    gpus: list[dict[str, Any]] = []
    for line in lines:
        line = line.strip()
        if m := _BDF_ROW.match(line):
            r = _RIGHT1.match(m.group("right"))
            if r is None:
                raise ParseError(f"unexpected GPU row: {line[:120]}")
            gpus.append({"bdf": m.group("bdf"), "name": m.group("name"), "gpu": None,
                         "temp_c": _num(_TEMP.search(r.group("temp"))), "power_w": _num(_POWER.search(r.group("power"))),
                         "power_cap_w": _num(_POWER_CAP.search(r.group("power"))),
                         "mem_util_pct": _num(_PCT.search(r.group("memu"))),
                         "uec": int(r.group("uec")) if r.group("uec").isdigit() else None,
                         "gfx_util_pct": None, "mem_used_mb": None, "mem_total_mb": None})
        elif (m := _IDX_ROW.match(line)) and gpus and gpus[-1]["gpu"] is None:
            right = m.group("right")
            mem = _MEM.search(right)
            gpus[-1].update({"gpu": int(m.group("gpu")), "gfx_util_pct": _num(_PCT.search(right)),
                             "mem_used_mb": int(mem.group(1)) if mem else None,
                             "mem_total_mb": int(mem.group(2)) if mem else None})
    readings = [{"gpu": str(g["gpu"] if g["gpu"] is not None else g["bdf"]), "label": "hotspot", "temp": g["temp_c"],
                 "fan_pct": None} for g in gpus if g["temp_c"] is not None]
    return {"gpus": gpus, "readings": readings}
