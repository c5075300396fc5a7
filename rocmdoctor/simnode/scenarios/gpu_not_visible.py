"""Simulated gpu-not-visible incidents, one per root cause, each the healthy 8x MI300X node
with the smallest change that produces the fault on a real machine.

Real texts used (source beside each): amdgpu probe failure and KFD lines from
rocmdoctor.simnode.formats.kernel_lines (their issues cited there); rocminfo's /dev/kfd
failure from formats.rocminfo (ROCm/ROCm#1318, #6142 and a container note quoting
"Unable to open /dev/kfd read-write: No such file or directory").
"""

from __future__ import annotations

from typing import Callable

from rocmdoctor.simnode.formats import amd_smi, kernel, rocminfo
from rocmdoctor.simnode.formats.kernel_lines import messages, with_bdf
from rocmdoctor.simnode.gpu import SimGPU, mi300x_gpus
from rocmdoctor.simnode.scenarios import from_cases
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.sysfs import pci_core_tree
from rocmdoctor.simnode.tools import amdgpu_init_lines

RUNBOOK = "gpu-not-visible"

#: modprobe's message when amdgpu's init returns -EINVAL (amdgpu_drv.c amdgpu_init under
#: nomodeset: `if (drm_firmware_drivers_only() && amdgpu_modeset == -1) return -EINVAL;`);
#: kmod prints "could not insert '%s': %s" (kmod tools/modprobe.c).
MODPROBE_EINVAL = "modprobe: ERROR: could not insert 'amdgpu': Invalid argument\n"

#: KFD's refusal of a GPU: kernel amdkfd/kfd_device.c kgd2kfd_device_init()
#: `dev_err(kfd_device, "device %x:%x NOT added due to errors\n", ...)`, printed via the
#: kfd class device with the "amdgpu: " pr_fmt prefix ("kfd kfd: amdgpu: ...").
KFD_NOT_ADDED = "kfd kfd: amdgpu: device 1002:74a1 NOT added due to errors"

#: rocminfo with /dev/kfd absent (a container note quoting rocminfo: "Unable to open /dev/kfd
#: read-write: No such file or directory" / "Failed to get user name to check for video group
#: membership"; ROCm/ROCm#1174 has the same pair).
ROCMINFO_NO_KFD = ("ROCk module is loaded\nUnable to open /dev/kfd read-write: No such file or directory\n"
                   "Failed to get user name to check for video group membership\n")


def healthy() -> SimNode:
    """The healthy MI300X node (testing.nodes.healthy_mi300x when present)."""
    try:
        from rocmdoctor.simnode.nodes import healthy_mi300x  # type: ignore[import-not-found]
    except ImportError:
        return SimNode("mi300x-01", gpus=mi300x_gpus(8), description="healthy 8x MI300X, ROCm 6.2")
    return healthy_mi300x()


def _set_klog(node: SimNode, lines: list[tuple[float, str]], built_by: str = "buildd@lcy02-amd64-025") -> None:
    """Replace the kernel-log answers (dmesg, journalctl -k -b) with the kernel's two boot lines
    (`Linux version`, built by `built_by`; `Command line`) followed by `lines`."""
    lines = [(0.0, f"Linux version {node.kernel} ({built_by})"), (0.0, f"Command line: {node.cmdline}"), *lines]
    node.command("dmesg", "", stdout=kernel.render_dmesg(lines))
    node.command("journalctl", "-k -b --no-pager",
                 stdout=kernel.render_journal_k_monotonic(lines, node.name))


def _renumber(gpus: list[SimGPU]) -> list[SimGPU]:
    """amdgpu numbers cards/render minors in probe order: a failed GPU takes no minor."""
    for i, g in enumerate(gpus):
        g.index, g.card, g.render_minor = i, i, 128 + i
    return gpus


def _answer_runtime(node: SimNode, gpus: list[SimGPU]) -> None:
    """amd-smi list and rocminfo as they answer when only `gpus` are usable."""
    node.command("amd-smi", "list --json", stdout=amd_smi.render_list_json(gpus))
    node.command("rocminfo", "", stdout=rocminfo.render_rocminfo(gpus))


