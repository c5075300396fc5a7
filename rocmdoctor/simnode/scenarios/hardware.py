"""Simulated GPU hardware faults (gpu-hardware-fault runbook) on the healthy 8x MI300X node.

Formats and lines with their sources:
- RAS `<block>_err_count` (`ue:`/`ce:`), `gpu_vram_bad_pages` (`0x%08x : 0x%08x : %1s`),
  `bad_page_threshold`: amdgpu_ras.c via shared/reference/amdgpu-sysfs.md §10;
- kernel lines: rocmdoctor/simnode/formats/kernel_lines.py SEQUENCES `ras_interrupt_reset` (ROCm/legacy-rocm-build
  #1886, #4021), `hang_unrecovered` (#5724), `hang_recovered` (#5151), `xgmi_errors_hive_reset` (#4021);
- KFD `hive_id` (kfd_topology.c, §11): 0 for a GPU that joined no XGMI hive;
- PCIe `current_link_width` / `max_link_width` (PCI core, §8) and the AER statistics files
  (drivers/pci/pcie/aer.c); the AER kernel report: SEQUENCES `pcie_fatal_unrecovered` (#32);
- a Radeon package's own PCIe switch above its GPU function (upstream port 1002:1478, downstream
  1002:1479: geerlingguy/raspberry-pi-pcie-devices#222 and #503; the GPU function's link files show
  the internal link, LACT#334) under a Zen 2 root port 00:03.1 (1022:1483, pci.ids "Starship/Matisse
  GPP Bridge"), and the RX 6800's `pp_dpm_pcie` and boot line from Umio-Yasuno/amdgpu_top#33;
- a failed resume from runtime power-down: SEQUENCES `resume_failed` and rocminfo's answer after it
  (ROCm/legacy-rocm-build#4226);
- a Strix Halo (gfx1151) running the MES firmware 0x83 that was rolled back: sysfs
  fw_version/mes_fw_version (amdgpu_ucode.c, `0x%08x`) and the page fault of ROCm/ROCm#5724 (verbatim);
- a job log ending in the ROCm runtime's `HW Exception by GPU node-4 (Agent handle: ...) reason :GPU Hang`
  and torchrun's SIGTERM lines: ROCm/ROCm#5259 (verbatim).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from rocmdoctor.simnode.formats import kernel_lines
from rocmdoctor.simnode.formats.kernel import render_kern_log
from rocmdoctor.simnode.formats.kernel_lines import messages, sequence, with_bdf
from rocmdoctor.simnode.gpu import GIB, SimGPU, SimPciPort, strix_halo_gpu
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.scenarios import Scenario, from_cases
from rocmdoctor.simnode.scenarios.gpu_oom import healthy
from rocmdoctor.simnode.scenarios.gpu_not_visible import boot_firmware_failed, gpu_failed_init
from rocmdoctor.simnode.tools import BOOT_WALL, amdgpu_init_lines, boot_lines

RUNBOOK = "gpu-hardware-fault"


def ecc_uncorrectable() -> SimNode:
    """MI300X GPU 3 (0000:65:00.0): 2 uncorrectable HBM errors and the ATHUB RAS interrupt."""
    node = healthy()
    g = node.gpus[3]
    g.ue_errors, g.ce_errors = 2, 5
    return node.add_kernel_log(sequence("ras_interrupt_reset", g.bdf)[:2])


def ecc_athub_interrupt_only() -> SimNode:
    """Counters already read back to 0 (MI50-style), but the kernel logged the uncorrectable interrupt."""
    node = healthy()
    return node.add_kernel_log(sequence("ras_interrupt_reset", node.gpus[1].bdf)[:1])


def bad_pages_pending() -> SimNode:
    """GPU 2 has 3 retired and 2 pending VRAM pages: wearing, still in service."""
    node = healthy()
    node.gpus[2].bad_pages = [(0x1A2B0, 0x1000, "R"), (0x1A2B1, 0x1000, "R"), (0x3C4D0, 0x1000, "R"),
                              (0x5E6F0, 0x1000, "P"), (0x5E6F1, 0x1000, "P")]
    node.gpus[2].ce_errors = 14
    return node


def bad_pages_threshold() -> SimNode:
    """bad_page_threshold=8 set by the site; GPU 6 has retired 8 pages: at the limit."""
    node = healthy()
    node.amdgpu_parameters["bad_page_threshold"] = "8"
    node.gpus[6].bad_pages = [(0x20000 + i, 0x1000, "R") for i in range(8)]
    node.gpus[6].ce_errors = 31
    return node


def hang_unrecovered() -> SimNode:
    """GPU 4 hung: MES stopped answering, the reset began and MES failed again (no `succeeded`)."""
    node = healthy()
    return node.add_kernel_log(sequence("hang_unrecovered", node.gpus[4].bdf))


def hang_recovered() -> SimNode:
    """GPU 1 hung once this boot and came back after a MODE2 reset."""
    node = healthy()
    return node.add_kernel_log(sequence("hang_recovered", node.gpus[1].bdf))


JOB_LOG = "/scratch/job.log"
#: the end of a torchrun job's log on a 4x MI300A node, ROCm/ROCm#5259 (verbatim)
GPU_HANG_JOB_LINES = (
    "HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang",
    "HW Exception by GPU node-4 (Agent handle: 0x2df30600) reason :GPU Hang",
    "HW Exception by GPU node-4 (Agent handle: 0x33c245e0) reason :GPU Hang",
    "HW Exception by GPU node-4 (Agent handle: 0x462ca2e0) reason :GPU Hang",
    "W0902 15:10:48.626000 819010 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 819027 closing signal SIGTERM",
)


def gpu_hung_in_job() -> SimNode:
    """A job died with the runtime's 'GPU Hang'; the node was rebooted since and keeps no journal of the
    boot it hung in (volatile journald), so only the job's log tells."""
    node = healthy()
    node.file(JOB_LOG, "\n".join(GPU_HANG_JOB_LINES) + "\n", uid=1001, gid=1001)
    return node


