"""gpu-slow end to end on its demo nodes (issue 44): each cause is named by its step with the
deciding evidence line, a busy healthy node stays OK, --pid / --job narrow the reading to one
job, and the forced performance level is reset only with approval, then verified."""

from __future__ import annotations

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.engine.triage import Decision, TriageReport
from rocmdoctor.simnode.scenarios import SCENARIOS
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.testing.triage_helpers import diagnoses, steps

RB = "gpu-slow"
CAUSES = sorted(n for n, s in SCENARIOS.items() if RB in s.runbooks and s.expect.get("diagnosis"))

#: (demo, the evidence line that decides it)
EVIDENCE = {
    "gpu-slow-shared": "/sys/class/kfd/kfd/proc/61234: ollama uid 1002, container 0f4fd0c7dbd7, vram 498=42949672960, queues on 498",
    "gpu-slow-cpu-quota": "cpu.max: 200000 100000; cpu.stat: usage_usec 8099091679 user_usec 8089018953 system_usec 10072726 "
                          "nr_periods 7607 nr_throttled 4174 throttled_usec 3322148518",
    "gpu-slow-one-cpu": "/proc/51000/status: Threads: 38; Cpus_allowed_list: 5",
    "gpu-slow-numa": "/proc/51000/status: Cpus_allowed_list: 96-191,288-383; /sys/bus/pci/devices/0000:05:00.0/numa_node: 0",
    "gpu-slow-memory-pressure": "/proc/pressure/memory: some avg10=70.24 avg60=68.52 avg300=69.91 total=3559632828 / "
                                "full avg10=57.59 avg60=58.06 avg300=60.38 total=3300487258",
    "gpu-slow-perf-level": "/sys/bus/pci/devices/0000:05:00.0/power_dpm_force_performance_level: low",
    "gpu-slow-partitioned": "/sys/bus/pci/devices/0000:05:00.0/current_compute_partition: CPX; current_memory_partition: NPS4",
    "gpu-slow-serialized": "/proc/51000/environ: AMD_SERIALIZE_KERNEL=3  (ROCm/clr rocclr/utils/flags.hpp:",
    "gpu-slow-pcie-x8": "/sys/bus/pci/devices/0000:c6:00.0/current_link_width: 8 (max_link_width: 16)",
    "gpu-slow-xgmi-dropped": "KFD topology node 0000:a6:00.0: hive_id 0x0",
    "gpu-slow-clocks-held": "/sys/bus/pci/devices/0000:05:00.0/pp_dpm_sclk: current 59Mhz",
    "gpu-slow-power-capped": "/power1_cap: 400000000 (power1_cap_default: 750000000",
    "gpu-slow-throttled": "amd-smi metric --json: gpu 2 throttle",
    "gpu-slow-io-pressure": "/proc/pressure/io: some avg10=70.24 avg60=68.52",
    "gpu-slow-iommu-translated": "iommu: Default domain type: Translated",
    "gpu-slow-log-fallback": "Missing system database file: gfx1030_12.kdb Performance may degrade",
}


def triage(name: str, approver=None, **kw) -> TriageReport:
    return triage_target(TriageRequest(target=f"demo:{name}", runbooks=(RB,), **kw), approver=approver)


def test_every_cause_has_a_demo_node() -> None:
    named = {SCENARIOS[n].expect["diagnosis"] for n in CAUSES}
    assert named == {"gpu-shared-with-other-process", "cpu-quota-throttled", "host-cpu-starvation", "numa-mismatch",
                     "host-memory-pressure", "perf-level-forced", "gpu-partition-mode", "serializing-env",
                     "pcie-link-degraded", "xgmi-link-down", "clocks-held-low", "power-cap-low", "gpu-throttling",
                     "io-starvation", "p2p-through-host", "slow-path-fallback"}
    assert set(EVIDENCE) == set(CAUSES)


@pytest.mark.parametrize("name", CAUSES)
def test_each_cause_is_named_with_its_deciding_evidence(name: str) -> None:
    expect = SCENARIOS[name].expect
    report = triage(name, vars=dict(expect.get("vars", {})))
    if name == "gpu-slow-log-fallback":        # a job log's line: the signature's evidence, no step of its own
        (d,) = [d for rb in report.runbooks for d in rb.diagnoses if d.diagnosis_id == expect["diagnosis"]]
        assert any(EVIDENCE[name] in e for e in d.evidence) and report.exit_status == ExitStatus.WARNING
        return
    step = steps(report)[expect["step"]]
    assert step.state in (State.WARN, State.FAIL), step.check.message
    assert any(EVIDENCE[name] in e for e in step.check.evidence), step.check.evidence
    found = diagnoses(report)
    assert expect["diagnosis"] in found, sorted(found)
    assert list(found)[0] == expect["diagnosis"] or name == "gpu-slow-perf-level"   # clocks warn beside it
    assert report.exit_status in (ExitStatus.WARNING, ExitStatus.CRITICAL)


