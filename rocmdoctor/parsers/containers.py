"""`docker inspect NAME` / `podman inspect NAME`: how a container was given the GPUs.

Both print a JSON array of container objects in the Docker Engine API shape
(`ContainerInspectResponse`: `Name`, `State.Running`, `HostConfig.Privileged`,
`HostConfig.Devices[].PathOnHost`, `HostConfig.GroupAdd`, `HostConfig.SecurityOpt`,
`HostConfig.CapAdd`, `Config.Env`); podman fills the same keys for
compatibility. Docker prefixes `Name` with `/`, podman does not.
"""

from __future__ import annotations

import json
from typing import Any

from rocmdoctor.parsers import ParseError, parser

#: the variables that choose a process's GPUs (containers' Env, a ticket's pasted environment)
GPU_VISIBILITY_ENV = ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


def _one(doc: Any) -> dict[str, Any]:
    if isinstance(doc, list):
        if len(doc) != 1:
            raise ParseError(f"expected one container in the inspect array, got {len(doc)}")
        doc = doc[0]
    if not isinstance(doc, dict) or "HostConfig" not in doc or "State" not in doc:
        raise ParseError("not `docker/podman inspect` output: no HostConfig/State")
    return doc


@parser("container_inspect")
def parse_container_inspect(text: str) -> dict[str, Any]:
    """GPU-relevant settings of one container from `docker inspect` / `podman inspect`.

    Returns `{name, id, image, running: bool, status, privileged: bool,
    devices: [host paths], device_map: [{host, container, permissions}],
    group_add: [str], security_opt: [str], cap_add: [str], ipc_mode,
    gpu_env: {VAR: value}}`. `[]` output (no such container) and anything
    not an inspect document raise ParseError.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    c = _one(doc)
    host = c.get("HostConfig") or {}
    state = c.get("State") or {}
    config = c.get("Config") or {}
    devices = host.get("Devices") or []
    env = {}
    for item in config.get("Env") or []:
        key, _, value = item.partition("=")
        if key in GPU_VISIBILITY_ENV:
            env[key] = value
    return {
        "name": (c.get("Name") or "").lstrip("/"),
        "id": c.get("Id"),
        "image": config.get("Image") or c.get("ImageName") or c.get("Image"),
        "running": bool(state.get("Running")),
        "status": state.get("Status"),
        "privileged": bool(host.get("Privileged")),
        "devices": [d.get("PathOnHost") for d in devices],
        "device_map": [{"host": d.get("PathOnHost"), "container": d.get("PathInContainer"),
                        "permissions": d.get("CgroupPermissions")} for d in devices],
        "group_add": list(host.get("GroupAdd") or []),
        "security_opt": list(host.get("SecurityOpt") or []),
        "cap_add": list(host.get("CapAdd") or []),
        "ipc_mode": host.get("IpcMode"),
        "gpu_env": env,
    }
