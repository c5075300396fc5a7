"""Default answers of every simulated node's tools, from the shared renderers.

GPU tools (amd-smi, rocm-smi, rocminfo) come from rocmdoctor.simnode.formats
and answer differently while amdgpu is unloaded (real messages cited below);
kernel-log tools get amdgpu's init lines appended when `modprobe amdgpu` runs.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from rocmdoctor.simnode.formats import amd_smi, kernel, rocm_smi, rocminfo, system
from rocmdoctor.simnode.formats.kernel_lines import messages, with_bdf
from rocmdoctor.simnode.entries import Answer
from rocmdoctor.simnode.system import HOST_PCI

if TYPE_CHECKING:
    from rocmdoctor.simnode.node import SimNode

#: amd-smi when amdgpu is not loaded (ROCm/amdsmi#75, ROCm 6.x wording; exit 255 per the
#: ROCm-for-WSL capture quoted in public telemetry tests)
AMD_SMI_NO_DRIVER = ("ERROR:root:Unable to get devices, driver not initialized (amdgpu not found in modules)\n"
                     "ERROR:root:Unable to detect any GPU devices, check amdgpu version and module status "
                     "(sudo modprobe amdgpu)\n")
#: rocm-smi when amdgpu is not loaded: exit 0, nothing on stdout (ROCm/ROCm#2767, LUMI docs)
ROCM_SMI_NO_DRIVER = ("cat: /sys/module/amdgpu/initstate: No such file or directory\n"
                      "ERROR:root:Driver not initialized (amdgpu not found in modules)\n")
#: rocminfo when amdgpu is not loaded (ROCm/ROCm#2767)
ROCMINFO_NO_DRIVER = "ROCk module is NOT loaded, possibly no GPU devices\n"

BOOT_WALL = datetime(2024, 10, 1, 8, 0, 0)

# Generic boot lines of an Ubuntu 22.04 host before the GPU driver (the kernel's own banners).
_BOOT = [
    (0.0, "Linux version {kernel} (buildd@lcy02-amd64-025) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, "
          "GNU ld (GNU Binutils for Ubuntu) 2.38) #129-Ubuntu SMP"),
    (0.0, "Command line: {cmdline}"),
    (1.204118, "pci 0000:05:00.0: [1002:74a1] type 00 class 0x120000"),
    (4.912270, "mlx5_core 0000:0c:00.0: firmware version: 28.39.1002"),
]


def boot_lines(node: "SimNode") -> list[tuple[float, str]]:
    """The kernel's first lines of a boot of this node (its `Linux version` banner, command line, ...)."""
    return [(ts, m.format(kernel=node.kernel, cmdline=node.cmdline)) for ts, m in _BOOT]


def _answer(stdout: str, rc: int = 0, stderr: str = "") -> "Answer":

    return Answer(stdout, rc, stderr)


def amdgpu_init_lines(node: "SimNode", start: float) -> list[tuple[float, str]]:
    """amdgpu's healthy init messages (catalogue kernel_lines.HEALTHY_BOOT) moved to this node's GPUs."""
    head = ["[drm] amdgpu kernel modesetting enabled.", f"[drm] amdgpu version: {node.driver_version}",
            "amdgpu: Virtual CRAT table created for CPU", "amdgpu: Topology: Add CPU node"]
    out = [(start + i * 0.0004, m) for i, m in enumerate(head)]
    ts = start + 0.2
    healthy = dict.fromkeys(messages("healthy"))
    for g in node.gpus:
        for m in healthy:
            if m.startswith("amdgpu 0000:"):
                out.append((ts, with_bdf(m, g.bdf)))
                ts += 0.011
        out.append((ts, "amdgpu: Virtual CRAT table created for GPU"))
        out.append((ts + 0.0002, f"amdgpu: Topology: Add GPU node [0x{g.vendor_id:04x}:0x{g.device_id:04x}]"))
        out.append((ts + 0.0004, f"kfd kfd: added device {g.vendor_id:x}:{g.device_id:x}"))
        out.append((ts + 0.03, f"[drm] Initialized amdgpu 3.58.0 20150101 for {g.bdf} on minor {g.card}"))
        ts += 1.3
    return out


def _wall(ts: float) -> str:
    return (BOOT_WALL + timedelta(seconds=ts)).strftime("%b %d %H:%M:%S")


#: kernel-log commands every node answers (argv tail -> renderer over [(ts, msg)])
_KLOG = {
    "dmesg": {"": kernel.render_dmesg, "-k": kernel.render_dmesg},
    "journalctl": {
        "-k": None, "-k --no-pager": None, "-k -b --no-pager": None, "-k -b 0 --no-pager": None,
        "-k -o short-monotonic --no-pager": "mono",
    },
}


def _render_klog(tool: str, style: object, lines: list[tuple[float, str]], host: str) -> str:
    if tool == "dmesg":
        return kernel.render_dmesg(lines)
    if style == "mono":
        return kernel.render_journal_k_monotonic(lines, host)
    return kernel.render_journal_k([(_wall(ts), m) for ts, m in lines], host)


