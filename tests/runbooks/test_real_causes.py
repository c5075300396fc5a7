"""Root causes first seen in real threads, reproduced on simulated nodes that carry the threads'
own lines: the expected diagnosis comes first in its runbook, quoting the deciding line."""

from __future__ import annotations

import pytest

from rocmdoctor.engine.core import TriageRequest, triage_target
from rocmdoctor.simnode.scenarios import SCENARIOS, real_causes
from rocmdoctor.status import State

CASES = [(c[0], "gpu-not-visible") for c in real_causes.GPU_NOT_VISIBLE] + \
        [(c[0], "kernel-driver-mismatch") for c in real_causes.KERNEL_DRIVER] + \
        [(c[0], "thermal-throttling") for c in real_causes.THERMAL] + \
        [(c[0], "container-mount-failure") for c in real_causes.CONTAINER] + \
        [(c[0], "gpu-oom") for c in real_causes.GPU_OOM]

DECIDING = {
    "kfd-asic-not-supported": "kfd kfd: amdgpu: PITCAIRN  not supported in kfd",
    "kfd-pci-rejects-atomics": "kfd kfd: skipped device 1002:699f, PCI rejects atomics",
    "dkms-build-failed": "Error! Bad return status for module build on kernel: 6.14.0-24-generic (x86_64)",
    "missing-dependency-module": "amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)",
    "fan-curve-too-quiet": "rocm-smi GPU 0: edge +94.0 C, fan 40.0 %",
    "container-host-driver-missing": "cat /proc/modules: no line starting with 'amdgpu '",
    "container-rootless-nogroup": "Unable to open /dev/kfd read-write: Permission denied",
    "container-kfd-einval": "Unable to open /dev/kfd read-write: Invalid argument",
    "container-kfd-eperm": "Unable to open /dev/kfd read-write: Operation not permitted",
    "busy-pinned-idle-process": "/sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent: 100; mem_busy_percent: 1; hwmon power1_input: 103000000 (power1_cap: 300000000)",
    "idle-at-top-clock": "/sys/bus/pci/devices/0000:03:00.0/pp_dpm_sclk: level 7 of 8 (1630Mhz *); gpu_busy_percent: 0; power_dpm_force_performance_level: high",
    "visibility-masks-composed": 'env: ROCR_VISIBLE_DEVICES="1"',
    "apu-allocations-in-gtt": "GPU 0 has a total capacity of 15.24 GiB of which 15.09 GiB is free",
    "igpu-first": "KFD GPU node 0: gfx1036 (integrated) at 0000:12:00.0",
    "wsl-guest": "cat /proc/sys/kernel/osrelease: 5.15.153.1-microsoft-standard-WSL2",
    "wsl-gpu-unsupported": "rocminfo: ROCR: unsupported GPU",
    "pci-bar-exhausted": "amdgpu 0000:0d:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]",
    "pci-vf-bars-exhausted": "pci 0000:0d:00.0: BAR 5 [mem size 0x00080000]: failed to assign",
    "kernel-without-kfd": "/boot/config-6.12.74-flatcar: # CONFIG_HSA_AMD is not set",
    "kfd-parameter-invalid": "amdgpu: sched_policy has invalid value",
    "target-without-rocblas-kernels": "KFD GPU 0000:03:00.0: gfx1031",
    "slurm-rsmi-missing": "slurmd.log: slurmd-nscale-compute-gpu-16: Configured with rsmi, but that lib wasn't found.",
    "slurm-gpus-ignored": "slurmd.log: [2025-10-06T15:42:05] warning: The following autodetected GPUs are being ignored:",
    "amdsmi-python-mismatch": "amd-smi list --json: AttributeError: /opt/rocm-7.0.1/lib/libamd_smi.so: undefined symbol: amdsmi_get_gpu_partition_metrics_info",
    "amdsmi-python-deps-missing": "amd-smi list --json: ModuleNotFoundError: No module named 'yaml'",
    "framework-without-rocm": "/scratch/job.log:1: RuntimeError: Found no NVIDIA driver on your system.",
    "gfx-override-mismatch": "env: HSA_OVERRIDE_GFX_VERSION=\"10.3.0\"",
    "legacy-gpu-breaks-runtime": "KFD GPU 0000:0c:00.0: gfx_target_version 80003 (gfx803)",
}


