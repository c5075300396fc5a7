"""ROCm Validation Suite (`rvs`) terminal output: per-action results and the summary box.

Forms (tests/fixtures/outputs/rvs/SOURCES.md, RVS's user guide and module docs):
    [RESULT] [302017.167195] [gst-Tflops-2K2K2K-trig-fp4] [GPU:: 42583] GFLOPS 1063560 Target GFLOPS: 0 met: TRUE
    [RESULT] [257936.568920] [action_1]  smqt 3254 pass: false
    | pcie_h2d_bandwidth               | PEBB           | PASS            |
A `pass:` or `met:` value is the module's verdict for one GPU; the summary box (RVS 1.6+) gives
each action's. Other [RESULT] lines (figures, progress) are kept as context, not judged.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_RESULT = re.compile(r"^\[RESULT\]\s*\[\s*[\d.]+\s*\]\s*(?P<rest>.*)$")
_VERDICT = re.compile(r"\b(?:pass|met):\s*(?P<v>true|false)\b", re.IGNORECASE)
_ACTION = re.compile(r"^\[(?P<action>[^\]]+)\]")
_GPU = re.compile(r"\[GPU::\s*(?P<id>\d+)\]|\b[a-z]{3,5} (?P<id2>\d+) (?:pass|met):", re.IGNORECASE)
_SUMMARY = re.compile(r"^\|\s*(?P<action>[\w.-]+)\s*\|\s*(?P<module>[A-Z]{2,6})\s*\|\s*(?P<result>PASS|FAIL)\s*\|\s*$")


@parser("rvs_output")
def parse_rvs_output(text: str) -> dict[str, Any]:
    """`{verdicts: [{action, gpu, passed, line}], actions: [{action, module, passed, line}]}`."""
    verdicts, actions = [], []
    for raw in text.splitlines():
        line = raw.strip()
        m = _RESULT.match(line)
        if m:
            v = _VERDICT.search(m.group("rest"))
            if v:
                a = _ACTION.match(m.group("rest"))
                g = _GPU.search(m.group("rest"))
                verdicts.append({"action": a.group("action") if a else None,
                                 "gpu": (g.group("id") or g.group("id2")) if g else None,
                                 "passed": v.group("v").lower() == "true", "line": line})
            continue
        s = _SUMMARY.match(line)
        if s and s.group("action") != "Action":
            actions.append({"action": s.group("action"), "module": s.group("module"),
                            "passed": s.group("result") == "PASS", "line": line})
    return {"verdicts": verdicts, "actions": actions}
