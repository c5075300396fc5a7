"""`sensors` and `rocm-smi` concise text, as tickets paste them (sources beside each fixture)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError
from rocmdoctor.parsers.rocm_smi_text import parse_rocm_smi_concise
from rocmdoctor.parsers.sensors import parse_sensors

# https://github.com/ROCm/legacy-rocm-build/issues/1468 (MI100, just after boot)
MI100 = """\
amdgpu-pci-2900
Adapter: PCI adapter
vddgfx:       +0.62 V
fan1:           0 RPM  (min =    0 RPM, max = 3850 RPM)
edge:         +53.0°C  (crit = +100.0°C, hyst = -273.1°C)
                       (emerg = +105.0°C)
junction:     +59.0°C  (crit = +100.0°C, hyst = -273.1°C)
                       (emerg = +105.0°C)
mem:          +55.0°C  (crit = +94.0°C, hyst = -273.1°C)
                       (emerg = +99.0°C)
power1:       49.00 W  (cap = 290.00 W)
"""

# https://github.com/ROCm/amdgpu/issues/69 (Vega Frontier: one temp1, no emerg)
VEGA = """\
amdgpu-pci-0300
Adapter: PCI adapter
vddgfx:       +0.90 V  
fan1:        3012 RPM  (min =  400 RPM, max = 4900 RPM)
temp1:        +56.0°C  (crit = +89.0°C, hyst = -273.1°C)
power1:      129.00 W  (cap = 220.00 W)
"""


def test_sensors_mi100_limits_per_sensor() -> None:
    out = parse_sensors(MI100)
    (chip,) = out["chips"]
    assert chip["chip"] == "amdgpu-pci-2900" and chip["pci"] == "29:00"
    mem = next(r for r in out["readings"] if r["label"] == "mem")
    assert (mem["temp"], mem["crit"], mem["emerg"]) == (55.0, 94.0, 99.0)
    assert [r["label"] for r in out["readings"]] == ["edge", "junction", "mem"]
    assert out["fans"] == [{"chip": "amdgpu-pci-2900", "label": "fan1", "rpm": 0, "min": 0, "max": 3850}]
    assert chip["power"] == [{"label": "power1", "watts": 49.0, "cap": 290.0}]


def test_sensors_vega_single_temp_and_other_chips_ignored() -> None:
    text = "k10temp-pci-00c3\nAdapter: PCI adapter\nTctl:         +45.0°C  \n\n" + VEGA
    out = parse_sensors(text)
    assert [c["chip"] for c in out["chips"]] == ["k10temp-pci-00c3", "amdgpu-pci-0300"]
    assert out["readings"] == [{"chip": "amdgpu-pci-0300", "pci": "03:00", "label": "temp1", "temp": 56.0,
                                "crit": 89.0, "emerg": None, "fan_pct": 61.5}]  # 3012 of 4900 RPM


def test_sensors_mangled_degree_sign() -> None:
    out = parse_sensors(MI100.replace("°C", "Â°C"))
    assert out["readings"][0]["temp"] == 53.0 and out["readings"][0]["crit"] == 100.0


def test_sensors_not_sensors_output() -> None:
    with pytest.raises(ParseError):
        parse_sensors("No sensors found!\nMake sure you loaded all the kernel drivers you need.\n")


# https://github.com/ROCm/legacy-rocm-build/issues/561 (ROCm 1.9: iGPU as GPU 0 with N/A)
ROCM19 = """\
====================    ROCm System Management Interface    ====================
================================================================================
 GPU  Temp    AvgPwr   SCLK     MCLK     Fan      Perf    SCLK OD    MCLK OD
  0   N/A     N/A      N/A      N/A      0%       N/A       N/A        N/A
  1   55c     15.0W    852Mhz   167Mhz   10.98%   auto      0%         0%
