"""First-sight batches (tests/incidents/batches.yaml): recorded once, never rewritten, and every
case they name is still in the corpus, so the history in docs/accuracy.md stays traceable."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.testing.batches import BatchError, history, load_batches, record_after_fix, record_first_sight
from rocmdoctor.testing.corpus import ROOT, Case, Outcome


def _outcome(case_id: str, verdict: str, severity: str = "critical") -> Outcome:
    case = Case(case_id, Path("/nonexistent") / case_id, case_id.split("/")[0], severity, ("x",), {}, ("https://github.com/a/b/issues/1",))
    return Outcome(case, verdict, "fail", "fail", "x" if verdict == "right" else "", "")


def test_first_sight_is_recorded_once_and_after_fix_each_time() -> None:
    batches: list[dict] = []
    first = [_outcome("gpu-oom/a", "right"), _outcome("gpu-oom/b", "missed"), _outcome("gpu-oom/c", "benign-ok", "ok")]
    batch = record_first_sight(batches, "b1", first, "abc123", "frameworks")
    assert batch["first_sight"]["right"] == 1 and batch["first_sight"]["incidents"] == 2
    assert batch["cases"] == {"gpu-oom/a": "right", "gpu-oom/b": "missed", "gpu-oom/c": "benign-ok"}
    with pytest.raises(BatchError, match="never rewritten"):
        record_first_sight(batches, "b1", first, "def456")
    with pytest.raises(BatchError, match="already in a batch: gpu-oom/a"):
        record_first_sight(batches, "b2", first[:1], "def456")
    record_after_fix(batches, "b1", [_outcome("gpu-oom/a", "right"), _outcome("gpu-oom/b", "right")], "def456")
    assert batches[0]["first_sight"]["right"] == 1 and batches[0]["after_fix"]["right"] == 2
    table = history(batches)
    assert "| b1 | 3 |" in table and "**1/2 (50%)**" in table and "2/2 (100%)" in table and "`def456`" in table
    with pytest.raises(BatchError, match="no batch b9"):
        record_after_fix(batches, "b9", [], "x")


def test_every_batch_case_is_in_the_corpus() -> None:
    for batch in load_batches():
        for case_id in batch["cases"]:
            assert (ROOT / case_id / "expect.yaml").is_file(), f"batch {batch['id']}: {case_id} is gone from the corpus"
        assert batch["first_sight"]["incidents"] + batch["first_sight"]["benign"] == len(batch["cases"])
