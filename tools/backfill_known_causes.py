"""Add `known` to the first sight of each batch in tests/incidents/batches.yaml that lacks it: how many of its
incidents expected a cause the catalogue already named at the batch's scored commit (read from that commit with
git archive). The score itself is not touched; batches recorded by benchmarks/accuracy.py --first-sight carry
`known` from the start.

    python tools/backfill_known_causes.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rocmdoctor.testing.batches import catalogue_causes_at, known_causes, load_batches, save_batches  # noqa: E402
from rocmdoctor.testing.corpus import ROOT as CASES, load_case  # noqa: E402


def main() -> int:
    batches = load_batches()
    for b in batches:
        fs = b["first_sight"]
        if "known" in fs:
            continue
        causes = catalogue_causes_at(ROOT, fs["commit"])
        cases = [load_case(CASES / c) for c in b.get("cases", {}) if (CASES / c).is_dir()]
        fs["known"] = known_causes(cases, causes)
        print(f"{b['id']}: expected cause in the catalogue at {fs['commit']}: {fs['known']}/{fs['incidents']}, "
              f"right {fs['right']}")
    save_batches(batches)
    return 0


if __name__ == "__main__":
    sys.exit(main())