# --- root causes --------------------------------------------------------------------------

def amdgpu_not_loaded() -> SimNode:
    """Someone ran `modprobe -r amdgpu` (or it was not loaded at boot); nothing blocks it."""
    return healthy().unload_amdgpu()


def amdgpu_blacklisted() -> SimNode:
    """A `blacklist amdgpu` left in modprobe.d, e.g. from a VFIO passthrough setup (Proxmox wiki
    "PCI Passthrough": `echo "blacklist amdgpu" >> /etc/modprobe.d/blacklist.conf`)."""
    node = healthy().unload_amdgpu()
    node.file("/etc/modprobe.d/blacklist-gpu.conf",
              "# GPU passthrough to VMs (vfio-pci)\nblacklist amdgpu\nblacklist radeon\n")
    return node


def nomodeset() -> SimNode:
    """Booted with `nomodeset` (rescue entry left as default): amdgpu refuses to initialise."""
    node = healthy()
    node.cmdline = node.cmdline.replace(" quiet", " nomodeset quiet")
    node.unload_amdgpu(load_error=MODPROBE_EINVAL)
    # the kernel's own warning at boot (drivers/video/nomodeset.c, kernel_lines "nomodeset")
    node.add_kernel_log(messages("nomodeset"), at=0.412113)
    return node


def gpu_failed_init(lines: list[str]) -> SimNode:
    """The healthy node with GPU 0000:65:00.0 left unbound after `lines` (its address in them):
    on the bus, gone from KFD and amd-smi."""
    node = healthy()
    gpus = mi300x_gpus(8)
    dead = gpus.pop(3)
    node.gpus = _renumber(gpus)
    for rel, entry in pci_core_tree(dead).items():      # the PCI core still lists it
        if hasattr(entry, "text"):
            node.file("/" + rel, entry.text, mode=entry.mode)  # type: ignore[union-attr]
        else:
            node.symlink("/" + rel, entry.target)  # type: ignore[union-attr]
    node.add_kernel_log([with_bdf(m, dead.bdf) for m in lines], at=9.871020)
    return node


def probe_failure() -> SimNode:
    """GPU 0000:65:00.0 failed to initialise (ROCm/rocm-install-on-linux#615's lines, MI210 on 24.04)."""
    return gpu_failed_init(messages("probe_failure"))


def ip_discovery_unreadable() -> SimNode:
    """GPU 0000:65:00.0 failed to initialise: amdgpu could not read its IP discovery table
    ("get invalid ip discovery binary signature", ROCm/legacy-rocm-build#4454)."""
    return gpu_failed_init(messages("ip_discovery"))


def boot_firmware_failed() -> SimNode:
    """GPU 0000:65:00.0 reported a failed boot ("firmware load failed at boot time" for each of its
    four AIDs) between its IP discovery error and the give-up, in the order of ROCm/legacy-rocm-build#4454."""
    discovery = messages("ip_discovery")
    return gpu_failed_init(discovery[:1] + messages("boot_error") + discovery[1:])


def gpu_post_failed() -> SimNode:
    """GPU 0000:65:00.0's VBIOS could not post it ("atombios stuck ...", "gpu post error!"; the lines
    of ROCm/legacy-rocm-build#4533, an MI100, moved to this GPU)."""
    return gpu_failed_init(messages("vbios_post"))


def vf_psp_init_failed() -> SimNode:
    """GPU 0000:65:00.0, an SR-IOV virtual function, failed its PSP init under a guest driver its
    host does not support (ROCm/legacy-rocm-build#2995's lines: V620 MxGPU on Azure NGads)."""
    return gpu_failed_init(messages("virtual_display"))