================================================================================
====================           End of ROCm SMI Log          ====================
"""

# https://github.com/ROCm/k8s-device-plugin/issues/12 (ROCm 4/5)
ROCM4 = """\
========================ROCm System Management Interface========================
================================================================================
GPU  Temp   AvgPwr  SCLK     MCLK    Fan   Perf  PwrCap  VRAM%  GPU%  
1    48.0c  27.0W   1386Mhz  800Mhz  0.0%  auto  225.0W    0%   0%    
2    46.0c  25.0W   1386Mhz  800Mhz  0.0%  auto  225.0W    0%   0%    
================================================================================
==============================End of ROCm SMI Log ==============================
"""

# https://github.com/ROCm/legacy-rocm-build/issues/1752 (no GPU in a VM)
EMPTY = """\
======================= ROCm System Management Interface =======================
WARNING: No AMD GPUs specified
================================= Concise Info =================================
GPU  Temp  AvgPwr  SCLK  MCLK  Fan  Perf  PwrCap  VRAM%  GPU%  
================================================================================
============================= End of ROCm SMI Log ==============================
"""


def test_rocm_smi_19_layout() -> None:
    out = parse_rocm_smi_concise(ROCM19)
    g0, g1 = out["gpus"]
    assert g0["temp_c"] is None and g0["perf"] is None
    assert (g1["gpu"], g1["temp_c"], g1["power_w"], g1["sclk_mhz"], g1["mclk_mhz"], g1["fan_pct"], g1["perf"]) == \
        ("1", 55.0, 15.0, 852, 167, 10.98, "auto")
    assert g1["vram_pct"] is None and g1["pwrcap_w"] is None  # SCLK OD / MCLK OD are not usage
    assert out["readings"] == [{"gpu": "1", "label": "edge", "temp": 55.0, "fan_pct": 10.98}]


def test_rocm_smi_4_layout() -> None:
    out = parse_rocm_smi_concise(ROCM4)
    assert [g["gpu"] for g in out["gpus"]] == ["1", "2"]
    g = out["gpus"][0]
    assert (g["temp_c"], g["temp_sensor"], g["power_w"], g["pwrcap_w"], g["vram_pct"], g["gpu_pct"]) == \
        (48.0, "edge", 27.0, 225.0, 0.0, 0.0)


def test_rocm_smi_6_mi300x_layout() -> None:
    from pathlib import Path

    text = (Path(__file__).parents[1] / "incidents" / "thermal-throttling" / "mi300x-concise-idle-39c" / "bundle"
            / "commands" / "rocm-smi" / "stdout").read_text()
    (g,) = parse_rocm_smi_concise(text)["gpus"]
    assert (g["gpu"], g["temp_c"], g["temp_sensor"], g["power_w"], g["sclk_mhz"], g["mclk_mhz"], g["pwrcap_w"],
            g["vram_pct"], g["gpu_pct"]) == ("0", 39.0, "junction", 191.0, 2105, 900, 750.0, 95.0, 0.0)


def test_rocm_smi_no_gpus_is_an_empty_table_with_the_warning() -> None:
    out = parse_rocm_smi_concise(EMPTY)
    assert out["gpus"] == [] and out["warnings"] == ["No AMD GPUs specified"]


def test_rocm_smi_other_text_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        parse_rocm_smi_concise("ERROR:root:Driver not initialized (amdgpu not found in modules)\n")


# --- `GPU[N] : key: value` views and --showpids --------------------------------------

from rocmdoctor.parsers.rocm_smi_text import parse_rocm_smi_fields, parse_rocm_smi_pids  # noqa: E402


def test_rocm_smi_showmeminfo_vram() -> None:
    # https://github.com/ROCm/legacy-rocm-build/issues/1909
    text = (Path(__file__).parents[1] / "incidents" / "gpu-oom" / "idle-gpu-vram-used-never-zero" / "bundle"
            / "commands" / "rocm-smi --showmeminfo vram" / "stdout").read_text()
    assert parse_rocm_smi_fields(text) == {"gpus": {"0": {"VRAM Total Memory (B)": "4278190080",
                                                           "VRAM Total Used Memory (B)": "108814336"}},
                                           "warnings": []}


def test_rocm_smi_fields_values_keep_their_colons_and_old_layout() -> None:
    # https://github.com/Syllo/nvtop/issues/250 (tabs as printed) and ROCm/ROC-smi#22 (ROCm 1.7 `-a`)
    text = ("GPU[0]\t\t: Card Series: \t\tNavi 31 [Radeon RX 7900 XT/7900 XTX/7900M]\n"
            "GPU[2]\t\t: GFX Version: \t\tgfx1036\n"
            "GPU[0] \t\t: Temperature: 81.0c\n"
            "................................................................................\n")
    out = parse_rocm_smi_fields(text)["gpus"]
    assert out["0"] == {"Card Series": "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]", "Temperature": "81.0c"}
    assert out["2"] == {"GFX Version": "gfx1036"}


def test_rocm_smi_showpids_kfd_open_with_zero_vram() -> None:
    text = (Path(__file__).parents[1] / "incidents" / "gpu-oom" / "mi300-showpids-kfd-open-zero-vram" / "bundle"
            / "commands" / "rocm-smi --showpids" / "stdout").read_text()
    assert parse_rocm_smi_pids(text) == {"processes": [{"pid": 1075718, "name": "kfd_open", "gpus": [0],
                                                       "vram_bytes": 0, "sdma": "0", "cu_occupancy": "0"}]}


def test_rocm_smi_fields_other_text_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        parse_rocm_smi_fields("ERROR:root:Driver not initialized (amdgpu not found in modules)\n")
    with pytest.raises(ParseError):
        parse_rocm_smi_pids("hello\n")


# --- amd-smi's default table, rocm-smi's "Temp (DieEdge)" layout, kubectl describe node ----------

from rocmdoctor.parsers.amd_smi_text import parse_amd_smi_table  # noqa: E402
from rocmdoctor.parsers.kubectl import parse_kubectl_describe_node  # noqa: E402

# https://github.com/ROCm/amdsmi/pull/110 (Strix Halo, amd-smi 26.1.0)
AMD_SMI_TABLE = """\
+------------------------------------------------------------------------------+
| AMD-SMI 26.1.0+e94df3ed      amdgpu version: Linuxver ROCm version: 6.4.1    |
| Platform: Linux Baremetal                                                    |
|-------------------------------------+----------------------------------------|
| BDF                        GPU-Name | Mem-Uti   Temp   UEC       Power-Usage |
| GPU  HIP-ID  OAM-ID  Partition-Mode | GFX-Uti    Fan               Mem-Usage |
|=====================================+========================================|
| 0000:c2:00.0  Radeon 8050S Graphics | N/A      29 °C   0                14 W |
|   0       0     N/A             N/A | 7 %        N/A            3056/8192 MB |
"""

# https://github.com/Umio-Yasuno/amdgpu_top/issues/60 (ROCm 5.x: "Temp (DieEdge)")
ROCM5_DIEEDGE = """\
========================= ROCm System Management Interface =========================
=================================== Concise Info ===================================
GPU  Temp (DieEdge)  AvgPwr  SCLK  MCLK   Fan  Perf  PwrCap  VRAM%  GPU%
0    51.0c           4.0W    0Mhz  96Mhz  0%   auto  100.0W   11%   0%
====================================================================================
=============================== End of ROCm SMI Log ================================
"""


def test_amd_smi_default_table() -> None:
    (g,) = parse_amd_smi_table(AMD_SMI_TABLE)["gpus"]
    assert g == {"bdf": "0000:c2:00.0", "name": "Radeon 8050S Graphics", "gpu": 0, "temp_c": 29.0, "power_w": 14.0,
                 "power_cap_w": None, "mem_util_pct": None, "uec": 0, "gfx_util_pct": 7.0, "mem_used_mb": 3056,
                 "mem_total_mb": 8192}


def test_amd_smi_table_rows_pasted_without_header_with_power_over_cap() -> None:
    # https://github.com/ROCm/rocm-systems/issues/8263 (8x MI325X, amd-smi 26.2.0): two rows of one GPU
    rows = ("| 0000:05:00.0    AMD Instinct MI325X | 0 %      27 °C   0          135/1000 W |\n"
            "|   0       1       6        SPX/NPS1 | 0 %        N/A         46111/262128 MB |\n")
    (g,) = parse_amd_smi_table(rows)["gpus"]
    assert (g["bdf"], g["gpu"], g["power_w"], g["power_cap_w"], g["gfx_util_pct"], g["mem_used_mb"], g["mem_total_mb"]) == \
        ("0000:05:00.0", 0, 135.0, 1000.0, 0.0, 46111, 262128)


def test_amd_smi_table_rejects_other_text() -> None:
    with pytest.raises(ParseError):
        parse_amd_smi_table("usage: amd-smi [-h] ...\n")


def test_rocm_smi_5_dieedge_layout() -> None:
    (g,) = parse_rocm_smi_concise(ROCM5_DIEEDGE)["gpus"]
    assert (g["temp_c"], g["temp_sensor"], g["power_w"], g["sclk_mhz"], g["mclk_mhz"], g["pwrcap_w"], g["vram_pct"]) == \
        (51.0, "edge", 4.0, 0, 96, 100.0, 11.0)


def test_kubectl_describe_node_allocatable_without_amd_gpu() -> None:
    # https://github.com/ROCm/k8s-device-plugin/issues/12
    text = ("Allocatable:\n  cpu:                32\n  ephemeral-storage:  194465094130\n  hugepages-1Gi:      0\n"
            "  hugepages-2Mi:      0\n  memory:             129461548Ki\n  pods:               110\n")
    out = parse_kubectl_describe_node(text)
    assert out["allocatable"]["pods"] == "110" and out["allocatable_gpu"] is None and out["capacity_gpu"] is None


def test_kubectl_describe_node_extended_resource_and_other_text() -> None:
    # https://github.com/NVIDIA/k8s-device-plugin/issues/245 (the Allocatable block as pasted)
    text = ("Allocatable:\n  attachable-volumes-azure-disk:  24\n  cpu:                            5840m\n"
            "  ephemeral-storage:              119716326407\n  hugepages-1Gi:                  0\n"
            "  hugepages-2Mi:                  0\n  memory:                         51573948Ki\n"
            "  nvidia.com/gpu:                 1\n  pods:                           110\n")
    out = parse_kubectl_describe_node(text)
    assert out["allocatable"]["nvidia.com/gpu"] == "1" and out["allocatable_gpu"] is None
    with pytest.raises(ParseError):
        parse_kubectl_describe_node("Name:               127.0.0.1\nRoles:              <none>\n")  # NVIDIA/k8s-device-plugin#33
