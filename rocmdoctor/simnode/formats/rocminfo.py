"""`rocminfo` output for simulated hosts: healthy agent listing and the real failure texts.

Layout copied from a real 4x MI300X host (fixtures/outputs/rocminfo/mi300x-x4.txt,
source thamada/nvidia-smi@b09ef13/gls/MI300X_x4_rocminfo.py): rocminfo pads each
label to 25 columns past its indent and most values to 35 columns, so lines
carry trailing blanks; the test renders that host's GPUs and compares bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rocmdoctor.simnode.gpu import SimGPU

_HEADER = (
    "=====================    \n"
    "HSA System Attributes    \n"
    "=====================    \n"
    "Runtime Version:         1.1\n"
    "System Timestamp Freq.:  1000.000000MHz\n"
    "Sig. Max Wait Duration:  18446744073709551615 (0xFFFFFFFFFFFFFFFF) (timestamp count)\n"
    "Machine Model:           LARGE                              \n"
    "System Endianness:       LITTLE                             \n"
    "Mwaitx:                  DISABLED\n"
    "DMAbuf Support:          YES\n"
    "\n"
    "==========               \n"
    "HSA Agents               \n"
    "==========               \n"
)


@dataclass
class CpuAgent:
    name: str = "AMD EPYC 9474F 48-Core Processor"
    pool_kb: int = 1188729676
    compute_units: int = 96
    max_clock_mhz: int = 3600


# the two sockets of the real MI300X host
DEFAULT_CPUS = (CpuAgent(), CpuAgent(pool_kb=1188954608))


def _l(indent: int, label: str, value: str | None = None, pad: bool = True) -> str:
    line = (" " * indent + label).ljust(indent + 25)
    if value is None:
        return line + "\n"
    return line + (value.ljust(35) if pad else value) + "\n"


def _hx(n: int) -> str:
    return f"{n}(0x{n:x})"


def _pool(indent: int, num: int, segment: str, size: str, alloc: str, granule: str,
          access: str) -> str:
    i = indent + 2
    return (_l(indent, f"Pool {num}") + _l(i, "Segment:", segment) + _l(i, "Size:", size)
            + _l(i, "Allocatable:", alloc) + _l(i, "Alloc Granule:", granule)
            + _l(i, "Alloc Alignment:", granule) + _l(i, "Accessible by all:", access))


def _agent_head(num: int) -> str:
    return "*******".ljust(25) + "\n" + f"Agent {num}".ljust(25) + "\n" + "*******".ljust(25) + "\n"


def _cpu_agent(num: int, node: int, cpu: CpuAgent) -> str:
    size = f"{_hx(cpu.pool_kb)} KB"
    out = _agent_head(num)
    for label, value in (("Name:", cpu.name), ("Uuid:", "CPU-XX"), ("Marketing Name:", cpu.name),
                         ("Vendor Name:", "CPU"), ("Feature:", "None specified"),
                         ("Profile:", "FULL_PROFILE"), ("Float Round Mode:", "NEAR"),
                         ("Max Queue Number:", _hx(0)), ("Queue Min Size:", _hx(0)),
                         ("Queue Max Size:", _hx(0)), ("Queue Type:", "MULTI"),
                         ("Node:", str(node)), ("Device Type:", "CPU")):
        out += _l(2, label, value)
    out += _l(2, "Cache Info:") + _l(4, "L1:", "32768(0x8000) KB")
    for label, value in (("Chip ID:", _hx(0)), ("ASIC Revision:", _hx(0)),
                         ("Cacheline Size:", _hx(64)), ("Max Clock Freq. (MHz):", str(cpu.max_clock_mhz)),
                         ("BDFID:", "0"), ("Internal Node ID:", str(node)),
                         ("Compute Unit:", str(cpu.compute_units)), ("SIMDs per CU:", "0"),
                         ("Shader Engines:", "0"), ("Shader Arrs. per Eng.:", "0"),
                         ("WatchPts on Addr. Ranges:", "1")):
        out += _l(2, label, value)
    out += _l(2, "Features:", "None", pad=False) + _l(2, "Pool Info:")
    for num_, seg in enumerate(("GLOBAL; FLAGS: FINE GRAINED", "GLOBAL; FLAGS: KERNARG, FINE GRAINED",
                                "GLOBAL; FLAGS: COARSE GRAINED"), 1):
        out += _pool(4, num_, seg, size, "TRUE", "4KB", "TRUE")
    return out + _l(2, "ISA Info:")


def _dims(indent: int, x: str, y: str, z: str) -> str:
    return _l(indent, "x", x) + _l(indent, "y", y) + _l(indent, "z", z)


def rocminfo_uuid(gpu: SimGPU) -> str:
    """rocminfo's `GPU-<unique id>`: the 64-bit unique id rocm-smi also prints (from the serial)."""
    return "GPU-" + gpu.serial.lower().removeprefix("0x")