def previous_boot_fault() -> SimNode:
    """Clean now; the previous boot ended after an uncorrectable error on GPU 5 (persistent journal)."""
    node = healthy()
    bdf = node.gpus[5].bdf
    node.previous_boot_log = [(52311.2 + i * 0.0004, m) for i, m in enumerate(sequence("ras_interrupt_reset", bdf)[:2])]
    return node


def previous_boot_in_kern_log() -> SimNode:
    """Clean now; the journal is volatile (journalctl -k -b -1 has nothing), and rsyslog's kern.log
    holds the boot before: GPU 4 hung, its reset did not finish, and the node went down before the
    file's tail was written (a run of NUL bytes, as Requiem4Eternity/Appstream#79's kern.log ends),
    then this boot's banner and init lines."""
    node = healthy()
    before = datetime(2024, 9, 30, 17, 21, 0)   # the previous boot, ~14.5 h before this one's BOOT_WALL
    previous = boot_lines(node) + amdgpu_init_lines(node, 5.214)
    previous += [(52311.2 + i * 0.0004, m) for i, m in enumerate(sequence("hang_unrecovered", node.gpus[4].bdf))]
    current = boot_lines(node) + amdgpu_init_lines(node, 5.214)
    text = (render_kern_log(((before + timedelta(seconds=ts), ts, m) for ts, m in previous), node.name)
            + "\x00" * 3000
            + render_kern_log(((BOOT_WALL + timedelta(seconds=ts), ts, m) for ts, m in current), node.name))
    node.file("/var/log/kern.log", text, mode=0o640, gid=4)  # root:adm, as Ubuntu's rsyslog creates it
    return node


def bad_pages_over_uninitialised() -> SimNode:
    """GPU 0000:65:00.0's RAS table holds 9 records over a threshold of 8: amdgpu gave up on it, so
    it has no sysfs bad-page list; the kernel's line is the only record."""
    return gpu_failed_init(messages("bad_page_threshold") + messages("probe_failure"))


