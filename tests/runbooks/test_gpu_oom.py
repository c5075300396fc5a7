"""gpu-oom end to end on the demo nodes: each root cause is found by its decisive step with the
node's own line as evidence and named by its diagnosis; healthy and GPU-less nodes stay quiet; an
amd-smi timeout is UNKNOWN with the reason; the leftover process is really killed only with
approval, and the verify check then passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.paths import cache_dir
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.simnode.scenarios import gpu_oom as oom
from rocmdoctor.testing.triage_helpers import diagnoses, steps
from rocmdoctor.engine.triage import Decision, TriageReport

RB = "gpu-oom"


@pytest.fixture(autouse=True)
def _end_live_processes():
    yield
    oom.end_live_processes()


def triage(name: str, vars: dict | None = None, approver=None, **kw) -> TriageReport:
    return triage_target(TriageRequest(target=f"demo:{name}", runbooks=(RB,), vars=vars or {}, **kw),
                         approver=approver)



def demo_root(name: str) -> Path:
    (root,) = sorted((cache_dir() / "demo").glob(f"{name}-*"))
    return root


@pytest.mark.parametrize("name", ["healthy-mi300x", "healthy-no-gpu", "busy-healthy", "apu-carveout-full"])
def test_healthy_nodes_are_quiet(name: str) -> None:
    report = triage(name)
    assert report.exit_status == ExitStatus.OK
    assert {s.state for s in steps(report).values()} <= {State.PASS, State.SKIPPED}
    assert diagnoses(report) == {}


def test_a_full_apu_carveout_is_named_as_one() -> None:
    """The APU's 512 MiB carve-out is 99% used: said as a carve-out beside its GTT, not as a VRAM shortage."""
    vram = steps(triage("apu-carveout-full"))["vram"].check
    assert vram.message.startswith("0000:c5:00.0: VRAM is a 512.0 MiB carve-out beside 110.0 GiB of GTT")
    assert vram.evidence == ("/sys/bus/pci/devices/0000:c5:00.0/mem_info_vram_used: 533725184 "
                             "(mem_info_vram_total: 536870912, mem_info_gtt_total: 118111600640)",)


def test_orphan_process_found_and_diagnosed() -> None:
    report = triage("oom-orphan-process", {"log": oom.JOB_LOG})
    s = steps(report)
    pid = oom.LIVE[-1].pid
    assert s["procs"].state == State.FAIL
    assert f"{pid} (python3, orphan: in no running Slurm job, 181.0 GiB)" in s["procs"].check.message
    assert s["procs"].check.evidence == (
        f"/sys/class/kfd/kfd/proc/{pid}: vram {181 << 30} bytes on GPU 3; ps -e: {pid} alice python3; "
        "scontrol listpids: not listed",)
    assert s["vram"].state == State.WARN
    assert "/sys/bus/pci/devices/0000:65:00.0/mem_info_vram_used: " in s["vram"].check.evidence[0]
    assert s["applog"].state == State.FAIL
    assert s["applog"].check.evidence[0].startswith(
        f"{oom.JOB_LOG}:4: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 3 has")
    d = diagnoses(report)["orphan-process-holds-vram"]
    assert d.confidence == "high" and f"Process {pid} (python3, user alice)" in d.cause
    (plan,) = d.remediations
    assert plan.risk == "medium" and plan.verify_check == "memory.gpu_processes"
    assert f'if [ "$(ps -o comm= -p {pid})" = python3 ];' in plan.command and f"kill -9 {pid};" in plan.command
    assert "job-needs-more-vram" not in diagnoses(report)   # a stale holder explains the OOM


