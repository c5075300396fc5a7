"""`kubectl get node NAME -o json`: what the scheduler thinks this node offers.

The AMD device plugin (ROCm/k8s-device-plugin) advertises GPUs as the extended
resource `amd.com/gpu`; a driver or plugin fault shows as capacity present but
allocatable 0, or the resource missing. Shape: the Kubernetes `Node` object
(`metadata.name`, `spec.unschedulable`, `spec.taints`, `status.capacity`,
`status.allocatable`, `status.conditions[]`).
"""

from __future__ import annotations

import json
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