def xgmi_dropped() -> SimNode:
    """GPU 5 (0000:a6:00.0) did not join the XGMI hive the other 7 share (hive_id 0)."""
    node = healthy()
    node.gpus[5].hive_id = 0
    return node


def xgmi_link_errors() -> SimNode:
    """Correctable XGMI link errors (RAS block xgmi_wafl) on GPU 0 and GPU 7."""
    node = healthy()
    node.gpus[0].ras_counts["xgmi_wafl"] = (0, 17)
    node.gpus[7].ras_counts["xgmi_wafl"] = (0, 9)
    return node


def xgmi_errors_logged() -> SimNode:
    """GPU 5's XGMI links: 1533 correctable errors, in sysfs and in the kernel's RAS lines (#4021's)."""
    node = healthy()
    g = node.gpus[5]
    g.ras_counts["xgmi_wafl"] = (0, 1533)
    return node.add_kernel_log(sequence("xgmi_errors_hive_reset", g.bdf)[:2])


BANDWIDTH_LOG = "/scratch/rocm_bandwidth_test-v.txt"


def copy_validation_fail() -> SimNode:
    """GPU 3's host paths fail rocm_bandwidth_test's data validation (the on-call saved the output)."""
    from rocmdoctor.simnode.formats.rocm_bandwidth import validation_report

    node = healthy()
    agent = 2 + 3  # two CPU agents come first
    failing = {(c, agent) for c in (0, 1)} | {(agent, c) for c in (0, 1)}
    node.file(BANDWIDTH_LOG, validation_report(node.gpus, failing), uid=1001, gid=1001)
    return node


def p2p_copies_fail() -> SimNode:
    """Copies between GPUs 2 and 5 fail validation both ways; every host path passes (the shape of
    ROCm/legacy-rocm-build#1495's report: peer-to-peer not working on the node's driver)."""
    from rocmdoctor.simnode.formats.rocm_bandwidth import validation_report

    node = healthy()
    a, b = 2 + 2, 2 + 5  # two CPU agents come first
    node.file(BANDWIDTH_LOG, validation_report(node.gpus, {(a, b), (b, a)}), uid=1001, gid=1001)
    return node


def pcie_narrow() -> SimNode:
    """GPU 6 trained its link at x8 of x16 (a badly seated module or riser)."""
    node = healthy()
    node.gpus[6].pcie_width = 8
    return node


def pcie_fatal() -> SimNode:
    """GPU 2 reported a fatal PCIe completion timeout (AER) besides correctable bad TLPs."""
    node = healthy()
    node.gpus[2].aer = {"ERR_FATAL:CmpltTO": 1, "ERR_COR:BadTLP": 6}
    return node


def pcie_fatal_in_log() -> SimNode:
    """The kernel log's AER report of a fatal error on the port above GPU 5, passed to amdgpu, link
    not recovered (the sysfs counters of a lost link are not there to read)."""
    node = healthy()
    gpu = node.gpus[5].bdf
    lines = [m.replace("0000:06:00.0", gpu).replace("0000:06:00.1", gpu[:-1] + "1")
             for m in sequence("pcie_fatal_unrecovered")]
    return node.add_kernel_log(lines)


def gpu_lost_from_bus() -> SimNode:
    """GPU 3 fell off the bus mid-job (ROCm/TheRock#8232's lines moved to it), then its SDMA ring timed out."""
    node = healthy()
    gpu = node.gpus[3].bdf
    lines = messages("bus_lost", gpu) + [with_bdf(messages("ring_timeout")[0], gpu)]
    return node.add_kernel_log(lines)


#: rocminfo once the GPU is gone (the description of ROCm/legacy-rocm-build#4226, verbatim)
ROCMINFO_RESUME_FAILED = (
    "hsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\n"
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. "
    "This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific "
    "events.\n")


