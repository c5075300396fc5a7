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


def test_amd_smi_default_table_in_a_ticket(tmp_path: Path) -> None:
    from tests.parsers.test_sensors_rocm_smi_text import AMD_SMI_TABLE

    (tmp_path / "commands" / "amd-smi").mkdir(parents=True)
    (tmp_path / "commands" / "amd-smi" / "stdout").write_text(AMD_SMI_TABLE)
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("thermal-throttling",)))
    step = next(s for s in report.runbooks[0].steps if s.step_id == "tools")
    assert step.state == State.PASS
    assert step.check.evidence == ("amd-smi GPU 0: hotspot +29.0 C",)


def test_kubectl_describe_node_text_in_a_bundle(tmp_path: Path) -> None:
    """`kubectl describe node` as pasted (ROCm/k8s-device-plugin#12: no amd.com/gpu) on a node with an AMD GPU."""
    dev = tmp_path / "files" / "sys" / "bus" / "pci" / "devices" / "0000:03:00.0"
    dev.mkdir(parents=True)
    (dev / "vendor").write_text("0x1002\n")
    (dev / "class").write_text("0x030000\n")
    cmd = tmp_path / "commands" / "kubectl describe node gpu-node-1"
    cmd.mkdir(parents=True)
    (cmd / "stdout").write_text("Allocatable:\n  cpu:                32\n  ephemeral-storage:  194465094130\n"
                                "  hugepages-1Gi:      0\n  hugepages-2Mi:      0\n  memory:             129461548Ki\n"
                                "  pods:               110\n")
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("container-mount-failure",),
                                         vars={"k8s_node": "gpu-node-1"}))
    step = next(s for s in report.runbooks[0].steps if s.step_id == "k8s")
    assert step.state == State.FAIL
    assert step.check.evidence == ("kubectl describe node gpu-node-1: status.allocatable has no amd.com/gpu",)
    assert "k8s-gpus-not-allocatable" in [d.diagnosis_id for d in report.runbooks[0].diagnoses]


def test_amd_smi_monitor_in_a_ticket(tmp_path: Path) -> None:
    """`amd-smi monitor -q` as AMD's changelog prints it: GPU_TEMP 103 °C is over the default limit,
    MEM_TEMP 84 °C is read beside it."""
    sample = Path(__file__).parents[1] / "fixtures" / "outputs" / "amd-smi-monitor" / "monitor-q-process-table.txt"
    (tmp_path / "commands" / "amd-smi monitor").mkdir(parents=True)
    (tmp_path / "commands" / "amd-smi monitor" / "stdout").write_text(sample.read_text())
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path), runbooks=("thermal-throttling",)))
    step = next(s for s in report.runbooks[0].steps if s.step_id == "tools")
    assert step.state == State.FAIL
    assert step.check.message.startswith("amd-smi monitor GPU 0 hotspot at 103 C, at or over 100.0 C")
    assert step.check.evidence == ("amd-smi monitor GPU 0: hotspot +103 C",)
