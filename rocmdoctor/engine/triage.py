"""The triage core: one function every front end calls (CLI, TUI, sweep).

collect evidence once -> evaluate runbooks -> diagnoses -> (optionally)
approved remediations, each followed by its verify check. Every step is
published as an event; the returned report is the same data, summarised.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from rocmdoctor import __version__
from rocmdoctor.engine.compiler import Plan
from rocmdoctor.engine.readings import ReadingStore
from rocmdoctor.engine.events import (
    DiagnosisMade,
    EventSink,
    EvidenceCollected,
    RemediationDecided,
    RemediationRan,
    RemediationVerified,
    StepFinished,
    TriageFinished,
    TriageStarted,
)
from rocmdoctor.results import (
    CheckResult,
    CommandResult,
    Evidence,
    RemediationPlan,
    RunbookReport,
)
from rocmdoctor.status import ExitStatus, State, exit_status_for, worst
from rocmdoctor.transports.base import Transport


@dataclass(frozen=True)
class Decision:
    approved: bool
    by: str
    reason: str = ""


Approver = Callable[[RemediationPlan, str], Decision]


def decline_all(plan: RemediationPlan, host: str) -> Decision:
    return Decision(False, "rocmdoctor", "no approver: remediations are only offered with --fix")


@dataclass(frozen=True)
class RemediationOutcome:
    plan: RemediationPlan
    decision: Decision
    result: CommandResult | None = None
    verify: CheckResult | None = None

    @property
    def fixed(self) -> bool:
        return self.verify is not None and self.verify.state == State.PASS


@dataclass(frozen=True)
class TriageReport:
    host: str
    target: str
    duration_ms: int
    round_trips: int
    runbooks: tuple[RunbookReport, ...]
    remediations: tuple[RemediationOutcome, ...] = ()
    evidence: dict[str, Evidence] = field(default_factory=dict)
    #: the runbooks evaluated again after remediations ran (None when nothing ran)
    after: tuple[RunbookReport, ...] | None = None
    #: what the node runs (kernel, OS, amdgpu, ROCm, GPU model/count, VBIOS, DKMS): node.fingerprint
    fingerprint: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> State:
        """Worst state of the node as it is now: after remediations, the re-triage decides."""
        final = self.after if self.after is not None else self.runbooks
        return worst([rb.state for rb in final])

    @property
    def exit_status(self) -> ExitStatus:
        return exit_status_for(self.state)

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host, "target": self.target, "state": self.state.value,
            "exit_status": int(self.exit_status), "duration_ms": self.duration_ms,
            "round_trips": self.round_trips, "rocmdoctor_version": __version__, "fingerprint": self.fingerprint,
            "runbooks": [rb.to_dict() for rb in self.runbooks],
            "after_remediation": [rb.to_dict() for rb in self.after] if self.after is not None else None,
            "remediations": [
                {"plan": o.plan.to_dict(), "approved": o.decision.approved, "by": o.decision.by,
                 "reason": o.decision.reason, "result": o.result.to_dict() if o.result else None,
                 "verify": o.verify.to_dict() if o.verify else None, "fixed": o.fixed}
                for o in self.remediations
            ],
        }


def _noop(event: object) -> None:
    pass


def run_triage(
    transport: Transport,
    plan: Plan,
    *,
    target: str = "",
    fix: bool = False,
    approver: Approver = decline_all,
    on_event: EventSink = _noop,
    evidence: dict[str, Evidence] | None = None,
    preload: tuple[str, ...] = (),
    readings: ReadingStore | None = None,
) -> TriageReport:
    """Triage one node. `evidence` may be passed in (already collected, or replayed);
    `preload` names modules the caller needs afterwards, imported during the probe."""
    start = time.monotonic()
    host = transport.host
    on_event(TriageStarted(host=host, target=target or host, version=__version__,
                           runbooks=tuple(rb.id for rb in plan.runbooks),
                           runbook_versions={rb.id: rb.version for rb in plan.runbooks}))
    if evidence is None:
        t0 = time.monotonic()
        warm = import_in_background(("rocmdoctor.engine.evaluate", *preload), plan.parser_ids())
        evidence = transport.collect(plan.gathers_from(transport.replays))
        warm.join()
        on_event(EvidenceCollected(host=host, gathers=len(evidence),
                                   unavailable=sum(1 for e in evidence.values() if not e.ok),
                                   duration_ms=int((time.monotonic() - t0) * 1000),
                                   round_trips=transport.round_trips))
    reports = evaluate_plan(plan, evidence, host, on_event, readings)
    outcomes: list[RemediationOutcome] = []
    after = None
    if fix:
        outcomes = remediate(transport, plan, reports, approver, on_event)
        if any(o.result is not None and not o.result.dry_run for o in outcomes):
            # Something changed on the node: triage it again (one more round trip), so the
            # verdict and exit status describe the node as it is now, including the steps
            # the fault had gated off.
            evidence = transport.collect(list(plan.gathers))
            after = tuple(evaluate_plan(plan, evidence, host, on_event, readings))
    report = TriageReport(host=host, target=target or host, duration_ms=int((time.monotonic() - start) * 1000),
                          round_trips=transport.round_trips, runbooks=tuple(reports),
                          remediations=tuple(outcomes), evidence=evidence, after=after,
                          fingerprint=node_fingerprint(plan, evidence))
    on_event(TriageFinished(host=host, state=report.state.value, exit_status=int(report.exit_status),
                            duration_ms=report.duration_ms))
    return report


def node_fingerprint(plan: Plan, evidence: dict[str, Evidence]) -> dict[str, Any]:
    """The plan's fingerprint check over this evidence ({} when the catalog has none or it fails)."""
    if not plan.fingerprint or plan.fingerprint not in plan.checks:
        return {}
    from rocmdoctor.engine.evaluate import evaluate_check

    result = evaluate_check(plan.checks[plan.fingerprint], evidence, plan.vars)
    fp = result.outputs.get("fingerprint")
    return dict(fp) if isinstance(fp, dict) else {}


