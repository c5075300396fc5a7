"""sysfs of AMD Instinct GPUs: PCI core files, amdgpu attributes, hwmon, RAS, KFD topology.

Formats and presence rules follow /work/shared/reference/amdgpu-sysfs.md
(kernel amdgpu_pm.c, amdgpu_ras.c, kfd_topology.c, pci-sysfs.c) and the real
file contents in /work/shared/reference/real-outputs/amdgpu-sysfs-fixtures.md
(amdgpu-sysfs-rs test data). Section numbers below refer to amdgpu-sysfs.md.

The tree is split in two: what the PCI core shows whether or not a driver is
bound (`pci_core_tree`), and what exists only while amdgpu is loaded
(`amdgpu_tree`), so a simulated `modprobe -r amdgpu` can move exactly the
second part away.
"""

from __future__ import annotations

import posixpath

from rocmdoctor.simnode.gpu import SimGPU, SimPciPort
from rocmdoctor.simnode.entries import D, Dev, F, L, Tree

# DRM majors: /dev/dri/* is char major 226 (Documentation/admin-guide/devices.txt);
# /dev/kfd gets a dynamic major, 511 on typical x86 kernels.
DRM_MAJOR = 226
KFD_MAJOR = 511

#: the PCI core speed table strings (pci-sysfs.c / probe.c, amdgpu-sysfs.md §8)
_SPEEDS = {2.5: "2.5 GT/s PCIe", 5.0: "5.0 GT/s PCIe", 8.0: "8.0 GT/s PCIe",
           16.0: "16.0 GT/s PCIe", 32.0: "32.0 GT/s PCIe", 64.0: "64.0 GT/s PCIe"}

# Processing accelerator class 0x1200: MI300-class GPUs are not display
# controllers (lspci "Processing accelerators [1200]" for Aqua Vanjaram,
# github.com/apache/cloudstack/issues/11701); Radeon/older Instinct are 0x0380xx.
ACCEL_CLASS = 0x120000

#: SMU 13.0.6 deep-sleep threshold (smu_v13_0_6_ppt.c SMU_13_0_6_DSCLK_THRESHOLD, §6.1)
_DSCLK_THRESHOLD = 140
_SCLK_MIN = 500
#: MI300X memory clock levels as printed by rocm-smi (real-outputs/mi300x-x4-rocm-smi.md)
_MCLK_LEVELS = (900, 1100, 1300)


def pci_dir(gpu: SimGPU) -> str:
    """Where the device really lives, below the ports of its path; /sys/bus/pci/devices/<bdf> links here."""
    return "/".join([f"sys/devices/pci{gpu.bdf[:4]}:00", *(p.bdf for p in gpu.upstream), gpu.bdf])


def link_to(link: str, target: str) -> L:
    """A relative symlink at `link` to `target` (both paths under the root), as sysfs makes them."""
    return L(posixpath.relpath(target, posixpath.dirname(link)))


def _speed(gts: float) -> str:
    return _SPEEDS.get(gts, f"{gts:.1f} GT/s PCIe") + "\n"


def _link_files(d: str, cur_gts: float, width: int, max_gts: float, max_width: int) -> Tree:
    """The PCI core's link attributes of the device at `d` (pci-sysfs.c, §8)."""
    return {
        f"{d}/current_link_speed": F(_speed(cur_gts)),
        f"{d}/current_link_width": F(f"{width}\n"),
        f"{d}/max_link_speed": F(_speed(max_gts)),
        f"{d}/max_link_width": F(f"{max_width}\n"),
    }


def hwmon_index(gpu: SimGPU) -> int:
    """hwmon numbers are global: hwmon0/1 are the two CPU sockets' k10temp."""
    return gpu.index + 2


def gpu_id(gpu: SimGPU) -> int:
    """KFD gpu_id (a 16-bit hash in kfd_generate_gpu_id); the same number amd-smi reports as kfd_id."""
    from rocmdoctor.simnode.formats.amd_smi import kfd_gpu_id

    return kfd_gpu_id(gpu)


def location_id(bdf: str) -> int:
    """pci_dev_id(): bus << 8 | devfn (§1); devfn = device << 3 | function."""
    bus = int(bdf[5:7], 16)
    dev = int(bdf[8:10], 16)
    fn = int(bdf[11], 16)
    return bus << 8 | dev << 3 | fn