def test_a_busy_healthy_node_stays_ok() -> None:
    report = triage("gpu-slow-busy-healthy")
    assert report.exit_status == ExitStatus.OK and diagnoses(report) == {}
    s = steps(report)
    assert s["sharing"].check.message.startswith("8 GPU process(es), each GPU used by one owner")
    assert s["clocks"].check.message == "8 busy GPU(s) clocked near their maximum"
    assert s["numa"].check.message == "8 GPU process(es), none confined to CPUs of another NUMA node than its GPU"
    assert s["pressure"].check.message == "host pressure over the last minute: CPU 0.0 %, memory (full) 0.0 %, I/O 0.0 %"


def test_pid_and_job_narrow_the_reading_to_one_job() -> None:
    one = steps(triage("gpu-slow-busy-healthy", vars={"job": "4103"}))
    assert one["sharing"].check.message == "1 GPU process(es), each GPU used by one owner (0000:65:00.0)"
    shared = triage("gpu-slow-shared", vars={"pid": "51000"})
    cause = diagnoses(shared)["gpu-shared-with-other-process"].cause
    assert "The other owner: PID 61234 (ollama, bob, container 0f4fd0c7dbd7)." in cause
    # another job on the same node is not this job's problem
    assert diagnoses(triage("gpu-slow-one-cpu", vars={"job": "4101"})) == {}
    missing = steps(triage("gpu-slow-busy-healthy", vars={"pid": "999"}))["sharing"]
    assert missing.state == State.UNKNOWN and missing.check.message.startswith("no process of PID 999 uses a GPU here")


def test_forced_performance_level_is_reset_only_with_approval_then_verified() -> None:
    declined = triage("gpu-slow-perf-level", fix=True, approver=lambda p, h: Decision(False, "tester", "no"))
    (outcome,) = declined.remediations
    assert outcome.result is None and outcome.plan.remediation_id == "perf-level-auto"
    assert outcome.plan.command.startswith("amd-smi set --perf-level AUTO -g 0000:05:00.0 && amd-smi set")
    report = triage("gpu-slow-perf-level", fix=True, approver=lambda p, h: Decision(True, "tester"))
    (outcome,) = report.remediations
    assert outcome.result.exit_status == 0 and outcome.fixed
    assert outcome.verify.message == "8 GPU(s) with their clock policy at auto"


def test_cli_pid_and_job_options(capsys) -> None:
    from rocmdoctor.cli.main import run

    assert run(["triage", "demo:gpu-slow-shared", "-r", RB, "--pid", "51000", "--format", "json"]) == 1
    assert run(["triage", "demo:gpu-slow-shared", "-r", RB, "--job", "4101"]) == 0
    assert run(["triage", "demo:gpu-slow-shared", "-r", RB, "--job", "41;01"]) == 2
    assert "not a Slurm job id" in capsys.readouterr().err


def test_a_ticket_s_rocm_smi_table_stands_in_for_sysfs(tmp_path) -> None:
    """A bundle holding only a pasted `rocm-smi` (MI300X, ROCm/ROCm#4750, Perf `auto` on every GPU):
    the clock policy is read from its Perf column instead of sysfs."""
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "fixtures/outputs/amdgpu-partition/rocm-smi-concise-partitions-mi300-4750.txt"
    d = tmp_path / "ticket" / "commands" / "rocm-smi"
    d.mkdir(parents=True)
    (d / "stdout").write_text(src.read_text())
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path / "ticket"), runbooks=(RB,)))
    level = steps(report)["perflevel"]
    assert level.state == State.PASS and level.check.message.endswith("GPU(s) with their clock policy at auto")
    assert "manual" not in level.check.message


def test_a_ticket_that_cannot_decide_lists_the_open_causes_with_their_settling_commands(tmp_path) -> None:
    """A bundle holding only a job's timing (no node state): instead of a bare UNKNOWN, every cause the
    runbook could not rule out, in the runbook's order, with the one command that settles it."""
    import json

    from rocmdoctor.cli.main import run

    d = tmp_path / "ticket" / "files" / "ticket"
    d.mkdir(parents=True)
    (d / "job.log").write_text("step 100: 4.1 s/it\n")
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path / "ticket"), runbooks=(RB,),
                                         vars={"log": "/ticket/job.log"}))
    (rb,) = report.runbooks
    assert rb.state == State.UNKNOWN and rb.diagnoses == ()
    causes = [(c.diagnosis_id, c.settle) for c in rb.open_causes]
    assert causes[0] == ("gpu-shared-with-other-process", "amd-smi process")
    assert ("clocks-held-low", "amd-smi metric --clock --usage") in causes and len(causes) == 14   # iommu: skipped, no GPU count
    assert run(["triage", "--from", str(tmp_path / "ticket"), "-r", RB, "--format", "json"]) == 3


def test_a_decided_runbook_lists_no_open_causes() -> None:
    report = triage("gpu-slow-shared")
    assert report.runbooks[0].open_causes == ()
