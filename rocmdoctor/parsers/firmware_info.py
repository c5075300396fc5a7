"""amdgpu's debugfs `amdgpu_firmware_info`: the version of every firmware the GPU runs.

Format (amdgpu_kms.c amdgpu_debugfs_firmware_info_show, tests/fixtures/outputs/amdgpu_firmware_info):
`<NAME> feature version: <n>, firmware version: 0x%08x`, SMC with `program: <n>, ` before the
version and the decoded one after it, then `VBIOS version: <part>`. Read because a firmware release
can be the fault: MES 0x83 on GC 11.5 (ROCm/ROCm#5724). Tickets paste it indented or filtered with
`grep MES`; both are read.
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_LINE = re.compile(r"^\s*(?P<name>[A-Z][A-Z0-9_ ]*?) feature version: (?P<feature>\S+?), "
                   r"(?:program: (?P<program>\d+), )?firmware version: (?P<version>0x[0-9a-fA-F]+)")
_VBIOS = re.compile(r"^\s*VBIOS version: (?P<vbios>\S.*?)\s*$")


@parser("amdgpu_firmware_info")
def parse_firmware_info(text: str) -> dict[str, Any]:
    """Returns `{firmware: {NAME: {feature: str, version: int, hex: str}}, vbios: str|None}`
    (NAME as printed: `MES`, `MES_KIQ`, `TA RAS`, ...). Raises ParseError when no line has the
    format (not this file)."""
    firmware: dict[str, dict[str, Any]] = {}
    vbios: str | None = None
    for line in text.splitlines():
        if m := _LINE.match(line):
            firmware[m.group("name")] = {"feature": m.group("feature"), "version": int(m.group("version"), 16),
                                         "hex": m.group("version").lower()}
        elif m := _VBIOS.match(line):
            vbios = m.group("vbios")
    if not firmware:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        raise ParseError(f"not amdgpu_firmware_info: no '<NAME> feature version: ..., firmware version: 0x...' "
                         f"line (first line {first[:60]!r})")
    return {"firmware": firmware, "vbios": vbios}
