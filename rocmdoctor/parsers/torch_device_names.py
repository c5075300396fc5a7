"""The GPU a PyTorch job names in its own log, for tickets that paste nothing else about the machine.

Desktop AI apps print the device PyTorch gave them when they start, and a crash report is often only
that log. Two forms, each printed by PyTorch's `torch.cuda.get_device_name()` on a ROCm build (HIP
takes the CUDA API's names, so an AMD GPU is "cuda:0"):

- ComfyUI (and Fooocus, which carries ComfyUI's model_management as ldm_patched): `Device: cuda:0
  AMD Radeon RX 6600 : native`: `get_torch_device_name()` formats "{device} {name} : {allocator}"
  (comfyanonymous/ComfyUI comfy/model_management.py, read at faad5f1cdbe2); Fooocus 2.5.5's log in
  lllyasviel/Fooocus#1288 has exactly that line.
- the Python REPL or a script's print of `torch.cuda.get_device_name(...)`: the call, then the quoted
  name on the next line (`>>> torch.cuda.get_device_name(0)` / `'AMD Radeon Graphics'`,
  ROCm/legacy-rocm-build#2961's session: a generic name the tables never map), or the
  name compared on the same line (`... get_device_name(torch.cuda.current_device()) == "Radeon RX 570
  Series" # True`, a reporter's annotated session in the rocm/pytorch container,
  ROCm/legacy-rocm-build#1930).

A NVIDIA name on such a line is a CUDA machine and is still returned: the check that reads this
keeps only the AMD products its tables know.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser
from rocmdoctor.parsers.env_lines import shell_assignments

_COMFY = re.compile(r"\bDevice: (?P<dev>cuda:\d+) (?P<name>.+?) : (?P<alloc>\w*)\s*$")
_CALL = re.compile(r"\bget_device_name\([^)\n]{0,80}\)\)?")
_QUOTED = re.compile(r"""^\s*(?:==\s*)?(?P<q>["'])(?P<name>[^"'\n]{2,80})(?P=q)""")
_OVERRIDE = "HSA_OVERRIDE_GFX_VERSION"
# how a job without a kernel for its GPU ends: HIP's error, or the crash it often becomes instead
_CRASH = re.compile(r"(?i)segmentation (?:fault|error)|invalid device function|no kernel image is available|SIGSEGV"
                    r"|core dumped|hipErrorInvalidDeviceFunction")


@parser("torch_device_names")
def parse_torch_device_names(text: str) -> dict[str, Any]:
    """`{gpus: [{text, lineno, line, field}], override: {value, lineno, line} | None, crash: {lineno, line} |
    None}`: the GPUs PyTorch named (stated_env's `gpus` shape, so the same product lookup reads them), an
    HSA_OVERRIDE_GFX_VERSION the log shows being set (in a shell's forms, env_lines'), and the first line that shows
    the job crashing."""
    lines = text.splitlines()
    gpus: list[dict[str, Any]] = []
    crash = None
    values, where = shell_assignments(text, frozenset({_OVERRIDE}))
    override = None
    if values.get(_OVERRIDE):
        lineno, line = where[_OVERRIDE]
        override = {"value": values[_OVERRIDE], "lineno": lineno, "line": line}
    for i, line in enumerate(lines):
        if crash is None and _CRASH.search(line):
            crash = {"lineno": i + 1, "line": line.strip()[:300]}
        m = _COMFY.search(line)
        if m:
            gpus.append({"text": m.group("name"), "lineno": i + 1, "line": line.strip(), "field": "comfyui-device"})
            continue
        c = _CALL.search(line)
        if not c:
            continue
        same = _QUOTED.match(line[c.end():])
        nxt = _QUOTED.match(lines[i + 1]) if not same and i + 1 < len(lines) else None
        if same:
            gpus.append({"text": same.group("name"), "lineno": i + 1, "line": line.strip(), "field": "get_device_name"})
        elif nxt:
            gpus.append({"text": nxt.group("name"), "lineno": i + 2, "line": f"{line.strip()} -> {lines[i + 1].strip()}",
                         "field": "get_device_name"})
    return {"gpus": gpus, "override": override, "crash": crash}
