"""The real-incident corpus (tests/incidents/): load a case, triage its hand-written
bundle with every runbook, and judge the result against what the thread established.

Shared by the test (tests/test_incidents.py, which fails on a regression) and the
report (benchmarks/accuracy.py, which writes docs/accuracy.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2] / "tests" / "incidents"
SEVERITIES = ("critical", "warning", "ok")
VERDICTS = ("right", "wrong-cause", "missed", "false-critical", "benign-ok")


class CaseError(ValueError):
    """A case directory that does not follow tests/incidents/README.md."""


@dataclass(frozen=True)
class Case:
    case_id: str  # <runbook>/<short-id>
    path: Path
    runbook: str
    severity: str
    diagnoses: tuple[str, ...]
    vars: dict[str, Any] = field(default_factory=dict)
    urls: tuple[str, ...] = ()

    @property
    def benign(self) -> bool:
        return self.severity == "ok"


@dataclass(frozen=True)
class Outcome:
    case: Case
    verdict: str
    state: str  # the expected runbook's state
    overall: str  # the whole report's state
    first_diagnosis: str
    reason: str
    diagnoses: tuple[str, ...] = ()  # every diagnosis the expected runbook made, first first


def load_case(path: Path) -> Case:
    import yaml

    expect_file = path / "expect.yaml"
    case_md = path / "case.md"
    if not expect_file.is_file() or not case_md.is_file() or not (path / "bundle").is_dir():
        raise CaseError(f"{path}: needs case.md, expect.yaml and bundle/")
    data = yaml.safe_load(expect_file.read_text()) or {}
    unknown = set(data) - {"runbook", "severity", "diagnoses", "vars"}
    if unknown:
        raise CaseError(f"{expect_file}: unknown keys {sorted(unknown)}")
    severity = str(data.get("severity", ""))
    if severity not in SEVERITIES:
        raise CaseError(f"{expect_file}: severity must be one of {SEVERITIES}")
    diagnoses = tuple(str(d) for d in data.get("diagnoses") or ())
    if severity != "ok" and not diagnoses:
        raise CaseError(f"{expect_file}: a non-benign case names its accepted diagnosis ids")
    urls = tuple(re.findall(r"https?://[^\s)>\]]+", case_md.read_text()))
    if not urls:
        raise CaseError(f"{case_md}: no URL of the public thread")
    return Case(case_id=f"{path.parent.name}/{path.name}", path=path, runbook=str(data.get("runbook", "")),
                severity=severity, diagnoses=diagnoses, vars=dict(data.get("vars") or {}), urls=urls)


def load_cases(root: Path = ROOT) -> list[Case]:
    return [load_case(p) for p in sorted(root.glob("*/*")) if p.is_dir()]


def run_case(case: Case) -> Outcome:
    from rocmdoctor.engine.core import TriageRequest, triage_target
    from rocmdoctor.status import State

    report = triage_target(TriageRequest(target="", bundle=str(case.path / "bundle"), vars=dict(case.vars)))
    overall = report.state
    rb = next((r for r in report.runbooks if r.runbook_id == case.runbook), None)
    if rb is None:
        return Outcome(case, "missed", "absent", overall.value, "", f"runbook {case.runbook} not in the report")
    first = rb.diagnoses[0].diagnosis_id if rb.diagnoses else ""
    made = tuple(d.diagnosis_id for d in rb.diagnoses)
    if case.benign:
        if overall == State.FAIL:
            failing = [f"{r.runbook_id}: " + ", ".join(d.diagnosis_id for d in r.diagnoses)
                       for r in report.runbooks if r.state == State.FAIL]
            return Outcome(case, "false-critical", rb.state.value, overall.value, first,
                           "CRITICAL on a benign case (" + "; ".join(failing) + ")", made)
        return Outcome(case, "benign-ok", rb.state.value, overall.value, first, f"{overall.value}, not critical", made)
    if first and first in case.diagnoses:
        return Outcome(case, "right", rb.state.value, overall.value, first, "", made)
    if rb.diagnoses:
        return Outcome(case, "wrong-cause", rb.state.value, overall.value, first,
                       f"first diagnosis {first}, expected {' or '.join(case.diagnoses)}", made)
    if rb.state in (State.FAIL, State.WARN):
        # a failure seen (a symptom line) with its causes left open names no cause: not a wrong one
        opened = ", ".join(c.diagnosis_id for c in rb.open_causes[:4])
        return Outcome(case, "missed", rb.state.value, overall.value, "",
                       f"{rb.state.value} without naming a cause" + (f"; left open: {opened}" if opened else ""), made)
    elsewhere = [d.diagnosis_id for r in report.runbooks for d in r.diagnoses]
    unknown = [s.check.message for s in rb.steps if s.check is not None and s.check.state == State.UNKNOWN]
    reason = f"{case.runbook} is {rb.state.value}"
    if elsewhere:
        reason += f"; other runbooks said {', '.join(elsewhere)}"
    elif unknown:
        reason += f"; {len(unknown)} step(s) unknown, first: {unknown[0][:120]}"
    return Outcome(case, "missed", rb.state.value, overall.value, "", reason)
