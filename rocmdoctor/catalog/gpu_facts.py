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


def gpu_targets(nodes: Any, rocminfo: Any, static: Any = None, pci_table: Any = None) -> list[dict[str, Any]]:
    """The GPUs above the driver, `[{gfx, name, at, from}]` in HIP's order: the KFD topology's GPU nodes
    (`kfd_node` parser, natural order of node numbers), else rocminfo's GPU agents, else amd-smi static's
    rows; feature suffixes (gfx90a:sramecc+:xnack-) dropped. A rocminfo agent pasted without its ISA lines
    still names its PCI device id ("Chip ID"), which `pci_table` (data amd_pci_targets) turns into a target."""
    def num(path: str) -> tuple[int, str]:
        m = re.search(r"/nodes/(\d+)/", path)
        return (int(m.group(1)) if m else 0, path)
    kfd = [p for _, p in sorted(((num(k), v) for k, v in dict(nodes or {}).items()), key=lambda kv: kv[0])
           if p and p.get("simd_count", 0) > 0 and p.get("gfx")]
    if kfd:
        return [{"gfx": p["gfx"], "name": p.get("name") or p["gfx"], "at": p.get("bdf") or "a KFD node",
                 "from": "KFD topology"} for p in kfd]
    table = dict(pci_table or {})
    agents = []
    for a in dict(rocminfo or {}).get("gpu_agents") or []:
        row = table.get(f"{a.get('chip_id') or 0:04x}") or {}
        if not (a.get("gfx") or "").split(":")[0] and row.get("target"):
            a = {**a, "gfx": row["target"], "marketing_name": a.get("marketing_name") or row.get("name")}
        if (a.get("gfx") or "").split(":")[0]:
            agents.append(a)
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


_GFX_IN_TEXT = re.compile(r"\b(gfx(?:\d{3,4}[a-f]?|\d{2}[a-f]))\b", re.IGNORECASE)
_GFX_FAMILY = re.compile(r"\bgfx\d{0,3}x{1,3}\b", re.IGNORECASE)
_NAME_NOISE = {"amd", "ati", "radeon", "instinct", "graphics", "accelerator", "tm", "r", "series", "gpu", "card",
               "advanced", "micro", "devices", "inc", "oam", "sxm"}
_BRACKETS = re.compile(r"\[([^\]]+)\]")


def _tokens(name: str) -> tuple[str, ...]:
    """'AMD Radeon(TM) RX 7900XTX' -> ('rx', '7900', 'xtx'): the words and numbers that tell products apart."""
    return tuple(t for t in re.findall(r"[a-z]+|\d+", str(name).lower().replace("(tm)", " ")) if t not in _NAME_NOISE)


def _pci_product_names(name: str) -> list[str]:
    """pci.ids' bracketed list as product names: 'Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]' ->
    Radeon RX 470, Radeon RX 480, ..., 'Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]' -> Navi 21, Radeon RX
    6800, Radeon RX 6800 XT, Radeon RX 6900 XT (an item that starts with a digit takes the first item's words
    before its model number)."""
    out = [name.split("[")[0].strip()]
    for inner in _BRACKETS.findall(name):
        prefix = ""
        for group in inner.split(" / "):
            for item in group.split("/"):
                item = item.strip()
                if not item:
                    continue
                if item[0].isdigit():
                    item = prefix + item
                else:
                    words = item.split()
                    lead = next((i for i, w in enumerate(words) if any(c.isdigit() for c in w)), len(words))
                    prefix = " ".join(words[:lead]) + " " if lead else ""
                out.append(item)
    return out


