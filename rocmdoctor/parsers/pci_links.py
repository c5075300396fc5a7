"""The PCIe path above each GPU, from `grep -H .` over the PCI core's sysfs files of every device on it.

Why the path and not the GPU's own link files: since Vega, AMD GPUs sit behind a PCIe switch inside
the package (upstream port 1002:1478/14a0, downstream port 1002:1479/14a1). The GPU function's
`current_link_*` describe that internal link, always at full speed; the slot's link is the one of
the upstream switch port (LACT#334, where `/sys/class/drm/card0/device/current_link_speed` said
`16.0 GT/s PCIe` on a 7800 XT whose slot ran at 8.0 GT/s, and the maintainer's answer: "On RDNA
GPUs the correct link speed isn't shown on the GPU device itself, but on a separate "upstream"
PCI device"; hwloc PR #406 shows the same pair of bridges above a Vega 20).

Format: `grep -H . FILE...` prints `PATH:VALUE`, the form of `grep . /sys/class/drm/card*/device/*_link_*`
in LACT#334; the probe lists the files of every device on the resolved path
`/sys/devices/pci0000:00/0000:00:03.1/0000:0b:00.0/0000:0c:00.0/0000:0d:00.0`, so the path itself
carries the topology. Values: pci-sysfs.c (`%s PCIe` speeds, decimal widths, `0x%04x` ids, `0x%06x` class).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser
from rocmdoctor.parsers.sysfs import parse_pcie_link_speed

_BDF = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
_ATTRS = ("vendor", "device", "class", "current_link_speed", "current_link_width", "max_link_speed", "max_link_width")
_LINE = re.compile(r"^(?P<path>\S*/sys/devices/\S+?)/(?P<attr>" + "|".join(_ATTRS) + r"):(?P<value>.*)$")
_AMD = "0x1002"


def _chain(path: str) -> list[str]:
    """The PCI addresses along /sys/devices/pciDDDD:BB/<bdf>/<bdf>/..., root port first."""
    tail = path[path.index("/sys/devices/") + len("/sys/devices/"):].split("/")
    return [p for p in tail[1:] if _BDF.match(p)]


def _device(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "bdf": entry["bdf"], "parent": entry["parent"],
        "vendor": entry.get("vendor"), "device": entry.get("device"), "class": entry.get("class"),
        "cur": entry.get("current_link_speed"), "width": entry.get("current_link_width"),
        "max": entry.get("max_link_speed"), "max_width": entry.get("max_link_width"),
    }


@parser("pci_link_tree")
def parse_pci_link_tree(text: str) -> dict[str, Any]:
    """Devices on the PCIe paths above the GPUs and, per GPU, the link that leaves its package.

    Returns `{devices: {bdf: {bdf, parent, vendor, device, class, cur, width, max, max_width}},
    gpus: [{bdf, link_bdf, port_bdf, internal: [bdf], cur, width, card_max, card_max_width,
    port_max, port_max_width}]}`; speeds are `pcie_link_speed` values ({gts, gen, raw}). A GPU is a
    device no other listed device sits under. `link_bdf` is the topmost AMD bridge directly above
    the GPU (its package's upstream switch port), else the GPU itself; `port_bdf` the port that
    link plugs into (root port or a platform switch's downstream port), None when the path shows
    none. `card_max*` are what the package can do, `port_max*` what the slot can. Empty text gives
    no devices. Raises ParseError on a line that is not `PATH:VALUE` of a PCI device file.
    """
    entries: dict[str, dict[str, Any]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        m = _LINE.match(line)
        if not m:
            raise ParseError(f"line {lineno} is not a PCI device file's PATH:VALUE: {line[:80]!r}")
        chain = _chain(m.group("path"))
        if not chain:
            raise ParseError(f"line {lineno} names no PCI device: {line[:80]!r}")
        bdf, attr, value = chain[-1], m.group("attr"), m.group("value").strip()
        for i, b in enumerate(chain):
            entries.setdefault(b, {"bdf": b, "parent": chain[i - 1] if i else None})
        if attr.endswith("_speed"):
            parsed: Any = parse_pcie_link_speed(value)
        elif attr.endswith("_width"):
            if not value.isdigit():
                raise ParseError(f"line {lineno}: {attr} is not a number: {value[:20]!r}")
            parsed = int(value)
        else:
            parsed = value.lower()
        entries[bdf][attr] = parsed
    devices = {b: _device(e) for b, e in entries.items()}
    parents = {d["parent"] for d in devices.values() if d["parent"]}
    gpus = []
    for bdf in sorted(b for b in devices if b not in parents):
        link, internal = devices[bdf], []
        while link["parent"] and devices[link["parent"]]["vendor"] == _AMD \
                and str(devices[link["parent"]]["class"] or "").startswith("0x0604"):
            link = devices[link["parent"]]
            internal.append(link["bdf"])
        port = devices.get(link["parent"] or "")
        gpus.append({
            "bdf": bdf, "link_bdf": link["bdf"], "port_bdf": port["bdf"] if port else None, "internal": internal,
            "cur": link["cur"], "width": link["width"], "card_max": link["max"], "card_max_width": link["max_width"],
            "port_max": port["max"] if port else None, "port_max_width": port["max_width"] if port else None,
        })
    return {"devices": devices, "gpus": gpus}