def kernel_log_answers(node: "SimNode") -> tuple[dict[str, dict[str, "Answer"]], list[tuple[str, str, str]]]:
    """(answers, appends): appends are (tool, argv, text) added to that answer by `modprobe amdgpu`."""
    boot = boot_lines(node)
    init = amdgpu_init_lines(node, 5.214) if node.gpus and node.amdgpu_installed else []
    later = amdgpu_init_lines(node, node.uptime_s) if init else []  # every `modprobe amdgpu` logs init
    base = sorted(boot + (init if node.amdgpu_loaded else []) + node.kernel_log, key=lambda line: line[0])
    answers: dict[str, dict[str, Answer]] = {}
    appends: list[tuple[str, str, str]] = []
    for tool, argvs in _KLOG.items():
        for argv, style in argvs.items():
            answers.setdefault(tool, {})[argv] = _answer(_render_klog(tool, style, base, node.name))
            if later:
                appends.append((tool, argv, _render_klog(tool, style, later, node.name)))
    # The boot before this one: only a persistent journal has it; without one journalctl says
    # so on stderr and exits 1 (wording as printed by systemd's journalctl, e.g. in WSL).
    if node.previous_boot_log:
        answers["journalctl"]["-k -b -1 --no-pager"] = _answer(
            _render_klog("journalctl", None, sorted(boot + node.previous_boot_log), node.name))
    else:
        answers["journalctl"]["-k -b -1 --no-pager"] = _answer(
            "", 1, "Data from the specified boot (-1) is not available: No such boot ID in journal\n")
    return answers, appends


def _lspci(node: "SimNode") -> str:
    devs = [{"slot": b, "class": f"{c >> 8:04x}", "vendor": f"{v:04x}", "device": f"{d:04x}"}
            for b, v, d, c, _, _ in HOST_PCI]
    devs += [{"slot": g.bdf, "class": "1200", "vendor": f"{g.vendor_id:04x}", "device": f"{g.device_id:04x}",
              "rev": f"{g.revision:02x}" if g.revision else None} for g in node.gpus]
    return kernel.render_lspci_n(sorted(devs, key=lambda d: d["slot"]))


def _modinfo(node: "SimNode") -> str:
    return kernel.render_modinfo({
        "filename": f"/lib/modules/{node.kernel}/updates/dkms/amdgpu.ko",
        "version": node.driver_version, "license": "GPL and additional rights", "description": "AMD GPU",
        "author": "AMD linux driver team", "firmware": ["amdgpu/gc_9_4_3_mec.bin", "amdgpu/gc_9_4_3_rlc.bin"],
        "srcversion": "C8C1A0B4D1B7B6A8F9E2B57", "alias": ["pci:v00001002d000074A1sv*sd*bc*sc*i*"],
        "depends": "amddrm_ttm_helper,amdttm,amdxcp,amddrm_buddy,drm_display_helper,amd_sched,amdkcl",
        "retpoline": "Y", "name": "amdgpu", "vermagic": f"{node.kernel} SMP mod_unload modversions ",
        "parm": ["ras_enable:Enable RAS features on the GPU (0 = disable, 1 = enable, -1 = auto (default)) (int)",
                 "bad_page_threshold:Bad page threshold(-1 = ignore threshold (default value), 0 = disable bad "
                 "page retirement, -2 = threshold determined by a formula) (int)"],
    })


def _processes(node: "SimNode") -> list[dict]:
    procs = [{"pid": 1, "stat": "Ss", "user": "root", "comm": "systemd"},
             {"pid": 1234, "stat": "Ss", "user": "root", "comm": "sshd"},
             {"pid": 2101, "stat": "Ssl", "user": "root", "comm": "slurmd"}]
    seen: set[int] = set()
    for g in node.gpus:
        for p in g.processes:
            if p.alive and p.pid not in seen:
                seen.add(p.pid)
                procs.append({"pid": p.pid, "stat": p.state + "l", "user": p.user, "comm": p.name[:15]})
    return sorted(procs, key=lambda p: p["pid"])


_RENDER_CACHE: dict[tuple, dict[str, str]] = {}


def _forced_target(value: str | None) -> str | None:
    """HSA_OVERRIDE_GFX_VERSION=11.0.0 -> gfx1100, as ROCr reads it; None when unset or not that form."""
    parts = (value or "").strip().split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return f"gfx{int(parts[0])}{int(parts[1])}{int(parts[2]):x}"


