"""Simulated nodes for root causes found in real threads (issue "the root causes real threads
show"): each node carries the thread's own verbatim lines where the fault lives (kernel log,
rocminfo, an install log), on a machine like the reporter's.

- asic-not-supported-by-kfd: Radeon R7 370 (Pitcairn, 1002:6811), `kfd kfd: amdgpu: PITCAIRN
  not supported in kfd` and rocminfo's `Cannot allocate memory` (ROCm/legacy-rocm-build#2232);
- pcie-atomics-unsupported: Radeon RX 550 (1002:699f) in an HP EliteBook 850 G5, `kfd kfd:
  skipped device 1002:699f, PCI rejects atomics`, rocminfo `Call returned 4104`
  (ROCm/legacy-rocm-build#806);
- pci-bar-space-exhausted: BAR lines of ROCm/legacy-rocm-build#1541 and the probe failure
  (-12) of ROCm/rocm-install-on-linux#615 on one MI210;
- visibility masks that compose to nothing (Parsl/parsl#3858), an iGPU enumerated first
  (ROCm/TheRock#3392), WSL 2 (ROCm/ROCm#1794), a built-in amdgpu, optional firmware (#912);
- the thermal, container and APU-memory nodes live in real_causes_ops.py, the kernel-side ones
  (dkms-build-failed, missing-dependency-module, kernel-without-kfd, kfd-module-parameter-invalid)
  in real_causes_kernel.py; all are registered here;
- no-code-object-for-gpu: an RX 6700 XT (gfx1031) under ROCm 6.0, whose rocBLAS has no kernels for
  it (ROCm/rocBLAS#1339; the index files ROCm 6.0 lists in ROCm/legacy-rocm-build#3015);
- slurm-gres-conf-mismatch: the same node whose slurmd detects the 8 GPUs and ignores them, a gres.conf
  record without File= being discarded (SlinkyProject/slurm-operator#57's slurmd lines);
- slurm-gpu-autodetect-failed: a healthy MI300X Slurm node with AutoDetect=rsmi and slurmd's
  "Configured with rsmi, but that lib wasn't found." (openhpc/ohpc#2057);
"""

from __future__ import annotations

from rocmdoctor.simnode.gpu import GIB, SimGPU
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.scenarios import from_cases
from rocmdoctor.simnode.scenarios.gpu_not_visible import _set_klog
from rocmdoctor.simnode.tools import amdgpu_init_lines
from rocmdoctor.simnode.scenarios.real_causes_ops import (  # noqa: F401 - re-exported for tests and demos
    amdsmi_python_deps_missing, amdsmi_python_mismatch, apu_allocations_in_gtt, framework_without_rocm, gfx_override_mismatch, busy_pinned_idle_process, container_host_driver_missing, fan_curve_too_quiet,
    idle_at_top_clock, kfd_device_not_allowed, kfd_open_invalid_argument, legacy_gpu_breaks_runtime, rootless_gid_not_mapped, throttled_bit_at_idle,
    wsl_gpu_unsupported, wsl_node,
)
from rocmdoctor.simnode.scenarios.real_causes_kernel import (  # noqa: F401 - re-exported for tests and demos
    KCONFIG_WITHOUT_KFD, dkms_build_failed, kernel_without_kfd, kfd_module_parameter_invalid, missing_dependency_module,
)

#: rocminfo on the Pitcairn machine (ROCm/legacy-rocm-build#2232, verbatim)
ROCMINFO_PITCAIRN = """ROCk module is loaded

Unable to open /dev/kfd read-write: Cannot allocate memory

igor is member of render group

hsa api call failure at: /src/rocminfo/rocminfo.cc:1142

Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.
"""

#: rocminfo on the RX 550 laptop (ROCm/legacy-rocm-build#806, verbatim)
ROCMINFO_4104 = ("hsa api call failure at line 900, file: /data/jenkins_workspace/compute-rocm-rel-2.4/rocminfo/"
                 "rocminfo.cc. Call returned 4104\n")