def gpu_resume_failed() -> SimNode:
    """An RX 6800 workstation whose idle GPU did not come back from runtime power-down
    (ROCm/legacy-rocm-build#4226's lines moved to it); rocminfo fails as it did there."""
    g = _rx6800(16.0, 16.0, "0: 2.5GT/s, x1 310Mhz \n1: 16.0GT/s, x16 619Mhz *\n")
    node = SimNode("ws-rx6800-runpm", gpus=[g], description="RX 6800: idle GPU failed to exit BACO")
    node.command("rocminfo", "", stdout=ROCMINFO_RESUME_FAILED, rc=1)
    return node.add_kernel_log(sequence("resume_failed", g.bdf))


def p2p_completer_abort(iommu_line: str = kernel_lines.IOMMU_TRANSLATED) -> SimNode:
    """GPU 5 reports, through the platform firmware, a fatal Completer Abort while the IOMMU
    translates the GPUs' DMA (ROCm/legacy-rocm-build#1493's record, moved to GPU 5)."""
    node = healthy()
    if iommu_line == kernel_lines.IOMMU_TRANSLATED:
        node.cmdline = node.cmdline.replace(" iommu=pt", "")
    gpu = node.gpus[5].bdf
    node.add_kernel_log([iommu_line], at=0.718058)
    return node.add_kernel_log([with_bdf(m, gpu) for m, _ in kernel_lines.GHES_COMPLETER_ABORT])


def _rx6800(root_max_gts: float, slot_gts: float, dpm: str) -> SimGPU:
    """An RX 6800 (Navi 21) at 0d:00.0 behind its package's switch (0b:00.0 up, 0c:00.0 down) in
    root port 00:03.1, the layout of Umio-Yasuno/amdgpu_top#33; the internal links run at 16 GT/s x16."""
    ports = (SimPciPort("0000:00:03.1", 0x1022, 0x1483, slot_gts, 16, root_max_gts, 16),
             SimPciPort("0000:0b:00.0", 0x1002, 0x1478, slot_gts, 16, 16.0, 16),
             SimPciPort("0000:0c:00.0", 0x1002, 0x1479, 16.0, 16, 16.0, 16))
    return SimGPU(index=0, bdf="0000:0d:00.0", device_id=0x73BF, subsystem_device_id=0x73BF,
                  market_name="AMD Radeon RX 6800", gfx_target="gfx1030", vram_total=16 * GIB,
                  vram_used=300 * 1024 * 1024, edge_temp=41.0, junction_temp=43.0, power_w=9.0,
                  power_cap_w=203.0, power_cap_default_w=203.0, pcie_speed_gts=16.0, pcie_max_speed_gts=16.0,
                  upstream=ports, pcie_dpm=dpm)


def pcie_limited_by_slot() -> SimNode:
    """An RX 6800 on a PCIe 3.0 board (Umio-Yasuno/amdgpu_top#33): the package's link runs at 8.0 GT/s
    x16, all root port 00:03.1 can do; the GPU function itself reports its internal 16 GT/s link."""
    g = _rx6800(8.0, 8.0, "0: 2.5GT/s, x1 310Mhz \n1: 8.0GT/s, x16 619Mhz *\n")
    node = SimNode("ws-rx6800-b450", gpus=[g], description="RX 6800 on a PCIe 3.0 board: slot-limited link")
    return node.add_kernel_log(messages("pcie_bw_limited")[:1])


def pcie_trained_down_behind_switch() -> SimNode:
    """The same card in a PCIe 4.0 root port whose link trained at 2.5 GT/s although amdgpu's DPM
    asks for its top level: the GPU function still says 16 GT/s x16 (a check reading only it
    would pass)."""
    g = _rx6800(16.0, 2.5, "0: 2.5GT/s, x1 310Mhz \n1: 16.0GT/s, x16 619Mhz *\n")
    return SimNode("ws-rx6800-x570", gpus=[g], description="RX 6800 link trained down to 2.5 GT/s behind its package's switch")


