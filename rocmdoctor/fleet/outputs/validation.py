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
    """One <testsuite> per host, one <testcase> per RVS action (or one for the run when RVS gave none)."""
    root = ET.Element("testsuites", name="rocmdoctor validate")
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=_clean(r.host), hostname=_clean(r.host), time=f"{r.duration_s:.3f}")
        cases = [(a["action"], a["module"], a["passed"]) for a in r.actions] or [(f"level {r.level}", "validate", None)]
        failures = errors = 0
        for name, module, passed in cases:
            case = ET.SubElement(suite, "testcase", classname=_clean(f"{r.host}.{module}"), name=_clean(name), time="0.000")
            state = (State.PASS if passed else State.FAIL) if passed is not None else r.state
            if state in (State.FAIL, State.WARN):
                ET.SubElement(case, "failure", type=state.value, message=_clean(r.message)).text = _clean("\n".join(r.evidence))
                failures += 1
            elif state == State.UNKNOWN:
                ET.SubElement(case, "error", type="not-run", message=_clean(r.message)).text = _clean(r.message)
                errors += 1
            elif state == State.SKIPPED:
                ET.SubElement(case, "skipped", message=_clean(r.message))
        if r.state == State.WARN and not failures:      # a slow link on top of RVS's passing actions
            case = ET.SubElement(suite, "testcase", classname=_clean(f"{r.host}.transferbench"), name="p2p", time="0.000")
            ET.SubElement(case, "failure", type="warn", message=_clean(r.message)).text = _clean("\n".join(r.evidence))
            failures += 1
        suite.set("tests", str(len(suite)))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
