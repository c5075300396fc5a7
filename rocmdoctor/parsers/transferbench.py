"""TransferBench's `p2p` preset: the unidirectional copy-bandwidth matrix (GB/s) between every
pair of executors, from its header line ` SRC+EXE\\DST    CPU 00 ... GPU 07` to the `Averages` line.

Form: tests/fixtures/outputs/transferbench/tb-1.62-mi350x-p2p.txt (TransferBench v1.62.00 on 8x
MI350X, an AMD engineer's bring-up notes; its GPU 07 -> GPU 01 link reads 46.66 of ~57.5 GB/s).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_HEADER = re.compile(r"^\s*SRC\+EXE\\DST\s+(?P<cols>.+)$")
_ROW = re.compile(r"^\s*(?P<src>(?:CPU|GPU) \d+)\s+->\s+(?P<vals>.+)$")


@parser("transferbench_p2p")
def parse_transferbench_p2p(text: str) -> dict[str, Any]:
    """`{links: [{src, dst, gbps, line}]}` of the unidirectional matrix; ParseError without one."""
    cols: list[str] | None = None
    links: list[dict[str, Any]] = []
    for line in text.splitlines():
        h = _HEADER.match(line)
        if h and cols is None:
            cols = re.findall(r"(?:CPU|GPU) \d+", h.group("cols"))
            continue
        if cols is None:
            continue
        if line.lstrip().startswith(("Averages", "Bidirectional")):
            break
        r = _ROW.match(line)
        if not r:
            continue
        vals = r.group("vals").split()
        if len(vals) != len(cols):
            raise ParseError(f"row {r.group('src')} has {len(vals)} values for {len(cols)} columns")
        for dst, v in zip(cols, vals):
            if dst != r.group("src") and re.fullmatch(r"\d+(?:\.\d+)?", v):
                links.append({"src": r.group("src"), "dst": dst, "gbps": float(v), "line": line.rstrip()})
    if cols is None:
        raise ParseError("no TransferBench p2p matrix (no `SRC+EXE\\DST` header)")
    return {"links": links}
