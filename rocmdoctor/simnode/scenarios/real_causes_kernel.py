"""Simulated nodes for the kernel-side root causes real threads showed (issue "the root causes real
threads show"), split from real_causes.py, which registers them:

- dkms-build-failed: Ubuntu 24.04 moved to HWE kernel 6.14.0-24-generic, amdgpu-dkms
  6.12.12-2164967.24.04 fails to build for it; the apt console log is ROCm/amdgpu#192's;
- missing-dependency-module: EC2 g4ad (Radeon Pro V520) on Ubuntu 18.04 without
  linux-modules-extra: the five `amdgpu: Unknown symbol amd_iommu_* (err -2)` lines of
  awsdocs/amazon-ec2-user-guide#152; modprobe's message is kmod's strerror for ENOENT;
- kernel-without-kfd: an 8x MI300X node booted into an appliance kernel built without
  CONFIG_HSA_AMD (config lines of flatcar/Flatcar#1935 and siderolabs/pkgs#893);
- kfd-module-parameter-invalid: the same node with KFD in the kernel but `amdgpu.sched_policy` out of
  range: `amdgpu: sched_policy has invalid value` (CachyOS/linux-cachyos#643) and no KFD.
"""

from __future__ import annotations

from rocmdoctor.simnode.gpu import GIB, SimGPU
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.scenarios.gpu_not_visible import _set_klog
from rocmdoctor.simnode.tools import amdgpu_init_lines

#: apt's console while installing amdgpu-dkms on HWE 6.14 (ROCm/amdgpu#192, verbatim)
DKMS_CONSOLE_614 = """Setting up amdgpu-dkms (1:6.12.12.60401-2164967.24.04) ...
Loading new amdgpu-6.12.12-2164967.24.04 DKMS files...
Building for 6.14.0-24-generic
Building for architecture x86_64
Building initial module for 6.14.0-24-generic
Error! Bad return status for module build on kernel: 6.14.0-24-generic (x86_64)
Consult /var/lib/dkms/amdgpu/6.12.12-2164967.24.04/build/make.log for more information.
dpkg: error processing package amdgpu-dkms (--configure):
 installed amdgpu-dkms package post-installation script subprocess returned error exit status 10
"""


def dkms_build_failed() -> SimNode:
    """The thread's machine: Ubuntu 24.04, ROCm 6.4.1's amdgpu-dkms, built for the GA kernel 6.8
    before the HWE 6.14 kernel arrived; the install's console log is in /root."""
    from rocmdoctor.simnode.scenarios.kernel_driver import DKMS_STUB, MODINFO_STUB, _modinfo, healthy
    from rocmdoctor.simnode.system import UBUNTU_2404_OS_RELEASE

    node = healthy()
    node.kernel, node.rocm_version, node.driver_version = "6.14.0-24-generic", "6.4.1", "6.12.12"
    node.cmdline = node.cmdline.replace("5.15.0-119-generic", node.kernel)
    node.file("/etc/os-release", UBUNTU_2404_OS_RELEASE)
    node.unload_amdgpu(load_error=f"modprobe: FATAL: Module amdgpu not found in directory /lib/modules/{node.kernel}\n")
    node.file("/root/amdgpu-install.log", DKMS_CONSOLE_614)
    ver = "6.12.12-2164967.24.04"
    node.file("/.sim/dkms/version", ver + "\n")
    node.file("/.sim/dkms/status", f"amdgpu/{ver}, 6.8.0-60-generic, x86_64: installed\n")
    node.file("/.sim/dkms/modinfo.built", _modinfo(node))
    return node.stub("dkms", DKMS_STUB).stub("modinfo", MODINFO_STUB)


#: awsdocs/amazon-ec2-user-guide#152, verbatim (dmesg | grep amdgpu)
UNKNOWN_AMD_IOMMU = ["amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)",
                     "amdgpu: Unknown symbol amd_iommu_set_invalidate_ctx_cb (err -2)",
                     "amdgpu: Unknown symbol amd_iommu_free_device (err -2)",
                     "amdgpu: Unknown symbol amd_iommu_unbind_pasid (err -2)",
                     "amdgpu: Unknown symbol amd_iommu_init_device (err -2)"]