def gpu_missing_from_kfd() -> SimNode:
    """amdgpu bound GPU 0000:e5:00.0 but KFD refused it ("NOT added due to errors"):
    8 on the bus and bound, 7 in the KFD topology, rocminfo and amd-smi list."""
    node = healthy()
    lost = node.gpus[-1]
    node.remove(f"/sys/devices/virtual/kfd/kfd/topology/nodes/{2 + lost.index}")
    lines = [(ts, m) for ts, m in amdgpu_init_lines(node, 5.214)]
    added = f"kfd kfd: added device {lost.vendor_id:x}:{lost.device_id:x}"
    last = max(i for i, (_, m) in enumerate(lines) if m == added)
    lines[last] = (lines[last][0], KFD_NOT_ADDED)
    _set_klog(node, lines)
    _answer_runtime(node, node.gpus[:-1])
    return node


def vf_mailbox_stuck() -> SimNode:
    """amdgpu bound GPU 0000:e5:00.0 but never finished initialising it: it took the GPU for an SR-IOV
    VF and loops on the PF mailbox ("trn=2 ACK should not assert", ROCm/amdgpu#211, moved to this
    GPU's address); no KFD node, amd-smi and rocminfo list the other 7."""
    node = healthy()
    stuck = node.gpus[-1]
    node.remove(f"/sys/devices/virtual/kfd/kfd/topology/nodes/{2 + stuck.index}")
    lines = [(ts, m) for ts, m in amdgpu_init_lines(node, 5.214) if stuck.bdf not in m
             and m != f"kfd kfd: added device {stuck.vendor_id:x}:{stuck.device_id:x}"]
    loop = messages("vf_mailbox_stuck", stuck.bdf)
    lines += [(31.483045 + 0.004 * i, m) for i, m in enumerate(loop + loop[:1])]
    _set_klog(node, lines)
    _answer_runtime(node, node.gpus[:-1])
    return node


def smi_missing_gpu() -> SimNode:
    """amd-smi list shows 7 GPUs (0000:a6:00.0 absent) although driver, KFD and rocminfo have 8."""
    node = healthy()
    node.command("amd-smi", "list --json",
                 stdout=amd_smi.render_list_json([g for g in node.gpus if g.bdf != "0000:a6:00.0"]))
    return node


def kfd_node_missing() -> SimNode:
    """/dev/kfd is gone (udev did not create it) while KFD is initialised; rocminfo cannot open it."""
    node = healthy().remove("/dev/kfd")
    node.command("rocminfo", "", stdout=ROCMINFO_NO_KFD, rc=1)
    node.stub("udevadm", UDEVADM_STUB)
    return node


#: `udevadm trigger --action=add --subsystem-match=kfd ...` recreates /dev/kfd the way udev
#: would (50-udev-default.rules: GROUP="render", MODE 0660); `settle` returns at once.
UDEVADM_STUB = r"""
case "$*" in
'trigger --action=add --subsystem-match=kfd --subsystem-match=drm')
  if [ ! -e "$R/dev/kfd" ]; then
    mknod "$R/dev/kfd" c 511 0 2>/dev/null || : > "$R/dev/kfd"
    chgrp 109 "$R/dev/kfd"; chmod 660 "$R/dev/kfd"
  fi
  exit 0 ;;
'settle --timeout=30') exit 0 ;;
*) echo "udevadm: unrecognized option '$1'" >&2; exit 2 ;;
esac
"""


def user_not_in_render() -> SimNode:
    """The invoking user `bob` is not in render/video: /dev/kfd is root:render 0660."""
    node = healthy().add_user("bob", 1003, ())
    node.login_user = "bob"
    node.command("rocminfo", "", stdout=rocminfo.render_rocminfo_kfd_error("Permission denied", user="bob"), rc=1)
    return node


def kfd_root_only() -> SimNode:
    """No udev rule matched /dev/kfd: it stays the kernel's 0600 root:root; user alice (render) is refused."""
    node = healthy()
    node.kfd_mode, node.kfd_gid = 0o600, 0
    node.login_user = "alice"
    node.command("rocminfo", "", stdout=rocminfo.render_rocminfo_kfd_error("Permission denied", user="alice"), rc=1)
    return node


def visible_devices_empty() -> SimNode:
    """ROCR_VISIBLE_DEVICES="" exported in the login environment hides all 8 GPUs."""
    node = healthy()
    node.env["ROCR_VISIBLE_DEVICES"] = ""
    return node