def _product_index(products: Any, pci_devices: Any) -> dict[tuple[str, ...], str]:
    """Product-name tokens -> target, from data gfx_products and amd_pci_targets' names; a name that means two
    targets, or has no model number, is left out."""
    seen: dict[tuple[str, ...], set[str]] = {}
    for gfx, names in dict(products or {}).items():
        for n in names or ():
            seen.setdefault(_tokens(n), set()).add(gfx)
    for row in dict(pci_devices or {}).values():
        if row and row.get("target"):
            for n in _pci_product_names(str(row.get("name") or "")):
                seen.setdefault(_tokens(n), set()).add(row["target"])
    # a lone one- or two-digit number ("4" of some pci.ids name) is no product name: "RDNA4 gfx120x" is not gfx700
    return {k: v.pop() for k, v in seen.items() if len(v) == 1 and any(t.isdigit() or t == "vii" for t in k)
            and not (len(k) == 1 and k[0].isdigit() and len(k[0]) < 3)}


def _find_product(text: str, index: dict[tuple[str, ...], str]) -> tuple[str, str] | None:
    """(target, the words matched) for the longest product name in `text`; a leading 'rx' may be left out
    ('7900 XTX'), unless another model letter stands before the number (W7900, V620)."""
    toks = _tokens(text)
    best: tuple[int, str, tuple[str, ...]] | None = None
    for key, gfx in index.items():
        for k in (key, key[1:] if key[:1] == ("rx",) and len(key) > 1 else None):
            if not k:
                continue
            n = len(k)
            for i in range(len(toks) - n + 1):
                if toks[i:i + n] != k:
                    continue
                if k is not key and i > 0 and toks[i - 1].isalpha() and len(toks[i - 1]) <= 2:
                    continue
                if best is None or n > best[0]:
                    best = (n, gfx, key)
    return (best[1], " ".join(best[2])) if best else None


def stated_gpu_targets(stated: Any, products: Any, pci_devices: Any) -> list[dict[str, Any]]:
    """The GPUs a ticket states (parser stated_env), `[{gfx, name, at, lineno, line, from}]` like gpu_targets': a target
    written out (`(gfx1100)`, `gfx90a:sramecc+`) or a product name the data tables know."""
    out = []
    index: dict[tuple[str, ...], str] | None = None
    for g in dict(stated or {}).get("gpus") or []:
        text = str(g.get("text") or "")
        m = _GFX_IN_TEXT.search(text)
        if m:
            gfx = m.group(1).lower()
        elif _GFX_FAMILY.search(text):
            continue  # "gfx120x", "gfx11xx": a family of targets, not one; no product name is read around it
        else:
            index = index if index is not None else _product_index(products, pci_devices)
            found = _find_product(text, index)
            if not found:
                continue
            gfx = found[0]
        out.append({"gfx": gfx, "name": text, "at": f"line {g.get('lineno')}", "lineno": g.get("lineno"),
                    "line": g.get("line"), "field": g.get("field"), "from": f"the ticket states ({g.get('line')})"})
    return out


_WHEEL = re.compile(r"^(?P<torch>\d+\.\d+)\.\d+(?:\.dev\d{8})?\+rocm(?P<rocm>\d+(?:\.\d+){0,2})$")


def torch_wheel_lacks(named: Any, version: Any, since: Any) -> list[dict[str, Any]]:
    """The named GPUs (stated_gpu_targets' rows) whose target a PyTorch wheel of `version` ('2.5.1+rocm6.2', as
    download.pytorch.org tags it) cannot carry, by data pytorch_rocm_targets' `since`: each row with `needs`, the
    first torch release / ROCm build that may carry it. An untagged or unknown version lacks nothing."""
    m = _WHEEL.match(str(version or ""))
    if not m:
        return []
    torch_v, rocm_v = version_key(m.group("torch")), version_key(m.group("rocm"))
    out = []
    for row in named or ():
        rule = dict(since or {}).get(row.get("gfx")) or {}
        if not rule.get("torch") and not rule.get("rocm"):
            continue
        may = ((rule.get("torch") and torch_v >= version_key(rule["torch"]))
               or (rule.get("rocm") and rocm_v >= version_key(rule["rocm"])))
        if not may:
            needs = " or ".join(x for x in (f"torch {rule['torch']}" if rule.get("torch") else "",
                                            f"a +rocm{rule['rocm']} build" if rule.get("rocm") else "") if x)
            out.append({**row, "needs": needs})
    return out