def gfx_target_version(gfx: str) -> int:
    """gfx942 -> 90402 (major*10000 + minor*100 + stepping, stepping a hex digit; §11)."""
    digits = gfx[3:]
    major, minor, step = int(digits[:-2]), int(digits[-2]), int(digits[-1], 16)
    return major * 10000 + minor * 100 + step


def uevent(gpu: SimGPU, *, driver: bool) -> str:
    """PCI uevent: DRIVER= only while a driver is bound (pci-sysfs.c / pci-driver.c)."""
    head = "DRIVER=amdgpu\n" if driver else ""
    cls = f"{ACCEL_CLASS:X}"
    return (f"{head}PCI_CLASS={cls}\nPCI_ID={gpu.vendor_id:04X}:{gpu.device_id:04X}\n"
            f"PCI_SUBSYS_ID={gpu.vendor_id:04X}:{gpu.subsystem_device_id:04X}\n"
            f"PCI_SLOT_NAME={gpu.bdf}\n"
            f"MODALIAS=pci:v{gpu.vendor_id:08X}d{gpu.device_id:08X}sv{gpu.vendor_id:08X}"
            f"sd{gpu.subsystem_device_id:08X}bc12sc00i00\n")


def pci_core_tree(gpu: SimGPU) -> Tree:
    """Files the PCI core creates for every device (§8, §9): present even with no driver."""
    d = pci_dir(gpu)
    tree: Tree = {}
    parent = f"sys/devices/pci{gpu.bdf[:4]}:00"
    for port in gpu.upstream:
        parent = f"{parent}/{port.bdf}"
        tree.update(pci_port_tree(port, parent))
    return tree | {
        f"{d}/vendor": F(f"0x{gpu.vendor_id:04x}\n"),
        f"{d}/device": F(f"0x{gpu.device_id:04x}\n"),
        f"{d}/subsystem_vendor": F(f"0x{gpu.vendor_id:04x}\n"),
        f"{d}/subsystem_device": F(f"0x{gpu.subsystem_device_id:04x}\n"),
        f"{d}/class": F(f"0x{ACCEL_CLASS:06x}\n"),
        f"{d}/revision": F(f"0x{gpu.revision:02x}\n"),
        **_link_files(d, gpu.pcie_speed_gts, gpu.pcie_width, gpu.pcie_max_speed_gts, gpu.pcie_max_width),
        f"{d}/numa_node": F(f"{0 if gpu.index < 4 else 1}\n"),
        f"{d}/enable": F("1\n", 0o644),
        f"{d}/uevent": F(uevent(gpu, driver=False), 0o644),
        f"sys/bus/pci/devices/{gpu.bdf}": link_to(f"sys/bus/pci/devices/{gpu.bdf}", d),
    }


def pci_port_tree(port: SimPciPort, d: str) -> Tree:
    """A bridge on the path to a GPU (root port, platform switch, the GPU package's own switch ports):
    the PCI core's id and link files, bound to pcieport."""
    return {
        f"{d}/vendor": F(f"0x{port.vendor_id:04x}\n"),
        f"{d}/device": F(f"0x{port.device_id:04x}\n"),
        f"{d}/class": F(f"0x{port.pci_class:06x}\n"),
        **_link_files(d, port.cur_gts, port.width, port.max_gts, port.max_width),
        f"{d}/uevent": F(f"DRIVER=pcieport\nPCI_CLASS={port.pci_class:X}\nPCI_ID={port.vendor_id:04X}:{port.device_id:04X}\n"
                         f"PCI_SLOT_NAME={port.bdf}\n", 0o644),
        f"sys/bus/pci/devices/{port.bdf}": link_to(f"sys/bus/pci/devices/{port.bdf}", d),
    }


def pp_dpm_sclk(gpu: SimGPU) -> str:
    """SMU 13.0.6 printer (§6.1): an `S:` line in deep sleep, else min/current/max with `*`."""
    if gpu.sclk_levels:   # every level, current starred (RX Vega: "0: 852Mhz *\n1: 991Mhz \n...")
        return "".join(f"{i}: {m}Mhz {'*' if m == gpu.sclk_mhz else ''}\n" for i, m in enumerate(gpu.sclk_levels))
    now, lo, hi = gpu.sclk_mhz, _SCLK_MIN, gpu.sclk_max_mhz
    if now < _DSCLK_THRESHOLD:
        return f"S: {now}Mhz *\n0: {lo}Mhz \n1: {hi}Mhz \n"
    if abs(now - lo) > 5 and abs(now - hi) > 5:
        return f"0: {lo}Mhz \n1: {now}Mhz *\n2: {hi}Mhz \n"
    return f"0: {lo}Mhz {'*' if abs(now - lo) <= 5 else ''}\n1: {hi}Mhz {'*' if abs(now - hi) <= 5 else ''}\n"


