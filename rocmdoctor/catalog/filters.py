"""The filters rule expressions call on values read from a node (sizes, dates, sysfs maps, GPU product
names, the IOMMU mode, HSA_OVERRIDE_GFX_VERSION): plain functions of their arguments, kept apart from the
sandbox that runs them (catalog/expressions.py), which adds the filters that compile an expression.
"""

from __future__ import annotations

import os
import re
import shlex
import time
from typing import Any

from rocmdoctor.catalog.gpu_facts import (gfx_version_number, gpu_targets, job_release, last_listed, pci_gpu_targets,
                                          rocm_release, stated_gpu_targets, stated_release, stated_torch,
                                          therock_family_lacks, torch_wheel_lacks, version_key)
from rocmdoctor.catalog.known_bugs import amdgpu_oops, kernel_fix_status, known_bug_matches
from rocmdoctor.catalog.package_facts import own_soname_mismatch, rocm_package_releases
from rocmdoctor.catalog.release_bugs import documented_wrong_results, log_line_naming


def _bytes_h(value: Any) -> str:
    try:
        n = float(value)
    except (TypeError, ValueError):
        return str(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(value)


def _utc(value: Any) -> str:
    """Seconds since the epoch (a stat's mtime) as the date a person compares: `2025-09-18 11:09 UTC`."""
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(value)))
    except (TypeError, ValueError, OverflowError, OSError):
        return str(value)


def _regex_search(value: Any, pattern: str) -> str | None:
    m = re.search(pattern, str(value or ""), re.MULTILINE)
    if not m:
        return None
    return m.group(1) if m.groups() else m.group(0)


def _regex_findall(value: Any, pattern: str) -> list[Any]:
    return re.findall(pattern, str(value or ""), re.MULTILINE)


def _octal(value: Any) -> int:
    return int(str(value), 8)


def _dir_map(value: Any) -> dict[str, Any]:
    """{'/sys/bus/pci/devices/0000:05:00.0/vendor': x} -> {'0000:05:00.0': x}: sysfs globs by device."""
    return {os.path.basename(os.path.dirname(str(k))): v for k, v in dict(value or {}).items()}


def _join_maps(maps: Any) -> list[dict[str, Any]]:
    """{'used': {k: a}, 'total': {k: b}} -> [{'key': k, 'used': a, 'total': b}] over the first map's keys
    (sorted; a key missing from a later map gives None): lines up per-device sysfs values."""
    maps = dict(maps or {})
    if not maps:
        return []
    names = list(maps)
    first = dict(maps[names[0]] or {})
    return [{"key": k, **{n: dict(maps[n] or {}).get(k) for n in names}} for k in sorted(first)]


_DIGITS = re.compile(r"(\d+)")


def _quoted_from(items: Any, src: Any) -> list[dict[str, Any]]:
    """A parser's line records (`lineno`, `line`) each with `quote` = "<src>:<lineno>: <line>", so records read
    from several files keep the name of the file each came from when they are merged."""
    return [{**item, "quote": f"{src}:{item.get('lineno')}: {item.get('line')}"}
            for item in items or [] if isinstance(item, dict)]


def _natsort(value: Any) -> list[tuple[str, Any]]:
    """A glob's {path: value} as (path, value) pairs in natural order: `nodes/2` before `nodes/10`
    (KFD topology nodes, hwmon10), where `dictsort` would put `nodes/10` first."""
    def key(path: str) -> list[Any]:
        return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(path) if p]
    return sorted(dict(value or {}).items(), key=lambda kv: key(str(kv[0])))


# Words that name the vendor, a trademark or a form factor rather than the product: rocminfo
# says "AMD Radeon(TM) 8060S Graphics", clinfo "Radeon 8060S Graphics", AMD's tables "Radeon 8060S".
_PRODUCT_NOISE = re.compile(r"\(tm\)|\(r\)|[\u2122\u00ae]|\(?\b\d+gb\b\)?|\bradeon instinct\b|\b(?:amd|instinct|graphics|accelerator)\b")


def product_key(name: Any) -> str:
    """A GPU product name reduced to the words that tell products apart (lower case)."""
    return " ".join(_PRODUCT_NOISE.sub(" ", str(name or "").lower()).split())


def _product_target(name: Any, targets: Any) -> str | None:
    """The target (`gfx1151`) that `targets` ({gfx: [product names]}) gives the product `name`;
    None for an unknown or generic name, or one the table lists under two targets."""
    key = product_key(name)
    found = {gfx for gfx, names in dict(targets or {}).items() for n in names or [] if product_key(n) == key}
    return found.pop() if key and len(found) == 1 else None


