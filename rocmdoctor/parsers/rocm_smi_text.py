"""`rocm-smi` text: the concise table (no arguments) in the layouts of several releases, the
`GPU[N] : key: value` views and `--showpids`' process table.

The concise table, real forms:
ROCm 1.9 (ROCm/legacy-rocm-build#561; the iGPU listed as GPU 0 with N/A):
     GPU  Temp    AvgPwr   SCLK     MCLK     Fan      Perf    SCLK OD    MCLK OD
      0   N/A     N/A      N/A      N/A      0%       N/A       N/A        N/A
      1   55c     15.0W    852Mhz   167Mhz   10.98%   auto      0%         0%
ROCm 4/5 (ROCm/k8s-device-plugin#12; ROCm/legacy-rocm-build#1752 with no GPU at all):
    WARNING: No AMD GPUs specified
    GPU  Temp   AvgPwr  SCLK     MCLK    Fan   Perf  PwrCap  VRAM%  GPU%
    1    48.0c  27.0W   1386Mhz  800Mhz  0.0%  auto  225.0W    0%   0%
ROCm 6 (MI300X, tests/incidents/thermal-throttling/mi300x-concise-idle-39c):
    Device  Node  IDs              Temp        Power     Partitions          SCLK     MCLK    Fan  Perf  PwrCap  VRAM%  GPU%
                  (DID,     GUID)  (Junction)  (Socket)  (Mem, Compute, ID)
    0       1     0x74b5,   21947  39.0°C      191.0W    NPS1, SPX, 0        2105Mhz  900Mhz  0%   auto  750.0W  95%    0%

Columns hold spaces in the ROCm 6 layout ("0x74b5,   21947", "NPS1, SPX, 0"), so a row is
read by its values' units (°C/c, W, Mhz, %) rather than by column position. The temperature
is the edge sensor before ROCm 6 and the junction (hotspot) sensor from ROCm 6 on (the
header's second line says which).

The key/value views (`--showmeminfo vram`, `--showmemuse`, `--showtemp`, `--showproductname`,
`-a` / `--showallinfo`) and `--showpids`, real forms:
    GPU[0]          : VRAM Total Memory (B): 4278190080          (ROCm/legacy-rocm-build#1909)
    GPU[0]          : VRAM Total Used Memory (B): 108814336
    GPU[0]		: Card Series: 		Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]   (Syllo/nvtop#250)
    GPU[0] 		: Temperature: 81.0c                         (ROCm/ROC-smi#22, ROCm 1.7 `-a`)
    KFD process information:                                      (the MI300 case in
    PID    	PROCESS NAME	GPU(s)	VRAM USED	SDMA USED	CU OCCUPANCY	   tests/incidents/gpu-oom)
    1075718	kfd_open    	0     	0        	0        	0
The key is everything up to the first colon after `GPU[N] :` (values hold colons: a PCI
address, a card name); whitespace around both is dropped. Separator and banner lines
(`=====`, `.....`) are skipped.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_TEMP = re.compile(r"^(\d+(?:\.\d+)?)(?:°C|Â°C|c|C)$")
_WATT = re.compile(r"^(\d+(?:\.\d+)?)W$")
_MHZ = re.compile(r"^(\d+)Mhz$", re.IGNORECASE)
_PCT = re.compile(r"^(\d+(?:\.\d+)?)%$")
_PERF = {"auto", "low", "high", "manual", "determinism", "stable_std", "stable_peak", "stable_min_mclk",
         "stable_min_sclk", "perf_determinism", "profile_standard", "profile_peak"}


def _header(lines: list[str]) -> tuple[int, str, bool] | None:
    """(index of the header line, temperature sensor, has VRAM%/GPU% columns)."""
    for i, line in enumerate(lines):
        words = line.split()
        if words and words[0] in ("GPU", "Device") and "Temp" in line and "SCLK" in line:
            below = lines[i + 1] if i + 1 < len(lines) else ""
            text = (line + " " + below).lower()
            sensor = "junction" if "junction" in text else ("memory" if "(memory)" in text else "edge")
            return i, sensor, "VRAM%" in line
    return None


def _row(words: list[str], sensor: str, has_usage: bool) -> dict[str, Any]:
    temps = [float(m.group(1)) for w in words if (m := _TEMP.match(w))]
    watts = [float(m.group(1)) for w in words if (m := _WATT.match(w))]
    mhz = [int(m.group(1)) for w in words if (m := _MHZ.match(w))]
    pcts = [float(m.group(1)) for w in words if (m := _PCT.match(w))]
    perf = next((w for w in words if w.lower() in _PERF), None)
    row: dict[str, Any] = {
        "gpu": words[0], "temp_c": temps[0] if temps else None, "temp_sensor": sensor,
        "power_w": watts[0] if len(watts) >= (2 if has_usage else 1) else None,
        "pwrcap_w": watts[-1] if has_usage and watts else None,
        "sclk_mhz": mhz[0] if mhz else None, "mclk_mhz": mhz[1] if len(mhz) > 1 else None,
        "fan_pct": pcts[0] if pcts else None, "perf": perf,
        "vram_pct": pcts[-2] if has_usage and len(pcts) >= 3 else None,
        "gpu_pct": pcts[-1] if has_usage and len(pcts) >= 3 else None,
    }
    if has_usage and len(watts) == 1:  # only one W column filled: it is the cap (power N/A)
        row["power_w"] = None
    return row


@parser("rocm_smi_concise")
def parse_rocm_smi_concise(text: str) -> dict[str, Any]:
    """`rocm-smi` (concise table): one row per GPU with temperature, power, clocks, use."""
    lines = text.splitlines()
    warnings = [ln.split("WARNING:", 1)[1].strip() for ln in lines if "WARNING:" in ln]
    head = _header(lines)
    if head is None:
        if warnings:
            return {"gpus": [], "readings": [], "warnings": warnings, "temp_sensor": None}
        raise ParseError("no concise table header (a 'GPU'/'Device' line with Temp and SCLK)")
    start, sensor, has_usage = head
    gpus = []
    for line in lines[start + 1:]:
        if "End of ROCm SMI Log" in line:
            break
        words = line.split()
        if not words or not re.match(r"^\d+$", words[0]):
            continue
        gpus.append(_row(words, sensor, has_usage))
    readings = [{"gpu": g["gpu"], "label": g["temp_sensor"], "temp": g["temp_c"], "fan_pct": g["fan_pct"]}
                for g in gpus if g["temp_c"] is not None]
    return {"gpus": gpus, "readings": readings, "warnings": warnings, "temp_sensor": sensor}


_FIELD = re.compile(r"^GPU\[(?P<gpu>\d+)\]\s*:\s*(?P<key>[^:]+?)\s*:\s*(?P<value>.*?)\s*$")


@parser("rocm_smi_fields")
def parse_rocm_smi_fields(text: str) -> dict[str, Any]:
    """`rocm-smi --showmeminfo vram` and other `GPU[N] : key: value` views: `{gpus: {N: {key: value}}, warnings}`."""
    gpus: dict[str, dict[str, str]] = {}
    warnings = []
    for line in text.splitlines():
        if "WARNING:" in line:
            warnings.append(line.split("WARNING:", 1)[1].strip())
            continue
        m = _FIELD.match(line.strip())
        if m:
            gpus.setdefault(m.group("gpu"), {})[m.group("key")] = m.group("value")
    if not gpus and not warnings:
        raise ParseError("no `GPU[N] : key: value` line in the output")
    return {"gpus": gpus, "warnings": warnings}


@parser("rocm_smi_pids")
def parse_rocm_smi_pids(text: str) -> dict[str, Any]:
    """`rocm-smi --showpids`: `{processes: [{pid, name, gpus: [int], vram_bytes, sdma, cu_occupancy}]}`."""
    lines = text.splitlines()
    head = next((i for i, ln in enumerate(lines) if ln.strip().startswith("PID") and "PROCESS NAME" in ln), None)
    if head is None:
        if any("No KFD PIDs currently running" in ln for ln in lines):
            return {"processes": []}
        raise ParseError("no `PID  PROCESS NAME ...` header (rocm-smi --showpids)")
    processes = []
    for line in lines[head + 1:]:
        cells = [c.strip() for c in line.split("\t")]
        if not cells or not cells[0].isdigit():
            if line.startswith("="):
                break
            continue
        cells += [""] * (6 - len(cells))
        gpus = [int(g) for g in re.findall(r"\d+", cells[2])]
        processes.append({"pid": int(cells[0]), "name": cells[1], "gpus": gpus,
                          "vram_bytes": int(cells[3]) if cells[3].isdigit() else None,
                          "sdma": cells[4], "cu_occupancy": cells[5]})
    return {"processes": processes}