def _kfd_refused(name: str, gpu: SimGPU, kfd_line: str, rocminfo_out: str, rc: int, description: str) -> SimNode:
    """One consumer GPU bound to amdgpu (display works) that KFD did not add: no KFD GPU node,
    the kernel's own line in place of `kfd kfd: added device`, rocminfo failing as reported."""
    node = SimNode(name, gpus=[gpu], description=description, kernel="5.4.0-54-generic", rocm_version="3.9.0")
    node.remove("/sys/devices/virtual/kfd/kfd/topology/nodes/2")
    lines = amdgpu_init_lines(node, 3.1)
    added = f"kfd kfd: added device {gpu.vendor_id:x}:{gpu.device_id:x}"
    lines = [(ts, kfd_line if m == added else m) for ts, m in lines
             if not m.startswith("amdgpu: Topology: Add GPU node")]
    _set_klog(node, lines, built_by="buildd@lcy01-amd64-009")
    node.command("rocminfo", "", stdout=rocminfo_out, rc=rc)
    node.remove_tool("amd-smi")     # ROCm releases of that era shipped rocm-smi only
    return node


def kfd_asic_not_supported() -> SimNode:
    g = SimGPU(index=0, bdf="0000:01:00.0", device_id=0x6811, subsystem_device_id=0x2015,
               market_name="AMD Radeon R7 370", gfx_target="gfx600", vram_total=2 * GIB, vram_used=96 * 1024 * 1024,
               edge_temp=38.0, junction_temp=38.0, power_w=15.0, power_cap_w=150.0, power_cap_default_w=150.0)
    return _kfd_refused("r7-370-desktop", g, "kfd kfd: amdgpu: PITCAIRN  not supported in kfd", ROCMINFO_PITCAIRN, 1,
                        "Radeon R7 370 (Pitcairn): amdgpu drives the display, KFD does not support the ASIC")


def kfd_pci_rejects_atomics() -> SimNode:
    g = SimGPU(index=0, bdf="0000:01:00.0", device_id=0x699F, subsystem_device_id=0x83E9,
               market_name="AMD Radeon RX 550", gfx_target="gfx804", vram_total=2 * GIB, vram_used=64 * 1024 * 1024,
               edge_temp=45.0, junction_temp=45.0, power_w=8.0, power_cap_w=50.0, power_cap_default_w=50.0)
    return _kfd_refused("elitebook-850g5", g, "kfd kfd: skipped device 1002:699f, PCI rejects atomics", ROCMINFO_4104, 1,
                        "RX 550 behind a chipset root port without PCIe atomics: KFD skipped it")


def _mi210_not_bound(name: str, description: str) -> tuple[SimNode, SimGPU]:
    """An MI210 on the bus that amdgpu (loaded) did not bind: the BAR scenarios' node."""
    from rocmdoctor.simnode.sysfs import pci_core_tree

    gpu = SimGPU(index=0, bdf="0000:0d:00.0", device_id=0x740F, subsystem_device_id=0x0C34,
                 market_name="AMD Instinct MI210", gfx_target="gfx90a", vram_total=64 * GIB)
    node = SimNode(name, gpus=[], description=description)
    node.amdgpu_loaded = node.amdgpu_installed = True     # the module loaded; it bound no GPU
    for rel, entry in pci_core_tree(gpu).items():       # on the bus, not bound
        if hasattr(entry, "text"):
            node.file("/" + rel, entry.text, mode=entry.mode)  # type: ignore[union-attr]
        else:
            node.symlink("/" + rel, entry.target)  # type: ignore[union-attr]
    return node, gpu


def pci_bar_exhausted() -> SimNode:
    """MI210 on a workstation board with Above 4G Decoding off: the PCI core cannot place the 64 GB
    VRAM BAR, amdgpu's probe fails with -12. The BAR lines are ROCm/legacy-rocm-build#1541's, the
    probe lines ROCm/rocm-install-on-linux#615's, both moved to this GPU's address."""
    from rocmdoctor.simnode.formats.kernel_lines import messages

    node, gpu = _mi210_not_bound("ws-mi210", "MI210 whose BARs found no space: probe failed -12")
    bars = messages("pci_bar", gpu.bdf)[:3]
    probe = [m for m in messages("probe_failure", gpu.bdf) if "error -12" in m or "Fatal error" in m]
    node.add_kernel_log(bars, at=0.912).add_kernel_log(probe, at=9.871020)
    return node