def bdfid(gpu: SimGPU) -> int:
    """rocminfo's BDFID: (bus << 8) | (device << 3) | function, domain dropped."""
    bus, devfn = gpu.bdf.split(":")[1:]
    dev, fn = devfn.split(".")
    return (int(bus, 16) << 8) | (int(dev, 16) << 3) | int(fn)


def _gpu_agent(num: int, node: int, g: SimGPU) -> str:
    vram = f"{_hx(g.vram_total // 1024)} KB"
    grid = "4294967295(0xffffffff)"
    out = _agent_head(num)
    for label, value in (("Name:", g.gfx_target), ("Uuid:", rocminfo_uuid(g)),
                         ("Marketing Name:", g.market_name), ("Vendor Name:", "AMD"),
                         ("Feature:", "KERNEL_DISPATCH"), ("Profile:", "BASE_PROFILE"),
                         ("Float Round Mode:", "NEAR"), ("Max Queue Number:", _hx(128)),
                         ("Queue Min Size:", _hx(64)), ("Queue Max Size:", _hx(131072)),
                         ("Queue Type:", "MULTI"), ("Node:", str(node)), ("Device Type:", "GPU")):
        out += _l(2, label, value)
    out += (_l(2, "Cache Info:") + _l(4, "L1:", "32(0x20) KB") + _l(4, "L2:", "32768(0x8000) KB")
            + _l(4, "L3:", "262144(0x40000) KB"))
    for label, value in (("Chip ID:", _hx(g.device_id)), ("ASIC Revision:", _hx(1)),
                         ("Cacheline Size:", _hx(64)), ("Max Clock Freq. (MHz):", str(g.sclk_max_mhz)),
                         ("BDFID:", str(bdfid(g))), ("Internal Node ID:", str(node)),
                         ("Compute Unit:", "304"), ("SIMDs per CU:", "4"), ("Shader Engines:", "32"),
                         ("Shader Arrs. per Eng.:", "1"), ("WatchPts on Addr. Ranges:", "4"),
                         ("Coherent Host Access:", "FALSE")):
        out += _l(2, label, value)
    out += _l(2, "Features:", "KERNEL_DISPATCH ", pad=False)
    out += (_l(2, "Fast F16 Operation:", "TRUE") + _l(2, "Wavefront Size:", _hx(64))
            + _l(2, "Workgroup Max Size:", _hx(1024)) + "  Workgroup Max Size per Dimension:\n"
            + _dims(4, _hx(1024), _hx(1024), _hx(1024))
            + _l(2, "Max Waves Per CU:", _hx(32)) + _l(2, "Max Work-item Per CU:", _hx(2048))
            + _l(2, "Grid Max Size:", grid) + "  Grid Max Size per Dimension:\n"
            + _dims(4, grid, grid, grid)
            + _l(2, "Max fbarriers/Workgrp:", "32") + _l(2, "Packet Processor uCode::", "138")
            + _l(2, "SDMA engine uCode::", "19") + _l(2, "IOMMU Support::", "None")
            + _l(2, "Pool Info:"))
    for n, seg in enumerate(("GLOBAL; FLAGS: COARSE GRAINED", "GLOBAL; FLAGS: EXTENDED FINE GRAINED",
                             "GLOBAL; FLAGS: FINE GRAINED"), 1):
        out += _pool(4, n, seg, vram, "TRUE", "4KB", "FALSE")
    out += _pool(4, 4, "GROUP", "64(0x40) KB", "FALSE", "0KB", "FALSE")
    out += (_l(2, "ISA Info:") + _l(4, "ISA 1")
            + _l(6, "Name:", f"amdgcn-amd-amdhsa--{g.gfx_target}:sramecc+:xnack-")
            + _l(6, "Machine Models:", "HSA_MACHINE_MODEL_LARGE")
            + _l(6, "Profiles:", "HSA_PROFILE_BASE")
            + _l(6, "Default Rounding Mode:", "NEAR") + _l(6, "Default Rounding Mode:", "NEAR")
            + _l(6, "Fast f16:", "TRUE") + _l(6, "Workgroup Max Size:", _hx(1024))
            + "      Workgroup Max Size per Dimension:\n" + _dims(8, _hx(1024), _hx(1024), _hx(1024))
            + _l(6, "Grid Max Size:", grid) + "      Grid Max Size per Dimension:\n"
            + _dims(8, grid, grid, grid) + _l(6, "FBarrier Max Size:", "32"))
    return out


