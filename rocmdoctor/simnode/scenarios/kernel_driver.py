"""Simulated kernel-driver-mismatch incidents, each the healthy MI300X node with one fault.

Formats (every line below names where its format was taken from):
- `dkms status` 3.x: `amdgpu/6.8.5-2009582.22.04, 6.5.0-35-generic, x86_64: installed`
  (ROCm/legacy-rocm-build#4533, fixtures/outputs/dkms/dkms3-rocm.txt);
- `modinfo amdgpu` not found: `modinfo: ERROR: Module amdgpu not found.` (kmod; simnode_tools);
- `modprobe: FATAL: Module amdgpu not found in directory /lib/modules/<kernel>` (kmod modprobe.c,
  the simulated modprobe's own wording) and `modprobe: ERROR: could not insert 'slcan': Exec
  format error` (a public NanoPi CAN note in the code index; module name changed);
- kernel module loader: `<mod>: version magic '<modmagic>' should be '<vermagic>'`
  (kernel/module/main.c pr_err; real sample `hello: version magic '6.2.11-200.fc37.aarch64 ...'`)
  and `amdgpu: disagrees about version of symbol module_layout` (verbatim, a public amdgpu
  build note in the code index, id 57010444308; format kernel/module/version.c);
- missing MI300-series firmware: verbatim amdgpu-dkms lines of an MI300 host under OpenShift
  (code index id 22482288842: `Direct firmware load for amdgpu/psp_13_0_6_sos.bin failed with
  error -2` ... `Fatal error during GPU init`), moved to this node's PCI addresses;
- `dkms status` 3.x `built` (built, not installed): `dkms_multiver_test/1.0, ${KERNEL_VER},
  ${KERNEL_ARCH}: built` (dkms-project/dkms run_test.sh, after its version sanity check refused
  the install);
- `dkms status` stopping at a version directory without dkms.conf: `Error! Could not locate
  dkms.conf file.` / `File: /var/lib/dkms/amdgpu/6.7.0-1787201.22.04/source/dkms.conf does not
  exist.` (verbatim, ROCm/legacy-rocm-build#3701 and #3608), on stderr with exit status 4
  (dkms's `die 4` in read_conf_or_die, which writes `Error! ...` to stderr);
- Secure Boot refusing the DKMS-signed module: `modprobe: ERROR: could not insert 'amdgpu': Key was
  rejected by service` (verbatim, ROCm/legacy-rocm-build#4330), the kernel's `Loading of module with
  unavailable key is rejected` (kernel/module/signing.c; verbatim in public notes, code index id
  69474736272), the boot's `secureboot: Secure boot enabled` and `Kernel is locked down from EFI
  secure boot; see man kernel_lockdown.7` (an LKML boot log, code index id 49094401690), and
  /sys/kernel/security/lockdown `none [integrity] confidentiality` (security/lockdown/lockdown.c);
- rocminfo `HSA Error: Incompatible kernel and userspace, <GPU> disabled. Upgrade amdgpu.`
  (ROCm 4.1 release notes, ROCm/legacy-rocm-build#1423; formats.rocminfo.incompatible_line);
- the kernel's own amdgpu stack (what amdgpu holds: amdxcp, drm_buddy, drm_ttm_helper, ttm, drm_exec,
  drm_suballoc_helper, drm_display_helper, cec, gpu_sched, i2c_algo_bit, with their sizes) from
  `lsmod | grep amdgpu` on Ubuntu 24.04's in-tree amdgpu (ROCm/legacy-rocm-build#5370), in
  /proc/modules' format (formats.kernel.render_proc_modules); the GPU Operator's blacklist file is
  `/etc/modprobe.d/blacklist-amdgpu.conf` holding `blacklist amdgpu` (ROCm/gpu-operator#330).
"""

from __future__ import annotations

from typing import Callable

from rocmdoctor.simnode.formats import amd_smi, rocminfo
from rocmdoctor.simnode.formats.kernel import render_proc_modules
from rocmdoctor.simnode.formats.kernel_lines import with_bdf
from rocmdoctor.simnode.nodes import healthy_mi300x
from rocmdoctor.simnode.scenarios import from_cases
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.system import UBUNTU_2204_OS_RELEASE
from rocmdoctor.simnode.tools import _modinfo

