"""What the TUI shows, folded from the event stream (no Textual here).

The tree and the detail pane read this model; events change it. Keeping it
free of widgets lets the same fold be tested without a terminal, and means a
late or repeated event (a re-run) just overwrites the step it names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocmdoctor.engine.compiler import Plan
from rocmdoctor.engine.events import (
    DiagnosisMade,
    Event,
    EvidenceCollected,
    NoteAdded,
    RemediationDecided,
    RemediationRan,
    RemediationVerified,
    StepFinished,
    TriageFinished,
    TriageStarted,
)
from rocmdoctor.results import CheckResult, CommandResult, Diagnosis, RemediationPlan, StepResult
from rocmdoctor.status import State, worst

RUNNING = "running"
PENDING = "pending"


@dataclass
class FixView:
    plan: RemediationPlan
    status: str = "proposed"          # proposed | confirming | running | declined | ran
    decided_by: str = ""
    reason: str = ""
    result: CommandResult | None = None
    verify: CheckResult | None = None


@dataclass
class StepView:
    runbook_id: str
    step_id: str
    title: str
    check_id: str
    description: str
    status: str = PENDING             # pending | running | done
    result: StepResult | None = None
    diagnoses: list[Diagnosis] = field(default_factory=list)
    verified: CheckResult | None = None   # the verify check after a remediation, newer than `result`

    @property
    def state(self) -> State | None:
        if self.status != "done" or self.result is None:
            return None
        if self.verified is not None:
            return self.verified.state
        return self.result.state


@dataclass
class RunbookView:
    id: str
    title: str
    summary: str
    steps: dict[str, StepView]

    @property
    def state(self) -> State | None:
        states = [s.state for s in self.steps.values()]
        if any(s is None for s in states):
            return None
        return worst([s for s in states if s is not None])


class TriageModel:
    def __init__(self, plan: Plan, host: str) -> None:
        self.host = host
        self.phase = "connecting"        # connecting | collecting | done | error
        self.error = ""
        self.collected: EvidenceCollected | None = None
        self.notes: list[NoteAdded] = []
        self.fixes: dict[tuple[str, str], FixView] = {}
        self.runbooks: dict[str, RunbookView] = {}
        for rb in plan.runbooks:
            steps = {}
            for s in rb.steps:
                check = plan.checks.get(s.check)
                steps[s.id] = StepView(rb.id, s.id, s.title or (check.title if check else s.check), s.check,
                                       check.description if check else "")
            self.runbooks[rb.id] = RunbookView(rb.id, rb.title, rb.summary, steps)

    @property
    def state(self) -> State | None:
        states = [rb.state for rb in self.runbooks.values()]
        if any(s is None for s in states):
            return None
        return worst([s for s in states if s is not None])

    def fixes_for(self, runbook_id: str, step_id: str | None = None) -> list[FixView]:
        out = []
        for rb in self.runbooks.values():
            if rb.id != runbook_id:
                continue
            for s in rb.steps.values():
                if step_id is not None and s.step_id != step_id:
                    continue
                for d in s.diagnoses:
                    for p in d.remediations:
                        fv = self.fixes.get((p.runbook_id, p.command))
                        if fv is not None and fv not in out:
                            out.append(fv)
        return out

    def start(self, runbook_ids: tuple[str, ...] = ()) -> None:
        """A (re-)run begins: its steps show as running until their results arrive."""
        for rb in self.runbooks.values():
            if runbook_ids and rb.id not in runbook_ids:
                continue
            for s in rb.steps.values():
                s.status, s.result, s.verified, s.diagnoses = RUNNING, None, None, []
        self.phase = "collecting"

    def apply(self, event: Event) -> list[tuple[str, str | None]]:
        """Fold one event in; returns the (runbook, step) tree nodes whose label changed."""
        changed: list[tuple[str, str | None]] = []
        if isinstance(event, TriageStarted):
            self.host = event.host
            self.start(event.runbooks)
            changed = [(rb, s) for rb in event.runbooks if rb in self.runbooks for s in self.runbooks[rb].steps]
        elif isinstance(event, EvidenceCollected):
            self.collected = event
        elif isinstance(event, StepFinished):
            view = self._step(event.step.runbook_id, event.step.step_id)
            if view is not None:
                view.status, view.result = "done", event.step
                changed.append((view.runbook_id, view.step_id))
        elif isinstance(event, DiagnosisMade):
            d = event.diagnosis
            view = self._step(d.runbook_id, d.step_id)
            if view is not None:
                view.diagnoses.append(d)
                changed.append((view.runbook_id, view.step_id))
            for p in d.remediations:
                self.fixes.setdefault((p.runbook_id, p.command), FixView(p))
        elif isinstance(event, RemediationDecided):
            fv = self.fixes.setdefault((event.plan.runbook_id, event.plan.command), FixView(event.plan))
            fv.status = "running" if event.approved else "declined"
            fv.decided_by, fv.reason = event.by, event.reason
            changed += self._steps_of_fix(event.plan)
        elif isinstance(event, RemediationRan):
            fv = self.fixes.setdefault((event.plan.runbook_id, event.plan.command), FixView(event.plan))
            fv.status, fv.result = "ran", event.result
            changed += self._steps_of_fix(event.plan)
        elif isinstance(event, RemediationVerified):
            fv = self.fixes.setdefault((event.plan.runbook_id, event.plan.command), FixView(event.plan))
            fv.verify = event.check
            for rb in self.runbooks.values():
                for s in rb.steps.values():
                    if s.check_id == event.check.check_id and s.status == "done":
                        s.verified = event.check
                        changed.append((rb.id, s.step_id))
        elif isinstance(event, NoteAdded):
            self.notes.append(event)
        elif isinstance(event, TriageFinished):
            self.phase = "done"
        return changed

    def _step(self, runbook_id: str, step_id: str) -> StepView | None:
        rb = self.runbooks.get(runbook_id)
        return rb.steps.get(step_id) if rb else None

    def _steps_of_fix(self, plan: RemediationPlan) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        for rb in self.runbooks.values():
            for s in rb.steps.values():
                if any(p.command == plan.command and p.runbook_id == plan.runbook_id
                       for d in s.diagnoses for p in d.remediations):
                    out.append((rb.id, s.step_id))
        return out