# Format: real `rocminfo` of a healthy 4x MI300X host (fixtures/outputs/rocminfo/mi300x-x4.txt,
# thamada/nvidia-smi@b09ef13 gls/MI300X_x4_rocminfo.py). `errors` are extra lines printed
# after the first line, e.g. the KD-3 `HSA Error: Incompatible kernel and userspace, ...`.
def render_rocminfo(gpus: Sequence[SimGPU], cpu_agents: Sequence[CpuAgent] = DEFAULT_CPUS,
                    errors: Sequence[str] = ()) -> str:
    out = "ROCk module is loaded\n" + "".join(e + "\n" for e in errors) + _HEADER
    num = 1
    for node, cpu in enumerate(cpu_agents):
        out += _cpu_agent(num, node, cpu)
        num += 1
    for i, g in enumerate(gpus):
        out += _gpu_agent(num, len(cpu_agents) + i, g)
        num += 1
    return out + "*** Done ***".ljust(25) + "\n"


# Format: real rocminfo failure when ROCr cannot open /dev/kfd (NV-5 / CT-2):
# fixtures/outputs/rocminfo/kfd-enomem-rocm3.5.txt (ROCm/legacy-rocm-build#1148). `reason` is
# the strerror text: "Cannot allocate memory" (ENOMEM), "Permission denied" (group missing).
def render_rocminfo_kfd_error(reason: str = "Cannot allocate memory", user: str = "alice",
                              group: str = "render") -> str:
    membership = (f"{user} is member of {group} group" if reason != "Permission denied"
                  else f'{user} is not member of "{group}" group, the default DRM access group. '
                       f'Users must be a member of the "{group}" group or another DRM access group '
                       "in order for ROCm applications to run successfully.")
    return ("ROCk module is loaded\n"
            f"Unable to open /dev/kfd read-write: {reason}\n"
            f"{membership}\n"
            "hsa api call failure at: /src/rocminfo/rocminfo.cc:1142\n"
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the "
            "necessary resources. This error may also occur when the core runtime library needs "
            "to spawn threads or create internal OS-specific events.\n")


def incompatible_line(gpu: SimGPU) -> str:
    """KD-3 line ROCr prints for a GPU whose KFD is too old (ROCm/legacy-rocm-build#1423)."""
    return f"HSA Error: Incompatible kernel and userspace, {gpu.market_name} disabled. Upgrade amdgpu."