def pcie_power_saving() -> SimNode:
    """The card in a PCIe 4.0 slot at idle: amdgpu's DPM holds the link on level 0 (2.5 GT/s x1),
    power saving, not a fault; the check passes and says so."""
    g = _rx6800(16.0, 2.5, "0: 2.5GT/s, x1 310Mhz *\n1: 16.0GT/s, x16 619Mhz \n")
    g.upstream = (SimPciPort("0000:00:03.1", 0x1022, 0x1483, 2.5, 1, 16.0, 16),
                  SimPciPort("0000:0b:00.0", 0x1002, 0x1478, 2.5, 1, 16.0, 16), g.upstream[2])
    return SimNode("ws-rx6800-idle", gpus=[g], description="RX 6800 at idle: DPM level 0 (2.5 GT/s x1)")


#: amdgpu's page-fault report under the MES 0x83 firmware (ROCm/ROCm#5724's description, verbatim)
MES_0X83_PAGE_FAULT = [
    "amdgpu 0000:c5:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32771)",
    "amdgpu 0000:c5:00.0: amdgpu:  Process VLLM::EngineCor pid 2419 thread VLLM::EngineCor pid 2419",
    "amdgpu 0000:c5:00.0: amdgpu:   in page starting at address 0x00007f58f8001000 from client 10",
    "amdgpu 0000:c5:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932",
    "amdgpu 0000:c5:00.0: amdgpu: \t Faulty UTCL2 client ID: CPF (0x4)",
    "amdgpu 0000:c5:00.0: amdgpu: \t MORE_FAULTS: 0x0",
    "amdgpu 0000:c5:00.0: amdgpu: \t WALKER_ERROR: 0x1",
    "amdgpu 0000:c5:00.0: amdgpu: \t PERMISSION_FAULTS: 0x3",
    "amdgpu 0000:c5:00.0: amdgpu: \t MAPPING_ERROR: 0x1",
    "amdgpu 0000:c5:00.0: amdgpu: \t RW: 0x0",
]


def mes_firmware_known_bad(version: str = "0x00000083") -> SimNode:
    """A Strix Halo (gfx1151) whose MES firmware is the 0x83 release rolled back for GC 11.5: the first
    compute dispatch of a vLLM job faulted (ROCm/ROCm#5724)."""
    g = strix_halo_gpu(vram_total=512 * 1024 * 1024, vram_used=147 * 1024 * 1024, gtt_total=128000 * 1024 * 1024,
                       gtt_used=150 * 1024 * 1024, edge_temp=45.0, junction_temp=46.0, power_w=12.0,
                       fw_versions={"mes_fw_version": version})
    node = SimNode("ai2", gpus=[g], description=f"Strix Halo running MES firmware {version}")
    return node.add_kernel_log(MES_0X83_PAGE_FAULT) if version == "0x00000083" else node