def pp_dpm_mclk(gpu: SimGPU) -> str:
    return "".join(f"{i}: {mhz}Mhz {'*' if mhz == gpu.mclk_mhz else ''}\n" for i, mhz in enumerate(_MCLK_LEVELS))


def _hwmon(gpu: SimGPU) -> dict[str, F]:
    """hwmon per §5: GC 9.4.3 hides temp1 (edge) and every temp*_crit/_emergency,
    in0 (vddgfx) and fans; power is power1_input (power1_average is not offered
    by the SMU 13.0.6 driver). SimGPU None fields mean 'file absent'."""
    h: dict[str, F] = {"name": F("amdgpu\n")}
    if gpu.edge_temp is not None:
        h["temp1_input"] = F(f"{int(gpu.edge_temp * 1000)}\n")
        h["temp1_label"] = F("edge\n")
    h["temp2_input"] = F(f"{int(gpu.junction_temp * 1000)}\n")
    h["temp2_label"] = F("junction\n")
    h["temp3_input"] = F(f"{int(gpu.mem_temp * 1000)}\n")
    h["temp3_label"] = F("mem\n")
    for name, value in (("temp2_crit", gpu.junction_crit), ("temp2_emergency", gpu.junction_emergency),
                        ("temp3_crit", gpu.mem_crit)):
        if value is not None:
            h[name] = F(f"{int(value * 1000)}\n")
    h["power1_input"] = F(f"{int(gpu.power_w * 1_000_000)}\n")
    h["power1_label"] = F("PPT\n")
    h["power1_cap"] = F(f"{int(gpu.power_cap_w * 1_000_000)}\n", 0o644)
    h["power1_cap_max"] = F(f"{int(gpu.power_cap_default_w * 1_000_000)}\n")
    h["power1_cap_min"] = F("0\n")
    h["power1_cap_default"] = F(f"{int(gpu.power_cap_default_w * 1_000_000)}\n")
    h["freq1_input"] = F(f"{gpu.sclk_mhz * 1_000_000}\n")
    h["freq1_label"] = F("sclk\n")
    h["freq2_input"] = F(f"{gpu.mclk_mhz * 1_000_000}\n")
    h["freq2_label"] = F("mclk\n")
    return h