def gpu_fell_off_bus() -> SimNode:
    """7 GPUs on the bus where 8 are expected (--var expect_gpus=8): 0000:c6:00.0 dropped off."""
    node = healthy()
    node.gpus = _renumber([g for g in node.gpus if g.bdf != "0000:c6:00.0"])
    return node


#: (demo name, one-line description, builder, decisive step, diagnosis, vars)
CASES: list[tuple[str, str, Callable[[], SimNode], str, str, dict[str, str]]] = [
    ("amdgpu-not-loaded", "amdgpu kernel module not loaded: no /dev/kfd, no GPU for ROCm",
     amdgpu_not_loaded, "module", "amdgpu-not-loaded", {}),
    ("amdgpu-blacklisted", "`blacklist amdgpu` in /etc/modprobe.d keeps the driver out at boot",
     amdgpu_blacklisted, "boot", "amdgpu-blacklisted", {}),
    ("nomodeset", "kernel booted with nomodeset: amdgpu refuses to initialise",
     nomodeset, "boot", "boot-nomodeset", {}),
    ("gpu-probe-failure", "GPU 0000:65:00.0 failed init ('Fatal error during GPU init'): 7 of 8 usable",
     probe_failure, "kernel_log", "probe-failure", {}),
    ("ip-discovery-unreadable", "GPU 0000:65:00.0 failed init: 'get invalid ip discovery binary signature'",
     ip_discovery_unreadable, "kernel_log", "ip-discovery-unreadable", {}),
    ("gpu-boot-firmware-failed", "GPU 0000:65:00.0 failed its own boot ('firmware load failed at boot time'), then init",
     boot_firmware_failed, "kernel_log", "gpu-boot-firmware-failed", {}),
    ("gpu-post-failed", "GPU 0000:65:00.0's VBIOS did not post it ('atombios stuck', 'gpu post error!'): 7 of 8 usable",
     gpu_post_failed, "kernel_log", "gpu-post-failed", {}),
    ("vf-init-failed", "GPU 0000:65:00.0, an SR-IOV VF, failed PSP init: the guest driver is not one its host supports",
     vf_psp_init_failed, "kernel_log", "vf-needs-platform-driver", {}),
    ("gpu-missing-from-kfd", "KFD refused GPU 0000:e5:00.0 ('NOT added due to errors'): 7 in amd-smi/rocminfo",
     gpu_missing_from_kfd, "kfd", "gpu-missing-from-kfd", {}),
    ("vf-mailbox-stuck", "amdgpu stuck initialising 0000:e5:00.0 in the SR-IOV mailbox ('trn=2 ACK should not assert')",
     vf_mailbox_stuck, "kernel_log", "init-stuck-in-vf-mailbox", {}),
    ("smi-missing-gpu", "amd-smi list shows 7 of 8 GPUs (0000:a6:00.0 absent) though KFD has all 8",
     smi_missing_gpu, "runtime", "runtime-missing-gpu", {}),
    ("kfd-node-missing", "/dev/kfd missing although KFD is up: udev did not create it",
     kfd_node_missing, "devnodes", "device-nodes-missing", {}),
    ("user-not-in-render", "user bob is not in the render group: /dev/kfd permission denied",
     user_not_in_render, "access", "user-not-in-render-group", {}),
    ("kfd-root-only", "/dev/kfd left 0600 root:root (no udev rule): only root can open it",
     kfd_root_only, "access", "kfd-node-root-only", {}),
    ("visible-devices-empty", "ROCR_VISIBLE_DEVICES=\"\" in the environment hides every GPU",
     visible_devices_empty, "env", "visibility-variable-masks-gpus", {}),
    ("gpu-fell-off-bus", "7 of 8 expected GPUs on the PCI bus (run with --var expect_gpus=8)",
     gpu_fell_off_bus, "gpus", "gpu-fell-off-bus", {"expect_gpus": "8"}),
]


SCENARIOS = from_cases(CASES, (RUNBOOK,))
