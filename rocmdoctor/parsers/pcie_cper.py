"""PCIe errors the platform firmware reported (APEI GHES, "firmware-first" error handling).

On servers whose BIOS owns PCIe error handling (Dell, HPE, most EPYC platforms) the kernel
never prints the native AER line ("PCIe Bus Error: severity=..."): the firmware hands it a
CPER record, and the kernel prints that record as a block (drivers/acpi/apei/ghes.c,
drivers/firmware/efi/cper.c `cper_print_pcie`, drivers/pci/pcie/aer.c `cper_print_aer`):

    {1}[Hardware Error]: event severity: fatal
    {1}[Hardware Error]:  Error 0, type: fatal
    {1}[Hardware Error]:   section_type: PCIe error
    {1}[Hardware Error]:   device_id: 0000:83:00.0
    {1}[Hardware Error]:   vendor_id: 0x1002, device_id: 0x738c
    {1}[Hardware Error]:   aer_uncor_status: 0x00008000, aer_uncor_mask: 0x00010000
    amdgpu 0000:83:00.0: aer_status: 0x00008000, aer_mask: 0x00010000
    amdgpu 0000:83:00.0: aer_layer=Transaction Layer, aer_agent=Completer ID

(ROCm/legacy-rocm-build#1493: 3x MI100 in a Dell R7525.) One record per device; the status
bits are named as aer.c names them.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parsed, parser

_HW = r"\[Hardware Error\]:\s+"
_SEVERITY = re.compile(_HW + r"event severity: (?P<severity>\w+)")
_TYPE = re.compile(_HW + r"Error \d+, type: (?P<type>[\w ]+?)\s*$")
_SECTION = re.compile(_HW + r"section_type: (?P<section>.+?)\s*$")
_DEVICE = re.compile(_HW + r"device_id: (?P<bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])")
_IDS = re.compile(_HW + r"vendor_id: 0x(?P<vendor>[0-9a-f]{4}), device_id: 0x(?P<device>[0-9a-f]{4})")
_UNCOR = re.compile(_HW + r"aer_uncor_status: (?P<status>0x[0-9a-f]+)")
_COR = re.compile(_HW + r"aer_cor_status: (?P<status>0x[0-9a-f]+)")
_STATUS = re.compile(r"aer_status: (?P<status>0x[0-9a-f]+), aer_mask:")
_LAYER = re.compile(r"aer_layer=(?P<layer>[A-Za-z ]+?), aer_agent=(?P<agent>[A-Za-z ]+?)\s*$")

#: uncorrectable status bits (PCIe base spec 7.8.4.2; drivers/pci/pcie/aer.c aer_uncorrectable_error_string)
UNCORRECTABLE_BITS = {
    4: "Data Link Protocol", 5: "Surprise Down Error", 12: "Poisoned TLP", 13: "Flow Control Protocol",
    14: "Completion Timeout", 15: "Completer Abort", 16: "Unexpected Completion", 17: "Receiver Overflow",
    18: "Malformed TLP", 19: "ECRC", 20: "Unsupported Request", 21: "ACS Violation",
    22: "Uncorrectable Internal Error", 23: "MC Blocked TLP", 24: "AtomicOp Egress Blocked",
    25: "TLP Prefix Blocked",
}


def error_names(status: str) -> list[str]:
    """The names of the uncorrectable error bits set in `status` ("0x00008000" -> ["Completer Abort"])."""
    value = int(status, 16)
    return [name for bit, name in sorted(UNCORRECTABLE_BITS.items()) if value >> bit & 1]


@parser("pcie_cper")
def parse_pcie_cper(text: str) -> list[dict[str, Any]]:
    """Firmware-reported PCIe error records, one per "[Hardware Error]" PCIe section.

    Returns `[{bdf, vendor, device, severity, type, uncor_status, cor_status, errors, layer,
    agent, driver, lines}]`: `severity` the event's ("fatal", "recoverable", "corrected"),
    `errors` the uncorrectable bits named, `layer`/`agent` and `driver` from the device's own
    lines after the block (None when absent), `lines` the raw lines as evidence. Sections of
    another type (memory, processor) are left out. Raises ParseError like `kernel_log`.
    """
    out: list[dict[str, Any]] = []
    severity: str | None = None
    current: dict[str, Any] | None = None
    for rec in parsed("kernel_log", text):
        msg = rec["msg"]
        if "[Hardware Error]:" in msg:
            if m := _SEVERITY.search(msg):
                severity, current = m.group("severity"), None
            elif m := _TYPE.search(msg):
                current = {"bdf": None, "vendor": None, "device": None, "severity": severity, "type": m.group("type"),
                           "uncor_status": None, "cor_status": None, "errors": [], "layer": None, "agent": None,
                           "driver": None, "lines": [rec["line"]]}
            elif current is not None:
                current["lines"].append(rec["line"])
                if (m := _SECTION.search(msg)) and m.group("section") == "PCIe error":
                    out.append(current)
                elif m := _DEVICE.search(msg):
                    current["bdf"] = m.group("bdf")
                elif m := _IDS.search(msg):
                    current["vendor"], current["device"] = m.group("vendor"), m.group("device")
                elif m := _UNCOR.search(msg):
                    current["uncor_status"] = m.group("status")
                    current["errors"] = error_names(m.group("status"))
                elif m := _COR.search(msg):
                    current["cor_status"] = m.group("status")
            continue
        # the device's own lines (aer.c cper_print_aer) follow the block
        if rec["bdf"] and out and out[-1]["bdf"] == rec["bdf"] and out[-1] is current:
            if _STATUS.search(msg) or _LAYER.search(msg):
                current["lines"].append(rec["line"])
                current["driver"] = current["driver"] or rec["driver"]
            if m := _LAYER.search(msg):
                current["layer"], current["agent"] = m.group("layer"), m.group("agent")
    return out
