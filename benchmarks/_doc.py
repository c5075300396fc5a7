"""Write one benchmark's generated section of docs/benchmarks.md, keeping the rest
(other benchmarks' sections and hand-written notes) as it is."""

from __future__ import annotations

import re
from pathlib import Path


def write_section(path: Path, name: str, text: str) -> None:
    begin, end = f"<!-- begin:{name} (generated) -->", f"<!-- end:{name} -->"
    block = f"{begin}\n{text.strip()}\n{end}"
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    new = pattern.sub(lambda _: block, old) if pattern.search(old) else old.rstrip() + "\n\n" + block + "\n"
    path.write_text(new)
