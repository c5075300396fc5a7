"""Add a docs/signatures.md table row for each catalogue signature the table lacks.

    python tools/add_signature_rows.py && python tools/gen_signature_docs.py

A new signature's row goes after the row of the signature before it in catalogue order (so a file's signatures
stay together); rows already there are left as they are. Then regenerate the sources block and update the count
line (the signatures test checks both).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DOC = ROOT / "docs" / "signatures.md"
_ROW = re.compile(r"\| `([^`]+)` \|")


def row(sig) -> str:
    warn = " (warning)" if sig.severity == "warning" else ""
    links = " ".join(f"[{i}]({u})" for i, u in enumerate(sig.sources, 1))
    return f"| `{sig.id}` | {sig.family} | {sig.runbook} / {sig.diagnosis}{warn} | {sig.confidence} | {links} |"


def add_rows() -> int:
    from rocmdoctor.catalog.loader import load_catalog

    lines = DOC.read_text(encoding="utf-8").split("\n")
    listed = {m.group(1) for line in lines if (m := _ROW.match(line))}
    added, previous = 0, None
    for sig in load_catalog().signatures:
        if sig.id not in listed:
            where = {m.group(1): i for i, line in enumerate(lines) if (m := _ROW.match(line))}
            at = where[previous] + 1 if previous in where else max(where.values()) + 1
            lines.insert(at, row(sig))
            listed.add(sig.id)
            added += 1
        previous = sig.id
    DOC.write_text("\n".join(lines), encoding="utf-8")
    return added


if __name__ == "__main__":
    print(f"added {add_rows()} row(s) to {DOC.relative_to(ROOT)}")
