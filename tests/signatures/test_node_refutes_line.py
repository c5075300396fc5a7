"""A node can refute a log line: a signature's `contradicted` readings, each with the check whose
PASS refutes the line and the outputs that narrow it. The CPU-only node of a mixed cluster is the
real case (ROCm/k8s-device-plugin#175): a GPU DaemonSet or container there is misplaced, and its
"driver unavailable" line must not read as a sick node."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rocmdoctor.testing.cli import captured_demo, run_cli

# verbatim: ROCm/k8s-device-plugin#175 (the labeller on the EPYC node without an AMD GPU)
LABELLER = ("F0106 12:37:25.721352       1 amdgpu.go:151] amdgpu driver unavailable. exiting with exit code 2. "
            "error: stat /sys/module/amdgpu/drivers/: no such file or directory")
# verbatim: l1na-forever/stable-diffusion-rocm-docker#8
DOCKER = ('docker: Error response from daemon: error gathering device information while adding custom device '
          '"/dev/kfd": no such file or directory.')


@pytest.fixture(scope="module")
def cpu_node(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The simulated CPU-only node (no AMD function on its PCI bus) captured as a bundle."""
    return captured_demo("healthy-no-gpu", tmp_path_factory.mktemp("cpu"))


def _with_log(bundle: Path, name: str, text: str) -> Path:
    """A copy of `bundle` with the one ticket file: every attachment of a bundle is read, so tests sharing the
    captured node do not share their logs."""
    bundle = Path(shutil.copytree(bundle, bundle.parent / f"{bundle.name}-{name}", dirs_exist_ok=True))
    f = bundle / "files" / "ticket" / name
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text + "\n")
    return bundle


def _diagnoses(bundle: Path, log: str) -> tuple[int, dict]:
    proc = run_cli("triage", "--from", str(bundle), "--runbook", "container-mount-failure",
                       "--log", f"/ticket/{log}", "--format", "json")
    report = json.loads(proc.stdout)
    (cmf,) = [r for r in report["runbooks"] if r["runbook_id"] == "container-mount-failure"]
    return proc.returncode, cmf


def test_the_device_plugin_line_on_a_cpu_only_node_is_a_misplaced_daemonset(cpu_node: Path) -> None:
    code, cmf = _diagnoses(_with_log(cpu_node, "labeller.log", LABELLER), "labeller.log")
    (d,) = cmf["diagnoses"]
    assert d["diagnosis_id"] == "gpu-daemonset-on-non-gpu-node" and d["confidence"] == "high"
    assert d["evidence"][0] == f"/ticket/labeller.log:1: {LABELLER}"
    assert d["evidence"][1].startswith("gpus: no AMD GPU on the PCI bus: not a GPU node")
    assert "nodeSelector" in d["cause"] and "Nothing is wrong with the node" in d["cause"]
    assert any("kubectl get nodes -L feature.node.kubernetes.io/amd-gpu" in f for f in d["follow_up"])
    # the reading carries its own severity: a warning, not a CRITICAL node
    assert cmf["steps"][0]["state"] == "warn" and code == 1


def test_a_gpu_container_started_on_a_cpu_only_host_is_not_a_host_driver_fault(cpu_node: Path) -> None:
    code, cmf = _diagnoses(_with_log(cpu_node, "docker.txt", DOCKER), "docker.txt")
    (d,) = cmf["diagnoses"]
    assert d["diagnosis_id"] == "gpu-workload-on-non-gpu-node" and d["confidence"] == "medium"
    assert d["evidence"][0] == f"/ticket/docker.txt:1: {DOCKER}"
    assert "run it where the GPUs are" in d["cause"]
    assert code == 1


# verbatim: ROCm/ROCm#4068 (`uname -a` in a WSL 2 distribution)
WSL_UNAME = ("Linux DESKTOP-0O8UKKK 5.15.167.4-microsoft-standard-WSL2 #1 SMP Tue Nov 5 00:21:55 UTC 2024 "
             "x86_64 x86_64 x86_64 GNU/Linux")


def test_the_missing_kfd_under_wsl_is_wsl_not_a_host_driver_fault(tmp_path: Path) -> None:
    """A ticket whose log shows the WSL 2 kernel and docker's missing /dev/kfd: WSL has no amdgpu by design, so the
    line reads as that (pass /dev/dxg), not as a host whose driver is missing."""
    bundle = _with_log(tmp_path, "docker.log", f"{WSL_UNAME}\n{DOCKER}")
    code, cmf = _diagnoses(bundle, "docker.log")
    first = cmf["diagnoses"][0]
    assert first["diagnosis_id"] == "wsl-no-amdgpu"
    assert first["evidence"][0] == f"/ticket/docker.log:2: {DOCKER}"
    assert any("microsoft-standard-WSL2" in ev for ev in first["evidence"][1:])
    assert "--device /dev/dxg" in first["cause"]
    assert "host-driver-missing" not in [d["diagnosis_id"] for d in cmf["diagnoses"]]