def test_orphan_fix_kills_only_with_approval_and_verifies() -> None:
    declined = triage("oom-orphan-process", fix=True,
                      approver=lambda p, h: Decision(False, "tester", "declined"))
    proc = oom.LIVE[-1]
    assert declined.remediations[0].result is None
    assert proc.poll() is None, "a declined remediation must not kill"
    root = demo_root("oom-orphan-process")
    assert (root / f"sys/devices/virtual/kfd/kfd/proc/{proc.pid}/vram_{_gpu_id(3)}").exists()

    dry = triage("oom-orphan-process", dry_run=True, approver=lambda p, h: Decision(True, "tester"))
    dry_proc = oom.LIVE[-1]
    assert not dry.remediations[0].decision.approved and dry.remediations[0].result is None
    assert dry_proc.poll() is None and proc.poll() is None, "--dry-run must not kill"

    report = triage("oom-orphan-process", fix=True, approver=lambda p, h: Decision(True, "tester"))
    victim = oom.LIVE[-1]
    (outcome,) = report.remediations
    assert outcome.decision.approved and outcome.result.exit_status == 0
    victim.wait(timeout=5)
    assert victim.returncode == -9
    assert outcome.verify.state == State.PASS and outcome.fixed
    assert "no process holds GPU memory" in outcome.verify.message
    assert proc.poll() is None, "only the approved node's process is killed"


def _gpu_id(index: int) -> int:
    from rocmdoctor.simnode.gpu import mi300x_gpus
    from rocmdoctor.simnode.sysfs import gpu_id

    return gpu_id(mi300x_gpus(8)[index])


def test_pid_reuse_guard_refuses_another_program(tmp_path: Path) -> None:
    """If the PID names another program by fix time, the remediation kills nothing and fails."""
    report = triage("oom-orphan-process")
    plan = diagnoses(report)["orphan-process-holds-vram"].remediations[0]
    proc = oom.LIVE[-1]
    root = demo_root("oom-orphan-process")
    (root / ".sim/live" / f"comm.{proc.pid}").write_text("bash\n")
    from rocmdoctor.simnode.node import sim_transport

    res = sim_transport(root).run(plan.command, timeout=10, mutating=True)
    assert res.exit_status == 1 and "not killing pid" in res.stderr
    assert proc.poll() is None


@pytest.mark.parametrize("name,reason,pid,vram", [
    ("oom-zombie-process", "zombie", 48211, "150.0 GiB"),
    ("oom-dead-process", "dead", 39517, "188.0 GiB"),
])
def test_dead_and_zombie_holders(name: str, reason: str, pid: int, vram: str) -> None:
    report = triage(name)
    s = steps(report)["procs"]
    assert s.state == State.FAIL and f"{pid} (" in s.check.message and f"{reason}, {vram}" in s.check.message
    ev = s.check.evidence[0]
    assert ev.startswith(f"/sys/class/kfd/kfd/proc/{pid}: vram ")
    assert ("ps -e: no process 39517" in ev) if reason == "dead" else ("ps -e: 48211 state Z (python3)" in ev)
    d = diagnoses(report)["dead-process-holds-vram"]
    assert d.remediations == () and any("amd-smi reset -G" in f or "ppid" in f for f in d.follow_up)
    assert "orphan-process-holds-vram" not in diagnoses(report)


def test_fragmentation_from_the_job_log() -> None:
    report = triage("oom-fragmentation", {"log": oom.JOB_LOG})
    s = steps(report)["applog"]
    assert s.state == State.FAIL and "(fragmentation)" in s.check.message
    assert s.check.evidence == (f"{oom.JOB_LOG}:4: {oom.TORCH_FRAGMENTED[:400]}",)
    d = diagnoses(report)["pytorch-fragmentation"]
    assert "7.1 GiB reserved but unallocated" in d.cause
    assert any("PYTORCH_HIP_ALLOC_CONF=expandable_segments:True" in f for f in d.follow_up)


def test_job_too_big_is_the_jobs_own_memory() -> None:
    report = triage("oom-job-too-big", {"log": oom.JOB_LOG})
    s = steps(report)
    assert s["procs"].state == State.PASS and "in running Slurm jobs" in s["procs"].check.message
    assert s["applog"].check.evidence[0] == f"{oom.JOB_LOG}:4: {oom.GGML_LINES[0]}"
    assert {"job-needs-more-vram", "vram-used-by-running-job"} <= set(diagnoses(report))


def test_host_oom_is_not_blamed_on_the_gpu() -> None:
    report = triage("oom-host-ram")
    s = steps(report)
    assert s["hostoom"].state == State.WARN
    assert s["hostoom"].check.evidence[0].endswith(
        "Out of memory: Killed process 15784 (python3) total-vm:11964kB, anon-rss:4288kB, file-rss:3028kB, shmem-rss:0kB")
    assert set(diagnoses(report)) == {"host-ram-exhausted"}
    assert s["vram"].state == State.PASS and s["procs"].state == State.PASS