def pci_vf_bars_exhausted() -> SimNode:
    """MI210 in a server with SR-IOV on, kernel 6.8: in the kernel's reallocation the GPU's virtual
    function (a 64 GiB VF BAR 0) is placed and the GPU's own BAR 5 and BAR 4 are not; amdgpu's probe
    fails with -12. The BAR lines are ROCm/ROCm#6281's, the probe lines rocm-install-on-linux#615's (the
    same lines #6281's other machine printed), both moved to this GPU's address."""
    from rocmdoctor.simnode.formats.kernel_lines import PCI_BAR_VF_REALLOC, messages, with_bdf

    node, gpu = _mi210_not_bound("srv-mi210", "MI210 whose SR-IOV VF BARs took the space of its BAR 5: probe failed -12")
    probe = [m for m in messages("probe_failure", gpu.bdf) if "error -12" in m or "Fatal error" in m]
    bars = [with_bdf(m, gpu.bdf) for m, _ in PCI_BAR_VF_REALLOC]
    node.add_kernel_log(bars, at=4.181312).add_kernel_log(probe, at=8.839735)
    return node


def visibility_masks_composed() -> SimNode:
    """Parsl/parsl#3858's environment on an 8-GPU node: ROCR_VISIBLE_DEVICES=1 leaves one GPU,
    renumbered 0, and CUDA_VISIBLE_DEVICES=1 asks HIP for index 1: no GPU for PyTorch."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.env.update({"ROCR_VISIBLE_DEVICES": "1", "CUDA_VISIBLE_DEVICES": "1"})
    return node


def igpu_first() -> SimNode:
    """Ryzen 7 7800X3D's iGPU (gfx1036) enumerated ahead of an RX 7900 XT (gfx1100), the setup of
    ROCm/TheRock#3392's comments (HIP device 0 the iGPU, the dGPU device 1)."""
    igpu = SimGPU(index=0, bdf="0000:12:00.0", device_id=0x164E, subsystem_device_id=0x164E,
                  market_name="AMD Radeon Graphics", gfx_target="gfx1036", vram_total=512 * 1024 * 1024,
                  vram_used=60 * 1024 * 1024, edge_temp=40.0, junction_temp=40.0, power_w=8.0,
                  power_cap_w=65.0, power_cap_default_w=65.0)
    dgpu = SimGPU(index=1, bdf="0000:03:00.0", device_id=0x744C, subsystem_device_id=0x0E3B,
                  market_name="AMD Radeon RX 7900 XT", gfx_target="gfx1100", vram_total=20 * GIB,
                  vram_used=400 * 1024 * 1024, edge_temp=38.0, junction_temp=40.0, power_w=15.0,
                  power_cap_w=300.0, power_cap_default_w=300.0)
    return SimNode("ws-7800x3d", gpus=[igpu, dgpu], description="iGPU (gfx1036) is HIP device 0, the RX 7900 XT device 1")


def target_without_rocblas_kernels() -> SimNode:
    """An RX 6700 XT (gfx1031) under ROCm 6.0: KFD and rocminfo list it, but AMD's rocBLAS ships
    no kernels for gfx1031 (ROCm/rocBLAS#1339: "the binaries distributed by AMD are not built for
    that architecture"; the index files are those ROCm 6.0 listed in ROCm/legacy-rocm-build#3015)."""
    g = SimGPU(index=0, bdf="0000:03:00.0", device_id=0x73DF, subsystem_device_id=0x6701,
               market_name="AMD Radeon RX 6700 XT", gfx_target="gfx1031", vram_total=12 * GIB,
               vram_used=300 * 1024 * 1024, edge_temp=41.0, junction_temp=43.0, power_w=9.0,
               power_cap_w=186.0, power_cap_default_w=186.0)
    return SimNode("ws-6700xt", gpus=[g], rocm_version="6.0.0",
                   description="RX 6700 XT (gfx1031): rocBLAS has no TensileLibrary for its target")


#: slurmd started with AutoDetect=rsmi after rocm-smi-lib was removed (openhpc/ohpc#2057, verbatim)
SLURMD_RSMI_MISSING = "slurmd-nscale-compute-gpu-16: Configured with rsmi, but that lib wasn't found.\n"


