"""`kubectl get node NAME -o json`: what the scheduler thinks this node offers.

The AMD device plugin (ROCm/k8s-device-plugin) advertises GPUs as the extended
resource `amd.com/gpu`; a driver or plugin fault shows as capacity present but
allocatable 0, or the resource missing. Shape: the Kubernetes `Node` object
(`metadata.name`, `spec.unschedulable`, `spec.taints`, `status.capacity`,
`status.allocatable`, `status.conditions[]`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

GPU_RESOURCE = "amd.com/gpu"


def _count(value: Any) -> int | None:
    if value is None:
        return None
    try:
        return int(str(value))
    except ValueError:
        raise ParseError(f"{GPU_RESOURCE} is not a count: {value!r}") from None


@parser("kubectl_node")
def parse_kubectl_node(text: str) -> dict[str, Any]:
    """GPU capacity and health conditions of one node from `kubectl get node NAME -o json`.

    Returns `{name, capacity_gpu: int|None, allocatable_gpu: int|None,
    unschedulable: bool, taints: [{key, value, effect}], labels: {..},
    conditions: {Type: {status, reason, message}}, ready: bool|None}`
    (`*_gpu` None when the node does not advertise `amd.com/gpu`). A `List`
    with exactly one node is accepted. Raises ParseError otherwise.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    if isinstance(doc, dict) and doc.get("kind") == "List":
        items = doc.get("items") or []
        if len(items) != 1:
            raise ParseError(f"expected one node in the List, got {len(items)}")
        doc = items[0]
    if not isinstance(doc, dict) or doc.get("kind") != "Node":
        raise ParseError("not a Kubernetes Node object (kind != Node)")
    status = doc.get("status") or {}
    spec = doc.get("spec") or {}
    meta = doc.get("metadata") or {}
    conditions = {c.get("type"): {"status": c.get("status"), "reason": c.get("reason"),
                                  "message": c.get("message")}
                  for c in status.get("conditions") or []}
    ready = conditions.get("Ready", {}).get("status")
    return {
        "name": meta.get("name"),
        "capacity_gpu": _count((status.get("capacity") or {}).get(GPU_RESOURCE)),
        "allocatable_gpu": _count((status.get("allocatable") or {}).get(GPU_RESOURCE)),
        "unschedulable": bool(spec.get("unschedulable")),
        "taints": [{"key": t.get("key"), "value": t.get("value"), "effect": t.get("effect")}
                   for t in spec.get("taints") or []],
        "labels": dict(meta.get("labels") or {}),
        "conditions": conditions,
        "ready": None if ready is None else ready == "True",
    }


_SECTION = re.compile(r"^(?P<name>[A-Z][A-Za-z ]*):\s*(?P<value>.*)$")
_ENTRY = re.compile(r"^\s+(?P<key>[\w./-]+):\s+(?P<value>\S+)\s*$")


@parser("kubectl_describe_node")
def parse_kubectl_describe_node(text: str) -> dict[str, Any]:
    """`kubectl describe node NAME` (text): `{name, capacity_gpu, allocatable_gpu, capacity: {..},
    allocatable: {..}}` (`*_gpu` None when the node does not advertise amd.com/gpu).

    Real forms: ROCm/k8s-device-plugin#12 (an `Allocatable:` block without amd.com/gpu),
    NVIDIA/k8s-device-plugin#245 (`Capacity:` / `Allocatable:` with an extended GPU
    resource), NVIDIA/k8s-device-plugin#33 (the `Name:` header)."""
    name = None
    blocks: dict[str, dict[str, str]] = {}
    current: str | None = None
    for line in text.splitlines():
        if m := _SECTION.match(line):
            current = m.group("name") if not m.group("value") else None
            if m.group("name") == "Name" and m.group("value"):
                name = m.group("value").strip()
            if current:
                blocks.setdefault(current, {})
            continue
        if current and (e := _ENTRY.match(line)):
            blocks[current][e.group("key")] = e.group("value")
        elif line.strip() and not line.startswith((" ", "\t")):
            current = None
    if "Capacity" not in blocks and "Allocatable" not in blocks:
        raise ParseError("no `Capacity:` or `Allocatable:` block (kubectl describe node)")
    cap, alloc = blocks.get("Capacity", {}), blocks.get("Allocatable", {})
    return {"name": name, "capacity": cap, "allocatable": alloc,
            "capacity_gpu": _count(cap.get(GPU_RESOURCE)), "allocatable_gpu": _count(alloc.get(GPU_RESOURCE))}
