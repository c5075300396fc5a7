"""rocminfo parser on real healthy and failing captures."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

FIX = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs/rocminfo"
parse = get_parser("rocminfo")


def test_real_mi300x_x4_host():
    r = parse((FIX / "mi300x-x4.txt").read_text())
    assert r["rock_loaded"] is True and r["runtime_version"] == "1.1" and r["done"] is True
    assert r["errors"] == []
    assert [a["device_type"] for a in r["agents"]] == ["CPU", "CPU", "GPU", "GPU", "GPU", "GPU"]
    gpu = r["gpu_agents"][0]
    assert gpu == {"agent": 3, "name": "gfx942", "marketing_name": "AMD Instinct MI300X",
                   "uuid": "GPU-8d1457e2c20f59d2", "device_type": "GPU", "node": 2, "chip_id": 0x74A1,
                   "compute_units": 304, "max_clock_mhz": 2100, "bdfid": 9728, "pci_bus": "26:00.0",
                   "gfx": "gfx942", "isas": ["amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"],
                   "pool_kb": 201310208}
    assert [a["pci_bus"] for a in r["gpu_agents"]] == ["26:00.0", "46:00.0", "65:00.0", "85:00.0"]
    assert r["agents"][0]["marketing_name"] == "AMD EPYC 9474F 48-Core Processor"


def test_real_kfd_enomem_rocm35():
    r = parse((FIX / "kfd-enomem-rocm3.5.txt").read_text())
    assert r["agents"] == [] and r["done"] is False and r["rock_loaded"] is True
    assert r["errors"][0] == "Unable to open /dev/kfd read-write: Cannot allocate memory"
    assert any("HSA_STATUS_ERROR_OUT_OF_RESOURCES" in e for e in r["errors"])
    assert not any("member of render group" in e for e in r["errors"])   # informational line


def test_real_out_of_resources_rocm29():
    r = parse((FIX / "kfd-enomem-rocm2.9.txt").read_text())
    assert r["errors"][0].startswith("hsa api call failure at: ")
    assert r["errors"][1].startswith("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES")


def test_incompatible_kernel_line_and_disabled_gpu():
    text = ("ROCk module version 6.7.0 is loaded\n"
            "HSA Error: Incompatible kernel and userspace, AMD Instinct MI300X disabled. Upgrade amdgpu.\n")
    r = parse(text)
    assert r["rock_loaded"] is True
    assert r["errors"] == ["HSA Error: Incompatible kernel and userspace, AMD Instinct MI300X disabled. Upgrade amdgpu."]


def test_rock_not_loaded():
    r = parse("ROCk module is NOT loaded, possibly no GPU devices\n")
    assert r["rock_loaded"] is False and r["errors"]


def test_empty_stdout_is_empty_not_an_error():
    assert parse("") == {"rock_loaded": None, "runtime_version": None, "agents": [], "gpu_agents": [],
                         "errors": [], "done": False, "wsl": False, "hsa_status": None, "group_member": None}


@pytest.mark.parametrize("text,errors", [
    # ROCm/ROCm#4435 (rocminfo --support on WSL, RX 7600 XT): the WSL build's first line
    ("WSL environment detected.\nROCR: unsupported GPU\nhsa api call failure at: /long_pathname_so_that_rpms_can_"
     "package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n", ["ROCR: unsupported GPU"]),
    # ROCm/ROCm#4068 (an older WSL build): no such line, but the failure is in its sources/wsl tree
    ("ROCR: unsupported GPU\nhsa api call failure at: ./sources/wsl/tools/rocminfo/rocminfo.cc:1087\n",
     ["ROCR: unsupported GPU"]),
    # ROCm/legacy-rocm-build#5900: Windows exposes no GPU to WSL
    ("WSL environment detected.\npid:6895 tid:0x76bf09cbb100 [topology_sysfs_get_system_props] No WDDM adapters "
     "found.\nhsa_init Failed, possibly no supported GPU devices\n",
     ["pid:6895 tid:0x76bf09cbb100 [topology_sysfs_get_system_props] No WDDM adapters found.",
      "hsa_init Failed, possibly no supported GPU devices"]),
])
def test_the_wsl_build_is_recognised_with_its_refusals(text: str, errors: list[str]) -> None:
    out = parse(text)
    assert out["wsl"] is True and out["gpu_agents"] == []
    assert all(e in out["errors"] for e in errors), out["errors"]


def test_a_native_failure_is_not_wsl():
    out = parse("hsa api call failure at: /src/rocminfo/rocminfo.cc:1142\n")
    assert out["wsl"] is False


def test_rocm2_one_line_failure_with_a_numeric_status():
    # ROCm/legacy-rocm-build#739 (RX 580, ROCm 2.1), verbatim: the whole output
    line = ("hsa api call failure at line 900, file: /data/jenkins_workspace/compute-rocm-rel-2.1/rocminfo/"
            "rocminfo.cc. Call returned 4104")
    out = parse(line + "\n")
    assert out["errors"] == [line]
    assert out["hsa_status"] == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"   # 4104 = 0x1008 in hsa.h


def test_rocm72_generic_status_without_a_suffix():
    # ROCm/legacy-rocm-build#5942 (RX 7800 XT + RX 580, ROCm 7.2.0, Debian 13), verbatim
    text = ("ROCk module version 6.16.13 is loaded\n"
            "hsa api call failure at: /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_"
            "profiles/src/rocm-systems/projects/rocminfo/rocminfo.cc:1329\n"
            "Call returned HSA_STATUS_ERROR: A generic error has occurred.\n")
    out = parse(text)
    assert out["rock_loaded"] is True and out["gpu_agents"] == [] and out["done"] is False
    assert out["errors"][-1] == "Call returned HSA_STATUS_ERROR: A generic error has occurred."
    assert out["hsa_status"] == "HSA_STATUS_ERROR"


def test_status_of_the_usual_failure():
    r = parse((FIX / "kfd-enomem-rocm3.5.txt").read_text())
    assert r["hsa_status"] == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
    assert parse((FIX / "mi300x-x4.txt").read_text())["hsa_status"] is None


def test_garbage_raises():
    with pytest.raises(ParseError):
        parse("bash: rocminfo: command not found\n")


def test_its_own_group_check_that_found_the_user_in_the_group():
    """rocminfo beside an EACCES says the account IS in render (the group database): the running process did
    not hold the group. Verbatim from ROCm/legacy-rocm-build#6142 (in the corpus, gpu-not-visible)."""
    out = parse("ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n"
                "peastman is member of render group\n")
    assert out["group_member"] == {"user": "peastman", "group": "render"}
    assert out["errors"] == ["Unable to open /dev/kfd read-write: Permission denied"]
    assert parse((FIX / "mi300x-x4.txt").read_text())["group_member"] is None