def import_in_background(modules: tuple[str, ...], parsers: list[str]) -> threading.Thread:
    """Import what evaluation needs (parsers with their regexes, the expression
    runtime) in a thread while the node runs the probe: the probe is a subprocess
    or a network round trip, so on a 2-core box the two overlap and a health check
    costs about max(probe, imports) instead of their sum."""

    def load() -> None:
        import importlib

        try:
            for name in modules:
                importlib.import_module(name)
            from rocmdoctor.parsers import load_parsers

            load_parsers(parsers)
        except Exception:  # noqa: BLE001 - the main thread imports again and reports
            pass

    thread = threading.Thread(target=load, name="rocmdoctor-preload", daemon=True)
    thread.start()
    return thread


def evaluate_plan(plan: Plan, evidence: dict[str, Evidence], host: str,
                  on_event: EventSink = _noop, readings: ReadingStore | None = None) -> list[RunbookReport]:
    """`readings`: where checks that `remember` outputs find the last run's values on this
    host and leave this run's (None: no memory, e.g. a replayed bundle)."""
    from rocmdoctor.parsers import parse_once

    with parse_once():
        return _evaluate_plan(plan, evidence, host, on_event, readings)


def _evaluate_plan(plan: Plan, evidence: dict[str, Evidence], host: str,
                   on_event: EventSink, readings: ReadingStore | None) -> list[RunbookReport]:
    from rocmdoctor.engine.evaluate import evaluate_check, evaluate_runbook

    cache: dict[str, CheckResult] = {}
    history = readings.load(host) if readings is not None and plan.remembers() else {}

    def check_result(check_id: str) -> CheckResult:
        if check_id not in cache:
            cache[check_id] = evaluate_check(plan.checks[check_id], evidence, plan.vars, history.get(check_id))
        return cache[check_id]

    from rocmdoctor.engine.signatures import fold_matches, match_logs

    matches, logs = match_logs(plan, evidence)
    routed = {m.runbook for m in matches}
    reports = []
    for rb in (*plan.runbooks, *(r for r in plan.standby if r.id in routed)):
        steps, diagnoses = evaluate_runbook(rb, check_result, plan.vars, host,
                                            on_step=lambda s: on_event(StepFinished(host=host, step=s)))
        report = RunbookReport(rb.id, rb.title, steps, diagnoses)
        if logs or any(m.runbook == rb.id for m in matches):
            report = fold_matches(report, matches, logs, host, frozenset(d.id for d in rb.diagnoses if d.context))
            on_event(StepFinished(host=host, step=report.steps[0]))
        if not report.diagnoses:
            report = _with_open_causes(rb, report)
        if rb.when_clear and report.state == State.PASS:
            report = replace(report, when_clear=tuple(t.replace("{host}", host) for t in rb.when_clear))
        for d in report.diagnoses:
            on_event(DiagnosisMade(host=host, diagnosis=d))
        reports.append(report)
    if readings is not None and plan.remembers():
        readings.save(host, {cid: {name: r.outputs.get(name) for name in plan.checks[cid].remember}
                             for cid, r in cache.items()
                             if plan.checks[cid].remember and r.state not in (State.UNKNOWN, State.SKIPPED)})
    return reports


