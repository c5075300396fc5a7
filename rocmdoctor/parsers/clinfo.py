"""`clinfo` output: which OpenCL platforms exist and how many devices each offers.

Tickets paste clinfo when rocminfo is not at hand; "AMD Accelerated Parallel
Processing" with `Number of devices 0` is ROCm's OpenCL runtime seeing no GPU,
while a Mesa platform (Clover, rusticl) listing the card says nothing about
ROCm. Two formats exist (real samples in tests/fixtures/outputs/clinfo/):

- ocl-icd/Oblomov `clinfo`: `  Platform Name     AMD Accelerated Parallel Processing`,
  `Number of devices     1`, each device opening with `  Device Name     gfx906`;
- AMD's own `clinfo` (`/opt/rocm/opencl/bin/clinfo`): the same keys followed by a
  colon, each device opening with `  Device Type:    CL_DEVICE_TYPE_GPU`.

In both, a platform's device list is announced by its `Platform Name` line
followed directly by `Number of devices`; the summary block at the top repeats
`Platform Name` without a count and is only used for the platform list.

Tickets also paste clinfo through grep, keeping only each device's board and
target (`rocm-clinfo | grep -P 'Board|gfx'`, ROCm/legacy-rocm-build#5696): no
platform lines survive, so those devices are returned without a platform and
nothing is said about device counts. The target a runtime reports against the
board it names is what shows a forced HSA_OVERRIDE_GFX_VERSION.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_KV = re.compile(r"^(?P<indent>\s*)(?P<key>[A-Za-z][^:]*?)(?::\s*|\s{2,})(?P<value>.*?)\s*$")
_PCI_E = re.compile(r"PCI-E,\s*(?:(?P<dom>[0-9a-f]{4}):)?(?P<bus>[0-9a-f]{2}):(?P<dev>[0-9a-f]{2})\.(?P<fn>[0-7])", re.I)
_PCI_AMD = re.compile(r"PCI\[\s*B#(?P<bus>\d+),\s*D#(?P<dev>\d+),\s*F#(?P<fn>\d+)\s*\]")
_END = ("NULL platform behavior", "ICD loader properties")
_BOARD_KEYS = ("Board name", "Device Board Name (AMD)")
ROCM_PLATFORM = "AMD Accelerated Parallel Processing"

# device keys of both formats -> our names
_DEVICE_KEYS = {
    "Device Name": "name", "Name": "name",
    "Device Type": "type",
    "Device Board Name (AMD)": "board", "Board name": "board",
    "Device Topology (AMD)": "topology", "Device Topology": "topology",
    "Device Vendor ID": "vendor_id", "Vendor ID": "vendor_id",
}


def _bdf(topology: str) -> str | None:
    """`PCI-E, 0d:00.0` or `PCI[ B#4, D#0, F#0 ]` (decimal) -> `0000:0d:00.0`."""
    m = _PCI_E.search(topology)
    if m:
        return f"{(m.group('dom') or '0000').lower()}:{m.group('bus').lower()}:{m.group('dev').lower()}.{m.group('fn')}"
    m = _PCI_AMD.search(topology)
    if m:
        return f"0000:{int(m.group('bus')):02x}:{int(m.group('dev')):02x}.{int(m.group('fn'))}"
    return None


@parser("clinfo")
def parse_clinfo(text: str) -> dict[str, Any]:
    """Platforms and their devices from `clinfo` (either format).

    Returns `{platforms: [{name, devices: int|None, device_list: [{name, type,
    board, topology, bdf, vendor_id}]}], rocm: {...}|None, devices: [...]}`;
    `devices` (per platform) is None for a platform listed in the summary whose
    device section was not printed (a cut paste). `type` is `GPU`/`CPU`/... (AMD's
    `CL_DEVICE_TYPE_GPU` shortened). `rocm` is the "AMD Accelerated Parallel
    Processing" platform, if any. The top-level `devices` lists every device with
    its `platform` (None in a grep'd paste). Raises ParseError when the text has
    neither a `Number of platforms` line nor a device's board line.
    """
    lines = text.splitlines()
    if not any(line.lstrip().startswith("Number of platforms") for line in lines):
        return _parse_grepped(lines)
    platforms: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    last_name: str | None = None
    current: dict[str, Any] | None = None
    device: dict[str, Any] | None = None
    amd_format = False
    for line in lines:
        if line.startswith(_END):
            break
        m = _KV.match(line)
        if not m:
            continue
        key, value = m.group("key").strip(), m.group("value")
        if key == "Number of platforms":
            amd_format = line.split("Number of platforms", 1)[1].lstrip().startswith(":")
            continue
        if key == "Platform Name":
            last_name = value
            if value not in platforms:
                platforms[value] = {"name": value, "devices": None, "device_list": []}
                order.append(value)
            current, device = None, None
            continue
        if key == "Number of devices":
            if last_name is None:
                continue
            current = platforms[last_name]
            current["devices"] = int(value) if value.isdigit() else None
            device = None
            continue
        if current is None or key not in _DEVICE_KEYS:
            continue
        field = _DEVICE_KEYS[key]
        opens = (key == "Device Type") if amd_format else (key == "Device Name")
        if opens or device is None:
            device = _new_device()
            current["device_list"].append(device)
        _set_field(device, field, value)
    result = [platforms[n] for n in order]
    devices = [{**d, "platform": p["name"]} for p in result for d in p["device_list"]]
    return {"platforms": result, "rocm": platforms.get(ROCM_PLATFORM), "devices": devices}


def _new_device() -> dict[str, Any]:
    return {"name": None, "type": None, "board": None, "topology": None, "bdf": None, "vendor_id": None}


def _set_field(device: dict[str, Any], field: str, value: str) -> None:
    """The first value of a device key wins (AMD's format repeats some further down)."""
    if field == "type":
        value = value.replace("CL_DEVICE_TYPE_", "")
    if field == "topology":
        device["bdf"] = _bdf(value)
    if device.get(field) is None:
        device[field] = value


def _parse_grepped(lines: list[str]) -> dict[str, Any]:
    """Device lines without their platform (a grep'd paste): each board line opens a device."""
    devices: list[dict[str, Any]] = []
    device: dict[str, Any] | None = None
    for line in lines:
        m = _KV.match(line)
        if not m or m.group("key").strip() not in _DEVICE_KEYS:
            continue
        key = m.group("key").strip()
        if key in _BOARD_KEYS or device is None:
            device = {**_new_device(), "platform": None}
            devices.append(device)
        _set_field(device, _DEVICE_KEYS[key], m.group("value"))
    if not any(d["board"] for d in devices):
        raise ParseError("not clinfo output: no `Number of platforms` line and no device board line")
    return {"platforms": [], "rocm": None, "devices": devices}