def test_not_loaded_said_without_lsmod_is_no_reading():
    """rocminfo in a container image without kmod: the shell's "lsmod: not found" comes first, so its "ROCk module is
    NOT loaded" says nothing of the driver. Verbatim from ROCm/ROCm-docker#65 (in the corpus, container-mount-failure)."""
    text = (Path(__file__).resolve().parents[1] / "incidents/container-mount-failure"
            / "debian-radeon-vii-docker-rocminfo-no-gpu-until-privileged/bundle/commands/rocminfo/stdout").read_text()
    assert text.startswith("sh: 1: lsmod: not found\nROCk module is NOT loaded")
    assert parse(text)["rock_loaded"] is None
    assert parse("ROCk module is NOT loaded, possibly no GPU devices\n")["rock_loaded"] is False


@pytest.mark.parametrize("name, chip, cus", [("agent-fragment-rx570.txt", 0x67DF, 32),
                                              ("agent-fragment-vega10.txt", 0x687F, 56)])
def test_an_agent_pasted_without_its_banner_is_one_gpu_agent(name: str, chip: int, cus: int) -> None:
    r = parse((FIX / name).read_text())
    assert len(r["agents"]) == 1 and r["gpu_agents"] == r["agents"]
    agent = r["gpu_agents"][0]
    assert agent["device_type"] == "GPU" and agent["chip_id"] == chip and agent["compute_units"] == cus
    assert agent["gfx"] is None     # the ISA lines were not pasted: the Chip ID is what names the target


def test_one_stray_field_line_is_not_an_agent() -> None:
    with pytest.raises(ParseError):
        parse("  Device Type:             GPU\n")


def _case_rocminfo(case: str) -> str:
    return (Path(__file__).resolve().parents[1] / "incidents" / case / "bundle/commands/rocminfo/stdout").read_text()


def test_a_paste_cut_to_its_last_pools_and_isa_names_the_gpu_target() -> None:
    """The tail of a GPU agent from a pool's "Alloc Alignment:" to "*** Done ***", verbatim from ROCm/rocBLAS#1299:
    its ISA line is all that names the GPU, and it is enough to say which target it is."""
    text = _case_rocminfo("gpu-not-visible/gfx1031-ubuntu2004-torch20-rocblas-tensile-dat-unreadable")
    assert text.lstrip().startswith("Alloc Alignment:")
    r = parse(text)
    assert [a["gfx"] for a in r["gpu_agents"]] == ["gfx1031"]
    assert r["gpu_agents"][0]["isas"] == ["amdgcn-amd-amdhsa--gfx1031"] and r["done"] is True


def test_grep_filtered_rocminfo_is_one_agent_per_agent_name_line() -> None:
    """`rocminfo | grep gfx` on a two-GPU MI210 host: each agent's "Name: gfx90a" and its ISA line, verbatim from
    ROCm/ROCm-docker (in the corpus, container-mount-failure)."""
    r = parse(_case_rocminfo("container-mount-failure/rocm-docker-nonroot-uid1000-no-name-healthy"))
    assert [(a["gfx"], a["isas"]) for a in r["gpu_agents"]] == [
        ("gfx90a", ["amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"])] * 2


def test_bare_isa_names_are_one_agent_with_its_specific_target_first() -> None:
    r = parse("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-\namdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-\n")
    assert [a["gfx"] for a in r["gpu_agents"]] == ["gfx942"]
