"""Simulated nodes for operational root causes found in real threads (thermal, containers, APU
memory): each carries the thread's own lines where the fault lives. Registered through
real_causes.SCENARIOS (this module defines none of its own).

- fan-curve-too-quiet: rocm-smi of a Vega Frontier Edition at 94.0c with Fan 40.0% under hipCaffe
  (ROCm/legacy-rocm-build#196); idle-at-top-clock: RX Vega's real pp_dpm_sclk levels, the state of
  #403; an R9700 whose amd-smi says THROTTLED at idle (ROCm/rocm-systems#11781);
- busy-pinned-idle-process: two R9700s pinned at 100 % busy with memory at 1 % / 0 %, 103 / 92 W of
  300 W and hotspot 79 / 80 C under an idle vLLM container (amd-smi table in ROCm/legacy-rocm-build#5706);
- rootless-gid-not-mapped / kfd-open-invalid-argument / kfd-device-not-allowed: rocminfo's own words
  in a rootless podman container (Firstbober/rocm-pytorch-gfx803-docker#4), a Proxmox LXC whose host's
  GPU had gone to a VM and back (ROCm/legacy-rocm-build#5379, EINVAL) and an LXC given /dev/kfd
  without a device rule (ROCm/ROCm#886, EPERM); the LXC is told by /run/systemd/container (`lxc`),
  which systemd writes in a container (systemd's Container Interface);
- apu-allocations-in-gtt: PyTorch's "total capacity of 15.24 GiB" on a Strix Halo with a 96 GB
  carve-out (ROCm/TheRock#1054);
- wsl-gpu-unsupported: ROCm's WSL rocminfo on an RX 7600 XT, "WSL environment detected. / ROCR:
  unsupported GPU" (ROCm/ROCm#4435, verbatim);
- amdsmi-python-mismatch: a healthy MI300X node whose amd-smi (ROCm 7.1.1's CLI) imports an amdsmi
  package from /usr/local that loads ROCm 7.0.1's libamd_smi.so: the traceback of ROCm/amdsmi#186;
  amdsmi-python-deps-missing: the same node whose amd-smi's Python lacks PyYAML (ROCm/amdsmi#19).
- framework-without-rocm: the same node with a job log ending in PyTorch's CUDA-build error
  (Comfy-Org/ComfyUI#2058).
- gfx-override-mismatch: the same node with HSA_OVERRIDE_GFX_VERSION=10.3.0 in its environment, the
  value ROCm/legacy-rocm-build#5238's MI210 was left under.
- legacy-gpu-breaks-runtime: an RX 7800 XT beside an RX 580 under ROCm 7.2.0, whose rocminfo fails with
  the generic HSA_STATUS_ERROR (ROCm/legacy-rocm-build#5942, verbatim).
"""

from __future__ import annotations

from rocmdoctor.simnode.gpu import GIB, SimGPU, SimProcess, strix_halo_gpu
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.system import rocblas_index

#: rocm-smi on a Vega Frontier Edition under hipCaffe training (ROCm/legacy-rocm-build#196, verbatim)
ROCM_SMI_VEGA_FE_94C = """====================    ROCm System Management Interface    ====================
================================================================================
 GPU  DID    Temp     AvgPwr   SCLK     MCLK     Fan      Perf    OverDrive  ECC
  0   6863   94.0c    195.0W   1528Mhz  945Mhz   40.0%    auto      0%       N/A      
================================================================================
====================           End of ROCm SMI Log          ====================
"""


def fan_curve_too_quiet() -> SimNode:
    """Vega FE at 94 C under compute load with the firmware's quiet fan curve holding 40 %."""
    g = SimGPU(index=0, bdf="0000:03:00.0", device_id=0x6863, subsystem_device_id=0x6B76,
               market_name="Radeon Vega Frontier Edition", gfx_target="gfx900", vram_total=16 * GIB,
               vram_used=6 * GIB, edge_temp=94.0, junction_temp=94.0, mem_temp=88.0, power_w=195.0,
               power_cap_w=220.0, power_cap_default_w=220.0, sclk_mhz=1528, sclk_max_mhz=1600, mclk_mhz=945, gfx_activity=100)
    node = SimNode("vega-fe-ws", gpus=[g], kernel="4.13.0-21-generic", rocm_version="1.6.148",
                   description="Vega FE at 94 C with its fan held at 40 % by the firmware's quiet curve")
    node.command("rocm-smi", "", stdout=ROCM_SMI_VEGA_FE_94C)
    node.remove_tool("amd-smi").remove_tool("sensors")
    return node


