"""The state of one simulated GPU and its processes.

Renderers in `rocmdoctor.simnode.formats` turn these into the exact output of
real tools (amd-smi, rocm-smi, rocminfo, sysfs files); the simulated-node
builder writes them into a fake root tree. One model, many formats, so a
scenario changes a value once and every tool agrees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MIB = 1024 * 1024
GIB = 1024 * MIB


@dataclass
class SimProcess:
    pid: int
    name: str
    vram_bytes: int
    gtt_bytes: int = 2134016
    cpu_mem_bytes: int = 211795968
    user: str = "alice"
    state: str = "S"          # ps STAT letter: R, S, D, Z
    alive: bool = True        # False: gone from /proc but still listed by KFD (stale)


@dataclass(frozen=True)
class SimPciPort:
    """A bridge on the path from the root complex to a GPU, with its PCI core link files."""

    bdf: str
    vendor_id: int
    device_id: int
    cur_gts: float
    width: int
    max_gts: float
    max_width: int
    pci_class: int = 0x060400   # PCI bridge


@dataclass
class SimGPU:
    index: int
    bdf: str                                   # "0000:05:00.0"
    device_id: int = 0x74A1                    # MI300X
    vendor_id: int = 0x1002
    subsystem_device_id: int = 0x74A1
    revision: int = 0x00
    market_name: str = "AMD Instinct MI300X"   # amd-smi MARKET_NAME may be "MI300X-O"
    gfx_target: str = "gfx942"
    uuid: str = ""
    serial: str = ""
    vram_total: int = 196592 * MIB
    vram_used: int = 283 * MIB
    gtt_total: int = 128 * GIB
    gtt_used: int = 14 * MIB
    # temperatures in degrees C; MI300-class hwmon has no edge sensor (None)
    edge_temp: float | None = None
    junction_temp: float = 42.0
    mem_temp: float = 38.0
    # critical / emergency thresholds as hwmon exposes them; None = file absent (MI300)
    junction_crit: float | None = None
    junction_emergency: float | None = None
    mem_crit: float | None = None
    power_w: float = 132.0
    power_cap_w: float = 750.0
    power_cap_default_w: float = 750.0         # MI300X's default cap; power1_cap_max too
    sclk_mhz: int = 132
    sclk_max_mhz: int = 2100
    mclk_mhz: int = 900
    gfx_activity: int = 0
    mem_activity: int = 0                       # mem_busy_percent, amd-smi umc_activity
    throttle_status: str = "UNTHROTTLED"
    # violation residency percentages (amd-smi metric --json "throttle"); 0 = none
    thermal_violation_pct: float = 0.0
    power_violation_pct: float = 0.0
    ue_errors: int = 0
    ce_errors: int = 0
    pcie_speed_gts: float = 32.0
    pcie_width: int = 16
    pcie_max_speed_gts: float = 32.0
    pcie_max_width: int = 16
    #: bridges above the GPU, root port first (empty: the GPU hangs off the root bus)
    upstream: tuple[SimPciPort, ...] = ()
    #: pp_dpm_pcie text as amdgpu prints it ("0: 2.5GT/s, x1 310Mhz \n1: 8.0GT/s, x16 619Mhz *\n"); "" = no file
    pcie_dpm: str = ""
    processes: list[SimProcess] = field(default_factory=list)
    #: RAS blocks other than umc: block -> (ue, ce); umc comes from ue_errors/ce_errors
    ras_counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: ras/gpu_vram_bad_pages entries: (pfn, size, flag R|P|F)
    bad_pages: list[tuple[int, int, str]] = field(default_factory=list)
    #: AER statistics: "ERR_COR:<name>" / "ERR_FATAL:<name>" / "ERR_NONFATAL:<name>" -> count, names
    #: as drivers/pci/pcie/aer.c prints them (e.g. {"ERR_COR:BadTLP": 3, "ERR_FATAL:CmpltTO": 1})
    aer: dict[str, int] = field(default_factory=dict)
    hive_id: int | None = None                  # KFD hive_id; None = the node's shared hive
    #: pp_dpm_sclk levels in MHz for GPUs that print every level ("%d: %uMhz %s", Vega/Navi);
    #: empty: the MI300 (SMU 13.0.6) min/current/max form
    sclk_levels: tuple[int, ...] = ()
    perf_level: str = "auto"                    # power_dpm_force_performance_level
    #: fw_version/<name> files as amdgpu_ucode.c prints them ("0x%08x"), e.g. {"mes_fw_version": "0x00000083"};
    #: empty: no fw_version directory
    fw_versions: dict[str, str] = field(default_factory=dict)
    #: current_compute_partition / current_memory_partition as amdgpu prints them ("SPX", "NPS1");
    #: None: the GPU has no partition modes (pre-MI300), no file
    compute_partition: str | None = None
    memory_partition: str | None = None
    card: int = -1                              # DRM card number; default index
    render_minor: int = -1                      # renderD number; default 128 + index

    def __post_init__(self) -> None:
        if self.card < 0:
            self.card = self.index
        if self.render_minor < 0:
            self.render_minor = 128 + self.index
        if not self.uuid:
            self.uuid = f"{self.index:02x}ff74a1-0000-1000-80{self.index:02x}-e92b0a5d57c8"
        if not self.serial:
            self.serial = f"0xAF54E92B0A5D57{self.index:02X}"


# PCI addresses of the 8 OAM GPUs of a real MI300X platform (amd-smi list, AMD blog,
# shared/reference/real-outputs/mi300x-x8-amd-smi.md shows 05, 26, 46; the rest follow
# the same platform layout)
MI300X_BDFS = (
    "0000:05:00.0", "0000:26:00.0", "0000:46:00.0", "0000:65:00.0",
    "0000:85:00.0", "0000:a6:00.0", "0000:c6:00.0", "0000:e5:00.0",
)


def mi300x_gpus(count: int = 8) -> list[SimGPU]:
    return [SimGPU(index=i, bdf=MI300X_BDFS[i], compute_partition="SPX", memory_partition="NPS1") for i in range(count)]


def strix_halo_gpu(**state: Any) -> SimGPU:
    """The Ryzen AI MAX+ 395's Radeon 8060S (gfx1151, device 0x1586) at 0000:c5:00.0, as the Strix
    Halo threads show it (ROCm/TheRock#1054, ROCm/ROCm#5724), with a 120 W cap; `state` sets the
    memory pools, temperatures, power and firmware of the scenario."""
    return SimGPU(**{"index": 0, "bdf": "0000:c5:00.0", "device_id": 0x1586, "subsystem_device_id": 0x1586,
                     "market_name": "AMD Radeon 8060S", "gfx_target": "gfx1151",
                     "power_cap_w": 120.0, "power_cap_default_w": 120.0, **state})
