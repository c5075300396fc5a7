"""`lspci` lines: which PCI functions exist, and (with -k) which driver holds each.

Numeric output is used because names depend on the node's pci.ids version;
ids do not. Format (pciutils lspci.c show_terse): `[dddd:]bb:dd.f cccc: vvvv:dddd
[(rev rr)] [(prog-if pp)]`; `-nn` output (`Class name [cccc]: Vendor name [vvvv:dddd]`)
is read too. Tickets also paste plain `lspci` (names only: the vendor and class
are recovered from pci.ids' stable names for AMD, nothing else is guessed), the
`-k` detail line `Kernel driver in use: amdgpu`, and busybox's form
`05:00.0 Class 0300: 1002:1638 amdgpu` (container images, Talos;
siderolabs/extensions#307). From `-vv` the PCIe link lines are kept (pciutils ls-caps.c
cap_express_link: `LnkCap:\tPort #N, Speed 8GT/s, Width x16, ...` and `LnkSta:\tSpeed
2.5GT/s, Width x16, ...`, with ` (ok)` / ` (downgraded)` after each value in newer pciutils):
tickets paste them for slow or failing transfers (ROCm/legacy-rocm-build#93).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_SLOT = r"(?P<slot>(?:[0-9a-f]{4,}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])"
_NUMERIC = re.compile(_SLOT + r" (?P<cls>[0-9a-f]{4}): (?P<vendor>[0-9a-f]{4}):(?P<device>[0-9a-f]{4})(?P<rest>.*)$")
_NAMED = re.compile(_SLOT + r" (?P<clsname>.*?) \[(?P<cls>[0-9a-f]{4})\]: (?P<name>.*) "
                    r"\[(?P<vendor>[0-9a-f]{4}):(?P<device>[0-9a-f]{4})\](?P<rest>.*)$")
_BUSYBOX = re.compile(_SLOT + r" Class (?P<cls>[0-9a-f]{4}): (?P<vendor>[0-9a-f]{4}):(?P<device>[0-9a-f]{4})"
                      r"(?: (?P<driver>\S+))?\s*$")
_PLAIN = re.compile(_SLOT + r" (?P<clsname>[A-Za-z][^:\[]*?): (?P<name>.+)$")
_DRIVER = re.compile(r"^\s+Kernel driver in use: (?P<driver>\S+)")
_SLOT_START = re.compile(r"^\s+" + _SLOT + r" ")
_LINK = re.compile(r"\bLnk(?P<which>Cap|Sta):\s+(?:Port #\d+, )?Speed (?P<speed>[\d.]+)GT/s(?: \((?P<sflag>ok|downgraded)\))?, "
                   r"Width x(?P<width>\d+)(?: \((?P<wflag>ok|downgraded)\))?")
#: pci.ids names (stable for decades) of the classes and vendors that matter here
_CLASS_NAMES = {"VGA compatible controller": "0300", "3D controller": "0302", "Display controller": "0380",
                "Processing accelerators": "1200"}
_VENDOR_NAMES = (("Advanced Micro Devices, Inc. [AMD/ATI]", "1002"), ("ATI Technologies Inc", "1002"),
                 ("Advanced Micro Devices, Inc. [AMD]", "1022"))
_REV = re.compile(r"\(rev (?P<rev>[0-9a-f]{2})\)")
#: what lspci prints for a device its pci.ids does not name (pciutils lib/names.c: "Device %04x")
_UNNAMED = re.compile(r"\] Device (?P<device>[0-9a-f]{4})\b")
_PROGIF = re.compile(r"\(prog-if (?P<progif>[0-9a-f]{2})")


@parser("lspci")
def parse_lspci(text: str) -> list[dict[str, Any]]:
    """PCI functions from `lspci -n -D` (or `-nn`).

    Returns `[{slot, class, vendor, device, rev, prog_if, driver, name}]`, ids as lower-case
    hex strings without 0x (`class` "1200", `vendor` "1002", `device` "74a1");
    from plain `lspci` the device id is None and class/vendor are None unless
    the name is one of AMD's (vendor 1002 GPU classes, 1022 CPU functions);
    `driver` from `-k` or busybox, else None; `name` the vendor and device name of
    `-nn` and plain output (pci.ids: "... Navi 21 [Radeon Pro V620 MxGPU]"), else None; plain
    output keeps the device id where lspci's pci.ids did not know the device ("[AMD/ATI] Device 164e");
    `slot` gets the `0000:` domain when lspci omitted it; `rev`/`prog_if` None
    when absent; `link_cap` / `link_sta` the first `LnkCap:` / `LnkSta:` line of `-vv`
    as `{gts, width, line, downgraded}` (`downgraded` None where lspci printed no ok/downgraded
    marks), else None. Other indented detail lines are skipped. Raises ParseError
    on a top-level line in no lspci form.
    """
    out: list[dict[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        # a device line a paste indented (a quote block, a copy from a web page) is still a device line; detail
        # lines (`Subsystem:`, `Kernel driver in use:`) never start with a slot
        if line[0] in " \t" and not _SLOT_START.match(line):
            d = _DRIVER.match(line)
            if d and out:
                out[-1]["driver"] = d.group("driver")
            k = _LINK.search(line)
            if k and out and out[-1]["link_" + k["which"].lower()] is None:
                flags = (k["sflag"], k["wflag"])
                out[-1]["link_" + k["which"].lower()] = {
                    "gts": float(k["speed"]), "width": int(k["width"]), "line": line.strip(),
                    "downgraded": ("downgraded" in flags) if any(flags) else None}
            continue
        line = line.strip()
        m = _NUMERIC.match(line) or _NAMED.match(line) or _BUSYBOX.match(line)
        plain = None if m else _PLAIN.match(line)
        if not m and not plain:
            raise ParseError(f"line {lineno} is not an `lspci` line: {line[:60]!r}")
        if plain:
            name = plain.group("name")
            vendor = next((vid for prefix, vid in _VENDOR_NAMES if name.startswith(prefix)), None)
            unnamed = _UNNAMED.search(name) if vendor else None
            dev = {"slot": plain.group("slot"), "class": _CLASS_NAMES.get(plain.group("clsname")),
                   "vendor": vendor, "device": unnamed.group("device") if unnamed else None, "rest": name, "name": name}
        else:
            dev = {"slot": m.group("slot"), "class": m.group("cls"), "vendor": m.group("vendor"),
                   "device": m.group("device"), "rest": m.groupdict().get("rest") or "",
                   "name": m.groupdict().get("name")}
        slot = dev["slot"]
        if slot.count(":") == 1:
            slot = "0000:" + slot
        rev = _REV.search(dev["rest"])
        progif = _PROGIF.search(dev["rest"])
        out.append({
            "slot": slot,
            "class": dev["class"],
            "vendor": dev["vendor"],
            "device": dev["device"],
            "rev": rev.group("rev") if rev else None,
            "prog_if": progif.group("progif") if progif else None,
            "driver": (m.groupdict().get("driver") if m else None),
            "name": dev["name"],
            "link_cap": None,
            "link_sta": None,
        })
    return out
