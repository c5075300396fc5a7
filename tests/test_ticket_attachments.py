"""A ticket's bundle holds one file per paste under files/ticket/; the one named with --log is read first and every
other attachment is read for error signatures after it (a second paste in the same thread is evidence too)."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State

CASE = Path(__file__).resolve().parent / "incidents" / "gpu-not-visible" / "rhel77-vega-fe-rocm30-clinfo-1001-broken-rpm-install"


def _log_step(report):
    rb = next(r for r in report.runbooks if r.runbook_id == "gpu-not-visible")
    return rb, next(s for s in rb.steps if s.step_id == "log")


def test_an_attachment_not_named_with_log_is_read_after_the_named_one() -> None:
    # ROCm/ROCm#1011: clinfo's console (named) and hipInfo's make output (not named), both pasted in the thread
    report = triage_target(TriageRequest(target="", bundle=str(CASE / "bundle"), runbooks=("gpu-not-visible",),
                                         vars={"log": "/ticket/clinfo-console.txt"}))
    rb, step = _log_step(report)
    assert step.check.state == State.FAIL
    assert step.check.sources[:2] == ("tail -c 1M /ticket/clinfo-console.txt", "tail -c 1M /ticket/hipinfo-make.log")
    assert any(q.startswith("/ticket/hipinfo-make.log:3: ") and "hsa_amd_memory_lock_to_pool@ROCR_1" in q
               for q in step.check.evidence)
    assert rb.diagnoses[0].diagnosis_id == "mixed-rocm-libraries"


def test_an_explicit_list_of_logs_is_kept_as_given() -> None:
    report = triage_target(TriageRequest(target="", bundle=str(CASE / "bundle"), runbooks=("gpu-not-visible",),
                                         vars={"logs": ["/ticket/clinfo-console.txt"]}))
    _, step = _log_step(report)
    assert step.check.sources == ("tail -c 1M /ticket/clinfo-console.txt",)
    assert not any("hipinfo-make.log" in q for q in step.check.evidence)


def test_the_incident_session_reads_the_attachments_as_triage_does(tmp_path: Path) -> None:
    """The TUI is another front end over the same core: its triage of a bundle reads the same attachments."""
    from rocmdoctor.tui.session import IncidentSession

    request = TriageRequest(target="", bundle=str(CASE / "bundle"), runbooks=("gpu-not-visible",),
                            vars={"log": "/ticket/clinfo-console.txt"})
    session = IncidentSession(request, incidents_dir=str(tmp_path / "incidents"))
    rb, step = _log_step(session.triage(lambda event: None))
    assert step.check.sources[:2] == ("tail -c 1M /ticket/clinfo-console.txt", "tail -c 1M /ticket/hipinfo-make.log")
    assert rb.diagnoses[0].diagnosis_id == "mixed-rocm-libraries"
