"""`rocm-smi` text views that print one `GPU[N] : key: value` line per reading
(`--showmeminfo vram`, `--showmemuse`, `--showtemp`, `--showproductname`, `-a` /
`--showallinfo`), and `rocm-smi --showpids`' KFD process table.

Real forms:
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