def stated_release(stated: Any, said_by: str = "the ticket states") -> dict[str, Any]:
    """The ROCm release a ticket states, in rocm_release's shape (None values when it states none); `said_by`
    opens the evidence line."""
    rocm = dict(stated or {}).get("rocm") or {}
    version = rocm.get("version")
    series = _SERIES.match(version) if version else None
    return {"rocm": version, "series": series.group(1) if series else None,
            "source": f"{said_by}: {rocm.get('line')}" if version else None, "dkms_version": None}


def job_release(rocm_file: Any, dkms: Any, drivers: Any, stated: Any, logged: Any,
                attached: Any = None) -> dict[str, Any]:
    """The ROCm release a job runs, in rocm_release's shape: the node's (/opt/rocm/.info/version, amdgpu's DKMS
    version), else the release the ticket's report states, else one its log names, else one the ticket's other
    attachments name (a gdb backtrace through /opt/rocm-5.4.2/lib, an install log) when they all name the same
    release. Shared by rocm.gpu_supported and runtime.hip_soname_release, so both read the same release from the
    same evidence."""
    found = rocm_release(rocm_file, dkms, drivers)
    if found["rocm"]:
        return found
    for text in (stated, logged):
        said = stated_release(text)
        if said["rocm"]:
            return said
    return _attached_release(attached)


def _attached_release(attached: Any) -> dict[str, Any]:
    """The one release every attachment that names one agrees on (`{path: stated_env}` of /ticket/*)."""
    named = [stated_release(env, f"the ticket's {path.rsplit('/', 1)[-1]} names it")
             for path, env in sorted(dict(attached or {}).items()) if env]
    named = [rel for rel in named if rel["rocm"]]
    if not named or len({rel["rocm"] for rel in named}) != 1:
        return stated_release(None)
    return named[0]


def stated_torch(stated: Any, logged: Any, report: str, log: str) -> dict[str, Any]:
    """The PyTorch build a ticket names and the file it was read from: the report's stated environment first
    (collect_env, an issue form), else the job's log (a `torch version: ...` line in the venv). Shared by
    runtime.torch_build_stated and runtime.torch_build_targets, so both name the same wheel and file."""
    said = dict(stated or {}).get("torch")
    if said:
        return {"torch": said, "src": report}
    return {"torch": dict(logged or {}).get("torch"), "src": log}


_GFX_NAME = re.compile(r"^gfx(\d{1,2})([0-9a-f])([0-9a-f])$")


def gfx_version_number(gfx: Any) -> int | None:
    """A gfx target name as KFD's gfx_target_version (major*10000 + minor*100 + stepping: gfx90a -> 90010,
    gfx1100 -> 110000, gfx942 -> 90402), the number release-note tables key GPU ranges on; None for a name
    that is not one target (gfx11-generic, a typo)."""
    m = _GFX_NAME.match(str(gfx or "").lower())
    if not m:
        return None
    return int(m.group(1)) * 10000 + int(m.group(2), 16) * 100 + int(m.group(3), 16)


def therock_family_lacks(named: Any, artifacts: Any, families: Any) -> list[dict[str, Any]]:
    """The named GPUs (stated_gpu_targets' rows) whose target none of the TheRock families a ticket installs from
    (parser therock_artifacts' rows; data therock_families) carries: each row with `families` (the known families
    named, in order), `carries` (their targets) and `artifact` (the first artifact row). Nothing when the ticket
    names no known family: a family token TheRock never defined says nothing about what was installed."""
    table = dict(families or {})
    known = [a for a in (artifacts or ()) if a.get("family") in table]
    if not known:
        return []
    fams = list(dict.fromkeys(a["family"] for a in known))
    carries = list(dict.fromkeys(t for f in fams for t in table[f]))
    return [{**row, "families": fams, "carries": carries, "artifact": known[0]}
            for row in named or () if row.get("gfx") and row["gfx"] not in carries]
