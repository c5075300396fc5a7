"""`validate --format prometheus|junit`: a validation run's verdicts in the forms sweeps use, so a
burn-in or an acceptance run lands in the same dashboards and CI reports (docs/validate.md)."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from typing import Any, Sequence

from rocmdoctor.fleet.outputs.junit import _clean
from rocmdoctor.fleet.outputs.prometheus import _value, _Writer
from rocmdoctor.status import State


def render_validate_prometheus(results: Sequence[Any], now: float | None = None) -> str:
    w = _Writer()
    done = [r for r in results if r.state != State.SKIPPED]
    w.family("validate_state", "gauge", "Last validation of the host at a level: 0 pass, 1 warn, 2 fail, 3 not run.",
             [((("host", r.host), ("level", str(r.level))), _value(r.state)) for r in done])
    w.family("validate_duration_seconds", "gauge", "Wall time of the validation run.",
             [((("host", r.host), ("level", str(r.level))), round(r.duration_s, 1)) for r in done])
    w.family("validate_last_run_timestamp_seconds", "gauge", "Unix time the validation finished.",
             [((("host", r.host), ("level", str(r.level))), round(now if now is not None else time.time(), 3)) for r in done])
    return "\n".join(w.lines) + "\n"


def render_validate_junit(results: Sequence[Any]) -> str:
    """One <testsuite> per host, one <testcase> per RVS action (or one for the run when RVS gave none)
    and one per check after it (TransferBench p2p, the GEMM verification, the baseline)."""
    root = ET.Element("testsuites", name="rocmdoctor validate")
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=_clean(r.host), hostname=_clean(r.host), time=f"{r.duration_s:.3f}")
        cases = [(a["action"], a["module"], (State.PASS if a["passed"] else State.FAIL), r.message, "\n".join(r.evidence))
                 for a in r.actions] or [(f"level {r.level}", "validate", r.state, r.message, "\n".join(r.evidence))]
        if r.actions:
            cases += [(p["name"], p["module"], State(p["state"]), p["message"], p["evidence"]) for p in r.parts]
        failures = errors = 0
        for name, module, state, message, evidence in cases:
            case = ET.SubElement(suite, "testcase", classname=_clean(f"{r.host}.{module}"), name=_clean(name), time="0.000")
            if state in (State.FAIL, State.WARN):
                ET.SubElement(case, "failure", type=state.value, message=_clean(message)).text = _clean(evidence)
                failures += 1
            elif state == State.UNKNOWN:
                ET.SubElement(case, "error", type="not-run", message=_clean(message)).text = _clean(message)
                errors += 1
            elif state == State.SKIPPED:
                ET.SubElement(case, "skipped", message=_clean(message))
        suite.set("tests", str(len(suite)))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
