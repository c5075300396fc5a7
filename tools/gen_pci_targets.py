"""Write rocmdoctor/catalog/data/amd_pci_targets.yaml: which LLVM target (gfx) each AMD GPU PCI device is.

    python tools/gen_pci_targets.py PCI_IDS ROCT_TOPOLOGY_C APU_CSV DGPU_CSV > rocmdoctor/catalog/data/amd_pci_targets.yaml

A node whose amdgpu did not load, and a ticket that pastes only `lspci`, name their GPUs by PCI device
id alone; no KFD topology, rocminfo or amd-smi says the target. This table lets `rocm.gpu_supported`
and the iGPU checks judge them anyway. Inputs, each public and named in the output:

- PCI_IDS: pci.ids from github.com/pciutils/pciids (the names lspci prints);
- ROCT_TOPOLOGY_C: src/topology.c of github.com/ROCm/ROCT-Thunk-Interface, whose gfxip_lookup_table
  maps device ids to GFX IP versions up to GFX 10.3 (AMD's own table; GFX11 and later were never added);
- APU_CSV / DGPU_CSV: Documentation/gpu/amdgpu/{apu,dgpu}-asic-info-table.csv of the Linux kernel
  (product and code name -> GC version), read through GC_TARGETS below (kgd2kfd_probe, kfd_device.c).

A device gets a target from, in order: AMD's thunk table; the product names pci.ids gives in brackets,
looked up in data/gfx_products.yaml; its code name in the kernel's APU table; the one target every other
device of its pci.ids code name resolved to. Anything else is left out: an unknown device is not judged.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rocmdoctor.catalog.filters import product_key  # noqa: E402

#: GC IP version -> KFD gfx_target_version, transcribed from kgd2kfd_probe() in
#: drivers/gpu/drm/amd/amdkfd/kfd_device.c (GC 10.3.7 is compiled as 10.3.6, GC 11.0.3 as 11.0.1,
#: GC 11.0.4 as 11.0.3; 9.4.3 depends on the revision and is left to product names).
GC_TARGETS = {
    "9.0.1": "gfx900", "9.1.0": "gfx902", "9.2.2": "gfx902", "9.2.1": "gfx904", "9.3.0": "gfx90c",
    "9.4.0": "gfx906", "9.4.1": "gfx908", "9.4.2": "gfx90a", "9.4.4": "gfx942",
    "10.1.10": "gfx1010", "10.1.2": "gfx1011", "10.1.1": "gfx1012", "10.1.3": "gfx1013", "10.1.4": "gfx1013",
    "10.3.0": "gfx1030", "10.3.2": "gfx1031", "10.3.1": "gfx1033", "10.3.4": "gfx1032", "10.3.5": "gfx1034",
    "10.3.3": "gfx1035", "10.3.6": "gfx1036", "10.3.7": "gfx1036",
    "11.0.0": "gfx1100", "11.0.1": "gfx1103", "11.0.4": "gfx1103", "11.0.2": "gfx1102", "11.0.3": "gfx1101",
    "11.5.0": "gfx1150", "11.5.1": "gfx1151", "11.5.2": "gfx1152", "12.0.0": "gfx1200", "12.0.1": "gfx1201",
}
#: Southern Islands (GFX6) devices, which neither the thunk table (KFD never ran on GFX6) nor the kernel's
#: tables resolve: device id -> chip, transcribed from pciidlist[] in drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c
#: (ROCm/amdgpu@031b3904, the CHIP_TAHITI ... CHIP_HAINAN rows), and chip -> target from the processor table of
#: llvm/docs/AMDGPUUsage.rst (gfx600 tahiti; gfx601 pitcairn, verde; gfx602 hainan, oland).
SI_CHIP_TARGETS = {"CHIP_TAHITI": "gfx600", "CHIP_PITCAIRN": "gfx601", "CHIP_VERDE": "gfx601",
                   "CHIP_OLAND": "gfx602", "CHIP_HAINAN": "gfx602"}
SI_PCIIDLIST = {
    "CHIP_TAHITI": "6780 6784 6788 678A 6790 6791 6792 6798 6799 679A 679B 679E 679F",
    "CHIP_PITCAIRN": "6800 6801 6802 6806 6808 6809 6810 6811 6816 6817 6818 6819",
    "CHIP_OLAND": "6600 6601 6602 6603 6604 6605 6606 6607 6608 6610 6611 6613 6617 6620 6621 6623 6631",
    "CHIP_VERDE": "6820 6821 6822 6823 6824 6825 6826 6827 6828 6829 682A 682B 682C 682D 682F 6830 6831 6835 6837 6838 6839 683B 683D 683F",
    "CHIP_HAINAN": "6660 6663 6664 6665 6667 666F",
}
_ROCT_ROW = re.compile(r'\{\s*0x([0-9A-Fa-f]{4}),\s*(\d+),\s*(\d+),\s*(\d+),\s*(?:\d+,\s*)?"([^"]*)"')
_DEVICE = re.compile(r"^\t([0-9a-f]{4})  (.+)$")
_BRACKET = re.compile(r"^(?P<code>[^\[]*?)\s*(?:\[(?P<products>.*)\])?$")


def amd_devices(pci_ids: str) -> dict[str, str]:
    """{device id: name} of vendor 1002 in pci.ids."""
    out: dict[str, str] = {}
    inside = False
    for line in pci_ids.splitlines():
        if line.startswith("1002  "):
            inside = True
            continue
        if inside and line and not line.startswith(("\t", "#")):
            break
        m = _DEVICE.match(line) if inside else None
        if m:
            out[m.group(1)] = m.group(2)
    return out


def roct_targets(topology_c: str) -> dict[str, tuple[str, str]]:
    """{device id: (gfx target, thunk's name)} from gfxip_lookup_table (major, minor, stepping)."""
    table = topology_c[topology_c.index("gfxip_lookup_table[] = {"):]
    table = table[: table.index("};")]
    return {m.group(1).lower(): (f"gfx{m.group(2)}{m.group(3)}{int(m.group(4)):x}", m.group(5))
            for m in _ROCT_ROW.finditer(table)}


def products(bracket: str) -> list[str]:
    """pci.ids' shorthand product list as whole names: "Radeon RX 7900 XT/7900 XTX" ->
    ["Radeon RX 7900 XT", "Radeon RX 7900 XTX"] (a piece starting with a digit takes the first
    piece's words before its model number)."""
    pieces = [p.strip() for p in re.split(r"\s*/\s*", bracket) if p.strip()]
    if not pieces:
        return []
    head = re.match(r"^(.*?)\b\d", pieces[0])
    prefix = head.group(1) if head else ""
    # an SR-IOV virtual function is its GPU's product: "Instinct MI300X VF", "Radeon Pro V620 MxGPU"
    return [re.sub(r" (?:VF|MxGPU)$", "", p if not p[0].isdigit() else prefix + p) for p in pieces]


def product_targets(names: list[str], table: dict[str, list[str]]) -> set[str]:
    keys = {product_key(n): gfx for gfx, ns in table.items() for n in ns}
    return {keys[product_key(n)] for n in names if product_key(n) in keys}


def apu_code_targets(apu_csv: str) -> dict[str, str]:
    """{normalised code name: target} from the kernel's APU table (one GC version only)."""
    out: dict[str, str] = {}
    for row in list(csv.reader(apu_csv.splitlines(), skipinitialspace=True))[1:]:
        gcs = [g.strip() for g in row[3].split("/")]
        gc = gcs[0] if gcs[0].count(".") == 2 else gcs[0] + ".0"
        target = GC_TARGETS.get(gc)
        for code in row[1].split("/"):
            if target and code.strip():
                out[_code(code)] = target
    return out


def _code(name: str) -> str:
    """A code name without spaces, case and the trailing die number pci.ids adds ("HawkPoint1")."""
    return re.sub(r"[\s_-]|\d+$", "", name.lower())


def build(pci_ids: str, topology_c: str, apu_csv: str, gfx_products: dict) -> dict[str, dict[str, str]]:
    names = amd_devices(pci_ids)
    thunk = roct_targets(topology_c)
    by_code = apu_code_targets(apu_csv)
    si_chips = {dev.lower(): chip for chip, ids in SI_PCIIDLIST.items() for dev in ids.split()}
    out: dict[str, dict[str, str]] = {}
    for dev, name in names.items():
        code, bracket = _split(name)
        if dev in thunk:
            out[dev] = {"target": thunk[dev][0], "name": name, "via": f"ROCT gfxip_lookup_table ({thunk[dev][1]})"}
            continue
        found = product_targets(products(bracket), gfx_products)
        if len(found) == 1:
            out[dev] = {"target": found.pop(), "name": name, "via": "pci.ids product name, gfx_products"}
        elif _code(code) in by_code:
            out[dev] = {"target": by_code[_code(code)], "name": name, "via": "kernel apu-asic-info-table code name"}
        elif dev in si_chips:
            out[dev] = {"target": SI_CHIP_TARGETS[si_chips[dev]], "name": name,
                        "via": f"amdgpu pciidlist ({si_chips[dev]}), AMDGPUUsage processor table"}
    # a device pci.ids names by code name only takes the one target its code name's other devices have
    code_of = {dev: _family(_split(name)[0]) for dev, name in names.items()}
    per_code: dict[str, set[str]] = {}
    for dev, row in out.items():
        per_code.setdefault(code_of[dev], set()).add(row["target"])
    for dev, name in names.items():
        seen = per_code.get(code_of[dev], set())
        if dev not in out and len(seen) == 1 and _is_gpu(name):
            out[dev] = {"target": next(iter(seen)), "name": name, "via": "its pci.ids code name's other devices"}
    return dict(sorted(out.items()))


def _family(code: str) -> str:
    """The die a pci.ids code name names: "Navi 32" of "Navi 32 GL-XL", "Vega 10" of "Vega 10 XT"."""
    m = re.match(r"[A-Za-z]+\d*(?: \d+)?", code.strip())
    return m.group(0).lower() if m else code.lower()


def _split(name: str) -> tuple[str, str]:
    """("Navi 31", "Radeon RX 7900 XT/7900 XTX") from "Navi 31 [Radeon RX 7900 XT/7900 XTX]"."""
    m = _BRACKET.match(name)
    return (m.group("code"), m.group("products") or "") if m else (name, "")


def _is_gpu(name: str) -> bool:
    """pci.ids names PCIe switch ports, audio and USB functions of a GPU board by the GPU's code name too."""
    return not re.search(r"(?i)audio|port|usb|switch|controller|coprocessor|sensor|i2c|acp|xhci", name)


def main(argv: list[str]) -> int:
    pci_ids, topology_c, apu_csv, dgpu_csv = (Path(a).read_text(errors="replace") for a in argv[1:5])
    del dgpu_csv  # read for the doc's cross-check only: its code names are blank from RDNA3 on
    gfx_products = yaml.safe_load((ROOT / "rocmdoctor/catalog/data/gfx_products.yaml").read_text())["targets"]
    rows = build(pci_ids, topology_c, apu_csv, gfx_products)
    print(HEADER.rstrip())
    print("devices:")
    for dev, row in rows.items():
        # JSON strings are YAML double-quoted scalars: one line a device, pci.ids' brackets kept
        print(f"  '{dev}': {{target: {row['target']}, name: {json.dumps(row['name'])}, via: {json.dumps(row['via'])}}}")
    return 0


HEADER = """\
# Which LLVM target (gfx) each AMD GPU is, by PCI device id: for a node whose amdgpu did not load
# and a ticket with only `lspci`, where no KFD topology, rocminfo or amd-smi names the target.
# GENERATED by tools/gen_pci_targets.py (see its docstring and docs/compatibility-data.md for the
# refresh); do not edit by hand. `via` says which source gave each row.
sources:
  - id: pci-ids
    title: "pci.ids (the names lspci prints)"
    url: https://github.com/pciutils/pciids
    revision: pciutils/pciids@c1c1254 (2026-08-22) pci.ids
  - id: roct-gfxip-table
    title: "ROCT-Thunk-Interface src/topology.c, gfxip_lookup_table (device id -> GFX IP major.minor.stepping)"
    url: https://github.com/ROCm/ROCT-Thunk-Interface/blob/06a9b94/src/topology.c
  - id: kernel-apu-table
    title: "Linux Documentation/gpu/amdgpu/apu-asic-info-table.csv (code name -> GC version)"
    url: https://github.com/torvalds/linux/blob/master/Documentation/gpu/amdgpu/apu-asic-info-table.csv
  - id: kfd-gc-targets
    title: "Linux drivers/gpu/drm/amd/amdkfd/kfd_device.c, kgd2kfd_probe (GC version -> gfx_target_version)"
    url: https://github.com/torvalds/linux/blob/master/drivers/gpu/drm/amd/amdkfd/kfd_device.c
  - id: amdgpu-pciidlist
    title: "Linux drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c, pciidlist[] (device id -> CHIP_*; the GFX6 rows only)"
    url: https://github.com/ROCm/amdgpu/blob/031b3904cbd2c8c7496f5886490f89f57fe1f896/drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c
  - id: llvm-amdgpu-usage
    title: "LLVM llvm/docs/AMDGPUUsage.rst, processors table (chip name -> gfx target)"
    url: https://github.com/llvm/llvm-project/blob/main/llvm/docs/AMDGPUUsage.rst
  - id: gfx-products
    title: "rocmdoctor's data/gfx_products.yaml (product name -> target; its own sources named there)"
"""

if __name__ == "__main__":
    sys.exit(main(sys.argv))
