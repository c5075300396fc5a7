"""thermal-throttling end to end on the demo nodes: over-temperature, thermal violation, power
capping (which must never be called thermal), kernel thermal events, and a node at full load near
its 750 W cap that must come out healthy; amd-smi missing is UNKNOWN with the reason; the power-cap
reset runs only with approval and is verified."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.paths import cache_dir
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.simnode.formats.kernel import render_kern_log
from rocmdoctor.simnode.scenarios.thermal import thermal_shutdown_previous_boot
from rocmdoctor.simnode.tools import BOOT_WALL, boot_lines
from rocmdoctor.testing.triage_helpers import diagnoses, steps, triage_node
from rocmdoctor.engine.triage import Decision, TriageReport

RB = "thermal-throttling"
CAP = "sys/devices/pci0000:00/0000:85:00.0/hwmon/hwmon6/power1_cap"


def triage(name: str, approver=None, **kw) -> TriageReport:
    return triage_target(TriageRequest(target=f"demo:{name}", runbooks=(RB,), **kw), approver=approver)



def demo_roots(name: str) -> list[Path]:
    return sorted((cache_dir() / "demo").glob(f"{name}-*"), key=lambda p: p.stat().st_mtime)


@pytest.mark.parametrize("name", ["healthy-mi300x", "healthy-no-gpu"])
def test_healthy_nodes_are_quiet(name: str) -> None:
    report = triage(name)
    assert report.exit_status == ExitStatus.OK
    assert {s.state for s in steps(report).values()} <= {State.PASS, State.SKIPPED}
    assert diagnoses(report) == {}


def test_idle_mi300x_deep_sleep_and_no_crit_files_are_not_faults() -> None:
    s = steps(triage("healthy-mi300x"))
    assert "idle clocks and deep sleep are not throttling" in s["clocks"].check.message
    # MI300 has no temp*_crit: 42 C is judged against the documented default, not failed
    assert s["temps"].check.message.endswith("junction 42.0 C (limit 100.0 C, default temp_limit_c)")


def test_busy_node_near_its_cap_is_healthy() -> None:
    """Real rocm-smi under training load: 71-79 C, 682-728 W of 750 W, ~1.6 GHz, 100 % busy."""
    report = triage_target(TriageRequest(target="demo:busy-healthy", runbooks=(RB, "gpu-oom")))
    assert report.exit_status == ExitStatus.OK
    for rb in report.runbooks:
        assert all(s.state in (State.PASS, State.SKIPPED) for s in rb.steps), rb.id
        assert rb.diagnoses == ()
    s = {st.step_id: st for st in report.runbooks[0].steps}
    assert s["clocks"].check.message == "8 busy GPU(s) clocked near their maximum"
    assert "junction 79.0 C" in s["temps"].check.message


def test_junction_over_crit_on_mi100() -> None:
    report = triage("thermal-junction-crit")
    s = steps(report)["temps"]
    assert s.state == State.FAIL
    assert s.check.message == ("0000:29:00.0 junction at 101.0 C, at or over its limit 100.0 C "
                               "(hwmon /sys/bus/pci/devices/0000:29:00.0/hwmon/hwmon2/temp2_crit)")
    assert s.check.evidence == ("/sys/bus/pci/devices/0000:29:00.0/hwmon/hwmon2/temp2_input: 101000 "
                                "(/sys/bus/pci/devices/0000:29:00.0/hwmon/hwmon2/temp2_crit: 100000, _emergency: 105000)",)
    d = diagnoses(report)["over-temperature"]
    assert d.confidence == "high" and any("fans" in f for f in d.follow_up)
    assert "power-capped" not in diagnoses(report)
    assert report.exit_status == ExitStatus.CRITICAL


def test_thermal_violation_with_clocks_down_under_load() -> None:
    report = triage("thermal-violation")
    s = steps(report)
    assert s["violations"].state == State.FAIL
    assert s["violations"].check.evidence == (
        "amd-smi metric --json: gpu 2 throttle socket_thermal_violation_activity 37.5 %, hbm_thermal 0 %, "
        "prochot 0 %, throttle_status THROTTLED",)
    assert s["clocks"].state == State.WARN
    assert s["clocks"].check.evidence == ("/sys/bus/pci/devices/0000:46:00.0/pp_dpm_sclk: current 900Mhz *, "
                                          "top level 2100Mhz; gpu_busy_percent: 100",)
    assert set(diagnoses(report)) == {"thermal-throttling"}


def test_power_capped_is_not_thermal() -> None:
    report = triage("power-capped")
    s = steps(report)
    assert s["power"].state == State.WARN and s["violations"].state == State.WARN
    assert s["violations"].check.message.startswith("power capped, not thermal: GPU 4 (62% PPT violation")
    assert s["power"].check.evidence == ("/sys/bus/pci/devices/0000:85:00.0/hwmon/hwmon6/power1_cap: 400000000 "
                                         "(power1_cap_default: 750000000, power1_input: 398000000)",)
    assert set(diagnoses(report)) == {"power-capped"}
    assert report.exit_status == ExitStatus.WARNING
    (plan,) = diagnoses(report)["power-capped"].remediations
    assert plan.command == "amd-smi reset --power-cap -g 0000:85:00.0" and plan.risk == "medium"


def test_power_cap_reset_only_with_approval_then_verified() -> None:
    declined = triage("power-capped", fix=True, approver=lambda p, h: Decision(False, "tester", "no"))
    assert declined.remediations[0].result is None
    assert (demo_roots("power-capped")[-1] / CAP).read_text() == "400000000\n"
    dry = triage("power-capped", dry_run=True, approver=lambda p, h: Decision(True, "tester"))
    assert dry.remediations[0].result is None
    assert (demo_roots("power-capped")[-1] / CAP).read_text() == "400000000\n"

    report = triage("power-capped", fix=True, approver=lambda p, h: Decision(True, "tester"))
    (outcome,) = report.remediations
    assert outcome.result.exit_status == 0 and outcome.fixed
    assert outcome.verify.message == "power caps at default on 8 GPU(s)"
    assert (demo_roots("power-capped")[-1] / CAP).read_text() == "750000000\n"
    assert report.exit_status != ExitStatus.CRITICAL


def test_kernel_thermal_event() -> None:
    report = triage("thermal-kernel-events")
    s = steps(report)["klog"]
    assert s.state == State.WARN
    assert s.check.evidence[0].endswith("amdgpu 0000:c6:00.0: WARN: GPU thermal throttling temperature reached, "
                                        "expect performance decrease. HBM.")
    assert set(diagnoses(report)) == {"thermal-events-logged"}


def test_amd_smi_missing_is_unknown(tmp_path: Path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.nodes import healthy_mi300x
    from rocmdoctor.simnode.node import sim_transport
    from rocmdoctor.engine.triage import run_triage

    root = healthy_mi300x().remove_tool("amd-smi").materialize(tmp_path / "n")
    with sim_transport(root) as t:
        report = run_triage(t, compile_plan(load_catalog(), [RB]))
    s = steps(report)
    assert s["violations"].state == State.UNKNOWN and s["violations"].check.message == "amd-smi: command not found"
    assert s["temps"].state == State.PASS          # hwmon still judged; static limits are optional
    assert report.exit_status != ExitStatus.OK


def test_thermal_power_off_read_from_kern_log_without_a_journal(tmp_path: Path) -> None:
    """The same SW CTF power-off on a node whose journal is volatile: rsyslog's kern.log holds the
    boot it ended (cut by NUL bytes, then this boot's banner), and names itself as the source."""
    node = thermal_shutdown_previous_boot()
    before, node.previous_boot_log = node.previous_boot_log, []
    start = datetime(2024, 9, 30, 18, 0, 0)
    node.file("/var/log/kern.log",
              render_kern_log(((start + timedelta(seconds=ts), ts, m) for ts, m in before), node.name)
              + "\x00" * 512
              + render_kern_log(((BOOT_WALL + timedelta(seconds=ts), ts, m) for ts, m in boot_lines(node)), node.name))
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), [RB]))
    klog = steps(report)["klog"]
    assert klog.state == State.FAIL
    assert klog.check.message.startswith("the previous boot ended in a GPU thermal shutdown")
    assert klog.check.evidence[0].startswith("/var/log/kern.log: Oct  1 07:23:")
    assert "System is going to shutdown due to GPU SW CTF!" in klog.check.evidence[0] + klog.check.evidence[-1]
