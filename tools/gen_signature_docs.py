"""Write the "where the messages come from" block of docs/signatures.md from the catalogue.

    python tools/gen_signature_docs.py          # rewrite the block
    python tools/gen_signature_docs.py --check  # exit 1 when the block is stale (the test runs this)

Each signature names its sources: the file of a public repository that prints the message
(a .../blob/... or .../tree/... URL: the message read where it is made) and the threads it
was seen in. The block counts, per repository, the signatures that cite it and how many of
them cite its source code, so the catalogue shows which components' messages come from
their code and which only from threads.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DOC = ROOT / "docs" / "signatures.md"
BEGIN, END = "<!-- sources:begin (tools/gen_signature_docs.py) -->", "<!-- sources:end -->"


def _repo(url: str) -> tuple[str, bool]:
    """(owner/name or host, whether the URL is a file of the repository's code)."""
    m = re.match(r"https?://github\.com/([^/]+/[^/#?]+)(/(blob|tree)/)?", url)
    if m:
        return m.group(1), bool(m.group(2))
    host = re.match(r"https?://([^/]+)", url)
    return (host.group(1) if host else url), False


def block() -> str:
    from rocmdoctor.catalog.loader import load_catalog

    sigs = load_catalog().signatures
    cited: dict[str, set[str]] = defaultdict(set)
    code: dict[str, set[str]] = defaultdict(set)
    from_code = set()
    for s in sigs:
        for url in s.sources:
            repo, is_code = _repo(url)
            cited[repo].add(s.id)
            if is_code:
                code[repo].add(s.id)
                from_code.add(s.id)
    rows = sorted(cited, key=lambda r: (-len(code[r]), -len(cited[r]), r.lower()))
    lines = [BEGIN, "",
             f"{len(sigs)} signatures; {len(from_code)} name the source file that prints their message, "
             f"the others the public threads they were seen in.", "",
             "| repository | signatures citing it | citing its source code |", "|---|---:|---:|"]
    lines += [f"| {r} | {len(cited[r])} | {len(code[r])} |" for r in rows]
    return "\n".join(lines + ["", END])


def main(argv: list[str]) -> int:
    text = DOC.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + block() + text[end:]
    if "--check" in argv:
        if new != text:
            print("docs/signatures.md: the sources block is stale; run python tools/gen_signature_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
