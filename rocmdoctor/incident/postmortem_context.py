"""What a postmortem template sees: the journal folded into plain data.

Kept apart from rendering so a site template's authors can read one place
for every name they may use, and so tests can check the facts (root cause,
fix, times) without parsing Markdown.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rocmdoctor.engine.events import (
    DiagnosisMade,
    EvidenceCollected,
    NoteAdded,
    RemediationDecided,
    RemediationRan,
    RemediationVerified,
    StepFinished,
    TriageFinished,
    TriageStarted,
)
from rocmdoctor.incident.journal import JournalContents
from rocmdoctor.status import State, worst

_CONFIDENCE = {"high": 0, "medium": 1, "low": 2}
_TAIL_LINES = 12


def _validation_verdict(contents: JournalContents) -> str:
    """A `validate` incident's title: the last verdict note's first line (its state and message)."""
    notes = [e for e in contents.events if getattr(e, "kind", "") == "note" and getattr(e, "author", "") == "rocmdoctor validate"]
    first = notes[-1].text.splitlines()[0] if notes else ""
    return first if len(first) <= 120 else first[:119] + "…"


def _seconds(a: str, b: str) -> float | None:
    try:
        return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()
    except (TypeError, ValueError):
        return None


def human_duration(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    s = int(round(seconds))
    if s < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s} s"
    h, m = divmod(m, 60)
    return f"{h} h {m} min"


def headline(cause: str, limit: int = 90) -> str:
    """A title from a diagnosis: its first clause, short enough for a heading."""
    text = " ".join(cause.split())
    for stop in (". ", ": ", "; "):
        if stop in text:
            text = text.split(stop, 1)[0]
    text = text.rstrip(".")
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _tail(text: str) -> str:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= _TAIL_LINES:
        return "\n".join(lines)
    return "\n".join([f"[... {len(lines) - _TAIL_LINES} earlier lines]", *lines[-_TAIL_LINES:]])


def _state(s: State | str) -> dict[str, str]:
    st = State(s)
    return {"value": st.value, "label": st.value.upper(), "symbol": st.symbol}


def _step(e: StepFinished) -> dict[str, Any]:
    c = e.step.check
    return {"time": e.time, "host": e.host, "runbook_id": e.step.runbook_id, "step_id": e.step.step_id,
            "check_id": c.check_id if c else "", "title": c.title if c else e.step.title,
            "state": _state(e.step.state), "message": c.message if c else e.step.skipped_because,
            "evidence": list(c.evidence) if c else [], "outputs": dict(c.outputs) if c else {}}


def _timeline_text(e: Any) -> str | None:
    if isinstance(e, TriageStarted):
        return f"Triage started on {e.host}: runbooks {', '.join(e.runbooks) or 'none'} (rocmdoctor {e.version})"
    if isinstance(e, EvidenceCollected):
        trips = "one round trip" if e.round_trips == 1 else f"{e.round_trips} round trips"
        return (f"Evidence collected: {e.gathers} gathers in {trips}, {e.unavailable} unavailable, "
                f"{e.duration_ms} ms")
    if isinstance(e, StepFinished):
        if e.step.state in (State.PASS, State.SKIPPED) or e.step.check is None:
            return None
        c = e.step.check
        return f"{c.state.symbol} {c.state.value.upper()} {c.title}: {c.message}"
    if isinstance(e, DiagnosisMade):
        return f"Diagnosis ({e.diagnosis.confidence} confidence): {e.diagnosis.cause}"
    if isinstance(e, RemediationDecided):
        verb = "approved" if e.approved else "declined"
        why = f" ({e.reason})" if e.reason else ""
        return f"Remediation '{e.plan.title}' {verb} by {e.by}{why}"
    if isinstance(e, RemediationRan):
        r = e.result
        status = "timed out" if r.timed_out else f"exit {r.exit_status}"
        return f"Ran `{r.command}`: {status} in {r.duration_ms} ms"
    if isinstance(e, RemediationVerified):
        verdict = "fixed" if e.fixed else "NOT fixed"
        return f"Verify {e.check.check_id}: {e.check.state.symbol} {e.check.state.value.upper()} {e.check.message} ({verdict})"
    if isinstance(e, NoteAdded):
        return f"Note by {e.author}: {e.text}"
    if isinstance(e, TriageFinished):
        return f"Triage finished: {e.state.upper()} (exit {e.exit_status}) after {e.duration_ms} ms"
    return None


def _gpus(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """GPU counts per host as the checks saw them (the PCI count is the hardware's word)."""
    out: dict[str, dict[str, Any]] = {}
    for s in steps:
        o = s["outputs"]
        if isinstance(o.get("count"), int) and isinstance(o.get("bdfs"), list):
            out[s["host"]] = {"host": s["host"], "count": s["outputs"]["count"],
                              "expected": s["outputs"].get("expected"),
                              "bdfs": list(s["outputs"].get("bdfs") or []), "source": s["check_id"]}
    return list(out.values())


def build_context(contents: JournalContents) -> dict[str, Any]:
    events = contents.events
    h = contents.header
    steps: list[dict[str, Any]] = []
    latest: dict[tuple[str, str], State] = {}
    diagnoses: dict[tuple[str, str, str], dict[str, Any]] = {}
    actions: list[dict[str, Any]] = []
    open_actions: dict[tuple[str, str, str], dict[str, Any]] = {}
    timeline: list[dict[str, str]] = []
    notes: list[dict[str, str]] = []
    runbook_versions: dict[str, str] = {}
    versions: list[str] = []
    for e in events:
        text = _timeline_text(e)
        if text is not None:
            timeline.append({"time": e.time, "host": e.host, "kind": e.kind, "text": text})
        if isinstance(e, TriageStarted):
            runbook_versions.update(e.runbook_versions)
            if e.version not in versions:
                versions.append(e.version)
        elif isinstance(e, StepFinished):
            steps.append(_step(e))
            if e.step.check:
                latest[(e.host, e.step.check.check_id)] = e.step.state
        elif isinstance(e, DiagnosisMade):
            d = e.diagnosis
            key = (e.host, d.runbook_id, d.diagnosis_id)
            if key not in diagnoses:
                diagnoses[key] = {"time": e.time, "host": e.host, "runbook_id": d.runbook_id,
                                  "diagnosis_id": d.diagnosis_id, "step_id": d.step_id, "cause": d.cause,
                                  "confidence": d.confidence, "evidence": list(d.evidence),
                                  "follow_up": list(d.follow_up),
                                  "remediations": [p.title for p in d.remediations], "fixed_by": None}
        elif isinstance(e, RemediationDecided):
            a = {"time": e.time, "host": e.host, "title": e.plan.title, "command": e.plan.command,
                 "runbook_id": e.plan.runbook_id, "remediation_id": e.plan.remediation_id,
                 "risk": e.plan.risk, "rollback": e.plan.rollback, "approved": e.approved, "by": e.by,
                 "reason": e.reason, "ran": None, "verify": None}
            actions.append(a)
            open_actions[(e.host, e.plan.runbook_id, e.plan.command)] = a
        elif isinstance(e, RemediationRan):
            a = open_actions.get((e.host, e.plan.runbook_id, e.plan.command))
            if a is not None:
                r = e.result
                a["ran"] = {"time": e.time, "exit_status": r.exit_status, "duration_ms": r.duration_ms,
                            "timed_out": r.timed_out, "dry_run": r.dry_run, "ok": r.ok,
                            "stdout": _tail(r.stdout), "stderr": _tail(r.stderr)}
        elif isinstance(e, RemediationVerified):
            latest[(e.host, e.check.check_id)] = e.check.state
            a = open_actions.get((e.host, e.plan.runbook_id, e.plan.command))
            if a is not None:
                a["verify"] = {"time": e.time, "check_id": e.check.check_id, "state": _state(e.check.state),
                               "message": e.check.message, "evidence": list(e.check.evidence), "fixed": e.fixed}
                if e.fixed:
                    for d in diagnoses.values():
                        if d["host"] == e.host and e.plan.title in d["remediations"] and not d["fixed_by"]:
                            d["fixed_by"] = {"title": e.plan.title, "command": e.plan.command, "time": e.time}
        elif isinstance(e, NoteAdded):
            notes.append({"time": e.time, "host": e.host, "author": e.author, "text": e.text})

    ranked = sorted(diagnoses.values(), key=lambda d: (_CONFIDENCE.get(d["confidence"], 3), d["time"]))
    root_cause = ranked[0] if ranked else None
    explained = {(d["host"], d["runbook_id"], d["step_id"]) for d in ranked}
    problems = [s for s in steps if s["state"]["value"] in ("fail", "warn", "unknown")]
    first_problem = problems[0] if problems else None
    findings = [s for s in _dedupe(problems) if (s["host"], s["runbook_id"], s["step_id"]) not in explained]
    final = worst(list(latest.values())) if latest else State.UNKNOWN
    initial = worst([State(s["state"]["value"]) for s in steps]) if steps else State.UNKNOWN
    action_items: list[dict[str, str]] = []
    for d in ranked:
        for f in d["follow_up"]:
            if all(f != x["text"] for x in action_items):
                action_items.append({"text": f, "source": f"{d['runbook_id']}/{d['diagnosis_id']}"})
    ended = contents.last_time
    first_problem_time = first_problem["time"] if first_problem else None
    fixed_time = next((a["verify"]["time"] for a in actions if a["verify"] and a["verify"]["fixed"]), None)
    return {
        "title": f"{', '.join(contents.hosts)}: " + (headline(root_cause["cause"]) if root_cause else
                                                    _validation_verdict(contents) or "triage"),
        "incident": {"id": h.id, "target": h.target, "hosts": contents.hosts, "user": h.user,
                     "started": h.started, "ended": ended,
                     "duration": human_duration(_seconds(h.started, ended)),
                     "rocmdoctor_version": h.rocmdoctor_version, "versions": versions or [h.rocmdoctor_version],
                     "front_end": h.front_end, "command": h.command, "runbook_versions": runbook_versions},
        "initial_state": _state(initial),
        "final_state": _state(final),
        "gpus": _gpus(steps),
        "detection": {"first_problem": first_problem,
                      "time_to_fix": human_duration(_seconds(first_problem_time, fixed_time))
                      if first_problem_time and fixed_time else None,
                      "fixed_at": fixed_time},
        "timeline": timeline,
        "root_cause": root_cause,
        "contributing": ranked[1:],
        "findings": findings,
        "actions": actions,
        "action_items": action_items,
        "notes": notes,
        "passed": [s for s in _dedupe(steps) if s["state"]["value"] == "pass"],
        "journal": {"path": str(contents.path), "events": len(events), "problems": list(contents.problems)},
    }


def _dedupe(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first result of each step per host (a re-run repeats them)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for s in steps:
        key = (s["host"], s["runbook_id"], s["step_id"])
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out
