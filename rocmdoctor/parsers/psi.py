"""Pressure stall information: /proc/pressure/{cpu,memory,io} (kernel Documentation/accounting/psi.rst).

    some avg10=0.00 avg60=0.00 avg300=0.00 total=0
    full avg10=0.00 avg60=0.00 avg300=0.00 total=0

`some`: the share of wall time in which at least one task waited for the resource; `full`: in
which all non-idle tasks did (cpu has `full` since 5.13, all zeros at system level). avg* are
percentages over 10 s, 60 s and 300 s; total is microseconds. Samples: tests/fixtures/outputs/psi/.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_LINE = re.compile(r"(some|full) avg10=(\d+\.\d+) avg60=(\d+\.\d+) avg300=(\d+\.\d+) total=(\d+)")


@parser("psi")
def parse_psi(text: str) -> dict[str, Any]:
    """`{some: {avg10, avg60, avg300, total}, full: {...} | None}` (avg in %, total in µs)."""
    out: dict[str, Any] = {"some": None, "full": None}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.fullmatch(line.strip())
        if not m:
            raise ParseError(f"line {lineno} is not a PSI line: {line[:60]!r}")
        out[m.group(1)] = {"avg10": float(m.group(2)), "avg60": float(m.group(3)), "avg300": float(m.group(4)),
                           "total": int(m.group(5)), "line": line.strip()}
    if out["some"] is None:
        raise ParseError("no `some` line")
    return out
