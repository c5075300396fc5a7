"""One reading path (issue 41, item 5): a line means the same in `explain`, in `--log` and in a
triage of a bundle that holds it where a ticket would put it. Walks every signature's real
samples (and the corpus' pasted kernel logs and job logs) through both and compares the first
diagnosis of the runbook the line belongs to."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.core import TriageRequest, explain_report, triage_target
from rocmdoctor.testing.corpus import load_cases

SAMPLES = [(sig, ex) for sig in load_catalog().signatures for ex in sig.examples]


def _first(report, runbook: str) -> str | None:  # type: ignore[no-untyped-def]
    rb = next((r for r in report.runbooks if r.runbook_id == runbook), None)
    return rb.diagnoses[0].diagnosis_id if rb is not None and rb.diagnoses else None


def _left_open(report, runbook: str) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    rb = next((r for r in report.runbooks if r.runbook_id == runbook), None)
    return tuple(c.diagnosis_id for c in rb.open_causes) if rb is not None else ()


def _triage_bundle(tmp: Path, rel: str, text: str) -> object:
    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp / rel).write_text(text)
    vars = {"log": "/" + rel.split("files/", 1)[1]} if rel.startswith("files/") else {}
    return triage_target(TriageRequest(target="", bundle=str(tmp), vars=vars))


@pytest.mark.parametrize("sig, example", SAMPLES, ids=[f"{s.id}:{i}" for i, (s, _) in enumerate(SAMPLES)])
def test_a_signature_sample_reads_the_same_in_explain_and_in_a_triage(sig, example, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rel = "commands/dmesg/stdout" if sig.family == "kernel" else "files/ticket/job.log"
    explained_report = explain_report(example + "\n")
    triaged_report = _triage_bundle(tmp_path, rel, example + "\n")
    explained = _first(explained_report, sig.runbook)
    triaged = _first(triaged_report, sig.runbook)
    if sig.leaves_open:
        # a symptom line names no cause in either: both list the same causes it leaves open, likeliest first
        assert explained is None and triaged is None
        assert _left_open(explained_report, sig.runbook)[:len(sig.leaves_open)] == sig.leaves_open
        assert _left_open(triaged_report, sig.runbook) == _left_open(explained_report, sig.runbook)
        return
    assert explained is not None, f"explain names no {sig.runbook} cause for its own sample"
    assert explained == triaged


PASTES = [(c, p) for c in load_cases() for p in sorted((c.path / "bundle").glob("files/ticket/*"))
          + [c.path / "bundle/commands/dmesg/stdout"] if p.is_file()]


@pytest.mark.parametrize("case, paste", PASTES, ids=[f"{c.case_id}:{p.name}" for c, p in PASTES])
def test_a_corpus_paste_reads_the_same_in_explain_and_in_a_triage(case, paste: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = paste.read_text(errors="replace")
    rel = str(paste.relative_to(case.path / "bundle"))
    if rel.startswith("files/"):
        # explain reads its text as the job log and as the kernel log, so its twin is a bundle holding the paste as
        # both (a journal pasted as a ticket file carries the kernel's lines among every daemon's)
        (tmp_path / "commands/dmesg").mkdir(parents=True, exist_ok=True)
        (tmp_path / "commands/dmesg/stdout").write_text(text)
    assert _first(explain_report(text), case.runbook) == _first(_triage_bundle(tmp_path, rel, text), case.runbook)