def _used_by(modules: Any, user: str) -> list[str]:
    """The modules (a `proc_modules` or `lsmod` table, `{name: {deps: [...]}}`) that `user` uses,
    sorted: each names `user` among its holders. One of them proves `user` loaded even when a
    pasted `lsmod | grep` left `user`'s own line out."""
    return sorted(name for name, rec in dict(modules or {}).items() if user in ((rec or {}).get("deps") or []))


def _previous_boot_log(journal: Any, syslogs: Any) -> dict[str, Any]:
    """The previous boot's kernel events, wherever the node kept them: the journal's
    (`journalctl -k -b -1`, a persistent journal), else the first rsyslog file (`[[path,
    syslog_previous_boot result], ...]` in the order to try) that reaches back to a boot boundary.
    `{source, events, abrupt_end}`; `source` and `events` None when none does."""
    if journal is not None:
        return {"source": "journalctl -k -b -1", "events": journal, "abrupt_end": False}
    for path, read in syslogs or []:
        if read and read.get("found"):
            return {"source": path, "events": read["events"], "abrupt_end": bool(read.get("abrupt_end"))}
    return {"source": None, "events": None, "abrupt_end": False}


def _iommu_mode(domain: Any, cmdline: Any) -> str | None:
    """passthrough / translated / off / None from the kernel's "Default domain type" (`domain`, which
    decides) else a parsed command line: iommu=pt passes through, amd_iommu=off / intel_iommu=off /
    iommu=off turn it off, neither leaves the distributions' default (translated); None: no evidence.
    Shared by hw.pcie_link and slow.iommu_mode so both read the IOMMU the same way."""
    if domain:
        return "passthrough" if domain == "Passthrough" else "translated"
    if not cmdline:
        return None
    p = cmdline.get("params") or {}
    if p.get("iommu") == "pt" or p.get("iommu.passthrough") == "1":
        return "passthrough"
    if "off" in (p.get("amd_iommu"), p.get("intel_iommu"), p.get("iommu")):
        return "off"
    return "translated"


def _gfx_version_parts(value: Any) -> list[int]:
    """HSA_OVERRIDE_GFX_VERSION as the thunk reads it (libhsakmt topology.c: sscanf "%u.%u.%u%c" must give
    three numbers): [major, minor, stepping], or [] for an unset value or one the thunk rejects. Shared by the
    node's environment (runtime.gfx_override) and a job's log (runtime.gfx_override_logged)."""
    if value is None:
        return []
    parts = str(value).strip().split(".")
    if len(parts) != 3 or not all(re.fullmatch(r"[0-9]{1,3}", p) for p in parts):
        return []
    return [int(p) for p in parts]


VALUE_FILTERS = {
    "gfx_version_parts": _gfx_version_parts,
    "known_bug_matches": known_bug_matches,
    "log_line_naming": log_line_naming,
    "documented_wrong_results": documented_wrong_results,
    "amdgpu_oops": amdgpu_oops,
    "kernel_fix_status": kernel_fix_status,
    "iommu_mode": _iommu_mode,
    "previous_boot_log": _previous_boot_log,
    "product_target": _product_target,
    "pci_gpu_targets": pci_gpu_targets,
    "gpu_targets": gpu_targets,
    "rocm_release": rocm_release,
    "rocm_package_releases": rocm_package_releases,
    "own_soname_mismatch": own_soname_mismatch,
    "stated_release": stated_release,
    "job_release": job_release,
    "stated_gpu_targets": stated_gpu_targets,
    "torch_wheel_lacks": torch_wheel_lacks,
    "therock_family_lacks": therock_family_lacks,
    "stated_torch": stated_torch,
    "gfx_version_number": gfx_version_number,
    "last_listed": last_listed,
    "used_by": _used_by,
    "join_maps": _join_maps,
    "dir_map": _dir_map,
    "natsort": _natsort,
    "quoted_from": _quoted_from,
    "basename": lambda v: os.path.basename(str(v)),
    "dirname": lambda v: os.path.dirname(str(v)),
    "octal": _octal,
    "version_key": version_key,
    "version_sort": lambda v: sorted((x for x in (v or ()) if x is not None), key=version_key),
    "bytes_h": _bytes_h,
    "utc": _utc,
    "regex_search": _regex_search,
    "regex_findall": _regex_findall,
    "shquote": lambda v: shlex.quote(str(v)),
}