RUNBOOK = "kernel-driver-mismatch"
DKMS_BUILD = "2009582.22.04"          # build suffix of amdgpu-dkms 6.8.5 (ROCm 6.2.0) on 22.04
OS_RELEASE_22045 = UBUNTU_2204_OS_RELEASE.replace("22.04.4", "22.04.5")

#: `dkms` whose state lives in the node: `status` prints .sim/dkms/status; `autoinstall -k K`
#: and `install [--force] amdgpu/V -k K` add the build for K, put the module built for the
#: running kernel in place (modinfo answer) and let modprobe load it. Success line: dkms.in
#: `echo $"Autoinstall on $kernelver succeeded for module(s) ..."`.
DKMS_STUB = r"""
D="$R/.sim/dkms"
read -r running < "$R/proc/sys/kernel/osrelease"
read -r ver < "$D/version"
build() {
  k=$1
  grep -q "^amdgpu/$ver, $k, x86_64: installed" "$D/status" 2>/dev/null || \
    printf 'amdgpu/%s, %s, x86_64: installed\n' "$ver" "$k" >> "$D/status"
  if [ "$k" = "$running" ]; then
    cat "$D/modinfo.built" > "$D/modinfo.current"
    rm -f "$R/.sim/amdgpu/load-error"
  fi
}
case "$*" in
status) cat "$D/status"; exit 0 ;;
"autoinstall -k "*) [ $# = 3 ] || exit 2; build "$3"; echo "Autoinstall on $3 succeeded for module(s) amdgpu."; exit 0 ;;
"install --force amdgpu/$ver -k "*|"install amdgpu/$ver -k "*)
  eval "k=\${$#}"; build "$k"; echo "amdgpu.ko: Installing module to /lib/modules/$k/updates/dkms/"; exit 0 ;;
"install "*) echo "Error! The module/version combo: ${2#--force } is not located in the DKMS tree." >&2; exit 3 ;;
*) echo "Usage: dkms [action] [options] [module/module-version]" >&2; exit 2 ;;
esac
"""

#: `modinfo amdgpu` answering from .sim/dkms/modinfo.current (absent: kmod's "not found").
MODINFO_STUB = r"""
[ "$*" = amdgpu ] || { echo "modinfo: ERROR: Module $* not found." >&2; exit 1; }
if [ -f "$R/.sim/dkms/modinfo.current" ]; then cat "$R/.sim/dkms/modinfo.current"; exit 0; fi
echo "modinfo: ERROR: Module amdgpu not found." >&2
exit 1
"""

#: the firmware a PSP-13.0.6 (MI300-series) amdgpu init asks for, with the IP block each fails
_MI300_FIRMWARE = (("psp_13_0_6_sos.bin", "psp"), ("smu_13_0_6.bin", "smu"), ("gc_9_4_3_rlc.bin", "gfx_v9_4_3"),
                   ("sdma_4_4_2.bin", "sdma_v4_4_2"), ("vcn_4_0_3.bin", "vcn_v4_0_3"))


def healthy() -> SimNode:
    """The healthy MI300X node every scenario here starts from."""
    return healthy_mi300x()


def _stateful_dkms(node: SimNode, *, built_for: list[str], modinfo_now: str | None,
                   not_installed: tuple[str, ...] = ()) -> SimNode:
    """dkms/modinfo backed by node files, so an approved rebuild really changes the node.
    `not_installed`: kernels DKMS built amdgpu for without installing it (status `built`)."""
    ver = f"{node.driver_version}-{DKMS_BUILD}"
    node.file("/.sim/dkms/version", ver + "\n")
    node.file("/.sim/dkms/status", "".join(f"amdgpu/{ver}, {k}, x86_64: installed\n" for k in built_for)
              + "".join(f"amdgpu/{ver}, {k}, x86_64: built\n" for k in not_installed))
    node.file("/.sim/dkms/modinfo.built", _modinfo(node))
    if modinfo_now is not None:
        node.file("/.sim/dkms/modinfo.current", modinfo_now)
    return node.stub("dkms", DKMS_STUB).stub("modinfo", MODINFO_STUB)


