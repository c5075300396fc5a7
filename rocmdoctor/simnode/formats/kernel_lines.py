"""Real amdgpu / kernel log lines for fault scenarios, each with the public place it was pasted.

Simulated nodes build their dmesg from these messages (with their own
timestamps and PCI address) so a scenario's log reads like a real machine's.
Each entry is `(message, source)`: the message is the text after the
`[    5.123456] ` stamp, verbatim from the source except where a note says the
BDF was changed with `with_bdf()` at render time. `kind` keys match
`rocmdoctor.parsers.kernel_log.AMDGPU_CLASSES`.
"""

from __future__ import annotations

KERNEL_SRC = "torvalds/linux@HEAD"

# Healthy boot of an amdgpu/KFD GPU. Messages from ROCm/legacy-rocm-build#4533
# (MI210-class, ROCm 6.10.5 DKMS) and awsdocs/amazon-ec2-user-guide#152, plus
# the kernel's own strings for the KFD node (kfd_topology.c) and drm init.
HEALTHY_BOOT: list[tuple[str, str]] = [
    ("[drm] amdgpu kernel modesetting enabled.", "https://github.com/ROCm/legacy-rocm-build/issues/4533"),
    ("[drm] amdgpu version: 6.10.5", "https://github.com/ROCm/legacy-rocm-build/issues/4533"),
    ("amdgpu: Virtual CRAT table created for CPU", "https://github.com/ROCm/legacy-rocm-build/issues/4533"),
    ("amdgpu: Topology: Add CPU node", "https://github.com/ROCm/legacy-rocm-build/issues/4533"),
    ("amdgpu 0000:43:00.0: enabling device (0000 -> 0003)", "https://github.com/ROCm/legacy-rocm-build/issues/4533"),
    ("amdgpu 0000:43:00.0: amdgpu: Fetched VBIOS from platform", "https://github.com/ROCm/legacy-rocm-build/issues/4533"),
    ("amdgpu: Virtual CRAT table created for GPU", "https://github.com/ublue-os/bazzite/issues/5729"),
    ("amdgpu: Topology: Add GPU node [0x1002:0x164e]", "https://github.com/ublue-os/bazzite/issues/5729"),
    ("[drm] Initialized amdgpu 3.64.0 for 0000:12:00.0 on minor 0", "https://github.com/ublue-os/bazzite/issues/5729"),
    ("[drm] Initialized amdgpu 3.36.0 20150101 for 0000:00:1e.0 on minor 0",
     "https://github.com/awsdocs/amazon-ec2-user-guide/pull/152"),
    ("kfd kfd: added device 1002:15dd", "https://github.com/ROCm/amdgpu/issues/42"),
]