def _with_open_causes(rb: Any, report: RunbookReport) -> RunbookReport:
    """The causes whose deciding step could not be evaluated, in the runbook's order, with the one
    command that settles each: what to run next instead of a bare UNKNOWN. Where a symptom line
    (a signature's `leaves_open`: HIP found no GPU) failed the runbook, the causes that line leaves
    open, likeliest first, except those whose step ruled them out (passed)."""
    from rocmdoctor.engine.signatures import left_open
    from rocmdoctor.results import OpenCause

    by_id: dict[str, Any] = {}
    for d in rb.diagnoses:  # a cause declared on several steps: the first that has a settle command
        if d.settle:
            by_id.setdefault(d.id, d)
    states = {s.step_id: s.state for s in report.steps}
    chosen = [by_id[i] for i in left_open(report) if i in by_id and states.get(by_id[i].step) != State.PASS]
    if not chosen:  # no symptom line, or the node ruled out what it leaves open
        chosen = [d for d in rb.diagnoses if d.settle and states.get(d.step) == State.UNKNOWN]
    open_: dict[str, OpenCause] = {}          # one entry per command: causes may share one
    for d in chosen:
        open_.setdefault(d.settle, OpenCause(d.id, d.step, d.settle))
    return replace(report, open_causes=tuple(open_.values())) if open_ else report


def proposed_plans(reports: list[RunbookReport] | tuple[RunbookReport, ...]) -> list[RemediationPlan]:
    seen: dict[tuple[str, str], RemediationPlan] = {}
    for rb in reports:
        for d in rb.diagnoses:
            for p in d.remediations:
                seen.setdefault((p.runbook_id, p.command), p)
    return list(seen.values())


def remediate(transport: Transport, plan: Plan, reports: list[RunbookReport], approver: Approver,
              on_event: EventSink) -> list[RemediationOutcome]:
    """Offer each proposed remediation; run approved ones one by one, each verified."""
    return [apply_remediation(transport, plan, p, approver, on_event) for p in proposed_plans(reports)]


def apply_remediation(transport: Transport, plan: Plan, p: RemediationPlan, approver: Approver,
                      on_event: EventSink) -> RemediationOutcome:
    host = transport.host
    if transport.dry_run:
        decision = Decision(False, "rocmdoctor", "dry run: printed, not run")
    else:
        decision = approver(p, host)
    on_event(RemediationDecided(host=host, plan=p, approved=decision.approved, by=decision.by,
                                reason=decision.reason))
    if not decision.approved:
        return RemediationOutcome(p, decision)
    result = transport.run(p.command, timeout=p.timeout, mutating=True, sudo=p.sudo,
                           audit_note=f"remediation {p.runbook_id}/{p.remediation_id} approved by {decision.by}")
    on_event(RemediationRan(host=host, plan=p, result=result))
    verify = None
    if p.verify_check and not result.dry_run:
        from rocmdoctor.engine.evaluate import evaluate_check


        evidence = transport.collect(plan.gathers_for([p.verify_check]))
        verify = evaluate_check(plan.checks[p.verify_check], evidence, plan.vars)
        on_event(RemediationVerified(host=host, plan=p, check=verify, fixed=verify.state == State.PASS))
    return RemediationOutcome(p, decision, result, verify)


__all__ = ["run_triage", "TriageReport", "RemediationOutcome", "Decision", "Approver"]
