"""Write the list of thread URLs the corpus and the catalogue already use, for gatherers to skip.

    python tools/corpus_used_urls.py OUT.txt

A batch at first sight must come from threads nobody here has read: every URL a case, a signature, a check, a
runbook or a data file cites is "used". GitHub issue/PR/discussion URLs are cut to the thread and lower-cased;
ROCm/ROCm's issues now live at ROCm/legacy-rocm-build under the same numbers, so both spellings are written
(three cases of batches 2026-11-27ab/ac were such aliases, found only after scoring). Data files that cite a thread
as "ROCm/ROCm#N" text are read too.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_URL = re.compile(r"https?://[^\s)>\]`\"'<,]+")
_THREAD = re.compile(r"(https://github\.com/[^/]+/[^/]+/(?:issues|pull|discussions)/\d+)")
_SHORT = re.compile(r"\b([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(\d+)\b")
_ALIASES = (("github.com/rocm/rocm/", "github.com/rocm/legacy-rocm-build/"),)


def normalise(url: str) -> set[str]:
    """A URL as the used list holds it: the thread, lower case, with its alias spellings."""
    url = re.sub(r"#.*$", "", url.rstrip(".;:"))
    m = _THREAD.match(url)
    n = (m.group(1) if m else url).lower()
    out = {n}
    for a, b in _ALIASES:
        if a in n:
            out.add(n.replace(a, b))
        if b in n:
            out.add(n.replace(b, a))
    return out


def used_urls(root: Path = ROOT) -> set[str]:
    files = [*root.glob("tests/incidents/**/case.md"), *root.glob("signatures/*.yaml"), *root.glob("checks/*.yaml"),
             *root.glob("runbooks/*.yaml"), *root.glob("rocmdoctor/catalog/data/*.yaml")]
    urls: set[str] = set()
    for p in files:
        text = p.read_text(errors="replace")
        for u in _URL.findall(text):
            urls |= normalise(u)
        for repo, num in _SHORT.findall(text):
            urls |= normalise(f"https://github.com/{repo}/issues/{num}")
    return urls


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/corpus_used_urls.py OUT.txt")
    found = used_urls()
    Path(sys.argv[1]).write_text("\n".join(sorted(found)) + "\n", encoding="utf-8")
    print(f"wrote {len(found)} URLs to {sys.argv[1]}")
