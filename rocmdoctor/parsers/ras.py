"""Hardware-fault counters in sysfs: amdgpu's retired-page list and the PCI core's AER counters.

Sources:
- `ras/gpu_vram_bad_pages` (amdgpu_ras.c, kernel-doc "gpu pfn : gpu page size : flags",
  printed with `"0x%08x : 0x%08x : %1s\n"`; flags R reserved, P pending, F unable to
  reserve; an empty file means no bad page; shared/reference/amdgpu-sysfs.md §10).
- `aer_dev_correctable` / `aer_dev_fatal` / `aer_dev_nonfatal` (drivers/pci/pcie/aer.c,
  `aer_stats_dev_attr`: one `"%s %llu\n"` line per error type, names such as `RxErr`,
  `BadTLP`, `Timeout`, then `"TOTAL_%s %llu\n"` (`TOTAL_ERR_COR`, `TOTAL_ERR_FATAL`,
  `TOTAL_ERR_NONFATAL`); Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_PAGE = re.compile(r"0x(?P<pfn>[0-9a-fA-F]+)\s*:\s*0x(?P<size>[0-9a-fA-F]+)\s*:\s*(?P<flag>[RPF])")


@parser("ras_bad_pages")
def parse_ras_bad_pages(text: str) -> dict[str, Any]:
    """The retired VRAM pages of one GPU.

    Returns `{pages: [{pfn: int, size: int, flag: "R"|"P"|"F"}], reserved: int,
    pending: int, failed: int, count: int}`. Raises ParseError on any other line.
    """
    pages = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _PAGE.fullmatch(line.strip())
        if not m:
            raise ParseError(f"line {lineno} is not `0xPFN : 0xSIZE : R|P|F`: {line[:60]!r}")
        pages.append({"pfn": int(m.group("pfn"), 16), "size": int(m.group("size"), 16), "flag": m.group("flag")})
    flags = [p["flag"] for p in pages]
    return {"pages": pages, "reserved": flags.count("R"), "pending": flags.count("P"),
            "failed": flags.count("F"), "count": len(pages)}


@parser("aer_counts")
def parse_aer_counts(text: str) -> dict[str, Any]:
    """One AER statistics file of a PCI device.

    Returns `{total: int, errors: {name: count}}` where `total` is the TOTAL_ERR_* line
    (or the sum of the others when a kernel omits it) and `errors` holds the non-zero
    per-type counts. Raises ParseError on a line that is not `name count`.
    """
    errors: dict[str, int] = {}
    total: int | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, _, count = line.strip().rpartition(" ")
        if not name or not count.isdigit():
            raise ParseError(f"line {lineno} is not `name count`: {line[:60]!r}")
        if name.startswith("TOTAL_"):
            total = int(count)
        elif int(count):
            errors[name.strip()] = int(count)
    if total is None and not errors and not text.strip():
        raise ParseError("empty AER statistics file")
    return {"total": total if total is not None else sum(errors.values()), "errors": errors}
