"""A ticket's `torch.cuda.is_available()` probe run under AMD_LOG_LEVEL, and whether the HIP runtime logged.

AMD's first advice for a PyTorch that sees no GPU is to run the probe with AMD_LOG_LEVEL set: CLR prints
its own lines (`:3:rocdevice.cpp :468 : 0518006503 us: [pid:858 ...] Initializing HSA stack.`, level 3 =
LOG_INFO, rocclr/utils/debug.hpp) as soon as PyTorch's ROCm build initialises HIP. A probe that printed
`False` at level 3 or more with no such line never loaded HIP: that PyTorch is not a ROCm build. Real
forms: `$ AMD_LOG_LEVEL=7 python -c "import torch; print(torch.cuda.is_available())"` then `False`
(ROCm/hip#3465, no CLR line) and the same with CLR's lines before `False` (ROCm/hip#3710's WSL paste).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_PROBE = re.compile(r"\bAMD_LOG_LEVEL=(?P<level>\d)\b.*\bpython[\d.]*\b.*torch\.cuda\.is_available\(\)")
_CLR_LINE = re.compile(r"^:\d:\S+\s*:\s*\d+\s*:")
_RESULT = re.compile(r"^(True|False)\s*$")


@parser("torch_probe")
def parse_torch_probe(text: str) -> dict[str, Any] | None:
    """`{level, result, clr_lines, lineno, line}` of the last probe run with AMD_LOG_LEVEL; None without one.
    `result` is the first True/False printed after it; `clr_lines` counts CLR's own log lines in the text."""
    lines = text.splitlines()
    probe: dict[str, Any] | None = None
    for i, raw in enumerate(lines):
        m = _PROBE.search(raw)
        if m:
            result = next((r.group(1) for r in (_RESULT.match(x.strip()) for x in lines[i + 1:i + 200]) if r), None)
            probe = {"level": int(m.group("level")), "result": result, "lineno": i + 1, "line": raw.strip()}
    if probe is None:
        return None
    probe["clr_lines"] = sum(1 for x in lines if _CLR_LINE.match(x.strip()))
    return probe