def slurm_rsmi_missing() -> SimNode:
    """A healthy 8x MI300X Slurm node whose slurmd cannot load librocm_smi64 (AutoDetect=rsmi):
    ROCm sees every GPU, Slurm none."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.file("/etc/slurm/gres.conf", "AutoDetect=rsmi\n")
    node.file("/var/log/slurm/slurmd.log", SLURMD_RSMI_MISSING)
    return node


#: slurmd merging gres.conf with the 8 MI300X it detected (SlinkyProject/slurm-operator#57, verbatim up
#: to the warning, where the stored thread stops)
SLURMD_GPUS_IGNORED = """\
[2025-10-06T15:42:05] gpu/rsmi: _get_system_gpu_list_rsmi: 8 GPU system device(s) detected
[2025-10-06T15:42:05] debug:  Gres GPU plugin: Merging configured GRES with system GPUs
[2025-10-06T15:42:05] debug2: gres/gpu: _merge_system_gres_conf: gres_list_conf:
[2025-10-06T15:42:05] debug2:     GRES[gpu] Type:8 Count:1 Cores(224):(null)  Links:(null) \
Flags:HAS_TYPE,ENV_NVML,ENV_RSMI,ENV_ONEAPI,ENV_OPENCL,ENV_DEFAULT File:(null) UniqueId:(null)
[2025-10-06T15:42:05] error: Discarding the following config-only GPU due to lack of File specification:
[2025-10-06T15:42:05] error:     GRES[gpu] Type:8 Count:1 Cores(224):(null)  Links:(null) \
Flags:HAS_TYPE,ENV_NVML,ENV_RSMI,ENV_ONEAPI,ENV_OPENCL,ENV_DEFAULT File:(null) UniqueId:(null)
[2025-10-06T15:42:05] warning: The following autodetected GPUs are being ignored:
"""


def slurm_gpus_ignored() -> SimNode:
    """A healthy 8x MI300X Slurm node whose slurmd loads ROCm SMI and finds all 8 GPUs, then ignores
    them: gres.conf keeps a GPU record without File= (slurmd printed it as `Type:8 Count:1 ...
    File:(null)` in #57), which it discards, and no record is left to match the detected GPUs."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy

    node = healthy()
    node.file("/etc/slurm/gres.conf", "AutoDetect=rsmi\nName=gpu Type=8\n")
    node.file("/opt/rocm/lib/librocm_smi64.so.7", "")
    # `ldconfig -p` line format as in ROCm/legacy-rocm-build#1274: slurmd does find the library
    node.command("ldconfig", "-p", "\tlibrocm_smi64.so.7 (libc6,x86-64) => /opt/rocm/lib/librocm_smi64.so.7\n")
    node.file("/var/log/slurm/slurmd.log", SLURMD_GPUS_IGNORED)
    return node


def builtin_amdgpu() -> SimNode:
    """amdgpu compiled into the kernel (CONFIG_DRM_AMDGPU=y, as on Gentoo/Arch custom kernels): no
    /proc/modules line, /sys/module/amdgpu and KFD present. Healthy: tools that look for the module
    in lsmod ("ROCk module is NOT loaded") are wrong here, the node is not."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import healthy
    from rocmdoctor.simnode.system import proc_modules

    node = healthy()
    node.file("/proc/modules", proc_modules(amdgpu=False, refcnt=0), mode=0o444)
    return node


#: rocminfo under WSL 2 (ROCm/legacy-rocm-build#1794, first line verbatim)
ROCMINFO_WSL = "ROCk module is NOT loaded, possibly no GPU devices\n"


def wsl_guest() -> SimNode:
    """Ubuntu under WSL 2 on a Radeon laptop: Microsoft's kernel, /dev/dxg, no amdgpu, no PCI GPU."""
    return wsl_node("laptop-wsl", "5.15.153.1-microsoft-standard-WSL2",
                    "WSL 2 guest: GPU through /dev/dxg, no amdgpu or /dev/kfd by design", ROCMINFO_WSL)


#: ROCm/legacy-rocm-build#912 (2x Radeon VII), verbatim: the TA blob is optional, the GPU initialises
OPTIONAL_TA_LINES = ["amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin failed with error -2",
                     'amdgpu 0000:19:00.0: psp v11.0: Failed to load firmware "amdgpu/vega20_ta.bin"']


def optional_firmware_missing() -> SimNode:
    """Two Radeon VII (gfx906) that initialise although amdgpu/vega20_ta.bin is missing: informational."""
    gpus = [SimGPU(index=i, bdf=bdf, device_id=0x66AF, subsystem_device_id=0x081E, market_name="Radeon VII",
                   gfx_target="gfx906", vram_total=16 * GIB, vram_used=200 * 1024 * 1024, edge_temp=35.0,
                   junction_temp=37.0, power_w=25.0, power_cap_w=250.0, power_cap_default_w=250.0)
            for i, bdf in enumerate(("0000:19:00.0", "0000:1a:00.0"))]
    node = SimNode("radeon-vii-x2", gpus=gpus, description="vega20_ta.bin missing, both GPUs initialised")
    return node.add_kernel_log([(3.353884, OPTIONAL_TA_LINES[0]), (3.353886, OPTIONAL_TA_LINES[1])])


GPU_NOT_VISIBLE = [
    ("kfd-asic-not-supported", "Radeon R7 370 (Pitcairn): 'PITCAIRN  not supported in kfd', rocminfo ENOMEM",
     kfd_asic_not_supported, "kernel_log", "asic-not-supported-by-kfd"),
    ("kfd-pci-rejects-atomics", "RX 550 on a chipset root port: 'skipped device 1002:699f, PCI rejects atomics'",
     kfd_pci_rejects_atomics, "kernel_log", "pcie-atomics-unsupported"),
    ("visibility-masks-composed", "ROCR_VISIBLE_DEVICES=1 with CUDA_VISIBLE_DEVICES=1: HIP asks for index 1 of 1 GPU",
     visibility_masks_composed, "env", "visibility-variable-masks-gpus"),
    ("igpu-first", "Ryzen iGPU (gfx1036) is HIP device 0, the RX 7900 XT (gfx1100) device 1",
     igpu_first, "igpu", "igpu-enumerated-first"),
    ("wsl-guest", "WSL 2: Microsoft kernel and /dev/dxg, rocminfo 'ROCk module is NOT loaded' is expected",
     wsl_guest, "platform", "wsl-no-amdgpu"),
    ("wsl-gpu-unsupported", "WSL 2: ROCm's WSL rocminfo says 'ROCR: unsupported GPU' (an RX 7600 XT, not in AMD's WSL matrix)",
     wsl_gpu_unsupported, "rocminfo", "wsl-gpu-not-supported"),
    ("pci-bar-exhausted", "MI210: 'BAR 0: failed to assign', probe failed with error -12 (Above 4G Decoding off)",
     pci_bar_exhausted, "kernel_log", "pci-bar-space-exhausted"),
    ("pci-vf-bars-exhausted", "MI210 with SR-IOV on: VF BAR 0 (64 GiB) placed, the GPU's BAR 5 never; probe failed with error -12",
     pci_vf_bars_exhausted, "kernel_log", "pci-bar-space-exhausted"),
    ("kernel-without-kfd", "node image kernel built without KFD: '# CONFIG_HSA_AMD is not set', no /dev/kfd at all",
     kernel_without_kfd, "kfd_build", "kernel-without-kfd"),
    ("target-without-rocblas-kernels", "RX 6700 XT (gfx1031) under ROCm 6.0: no TensileLibrary_lazy_gfx1031.dat",
     target_without_rocblas_kernels, "libraries", "no-code-object-for-gpu"),
    ("slurm-rsmi-missing", "Slurm node: AutoDetect=rsmi, slurmd 'Configured with rsmi, but that lib wasn't found.'",
     slurm_rsmi_missing, "slurm", "slurm-gpu-autodetect-failed"),
    ("slurm-gpus-ignored", "Slurm node: slurmd detects 8 MI300X, discards a gres.conf record without File= and ignores the GPUs",
     slurm_gpus_ignored, "slurm", "slurm-gres-conf-mismatch"),
    ("amdsmi-python-mismatch", "amd-smi of ROCm 7.1.1 imports an amdsmi package that loads 7.0.1's libamd_smi.so: undefined symbol",
     amdsmi_python_mismatch, "runtime", "amdsmi-python-mismatch"),
    ("amdsmi-python-deps-missing", "amd-smi's Python cannot import PyYAML: 'ModuleNotFoundError: No module named 'yaml''",
     amdsmi_python_deps_missing, "runtime", "amdsmi-python-deps-missing"),
    ("framework-without-rocm", "job log: 'Found no NVIDIA driver on your system': the job's PyTorch is a CUDA build",
     framework_without_rocm, "log", "framework-without-rocm", {"log": "/scratch/job.log"}),
    ("gfx-override-mismatch", "HSA_OVERRIDE_GFX_VERSION=10.3.0 on a gfx942 node: the runtime loads gfx1030 code",
     gfx_override_mismatch, "override", "gfx-override-mismatch"),
    ("legacy-gpu-breaks-runtime", "RX 7800 XT beside an RX 580 (gfx803) under ROCm 7.2: rocminfo 'HSA_STATUS_ERROR: A generic error'",
     legacy_gpu_breaks_runtime, "rocminfo", "legacy-gpu-breaks-runtime"),
    ("kfd-parameter-invalid", "amdgpu.sched_policy=4 in modprobe.d: 'amdgpu: sched_policy has invalid value', KFD never starts",
     kfd_module_parameter_invalid, "kernel_log", "kfd-module-parameter-invalid"),
]
KERNEL_DRIVER = [
    ("dkms-build-failed", "amdgpu-dkms 6.12 fails to build for HWE kernel 6.14.0-24 (apt log: Bad return status)",
     dkms_build_failed, "buildconsole", "dkms-build-failed", {"log": "/root/amdgpu-install.log"}),
    ("missing-dependency-module", "EC2 g4ad: amdgpu: Unknown symbol amd_iommu_* (linux-modules-extra not installed)",
     missing_dependency_module, "symbols", "missing-dependency-module"),
]

GPU_OOM = [
    ("apu-allocations-in-gtt", "Strix Halo: 'total capacity of 15.24 GiB' (GTT) with 96 GB carved out as VRAM",
     apu_allocations_in_gtt, "applog", "apu-allocations-in-gtt", {"log": "/scratch/job.log"}),
]

THERMAL = [
    ("idle-at-top-clock", "RX Vega idle at 1630 MHz (top level) and 79 C, performance level forced to high",
     idle_at_top_clock, "idle", "stuck-at-top-clock-level"),
    ("fan-curve-too-quiet", "Vega FE at 94 C, fan 40 % (rocm-smi under hipCaffe): the quiet fan curve",
     fan_curve_too_quiet, "tools", "fan-curve-too-quiet"),
    ("busy-pinned-idle-process", "2x R9700 at 100 % busy, memory 0-1 %, ~100 of 300 W: an idle vLLM container keeps them pinned",
     busy_pinned_idle_process, "pinned", "busy-pinned-without-load"),
]

CONTAINER = [
    ("container-host-driver-missing", "inside a container whose host has no amdgpu loaded: no /dev/kfd anywhere",
     container_host_driver_missing, "host_driver", "host-driver-missing"),
    ("container-rootless-nogroup", "rootless podman: /dev/kfd shows group nogroup, rocminfo Permission denied",
     rootless_gid_not_mapped, "rocminfo", "rootless-gid-not-mapped"),
    ("container-kfd-einval", "LXC after the host's GPU went to a VM and back: rocminfo 'Unable to open /dev/kfd read-write: Invalid argument'",
     kfd_open_invalid_argument, "rocminfo", "kfd-open-invalid-argument"),
    ("container-kfd-eperm", "LXC given /dev/kfd without a device-cgroup rule: rocminfo 'Unable to open /dev/kfd read-write: Operation not permitted'",
     kfd_device_not_allowed, "rocminfo", "kfd-device-not-allowed"),
]

SCENARIOS = (from_cases(GPU_NOT_VISIBLE, ("gpu-not-visible",)) + from_cases(THERMAL, ("thermal-throttling",))
             + from_cases(CONTAINER, ("container-mount-failure",)) + from_cases(GPU_OOM, ("gpu-oom",))
             + from_cases(KERNEL_DRIVER, ("kernel-driver-mismatch",)))