def dkms_wrong_kernel(kernel: str = "6.8.0-45-generic", built_for: str = "6.5.0-35-generic",
                      os_release: str = OS_RELEASE_22045) -> SimNode:
    """Kernel updated 6.5 HWE -> 6.8 HWE (22.04.4 -> 22.04.5); amdgpu-dkms was built for 6.5 only.
    (The rollout tests move 5.15.0-119 -> 5.15.0-125 without headers: same failure, other kernels.)"""
    node = healthy()
    node.kernel = kernel
    node.cmdline = node.cmdline.replace("5.15.0-119-generic", node.kernel)
    node.file("/etc/os-release", os_release)
    node.unload_amdgpu(load_error=f"modprobe: FATAL: Module amdgpu not found in directory /lib/modules/{node.kernel}\n")
    return _stateful_dkms(node, built_for=[built_for], modinfo_now=None)


def dkms_stale_tree() -> SimNode:
    """amdgpu-dkms upgraded 6.7.0 -> 6.8.5 left /var/lib/dkms/amdgpu/6.7.0-1787201.22.04 behind; then
    a kernel update to 6.8.0-45: DKMS stops at that directory, so nothing was built for the new kernel."""
    node = healthy()
    node.kernel = "6.8.0-45-generic"
    node.cmdline = node.cmdline.replace("5.15.0-119-generic", node.kernel)
    node.file("/etc/os-release", OS_RELEASE_22045)
    node.unload_amdgpu(load_error=f"modprobe: FATAL: Module amdgpu not found in directory /lib/modules/{node.kernel}\n")
    node.command("dkms", "status", rc=4, stderr="Error! Could not locate dkms.conf file.\n"
                 "File: /var/lib/dkms/amdgpu/6.7.0-1787201.22.04/source/dkms.conf does not exist.\n")
    return node.stub("modinfo", MODINFO_STUB)


def vermagic_mismatch() -> SimNode:
    """updates/dkms/amdgpu.ko of the running kernel is a stale build for 5.15.0-116-generic."""
    node = healthy()
    stale = _modinfo(node).replace(f"vermagic:       {node.kernel} ", "vermagic:       5.15.0-116-generic ")
    line = (f"amdgpu: version magic '5.15.0-116-generic SMP mod_unload modversions ' should be "
            f"'{node.kernel} SMP mod_unload modversions '")
    node.add_kernel_log([(5.214, line)])
    node.unload_amdgpu(load_error="modprobe: ERROR: could not insert 'amdgpu': Exec format error\n",
                       load_error_log=[line])
    return _stateful_dkms(node, built_for=[node.kernel], modinfo_now=stale)


def symbol_mismatch() -> SimNode:
    """Same `uname -r`, other symbol CRCs: the kernel package was rebuilt under the same release name."""
    node = healthy()
    line = "amdgpu: disagrees about version of symbol module_layout"
    node.add_kernel_log([(5.214, line)])
    node.unload_amdgpu(load_error="modprobe: ERROR: could not insert 'amdgpu': Exec format error\n",
                       load_error_log=[line])
    return _stateful_dkms(node, built_for=[node.kernel], modinfo_now=_modinfo(node))


def module_key_rejected() -> SimNode:
    """Secure Boot on, amdgpu-dkms built and installed for the running kernel, its key never
    enrolled: the kernel refuses the module, amdgpu is not loaded."""
    node = healthy()
    node.add_kernel_log([(0.0, "secureboot: Secure boot enabled"),
                         (0.0, "Kernel is locked down from EFI secure boot; see man kernel_lockdown.7")])
    line = "Loading of module with unavailable key is rejected"
    node.add_kernel_log([(5.214, line)])
    node.file("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n")
    node.unload_amdgpu(load_error="modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service\n",
                       load_error_log=[line])
    return _stateful_dkms(node, built_for=[node.kernel], modinfo_now=_modinfo(node))


