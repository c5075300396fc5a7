"""A job's log: the GPU target (gfx...) a ROCm runtime or library says it is running on.

A ticket often holds neither rocminfo nor amd-smi, only the failing job's output, and that output
names the GPU's target in the line that reports the failure. Whether the target is on its ROCm
release's list of supported GPUs (rocm.gpu_supported) can then be judged from the log. Each form
names the *device's* target, as the runtime read it from the GPU (after HSA_OVERRIDE_GFX_VERSION,
which is what the libraries load code for); a target a program was *built* for is never read here.

- rocBLAS, library/src/tensile_host.cpp (ROCm/rocBLAS@01393fe6, TensileHost::initialize: `processor`
  is rocblas_internal_get_arch_name(), the current device's): `rocBLAS error: Cannot read
  /opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx906`
  (ROCm/ROCm#4625); `... Illegal seek for GPU arch : gfx1032`.
- HIP (CLR), hipamd/src/hip_fatbin.cpp, the code-object lookup for the device's ISA: `No compatible code
  objects found for: gfx1152, value of HIP_FORCE_SPIRV_CODEOBJECT: 0`.
- TensorFlow, tensorflow/core/common_runtime/gpu/gpu_device.cc: `Ignoring visible gpu device (device: 0,
  name: AMD Radeon RX 6600 XT, pci bus id: 0000:0c:00.0) with AMDGPU version : gfx1032. ...`
  (ROCm/tensorflow-upstream#1951).
- ollama's GPU discovery (discover/amd_linux.go, amd_windows.go, types.go): `msg="amdgpu is not
  supported" gpu=0 gpu_type=gfx1010 ...`, `msg="amdgpu is not supported (supported types:[...])"
  gpu_type=gfx1103 gpu=0 ...`, older `amdgpu [0] gfx1031 is not supported by /usr/lib/ollama [...]`,
  and `msg="inference compute" id=0 library=rocm compute=gfx1033 driver=0.0 name=1002:163f ...`
  (ollama/ollama#3243; newer releases print `library=ROCm`).
- ggml's device list (llama.cpp, ollama's runner): `Device 0: AMD Radeon Graphics, gfx906:sramecc+:xnack-
  (0x906), VMM: no, Wave Size: 64` (parser ggml_devices).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser
from rocmdoctor.parsers.ggml_devices import parse_ggml_devices

_TARGET = r"(?P<gfx>gfx[0-9a-f]{3,4})(?![0-9a-z])"
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Cannot read \S{0,400}?TensileLibrary\S{0,80}?:? [^\n]{0,80}?for GPU arch ?: ?" + _TARGET),
     "rocBLAS (no Tensile library for the GPU's arch)"),
    (re.compile(r"No compatible code objects found for: " + _TARGET), "HIP's code-object lookup"),
    (re.compile(r"Ignoring visible gpu device \(device: \d{1,3}, name: (?P<name>[^()]{0,120}?), pci bus id: [^)]{1,20}\)"
                r" with AMDGPU version : " + _TARGET), "TensorFlow's device filter"),
    (re.compile(r"amdgpu is (?:not )?supported[^\n]{0,400}? gpu_type=" + _TARGET), "ollama's GPU discovery"),
    (re.compile(r"amdgpu \[\d{1,2}\] " + _TARGET + r" is not supported by "), "ollama's GPU discovery"),
    (re.compile(r"msg=\"inference compute\"[^\n]{0,200}? library=(?i:rocm) (?:variant=\S{0,40} )?compute=" + _TARGET
                + r"(?:[^\n]{0,200}? name=(?P<name>\"[^\"]{1,80}\"|\S{1,80}))?"), "ollama's inference compute line"),
)


@parser("runtime_gpu_targets")
def parse_runtime_gpu_targets(text: str) -> dict[str, Any]:
    """`{gpus: [{gfx, name, from, lineno, line}]}`, one row per target (its first line), in the shape
    gpu_facts.gpu_targets gives, so rocm.gpu_supported reads it like rocminfo's agents. CPU rows
    (`gfx000`, ollama's CPU node) are left out. Never fails: a log without these lines gives no rows."""
    seen: dict[str, dict[str, Any]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        if "gfx" not in raw:
            continue
        for form, who in _FORMS:
            m = form.search(raw)
            if not m:
                continue
            gfx = m.group("gfx")
            if gfx != "gfx000" and gfx not in seen:
                name = (m.groupdict().get("name") or "").strip('"').strip()
                seen[gfx] = {"gfx": gfx, "name": name or "the job's GPU",
                             "from": f"{who}, log line {lineno}", "lineno": lineno, "line": raw.strip()[:300]}
            break
    for dev in parse_ggml_devices(text)["devices"]:
        if dev["gfx"] and dev["gfx"] not in seen:
            seen[dev["gfx"]] = {"gfx": dev["gfx"], "name": dev["name"] or f"ggml device {dev['index']}",
                                "from": f"ggml's device list, log line {dev['lineno']}", "lineno": dev["lineno"],
                                "line": dev["line"]}
    return {"gpus": list(seen.values())}
