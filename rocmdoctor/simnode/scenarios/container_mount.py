"""Simulated container-mount-failure incidents: inside a container (the healthy MI300X host's
view, plus /.dockerenv), and from the host through `docker inspect` / `kubectl get node`.

Formats: `docker inspect` from formats.system.render_container_inspect (Docker Engine API
ContainerInspectResponse), `kubectl get node -o json` from render_kubectl_node (Kubernetes
Node v1, amd.com/gpu as ROCm/k8s-device-plugin advertises it). /.dockerenv is the empty file
Docker creates in every container's root.
"""

from __future__ import annotations

from typing import Callable

from rocmdoctor.simnode.formats.system import render_container_inspect
from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy
from rocmdoctor.simnode.scenarios import from_cases
from rocmdoctor.simnode.node import SimNode

RUNBOOK = "container-mount-failure"
CONTAINER = "trainer"
#: ROCm's documented run line (ROCm docs "Running ROCm Docker containers")
GOOD = dict(devices=("/dev/kfd", "/dev/dri"), group_add=("video", "render"),
            security_opt=("seccomp=unconfined",), image="rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0")


def _inside(node: SimNode) -> SimNode:
    node.file("/.dockerenv", "", mode=0o755)
    return node


def healthy_container() -> SimNode:
    """Inside a correctly started container: all devices present, running as root."""
    return _inside(healthy())


def healthy_host(**overrides: object) -> SimNode:
    """The host, with container `trainer` started by the documented run line (plus overrides)."""
    node = healthy()
    opts = {**GOOD, **overrides}
    node.command("docker", f"inspect {CONTAINER}", stdout=render_container_inspect(CONTAINER, **opts))  # type: ignore[arg-type]
    return node


def container_no_kfd() -> SimNode:
    """Inside a container started with `--device /dev/dri` only: no /dev/kfd."""
    return _inside(healthy()).remove("/dev/kfd")


def container_no_dri() -> SimNode:
    """Inside a container started with `--device /dev/kfd` only: no /dev/dri."""
    return _inside(healthy()).remove("/dev/dri")


def container_gid_mismatch() -> SimNode:
    """Host render gid 992 (RHEL-style system gid) is unknown in the image; user ubuntu is not in it."""
    node = _inside(healthy()).add_user("ubuntu", 1000, ("video",))
    node.login_user = "ubuntu"
    node.device("/dev/kfd", mode="660", group=992, major=511, minor=0)
    for g in node.gpus:
        node.device(f"/dev/dri/renderD{g.render_minor}", mode="660", group=992, major=226, minor=g.render_minor)
    return node


def inspect_no_devices() -> SimNode:
    """`docker run rocm/pytorch` without any --device and not privileged."""
    return healthy_host(devices=(), group_add=())


def inspect_no_kfd() -> SimNode:
    """Started with `--device /dev/dri` but no `--device /dev/kfd`."""
    return healthy_host(devices=("/dev/dri",))


def inspect_no_group_add() -> SimNode:
    """Devices passed, but no `--group-add video/render`."""
    return healthy_host(group_add=())


def inspect_seccomp_default() -> SimNode:
    """Devices and groups passed, default seccomp profile."""
    return healthy_host(security_opt=())


def k8s_not_allocatable() -> SimNode:
    """The device plugin reports every GPU unhealthy: amd.com/gpu capacity 8, allocatable 0."""
    from rocmdoctor.simnode.formats.system import (DEVICE_PLUGIN_LOG, DEVICE_PLUGIN_START, render_cri_log,
                                                   render_kubectl_node)

    node = healthy()
    node.command("kubectl", f"get node {node.name} -o json",
                 stdout=render_kubectl_node(node.name, capacity_gpu=8, allocatable_gpu=0))
    node.file(DEVICE_PLUGIN_LOG, render_cri_log(DEVICE_PLUGIN_START))   # the fingerprint reads its version
    return node


#: (demo name, description, builder, decisive step, diagnosis, vars)
CASES: list[tuple[str, str, Callable[[], SimNode], str, str, dict[str, str]]] = [
    ("container-no-kfd", "inside a container started without --device /dev/kfd",
     container_no_kfd, "devices", "devices-not-passed", {}),
    ("container-no-dri", "inside a container started without --device /dev/dri",
     container_no_dri, "devices", "devices-not-passed", {}),
    ("container-gid-mismatch", "in a container, /dev/kfd belongs to host gid 992, not among the user's groups",
     container_gid_mismatch, "access", "device-group-not-usable", {}),
    ("container-started-without-gpus", "docker inspect trainer: no devices, not privileged",
     inspect_no_devices, "inspect", "container-no-gpu-devices", {"container": CONTAINER}),
    ("container-missing-kfd", "docker inspect trainer: /dev/dri passed, /dev/kfd not",
     inspect_no_kfd, "inspect", "container-missing-device", {"container": CONTAINER}),
    ("container-no-group-add", "docker inspect trainer: devices passed without --group-add video/render",
     inspect_no_group_add, "inspect", "container-no-group-add", {"container": CONTAINER}),
    ("container-seccomp-default", "docker inspect trainer: default seccomp profile (warning)",
     inspect_seccomp_default, "inspect", "container-seccomp-default", {"container": CONTAINER}),
    ("k8s-gpus-not-allocatable", "Kubernetes: amd.com/gpu allocatable 0 of capacity 8 on this node",
     k8s_not_allocatable, "k8s", "k8s-gpus-not-allocatable", {"k8s_node": "mi300x-01"}),
]


SCENARIOS = from_cases(CASES, (RUNBOOK,))
