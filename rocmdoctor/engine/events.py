"""The event stream of a triage: one stream feeds the table, JSON, the TUI,
the incident journal and the postmortem.

Each event is a small frozen dataclass; `to_dict()` adds `"event": <kind>` so a
JSON Lines journal can be read back with `event_from_dict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Callable, ClassVar

from rocmdoctor.results import (
    CheckResult,
    CommandResult,
    Diagnosis,
    RemediationPlan,
    StepResult,
    to_jsonable,
)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True, kw_only=True)
class Event:
    kind: ClassVar[str] = "event"
    host: str
    time: str = field(default_factory=utc_now)

    def to_dict(self) -> dict[str, Any]:
        d = {"event": self.kind}
        d.update(to_jsonable(self))
        return d


@dataclass(frozen=True, kw_only=True)
class TriageStarted(Event):
    kind: ClassVar[str] = "triage_started"
    target: str
    runbooks: tuple[str, ...]
    version: str
    runbook_versions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class EvidenceCollected(Event):
    kind: ClassVar[str] = "evidence_collected"
    gathers: int
    unavailable: int
    duration_ms: int
    round_trips: int


@dataclass(frozen=True, kw_only=True)
class StepStarted(Event):
    kind: ClassVar[str] = "step_started"
    runbook_id: str
    step_id: str
    title: str


@dataclass(frozen=True, kw_only=True)
class StepFinished(Event):
    kind: ClassVar[str] = "step_finished"
    step: StepResult


@dataclass(frozen=True, kw_only=True)
class DiagnosisMade(Event):
    kind: ClassVar[str] = "diagnosis"
    diagnosis: Diagnosis


@dataclass(frozen=True, kw_only=True)
class RemediationDecided(Event):
    kind: ClassVar[str] = "remediation_decided"
    plan: RemediationPlan
    approved: bool
    by: str
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class RemediationRan(Event):
    kind: ClassVar[str] = "remediation_ran"
    plan: RemediationPlan
    result: CommandResult


@dataclass(frozen=True, kw_only=True)
class RemediationVerified(Event):
    kind: ClassVar[str] = "remediation_verified"
    plan: RemediationPlan
    check: CheckResult
    fixed: bool


@dataclass(frozen=True, kw_only=True)
class NoteAdded(Event):
    kind: ClassVar[str] = "note"
    text: str
    author: str


@dataclass(frozen=True, kw_only=True)
class TriageFinished(Event):
    kind: ClassVar[str] = "triage_finished"
    state: str
    exit_status: int
    duration_ms: int


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (TriageStarted, EvidenceCollected, StepStarted, StepFinished, DiagnosisMade,
                RemediationDecided, RemediationRan, RemediationVerified, NoteAdded, TriageFinished)
}

EventSink = Callable[[Event], None]


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from its journal line (nested value objects included)."""
    from rocmdoctor import results as r

    cls = EVENT_TYPES[data["event"]]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        v = data[f.name]
        if f.name == "step":
            chk = v.get("check")
            v = r.StepResult(v["runbook_id"], v["step_id"], v["title"],
                             _check(chk) if chk else None, v.get("skipped_because", ""))
        elif f.name == "check":
            v = _check(v)
        elif f.name == "plan":
            v = r.RemediationPlan(**v)
        elif f.name == "result":
            v = r.CommandResult(**v)
        elif f.name == "diagnosis":
            v = r.Diagnosis(**{**v, "evidence": tuple(v["evidence"]), "follow_up": tuple(v["follow_up"]),
                               "remediations": tuple(r.RemediationPlan(**p) for p in v["remediations"])})
        elif f.name == "runbooks":
            v = tuple(v)
        kwargs[f.name] = v
    return cls(**kwargs)


def _check(d: dict[str, Any]) -> CheckResult:
    from rocmdoctor.status import State

    return CheckResult(d["check_id"], d["title"], State(d["state"]), d["message"],
                       tuple(d.get("evidence", ())), d.get("outputs", {}), tuple(d.get("sources", ())))