@pytest.mark.parametrize("name,runbook", CASES)
def test_first_diagnosis_and_its_line(name: str, runbook: str) -> None:
    expect = SCENARIOS[name].expect
    report = triage_target(TriageRequest(target=f"demo:{name}", runbooks=(runbook,)))
    rb = next(r for r in report.runbooks if r.runbook_id == runbook)
    assert rb.state in (State.FAIL, State.WARN)
    first = rb.diagnoses[0]
    assert first.diagnosis_id == expect["diagnosis"], [d.diagnosis_id for d in rb.diagnoses]
    assert any(DECIDING[name] in line for line in first.evidence), first.evidence


def test_kfd_refusal_is_not_called_a_memory_shortage() -> None:
    report = triage_target(TriageRequest(target="demo:kfd-asic-not-supported", runbooks=("gpu-not-visible",)))
    steps = {s.step_id: s for s in report.runbooks[0].steps}
    assert "not a memory shortage" in steps["rocminfo"].check.message
    assert "gpu-oom" not in {rb.runbook_id for rb in report.runbooks}


def test_failed_build_names_the_kernel_and_the_supported_ones() -> None:
    report = triage_target(TriageRequest(target="demo:dkms-build-failed", runbooks=("kernel-driver-mismatch",),
                                         vars={"log": "/root/amdgpu-install.log"}))
    steps = {s.step_id: s for rb in report.runbooks for s in rb.steps}
    assert steps["buildconsole"].check.message.startswith(
        "DKMS could not build amdgpu 6.12.12-2164967.24.04 for kernel 6.14.0-24-generic")
    assert steps["support"].check.message.endswith("AMD supports kernel 6.8 or 6.11 there")


