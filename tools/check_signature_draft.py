"""Check a drafted signatures file before it joins signatures/.

    python tools/check_signature_draft.py DRAFT.yaml

The catalogue is loaded with the draft added (from a temporary directory, so signatures/ is not touched). For each
draft signature: every example must match it, and no signature already in the catalogue with another diagnosis in
the same runbook may match that example: one message means one thing in a runbook (resolve by dropping the draft,
narrowing it, or naming the same diagnosis when the meaning is the same). Exit 1 on any problem.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def check(draft: Path) -> list[str]:
    import yaml

    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.line_match import match_text

    ids = [s["id"] for s in (yaml.safe_load(draft.read_text()) or {}).get("signatures") or []]
    tmp = Path(tempfile.mkdtemp())
    try:
        shutil.copy(draft, tmp / draft.name)
        catalog = load_catalog((str(tmp),))
    finally:
        shutil.rmtree(tmp)
    by_id = {s.id: s for s in catalog.signatures}
    problems = []
    for sid in ids:
        sig = by_id[sid]
        for example in sig.examples:
            matches = match_text(catalog.signatures, example)
            if not any(m.signature_id == sid for m in matches):
                problems.append(f"no match: {sid}: {example!r}")
            for m in matches:
                if (m.signature_id not in ids and m.runbook == sig.runbook and m.diagnosis != sig.diagnosis):
                    problems.append(f"overlap: {sid} ({sig.diagnosis}) and {m.signature_id} ({m.diagnosis}) "
                                    f"in {sig.runbook} on {example!r}")
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/check_signature_draft.py DRAFT.yaml")
    from rocmdoctor.errors import DefinitionError

    try:
        found = check(Path(sys.argv[1]))
    except DefinitionError as e:  # a draft the schema refuses: its line (in the temporary copy) and why
        sys.exit(f"refused: {e}")
    print("\n".join(found) or "no problems")
    sys.exit(1 if found else 0)
