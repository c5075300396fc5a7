"""Check a gathered batch before it is committed and scored.

    python tools/check_batch.py BATCH_DIR

BATCH_DIR holds <runbook>/<case>/ directories in the tests/incidents/ form. Each case must load as the corpus loads
it (case.md with a URL, expect.yaml, bundle/), name its runbook by its directory, hold the log and report its vars
name, and cite a thread no case, signature, check or data file uses yet (tools/corpus_used_urls.py, aliases
included); two cases of one batch may share a thread (two machines) and are listed. Exit 1 on any problem.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from corpus_used_urls import normalise, used_urls  # noqa: E402

from rocmdoctor.testing.corpus import CaseError, load_case  # noqa: E402

RUNBOOKS = {p.stem for p in (ROOT / "runbooks").glob("*.yaml")}


def check(batch: Path) -> list[str]:
    used = used_urls()
    problems: list[str] = []
    first_urls: dict[str, str] = {}
    for d in sorted(p for p in batch.glob("*/*") if p.is_dir()):
        name = f"{d.parent.name}/{d.name}"
        found: list[str] = []
        if d.parent.name not in RUNBOOKS:
            found.append(f"{d.parent.name} is not a runbook")
        try:
            case = load_case(d)
            if case.runbook != d.parent.name:
                found.append(f"expect.yaml names runbook {case.runbook}")
            for key in ("log", "report"):
                path = case.vars.get(key)
                if path and not (d / "bundle" / "files" / str(path).lstrip("/")).is_file():
                    found.append(f"{key} {path} is not in bundle/files")
        except CaseError as e:
            found.append(str(e))
        text = (d / "case.md").read_text(errors="replace") if (d / "case.md").is_file() else ""
        threads = [u for u in re.findall(r"https?://[^\s)>\]`\"'<,]+", text) if "/issues/" in u or "/pull/" in u
                   or "/discussions/" in u]
        for u in threads:
            if normalise(u) & used:
                found.append(f"thread already used: {u}")
        if threads:
            first = sorted(normalise(threads[0]))[0]
            if first in first_urls:
                print(f"note: {name} and {first_urls[first]} cite the same thread first (two machines?)")
            first_urls.setdefault(first, name)
        print(f"{name}: {'OK' if not found else '; '.join(found)}")
        problems += [f"{name}: {f}" for f in found]
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/check_batch.py BATCH_DIR")
    sys.exit(1 if check(Path(sys.argv[1])) else 0)
