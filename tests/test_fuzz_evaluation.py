"""Evaluation never dies on node data (issue 9): random bytes, escape sequences,
brackets, regex and template metacharacters and huge lines, fed through every
built-in check as every kind of evidence, give a verdict (possibly UNKNOWN with its
reason), never an exception. Also the real line that once ended a triage."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocmdoctor.catalog.definitions import resolve_gather
from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.evaluate import evaluate_check
from rocmdoctor.results import CheckResult, Evidence
from rocmdoctor.status import State

CATALOG = load_catalog()
CHECKS = sorted(CATALOG.checks.values(), key=lambda c: c.id)
VARS = {"expect_gpus": "8", "log": "/tmp/job.err", "container": "c1", "k8s_node": "n1", "user": "alice"}

NASTY = ["[", "]", "(", ")", "{{", "}}", "{%", "%}", "\\", "*", "+?", "|", "^$", "\x1b[31m", "\x00", "\ufffd",
         "Direct firmware load for amdgpu/vega[x_ta.bin failed with error -2", "amdgpu 0000:03:00.0:",
         "\n", "\r\n", "\t", "'", '"', "0x1002", "-1", "9" * 40, "nan", "inf", "renderD128", "/proc/1/vram_0"]
text = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(NASTY), max_size=30).map("".join),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
    st.integers(1, 3).map(lambda n: "x[" * (20000 * n)),  # huge single lines
)
paths = st.lists(st.sampled_from(["/sys/bus/pci/devices/0000:03:00.0/vendor", "/dev/kfd", "/sys/x[/y",
                                  "/proc/1/{{x}}", "/dev/dri/renderD128"]), max_size=3, unique=True)


def _value(kind: str, data: st.DataObject) -> Any:
    if kind == "command":
        return {"rc": data.draw(st.sampled_from([0, 1, 2, 124, 127, -9])), "stdout": data.draw(text),
                "stderr": data.draw(text), "duration_ms": 1}
    if kind == "glob":
        return {p: data.draw(text) for p in data.draw(paths)}
    if kind == "stat":
        return {p: {"type": data.draw(st.sampled_from(["character special file", "directory", "?"])),
                    "mode": data.draw(st.sampled_from(["660", "666", "x", ""])),
                    "uid": data.draw(st.integers(-1, 70000)), "gid": data.draw(st.integers(-1, 70000))}
                for p in data.draw(paths)}
    return data.draw(text)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_check_survives_any_node_data(data: st.DataObject) -> None:
    for check in CHECKS:
        evidence = {}
        for g in check.gathers:
            spec = resolve_gather(g, VARS)
            kind = spec.kind if spec.kind != "tail" else "file"
            evidence[spec.key] = Evidence(spec.key, spec.kind, spec.key, "ok", _value(kind, data))
        result = evaluate_check(check, evidence, VARS)
        assert isinstance(result, CheckResult) and isinstance(result.state, State)
        assert result.message or result.state == State.UNKNOWN


def test_the_bracket_in_a_firmware_name_is_just_text() -> None:
    """It once ended the whole triage with `internal error: unterminated character set`."""
    check = CATALOG.checks["kernel.amdgpu_firmware"]
    line = "[    5.1] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/vega[x_ta.bin failed with error -2"
    evidence = {}
    for g in check.gathers:
        spec = resolve_gather(g, VARS)
        value: Any = {"rc": 0, "stdout": line + "\n", "stderr": "", "duration_ms": 1} if spec.kind == "command" else ""
        evidence[spec.key] = Evidence(spec.key, spec.kind, spec.key, "ok" if spec.kind == "command" else "missing", value)
    result = evaluate_check(check, evidence, VARS)
    assert "amdgpu/vega[x_ta.bin" in result.message
    assert any("vega[x_ta.bin failed with error -2" in e for e in result.evidence)
