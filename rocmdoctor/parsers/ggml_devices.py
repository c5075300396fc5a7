"""llama.cpp / ollama job logs (ggml's HIP build): the GPUs the job saw and the one it failed on.

ggml prints the devices HIP gave it when it starts, in HIP's own numbering (after any
ROCR/HIP_VISIBLE_DEVICES mask), and names the device a failed kernel ran on. Real forms:

- `ggml_cuda_init: found 2 ROCm devices (Total VRAM: 31898 MiB):` then
  `  Device 1: AMD Radeon 740M Graphics, gfx1103 (0x1103), VMM: no, Wave Size: 32, VRAM: 15594 MiB`
  (ggml-org/llama.cpp#22013);
- `  Device 0: AMD Radeon Graphics, gfx906:sramecc+:xnack- (0x906), VMM: no, Wave Size: 64`
  (iacopPBK/llama.cpp-gfx906#15): the target carries its feature suffixes;
- older builds: `ggml_cuda_init: found 1 ROCm devices:` / `  Device 0: AMD Radeon(TM) 890M Graphics,
  compute capability 11.5, VMM: no` (likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#19) and
  `ggml_init_cublas: found 1 ROCm devices:` / `  Device 0: , compute capability 11.0`
  (ggml-org/llama.cpp#3320): no gfx target, so no verdict on them;
- the failure: `ROCm error: invalid device function` (or `CUDA error: ...` in builds that keep
  the CUDA names, ggml-org/llama.cpp#8504) followed by
  `  current device: 1, in function ggml_cuda_compute_forward at .../ggml-cuda.cu:2932`.

Lines may carry a front end's prefix (ollama's, lemonade's `[Info] (Process)`), so the forms are
searched within the line.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_FOUND = re.compile(r"ggml_(?:cuda_init|init_cublas): found (\d+) (ROCm|CUDA) devices?")
_DEVICE = re.compile(r"\bDevice (\d+): (.*?), (?:(gfx[0-9a-f]+)[:\w+-]* \(0x[0-9a-f]+\)|compute capability ([\d.]+))")
_ERROR = re.compile(r"\b(ROCm|CUDA|HIP) error: (.+?)\s*$")
_CURRENT = re.compile(r"\bcurrent device: (\d+), in function (\w+)")


@parser("ggml_devices")
def parse_ggml_devices(text: str) -> dict[str, Any]:
    """The GPUs a llama.cpp/ollama job listed (HIP numbering) and the device its HIP error names.

    Returns `{devices: [{index, name, gfx, lineno, line}], found: int|None, failures:
    [{device, error, function, lineno, line}], lines: int}`; `gfx` is None for builds that print a
    compute capability instead. The last device list in the log wins (a restarted server prints it
    again). Never fails: a log without these lines gives empty lists.
    """
    devices: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    found: int | None = None
    in_list = False
    last_error: str | None = None
    lines = text.splitlines()
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip()
        m = _FOUND.search(line)
        if m:
            found, devices, in_list = int(m.group(1)), [], True
            continue
        if in_list:
            d = _DEVICE.search(line)
            if d:
                devices.append({"index": int(d.group(1)), "name": d.group(2).strip() or None,
                                "gfx": d.group(3), "lineno": lineno, "line": line.strip()[:300]})
                continue
            in_list = False
        e = _ERROR.search(line)
        if e:
            last_error = e.group(2)
            continue
        c = _CURRENT.search(line)
        if c:
            failures.append({"device": int(c.group(1)), "error": last_error, "function": c.group(2),
                             "lineno": lineno, "line": line.strip()[:300]})
    return {"devices": devices, "found": found, "failures": failures, "lines": len(lines)}
