"""Simulated thermal-throttling incidents, and a busy-but-healthy node that must stay healthy.

Values and lines with their sources:
- MI100 hwmon limits (edge/junction crit 100 C, emergency 105 C; mem crit 94 C, emergency 99 C;
  cap 290 W) and the kernel line `amdgpu 0000:29:00.0: WARN: GPU thermal throttling temperature
  reached, expect performance decrease. HBM.`: `sensors` and dmesg in ROCm/legacy-rocm-build#1468;
- MI300X under training load (junction 71-79 C, 682-728 W of a 750 W cap, SCLK 1618-1653 MHz,
  VRAM 43-75 %, GPU 100 %): rocm-smi in the AMD llama-lora blog
  (shared/reference/real-outputs/mi300x-rocm-smi-under-load.md);
- the SW CTF pair amdgpu prints before it powers the node off: ValveSoftware/Proton#8028 (journal);
- `amd-smi reset -o/--power-cap` ("Reset power capacity limit to max capable", bare metal) and
  `-g` taking a GPU index or BDF: ROCm/amdsmi amdsmi_cli/amdsmi_parser.py.
"""

from __future__ import annotations

from typing import Callable

from rocmdoctor.simnode.formats import amd_smi
from rocmdoctor.simnode.formats.kernel_lines import messages
from rocmdoctor.simnode.gpu import GIB, SimGPU
from rocmdoctor.simnode.scenarios import from_cases
from rocmdoctor.simnode.node import SimNode
from rocmdoctor.simnode.sysfs import hwmon_index, pci_dir
from rocmdoctor.simnode.scenarios.gpu_oom import healthy

RUNBOOK = "thermal-throttling"

#: (junction C, socket W, SCLK MHz, VRAM %) of the MI300X under load (llama-lora blog rocm-smi, two runs)
UNDER_LOAD = [(71.0, 682.0, 1653, 43), (79.0, 728.0, 1618, 75)]


def _hw(g: SimGPU) -> str:
    return f"/{pci_dir(g)}/hwmon/hwmon{hwmon_index(g)}"


def junction_crit() -> SimNode:
    """One MI100 (gfx908) under load with its junction at 101 C, over temp2_crit 100 C."""
    g = SimGPU(index=0, bdf="0000:29:00.0", device_id=0x738C, subsystem_device_id=0x0C34,
               market_name="AMD Instinct MI100", gfx_target="gfx908", vram_total=32752 * 1024 * 1024,
               vram_used=20 * GIB, edge_temp=88.0, junction_temp=101.0, mem_temp=90.0,
               junction_crit=100.0, junction_emergency=105.0, mem_crit=94.0, power_w=286.0, power_cap_w=290.0,
               sclk_mhz=1087, sclk_max_mhz=1502, mclk_mhz=1200, gfx_activity=100)
    node = SimNode("mi100-07", gpus=[g], description="MI100 junction over its critical limit")
    hw = _hw(g)
    # MI100 also has edge crit/emergency and mem emergency (sensors output of #1468)
    node.file(f"{hw}/temp1_crit", "100000\n", mode=0o444).file(f"{hw}/temp1_emergency", "105000\n", mode=0o444)
    node.file(f"{hw}/temp3_emergency", "99000\n", mode=0o444)
    for f, v in (("power1_cap_default", 290), ("power1_cap_max", 290)):
        node.file(f"{hw}/{f}", f"{v * 1_000_000}\n", mode=0o444)
    return node


def violation() -> SimNode:
    """MI300X GPU 2 at 100% busy: 37.5% thermal violation residency, SCLK 900 of 2100 MHz, junction 97 C."""
    node = healthy()
    g = node.gpus[2]
    g.gfx_activity, g.sclk_mhz, g.junction_temp, g.mem_temp = 100, 900, 97.0, 84.0
    g.power_w, g.thermal_violation_pct, g.throttle_status = 585.0, 37.5, "THROTTLED"
    g.vram_used = 120 * GIB
    return node


#: amd-smi whose `reset --power-cap -g BDF` really restores power1_cap from power1_cap_default
#: in the node's sysfs; `metric --json` answers the capped or the restored state from that file.
_AMD_SMI_CAP_STUB = r"""
T="$R/.sim/thermal"
case "$*" in
'reset --power-cap -g '*|'reset -o -g '*)
  b=$4; ok=0
  for f in "$R"/sys/bus/pci/devices/"$b"/hwmon/hwmon*/power1_cap; do
    [ -f "$f" ] || continue; cat "${f}_default" > "$f"; ok=1
  done
  [ $ok = 1 ] || { echo "AMDSMI_STATUS_INVAL - Invalid parameters: GPU $b not found" >&2; exit 1; }
  exit 0 ;;
'metric --json')
  if cmp -s "$R$(cat "$T/capfile")" "$R$(cat "$T/capfile")_default"; then cat "$T/metric.after"; else cat "$T/metric.before"; fi ;;
'list --json') cat "$T/list" ;;
'static --json') cat "$T/static" ;;
'process --json') cat "$T/process" ;;
'version') cat "$T/version" ;;
*) printf 'usage: amd-smi [-h] ...\namd-smi: error: unrecognized arguments: %s\n' "$*" >&2; exit 2 ;;
esac
"""


