"""thermal.clocks: a GPU pinned busy whose shader clock sits under every regular DPM level (the MI300X
of ROCm/legacy-rocm-build#4414: 100 % at 56-59 MHz, a fifth of the cap, 50 C) is held low under
load, read from sysfs (the `S:` deep-sleep line) or from a ticket's rocm-smi table, and named
`clock-low-unexplained`; the idle-busy R9700 (clock up at 2317 MHz) stays `busy-pinned-without-load`."""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.simnode.scenarios.thermal import clock_held_low
from rocmdoctor.status import State
from rocmdoctor.testing.triage_helpers import steps, triage_node, triage_runbook

RB = "thermal-throttling"
CASE = Path(__file__).parents[1] / "incidents" / RB / "mi300x-8x-sclk-59mhz-under-load-firmware" / "bundle"


def _run(target: str = "", bundle: str | None = None, **vars: str):
    return triage_runbook(RB, target, bundle, **vars)


def test_the_ticket_rocm_smi_table_names_each_gpu_with_its_readings() -> None:
    rb, by_id = _run(bundle=str(CASE))
    clocks = by_id["clocks"]
    assert clocks.state == State.WARN
    assert clocks.check.evidence[0] == (
        "rocm-smi GPU 0: SCLK 59Mhz, GPU% 100%, Temp 50.0C (junction), power 157.0W of PwrCap 750.0W, Perf auto")
    assert len(clocks.check.evidence) == 3
    message = " ".join(clocks.check.message.split())
    assert message.startswith("shader clock low under load: GPU 0 at 59 MHz while 100% busy, GPU 1 at 58 MHz")
    assert "under 300 MHz" in message
    # the pinned check leaves them to this one instead of calling them idle-busy
    pinned = by_id["pinned"]
    assert pinned.state == State.PASS
    assert "GPU 0, GPU 1, GPU 2 busy with the shader clock in deep sleep or under 300 MHz" in " ".join(
        pinned.check.message.split())
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "clock-low-unexplained" and first.confidence == "low"
    assert "(the SMU's violation counters were not read)" in " ".join(first.cause.split())
    assert any("firmware" in f for f in first.follow_up)


def test_the_simulated_node_reads_deep_sleep_under_load_from_sysfs() -> None:
    rb, by_id = _run("demo:clock-held-low")
    clocks = by_id["clocks"]
    assert clocks.state == State.WARN
    assert clocks.check.evidence[0] == ("/sys/bus/pci/devices/0000:05:00.0/pp_dpm_sclk: current 59Mhz * (S: deep sleep), "
                                        "top level 2100Mhz; gpu_busy_percent: 100")
    assert by_id["violations"].state == State.PASS and by_id["power"].state == State.PASS
    # 155 W of 750 W at 100 % busy, but in deep sleep: not the idle-busy state
    assert by_id["pinned"].state == State.PASS
    assert "0000:05:00.0, 0000:26:00.0" in " ".join(by_id["pinned"].check.message.split())
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "clock-low-unexplained"
    assert "the SMU reports no thermal or power violation" in " ".join(first.cause.split())


def test_a_gpu_that_is_not_pinned_busy_in_deep_sleep_is_not_held(tmp_path) -> None:
    node = clock_held_low()
    for g in node.gpus:   # 90 % busy: a bursty job whose average can meet a deep-sleep sample
        g.gfx_activity = 90
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), [RB], {}))
    assert steps(report)["clocks"].state == State.PASS


def test_the_floor_is_a_variable() -> None:
    rb, by_id = _run(bundle=str(CASE), busy_clock_floor_mhz="50")
    clocks = by_id["clocks"]   # 56-59 MHz are over a 50 MHz floor, and the table has no levels to judge more
    assert clocks.state == State.UNKNOWN
    assert " ".join(clocks.check.message.split()).endswith(
        "rocm-smi's table shows the clock of 3 GPU(s) but not their levels: only a busy GPU under 50 MHz is judged "
        "from it, and none is")
    assert by_id["pinned"].state == State.WARN   # and then read as busy at a fifth of the cap