def test_forced_performance_level_is_reset_only_with_approval_and_verified(tmp_path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import triage_node

    plan = compile_plan(load_catalog(), ["thermal-throttling"], {})
    level = "sys/devices/pci0000:00/0000:03:00.0/power_dpm_force_performance_level"
    root, declined = triage_node(real_causes.idle_at_top_clock(), tmp_path / "a", plan, fix=True, approve=False)
    assert (root / level).read_text() == "high\n"
    root, approved = triage_node(real_causes.idle_at_top_clock(), tmp_path / "b", plan, fix=True, approve=True)
    (outcome,) = [o for o in approved.remediations if o.plan.remediation_id == "perf-level-auto"]
    assert outcome.plan.command == "amd-smi set --perf-level AUTO -g 0000:03:00.0" and outcome.plan.risk == "low"
    assert (root / level).read_text() == "auto\n"
    assert outcome.fixed and outcome.verify.message.startswith("no idle GPU held at its top clock level")


def test_auto_level_at_top_clock_offers_no_write() -> None:
    """The thread's own state (level `auto`): a warning with follow-ups, no remediation to run."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.engine.triage import run_triage
    from rocmdoctor.simnode.node import sim_transport
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        root = real_causes.idle_at_top_clock("auto").materialize(Path(d) / "n")
        with sim_transport(root) as t:
            report = run_triage(t, compile_plan(load_catalog(), ["thermal-throttling"], {}))
    (diag,) = [x for x in report.runbooks[0].diagnoses if x.diagnosis_id == "stuck-at-top-clock-level"]
    assert diag.remediations == () and "although the level is `auto`" in diag.cause


def test_throttle_status_alone_is_not_thermal_throttling(tmp_path) -> None:
    """ROCm/rocm-systems#11781: THROTTLED at idle with zero residency stays healthy, and says why."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import diagnoses, steps, triage_node

    _, report = triage_node(real_causes.throttled_bit_at_idle(), tmp_path, compile_plan(load_catalog(), ["thermal-throttling"], {}))
    v = steps(report)["violations"]
    assert v.state == State.PASS and "throttle_status THROTTLED on GPU 0 is unconfirmed" in v.check.message
    assert v.check.evidence[0].startswith("amd-smi metric --json: gpu 0 throttle_status THROTTLED, socket_thermal_violation_activity 0")
    assert "thermal-throttling" not in diagnoses(report) and report.exit_status == 0


def test_builtin_amdgpu_is_healthy(tmp_path) -> None:
    """No /proc/modules line but /sys/module/amdgpu and KFD: built in, not "not loaded"."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import diagnoses, steps, triage_node

    root, report = triage_node(real_causes.builtin_amdgpu(), tmp_path, compile_plan(load_catalog(), ["gpu-not-visible"], {}))
    assert "amdgpu" not in (root / "proc/modules").read_text()
    assert steps(report)["module"].state == State.PASS and "built-in" in steps(report)["module"].check.message
    assert diagnoses(report) == {} and report.exit_status == 0


def test_optional_firmware_is_informational(tmp_path) -> None:
    """ROCm/legacy-rocm-build#912: a missing trusted-application blob with the GPUs up is never CRITICAL."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import steps, triage_node

    _, report = triage_node(real_causes.optional_firmware_missing(), tmp_path,
                            compile_plan(load_catalog(), ["kernel-driver-mismatch", "gpu-not-visible"], {}))
    fw = [s for rb in report.runbooks for s in rb.steps if s.step_id == "firmware"][0]
    assert fw.state in (State.PASS, State.WARN) and "vega20_ta.bin" in fw.check.message
    assert report.exit_status < 2
    assert all(s.state != State.FAIL for rb in report.runbooks for s in rb.steps), \
        [(s.step_id, s.check.message) for rb in report.runbooks for s in rb.steps if s.state == State.FAIL]


def test_kernel_without_kfd_is_not_called_a_kfd_refusal() -> None:
    report = triage_target(TriageRequest(target="demo:kernel-without-kfd", runbooks=("gpu-not-visible",)))
    rb = report.runbooks[0]
    assert [d.diagnosis_id for d in rb.diagnoses] == ["kernel-without-kfd"]
    assert "the kernel must change" in rb.diagnoses[0].cause
    # a healthy node never asks: KFD is there, the step is skipped
    healthy = triage_target(TriageRequest(target="demo:healthy-mi300x", runbooks=("gpu-not-visible",)))
    assert {s.step_id: s for s in healthy.runbooks[0].steps}["kfd_build"].state == State.SKIPPED


def test_kfd_that_never_started_is_not_a_kernel_or_gpu_problem() -> None:
    report = triage_target(TriageRequest(target="demo:kfd-parameter-invalid", runbooks=("gpu-not-visible",)))
    rb = report.runbooks[0]
    assert [d.diagnosis_id for d in rb.diagnoses] == ["kfd-module-parameter-invalid"]
    assert "It is set in /etc/modprobe.d/amdgpu-tuning.conf:1: `options amdgpu sched_policy=4`." in rb.diagnoses[0].cause
    steps = {s.step_id: s for s in rb.steps}
    assert steps["kernel_log"].check.message == "KFD (ROCm compute) did not start: amdgpu: sched_policy has invalid value"
    assert steps["kfd_build"].state == State.PASS      # CONFIG_HSA_AMD=y: the kernel is not the cause


def test_gfx_override_is_the_target_compared_and_no_rocblas_is_not_judged() -> None:
    node = real_causes.target_without_rocblas_kernels()
    node.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"     # ROCm/rocBLAS#1339's workaround: runs as gfx1030
    report = _triage_sim(node)
    lib = {s.step_id: s for s in report.runbooks[0].steps}["libraries"]
    assert lib.state == State.PASS and lib.check.message.endswith("(gfx1030)")
    node = real_causes.target_without_rocblas_kernels().remove("/opt/rocm/lib/rocblas")
    lib = {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["libraries"]
    assert lib.state == State.SKIPPED and "no rocBLAS under /opt/rocm*/lib/rocblas/library" in lib.skipped_because
    # another release's kernels do not count while /opt/rocm points at this one
    node = real_causes.target_without_rocblas_kernels()
    node.file("/opt/rocm-7.0.0/lib/rocblas/library/TensileLibrary_lazy_gfx1031.dat", "")
    lib = {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["libraries"]
    assert lib.state == State.WARN and lib.check.message.startswith("rocBLAS in /opt/rocm/lib/rocblas/library has no")
    # no /opt/rocm link: the versioned install is the one judged
    node.remove("/opt/rocm/lib/rocblas")
    lib = {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["libraries"]
    assert lib.state == State.PASS and lib.check.evidence == (
        "/opt/rocm-7.0.0/lib/rocblas/library: TensileLibrary index files for gfx1031",)


def _triage_sim(node):
    import tempfile
    from pathlib import Path

    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import triage_node

    with tempfile.TemporaryDirectory() as d:
        return triage_node(node, Path(d), compile_plan(load_catalog(), ["gpu-not-visible"]))[1]


def test_slurm_autodetect_passes_with_the_library_and_is_skipped_off_slurm() -> None:
    node = real_causes.slurm_rsmi_missing()
    node.remove("/var/log/slurm/slurmd.log")
    node.file("/opt/rocm/lib/librocm_smi64.so.7", "")
    step = {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["slurm"]
    # on disk but not in the loader's cache (ROCm/legacy-rocm-build#1665): only an rpath finds it
    assert step.state == State.WARN and "ldconfig -p | grep librocm_smi64: no line" in step.check.evidence
    # `ldconfig -p` line format as in ROCm/legacy-rocm-build#1274
    node.command("ldconfig", "-p", "\tlibrocm_smi64.so.7 (libc6,x86-64) => /opt/rocm/lib/librocm_smi64.so.7\n")
    step = {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["slurm"]
    assert step.state == State.PASS and step.check.message.startswith("AutoDetect=rsmi and slurmd's library is there")
    node.remove("/opt/rocm/lib/librocm_smi64.so.7")      # no complaint logged yet: the missing library decides
    step = {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["slurm"]
    assert step.state == State.FAIL and "no librocm_smi64.so exists" in step.check.message
    # the complaint of a slurmd that has since been restarted with the library present is history
    node.file("/opt/rocm/lib/librocm_smi64.so.7", "")
    node.file("/var/log/slurm/slurmd.log", real_causes.SLURMD_RSMI_MISSING
              + "[2025-09-16T16:31:31.677] slurmd version 25.05.3 started\n")
    step = {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["slurm"]
    assert step.state == State.PASS
    healthy = {s.step_id: s for s in _triage_sim(real_causes.target_without_rocblas_kernels()).runbooks[0].steps}["slurm"]
    assert healthy.state == State.SKIPPED


def test_slurm_autodetect_value_slurmd_does_not_know_and_a_merge_before_restart() -> None:
    # SchedMD in SlinkyProject/slurm-operator#57: "`AutoDetect=amdgpu` is not a valid value for AutoDetect"
    node = real_causes.slurm_gpus_ignored()
    node.file("/etc/slurm/gres.conf", "AutoDetect=amdgpu\n")
    node.remove("/var/log/slurm/slurmd.log")
    rb = _triage_sim(node).runbooks[0]
    step = {s.step_id: s for s in rb.steps}["slurm"]
    assert step.state == State.FAIL and "AutoDetect=amdgpu, a value slurmd does not know" in step.check.message
    assert step.check.evidence[0] == "/etc/slurm/gres.conf:1: AutoDetect=amdgpu"
    assert rb.diagnoses[0].diagnosis_id == "slurm-gres-conf-mismatch"
    assert "not a valid value for AutoDetect" in rb.diagnoses[0].cause
    # slurmd matches the value as a substring, as gres.c does: "RSMI" and "rsmi,nvml" are known
    node.file("/etc/slurm/gres.conf", "AutoDetect=RSMI\n")
    assert {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["slurm"].state == State.PASS
    # the merge a slurmd logged before its last restart is history
    node.file("/var/log/slurm/slurmd.log", real_causes.SLURMD_GPUS_IGNORED
              + "[2025-10-06T15:50:00.000] slurmd version 25.05.3 started\n")
    assert {s.step_id: s for s in _triage_sim(node).runbooks[0].steps}["slurm"].state == State.PASS


def test_igpu_first_device_numbers_follow_numeric_kfd_node_order(tmp_path) -> None:
    # 1 iGPU and 10 discrete GPUs: KFD nodes 1..11. Sorted as text, nodes/10 and nodes/11 would come
    # before nodes/2 and the discrete "device 1" would be the wrong card
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.engine.triage import run_triage
    from rocmdoctor.simnode.gpu import SimGPU
    from rocmdoctor.simnode.node import SimNode, sim_transport

    base = real_causes.igpu_first()
    igpu, dgpu = base.gpus
    dgpus = [SimGPU(index=i, bdf=f"0000:{0x20 + i:02x}:00.0", device_id=dgpu.device_id, subsystem_device_id=dgpu.device_id,
                    market_name=dgpu.market_name, gfx_target=dgpu.gfx_target) for i in range(1, 11)]
    node = SimNode("ws-many", gpus=[igpu, *dgpus])
    root = node.materialize(tmp_path / "node")
    with sim_transport(root) as t:
        report = run_triage(t, compile_plan(load_catalog(), ["gpu-not-visible"], {}))
    igpu_step = {s.step_id: s for s in report.runbooks[0].steps}["igpu"]
    assert igpu_step.state == State.WARN
    assert igpu_step.check.message.endswith("the discrete gfx1100 at 0000:21:00.0 is device 1")


def test_igpu_first_from_a_ticket_that_has_only_rocminfo(tmp_path) -> None:
    """A ticket carries rocminfo, not the KFD topology: its GPU agents, listed in the order HIP
    numbers them, stand in (rocminfo rendered in the real MI300X host's format for the iGPU node)."""
    from rocmdoctor.simnode.formats.rocminfo import render_rocminfo

    out = tmp_path / "bundle" / "commands" / "rocminfo"
    out.mkdir(parents=True)
    (out / "stdout").write_text(render_rocminfo(real_causes.igpu_first().gpus))
    report = triage_target(TriageRequest(target="", bundle=str(tmp_path / "bundle"), runbooks=("gpu-not-visible",)))
    step = next(s for s in report.runbooks[0].steps if s.step_id == "igpu")
    assert step.state == State.WARN
    assert step.check.evidence == ("rocminfo Agent 3 (GPU 0): gfx1036 (integrated) at 12:00.0",
                                   "rocminfo Agent 4 (GPU 1): gfx1100 (discrete) at 03:00.0")


def test_amdsmi_mismatch_names_the_copies_and_the_interpreter_whose_pip_owns_the_package() -> None:
    report = triage_target(TriageRequest(target="demo:amdsmi-python-mismatch", runbooks=("gpu-not-visible",)))
    rb = report.runbooks[0]
    steps = {s.step_id: s for s in rb.steps}
    assert steps["runtime"].check.state == State.WARN  # the tool is broken, the GPUs are listed by rocminfo
    assert "rocminfo lists 8 GPU agent(s)" in steps["runtime"].check.message
    assert 'amd-smi list --json: File "/usr/local/lib/python3.9/site-packages/amdsmi/__init__.py", line 24' in steps["runtime"].check.evidence
    first = rb.diagnoses[0]
    assert first.diagnosis_id == "amdsmi-python-mismatch" and "runtime-missing-gpu" not in [d.diagnosis_id for d in rb.diagnoses]
    assert "asks /opt/rocm-7.0.1/lib/libamd_smi.so for amdsmi_get_gpu_partition_metrics_info" in first.cause
    assert any("`python3.9 -m pip uninstall amdsmi`" in f for f in first.follow_up)
    assert any("cd /opt/rocm-7.1.1/share/amd_smi && python3.9 -m pip install --user .`" in f for f in first.follow_up)
    # the other runbooks' amd-smi steps say why amd-smi failed: the exception, not "Traceback (most recent call last):"
    report = triage_target(TriageRequest(target="demo:amdsmi-python-mismatch", runbooks=("thermal-throttling",)))
    violations = {s.step_id: s for s in report.runbooks[0].steps}["violations"].check
    assert violations.state == State.UNKNOWN
    assert violations.message == ("`amd-smi metric --json` exited 1: AttributeError: /opt/rocm-7.0.1/lib/libamd_smi.so: "
                                  "undefined symbol: amdsmi_get_gpu_partition_metrics_info")


def test_a_package_older_than_the_cli_with_only_the_exception_line(tmp_path) -> None:
    """ROCm/ROCm#5966's amd-smi (7.2.0 CLI, 6.2.4's package): the line as the thread quotes it, no
    traceback around it: the diagnosis holds, with the default interpreter and ROCm path."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy
    from rocmdoctor.testing.triage_helpers import triage_node

    line = "AttributeError: module 'amdsmi.amdsmi_interface' has no attribute 'amdsmi_get_node_handle'"
    node = healthy().stub("amd-smi", f"echo \"{line}\" >&2\nexit 1\n")
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), ["gpu-not-visible"], {}))
    first = report.runbooks[0].diagnoses[0]
    assert first.diagnosis_id == "amdsmi-python-mismatch"
    assert "which lacks amdsmi_get_node_handle, a function the CLI calls" in first.cause
    assert f"amd-smi list --json: {line}" in first.evidence
    assert any("`python3 -m pip uninstall amdsmi`" in f for f in first.follow_up)
    assert any("prepend-path PYTHONPATH /opt/rocm/share/amd_smi" in f for f in first.follow_up)


def test_gfx_override_on_an_isa_compatible_gpu_is_the_known_workaround(tmp_path) -> None:
    """10.3.0 on the RX 6700 XT (gfx1031) of the rocBLAS case: the runtime loads gfx1030 code, which
    rocBLAS ships (ROCm/rocBLAS#1339's workaround); the override step passes and says so."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import triage_node

    node = real_causes.target_without_rocblas_kernels()
    node.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), ["gpu-not-visible"], {}))
    steps = {s.step_id: s for s in report.runbooks[0].steps}
    assert steps["override"].state == State.PASS
    assert steps["override"].check.message == ("HSA_OVERRIDE_GFX_VERSION=10.3.0 (gfx1030) matches the GPUs' own family "
                                               "(gfx1031): the known workaround for a GPU ROCm ships no kernels for")
    assert steps["libraries"].state == State.PASS
    assert "gfx-override-mismatch" not in [d.diagnosis_id for d in report.runbooks[0].diagnoses]


def test_gfx_override_not_in_version_form_is_named(tmp_path) -> None:
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy
    from rocmdoctor.testing.triage_helpers import triage_node

    # libhsakmt's topology.c reads the value with sscanf("%u.%u.%u%c") and fails the GPU's node otherwise
    plan = compile_plan(load_catalog(), ["gpu-not-visible"], {})
    for value, message, diagnosis in [
        ("gfx1030", 'HSA_OVERRIDE_GFX_VERSION is set to "gfx1030", not MAJOR.MINOR.STEPPING (10.3.0)', "gfx-override-invalid-hides-gpus"),
        ("", "HSA_OVERRIDE_GFX_VERSION is defined but empty", "gfx-override-empty-hides-gpus"),
    ]:
        node = healthy()
        node.env["HSA_OVERRIDE_GFX_VERSION"] = value
        _, report = triage_node(node, tmp_path / (value or "empty"), plan)
        s = {s.step_id: s for s in report.runbooks[0].steps}["override"]
        assert s.state == State.FAIL
        assert s.check.message.startswith(message) and f'("HSA_OVERRIDE_GFX_VERSION {value} is invalid")' in s.check.message
        assert s.check.evidence == (f'env: HSA_OVERRIDE_GFX_VERSION="{value}"',)
        assert report.runbooks[0].diagnoses[0].diagnosis_id == diagnosis


def test_a_gfx8_gpu_is_named_only_where_the_runtime_fails_beside_a_newer_one() -> None:
    """#5942's node: the rocminfo step quotes the runtime's failure and every KFD GPU; the same GPUs
    with a rocminfo that starts (ROCm 6.4.1 in #6883), or the RX 580 alone, are not this cause."""
    steps = {s.step_id: s for s in _triage_sim(real_causes.legacy_gpu_breaks_runtime()).runbooks[0].steps}
    ri = steps["rocminfo"]
    assert ri.state == State.FAIL and ri.check.message.startswith("rocminfo failed (HSA_STATUS_ERROR) on a node whose KFD lists gfx803")
    assert ri.check.evidence[0] == "rocminfo: Call returned HSA_STATUS_ERROR: A generic error has occurred."
    assert "KFD GPU 0000:0b:00.0: gfx_target_version 110001 (gfx1101)" in ri.check.evidence
    # rocminfo starts: nothing to say about the old card here (the libraries step still warns on gfx803)
    from rocmdoctor.simnode.node import SimNode

    node = SimNode("ws-rocm641", gpus=real_causes.legacy_gpu_breaks_runtime().gpus, rocm_version="6.4.1")
    report = _triage_sim(node).runbooks[0]
    assert {s.step_id: s for s in report.steps}["rocminfo"].state == State.PASS
    assert "legacy-gpu-breaks-runtime" not in [d.diagnosis_id for d in report.diagnoses]
    # the RX 580 alone failing: the generic failure, not "beside newer GPUs"
    node = real_causes.legacy_gpu_breaks_runtime()
    node.gpus = node.gpus[1:]
    report = _triage_sim(node).runbooks[0]
    ri = {s.step_id: s for s in report.steps}["rocminfo"]
    assert ri.state == State.FAIL and ri.check.message == "rocminfo failed: Call returned HSA_STATUS_ERROR: A generic error has occurred."
    assert "legacy-gpu-breaks-runtime" not in [d.diagnosis_id for d in report.diagnoses]


def test_gfx_override_seen_in_the_runtime_report_names_the_product_and_its_own_target(tmp_path) -> None:
    """The runtime lists each GPU product under the forced target (ROCm/legacy-rocm-build#5696); AMD's
    tables say which target the product is. Another generation fails, another family of the same
    generation warns, another stepping of the same family (the gfx1031 workaround) passes."""
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.testing.triage_helpers import triage_node

    plan = compile_plan(load_catalog(), ["gpu-not-visible"], {})
    node = real_causes.apu_allocations_in_gtt()          # a Radeon 8060S, gfx1151
    node.env["HSA_OVERRIDE_GFX_VERSION"] = "12.0.1"
    step = {s.step_id: s for s in triage_node(node, tmp_path / "a", plan)[1].runbooks[0].steps}["override"]
    assert step.state == State.FAIL
    assert step.check.message.startswith("rocminfo reports the AMD Radeon 8060S as gfx1201, but that product is gfx1151")
    assert step.check.evidence == ("rocminfo: Marketing Name: AMD Radeon 8060S / Name: gfx1201; the product is gfx1151",
                                   'env: HSA_OVERRIDE_GFX_VERSION="12.0.1"')
    node.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0"      # gfx1100 code on gfx1151: same generation
    step = {s.step_id: s for s in triage_node(node, tmp_path / "b", plan)[1].runbooks[0].steps}["override"]
    assert step.state == State.WARN and "as gfx1100, but that product is gfx1151" in step.check.message
    node.env["HSA_OVERRIDE_GFX_VERSION"] = "11.5.0"      # another stepping of gfx115x
    step = {s.step_id: s for s in triage_node(node, tmp_path / "c", plan)[1].runbooks[0].steps}["override"]
    assert step.state == State.PASS


def test_a_forced_target_with_the_variable_unset_where_rocmdoctor_looked_says_so(tmp_path) -> None:
    """The runtime's report decides even when the environment rocmdoctor read lacks the variable;
    the message then sends the engineer to where the runtime's environment differs."""
    import dataclasses

    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan
    from rocmdoctor.simnode.formats import rocminfo
    from rocmdoctor.testing.triage_helpers import triage_node

    node = real_causes.apu_allocations_in_gtt()
    forced = [dataclasses.replace(g, gfx_target="gfx1201") for g in node.gpus]
    node.command("rocminfo", "", rocminfo.render_rocminfo(forced))
    _, report = triage_node(node, tmp_path, compile_plan(load_catalog(), ["gpu-not-visible"], {}))
    step = {s.step_id: s for s in report.runbooks[0].steps}["override"]
    assert step.state == State.FAIL
    assert "yet HSA_OVERRIDE_GFX_VERSION is not set in the environment rocmdoctor read" in step.check.message
    assert step.check.evidence == ("rocminfo: Marketing Name: AMD Radeon 8060S / Name: gfx1201; the product is gfx1151",)