#: rocminfo in a rootless podman container (Firstbober/rocm-pytorch-gfx803-docker#4, verbatim)
ROCMINFO_NOGROUP = """ROCk module is loaded
Unable to open /dev/kfd read-write: Permission denied
root is not member of "nogroup" group, the default DRM access group. Users must be a member of the "nogroup" group or another DRM access group in order for ROCm applications to run successfully.
"""

#: rocminfo in a Proxmox LXC after the host's GPU had been passed to a VM and back
#: (ROCm/legacy-rocm-build#5379, verbatim)
ROCMINFO_EINVAL = """ROCk module is loaded
Unable to open /dev/kfd read-write: Invalid argument
root is member of render group
"""

#: rocminfo in an LXC container given /dev/kfd without a device-cgroup rule (ROCm/ROCm#886, verbatim)
ROCMINFO_EPERM = """ROCk module is loaded
Unable to open /dev/kfd read-write: Operation not permitted
root is member of render group
"""

NOGROUP_GID = 65534   # the overflow gid a user namespace shows for unmapped host groups


def rootless_gid_not_mapped() -> SimNode:
    """Rootless podman: the host's render/video gids are not mapped into the user namespace, so the
    device nodes show the overflow group `nogroup` and open() is refused."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.file("/run/.containerenv", "", mode=0o644)
    node.device("/dev/kfd", mode="660", group=NOGROUP_GID, major=511)
    for g in node.gpus:
        node.device(f"/dev/dri/renderD{g.render_minor}", mode="660", group=NOGROUP_GID, major=226, minor=g.render_minor)
    node.command("rocminfo", "", stdout=ROCMINFO_NOGROUP, rc=1)
    return node


def kfd_open_invalid_argument() -> SimNode:
    """An LXC on a host whose GPU went to a VM and came back: the nodes are there and the user is
    in render, but KFD refuses to open a process context (EINVAL) for every process until amdgpu
    is reloaded or the host rebooted (the thread's reboot fixed it)."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.file("/run/systemd/container", "lxc\n", mode=0o444)   # systemd's Container Interface
    node.command("rocminfo", "", stdout=ROCMINFO_EINVAL, rc=1)
    return node


def kfd_device_not_allowed() -> SimNode:
    """An LXC given /dev/kfd by a bind mount without a device-cgroup rule: the user is in render,
    the node is 0666, and the device cgroup still refuses the open (EPERM)."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.file("/run/systemd/container", "lxc\n", mode=0o444)
    node.command("rocminfo", "", stdout=ROCMINFO_EPERM, rc=1)
    return node


def container_host_driver_missing() -> SimNode:
    """Inside a container on a host whose amdgpu is not loaded: the kernel the container shares
    has no amdgpu and no KFD, so no run line can give it a GPU."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy().unload_amdgpu()
    node.file("/.dockerenv", "", mode=0o755)
    return node


#: RX Vega's eight shader-clock levels as its pp_dpm_sclk prints them (public issue threads quoting
#: `cat /sys/class/drm/card0/device/pp_dpm_sclk` on RX Vega: 852 ... 1630 MHz)
VEGA10_SCLK_LEVELS = (852, 991, 1084, 1138, 1200, 1401, 1536, 1630)


def idle_at_top_clock(level: str = "high") -> SimNode:
    """RX Vega idle (0 % busy) held at its top shader-clock level 1630 MHz, 79 C at 31 W, the state
    ROCm/legacy-rocm-build#403 reported; here with the level forced to `high` by a tuning script."""
    g = SimGPU(index=0, bdf="0000:03:00.0", device_id=0x687F, subsystem_device_id=0x0B36,
               market_name="Radeon RX Vega", gfx_target="gfx900", vram_total=8 * GIB, vram_used=300 * 1024 * 1024,
               edge_temp=79.0, junction_temp=81.0, mem_temp=74.0, power_w=31.0, power_cap_w=220.0,
               power_cap_default_w=220.0, sclk_levels=VEGA10_SCLK_LEVELS, sclk_mhz=1630, sclk_max_mhz=1630,
               mclk_mhz=945, gfx_activity=0, perf_level=level)
    node = SimNode("vega-ws", gpus=[g], description="RX Vega idle at its top clock level (performance level forced to high)")
    return node.remove_tool("sensors").remove_tool("rocm-smi").stub("amd-smi", AMD_SMI_PERF_LEVEL_STUB)


#: amd-smi whose `set --perf-level AUTO -g BDF` does what the driver does: `auto` in
#: power_dpm_force_performance_level, and an idle GPU drops to its lowest shader-clock level
AMD_SMI_PERF_LEVEL_STUB = r"""
case "$*" in
'set --perf-level AUTO -g '*)
  d="$R/sys/bus/pci/devices/$5"
  [ -f "$d/power_dpm_force_performance_level" ] || { echo "AMDSMI_STATUS_INVAL - Invalid parameters: GPU $5 not found" >&2; exit 1; }
  echo auto > "$d/power_dpm_force_performance_level"
  sed -e 's/ \*$/ /' -e '1s/ $/ */' "$d/pp_dpm_sclk" > "$d/pp_dpm_sclk.new" && cat "$d/pp_dpm_sclk.new" > "$d/pp_dpm_sclk" && rm -f "$d/pp_dpm_sclk.new"
  exit 0 ;;
*) exec "$STATIC" "$@" ;;   # every read answers from the node's GPUs, as on the other nodes
esac
"""


def throttled_bit_at_idle() -> SimNode:
    """Radeon AI PRO R9700 (Navi 48) idle at 37 C and 1 W: amd-smi says THROTTLED because the
    firmware never clears TEMP_HOTSPOT (ROCm/rocm-systems#11781); no violation residency."""
    g = SimGPU(index=0, bdf="0000:03:00.0", device_id=0x7551, subsystem_device_id=0x7551,
               market_name="AMD Radeon AI PRO R9700", gfx_target="gfx1201", vram_total=32 * GIB,
               vram_used=400 * 1024 * 1024, edge_temp=35.0, junction_temp=37.0, mem_temp=40.0, power_w=1.0,
               power_cap_w=300.0, power_cap_default_w=300.0, throttle_status="THROTTLED", gfx_activity=0)
    return SimNode("r9700-ws", gpus=[g], description="R9700 idle: amd-smi THROTTLED from a TEMP_HOTSPOT bit that never clears")


def busy_pinned_idle_process() -> SimNode:
    """Two Radeon AI PRO R9700 (gfx1201) that read 100 % busy while the vLLM container that used
    them sits idle: memory activity 1 % / 0 %, 103 / 92 W of a 300 W cap, hotspot 79 / 80 C,
    29777 of 32624 MB in use, python3.12 holding 19.6 GB on each (ROCm/legacy-rocm-build#5706,
    comment #9; BDFs and device id from its lspci). The shader clock stays up in that state: 2317 MHz
    in the same issue's rocm-smi (ai01); the R9700's own pp_dpm_sclk is in no thread, so its levels
    are those of the same Navi 48 die on an RX 9070 XT (500 / 2520 MHz, amdgpu-sysfs-rs fixture)."""
    gpus = []
    for index, (bdf, mem, watts, hot) in enumerate((("0000:03:00.0", 1, 103.0, 79.0), ("0000:43:00.0", 0, 92.0, 80.0))):
        gpus.append(SimGPU(index=index, bdf=bdf, device_id=0x7551, subsystem_device_id=0x7551,
                           market_name="AMD Radeon AI PRO R9700", gfx_target="gfx1201",
                           vram_total=32624 * 1024 * 1024, vram_used=29777 * 1024 * 1024, junction_temp=hot,
                           power_w=watts, power_cap_w=300.0, power_cap_default_w=300.0,
                           gfx_activity=100, mem_activity=mem, sclk_mhz=2317, sclk_max_mhz=2520,
                           processes=[SimProcess(pid=213952, name="python3.12", vram_bytes=21008920000)]))
    node = SimNode("localai2", gpus=gpus, description="2x R9700 pinned at 100 % busy by an idle ROCm process")
    return node.file(rocblas_index("gfx1201"), "")   # vLLM ran on them: this ROCm has gfx1201 kernels


#: PyTorch on the Strix Halo of ROCm/TheRock#1054 (verbatim): "total capacity" is the 15.24 GiB GTT pool
PYTORCH_OOM_STRIX_HALO = (
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of 15.24 GiB "
    "of which 15.09 GiB is free. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by "
    "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n")


def apu_allocations_in_gtt() -> SimNode:
    """Ryzen AI MAX+ 395 (gfx1151, 128 GB unified) with 96 GB carved out as VRAM: PyTorch allocates in
    GTT, whose 15.24 GiB is all it sees (ROCm/TheRock#1054, #519)."""
    g = strix_halo_gpu(vram_total=96 * GIB, vram_used=300 * 1024 * 1024, gtt_total=int(15.24 * GIB),
                       gtt_used=150 * 1024 * 1024, edge_temp=45.0, junction_temp=46.0, power_w=12.0)
    node = SimNode("evo-x2", gpus=[g], description="Strix Halo: 96 GB VRAM carve-out, PyTorch limited to the 15 GiB GTT")
    node.file("/scratch/job.log", PYTORCH_OOM_STRIX_HALO)
    node.file(rocblas_index("gfx1151"), "")   # TheRock's ROCm runs PyTorch on gfx1151: rocBLAS has its kernels
    # the kernel's default: ttm limits GTT to half of the RAM it sees (32 GB left beside the carve-out)
    node.file("/sys/module/ttm/parameters/pages_limit", f"{int(15.24 * GIB) // 4096}\n", mode=0o644)
    return node


#: rocminfo --support of ROCm's WSL build on an RX 7600 XT (ROCm/ROCm#4435, verbatim)
ROCMINFO_WSL_UNSUPPORTED = """WSL environment detected.
ROCR: unsupported GPU
hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306
Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. \
This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.
"""


def wsl_node(name: str, kernel: str, description: str, rocminfo: str) -> SimNode:
    """A WSL 2 guest: Microsoft's kernel, /dev/dxg (the Windows driver's bridge), no PCI GPU, no
    amdgpu, and the given rocminfo output (exit status 1, as it fails without a GPU)."""
    node = SimNode(name, gpus=[], kernel=kernel, description=description)
    node.device("/dev/dxg", mode="666", group="root", major=10, minor=124)
    return node.command("rocminfo", "", stdout=rocminfo, rc=1)


def wsl_gpu_unsupported() -> SimNode:
    """Ubuntu 22.04 under WSL 2 with ROCm's WSL flavour on a GPU its support matrix does not list."""
    return wsl_node("desktop-wsl", "5.15.167.4-microsoft-standard-WSL2",
                    "WSL 2 guest: ROCm's WSL runtime refuses the RX 7600 XT ('ROCR: unsupported GPU')",
                    ROCMINFO_WSL_UNSUPPORTED)


#: amd-smi's start-up traceback on a node with ROCm 7.0.1 and 7.1.1 (ROCm/amdsmi#186, verbatim)
AMD_SMI_MIXED_RELEASES_TRACEBACK = """Traceback (most recent call last):
  File "/usr/bin/amd-smi", line 53, in <module>
    from amdsmi_init import *
  File "/opt/rocm-7.1.1/libexec/amdsmi_cli/amdsmi_init.py", line 38, in <module>
    from amdsmi import amdsmi_interface, amdsmi_exception
  File "/usr/local/lib/python3.9/site-packages/amdsmi/__init__.py", line 24, in <module>
    from .amdsmi_interface import amdsmi_init
  File "/usr/local/lib/python3.9/site-packages/amdsmi/amdsmi_interface.py", line 32, in <module>
    from . import amdsmi_wrapper
  File "/usr/local/lib/python3.9/site-packages/amdsmi/amdsmi_wrapper.py", line 2639, in <module>
    amdsmi_get_gpu_partition_metrics_info = _libraries['libamd_smi.so'].amdsmi_get_gpu_partition_metrics_info
  File "/usr/lib64/python3.9/ctypes/__init__.py", line 387, in __getattr__
    func = self.__getitem__(name)
  File "/usr/lib64/python3.9/ctypes/__init__.py", line 392, in __getitem__
    func = self._FuncPtr((name_or_ordinal, self))
AttributeError: /opt/rocm-7.0.1/lib/libamd_smi.so: undefined symbol: amdsmi_get_gpu_partition_metrics_info
"""


def amdsmi_python_mismatch() -> SimNode:
    """A healthy 8x MI300X node with ROCm 7.0.1 and 7.1.1 installed: every amd-smi command dies at
    import (the CLI of 7.1.1, an amdsmi package pip-installed in /usr/local, 7.0.1's library), while
    KFD, rocminfo and the GPUs are fine."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.description = "healthy GPUs; amd-smi dies at start-up on an amdsmi package of another ROCm release"
    body = "cat >&2 <<'RD_TRACEBACK'\n" + AMD_SMI_MIXED_RELEASES_TRACEBACK + "RD_TRACEBACK\nexit 1\n"
    return node.stub("amd-smi", body)


def amdsmi_python_deps_missing() -> SimNode:
    """A healthy 8x MI300X node whose amd-smi (ROCm 6.1) runs under a Python that lacks PyYAML: the
    one line it prints is ROCm/amdsmi#19's."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.description = "healthy GPUs; amd-smi's Python cannot import PyYAML"
    return node.stub("amd-smi", "echo \"ModuleNotFoundError: No module named 'yaml'\"\nexit 1\n")


#: PyTorch's CUDA build on an AMD node (Comfy-Org/ComfyUI#2058, RX 6750, Ubuntu 22.04; verbatim)
TORCH_CUDA_BUILD_ERROR = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
                          "and installed a driver from http://www.nvidia.com/Download/index.aspx\n")


