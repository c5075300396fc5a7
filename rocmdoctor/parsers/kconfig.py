"""Kernel build configuration lines (`/boot/config-$(uname -r)`, `/proc/config.gz`).

A kernel built without `CONFIG_HSA_AMD` has amdgpu (display) but no KFD: no
/dev/kfd, no compute, no ROCm; appliance distributions shipped that way
(Talos before siderolabs/pkgs#893, Flatcar before flatcar/scripts#4053).
Format (scripts/kconfig): `CONFIG_NAME=y|m|<number>|"string"` for a set option,
`# CONFIG_NAME is not set` for an offered but disabled one; an option whose
dependencies are not met is not written at all. The probe's gather prints
`== <source file>` first and then only the matching lines (`== none` when
neither file is readable).
"""

from __future__ import annotations

import re
from typing import Any

from rocmdoctor.parsers import ParseError, parser

_SET = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


@parser("kernel_config")
def parse_kernel_config(text: str) -> dict[str, Any]:
    """`{source: str|None, options: {NAME: value}, lines: {NAME: line}}`.

    A disabled option's value is "n"; string values keep their quotes as
    written. `source` comes from a `== FILE` header (None for `== none` or a
    paste without it). Raises ParseError when nothing in the text is a config line
    and no header says where it was looked for.
    """
    source: str | None = None
    header = False
    options: dict[str, str] = {}
    lines: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("== "):
            header = True
            name = line[3:].strip()
            source = None if name == "none" else name
            continue
        m = _SET.match(line)
        if m:
            options[m.group(1)], lines[m.group(1)] = m.group(2), line
            continue
        m = _UNSET.match(line)
        if m:
            options[m.group(1)], lines[m.group(1)] = "n", line
    if not options and not header:
        raise ParseError("no kernel config line (CONFIG_...=, # CONFIG_... is not set)")
    return {"source": source, "options": options, "lines": lines}