def amdgpu_device_tree(gpu: SimGPU) -> tuple[Tree, list[str]]:
    """Per-GPU entries that exist only while amdgpu is bound, and their top-level paths."""
    d = pci_dir(gpu)
    dev_files: dict[str, F] = {
        "mem_info_vram_total": F(f"{gpu.vram_total}\n"),
        "mem_info_vram_used": F(f"{gpu.vram_used}\n"),
        "mem_info_vis_vram_total": F(f"{gpu.vram_total}\n"),
        "mem_info_vis_vram_used": F(f"{gpu.vram_used}\n"),
        "mem_info_gtt_total": F(f"{gpu.gtt_total}\n"),
        "mem_info_gtt_used": F(f"{gpu.gtt_used}\n"),
        "mem_info_vram_vendor": F("hynix\n"),
        "gpu_busy_percent": F(f"{gpu.gfx_activity}\n"),
        # amdgpu_gfx.c / amdgpu_gmc.c: sysfs_emit(buf, "%s\n", <mode name>) (tests/fixtures/outputs/amdgpu-partition)
        **({"current_compute_partition": F(f"{gpu.compute_partition}\n")} if gpu.compute_partition else {}),
        **({"current_memory_partition": F(f"{gpu.memory_partition}\n")} if gpu.memory_partition else {}),
        "mem_busy_percent": F(f"{gpu.mem_activity}\n"),
        "pp_dpm_sclk": F(pp_dpm_sclk(gpu), 0o644),
        "pp_dpm_mclk": F(pp_dpm_mclk(gpu)),          # read-only on MI parts (§2 Writes)
        "power_dpm_force_performance_level": F(f"{gpu.perf_level}\n", 0o644),
        "pcie_replay_count": F("0\n"),
        **({"pp_dpm_pcie": F(gpu.pcie_dpm, 0o644)} if gpu.pcie_dpm else {}),
        "unique_id": F(f"{int(gpu.serial, 16) & 0xFFFFFFFFFFFFFFFF:016x}\n"),
        "serial_number": F(f"{gpu.serial}\n"),
        "product_name": F(f"{gpu.market_name}\n"),
        "vbios_version": F("113-M3000100-102\n"),
        "thermal_throttling_logging": F(f"{gpu.bdf}: thermal throttling logging enabled, with interval 60 seconds\n", 0o644),
    }
    tree: Tree = {f"{d}/{k}": v for k, v in dev_files.items()}
    roots = [f"{d}/{k}" for k in dev_files]
    # RAS (§10): ue first, then ce; a file per RAS-enabled block
    ras = f"{d}/ras"
    tree[f"{ras}/umc_err_count"] = F(f"ue: {gpu.ue_errors}\nce: {gpu.ce_errors}\n")
    for block in ("gfx", "sdma", "mmhub", "xgmi_wafl"):
        ue, ce = gpu.ras_counts.get(block, (0, 0))
        tree[f"{ras}/{block}_err_count"] = F(f"ue: {ue}\nce: {ce}\n")
    tree[f"{ras}/features"] = F("feature mask: 0x00000bfb\n")
    # "0x%08x : 0x%08x : %1s\n" per page (amdgpu_ras.c, §10)
    tree[f"{ras}/gpu_vram_bad_pages"] = F("".join(f"0x{pfn:08x} : 0x{size:08x} : {flag}\n"
                                                  for pfn, size, flag in gpu.bad_pages))
    # PCI core AER statistics (drivers/pci/pcie/aer.c aer_stats_dev_attr: "%s %llu\n" per
    # error name of aer_{correctable,uncorrectable}_error_string, then "TOTAL_%s %llu\n")
    for name, names, total in (("aer_dev_correctable", AER_COR, "ERR_COR"),
                               ("aer_dev_fatal", AER_UNCOR, "ERR_FATAL"),
                               ("aer_dev_nonfatal", AER_UNCOR, "ERR_NONFATAL")):
        counts = {n: gpu.aer.get(f"{total}:{n}", 0) for n in names}
        tree[f"{d}/{name}"] = F("".join(f"{n} {c}\n" for n, c in counts.items()) + f"TOTAL_{total} {sum(counts.values())}\n")
    hw = f"{d}/hwmon/hwmon{hwmon_index(gpu)}"
    for k, v in _hwmon(gpu).items():
        tree[f"{hw}/{k}"] = v
    tree[f"{hw}/device"] = L("../../../" + gpu.bdf)
    # DRM minors (§1: card%d / renderD%d, device -> the PCI dir)
    for node, minor in ((f"card{gpu.card}", gpu.card), (f"renderD{gpu.render_minor}", gpu.render_minor)):
        tree[f"{d}/drm/{node}/dev"] = F(f"{DRM_MAJOR}:{minor}\n")
        tree[f"{d}/drm/{node}/device"] = L("../../../" + gpu.bdf)
        tree[f"{d}/drm/{node}/uevent"] = F(f"MAJOR={DRM_MAJOR}\nMINOR={minor}\nDEVNAME=dri/{node}\nDEVTYPE=drm_minor\n", 0o644)
        tree[f"sys/class/drm/{node}"] = link_to(f"sys/class/drm/{node}", f"{d}/drm/{node}")
        roots.append(f"sys/class/drm/{node}")
    tree[f"sys/class/hwmon/hwmon{hwmon_index(gpu)}"] = link_to(f"sys/class/hwmon/hwmon{hwmon_index(gpu)}", hw)
    for name, version in gpu.fw_versions.items():
        tree[f"{d}/fw_version/{name}"] = F(f"{version}\n", 0o444)
    tree[f"{d}/driver"] = link_to(f"{d}/driver", "sys/bus/pci/drivers/amdgpu")
    tree[f"sys/bus/pci/drivers/amdgpu/{gpu.bdf}"] = link_to(f"sys/bus/pci/drivers/amdgpu/{gpu.bdf}", d)
    roots += [ras, f"{d}/hwmon", f"{d}/drm", f"{d}/driver", f"sys/class/hwmon/hwmon{hwmon_index(gpu)}"]
    return tree, roots


