"""rocm_bandwidth_test -v: the real 1.0.0 report of ROCm/legacy-rocm-build#559 and the current
layout (device lines with UUID and bus address) as the simulated node renders it."""

from __future__ import annotations

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.rocm_bandwidth import parse_rocm_bandwidth_validation
from rocmdoctor.simnode.formats.rocm_bandwidth import validation_report
from rocmdoctor.simnode.scenarios.gpu_oom import healthy
from rocmdoctor.testing.corpus import ROOT

REAL_559 = (ROOT / "gpu-hardware-fault" / "vega-fe-pcie-riser-copy-validation-fail" / "bundle" / "files"
            / "ticket" / "rocm_bandwidth_test.txt")


def test_real_report_host_paths_fail() -> None:
    r = parse_rocm_bandwidth_validation(REAL_559.read_text())
    assert r["devices"][0]["kind"] == "cpu" and r["devices"][1]["kind"] == "device"
    assert r["devices"][1]["label"] == "device 1 (Vega 10 XTX [Radeon Vega Frontier Edition])"
    assert [(p["src"], p["dst"], p["result"]) for p in r["paths"]] == [
        (0, 0, "N/A"), (0, 1, "FAIL"), (1, 0, "FAIL"), (1, 1, "PASS")]
    assert [(f["src"], f["dst"], f["kind"]) for f in r["failed"]] == [(0, 1, "host-gpu"), (1, 0, "host-gpu")]
    assert r["passed"] == 1
    # the Device Access matrix before it (same D/D header, 1/0 cells) is not taken for it
    assert r["lines"] == ["    D/D       0           1", "    0         N/A         FAIL", "    1         FAIL        PASS"]


def test_current_layout_names_gpus_by_bus_address() -> None:
    node = healthy()
    text = validation_report(node.gpus, {(2, 3), (3, 3)})
    r = parse_rocm_bandwidth_validation(text)
    assert len(r["devices"]) == 10 and r["devices"][3]["kind"] == "gpu"
    assert r["devices"][3]["bdf"] == node.gpus[1].bdf[5:7] + ":0.0"
    assert r["devices"][3]["uuid"].startswith("GPU-")
    kinds = {(f["src"], f["dst"]): f["kind"] for f in r["failed"]}
    assert kinds == {(2, 3): "gpu-gpu", (3, 3): "within-device"}
    assert r["passed"] == 10 * 10 - 4 - 2


@pytest.mark.parametrize("text,match", [
    ("Data Path Validation\n\nD/D  0  1\n\n0  N/A\n", "has 1 results for 2 devices"),
    ("Data Path Validation\n\nnothing here\n", "without its matrix"),
])
def test_not_a_validation_report_is_said(text: str, match: str) -> None:
    with pytest.raises(ParseError, match=match):
        parse_rocm_bandwidth_validation(text)


@pytest.mark.parametrize("text", [
    "RocmBandwidthTest Version: 2.6.0\n\nDevice: 0,  AMD EPYC 9474F 48-Core Processor\n",   # run without -v
    "epoch 1 loss 0.31\nepoch 2 loss 0.27\n",                                               # a job's own log
    "",
])
def test_text_without_a_validation_section_is_found_false(text: str) -> None:
    r = parse_rocm_bandwidth_validation(text)
    assert r["found"] is False and r["paths"] == [] and r["failed"] == [] and r["passed"] == 0


REAL_NO_P2P = (ROOT / "gpu-hardware-fault" / "rx7900xtx-pair-no-p2p-in-bandwidth-test" / "bundle" / "files"
               / "ticket" / "rocm-bandwidth-test.log")


def test_access_matrix_names_gpu_pairs_without_peer_access() -> None:
    """rocm_bandwidth_test 2.6.0 without -v on two RX 7900 XTX (ROCm/rocm_bandwidth_test thread in the
    corpus): the runtime gave the GPUs no access to each other; host paths all 1."""
    r = parse_rocm_bandwidth_validation(REAL_NO_P2P.read_text())
    assert r["found"] is False and r["failed"] == []
    assert [(p["src"], p["dst"]) for p in r["no_peer"]] == [(1, 2)]
    assert r["no_peer"][0]["src_name"] == "device 1 (Radeon RX 7900 XTX, 83:0.0)"
    assert r["access_lines"][0].strip().startswith("D/D") and len(r["access_lines"]) == 4


def test_access_matrix_of_a_healthy_report_has_no_pairs() -> None:
    r = parse_rocm_bandwidth_validation(validation_report(healthy().gpus, set()))
    assert r["no_peer"] == []


REAL_787 = (ROOT / "gpu-hardware-fault" / "p2p-x99-wx8200-no-peer-access-unresolved" / "bundle" / "files"
            / "ticket" / "rocm_bandwidth_test.log")


def test_version_2_0_1_names_gpus_by_bus_address_and_its_device_access_matrix() -> None:
    """RocmBandwidthTest 2.0.1 (ROCm/legacy-rocm-build#787): a GPU's line ends in its bus address without a UUID,
    and its access matrix is headed "Device Access"; the two WX 8100s get no peer access."""
    r = parse_rocm_bandwidth_validation(REAL_787.read_text())
    assert [(d["kind"], d["bdf"], d["uuid"]) for d in r["devices"].values()] == [
        ("cpu", None, None), ("gpu", "0d:0.0", None), ("gpu", "07:0.0", None)]
    assert [(p["src"], p["dst"]) for p in r["no_peer"]] == [(1, 2)]
    assert r["no_peer"][0]["dst_name"] == "device 2 (Vega 10 [Radeon PRO WX 8100], 07:0.0)"
