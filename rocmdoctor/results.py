"""Immutable value objects for everything a triage produces.

They are plain frozen dataclasses so they can be logged, journaled, replayed
and compared; `to_dict()` gives the JSON form used by every output.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from rocmdoctor.status import State


def to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, State):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


@dataclass(frozen=True)
class CommandResult:
    """What one command sent to a node returned (invoke's `Result`, smaller)."""

    command: str
    host: str
    exit_status: int
    stdout: str = ""
    stderr: str = ""
    duration_ms: int = 0
    timed_out: bool = False
    dry_run: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.timed_out

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)


@dataclass(frozen=True)
class Evidence:
    """The raw outcome of one gather on one node.

    status: ok | missing | denied | timeout | error
    value: file -> str; glob -> {path: str}; stat -> {path: {type, mode, uid, gid[, mtime, major, minor]}};
           command -> {rc, stdout, stderr, duration_ms}; env -> str
    """

    key: str
    kind: str
    source: str
    status: str
    value: Any = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)


@dataclass(frozen=True)
class CheckResult:
    check_id: str
    title: str
    state: State
    message: str
    evidence: tuple[str, ...] = ()
    outputs: dict[str, Any] = field(default_factory=dict)
    sources: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)


@dataclass(frozen=True)
class RemediationPlan:
    """A remediation resolved for one node: the exact command that would run."""

    runbook_id: str
    remediation_id: str
    title: str
    command: str
    risk: str
    confirm: str
    verify_check: str | None
    rollback: str
    timeout: float
    sudo: bool

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)


@dataclass(frozen=True)
class Diagnosis:
    runbook_id: str
    diagnosis_id: str
    step_id: str
    cause: str
    confidence: str
    evidence: tuple[str, ...]
    remediations: tuple[RemediationPlan, ...] = ()
    follow_up: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)


@dataclass(frozen=True)
class StepResult:
    runbook_id: str
    step_id: str
    title: str
    check: CheckResult | None
    skipped_because: str = ""

    @property
    def state(self) -> State:
        return self.check.state if self.check else State.SKIPPED

    def to_dict(self) -> dict[str, Any]:
        d = to_jsonable(self)
        d["state"] = self.state.value
        return d


@dataclass(frozen=True)
class OpenCause:
    """A cause the evidence could neither confirm nor rule out, and how to settle it on the node."""

    diagnosis_id: str
    step_id: str
    settle: str

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)


@dataclass(frozen=True)
class RunbookReport:
    runbook_id: str
    title: str
    steps: tuple[StepResult, ...]
    diagnoses: tuple[Diagnosis, ...]
    #: when no diagnosis was made and steps could not be evaluated: the causes still open, in the
    #: runbook's order, each with the command that settles it
    open_causes: tuple["OpenCause", ...] = ()
    #: when every step passed: the runbook's next steps for a symptom its checks cannot see
    when_clear: tuple[str, ...] = ()

    @property
    def state(self) -> State:
        from rocmdoctor.status import worst

        return worst([s.state for s in self.steps])

    def to_dict(self) -> dict[str, Any]:
        d = to_jsonable(self)
        d["state"] = self.state.value
        d["steps"] = [s.to_dict() for s in self.steps]
        return d