def missing_dependency_module() -> SimNode:
    from rocmdoctor.simnode.scenarios.kernel_driver import _modinfo, _stateful_dkms

    g = SimGPU(index=0, bdf="0000:00:1e.0", device_id=0x7362, subsystem_device_id=0x0A34,
               market_name="AMD Radeon Pro V520", gfx_target="gfx1011", vram_total=8 * GIB, vram_used=0,
               edge_temp=30.0, junction_temp=31.0, power_cap_w=225.0)
    node = SimNode("g4ad-xlarge", gpus=[g], kernel="5.4.0-1045-aws",
                   description="EC2 g4ad without linux-modules-extra: amd_iommu_v2 missing, amdgpu cannot load")
    node.add_kernel_log([(7.668049 + i * 0.0001, m) for i, m in enumerate(UNKNOWN_AMD_IOMMU)])
    node.unload_amdgpu(load_error="modprobe: ERROR: could not insert 'amdgpu': Unknown symbol in module, "
                                  "or unknown parameter (see dmesg)\n", load_error_log=UNKNOWN_AMD_IOMMU)
    # the module is there for this kernel (dkms built it); only its dependency is missing
    return _stateful_dkms(node, built_for=[node.kernel], modinfo_now=_modinfo(node))


#: the kernel config of a kernel built without KFD, lines verbatim: `zgrep -i amdgpu /proc/config.gz`
#: on Flatcar 6.12.74 (flatcar/Flatcar#1935) and the `# CONFIG_HSA_AMD is not set` line with its
#: neighbours from Talos' kernel config (siderolabs/pkgs#893, the diff that enabled it)
KCONFIG_WITHOUT_KFD = """CONFIG_DRM_AMDGPU=m
# CONFIG_DRM_AMDGPU_SI is not set
# CONFIG_DRM_AMDGPU_CIK is not set
# CONFIG_DRM_AMDGPU_USERPTR is not set
# CONFIG_DRM_AMDGPU_WERROR is not set
# CONFIG_DRM_AMD_SECURE_DISPLAY is not set
# end of Display Engine Configuration

# CONFIG_HSA_AMD is not set
"""


def kernel_without_kfd() -> SimNode:
    """A Talos/Flatcar-style node image whose kernel was built without CONFIG_HSA_AMD: amdgpu binds
    every GPU (display side), but KFD does not exist: no /sys/class/kfd, no /dev/kfd, no `kfd kfd:`
    line, rocminfo cannot open /dev/kfd."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import ROCMINFO_NO_KFD, healthy

    node = healthy().remove("/sys/class/kfd").remove("/sys/devices/virtual/kfd").remove("/dev/kfd")
    node.cmdline = node.cmdline.replace(node.kernel, "6.12.74-flatcar")
    node.kernel = "6.12.74-flatcar"
    lines = [(ts, m) for ts, m in amdgpu_init_lines(node, 5.214)
             if not m.startswith(("kfd kfd:", "amdgpu: Topology:", "amdgpu: Virtual CRAT"))]
    _set_klog(node, lines, built_by="build@pony-truck.infra.kinvolk.io")
    node.file(f"/boot/config-{node.kernel}", KCONFIG_WITHOUT_KFD)
    node.command("rocminfo", "", stdout=ROCMINFO_NO_KFD, rc=1)
    return node


#: CachyOS/linux-cachyos#643 (RX 7900 XTX), verbatim: KFD's parameter check fails right after
#: amdgpu announces itself, and the reporter's `zgrep CONFIG_HSA_AMD /proc/config.gz`
KFD_SCHED_POLICY_INVALID = "amdgpu: sched_policy has invalid value"
KCONFIG_WITH_KFD = "CONFIG_HSA_AMD=y\nCONFIG_HSA_AMD_SVM=y\n"


def kfd_module_parameter_invalid() -> SimNode:
    """amdgpu binds every GPU but KFD refused to start (`amdgpu.sched_policy=4` in modprobe.d):
    the kernel has KFD (CONFIG_HSA_AMD=y), yet there is no /sys/class/kfd and no /dev/kfd."""
    from rocmdoctor.simnode.scenarios.gpu_not_visible import ROCMINFO_NO_KFD, healthy

    node = healthy().remove("/sys/class/kfd").remove("/sys/devices/virtual/kfd").remove("/dev/kfd")
    lines = [(ts, m) for ts, m in amdgpu_init_lines(node, 5.214)
             if not m.startswith(("kfd kfd:", "amdgpu: Topology:", "amdgpu: Virtual CRAT"))]
    first = lines[0][0]
    lines.insert(1, (first + 0.0002, KFD_SCHED_POLICY_INVALID))
    _set_klog(node, lines)
    node.file(f"/boot/config-{node.kernel}", KCONFIG_WITH_KFD)
    node.file("/etc/modprobe.d/amdgpu-tuning.conf", "options amdgpu sched_policy=4\n")
    node.command("rocminfo", "", stdout=ROCMINFO_NO_KFD, rc=1)
    return node
