"""hipblaslt-bench's CSV result: one header line naming the columns, one values line per problem.

Forms (tests/fixtures/outputs/hipblaslt-bench/SOURCES.md):
    [0]:transA,transB,...,hipblaslt-Gflops,hipblaslt-GB/s,us,CPU-Gflops,CPU-us,norm_error,atol,rtol
        N,N,0,1,128,128,128,...,403.298,17.6063,10.4,0.0960059,43688,2.44879e-07,1e-05,1e-05
(hipBLASLt's README, `-v`), and the older header ending `CPU-Gflops,CPU-us,norm_error_1` without
the `[0]:` prefix (ROCm/hipBLASLt#251). Lines before the header (the device banner, `rocblaslt
warning: ...`) are kept as notes: they say why a result is wrong (no kernels for this target).
"""

from __future__ import annotations

import math
import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_HEADER_PREFIX = re.compile(r"^\[\d+\]:")


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value


@parser("hipblaslt_bench")
def parse_hipblaslt_bench(text: str) -> dict[str, Any]:
    """`{results: [{columns..., gflops, norm_error, rtol, line}], notes: [warning lines]}`."""
    header: list[str] | None = None
    results: list[dict[str, Any]] = []
    notes: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        bare = _HEADER_PREFIX.sub("", line)
        if bare.startswith("transA,transB,"):
            header = [c.strip() for c in bare.split(",")]
            continue
        if header is None:
            if "warning" in line.lower() or "error" in line.lower():
                notes.append(line)
            continue
        values = [v.strip() for v in line.split(",")]
        if len(values) != len(header):
            if "warning" in line.lower() or "error" in line.lower():
                notes.append(line)
            continue
        row: dict[str, Any] = dict(zip(header, values))
        norm_key = next((k for k in header if k.startswith("norm_error")), None)
        row["gflops"] = _number(row.get("hipblaslt-Gflops", ""))
        row["norm_error"] = _number(row[norm_key]) if norm_key else None
        row["rtol"] = _number(row.get("rtol", "")) if "rtol" in row else None
        row["type"] = row.get("a_type") or row.get("d_type") or row.get("compute_type") or "?"
        row["line"] = raw.rstrip()
        results.append(row)
    if header is None:
        raise ParseError("no hipblaslt-bench result (no `transA,transB,...` header)")
    return {"results": results, "notes": notes}


def is_bad_number(value: float | None) -> bool:
    return value is not None and (math.isnan(value) or math.isinf(value))