def power_capped() -> SimNode:
    """MI300X GPU 4 capped to 400 W (default 750 W), at the cap under full load; cool (64 C)."""
    node = healthy()
    g = node.gpus[4]
    g.gfx_activity, g.sclk_mhz, g.junction_temp, g.mem_temp = 100, 1105, 64.0, 55.0
    g.power_w, g.power_cap_w, g.power_violation_pct = 398.0, 400.0, 62.0
    g.vram_used = 140 * GIB
    before = amd_smi.render_metric_json(node.gpus)
    g.power_cap_w, g.power_violation_pct = 750.0, 0.0
    after = amd_smi.render_metric_json(node.gpus)
    static = amd_smi.render_static_json(node.gpus, driver_version=node.driver_version)
    g.power_cap_w = 400.0
    for name, text in (("metric.before", before), ("metric.after", after), ("static", static),
                       ("list", amd_smi.render_list_json(node.gpus)),
                       ("process", amd_smi.render_process_json(node.gpus)),
                       ("version", amd_smi.render_version(rocm=node.rocm_version or "N/A")),
                       ("capfile", f"{_hw(g)}/power1_cap\n".replace("\n", ""))):
        node.file(f"/.sim/thermal/{name}", text)
    node.stub("amd-smi", _AMD_SMI_CAP_STUB)
    return node


def busy_healthy() -> SimNode:
    """8x MI300X training at 100%: 71-79 C, 682-728 W of 750 W, SCLK ~1.6 GHz (real rocm-smi): healthy."""
    node = healthy()
    for g in node.gpus:
        t, w, mhz, vram = UNDER_LOAD[g.index % 2]
        g.junction_temp, g.mem_temp, g.power_w, g.sclk_mhz = t, t - 9.0, w, mhz
        g.gfx_activity, g.vram_used, g.mclk_mhz = 100, g.vram_total * vram // 100, 1300
    return node


#: (SCLK MHz, junction C, socket W) of three MI300X of ROCm/legacy-rocm-build#4414 at 100 % busy
HELD_LOW = [(59, 50.0, 157.0), (58, 48.0, 154.0), (56, 49.0, 156.0)]


def clock_held_low() -> SimNode:
    """8x MI300X at 100 % busy with their shader clock at 56-59 MHz (pp_dpm_sclk in its `S:` deep-sleep
    form), 48-50 C and ~155 W of 750 W, level auto, no violation: the readings of
    ROCm/legacy-rocm-build#4414, where the clock survived a reboot (firmware)."""
    node = healthy()
    for g in node.gpus:
        g.sclk_mhz, g.junction_temp, g.power_w = HELD_LOW[g.index % len(HELD_LOW)]
        g.gfx_activity, g.vram_used, g.mem_temp = 100, g.vram_total * 86 // 100, g.junction_temp - 8.0
    return node


def kernel_events() -> SimNode:
    """MI300X GPU 6 logged 'GPU thermal throttling temperature reached ... HBM.' earlier this boot."""
    node = healthy()
    node.add_kernel_log(messages("thermal", node.gpus[6].bdf), at=51840.25)
    return node


def thermal_shutdown_previous_boot() -> SimNode:
    """8x MI300X back up and cool after a night on which amdgpu powered it off: the previous boot's
    persistent journal ends with GPU 3's SW CTF pair (the lines of ValveSoftware/Proton#8028)."""
    node = healthy()
    node.previous_boot_log = [(48211.7 + i * 0.0001, m)
                              for i, m in enumerate(messages("thermal_shutdown", node.gpus[3].bdf))]
    return node


#: (name, description, builder, decisive step, diagnosis)
CASES: list[tuple[str, str, Callable[[], SimNode], str, str]] = [
    ("thermal-junction-crit", "MI100 junction at 101 C, over its temp2_crit of 100 C, under full load",
     junction_crit, "temps", "over-temperature"),
    ("thermal-violation", "MI300X GPU 2: 37.5% thermal violation residency, 900 of 2100 MHz at 100% busy",
     violation, "violations", "thermal-throttling"),
    ("power-capped", "MI300X GPU 4 capped at 400 W (default 750 W): power capped, not thermal (fixable)",
     power_capped, "power", "power-capped"),
    ("clock-held-low", "8x MI300X 100% busy at 56-59 MHz, 48-50 C, ~155 W of 750 W, no violation (#4414 readings)",
     clock_held_low, "clocks", "clock-low-unexplained"),
    ("thermal-kernel-events", "kernel log: 'GPU thermal throttling temperature reached ... HBM.' on GPU 6",
     kernel_events, "klog", "thermal-events-logged"),
    ("thermal-shutdown-previous-boot", "node back up after amdgpu powered it off: 'GPU over temperature range(SW CTF) detected!' in journalctl -k -b -1",
     thermal_shutdown_previous_boot, "klog", "gpu-thermal-shutdown"),
    ("busy-healthy", "8x MI300X at 100% near the 750 W cap, 71-79 C (real rocm-smi under load): healthy",
     busy_healthy, "temps", ""),
]


SCENARIOS = from_cases([c for c in CASES if c[0] != "busy-healthy"], (RUNBOOK,)) + \
    from_cases([c for c in CASES if c[0] == "busy-healthy"], (RUNBOOK, "gpu-oom"))