def firmware_missing() -> SimNode:
    """amdgpu-dkms-firmware missing: every GPU's early init fails for want of PSP/SMU/RLC/SDMA/VCN microcode."""
    node = healthy()
    ts = 5.3
    for g in node.gpus:
        lines = [with_bdf("amdgpu 0000:1b:00.0: amdgpu: Fetched VBIOS from platform", g.bdf)]
        for fw, block in _MI300_FIRMWARE:
            lines.append(with_bdf(f"amdgpu 0000:1b:00.0: Direct firmware load for amdgpu/{fw} failed with error -2", g.bdf))
            lines.append(f"[drm:amdgpu_device_ip_early_init [amdgpu]] *ERROR* early_init of IP block <{block}> failed -19")
        lines += [with_bdf("amdgpu 0000:1b:00.0: amdgpu: Fatal error during GPU init", g.bdf),
                  with_bdf("amdgpu 0000:1b:00.0: amdgpu: amdgpu: finishing device.", g.bdf)]
        node.add_kernel_log(lines, at=ts)
        ts += 0.04
    return node


def userspace_too_new() -> SimNode:
    """ROCm 6.4 user space on the ROCm 6.0 kernel driver (amdgpu 6.3.6): ROCr disables the GPUs."""
    node = healthy()
    node.driver_version = "6.3.6"
    node.rocm_version = "6.4.0"
    refused = [rocminfo.incompatible_line(g) for g in node.gpus]
    node.command("rocminfo", "", stdout=rocminfo.render_rocminfo([]), stderr="".join(r + "\n" for r in refused))
    node.command("amd-smi", "version", stdout=amd_smi.render_version(rocm="6.4.0", amdgpu="6.3.6"))
    return node


def kernel_unsupported() -> SimNode:
    """Ubuntu 22.04.5 HWE kernel 6.8 with ROCm 6.2 on MI300X: AMD excludes that combination."""
    node = healthy()
    node.kernel = "6.8.0-45-generic"
    node.cmdline = node.cmdline.replace("5.15.0-119-generic", node.kernel)
    node.file("/etc/os-release", OS_RELEASE_22045)
    return node


#: what the kernel's own amdgpu holds, (name, size) as lsmod printed them (ROCm/legacy-rocm-build#5370)
_IN_TREE_HELD = (("amdxcp", 12288), ("drm_buddy", 24576), ("drm_ttm_helper", 16384), ("ttm", 118784),
                 ("drm_exec", 12288), ("drm_suballoc_helper", 20480), ("drm_display_helper", 278528),
                 ("cec", 94208), ("gpu_sched", 61440), ("i2c_algo_bit", 16384))
_BOOT_TIME = 1_758_180_000          # 2025-09-18 07:20 UTC: this boot
_INITRD_BUILT = _BOOT_TIME - 40 * 86400


def _kernel_amdgpu_running(node: SimNode) -> SimNode:
    """Ubuntu 22.04.5 on HWE kernel 6.8.0-45, running the kernel's own amdgpu (no version file)."""
    node.kernel = "6.8.0-45-generic"
    node.cmdline = node.cmdline.replace("5.15.0-119-generic", node.kernel)
    node.file("/etc/os-release", OS_RELEASE_22045)
    mods = [{"name": "amdgpu", "size": 17633280, "refcount": 0, "deps": []}]
    mods += [{"name": n, "size": size, "refcount": 1, "deps": ["amdgpu"]} for n, size in _IN_TREE_HELD]
    node.file("/proc/modules", render_proc_modules(mods), mode=0o444)
    node.remove("/sys/module/amdgpu/version")
    return node


def _in_tree_modinfo(node: SimNode) -> str:
    return _modinfo(node).replace(f"/lib/modules/{node.kernel}/updates/dkms/amdgpu.ko",
                                  f"/lib/modules/{node.kernel}/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst")


