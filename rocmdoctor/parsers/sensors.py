"""lm-sensors `sensors` text: the amdgpu chips' temperatures with their own limits.

Real form (ROCm/legacy-rocm-build#1468, MI100; ROCm/amdgpu#69, Vega with one `temp1`;
the RX 7900 XT case in tests/incidents/thermal-throttling/rx7900xt-zero-rpm-idle-sensors):

    amdgpu-pci-2900
    Adapter: PCI adapter
    vddgfx:       +0.62 V
    fan1:           0 RPM  (min =    0 RPM, max = 3850 RPM)
    edge:         +53.0°C  (crit = +100.0°C, hyst = -273.1°C)
                           (emerg = +105.0°C)
    mem:          +55.0°C  (crit = +94.0°C, hyst = -273.1°C)
    power1:       49.00 W  (cap = 290.00 W)

A chip is a line with no colon followed by `Adapter:`; a reading's limits may continue on
the next, indented line. The chip name `amdgpu-pci-BBSS` carries the PCI bus and slot.
Other chips (k10temp, nvme, ...) are kept by name only. The degree sign may be lost
(`Â°C`, `C`) when the text went through another encoding.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_NUM = r"([+-]?\d+(?:\.\d+)?)"
_DEG = r"\s*(?:°|Â°|º)?C"
_TEMP = re.compile(r"^(?P<label>[^:]{1,40}):\s+" + _NUM + _DEG + r"(?P<rest>.*)$")
_LIMIT = re.compile(r"(?P<name>crit|emerg|high|hyst|low|crit_hyst|emerg_hyst)\s*=\s*" + _NUM + _DEG)
_FAN = re.compile(r"^(?P<label>fan\d+):\s+(?P<rpm>\d+) RPM(?P<rest>.*)$")
_FAN_LIMIT = re.compile(r"(?P<name>min|max)\s*=\s*(?P<rpm>\d+) RPM")
_POWER = re.compile(r"^(?P<label>[^:]{1,40}):\s+" + _NUM + r" W(?:\s+\(cap = " + _NUM + r" W\))?")
_PCI_CHIP = re.compile(r"^(?P<driver>[\w-]+)-pci-(?P<bus>[0-9a-f]{2})(?P<slot>[0-9a-f]{2})$")


def _chip(name: str) -> dict[str, Any]:
    m = _PCI_CHIP.match(name)
    bus = f"{m.group('bus')}:{int(m.group('slot'), 16) >> 3:02x}" if m else None
    return {"chip": name, "driver": m.group("driver") if m else name.split("-")[0], "pci": bus,
            "temps": [], "fans": [], "power": []}


def _fan_pct(chip: dict[str, Any]) -> float | None:
    """The chip's first fan as a share of its maximum speed (None: no fan or no max)."""
    fan = chip["fans"][0] if chip["fans"] else None
    if not fan or not fan.get("max"):
        return None
    return round(100.0 * fan["rpm"] / fan["max"], 1)


@parser("sensors")
def parse_sensors(text: str) -> dict[str, Any]:
    """`sensors`: chips with temperatures (and crit/emerg limits), fans, power and cap."""
    chips: list[dict[str, Any]] = []
    lines = text.splitlines()
    current: dict[str, Any] | None = None
    last: dict[str, Any] | None = None
    for i, raw in enumerate(lines):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            current, last = None, None
            continue
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if ":" not in stripped and nxt.startswith("Adapter:"):
            current, last = _chip(stripped), None
            chips.append(current)
            continue
        if current is None:
            continue
        if stripped.startswith("(") and last is not None:  # limits continued on the next line
            for m in _LIMIT.finditer(stripped):
                last[m.group("name")] = float(m.group(2))
            continue
        if m := _FAN.match(stripped):
            fan = {"label": m.group("label"), "rpm": int(m.group("rpm"))}
            fan.update({f.group("name"): int(f.group("rpm")) for f in _FAN_LIMIT.finditer(m.group("rest"))})
            current["fans"].append(fan)
            last = None
        elif m := _TEMP.match(stripped):
            temp: dict[str, Any] = {"label": m.group("label").strip(), "temp": float(m.group(2))}
            temp.update({f.group("name"): float(f.group(2)) for f in _LIMIT.finditer(m.group("rest"))})
            current["temps"].append(temp)
            last = temp
        elif m := _POWER.match(stripped):
            current["power"].append({"label": m.group("label").strip(), "watts": float(m.group(2)),
                                     "cap": float(m.group(3)) if m.group(3) else None})
            last = None
        else:
            last = None
    if not chips:
        raise ParseError("no sensor chip (a name line followed by 'Adapter:') in the output")
    readings = [{"chip": c["chip"], "pci": c["pci"], "label": t["label"], "temp": t["temp"],
                 "crit": t.get("crit"), "emerg": t.get("emerg"), "fan_pct": _fan_pct(c)}
                for c in chips if c["driver"] == "amdgpu" for t in c["temps"]]
    fans = [{"chip": c["chip"], **f} for c in chips if c["driver"] == "amdgpu" for f in c["fans"]]
    return {"chips": chips, "readings": readings, "fans": fans}
