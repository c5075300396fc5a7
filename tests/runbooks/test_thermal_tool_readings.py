"""thermal.tool_readings on real `sensors` / `rocm-smi` text (the corpus bundles, whose
threads are in their case.md): verdict and the evidence line that decided it."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.status import State

CASES = Path(__file__).parents[1] / "incidents" / "thermal-throttling"


def _thermal(case: str):
    report = triage_target(TriageRequest(target="", bundle=str(CASES / case / "bundle"),
                                         runbooks=("thermal-throttling",)))
    (rb,) = report.runbooks
    return rb, next(s for s in rb.steps if s.step_id == "tools")


def test_quiet_fan_near_the_limit_is_named() -> None:
    rb, step = _thermal("vega-fe-hipcaffe-94c-fan-40pct")
    assert step.state == State.WARN
    assert step.check.evidence == ("rocm-smi GPU 0: edge +94.0 C, fan 40.0 %",)
    assert rb.diagnoses[0].diagnosis_id == "fan-curve-too-quiet"


def test_sensors_limits_are_the_cards_own() -> None:
    _, step = _thermal("rx7900xt-zero-rpm-idle-sensors")
    assert step.state == State.PASS
    assert "hottest sensors amdgpu-pci-0300 mem 60.0 C (limit 108.0 C, its crit 108.0 C)" in " ".join(step.check.message.split())


def test_rocm_smi_6_junction_reading_without_limit_uses_the_default() -> None:
    _, step = _thermal("mi300x-concise-idle-39c")
    assert step.state == State.PASS
    assert "rocm-smi GPU 0 junction 39.0 C (limit 100.0 C, default temp_limit_c)" in " ".join(step.check.message.split())


def test_neither_tool_is_skipped_not_unknown() -> None:
    _, step = _thermal("r9700-amd-smi-throttled-at-idle")
    assert step.check is None and "neither `sensors` nor `rocm-smi`" in step.skipped_because
