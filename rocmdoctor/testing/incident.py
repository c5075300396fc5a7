"""Test doubles for the incident journal, postmortem and TUI tests.

A small catalog of their own (fixtures/incident_catalog, ids `incident_test*`)
keeps those tests stable while the built-in runbooks grow; the nodes are
ordinary SimNodes, so a remediation really changes the simulated node.
"""

from __future__ import annotations

from pathlib import Path

from rocmdoctor.simnode.gpu import mi300x_gpus
from rocmdoctor.simnode.node import SimNode

CATALOG = Path(__file__).parent / "fixtures" / "incident_catalog"


def amdgpu_unloaded_node(directory: Path, *, name: str = "gpu-07", slow_seconds: float = 0) -> Path:
    """An 8x MI300X node whose amdgpu is not loaded (`modprobe amdgpu` fixes it).

    `slowtool` (used by runbook incident_test_slow) sleeps `slow_seconds`
    first: a stand-in for a hung tool on a real host.
    """
    node = SimNode(name, gpus=mi300x_gpus(8)).unload_amdgpu()
    node.stub("slowtool", f"sleep {float(slow_seconds)}\necho ok")
    return node.materialize(directory / name)


def plan_for(runbooks: tuple[str, ...] = ("incident_test_gpu",), vars: dict | None = None):  # type: ignore[no-untyped-def]
    from rocmdoctor.catalog.loader import load_catalog
    from rocmdoctor.engine.compiler import compile_plan

    return compile_plan(load_catalog([str(CATALOG)]), list(runbooks), dict(vars or {}))
