"""JUnit XML for CI: parses, counts add up, node-controlled text cannot break the XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from rocmdoctor.fleet.outputs.junit import render_junit


def test_junit_parses_and_counts(sweep) -> None:
    root = ET.fromstring(render_junit(sweep).encode())
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"node001", "node002", "node003", "node004", 'we"ird\\host', "node006"}
    for s in suites.values():
        cases = s.findall("testcase")
        assert int(s.get("tests")) == len(cases)
        assert int(s.get("failures")) == sum(len(c.findall("failure")) for c in cases)
        assert int(s.get("errors")) == sum(len(c.findall("error")) for c in cases)
        assert int(s.get("skipped")) == sum(len(c.findall("skipped")) for c in cases)
    assert sum(int(s.get("tests")) for s in suites.values()) == int(root.get("tests"))
    (fail,) = suites["node002"].iter("failure")
    assert fail.get("type") == "fail" and "</failure>" in fail.text and "\x07" not in fail.text
    assert fail.get("message").startswith('amdgpu "bad" \\ path\nnext line')
    (warn,) = suites["node003"].iter("failure")
    assert warn.get("type") == "warn"
    (err,) = suites["node004"].iter("error")
    assert err.get("type") == "host-key-changed" and "HOST KEY CHANGED" in err.text
    assert suites["node004"].find("testcase").get("name") == "reachable"
    (unk,) = suites["node006"].iter("error")
    assert unk.get("type") == "unknown"
    assert len(list(suites["node001"].iter("skipped"))) == 1
