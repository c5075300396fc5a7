"""First-sight batches of the real-incident corpus (tests/incidents/batches.yaml).

A batch is a set of cases gathered from threads no earlier case used, committed, and
scored before any rule changed for it: that first score is what rocmdoctor gets right
on incidents nobody here had read. The file keeps, per batch, the commit and the verdict
of every case at first sight (written once, never overwritten) and the latest score after
the fixes the batch led to. benchmarks/accuracy.py writes it and renders its history.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any, Iterable

from rocmdoctor.testing.corpus import ROOT, Case, Outcome

BATCHES = ROOT / "batches.yaml"
HEADER = """\
# First-sight batches: cases gathered from threads no earlier case used, committed and scored
# before any rule changed for them (shared/reference/incident-corpus.md). Written by
#   python benchmarks/accuracy.py --first-sight ID CASE...   (once per batch, never overwritten)
#   python benchmarks/accuracy.py --after-fix ID              (the latest score after the fixes)
"""


class BatchError(ValueError):
    """A batch that cannot be recorded as asked (exists, uncommitted cases, unknown case)."""


def load_batches(path: Path = BATCHES) -> list[dict[str, Any]]:
    import yaml

    if not path.is_file():
        return []
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return list(doc.get("batches") or [])


def save_batches(batches: list[dict[str, Any]], path: Path = BATCHES) -> None:
    import yaml

    path.write_text(HEADER + yaml.safe_dump({"batches": batches}, sort_keys=False, width=120), encoding="utf-8")


def head_commit(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()


def uncommitted(repo: Path, paths: list[Path]) -> list[str]:
    """The paths git sees as changed or untracked: a batch is scored only once its cases are committed."""
    out = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", *map(str, paths)],
                         capture_output=True, text=True, check=True).stdout
    return [line[3:] for line in out.splitlines()]


def score(outcomes: list[Outcome]) -> dict[str, Any]:
    real = [o for o in outcomes if not o.case.benign]
    return {"date": time.strftime("%Y-%m-%d"),
            "right": sum(o.verdict == "right" for o in real), "incidents": len(real),
            "benign": len(outcomes) - len(real),
            "false_critical": sum(o.verdict == "false-critical" for o in outcomes)}


def catalogue_causes(root: Path) -> set[tuple[str, str]]:
    """The (runbook, diagnosis) pairs the catalogue under `root` can name: each runbook's diagnoses and each
    signature's (its context readings too). Read as plain YAML, so an older commit's files read the same way."""
    import yaml

    causes: set[tuple[str, str]] = set()
    for path in sorted((root / "runbooks").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        causes.update((str(doc.get("id")), str(d.get("id"))) for d in doc.get("diagnoses") or [] if isinstance(d, dict))

    def walk(node: Any, runbook: str | None) -> None:
        if isinstance(node, dict):
            runbook = str(node.get("runbook") or runbook or "")
            if node.get("diagnosis"):
                causes.add((runbook, str(node["diagnosis"])))
            for value in node.values():
                walk(value, runbook)
        elif isinstance(node, list):
            for value in node:
                walk(value, runbook)

    for path in sorted((root / "signatures").glob("*.yaml")):
        walk(yaml.safe_load(path.read_text(encoding="utf-8")), None)
    return causes


def catalogue_causes_at(repo: Path, commit: str) -> set[tuple[str, str]]:
    """catalogue_causes of the catalogue as it was at `commit` (git archive into a scratch directory)."""
    import io
    import tarfile
    import tempfile

    tar = subprocess.run(["git", "-C", str(repo), "archive", commit, "runbooks", "signatures"],
                         capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
            archive.extractall(tmp, filter="data")
        return catalogue_causes(Path(tmp))


def known_causes(cases: Iterable[Case], causes: set[tuple[str, str]]) -> int:
    """Incidents whose expected cause (any accepted id, in the expected runbook) the catalogue already named: the
    most a first sight could get right. The rest needed a cause nobody had written yet."""
    return sum(any((c.runbook, d) in causes for d in c.diagnoses) for c in cases if not c.benign)


def record_first_sight(batches: list[dict[str, Any]], batch_id: str, outcomes: list[Outcome], commit: str,
                       note: str = "", known: int | None = None) -> dict[str, Any]:
    if any(b["id"] == batch_id for b in batches):
        raise BatchError(f"batch {batch_id} is already recorded: its first sight is never rewritten")
    taken = {c: b["id"] for b in batches for c in b.get("cases", {})}
    again = [o.case.case_id for o in outcomes if o.case.case_id in taken]
    if again:
        raise BatchError(f"already in a batch: {', '.join(f'{c} ({taken[c]})' for c in again)}")
    batch = {"id": batch_id, "note": note,
             "first_sight": {**score(outcomes), "commit": commit, **({"known": known} if known is not None else {})},
             "cases": {o.case.case_id: o.verdict for o in outcomes}}
    batches.append(batch)
    return batch


def record_after_fix(batches: list[dict[str, Any]], batch_id: str, outcomes: list[Outcome], commit: str) -> dict[str, Any]:
    batch = next((b for b in batches if b["id"] == batch_id), None)
    if batch is None:
        raise BatchError(f"no batch {batch_id} (known: {', '.join(b['id'] for b in batches) or 'none'})")
    batch["after_fix"] = {**score(outcomes), "commit": commit}
    return batch


def history(batches: list[dict[str, Any]]) -> str:
    """The table docs/accuracy.md opens with."""
    if not batches:
        return "No first-sight batch recorded yet.\n"

    def pct(s: dict[str, Any] | None) -> str:
        if not s:
            return "-"
        share = f" ({100 * s['right'] / s['incidents']:.0f}%)" if s["incidents"] else ""
        return f"{s['right']}/{s['incidents']}{share}" + (f", {s['false_critical']} false CRITICAL" if s["false_critical"] else "")

    def known(s: dict[str, Any]) -> str:
        return f"{s['known']}/{s['incidents']}" if "known" in s else "-"

    rows = [f"| {b['id']} | {len(b.get('cases', {}))} | {b['first_sight']['date']} | `{b['first_sight']['commit']}` "
            f"| {known(b['first_sight'])} | **{pct(b['first_sight'])}** | {pct(b.get('after_fix'))} "
            f"| {('`' + b['after_fix']['commit'] + '`') if b.get('after_fix') else '-'} | {b.get('note', '')} |"
            for b in batches]
    seen = sum(b["first_sight"]["incidents"] for b in batches)
    right = sum(b["first_sight"]["right"] for b in batches)
    total = (f"\nAll batches at first sight: **{right}/{seen} ({100 * right / seen:.0f}%)** right, "
             f"{sum(b['first_sight']['false_critical'] for b in batches)} false CRITICAL, over "
             f"{sum(len(b.get('cases', {})) for b in batches)} new cases.\n") if seen else ""
    counted = [b["first_sight"] for b in batches if "known" in b["first_sight"]]
    if counted:
        k, n, r = (sum(s[f] for s in counted) for f in ("known", "incidents", "right"))
        total += (f"\nThe expected cause was already in the catalogue (a runbook's or a signature's diagnosis, in the "
                  f"expected runbook) at the scored commit for **{k}/{n} ({100 * k / n:.0f}%)** of the incidents: the "
                  f"most first sight could have got right; the rest needed a cause nobody had written yet. Of those "
                  f"{k}, **{r} ({100 * r / k:.0f}%)** were right: the share of known causes recognised in evidence "
                  f"never read.\n") if k else ""
    total += _when_named(batches)
    total += _known_by_day(counted)
    return ("| batch | cases | scored | commit | cause in catalogue | right at first sight | right after fixes | commit "
            "| gathered from |\n"
            "|---|---:|---|---|---:|---:|---:|---|---|\n" + "\n".join(rows) + "\n" + total)


def _when_named(batches: list[dict[str, Any]]) -> str:
    """How often a cause rocmdoctor named at first sight was the thread's: what an on-call engineer can trust in
    a verdict, beside how often one was named at all. From the per-case verdicts (a case missed named none)."""
    verdicts = [v for b in batches for v in (b.get("cases") or {}).values()]
    right, wrong, missed = (verdicts.count(v) for v in ("right", "wrong-cause", "missed"))
    if not right + wrong:
        return ""
    return (f"\nWhen rocmdoctor named a cause at first sight it was the thread's in **{right}/{right + wrong} "
            f"({100 * right / (right + wrong):.0f}%)**; it named none (UNKNOWN, or a failure with its likely causes "
            f"left open) in {missed} of {right + wrong + missed} incidents.\n")


def _known_by_day(first_sights: list[dict[str, Any]]) -> str:
    """Per scoring day, how many incidents had a known cause and how many of those came out right: whether the
    misses move between a cause nobody had written and a known cause not recognised."""
    days: dict[str, list[int]] = {}
    for s in first_sights:
        day = days.setdefault(str(s["date"]), [0, 0, 0, 0])
        day[0] += 1
        day[1] += s["incidents"]
        day[2] += s["known"]
        day[3] += s["right"]
    if len(days) < 2:
        return ""
    rows = [f"| {d} | {b} | {k}/{n} ({100 * k / n:.0f}%) | {r}/{k} ({100 * r / k:.0f}%) |"
            for d, (b, n, k, r) in sorted(days.items()) if n and k]
    return ("\n| scored | batches | cause in catalogue | of those, right at first sight |\n|---|---:|---:|---:|\n"
            + "\n".join(rows) + "\n")
