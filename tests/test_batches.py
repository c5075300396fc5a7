"""First-sight batches (tests/incidents/batches.yaml): recorded once, never rewritten, and every
case they name is still in the corpus, so the history in docs/accuracy.md stays traceable."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.testing.batches import (BatchError, catalogue_causes, catalogue_causes_at, history, known_causes,
                                        load_batches, record_after_fix, record_first_sight)
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


def test_known_causes_are_read_from_runbooks_and_signatures(tmp_path: Path) -> None:
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "signatures").mkdir()
    (tmp_path / "runbooks" / "gpu-oom.yaml").write_text("id: gpu-oom\ndiagnoses:\n  - id: job-needs-more-vram\n    step: s\n")
    (tmp_path / "signatures" / "x.yaml").write_text(
        "signatures:\n  - id: a\n    runbook: gpu-not-visible\n    diagnosis: runtime-missing-gpu\n"
        "    context:\n      - near: 'x'\n        diagnosis: igpu-used-by-job\n")
    causes = catalogue_causes(tmp_path)
    assert causes == {("gpu-oom", "job-needs-more-vram"), ("gpu-not-visible", "runtime-missing-gpu"),
                      ("gpu-not-visible", "igpu-used-by-job")}
    case = Case("gpu-oom/a", Path("/nonexistent"), "gpu-oom", "critical", ("new-cause", "job-needs-more-vram"), {}, ())
    other = Case("gpu-oom/b", Path("/nonexistent"), "gpu-oom", "critical", ("runtime-missing-gpu",), {}, ())
    assert known_causes([case, other], causes) == 1  # a cause another runbook names is not this runbook's


def test_known_causes_at_a_commit_read_that_commit() -> None:
    import subprocess

    root = Path(__file__).resolve().parents[1]
    first = load_batches()[0]["first_sight"]["commit"]
    if subprocess.run(["git", "-C", str(root), "cat-file", "-e", f"{first}^{{commit}}"], capture_output=True).returncode:
        pytest.skip(f"commit {first} is not in this checkout (a shallow clone)")
    then, now = catalogue_causes_at(root, first), catalogue_causes(root)
    assert ("gpu-not-visible", "amdgpu-not-loaded") in then and len(then) < len(now)


def test_history_says_how_many_expected_causes_were_known() -> None:
    batches: list[dict] = []
    record_first_sight(batches, "b1", [_outcome("gpu-oom/a", "right"), _outcome("gpu-oom/b", "missed")], "abc", "", known=1)
    table = history(batches)
    assert "| `abc` | 1/2 | **1/2 (50%)**" in table
    assert "**1/2 (50%)** of the incidents" in table and "Of those 1, **1 (100%)** were right" in table


def test_history_splits_known_causes_by_scoring_day() -> None:
    batches: list[dict] = []
    record_first_sight(batches, "b1", [_outcome("gpu-oom/a", "right"), _outcome("gpu-oom/b", "missed")], "abc", "", known=2)
    record_first_sight(batches, "b2", [_outcome("gpu-oom/c", "missed"), _outcome("gpu-oom/d", "missed")], "def", "", known=1)
    batches[0]["first_sight"]["date"], batches[1]["first_sight"]["date"] = "2026-11-25", "2026-11-26"
    table = history(batches)
    assert "| 2026-11-25 | 1 | 2/2 (100%) | 1/2 (50%) |" in table
    assert "| 2026-11-26 | 1 | 1/2 (50%) | 0/1 (0%) |" in table
    assert "| scored | batches |" not in history(batches[:1])   # one day: nothing to compare


def test_history_says_how_often_a_named_cause_was_right() -> None:
    batches: list[dict] = []
    record_first_sight(batches, "b1", [_outcome("gpu-oom/a", "right"), _outcome("gpu-oom/b", "wrong-cause"),
                                       _outcome("gpu-oom/c", "wrong-cause"), _outcome("gpu-oom/d", "missed"),
                                       _outcome("gpu-oom/e", "benign-ok", "ok")], "abc", "")
    table = history(batches)
    assert "named a cause at first sight it was the thread's in **1/3 (33%)**" in table
    assert "in 1 of 4 incidents" in table
