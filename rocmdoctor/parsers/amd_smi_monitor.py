"""`amd-smi monitor` (alias `dmon`) text: one row per GPU under a header of column names.

Tickets paste it because it is amd-smi's one-line-per-GPU view (power, GPU and memory
temperatures, utilisation, clocks, ECC, PCIe replays, VRAM), and it is the only amd-smi text
view with the memory (HBM) temperature. Each value is right-aligned under its column name
("  0  171 W     32 °C ..."), so a row is cut at the header names' right edges. With `-q` a
"PROCESS INFO:" table follows after a blank line; with `-w` the header repeats per sample
(the last sample wins). Samples: ROCm/amdsmi CHANGELOG.md (ROCm 6.1.0 `-ptumv`, 6.2.0 `-q`,
6.1.2 `--pcie`, 6.3.0 `--violation`); tests/fixtures/outputs/amd-smi-monitor/SOURCES.md.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_HEADER = re.compile(r"^GPU(?:\s+[A-Z][A-Z0-9_]*)+\s*$")
_VALUE = re.compile(r"^(?P<num>-?\d+(?:\.\d+)?)\s*(?P<unit>\S*)$")
# column -> (field, unit it must carry): what the checks read; every column is kept raw too
_FIELDS = {"POWER": "power_w", "GPU_TEMP": "gpu_temp", "MEM_TEMP": "mem_temp", "GFX_UTIL": "gfx_util",
           "GFX_CLOCK": "gfx_clock_mhz", "MEM_UTIL": "mem_util", "MEM_CLOCK": "mem_clock_mhz",
           "SINGLE_ECC": "single_ecc", "DOUBLE_ECC": "double_ecc", "PCIE_REPLAY": "pcie_replay",
           "VRAM_USED": "vram_used_mb", "VRAM_TOTAL": "vram_total_mb", "PVIOL": "power_violation_pct",
           "TVIOL": "thermal_violation_pct", "HBM_TVIOL": "hbm_thermal_violation_pct"}


def _number(text: str) -> float | int | None:
    m = _VALUE.match(text)
    if not m:
        return None
    n = float(m.group("num"))
    return int(n) if n.is_integer() else n


@parser("amd_smi_monitor")
def parse_amd_smi_monitor(text: str) -> dict[str, Any]:
    """`{gpus: [{gpu: int, raw: {COLUMN: text}, <field>: number|None ...}], columns: [...],
    readings: [{gpu, label, temp}]}`: readings are the GPU (hotspot) and memory temperatures
    in °C, in the shape of the other text tools' parsers. N/A is None. ParseError when there is
    no header and GPU row.
    """
    columns: list[tuple[str, int, int]] = []
    rows: dict[int, dict[str, Any]] = {}
    for line in text.splitlines():
        if _HEADER.match(line):
            if re.search(r"\sPID\s", line):      # -q's process table: not GPU rows
                columns = []
                continue
            columns, start = [], 0
            for m in re.finditer(r"\S+", line):
                columns.append((m.group(0), start, m.end()))
                start = m.end()
            continue
        if not columns or not line.strip():
            if columns and not line.strip():
                columns = []          # a blank line ends the table (the process table follows)
            continue
        cells = {name: line[a:b].strip() for name, a, b in columns}
        gpu = cells.get("GPU", "")
        if not gpu.isdigit():
            continue
        row: dict[str, Any] = {"gpu": int(gpu), "raw": {k: v for k, v in cells.items() if k != "GPU"}}
        for name, value in cells.items():
            if name in _FIELDS:
                row[_FIELDS[name]] = _number(value)
        rows[int(gpu)] = row
    if not rows:
        raise ParseError("no `amd-smi monitor` table (expected a 'GPU  POWER  GPU_TEMP ...' header and GPU rows)")
    gpus = [rows[k] for k in sorted(rows)]
    readings = [{"gpu": r["gpu"], "label": label, "temp": r[field], "fan_pct": None}
                for r in gpus for field, label in (("gpu_temp", "hotspot"), ("mem_temp", "mem"))
                if r.get(field) is not None]
    return {"gpus": gpus, "columns": sorted({c for r in gpus for c in r["raw"]}), "readings": readings}
