"""Which GPUs a node or ticket has, by target, and which ROCm release it runs: read the same way by every
check that needs them (the supported-GPU lists, the iGPU readings, the known driver bugs, the OS matrix).

Each source is tried in the order that says most: the KFD topology (the driver's own gfx_target_version),
rocminfo's agents, `amd-smi static`; where nothing above the driver names a target (amdgpu not loaded, a
ticket's lspci), the PCI device id read through data amd_pci_targets.
"""

from __future__ import annotations

import os
import re
from typing import Any

_LSPCI_VENDOR = re.compile(r"^(?:Advanced Micro Devices, Inc\. \[AMD/ATI\]|ATI Technologies Inc) ")
_LSPCI_TAIL = re.compile(r"(?: \((?:rev|prog-if) [^)]*\)?)+$")
_SERIES = re.compile(r"^(\d+\.\d+)")
_DKMS_SERIES = re.compile(r"^(\d+\.\d+)-\d+")
_DRIVER_KEY = re.compile(r"^(\d+\.\d+\.\d+)")
DKMS_MODULES = ("amdgpu", "rock-dkms", "amdgpu-dkms")


def _by_device(glob: Any) -> dict[str, str]:
    """{'/sys/bus/pci/devices/0000:05:00.0/vendor': '0x1002'} -> {'0000:05:00.0': '1002'}."""
    return {os.path.basename(os.path.dirname(str(k))): str(v or "").strip().removeprefix("0x")
            for k, v in dict(glob or {}).items()}


def pci_gpu_targets(vendors: Any, classes: Any, devices: Any, lspci: Any, table: Any) -> list[dict[str, Any]]:
    """The AMD GPUs on the PCI bus with the target data `amd_pci_targets` gives their device id:
    `[{slot, device, gfx, name}]` (gfx None for a device the table does not know). The sysfs globs of
    vendor/class/device when all three were read, else the `lspci` parser's rows; plain lspci without
    ids is matched by the exact pci.ids name it printed."""
    table = dict(table or {})
    if vendors and classes and devices:
        v, c, d = _by_device(vendors), _by_device(classes), _by_device(devices)
        rows = [{"slot": s, "vendor": v[s], "class": c.get(s, "")[:4], "device": d.get(s), "name": None} for s in sorted(v)]
    else:
        rows = [dict(r) for r in lspci or []]
    by_name = {row["name"]: dev for dev, row in table.items()}
    out = []
    for r in rows:
        if r.get("vendor") != "1002" or str(r.get("class") or "")[:2] not in ("03", "12"):
            continue
        dev = r.get("device") or by_name.get(_LSPCI_TAIL.sub("", _LSPCI_VENDOR.sub("", str(r.get("name") or ""))))
        row = table.get(dev or "") or {}
        out.append({"slot": r.get("slot"), "device": dev, "gfx": row.get("target"), "name": row.get("name") or r.get("name")})
    return out


def gpu_targets(nodes: Any, rocminfo: Any, static: Any = None) -> list[dict[str, Any]]:
    """The GPUs above the driver, `[{gfx, name, at, from}]` in HIP's order: the KFD topology's GPU nodes
    (`kfd_node` parser, natural order of node numbers), else rocminfo's GPU agents, else amd-smi static's
    rows; feature suffixes (gfx90a:sramecc+:xnack-) dropped."""
    def num(path: str) -> tuple[int, str]:
        m = re.search(r"/nodes/(\d+)/", path)
        return (int(m.group(1)) if m else 0, path)
    kfd = [p for _, p in sorted(((num(k), v) for k, v in dict(nodes or {}).items()), key=lambda kv: kv[0])
           if p and p.get("simd_count", 0) > 0 and p.get("gfx")]
    if kfd:
        return [{"gfx": p["gfx"], "name": p.get("name") or p["gfx"], "at": p.get("bdf") or "a KFD node",
                 "from": "KFD topology"} for p in kfd]
    agents = [a for a in (dict(rocminfo or {}).get("gpu_agents") or []) if (a.get("gfx") or "").split(":")[0]]
    if agents:
        return [{"gfx": a["gfx"].split(":")[0], "name": a.get("marketing_name") or a["gfx"],
                 "at": a.get("pci_bus") or f"agent {a.get('agent')}", "from": "rocminfo"} for a in agents]
    return [{"gfx": s["gfx_target"].split(":")[0], "name": s.get("market_name") or s["gfx_target"], "at": "amd-smi",
             "from": "amd-smi static"} for s in static or [] if s.get("gfx_target")]


def rocm_release(rocm_file: Any, dkms: Any, drivers: Any) -> dict[str, Any]:
    """The node's ROCm release: /opt/rocm/.info/version ("6.4.1-21"), else the release whose amdgpu DKMS
    driver `dkms status` lists (data rocm_supported_kernels' `drivers`: 6.12.12 -> 6.4; rock-dkms's
    "<series>-<build>"). `{rocm, series, source, dkms_version}`; values None where neither says."""
    dkms_version = next((r.get("version") for r in dkms or [] if r.get("module") in DKMS_MODULES and r.get("version")), None)
    dkms_series = None
    if dkms_version:
        key = _DRIVER_KEY.match(dkms_version)
        old = _DKMS_SERIES.match(dkms_version)
        dkms_series = dict(drivers or {}).get(key.group(1)) if key else None
        dkms_series = dkms_series or (old.group(1) if old else None)
    text = str(rocm_file or "").strip()
    rocm = text.split("-")[0] if text else dkms_series
    source = (f"cat /opt/rocm/.info/version: {text}" if text else
              f"dkms status: amdgpu {dkms_version} (the ROCm {dkms_series} driver)" if dkms_series else None)
    series = _SERIES.match(rocm) if rocm else None
    return {"rocm": rocm, "series": series.group(1) if series else None, "source": source, "dkms_version": dkms_version}


def version_key(value: Any) -> tuple[int, ...]:
    """'6.17' / '6.8.0-45-generic' -> (6, 17) / (6, 8, 0): kernel, driver and ROCm versions compared as numbers."""
    m = re.match(r"\d+(?:\.\d+)*", str(value or ""))
    return tuple(int(p) for p in m.group(0).split(".")) if m else ()


def last_listed(releases: Any, target: Any) -> str | None:
    """The newest release in data rocm_supported_gpus whose list (supported or deprecated) holds `target`,
    or None when no release ever listed it: what a ticket without the node's ROCm release can still be told."""
    holding = [str(r) for r, rel in dict(releases or {}).items()
               if target in [*((rel or {}).get("gfx") or ()), *((rel or {}).get("deprecated") or ())]]
    return max(holding, key=version_key) if holding else None
