"""Which PCI BARs the kernel failed to place, and whether it placed them later.

A "no space" line alone proves little: servers print them at every boot for SR-IOV virtual
functions nobody uses, and the kernel's reallocation (`pci=realloc`, turned on by itself when
SR-IOV BARs are left unassigned) often places a BAR after failing it. What stops amdgpu is a
BAR of the GPU itself that is still unplaced at the end: ROCm/ROCm#6281, where an MI210's SR-IOV
virtual function (a 64 GiB VF BAR 0) took the space in the reallocation and the GPU's own
512 KiB register BAR 5 was never placed again (`pci=realloc=off` fixed it). The lines
(drivers/pci/setup-res.c) are read by the `kernel_events` classes `pci_bar` and
`pci_bar_assigned`, old form ("BAR 7: no space for [mem size 0x00100000 64bit]") and the form
of Linux 6.7 and later ("VF BAR 0 [mem size 0x1000000000 64bit pref]: can't assign; no space").
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import parsed, parser

_SIZE = re.compile(r"size (?P<size>0x[0-9a-f]+)")
#: the resource numbers of SR-IOV BARs in the older form (include/linux/pci.h PCI_IOV_RESOURCES)
_IOV_RESNOS = range(7, 13)
#: the expansion ROM in the older form (PCI_ROM_RESOURCE); the newer form names it "ROM", not "BAR"
_ROM_RESNO = 6


def _size_bytes(res: str) -> int | None:
    m = _SIZE.search(res)
    return int(m.group("size"), 16) if m else None


@parser("pci_bar_placement")
def parse_pci_bar_placement(text: str) -> list[dict[str, Any]]:
    """The BARs the PCI core failed to place, in the order of their first failure line.

    Returns `[{"bdf", "bar", "placed": bool, "vf": bool, "rom": bool, "size": int|None,
    "failures": int, "line": str}]`, one row per device and BAR with at least one failure line;
    `bar` is the resource as the kernel names it ("BAR 5", "VF BAR 0"), `placed` whether an
    "assigned" line for it follows its last failure, `vf` whether it belongs to SR-IOV virtual
    functions (the "VF" prefix, or resource 7-12 in the older form), `rom` whether it is the
    expansion ROM (resource 6 in the older form: a driver runs without it), `size` its size in
    bytes when printed, `line` its last failure line. Raises ParseError like `kernel_log`.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for ev in parsed("kernel_events", text):   # the events the checks already parsed
        if ev["kind"] not in ("pci_bar", "pci_bar_assigned") or not ev["bdf"]:
            continue
        f = ev["fields"]
        key = (ev["bdf"], ("VF " if f.get("vf") else "") + "BAR " + f["bar"])
        if ev["kind"] == "pci_bar_assigned":
            if key in rows:
                rows[key]["placed"] = True
            continue
        res = f.get("new_res") or f.get("old_res") or ""
        row = rows.setdefault(key, {
            "bdf": key[0], "bar": key[1], "placed": False, "size": None, "failures": 0, "line": "",
            "vf": bool(f.get("vf")) or (not f.get("new_res") and int(f["bar"]) in _IOV_RESNOS),
            "rom": not f.get("vf") and not f.get("new_res") and int(f["bar"]) == _ROM_RESNO})
        row.update(placed=False, line=ev["line"], failures=row["failures"] + 1)
        row["size"] = _size_bytes(res) or row["size"]
    return list(rows.values())
