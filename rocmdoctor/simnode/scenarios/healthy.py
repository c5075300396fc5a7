"""The healthy reference nodes: a correct triage of either reports no fault."""

from __future__ import annotations

from rocmdoctor.simnode.nodes import healthy_mi300x, healthy_no_gpu
from rocmdoctor.simnode.scenarios import Scenario

SCENARIOS = [
    Scenario("healthy-mi300x", "healthy 8x AMD Instinct MI300X node, Ubuntu 22.04, ROCm 6.2",
             healthy_mi300x, (), {"state": "pass", "step": None, "diagnosis": None, "vars": {}}),
    Scenario("healthy-no-gpu", "CPU-only node: no AMD GPU on PCI, no amdgpu, no ROCm",
             healthy_no_gpu, (), {"state": "pass", "step": None, "diagnosis": None, "vars": {}}),
]