def framework_without_rocm() -> SimNode:
    """A healthy 8x MI300X node whose job log ends in PyTorch's CUDA-build error: the job's wheel,
    not the GPUs (give the log with --log /scratch/job.log)."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.description = "healthy GPUs; the job's PyTorch is a CUDA build ('Found no NVIDIA driver on your system')"
    node.file("/scratch/job.log", TORCH_CUDA_BUILD_ERROR)
    return node


def gfx_override_mismatch() -> SimNode:
    """A healthy 8x MI300X node (gfx942) whose login environment carries HSA_OVERRIDE_GFX_VERSION=10.3.0,
    the value ROCm/ROCm#5238's MI210 was left under from another card's setup."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.description = "HSA_OVERRIDE_GFX_VERSION=10.3.0 (gfx1030) left in the environment of a gfx942 node"
    node.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
    return node


#: rocminfo of ROCm 7.2.0 on Debian 13 with an RX 7800 XT and an RX 580 (ROCm/legacy-rocm-build#5942, verbatim)
ROCMINFO_GENERIC_HSA_ERROR = """ROCk module version 6.16.13 is loaded
hsa api call failure at: /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/rocm-systems/projects/rocminfo/rocminfo.cc:1329
Call returned HSA_STATUS_ERROR: A generic error has occurred.
"""


