"""container-mount-failure end to end on simulated nodes: inside a container and from the host
(`docker inspect`, `kubectl get node`), each root cause with its verdict, diagnosis and the
node's own output as evidence; healthy setups stay quiet; unknowns say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.compiler import compile_plan
from rocmdoctor.status import ExitStatus, State
from rocmdoctor.simnode.scenarios import container_mount as cm
from rocmdoctor.simnode.nodes import healthy_no_gpu
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.testing.triage_helpers import diagnoses, steps, triage_node
from rocmdoctor.engine.triage import TriageReport

RUNBOOK = cm.RUNBOOK


def triage(node: SimNode, tmp_path: Path, vars: dict | None = None) -> TriageReport:
    return triage_node(node, tmp_path, compile_plan(load_catalog(), [RUNBOOK], vars or {}))[1]



EXPECT = {
    "container-no-kfd": (State.FAIL, "it was started without --device /dev/kfd", "stat /dev/kfd: No such file or directory"),
    "container-no-dri": (State.FAIL, "it was started without --device /dev/dri", "ls /dev/dri/renderD*: no match"),
    "container-gid-mismatch": (State.FAIL, "ubuntu cannot open /dev/kfd and 8 render node(s)",
                               "id ubuntu: uid=1000(ubuntu) gid=1000(ubuntu) groups=1000(ubuntu),44(video)"),
    "container-started-without-gpus": (State.FAIL, "not privileged and has no GPU device",
                                       "docker inspect trainer: HostConfig.Devices=[] Privileged=false"),
    "container-missing-kfd": (State.FAIL, "container trainer lacks --device /dev/kfd: it has /dev/dri",
                              'HostConfig.Devices=["/dev/dri"]'),
    "container-no-group-add": (State.WARN, "no --group-add video/render", "GroupAdd=[]"),
    "container-seccomp-default": (State.WARN, "default seccomp profile", "SecurityOpt=[]"),
    "k8s-gpus-not-allocatable": (State.FAIL, "amd.com/gpu allocatable 0 (capacity 8) with 8 GPU(s) on the bus",
                                 'status.allocatable["amd.com/gpu"]="0"'),
}


@pytest.mark.parametrize("case", cm.CASES, ids=[c[0] for c in cm.CASES])
def test_each_root_cause(case, tmp_path: Path) -> None:
    name, _desc, build, step, diag, vars = case
    report = triage(build(), tmp_path, vars)
    state, message, line = EXPECT[name]
    s = steps(report)[step]
    assert s.state == state, s.check.message if s.check else s.skipped_because
    assert message in s.check.message
    assert line in "\n".join(s.check.evidence)
    found = diagnoses(report)
    assert list(found) == [diag]
    assert report.exit_status == (ExitStatus.CRITICAL if state == State.FAIL else ExitStatus.WARNING)


def test_every_scenario_is_tested() -> None:
    assert {c[0] for c in cm.CASES} == set(EXPECT)


def test_gid_mismatch_advice_names_the_host_gid(tmp_path: Path) -> None:
    d = diagnoses(triage(cm.container_gid_mismatch(), tmp_path))["device-group-not-usable"]
    assert "--group-add 992" in d.cause
    assert "gid 992 has no name in /etc/group" in d.cause
    assert d.remediations == ()        # nothing safe to do on the node: advice only


def test_run_line_is_exact(tmp_path: Path) -> None:
    d = diagnoses(triage(cm.inspect_no_devices(), tmp_path, {"container": "trainer"}))["container-no-gpu-devices"]
    assert ("`docker run --device /dev/kfd --device /dev/dri --group-add video --group-add render "
            "--security-opt seccomp=unconfined rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0`") in d.cause


def test_healthy_container_is_quiet(tmp_path: Path) -> None:
    report = triage(cm.healthy_container(), tmp_path)
    s = steps(report)
    assert s["where"].check.message == "running inside a container (docker)"
    assert s["devices"].state == State.PASS and s["access"].state == State.PASS
    assert report.exit_status == ExitStatus.OK and diagnoses(report) == {}


def test_healthy_host_with_container_and_k8s_is_quiet(tmp_path: Path) -> None:
    report = triage(cm.healthy_host(), tmp_path, {"container": "trainer", "k8s_node": "mi300x-01"})
    s = steps(report)
    assert s["inspect"].state == State.PASS
    assert s["inspect"].check.message == "container trainer has /dev/kfd, /dev/dri, groups video, render"
    assert s["k8s"].check.message == "Kubernetes node mi300x-01 offers 8 amd.com/gpu"
    assert report.exit_status == ExitStatus.OK and diagnoses(report) == {}


def test_host_without_vars_skips_inspect_and_k8s(tmp_path: Path) -> None:
    report = triage(cm.healthy_host(), tmp_path)
    s = steps(report)
    assert s["inspect"].state == State.SKIPPED and "--var container" in s["inspect"].skipped_because
    assert report.exit_status == ExitStatus.OK


def test_no_gpu_node_is_quiet(tmp_path: Path) -> None:
    report = triage(healthy_no_gpu(), tmp_path, {"container": "trainer"})
    assert report.exit_status == ExitStatus.OK and diagnoses(report) == {}


def test_unknown_container_is_unknown_with_reason(tmp_path: Path) -> None:
    node = cm.healthy_host()
    # docker's answer for a name it does not know (docker CLI: "Error: No such object: NAME", exit 1, `[]`)
    node.command("docker", "inspect ghost", stdout="[]\n", rc=1, stderr="Error: No such object: ghost\n")
    s = steps(triage(node, tmp_path, {"container": "ghost"}))["inspect"]
    assert s.state == State.UNKNOWN
    assert s.check.message == "`docker inspect ghost` exited 1: Error: No such object: ghost"


def test_docker_missing_is_unknown(tmp_path: Path) -> None:
    s = steps(triage(cm.healthy().remove_tool("docker"), tmp_path, {"container": "trainer"}))["inspect"]
    assert s.state == State.UNKNOWN and "docker: command not found" in s.check.message


def test_kubectl_absent_is_not_an_error(tmp_path: Path) -> None:
    s = steps(triage(cm.healthy().remove_tool("kubectl"), tmp_path, {"k8s_node": "mi300x-01"}))["k8s"]
    assert s.state == State.PASS
    assert s.check.message == "kubectl is not installed on this node: the Kubernetes view was not checked"


# --- on the host itself: no /dev/kfd to pass in ---------------------------------------------------

def test_host_whose_kernel_has_no_kfd_is_not_told_to_pass_devices(tmp_path: Path) -> None:
    from rocmdoctor.simnode.scenarios.real_causes import kernel_without_kfd

    report = triage(kernel_without_kfd(), tmp_path)
    assert steps(report)["where"].state == State.PASS          # the host, not a container
    assert list(diagnoses(report)) == ["kernel-without-kfd"]
    d = diagnoses(report)["kernel-without-kfd"]
    assert "/boot/config-6.12.74-flatcar: # CONFIG_HSA_AMD is not set" in d.evidence
    assert "--device" not in d.cause


def test_host_without_dev_kfd_is_sent_to_gpu_not_visible(tmp_path: Path) -> None:
    from rocmdoctor.simnode.scenarios.gpu_not_visible import kfd_node_missing

    report = triage(kfd_node_missing(), tmp_path)
    assert list(diagnoses(report)) == ["host-kfd-missing"]
    assert "--runbook gpu-not-visible" in diagnoses(report)["host-kfd-missing"].cause


# --- a ticket's bundle: kubectl's view and rocm-smi, no PCI bus -----------------------------------

K8S_CASE = Path(__file__).resolve().parents[1] / "incidents/container-mount-failure/k8s-device-plugin-no-amd-gpu-allocatable/bundle"


def _bundle_triage(bundle: Path):
    from rocmdoctor.engine.core import TriageRequest, triage_target

    report = triage_target(TriageRequest(target="ticket", runbooks=(RUNBOOK,), bundle=str(bundle),
                                         vars={"k8s_node": "unnamed"}))
    return {s.step_id: s for s in report.runbooks[0].steps}


def test_bundle_without_the_bus_counts_the_gpus_rocm_smi_lists() -> None:
    s = _bundle_triage(K8S_CASE)["k8s"]
    assert s.state == State.FAIL
    assert s.check.message == ("Kubernetes node unnamed does not advertise amd.com/gpu although 4 GPU(s) are in "
                               "rocm-smi: the AMD device plugin is not running here")
    assert "rocm-smi: 4 GPU row(s) (GPU 1, 2, 3, 4)" in s.check.evidence


def test_bundle_with_neither_bus_nor_rocm_smi_is_unknown(tmp_path: Path) -> None:
    import shutil

    bundle = tmp_path / "b"
    shutil.copytree(K8S_CASE, bundle)
    shutil.rmtree(bundle / "commands/rocm-smi")
    s = _bundle_triage(bundle)["k8s"]
    assert s.state == State.UNKNOWN and s.check.message.startswith("the node's GPUs are not in the evidence")


def test_a_pasted_listing_with_a_numeric_group_is_the_host_s_gid() -> None:
    """ROCm/k8s-device-plugin#39: `ls -l` in a pod shows /dev/kfd's group as 106 (no name in the image)."""
    from rocmdoctor.testing.triage_helpers import triage_runbook

    bundle = Path(__file__).resolve().parents[1] / "incidents" / "container-mount-failure" / \
        "k8s-debian11-pod-nobody-kfd-gid-106-unnamed" / "bundle"
    rb, by_id = triage_runbook(RUNBOOK, bundle=str(bundle))
    access = by_id["access"].check
    assert access.state == State.WARN and "belong to group 106, shown as a bare number (mode 660)" in access.message
    assert "ls -l /dev/kfd: mode 660, group 106 (a number: no name for it here)" in "\n".join(access.evidence)
    assert rb.diagnoses[0].diagnosis_id == "device-group-not-usable" and "--group-add 106" in rb.diagnoses[0].cause
