"""`--format junit`: JUnit XML for CI GPU runners (GitLab, Jenkins, GitHub test reporters).

One <testsuite> per host, one <testcase> per runbook step. fail -> <failure
type="fail">, warn -> <failure type="warn"> (a CI gate should see it),
unknown -> <error>, skipped -> <skipped>. A host that could not be reached
is one testcase `reachable` with an <error type="REASON">.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from rocmdoctor.status import State

_CONTROL = {c: None for c in range(32) if c not in (9, 10, 13)}


def _clean(text: str) -> str:
    """XML 1.0 cannot carry most control characters, even escaped: drop them."""
    return text.translate(_CONTROL)


def _case(suite: ET.Element, classname: str, name: str, seconds: float) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=_clean(classname), name=_clean(name), time=f"{seconds:.3f}")


def render_junit(sweep: Any) -> str:
    root = ET.Element("testsuites", name="rocmdoctor sweep", time=f"{sweep.duration_s:.3f}")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for h in sweep.hosts:
        suite = ET.SubElement(root, "testsuite", name=_clean(h.host), hostname=_clean(h.host),
                              timestamp=sweep.started_at, time=f"{h.duration_ms / 1000:.3f}")
        n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        if h.reason:
            case = _case(suite, h.host, "reachable", h.duration_ms / 1000)
            ET.SubElement(case, "error", type=_clean(h.reason), message=_clean(h.message)).text = _clean(h.message)
            n["tests"] += 1
            n["errors"] += 1
        for c in h.checks:
            case = _case(suite, f"{h.host}.{c.runbook}", f"{c.step} ({c.check})" if c.check else c.step, 0.0)
            n["tests"] += 1
            if c.state == State.FAIL or c.state == State.WARN:
                ET.SubElement(case, "failure", type=c.state.value, message=_clean(c.message)).text = _clean(c.message)
                n["failures"] += 1
            elif c.state == State.UNKNOWN:
                ET.SubElement(case, "error", type="unknown", message=_clean(c.message)).text = _clean(c.message)
                n["errors"] += 1
            elif c.state == State.SKIPPED:
                ET.SubElement(case, "skipped", message=_clean(c.message))
                n["skipped"] += 1
        for k, v in n.items():
            suite.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