FAULTS: dict[str, list[tuple[str, str]]] = {
    # Probe failure: GPU present, driver refuses it (ROCm/rocm-install-on-linux#615, MI210 on 24.04).
    "probe_failure": [
        ("amdgpu 0000:83:00.0: amdgpu: initializing kernel modesetting (ALDEBARAN 0x1002:0x740F 0x1002:0x0C34 0x02).",
         "https://github.com/ROCm/rocm-install-on-linux/issues/615"),
        ("amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init",
         "https://github.com/ROCm/rocm-install-on-linux/issues/615"),
        ("amdgpu: probe of 0000:83:00.0 failed with error -12",
         "https://github.com/ROCm/rocm-install-on-linux/issues/615"),
    ],
    # amdgpu could not read the IP discovery table of an MI300X, then gave up on it (ROCm/legacy-rocm-build#4454,
    # Dell XE9680, every GPU of the node; ROCm/legacy-rocm-build#3856 the same on another MI300X node)
    "ip_discovery": [
        ("amdgpu 0000:1b:00.0: amdgpu: get invalid ip discovery binary signature",
         "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
        ("[drm:amdgpu_discovery_set_ip_blocks [amdgpu]] *ERROR* amdgpu_discovery_init failed",
         "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
        ("amdgpu 0000:1b:00.0: amdgpu: Fatal error during GPU init", "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
        ("amdgpu 0000:1b:00.0: amdgpu: amdgpu: finishing device.", "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
        ("amdgpu: probe of 0000:1b:00.0 failed with error -22", "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
    ],
    # the GPU fell off the bus mid-job: registers read all ones (ROCm/TheRock#8232, an RX 7900 XTX on a
    # passive M.2-to-OCuLink link; a ring timeout followed)
    "bus_lost": [(m, "https://github.com/ROCm/TheRock/issues/8232") for m in (
        "amdgpu 0000:04:00.0: device lost from bus!",
        "amdgpu 0000:04:00.0: SMU: bus error for message: TransferTableSmu2Dram(18) response:0xFFFFFFFF",
    )],
    # the VBIOS could not post an MI100: its init tables looped until atom.c gave up (ROCm/legacy-rocm-build#4533,
    # 5x MI100 failing alike; AMD: a VBIOS that cannot be read, often one card or the xGMI link)
    "vbios_post": [(m, "https://github.com/ROCm/legacy-rocm-build/issues/4533") for m in (
        "amdgpu 0000:43:00.0: amdgpu: Fetched VBIOS from platform",
        "[drm:atom_op_jump [amdgpu]] *ERROR* atombios stuck in loop for more than 20secs aborting",
        "[drm:amdgpu_atom_execute_table_locked [amdgpu]] *ERROR* atombios stuck executing 0484 (len 110, WS 12, PS 8) @ 0x04E9",
        "[drm:amdgpu_atom_execute_table_locked [amdgpu]] *ERROR* atombios stuck executing 040A (len 45, WS 0, PS 8) @ 0x042B",
        "amdgpu 0000:43:00.0: amdgpu: gpu post error!",
        "amdgpu 0000:43:00.0: amdgpu: Fatal error during GPU init",
        "amdgpu 0000:43:00.0: amdgpu: amdgpu: finishing device.",
        "amdgpu: probe of 0000:43:00.0 failed with error -22",
    )],
    # amdgpu drove an SR-IOV virtual function (it added the virtual display block a VF gets) and
    # the VF's PSP init failed: ROCm's amdgpu on an Azure NGads V620 MxGPU, which needs the cloud's
    # own driver (ROCm/legacy-rocm-build#2995)
    "virtual_display": [(m, "https://github.com/ROCm/legacy-rocm-build/issues/2995") for m in (
        "[drm] add ip block number 5 <amdgpu_vkms>",
        "amdgpu 0002:00:00.0: amdgpu: Fetched VBIOS from VRAM BAR",
        "[drm:psp_hw_init [amdgpu]] *ERROR* PSP firmware loading failed",
        "[drm:amdgpu_device_ip_init [amdgpu]] *ERROR* hw_init of IP block <psp> failed -22",
        "amdgpu 0002:00:00.0: amdgpu: amdgpu_device_ip_init failed",
        "amdgpu 0002:00:00.0: amdgpu: Fatal error during GPU init",
        "amdgpu 0002:00:00.0: amdgpu: amdgpu: finishing device.",
        "amdgpu: probe of 0002:00:00.0 failed with error -22",
    )],
    # The GPU's own boot reported failures between the discovery error and the give-up: the one
    # GPU of ROCm/legacy-rocm-build#4454 that printed them (the reporter replaced a GPU to fix the node)
    "boot_error": [
        ("amdgpu 0000:5f:00.0: amdgpu: socket: 2, aid: 0, fw_status: 0xe6985b2d, firmware load failed at boot time",
         "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
        ("amdgpu 0000:5f:00.0: amdgpu: socket: 2, aid: 1, fw_status: 0xe6985b2d, firmware load failed at boot time",
         "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
        ("amdgpu 0000:5f:00.0: amdgpu: socket: 2, aid: 2, fw_status: 0xe6985d2d, firmware load failed at boot time",
         "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
        ("amdgpu 0000:5f:00.0: amdgpu: socket: 2, aid: 3, fw_status: 0xe6985b2d, firmware load failed at boot time",
         "https://github.com/ROCm/legacy-rocm-build/issues/4454"),
    ],
    # Missing firmware file, then init failure (geerlingguy/raspberry-pi-pcie-devices#331;
    # ROCm/legacy-rocm-build#912 for the non-fatal TA case).
    "firmware_missing": [
        ("amdgpu 0000:01:00.0: Direct firmware load for amdgpu/polaris12_mc.bin failed with error -2",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/331"),
        ("amdgpu: mc: Failed to load firmware \"amdgpu/polaris12_mc.bin\"",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/331"),
        ("[drm:amdgpu_device_init [amdgpu]] *ERROR* sw_init of IP block <gmc_v8_0> failed -2",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/331"),
        ("amdgpu 0000:01:00.0: amdgpu: amdgpu_device_ip_init failed",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/331"),
        ("amdgpu 0000:01:00.0: amdgpu: Fatal error during GPU init",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/331"),
    ],
    # Module built for another kernel / missing dependency. The `disagrees`
    # pair is the module loader's wording (kernel/module/version.c) as pasted
    # for evdi in DisplayLink/evdi#111; the amdgpu `Unknown symbol` lines are
    # from awsdocs/amazon-ec2-user-guide#152.
    "symbol_mismatch": [
        ("amdgpu: Unknown symbol amd_iommu_bind_pasid (err -2)",
         "https://github.com/awsdocs/amazon-ec2-user-guide/pull/152"),
        ("amdgpu: Unknown symbol amd_iommu_init_device (err -2)",
         "https://github.com/awsdocs/amazon-ec2-user-guide/pull/152"),
        ("evdi: disagrees about version of symbol drm_framebuffer_cleanup",
         "https://github.com/DisplayLink/evdi/issues/111"),
        ("evdi: Unknown symbol drm_framebuffer_cleanup (err -22)", "https://github.com/DisplayLink/evdi/issues/111"),
    ],
    # KFD refuses the GPU (ROCm/legacy-rocm-build#558, #719).
    "kfd_unsupported": [
        ("kfd kfd: Initialized module", "https://github.com/ROCm/legacy-rocm-build/issues/558"),
        ("amdgpu 0000:02:00.0: kfd not supported on this ASIC", "https://github.com/ROCm/legacy-rocm-build/issues/558"),
        ("kfd kfd: kgd2kfd_probe failed", "https://github.com/ROCm/legacy-rocm-build/issues/719"),
    ],
    # Job hang -> ring timeout -> reset (ROCm/legacy-rocm-build#6273, #2533).
    "ring_timeout": [
        ("amdgpu 0000:c5:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=2662395, emitted seq=2662397",
         "https://github.com/ROCm/legacy-rocm-build/issues/6273"),
        ("amdgpu 0000:c5:00.0: amdgpu:  Process code pid 1048641 thread code:cs0 pid 1048662",
         "https://github.com/ROCm/legacy-rocm-build/issues/6273"),
        ("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=16060, emitted seq=16062",
         "https://github.com/ROCm/legacy-rocm-build/issues/2533"),
    ],
    "gpu_reset": [
        ("amdgpu 0000:c5:00.0: amdgpu: GPU reset begin!", "https://github.com/ROCm/legacy-rocm-build/issues/6273"),
        ("amdgpu 0000:c5:00.0: amdgpu: MODE2 reset", "https://github.com/ROCm/legacy-rocm-build/issues/6273"),
        ("amdgpu 0000:c5:00.0: amdgpu: GPU reset succeeded, trying to resume",
         "https://github.com/ROCm/legacy-rocm-build/issues/6273"),
        ("amdgpu 0000:28:00.0: VRAM is lost due to GPU reset!", "https://github.com/pop-os/cosmic-epoch/issues/3764"),
    ],
    # Thermal: MI100 HBM hitting its limit (ROCm/legacy-rocm-build#1468).
    "thermal": [
        ("amdgpu 0000:29:00.0: WARN: GPU thermal throttling temperature reached, expect performance decrease. HBM.",
         "https://github.com/ROCm/legacy-rocm-build/issues/1468"),
    ],
    # The GPU passed its software critical temperature; amdgpu powers the node off right after
    # (ValveSoftware/Proton#8028, RX 6600M; the journal prefix is dropped here, the renderer adds its own).
    "thermal_shutdown": [
        ("amdgpu 0000:03:00.0: amdgpu: ERROR: GPU over temperature range(SW CTF) detected!",
         "https://github.com/ValveSoftware/Proton/issues/8028"),
        ("amdgpu 0000:03:00.0: amdgpu: ERROR: System is going to shutdown due to GPU SW CTF!",
         "https://github.com/ValveSoftware/Proton/issues/8028"),
    ],
    # Host OOM killer took the job (docker/for-linux#1001; 0jc1/py-autovod#7 for the UID/pgtables variant).
    "oom_kill": [
        ("Out of memory: Killed process 15784 (python3) total-vm:11964kB, anon-rss:4288kB, file-rss:3028kB, shmem-rss:0kB",
         "https://github.com/docker/for-linux/issues/1001"),
        ("oom_reaper: reaped process 15784 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
         "https://github.com/docker/for-linux/issues/1001"),
    ],
    # nomodeset on the command line: the kernel's warning (drivers/video/nomodeset.c,
    # also ROCm/ROCK-Kernel-Driver drivers/gpu/drm/amd/amdkcl/kcl_drm_nomodeset.c).
    "nomodeset": [
        ("Booted with the nomodeset parameter. Only the system framebuffer will be available",
         f"{KERNEL_SRC}/drivers/video/nomodeset.c"),
    ],
    # The PCI core could not place the GPU's BARs (GPUs on risers, ROCm/legacy-rocm-build#1541;
    # an MI100 on an AM4 board, #2927).
    "pci_bar": [
        ("amdgpu 0000:0d:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]",
         "https://github.com/ROCm/legacy-rocm-build/issues/1541"),
        ("amdgpu 0000:0d:00.0: BAR 2: no space for [mem size 0x00200000 64bit pref]",
         "https://github.com/ROCm/legacy-rocm-build/issues/1541"),
        ("amdgpu 0000:0d:00.0: BAR 2: failed to assign [mem size 0x00200000 64bit pref]",
         "https://github.com/ROCm/legacy-rocm-build/issues/1541"),
        ("pci 0000:25:00.0: BAR 7: no space for [mem size 0x00100000 64bit]",
         "https://github.com/ROCm/legacy-rocm-build/issues/2927"),
    ],
    # PCIe AER reports (drivers/pci/pcie/aer.c): a fatal Transaction Layer error on the root port
    # above a Fury Nano (ROCm/legacy-rocm-build#32) and above a Radeon VII (#858); the PCI core
    # passes it on to amdgpu's device ("device has no AER-aware driver").
    "pcie_aer": [
        ("pcieport 0000:00:1c.4: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, id=00e4(Receiver ID)",
         "https://github.com/ROCm/legacy-rocm-build/issues/32"),
        ("pcieport 0000:00:03.1: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, id=0019(Receiver ID)",
         "https://github.com/ROCm/legacy-rocm-build/issues/858"),
        ("pcieport 0000:00:1c.4:   device [8086:a114] error status/mask=00040000/00000000",
         "https://github.com/ROCm/legacy-rocm-build/issues/32"),
    ],
    "pcie_aer_device": [
        ("amdgpu 0000:06:00.0: device has no AER-aware driver", "https://github.com/ROCm/legacy-rocm-build/issues/32"),
        ("amdgpu 0000:0a:00.0: device has no AER-aware driver", "https://github.com/ROCm/legacy-rocm-build/issues/858"),
        ("pcieport 0000:00:1c.4: AER: Device recovery failed", "https://github.com/ROCm/legacy-rocm-build/issues/32"),
    ],
    # The PCI core's boot note of a path slower than the device: an RX 6800's package (upstream
    # switch port 0b:00.0) on a PCIe 3.0 board (Umio-Yasuno/amdgpu_top#33), an RX 6700 XT's on a
    # Compute Module 4's single 5 GT/s lane (geerlingguy/raspberry-pi-pcie-devices#222).
    "pcie_bw_limited": [
        ("pci 0000:0b:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x16 link at 0000:00:03.1 "
         "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", "https://github.com/Umio-Yasuno/amdgpu_top/issues/33"),
        ("pci 0000:01:00.0: 4.000 Gb/s available PCIe bandwidth, limited by 5.0 GT/s PCIe x1 link at 0000:00:00.0 "
         "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/222"),
        # the same note for a device behind a desktop chipset's x4 uplink: not a GPU
        ("pci 0000:07:00.0: 63.012 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x4 link at 0000:00:01.2 "
         "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", "https://github.com/hamadmarri/TT-CPU-Scheduler/issues/23"),
    ],
    # Enumeration of that package's upstream switch port (geerlingguy/raspberry-pi-pcie-devices#222)
    # and of a Vega 56 (#712).
    "amd_pci_device": [
        ("pci 0000:01:00.0: [1002:1478] type 01 class 0x060400",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/222"),
        ("pci 0000:03:00.0: [1002:687f] type 00 class 0x030000",
         "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/712"),
    ],
    # amdgpu treats the GPU as an SR-IOV VF and the PF mailbox never answers (MI50 over Thunderbolt 3,
    # ROCm/amdgpu#211; the "callbacks suppressed" line between them is printk's ratelimit note)
    "vf_mailbox_stuck": [
        ("amdgpu 0000:08:00.0: amdgpu: trn=2 ACK should not assert! wait again !",
         "https://github.com/ROCm/amdgpu/issues/211"),
        ("xgpu_ai_mailbox_trans_msg: 1654 callbacks suppressed", "https://github.com/ROCm/amdgpu/issues/211"),
    ],
    # RAS counters (format strings of amdgpu_ras.c, see amdgpu-sysfs.md §10).
    "ras_uncorrectable": [
        ("amdgpu 0000:05:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block",
         f"{KERNEL_SRC}/drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c (format string)"),
        # MI300X: the `{1}` is the RAS event id newer drivers print (ROCm/legacy-rocm-build#4021)
        ("amdgpu 0000:1c:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
         "https://github.com/ROCm/legacy-rocm-build/issues/4021"),
    ],
    # The RAS EEPROM's bad-page table past the driver's limit (amdgpu_ras_eeprom.c
    # amdgpu_ras_eeprom_check: "RAS records:%d exceed threshold:%d"), with amdgpu's dev_* prefix
    # as in ROCm/legacy-rocm-build#4454's lines
    "bad_page_threshold": [
        ("amdgpu 0000:c6:00.0: amdgpu: RAS records:9 exceed threshold:8",
         f"{KERNEL_SRC}/drivers/gpu/drm/amd/amdgpu/amdgpu_ras_eeprom.c (format string)"),
    ],
    # Correctable errors of one socket/die, new and cumulative (MI300X XGMI links, #4021)
    "ras_correctable": [
        ("amdgpu 0000:9d:00.0: {1}socket: 6, die: 1, 1533 new correctable hardware errors detected in xgmi_wafl block",
         "https://github.com/ROCm/legacy-rocm-build/issues/4021"),
    ],
    "ras_total": [
        ("amdgpu 0000:9d:00.0: {1}socket: 6, die: 1, 1533 correctable hardware errors detected in total in xgmi_wafl block",
         "https://github.com/ROCm/legacy-rocm-build/issues/4021"),
    ],
}


def with_bdf(message: str, bdf: str) -> str:
    """The message with its `amdgpu XXXX:XX:XX.X` device address replaced by `bdf`."""
    import re

    return re.sub(r"\b[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\b", bdf, message)


def messages(kind: str, bdf: str | None = None) -> list[str]:
    """The catalogue messages of one fault kind (or "healthy"), optionally moved to `bdf`."""
    lines = HEALTHY_BOOT if kind == "healthy" else FAULTS[kind]
    return [with_bdf(m, bdf) if bdf else m for m, _ in lines]


#: Consecutive lines of one real log, across kinds (a fault and what the driver did next), for
#: scenarios that need the sequence itself: a hang with and without recovery, a RAS interrupt
#: followed by a reset. Verbatim from the source, BDF moved with with_bdf().
SEQUENCES: dict[str, list[tuple[str, str]]] = {
    # A fatal PCIe error on the root port above a GPU, passed to amdgpu, link not recovered
    # (ROCm/legacy-rocm-build#32, Fury Nano behind a Z170 chipset port; the GPU is 0000:06:00.0).
    "pcie_fatal_unrecovered": [(m, "https://github.com/ROCm/legacy-rocm-build/issues/32") for m in (
        "pcieport 0000:00:1c.4: AER: Uncorrected (Fatal) error received: id=00e4",
        "pcieport 0000:00:1c.4: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, id=00e4(Receiver ID)",
        "pcieport 0000:00:1c.4:   device [8086:a114] error status/mask=00040000/00000000",
        "pcieport 0000:00:1c.4:    [18] Malformed TLP          (First)",
        "pcieport 0000:00:1c.4:   TLP Header: 6c000002 06000000 0000000f b76e6008",
        "pcieport 0000:00:1c.4: broadcast error_detected message",
        "amdgpu 0000:06:00.0: device has no AER-aware driver",
        "snd_hda_intel 0000:06:00.1: device has no AER-aware driver",
        "pcieport 0000:00:1c.4: Root Port link has been reset",
        "pcieport 0000:00:1c.4: AER: Device recovery failed")],
    # Correctable XGMI link errors on one GPU, then the hang's reset of the whole hive (MI300X,
    # the issue description of ROCm/legacy-rocm-build#4021; the GPU of the errors is 0000:9d:00.0).
    "xgmi_errors_hive_reset": [(m, "https://github.com/ROCm/legacy-rocm-build/issues/4021") for m in (
        "amdgpu 0000:9d:00.0: {1}socket: 6, die: 1, 1533 new correctable hardware errors detected in xgmi_wafl block",
        "amdgpu 0000:9d:00.0: {1}socket: 6, die: 1, 1533 correctable hardware errors detected in total in xgmi_wafl block",
        "amdgpu 0000:dd:00.0: amdgpu: GPU reset begin!",
        "amdgpu 0000:dd:00.0: amdgpu: MODE1 reset",
        "amdgpu 0000:9d:00.0: amdgpu: MODE1 reset")],
    # Uncorrectable RAS interrupt and the reset it triggers: MI50 (ROCm/legacy-rocm-build#1886).
    "ras_interrupt_reset": [
        ("amdgpu 0000:e3:00.0: amdgpu: uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
         "https://github.com/ROCm/legacy-rocm-build/issues/1886"),
        ("amdgpu 0000:e3:00.0: amdgpu: GPU reset begin!", "https://github.com/ROCm/legacy-rocm-build/issues/1886"),
    ],
    # A hang the scheduler firmware did not get out of: MES stops answering, the reset starts and
    # MES fails again (the first lines of ROCm/legacy-rocm-build#5724, Strix Halo, ROCm 7).
    "hang_unrecovered": [
        ("amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
         "https://github.com/ROCm/legacy-rocm-build/issues/5724"),
        ("amdgpu 0000:c5:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU reset",
         "https://github.com/ROCm/legacy-rocm-build/issues/5724"),
        ("amdgpu 0000:c5:00.0: amdgpu: GPU reset begin!. Source:  3", "https://github.com/ROCm/legacy-rocm-build/issues/5724"),
        ("amdgpu 0000:c5:00.0: amdgpu: Dumping IP State Completed", "https://github.com/ROCm/legacy-rocm-build/issues/5724"),
        ("amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
         "https://github.com/ROCm/legacy-rocm-build/issues/5724"),
        ("amdgpu 0000:c5:00.0: amdgpu: failed to unmap legacy queue", "https://github.com/ROCm/legacy-rocm-build/issues/5724"),
    ],
    # An idle GPU that did not come back from runtime power-down (BACO): the SMU still busy, the
    # BACO exit failed, the PSP could not resume, then amdgpu's resume gave up (Radeon PRO W7800,
    # ROCm 6.3.1; pkautio's `dmesg -T` in ROCm/legacy-rocm-build#4226, its consecutive amdgpu and
    # [drm] lines from 14:11:07 to 14:11:16, stamps dropped).
    "resume_failed": [(m, "https://github.com/ROCm/legacy-rocm-build/issues/4226") for m in (
        "amdgpu 0000:83:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x00000017 SMN_C2PMSG_82:0x00000003",
        "amdgpu 0000:83:00.0: amdgpu: Failed to exit BACO state!",
        "amdgpu 0000:83:00.0: amdgpu: Timeout waiting for VM flush ACK!",
        "[drm] PCIE GART of 512M enabled (table at 0x000000877EB00000).",
        "amdgpu 0000:83:00.0: amdgpu: PSP is resuming...",
        "amdgpu 0000:83:00.0: amdgpu: PSP load kdb failed!",
        "amdgpu 0000:83:00.0: amdgpu: PSP resume failed",
        "[drm:amdgpu_device_fw_loading [amdgpu]] *ERROR* resume of IP block <psp> failed -62",
        "amdgpu 0000:83:00.0: amdgpu: amdgpu_device_ip_resume failed (-62).")],
    # The same kind of hang recovered by a MODE2 reset (ROCm/legacy-rocm-build#5151).
    "hang_recovered": [
        ("amdgpu 0000:c3:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
         "https://github.com/ROCm/legacy-rocm-build/issues/5151"),
        ("amdgpu 0000:c3:00.0: amdgpu: GPU reset begin!", "https://github.com/ROCm/legacy-rocm-build/issues/5151"),
        ("amdgpu 0000:c3:00.0: amdgpu: MODE2 reset", "https://github.com/ROCm/legacy-rocm-build/issues/5151"),
        ("amdgpu 0000:c3:00.0: amdgpu: GPU reset succeeded, trying to resume",
         "https://github.com/ROCm/legacy-rocm-build/issues/5151"),
    ],
}


def sequence(name: str, bdf: str | None = None) -> list[str]:
    """The lines of one SEQUENCES excerpt, optionally moved to `bdf`."""
    return [with_bdf(m, bdf) if bdf else m for m, _ in SEQUENCES[name]]


#: A PCIe error reported by the platform firmware (APEI GHES record, printed by ghes.c/cper.c and
#: aer.c cper_print_aer) on an MI100 during peer-to-peer traffic under IOMMU translation: three MI100
#: in a Dell R7525, fixed by `amd_iommu=on iommu=pt` (ROCm/legacy-rocm-build#1493; the GPU is 0000:83:00.0).
GHES_COMPLETER_ABORT: list[tuple[str, str]] = [(m, "https://github.com/ROCm/legacy-rocm-build/issues/1493") for m in (
    "{1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 8",
    "{1}[Hardware Error]: event severity: fatal",
    "{1}[Hardware Error]:  Error 0, type: fatal",
    "{1}[Hardware Error]:   section_type: PCIe error",
    "{1}[Hardware Error]:   port_type: 1, legacy PCI end point",
    "{1}[Hardware Error]:   version: 3.0",
    "{1}[Hardware Error]:   command: 0x0547, status: 0x5810",
    "{1}[Hardware Error]:   device_id: 0000:83:00.0",
    "{1}[Hardware Error]:   slot: 0",
    "{1}[Hardware Error]:   secondary_bus: 0x00",
    "{1}[Hardware Error]:   vendor_id: 0x1002, device_id: 0x738c",
    "{1}[Hardware Error]:   class_code: 000000",
    "{1}[Hardware Error]:   aer_uncor_status: 0x00008000, aer_uncor_mask: 0x00010000",
    "{1}[Hardware Error]:   aer_uncor_severity: 0x004ef030",
    "{1}[Hardware Error]:   TLP Header: 40009001 8000000f 9927f000 00000000",
    "amdgpu 0000:83:00.0: aer_status: 0x00008000, aer_mask: 0x00010000",
    "Completer Abort",
    "amdgpu 0000:83:00.0: aer_layer=Transaction Layer, aer_agent=Completer ID",
    "amdgpu 0000:83:00.0: aer_uncor_severity: 0x004ef030",
    "amdgpu 0000:83:00.0:   TLP Header: 40009001 8000000f 9927f000 00000000",
    "amdgpu 0000:83:00.0: broadcast error_detected message",
    "[drm] PCI error: detected callback, state(2)!!",
)]

#: what the kernel prints of the IOMMU mode (drivers/iommu/iommu.c; lines from public dmesg pastes,
#: e.g. a `amd_iommu=on iommu=pt` Ubuntu 20.04 host and an `amd_iommu=off` one)
IOMMU_PASSTHROUGH = "iommu: Default domain type: Passthrough (set via kernel command line)"
IOMMU_TRANSLATED = "iommu: Default domain type: Translated"

#: The PCI core's BAR lines in the Linux 6.7+ form, on an MI210 whose SR-IOV virtual function took
#: the space in the kernel's reallocation: VF BAR 0 (64 GiB) placed, the GPU's own BAR 5 and BAR 4
#: never (ROCm/ROCm#6281, a Supermicro server; fixed with pci=realloc=off). The GPU is 0000:c5:00.0.
PCI_BAR_VF_REALLOC: list[tuple[str, str]] = [(m, "https://github.com/ROCm/ROCm/issues/6281") for m in (
    "pci 0000:c5:00.0: VF BAR 0 [mem 0x00000000-0xfffffffff 64bit pref]: contains BAR 0 for 1 VFs",
    "pci 0000:c5:00.0: BAR 0 [mem size 0x1000000000 64bit pref]: can't assign; no space",
    "pci 0000:c5:00.0: BAR 0 [mem size 0x1000000000 64bit pref]: failed to assign",
    "pci 0000:c5:00.0: VF BAR 0 [mem size 0x1000000000 64bit pref]: can't assign; no space",
    "pci 0000:c5:00.0: VF BAR 0 [mem size 0x1000000000 64bit pref]: failed to assign",
    "pci 0000:c5:00.0: BAR 0 [mem 0x61000000000-0x61fffffffff 64bit pref]: assigned",
    "pci 0000:c5:00.0: VF BAR 0 [mem 0x62000000000-0x62fffffffff 64bit pref]: assigned",
    "pci 0000:c5:00.0: BAR 2 [mem 0x60800000000-0x608001fffff 64bit pref]: assigned",
    "pci 0000:c5:00.0: BAR 5 [mem size 0x00080000]: can't assign; no space",
    "pci 0000:c5:00.0: BAR 5 [mem size 0x00080000]: failed to assign",
    "pci 0000:c5:00.0: BAR 4 [io  size 0x0100]: can't assign; no space",
    "pci 0000:c5:00.0: BAR 4 [io  size 0x0100]: failed to assign",
)]
