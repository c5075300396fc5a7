from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

import json

from rocmdoctor.parsers.kubectl import parse_kubectl_node
from rocmdoctor.simnode.formats.system import render_kubectl_node


def test_healthy_node():
    n = parse_kubectl_node(render_kubectl_node("gpu-07"))
    assert n["name"] == "gpu-07" and n["capacity_gpu"] == 8 and n["allocatable_gpu"] == 8
    assert n["ready"] is True and n["unschedulable"] is False
    assert n["conditions"]["Ready"]["reason"] == "KubeletReady"
    assert get_parser("kubectl_node") is parse_kubectl_node


def test_plugin_fault_and_cordon():
    n = parse_kubectl_node(render_kubectl_node("gpu-07", capacity_gpu=8, allocatable_gpu=0, ready=False,
                                               unschedulable=True,
                                               taints=[{"key": "amd.com/gpu", "value": "unhealthy",
                                                        "effect": "NoSchedule"}]))
    assert (n["capacity_gpu"], n["allocatable_gpu"], n["ready"], n["unschedulable"]) == (8, 0, False, True)
    assert n["taints"] == [{"key": "amd.com/gpu", "value": "unhealthy", "effect": "NoSchedule"}]
    missing = parse_kubectl_node(render_kubectl_node("cpu-01", capacity_gpu=None, allocatable_gpu=None))
    assert missing["capacity_gpu"] is None


def test_list_of_one_and_errors():
    node = json.loads(render_kubectl_node("gpu-07"))
    assert parse_kubectl_node(json.dumps({"kind": "List", "items": [node]}))["name"] == "gpu-07"
    with pytest.raises(ParseError, match="got 2"):
        parse_kubectl_node(json.dumps({"kind": "List", "items": [node, node]}))
    with pytest.raises(ParseError, match="not JSON"):
        parse_kubectl_node('Error from server (NotFound): nodes "gpu-99" not found\n')
    with pytest.raises(ParseError, match="kind != Node"):
        parse_kubectl_node('{"kind": "Pod"}')