def test_the_pci_reading_needs_the_count_it_names(cpu_node: Path, tmp_path: Path) -> None:
    """`outputs: {count: 0}` narrows the PASS: told that the node should have 8 GPUs, the PCI check
    FAILs (8 missing from the bus), nothing refutes the line, and it keeps its usual reading."""
    bundle = _with_log(cpu_node, "labeller.log", LABELLER)
    proc = run_cli("triage", "--from", str(bundle), "--runbook", "container-mount-failure",
                       "--log", "/ticket/labeller.log", "--var", "expect_gpus=8", "--format", "json")
    (cmf,) = [r for r in json.loads(proc.stdout)["runbooks"] if r["runbook_id"] == "container-mount-failure"]
    assert "host-driver-missing" in [d["diagnosis_id"] for d in cmf["diagnoses"]]
    assert "gpu-daemonset-on-non-gpu-node" not in [d["diagnosis_id"] for d in cmf["diagnoses"]]


def test_explain_lists_every_reading_a_node_could_turn_the_line_to() -> None:
    proc = run_cli("explain", DOCKER)
    assert proc.returncode == 0
    assert "but if pci.amd_gpus passes on the node (count = 0): gpu-workload-on-non-gpu-node  [medium]" in proc.stdout
    assert "but if amdgpu.module_loaded passes on the node: docker-daemon-not-on-host  [medium]" in proc.stdout


# verbatim: pytorch/pytorch#70036
TORCH = "RuntimeError: No HIP GPUs are available"


def test_a_job_that_found_no_gpu_on_a_cpu_only_node_ran_in_the_wrong_place(cpu_node: Path) -> None:
    bundle = _with_log(cpu_node, "job.err", TORCH)
    proc = run_cli("triage", "--from", str(bundle), "--runbook", "gpu-not-visible",
                       "--log", "/ticket/job.err", "--format", "json")
    (gnv,) = [r for r in json.loads(proc.stdout)["runbooks"] if r["runbook_id"] == "gpu-not-visible"]
    (d,) = gnv["diagnoses"]
    assert d["diagnosis_id"] == "gpu-workload-on-non-gpu-node"
    assert d["evidence"][0] == f"/ticket/job.err:1: {TORCH}"
    assert "a login node, a CPU-only partition" in d["cause"]
    assert proc.returncode == 1


def _fault_bundle(tmp_path: Path, override: str | None) -> Path:
    """The job log line of ollama/ollama's RDNA2 thread (in the corpus), with or without the override."""
    (tmp_path / "files" / "ticket").mkdir(parents=True)
    (tmp_path / "files" / "ticket" / "job.log").write_text(
        "ollama  | Memory access fault by GPU node-1 (Agent handle: 0x559ee9967590) on address 0x7fe05f439000. "
        "Reason: Page not present or supervisor privilege.\n")
    if override is not None:
        (tmp_path / "env").mkdir()
        (tmp_path / "env" / "HSA_OVERRIDE_GFX_VERSION").write_text(override)
    return tmp_path


@pytest.mark.parametrize("override, first, state", [
    ("11.0.0", "gfx-override-mismatch", "fail"),      # the forced ISA is the first suspect
    (None, "framework-bug-memory-fault", "warn"),       # without it: the program's own access, a warning
])
def test_a_memory_fault_under_a_forced_isa_reads_as_the_override(tmp_path: Path, override: str | None,
                                                                  first: str, state: str) -> None:
    from rocmdoctor.engine.core import TriageRequest, triage_target

    bundle = _fault_bundle(tmp_path, override)
    report = triage_target(TriageRequest(target="", bundle=str(bundle), runbooks=("gpu-hardware-fault",),
                                         vars={"log": "/ticket/job.log"}))
    rb = next(r for r in report.runbooks if r.runbook_id == "gpu-hardware-fault")
    assert rb.diagnoses[0].diagnosis_id == first and rb.state.value == state
    assert any("Memory access fault by GPU node-1" in e for e in rb.diagnoses[0].evidence)
    if override:
        assert any("HSA_OVERRIDE_GFX_VERSION=11.0.0" in e for e in rb.diagnoses[0].evidence)


def test_a_reading_for_an_undecided_check_says_so() -> None:
    """A job log of flux-framework/flux-core#7807 (in the corpus): HIP found no device; a node whose env step cannot
    count the GPUs but sees a visibility variable set reads the variable as the mask."""
    proc = run_cli("explain", "HIP ERROR: hipGetDeviceCount(&ndev) -> 100 (no ROCm-capable device is detected)")
    assert proc.returncode == 0
    assert ("but if visibility.env_masks cannot decide on the node (with set_vars): visibility-variable-masks-gpus  [medium]"
            in proc.stdout)