def legacy_gpu_breaks_runtime() -> SimNode:
    """#5942's desktop: an RX 7800 XT (gfx1101) and a second, older RX 580 (gfx803, Polaris) that amdgpu
    and KFD bring up; ROCm 7.2.0's runtime does not start with the GFX8 card in the topology."""
    new = SimGPU(index=0, bdf="0000:0b:00.0", device_id=0x747E, subsystem_device_id=0x0E36,
                 market_name="AMD Radeon RX 7800 XT", gfx_target="gfx1101", vram_total=16 * GIB,
                 vram_used=300 * 1024 * 1024, edge_temp=36.0, junction_temp=38.0, power_w=12.0,
                 power_cap_w=263.0, power_cap_default_w=263.0)
    old = SimGPU(index=1, bdf="0000:0c:00.0", device_id=0x67DF, subsystem_device_id=0x0B37,
                 market_name="Radeon RX 580 Series", gfx_target="gfx803", vram_total=8 * GIB,
                 vram_used=60 * 1024 * 1024, edge_temp=34.0, junction_temp=34.0, power_w=9.0,
                 power_cap_w=185.0, power_cap_default_w=185.0)
    node = SimNode("ws-7800xt-rx580", gpus=[new, old], rocm_version="7.2.0", driver_version="6.16.13",
                   description="RX 7800 XT beside an RX 580 (gfx803): ROCm 7.2's rocminfo fails with HSA_STATUS_ERROR")
    node.command("rocminfo", "", stdout=ROCMINFO_GENERIC_HSA_ERROR, rc=1)
    return node
