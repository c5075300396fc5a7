from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.modinfo import parse_modinfo
from rocmdoctor.simnode.formats.kernel import render_modinfo


def test_amdkfd_sample():
    info = parse_modinfo(sample("modinfo/amdkfd-4.15.txt"))
    assert info["filename"].endswith("/amdkfd/amdkfd.ko") and info["version"] == "0.7.2"
    assert info["vermagic"] == "4.15.0-23-generic SMP mod_unload"
    assert info["signer"] == "" and info["depends"] == "amd_iommu_v2"
    assert len(info["parm"]) == 3 and info["firmware"] == []
    assert info["parms"]["sched_policy"]["type"] == "int"
    assert info["parms"]["send_sigterm"]["description"].startswith("Send sigterm")


def test_amdgpu_dkms_sample_firmware_list():
    info = parse_modinfo(sample("modinfo/amdgpu-dkms-head.txt"))
    assert "/updates/dkms/" in info["filename"] and info["version"] == "5.11.14"
    assert len(info["firmware"]) == 11 and info["firmware"][0] == "amdgpu/vangogh_gpu_info.bin"


def test_roundtrip():
    src = {"filename": "/lib/modules/6.8.0-45-generic/updates/dkms/amdgpu.ko.zst", "version": "6.8.5",
           "license": "GPL and additional rights", "firmware": ["amdgpu/gc_9_4_3_mec.bin", "amdgpu/psp_13_0_6_sos.bin"],
           "srcversion": "0123456789ABCDEF0123456", "depends": "amddrm_ttm_helper,amdxcp,drm_kms_helper",
           "vermagic": "6.8.0-45-generic SMP preempt mod_unload modversions",
           "parm": ["ras_enable:Enable RAS features on the GPU (0 = disable, 1 = enable, -1 = auto (default)) (int)"]}
    info = parse_modinfo(render_modinfo(src))
    for k, v in src.items():
        assert info[k] == v
    assert info["parms"]["ras_enable"]["type"] == "int"


def test_not_found():
    with pytest.raises(ParseError, match="filename"):
        parse_modinfo("")
    with pytest.raises(ParseError, match="line 1"):
        parse_modinfo("modinfo ERROR Module amdgpu not found.\n")
