"""`lshw -C display` (or `-c video`): the display devices as lshw lists them, claimed or not.

Tickets paste it when lspci is not at hand, and it answers two questions lspci answers less
plainly: which display controllers the machine has at all (a VMware guest's only one is the
"SVGA II Adapter" of vendor VMware: no GPU was passed through), and whether a driver claimed
each (`*-display UNCLAIMED`, no `driver=` in its configuration).

Format (lshw src/core/print.cc, the default tree output): a node line `*-display`, with `:N`
when the class repeats and ` UNCLAIMED` / ` DISABLED` after it, then `key: value` lines
(description, product, vendor, physical id, bus info `pci@0000:03:00.0`, version, width,
clock, capabilities, configuration `driver=amdgpu latency=0`, resources). Real sample:
tests/fixtures/outputs/lshw/ (ROCm/ROCm#1636's VMware guest).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parser

_NODE = re.compile(r"^\s*\*-(?P<cls>[\w]+)(?::\d+)?(?P<flags>(?:\s+(?:UNCLAIMED|DISABLED))*)\s*$")
_FIELD = re.compile(r"^\s+(?P<key>[a-z][a-z ]{1,20}):\s(?P<value>.*?)\s*$")
_BUS = re.compile(r"^pci@(?P<bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])$")
_DRIVER = re.compile(r"(?:^|\s)driver=(?P<driver>\S+)")


@parser("lshw_display")
def parse_lshw_display(text: str) -> dict[str, Any]:
    """The display/video nodes of an lshw listing: `{devices: [{product, vendor, bdf, driver,
    claimed, line}]}`; an empty list for text that holds no lshw node (any log may be read
    with it). Never raises: a field it does not know is skipped."""
    devices: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        node = _NODE.match(raw)
        if node:
            current = None
            if node.group("cls") in ("display", "video"):
                current = {"product": None, "vendor": None, "bdf": None, "driver": None,
                           "claimed": "UNCLAIMED" not in node.group("flags"), "line": raw.strip()}
                devices.append(current)
            continue
        field = _FIELD.match(raw) if current is not None else None
        if not field or current is None:
            continue
        key, value = field.group("key"), field.group("value")
        if key in ("product", "vendor"):
            current[key] = value
        elif key == "bus info":
            bus = _BUS.match(value)
            current["bdf"] = bus.group("bdf") if bus else None
        elif key == "configuration":
            driver = _DRIVER.search(value)
            current["driver"] = driver.group("driver") if driver else None
    return {"devices": devices}