def dkms_install_refused() -> SimNode:
    """Kernel update 6.5 HWE -> 6.8 HWE: DKMS built amdgpu for 6.8.0-45 and did not install it,
    so `dkms status` says `built` and the kernel's own amdgpu is what runs. That is the state the
    version sanity check of ROCm/legacy-rocm-build#344 (an older DKMS) leaves; the version numbers
    here are this node's, not that thread's."""
    node = _kernel_amdgpu_running(healthy())
    return _stateful_dkms(node, built_for=["6.5.0-35-generic"], modinfo_now=_in_tree_modinfo(node),
                          not_installed=(node.kernel,))


def inbox_loaded_despite_blacklist() -> SimNode:
    """A GPU Operator node on Ubuntu 22.04 (HWE kernel 6.8): the operator wrote
    /etc/modprobe.d/blacklist-amdgpu.conf, nobody rebuilt the initramfs, so the initramfs still
    loads the kernel's own amdgpu at boot and the operator's `modprobe amdgpu` finds it loaded."""
    node = _kernel_amdgpu_running(healthy())
    node.rocm_version = "6.4.0"
    node.command("modinfo", "amdgpu", stdout=_in_tree_modinfo(node))
    node.file("/etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n", mtime=_BOOT_TIME - 3600)
    node.file(f"/boot/initrd.img-{node.kernel}", "(initramfs image)\n", mtime=_INITRD_BUILT)
    node.file(f"/boot/vmlinuz-{node.kernel}", "(kernel image)\n", mtime=_INITRD_BUILT - 60)
    return node.remove_tool("dkms")


#: (name, description, builder, expected decisive step, expected diagnosis id)
CASES: list[tuple[str, str, Callable[[], SimNode], str, str]] = [
    ("dkms-wrong-kernel", "amdgpu-dkms built for 6.5.0-35-generic only, node boots 6.8.0-45-generic: no amdgpu",
     dkms_wrong_kernel, "dkms", "dkms-not-built-for-kernel"),
    ("dkms-install-refused", "amdgpu-dkms built for the new kernel 6.8.0-45 but not installed (DKMS kept the kernel's own amdgpu.ko as 'not newer'): the kernel's amdgpu runs",
     dkms_install_refused, "dkms", "dkms-install-refused"),
    ("dkms-stale-tree", "a leftover amdgpu-dkms 6.7.0 directory without dkms.conf stops DKMS: no amdgpu for the new kernel",
     dkms_stale_tree, "dkms", "dkms-stale-tree"),
    ("amdgpu-vermagic-mismatch", "amdgpu.ko on disk was built for 5.15.0-116, the running kernel is 5.15.0-119",
     vermagic_mismatch, "vermagic", "vermagic-mismatch"),
    ("amdgpu-symbol-mismatch", "kernel refuses amdgpu: 'disagrees about version of symbol module_layout'",
     symbol_mismatch, "symbols", "module-symbol-mismatch"),
    ("amdgpu-key-rejected", "Secure Boot refuses the DKMS-built amdgpu: its signing key was never enrolled (MOK)",
     module_key_rejected, "signing", "module-signature-rejected"),
    ("amdgpu-firmware-missing", "amdgpu cannot load psp_13_0_6_sos.bin and 4 more firmware files: GPU init fails",
     firmware_missing, "firmware", "firmware-missing"),
    ("rocm-driver-incompatible", "ROCm 6.4 user space on the ROCm 6.0 amdgpu driver 6.3.6: rocminfo disables the GPUs",
     userspace_too_new, "userspace", "userspace-driver-mismatch"),
    ("kernel-unsupported", "MI300X on Ubuntu 22.04 HWE kernel 6.8 with ROCm 6.2: a combination AMD does not support",
     kernel_unsupported, "support", "unsupported-kernel-or-os"),
    ("inbox-amdgpu-despite-blacklist", "GPU Operator node: amdgpu blacklisted after the initramfs was built, so the kernel's own amdgpu still loads at boot",
     inbox_loaded_despite_blacklist, "loadedbuild", "initramfs-loads-in-tree-amdgpu"),
]


SCENARIOS = from_cases(CASES, (RUNBOOK,))
