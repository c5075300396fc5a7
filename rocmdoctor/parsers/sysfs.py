"""Value formats of amdgpu / KFD / PCI sysfs files that are more than one integer.

Sources (see /work/shared/reference/amdgpu-sysfs.md): `pp_dpm_*` lines
`"%d: %uMhz %s\n"` with `*` on the current level, and on MI300-class SMU an
extra first line `S: <clk>Mhz *` when the clock is in deep sleep
(smu_v13_0_6_ppt.c); `pp_dpm_pcie` lines `0: 2.5GT/s, x16 250Mhz *`; RAS
`<block>_err_count` = `ue: N\nce: N[\nde: N]` or `Query currently inaccessible`
(amdgpu_ras.c); KFD topology `properties` = `name value` lines
(kfd_topology.c); PCI `current_link_speed` = `32.0 GT/s PCIe` (pci-sysfs.c).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_LEVEL = re.compile(r"^(?P<idx>\d+|S):\s*(?P<body>.*?)\s*(?P<cur>\*)?\s*$")
_MHZ = re.compile(r"(?P<mhz>\d+)\s*Mhz", re.IGNORECASE)
_PCIE = re.compile(r"(?P<gts>[\d.]+)GT/s, x(?P<width>\d+)")


@parser("pp_dpm")
def parse_pp_dpm(text: str) -> dict[str, Any]:
    """DPM levels of a `pp_dpm_sclk`/`mclk`/`fclk`/`socclk`/`pcie` file.

    Returns `{levels: [{index: int, mhz: int|None, gts: float|None,
    width: int|None, current: bool}], current: int|"S"|None,
    current_mhz: int|None, deep_sleep: bool, max_mhz: int|None}`.
    `deep_sleep` is True when the current line is the MI300 `S:` line, or a
    middle level whose clock is below level 0 (MI300 sclk / RDNA3 idle form):
    idle, not throttled. Raises ParseError on a line that is not a DPM level.
    """
    levels: list[dict[str, Any]] = []
    current: int | str | None = None
    current_mhz = None
    deep_sleep = False
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _LEVEL.match(line.strip())
        if not m:
            raise ParseError(f"line {lineno} is not a DPM level: {line[:60]!r}")
        mhz_m = _MHZ.search(m.group("body"))
        pcie = _PCIE.search(m.group("body"))
        if not mhz_m and not pcie:
            raise ParseError(f"line {lineno} has no clock: {line[:60]!r}")
        mhz = int(mhz_m.group("mhz")) if mhz_m else None
        is_cur = bool(m.group("cur"))
        if m.group("idx") == "S":
            if is_cur:
                current, current_mhz, deep_sleep = "S", mhz, True
            continue
        idx = int(m.group("idx"))
        levels.append({"index": idx, "mhz": mhz, "gts": float(pcie.group("gts")) if pcie else None,
                       "width": int(pcie.group("width")) if pcie else None, "current": is_cur})
        if is_cur and current is None:
            current, current_mhz = idx, mhz
    if not levels:
        raise ParseError("no DPM levels")
    mhzs = [lv["mhz"] for lv in levels if lv["mhz"] is not None]
    # MI300 sclk and RDNA3 print the idle clock as a middle "1: 142Mhz *" level
    # below level 0: that is deep sleep too, not a throttled GPU.
    if isinstance(current, int) and current > 0 and current_mhz is not None and levels[0]["mhz"] \
            and current_mhz < levels[0]["mhz"]:
        deep_sleep = True
    return {"levels": levels, "current": current, "current_mhz": current_mhz,
            "deep_sleep": deep_sleep, "max_mhz": max(mhzs) if mhzs else None}


@parser("ras_err_count")
def parse_ras_err_count(text: str) -> dict[str, Any]:
    """Error counts of a RAS `<block>_err_count` file.

    Returns `{ue: int|None, ce: int|None, de: int|None, inaccessible: bool}`;
    `de` (deferred) only on kernels that print it; all None with
    `inaccessible: True` for `Query currently inaccessible` (e.g. right after a
    fatal RAS interrupt). Raises ParseError otherwise.
    """
    body = text.strip()
    if body == "Query currently inaccessible":
        return {"ue": None, "ce": None, "de": None, "inaccessible": True}
    out: dict[str, Any] = {"ue": None, "ce": None, "de": None, "inaccessible": False}
    for line in body.splitlines():
        m = re.fullmatch(r"(ue|ce|de):\s*(\d+)", line.strip())
        if not m:
            raise ParseError(f"not a RAS err_count line: {line[:60]!r}")
        out[m.group(1)] = int(m.group(2))
    if out["ue"] is None or out["ce"] is None:
        raise ParseError("RAS err_count without both `ue:` and `ce:` lines")
    return out


@parser("kfd_properties")
def parse_kfd_properties(text: str) -> dict[str, int]:
    """`name value` lines of a KFD topology `properties` file (node, mem_bank, io_link, cache).

    Returns `{name: int}` (all values are decimal integers in the kernel's
    format). Raises ParseError on any other line.
    """
    out: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not re.fullmatch(r"-?\d+", parts[1]):
            raise ParseError(f"line {lineno} is not `name value`: {line[:60]!r}")
        out[parts[0]] = int(parts[1])
    if not out:
        raise ParseError("empty KFD properties file")
    return out


@parser("kfd_node")
def parse_kfd_node(text: str) -> dict[str, Any]:
    """A KFD topology node's `properties`, plus the names checks compare with the world.

    Adds `gfx`: the LLVM target the runtime reports (`gfx_target_version` 90402 -> "gfx942",
    90010 -> "gfx90a", 100300 -> "gfx1030": major, minor, stepping in hex), None for a CPU
    node (version 0); and `bdf`: the PCI address from `domain` and `location_id`
    (bus << 8 | device << 3 | function), e.g. "0000:c1:00.0". Other fields as kfd_properties.
    """
    props: dict[str, Any] = dict(parse_kfd_properties(text))
    v = props.get("gfx_target_version", 0)
    props["gfx"] = f"gfx{v // 10000}{(v // 100) % 100}{v % 100:x}" if v else None
    loc = props.get("location_id", 0)
    props["bdf"] = f"{props.get('domain', 0):04x}:{loc // 256:02x}:{(loc // 8) % 32:02x}.{loc % 8:x}"
    return props


_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6, 128.0: 7}


@parser("pcie_link_speed")
def parse_pcie_link_speed(text: str) -> dict[str, Any]:
    """A PCI `current_link_speed` / `max_link_speed` value such as `32.0 GT/s PCIe`.

    Returns `{gts: float|None, gen: int|None, raw: str}`; `Unknown` (link down
    or speed not reported) gives `gts: None`. Old kernels' `8 GT/s` is read too.
    Raises ParseError on anything else.
    """
    raw = text.strip()
    if raw.lower().startswith("unknown"):
        return {"gts": None, "gen": None, "raw": raw}
    m = re.fullmatch(r"([\d.]+) GT/s(?: PCIe)?", raw)
    if not m:
        raise ParseError(f"not a PCIe link speed: {raw[:40]!r}")
    gts = float(m.group(1))
    return {"gts": gts, "gen": _GEN.get(gts), "raw": raw}


def _scaled(text: str, scale: int) -> float:
    value = text.strip()
    try:
        return int(value) / scale
    except ValueError:
        raise ParseError(f"not an integer hwmon value: {value[:40]!r}") from None


@parser("hwmon_milli")
def parse_hwmon_milli(text: str) -> float:
    """An hwmon value in milli-units (temp*_ millidegrees C, in*_input mV) as units (°C, V)."""
    return _scaled(text, 1000)


@parser("hwmon_micro")
def parse_hwmon_micro(text: str) -> float:
    """An hwmon value in micro-units (power1_average/_input/_cap microwatts) as watts."""
    return _scaled(text, 1_000_000)