def _gpu_tool_texts(node: "SimNode") -> dict[str, str]:
    """GPU-tool outputs, memoized on the GPU state: a sweep materializes many nodes
    whose GPUs are identical, and the JSON renderers dominate materialize time."""
    forced = _forced_target(node.env.get("HSA_OVERRIDE_GFX_VERSION"))
    key = (repr(node.gpus), node.driver_version, node.rocm_version, forced)
    hit = _RENDER_CACHE.get(key)
    if hit is not None:
        return hit
    gpus, drv = node.gpus, node.driver_version
    # ROCr reports every GPU under the forced target (its agent Name and ISA); KFD, amd-smi and
    # rocm-smi keep the GPU's own (ROCm/legacy-rocm-build#5238: an MI210 listed as gfx1030)
    runtime_gpus = [dataclasses.replace(g, gfx_target=forced) for g in gpus] if forced else gpus
    texts = {
        "list --json": amd_smi.render_list_json(gpus),
        "static --json": amd_smi.render_static_json(gpus, driver_version=drv),
        "metric --json": amd_smi.render_metric_json(gpus),
        "process --json": amd_smi.render_process_json(gpus),
        "version": amd_smi.render_version(rocm=node.rocm_version or "N/A", amdgpu=drv),
        "version --json": amd_smi.render_version_json(rocm=node.rocm_version or "N/A", amdgpu=drv),
        "version-unloaded": amd_smi.render_version(rocm=node.rocm_version or "N/A", amdgpu="N/A"),
        "rocm-smi": rocm_smi.render_rocm_smi_json(gpus, driver_version=drv),
        "rocminfo": rocminfo.render_rocminfo(runtime_gpus),
    }
    if len(_RENDER_CACHE) > 256:
        _RENDER_CACHE.clear()
    _RENDER_CACHE[key] = texts
    return texts


def default_answers(node: "SimNode") -> tuple[dict, dict, list]:
    """(answers, answers while amdgpu is unloaded, appends)."""
    gpus = node.gpus
    a: dict[str, dict[str, Answer]] = {
        "uname": {"-r": _answer(node.kernel + "\n")},
        "lspci": {"-n -D": _answer(_lspci(node)), "-D -n": _answer(_lspci(node))},
        "ps": {"-e -o pid=,stat=,user=,comm=": _answer(system.render_ps(_processes(node)))},
        "scontrol": {"listpids": _answer(system.render_scontrol_listpids(
            [{"pid": p["pid"], "jobid": 4242, "stepid": 0, "localid": i, "globalid": i}
             for i, p in enumerate(q for q in _processes(node) if q["user"] != "root")]))},
        "kubectl": {f"get node {node.name} -o json": _answer(system.render_kubectl_node(node.name,
                                                              capacity_gpu=len(gpus), allocatable_gpu=len(gpus)))},
    }
    # the loader cache: the distribution's libdrm, and ROCm's own ahead of it where ROCm is installed;
    # ldconfig lists sonames in descending order (a stable sort keeps ROCm's copy first)
    libdrm = (system.LIBDRM_ROCM if node.rocm_version else []) + system.LIBDRM_DISTRO
    a["ldconfig"] = {"-p": _answer(system.render_ldconfig_cache(sorted(libdrm, key=lambda e: e[0], reverse=True)))}
    un: dict[str, dict[str, Answer]] = {}
    if node.amdgpu_installed:
        a["modinfo"] = {"amdgpu": _answer(_modinfo(node))}
        a["dkms"] = {"status": _answer(kernel.render_dkms_status([
            {"module": "amdgpu", "version": f"{node.driver_version}-2009582.22.04", "kernel": node.kernel,
             "status": "installed"}]))}
    else:
        a["modinfo"] = {"amdgpu": _answer("", 1, "modinfo: ERROR: Module amdgpu not found.\n")}
    if node.rocm_version and gpus:
        t = _gpu_tool_texts(node)
        a["amd-smi"] = {k: _answer(t[k]) for k in ("list --json", "static --json", "metric --json",
                                                  "process --json", "version", "version --json")}
        a["rocm-smi"] = {"--showallinfo --json": _answer(t["rocm-smi"])}
        a["rocminfo"] = {"": _answer(t["rocminfo"])}
        un["amd-smi"] = {k: _answer("", 255, AMD_SMI_NO_DRIVER) for k in a["amd-smi"]}
        un["amd-smi"]["version"] = _answer(t["version-unloaded"], 0, AMD_SMI_NO_DRIVER)
        un["rocm-smi"] = {k: _answer("", 0, ROCM_SMI_NO_DRIVER) for k in a["rocm-smi"]}
        un["rocminfo"] = {"": _answer(ROCMINFO_NO_DRIVER, 1)}
    return a, un, []


def failure_appends(node: "SimNode") -> list[tuple[str, str, str]]:
    """Kernel-log chunks a failing `modprobe amdgpu` adds (SimNode.unload_amdgpu(load_error_log=...))."""
    if not node.load_error_log:
        return []
    lines = [(node.uptime_s + i * 0.0013, m) for i, m in enumerate(node.load_error_log)]
    return [(tool, argv, _render_klog(tool, style, lines, node.name))
            for tool, argvs in _KLOG.items() for argv, style in argvs.items()]
