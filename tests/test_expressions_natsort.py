"""`natsort`: a glob's paths in the order of their numbers (KFD topology nodes, hwmonN)."""

from __future__ import annotations

from rocmdoctor.catalog.expressions import evaluate


def test_natsort_puts_node_2_before_node_10() -> None:
    nodes = {f"/sys/class/kfd/kfd/topology/nodes/{n}/properties": n for n in (10, 2, 1, 0, 11)}
    assert evaluate("nodes | natsort | map(attribute=1) | list", {"nodes": nodes}) == [0, 1, 2, 10, 11]
    assert evaluate("nodes | dictsort | map(attribute=1) | list", {"nodes": nodes}) == [0, 1, 10, 11, 2]
    assert evaluate("none | natsort | list", {}) == []
