"""thermal.busy_without_load: a GPU that reads 100 % busy with memory idle and a fraction of its
power cap (ROCm/legacy-rocm-build#5706, the corpus bundles) is named with the readings that decide
it, from sysfs, amd-smi's table or rocm-smi's concise table; real load near the cap (the MI300X
training node) and idle GPUs are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.simnode.scenarios.real_causes import busy_pinned_idle_process
from rocmdoctor.simnode.sysfs import hwmon_index, pci_dir
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import steps, triage_node, triage_runbook

RB = "thermal-throttling"
CASES = Path(__file__).parents[1] / "incidents" / RB


def _pinned(target: str = "", bundle: str | None = None, **vars: str):
    rb, by_id = triage_runbook(RB, target, bundle, **vars)
    return rb, by_id["pinned"]


def test_amd_smi_table_of_two_pinned_r9700s() -> None:
    rb, step = _pinned(bundle=str(CASES / "r9700-x2-vllm-idle-gfx-100pct-mes" / "bundle"))
    assert step.state == State.WARN
    assert step.check.evidence == ("amd-smi 0000:03:00.0: GFX-Uti 100 %, Mem-Uti 1 %, Power-Usage 103/300 W",
                                   "amd-smi 0000:43:00.0: GFX-Uti 100 %, Mem-Uti 0 %, Power-Usage 92/300 W")
    assert " ".join(step.check.message.split()).startswith(
        "0000:03:00.0 reads 100 % busy with memory activity 1 % at 103 W of its 300 W cap (34 %)")
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "busy-pinned-without-load" and first.confidence == "medium"
    assert any("amdgpu_firmware_info" in f for f in first.follow_up)


@pytest.mark.parametrize("case,line", [
    ("r9700-rocm-smi-100pct-31w-idle-ai02", "rocm-smi GPU 0: GPU% 100%, power 31.0W of PwrCap 210.0W, MCLK 96Mhz"),
    ("r9700-rocm-smi-100pct-30w-idle-ai01", "rocm-smi GPU 0: GPU% 100%, power 30.0W of PwrCap 210.0W, MCLK 96Mhz"),
])
def test_rocm_smi_concise_without_memory_activity_decides_on_power(case: str, line: str) -> None:
    rb, step = _pinned(bundle=str(CASES / case / "bundle"))
    assert step.state == State.WARN and step.check.evidence == (line,)
    assert "with its memory clock at 96 MHz" in " ".join(step.check.message.split())
    assert rb.diagnoses[0].diagnosis_id == "busy-pinned-without-load"


def test_sysfs_readings_on_the_simulated_node() -> None:
    _, step = _pinned("demo:busy-pinned-idle-process")
    assert step.state == State.WARN
    assert step.check.evidence[1] == ("/sys/bus/pci/devices/0000:43:00.0/gpu_busy_percent: 100; mem_busy_percent: 0; "
                                      "hwmon power1_input: 92000000 (power1_cap: 300000000)")


def test_a_hwmon_with_only_power1_average_is_read(tmp_path) -> None:
    node = busy_pinned_idle_process()
    for g in node.gpus:  # the averaged reading only, as older ASICs' hwmon offers it
        hw = f"/{pci_dir(g)}/hwmon/hwmon{hwmon_index(g)}"
        node.remove(f"{hw}/power1_input").file(f"{hw}/power1_average", f"{int(g.power_w * 1_000_000)}\n", mode=0o444)
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), [RB], {}))
    step = steps(report)["pinned"]
    assert step.state == State.WARN
    assert step.check.evidence[0] == ("/sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent: 100; mem_busy_percent: 1; "
                                      "hwmon power1_average: 103000000 (power1_cap: 300000000)")


def test_the_power_threshold_is_a_variable() -> None:
    _, step = _pinned("demo:busy-pinned-idle-process", pinned_power_pct="30")
    assert step.state == State.PASS  # 34 % and 31 % of the cap are over a 30 % threshold


@pytest.mark.parametrize("name,source", [("busy-healthy", "sysfs"), ("healthy-mi300x", "sysfs")])
def test_real_load_near_the_cap_and_idle_gpus_pass(name: str, source: str) -> None:
    _, step = _pinned(f"demo:{name}")
    assert step.state == State.PASS
    assert step.check.message == f"no GPU reads 99 % busy at under 40 % of its power cap (8 GPU(s), {source})"


def test_a_busy_gpu_without_a_power_reading_is_not_cleared_silently(tmp_path) -> None:
    node = busy_pinned_idle_process()
    for g in node.gpus:
        node.remove(f"/{pci_dir(g)}/hwmon/hwmon{hwmon_index(g)}/power1_input")
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), [RB], {}))
    step = steps(report)["pinned"]
    assert step.state == State.PASS
    assert " ".join(step.check.message.split()).endswith(
        "0000:03:00.0, 0000:43:00.0 busy with no power reading against a cap to judge")
