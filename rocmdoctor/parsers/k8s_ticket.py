"""What a ticket pastes of Kubernetes' view of a node's AMD GPUs, in whichever form it comes.

Real forms (each from a public thread):
- `kubectl describe node` blocks, often cut to the labels and the `Capacity:` / `Allocatable:` blocks
  (ROCm/gpu-operator#382: `amd.com/gpu: 0` beside `amd.com/spx_nps1: 63`, under the label
  `dcm.amd.com/gpu-config-profile=cpx-nps4`);
- jsonpath-style lines `status.capacity.amd.com/gpu: 0` (projectbluefin, a node's summary);
- the kubelet's device-manager checkpoint, `{"RegisteredDevices":{"amd.com/gpu":[]}}`
  (/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint; ROCm/k8s-device-plugin, a CPX node);
- the AMD device plugin's own log (ROCm/k8s-device-plugin#40): its banner, the manager's discovery, and a
  "gpu: Starting plugin server" line only when it found /sys/class/kfd (its main.go starts the `gpu`
  plugin only then).

The AMD device plugin advertises whole GPUs as `amd.com/gpu` and, with the GPU operator's partitioning
(DCM) and its "mixed" resource naming, partitions as `amd.com/<compute>_<memory>` (`cpx_nps4`); the
node's configured profile is the label `dcm.amd.com/gpu-config-profile`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser
from rocmdoctor.parsers.kubectl import parse_kubectl_describe_node

_JSONPATH = re.compile(r"^\s*status\.(capacity|allocatable)\.(amd\.com/[\w.-]+):\s+(\d+)\s*$")
_PROFILE = re.compile(r"dcm\.amd\.com/gpu-config-profile=(?P<profile>[a-z]+-nps\d+)\b")
_CHECKPOINT = re.compile(r'\{"RegisteredDevices":\{.*?\}\}')
_PARTITION = re.compile(r"^amd\.com/(?P<compute>[a-z]+px)_(?P<memory>nps\d+)$")
# ROCm/k8s-device-plugin's log (glog through kubevirt's device-plugin-manager): its banner, the manager's
# "Starting Discovery on new plugins", then per resource "<name>: Starting plugin server" once found
_BANNER = re.compile(r"\bAMD GPU device plugin for Kubernetes\b")
_DISCOVERY = re.compile(r"\bStarting Discovery on new plugins\b")
_STARTED = re.compile(r"\] (?P<name>[\w.-]{1,40}): Starting plugin server\b")
# Go's runtime: an unrecovered panic ends the process ("panic: runtime error: ..."), the device plugin's too
_PANIC = re.compile(r"^panic: \S.{0,200}")


@parser("k8s_ticket")
def parse_k8s_ticket(text: str) -> dict[str, Any]:
    """`{found, capacity: {resource: n}, allocatable: {resource: n}, registered: {resource: n} | None,
    profile: "cpx-nps4" | None, partitions: {resource: n}, gpu_capacity, gpu_allocatable,
    plugin_log: {banner, discovery, started: [resource names], panic: first Go panic line | None} | None}`.

    `partitions` are the advertised partition resources (`amd.com/spx_nps1`) with a count above 0; a
    `*_gpu` value is None when the text does not give it. Never fails: text without any of the forms
    is `found: False`."""
    # the Capacity/Allocatable blocks as `kubectl describe node` prints them, however cut
    try:
        described = parse_kubectl_describe_node(text)
    except ParseError:
        described = {"capacity": {}, "allocatable": {}}
    capacity = {k: int(v) for k, v in described["capacity"].items() if k.startswith("amd.com/") and v.isdigit()}
    allocatable = {k: int(v) for k, v in described["allocatable"].items() if k.startswith("amd.com/") and v.isdigit()}
    registered: dict[str, int] | None = None
    profile = None
    banner = discovery = False
    started: list[str] = []
    panic: str | None = None
    for line in text.splitlines():
        banner = banner or bool(_BANNER.search(line))
        if banner and panic is None and (p := _PANIC.match(line)):
            panic = p.group(0).strip()
        discovery = discovery or bool(_DISCOVERY.search(line))
        if m := _STARTED.search(line):
            started.append(m.group("name"))
        if m := _PROFILE.search(line):
            profile = m.group("profile")
        if m := _JSONPATH.match(line):
            (capacity if m.group(1) == "capacity" else allocatable)[m.group(2)] = int(m.group(3))
            continue
        if m := _CHECKPOINT.search(line):
            try:
                devices = json.loads(m.group(0))["RegisteredDevices"]
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(devices, dict):
                registered = {k: len(v) if isinstance(v, list) else 0 for k, v in devices.items()
                              if k.startswith("amd.com/")}
    seen = {**capacity, **allocatable}
    partitions = {r: n for r, n in seen.items() if _PARTITION.match(r) and n > 0}
    found = bool(capacity or allocatable or registered)
    plugin_log = {"banner": banner, "discovery": discovery, "started": started, "panic": panic} if banner else None
    return {"found": found or plugin_log is not None, "capacity": capacity, "allocatable": allocatable,
            "registered": registered, "profile": profile, "partitions": partitions, "plugin_log": plugin_log,
            "gpu_capacity": capacity.get("amd.com/gpu"), "gpu_allocatable": allocatable.get("amd.com/gpu")}