def test_log_var_missing_file_is_unknown_with_reason() -> None:
    report = triage("healthy-mi300x", {"log": "/var/log/no-such-job.out"})
    s = steps(report)["applog"]
    assert s.state == State.UNKNOWN and "/var/log/no-such-job.out: not found" in s.check.message


def test_amd_smi_timeout_is_unknown(tmp_path: Path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.nodes import healthy_mi300x
    from rocmdoctor.simnode.node import sim_transport
    from rocmdoctor.engine.triage import run_triage

    node = healthy_mi300x()
    node.stub("amd-smi", "exit 124")     # what `timeout` returns when it kills a hung amd-smi
    root = node.materialize(tmp_path / "n")
    with sim_transport(root) as t:
        report = run_triage(t, compile_plan(load_catalog(), [RB]))
    s = steps(report)["procs"]
    assert s.state == State.UNKNOWN and s.check.message == "amd-smi process --json: timed out after 20s"
    assert report.exit_status != ExitStatus.OK
    assert steps(report)["vram"].state == State.PASS     # sysfs evidence still judged


def test_container_holding_vram_is_named_and_stoppable() -> None:
    """A live holder in a docker container: /proc/PID/cgroup (real CentOS docker lines) -> docker ps name;
    the fix on offer is `docker stop NAME` (typed approval), before killing the process."""
    from rocmdoctor.engine.core import TriageRequest, triage_target

    report = triage_target(TriageRequest(target="demo:oom-container-holder", runbooks=("gpu-oom",)))
    (rb,) = report.runbooks
    procs = next(s for s in rb.steps if s.step_id == "procs")
    assert "73310 (python3, 181.0 GiB, docker container jupyter-bob)" in procs.check.message
    assert procs.check.evidence[0].endswith("; /proc/73310/cgroup: docker 9ec39b91f3d7, docker ps: jupyter-bob")
    d = rb.diagnoses[0]
    assert d.diagnosis_id == "vram-held-by-unscheduled-process" and "in docker container jupyter-bob" in d.cause
    plans = {p.remediation_id: p for p in d.remediations}
    assert plans["stop-holder-containers"].command == "docker stop jupyter-bob"
    assert plans["stop-holder-containers"].risk == "high"


def test_vram_no_process_holds_is_named_with_the_driver_and_a_guarded_reset(tmp_path: Path) -> None:
    # ROCm/rocm-systems#8263's figures: 46111 MiB used on every idle GPU, KFD lists no process
    report = triage("oom-vram-no-process")
    unowned = steps(report)["unowned"]
    assert unowned.state == State.WARN and report.exit_status == ExitStatus.WARNING
    assert unowned.check.message.startswith("360.2 GiB of VRAM used on 8 GPU(s) while no process holds GPU memory: "
                                            "0000:05:00.0 45.0 GiB of 192.0 GiB (23%)")
    assert unowned.check.message.endswith("and 5 more")
    assert "/sys/bus/pci/devices/0000:e5:00.0/mem_info_vram_used: 48350887936 (mem_info_vram_total: 206141652992)" \
        in unowned.check.evidence
    assert "head /sys/class/kfd/kfd/proc/*/vram_*: no process" in unowned.check.evidence
    made = diagnoses(report)["vram-held-by-no-process"]
    assert "amdgpu 6.16.6" in made.cause and "ROCm/rocm-systems#8263" in made.cause
    [reset] = made.remediations
    assert reset.remediation_id == "reset-stranded-gpus" and reset.risk == "high"
    # refuses when any process holds a GPU by the time it runs, then resets each GPU by address
    assert reset.command.startswith("if [ -n \"$(ls /sys/class/kfd/kfd/proc 2>/dev/null)\" ]")
    assert reset.command.count("amd-smi reset -G -g ") == 8


def test_vram_of_a_gpu_driving_a_display_is_not_called_unowned(tmp_path: Path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.engine.triage import run_triage
    from rocmdoctor.simnode.node import sim_transport

    node = oom.vram_without_process()
    root = node.materialize(tmp_path / "node")
    for g in node.gpus[1:]:
        g_dir = root / "sys/devices/pci0000:00" / g.bdf / "drm" / f"card{g.card}" / f"card{g.card}-DP-1"
        g_dir.mkdir(parents=True)
        (g_dir / "status").write_text("connected\n")
    plan = compile_plan(load_catalog(), [RB], {})
    with sim_transport(root) as t:
        report = run_triage(t, plan)
    unowned = {s.step_id: s for s in report.runbooks[0].steps}["unowned"]
    # only GPU 0 has no display: the other seven may hold a desktop's buffers through DRM
    assert unowned.state == State.WARN
    assert unowned.check.message.startswith("45.0 GiB of VRAM used on 1 GPU(s) while no process holds GPU memory: 0000:05:00.0")


def test_from_inside_a_container_host_pids_are_not_called_dead() -> None:
    # KFD names processes by host PID; in a container with its own PID namespace `ps` cannot
    # resolve them. Calling them dead (and offering to kill "them") would be wrong and unsafe.
    report = triage_target(TriageRequest(target="demo:oom-dead-process", runbooks=(RB,)))
    assert steps(report)["procs"].state == State.FAIL          # on the host: really gone from ps
    from rocmdoctor.simnode.scenarios.gpu_oom import holder_seen_from_a_container
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.engine.triage import run_triage
    from rocmdoctor.simnode.node import sim_transport
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = holder_seen_from_a_container().materialize(Path(tmp) / "node")
        with sim_transport(root) as t:
            report = run_triage(t, compile_plan(load_catalog(), [RB], {}))
    procs = {s.step_id: s for s in report.runbooks[0].steps}["procs"]
    assert procs.state == State.UNKNOWN
    assert procs.check.message.startswith("this runs inside a container with its own PID namespace (PID 1 is python3)")
    assert "(39517)" in procs.check.message and "/.dockerenv exists; cat /proc/1/comm: python3" in procs.check.evidence
    assert not [d for d in report.runbooks[0].diagnoses if d.diagnosis_id in ("dead-process-holds-vram", "orphan-process-holds-vram")]


@pytest.mark.parametrize("vram_gib,gtt_gib,state", [(2, 8, State.WARN), (0.5, 3, State.WARN), (0.5, 4, State.PASS)])
def test_only_a_small_vram_beside_a_much_larger_gtt_counts_as_a_carveout(tmp_path: Path, vram_gib, gtt_gib, state) -> None:
    """A small discrete card (2 GiB, GTT 4x) that is full still warns; the carve-out rule needs
    VRAM <= 2 GiB and GTT >= 8x VRAM."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import triage_node

    node = oom.apu_carveout_full()
    g = node.gpus[0]
    g.vram_total, g.vram_used, g.gtt_total = int(vram_gib * 2**30), int(vram_gib * 2**30 * 0.99), int(gtt_gib * 2**30)
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), [RB]))
    assert steps(report)["vram"].state == state, steps(report)["vram"].check.message


# PyTorch's pre-2.1 OOM form from a Ryzen 7 6800U (ROCm/ROCm#2014), and a made-up 24 GiB discrete GPU in the
# same form for the contrast
APU_OOM = ("torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB total capacity;"
           " 150.39 MiB already allocated; 312.00 MiB free; 168.00 MiB reserved in total by PyTorch) If reserved memory is"
           " >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory"
           " Management and PYTORCH_HIP_ALLOC_CONF\n")


@pytest.mark.parametrize("total, expect", [("512.00 MiB", "apu-vram-carveout-too-small"), ("24.00 GiB", None)])
def test_a_gpu_of_under_two_gib_in_all_is_read_as_an_apu_carveout(tmp_path: Path, total: str, expect: str | None) -> None:
    from rocmdoctor.testing.triage_helpers import triage_bundle_step
    log = APU_OOM.replace("512.00 MiB total", f"{total} total")
    rb, step = triage_bundle_step(tmp_path, {"files/ticket/job.log": log}, RB, "applog", vars={"log": "/ticket/job.log"})
    assert step.state is State.FAIL
    made = [d.diagnosis_id for d in rb.diagnoses]
    if expect:
        assert made[0] == expect
        first = rb.diagnoses[0]
        assert "512.0 MiB in all" in first.cause, first.cause
        assert any("512.00 MiB total capacity" in e for e in first.evidence)
    else:
        assert "apu-vram-carveout-too-small" not in made