AER_COR = ("RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr", "CorrIntErr", "HeaderOF")
AER_UNCOR = ("Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt", "RxOF", "MalfTLP",
             "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP", "AtomicOpBlocked", "TLPBlockedErr",
             "PoisonTLPBlocked")


def kfd_gpu_properties(gpu: SimGPU, gpus: int, hive_id: int) -> str:
    """A GPU node's `properties` in kernel node_show() order (§11), MI300X values
    from rocminfo (real-outputs/mi300x-x4-rocminfo.md: 304 CUs, 4 SIMDs/CU,
    32 shader engines, 2100 MHz); local_mem_size is printed as 0 by the kernel."""
    props = [
        ("cpu_cores_count", 0), ("simd_count", 1216), ("mem_banks_count", 1), ("caches_count", 626),
        ("io_links_count", gpus), ("p2p_links_count", 0), ("cpu_core_id_base", 0),
        ("simd_id_base", 2147487744 + gpu.index * 1216), ("max_waves_per_simd", 8),
        ("lds_size_in_kb", 64), ("gds_size_in_kb", 0), ("num_gws", 64), ("wave_front_size", 64),
        ("array_count", 32), ("simd_arrays_per_engine", 1), ("cu_per_simd_array", 10), ("simd_per_cu", 4),
        ("max_slots_scratch_cu", 32), ("gfx_target_version", gfx_target_version(gpu.gfx_target)),
        ("vendor_id", gpu.vendor_id), ("device_id", gpu.device_id), ("location_id", location_id(gpu.bdf)),
        ("domain", int(gpu.bdf[:4], 16)), ("drm_render_minor", gpu.render_minor), ("hive_id", hive_id),
        ("num_sdma_engines", 2), ("num_sdma_xgmi_engines", 14), ("num_sdma_queues_per_engine", 8),
        ("num_cp_queues", 24), ("max_engine_clk_fcompute", gpu.sclk_max_mhz), ("local_mem_size", 0),
        ("fw_version", 151), ("capability", 746326592), ("debug_prop", 1495),
        ("sdma_fw_version", 19), ("unique_id", int(gpu.serial, 16)), ("num_xcc", 8),
        ("max_engine_clk_ccompute", 3600),
    ]
    return "".join(f"{k} {v}\n" for k, v in props)


def kfd_cpu_properties(node: int, cores: int) -> str:
    """A CPU node: cpu_cores_count > 0, simd_count 0, GPU-only keys absent (§11)."""
    props = [
        ("cpu_cores_count", cores), ("simd_count", 0), ("mem_banks_count", 1), ("caches_count", 0),
        ("io_links_count", 1), ("p2p_links_count", 0), ("cpu_core_id_base", node * cores), ("simd_id_base", 0),
        ("max_waves_per_simd", 0), ("lds_size_in_kb", 0), ("gds_size_in_kb", 0), ("num_gws", 0),
        ("wave_front_size", 0), ("array_count", 0), ("simd_arrays_per_engine", 0), ("cu_per_simd_array", 0),
        ("simd_per_cu", 0), ("max_slots_scratch_cu", 0), ("gfx_target_version", 0), ("vendor_id", 0),
        ("device_id", 0), ("location_id", 0), ("domain", 0), ("drm_render_minor", 0), ("hive_id", 0),
        ("num_sdma_engines", 0), ("num_sdma_xgmi_engines", 0), ("num_sdma_queues_per_engine", 0),
        ("num_cp_queues", 0), ("max_engine_clk_ccompute", 3600),
    ]
    return "".join(f"{k} {v}\n" for k, v in props)