CASES = [
    ("hw-ecc-uncorrectable", "MI300X GPU 3 with 2 uncorrectable HBM errors and the RAS interrupt in dmesg",
     ecc_uncorrectable, "ecc", "uncorrectable-ecc"),
    ("hw-ecc-athub-interrupt", "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) in dmesg, counters at 0",
     ecc_athub_interrupt_only, "ecc", "uncorrectable-ecc"),
    ("hw-bad-pages-pending", "3 retired and 2 pending VRAM pages on GPU 2", bad_pages_pending,
     "pages", "bad-pages-accumulating"),
    ("hw-bad-pages-threshold", "GPU 6 at bad_page_threshold=8 retired pages", bad_pages_threshold,
     "pages", "bad-page-threshold"),
    ("hw-bad-pages-over-uninitialised", "GPU 0000:65:00.0 past its bad-page threshold, not initialised (kernel line only)",
     bad_pages_over_uninitialised, "pages", "bad-page-threshold"),
    ("hw-hang-unrecovered", "GPU 4 hung, MES failed again during the reset", hang_unrecovered,
     "resets", "gpu-reset-failed"),
    ("hw-hang-recovered", "GPU 1 hung once and came back after a MODE2 reset", hang_recovered,
     "resets", "gpu-hang-recovered"),
    ("hw-gpu-hung-in-job", "a job's log ends in 'HW Exception by GPU node-4 ... reason :GPU Hang'; rebooted since, no journal of "
     "that boot (use --log " + JOB_LOG + ")", gpu_hung_in_job, "job", "gpu-hung-in-job", {"log": JOB_LOG}),
    ("hw-previous-boot-fault", "healthy now; the previous boot ended after an uncorrectable error",
     previous_boot_fault, "resets", "previous-boot-gpu-fault"),
    ("hw-previous-boot-in-kern-log", "healthy now, volatile journal; /var/log/kern.log shows GPU 4 hung and the node "
     "went down mid-reset (its lines end in NUL bytes)", previous_boot_in_kern_log, "resets", "previous-boot-gpu-fault"),
    ("hw-gpu-boot-failed", "GPU 0000:65:00.0 failed its own boot ('firmware load failed at boot time'), left unbound",
     boot_firmware_failed, "boot", "gpu-boot-failed"),
    ("hw-xgmi-dropped", "GPU 5 not in the XGMI hive of the other 7", xgmi_dropped,
     "xgmi", "gpu-dropped-from-xgmi-hive"),
    ("hw-xgmi-link-errors", "correctable XGMI link errors on GPU 0 and GPU 7", xgmi_link_errors,
     "xgmi", "xgmi-link-errors"),
    ("hw-xgmi-errors-logged", "1533 correctable XGMI link errors on GPU 5, counted in sysfs and logged by the kernel",
     xgmi_errors_logged, "xgmi", "xgmi-link-errors"),
    ("hw-copy-validation-fail", "rocm_bandwidth_test -v: host <-> GPU 3 copies FAIL data validation (use --log "
     + BANDWIDTH_LOG + ")", copy_validation_fail, "copies", "copy-validation-failed", {"log": BANDWIDTH_LOG}),
    ("hw-p2p-copies-fail", "copies between GPU 2 and GPU 5 fail validation, host paths pass (run with --var log="
     + BANDWIDTH_LOG + ")", p2p_copies_fail, "copies", "peer-to-peer-unsupported", {"log": BANDWIDTH_LOG}),
    ("hw-pcie-narrow", "GPU 6 link at x8 of x16", pcie_narrow, "pcie", "pcie-link-degraded"),
    ("hw-pcie-fatal", "fatal PCIe completion timeout on GPU 2", pcie_fatal, "pcie", "pcie-errors"),
    ("hw-pcie-limited-by-slot", "RX 6800 at 8.0 GT/s x16 in a PCIe 3.0 root port", pcie_limited_by_slot,
     "pcie", "pcie-link-limited-by-slot"),
    ("hw-pcie-trained-down", "RX 6800 package link at 2.5 GT/s in a PCIe 4.0 slot; the GPU function says 16 GT/s",
     pcie_trained_down_behind_switch, "pcie", "pcie-link-degraded"),
    ("hw-pcie-fatal-aer-log", "kernel AER report: fatal error above GPU 5, link not recovered", pcie_fatal_in_log,
     "pcie", "pcie-errors"),
    ("hw-gpu-lost-from-bus", "GPU 3 fell off the PCIe bus mid-job ('device lost from bus!'), a ring timeout after",
     gpu_lost_from_bus, "resets", "gpu-lost-from-bus"),
    ("hw-gpu-resume-failed", "RX 6800 workstation: the idle GPU did not come back from runtime power-down (BACO)",
     gpu_resume_failed, "resets", "gpu-resume-failed"),
    ("hw-mes-firmware-known-bad", "Strix Halo (gfx1151) on MES firmware 0x83, rolled back for faulting: a vLLM job's page fault (CPF)",
     mes_firmware_known_bad, "firmware", "known-bad-gpu-firmware"),
    ("hw-p2p-completer-abort", "firmware-reported fatal Completer Abort on GPU 5 with the IOMMU translating DMA",
     p2p_completer_abort, "pcie", "iommu-blocks-peer-to-peer"),
]

SCENARIOS = from_cases(CASES, (RUNBOOK,)) + [
    Scenario("hw-pcie-idle-power-saving", "RX 6800 at idle: DPM level 0, link at 2.5 GT/s x1 (not a fault)",
             pcie_power_saving, (RUNBOOK,), {"state": "pass"}),
]
