"""`--format json`: one document per sweep; schema `rocmdoctor.sweep/1` in docs/sweeps.md."""

from __future__ import annotations

import json
from typing import Any

from rocmdoctor import __version__

SCHEMA = "rocmdoctor.sweep/1"


def host_doc(h: Any) -> dict[str, Any]:
    diagnoses = []
    if h.report is not None:
        diagnoses = [{"runbook": d.runbook_id, "id": d.diagnosis_id, "cause": d.cause, "confidence": d.confidence,
                      "remediations": [p.remediation_id for p in d.remediations]}
                     for rb in h.report.runbooks for d in rb.diagnoses]
    return {
        "host": h.host, "state": h.state.value, "exit_status": int(h.exit_status),
        "reachable": h.reachable, "reason": h.reason, "message": h.message,
        "duration_ms": h.duration_ms, "round_trips": h.round_trips, "groups": list(h.groups),
        "runbooks": {rb: s.value for rb, s in h.runbooks},
        "checks": [{"runbook": c.runbook, "step": c.step, "check": c.check, "state": c.state.value,
                    "message": c.message} for c in h.checks],
        "diagnoses": diagnoses,
        "fingerprint": dict(h.report.fingerprint) if h.report is not None else {},
    }


def sweep_doc(sweep: Any) -> dict[str, Any]:
    return {
        "schema": SCHEMA, "rocmdoctor_version": __version__, "started_at": sweep.started_at,
        "duration_s": sweep.duration_s, "fanout": sweep.fanout, "timeout_s": sweep.timeout,
        "deadline_s": sweep.deadline, "runbooks": list(sweep.runbooks), "state": sweep.state.value,
        "exit_status": int(sweep.exit_status), "counts": sweep.counts(), "unreachable": sweep.reasons(),
        "ssh_retries": sweep.ssh_retries, "hosts": [host_doc(h) for h in sweep.worst_first()],
        "cohorts": [c.to_dict() for c in sweep.cohorts],
        **_changes(sweep),
    }


def _changes(sweep: Any) -> dict[str, Any]:
    out = {"changes": sweep.changes.to_dict()} if sweep.changes is not None else {}
    if sweep.gate is not None:
        out["gate"] = sweep.gate.to_dict()
        out["exit_status"] = int(sweep.exit_status)
    return out


def render_json(sweep: Any, doc: dict[str, Any] | None = None) -> str:
    """The sweep as JSON; `doc` is this sweep's `sweep_doc` when the caller built it already (for
    the history), so 10,000 host documents are not built twice: only the changes are added."""
    return json.dumps(sweep_doc(sweep) if doc is None else {**doc, **_changes(sweep)}, indent=2) + "\n"