def kfd_tree(gpus: list[SimGPU], *, cpu_nodes: int = 2, cpu_cores: int = 96) -> Tree:
    """/sys/class/kfd/kfd -> /sys/devices/virtual/kfd/kfd with CPU nodes first, then one node per GPU."""
    base = "sys/devices/virtual/kfd/kfd"
    t: Tree = {"sys/class/kfd/kfd": L("../../devices/virtual/kfd/kfd"),
               f"{base}/dev": F(f"{KFD_MAJOR}:0\n"),
               f"{base}/topology/generation_id": F("1\n"),
               f"{base}/topology/system_properties": F("platform_oem 0\nplatform_id 0\nplatform_rev 0\n")}
    hive_id = 0x8D1457E2C20F59D2 if len(gpus) > 1 else 0
    for n in range(cpu_nodes):
        nd = f"{base}/topology/nodes/{n}"
        t[f"{nd}/gpu_id"] = F("0\n")
        t[f"{nd}/name"] = F("\n")
        t[f"{nd}/properties"] = F(kfd_cpu_properties(n, cpu_cores))
    for i, g in enumerate(gpus):
        nd = f"{base}/topology/nodes/{cpu_nodes + i}"
        t[f"{nd}/gpu_id"] = F(f"{gpu_id(g)}\n")
        t[f"{nd}/name"] = F("ip discovery\n")
        t[f"{nd}/properties"] = F(kfd_gpu_properties(g, len(gpus), hive_id if g.hive_id is None else g.hive_id))
        t[f"{nd}/mem_banks/0/properties"] = F(
            f"heap_type 1\nsize_in_bytes {g.vram_total}\nflags 0\nwidth 8192\nmem_clk_max 1300\n")
    t[f"{base}/proc"] = D()
    # one proc/<pid>/ per process holding a GPU (KFD lists stale ones too: SimProcess.alive=False)
    queues: dict[int, int] = {}
    for g in gpus:
        for p in g.processes:
            pd = f"{base}/proc/{p.pid}"
            t[f"{pd}/pasid"] = F(f"{32768 + p.pid % 1000}\n")
            t[f"{pd}/vram_{gpu_id(g)}"] = F(f"{p.vram_bytes}\n")
            t[f"{pd}/sdma_{gpu_id(g)}"] = F("0\n")
            # one compute queue per GPU it computes on: kfd_process.c's queues/<qid>/gpuid ("%u", no newline)
            if p.alive and p.vram_bytes:
                qid = queues.get(p.pid, 0)
                queues[p.pid] = qid + 1
                t[f"{pd}/queues/{qid}/gpuid"] = F(f"{gpu_id(g)}")
    return t


def amdgpu_tree(gpus: list[SimGPU], *, version: str, parameters: dict[str, str]) -> tuple[Tree, list[str]]:
    """Everything amdgpu adds while loaded; returns (entries, top-level paths to move on unload)."""
    tree: Tree = {}
    roots: list[str] = []
    for g in gpus:
        t, r = amdgpu_device_tree(g)
        tree.update(t)
        roots += r
    m = "sys/module/amdgpu"
    tree[f"{m}/version"] = F(f"{version}\n")
    tree[f"{m}/srcversion"] = F("C8C1A0B4D1B7B6A8F9E2B57\n")
    tree[f"{m}/initstate"] = F("live\n")
    tree[f"{m}/refcnt"] = F(f"{sum(len(g.processes) for g in gpus)}\n")
    tree[f"{m}/taint"] = F("OE\n")
    for k, v in parameters.items():
        tree[f"{m}/parameters/{k}"] = F(f"{v}\n")
    tree["sys/bus/pci/drivers/amdgpu/module"] = L("../../../../module/amdgpu")
    tree.update(kfd_tree(gpus))
    roots += [m, "sys/class/kfd", "sys/devices/virtual/kfd", "sys/bus/pci/drivers/amdgpu"]
    return tree, roots


def dev_tree(gpus: list[SimGPU], *, render_gid: int, video_gid: int, kfd_mode: int = 0o660,
             kfd_gid: int | None = None) -> tuple[Tree, list[str]]:
    """Device nodes as udev creates them on Ubuntu: systemd's 50-udev-default.rules
    gives renderD* and kfd GROUP="render" MODE=@GROUP_RENDER_MODE@, which Debian/
    Ubuntu build as 0660 (upstream default 0666), and other drm nodes GROUP="video".
    `kfd_gid` 0 with mode 0600 is the kernel's own node when no rule matched
    (ROCm/ROCT-Thunk-Interface#36: `crw------- 1 root root 234, 0 ... kfd`)."""
    t: Tree = {"dev/kfd": Dev(KFD_MAJOR, 0, kfd_mode, 0, render_gid if kfd_gid is None else kfd_gid)}
    for g in gpus:
        t[f"dev/dri/card{g.card}"] = Dev(DRM_MAJOR, g.card, 0o660, 0, video_gid)
        t[f"dev/dri/renderD{g.render_minor}"] = Dev(DRM_MAJOR, g.render_minor, 0o660, 0, render_gid)
    return t, list(t)

