"""Helpers the runbook tests share: triage a simulated node, then look up its
steps, diagnoses and evidence by id (one runbook per report)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rocmdoctor.transports.audit import AuditLog
from rocmdoctor.engine.compiler import Plan
from rocmdoctor.results import Diagnosis, RunbookReport, StepResult
from rocmdoctor.simnode.node import SimNode, sim_transport
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.engine.triage import Decision, TriageReport, run_triage


def triage_node(node: SimNode, directory: Path, plan: Plan, *, fix: bool = False, approve: bool = True,
                dry_run: bool = False) -> tuple[Path, TriageReport]:
    """Materialize `node` under `directory`, triage it (approving or declining every fix)."""
    root = node.materialize(directory / "node")
    transport = sim_transport(root, audit=AuditLog(directory / "audit.log"), dry_run=dry_run)

    def approver(plan: Any, host: str) -> Decision:
        return Decision(approve, "tester", "" if approve else "declined")

    with transport:
        return root, run_triage(transport, plan, fix=fix, approver=approver)


def triage_runbook(runbook: str, target: str = "", bundle: str | None = None,
                   **vars: str) -> tuple[RunbookReport, dict[str, StepResult]]:
    """Triage a `demo:` target or a bundle with one runbook; its report and its steps by id."""
    report = triage_target(TriageRequest(target=target, bundle=bundle, runbooks=(runbook,), vars=vars))
    return report.runbooks[0], steps(report)


def steps(report: TriageReport) -> dict[str, StepResult]:
    (rb,) = report.runbooks
    return {s.step_id: s for s in rb.steps}


def diagnoses(report: TriageReport) -> dict[str, Diagnosis]:
    (rb,) = report.runbooks
    return {d.diagnosis_id: d for d in rb.diagnoses}


def evidence(step: StepResult) -> str:
    assert step.check is not None, f"step {step.step_id} was skipped: {step.skipped_because}"
    return "\n".join(step.check.evidence)


def triage_bundle_step(directory: Path, files: dict[str, str], runbook: str, step_id: str,
                       vars: dict[str, Any] | None = None) -> tuple[RunbookReport, StepResult]:
    """Write a ticket's bundle (`{"commands/rocminfo/stdout": text, "files/opt/rocm/.info/version": "6.4.1"}`,
    paths as docs/capture-format.md gives them) under `directory`, triage it with one runbook and return
    that runbook's report and one of its steps."""
    for rel, text in files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    report = triage_target(TriageRequest(target="", bundle=str(directory), runbooks=(runbook,), vars=dict(vars or {})))
    rb = report.runbooks[0]
    return rb, next(s for s in rb.steps if s.step_id == step_id)
